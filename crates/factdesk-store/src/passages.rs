//! The `passages` table: texts of a collection that methods revise, summarise or score (a
//! summary with the documents it was written from, an answer with its question), beside the
//! collection's claims.

use factdesk_model::{
    CollectionId, DocumentId, NewPassage, Passage, PassageId, PassageKind, now_rfc3339,
};
use rusqlite::{OptionalExtension, params};

use crate::{Result, Store, StoreError, parse_column};

/// What became of one passage given to [`Store::insert_passages`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PassageInsertOutcome {
    Inserted(PassageId),
    /// The collection already holds a passage with this text; it is left as it was.
    Duplicate(PassageId),
}

impl Store {
    /// Adds passages to a collection in one transaction; a passage the collection already holds
    /// (same kind, text and question) is reported as a duplicate and left as it is. Every source document must
    /// exist, or nothing is added.
    pub fn insert_passages(
        &mut self,
        collection: CollectionId,
        passages: &[NewPassage],
    ) -> Result<Vec<PassageInsertOutcome>> {
        let now = now_rfc3339();
        let tx = self.conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let mut outcomes = Vec::with_capacity(passages.len());
        {
            let mut document =
                tx.prepare_cached("SELECT EXISTS (SELECT 1 FROM documents WHERE id = ?1)")?;
            let mut find = tx.prepare_cached(
                "SELECT id FROM passages WHERE collection_id = ?1 AND kind = ?2 AND text = ?3
                   AND ifnull(question, '') = ifnull(?4, '')",
            )?;
            let mut insert = tx.prepare_cached(
                "INSERT INTO passages (collection_id, kind, text, question, sources, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?;
            for passage in passages {
                for source in &passage.sources {
                    let exists: bool = document.query_row([source.0], |row| row.get(0))?;
                    if !exists {
                        return Err(StoreError::NotFound { what: format!("document {source}") });
                    }
                }
                let existing: Option<i64> = find
                    .query_row(
                        params![
                            collection.0,
                            passage.kind.as_str(),
                            passage.text,
                            passage.question
                        ],
                        |row| row.get(0),
                    )
                    .optional()?;
                if let Some(existing) = existing {
                    outcomes.push(PassageInsertOutcome::Duplicate(PassageId(existing)));
                    continue;
                }
                let sources = serde_json::to_string(&passage.sources).map_err(|error| {
                    StoreError::Corrupt { column: "passages.sources", message: error.to_string() }
                })?;
                insert.execute(params![
                    collection.0,
                    passage.kind.as_str(),
                    passage.text,
                    passage.question,
                    sources,
                    now,
                ])?;
                outcomes.push(PassageInsertOutcome::Inserted(PassageId(tx.last_insert_rowid())));
            }
        }
        tx.commit()?;
        Ok(outcomes)
    }

    /// The passages of a collection, oldest first.
    pub fn passages(&self, collection: CollectionId) -> Result<Vec<Passage>> {
        self.passages_where("collection_id = ?1", collection.0)
    }

    /// One passage.
    pub fn passage(&self, id: PassageId) -> Result<Passage> {
        self.passages_where("id = ?1", id.0)?
            .pop()
            .ok_or_else(|| StoreError::NotFound { what: format!("passage {id}") })
    }

    fn passages_where(&self, condition: &str, value: i64) -> Result<Vec<Passage>> {
        let mut statement = self.conn.prepare(&format!(
            "SELECT id, collection_id, kind, text, question, sources, created_at
             FROM passages WHERE {condition} ORDER BY id"
        ))?;
        let rows = statement.query_map([value], |row| {
            Ok((
                row.get::<_, i64>(0)?,
                row.get::<_, i64>(1)?,
                row.get::<_, String>(2)?,
                row.get::<_, String>(3)?,
                row.get::<_, Option<String>>(4)?,
                row.get::<_, String>(5)?,
                row.get::<_, String>(6)?,
            ))
        })?;
        rows.map(|row| {
            let (id, collection_id, kind, text, question, sources, created_at) = row?;
            let sources: Vec<DocumentId> = serde_json::from_str(&sources).map_err(|error| {
                StoreError::Corrupt { column: "passages.sources", message: error.to_string() }
            })?;
            Ok(Passage {
                id: PassageId(id),
                collection_id: CollectionId(collection_id),
                kind: parse_column::<PassageKind>("passages.kind", &kind)?,
                text,
                question,
                sources,
                created_at,
            })
        })
        .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn passage(text: &str, sources: Vec<DocumentId>) -> NewPassage {
        NewPassage { kind: PassageKind::Summary, text: text.into(), question: None, sources }
    }

    #[test]
    fn passages_are_added_once_and_listed_with_their_sources() {
        let mut store = Store::open_in_memory().unwrap();
        let collection = store.ensure_collection("desk").unwrap();
        let first =
            store.insert_passages(collection, &[passage("A summary.", Vec::new())]).unwrap();
        let again = store
            .insert_passages(
                collection,
                &[passage("A summary.", Vec::new()), passage("Another.", Vec::new())],
            )
            .unwrap();
        let PassageInsertOutcome::Inserted(id) = first[0] else { panic!("{first:?}") };
        assert_eq!(again[0], PassageInsertOutcome::Duplicate(id));
        assert!(matches!(again[1], PassageInsertOutcome::Inserted(_)));
        // The same words answering another question are another passage.
        let answer = |question: &str| NewPassage {
            kind: PassageKind::Answer,
            text: "Yes.".into(),
            question: Some(question.into()),
            sources: Vec::new(),
        };
        let answers =
            store.insert_passages(collection, &[answer("Is it?"), answer("Was it?")]).unwrap();
        assert!(answers.iter().all(|a| matches!(a, PassageInsertOutcome::Inserted(_))));
        let listed = store.passages(collection).unwrap();
        assert_eq!(listed.len(), 4);
        assert_eq!((listed[0].kind, listed[0].text.as_str()), (PassageKind::Summary, "A summary."));

        // A source that is not a stored document: nothing of the batch is added.
        let error = store
            .insert_passages(
                collection,
                &[passage("Third.", Vec::new()), passage("Fourth.", vec![DocumentId(99)])],
            )
            .unwrap_err();
        assert!(error.to_string().contains("document 99"), "{error}");
        assert_eq!(store.passages(collection).unwrap().len(), 4);
    }
}
