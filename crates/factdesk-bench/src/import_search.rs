//! `import-search`: imports a JSONL corpus into a data directory through the core API, then
//! times sentence searches on the full core path (index, SQLite join, snippets).
//!
//! Queries are the first words of a field of the same lines (HaluEval: each item's summary),
//! so each query has a right answer: its own line's document. Recall@k is the share of queries
//! with a sentence of that document among the k hits. `--export-queries` writes the queries
//! with their lines, so that `scripts/bench-peers.sh` runs the very same searches on other
//! engines over the sentences this import stored.

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::Context;
use factdesk_core::import::ImportRequest;
use factdesk_core::model::DocumentId;
use factdesk_core::search::SearchRequest;
use factdesk_core::{CancelToken, Factdesk, NoProgress, Settings};

#[derive(Debug, clap::Args)]
pub struct ImportSearch {
    /// The JSONL file (e.g. dataset_halueval_summarization.jsonl)
    file: PathBuf,
    /// Field holding each document's text
    #[arg(long, default_value = "document")]
    text_field: String,
    #[command(flatten)]
    search: QueryArgs,
    /// Data directory to use (default: a temporary one, deleted afterwards)
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// Largest file imported, in bytes [default: import.max_file_bytes]; a 1 GB file
    /// measures the import's memory on a large JSONL, which is streamed
    #[arg(long)]
    max_file_bytes: Option<u64>,
    /// Memory the index writer may use, in MiB [default: index.writer_memory_mb]
    #[arg(long)]
    writer_memory_mb: Option<usize>,
    /// Documents parsed and stored per batch [default: import.batch_documents]
    #[arg(long)]
    batch_documents: Option<usize>,
    /// Write the queries as JSON lines ({"line": n, "query": "...", "document": id}: the
    /// query's line and that line's imported document) to this file
    #[arg(long)]
    export_queries: Option<PathBuf>,
    /// Print the figures as JSON
    #[arg(long)]
    json: bool,
}

/// One search: the first words of line `line`'s query field.
#[derive(Debug)]
struct Query {
    /// 1-based line of the file, as in the imported documents' origins (`<path>:<line>`).
    line: usize,
    query: String,
}

/// `open-search`: a fresh process opens an existing data folder, times searches and reports
/// its resident memory once idle — what the CLI and the app hold for the library at that size.
#[derive(Debug, clap::Args)]
pub struct OpenSearch {
    /// The data folder (e.g. one `import-search --data-dir` filled)
    data_dir: PathBuf,
    /// A JSONL file whose lines' query field make the queries (first words of each)
    #[arg(long)]
    queries_from: PathBuf,
    #[command(flatten)]
    search: QueryArgs,
}

/// The searches both benchmarks time: the first words of a JSONL field, line by line.
#[derive(Debug, clap::Args)]
struct QueryArgs {
    /// Field whose first words make the search queries (one per line)
    #[arg(long, default_value = "right_summary")]
    query_field: String,
    /// Number of searches
    #[arg(long, default_value_t = 1000)]
    queries: usize,
    /// Words per query
    #[arg(long, default_value_t = 8)]
    query_words: usize,
    /// Hits per search
    #[arg(long, default_value_t = 10)]
    limit: usize,
}

pub fn open_search(bench: &OpenSearch) -> anyhow::Result<()> {
    let queries = read_queries(&bench.queries_from, &bench.search)?;
    anyhow::ensure!(!queries.is_empty(), "no queries in {}", bench.queries_from.display());
    let started = Instant::now();
    let app = Factdesk::open(&bench.data_dir)
        .with_context(|| format!("opening {}", bench.data_dir.display()))?;
    let open_ms = started.elapsed().as_secs_f64() * 1000.0;
    let opened_kib = crate::status_kib("VmRSS");
    let mut latencies = Vec::with_capacity(queries.len());
    for query in &queries {
        let started = Instant::now();
        app.search(&SearchRequest {
            query: query.query.clone(),
            limit: Some(bench.search.limit),
            ..SearchRequest::default()
        })?;
        latencies.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    latencies.sort_by(f64::total_cmp);
    let percentile = |p: f64| latencies[((latencies.len() as f64 - 1.0) * p).round() as usize];
    std::thread::sleep(std::time::Duration::from_secs(2));
    let idle_kib = crate::status_kib("VmRSS");
    let sentences = app.check_index().map(|check| check.index_sentences).ok();
    println!("data folder          {}", bench.data_dir.display());
    if let Some(sentences) = sentences {
        println!("sentences indexed    {sentences}");
    }
    println!("open                 {open_ms:.0} ms");
    println!(
        "search ({} queries)  p50 {:.3} ms, p95 {:.3} ms, max {:.3} ms (first searches of a \
         fresh process, the page cache warm)",
        latencies.len(),
        percentile(0.50),
        percentile(0.95),
        latencies.last().copied().unwrap_or_default()
    );
    let mb = |kib: Option<u64>| {
        kib.map_or("n/a".to_owned(), |kib| format!("{:.0} MB", kib as f64 / 1024.0))
    };
    println!("RSS after opening    {}", mb(opened_kib));
    println!("RSS idle after them  {} (peak {})", mb(idle_kib), mb(crate::status_kib("VmHWM")));
    Ok(())
}

pub fn run(bench: &ImportSearch) -> anyhow::Result<()> {
    let file = &bench.file;
    let file_bytes =
        std::fs::metadata(file).with_context(|| format!("reading {}", file.display()))?.len();
    let queries = read_queries(file, &bench.search)?;
    anyhow::ensure!(
        !queries.is_empty(),
        "no line of {} has a \"{}\" field",
        file.display(),
        bench.search.query_field
    );
    let temporary = tempfile::tempdir()?;
    let data_dir = bench.data_dir.clone().unwrap_or_else(|| temporary.path().to_path_buf());
    let mut settings = Settings::default();
    if let Some(max) = bench.max_file_bytes {
        settings.import.max_file_bytes = max;
    }
    if let Some(memory) = bench.writer_memory_mb {
        settings.index.writer_memory_mb = memory;
    }
    if let Some(batch) = bench.batch_documents {
        settings.import.batch_documents = batch;
    }
    let app = Factdesk::open_with_settings(&data_dir, settings)?;

    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let started = Instant::now();
    let summary = runtime.block_on(app.import(
        ImportRequest {
            sources: vec![file.display().to_string()],
            corpus: "bench".into(),
            text_field: Some(bench.text_field.clone()),
            ..ImportRequest::default()
        },
        Arc::new(NoProgress),
        CancelToken::new(),
    ))?;
    let import_seconds = started.elapsed().as_secs_f64();
    for failure in summary.failures.iter().take(5) {
        eprintln!("failed: {}: {}", failure.item, failure.message);
    }
    // Each line's document (a duplicate line names the document it repeats).
    let document_of_line: HashMap<usize, DocumentId> = summary
        .documents
        .iter()
        .filter_map(|document| {
            let line = document.origin.rsplit(':').next()?.parse().ok()?;
            Some((line, document.id))
        })
        .collect();
    if let Some(path) = &bench.export_queries {
        export_queries(path, &queries, &document_of_line)?;
    }

    let search = |query: &Query| {
        app.search(&SearchRequest {
            query: query.query.clone(),
            limit: Some(bench.search.limit),
            ..SearchRequest::default()
        })
    };
    // One warm-up pass over a few queries, then the timed pass.
    for query in queries.iter().take(20) {
        search(query)?;
    }
    let mut latencies = Vec::with_capacity(queries.len());
    let mut hits_total = 0usize;
    let mut found = 0usize;
    for query in &queries {
        let started = Instant::now();
        let hits = search(query)?;
        latencies.push(started.elapsed().as_secs_f64() * 1000.0);
        hits_total += hits.len();
        let own = document_of_line.get(&query.line);
        if hits.iter().any(|hit| Some(&hit.document_id) == own) {
            found += 1;
        }
    }
    latencies.sort_by(f64::total_cmp);
    let percentile = |p: f64| latencies[((latencies.len() as f64 - 1.0) * p).round() as usize];
    let recall = found as f64 / queries.len() as f64;
    let rss_kib = crate::status_kib("VmHWM");
    let figures = serde_json::json!({
        "file": file.display().to_string(),
        "file_mb": file_bytes as f64 / 1e6,
        "documents_imported": summary.imported,
        "documents_failed": summary.failed,
        "sentences_indexed": summary.sentences,
        "import_seconds": import_seconds,
        "import_mb_per_s": file_bytes as f64 / 1e6 / import_seconds,
        "queries": latencies.len(),
        "mean_hits": hits_total as f64 / latencies.len() as f64,
        "recall": recall,
        "search_ms_p50": percentile(0.50),
        "search_ms_p95": percentile(0.95),
        "search_ms_max": latencies.last().copied().unwrap_or_default(),
        "peak_rss_mb": rss_kib.map(|kib| kib as f64 / 1024.0),
        "threads": std::thread::available_parallelism().map_or(1, |n| n.get()),
    });
    if bench.json {
        println!("{}", serde_json::to_string_pretty(&figures)?);
        return Ok(());
    }
    println!("file                 {} ({:.1} MB)", file.display(), file_bytes as f64 / 1e6);
    println!("documents imported   {} ({} failed)", summary.imported, summary.failed);
    println!("sentences indexed    {}", summary.sentences);
    println!(
        "import               {:.2} s, {:.1} MB/s",
        import_seconds,
        file_bytes as f64 / 1e6 / import_seconds
    );
    println!(
        "search ({} queries)  p50 {:.3} ms, p95 {:.3} ms, max {:.3} ms, {:.1} hits/query",
        latencies.len(),
        percentile(0.50),
        percentile(0.95),
        latencies.last().copied().unwrap_or_default(),
        hits_total as f64 / latencies.len() as f64
    );
    println!(
        "recall@{}            {recall:.3} (the query's own document among the hits)",
        bench.search.limit
    );
    match rss_kib {
        Some(kib) => println!("peak RSS             {:.0} MB", kib as f64 / 1024.0),
        None => println!("peak RSS             (not available on this platform)"),
    }
    Ok(())
}

/// Writes each query with its line and its line's document id (JSON lines).
fn export_queries(
    path: &PathBuf,
    queries: &[Query],
    document_of_line: &HashMap<usize, DocumentId>,
) -> anyhow::Result<()> {
    let mut out = std::io::BufWriter::new(
        std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?,
    );
    for query in queries {
        let document = document_of_line.get(&query.line).map(|id| id.0);
        let record =
            serde_json::json!({"line": query.line, "query": query.query, "document": document});
        serde_json::to_writer(&mut out, &record)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(())
}

/// The first `words` words of `field` on each of the first `count` lines that have it.
fn read_queries(file: &PathBuf, args: &QueryArgs) -> anyhow::Result<Vec<Query>> {
    let (field, count, words) = (&args.query_field, args.queries, args.query_words);
    let reader = std::io::BufReader::new(
        std::fs::File::open(file).with_context(|| format!("cannot open {}", file.display()))?,
    );
    let mut queries = Vec::with_capacity(count);
    for (index, line) in reader.lines().enumerate() {
        if queries.len() == count {
            break;
        }
        let line = line?;
        let Ok(serde_json::Value::Object(object)) =
            serde_json::from_str::<serde_json::Value>(&line)
        else {
            continue;
        };
        if let Some(text) = object.get(field.as_str()).and_then(|v| v.as_str()) {
            let query: Vec<&str> = text.split_whitespace().take(words).collect();
            if !query.is_empty() {
                queries.push(Query { line: index + 1, query: query.join(" ") });
            }
        }
    }
    Ok(queries)
}
