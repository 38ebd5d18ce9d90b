//! The `corpora` table.

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

#[cfg(test)]
mod tests {
    use super::*;

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
