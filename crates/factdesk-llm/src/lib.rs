//! Factdesk's model layer, shared by every method: a [`LanguageModel`] trait for chat
//! completions with its providers (an OpenAI-compatible HTTP client, llama.cpp embedded
//! in-process with the `embedded` feature, on by default), an audit and replay layer that
//! records every call and can serve identical requests again, versioned prompt templates, and
//! the [`Nli`] and [`Embedder`] traits with their backends. Tests meet it through the
//! testkit's scripted model served on loopback; no fake model is compiled in here.
//!
//! This crate knows nothing about fact-checking: it moves messages, tokens and probabilities.
//! It holds no SQL either; the audit layer writes through the [`CallStore`] trait, which the
//! application implements over its database.

pub mod audit;
mod bert;
pub mod chat;
pub mod cross_encoder;
#[cfg(feature = "embedded")]
pub mod embedded;
pub mod embeddings;
pub mod error;
pub mod nli;
pub mod openai;
pub mod prompts;
mod vector_math;

pub use audit::{AuditedModel, CacheMode, CallCollector, CallRecord, CallStore, request_key};
pub use chat::{
    AnswerProbabilities, ChatMessage, Choice, Completion, CompletionRequest, ConstraintKind,
    ConstraintOutcome, FinishReason, ModelInfo, OutputConstraint, Role, SamplingParams,
    TemplateRef, TokenLogprob, TokenUsage,
};
pub use embeddings::Embedder;
pub use error::LlmError;
pub use nli::{Nli, NliJudgement, NliPair, NliScores};

use async_trait::async_trait;

/// A chat model. Implementations must be cheap to share (`Arc<dyn LanguageModel>`).
#[async_trait]
pub trait LanguageModel: Send + Sync {
    /// Which provider and model answer.
    fn info(&self) -> ModelInfo;

    /// Whether a request may carry a constraint of this kind: the embedded model enforces GBNF
    /// grammars; an OpenAI-compatible server may accept a JSON Schema or a GBNF grammar until
    /// it has refused that kind (or ignored it, [`LanguageModel::constraint_ignored`]).
    /// Callers choose the constraint by it ([`OutputConstraint::for_model`]) and still read
    /// answers that ignore it. The default is no.
    fn may_accept(&self, kind: ConstraintKind) -> bool {
        let _ = kind;
        false
    }

    /// Tells the model that an answer to a request whose constraint of this kind it accepted is
    /// not of the constraint's shape: the backend took the field and did not apply it (a
    /// lenient server that ignores fields it does not know). An OpenAI-compatible server is
    /// then not offered that kind again; the default does nothing (the embedded model applies
    /// its grammars).
    fn constraint_ignored(&self, kind: ConstraintKind) {
        let _ = kind;
    }

    /// One request, `request.params.n` completions.
    async fn complete(&self, request: &CompletionRequest) -> Result<Completion, LlmError>;

    /// The probability of each short answer (e.g. "yes"/"no") as the next output, normalised
    /// over `answers`. The default asks for one token with top log-probabilities and, when the
    /// backend gives none, estimates from `samples` sampled answers; backends that can read
    /// their logits override it.
    async fn answer_probabilities(
        &self,
        request: &CompletionRequest,
        answers: &[&str],
        samples: u32,
    ) -> Result<AnswerProbabilities, LlmError> {
        chat::answer_probabilities_via_completions(self, request, answers, samples).await
    }
}
