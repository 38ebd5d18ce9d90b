//! The `claim_collections`, `claims` and `claim_tags` tables.

use factdesk_model::{
    Claim, ClaimCollection, ClaimId, ClaimLabel, ClaimStatus, CollectionId, NewClaim, now_rfc3339,
};
use rusqlite::{OptionalExtension, params};

use crate::{Result, Store, StoreError, parse_column};

/// What became of one claim of an import.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClaimInsertOutcome {
    Inserted(ClaimId),
    /// The collection already holds a claim with exactly this text.
    Duplicate(ClaimId),
}

/// Which claims to list.
#[derive(Debug, Clone, Default)]
pub struct ClaimFilter {
    pub collection: Option<CollectionId>,
    pub status: Option<ClaimStatus>,
    pub tag: Option<String>,
    pub limit: Option<u64>,
    /// Only the claim with this id.
    pub id: Option<ClaimId>,
}

impl Store {
    /// The collection named `name`, created if it does not exist yet.
    pub fn ensure_collection(&self, name: &str) -> Result<CollectionId> {
        self.conn.execute(
            "INSERT INTO claim_collections (name, created_at) VALUES (?1, ?2)
             ON CONFLICT (name) DO NOTHING",
            params![name, now_rfc3339()],
        )?;
        Ok(CollectionId(self.conn.query_row(
            "SELECT id FROM claim_collections WHERE name = ?1",
            [name],
            |row| row.get(0),
        )?))
    }

    /// The id of the collection named `name`, or a not-found error naming it.
    pub fn collection_id(&self, name: &str) -> Result<CollectionId> {
        self.conn
            .query_row("SELECT id FROM claim_collections WHERE name = ?1", [name], |row| row.get(0))
            .optional()?
            .map(CollectionId)
            .ok_or_else(|| StoreError::NotFound { what: format!("claim collection '{name}'") })
    }

    /// Every collection with its claim count, by name.
    pub fn collections(&self) -> Result<Vec<ClaimCollection>> {
        let mut statement = self.conn.prepare(
            "SELECT k.id, k.name, k.description, k.created_at,
                    (SELECT count(*) FROM claims c WHERE c.collection_id = k.id)
             FROM claim_collections k ORDER BY k.name",
        )?;
        let rows = statement.query_map([], |row| {
            Ok(ClaimCollection {
                id: CollectionId(row.get(0)?),
                name: row.get(1)?,
                description: row.get(2)?,
                created_at: row.get(3)?,
                claim_count: row.get::<_, i64>(4)? as u64,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Adds claims to a collection in one transaction; a claim whose text the collection
    /// already holds is reported as a duplicate and left as it is.
    pub fn insert_claims(
        &mut self,
        collection: CollectionId,
        claims: &[NewClaim],
    ) -> Result<Vec<ClaimInsertOutcome>> {
        let now = now_rfc3339();
        let tx = self.conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let mut outcomes = Vec::with_capacity(claims.len());
        {
            let mut find =
                tx.prepare_cached("SELECT id FROM claims WHERE collection_id = ?1 AND text = ?2")?;
            let mut insert = tx.prepare_cached(
                "INSERT INTO claims (collection_id, text, origin, notes, gold_label, claimed_on,
                                     created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?7, ?6, ?6)",
            )?;
            let mut tag = tx.prepare_cached(
                "INSERT INTO claim_tags (claim_id, tag) VALUES (?1, ?2) ON CONFLICT DO NOTHING",
            )?;
            for claim in claims {
                let existing: Option<i64> = find
                    .query_row(params![collection.0, claim.text], |row| row.get(0))
                    .optional()?;
                if let Some(existing) = existing {
                    outcomes.push(ClaimInsertOutcome::Duplicate(ClaimId(existing)));
                    continue;
                }
                insert.execute(params![
                    collection.0,
                    claim.text,
                    claim.origin,
                    claim.notes,
                    claim.gold_label.map(ClaimLabel::as_str),
                    now,
                    claim.claimed_on,
                ])?;
                let id = tx.last_insert_rowid();
                for name in &claim.tags {
                    tag.execute(params![id, name])?;
                }
                outcomes.push(ClaimInsertOutcome::Inserted(ClaimId(id)));
            }
        }
        tx.commit()?;
        Ok(outcomes)
    }

    /// Records claims' languages (ISO 639-1 codes; `None`: unknown), in one transaction.
    pub fn set_claim_languages(&mut self, languages: &[(ClaimId, Option<String>)]) -> Result<()> {
        let tx = self.conn.transaction()?;
        {
            let mut update = tx
                .prepare_cached("UPDATE claims SET language = ?2, updated_at = ?3 WHERE id = ?1")?;
            let now = now_rfc3339();
            for (claim, language) in languages {
                if update.execute(params![claim.0, language, now])? == 0 {
                    return Err(StoreError::NotFound { what: format!("claim {claim}") });
                }
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Up to `limit` claims (id and text) with an id above `after` and no embedding by
    /// `model` yet, oldest first.
    pub fn claims_without_embedding(
        &self,
        model: &str,
        after: i64,
        limit: usize,
    ) -> Result<Vec<(ClaimId, String)>> {
        let mut statement = self.conn.prepare_cached(
            "SELECT c.id, c.text FROM claims c
             WHERE c.id > ?3
               AND NOT EXISTS (SELECT 1 FROM claim_embeddings e
                               WHERE e.claim_id = c.id AND e.model = ?1)
             ORDER BY c.id LIMIT ?2",
        )?;
        let rows = statement.query_map(params![model, limit as i64, after], |row| {
            Ok((ClaimId(row.get(0)?), row.get(1)?))
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// How many claims have an embedding by `model`.
    pub fn claim_embedding_count(&self, model: &str) -> Result<usize> {
        let count: i64 = self.conn.query_row(
            "SELECT COUNT(*) FROM claim_embeddings WHERE model = ?1",
            [model],
            |row| row.get(0),
        )?;
        Ok(count as usize)
    }

    /// The highest claim id there is (0 with no claims).
    pub fn last_claim_id(&self) -> Result<i64> {
        Ok(self.conn.query_row("SELECT COALESCE(MAX(id), 0) FROM claims", [], |row| row.get(0))?)
    }

    /// Stores claims' embeddings by `model` in one transaction (a claim's earlier one by the
    /// same model is replaced); a claim deleted meanwhile is passed over.
    pub fn save_claim_embeddings(
        &mut self,
        model: &str,
        vectors: &[(ClaimId, Vec<f32>)],
    ) -> Result<()> {
        let tx = self.conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        {
            let mut insert = tx.prepare_cached(
                "INSERT OR REPLACE INTO claim_embeddings (claim_id, model, vector)
                 SELECT ?1, ?2, ?3 WHERE EXISTS (SELECT 1 FROM claims WHERE id = ?1)",
            )?;
            for (claim, vector) in vectors {
                let bytes: Vec<u8> = vector.iter().flat_map(|value| value.to_le_bytes()).collect();
                insert.execute(params![claim.0, model, bytes])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Every claim's embedding by `model` with an id above `after` (0: all), by claim id.
    pub fn claim_embeddings(&self, model: &str, after: i64) -> Result<Vec<(ClaimId, Vec<f32>)>> {
        let mut statement = self.conn.prepare_cached(
            "SELECT claim_id, vector FROM claim_embeddings
             WHERE model = ?1 AND claim_id > ?2 ORDER BY claim_id",
        )?;
        let rows = statement.query_map(params![model, after], |row| {
            let bytes: Vec<u8> = row.get(1)?;
            Ok((ClaimId(row.get(0)?), bytes))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (claim, bytes) = row?;
            if bytes.len() % 4 != 0 {
                return Err(crate::StoreError::Corrupt {
                    column: "claim_embeddings.vector",
                    message: format!(
                        "claim {claim}: {} bytes is no whole number of floats",
                        bytes.len()
                    ),
                });
            }
            let vector = bytes
                .chunks_exact(4)
                .map(|chunk| f32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]))
                .collect();
            out.push((claim, vector));
        }
        Ok(out)
    }

    /// Lists claims, oldest first.
    pub fn claims(&self, filter: &ClaimFilter) -> Result<Vec<Claim>> {
        // One claim by id is looked up by its key (an `?5 IS NULL OR …` test would scan them all).
        let by_id = if filter.id.is_some() { "c.id = ?5" } else { "?5 IS NULL" };
        let mut statement = self.conn.prepare(&format!(
            "SELECT c.id, k.name, c.text, c.origin, c.notes, c.status, c.gold_label,
                    c.created_at, c.updated_at,
                    (SELECT json_group_array(tag) FROM (SELECT tag FROM claim_tags t
                                                        WHERE t.claim_id = c.id ORDER BY tag)),
                    c.claimed_on, c.language
             FROM claims c JOIN claim_collections k ON k.id = c.collection_id
             WHERE (?1 IS NULL OR c.collection_id = ?1)
               AND (?2 IS NULL OR c.status = ?2)
               AND (?3 IS NULL OR EXISTS (SELECT 1 FROM claim_tags t
                                          WHERE t.claim_id = c.id AND t.tag = ?3))
               AND {by_id}
             ORDER BY c.id LIMIT ?4"
        ))?;
        let rows = statement.query_map(
            params![
                filter.collection.map(|c| c.0),
                filter.status.map(ClaimStatus::as_str),
                filter.tag,
                filter.limit.map_or(-1, |limit| limit as i64),
                filter.id.map(|id| id.0),
            ],
            |row| {
                Ok((
                    ClaimId(row.get(0)?),
                    row.get::<_, String>(1)?,
                    row.get::<_, String>(2)?,
                    row.get::<_, Option<String>>(3)?,
                    row.get::<_, Option<String>>(4)?,
                    row.get::<_, String>(5)?,
                    row.get::<_, Option<String>>(6)?,
                    row.get::<_, String>(7)?,
                    row.get::<_, String>(8)?,
                    row.get::<_, String>(9)?,
                    row.get::<_, Option<String>>(10)?,
                    row.get::<_, Option<String>>(11)?,
                ))
            },
        )?;
        rows.map(|row| {
            let (
                id,
                collection,
                text,
                origin,
                notes,
                status,
                label,
                created_at,
                updated_at,
                tags,
                claimed_on,
                language,
            ) = row?;
            Ok(Claim {
                claimed_on,
                language,
                id,
                collection,
                text,
                origin,
                notes,
                status: parse_column("claims.status", &status)?,
                gold_label: label
                    .map(|label| parse_column::<ClaimLabel>("claims.gold_label", &label))
                    .transpose()?,
                tags: serde_json::from_str(&tags).map_err(|error| StoreError::Corrupt {
                    column: "claim_tags.tag",
                    message: error.to_string(),
                })?,
                created_at,
                updated_at,
            })
        })
        .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claim(text: &str, label: Option<ClaimLabel>, tags: &[&str]) -> NewClaim {
        NewClaim {
            text: text.into(),
            origin: Some("claims.csv:2".into()),
            tags: tags.iter().map(|t| t.to_string()).collect(),
            notes: None,
            gold_label: label,
            claimed_on: None,
        }
    }

    #[test]
    fn claims_round_trip_with_tags_and_labels() {
        let mut store = Store::open_in_memory().unwrap();
        let collection = store.ensure_collection("demo").unwrap();
        let outcomes = store
            .insert_claims(
                collection,
                &[
                    claim(
                        "Okra is a flowering plant.",
                        Some(ClaimLabel::Supported),
                        &["botany", "food"],
                    ),
                    NewClaim {
                        claimed_on: Some("2023-04-01".into()),
                        ..claim("The Moon is made of cheese.", Some(ClaimLabel::Refuted), &[])
                    },
                    claim("Okra is a flowering plant.", None, &[]),
                ],
            )
            .unwrap();
        assert!(matches!(outcomes[0], ClaimInsertOutcome::Inserted(_)));
        let ClaimInsertOutcome::Inserted(first) = outcomes[0] else { unreachable!() };
        assert_eq!(outcomes[2], ClaimInsertOutcome::Duplicate(first));

        assert_eq!(store.claims(&ClaimFilter::default()).unwrap()[0].language, None);
        store.set_claim_languages(&[(first, Some("de".into()))]).unwrap();
        assert!(store.set_claim_languages(&[(ClaimId(999), Some("de".into()))]).is_err());
        let claims = store.claims(&ClaimFilter::default()).unwrap();
        assert_eq!(claims[0].language.as_deref(), Some("de"));
        assert_eq!(claims.len(), 2);
        assert_eq!(claims[0].tags, ["botany", "food"]);
        assert_eq!(claims[0].gold_label, Some(ClaimLabel::Supported));
        assert_eq!(claims[0].status, ClaimStatus::Unchecked);
        assert_eq!(claims[1].tags, Vec::<String>::new());
        assert_eq!(
            (claims[0].claimed_on.as_deref(), claims[1].claimed_on.as_deref()),
            (None, Some("2023-04-01"))
        );
        // The schema keeps calendar dates only.
        for bad in ["2023-02-30", "2023-4-1", "yesterday", "2023-04-01T10:00:00Z"] {
            let odd = NewClaim { claimed_on: Some(bad.into()), ..claim(bad, None, &[]) };
            assert!(store.insert_claims(collection, &[odd]).is_err(), "{bad}");
        }

        let tagged = store
            .claims(&ClaimFilter { tag: Some("food".into()), ..ClaimFilter::default() })
            .unwrap();
        assert_eq!(tagged.len(), 1);
        let collections = store.collections().unwrap();
        assert_eq!((collections[0].name.as_str(), collections[0].claim_count), ("demo", 2));
    }
}
