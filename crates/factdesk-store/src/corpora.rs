//! The `corpora` table, and the languages of each corpus's documents.

use factdesk_model::{Corpus, CorpusId, now_rfc3339};
use rusqlite::{OptionalExtension, params};

use crate::{Result, Store, StoreError};

impl Store {
    /// The corpus named `name`, created if it does not exist yet.
    pub fn ensure_corpus(&self, name: &str) -> Result<CorpusId> {
        self.conn.execute(
            "INSERT INTO corpora (name, created_at) VALUES (?1, ?2) ON CONFLICT (name) DO NOTHING",
            params![name, now_rfc3339()],
        )?;
        Ok(CorpusId(self.conn.query_row(
            "SELECT id FROM corpora WHERE name = ?1",
            [name],
            |row| row.get(0),
        )?))
    }

    /// The id of the corpus named `name`, or a not-found error naming it.
    pub fn corpus_id(&self, name: &str) -> Result<CorpusId> {
        self.conn
            .query_row("SELECT id FROM corpora WHERE name = ?1", [name], |row| row.get(0))
            .optional()?
            .map(CorpusId)
            .ok_or_else(|| StoreError::NotFound { what: format!("corpus '{name}'") })
    }

    /// Every corpus with its document count, by name.
    pub fn corpora(&self) -> Result<Vec<Corpus>> {
        let mut statement = self.conn.prepare(
            "SELECT c.id, c.name, c.description, c.created_at,
                    (SELECT count(*) FROM documents d WHERE d.corpus_id = c.id)
             FROM corpora c ORDER BY c.name",
        )?;
        let rows = statement.query_map([], |row| {
            Ok(Corpus {
                id: CorpusId(row.get(0)?),
                name: row.get(1)?,
                description: row.get(2)?,
                created_at: row.get(3)?,
                document_count: row.get::<_, i64>(4)? as u64,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}

/// The documents per corpus and language, as counted when the database was in the state
/// `stamp` names: SQLite's `data_version` (which another connection's commit changes) and the
/// rows this connection has changed in all.
#[derive(Debug, Default)]
pub(crate) struct LanguageCounts {
    stamp: Option<(i64, u64)>,
    counts: Vec<(CorpusId, String, u64)>,
}

impl Store {
    /// How many documents of `corpora` (every corpus when empty) are in each language, most
    /// first (ties by code); documents without a language are not counted. Counted from the
    /// index of documents by corpus and language (migration 0022) and kept until the database
    /// changes, so that every search may ask.
    pub fn document_languages(&self, corpora: &[CorpusId]) -> Result<Vec<(String, u64)>> {
        let data_version: i64 = self.conn.query_row("PRAGMA data_version", [], |row| row.get(0))?;
        let stamp = (data_version, self.conn.total_changes());
        let mut cache = self.language_counts.borrow_mut();
        if cache.stamp != Some(stamp) {
            let mut statement = self.conn.prepare_cached(
                "SELECT corpus_id, language, count(*) FROM documents
                 WHERE language IS NOT NULL GROUP BY corpus_id, language",
            )?;
            let rows = statement.query_map([], |row| {
                Ok((CorpusId(row.get(0)?), row.get(1)?, row.get::<_, i64>(2)? as u64))
            })?;
            cache.counts = rows.collect::<rusqlite::Result<_>>()?;
            cache.stamp = Some(stamp);
        }
        let mut totals: Vec<(String, u64)> = Vec::new();
        let searched = cache
            .counts
            .iter()
            .filter(|(corpus, _, _)| corpora.is_empty() || corpora.contains(corpus));
        for (_, language, count) in searched {
            match totals.iter_mut().find(|(known, _)| known == language) {
                Some((_, total)) => *total += count,
                None => totals.push((language.clone(), *count)),
            }
        }
        totals.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        Ok(totals)
    }

    /// The language most documents of `corpora` (every corpus when empty) are in; `None` when
    /// none has a language.
    pub fn main_language(&self, corpora: &[CorpusId]) -> Result<Option<String>> {
        Ok(self.document_languages(corpora)?.into_iter().next().map(|(language, _)| language))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::documents::tests::new_document;

    fn add(store: &mut Store, corpus: CorpusId, text: &str, language: &str) {
        let mut document = new_document(text, &[(0, text.len() as u32)]);
        document.language = Some(language.into());
        store.insert_documents(corpus, &[document]).unwrap();
    }

    #[test]
    fn languages_are_counted_per_searched_corpora_and_again_after_any_change() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db.sqlite3");
        let mut store = Store::open(&path).unwrap();
        let (news, zeitung) =
            (store.ensure_corpus("news").unwrap(), store.ensure_corpus("zeitung").unwrap());
        assert_eq!(store.main_language(&[]).unwrap(), None);
        add(&mut store, news, "One.", "en");
        add(&mut store, zeitung, "Eins.", "de");
        add(&mut store, zeitung, "Zwei.", "de");
        assert_eq!(store.main_language(&[news]).unwrap().as_deref(), Some("en"));
        assert_eq!(store.main_language(&[zeitung]).unwrap().as_deref(), Some("de"));
        assert_eq!(
            store.document_languages(&[]).unwrap(),
            [("de".to_owned(), 2), ("en".to_owned(), 1)]
        );
        // A change through this connection is counted at the next call.
        add(&mut store, news, "Two.", "en");
        add(&mut store, news, "Three.", "en");
        assert_eq!(store.main_language(&[]).unwrap().as_deref(), Some("en"));
        assert_eq!(store.main_language(&[news, zeitung]).unwrap().as_deref(), Some("en"));
        // So is one committed by another connection (another process's import).
        let mut other = Store::open(&path).unwrap();
        for text in ["Drei.", "Vier."] {
            add(&mut other, zeitung, text, "de");
        }
        assert_eq!(store.main_language(&[]).unwrap().as_deref(), Some("de"));
        // The counting reads the index alone.
        let plan: String = store
            .conn
            .query_row(
                "EXPLAIN QUERY PLAN SELECT corpus_id, language, count(*) FROM documents
                 WHERE language IS NOT NULL GROUP BY corpus_id, language",
                [],
                |row| row.get(3),
            )
            .unwrap();
        assert!(plan.contains("COVERING INDEX documents_by_corpus_language"), "{plan}");
    }

    #[test]
    fn ensure_corpus_is_idempotent() {
        let store = Store::open_in_memory().unwrap();
        let first = store.ensure_corpus("news").unwrap();
        assert_eq!(store.ensure_corpus("news").unwrap(), first);
        assert_ne!(store.ensure_corpus("wiki").unwrap(), first);
        assert_eq!(store.corpus_id("news").unwrap(), first);
        assert!(matches!(store.corpus_id("nope"), Err(StoreError::NotFound { .. })));
        let names: Vec<_> = store.corpora().unwrap().into_iter().map(|c| c.name).collect();
        assert_eq!(names, ["news", "wiki"]);
    }
}
