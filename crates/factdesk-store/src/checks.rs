//! The `checks`, `check_model_calls` and `reviews` tables: one row per outcome of a method on a
//! subject (a verdict on a claim, or a revision, summary or score table of a passage) with the
//! whole outcome as JSON, the model calls behind each, and human reviews kept beside the
//! machine verdict. Lists of checks read verdicts only; [`Store::outcomes`] reads every kind.

use std::collections::HashSet;

use factdesk_model::{
    CheckId, ClaimCheck, ClaimId, CollectionId, EditDecision, Outcome, PassageId, Review,
    ReviewDecision, ReviewId, RunId, StoredCheck, StoredOutcome, SubjectId, Verdict, now_rfc3339,
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
        stale: Vec::new(),
    })
}

fn is_done(conn: &rusqlite::Connection, run: RunId, subject: SubjectId) -> Result<bool> {
    let (column, id) = match subject {
        SubjectId::Claim(claim) => ("claim_id", claim.0),
        SubjectId::Passage(passage) => ("passage_id", passage.0),
    };
    Ok(conn.query_row(
        &format!("SELECT EXISTS (SELECT 1 FROM checks WHERE run_id = ?1 AND {column} = ?2)"),
        params![run.0, id],
        |row| row.get(0),
    )?)
}

/// The subject of a row whose first two columns are `claim_id` and `passage_id`.
fn subject_of_row(row: &Row<'_>) -> rusqlite::Result<SubjectId> {
    subject_of_row_at(row, 0)?.ok_or(rusqlite::Error::InvalidColumnType(
        0,
        "claim_id".into(),
        rusqlite::types::Type::Null,
    ))
}

fn subject_of_row_at(row: &Row<'_>, at: usize) -> rusqlite::Result<Option<SubjectId>> {
    Ok(match (row.get::<_, Option<i64>>(at)?, row.get::<_, Option<i64>>(at + 1)?) {
        (Some(claim), _) => Some(SubjectId::Claim(ClaimId(claim))),
        (None, Some(passage)) => Some(SubjectId::Passage(PassageId(passage))),
        (None, None) => None,
    })
}

impl Store {
    /// Stores one verdict on a claim (or on an ad-hoc claim, `None`) with the model calls
    /// behind it, and marks the claim checked; see [`Store::insert_outcome`].
    pub fn insert_check(
        &mut self,
        run: RunId,
        claim: Option<ClaimId>,
        check: &ClaimCheck,
        model_calls: &[i64],
    ) -> Result<CheckId> {
        self.insert_outcome(
            run,
            claim.map(SubjectId::Claim),
            &Outcome::Verdict(check.clone()),
            model_calls,
        )
    }

    /// Stores one outcome of a run on a subject (or on an ad-hoc text, `None`) with the model
    /// calls behind it, in one transaction; a claim given a verdict is marked checked. An
    /// inconsistent outcome is refused ([`StoreError::InconsistentOutcome`]). A subject gets at
    /// most one outcome per run: a second is an error ([`StoreError::AlreadyDone`], e.g. when
    /// two processes run the same run) and replaces nothing.
    pub fn insert_outcome(
        &mut self,
        run: RunId,
        subject: Option<SubjectId>,
        outcome: &Outcome,
        model_calls: &[i64],
    ) -> Result<CheckId> {
        let envelope = outcome.envelope();
        // A verdict is about a claim; the other kinds are about passages.
        let misfit = match (outcome, subject) {
            (Outcome::Verdict(_), Some(SubjectId::Passage(_))) => {
                Some("a verdict is about a claim, not a passage".to_owned())
            }
            (Outcome::Verdict(_), _) | (_, None | Some(SubjectId::Passage(_))) => None,
            (other, Some(SubjectId::Claim(_))) => {
                Some(format!("a {} outcome is about a passage, not a claim", other.kind()))
            }
        };
        if let Some(message) = misfit.or_else(|| outcome.inconsistency()) {
            return Err(StoreError::InconsistentOutcome {
                subject: outcome.subject_text().to_owned(),
                method: envelope.method.clone(),
                message,
            });
        }
        let result = serde_json::to_string(outcome).map_err(|error| StoreError::Corrupt {
            column: "checks.result",
            message: error.to_string(),
        })?;
        let (claim, passage) = match subject {
            Some(SubjectId::Claim(claim)) => (Some(claim.0), None),
            Some(SubjectId::Passage(passage)) => (None, Some(passage.0)),
            None => (None, None),
        };
        let (verdict, undecided, confidence) = match outcome {
            Outcome::Verdict(check) => (
                Some(check.verdict.as_str()),
                check.undecided.map(|reason| reason.as_str()),
                check.confidence.map(|c| c.clamp(0.0, 1.0)),
            ),
            _ => (None, None, None),
        };
        let now = now_rfc3339();
        let tx = self.conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        if let Some(subject) = subject
            && is_done(&tx, run, subject)?
        {
            return Err(StoreError::AlreadyDone { run: run.0, subject });
        }
        tx.execute(
            "INSERT INTO checks (run_id, claim_id, passage_id, claim_text, method, kind, verdict,
                                 undecided, confidence, result, tokens, checked_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            params![
                run.0,
                claim,
                passage,
                outcome.subject_text(),
                envelope.method,
                outcome.kind().as_str(),
                verdict,
                undecided,
                confidence,
                result,
                envelope.tokens.total() as i64,
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
        if let (Some(claim), Outcome::Verdict(_)) = (claim, outcome) {
            tx.execute(
                "UPDATE claims SET status = 'checked', updated_at = ?2
                 WHERE id = ?1 AND status = 'unchecked'",
                params![claim, now],
            )?;
        }
        tx.commit()?;
        Ok(CheckId(id))
    }

    /// Whether `run` holds an outcome for `subject` (stored by this process or another).
    pub fn is_done_in(&self, run: RunId, subject: SubjectId) -> Result<bool> {
        is_done(&self.conn, run, subject)
    }

    /// The subjects a run already holds an outcome for (to resume it without repeats).
    pub fn done_subjects(&self, run: RunId) -> Result<HashSet<SubjectId>> {
        let mut statement = self.conn.prepare(
            "SELECT claim_id, passage_id FROM checks
             WHERE run_id = ?1 AND (claim_id IS NOT NULL OR passage_id IS NOT NULL)",
        )?;
        let rows = statement.query_map([run.0], subject_of_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The claims a run has already checked.
    pub fn checked_claims(&self, run: RunId) -> Result<HashSet<ClaimId>> {
        Ok(self
            .done_subjects(run)?
            .into_iter()
            .filter_map(|subject| match subject {
                SubjectId::Claim(claim) => Some(claim),
                SubjectId::Passage(_) => None,
            })
            .collect())
    }

    /// The subjects of `collection` (claims and passages) that hold an outcome from a run of
    /// `method` with exactly these `parameters` (compared as JSON values), whatever became of
    /// that run. Lets a batch skip subjects already done the same way.
    pub fn subjects_done_with(
        &self,
        collection: CollectionId,
        method: &str,
        parameters: &serde_json::Value,
    ) -> Result<HashSet<SubjectId>> {
        let mut statement = self.conn.prepare(
            "SELECT c.claim_id, c.passage_id, r.parameters FROM checks c
             JOIN runs r ON r.id = c.run_id
             LEFT JOIN claims k ON k.id = c.claim_id
             LEFT JOIN passages p ON p.id = c.passage_id
             WHERE (k.collection_id = ?1 OR p.collection_id = ?1) AND r.method = ?2",
        )?;
        let rows = statement.query_map(params![collection.0, method], |row| {
            Ok((subject_of_row(row)?, row.get::<_, String>(2)?))
        })?;
        let mut done = HashSet::new();
        for row in rows {
            let (subject, stored) = row?;
            if same_parameters(&stored, parameters) {
                done.insert(subject);
            }
        }
        Ok(done)
    }

    /// The outcomes of any kind a run (or every run, `None`) holds for the claims and passages
    /// of `collection` (or for any subject, `None`), oldest first.
    pub fn outcomes(
        &self,
        run: Option<RunId>,
        collection: Option<CollectionId>,
    ) -> Result<Vec<StoredOutcome>> {
        self.select_outcomes(run, collection, None, None)
    }

    /// Every stored outcome of `kind` (`summary`, `revision`, …), oldest first.
    pub fn outcomes_of_kind(&self, kind: &str) -> Result<Vec<StoredOutcome>> {
        self.select_outcomes(None, None, None, Some(kind))
    }

    fn select_outcomes(
        &self,
        run: Option<RunId>,
        collection: Option<CollectionId>,
        id: Option<CheckId>,
        kind: Option<&str>,
    ) -> Result<Vec<StoredOutcome>> {
        let mut statement = self.conn.prepare(
            "SELECT c.id, c.run_id, c.claim_id, c.passage_id, c.checked_at, c.result,
                    (SELECT json_group_array(model_call_id) FROM check_model_calls m
                     WHERE m.check_id = c.id)
             FROM checks c
             WHERE (?1 IS NULL OR c.run_id = ?1)
               AND (?2 IS NULL OR c.passage_id IN (SELECT id FROM passages WHERE collection_id = ?2)
                    OR c.claim_id IN (SELECT id FROM claims WHERE collection_id = ?2))
               AND (?3 IS NULL OR c.id = ?3)
               AND (?4 IS NULL OR c.kind = ?4)
             ORDER BY c.id",
        )?;
        let rows = statement.query_map(
            params![run.map(|r| r.0), collection.map(|c| c.0), id.map(|i| i.0), kind],
            |row| {
                Ok((
                    row.get::<_, i64>(0)?,
                    row.get::<_, i64>(1)?,
                    subject_of_row_at(row, 2)?,
                    row.get::<_, String>(4)?,
                    row.get::<_, String>(5)?,
                    row.get::<_, String>(6)?,
                ))
            },
        )?;
        rows.map(|row| {
            let (id, run_id, subject, checked_at, result, calls) = row?;
            let outcome: Outcome = serde_json::from_str(&result).map_err(|error| {
                StoreError::Corrupt { column: "checks.result", message: error.to_string() }
            })?;
            let mut model_calls: Vec<i64> = serde_json::from_str(&calls).map_err(|error| {
                StoreError::Corrupt { column: "check_model_calls", message: error.to_string() }
            })?;
            model_calls.sort_unstable();
            Ok(StoredOutcome {
                id: CheckId(id),
                run_id: RunId(run_id),
                subject,
                checked_at,
                model_calls,
                outcome,
            })
        })
        .collect()
    }

    /// One stored outcome of any kind.
    pub fn outcome(&self, id: CheckId) -> Result<StoredOutcome> {
        self.select_outcomes(None, None, Some(id), None)?
            .into_iter()
            .find(|stored| stored.id == id)
            .ok_or_else(|| StoreError::NotFound { what: format!("outcome {id}") })
    }

    /// Records a person's decision on edit `edit` (from 0) of the revision `check`; the
    /// revision itself is not changed.
    pub fn add_edit_decision(
        &mut self,
        check: CheckId,
        edit: usize,
        accepted: bool,
        reviewer: Option<&str>,
    ) -> Result<EditDecision> {
        let stored = self.outcome(check)?;
        let Outcome::Revision(revision) = &stored.outcome else {
            return Err(StoreError::NotFound {
                what: format!(
                    "revision {check} (outcome {check} is a {}, whose edits there are none to \
                     decide on)",
                    stored.outcome.kind()
                ),
            });
        };
        if edit >= revision.edits.len() {
            return Err(StoreError::NotFound {
                what: format!(
                    "edit {} of revision {check} (it has {} edit(s))",
                    edit + 1,
                    revision.edits.len()
                ),
            });
        }
        let now = now_rfc3339();
        self.conn.execute(
            "INSERT INTO edit_decisions (check_id, edit_index, accepted, reviewer, decided_at)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![check.0, edit as i64, accepted, reviewer, now],
        )?;
        Ok(EditDecision { edit, accepted, reviewer: reviewer.map(str::to_owned), decided_at: now })
    }

    /// The decisions that count on the edits of revision `check`: the newest for each edit, in
    /// the edits' order.
    pub fn edit_decisions(&self, check: CheckId) -> Result<Vec<EditDecision>> {
        let mut statement = self.conn.prepare(
            "SELECT edit_index, accepted, reviewer, decided_at FROM edit_decisions d
             WHERE check_id = ?1 AND id = (SELECT MAX(id) FROM edit_decisions
                                           WHERE check_id = d.check_id
                                             AND edit_index = d.edit_index)
             ORDER BY edit_index",
        )?;
        let rows = statement.query_map([check.0], |row| {
            Ok(EditDecision {
                edit: usize::try_from(row.get::<_, i64>(0)?).unwrap_or(usize::MAX),
                accepted: row.get(1)?,
                reviewer: row.get(2)?,
                decided_at: row.get(3)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// One check with its latest review.
    pub fn check(&self, id: CheckId) -> Result<StoredCheck> {
        let row = self
            .conn
            .query_row(
                &format!("{SELECT} WHERE c.id = ?1 AND c.kind = 'verdict'"),
                [id.0],
                row_to_check,
            )
            .optional()?
            .ok_or_else(|| StoreError::NotFound { what: format!("check {id}") })?;
        decode(row)
    }

    /// Checks, oldest first.
    pub fn checks(&self, filter: &CheckFilter) -> Result<Vec<StoredCheck>> {
        // One claim's checks are looked up by its index (an `?3 IS NULL OR …` test scans them).
        let by_claim = if filter.claim.is_some() { "c.claim_id = ?3" } else { "?3 IS NULL" };
        let sql = format!(
            "{SELECT}
             WHERE c.kind = 'verdict'
               AND (?1 IS NULL OR c.run_id = ?1)
               AND (?2 IS NULL OR c.claim_id IN (SELECT id FROM claims WHERE collection_id = ?2))
               AND {by_claim}
               AND (?6 IS NULL OR c.run_id IN (SELECT id FROM runs WHERE method = ?6))
               AND (?4 = 0 OR c.claim_id IS NULL
                    OR c.id = (SELECT max(n.id) FROM checks n
                               WHERE n.claim_id = c.claim_id AND n.kind = 'verdict'
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

    /// The newest verdict on exactly this claim text by `method` that names at least one
    /// source, whether the claim was checked alone or in a collection.
    pub fn latest_check_with_sources(
        &self,
        method: &str,
        claim: &str,
    ) -> Result<Option<StoredCheck>> {
        let row = self
            .conn
            .query_row(
                &format!(
                    "{SELECT}
                     WHERE c.kind = 'verdict' AND c.method = ?1 AND c.claim_text = ?2
                       AND json_array_length(c.result, '$.sources') > 0
                     ORDER BY c.id DESC LIMIT 1"
                ),
                params![method, claim],
                row_to_check,
            )
            .optional()?;
        row.map(decode).transpose()
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
            .query_row(
                "SELECT claim_id FROM checks WHERE id = ?1 AND kind = 'verdict'",
                [check.0],
                |row| row.get(0),
            )
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
            left_out: Vec::new(),
            ciber: None,
        }
    }

    fn claim(text: &str) -> NewClaim {
        NewClaim {
            text: text.into(),
            origin: None,
            tags: Vec::new(),
            notes: None,
            gold_label: None,
            claimed_on: None,
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
            store.subjects_done_with(collection, "llm-cite", &same_reordered).unwrap(),
            HashSet::from([SubjectId::Claim(ids[0])])
        );
        assert_eq!(
            store.subjects_done_with(collection, "llm-cite", &other_model).unwrap(),
            HashSet::from([SubjectId::Claim(ids[1])])
        );
        assert!(store.subjects_done_with(collection, "corpus-nli", &same).unwrap().is_empty());
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
    fn the_latest_check_with_sources_of_a_claim_text_is_found_in_collections_and_alone() {
        let mut store = Store::open_in_memory().unwrap();
        let collection = store.ensure_collection("demo").unwrap();
        let id = match store.insert_claims(collection, &[claim("One.")]).unwrap().remove(0) {
            crate::ClaimInsertOutcome::Inserted(id) | crate::ClaimInsertOutcome::Duplicate(id) => {
                id
            }
        };
        let run = |store: &Store, method: &str, collection| {
            store.create_run(method, &serde_json::json!({}), None, collection).unwrap()
        };
        // A check of `method` on `text`, with a source read when `read`.
        let check = |method: &str, text: &str, verdict: Verdict, read: bool| {
            let mut check = result(text, verdict);
            check.envelope.method = method.into();
            if read {
                check.sources.push(factdesk_model::EvidenceSource {
                    url: Some("https://example.org/one".into()),
                    title: None,
                    document_id: None,
                    fetched_at: None,
                    content_hash: Some("aa".into()),
                    published_at: None,
                });
            }
            check
        };
        let find = |store: &Store, method: &str, text: &str| {
            store.latest_check_with_sources(method, text).unwrap().map(|found| found.id)
        };
        assert_eq!(find(&store, "llm-cite", "One."), None);
        let in_collection = run(&store, "llm-cite", Some(collection));
        let first = store
            .insert_check(
                in_collection,
                Some(id),
                &check("llm-cite", "One.", Verdict::Supported, true),
                &[],
            )
            .unwrap();
        assert_eq!(find(&store, "llm-cite", "One."), Some(first));
        // A newer check of the same text made alone is newer; one that read nothing, other
        // methods and other texts are not.
        let alone = run(&store, "llm-cite", None);
        let second = store
            .insert_check(
                alone,
                None,
                &check("llm-cite", "One.", Verdict::NotEnoughInfo, true),
                &[],
            )
            .unwrap();
        let p_true = run(&store, "p-true", None);
        store
            .insert_check(p_true, None, &check("p-true", "One.", Verdict::Supported, true), &[])
            .unwrap();
        store
            .insert_check(
                alone,
                None,
                &check("llm-cite", "One more.", Verdict::Supported, true),
                &[],
            )
            .unwrap();
        let unread = run(&store, "llm-cite", None);
        store
            .insert_check(
                unread,
                None,
                &check("llm-cite", "One.", Verdict::NotEnoughInfo, false),
                &[],
            )
            .unwrap();
        assert_eq!(find(&store, "llm-cite", "One."), Some(second));
        assert_eq!(find(&store, "llm-cite", "one."), None);
        assert_eq!(find(&store, "corpus-nli", "One."), None);
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
        assert!(matches!(error, StoreError::InconsistentOutcome { .. }), "{error}");
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

#[cfg(test)]
mod outcome_tests {
    use factdesk_model::{
        Edit, Envelope, NewPassage, Outcome, PassageKind, Revision, ScoreRow, ScoreTable,
        SubjectId, TokenUse,
    };

    use super::*;
    use crate::PassageInsertOutcome;

    fn envelope() -> Envelope {
        let mut tokens = TokenUse::default();
        tokens.add("question", 12, 3);
        Envelope {
            method: "toy-rarr".into(),
            parameters: serde_json::json!({"edits": 1}),
            model: "scripted:test".into(),
            nli_model: None,
            tokens,
            explanation: "one date disagreed with the evidence".into(),
        }
    }

    fn revision() -> Outcome {
        Outcome::Revision(Revision {
            envelope: envelope(),
            original: "Opened in 1899.".into(),
            revised: "Opened in 1889.".into(),
            edits: vec![Edit {
                start: 10,
                before: "1899".into(),
                after: "1889".into(),
                question: Some("When did it open?".into()),
                evidence: Vec::new(),
                agreement: Some(0.1),
            }],
            steps: Vec::new(),
            rejected: Vec::new(),
            metrics: None,
        })
    }

    #[test]
    fn passages_get_outcomes_of_any_kind_once_per_run() {
        let mut store = Store::open_in_memory().unwrap();
        let collection = store.ensure_collection("desk").unwrap();
        let added = store
            .insert_passages(
                collection,
                &[NewPassage {
                    kind: PassageKind::Summary,
                    text: "Opened in 1899.".into(),
                    question: None,
                    sources: Vec::new(),
                }],
            )
            .unwrap();
        let PassageInsertOutcome::Inserted(passage) = added[0] else { panic!("{added:?}") };
        let run =
            store.create_run("toy-rarr", &serde_json::json!({}), None, Some(collection)).unwrap();
        let subject = SubjectId::Passage(passage);
        let id = store.insert_outcome(run, Some(subject), &revision(), &[]).unwrap();
        assert!(store.is_done_in(run, subject).unwrap());
        assert_eq!(store.done_subjects(run).unwrap(), HashSet::from([subject]));
        assert!(store.checked_claims(run).unwrap().is_empty());
        let error = store.insert_outcome(run, Some(subject), &revision(), &[]).unwrap_err();
        assert!(matches!(error, StoreError::AlreadyDone { .. }), "{error}");
        // A revision is about a passage, never a claim.
        let claim = SubjectId::Claim(ClaimId(1));
        let error = store.insert_outcome(run, Some(claim), &revision(), &[]).unwrap_err();
        assert!(error.to_string().contains("about a passage, not a claim"), "{error}");
        assert!(error.to_string().contains("passage"), "{error}");

        let stored = store.outcomes(Some(run), Some(collection)).unwrap();
        assert_eq!(stored.len(), 1);
        assert_eq!((stored[0].id, stored[0].subject), (id, Some(subject)));
        assert_eq!(stored[0].outcome, revision());
        // Lists of verdicts leave other kinds out; a verdict read of this row finds nothing.
        assert!(store.checks(&CheckFilter::default()).unwrap().is_empty());
        assert!(matches!(store.check(id), Err(StoreError::NotFound { .. })));
        let done =
            store.subjects_done_with(collection, "toy-rarr", &serde_json::json!({})).unwrap();
        assert_eq!(done, HashSet::from([subject]));

        // People's decisions on the edits: the newest counts, the revision is not touched.
        assert_eq!(store.outcome(id).unwrap().outcome, revision());
        assert!(store.edit_decisions(id).unwrap().is_empty());
        store.add_edit_decision(id, 0, false, Some("ana")).unwrap();
        store.add_edit_decision(id, 0, true, None).unwrap();
        let decisions = store.edit_decisions(id).unwrap();
        assert_eq!(decisions.len(), 1);
        assert!(decisions[0].accepted && decisions[0].reviewer.is_none(), "{decisions:?}");
        assert_eq!(store.outcome(id).unwrap().outcome, revision());
        let error = store.add_edit_decision(id, 1, true, None).unwrap_err();
        assert!(error.to_string().contains("edit 2 of revision"), "{error}");
        assert!(store.add_edit_decision(CheckId(999), 0, true, None).is_err());

        // An inconsistent outcome is refused and names the method.
        let broken = Outcome::Scores(ScoreTable {
            envelope: envelope(),
            passage: "Opened in 1899.".into(),
            rows: vec![ScoreRow {
                criterion: "faithfulness".into(),
                score: Some(f64::NAN),
                label: None,
                note: None,
            }],
        });
        let error = store.insert_outcome(run, None, &broken, &[]).unwrap_err();
        assert!(error.to_string().contains("toy-rarr: criterion faithfulness"), "{error}");
        let (kind, tokens): (String, i64) = store
            .conn
            .query_row("SELECT kind, tokens FROM checks WHERE id = ?1", [id.0], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap();
        assert_eq!((kind.as_str(), tokens), ("revision", 15));
    }
}
