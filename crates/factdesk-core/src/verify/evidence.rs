//! Evidence adapters: what a method reads its evidence through, built from Factdesk's own parts.
//! Methods in `factdesk-methods` see only the traits ([`PageSource`], [`CorpusRetriever`]);
//! this module gives them web pages (fetched on the fly or from the page archive, recorded with
//! the run) and corpus sentences (from the search index). [`super::Method::evidence`] names
//! which a method reads.

use std::sync::Arc;

use async_trait::async_trait;
use factdesk_methods::evidence::{
    CorpusDocument, CorpusRetriever, CorpusSentence, Page, PageError, PageSource,
};
use factdesk_model::{DocumentId, EvidenceSource, RunId, UrlStatus};
use tokio::sync::Semaphore;

use crate::search::SearchRequest;
use crate::{CoreError, Factdesk};

/// The evidence a method reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
#[serde(rename_all = "kebab-case")]
pub enum Evidence {
    /// Web pages at URLs the method finds (fetched, or from the archive when offline).
    WebPages,
    /// Sentences retrieved from the local corpora.
    Corpus,
    /// None: the model judges from what it learned.
    None,
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
        CoreError::Fetch(FetchError::NotFound { .. } | FetchError::NotInFile { .. }) => {
            UrlStatus::NotFound
        }
        CoreError::Fetch(FetchError::Status { status: 404 | 410, .. }) => UrlStatus::NotFound,
        CoreError::Fetch(FetchError::InvalidUrl { .. } | FetchError::UnsupportedScheme { .. }) => {
            UrlStatus::Invalid
        }
        CoreError::Fetch(FetchError::Forbidden { .. } | FetchError::RedirectScheme { .. })
        | CoreError::NotArchived { .. } => UrlStatus::Refused,
        _ => UrlStatus::Failed,
    }
}

/// The web pages an earlier LLM-Cite check of a claim read, for CIBER: served from the page
/// archive by the content hash that check recorded, so CIBER judges the very text LLM-Cite
/// judged, offline, without a fetch.
pub(crate) struct LlmCitePages {
    pub app: Factdesk,
    /// The pages the check read (each with a URL and a content hash).
    pub sources: Vec<EvidenceSource>,
}

impl LlmCitePages {
    /// The pages read by the newest LLM-Cite check of `claim` that read any (none when no
    /// LLM-Cite check of exactly this text read a page), once each.
    pub fn of_claim(app: &Factdesk, claim: &str) -> crate::Result<Self> {
        let check =
            app.store()?.latest_check_with_sources(factdesk_methods::llm_cite::METHOD, claim)?;
        let mut sources: Vec<EvidenceSource> = Vec::new();
        for source in check.map(|check| check.check.sources).unwrap_or_default() {
            let read = source.url.is_some() && source.content_hash.is_some();
            if read && !sources.iter().any(|kept| kept.content_hash == source.content_hash) {
                sources.push(source);
            }
        }
        Ok(Self { app: app.clone(), sources })
    }

    /// The URLs of the pages, in the order the check read them.
    pub fn urls(&self) -> Vec<String> {
        self.sources.iter().filter_map(|source| source.url.clone()).collect()
    }
}

#[async_trait]
impl PageSource for LlmCitePages {
    async fn page(&self, url: &str) -> std::result::Result<Page, PageError> {
        let source =
            self.sources.iter().find(|source| source.url.as_deref() == Some(url)).ok_or_else(
                || PageError::local(format!("{url}: LLM-Cite did not read this page")),
            )?;
        let hash = source.content_hash.clone().unwrap_or_default();
        let stored = self
            .app
            .store()
            .and_then(|store| Ok(store.page_by_hash(&hash)?))
            .map_err(|error| PageError::local(format!("{url}: {error}")))?
            .ok_or_else(|| {
                PageError::local(format!(
                    "{url}: the page LLM-Cite read (content {hash}) is no longer in the page \
                     archive; check the claim with LLM-Cite again"
                ))
            })?;
        Ok(Page {
            requested_url: url.to_owned(),
            final_url: url.to_owned(),
            title: source.title.clone().or(stored.title),
            fetched_at: source.fetched_at.clone().unwrap_or(stored.first_fetched_at),
            content_hash: stored.content_hash,
            text: stored.text,
        })
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
            // The claim's own language (`Factdesk::claim_search_language`), not the one most
            // documents of the corpora searched are in.
            language: Some(self.app.claim_search_language(query)),
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
