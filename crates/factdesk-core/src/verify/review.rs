//! Stored checks read back for lists, reports and eval (each with its evidence that is old for
//! its claim), and a person's review of a check.

use factdesk_model::{CheckId, Claim, ClaimId, Review, ReviewDecision, StoredCheck, Verdict};
use factdesk_store::{CheckFilter, ClaimFilter};

use super::{CheckSelection, ClaimWithCheck};
use crate::{CoreError, Factdesk, Result};

impl Factdesk {
    /// The newest check of each claim of `collection` that `selection` selects, with its
    /// latest review; a run that is not over `collection` is refused.
    pub(crate) fn selected_checks(
        &self,
        collection: &str,
        selection: &CheckSelection,
    ) -> Result<(Vec<Claim>, Vec<StoredCheck>)> {
        let store = self.store()?;
        let collection_id = store.collection_id(collection)?;
        if let Some(run) = selection.run
            && store.run(run)?.collection_id != Some(collection_id)
        {
            return Err(CoreError::InvalidInput(format!(
                "run {run} is not a run over the collection '{collection}'; leave out the run to \
                 read each claim's newest check"
            )));
        }
        let claims = store
            .claims(&ClaimFilter { collection: Some(collection_id), ..ClaimFilter::default() })?;
        let checks = store.checks(&CheckFilter {
            collection: Some(collection_id),
            run: selection.run,
            method: selection.method.map(|method| method.as_str().to_owned()),
            latest_per_claim: true,
            ..CheckFilter::default()
        })?;
        Ok((claims, checks))
    }

    /// Claims of a collection with their newest check that `selection` selects (and its latest
    /// review).
    pub fn collection_checks(
        &self,
        collection: &str,
        selection: &CheckSelection,
    ) -> Result<Vec<ClaimWithCheck>> {
        let (claims, checks) = self.selected_checks(collection, selection)?;
        Ok(claims
            .into_iter()
            .map(|claim| {
                let mut check =
                    checks.iter().find(|check| check.claim_id == Some(claim.id)).cloned();
                self.mark_stale(Some(&claim), check.as_mut_slice());
                ClaimWithCheck { claim, check }
            })
            .collect())
    }

    /// One stored check, with its evidence that is old for its claim.
    pub fn check(&self, id: CheckId) -> Result<StoredCheck> {
        let mut check = self.store()?.check(id)?;
        let claim = self.claim_of(&check)?;
        self.mark_stale(claim.as_ref(), std::slice::from_mut(&mut check));
        Ok(check)
    }

    /// Every check of a claim, oldest first, with their evidence that is old for the claim.
    pub fn checks_of_claim(&self, claim: ClaimId) -> Result<Vec<StoredCheck>> {
        let store = self.store()?;
        let mut checks =
            store.checks(&CheckFilter { claim: Some(claim), ..CheckFilter::default() })?;
        let claim = store.claims(&ClaimFilter { id: Some(claim), ..ClaimFilter::default() })?;
        drop(store);
        self.mark_stale(claim.first(), &mut checks);
        Ok(checks)
    }

    /// The stored claim a check is of, if any.
    fn claim_of(&self, check: &StoredCheck) -> Result<Option<Claim>> {
        let Some(id) = check.claim_id else { return Ok(None) };
        let claims =
            self.store()?.claims(&ClaimFilter { id: Some(id), ..ClaimFilter::default() })?;
        Ok(claims.into_iter().next())
    }

    /// Records a person's decision on a check: accept the machine verdict, or override it with
    /// another (a comment is required for an override). The machine verdict is kept.
    pub fn review_check(
        &self,
        check: CheckId,
        decision: ReviewDecision,
        verdict: Option<Verdict>,
        comment: &str,
        reviewer: Option<&str>,
    ) -> Result<Review> {
        let machine = self.store()?.check(check)?.check.verdict;
        let verdict = match (decision, verdict) {
            (ReviewDecision::Accept, None) => machine,
            (ReviewDecision::Accept, Some(verdict)) if verdict == machine => machine,
            (ReviewDecision::Accept, Some(verdict)) => {
                return Err(CoreError::InvalidInput(format!(
                    "accepting keeps the machine verdict ({machine}); to change it to {verdict}, override"
                )));
            }
            (ReviewDecision::Override, None) => {
                return Err(CoreError::InvalidInput(
                    "an override needs the reviewer's verdict".into(),
                ));
            }
            (ReviewDecision::Override, Some(verdict)) => verdict,
        };
        if decision == ReviewDecision::Override && comment.trim().is_empty() {
            return Err(CoreError::InvalidInput(
                "an override needs a comment saying why the machine verdict is wrong".into(),
            ));
        }
        Ok(self.store()?.add_review(check, decision, verdict, comment.trim(), reviewer)?)
    }
}
