//! A collection's dashboard: its verdicts, the machine's verdicts against the people's, the
//! confidence histogram split by agreement with gold labels or reviews, and the checks and
//! reviews per day ([`factdesk_report::dashboard::Dashboard`], computed there so that the HTML
//! report draws the same figures). This module only gathers the claims, their newest checks
//! and the times of all their checks from the store, and the runs over a collection, whose
//! checks a dashboard may be limited to.

use factdesk_model::Run;
use factdesk_report::ReportItem;
pub use factdesk_report::dashboard::{
    ConfidenceBin, Dashboard, DayCount, ReviewCell, ReviewRow, VerdictCount,
};
use factdesk_store::CheckFilter;

use crate::verify::CheckSelection;
use crate::{Factdesk, Result};

impl Factdesk {
    /// The dashboard of `collection` over the checks `selection` selects (of one method, of
    /// one run; all by default): each claim's newest such check and its latest review, and
    /// the times of every such check.
    pub fn collection_dashboard(
        &self,
        collection: &str,
        selection: &CheckSelection,
    ) -> Result<Dashboard> {
        let items: Vec<ReportItem> = self
            .collection_checks(collection, selection)?
            .into_iter()
            .map(|entry| ReportItem::for_claim(&entry.claim, entry.check))
            .collect();
        self.dashboard_of(collection, selection, &items)
    }

    /// The runs over `collection` (of any method), newest first: the dashboard's choice of one
    /// run's checks.
    pub fn collection_runs(&self, collection: &str) -> Result<Vec<Run>> {
        let store = self.store()?;
        let collection_id = store.collection_id(collection)?;
        Ok(store.runs(Some(collection_id))?)
    }

    /// The dashboard of `collection` for report items already read (see
    /// [`Self::collection_dashboard`]).
    pub(crate) fn dashboard_of(
        &self,
        collection: &str,
        selection: &CheckSelection,
        items: &[ReportItem],
    ) -> Result<Dashboard> {
        let check_times: Vec<String> = {
            let store = self.store()?;
            let collection_id = store.collection_id(collection)?;
            store
                .checks(&CheckFilter {
                    collection: Some(collection_id),
                    run: selection.run,
                    method: selection.method.map(|method| method.as_str().to_owned()),
                    ..CheckFilter::default()
                })?
                .into_iter()
                .map(|stored| stored.checked_at)
                .collect()
        };
        Ok(Dashboard::of(collection, items, &check_times))
    }
}

#[cfg(test)]
mod tests {
    use factdesk_model::{ClaimCheck, Envelope, NewClaim, ReviewDecision, TokenUse, Verdict};

    use factdesk_store::ClaimFilter;

    use super::*;
    use crate::Settings;

    fn check(claim: &str, verdict: Verdict, confidence: Option<f64>) -> ClaimCheck {
        ClaimCheck {
            envelope: Envelope {
                method: "toy".into(),
                parameters: serde_json::json!({}).into(),
                model: "none".into(),
                nli_model: None,
                tokens: TokenUse::default(),
                explanation: "a test verdict".into(),
            },
            claim: claim.to_owned(),
            verdict,
            undecided: None,
            confidence,
            attributions: Vec::new(),
            sources: Vec::new(),
            premises: Vec::new(),
            left_out: Vec::new(),
            detail: None,
        }
    }

    /// Five claims (two with a gold label), four checked, one of them twice; two reviews.
    #[test]
    fn the_dashboard_counts_verdicts_reviews_confidence_and_days() {
        let dir = tempfile::tempdir().unwrap();
        let app = Factdesk::open_with_settings(dir.path(), Settings::default()).unwrap();
        let claim = |text: &str, gold_label| NewClaim {
            text: text.to_owned(),
            origin: None,
            tags: Vec::new(),
            notes: None,
            gold_label,
            claimed_on: None,
        };
        let (ids, first_run) = {
            let mut store = app.store().unwrap();
            let collection = store.ensure_collection("desk").unwrap();
            store
                .insert_claims(
                    collection,
                    &[
                        claim("a", None),
                        claim("b", None),
                        claim("c", Some(Verdict::Refuted)),
                        claim("d", Some(Verdict::Supported)),
                        claim("e", None),
                    ],
                )
                .unwrap();
            let filter = ClaimFilter { collection: Some(collection), ..ClaimFilter::default() };
            let ids: Vec<_> =
                store.claims(&filter).unwrap().into_iter().map(|claim| claim.id).collect();
            let first =
                store.create_run("toy", &serde_json::json!({}), None, Some(collection)).unwrap();
            let second =
                store.create_run("toy", &serde_json::json!({}), None, Some(collection)).unwrap();
            // b's first check says refuted; its second, newer one supported (the one counted).
            store
                .insert_check(first, Some(ids[1]), &check("b", Verdict::Refuted, Some(0.4)), &[])
                .unwrap();
            store
                .insert_check(
                    second,
                    Some(ids[0]),
                    &check("a", Verdict::Supported, Some(0.95)),
                    &[],
                )
                .unwrap();
            store
                .insert_check(
                    second,
                    Some(ids[1]),
                    &check("b", Verdict::Supported, Some(0.91)),
                    &[],
                )
                .unwrap();
            store
                .insert_check(
                    second,
                    Some(ids[2]),
                    &check("c", Verdict::Supported, Some(0.55)),
                    &[],
                )
                .unwrap();
            store
                .insert_check(second, Some(ids[3]), &check("d", Verdict::NotEnoughInfo, None), &[])
                .unwrap();
            (ids, first)
        };
        let entries = app.collection_checks("desk", &CheckSelection::default()).unwrap();
        let check_of = |id| {
            entries.iter().find(|entry| entry.claim.id == id).unwrap().check.as_ref().unwrap().id
        };
        app.review_check(check_of(ids[0]), ReviewDecision::Accept, None, "", Some("ana")).unwrap();
        app.review_check(
            check_of(ids[1]),
            ReviewDecision::Override,
            Some(Verdict::Refuted),
            "wrong page",
            None,
        )
        .unwrap();

        let dashboard = app.collection_dashboard("desk", &CheckSelection::default()).unwrap();
        assert_eq!(
            (dashboard.claims, dashboard.checked, dashboard.reviewed, dashboard.labelled),
            (5, 4, 2, 2)
        );
        let verdicts: Vec<_> = dashboard
            .verdicts
            .iter()
            .map(|count| (count.verdict, count.machine, count.after_review))
            .collect();
        assert_eq!(
            verdicts,
            [(Verdict::Supported, 3, 2), (Verdict::Refuted, 0, 1), (Verdict::NotEnoughInfo, 1, 1)]
        );
        let cells = |machine: Verdict| -> Vec<usize> {
            let row =
                dashboard.machine_vs_review.iter().find(|row| row.machine == machine).unwrap();
            row.cells.iter().map(|cell| cell.claims).collect()
        };
        // Columns: not reviewed, supported, refuted, not enough info.
        assert_eq!(cells(Verdict::Supported), [1, 1, 1, 0]);
        assert_eq!(cells(Verdict::Refuted), [0, 0, 0, 0]);
        assert_eq!(cells(Verdict::NotEnoughInfo), [1, 0, 0, 0]);
        // a (0.95, accepted) agrees, b (0.91, overridden) disagrees, both in the top bin; c
        // (0.55) disagrees with its gold label; d has no confidence.
        let top = &dashboard.confidence[9];
        assert_eq!((top.agree, top.disagree, top.unjudged), (1, 1, 0));
        let middle = &dashboard.confidence[5];
        assert_eq!((middle.agree, middle.disagree, middle.unjudged), (0, 1, 0));
        assert_eq!(
            dashboard
                .confidence
                .iter()
                .map(|bin| bin.agree + bin.disagree + bin.unjudged)
                .sum::<usize>(),
            3
        );
        assert_eq!(
            (dashboard.judged_by_gold, dashboard.judged_by_review, dashboard.without_confidence),
            (2, 2, 1)
        );
        // Every check counts by day, the replaced one too; the reviews of the newest checks.
        assert_eq!(dashboard.per_day.iter().map(|day| day.checks).sum::<usize>(), 5);
        assert_eq!(dashboard.per_day.iter().map(|day| day.reviews).sum::<usize>(), 2);

        // One run only: its checks, the first run's left out.
        let first_run = CheckSelection { run: Some(first_run), ..Default::default() };
        let first = app.collection_dashboard("desk", &first_run).unwrap();
        assert_eq!(first.checked, 1);
        assert_eq!(first.per_day.iter().map(|day| day.checks).sum::<usize>(), 1);

        let missing = app.collection_dashboard("nowhere", &CheckSelection::default()).unwrap_err();
        assert!(missing.to_string().contains("nowhere"), "{missing}");

        // The runs to choose from: both, newest first.
        let runs: Vec<_> =
            app.collection_runs("desk").unwrap().into_iter().map(|run| run.id).collect();
        assert_eq!(runs.len(), 2);
        assert_eq!(runs[1], first_run.run.unwrap());
        assert!(runs[0] > runs[1], "{runs:?}");
        assert!(app.collection_runs("nowhere").is_err());
    }
}
