//! Factdesk's checking methods, each in its own module and reading like its paper:
//! [`llm_cite`] (model-proposed citation URLs, fetched, sentences picked, NLI), and its two
//! baselines, [`p_true`] (the model's own judgement, no evidence) and [`corpus_nli`]
//! (retrieval from the local corpus + NLI); and [`ciber`] (agreeing and contradicting probes
//! about each evidence document, fused into a three-way verdict); and [`revise`] (RARR and
//! CoVe, which correct a passage against evidence).
//!
//! Methods depend on traits only: chat models and NLI from `factdesk-llm`, evidence through
//! [`evidence::PageSource`] and [`evidence::CorpusRetriever`], which the application implements.
//! There is no SQL, no tantivy, no HTTP and no Tauri here. Every checking method returns a
//! [`factdesk_model::ClaimCheck`]; the revising methods return a [`factdesk_model::Revision`].

mod bm25;
pub mod calibration;
pub mod ciber;
pub mod corpus_nli;
pub mod evidence;
pub mod facts;
pub mod figures;
mod fragment;
pub mod grounding;
pub mod injection;
pub mod judge;
pub mod llm_cite;
pub mod p_true;
pub mod prompts;
pub mod revise;
#[cfg(test)]
mod scripted;
pub mod sgss;
pub mod shape;
pub mod tts;

pub use bm25::{rank as bm25_rank, terms as bm25_terms};

/// Why a method could not finish a check.
#[derive(Debug, thiserror::Error)]
pub enum MethodError {
    #[error(transparent)]
    Model(#[from] factdesk_llm::LlmError),
    #[error("the evidence source failed: {0}")]
    Evidence(String),
    /// The input cannot be worked on (an empty or oversized passage, a missing model).
    #[error("{0}")]
    Input(String),
    /// The caller asked the method to stop; the calls made so far are recorded.
    #[error("cancelled")]
    Cancelled,
}

impl MethodError {
    /// Whether the error is one call's own (a prompt longer than the model's context, an
    /// answer that cannot be read), so that a batch of calls can go on without it; a server
    /// that is down, a bad key or a cancel concern every call.
    pub fn is_one_calls(&self) -> bool {
        use factdesk_llm::LlmError;
        matches!(
            self,
            MethodError::Model(
                LlmError::ServerContextExceeded { .. }
                    | LlmError::ContextOverflow { .. }
                    | LlmError::InvalidResponse { .. }
                    | LlmError::EmptyChoices { .. }
            )
        )
    }
}
