//! The claim level: the claim's verdict under each rule from its documents' verdicts, its
//! probability of being supported, and α tuned against labelled claims from the stored shares.

use factdesk_model::Verdict;
use factdesk_model::ciber::{CiberDetail, CiberDocument, FusionRule, RuleVerdict, Stance};
use serde::Serialize;

use super::fusion;

/// The claim's probability of being supported under `rule`: the highest support score any
/// document reaches (WP's and WBU's as they are, WIG's divided by ln 3, meta's the mean of the
/// three), 0 with no documents.
pub fn support_probability(rule: FusionRule, documents: &[CiberDocument]) -> f64 {
    /// One rule's support score for one document, in [0, 1].
    fn support(document: &CiberDocument, rule: FusionRule) -> f64 {
        let scores = document.verdict(rule).and_then(|verdict| verdict.scores);
        match rule {
            FusionRule::Wig => scores.map_or(0.0, |s| s.support / fusion::LN_3),
            FusionRule::Wp | FusionRule::Wbu => scores.map_or(0.0, |s| s.support),
            FusionRule::Meta => {
                [FusionRule::Wp, FusionRule::Wig, FusionRule::Wbu]
                    .iter()
                    .map(|&rule| support(document, rule))
                    .sum::<f64>()
                    / 3.0
            }
        }
    }
    documents.iter().map(|document| support(document, rule)).fold(0.0, f64::max).clamp(0.0, 1.0)
}

/// The claim's verdict under `rule` from its documents' verdicts (the rule of the module
/// documentation), with the most confident supporting and refuting documents.
pub fn claim_verdict(
    rule: FusionRule,
    documents: &[CiberDocument],
) -> (RuleVerdict, Option<usize>, Option<usize>) {
    let strongest = |stance: Stance| {
        documents
            .iter()
            .enumerate()
            .filter_map(|(index, document)| document.verdict(rule).map(|v| (index, v)))
            .filter(|(_, verdict)| verdict.stance == stance)
            .fold(None, |best: Option<(usize, f64)>, (index, verdict)| match best {
                Some((_, confidence)) if confidence >= verdict.confidence => best,
                _ => Some((index, verdict.confidence)),
            })
    };
    let (support, refute, neutral) =
        (strongest(Stance::Support), strongest(Stance::Refute), strongest(Stance::Neutral));
    let neutral_confidence = neutral.map_or(0.0, |(_, confidence)| confidence);
    let (stance, confidence) = match (support, refute) {
        (Some((_, s)), Some((_, r))) if (s - r).abs() <= 1e-12 => {
            (Stance::Neutral, neutral_confidence)
        }
        (Some((_, s)), Some((_, r))) if s > r => (Stance::Support, s),
        (Some(_), Some((_, r))) => (Stance::Refute, r),
        (Some((_, s)), None) => (Stance::Support, s),
        (None, Some((_, r))) => (Stance::Refute, r),
        (None, None) => (Stance::Neutral, neutral_confidence),
    };
    (
        RuleVerdict { rule, stance, confidence, scores: None },
        support.map(|(index, _)| index),
        refute.map(|(index, _)| index),
    )
}

/// The claim's verdict under every rule had the checks used `alpha`: fused again from the
/// stored shares of each document, without asking the model.
pub fn with_alpha(detail: &CiberDetail, alpha: f64) -> Vec<RuleVerdict> {
    let documents: Vec<CiberDocument> = detail
        .documents
        .iter()
        .map(|document| CiberDocument {
            fusion: fusion::fuse(&document.agree, &document.conflict, alpha),
            ..document.clone()
        })
        .collect();
    FusionRule::ALL.iter().map(|&rule| claim_verdict(rule, &documents).0).collect()
}

/// How one rule scores on labelled claims at one α.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct AlphaScore {
    pub alpha: f64,
    pub rule: FusionRule,
    /// Three-way: the verdict equals the label.
    pub accuracy: Option<f64>,
    pub macro_f1: Option<f64>,
}

/// α from 0 to 1 in steps of 0.1.
pub const ALPHA_GRID: [f64; 11] = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0];

/// Every rule's accuracy and macro-F1 at each α of `grid` on labelled CIBER checks (the paper
/// picks α by grid search; do it on a tuning split, never on the one reported).
pub fn tune_alpha(labelled: &[(&CiberDetail, Verdict)], grid: &[f64]) -> Vec<AlphaScore> {
    let mut scores = Vec::new();
    for &alpha in grid {
        let verdicts: Vec<(Vec<RuleVerdict>, Verdict)> =
            labelled.iter().map(|(detail, gold)| (with_alpha(detail, alpha), *gold)).collect();
        for (index, &rule) in FusionRule::ALL.iter().enumerate() {
            let pairs: Vec<(Verdict, Verdict)> = verdicts
                .iter()
                .filter_map(|(rules, gold)| rules.get(index).map(|v| (*gold, v.stance.verdict())))
                .collect();
            let right = pairs.iter().filter(|(gold, said)| gold == said).count();
            let cell = |gold: Verdict, said: Verdict| {
                pairs.iter().filter(|pair| **pair == (gold, said)).count()
            };
            scores.push(AlphaScore {
                alpha,
                rule,
                accuracy: (!pairs.is_empty()).then(|| right as f64 / pairs.len() as f64),
                macro_f1: crate::figures::macro_f1(cell),
            });
        }
    }
    scores
}

#[cfg(test)]
mod tests {
    use factdesk_model::ciber::Masses;

    use super::*;

    fn document(verdicts: [(Stance, f64); 4]) -> CiberDocument {
        CiberDocument {
            source: 0,
            words: 10,
            truncated: false,
            probes: Vec::new(),
            agree: Masses::default(),
            conflict: Masses::default(),
            fusion: FusionRule::ALL
                .iter()
                .zip(verdicts)
                .map(|(&rule, (stance, confidence))| RuleVerdict {
                    rule,
                    stance,
                    confidence,
                    scores: None,
                })
                .collect(),
        }
    }

    #[test]
    fn the_claim_takes_the_most_confident_non_neutral_document() {
        use Stance::{Neutral as N, Refute as R, Support as S};
        let documents = vec![
            document([(S, 0.6), (S, 0.2), (S, 0.7), (S, 0.5)]),
            document([(R, 0.8), (N, 0.9), (R, 0.7), (R, 0.7)]),
            document([(N, 0.9), (N, 0.4), (N, 0.9), (N, 0.9)]),
        ];
        // WP: the refuting document (0.8) beats the supporting one (0.6).
        let (wp, support, refute) = claim_verdict(FusionRule::Wp, &documents);
        assert_eq!((wp.stance, wp.confidence, support, refute), (R, 0.8, Some(0), Some(1)));
        // WIG: one supporting document, the others neutral.
        let (wig, ..) = claim_verdict(FusionRule::Wig, &documents);
        assert_eq!((wig.stance, wig.confidence), (S, 0.2));
        // WBU: 0.7 against 0.7 decides nothing; the confidence is the neutral document's.
        let (wbu, support, refute) = claim_verdict(FusionRule::Wbu, &documents);
        assert_eq!((wbu.stance, wbu.confidence, support, refute), (N, 0.9, Some(0), Some(1)));
        // Every document neutral, and no documents at all.
        let neutral = vec![documents[2].clone()];
        assert_eq!(claim_verdict(FusionRule::Meta, &neutral).0.stance, N);
        let (none, support, refute) = claim_verdict(FusionRule::Meta, &[]);
        assert_eq!((none.stance, none.confidence, support, refute), (N, 0.0, None, None));
    }

    #[test]
    fn alpha_is_tuned_from_the_stored_shares() {
        // One document whose agreeing probes support the claim and whose contradicting probes
        // refute it: α decides.
        let document = CiberDocument {
            agree: Masses::new(0.8, 0.1, 0.1),
            conflict: Masses::new(0.1, 0.8, 0.1),
            ..document([(Stance::Neutral, 0.0); 4])
        };
        let detail = CiberDetail {
            rule: FusionRule::Wp,
            alpha: 0.5,
            documents: vec![document],
            claim: Vec::new(),
            strongest_support: None,
            strongest_refute: None,
            rag: None,
        };
        assert_eq!(with_alpha(&detail, 1.0)[0].stance, Stance::Support);
        assert_eq!(with_alpha(&detail, 0.0)[0].stance, Stance::Refute);
        let scores = tune_alpha(&[(&detail, Verdict::Supported)], &[0.0, 1.0]);
        assert_eq!(scores.len(), 2 * FusionRule::ALL.len());
        let wp = |alpha: f64| {
            scores.iter().find(|s| s.rule == FusionRule::Wp && s.alpha == alpha).unwrap().accuracy
        };
        assert_eq!((wp(0.0), wp(1.0)), (Some(0.0), Some(1.0)));
    }
}
