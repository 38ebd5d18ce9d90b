//! Truthful Text Summarization, from "Incentive-Aligned Multi-Source LLM Summaries": a
//! question is answered from several sources, each scored by how its stances on claims it
//! could not shape agree with its peers' ([`score`]), and the answer is written again from the
//! sources that score at least τ. The steps, as [`Tts::run`] takes them:
//!
//! 1. Near-duplicate sources are collapsed first ([`duplicates`]): the method assumes
//!    independent sources. Fewer than three distinct sources are refused (peer prediction
//!    needs peers).
//! 2. Leave-one-out: for each source i, a draft from every *other* source (`tts/draft`; asked
//!    for as at most five sentences of one bounded line each where the model may take a
//!    schema, [`draft_schema`], so a small model's draft ends before the token limit
//!    instead of copying the documents until cut; a free-text draft cut there keeps its whole
//!    sentences, and the cut is noted), decomposed into atomic claims T_i (`tts/claims`; asked for as a JSON list where the model
//!    may take a schema, [`claims_schema`], and read from that or a numbered list,
//!    [`parse_claims`]).
//! 3. Stances of every source on every claim of T_i: by the chat model (`tts/stances`,
//!    several claims per call: supports, contradicts, or abstains, a JSON list of them where the
//!    model may take a schema, [`stances_schema`]; a claim a source's answer does not mention
//!    counts as abstained), or by an NLI model ([`StanceJudge::Verifier`]:
//!    the source supports a claim its best premises entail with probability at least
//!    [`TtsConfig::stance_threshold`], contradicts one they contradict with that probability,
//!    and abstains otherwise; a two-way grounding classifier never contradicts).
//! 4. Scores: correlated agreement with one seeded permutation per source, and the majority
//!    rule beside it; a source is kept when its score is at least τ.
//! 5. The final answer from the kept sources only (`tts/draft`).
//!
//! The paper's baselines are in [`baselines`]. The pipeline sees the chat model through its
//! trait only, and tells a [`Progress`] how far it got; the stance calls of different sources
//! may run side by side ([`Tts::concurrency`]), and before every call the run stops if the
//! [`Progress`] says it is cancelled. A call that fails on its own
//! ([`crate::MethodError::is_one_calls`]: a prompt longer than the server's context, an
//! answer that cannot be read) does not end the run: a failed draft or claims call leaves
//! that source without claims (scored 0), a failed stance call counts its stances as
//! abstained, a failed final answer leaves the run without a summary, each with a note naming
//! the source and the error.
//!
//! Files, one responsibility each:
//! - `run.rs`: the input checked ([`check`]) and the steps taken in order ([`Tts::run`]), and
//!   an answer from chosen sources ([`Tts::answer`]);
//! - `steps.rs`: the chat calls, the drafts, their claims and every source's stances (by the
//!   chat model or the NLI model);
//! - `answers.rs`: the JSON Schemas asked for and the readers of the drafts, claims and
//!   stances the model gives;
//! - `duplicates.rs`: near-duplicate sources collapsed;
//! - `score.rs`: the correlated-agreement and majority scores;
//! - `baselines.rs`: the paper's baselines;
//! - `tests.rs`: the pipeline and its baselines with a scripted chat model.

mod answers;
pub mod baselines;
pub mod duplicates;
mod run;
pub mod score;
mod steps;

pub use answers::{
    CLAIMS_FIELD, DRAFT_FIELD, STANCES_FIELD, claims_schema, draft_schema, parse_claims,
    parse_stance_answer, parse_stances, stances_schema,
};
pub use run::check;

use std::sync::Arc;

use factdesk_llm::prompts::PromptLibrary;
use factdesk_llm::{LanguageModel, Nli};
use factdesk_model::TokenUse;
use factdesk_model::ciber::Stance;
pub use factdesk_model::parameters::StanceJudge;
use factdesk_model::parameters::SummaryParameters;
use serde::{Deserialize, Serialize};

/// The templates, by step.
pub const DRAFT_TEMPLATE: &str = "tts/draft";
pub const CLAIMS_TEMPLATE: &str = "tts/claims";
pub const STANCES_TEMPLATE: &str = "tts/stances";

/// How a run goes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TtsConfig {
    /// Sources scoring at least this are kept.
    pub tau: f64,
    /// Seeds each source's permutation (the source given at position i uses `seed + i`, so
    /// collapsing a duplicate changes no other source's permutation).
    pub seed: u64,
    /// Sources whose word 5-gram Jaccard similarity reaches this are one source.
    pub duplicate_threshold: f64,
    /// Claims asked of each draft.
    pub max_claims: usize,
    /// Claims per stance call.
    pub stance_batch: usize,
    /// Words of each document quoted to the model.
    pub document_words: usize,
    /// Who gives the stances.
    pub stance_judge: StanceJudge,
    /// With the NLI judge: the probability a stance needs.
    pub stance_threshold: f64,
}

impl Default for TtsConfig {
    fn default() -> Self {
        TtsConfig {
            tau: score::DEFAULT_TAU,
            seed: 0,
            duplicate_threshold: duplicates::DEFAULT_THRESHOLD,
            max_claims: 8,
            stance_batch: 8,
            document_words: 600,
            stance_judge: StanceJudge::Chat,
            stance_threshold: 0.5,
        }
    }
}

impl TtsConfig {
    /// What a summary records of these settings (all of them).
    pub fn parameters(&self) -> SummaryParameters {
        SummaryParameters {
            tau: self.tau,
            seed: self.seed,
            duplicate_threshold: self.duplicate_threshold,
            max_claims: self.max_claims,
            stance_batch: self.stance_batch,
            document_words: self.document_words,
            stance_judge: Some(self.stance_judge),
            stance_threshold: Some(self.stance_threshold),
            other: Default::default(),
        }
    }

    /// The configuration a summary recorded: a setting it did not record (the stance judge
    /// and threshold of summaries stored before they were settings) at its default, and a
    /// field it recorded that no setting has left out.
    pub fn from_parameters(recorded: &SummaryParameters) -> TtsConfig {
        let default = TtsConfig::default();
        TtsConfig {
            tau: recorded.tau,
            seed: recorded.seed,
            duplicate_threshold: recorded.duplicate_threshold,
            max_claims: recorded.max_claims,
            stance_batch: recorded.stance_batch,
            document_words: recorded.document_words,
            stance_judge: recorded.stance_judge.unwrap_or(default.stance_judge),
            stance_threshold: recorded.stance_threshold.unwrap_or(default.stance_threshold),
        }
    }
}

/// One source: a name for reports and its text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Source {
    pub name: String,
    pub text: String,
}

/// What became of one distinct source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoredSource {
    /// The source's index in the input, and those of its near-duplicates.
    pub source: usize,
    pub copies: Vec<usize>,
    /// The leave-one-out draft (from every other distinct source) and its claims T_i.
    pub draft: String,
    pub claims: Vec<String>,
    /// `stances[j][k]`: distinct source j's stance on claim k (j in the order of
    /// [`TtsResult::sources`]).
    pub stances: Vec<Vec<Stance>>,
    /// The permutation the score used.
    pub permutation: Vec<usize>,
    pub score: f64,
    pub majority: f64,
    pub kept: bool,
}

/// A run's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TtsResult {
    pub question: String,
    pub sources: Vec<ScoredSource>,
    /// The answer from the kept sources; `None` when none was kept.
    pub summary: Option<String>,
    pub tokens: TokenUse,
    pub calls: usize,
    pub notes: Vec<String>,
}

/// The method, over a chat model and the prompt templates.
pub struct Tts {
    pub model: Arc<dyn LanguageModel>,
    pub prompts: Arc<PromptLibrary>,
    pub config: TtsConfig,
    /// How many sources' stance calls run at once (at least 1).
    pub concurrency: usize,
    /// The NLI model that judges stances with [`StanceJudge::Verifier`].
    pub nli: Option<Arc<dyn Nli>>,
    pub progress: Arc<dyn Progress>,
}

/// What a run reports as it goes, and how it is asked to stop.
pub trait Progress: Send + Sync {
    /// `done` of `total` distinct sources are scored; `next` is the one scored now (none when
    /// all are).
    fn scoring(&self, _done: usize, _total: usize, _next: Option<&str>) {}
    /// The answer is being written from the kept sources.
    fn answering(&self) {}
    /// Asked before every model call: `true` stops the run with
    /// [`MethodError::Cancelled`](crate::MethodError::Cancelled).
    fn cancelled(&self) -> bool {
        false
    }
}

/// A [`Progress`] that ignores everything and never cancels.
#[derive(Debug, Clone, Copy, Default)]
pub struct Quiet;

impl Progress for Quiet {}

#[cfg(test)]
mod tests;
