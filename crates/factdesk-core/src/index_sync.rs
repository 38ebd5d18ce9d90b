//! Keeping the search index in step with SQLite, the source of truth.
//!
//! The protocol: a batch of documents is committed to SQLite, each marked pending; its
//! sentences are then committed to the index; then the pending marks are removed. Adding a
//! document to the index first deletes whatever the index holds for its id, so indexing the
//! same document twice is harmless. A crash between the steps leaves documents pending, and
//! every write (import, reindex) indexes pending documents first. [`Factdesk::check_index`]
//! compares the two sides; [`Factdesk::reindex`] rebuilds the index from SQLite in one commit.
//!
//! An index of an older layout is replaced by an empty one when the data directory is opened,
//! every document is marked pending, and [`REBUILD_PENDING_FILE`] is written beside the index;
//! [`Factdesk::finish_index_rebuild`] then detects the languages of documents stored before
//! languages were, reads for other languages the sentences of those stored with a language
//! before sentences had theirs (the file is written for these too, the index kept: only the
//! documents with such a sentence are marked pending), and indexes the pending documents, in
//! steps each stored and committed at once, with progress, and removes the file when all are
//! in. Interrupted, it goes on where it stopped the next time the directory is opened.

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

/// The file in the data directory that says the index was replaced and still lacks documents
/// (see the module docs).
pub const REBUILD_PENDING_FILE: &str = "index-rebuild-pending";

/// What [`Factdesk::finish_index_rebuild`] did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct IndexRebuild {
    /// Documents stored before languages were whose language was detected now.
    pub languages_detected: u64,
    /// Documents added to the index, with their sentences.
    pub documents: u64,
    pub sentences: u64,
    /// False when it was cancelled: the rest is done the next time the data directory is
    /// opened.
    pub complete: bool,
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
        if !self.detect_document_languages(&*reporter, &cancel)?.0
            || !self.read_unread_sentence_languages(&*reporter, &cancel)?
        {
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
        // Whatever a replaced index still lacked, it has now.
        self.forget_pending_rebuild()?;
        reporter.finish();
        Ok(Some(ReindexSummary {
            documents: documents.len() as u64,
            sentences,
            seconds_milli: started.elapsed().as_millis() as u64,
        }))
    }

    /// Whether the index was replaced when the data directory was opened and still lacks
    /// documents that [`Factdesk::finish_index_rebuild`] adds.
    pub fn index_rebuild_pending(&self) -> bool {
        self.data_dir().join(REBUILD_PENDING_FILE).exists()
    }

    /// Finishes the rebuild of an index replaced on open (see the module docs): detects the
    /// languages of documents stored before languages were (phase "Detecting languages"), reads
    /// the sentences of documents stored with a language before sentences had theirs (phase
    /// "Reading sentence languages"), then indexes every pending document (phase "Indexing"),
    /// in steps of 500 documents each
    /// stored or committed at once; checks `cancel` between steps. `None` when no rebuild is
    /// pending.
    #[tracing::instrument(skip(self, reporter, cancel))]
    pub fn finish_index_rebuild(
        &self,
        reporter: Arc<dyn Reporter>,
        cancel: CancelToken,
    ) -> Result<Option<IndexRebuild>> {
        if !self.index_rebuild_pending() {
            return Ok(None);
        }
        let mut done =
            IndexRebuild { languages_detected: 0, documents: 0, sentences: 0, complete: false };
        let detected = self.detect_document_languages(&*reporter, &cancel);
        let finished = detected.and_then(|(complete, count)| {
            done.languages_detected = count;
            if !complete || !self.read_unread_sentence_languages(&*reporter, &cancel)? {
                return Ok(false);
            }
            self.index_pending_in_steps(&*reporter, &cancel, &mut done)
        });
        reporter.finish();
        done.complete = finished?;
        if done.complete {
            self.forget_pending_rebuild()?;
            tracing::info!(documents = done.documents, "search index rebuilt");
        }
        Ok(Some(done))
    }

    /// Removes [`REBUILD_PENDING_FILE`], if another rebuild (a window reloaded while one ran)
    /// has not already.
    fn forget_pending_rebuild(&self) -> Result<()> {
        let marker = self.data_dir().join(REBUILD_PENDING_FILE);
        match std::fs::remove_file(&marker) {
            Err(source) if source.kind() != std::io::ErrorKind::NotFound => {
                Err(crate::CoreError::Io { path: marker, source })
            }
            _ => Ok(()),
        }
    }

    /// Indexes the pending documents in steps, each committed and marked at once; false when
    /// cancelled.
    fn index_pending_in_steps(
        &self,
        reporter: &dyn Reporter,
        cancel: &CancelToken,
        done: &mut IndexRebuild,
    ) -> Result<bool> {
        let mut writer = self.index().writer()?;
        // Read under the lock: an import in another process may have indexed some meanwhile.
        let pending = self.store()?.documents_pending_index()?;
        reporter.phase("Indexing", Some(pending.len() as u64), ProgressUnit::Items);
        for chunk in pending.chunks(DOCUMENTS_PER_STEP) {
            if cancel.is_cancelled() {
                writer.finish()?;
                return Ok(false);
            }
            done.sentences += self.add_documents_to_index(chunk, &mut writer, true)?;
            writer.commit()?;
            self.store()?.mark_indexed(chunk)?;
            done.documents += chunk.len() as u64;
            reporter.advance(chunk.len() as u64);
        }
        writer.finish()?;
        Ok(true)
    }

    /// Gives every document stored without a language (imported before languages were) the
    /// one detected in its text, or the corpus default when it is too short to tell, and its
    /// sentences in another language theirs (`factdesk_text::sentence_languages`). Runs in
    /// steps, each stored at once, so an interrupted run goes on where it stopped. Answers
    /// whether it got to the end (false when cancelled) and how many it gave a language.
    pub(crate) fn detect_document_languages(
        &self,
        reporter: &dyn Reporter,
        cancel: &CancelToken,
    ) -> Result<(bool, u64)> {
        let default_language = &self.settings().import.language;
        let mut after = DocumentId(0);
        let mut detected = 0;
        let total = self.store()?.count_documents_without_language()?;
        if total == 0 {
            return Ok((true, 0));
        }
        reporter.phase("Detecting languages", Some(total), ProgressUnit::Items);
        loop {
            if cancel.is_cancelled() {
                return Ok((false, detected));
            }
            let documents = self.store()?.documents_without_language(
                after,
                DOCUMENTS_PER_STEP,
                factdesk_text::SAMPLE_BYTES,
            )?;
            let Some(last) = documents.last() else { return Ok((true, detected)) };
            after = last.0;
            let mut languages: Vec<(DocumentId, String)> = Vec::with_capacity(documents.len());
            let mut sentence_languages = Vec::new();
            for (id, sample) in &documents {
                let detected = factdesk_text::detect_language(sample);
                let language = detected.map_or(default_language.as_str(), |found| found.code);
                // Its sentences in another language, as an import finds them.
                let document = self.store()?.document(*id)?;
                let spans: Vec<_> = document.sentences.iter().map(|s| s.span).collect();
                let told = detected.is_some();
                for (index, code) in
                    factdesk_text::sentence_languages(&document.text, &spans, language, told)
                {
                    sentence_languages.push((document.sentences[index].id, code.to_owned()));
                }
                languages.push((*id, language.to_owned()));
            }
            // Sentences first: a document with a language is not read again.
            self.store()?.set_sentence_languages(&sentence_languages)?;
            self.store()?.set_document_languages(&languages)?;
            detected += languages.len() as u64;
            reporter.advance(languages.len() as u64);
        }
    }

    /// Reads the sentences of the documents stored with a language before sentences had
    /// theirs (migration 0021 lists them) for another language than their document's, as an
    /// import does (`factdesk_text::sentence_languages`; every sentence when the detector is
    /// not sure of the document's stored language in its text, which is then the corpus
    /// default or one the import was told), and marks the documents where it found one
    /// pending, to be indexed again. In steps, each stored at once with the step's documents
    /// taken off the list, so an interrupted run goes on where it stopped. Answers whether it
    /// got to the end (false when cancelled).
    pub(crate) fn read_unread_sentence_languages(
        &self,
        reporter: &dyn Reporter,
        cancel: &CancelToken,
    ) -> Result<bool> {
        let total = self.store()?.count_documents_with_unread_sentence_languages()?;
        if total == 0 {
            return Ok(true);
        }
        reporter.phase("Reading sentence languages", Some(total), ProgressUnit::Items);
        loop {
            if cancel.is_cancelled() {
                return Ok(false);
            }
            let step =
                self.store()?.documents_with_unread_sentence_languages(DOCUMENTS_PER_STEP)?;
            if step.is_empty() {
                return Ok(true);
            }
            let mut sentence_languages = Vec::new();
            for id in &step {
                let document = self.store()?.document(*id)?;
                let Some(language) = document.summary.language.as_deref() else { continue };
                let told = factdesk_text::detect_language(&document.text)
                    .is_some_and(|detected| detected.code == language);
                let spans: Vec<_> = document.sentences.iter().map(|s| s.span).collect();
                for (index, code) in
                    factdesk_text::sentence_languages(&document.text, &spans, language, told)
                {
                    sentence_languages.push((document.sentences[index].id, code.to_owned()));
                }
            }
            self.store()?.record_sentence_languages_read(&step, &sentence_languages)?;
            reporter.advance(step.len() as u64);
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
