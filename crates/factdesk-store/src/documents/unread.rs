//! The documents whose sentences were never read for another language than the document's
//! (`documents_unread_sentence_languages`, migration 0021: stored with a language before
//! migration 0020). The core reads them in steps; each step's sentence languages, the index
//! marks of the documents where one was found and the removal of the step's documents from the
//! list are one transaction, so an interrupted upgrade reads again only what it had not stored.

use factdesk_model::{DocumentId, SentenceId};
use rusqlite::params;

use crate::{Result, Store};

impl Store {
    /// How many documents still wait for their sentences to be read for other languages.
    pub fn count_documents_with_unread_sentence_languages(&self) -> Result<u64> {
        Ok(self.conn.query_row(
            "SELECT count(*) FROM documents_unread_sentence_languages",
            [],
            |row| row.get::<_, i64>(0),
        )? as u64)
    }

    /// Up to `limit` of the documents whose sentences were never read for other languages, by
    /// id.
    pub fn documents_with_unread_sentence_languages(
        &self,
        limit: usize,
    ) -> Result<Vec<DocumentId>> {
        let mut statement = self.conn.prepare_cached(
            "SELECT document_id FROM documents_unread_sentence_languages
             ORDER BY document_id LIMIT ?1",
        )?;
        let ids = statement.query_map([limit as i64], |row| row.get(0).map(DocumentId))?;
        Ok(ids.collect::<rusqlite::Result<_>>()?)
    }

    /// Records that the sentences of `read` were read: `languages` (ISO 639-1 codes of
    /// sentences in another language than their document's) stored, every document of `read`
    /// that has one of those sentences marked pending for the index (its sentences are to be
    /// analysed again), and `read` taken off the list; in one transaction.
    pub fn record_sentence_languages_read(
        &mut self,
        read: &[DocumentId],
        languages: &[(SentenceId, String)],
    ) -> Result<()> {
        let tx = self.conn.transaction()?;
        {
            let mut set_language = tx.prepare_cached(
                "UPDATE sentences SET language = ?2 WHERE id = ?1 RETURNING document_id",
            )?;
            let mut mark_pending = tx.prepare_cached(
                "INSERT OR IGNORE INTO documents_pending_index (document_id) VALUES (?1)",
            )?;
            for (sentence, language) in languages {
                let document: i64 =
                    set_language.query_row(params![sentence.0, language], |row| row.get(0))?;
                mark_pending.execute([document])?;
            }
            let mut take_off = tx.prepare_cached(
                "DELETE FROM documents_unread_sentence_languages WHERE document_id = ?1",
            )?;
            for document in read {
                take_off.execute([document.0])?;
            }
        }
        tx.commit()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    use super::*;
    use crate::documents::tests::new_document;
    use crate::{MIGRATIONS, apply_migrations};

    /// A database of version `version` holding two English documents, the first acquired at
    /// `first_acquired` (RFC 3339) and the second a day later; returns its path.
    fn database_of_version(dir: &std::path::Path, version: i64, first_acquired: &str) -> String {
        let path = dir.join(format!("v{version}.sqlite3"));
        let mut conn = Connection::open(&path).unwrap();
        let older: Vec<_> = MIGRATIONS.iter().copied().filter(|m| m.version <= version).collect();
        apply_migrations(&mut conn, &older, "old").unwrap();
        conn.execute_batch(&format!(
            "INSERT INTO corpora (id, name, created_at) VALUES (1, 'news', '2026-01-01T00:00:00Z');
             INSERT INTO documents (id, corpus_id, origin, origin_kind, format, acquired_at,
                 content_hash, raw, text, language)
             VALUES (1, 1, 'a.txt', 'file', 'text', '{first_acquired}', 'h1', x'41', 'A. B.', 'en'),
                    (2, 1, 'b.txt', 'file', 'text',
                     strftime('%Y-%m-%dT%H:%M:%fZ', '{first_acquired}', '+1 day'),
                     'h2', x'42', 'C. D.', 'en'),
                    (3, 1, 'c.txt', 'file', 'text', '{first_acquired}', 'h3', x'43', 'E.', NULL);
             INSERT INTO sentences (document_id, ordinal, start_char, end_char, start_byte, end_byte)
             VALUES (1, 0, 0, 2, 0, 2), (1, 1, 3, 5, 3, 5), (2, 0, 0, 2, 0, 2), (2, 1, 3, 5, 3, 5),
                    (3, 0, 0, 2, 0, 2);"
        ))
        .unwrap();
        path.display().to_string()
    }

    fn unread(store: &Store) -> Vec<DocumentId> {
        store.documents_with_unread_sentence_languages(10).unwrap()
    }

    #[test]
    fn documents_with_a_language_stored_before_version_20_are_listed() {
        let dir = tempfile::tempdir().unwrap();
        // Version 19: 0020 is applied in the same run, so every document with a language was
        // stored before it; the one without is left to the language rebuild.
        let path = database_of_version(dir.path(), 19, "2026-11-27T10:00:00Z");
        let store = Store::open(std::path::Path::new(&path)).unwrap();
        assert_eq!(unread(&store), [DocumentId(1), DocumentId(2)]);

        // Version 20, applied between the two documents: only the first was stored before it.
        let path = database_of_version(dir.path(), 20, "2026-11-27T10:00:00.5Z");
        let conn = Connection::open(&path).unwrap();
        conn.execute(
            "UPDATE schema_migrations SET applied_at = '2026-11-28T02:00:00.123456789Z'
             WHERE version = 20",
            [],
        )
        .unwrap();
        drop(conn);
        let store = Store::open(std::path::Path::new(&path)).unwrap();
        assert_eq!(unread(&store), [DocumentId(1)]);
    }

    #[test]
    fn reading_a_step_stores_languages_marks_for_the_index_and_takes_the_step_off() {
        let mut store = Store::open_in_memory().unwrap();
        let corpus = store.ensure_corpus("news").unwrap();
        let outcomes = store
            .insert_documents(
                corpus,
                &[
                    new_document("One. Zwei.", &[(0, 4), (5, 10)]),
                    new_document("Three.", &[(0, 6)]),
                ],
            )
            .unwrap();
        let ids: Vec<(DocumentId, Vec<SentenceId>)> = outcomes
            .into_iter()
            .map(|outcome| match outcome {
                crate::DocumentInsertOutcome::Inserted { document, sentence_ids } => {
                    (document, sentence_ids)
                }
                other => panic!("{other:?}"),
            })
            .collect();
        let documents: Vec<DocumentId> = ids.iter().map(|(document, _)| *document).collect();
        store.mark_indexed(&documents).unwrap();
        store
            .conn
            .execute("INSERT INTO documents_unread_sentence_languages SELECT id FROM documents", [])
            .unwrap();
        assert_eq!(store.count_documents_with_unread_sentence_languages().unwrap(), 2);
        assert_eq!(store.documents_with_unread_sentence_languages(1).unwrap(), [documents[0]]);

        let german = ids[0].1[1];
        store.record_sentence_languages_read(&documents, &[(german, "de".into())]).unwrap();
        assert_eq!(store.count_documents_with_unread_sentence_languages().unwrap(), 0);
        // Only the document with a German sentence is indexed again.
        assert_eq!(store.documents_pending_index().unwrap(), [documents[0]]);
        let languages: Vec<Option<String>> = store
            .sentences_for_index(&documents)
            .unwrap()
            .into_iter()
            .map(|sentence| sentence.language)
            .collect();
        assert_eq!(languages, [Some("en".into()), Some("de".into()), Some("en".into())]);
    }
}
