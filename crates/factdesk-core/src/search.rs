//! Sentence search: BM25 hits from the index, joined with their documents from SQLite.

use factdesk_index::SentenceQuery;
use factdesk_model::{CorpusId, DocumentId, SentenceId};
use serde::Serialize;

use crate::{Factdesk, Result};

/// A sentence search.
#[derive(Debug, Clone, Default)]
pub struct SearchRequest {
    pub query: String,
    /// Hits to return (the configured default when `None`).
    pub limit: Option<usize>,
    /// Only these corpora, by name (empty: all).
    pub corpora: Vec<String>,
    /// Only these documents (empty: all).
    pub documents: Vec<DocumentId>,
    /// Search the words of `query`, ignoring query syntax (for claims, not typed queries).
    pub plain_words: bool,
    /// The language `query` is analysed in (an ISO 639-1 code, the claim's or one a person
    /// chose): when `None`, [`Factdesk::query_language`]'s.
    pub language: Option<String>,
}

/// One matching sentence with where it comes from.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct SearchHit {
    pub sentence_id: SentenceId,
    pub document_id: DocumentId,
    pub corpus: String,
    pub score: f32,
    /// The whole sentence.
    pub sentence: String,
    /// Its position in the document (0-based) and its character span in the document text.
    pub ordinal: u32,
    pub start_char: u32,
    pub end_char: u32,
    /// The page it starts on, in a paged document (a PDF); `None` in others.
    pub page: Option<u32>,
    /// The snippet shown for the hit, and byte ranges of the matched words within it.
    pub snippet: String,
    pub highlights: Vec<[usize; 2]>,
    pub document_title: Option<String>,
    pub document_origin: String,
    pub document_url: Option<String>,
    pub published_at: Option<String>,
}

impl Factdesk {
    /// The language a query that names none is analysed in: the one detected in a query with
    /// letters beyond ASCII (an English query, a pound sign or curly quotes aside, is never run
    /// through the detector), else the language most documents of `corpora` (names; every
    /// corpus when empty) are in, else the corpus default (`import.language`). So a one-word
    /// German query in a German corpus is analysed in German.
    pub fn query_language(&self, query: &str, corpora: &[String]) -> Result<String> {
        let corpora: Vec<CorpusId> = {
            let store = self.store()?;
            corpora
                .iter()
                .map(|name| store.corpus_id(name))
                .collect::<std::result::Result<_, _>>()?
        };
        self.language_of_query(&factdesk_text::nfc(query), &corpora)
    }

    /// The language a claim is searched for evidence in: the one detected in a claim with
    /// letters beyond ASCII, else `import.language`. Not the corpora's main language, as a bare
    /// query's ([`Factdesk::query_language`]): a claim is a sentence in its own language, and an
    /// English claim stemmed as German because most documents searched are German would miss
    /// its English evidence.
    pub fn claim_search_language(&self, claim: &str) -> String {
        let claim = factdesk_text::nfc(claim);
        if claim.chars().any(|c| !c.is_ascii() && c.is_alphabetic())
            && let Some(detected) = factdesk_text::detect_language(&claim)
        {
            return detected.code.to_owned();
        }
        self.settings().import.language.clone()
    }

    fn language_of_query(&self, query: &str, corpora: &[CorpusId]) -> Result<String> {
        if query.chars().any(|c| !c.is_ascii() && c.is_alphabetic())
            && let Some(detected) = factdesk_text::detect_language(query)
        {
            return Ok(detected.code.to_owned());
        }
        Ok(match self.store()?.main_language(corpora)? {
            Some(language) => language,
            None => self.settings().import.language.clone(),
        })
    }

    /// Searches sentences by BM25, best first.
    #[tracing::instrument(skip(self))]
    pub fn search(&self, request: &SearchRequest) -> Result<Vec<SearchHit>> {
        let corpora: Vec<CorpusId> = {
            let store = self.store()?;
            request
                .corpora
                .iter()
                .map(|name| store.corpus_id(name))
                .collect::<std::result::Result<_, _>>()?
        };
        let settings = &self.settings().search;
        // Composed accents (NFC), as imported text is.
        let query = factdesk_text::nfc(&request.query).into_owned();
        let language = match &request.language {
            Some(language) => {
                crate::import::check_language_code(language, "the query language")?;
                language.clone()
            }
            None => self.language_of_query(&query, &corpora)?,
        };
        let search = self.index().search(&SentenceQuery {
            language,
            text: query,
            plain: request.plain_words,
            limit: request.limit.unwrap_or(settings.limit),
            corpora,
            documents: request.documents.clone(),
            snippet_chars: settings.snippet_chars,
        })?;
        let ids: Vec<SentenceId> = search.hits.iter().map(|hit| hit.sentence_id).collect();
        let mut stored = self.store()?.sentences_by_id(&ids)?.into_iter().peekable();
        let mut results = Vec::with_capacity(ids.len());
        for hit in &search.hits {
            // Ids the store no longer has (an index entry left by a failed write) are skipped.
            let Some((sentence, document)) = stored.next_if(|(s, _)| s.id == hit.sentence_id)
            else {
                tracing::debug!(sentence = %hit.sentence_id, "index hit not in the store; skipped");
                continue;
            };
            let snippet = search.snippet(&sentence.text);
            results.push(SearchHit {
                sentence_id: sentence.id,
                document_id: document.id,
                corpus: document.corpus,
                score: hit.score,
                sentence: sentence.text,
                ordinal: sentence.ordinal,
                start_char: sentence.span.start_char,
                end_char: sentence.span.end_char,
                page: sentence.page,
                snippet: snippet.text,
                highlights: snippet
                    .highlights
                    .iter()
                    .map(|range| [range.start, range.end])
                    .collect(),
                document_title: document.title,
                document_origin: document.origin,
                document_url: document.url,
                published_at: document.published_at,
            });
        }
        Ok(results)
    }
}
