//! The `documents` and `sentences` tables, and the write-ahead protocol with the search index:
//! documents are committed here first together with a row in `documents_pending_index`, which
//! is deleted once the index has committed their sentences. A crash in between leaves them
//! pending, never lost.

use factdesk_model::{
    CorpusId, Document, DocumentFormat, DocumentId, DocumentSummary, OriginKind, Sentence,
    SentenceId, SentenceSpan,
};
use rusqlite::{OptionalExtension, Row, params, params_from_iter};

use crate::{Result, Store, StoreError, parse_column};

mod unread;

/// A document ready to be stored: extracted, segmented and hashed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewDocument {
    pub origin: String,
    pub origin_kind: OriginKind,
    pub url: Option<String>,
    pub format: DocumentFormat,
    pub title: Option<String>,
    pub published_at: Option<String>,
    pub acquired_at: String,
    pub content_hash: String,
    pub raw: Vec<u8>,
    pub charset: Option<String>,
    pub text: String,
    pub sentences: Vec<SentenceSpan>,
    /// Where each page starts in `text` (character offsets, see [`factdesk_model::page_at`]);
    /// empty for a document without pages. Each sentence is stored with the page it starts on.
    pub page_starts: Vec<u32>,
    /// The text's language, an ISO 639-1 code (`de`, `zh`); `None` when unknown.
    pub language: Option<String>,
    /// The sentences in another language than `language`, as (index in `sentences`, ISO 639-1
    /// code), ascending; empty for nearly every document.
    pub sentence_languages: Vec<(usize, String)>,
}

/// What became of one document of a batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DocumentInsertOutcome {
    /// Stored, with the ids of its sentences in order.
    Inserted { document: DocumentId, sentence_ids: Vec<SentenceId> },
    /// The corpus already holds a document with the same content hash.
    Duplicate(DocumentId),
}

/// A sentence as the search index takes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexableSentence {
    pub sentence_id: SentenceId,
    pub document_id: DocumentId,
    pub corpus_id: CorpusId,
    pub text: String,
    /// Its own language when it differs from its document's, else its document's; `None` when
    /// unknown (stored before languages were).
    pub language: Option<String>,
}

/// Which documents to list.
#[derive(Debug, Clone, Default)]
pub struct DocumentFilter {
    pub corpus: Option<CorpusId>,
    pub limit: Option<u64>,
    pub offset: u64,
}

const SUMMARY_COLUMNS: &str = "d.id, c.name, d.origin, d.origin_kind, d.url, d.format, d.title,
     d.published_at, d.acquired_at, d.content_hash,
     (SELECT count(*) FROM sentences s WHERE s.document_id = d.id), length(d.text), d.language";

fn summary_from_row(row: &Row<'_>) -> rusqlite::Result<(DocumentSummary, String, String)> {
    summary_from_row_at(row, 0)
}

fn finish_summary(
    (mut summary, origin_kind, format): (DocumentSummary, String, String),
) -> Result<DocumentSummary> {
    summary.origin_kind = parse_column("documents.origin_kind", &origin_kind)?;
    summary.format = parse_column("documents.format", &format)?;
    Ok(summary)
}

impl Store {
    /// Stores a batch of documents with their sentences in one transaction: every document of
    /// the batch is stored, or (on any error) none is. Documents whose content hash the corpus
    /// already holds, including earlier ones of the same batch, are reported as duplicates.
    /// New documents are left pending for the index (see [`Store::mark_indexed`]).
    pub fn insert_documents(
        &mut self,
        corpus: CorpusId,
        documents: &[NewDocument],
    ) -> Result<Vec<DocumentInsertOutcome>> {
        let tx = self.conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let mut outcomes = Vec::with_capacity(documents.len());
        {
            let mut find = tx.prepare_cached(
                "SELECT id FROM documents WHERE corpus_id = ?1 AND content_hash = ?2",
            )?;
            let mut insert_document = tx.prepare_cached(
                "INSERT INTO documents (corpus_id, origin, origin_kind, url, format, title,
                     published_at, acquired_at, content_hash, raw, charset, text, language)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
            )?;
            let mut insert_pending =
                tx.prepare_cached("INSERT INTO documents_pending_index (document_id) VALUES (?1)")?;
            let mut insert_sentence = tx.prepare_cached(
                "INSERT INTO sentences (document_id, ordinal, start_char, end_char, start_byte, end_byte, page, language)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )?;
            for document in documents {
                let existing: Option<i64> = find
                    .query_row(params![corpus.0, document.content_hash], |row| row.get(0))
                    .optional()?;
                if let Some(existing) = existing {
                    outcomes.push(DocumentInsertOutcome::Duplicate(DocumentId(existing)));
                    continue;
                }
                insert_document.execute(params![
                    corpus.0,
                    document.origin,
                    document.origin_kind.as_str(),
                    document.url,
                    document.format.as_str(),
                    document.title,
                    document.published_at,
                    document.acquired_at,
                    document.content_hash,
                    document.raw,
                    document.charset,
                    document.text,
                    document.language,
                ])?;
                let document_id = tx.last_insert_rowid();
                insert_pending.execute([document_id])?;
                let mut sentence_ids = Vec::with_capacity(document.sentences.len());
                let mut own_languages = document.sentence_languages.iter().peekable();
                for (ordinal, span) in document.sentences.iter().enumerate() {
                    let language = own_languages.next_if(|(at, _)| *at == ordinal);
                    insert_sentence.execute(params![
                        document_id,
                        ordinal as i64,
                        span.start_char,
                        span.end_char,
                        span.start_byte,
                        span.end_byte,
                        factdesk_model::page_at(&document.page_starts, span.start_char),
                        language.map(|(_, code)| code),
                    ])?;
                    sentence_ids.push(SentenceId(tx.last_insert_rowid()));
                }
                outcomes.push(DocumentInsertOutcome::Inserted {
                    document: DocumentId(document_id),
                    sentence_ids,
                });
            }
        }
        tx.commit()?;
        Ok(outcomes)
    }

    /// Records that the index has committed these documents' sentences.
    pub fn mark_indexed(&mut self, documents: &[DocumentId]) -> Result<()> {
        let tx = self.conn.transaction()?;
        {
            let mut delete =
                tx.prepare_cached("DELETE FROM documents_pending_index WHERE document_id = ?1")?;
            for document in documents {
                delete.execute([document.0])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Forgets every index mark, before the index is rebuilt from scratch.
    pub fn clear_index_marks(&mut self) -> Result<()> {
        self.conn.execute(
            "INSERT OR IGNORE INTO documents_pending_index (document_id) SELECT id FROM documents",
            [],
        )?;
        Ok(())
    }

    /// Deletes documents (and their sentences) in one transaction.
    pub fn delete_documents(&mut self, documents: &[DocumentId]) -> Result<()> {
        let tx = self.conn.transaction()?;
        {
            let mut delete = tx.prepare_cached("DELETE FROM documents WHERE id = ?1")?;
            for document in documents {
                delete.execute([document.0])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Documents stored but not yet marked as indexed, oldest first.
    pub fn documents_pending_index(&self) -> Result<Vec<DocumentId>> {
        let mut statement = self
            .conn
            .prepare("SELECT document_id FROM documents_pending_index ORDER BY document_id")?;
        let ids = statement.query_map([], |row| row.get(0).map(DocumentId))?;
        Ok(ids.collect::<rusqlite::Result<_>>()?)
    }

    /// Every document id, in order (for rebuilding the index in batches).
    pub fn all_document_ids(&self) -> Result<Vec<DocumentId>> {
        let mut statement = self.conn.prepare("SELECT id FROM documents ORDER BY id")?;
        let ids = statement.query_map([], |row| row.get(0).map(DocumentId))?;
        Ok(ids.collect::<rusqlite::Result<_>>()?)
    }

    /// The sentences of these documents, with their text sliced from the document text.
    pub fn sentences_for_index(&self, documents: &[DocumentId]) -> Result<Vec<IndexableSentence>> {
        let mut out = Vec::new();
        let mut document_statement = self
            .conn
            .prepare_cached("SELECT corpus_id, text, language FROM documents WHERE id = ?1")?;
        let mut sentence_statement = self.conn.prepare_cached(
            "SELECT id, start_byte, end_byte, language FROM sentences WHERE document_id = ?1
             ORDER BY ordinal",
        )?;
        for document in documents {
            let found: Option<(i64, String, Option<String>)> = document_statement
                .query_row([document.0], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
                .optional()?;
            let Some((corpus_id, text, language)) = found else { continue };
            let rows = sentence_statement.query_map([document.0], |row| {
                Ok((
                    row.get::<_, i64>(0)?,
                    row.get::<_, i64>(1)?,
                    row.get::<_, i64>(2)?,
                    row.get::<_, Option<String>>(3)?,
                ))
            })?;
            for row in rows {
                let (sentence_id, start, end, own_language) = row?;
                let sentence_text =
                    text.get(start as usize..end as usize).ok_or_else(|| StoreError::Corrupt {
                        column: "sentences.start_byte",
                        message: format!("sentence {sentence_id} is not a span of its document"),
                    })?;
                out.push(IndexableSentence {
                    sentence_id: SentenceId(sentence_id),
                    document_id: *document,
                    corpus_id: CorpusId(corpus_id),
                    text: sentence_text.to_owned(),
                    language: own_language.or_else(|| language.clone()),
                });
            }
        }
        Ok(out)
    }

    /// Up to `limit` documents with an id above `after` whose language is unknown, with the
    /// start of their text (enough to tell its language), by id.
    pub fn documents_without_language(
        &self,
        after: DocumentId,
        limit: usize,
        sample_chars: usize,
    ) -> Result<Vec<(DocumentId, String)>> {
        let mut statement = self.conn.prepare_cached(
            "SELECT id, substr(text, 1, ?3) FROM documents
             WHERE id > ?1 AND language IS NULL ORDER BY id LIMIT ?2",
        )?;
        let rows = statement
            .query_map(params![after.0, limit as i64, sample_chars as i64], |row| {
                Ok((DocumentId(row.get(0)?), row.get(1)?))
            })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Records the languages of sentences in another language than their document's (ISO
    /// 639-1 codes), in one transaction.
    pub fn set_sentence_languages(&mut self, languages: &[(SentenceId, String)]) -> Result<()> {
        let tx = self.conn.transaction()?;
        {
            let mut update =
                tx.prepare_cached("UPDATE sentences SET language = ?2 WHERE id = ?1")?;
            for (sentence, language) in languages {
                update.execute(params![sentence.0, language])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// How many documents have no language (stored before languages were).
    pub fn count_documents_without_language(&self) -> Result<u64> {
        Ok(self.conn.query_row(
            "SELECT count(*) FROM documents WHERE language IS NULL",
            [],
            |row| row.get::<_, i64>(0),
        )? as u64)
    }

    /// Records documents' languages (ISO 639-1 codes), in one transaction.
    pub fn set_document_languages(&mut self, languages: &[(DocumentId, String)]) -> Result<()> {
        let tx = self.conn.transaction()?;
        {
            let mut update =
                tx.prepare_cached("UPDATE documents SET language = ?2 WHERE id = ?1")?;
            for (document, language) in languages {
                update.execute(params![document.0, language])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// The ids of all sentences of documents marked as indexed, ascending.
    pub fn indexed_sentence_ids(&self) -> Result<Vec<SentenceId>> {
        let mut statement = self.conn.prepare(
            "SELECT s.id FROM sentences s
             WHERE NOT EXISTS
                 (SELECT 1 FROM documents_pending_index p WHERE p.document_id = s.document_id)
             ORDER BY s.id",
        )?;
        let ids = statement.query_map([], |row| row.get(0).map(SentenceId))?;
        Ok(ids.collect::<rusqlite::Result<_>>()?)
    }

    /// Total number of sentences stored.
    pub fn sentence_count(&self) -> Result<u64> {
        Ok(self.conn.query_row("SELECT count(*) FROM sentences", [], |row| row.get::<_, i64>(0))?
            as u64)
    }

    /// Lists documents, newest first.
    pub fn documents(&self, filter: &DocumentFilter) -> Result<Vec<DocumentSummary>> {
        let sql = format!(
            "SELECT {SUMMARY_COLUMNS} FROM documents d JOIN corpora c ON c.id = d.corpus_id
             WHERE (?1 IS NULL OR d.corpus_id = ?1)
             ORDER BY d.id DESC LIMIT ?2 OFFSET ?3"
        );
        let mut statement = self.conn.prepare(&sql)?;
        let limit = filter.limit.map_or(-1, |limit| limit as i64);
        let rows = statement.query_map(
            params![filter.corpus.map(|c| c.0), limit, filter.offset as i64],
            summary_from_row,
        )?;
        rows.map(|row| finish_summary(row?)).collect()
    }

    /// One whole document with its sentences.
    pub fn document(&self, id: DocumentId) -> Result<Document> {
        let sql = format!(
            "SELECT {SUMMARY_COLUMNS}, d.charset, d.text
             FROM documents d JOIN corpora c ON c.id = d.corpus_id WHERE d.id = ?1"
        );
        let found = self
            .conn
            .query_row(&sql, [id.0], |row| {
                Ok((
                    summary_from_row(row)?,
                    row.get::<_, Option<String>>(13)?,
                    row.get::<_, String>(14)?,
                ))
            })
            .optional()?;
        let Some((summary, charset, text)) = found else {
            return Err(StoreError::NotFound { what: format!("document {id}") });
        };
        let summary = finish_summary(summary)?;
        let mut statement = self.conn.prepare_cached(
            "SELECT id, ordinal, start_char, end_char, start_byte, end_byte, page
             FROM sentences WHERE document_id = ?1 ORDER BY ordinal",
        )?;
        let sentences = statement
            .query_map([id.0], |row| {
                let span = SentenceSpan {
                    start_char: row.get(2)?,
                    end_char: row.get(3)?,
                    start_byte: row.get(4)?,
                    end_byte: row.get(5)?,
                };
                Ok((SentenceId(row.get(0)?), row.get::<_, u32>(1)?, span, row.get(6)?))
            })?
            .map(|row| {
                let (sentence_id, ordinal, span, page) = row?;
                let sentence_text = text
                    .get(span.start_byte as usize..span.end_byte as usize)
                    .ok_or_else(|| StoreError::Corrupt {
                        column: "sentences.start_byte",
                        message: format!("sentence {sentence_id} is not a span of its document"),
                    })?
                    .to_owned();
                Ok(Sentence {
                    id: sentence_id,
                    document_id: id,
                    ordinal,
                    span,
                    text: sentence_text,
                    page,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Document { summary, charset, text, sentences })
    }

    /// The date a document says it was published (YYYY-MM-DD), if it says; `None` also for a
    /// document that is gone.
    pub fn published_at(&self, id: DocumentId) -> Result<Option<String>> {
        let mut statement =
            self.conn.prepare_cached("SELECT published_at FROM documents WHERE id = ?1")?;
        Ok(statement.query_row([id.0], |row| row.get(0)).optional()?.flatten())
    }

    /// The sentences of a paged document (a PDF) with the page each starts on; empty for a
    /// document without pages.
    pub fn paged_sentences(&self, id: DocumentId) -> Result<Vec<(String, u32)>> {
        let mut statement = self.conn.prepare_cached(
            "SELECT substr(CAST(d.text AS BLOB), s.start_byte + 1, s.end_byte - s.start_byte), s.page
             FROM sentences s JOIN documents d ON d.id = s.document_id
             WHERE s.document_id = ?1 AND s.page IS NOT NULL ORDER BY s.ordinal",
        )?;
        let rows = statement
            .query_map([id.0], |row| Ok((row.get::<_, Vec<u8>>(0)?, row.get::<_, u32>(1)?)))?;
        let mut sentences = Vec::new();
        for row in rows {
            let (bytes, page) = row?;
            let text = String::from_utf8(bytes).map_err(|_| StoreError::Corrupt {
                column: "sentences.start_byte",
                message: format!(
                    "a sentence of document {id} does not fall on character boundaries"
                ),
            })?;
            sentences.push((text, page));
        }
        Ok(sentences)
    }

    /// The bytes of a document as they were imported.
    pub fn document_raw(&self, id: DocumentId) -> Result<Vec<u8>> {
        self.conn
            .query_row("SELECT raw FROM documents WHERE id = ?1", [id.0], |row| row.get(0))
            .optional()?
            .ok_or_else(|| StoreError::NotFound { what: format!("document {id}") })
    }

    /// Sentences by id with their document's title and origin, in the order asked; ids that
    /// are not stored are left out.
    pub fn sentences_by_id(&self, ids: &[SentenceId]) -> Result<Vec<(Sentence, DocumentSummary)>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let placeholders = vec!["?"; ids.len()].join(",");
        let sql = format!(
            "SELECT s.id, s.ordinal, s.start_char, s.end_char, s.start_byte, s.end_byte, s.page,
                    substr(CAST(d.text AS BLOB), s.start_byte + 1, s.end_byte - s.start_byte), {SUMMARY_COLUMNS}
             FROM sentences s JOIN documents d ON d.id = s.document_id
             JOIN corpora c ON c.id = d.corpus_id WHERE s.id IN ({placeholders})"
        );
        // Cached: a search asks for the same number of hits each time.
        let mut statement = self.conn.prepare_cached(&sql)?;
        let rows = statement.query_map(params_from_iter(ids.iter().map(|id| id.0)), |row| {
            let span = SentenceSpan {
                start_char: row.get(2)?,
                end_char: row.get(3)?,
                start_byte: row.get(4)?,
                end_byte: row.get(5)?,
            };
            let page: Option<u32> = row.get(6)?;
            let bytes: Vec<u8> = row.get(7)?;
            let summary = summary_from_row_at(row, 8)?;
            Ok((SentenceId(row.get(0)?), row.get::<_, u32>(1)?, span, page, bytes, summary))
        })?;
        let mut found = std::collections::HashMap::with_capacity(ids.len());
        for row in rows {
            let (id, ordinal, span, page, bytes, summary) = row?;
            let summary = finish_summary(summary)?;
            let text = String::from_utf8(bytes).map_err(|_| StoreError::Corrupt {
                column: "sentences.start_byte",
                message: format!("sentence {id} does not fall on character boundaries"),
            })?;
            let sentence = Sentence { id, document_id: summary.id, ordinal, span, text, page };
            found.insert(id, (sentence, summary));
        }
        Ok(ids.iter().filter_map(|id| found.remove(id)).collect())
    }
}

/// Reads the [`SUMMARY_COLUMNS`] starting at column `at`; origin kind and format come back
/// as text for [`finish_summary`] to parse.
fn summary_from_row_at(
    row: &Row<'_>,
    at: usize,
) -> rusqlite::Result<(DocumentSummary, String, String)> {
    Ok((
        DocumentSummary {
            id: DocumentId(row.get(at)?),
            corpus: row.get(at + 1)?,
            origin: row.get(at + 2)?,
            origin_kind: OriginKind::File,
            url: row.get(at + 4)?,
            format: DocumentFormat::Text,
            title: row.get(at + 6)?,
            published_at: row.get(at + 7)?,
            acquired_at: row.get(at + 8)?,
            content_hash: row.get(at + 9)?,
            sentence_count: row.get::<_, i64>(at + 10)? as u64,
            text_chars: row.get::<_, i64>(at + 11)? as u64,
            language: row.get(at + 12)?,
        },
        row.get(at + 3)?,
        row.get(at + 5)?,
    ))
}

#[cfg(test)]
pub(crate) mod tests;
