//! Keeping the search index in step with SQLite, the source of truth.
//!
//! The protocol: a batch of documents is committed to SQLite, each marked pending; its
//! sentences are then committed to the index; then the pending marks are removed. Adding a
//! document to the index first deletes whatever the index holds for its id, so indexing the
//! same document twice is harmless. A crash between the steps leaves documents pending, and
//! every write (import, reindex) indexes pending documents first. [`Factdesk::check_index`]
//! compares the two sides; [`Factdesk::reindex`] rebuilds the index from SQLite in one commit.

use std::sync::Arc;

use factdesk_index::{SentenceIndexWriter, SentenceRecord};
use factdesk_model::{DocumentId, SentenceId};
use serde::Serialize;

use crate::{CancelToken, Factdesk, ProgressUnit, Reporter, Result};

/// Documents read from SQLite per step while (re)indexing.
const DOCUMENTS_PER_STEP: usize = 500;

/// How the index compares with SQLite.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IndexCheck {
    /// Sentences of indexed documents in SQLite.
    pub store_sentences: u64,
    /// Sentences in the index.
    pub index_sentences: u64,
    /// Documents committed to SQLite but not yet to the index.
    pub pending_documents: u64,
    /// Sentences SQLite marks as indexed that the index lacks.
    pub missing_from_index: u64,
    /// Sentences in the index that SQLite does not have.
    pub orphaned_in_index: u64,
    /// Sentences present more than once in the index.
    pub duplicated_in_index: u64,
    /// A few of the sentence ids that differ, for diagnosis.
    pub examples: Vec<SentenceId>,
    pub consistent: bool,
}

/// What a rebuild did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReindexSummary {
    pub documents: u64,
    pub sentences: u64,
    pub seconds_milli: u64,
}

impl Factdesk {
    /// Indexes the documents SQLite holds as pending, under an already-held writer.
    pub(crate) fn index_pending_documents(
        &self,
        writer: &mut SentenceIndexWriter<'_>,
    ) -> Result<u64> {
        let pending = self.store()?.documents_pending_index()?;
        if pending.is_empty() {
            return Ok(0);
        }
        tracing::info!(documents = pending.len(), "indexing documents left pending");
        let mut total = 0;
        for chunk in pending.chunks(DOCUMENTS_PER_STEP) {
            total += self.add_documents_to_index(chunk, writer, true)?;
            writer.commit()?;
            self.store()?.mark_indexed(chunk)?;
        }
        Ok(total)
    }

    fn add_documents_to_index(
        &self,
        documents: &[DocumentId],
        writer: &mut SentenceIndexWriter<'_>,
        replace: bool,
    ) -> Result<u64> {
        let sentences = self.store()?.sentences_for_index(documents)?;
        let default_language = &self.settings().import.language;
        if replace {
            for document in documents {
                writer.delete_document(*document);
            }
        }
        for sentence in &sentences {
            writer.add(SentenceRecord {
                sentence_id: sentence.sentence_id,
                document_id: sentence.document_id,
                corpus_id: sentence.corpus_id,
                text: &sentence.text,
                language: sentence.language.as_deref().unwrap_or(default_language),
            })?;
        }
        Ok(sentences.len() as u64)
    }

    /// Rebuilds the whole index from SQLite. The old index stays searchable until the new one
    /// is committed, all at once; a cancelled or failed rebuild leaves the old one in place.
    #[tracing::instrument(skip(self, reporter, cancel))]
    pub fn reindex(
        &self,
        reporter: Arc<dyn Reporter>,
        cancel: CancelToken,
    ) -> Result<Option<ReindexSummary>> {
        let started = std::time::Instant::now();
        if !self.detect_document_languages(&*reporter, &cancel)? {
            reporter.finish();
            return Ok(None);
        }
        let documents = self.store()?.all_document_ids()?;
        let mut writer = self.index().writer()?;
        writer.delete_all()?;
        reporter.phase("Reindexing", Some(documents.len() as u64), ProgressUnit::Items);
        let mut sentences = 0;
        for chunk in documents.chunks(DOCUMENTS_PER_STEP) {
            if cancel.is_cancelled() {
                writer.rollback()?;
                reporter.finish();
                return Ok(None);
            }
            sentences += self.add_documents_to_index(chunk, &mut writer, false)?;
            reporter.advance(chunk.len() as u64);
        }
        writer.finish()?;
        self.store()?.mark_indexed(&documents)?;
        reporter.finish();
        Ok(Some(ReindexSummary {
            documents: documents.len() as u64,
            sentences,
            seconds_milli: started.elapsed().as_millis() as u64,
        }))
    }

    /// Gives every document stored without a language (imported before languages were) the
    /// one detected in its text, or the corpus default when it is too short to tell. Runs in
    /// steps, each stored at once, so an interrupted run goes on where it stopped. False when
    /// cancelled.
    pub(crate) fn detect_document_languages(
        &self,
        reporter: &dyn Reporter,
        cancel: &CancelToken,
    ) -> Result<bool> {
        let default_language = &self.settings().import.language;
        let mut after = DocumentId(0);
        let mut started = false;
        loop {
            let documents = self.store()?.documents_without_language(
                after,
                DOCUMENTS_PER_STEP,
                factdesk_text::SAMPLE_BYTES,
            )?;
            let Some(last) = documents.last() else { return Ok(true) };
            after = last.0;
            if !started {
                reporter.phase("Detecting languages", None, ProgressUnit::Items);
                started = true;
            }
            if cancel.is_cancelled() {
                return Ok(false);
            }
            let languages: Vec<(DocumentId, String)> = documents
                .iter()
                .map(|(id, sample)| {
                    let language = factdesk_text::detect_language(sample)
                        .map_or(default_language.as_str(), |language| language.code);
                    (*id, language.to_owned())
                })
                .collect();
            self.store()?.set_document_languages(&languages)?;
            reporter.advance(languages.len() as u64);
        }
    }

    /// Compares the index with SQLite, sentence by sentence.
    pub fn check_index(&self) -> Result<IndexCheck> {
        self.index().refresh()?;
        let (stored, pending) = {
            let store = self.store()?;
            (store.indexed_sentence_ids()?, store.documents_pending_index()?.len() as u64)
        };
        let indexed = self.index().sentence_ids()?;
        let (mut missing, mut orphaned, mut duplicated) = (0u64, 0u64, 0u64);
        let mut examples = Vec::new();
        let note = |id: SentenceId, examples: &mut Vec<SentenceId>| {
            if examples.len() < 10 {
                examples.push(id);
            }
        };
        let (mut s, mut i) = (0, 0);
        while s < stored.len() || i < indexed.len() {
            if i > 0 && i < indexed.len() && indexed[i] == indexed[i - 1] {
                duplicated += 1;
                note(indexed[i], &mut examples);
                i += 1;
                continue;
            }
            match (stored.get(s), indexed.get(i)) {
                (Some(a), Some(b)) if a == b => {
                    s += 1;
                    i += 1;
                }
                (Some(a), Some(b)) if a < b => {
                    missing += 1;
                    note(*a, &mut examples);
                    s += 1;
                }
                (Some(_), Some(b)) | (None, Some(b)) => {
                    // An index entry of a pending document is expected, not an orphan.
                    orphaned += 1;
                    note(*b, &mut examples);
                    i += 1;
                }
                (Some(a), None) => {
                    missing += 1;
                    note(*a, &mut examples);
                    s += 1;
                }
                (None, None) => break,
            }
        }
        Ok(IndexCheck {
            store_sentences: stored.len() as u64,
            index_sentences: indexed.len() as u64,
            pending_documents: pending,
            missing_from_index: missing,
            orphaned_in_index: orphaned,
            duplicated_in_index: duplicated,
            examples,
            consistent: missing == 0 && orphaned == 0 && duplicated == 0 && pending == 0,
        })
    }
}
