//! `factdesk-bench verifier`: how well judges of "does this evidence support this claim?"
//! separate supported from unsupported claims on HaluEval's evaluation range, with the
//! evidence given (no retrieval), by the rule every Factdesk method uses for long evidence and
//! multi-sentence claims (`factdesk_methods::grounding`: each claim sentence against its best
//! cumulative premises, max over premises, min over sentences).
//!
//! Judges: the trained verifier as Factdesk runs it (calibrated for premise size when its
//! folder holds `calibration.json`, `factdesk_methods::calibration`, and moved by fact
//! alignment, `factdesk_methods::facts`), the same without fact alignment, its model alone, the
//! lexical baseline (the share of the claim's content words found in the evidence),
//! LLM-instructed NLI with the embedded chat model, and the claim-only control (the verifier's
//! recipe trained without evidence, judged with every premise left empty). The calibrated and
//! the plain verifier share one pass of model calls: calibration only rescales each premise's
//! P(entailment). Items come from the evaluation range of `training/verifier/split.json`
//! (QA 5000–9999, summarization 8000–9999), or with `--dev` from its dev slice of the training
//! range (QA 4500–4999, summarization 7500–7999), the slice on which the grounding rule's
//! settings may be tuned; the dialogue file is not read.
//!
//! Files, one responsibility each:
//! - `data.rs`: the split file's ranges ([`Range`]) and the cases read from HaluEval's files.
//! - `support.rs`: the calibrated and fact-aligned supports of judged premises, the lexical
//!   baseline, and the premises' dump.
//! - `speed.rs`: judges timed and the claim-only control, and the verifier's raw speed.

mod data;
mod speed;
mod support;

use std::path::PathBuf;
#[cfg(feature = "embedded")]
use std::sync::Arc;
use std::time::Instant;

use anyhow::bail;
use factdesk_core::metrics::{BinaryFigures, Scored};
use factdesk_llm::Nli;
use factdesk_llm::cross_encoder::CrossEncoderNli;
#[cfg(feature = "embedded")]
use factdesk_llm::embedded::{EmbeddedModel, EmbeddedSettings};
#[cfg(feature = "embedded")]
use factdesk_llm::nli::LlmNli;
use factdesk_methods::calibration::{self, CalibrationWeights};
use factdesk_methods::grounding::{self, Grounding, GroundingConfig};

use self::data::{Case, cases};
pub use self::data::{Range, qa_claim};
pub(crate) use self::data::{field, read_items};
use self::speed::{ClaimOnly, SPEED_RUNS, raw_speed, throughput, timed};
use self::support::{calibrated_support, dump, lexical_support};
use crate::nli_cache::SharedNli;

/// What to measure.
#[derive(Debug, Clone)]
pub struct VerifierBench {
    /// The folder of HaluEval's JSONL files.
    pub data: PathBuf,
    pub qa_items: usize,
    pub summary_items: usize,
    /// Items of each file judged by the (slow) embedded chat model.
    pub llm_items: usize,
    pub range: Range,
    /// How premises are cut (`factdesk_methods::grounding`).
    pub grounding: GroundingConfig,
    pub verifier: PathBuf,
    pub control: Option<PathBuf>,
    /// Read only with the `embedded` feature (LLM-instructed NLI).
    #[cfg_attr(not(feature = "embedded"), allow(dead_code))]
    pub embedded_model: Option<PathBuf>,
    /// Where to write each claim's premises (text, P(entailment), sentence count, fact
    /// alignment) as JSON lines.
    pub dump: Option<PathBuf>,
    /// Where the verifier's judgements are kept between runs (`crate::nli_cache`).
    pub nli_cache: Option<PathBuf>,
    /// Fact-alignment weights judged in rows of their own, from the same model calls.
    pub alignment: Vec<factdesk_methods::facts::AlignmentWeights>,
    /// Whether the verifier's raw speed is measured.
    pub speed: bool,
    pub json: bool,
}

#[derive(Debug, serde::Serialize)]
struct Row {
    judge: String,
    dataset: String,
    claims: usize,
    figures: BinaryFigures,
    /// Swapped-evidence claims judged not supported.
    swapped_not_supported: Option<f64>,
    pairs: usize,
    pairs_per_second: f64,
}

/// Every case judged by `nli` under the grounding rule, in order.
async fn ground_all<'a>(
    name: &str,
    nli: &impl Nli,
    cases: &[&'a Case],
    config: &GroundingConfig,
) -> anyhow::Result<Vec<(&'a Case, Grounding)>> {
    let mut out = Vec::with_capacity(cases.len());
    for (done, case) in cases.iter().enumerate() {
        out.push((*case, grounding::ground(nli, &case.evidence, &case.claim, config).await?));
        if (done + 1) % 200 == 0 {
            eprintln!("  {name}: {} of {} claims", done + 1, cases.len());
        }
    }
    Ok(out)
}

/// One row per dataset from each case's P(supported).
fn rows(
    name: &str,
    scores: &[(&Case, f64)],
    (pairs, pairs_per_second): (usize, f64),
    threshold: f64,
) -> Vec<Row> {
    let mut rows = Vec::new();
    for dataset in ["qa", "summarization"] {
        let of: Vec<&(&Case, f64)> =
            scores.iter().filter(|(case, _)| case.dataset == dataset).collect();
        if of.is_empty() {
            continue;
        }
        let plain: Vec<Scored> = of
            .iter()
            .filter(|(case, _)| !case.swapped)
            .map(|(case, p)| Scored { supported: case.supported, probability: *p })
            .collect();
        let swapped: Vec<f64> =
            of.iter().filter(|(case, _)| case.swapped).map(|(_, p)| *p).collect();
        rows.push(Row {
            judge: name.to_owned(),
            dataset: dataset.to_owned(),
            claims: plain.len(),
            figures: BinaryFigures::of(&plain, threshold),
            swapped_not_supported: (!swapped.is_empty()).then(|| {
                swapped.iter().filter(|p| **p < threshold).count() as f64 / swapped.len() as f64
            }),
            pairs,
            pairs_per_second,
        });
    }
    rows
}

pub fn run(bench: VerifierBench) -> anyhow::Result<()> {
    if !bench.data.join("dataset_halueval_qa.jsonl").is_file() {
        bail!(
            "{} holds no dataset_halueval_qa.jsonl; run scripts/bench-verifier.sh, which downloads HaluEval",
            bench.data.display()
        );
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let config = bench.grounding.clone();
    let threshold = 0.5;
    let all = cases(&bench.data, bench.range, bench.qa_items, bench.summary_items)?;
    let cases: Vec<&Case> = all.iter().collect();
    let mut rows = Vec::new();

    let started = Instant::now();
    let verifier = CrossEncoderNli::load(&bench.verifier)?;
    let calibration = CalibrationWeights::load(&bench.verifier).map_err(|message| {
        anyhow::anyhow!(
            "{}: {message}",
            bench.verifier.join(calibration::CALIBRATION_FILE).display()
        )
    })?;
    let load_seconds = started.elapsed().as_secs_f64();
    let (speed_256, speed_128) = if bench.speed {
        (Some(raw_speed(&verifier, 256, 64)?), Some(raw_speed(&verifier, 128, 64)?))
    } else {
        (None, None)
    };
    eprintln!("verifier: {} claims", cases.len());
    let verifier = verifier.with_name("factdesk-verifier");
    let nli = match &bench.nli_cache {
        Some(cache) => SharedNli::with_cache(verifier, &bench.verifier, cache)?,
        None => SharedNli::new(verifier),
    };
    let judged = runtime.block_on(ground_all("verifier", &nli, &cases, &config))?;
    nli.save()?;
    let speed = nli.throughput();
    let plain: Vec<(&Case, f64)> = judged.iter().map(|(case, g)| (*case, g.support)).collect();
    // As Factdesk judges (calibrated, moved by fact alignment), without fact alignment, the
    // model alone, and any alignment weights asked for: all from the same model calls.
    let shipped_weights = factdesk_methods::facts::AlignmentWeights::default();
    let mut weighed = vec![("verifier".to_owned(), shipped_weights)];
    weighed
        .extend(bench.alignment.iter().map(|weights| (format!("+ alignment {weights}"), *weights)));
    for (name, alignment) in &weighed {
        let supports: Vec<(&Case, f64)> = judged
            .iter()
            .map(|(case, g)| {
                (
                    *case,
                    calibrated_support(g, &case.evidence, calibration.as_ref(), Some(alignment)),
                )
            })
            .collect();
        rows.extend(self::rows(name, &supports, speed, threshold));
    }
    let without: Vec<(&Case, f64)> = judged
        .iter()
        .map(|(case, g)| (*case, calibrated_support(g, &case.evidence, calibration.as_ref(), None)))
        .collect();
    rows.extend(self::rows("verifier without facts", &without, speed, threshold));
    if calibration.is_some() {
        rows.extend(self::rows("verifier uncalibrated", &plain, speed, threshold));
    }
    let lexical: Vec<(&Case, f64)> =
        cases.iter().map(|case| (*case, lexical_support(case))).collect();
    rows.extend(self::rows("lexical baseline", &lexical, (0, 0.0), threshold));
    if let Some(path) = &bench.dump {
        dump(path, bench.range, &judged, calibration.as_ref(), &shipped_weights)?;
        eprintln!("premises of {} claims written to {}", judged.len(), path.display());
    }

    if let Some(control) = &bench.control {
        let control = CrossEncoderNli::load(control)?;
        eprintln!("claim-only control: {} claims", cases.len());
        let nli = timed(ClaimOnly(control));
        let judged = runtime.block_on(ground_all("claim-only control", &nli, &cases, &config))?;
        let scores: Vec<(&Case, f64)> = judged.iter().map(|(case, g)| (*case, g.support)).collect();
        rows.extend(self::rows("claim-only control", &scores, throughput(&nli), threshold));
    }

    #[cfg(not(feature = "embedded"))]
    if bench.llm_items > 0 {
        return Err(crate::without_embedded("--llm-items"));
    }
    #[cfg(feature = "embedded")]
    if bench.llm_items > 0 {
        let path = bench.embedded_model.clone().unwrap_or_else(|| {
            factdesk_core::env::models_dir()
                .join(&factdesk_core::Settings::default().llm.embedded_model)
        });
        let model = Arc::new(EmbeddedModel::load(
            &path,
            EmbeddedSettings { context_tokens: 2048, threads: None, workers: 1 },
        )?);
        let prompts = Arc::new(factdesk_methods::prompts::builtin_library()?);
        // The first items of each file: their right, hallucinated and swapped claims.
        let few: Vec<&Case> = ["qa", "summarization"]
            .into_iter()
            .flat_map(|dataset| {
                cases
                    .iter()
                    .copied()
                    .filter(move |c| c.dataset == dataset)
                    .take(3 * bench.llm_items)
            })
            .collect();
        eprintln!("LLM-instructed NLI (embedded): {} claims", few.len());
        let nli = timed(LlmNli::new(model, prompts));
        let judged = runtime.block_on(ground_all("LLM NLI (embedded)", &nli, &few, &config))?;
        let scores: Vec<(&Case, f64)> = judged.iter().map(|(case, g)| (*case, g.support)).collect();
        rows.extend(self::rows("LLM NLI (embedded)", &scores, throughput(&nli), threshold));
    }

    if bench.json {
        let out = serde_json::json!({
            "model_load_seconds": load_seconds,
            "calibration": calibration,
            "pairs_per_second_256_tokens": speed_256,
            "pairs_per_second_128_tokens": speed_128,
            "threshold": threshold,
            "range": bench.range.key(),
            "grounding": config,
            "rows": rows,
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    let percent =
        |v: Option<f64>| v.map_or_else(|| "n/a".to_owned(), |v| format!("{:.1}%", 100.0 * v));
    let decimal = |v: Option<f64>| v.map_or_else(|| "n/a".to_owned(), |v| format!("{v:.3}"));
    println!("verifier load        {load_seconds:.2} s ({})", bench.verifier.display());
    if let (Some(speed_256), Some(speed_128)) = (speed_256, speed_128) {
        println!(
            "verifier speed       {speed_256:.1} pairs/s at 256 tokens, {speed_128:.1} at 128 (64 pairs, best of {SPEED_RUNS} runs)"
        );
    } else {
        println!("verifier speed       not measured (--no-speed)");
    }
    println!(
        "{:<22} {:<14} {:>6} {:>8} {:>7} {:>9} {:>9} {:>7} {:>9} {:>8}",
        "judge",
        "dataset",
        "claims",
        "bal.acc",
        "AUC",
        "NS prec",
        "NS rec",
        "ECE",
        "swapped",
        "pairs/s"
    );
    for row in &rows {
        println!(
            "{:<22} {:<14} {:>6} {:>8} {:>7} {:>9} {:>9} {:>7} {:>9} {:>8.1}",
            row.judge,
            row.dataset,
            row.claims,
            percent(row.figures.balanced_accuracy),
            decimal(row.figures.roc_auc),
            percent(row.figures.not_supported_precision),
            percent(row.figures.not_supported_recall),
            decimal(row.figures.expected_calibration_error),
            percent(row.swapped_not_supported),
            row.pairs_per_second,
        );
    }
    let (qa, summarization) = (bench.range.items("qa")?, bench.range.items("summarization")?);
    println!(
        "(items from the {} range only: QA {}–{}, summarization {}–{}; premises of at most {} sentences, {} words; \
         NS = 'not supported'; swapped = supported claims against another item's evidence, share judged not supported)",
        bench.range.key(),
        qa.0,
        qa.1 - 1,
        summarization.0,
        summarization.1 - 1,
        config.l,
        config.premise_words,
    );
    Ok(())
}
