//! Outcomes of any kind (verdicts, revisions, summaries, score tables) read back, the
//! decisions a person takes on a revision's edits and their reviews of a summary's sources.

use factdesk_model::{
    CheckId, CollectionId, EditDecision, Outcome, RunId, SourceReview, StoredOutcome, now_rfc3339,
};
use rusqlite::params;

use super::subject_of_row_at;
use crate::{Result, Store, StoreError};

impl Store {
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

    /// Records a person's decision on edit `edit` (from 0) of the revision `check`, with why
    /// when they said; the revision itself is not changed.
    pub fn add_edit_decision(
        &mut self,
        check: CheckId,
        edit: usize,
        accepted: bool,
        comment: Option<&str>,
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
            "INSERT INTO edit_decisions
                 (check_id, edit_index, accepted, comment, reviewer, decided_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![check.0, edit as i64, accepted, comment, reviewer, now],
        )?;
        Ok(EditDecision {
            edit,
            accepted,
            comment: comment.map(str::to_owned),
            reviewer: reviewer.map(str::to_owned),
            decided_at: now,
        })
    }

    /// The decisions that count on the edits of revision `check`: the newest for each edit, in
    /// the edits' order.
    pub fn edit_decisions(&self, check: CheckId) -> Result<Vec<EditDecision>> {
        let mut statement = self.conn.prepare(
            "SELECT edit_index, accepted, comment, reviewer, decided_at FROM edit_decisions d
             WHERE check_id = ?1 AND id = (SELECT MAX(id) FROM edit_decisions
                                           WHERE check_id = d.check_id
                                             AND edit_index = d.edit_index)
             ORDER BY edit_index",
        )?;
        let rows = statement.query_map([check.0], |row| {
            Ok(EditDecision {
                edit: usize::try_from(row.get::<_, i64>(0)?).unwrap_or(usize::MAX),
                accepted: row.get(1)?,
                comment: row.get(2)?,
                reviewer: row.get(3)?,
                decided_at: row.get(4)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Records a person's review of source `source` (from 0) of the summary `check`: whether
    /// they agree with what the summary did with it, and why when they said. The summary
    /// itself is not changed.
    pub fn add_source_review(
        &mut self,
        check: CheckId,
        source: usize,
        accepted: bool,
        comment: Option<&str>,
        reviewer: Option<&str>,
    ) -> Result<SourceReview> {
        let stored = self.outcome(check)?;
        let Outcome::Summary(summary) = &stored.outcome else {
            return Err(StoreError::NotFound {
                what: format!(
                    "summary {check} (outcome {check} is a {}, which has no sources to review)",
                    stored.outcome.kind()
                ),
            });
        };
        if source >= summary.sources.len() {
            return Err(StoreError::NotFound {
                what: format!(
                    "source {} of summary {check} (it has {} source(s))",
                    source + 1,
                    summary.sources.len()
                ),
            });
        }
        let now = now_rfc3339();
        self.conn.execute(
            "INSERT INTO source_reviews
                 (check_id, source_index, accepted, comment, reviewer, reviewed_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![check.0, source as i64, accepted, comment, reviewer, now],
        )?;
        Ok(SourceReview {
            source,
            accepted,
            comment: comment.map(str::to_owned),
            reviewer: reviewer.map(str::to_owned),
            reviewed_at: now,
        })
    }

    /// The reviews that count on the sources of summary `check`: the newest for each source,
    /// in the sources' order.
    pub fn source_reviews(&self, check: CheckId) -> Result<Vec<SourceReview>> {
        let mut statement = self.conn.prepare(
            "SELECT source_index, accepted, comment, reviewer, reviewed_at FROM source_reviews r
             WHERE check_id = ?1 AND id = (SELECT MAX(id) FROM source_reviews
                                           WHERE check_id = r.check_id
                                             AND source_index = r.source_index)
             ORDER BY source_index",
        )?;
        let rows = statement.query_map([check.0], |row| {
            Ok(SourceReview {
                source: usize::try_from(row.get::<_, i64>(0)?).unwrap_or(usize::MAX),
                accepted: row.get(1)?,
                comment: row.get(2)?,
                reviewer: row.get(3)?,
                reviewed_at: row.get(4)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use factdesk_model::{
        ClaimId, Edit, Envelope, NewPassage, Outcome, PassageKind, Revision, ScoreRow, ScoreTable,
        SubjectId, TokenUse,
    };

    use super::*;
    use crate::{CheckFilter, PassageInsertOutcome};

    fn envelope() -> Envelope {
        let mut tokens = TokenUse::default();
        tokens.add("question", 12, 3);
        Envelope {
            method: "toy-rarr".into(),
            parameters: serde_json::json!({"edits": 1}).into(),
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
        let first = store.add_edit_decision(id, 0, false, Some("wrong year"), Some("ana")).unwrap();
        assert_eq!(store.edit_decisions(id).unwrap(), vec![first]);
        assert_eq!(store.edit_decisions(id).unwrap()[0].comment.as_deref(), Some("wrong year"));
        store.add_edit_decision(id, 0, true, None, None).unwrap();
        let decisions = store.edit_decisions(id).unwrap();
        assert_eq!(decisions.len(), 1);
        assert!(decisions[0].accepted && decisions[0].reviewer.is_none(), "{decisions:?}");
        assert!(decisions[0].comment.is_none(), "{decisions:?}");
        assert_eq!(store.outcome(id).unwrap().outcome, revision());
        let error = store.add_edit_decision(id, 1, true, None, None).unwrap_err();
        assert!(error.to_string().contains("edit 2 of revision"), "{error}");
        assert!(store.add_edit_decision(CheckId(999), 0, true, None, None).is_err());
        // A revision has no sources to review.
        let error = store.add_source_review(id, 0, true, None, None).unwrap_err();
        assert!(error.to_string().contains("is a revision, which has no sources"), "{error}");

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

    #[test]
    fn reviews_of_a_summarys_sources_keep_the_newest_and_leave_the_summary_alone() {
        let mut store = Store::open_in_memory().unwrap();
        let run = store.create_run("tts", &serde_json::json!({}), None, None).unwrap();
        let source = |title: &str, used: bool| factdesk_model::ScoredSource {
            source: factdesk_model::EvidenceSource {
                url: None,
                title: Some(title.into()),
                document_id: None,
                fetched_at: None,
                content_hash: None,
                published_at: None,
            },
            score: if used { 0.4 } else { -0.2 },
            used,
            note: None,
        };
        let summary = Outcome::Summary(factdesk_model::SourcedSummary {
            envelope: envelope(),
            question: Some("Why did the bridge close?".into()),
            text: "Cracks.".into(),
            sources: vec![source("inspection", true), source("rumour", false)],
            claims: Vec::new(),
        });
        let id = store.insert_outcome(run, None, &summary, &[]).unwrap();
        assert!(store.source_reviews(id).unwrap().is_empty());
        store.add_source_review(id, 1, true, None, Some("ana")).unwrap();
        store.add_source_review(id, 0, false, Some("an old report"), None).unwrap();
        store.add_source_review(id, 1, false, Some("it was right"), Some("ben")).unwrap();
        let reviews = store.source_reviews(id).unwrap();
        let seen: Vec<_> = reviews
            .iter()
            .map(|r| (r.source, r.accepted, r.comment.as_deref(), r.reviewer.as_deref()))
            .collect();
        assert_eq!(
            seen,
            vec![
                (0, false, Some("an old report"), None),
                (1, false, Some("it was right"), Some("ben"))
            ]
        );
        assert_eq!(store.outcome(id).unwrap().outcome, summary);
        let error = store.add_source_review(id, 2, true, None, None).unwrap_err();
        assert!(error.to_string().contains("source 3 of summary"), "{error}");
        assert!(error.to_string().contains("it has 2 source(s)"), "{error}");
        // A summary has no edits to decide on.
        assert!(store.add_edit_decision(id, 0, true, None, None).is_err());
    }
}
