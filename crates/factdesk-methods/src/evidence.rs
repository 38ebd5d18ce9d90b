//! Where methods get evidence from, as traits the application implements: web pages fetched
//! (or served from the archive) by URL, and sentences retrieved from the local corpus. Methods
//! never fetch, query SQL or search tantivy themselves.

use async_trait::async_trait;
use factdesk_model::{DocumentId, UrlStatus};

/// A page's text and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    pub requested_url: String,
    /// The URL after redirects (for Wikipedia, the article the title resolved to).
    pub final_url: String,
    pub title: Option<String>,
    pub fetched_at: String,
    pub content_hash: String,
    pub text: String,
}

/// Why a URL gave no page. `status` is never [`UrlStatus::Fetched`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct PageError {
    pub status: UrlStatus,
    pub message: String,
    /// The failure is Factdesk's own (its database or archive), not the URL's: the claim
    /// cannot be judged now, and no verdict is given, so that a later run checks it again.
    pub local: bool,
}

impl PageError {
    /// A failure of the URL (not found, refused, unreachable, …).
    pub fn of_url(status: UrlStatus, message: impl Into<String>) -> PageError {
        PageError { status, message: message.into(), local: false }
    }

    /// A failure of Factdesk itself while getting the page.
    pub fn local(message: impl Into<String>) -> PageError {
        PageError { status: UrlStatus::Failed, message: message.into(), local: true }
    }
}

/// Pages by URL: fetched on the fly, or from the archive.
#[async_trait]
pub trait PageSource: Send + Sync {
    async fn page(&self, url: &str) -> Result<Page, PageError>;
}

/// A sentence of a local corpus document, as a search returned it.
#[derive(Debug, Clone, PartialEq)]
pub struct CorpusSentence {
    pub document_id: DocumentId,
    pub title: Option<String>,
    pub url: Option<String>,
    pub text: String,
    pub score: f64,
}

/// A whole local corpus document.
#[derive(Debug, Clone, PartialEq)]
pub struct CorpusDocument {
    pub id: DocumentId,
    pub title: Option<String>,
    pub url: Option<String>,
    pub text: String,
    /// Its sentences, in order.
    pub sentences: Vec<String>,
}

/// Sentence retrieval from the local corpus, and its documents whole.
#[async_trait]
pub trait CorpusRetriever: Send + Sync {
    /// The `limit` sentences that best match `query`, best first.
    async fn retrieve(&self, query: &str, limit: usize) -> Result<Vec<CorpusSentence>, String>;

    /// One document, whole (for methods that read documents rather than sentences).
    async fn document(&self, id: DocumentId) -> Result<CorpusDocument, String>;
}
