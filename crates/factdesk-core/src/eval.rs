//! Evaluation of a labelled collection: how the newest verdict for each claim compares with
//! its gold label, in two ways.
//!
//! Two-way (supported or not): a claim labelled `supported` should get a supported verdict;
//! one labelled `refuted` or `not_enough_info` should not. Reports accuracy, balanced accuracy
//! (the mean of the rates on true and on false claims, so a method that says "supported" to
//! everything scores 0.5; none when the collection holds claims of one kind only), and, from
//! each check's confidence read as the probability that the claim is supported (the confidence
//! of a supported verdict, one minus that of any other; 0 for a check with no confidence, such
//! as one without evidence), ROC AUC, expected calibration error and the precision and recall
//! of "not supported" ([`crate::metrics`]).
//!
//! Three-way: the confusion matrix of gold labels against verdicts (supported, refuted, not
//! enough info) and its macro-averaged F1. Checks that could not decide count as not enough
//! info, and are also counted by reason. Then each method's own figures (LLM-Cite's URL
//! figures, corpus-NLI's share without evidence, CIBER's accuracy and macro-F1 under each
//! fusion rule and for plain RAG) and tokens per claim. For CIBER, [`Factdesk::tune_alpha`]
//! grid-searches α from the stored probe shares.

use factdesk_methods::figures::Figure;
use factdesk_model::{ClaimCheck, ClaimLabel, RunId, Undecided, Verdict};
use serde::Serialize;

use crate::metrics::{CALIBRATION_BINS, Scored, expected_calibration_error, roc_auc};
use crate::verify::{CheckSelection, Method};
use crate::{Factdesk, Result};

/// Evaluation figures. Rates are fractions in [0, 1]; `None` when undefined (no claims of
/// that kind).
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct Evaluation {
    pub collection: String,
    pub run_id: Option<RunId>,
    pub methods: Vec<String>,
    /// The NLI models behind the scored checks.
    pub nli_models: Vec<String>,
    pub claims: usize,
    pub labelled: usize,
    /// Labelled claims with a check (the ones scored).
    pub evaluated: usize,
    pub accuracy: Option<f64>,
    pub balanced_accuracy: Option<f64>,
    /// Supported among claims labelled supported.
    pub true_positive_rate: Option<f64>,
    /// Not supported among claims labelled refuted or not enough info.
    pub true_negative_rate: Option<f64>,
    /// How well P(supported) ranks supported above other claims.
    pub roc_auc: Option<f64>,
    /// Over 10 bins of P(supported).
    pub expected_calibration_error: Option<f64>,
    /// Of the claims not found supported, the share not labelled supported.
    pub not_supported_precision: Option<f64>,
    /// Of the claims not labelled supported, the share not found supported (the true negative
    /// rate).
    pub not_supported_recall: Option<f64>,
    /// Rows: gold labels; columns: verdicts, in [`Verdict::ALL`] order.
    pub confusion: Vec<ConfusionRow>,
    /// The mean over verdicts of F1 (gold label against verdict), over every verdict that is
    /// a gold label or a verdict of some scored claim: a method that never says "refuted" on
    /// a collection with refuted claims scores 0 on that class.
    pub macro_f1: Option<f64>,
    /// Scored checks that could not decide, per reason (all counted as not enough info).
    pub undecided: Vec<(Undecided, usize)>,
    /// Each method's own figures over its checks (e.g. LLM-Cite's URL figures), in the order
    /// of `methods`.
    pub figures: Vec<MethodFigures>,
    pub tokens_per_claim: TokensPerClaim,
}

/// The figures one method reports about its checks.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct MethodFigures {
    pub method: String,
    pub figures: Vec<Figure>,
}

#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct ConfusionRow {
    pub gold: ClaimLabel,
    pub verdicts: Vec<(Verdict, usize)>,
}

/// Mean tokens per checked claim: in all, and by purpose (the purposes of
/// [`factdesk_model::TokenUse`]).
#[derive(Debug, Clone, Default, Serialize, ts_rs::TS)]
pub struct TokensPerClaim {
    pub total: f64,
    pub purposes: Vec<PurposeTokens>,
}

/// Mean tokens per checked claim for one purpose (0 for claims whose check had no call of it).
#[derive(Debug, Clone, Default, Serialize, ts_rs::TS)]
pub struct PurposeTokens {
    pub purpose: String,
    pub prompt: f64,
    pub completion: f64,
}

/// The mean of the two rates; undefined unless both are (a collection with claims of one
/// kind only says nothing about the other, and one rate alone would read as balanced).
fn balanced_accuracy(
    true_positive_rate: Option<f64>,
    true_negative_rate: Option<f64>,
) -> Option<f64> {
    Some((true_positive_rate? + true_negative_rate?) / 2.0)
}

/// The figures `method` reports about its checks (none for a method with no figures of its
/// own, or one this version does not know).
fn method_figures(method: &str, checks: &[(&ClaimCheck, Option<ClaimLabel>)]) -> Vec<Figure> {
    match method.parse::<Method>() {
        Ok(method) => method.figures(checks),
        Err(_) => Vec::new(),
    }
}

/// The mean F1 over the verdicts that occur as a gold label or a verdict in `confusion`; none
/// when it holds no claim.
fn macro_f1(confusion: &[ConfusionRow]) -> Option<f64> {
    factdesk_methods::figures::macro_f1(|gold, verdict| {
        confusion
            .iter()
            .filter(|row| row.gold == gold)
            .flat_map(|row| row.verdicts.iter())
            .filter(|(v, _)| *v == verdict)
            .map(|(_, n)| *n)
            .sum()
    })
}

fn rate(numerator: usize, denominator: usize) -> Option<f64> {
    (denominator > 0).then(|| numerator as f64 / denominator as f64)
}

/// CIBER's α grid search over a labelled collection's checks.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct AlphaTuning {
    pub collection: String,
    /// Labelled claims whose selected check is a CIBER check.
    pub claims: usize,
    pub scores: Vec<factdesk_methods::ciber::AlphaScore>,
    /// Per rule, the α with the best macro-F1 (the smallest such α on a tie).
    pub best: Vec<factdesk_methods::ciber::AlphaScore>,
}

impl Factdesk {
    /// Grid-searches CIBER's α on the selected checks of `collection`: every rule's accuracy
    /// and macro-F1 at α = 0, 0.1, …, 1, fused again from the stored probe shares (no model
    /// call). Tune on a split kept for tuning; report figures from another.
    pub fn tune_alpha(&self, collection: &str, selection: &CheckSelection) -> Result<AlphaTuning> {
        use factdesk_methods::ciber::{ALPHA_GRID, AlphaScore, tune_alpha};
        // Each claim's newest CIBER check unless told otherwise: a newer check of another
        // method must not hide it.
        let selection = CheckSelection {
            method: Some(selection.method.unwrap_or(Method::Ciber)),
            run: selection.run,
        };
        let (claims, checks) = self.selected_checks(collection, &selection)?;
        let labelled: Vec<(&factdesk_model::ciber::CiberDetail, ClaimLabel)> = checks
            .iter()
            .filter_map(|stored| {
                let gold = claims
                    .iter()
                    .find(|claim| Some(claim.id) == stored.claim_id)
                    .and_then(|claim| claim.gold_label)?;
                Some((stored.check.ciber()?, gold))
            })
            .collect();
        if labelled.is_empty() {
            return Err(crate::CoreError::InvalidInput(format!(
                "'{collection}' has no labelled claim checked with CIBER; run `factdesk verify \
                 --collection {collection} --method ciber` on a labelled tuning collection first"
            )));
        }
        let scores = tune_alpha(&labelled, &ALPHA_GRID);
        let mut best: Vec<AlphaScore> = Vec::new();
        for score in &scores {
            let f1 = score.macro_f1.unwrap_or(-1.0);
            match best.iter_mut().find(|known| known.rule == score.rule) {
                Some(known) if known.macro_f1.unwrap_or(-1.0) < f1 => *known = score.clone(),
                Some(_) => {}
                None => best.push(score.clone()),
            }
        }
        Ok(AlphaTuning { collection: collection.to_owned(), claims: labelled.len(), scores, best })
    }

    /// Scores the newest check of each claim of `collection` that `selection` selects (of one
    /// method, of one run) against the gold labels.
    pub fn evaluate(&self, collection: &str, selection: &CheckSelection) -> Result<Evaluation> {
        let (claims, checks) = self.selected_checks(collection, selection)?;
        let run = selection.run;

        let mut evaluation = Evaluation {
            collection: collection.to_owned(),
            run_id: run,
            methods: Vec::new(),
            nli_models: Vec::new(),
            claims: claims.len(),
            labelled: claims.iter().filter(|claim| claim.gold_label.is_some()).count(),
            evaluated: 0,
            accuracy: None,
            balanced_accuracy: None,
            true_positive_rate: None,
            true_negative_rate: None,
            roc_auc: None,
            expected_calibration_error: None,
            not_supported_precision: None,
            not_supported_recall: None,
            confusion: [ClaimLabel::Supported, ClaimLabel::Refuted, ClaimLabel::NotEnoughInfo]
                .into_iter()
                .map(|gold| ConfusionRow {
                    gold,
                    verdicts: Verdict::ALL.iter().map(|verdict| (*verdict, 0)).collect(),
                })
                .collect(),
            macro_f1: None,
            undecided: Vec::new(),
            figures: Vec::new(),
            tokens_per_claim: TokensPerClaim::default(),
        };
        let (mut positives, mut true_positives, mut negatives, mut true_negatives) = (0, 0, 0, 0);
        let mut checked = 0usize;
        let mut scored: Vec<Scored> = Vec::new();
        for stored in &checks {
            let check = &stored.check;
            checked += 1;
            if !evaluation.methods.contains(&check.envelope.method) {
                evaluation.methods.push(check.envelope.method.clone());
            }
            if let Some(nli) = &check.envelope.nli_model
                && !evaluation.nli_models.contains(nli)
            {
                evaluation.nli_models.push(nli.clone());
            }
            let tokens = &mut evaluation.tokens_per_claim;
            tokens.total += check.envelope.tokens.total() as f64;
            for (purpose, count) in &check.envelope.tokens.0 {
                let position = tokens.purposes.iter().position(|known| &known.purpose == purpose);
                let index = position.unwrap_or_else(|| {
                    let purpose = PurposeTokens { purpose: purpose.clone(), ..Default::default() };
                    tokens.purposes.push(purpose);
                    tokens.purposes.len() - 1
                });
                tokens.purposes[index].prompt += count.prompt as f64;
                tokens.purposes[index].completion += count.completion as f64;
            }
            let gold = claims
                .iter()
                .find(|claim| Some(claim.id) == stored.claim_id)
                .and_then(|claim| claim.gold_label);
            let Some(gold) = gold else { continue };
            evaluation.evaluated += 1;
            if let Some(row) = evaluation.confusion.iter_mut().find(|row| row.gold == gold)
                && let Some(cell) = row.verdicts.iter_mut().find(|(v, _)| *v == check.verdict)
            {
                cell.1 += 1;
            }
            if let Some(reason) = check.undecided {
                match evaluation.undecided.iter_mut().find(|(seen, _)| *seen == reason) {
                    Some((_, count)) => *count += 1,
                    None => evaluation.undecided.push((reason, 1)),
                }
            }
            let verified = check.verdict == Verdict::Supported;
            let probability = match (verified, check.confidence) {
                (true, Some(confidence)) => confidence,
                (true, None) => 1.0,
                (false, Some(confidence)) => 1.0 - confidence,
                (false, None) => 0.0,
            };
            scored.push(Scored { supported: gold == ClaimLabel::Supported, probability });
            if gold == ClaimLabel::Supported {
                positives += 1;
                true_positives += usize::from(verified);
            } else {
                negatives += 1;
                true_negatives += usize::from(!verified);
            }
        }
        evaluation.accuracy = rate(true_positives + true_negatives, evaluation.evaluated);
        evaluation.true_positive_rate = rate(true_positives, positives);
        evaluation.true_negative_rate = rate(true_negatives, negatives);
        evaluation.balanced_accuracy =
            balanced_accuracy(evaluation.true_positive_rate, evaluation.true_negative_rate);
        // Precision and recall of "not supported" follow the verdicts, like the rates above;
        // the ranking and calibration figures use P(supported).
        evaluation.roc_auc = roc_auc(&scored);
        evaluation.expected_calibration_error =
            expected_calibration_error(&scored, CALIBRATION_BINS);
        let judged_not_supported = (positives - true_positives) + true_negatives;
        evaluation.not_supported_precision = rate(true_negatives, judged_not_supported);
        evaluation.not_supported_recall = evaluation.true_negative_rate;
        evaluation.macro_f1 = macro_f1(&evaluation.confusion);
        evaluation.figures = evaluation
            .methods
            .iter()
            .filter_map(|method| {
                let own: Vec<(&ClaimCheck, Option<ClaimLabel>)> = checks
                    .iter()
                    .filter(|stored| &stored.check.envelope.method == method)
                    .map(|stored| {
                        let gold = claims
                            .iter()
                            .find(|claim| Some(claim.id) == stored.claim_id)
                            .and_then(|claim| claim.gold_label);
                        (&stored.check, gold)
                    })
                    .collect();
                let figures = method_figures(method, &own);
                (!figures.is_empty()).then(|| MethodFigures { method: method.clone(), figures })
            })
            .collect();
        if checked > 0 {
            let tokens = &mut evaluation.tokens_per_claim;
            let n = checked as f64;
            tokens.total /= n;
            for purpose in &mut tokens.purposes {
                purpose.prompt /= n;
                purpose.completion /= n;
            }
        }
        Ok(evaluation)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn balanced_accuracy_needs_claims_of_both_kinds() {
        assert_eq!(balanced_accuracy(Some(1.0), Some(0.0)), Some(0.5));
        assert_eq!(balanced_accuracy(Some(0.75), Some(0.25)), Some(0.5));
        // Only true claims, all verified: 100% on them says nothing about false claims.
        assert_eq!(balanced_accuracy(Some(1.0), None), None);
        assert_eq!(balanced_accuracy(None, Some(1.0)), None);
        assert_eq!(balanced_accuracy(None, None), None);
    }

    fn confusion(rows: [[usize; 3]; 3]) -> Vec<ConfusionRow> {
        Verdict::ALL
            .iter()
            .zip(rows)
            .map(|(&gold, counts)| ConfusionRow {
                gold,
                verdicts: Verdict::ALL.iter().copied().zip(counts).collect(),
            })
            .collect()
    }

    #[test]
    fn macro_f1_averages_the_classes_that_occur() {
        // Perfect on two classes; the third occurs nowhere and is left out.
        assert_eq!(macro_f1(&confusion([[3, 0, 0], [0, 2, 0], [0, 0, 0]])), Some(1.0));
        // A two-way judge that says "not enough info" for every false claim: supported is
        // perfect (F1 1), refuted never said (F1 0), not enough info said wrongly (F1 0).
        assert_eq!(macro_f1(&confusion([[4, 0, 0], [0, 0, 4], [0, 0, 0]])), Some(1.0 / 3.0));
        // Supported: P 2/3, R 1/2 -> F1 4/7. Refuted: P 1/2, R 2/3 -> F1 4/7.
        let f1 = macro_f1(&confusion([[2, 2, 0], [1, 2, 0], [0, 0, 0]])).unwrap();
        assert!((f1 - 4.0 / 7.0).abs() < 1e-12, "{f1}");
        assert_eq!(macro_f1(&confusion([[0; 3]; 3])), None);
    }
}
