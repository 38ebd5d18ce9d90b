//! Correcting a passage against evidence, the two self-correcting methods of "Correcting
//! Hallucinations in News Summaries: Exploration of Self-Correcting LLM Methods with External
//! Knowledge":
//!
//! - [`rarr`] (few-shot): for each sentence, searches ("I googled: …"); evidence for each
//!   search; an agreement gate on each (search, evidence) pair; only where the evidence
//!   disagrees, an edit that changes as little as possible.
//! - [`cove`] (zero-shot): verification questions planned from the passage; each answered
//!   from its own evidence alone (factored: the passage is never shown); the passage refined
//!   from the question / answer pairs.
//!
//! Both see evidence through [`evidence::EvidenceFinder`] (a corpus, the passage's source
//! documents, or none: the model's own knowledge), as snippets or as chunks ranked by
//! embedding similarity ([`evidence::Granularity`]). The gate is the chat model (reasoning
//! ending in agrees / disagrees) or the NLI verifier ([`Gate`]).
//!
//! What either returns is a [`Revision`](factdesk_model::Revision): the revised text and its
//! edits (word spans of the original, from a diff of each changed part, each with the
//! question, evidence and agreement behind it), every step, and the changes refused. Guard
//! rails, recorded when they act:
//! - an edit may not grow the passage beyond [`ReviseConfig::max_growth`] times its length;
//! - a change to a sentence that all the evidence asked about agreed with is refused (the
//!   paper's "preserve" property): RARR edits only after a disagreement, and CoVe's
//!   refinement keeps only the changes inside a sentence some answer disagreed with;
//! - a changed sentence is kept only if the gate then agrees with it;
//! - model output that cannot be used (no questions, an empty edit) leaves the passage as it
//!   was and says why. The original is never lost: it is part of every revision.
//!
//! Each method is a function over a [`Reviser`] ([`rarr::revise`], [`cove::revise`]): the
//! caller picks one by calling it. There is no list of methods here: a method from another
//! paper uses the types it needs and adds nothing to them.
//!
//! Files, one responsibility each:
//! - `reviser.rs`: the [`Reviser`] at work: the checks before a method runs, chat calls and
//!   their cost, evidence, the revision returned;
//! - `gate.rs`: the agreement gate (chat model or NLI) and reading its answer;
//! - `text.rs`: sentence spans, the word diff that turns a change into edits, applying edits;
//! - `rarr.rs`, `cove.rs`: the two methods' steps;
//! - `evidence.rs`: where evidence comes from ([`evidence::EvidenceFinder`]);
//! - `metrics.rs`: measuring a revision;
//! - `tests.rs`: both methods with a scripted chat model.

pub mod cove;
pub mod evidence;
mod gate;
pub mod metrics;
pub mod rarr;
mod reviser;
mod text;

pub use factdesk_model::parameters::Gate;
pub use gate::{agreement_schema, parse_agreement, parse_agreement_answer};
pub use text::{content_words, is_about, word_changes};

pub(crate) use reviser::{Ledger, recorded};
pub(crate) use text::{apply, capped_lines, sentence_spans, word_set};

use std::sync::Arc;

use factdesk_llm::prompts::PromptLibrary;
use factdesk_llm::{LanguageModel, Nli};
use serde::{Deserialize, Serialize};

use evidence::EvidenceFinder;

/// How a revision runs (either method; which one is the caller's choice of function).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReviseConfig {
    /// CoVe: at most this many verification questions; RARR: at most this many searches per
    /// sentence.
    pub questions: usize,
    /// The revised passage may be at most this many times as long as the original.
    pub max_growth: f64,
    /// Longer passages are refused.
    pub max_chars: usize,
    pub gate: Gate,
    /// With the NLI gate, the P(entailment) at which evidence agrees.
    pub threshold: f64,
    /// Words of evidence quoted to the chat model per step.
    pub evidence_words: usize,
    /// Sentence rules of the passage's language (ISO 639-1).
    pub language: String,
    pub seed: u64,
}

impl Default for ReviseConfig {
    fn default() -> Self {
        ReviseConfig {
            questions: 3,
            max_growth: 1.5,
            max_chars: 20_000,
            gate: Gate::Chat,
            threshold: 0.5,
            evidence_words: 200,
            language: "en".into(),
            seed: 0,
        }
    }
}

/// What a reviser uses: the chat model, the NLI verifier (for the NLI gate), the prompts and
/// where evidence comes from.
pub struct Reviser {
    pub model: Arc<dyn LanguageModel>,
    pub nli: Option<Arc<dyn Nli>>,
    pub prompts: Arc<PromptLibrary>,
    pub evidence: Arc<dyn EvidenceFinder>,
    pub config: ReviseConfig,
}

impl std::fmt::Debug for Reviser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reviser").field("config", &self.config).finish_non_exhaustive()
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod method_tests;
