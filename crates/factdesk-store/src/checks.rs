//! The `checks`, `check_model_calls` and `reviews` tables: verdicts with their whole result,
//! the model calls behind each, and human reviews kept beside the machine verdict.

use std::collections::HashSet;

use factdesk_model::{
    CheckId, ClaimCheck, ClaimId, CollectionId, Review, ReviewDecision, ReviewId, RunId,
    StoredCheck, Verdict, now_rfc3339,
};
use rusqlite::{OptionalExtension, Row, params};

use crate::runs::same_parameters;
use crate::{Result, Store, StoreError, parse_column};

/// Which checks to list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CheckFilter {
    pub run: Option<RunId>,
    pub collection: Option<CollectionId>,
    pub claim: Option<ClaimId>,
    /// Only the checks of runs of this method.
    pub method: Option<String>,
    /// Per claim, only the newest check (of those the other fields select).
    pub latest_per_claim: bool,
    pub verdict: Option<Verdict>,
}

const SELECT: &str = "SELECT c.id, c.run_id, c.claim_id, c.checked_at, c.result,
        (SELECT json_group_array(model_call_id) FROM check_model_calls m WHERE m.check_id = c.id),
        r.id, r.decision, r.verdict, r.comment, r.reviewer, r.created_at
     FROM checks c
     LEFT JOIN reviews r ON r.id = (SELECT max(id) FROM reviews WHERE check_id = c.id)";

fn row_to_check(row: &Row<'_>) -> rusqlite::Result<(StoredCheckRow, Option<ReviewRow>)> {
    let check = StoredCheckRow {
        id: row.get(0)?,
        run_id: row.get(1)?,
        claim_id: row.get(2)?,
        checked_at: row.get(3)?,
        result: row.get(4)?,
        calls: row.get(5)?,
    };
    let review = match row.get::<_, Option<i64>>(6)? {
        Some(id) => Some(ReviewRow {
            id,
            decision: row.get(7)?,
            verdict: row.get(8)?,
            comment: row.get(9)?,
            reviewer: row.get(10)?,
            created_at: row.get(11)?,
        }),
        None => None,
    };
    Ok((check, review))
}

struct StoredCheckRow {
    id: i64,
    run_id: i64,
    claim_id: Option<i64>,
    checked_at: String,
    result: String,
    calls: String,
}

struct ReviewRow {
    id: i64,
    decision: String,
    verdict: String,
    comment: String,
    reviewer: Option<String>,
    created_at: String,
}

fn decode((check, review): (StoredCheckRow, Option<ReviewRow>)) -> Result<StoredCheck> {
    let result: ClaimCheck = serde_json::from_str(&check.result).map_err(|error| {
        StoreError::Corrupt { column: "checks.result", message: error.to_string() }
    })?;
    let mut model_calls: Vec<i64> = serde_json::from_str(&check.calls).map_err(|error| {
        StoreError::Corrupt { column: "check_model_calls", message: error.to_string() }
    })?;
    model_calls.sort_unstable();
    let review = review
        .map(|review| -> Result<Review> {
            Ok(Review {
                id: ReviewId(review.id),
                check_id: CheckId(check.id),
                decision: parse_column("reviews.decision", &review.decision)?,
                verdict: parse_column("reviews.verdict", &review.verdict)?,
                comment: review.comment,
                reviewer: review.reviewer,
                created_at: review.created_at,
            })
        })
        .transpose()?;
    Ok(StoredCheck {
        id: CheckId(check.id),
        run_id: RunId(check.run_id),
        claim_id: check.claim_id.map(ClaimId),
        checked_at: check.checked_at,
        model_calls,
        check: result,
        review,
    })
}

impl Store {
    /// Stores one check with the model calls behind it, and marks its claim checked, in one
    /// transaction. Checking a claim twice in one run replaces nothing: it is an error
    /// ([`StoreError::AlreadyChecked`], e.g. when two processes run the same run).
    pub fn insert_check(
        &mut self,
        run: RunId,
        claim: Option<ClaimId>,
        check: &ClaimCheck,
        model_calls: &[i64],
    ) -> Result<CheckId> {
        if let Some(message) = check.inconsistency() {
            return Err(StoreError::InconsistentCheck {
                claim: check.claim.clone(),
                method: check.envelope.method.clone(),
                message,
            });
        }
        let result = serde_json::to_string(check).map_err(|error| StoreError::Corrupt {
            column: "checks.result",
            message: error.to_string(),
        })?;
        let now = now_rfc3339();
        let tx = self.conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        if let Some(claim) = claim {
            let stored: bool = tx.query_row(
                "SELECT EXISTS (SELECT 1 FROM checks WHERE run_id = ?1 AND claim_id = ?2)",
                params![run.0, claim.0],
                |row| row.get(0),
            )?;
            if stored {
                return Err(StoreError::AlreadyChecked { run: run.0, claim: claim.0 });
            }
        }
        tx.execute(
            "INSERT INTO checks (run_id, claim_id, claim_text, method, verdict, undecided,
                                 confidence, result, tokens, checked_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            params![
                run.0,
                claim.map(|c| c.0),
                check.claim,
                check.envelope.method,
                check.verdict.as_str(),
                check.undecided.map(|reason| reason.as_str()),
                check.confidence,
                result,
                check.envelope.tokens.total() as i64,
                now,
            ],
        )?;
        let id = tx.last_insert_rowid();
        {
            let mut link = tx.prepare_cached(
                "INSERT INTO check_model_calls (check_id, model_call_id) VALUES (?1, ?2)
                 ON CONFLICT DO NOTHING",
            )?;
            for call in model_calls {
                link.execute(params![id, call])?;
            }
        }
        if let Some(claim) = claim {
            tx.execute(
                "UPDATE claims SET status = 'checked', updated_at = ?2
                 WHERE id = ?1 AND status = 'unchecked'",
                params![claim.0, now],
            )?;
        }
        tx.commit()?;
        Ok(CheckId(id))
    }

    /// Whether `run` holds a check of `claim` (stored by this process or another).
    pub fn is_checked_in(&self, run: RunId, claim: ClaimId) -> Result<bool> {
        Ok(self.conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM checks WHERE run_id = ?1 AND claim_id = ?2)",
            params![run.0, claim.0],
            |row| row.get(0),
        )?)
    }

    /// The claims a run has already checked (to resume it without checking them twice).
    pub fn checked_claims(&self, run: RunId) -> Result<HashSet<ClaimId>> {
        let mut statement = self
            .conn
            .prepare("SELECT claim_id FROM checks WHERE run_id = ?1 AND claim_id IS NOT NULL")?;
        let rows = statement.query_map([run.0], |row| Ok(ClaimId(row.get(0)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The claims of `collection` that hold a check from a run of `method` with exactly these
    /// `parameters` (compared as JSON values), whatever became of that run. Lets a batch skip
    /// claims that were already checked the same way.
    pub fn claims_checked_with(
        &self,
        collection: CollectionId,
        method: &str,
        parameters: &serde_json::Value,
    ) -> Result<HashSet<ClaimId>> {
        let mut statement = self.conn.prepare(
            "SELECT c.claim_id, r.parameters FROM checks c
             JOIN runs r ON r.id = c.run_id
             JOIN claims k ON k.id = c.claim_id
             WHERE k.collection_id = ?1 AND r.method = ?2",
        )?;
        let rows = statement.query_map(params![collection.0, method], |row| {
            Ok((ClaimId(row.get(0)?), row.get::<_, String>(1)?))
        })?;
        let mut checked = HashSet::new();
        for row in rows {
            let (claim, stored) = row?;
            if same_parameters(&stored, parameters) {
                checked.insert(claim);
            }
        }
        Ok(checked)
    }

    /// One check with its latest review.
    pub fn check(&self, id: CheckId) -> Result<StoredCheck> {
        let row = self
            .conn
            .query_row(&format!("{SELECT} WHERE c.id = ?1"), [id.0], row_to_check)
            .optional()?
            .ok_or_else(|| StoreError::NotFound { what: format!("check {id}") })?;
        decode(row)
    }

    /// Checks, oldest first.
    pub fn checks(&self, filter: &CheckFilter) -> Result<Vec<StoredCheck>> {
        let sql = format!(
            "{SELECT}
             WHERE (?1 IS NULL OR c.run_id = ?1)
               AND (?2 IS NULL OR c.claim_id IN (SELECT id FROM claims WHERE collection_id = ?2))
               AND (?3 IS NULL OR c.claim_id = ?3)
               AND (?6 IS NULL OR c.run_id IN (SELECT id FROM runs WHERE method = ?6))
               AND (?4 = 0 OR c.claim_id IS NULL
                    OR c.id = (SELECT max(n.id) FROM checks n
                               WHERE n.claim_id = c.claim_id
                                 AND (?1 IS NULL OR n.run_id = ?1)
                                 AND (?6 IS NULL
                                      OR n.run_id IN (SELECT id FROM runs WHERE method = ?6))))
               AND (?5 IS NULL OR c.verdict = ?5)
             ORDER BY c.id"
        );
        let mut statement = self.conn.prepare(&sql)?;
        let rows = statement.query_map(
            params![
                filter.run.map(|r| r.0),
                filter.collection.map(|c| c.0),
                filter.claim.map(|c| c.0),
                filter.latest_per_claim,
                filter.verdict.map(Verdict::as_str),
                filter.method,
            ],
            row_to_check,
        )?;
        rows.map(|row| decode(row?)).collect()
    }

    /// Records a person's review of a check (the machine verdict stays as it was) and marks
    /// the claim reviewed, in one transaction.
    pub fn add_review(
        &mut self,
        check: CheckId,
        decision: ReviewDecision,
        verdict: Verdict,
        comment: &str,
        reviewer: Option<&str>,
    ) -> Result<Review> {
        let now = now_rfc3339();
        let tx = self.conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let claim: Option<Option<i64>> = tx
            .query_row("SELECT claim_id FROM checks WHERE id = ?1", [check.0], |row| row.get(0))
            .optional()?;
        let Some(claim) = claim else {
            return Err(StoreError::NotFound { what: format!("check {check}") });
        };
        tx.execute(
            "INSERT INTO reviews (check_id, decision, verdict, comment, reviewer, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![check.0, decision.as_str(), verdict.as_str(), comment, reviewer, now],
        )?;
        let id = tx.last_insert_rowid();
        if let Some(claim) = claim {
            tx.execute(
                "UPDATE claims SET status = 'reviewed', updated_at = ?2 WHERE id = ?1",
                params![claim, now],
            )?;
        }
        tx.commit()?;
        Ok(Review {
            id: ReviewId(id),
            check_id: check,
            decision,
            verdict,
            comment: comment.to_owned(),
            reviewer: reviewer.map(str::to_owned),
            created_at: now,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use factdesk_model::{ClaimStatus, Envelope, NewClaim, TokenUse};

    fn result(claim: &str, verdict: Verdict) -> ClaimCheck {
        ClaimCheck {
            envelope: Envelope {
                method: "llm-cite".into(),
                parameters: serde_json::json!({"m": 4}),
                model: "scripted:test".into(),
                nli_model: None,
                tokens: {
                    let mut tokens = TokenUse::default();
                    tokens.add(TokenUse::URLS, 10, 0);
                    tokens
                },
                explanation: "because".into(),
            },
            claim: claim.into(),
            verdict,
            undecided: None,
            confidence: Some(0.8),
            attributions: Vec::new(),
            urls: Vec::new(),
            sources: Vec::new(),
            premises: Vec::new(),
        }
    }

    fn claim(text: &str) -> NewClaim {
        NewClaim {
            text: text.into(),
            origin: None,
            tags: Vec::new(),
            notes: None,
            gold_label: None,
        }
    }

    #[test]
    fn claims_checked_with_the_same_method_and_parameters_are_found_across_runs() {
        let mut store = Store::open_in_memory().unwrap();
        let collection = store.ensure_collection("demo").unwrap();
        let other = store.ensure_collection("other").unwrap();
        let id = |outcome: crate::ClaimInsertOutcome| match outcome {
            crate::ClaimInsertOutcome::Inserted(id) | crate::ClaimInsertOutcome::Duplicate(id) => {
                id
            }
        };
        let ids: Vec<ClaimId> = store
            .insert_claims(collection, &[claim("One."), claim("Two."), claim("Three.")])
            .unwrap()
            .into_iter()
            .map(id)
            .collect();
        let elsewhere = id(store.insert_claims(other, &[claim("One.")]).unwrap().remove(0));
        let same = serde_json::json!({"m": 4, "model": "a"});
        // Key order does not matter; a different value, method or collection does.
        let same_reordered: serde_json::Value =
            serde_json::from_str(r#"{"model": "a", "m": 4}"#).unwrap();
        let cancelled = store.create_run("llm-cite", &same, None, Some(collection)).unwrap();
        store
            .insert_check(cancelled, Some(ids[0]), &result("One.", Verdict::Supported), &[])
            .unwrap();
        store.set_run_status(cancelled, factdesk_model::RunStatus::Cancelled, None).unwrap();
        let other_model = serde_json::json!({"m": 4, "model": "b"});
        let run = store.create_run("llm-cite", &other_model, None, Some(collection)).unwrap();
        store.insert_check(run, Some(ids[1]), &result("Two.", Verdict::Supported), &[]).unwrap();
        let run = store.create_run("p-true", &same, None, Some(collection)).unwrap();
        store.insert_check(run, Some(ids[2]), &result("Three.", Verdict::Supported), &[]).unwrap();
        let run = store.create_run("llm-cite", &same, None, Some(other)).unwrap();
        store.insert_check(run, Some(elsewhere), &result("One.", Verdict::Supported), &[]).unwrap();

        assert_eq!(
            store.claims_checked_with(collection, "llm-cite", &same_reordered).unwrap(),
            HashSet::from([ids[0]])
        );
        assert_eq!(
            store.claims_checked_with(collection, "llm-cite", &other_model).unwrap(),
            HashSet::from([ids[1]])
        );
        assert!(store.claims_checked_with(collection, "corpus-nli", &same).unwrap().is_empty());
    }

    #[test]
    fn the_newest_check_of_each_claim_is_the_newest_of_the_method_or_run_asked_for() {
        let mut store = Store::open_in_memory().unwrap();
        let collection = store.ensure_collection("demo").unwrap();
        let id = match store.insert_claims(collection, &[claim("One.")]).unwrap().remove(0) {
            crate::ClaimInsertOutcome::Inserted(id) | crate::ClaimInsertOutcome::Duplicate(id) => {
                id
            }
        };
        let run = |store: &Store, method: &str| {
            store.create_run(method, &serde_json::json!({}), None, Some(collection)).unwrap()
        };
        let cite_first = run(&store, "llm-cite");
        let first =
            store.insert_check(cite_first, Some(id), &result("One.", Verdict::Supported), &[]);
        let cite_second = run(&store, "llm-cite");
        let second =
            store.insert_check(cite_second, Some(id), &result("One.", Verdict::NotEnoughInfo), &[]);
        let p_true = run(&store, "p-true");
        let newest = store.insert_check(p_true, Some(id), &result("One.", Verdict::Supported), &[]);
        let newest_of = |method: Option<&str>, run: Option<RunId>| -> Vec<CheckId> {
            let filter = CheckFilter {
                collection: Some(collection),
                method: method.map(str::to_owned),
                run,
                latest_per_claim: true,
                ..CheckFilter::default()
            };
            store.checks(&filter).unwrap().into_iter().map(|check| check.id).collect()
        };
        assert_eq!(newest_of(None, None), [newest.unwrap()]);
        assert_eq!(newest_of(Some("llm-cite"), None), [second.unwrap()]);
        assert_eq!(newest_of(Some("llm-cite"), Some(cite_first)), [first.unwrap()]);
        assert_eq!(newest_of(Some("corpus-nli"), None), []);
        assert_eq!(newest_of(Some("p-true"), Some(cite_first)), []);
    }

    #[test]
    fn checks_are_stored_listed_and_reviewed() {
        let mut store = Store::open_in_memory().unwrap();
        let collection = store.ensure_collection("demo").unwrap();
        let ids: Vec<ClaimId> = store
            .insert_claims(collection, &[claim("One."), claim("Two.")])
            .unwrap()
            .into_iter()
            .map(|outcome| match outcome {
                crate::ClaimInsertOutcome::Inserted(id)
                | crate::ClaimInsertOutcome::Duplicate(id) => id,
            })
            .collect();
        let run =
            store.create_run("llm-cite", &serde_json::json!({}), None, Some(collection)).unwrap();
        let first = store
            .insert_check(run, Some(ids[0]), &result("One.", Verdict::Supported), &[])
            .unwrap();
        assert_eq!(store.checked_claims(run).unwrap(), HashSet::from([ids[0]]));
        // The same claim twice in one run is refused; nothing is half-written.
        assert!(
            store
                .insert_check(run, Some(ids[0]), &result("One.", Verdict::NotEnoughInfo), &[])
                .is_err()
        );
        assert_eq!(
            store.checks(&CheckFilter { run: Some(run), ..CheckFilter::default() }).unwrap().len(),
            1
        );
        // A check that could not decide yet claims a verdict is refused, and names itself.
        let mut contradictory = result("An ad-hoc claim.", Verdict::Refuted);
        contradictory.undecided = Some(factdesk_model::Undecided::NoEvidence);
        let error = store.insert_check(run, None, &contradictory, &[]).unwrap_err();
        assert!(matches!(error, StoreError::InconsistentCheck { .. }), "{error}");
        assert!(error.to_string().contains("\"An ad-hoc claim.\" by llm-cite"), "{error}");
        assert!(store.checked_claims(run).unwrap().len() == 1, "nothing of it was written");
        contradictory.verdict = Verdict::NotEnoughInfo;
        let undecided = store.insert_check(run, None, &contradictory, &[]).unwrap();
        let stored = store.check(undecided).unwrap();
        assert_eq!(stored.check.undecided, Some(factdesk_model::Undecided::NoEvidence));
        let column: Option<String> = store
            .conn
            .query_row("SELECT undecided FROM checks WHERE id = ?1", [undecided.0], |r| r.get(0))
            .unwrap();
        assert_eq!(column.as_deref(), Some("no_evidence"));

        let stored = store.check(first).unwrap();
        assert_eq!(stored.check.verdict, Verdict::Supported);
        assert_eq!(stored.claim_id, Some(ids[0]));
        assert!(stored.review.is_none());
        let claims = store.claims(&crate::ClaimFilter::default()).unwrap();
        assert_eq!(claims[0].status, ClaimStatus::Checked);
        assert_eq!(claims[1].status, ClaimStatus::Unchecked);

        let review = store
            .add_review(
                first,
                ReviewDecision::Override,
                Verdict::NotEnoughInfo,
                "source is satire",
                Some("ana"),
            )
            .unwrap();
        let stored = store.check(first).unwrap();
        assert_eq!(stored.review, Some(review));
        assert_eq!(stored.check.verdict, Verdict::Supported, "the machine verdict is kept");
        assert_eq!(
            store.claims(&crate::ClaimFilter::default()).unwrap()[0].status,
            ClaimStatus::Reviewed
        );
        assert!(
            store
                .add_review(CheckId(99), ReviewDecision::Accept, Verdict::Supported, "", None)
                .is_err()
        );

        // A second run: latest per claim shows only its check.
        let again =
            store.create_run("llm-cite", &serde_json::json!({}), None, Some(collection)).unwrap();
        store
            .insert_check(again, Some(ids[0]), &result("One.", Verdict::NotEnoughInfo), &[])
            .unwrap();
        let latest = store
            .checks(&CheckFilter {
                collection: Some(collection),
                latest_per_claim: true,
                ..CheckFilter::default()
            })
            .unwrap();
        assert_eq!(latest.len(), 1);
        assert_eq!(latest[0].check.verdict, Verdict::NotEnoughInfo);
        let verified = store
            .checks(&CheckFilter { verdict: Some(Verdict::Supported), ..CheckFilter::default() })
            .unwrap();
        assert_eq!(verified.len(), 1);
    }
}
