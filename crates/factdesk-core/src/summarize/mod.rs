//! Summaries of several sources answering one question, with Truthful Text Summarization
//! (`factdesk-methods` `tts`): the sources are corpus documents (a whole corpus, chosen ones,
//! those a search of the index finds, or pages fetched by URL and imported first), each scored by correlated agreement with its peers,
//! and the answer is written from the ones scoring at least τ. The result is stored as an
//! [`Outcome::Summary`] under a run of its own, with the model calls behind it, each source's
//! leave-one-out draft, claims and stances, and the scores. The paper's baselines (all
//! sources, majority prompt, majority claims) run the same way on the same sources.
//!
//! A run is resumable: a cancelled, failed or interrupted run of the same method, settings,
//! question and documents is continued, its recorded model calls answered from the record, so
//! only the calls it had not made are made. A person may drop or restore sources of a stored
//! summary and have the answer written again from their choice ([`Factdesk::resummarize`]).
//!
//! Files, one responsibility each:
//! - `methods.rs`: the seam every summary method goes through (TTS and its baselines: name,
//!   label, whether it asks stances, how it summarises) and the UI's lists, [`SummaryChoices`].
//! - `sources.rs`: the documents a request names (corpus, chosen, searched or fetched by URL),
//!   at most [`MAX_SOURCES`].
//! - `run.rs`: a run of TTS or a baseline, new or resumed, with its progress and cancellation.
//! - `outcome.rs`: TTS's and the baselines' results as stored summaries.
//! - `review.rs`: stored summaries read back, one written again from the sources a person
//!   chose, and its report.
//!
//! [`Outcome::Summary`]: factdesk_model::Outcome::Summary
//! [`Factdesk::resummarize`]: crate::Factdesk::resummarize

mod methods;
mod outcome;
mod review;
mod run;
mod sources;

use factdesk_llm::CacheMode;
use factdesk_methods::tts::TtsConfig;
use factdesk_methods::tts::baselines::Baseline;
use factdesk_model::{DocumentId, StoredOutcome};
use serde::Serialize;

pub use methods::{SummaryChoice, SummaryChoices, SummaryMethodName, method_names, parse_method};

/// Where the sources come from.
#[derive(Debug, Clone)]
pub enum SummarySources {
    /// Every document of a corpus.
    Corpus(String),
    /// Chosen documents.
    Documents(Vec<DocumentId>),
    /// The documents of the best sentence hits for a query, in the order of their best hit,
    /// at most `limit` of them.
    Search { query: String, limit: usize },
    /// Pages fetched (or read from the page archive) and imported into `corpus` first, as
    /// `factdesk import` would; a page already there is used as it is.
    Urls { urls: Vec<String>, corpus: String },
}

/// What to summarise and how.
#[derive(Debug, Clone)]
pub struct SummarizeRequest {
    pub question: String,
    pub sources: SummarySources,
    /// TTS, or one of its baselines (`None`).
    pub baseline: Option<Baseline>,
    pub config: TtsConfig,
    pub cache: Option<CacheMode>,
    /// Start a new run even when an unfinished one with the same input exists.
    pub restart: bool,
}

/// A stored summary, and whether its run continued an unfinished one.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct SummaryRun {
    pub resumed: bool,
    #[serde(flatten)]
    pub stored: StoredOutcome,
}

/// At most this many sources: the method's calls grow as N² (N drafts, N·N stance calls).
pub const MAX_SOURCES: usize = 40;
