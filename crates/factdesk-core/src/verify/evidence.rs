//! Evidence adapters: what a method reads its evidence through, built from Factdesk's own parts.
//! Methods in `factdesk-methods` see only the traits ([`PageSource`], [`CorpusRetriever`]);
//! this module gives them web pages (fetched on the fly or from the page archive, recorded with
//! the run) and corpus sentences (from the search index). [`Method::evidence`] names which a
//! method reads.

use std::sync::Arc;

use async_trait::async_trait;
use factdesk_methods::evidence::{
    CorpusDocument, CorpusRetriever, CorpusSentence, Page, PageError, PageSource,
};
use factdesk_model::{DocumentId, RunId, UrlStatus};
use tokio::sync::Semaphore;

use super::Method;
use crate::search::SearchRequest;
use crate::{CoreError, Factdesk};

/// The evidence a method reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Evidence {
    /// Web pages at URLs the method finds (fetched, or from the archive when offline).
    WebPages,
    /// Sentences retrieved from the local corpora.
    Corpus,
    /// None: the model judges from what it learned.
    None,
}

impl Method {
    /// The evidence this method reads.
    pub fn evidence(self) -> Evidence {
        match self {
            Method::LlmCite => Evidence::WebPages,
            Method::PTrue => Evidence::None,
            Method::CorpusNli => Evidence::Corpus,
            // And the web pages a person names (`--page`).
            Method::Ciber => Evidence::Corpus,
        }
    }
}

/// Web pages for LLM-Cite: fetched (or from the archive) and recorded with the run.
pub(crate) struct WebPages {
    pub app: Factdesk,
    pub run: RunId,
    /// Shared by every claim of a batch: `fetch.concurrency` pages at once.
    pub permits: Arc<Semaphore>,
}

#[async_trait]
impl PageSource for WebPages {
    async fn page(&self, url: &str) -> std::result::Result<Page, PageError> {
        let _permit = self
            .permits
            .acquire()
            .await
            .map_err(|_| PageError::local("the fetch pool is closed"))?;
        match self.app.fetch_page(url, Some(self.run)).await {
            Ok(page) => Ok(Page {
                requested_url: page.requested_url,
                final_url: page.final_url,
                title: page.title,
                fetched_at: page.fetched_at,
                content_hash: page.content_hash,
                text: page.text,
            }),
            // The database or the archive failing is not the URL's fault.
            Err(
                error @ (CoreError::Store(_)
                | CoreError::Index(_)
                | CoreError::Io { .. }
                | CoreError::Internal(_)),
            ) => Err(PageError::local(format!("{url}: {error}"))),
            Err(error) => Err(PageError::of_url(url_status(&error), error.to_string())),
        }
    }
}

/// What a fetch failure means for the URL's validity.
fn url_status(error: &CoreError) -> UrlStatus {
    use factdesk_fetch::FetchError;
    match error {
        CoreError::Fetch(FetchError::NotFound { .. }) => UrlStatus::NotFound,
        CoreError::Fetch(FetchError::Status { status: 404 | 410, .. }) => UrlStatus::NotFound,
        CoreError::Fetch(FetchError::InvalidUrl { .. } | FetchError::UnsupportedScheme { .. }) => {
            UrlStatus::Invalid
        }
        CoreError::Fetch(FetchError::Forbidden { .. } | FetchError::RedirectScheme { .. })
        | CoreError::NotArchived { .. } => UrlStatus::Refused,
        _ => UrlStatus::Failed,
    }
}

/// Corpus sentences for corpus-NLI and CIBER, from the search index, and whole documents from
/// the store.
pub(crate) struct CorpusSearch {
    pub app: Factdesk,
    /// The corpora searched (all when empty).
    pub corpora: Vec<String>,
}

#[async_trait]
impl CorpusRetriever for CorpusSearch {
    async fn retrieve(
        &self,
        query: &str,
        limit: usize,
    ) -> std::result::Result<Vec<CorpusSentence>, String> {
        // A claim is not a query: "NOT" or "-40" in it must not exclude evidence.
        let request = SearchRequest {
            query: query.to_owned(),
            limit: Some(limit),
            corpora: self.corpora.clone(),
            documents: Vec::new(),
            plain_words: true,
        };
        match self.app.search(&request) {
            Ok(hits) => Ok(hits
                .into_iter()
                .map(|hit| CorpusSentence {
                    document_id: hit.document_id,
                    title: hit.document_title,
                    url: hit.document_url,
                    text: hit.sentence,
                    score: f64::from(hit.score),
                })
                .collect()),
            // A claim made only of stop words matches nothing; that is no evidence, not a failure.
            Err(CoreError::Index(factdesk_index::IndexError::EmptyQuery { .. })) => Ok(Vec::new()),
            Err(error) => Err(error.to_string()),
        }
    }

    async fn document(&self, id: DocumentId) -> std::result::Result<CorpusDocument, String> {
        let document = self.app.document(id).map_err(|error| error.to_string())?;
        Ok(CorpusDocument {
            id,
            title: document.summary.title,
            url: document.summary.url,
            text: document.text,
            sentences: document.sentences.into_iter().map(|sentence| sentence.text).collect(),
        })
    }
}
