//! `factdesk-bench claim-speed`: how long one claim sentence takes to check offline, the
//! product's path end to end (`Factdesk::verify_claim`: retrieval from the sentence index,
//! premises, the shipped verifier with its calibration and fact alignment, the check stored)
//! against a corpus of news articles. The articles are HaluEval news items of the dev slice
//! (summarization 7500–7999), imported into a fresh data directory through the core; the
//! claims are the first sentences of their right summaries. One claim is checked before the
//! timing starts (it loads the verifier); each timed claim is checked once, one after another.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::Context;
use factdesk_core::import::ImportRequest;
use factdesk_core::verify::{Method, NliChoice, VerifyOptions};
use factdesk_core::{CancelToken, Factdesk, NoProgress, Settings};

use crate::verifier::{Range, field, read_items};

/// What to measure.
#[derive(Debug, Clone, clap::Args)]
pub struct ClaimSpeed {
    /// The folder of HaluEval's JSONL files (scripts/bench-verifier.sh fetches them)
    pub data: PathBuf,
    /// Articles in the corpus
    #[arg(long, default_value_t = 100)]
    pub articles: usize,
    /// Claims timed (each the first sentence of an article's right summary)
    #[arg(long, default_value_t = 50)]
    pub claims: usize,
    /// Documents read per claim sentence [default: methods.corpus-nli.documents]
    #[arg(long)]
    pub documents: Option<usize>,
    /// Sentences per document [default: methods.corpus-nli.l]
    #[arg(long)]
    pub l: Option<usize>,
    /// The verifier's folder (default: the installed one)
    #[arg(long)]
    pub verifier: Option<PathBuf>,
}

pub fn run(bench: &ClaimSpeed) -> anyhow::Result<()> {
    let range = Range::Dev.items("summarization")?;
    let path = bench.data.join("dataset_halueval_summarization.jsonl");
    let items = read_items(&path, range, bench.articles)?;
    anyhow::ensure!(!items.is_empty(), "no items read from {}", path.display());
    let temporary = tempfile::tempdir()?;
    let corpus = temporary.path().join("articles.jsonl");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&corpus)?);
    let mut claims = Vec::new();
    for item in &items {
        let document = field(item, "document")?;
        writeln!(out, "{}", serde_json::json!({ "document": document }))?;
        let summary = field(item, "right_summary")?;
        if let Some(first) = factdesk_text::segment_sentences(summary, "en").first() {
            claims.push(first.slice(summary).trim().to_owned());
        }
    }
    out.flush()?;
    drop(out);
    claims.truncate(bench.claims + 1);
    anyhow::ensure!(claims.len() > 1, "fewer than two claims to time");

    let app = Factdesk::open_with_settings(&temporary.path().join("data"), Settings::default())?;
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let imported = runtime.block_on(app.import(
        ImportRequest {
            sources: vec![corpus.display().to_string()],
            corpus: "news".into(),
            text_field: Some("document".into()),
            ..ImportRequest::default()
        },
        Arc::new(NoProgress),
        CancelToken::new(),
    ))?;
    let folder = bench.verifier.clone().unwrap_or_else(factdesk_core::verify::verifier_folder);
    let options = VerifyOptions {
        method: Some(Method::CorpusNli),
        nli: Some(NliChoice::CrossEncoder(folder.display().to_string())),
        m: bench.documents,
        l: bench.l,
        corpora: vec!["news".into()],
        ..VerifyOptions::default()
    };
    // The first check loads the verifier.
    let started = Instant::now();
    runtime.block_on(app.verify_claim(&claims[0], &options)).context("the warm-up claim")?;
    let first = started.elapsed().as_secs_f64();
    let mut seconds = Vec::new();
    let mut premises = 0usize;
    for claim in &claims[1..] {
        let started = Instant::now();
        let check = runtime.block_on(app.verify_claim(claim, &options))?;
        seconds.push(started.elapsed().as_secs_f64());
        premises += check.check.premises.len();
    }
    seconds.sort_by(f64::total_cmp);
    let at = |share: f64| seconds[((seconds.len() - 1) as f64 * share).round() as usize];
    let mean = seconds.iter().sum::<f64>() / seconds.len() as f64;
    println!(
        "corpus: {} articles ({} sentences); verifier {}",
        imported.documents.len(),
        imported.sentences,
        folder.display()
    );
    println!("first check (loads the verifier) {first:.2} s");
    println!(
        "{} claims: mean {mean:.3} s, p50 {:.3} s, p95 {:.3} s per claim sentence; {:.1} premises judged per claim",
        seconds.len(),
        at(0.5),
        at(0.95),
        premises as f64 / seconds.len() as f64
    );
    Ok(())
}
