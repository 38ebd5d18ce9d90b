//! Verdicts on claims read back (one, a filtered list, the latest with sources of a claim
//! text) with their latest human review, and the storing of a review.

use factdesk_model::{
    CheckId, Review, ReviewDecision, ReviewId, StoredCheck, Verdict, now_rfc3339,
};
use rusqlite::{OptionalExtension, params};

use super::{CheckFilter, SELECT, decode, row_to_check};
use crate::{Result, Store, StoreError};

impl Store {
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
    use std::collections::HashSet;

    use super::*;
    use factdesk_model::{
        ClaimCheck, ClaimId, ClaimStatus, Envelope, NewClaim, RunId, SubjectId, TokenUse,
    };

    fn result(claim: &str, verdict: Verdict) -> ClaimCheck {
        ClaimCheck {
            envelope: Envelope {
                method: "llm-cite".into(),
                parameters: serde_json::json!({"m": 4}).into(),
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
            sources: Vec::new(),
            premises: Vec::new(),
            left_out: Vec::new(),
            detail: None,
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
