//! Where a revision's evidence comes from, switchable per run: the local corpus (through
//! [`CorpusRetriever`]), the passage's own source documents, web pages the chat model proposes
//! for the query (LLM-Cite's URL step, fetched through [`PageSource`]), or nothing (the model
//! answers from what it knows). Two granularities, as in the paper's comparison:
//! - snippets: the 5 sentences that best match the query (the search index's ranking for the
//!   corpus, BM25 over the sentences of source documents and pages);
//! - chunks: the documents split into passages of consecutive sentences (up to
//!   [`CHUNK_WORDS`] words), ranked by embedding cosine to the query, the best 5 kept.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use factdesk_llm::Embedder;
use factdesk_llm::embeddings::cosine;
pub use factdesk_model::parameters::Granularity;
use factdesk_model::{DocumentId, EvidenceSource};

use factdesk_model::TokenUse;

use crate::evidence::{CorpusDocument, CorpusRetriever, PageSource};
use crate::llm_cite::LlmCite;

/// Evidence units given per query.
pub const UNITS: usize = 5;
/// A chunk stops growing before it passes this many words.
pub const CHUNK_WORDS: usize = 100;
/// Documents of a corpus search whose chunks are ranked.
pub const CHUNK_DOCUMENTS: usize = 3;

/// One piece of evidence: its source and its sentences.
#[derive(Debug, Clone, PartialEq)]
pub struct EvidenceUnit {
    pub source: EvidenceSource,
    pub sentences: Vec<String>,
    /// The sentences joined.
    pub text: String,
}

impl EvidenceUnit {
    pub fn new(source: EvidenceSource, sentences: Vec<String>) -> EvidenceUnit {
        let text = sentences.join(" ");
        EvidenceUnit { source, sentences, text }
    }
}

/// What finding evidence for a query gave.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Found {
    /// The best units (at most [`UNITS`]), best first.
    pub units: Vec<EvidenceUnit>,
    /// Model tokens spent finding them (proposing URLs), by purpose.
    pub tokens: TokenUse,
    /// What went wrong on the way, when something did (a page that could not be fetched).
    pub note: Option<String>,
}

impl From<Vec<EvidenceUnit>> for Found {
    fn from(units: Vec<EvidenceUnit>) -> Found {
        Found { units, ..Found::default() }
    }
}

/// Evidence for a query.
#[async_trait]
pub trait EvidenceFinder: Send + Sync {
    /// `corpus`, `source`, `web` or `none`, for the record.
    fn name(&self) -> &'static str;
    /// The granularity, when there is evidence.
    fn granularity(&self) -> Option<Granularity>;
    /// True when there is no evidence source: the model answers from what it knows.
    fn closed_book(&self) -> bool {
        false
    }
    async fn find(&self, query: &str) -> Result<Found, String>;
}

/// No evidence: the model's own knowledge.
#[derive(Debug, Default)]
pub struct NoEvidence;

#[async_trait]
impl EvidenceFinder for NoEvidence {
    fn name(&self) -> &'static str {
        "none"
    }
    fn granularity(&self) -> Option<Granularity> {
        None
    }
    fn closed_book(&self) -> bool {
        true
    }
    async fn find(&self, _query: &str) -> Result<Found, String> {
        Ok(Found::default())
    }
}

/// A document or page as evidence: where it is from and its sentences.
#[derive(Debug, Clone, PartialEq)]
struct Doc {
    source: EvidenceSource,
    sentences: Vec<String>,
}

impl From<&CorpusDocument> for Doc {
    fn from(document: &CorpusDocument) -> Doc {
        Doc {
            source: EvidenceSource {
                url: document.url.clone(),
                title: document.title.clone(),
                document_id: Some(document.id),
                fetched_at: None,
                content_hash: None,
                published_at: None,
            },
            sentences: document.sentences.clone(),
        }
    }
}

/// The [`UNITS`] sentences of `docs` that best match `query` by BM25.
fn best_sentences(query: &str, docs: &[Doc]) -> Vec<EvidenceUnit> {
    let sentences: Vec<(&Doc, &str)> =
        docs.iter().flat_map(|doc| doc.sentences.iter().map(move |s| (doc, s.as_str()))).collect();
    let texts: Vec<&str> = sentences.iter().map(|(_, text)| *text).collect();
    crate::bm25::rank(query, &texts, UNITS)
        .into_iter()
        .map(|(index, _)| {
            let (doc, text) = sentences[index];
            EvidenceUnit::new(doc.source.clone(), vec![text.to_owned()])
        })
        .collect()
}

/// Consecutive sentences grouped into chunks of at most `words` words (a longer sentence is a
/// chunk of its own).
pub fn chunks(sentences: &[String], words: usize) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = Vec::new();
    let mut current: Vec<String> = Vec::new();
    let mut count = 0;
    for sentence in sentences {
        let n = sentence.split_whitespace().count();
        if !current.is_empty() && count + n > words {
            out.push(std::mem::take(&mut current));
            count = 0;
        }
        current.push(sentence.clone());
        count += n;
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// Ranks chunks of `documents` by embedding cosine to `query`, keeping vectors of texts seen
/// before.
struct ChunkRanker {
    embedder: Arc<dyn Embedder>,
    vectors: Mutex<HashMap<String, Vec<f32>>>,
}

impl ChunkRanker {
    async fn rank(&self, query: &str, docs: &[Doc]) -> Result<Vec<EvidenceUnit>, String> {
        let units: Vec<EvidenceUnit> = docs
            .iter()
            .flat_map(|doc| {
                chunks(&doc.sentences, CHUNK_WORDS)
                    .into_iter()
                    .map(|sentences| EvidenceUnit::new(doc.source.clone(), sentences))
            })
            .collect();
        if units.is_empty() {
            return Ok(units);
        }
        let missing: Vec<String> = {
            let known = self.vectors.lock().map_err(|_| "the chunk cache is poisoned")?;
            let mut missing: Vec<String> = units
                .iter()
                .map(|unit| unit.text.clone())
                .chain(std::iter::once(query.to_owned()))
                .filter(|text| !known.contains_key(text))
                .collect();
            missing.dedup();
            missing
        };
        if !missing.is_empty() {
            let vectors = self.embedder.embed(&missing).await.map_err(|error| error.to_string())?;
            let mut known = self.vectors.lock().map_err(|_| "the chunk cache is poisoned")?;
            known.extend(missing.into_iter().zip(vectors));
        }
        let known = self.vectors.lock().map_err(|_| "the chunk cache is poisoned")?;
        let query_vector = known.get(query).cloned().unwrap_or_default();
        let mut scored: Vec<(f32, EvidenceUnit)> = units
            .into_iter()
            .map(|unit| {
                let score = known.get(&unit.text).map_or(f32::MIN, |v| cosine(&query_vector, v));
                (score, unit)
            })
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0));
        Ok(scored.into_iter().take(UNITS).map(|(_, unit)| unit).collect())
    }
}

fn ranker(
    granularity: Granularity,
    embedder: Option<Arc<dyn Embedder>>,
) -> Result<Option<ChunkRanker>, String> {
    match (granularity, embedder) {
        (Granularity::Snippets, _) => Ok(None),
        (Granularity::Chunks, Some(embedder)) => {
            Ok(Some(ChunkRanker { embedder, vectors: Mutex::new(HashMap::new()) }))
        }
        (Granularity::Chunks, None) => {
            Err("chunks are ranked by sentence embeddings, and no embedding model is loaded".into())
        }
    }
}

/// The passage's own source documents (the "gold article" of a news summary).
pub struct SourceEvidence {
    docs: Vec<Doc>,
    ranker: Option<ChunkRanker>,
}

impl SourceEvidence {
    /// Evidence from `documents`; chunks need `embedder`.
    pub fn new(
        documents: Vec<CorpusDocument>,
        granularity: Granularity,
        embedder: Option<Arc<dyn Embedder>>,
    ) -> Result<SourceEvidence, String> {
        if documents.is_empty() {
            return Err("the passage has no source documents to read evidence from".into());
        }
        let docs = documents.iter().map(Doc::from).collect();
        Ok(SourceEvidence { docs, ranker: ranker(granularity, embedder)? })
    }
}

#[async_trait]
impl EvidenceFinder for SourceEvidence {
    fn name(&self) -> &'static str {
        "source"
    }
    fn granularity(&self) -> Option<Granularity> {
        Some(if self.ranker.is_some() { Granularity::Chunks } else { Granularity::Snippets })
    }
    async fn find(&self, query: &str) -> Result<Found, String> {
        Ok(match &self.ranker {
            Some(ranker) => ranker.rank(query, &self.docs).await?.into(),
            None => best_sentences(query, &self.docs).into(),
        })
    }
}

/// A corpus search: its best sentences, or chunks of its best documents.
pub struct CorpusEvidence {
    retriever: Arc<dyn CorpusRetriever>,
    ranker: Option<ChunkRanker>,
}

impl CorpusEvidence {
    pub fn new(
        retriever: Arc<dyn CorpusRetriever>,
        granularity: Granularity,
        embedder: Option<Arc<dyn Embedder>>,
    ) -> Result<CorpusEvidence, String> {
        Ok(CorpusEvidence { retriever, ranker: ranker(granularity, embedder)? })
    }
}

#[async_trait]
impl EvidenceFinder for CorpusEvidence {
    fn name(&self) -> &'static str {
        "corpus"
    }
    fn granularity(&self) -> Option<Granularity> {
        Some(if self.ranker.is_some() { Granularity::Chunks } else { Granularity::Snippets })
    }
    async fn find(&self, query: &str) -> Result<Found, String> {
        let Some(ranker) = &self.ranker else {
            let units: Vec<EvidenceUnit> = self
                .retriever
                .retrieve(query, UNITS)
                .await?
                .into_iter()
                .map(|hit| {
                    let source = EvidenceSource {
                        url: hit.url,
                        title: hit.title,
                        document_id: Some(hit.document_id),
                        fetched_at: None,
                        content_hash: None,
                        published_at: None,
                    };
                    EvidenceUnit::new(source, vec![hit.text])
                })
                .collect();
            return Ok(units.into());
        };
        let hits = self.retriever.retrieve(query, 50).await?;
        let mut ids: Vec<DocumentId> = Vec::new();
        for hit in hits {
            if !ids.contains(&hit.document_id) {
                ids.push(hit.document_id);
            }
            if ids.len() == CHUNK_DOCUMENTS {
                break;
            }
        }
        let mut docs = Vec::with_capacity(ids.len());
        for id in ids {
            docs.push(Doc::from(&self.retriever.document(id).await?));
        }
        Ok(ranker.rank(query, &docs).await?.into())
    }
}

/// Web pages for a query: the chat model proposes URLs for it (LLM-Cite's URL step, with its
/// strategy and m), the pages are fetched (or read from the archive offline), and their
/// sentences give the snippets or chunks.
pub struct WebEvidence {
    proposer: LlmCite,
    pages: Arc<dyn PageSource>,
    ranker: Option<ChunkRanker>,
    language: String,
}

impl WebEvidence {
    /// `proposer` proposes URLs (only its URL step is used) and `pages` reads them.
    pub fn new(
        proposer: LlmCite,
        pages: Arc<dyn PageSource>,
        granularity: Granularity,
        embedder: Option<Arc<dyn Embedder>>,
        language: &str,
    ) -> Result<WebEvidence, String> {
        Ok(WebEvidence {
            proposer,
            pages,
            ranker: ranker(granularity, embedder)?,
            language: language.to_owned(),
        })
    }
}

#[async_trait]
impl EvidenceFinder for WebEvidence {
    fn name(&self) -> &'static str {
        "web"
    }
    fn granularity(&self) -> Option<Granularity> {
        Some(if self.ranker.is_some() { Granularity::Chunks } else { Granularity::Snippets })
    }
    async fn find(&self, query: &str) -> Result<Found, String> {
        let generated =
            self.proposer.generate_urls(query).await.map_err(|error| error.to_string())?;
        let urls: Vec<String> = generated.urls.iter().map(|(url, _)| url.clone()).collect();
        let pages =
            futures_util::future::join_all(urls.iter().map(|url| self.pages.page(url))).await;
        let mut docs = Vec::new();
        let mut failures = Vec::new();
        for (url, page) in urls.iter().zip(pages) {
            match page {
                Ok(page) => {
                    let sentences = factdesk_text::segment_sentences(&page.text, &self.language)
                        .into_iter()
                        .map(|span| span.slice(&page.text).trim().to_owned())
                        .filter(|sentence| !sentence.is_empty())
                        .collect();
                    docs.push(Doc {
                        source: EvidenceSource {
                            url: Some(page.final_url),
                            title: page.title,
                            document_id: None,
                            fetched_at: Some(page.fetched_at),
                            content_hash: Some(page.content_hash),
                            published_at: None,
                        },
                        sentences,
                    });
                }
                Err(error) if error.local => return Err(error.message),
                Err(error) => failures.push(format!("{url}: {}", error.message)),
            }
        }
        let units = match &self.ranker {
            Some(ranker) => ranker.rank(query, &docs).await?,
            None => best_sentences(query, &docs),
        };
        let note = if urls.is_empty() {
            Some("the model proposed no URL for this query".to_owned())
        } else if failures.is_empty() {
            None
        } else {
            Some(format!(
                "{} of {} page(s) could not be read: {}",
                failures.len(),
                urls.len(),
                failures.join("; ")
            ))
        };
        Ok(Found { units, tokens: generated.tokens, note })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_group_consecutive_sentences_under_the_word_cap() {
        let sentences: Vec<String> =
            ["one two three", "four five", "six seven eight nine", "ten"].map(String::from).into();
        let grouped = chunks(&sentences, 5);
        assert_eq!(
            grouped,
            vec![
                vec!["one two three".to_owned(), "four five".to_owned()],
                vec!["six seven eight nine".to_owned(), "ten".to_owned()],
            ]
        );
        // A sentence longer than the cap is a chunk of its own.
        let long = vec!["a b c d e f g".to_owned(), "h".to_owned()];
        assert_eq!(chunks(&long, 3), vec![vec!["a b c d e f g".to_owned()], vec!["h".to_owned()]]);
        assert!(chunks(&[], 3).is_empty());
    }
}
