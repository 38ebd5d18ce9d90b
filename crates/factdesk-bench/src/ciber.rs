//! `factdesk-bench ciber`: CIBER's fusion rules against plain RAG with a model of known
//! accuracy, so that the gain of asking many probes shows apart from any real model's
//! strength. The model knows each synthetic claim's truth (supported, refuted or not enough
//! info, in turn) and answers every question about it rightly with probability `accuracy`,
//! otherwise with one of the two wrong answers at random; answers are independent draws. Each
//! claim has `documents` documents. Prints each rule's and RAG's three-way accuracy and
//! macro-F1, and the model calls and tokens per claim in sampling and in exact mode (exact mode
//! reads the same distribution from first-token log-probabilities).
//!
//! With `--latency-ms`, it also checks claims of the demo's kind through the OpenAI-compatible
//! provider against the testkit's scripted model answering after that delay, and prints the
//! wall time per claim and how close the calls come to the provider's concurrency bound
//! (concurrency / latency): one claim's probes and its RAG question are asked at once.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use async_trait::async_trait;
use factdesk_core::model::ciber::{ProbeMode, Stance};
use factdesk_core::model::{ClaimCheck, DocumentId, Verdict};
use factdesk_llm::{
    Choice, Completion, CompletionRequest, FinishReason, LanguageModel, LlmError, ModelInfo,
    TokenLogprob, TokenUsage,
};
use factdesk_methods::ciber::{self, Ciber, CiberConfig, ProbeSets, figures};
use factdesk_methods::evidence::{CorpusDocument, CorpusRetriever, CorpusSentence};
use factdesk_methods::prompts::builtin_library;

#[derive(Debug, clap::Args)]
pub struct CiberSimulation {
    /// Synthetic claims (a third each supported, refuted, not enough info)
    #[arg(long, default_value_t = 300)]
    pub claims: usize,
    /// The probability that the model answers a question rightly
    #[arg(long, default_value_t = 0.6)]
    pub accuracy: f64,
    /// Documents per claim
    #[arg(long, default_value_t = 3)]
    pub documents: usize,
    /// Answers sampled per probe (K)
    #[arg(long, default_value_t = 10)]
    pub samples: u32,
    #[arg(long, default_value_t = 7)]
    pub seed: u64,
    /// Also time claims against a loopback server answering after this many milliseconds
    #[arg(long)]
    pub latency_ms: Option<u64>,
    /// The provider's concurrency bound for the timed claims
    #[arg(long, default_value_t = 4)]
    pub concurrency: usize,
    #[arg(long)]
    pub json: bool,
}

/// The truth of synthetic claim `index`.
fn truth(index: usize) -> Stance {
    Stance::ALL[index % 3]
}

fn claim_text(index: usize) -> String {
    format!("Synthetic claim number {index} about the harbour.")
}

fn index_of(prompt: &str) -> Option<usize> {
    let rest = prompt.split("Synthetic claim number ").nth(1)?;
    rest.split_whitespace().next()?.parse().ok()
}

/// A model that answers rightly with probability `accuracy`.
struct NoisyModel {
    accuracy: f64,
    seed: u64,
    /// Read first-token log-probabilities (exact mode) instead of drawing answers.
    logprobs: bool,
    calls: AtomicUsize,
    tokens: AtomicU64,
    draws: AtomicU64,
}

impl NoisyModel {
    /// The three answers' probabilities for this prompt: the right one `accuracy`, the others
    /// the rest in halves.
    fn distribution(&self, prompt: &str) -> [(&'static str, f64); 3] {
        let index = index_of(prompt).unwrap_or(0);
        let question = prompt.rsplit("Question: ").next().unwrap_or_default();
        let question = question.lines().next().unwrap_or_default();
        let negated =
            ["false", "refuted", "incorrect", "contradict"].iter().any(|w| question.contains(w));
        let right = match (truth(index), negated) {
            (Stance::Neutral, _) => "Not sure",
            (Stance::Support, false) | (Stance::Refute, true) => "Yes",
            (Stance::Support, true) | (Stance::Refute, false) => "No",
        };
        let wrong = (1.0 - self.accuracy) / 2.0;
        ["Yes", "No", "Not sure"]
            .map(|answer| (answer, if answer == right { self.accuracy } else { wrong }))
    }

    fn draw(&self) -> f64 {
        // splitmix64 over a counter: independent, reproducible draws.
        let mut z = self.seed.wrapping_add(
            self.draws.fetch_add(1, Ordering::SeqCst).wrapping_mul(0x9e37_79b9_7f4a_7c15),
        );
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[async_trait]
impl LanguageModel for NoisyModel {
    fn info(&self) -> ModelInfo {
        ModelInfo { provider: "simulated".into(), model: "noisy".into(), location: "bench".into() }
    }

    async fn complete(&self, request: &CompletionRequest) -> Result<Completion, LlmError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let prompt = request.messages.last().map(|m| m.content.as_str()).unwrap_or_default();
        let prompt_tokens =
            u32::try_from(prompt.split_whitespace().count() * 4 / 3).unwrap_or(u32::MAX);
        let distribution = self.distribution(prompt);
        let done = |choices: Vec<Choice>| {
            let completion_tokens = u32::try_from(choices.len()).unwrap_or(u32::MAX);
            self.tokens.fetch_add(u64::from(prompt_tokens + completion_tokens), Ordering::SeqCst);
            Ok(Completion {
                choices,
                usage: TokenUsage { prompt_tokens, completion_tokens },
                model: "noisy".into(),
                audit_id: None,
                replayed: false,
                constraint: None,
            })
        };
        if request.params.logprobs && self.logprobs {
            let top: Vec<(String, f32)> = distribution
                .iter()
                .map(|(answer, p)| {
                    (answer.split(' ').next().unwrap_or_default().to_owned(), p.ln() as f32)
                })
                .collect();
            let first = TokenLogprob { token: top[0].0.clone(), logprob: top[0].1, top };
            let choice = Choice {
                text: "Yes".into(),
                finish_reason: FinishReason::Stop,
                logprobs: Some(vec![first]),
            };
            return done(vec![choice]);
        }
        let choices = (0..request.params.n.max(1))
            .map(|_| {
                let draw = self.draw();
                let text = if draw < distribution[0].1 {
                    distribution[0].0
                } else if draw < distribution[0].1 + distribution[1].1 {
                    distribution[1].0
                } else {
                    distribution[2].0
                };
                Choice { text: text.into(), finish_reason: FinishReason::Stop, logprobs: None }
            })
            .collect();
        done(choices)
    }
}

/// `documents` documents for every claim, each a sentence naming it.
struct Documents(usize);

#[async_trait]
impl CorpusRetriever for Documents {
    async fn retrieve(&self, query: &str, limit: usize) -> Result<Vec<CorpusSentence>, String> {
        let index = index_of(query).ok_or("not a synthetic claim")?;
        Ok((0..self.0.min(limit))
            .map(|d| CorpusSentence {
                document_id: DocumentId((index * 100 + d) as i64),
                title: Some(format!("document {d} on claim {index}")),
                url: None,
                text: format!("A report on synthetic claim number {index}."),
                score: 1.0,
            })
            .collect())
    }

    async fn document(&self, id: DocumentId) -> Result<CorpusDocument, String> {
        let index = id.0 / 100;
        let text = format!("A report on synthetic claim number {index} and the harbour.");
        Ok(CorpusDocument { id, title: None, url: None, text: text.clone(), sentences: vec![text] })
    }
}

/// Checks every synthetic claim in `mode`; the checks with their truth, and calls and tokens
/// per claim.
async fn run_mode(
    bench: &CiberSimulation,
    mode: ProbeMode,
) -> anyhow::Result<(Vec<(ClaimCheck, Verdict)>, f64, f64)> {
    let model = Arc::new(NoisyModel {
        accuracy: bench.accuracy,
        seed: bench.seed,
        logprobs: mode == ProbeMode::Exact,
        calls: AtomicUsize::new(0),
        tokens: AtomicU64::new(0),
        draws: AtomicU64::new(0),
    });
    let method = bench_method(
        model.clone(),
        bench,
        CiberConfig {
            documents: bench.documents,
            mode,
            samples: bench.samples,
            seed: bench.seed,
            ..CiberConfig::default()
        },
    )?;
    let mut checks = Vec::with_capacity(bench.claims);
    for index in 0..bench.claims {
        let check = method.check(&claim_text(index)).await?;
        checks.push((check, truth(index).verdict()));
    }
    let n = bench.claims.max(1) as f64;
    Ok((
        checks,
        model.calls.load(Ordering::SeqCst) as f64 / n,
        model.tokens.load(Ordering::SeqCst) as f64 / n,
    ))
}

/// CIBER over the bench's documents with `model` and `config`.
fn bench_method(
    model: Arc<dyn LanguageModel>,
    bench: &CiberSimulation,
    config: CiberConfig,
) -> anyhow::Result<Ciber> {
    Ok(Ciber {
        model,
        prompts: Arc::new(builtin_library()?),
        probes: ProbeSets::builtin().map_err(anyhow::Error::msg)?,
        retriever: Arc::new(Documents(bench.documents)),
        documents: ciber::Documents::Retrieved,
        web: None,
        language: "en".into(),
        config,
    })
}

/// Wall time of CIBER claims through the OpenAI-compatible provider against a server that
/// answers after `latency_ms`: (seconds per claim, calls per claim, fraction of the bound).
fn latency(bench: &CiberSimulation, latency_ms: u64) -> anyhow::Result<(f64, f64, f64)> {
    use factdesk_llm::openai::{OpenAiCompatible, OpenAiSettings};
    use factdesk_testkit::scripted::ScriptedModel;
    let delay = std::time::Duration::from_millis(latency_ms);
    let server = ScriptedModel::new().delay(move |_| delay).serve();
    let mut settings = OpenAiSettings::new(&server.url("/v1"), "mock");
    settings.max_concurrency = bench.concurrency.max(1);
    settings.max_retries = 0;
    let model = Arc::new(OpenAiCompatible::new(settings)?);
    // Sampling: one call per probe (the scripted server gives no log-probabilities, so exact
    // mode would ask twice).
    let config = CiberConfig {
        documents: bench.documents,
        mode: ProbeMode::Sampling,
        samples: bench.samples,
        ..CiberConfig::default()
    };
    let method = bench_method(model, bench, config)?;
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let claims = 5;
    let started = std::time::Instant::now();
    runtime.block_on(async {
        for index in 0..claims {
            method.check(&claim_text(index)).await?;
        }
        Ok::<_, anyhow::Error>(())
    })?;
    let seconds = started.elapsed().as_secs_f64() / claims as f64;
    let calls = server.requests().len() as f64 / claims as f64;
    let bound = bench.concurrency.max(1) as f64 / delay.as_secs_f64();
    Ok((seconds, calls, (calls / seconds) / bound))
}

pub fn run(bench: CiberSimulation) -> anyhow::Result<()> {
    anyhow::ensure!((0.0..=1.0).contains(&bench.accuracy), "--accuracy must be between 0 and 1");
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let mut report = serde_json::Map::new();
    for mode in [ProbeMode::Sampling, ProbeMode::Exact] {
        let (checks, calls, tokens) = runtime.block_on(run_mode(&bench, mode))?;
        let labelled: Vec<(&ClaimCheck, Option<Verdict>)> =
            checks.iter().map(|(check, gold)| (check, Some(*gold))).collect();
        let figures = figures(&labelled);
        let name = match mode {
            ProbeMode::Sampling => "sampling",
            ProbeMode::Exact => "exact",
        };
        if bench.json {
            report.insert(
                name.into(),
                serde_json::json!({"figures": figures, "calls_per_claim": calls, "tokens_per_claim": tokens}),
            );
            continue;
        }
        println!(
            "{name} mode: {} claims (a third each supported, refuted, not enough info), {} documents \
             each, model right with p = {}, K = {}",
            bench.claims, bench.documents, bench.accuracy, bench.samples
        );
        for figure in figures.iter().filter(|f| f.key != "exact_probe_rate") {
            let value =
                figure.value.map_or_else(|| "n/a".to_owned(), |v| format!("{:.1}%", v * 100.0));
            println!("  {:<16} {value}", figure.label);
        }
        println!("  model calls per claim {calls:.1}, tokens per claim {tokens:.0}");
    }
    if let Some(latency_ms) = bench.latency_ms {
        let (seconds, calls, of_bound) = latency(&bench, latency_ms)?;
        if bench.json {
            report.insert(
                "latency".into(),
                serde_json::json!({"latency_ms": latency_ms, "concurrency": bench.concurrency,
                    "seconds_per_claim": seconds, "calls_per_claim": calls, "fraction_of_bound": of_bound}),
            );
        } else {
            println!(
                "loopback server answering in {latency_ms} ms, provider concurrency {}: {seconds:.2} s \
                 per claim, {calls:.1} calls per claim, {:.0}% of the concurrency bound",
                bench.concurrency,
                of_bound * 100.0
            );
        }
    }
    if bench.json {
        println!("{}", serde_json::Value::Object(report));
    }
    Ok(())
}
