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

use std::path::{Path, PathBuf};
#[cfg(feature = "embedded")]
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use async_trait::async_trait;
use factdesk_core::metrics::{BinaryFigures, Scored};
use factdesk_llm::cross_encoder::CrossEncoderNli;
#[cfg(feature = "embedded")]
use factdesk_llm::embedded::{EmbeddedModel, EmbeddedSettings};
#[cfg(feature = "embedded")]
use factdesk_llm::nli::LlmNli;
use factdesk_llm::{LlmError, Nli, NliJudgement, NliPair};
use factdesk_methods::calibration::{self, CalibrationWeights};
use factdesk_methods::grounding::{self, Grounding, GroundingConfig};

use crate::nli_cache::SharedNli;

/// How the training scripts split HaluEval; the benchmark reads its ranges from the same file.
const SPLIT: &str = include_str!("../../../training/verifier/split.json");

/// Which part of each file is judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Range {
    /// The evaluation range: reported figures.
    Eval,
    /// The dev slice of the training range: for tuning settings.
    Dev,
    /// The training range less its dev slice.
    Train,
}

impl Range {
    fn key(self) -> &'static str {
        match self {
            Range::Eval => "eval",
            Range::Dev => "dev",
            Range::Train => "train",
        }
    }

    /// The half-open item range of `dataset` ("qa" or "summarization") in the split file.
    pub fn items(self, dataset: &str) -> anyhow::Result<(usize, usize)> {
        let split: serde_json::Value = serde_json::from_str(SPLIT)?;
        let range = split[dataset][self.key()]
            .as_array()
            .and_then(|pair| Some((pair.first()?.as_u64()?, pair.get(1)?.as_u64()?)))
            .with_context(|| format!("split.json has no {} range for {dataset}", self.key()))?;
        Ok((usize::try_from(range.0)?, usize::try_from(range.1)?))
    }
}

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
    pub json: bool,
}

/// One claim with its evidence and gold label; `swapped` pairs a supported claim with another
/// item's evidence (so it is not supported).
struct Case {
    dataset: &'static str,
    /// The item's line number in its file.
    item: usize,
    claim: String,
    evidence: String,
    supported: bool,
    swapped: bool,
}

/// Counts pairs and time spent classifying them.
struct Timed<N> {
    inner: N,
    pairs: std::sync::atomic::AtomicUsize,
    nanos: std::sync::atomic::AtomicU64,
}

#[async_trait]
impl<N: Nli> Nli for Timed<N> {
    fn name(&self) -> String {
        self.inner.name()
    }
    fn reads(&self, language: &str) -> bool {
        self.inner.reads(language)
    }

    async fn classify(&self, pairs: &[NliPair]) -> Result<Vec<NliJudgement>, LlmError> {
        let started = Instant::now();
        let out = self.inner.classify(pairs).await;
        self.nanos.fetch_add(
            u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX),
            std::sync::atomic::Ordering::Relaxed,
        );
        self.pairs.fetch_add(pairs.len(), std::sync::atomic::Ordering::Relaxed);
        out
    }
}

/// The claim-only control sees no evidence.
struct ClaimOnly(CrossEncoderNli);

#[async_trait]
impl Nli for ClaimOnly {
    fn name(&self) -> String {
        format!("claim-only {}", self.0.name())
    }
    fn reads(&self, language: &str) -> bool {
        self.0.reads(language)
    }

    async fn classify(&self, pairs: &[NliPair]) -> Result<Vec<NliJudgement>, LlmError> {
        let blank: Vec<NliPair> = pairs
            .iter()
            .map(|pair| NliPair { premise: String::new(), hypothesis: pair.hypothesis.clone() })
            .collect();
        self.0.classify(&blank).await
    }
}

pub(crate) fn read_items(
    path: &Path,
    (start, end): (usize, usize),
    count: usize,
) -> anyhow::Result<Vec<serde_json::Value>> {
    use std::io::BufRead;
    let end = (start + count).min(end);
    let file = std::fs::File::open(path).with_context(|| {
        format!("cannot open {} (run scripts/bench-verifier.sh)", path.display())
    })?;
    let mut items = Vec::new();
    for (number, line) in std::io::BufReader::new(file).lines().enumerate() {
        if number >= end {
            break;
        }
        let line = line?;
        if number >= start {
            items.push(
                serde_json::from_str(&line)
                    .with_context(|| format!("{} line {}", path.display(), number + 1))?,
            );
        }
    }
    Ok(items)
}

pub(crate) fn field<'a>(item: &'a serde_json::Value, name: &str) -> anyhow::Result<&'a str> {
    item.get(name).and_then(serde_json::Value::as_str).with_context(|| format!("no '{name}' field"))
}

/// The QA claim wording of scripts/eval-halueval.sh and the training data.
pub fn qa_claim(question: &str, answer: &str) -> String {
    format!("The answer to the question \"{}\" is: {}", question.trim(), answer.trim())
}

fn cases(
    data: &Path,
    range: Range,
    qa_items: usize,
    summary_items: usize,
) -> anyhow::Result<Vec<Case>> {
    let mut cases = Vec::new();
    let qa_range = range.items("qa")?;
    let qa = read_items(&data.join("dataset_halueval_qa.jsonl"), qa_range, qa_items)?;
    for (index, item) in qa.iter().enumerate() {
        let knowledge = field(item, "knowledge")?;
        let question = field(item, "question")?;
        let right = qa_claim(question, field(item, "right_answer")?);
        let wrong = qa_claim(question, field(item, "hallucinated_answer")?);
        let other = field(&qa[(index + 1) % qa.len()], "knowledge")?;
        for (claim, evidence, supported, swapped) in [
            (&right, knowledge, true, false),
            (&wrong, knowledge, false, false),
            (&right, other, false, true),
        ] {
            cases.push(Case {
                dataset: "qa",
                item: qa_range.0 + index,
                claim: claim.clone(),
                evidence: evidence.to_owned(),
                supported,
                swapped,
            });
        }
    }
    let summary_range = range.items("summarization")?;
    let summaries = read_items(
        &data.join("dataset_halueval_summarization.jsonl"),
        summary_range,
        summary_items,
    )?;
    for (index, item) in summaries.iter().enumerate() {
        let document = field(item, "document")?;
        let right = field(item, "right_summary")?;
        let wrong = field(item, "hallucinated_summary")?;
        let other = field(&summaries[(index + 1) % summaries.len()], "document")?;
        for (claim, evidence, supported, swapped) in [
            (right, document, true, false),
            (wrong, document, false, false),
            (right, other, false, true),
        ] {
            cases.push(Case {
                dataset: "summarization",
                item: summary_range.0 + index,
                claim: claim.to_owned(),
                evidence: evidence.to_owned(),
                supported,
                swapped,
            });
        }
    }
    Ok(cases)
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

/// Pairs classified by `nli` and pairs per second of its classifying time.
fn throughput(nli: &Timed<impl Nli>) -> (usize, f64) {
    let pairs = nli.pairs.load(std::sync::atomic::Ordering::Relaxed);
    let seconds =
        Duration::from_nanos(nli.nanos.load(std::sync::atomic::Ordering::Relaxed)).as_secs_f64();
    (pairs, if seconds > 0.0 { pairs as f64 / seconds } else { 0.0 })
}

/// A premise's P(entailment) for a claim sentence, calibrated when the model ships a
/// calibration: what the calibration wrapper gives `grounding::ground`.
fn calibrated(
    premise: &str,
    sentence: &str,
    entailment: f64,
    weights: Option<&CalibrationWeights>,
) -> f64 {
    weights.map_or(entailment, |weights| {
        weights.apply(
            entailment,
            calibration::premise_sentences(premise),
            calibration::missing_share(premise, sentence),
        )
    })
}

/// Each premise's calibrated P(entailment) for `sentence`, moved by fact alignment with the
/// sentence's premises as its evidence and `source` as the text they were cut from when
/// `alignment` is given (`factdesk_methods::facts::FactChecked`).
fn premise_supports(
    sentence: &grounding::SentenceSupport,
    source: &str,
    weights: Option<&CalibrationWeights>,
    alignment: Option<&factdesk_methods::facts::AlignmentWeights>,
) -> Vec<f64> {
    let premises: Vec<String> = sentence.premises.iter().map(|(p, _)| p.join(" ")).collect();
    let plain: Vec<f64> = premises
        .iter()
        .zip(&sentence.premises)
        .map(|(premise, (_, entailment))| {
            calibrated(premise, &sentence.sentence, *entailment, weights)
        })
        .collect();
    let Some(alignment) = alignment else { return plain };
    let texts: Vec<&str> = premises.iter().map(String::as_str).collect();
    let absent = factdesk_methods::facts::absent_facts(&[source], &sentence.sentence);
    factdesk_methods::facts::align_all(&texts, &sentence.sentence)
        .iter()
        .zip(plain)
        .map(|(facts, p)| {
            let scores = factdesk_llm::NliScores::normalised(p, 1.0 - p, 0.0);
            alignment.apply(scores, facts, &absent).entailment
        })
        .collect()
}

/// The claim's support from [`premise_supports`] under the grounding rule (max over
/// premises, min over sentences).
fn calibrated_support(
    grounding: &Grounding,
    source: &str,
    weights: Option<&CalibrationWeights>,
    alignment: Option<&factdesk_methods::facts::AlignmentWeights>,
) -> f64 {
    grounding::aggregate(grounding.sentences.iter().map(|sentence| {
        premise_supports(sentence, source, weights, alignment).into_iter().fold(0.0, f64::max)
    }))
}

/// The lexical baseline: the share of the claim's distinct content words (as BM25 ranks
/// them) that the evidence contains.
fn lexical_support(case: &Case) -> f64 {
    1.0 - calibration::missing_share(&case.evidence, &case.claim)
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

/// Writes each judged case with its premises' text, P(entailment) (raw, calibrated, moved by
/// `alignment`), size and fact alignment, one JSON line each.
fn dump(
    path: &Path,
    range: Range,
    judged: &[(&Case, Grounding)],
    weights: Option<&CalibrationWeights>,
    alignment: &factdesk_methods::facts::AlignmentWeights,
) -> anyhow::Result<()> {
    use std::io::Write;
    let partial = path.with_extension("part");
    let mut out = std::io::BufWriter::new(
        std::fs::File::create(&partial)
            .with_context(|| format!("cannot write {}", partial.display()))?,
    );
    for (case, grounding) in judged {
        let sentences: Vec<serde_json::Value> = grounding
            .sentences
            .iter()
            .map(|sentence| {
                let texts: Vec<String> =
                    sentence.premises.iter().map(|(premise, _)| premise.join(" ")).collect();
                let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
                let facts = factdesk_methods::facts::align_all(&refs, &sentence.sentence);
                let plain = premise_supports(sentence, &case.evidence, weights, None);
                let aligned = premise_supports(sentence, &case.evidence, weights, Some(alignment));
                let premises: Vec<serde_json::Value> = sentence
                    .premises
                    .iter()
                    .enumerate()
                    .map(|(index, (_, entailment))| {
                        let premise = &texts[index];
                        serde_json::json!({
                            "entailment": entailment,
                            "sentences": calibration::premise_sentences(premise),
                            "missing": calibration::missing_share(premise, &sentence.sentence),
                            "premise": premise,
                            "facts": facts[index],
                            "calibrated": plain[index],
                            "aligned": aligned[index],
                        })
                    })
                    .collect();
                serde_json::json!({ "sentence": sentence.sentence, "premises": premises })
            })
            .collect();
        let line = serde_json::json!({
            "range": range.key(),
            "dataset": case.dataset,
            "item": case.item,
            "supported": case.supported,
            "swapped": case.swapped,
            "sentences": sentences,
        });
        writeln!(out, "{line}")?;
    }
    out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
    std::fs::rename(&partial, path)
        .with_context(|| format!("cannot move {} to {}", partial.display(), path.display()))?;
    Ok(())
}

fn timed<N: Nli>(inner: N) -> Timed<N> {
    Timed { inner, pairs: 0.into(), nanos: 0.into() }
}

/// Runs timed by [`raw_speed`] (the fastest counts).
const SPEED_RUNS: usize = 3;

/// Pairs per second on pairs of `tokens` tokens (a premise of repeated words, cut by the
/// tokenizer to fit), in the verifier's own batches: the best of [`SPEED_RUNS`] runs.
fn raw_speed(nli: &CrossEncoderNli, tokens: usize, count: usize) -> anyhow::Result<f64> {
    let premise =
        "the committee said on tuesday that the report would be published ".repeat(tokens / 10 + 1);
    let words: Vec<&str> = premise.split_whitespace().take(tokens.saturating_sub(20)).collect();
    let pair = NliPair {
        premise: words.join(" "),
        hypothesis: "The committee will publish the report on Tuesday.".into(),
    };
    let pairs = vec![pair; count];
    nli.classify_blocking(&pairs[..count.min(8)])?;
    let (fastest, _) = crate::best_of(SPEED_RUNS, || Ok(nli.classify_blocking(&pairs)?))?;
    Ok(count as f64 / fastest.as_secs_f64())
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
    let speed_256 = raw_speed(&verifier, 256, 64)?;
    let speed_128 = raw_speed(&verifier, 128, 64)?;
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
    println!(
        "verifier speed       {speed_256:.1} pairs/s at 256 tokens, {speed_128:.1} at 128 (64 pairs, best of {SPEED_RUNS} runs)"
    );
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
