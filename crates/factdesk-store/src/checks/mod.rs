//! The `checks`, `check_model_calls` and `reviews` tables: one row per outcome of a method on a
//! subject (a verdict on a claim, or a revision, summary or score table of a passage) with the
//! whole outcome as JSON, the model calls behind each, and human reviews kept beside the
//! machine verdict. Lists of checks read verdicts only; [`Store::outcomes`] reads every kind.
//!
//! `mod.rs` holds the rows and writes them (a check, an outcome of any kind, which subjects
//! are done); `outcomes.rs` reads outcomes of any kind back with their edit decisions and
//! `verdicts.rs` reads verdicts back and stores reviews of them.

use std::collections::HashSet;

use factdesk_model::{
    CheckId, ClaimCheck, ClaimId, CollectionId, Outcome, PassageId, Review, ReviewId, RunId,
    StoredCheck, SubjectId, Verdict, now_rfc3339,
};
use rusqlite::{Row, params};

use crate::runs::same_parameters;
use crate::{Result, Store, StoreError, parse_column};

mod outcomes;
mod verdicts;

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
}
