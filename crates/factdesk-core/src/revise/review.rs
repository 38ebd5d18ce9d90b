//! Reading revisions back: one or a collection's, each with people's decisions on its edits
//! (and why, when they said) and the text they keep, a decision recorded, and the figures of a
//! collection's revisions.

use factdesk_model::{CheckId, EditDecision, Outcome, StoredOutcome};
use serde::Serialize;

use crate::{CoreError, Factdesk, Result};

/// A stored revision with people's decisions on its edits and the text they keep.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct ReviewedRevision {
    pub stored: StoredOutcome,
    /// The decision that counts for each decided edit, in the edits' order.
    pub decisions: Vec<EditDecision>,
    /// The original with every edit applied except the rejected ones.
    pub accepted_text: String,
}

impl Factdesk {
    fn reviewed(&self, stored: StoredOutcome) -> Result<ReviewedRevision> {
        let Outcome::Revision(revision) = &stored.outcome else {
            return Err(CoreError::InvalidInput(format!(
                "outcome {} is a {}, not a revision",
                stored.id,
                stored.outcome.kind()
            )));
        };
        let decisions = self.store()?.edit_decisions(stored.id)?;
        let accepted_text = revision.accepted_text(&decisions);
        Ok(ReviewedRevision { stored, decisions, accepted_text })
    }

    /// One stored revision with the decisions on its edits.
    pub fn revision(&self, id: CheckId) -> Result<ReviewedRevision> {
        let stored = self.store()?.outcome(id)?;
        self.reviewed(stored)
    }

    /// Records that a person accepts or rejects edit `edit` (from 0) of revision `id`, with
    /// why when they say (`comment`; blank is none); the revision stays as the method made it,
    /// the decision is kept beside it.
    pub fn decide_edit(
        &self,
        id: CheckId,
        edit: usize,
        accepted: bool,
        comment: Option<&str>,
        reviewer: Option<&str>,
    ) -> Result<ReviewedRevision> {
        let reviewer = reviewer.map(str::trim).filter(|name| !name.is_empty());
        let comment = comment.map(str::trim).filter(|why| !why.is_empty());
        self.store()?.add_edit_decision(id, edit, accepted, comment, reviewer)?;
        self.revision(id)
    }

    /// The revisions of `collection`'s passages, oldest first, each with its decisions.
    pub fn collection_revisions(&self, collection: &str) -> Result<Vec<ReviewedRevision>> {
        self.outcomes(collection, &crate::verify::CheckSelection::default())?
            .into_iter()
            .filter(|stored| matches!(stored.outcome, Outcome::Revision(_)))
            .map(|stored| self.reviewed(stored))
            .collect()
    }
}

/// The figures of a collection's revisions (`factdesk eval --revisions`): how many changed,
/// their metrics on average, what people decided, and what the model calls cost.
#[derive(Debug, Clone, Default, Serialize, ts_rs::TS)]
pub struct RevisionEvaluation {
    pub collection: String,
    pub revisions: usize,
    /// Revisions whose text differs from the original.
    pub changed: usize,
    pub edits: usize,
    pub refused: usize,
    /// Revisions measured for entailment by their sources, and of those, the ones whose
    /// entailment rose or fell.
    pub entailment_measured: usize,
    pub entailment_rose: usize,
    pub entailment_fell: usize,
    pub mean_entailment_before: Option<f64>,
    pub mean_entailment_after: Option<f64>,
    /// Mean normalised edit distance from the original.
    pub mean_edit_distance: Option<f64>,
    /// Mean MiniLM similarity to the original.
    pub mean_similarity: Option<f64>,
    /// People's decisions on edits: accepted, rejected; the rest are open.
    pub accepted: usize,
    pub rejected: usize,
    /// Model calls per revision, by step.
    pub calls_per_revision: std::collections::BTreeMap<String, f64>,
    /// Tokens (prompt + completion) per revision, by step.
    pub tokens_per_revision: std::collections::BTreeMap<String, f64>,
}

fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

impl Factdesk {
    /// The figures of the revisions of `collection`'s passages that `selection` selects (one
    /// run; all by default).
    pub fn evaluate_revisions(
        &self,
        collection: &str,
        selection: &crate::verify::CheckSelection,
    ) -> Result<RevisionEvaluation> {
        let mut figures =
            RevisionEvaluation { collection: collection.to_owned(), ..Default::default() };
        let (mut before, mut after, mut distance, mut similarity) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for stored in self.outcomes(collection, selection)? {
            let reviewed = match stored.outcome {
                Outcome::Revision(_) => self.reviewed(stored)?,
                _ => continue,
            };
            let Outcome::Revision(revision) = &reviewed.stored.outcome else { continue };
            figures.revisions += 1;
            figures.changed += usize::from(revision.revised != revision.original);
            figures.edits += revision.edits.len();
            figures.refused += revision.rejected.len();
            figures.accepted += reviewed.decisions.iter().filter(|d| d.accepted).count();
            figures.rejected += reviewed.decisions.iter().filter(|d| !d.accepted).count();
            if let Some(metrics) = &revision.metrics {
                distance.push(metrics.edit_distance);
                similarity.extend(metrics.similarity);
                if let (Some(b), Some(a)) = (metrics.entailment_before, metrics.entailment_after) {
                    figures.entailment_measured += 1;
                    figures.entailment_rose += usize::from(a > b);
                    figures.entailment_fell += usize::from(a < b);
                    before.push(b);
                    after.push(a);
                }
            }
            let calls = revision.envelope.parameters.revision().and_then(|r| r.calls.as_ref());
            for (step, count) in calls.into_iter().flatten() {
                *figures.calls_per_revision.entry(step.clone()).or_default() += f64::from(*count);
            }
            for (purpose, count) in &revision.envelope.tokens.0 {
                *figures.tokens_per_revision.entry(purpose.clone()).or_default() +=
                    count.total() as f64;
            }
        }
        let n = figures.revisions.max(1) as f64;
        for value in
            figures.calls_per_revision.values_mut().chain(figures.tokens_per_revision.values_mut())
        {
            *value /= n;
        }
        figures.mean_entailment_before = mean(&before);
        figures.mean_entailment_after = mean(&after);
        figures.mean_edit_distance = mean(&distance);
        figures.mean_similarity = mean(&similarity);
        Ok(figures)
    }
}
