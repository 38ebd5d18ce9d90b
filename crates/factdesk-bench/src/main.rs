//! `factdesk-bench`: benchmarks that print figures. Not tests: nothing here passes or fails on
//! speed. `import-search` imports a JSONL corpus (made for the HaluEval news-summarization file,
//! 10k CNN/DailyMail articles) into a fresh data directory through the core API, then runs
//! sentence searches and reports import throughput, sentences indexed, search latency
//! percentiles and peak resident memory.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::io::BufRead;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::Context;
use clap::{Parser, Subcommand};
use factdesk_core::import::ImportRequest;
use factdesk_core::search::SearchRequest;
use factdesk_core::{CancelToken, Factdesk, NoProgress, Settings};

#[derive(Debug, Parser)]
#[command(name = "factdesk-bench", about = "Factdesk benchmarks (print figures)")]
struct Args {
    #[command(subcommand)]
    command: Bench,
}

#[derive(Debug, Subcommand)]
enum Bench {
    /// Import a JSONL corpus, then time sentence searches
    ImportSearch {
        /// The JSONL file (e.g. dataset_halueval_summarization.jsonl)
        file: PathBuf,
        /// Field holding each document's text
        #[arg(long, default_value = "document")]
        text_field: String,
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
        /// Data directory to use (default: a temporary one, deleted afterwards)
        #[arg(long)]
        data_dir: Option<PathBuf>,
        /// Print the figures as JSON
        #[arg(long)]
        json: bool,
    },
}

fn main() -> anyhow::Result<()> {
    match Args::parse().command {
        Bench::ImportSearch {
            file,
            text_field,
            query_field,
            queries,
            query_words,
            limit,
            data_dir,
            json,
        } => import_search(
            &file,
            &text_field,
            &query_field,
            queries,
            query_words,
            limit,
            data_dir,
            json,
        ),
    }
}

#[allow(clippy::too_many_arguments)]
fn import_search(
    file: &PathBuf,
    text_field: &str,
    query_field: &str,
    query_count: usize,
    query_words: usize,
    limit: usize,
    data_dir: Option<PathBuf>,
    json: bool,
) -> anyhow::Result<()> {
    let file_bytes =
        std::fs::metadata(file).with_context(|| format!("reading {}", file.display()))?.len();
    let queries = read_queries(file, query_field, query_count, query_words)?;
    anyhow::ensure!(
        !queries.is_empty(),
        "no line of {} has a \"{query_field}\" field",
        file.display()
    );

    let temporary = tempfile::tempdir()?;
    let data_dir = data_dir.unwrap_or_else(|| temporary.path().to_path_buf());
    let app = Factdesk::open_with_settings(&data_dir, Settings::default())?;

    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let started = Instant::now();
    let summary = runtime.block_on(app.import(
        ImportRequest {
            sources: vec![file.display().to_string()],
            corpus: "bench".into(),
            text_field: Some(text_field.into()),
            ..ImportRequest::default()
        },
        Arc::new(NoProgress),
        CancelToken::new(),
    ))?;
    let import_seconds = started.elapsed().as_secs_f64();

    // One warm-up pass over a few queries, then the timed pass.
    for query in queries.iter().take(20) {
        app.search(&SearchRequest {
            query: query.clone(),
            limit: Some(limit),
            ..SearchRequest::default()
        })?;
    }
    let mut latencies = Vec::with_capacity(queries.len());
    let mut hits_total = 0usize;
    for query in &queries {
        let started = Instant::now();
        let hits = app.search(&SearchRequest {
            query: query.clone(),
            limit: Some(limit),
            ..SearchRequest::default()
        })?;
        latencies.push(started.elapsed().as_secs_f64() * 1000.0);
        hits_total += hits.len();
    }
    latencies.sort_by(f64::total_cmp);
    let percentile = |p: f64| latencies[((latencies.len() as f64 - 1.0) * p).round() as usize];
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
        "search_ms_p50": percentile(0.50),
        "search_ms_p95": percentile(0.95),
        "search_ms_max": latencies.last().copied().unwrap_or_default(),
        "peak_rss_mb": peak_rss_kib().map(|kib| kib as f64 / 1024.0),
        "threads": std::thread::available_parallelism().map_or(1, |n| n.get()),
    });
    if json {
        println!("{}", serde_json::to_string_pretty(&figures)?);
    } else {
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
        match peak_rss_kib() {
            Some(kib) => println!("peak RSS             {:.0} MB", kib as f64 / 1024.0),
            None => println!("peak RSS             (not available on this platform)"),
        }
    }
    Ok(())
}

/// The first `words` words of `field` on each of the first `count` lines.
fn read_queries(
    file: &PathBuf,
    field: &str,
    count: usize,
    words: usize,
) -> anyhow::Result<Vec<String>> {
    let reader = std::io::BufReader::new(std::fs::File::open(file)?);
    let mut queries = Vec::with_capacity(count);
    for line in reader.lines() {
        if queries.len() == count {
            break;
        }
        let line = line?;
        let Ok(serde_json::Value::Object(object)) =
            serde_json::from_str::<serde_json::Value>(&line)
        else {
            continue;
        };
        if let Some(text) = object.get(field).and_then(|v| v.as_str()) {
            let query: Vec<&str> = text.split_whitespace().take(words).collect();
            if !query.is_empty() {
                queries.push(query.join(" "));
            }
        }
    }
    Ok(queries)
}

/// Peak resident set size of this process (Linux: VmHWM), in KiB.
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
}
