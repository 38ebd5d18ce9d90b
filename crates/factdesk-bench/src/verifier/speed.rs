//! Judges that count their pairs and time, the claim-only control, and the verifier's raw
//! speed in pairs per second.

use std::time::{Duration, Instant};

use async_trait::async_trait;
use factdesk_llm::cross_encoder::CrossEncoderNli;
use factdesk_llm::{LlmError, Nli, NliJudgement, NliPair};

/// Counts pairs and time spent classifying them.
pub(super) struct Timed<N> {
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
pub(super) struct ClaimOnly(pub(super) CrossEncoderNli);

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

/// Pairs classified by `nli` and pairs per second of its classifying time.
pub(super) fn throughput(nli: &Timed<impl Nli>) -> (usize, f64) {
    let pairs = nli.pairs.load(std::sync::atomic::Ordering::Relaxed);
    let seconds =
        Duration::from_nanos(nli.nanos.load(std::sync::atomic::Ordering::Relaxed)).as_secs_f64();
    (pairs, if seconds > 0.0 { pairs as f64 / seconds } else { 0.0 })
}

pub(super) fn timed<N: Nli>(inner: N) -> Timed<N> {
    Timed { inner, pairs: 0.into(), nanos: 0.into() }
}

/// Runs timed by [`raw_speed`] (the fastest counts).
pub(super) const SPEED_RUNS: usize = 3;

/// Pairs per second on pairs of `tokens` tokens (a premise of repeated words, cut by the
/// tokenizer to fit), in the verifier's own batches: the best of [`SPEED_RUNS`] runs.
pub(super) fn raw_speed(nli: &CrossEncoderNli, tokens: usize, count: usize) -> anyhow::Result<f64> {
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
