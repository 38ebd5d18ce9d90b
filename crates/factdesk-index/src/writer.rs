//! Writing the index: the write lock, taken while waiting for another process's writer to
//! finish, and the sentences added or deleted under it, visible on commit.

use std::time::{Duration, Instant};

use factdesk_model::DocumentId;
use std::collections::HashMap;

use tantivy::tokenizer::{PreTokenizedString, TextAnalyzer, Token};
use tantivy::{IndexWriter, TantivyDocument, Term};

use crate::{IndexError, Result, SentenceIndex, SentenceRecord, analyzer};

/// How long [`SentenceIndex::writer`] waits for another process's writer.
const WRITER_WAIT: Duration = Duration::from_secs(60);

impl SentenceIndex {
    /// Takes the index's write lock, waiting while another process holds it.
    pub fn writer(&self) -> Result<SentenceIndexWriter<'_>> {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(4);
        let memory = self.writer_memory_bytes.max((threads * 16) << 20);
        let started = Instant::now();
        let mut pause = Duration::from_millis(20);
        loop {
            match self.index.writer_with_num_threads(threads, memory) {
                Ok(writer) => {
                    return Ok(SentenceIndexWriter {
                        index: self,
                        writer,
                        analyzers: HashMap::new(),
                    });
                }
                Err(tantivy::TantivyError::LockFailure(..)) if started.elapsed() < WRITER_WAIT => {
                    tracing::debug!("search index is locked by another writer; waiting");
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(500));
                }
                Err(tantivy::TantivyError::LockFailure(..)) => {
                    return Err(IndexError::WriterBusy {
                        path: self.display_path(),
                        waited_secs: WRITER_WAIT.as_secs(),
                    });
                }
                Err(source) => return Err(self.wrap()(source)),
            }
        }
    }
}

/// The index's write lock with pending changes; nothing is visible until [`commit`].
///
/// [`commit`]: SentenceIndexWriter::commit
pub struct SentenceIndexWriter<'a> {
    index: &'a SentenceIndex,
    writer: IndexWriter,
    /// The analyzers of the languages other than English met so far.
    analyzers: HashMap<String, TextAnalyzer>,
}

impl std::fmt::Debug for SentenceIndexWriter<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SentenceIndexWriter").finish_non_exhaustive()
    }
}

impl SentenceIndexWriter<'_> {
    /// Queues one sentence, analysed in its language.
    pub fn add(&mut self, record: SentenceRecord<'_>) -> Result<()> {
        let fields = self.index.fields;
        let mut document = TantivyDocument::new();
        document.add_u64(fields.sentence_id, record.sentence_id.0 as u64);
        document.add_u64(fields.document_id, record.document_id.0 as u64);
        document.add_u64(fields.corpus_id, record.corpus_id.0 as u64);
        if analyzer::is_english(record.language) {
            // The field's own analyzer.
            document.add_text(fields.text, record.text);
        } else {
            let analyzer = self
                .analyzers
                .entry(record.language.to_owned())
                .or_insert_with(|| analyzer::for_language(record.language));
            let mut tokens = Vec::new();
            analyzer.token_stream(record.text).process(&mut |token: &Token| {
                tokens.push(token.clone());
            });
            document.add_pre_tokenized_text(
                fields.text,
                PreTokenizedString { text: String::new(), tokens },
            );
        }
        self.writer.add_document(document).map_err(self.index.wrap())?;
        Ok(())
    }

    /// Queues the removal of every sentence of a document.
    pub fn delete_document(&mut self, document: DocumentId) {
        self.writer
            .delete_term(Term::from_field_u64(self.index.fields.document_id, document.0 as u64));
    }

    /// Queues the removal of everything.
    pub fn delete_all(&mut self) -> Result<()> {
        self.writer.delete_all_documents().map_err(self.index.wrap())?;
        Ok(())
    }

    /// Makes the queued changes durable and visible to this process's searches.
    pub fn commit(&mut self) -> Result<()> {
        self.writer.commit().map_err(self.index.wrap())?;
        self.index.refresh()
    }

    /// Drops the queued changes.
    pub fn rollback(&mut self) -> Result<()> {
        self.writer.rollback().map_err(self.index.wrap())?;
        Ok(())
    }

    /// Commits and waits for the indexing threads to finish, releasing the lock.
    pub fn finish(mut self) -> Result<()> {
        self.commit()?;
        self.writer.wait_merging_threads().map_err(self.index.wrap())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::{fixture, query, record};
    use factdesk_model::SentenceId;

    #[test]
    fn deleting_a_document_removes_its_sentences() {
        let index = fixture();
        let mut writer = index.writer().unwrap();
        writer.delete_document(DocumentId(10));
        writer.finish().unwrap();
        assert_eq!(index.sentence_ids().unwrap(), [SentenceId(3), SentenceId(4)]);
        assert!(index.search(&query("okra")).unwrap().hits.is_empty());
    }

    #[test]
    fn rollback_discards_queued_sentences() {
        let index = fixture();
        let mut writer = index.writer().unwrap();
        writer.add(record(5, 13, 1, "Rolled back sentence.")).unwrap();
        writer.rollback().unwrap();
        writer.finish().unwrap();
        assert_eq!(index.sentence_count(), 4);
    }
}
