//! The documents a summary reads: a whole corpus, chosen documents, the documents a search
//! of the index finds, or pages fetched by URL and imported first; at most [`MAX_SOURCES`].

use std::sync::Arc;

use factdesk_model::DocumentId;

use super::{MAX_SOURCES, SummarySources};
use crate::search::SearchRequest;
use crate::{CancelToken, CoreError, Factdesk, Result};

impl Factdesk {
    /// The documents `sources` names, checked against [`MAX_SOURCES`]; URLs are imported
    /// first, and a page that cannot be read stops it with the reason.
    pub(super) async fn summary_documents(
        &self,
        sources: &SummarySources,
        cancel: &CancelToken,
    ) -> Result<Vec<DocumentId>> {
        let too_many = |what: String, hint: &str| {
            CoreError::InvalidInput(format!(
                "{what}: at most {MAX_SOURCES} sources are summarised at once (the stance calls \
                 grow with the square of the sources); {hint}"
            ))
        };
        Ok(match sources {
            SummarySources::Documents(ids) if ids.len() > MAX_SOURCES => {
                return Err(too_many(format!("{} documents", ids.len()), "choose fewer"));
            }
            SummarySources::Documents(ids) => ids.clone(),
            SummarySources::Urls { urls, .. } if urls.len() > MAX_SOURCES => {
                return Err(too_many(format!("{} URLs", urls.len()), "give fewer"));
            }
            SummarySources::Urls { urls, corpus } => {
                let request = crate::import::ImportRequest {
                    sources: urls.clone(),
                    corpus: corpus.clone(),
                    text_field: None,
                    title_field: None,
                    url_field: None,
                    date_field: None,
                    language: None,
                };
                let imported =
                    self.import(request, Arc::new(crate::NoProgress), cancel.clone()).await?;
                if imported.cancelled {
                    return Err(CoreError::Cancelled {
                        what: "fetching the pages".into(),
                        resume: "summarise them again (the pages read are kept)".into(),
                    });
                }
                if !imported.failures.is_empty() {
                    let failed: Vec<String> = imported
                        .failures
                        .iter()
                        .map(|failure| format!("{}: {}", failure.item, failure.message))
                        .collect();
                    return Err(CoreError::InvalidInput(format!(
                        "could not read every page: {}; leave those URLs out or try again",
                        failed.join("; ")
                    )));
                }
                let mut ids: Vec<DocumentId> = Vec::new();
                for document in &imported.documents {
                    if !ids.contains(&document.id) {
                        ids.push(document.id);
                    }
                }
                ids
            }
            SummarySources::Corpus(name) => {
                let ids: Vec<DocumentId> = self
                    .documents(Some(name), Some(MAX_SOURCES as u64 + 1), 0)?
                    .into_iter()
                    .map(|document| document.id)
                    .collect();
                if ids.len() > MAX_SOURCES {
                    return Err(too_many(
                        format!("more than {MAX_SOURCES} documents in corpus '{name}'"),
                        "choose documents of it, or search it",
                    ));
                }
                ids
            }
            SummarySources::Search { query, limit } => {
                if *limit > MAX_SOURCES {
                    return Err(too_many(
                        format!("{limit} search results asked for"),
                        "ask for fewer",
                    ));
                }
                if *limit < 3 {
                    return Err(CoreError::InvalidInput(format!(
                        "{limit} search result(s) asked for: peer prediction needs at least 3 \
                         sources"
                    )));
                }
                // Enough sentence hits to reach `limit` distinct documents in most indexes.
                let hits = self.search(&SearchRequest {
                    query: query.clone(),
                    limit: Some(limit.saturating_mul(20).max(100)),
                    corpora: Vec::new(),
                    documents: Vec::new(),
                    plain_words: true,
                    language: None,
                })?;
                let mut ids: Vec<DocumentId> = Vec::new();
                for hit in hits {
                    if ids.len() == *limit {
                        break;
                    }
                    if !ids.contains(&hit.document_id) {
                        ids.push(hit.document_id);
                    }
                }
                if ids.is_empty() {
                    return Err(CoreError::InvalidInput(format!(
                        "no document of the index matches '{query}'; import sources first or \
                         search other words"
                    )));
                }
                ids
            }
        })
    }
}
