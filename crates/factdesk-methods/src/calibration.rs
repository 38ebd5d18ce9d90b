//! Calibration of a trained verifier for the grounding rule's cumulative premises.
//!
//! The grounding rule judges a claim sentence against the premises s1, s1 s2, …, s1 … sl and
//! keeps the highest P(entailment) (`grounding`). Each longer premise is one more chance for
//! a false sentence to pass, and a small cross-encoder gives a long premise full of related
//! facts the benefit of the doubt: on the dev slice of HaluEval's summaries, the model's
//! P(entailment) on the longest premise ranked false summaries above true ones far more often
//! than on the first. So a verifier may ship weights that discount a premise by its size:
//!
//! ```text
//! P(supported) = σ(w_nli · logit(P_model(entailment)) − w_extra · (sentences in the premise − 1)
//!                  − w_missing · (share of the claim's content words the premise lacks) + bias)
//! ```
//!
//! fitted on the dev slice of the verifier's training range (`training/verifier/calibrate.py`)
//! and shipped beside the model as `calibration.json`. [`Calibrated`] wraps any [`Nli`], so
//! every method that judges premises (and the grounding rule's max over premises, min over
//! sentences) sees the calibrated probability; it adds no model call. A premise's sentences
//! are counted by segmenting it again with English rules (premises join sentences with
//! spaces, so this count is close to, not always exactly, the number joined); the weights
//! were fitted on counts made the same way. The share of missing words ([`missing_share`]) is
//! the lexical evidence the cross-encoder weighs too little: a claim that names a number, a
//! date or a thing its premise never mentions ("the rose family" against a page on the mallow
//! family) has a part the premise does not back, however related the rest. The calibration
//! never adds contradiction: what entailment loses goes to neutral.

use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use factdesk_llm::{LlmError, Nli, NliJudgement, NliPair, NliScores};

/// The file beside a model's weights that holds its calibration.
pub const CALIBRATION_FILE: &str = "calibration.json";

/// The weights of the calibration (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CalibrationWeights {
    /// Weight of the model's entailment logit.
    pub nli: f64,
    /// Logit taken off per premise sentence after the first.
    pub extra_sentence: f64,
    /// Logit taken off in proportion to the share of the claim's content words the premise
    /// lacks ([`missing_share`]); 0 in files fitted before it was a feature.
    #[serde(default)]
    pub missing_words: f64,
    pub bias: f64,
}

/// `calibration.json`: the weights and how they were fitted.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CalibrationFile {
    pub weights: CalibrationWeights,
    /// How the weights were fitted (for the record).
    #[serde(default)]
    pub fitted_on: String,
}

impl CalibrationWeights {
    /// Reads `calibration.json` in `folder`: `Ok(None)` when the folder has none, an error
    /// saying what is wrong with the file (the caller names it) when it cannot be read or
    /// holds anything but finite weights.
    pub fn load(folder: &Path) -> Result<Option<CalibrationWeights>, String> {
        let path = folder.join(CALIBRATION_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(error) => return Err(format!("cannot read it: {error}")),
        };
        let file: CalibrationFile = serde_json::from_str(&text).map_err(|error| {
            format!(
                "it is not a calibration file ({{\"weights\": {{\"nli\", \"extra_sentence\", \
                 \"missing_words\" (optional), \"bias\"}}}}): {error}"
            )
        })?;
        let weights = file.weights;
        let all = [weights.nli, weights.extra_sentence, weights.missing_words, weights.bias];
        if !all.iter().all(|w| w.is_finite()) {
            return Err("it holds a weight that is not a finite number".into());
        }
        if weights.nli <= 0.0 {
            return Err(format!(
                "its weight nli is {}, but it must be positive (otherwise it reverses the model's \
                 judgement)",
                weights.nli
            ));
        }
        Ok(Some(weights))
    }

    /// The calibrated P(supported) from the model's P(entailment) on a premise of
    /// `sentences` sentences that lacks the share `missing` of the claim's content words.
    pub fn apply(&self, entailment: f64, sentences: usize, missing: f64) -> f64 {
        // A model output that is not a number counts as no entailment.
        let entailment = if entailment.is_nan() { 0.0 } else { entailment };
        let clamped = entailment.clamp(1e-6, 1.0 - 1e-6);
        let logit = (clamped / (1.0 - clamped)).ln();
        let extra = sentences.saturating_sub(1) as f64;
        let missing = if missing.is_finite() { missing.clamp(0.0, 1.0) } else { 0.0 };
        let x = self.nli * logit - self.extra_sentence * extra - self.missing_words * missing
            + self.bias;
        1.0 / (1.0 + (-x).exp())
    }
}

/// The share of `claim`'s distinct terms (its words and numbers without function words, with
/// a light English suffix strip: the terms BM25 ranks sentences by, [`crate::bm25_terms`]) that
/// `premise` does not hold; 0 for a claim without terms.
pub fn missing_share(premise: &str, claim: &str) -> f64 {
    let (held, wanted) = terms_held(premise, claim);
    if wanted == 0 { 0.0 } else { (wanted - held) as f64 / wanted as f64 }
}

/// How many of `claim`'s distinct terms (as [`missing_share`] counts them) `premise` holds, and
/// how many there are.
pub fn terms_held(premise: &str, claim: &str) -> (usize, usize) {
    let mut wanted = crate::bm25_terms(claim);
    wanted.sort_unstable();
    wanted.dedup();
    let held: std::collections::HashSet<String> = crate::bm25_terms(premise).into_iter().collect();
    (wanted.iter().filter(|term| held.contains(*term)).count(), wanted.len())
}

/// How many sentences `premise` joins (at least 1).
pub fn premise_sentences(premise: &str) -> usize {
    factdesk_text::segment_sentences(premise, "en")
        .iter()
        .filter(|span| span.slice(premise).chars().any(char::is_alphanumeric))
        .count()
        .max(1)
}

/// `model` as loaded from `folder`, calibrated when the folder ships `calibration.json`; an
/// error says what is wrong with that file (the caller names it).
pub fn with_shipped_calibration(
    model: Arc<dyn Nli>,
    folder: &Path,
) -> Result<Arc<dyn Nli>, String> {
    Ok(match CalibrationWeights::load(folder)? {
        Some(weights) => Arc::new(Calibrated::new(model, weights)),
        None => model,
    })
}

/// An NLI judge whose entailment is calibrated for the premise's size. Reports the inner
/// judge's name: the weights belong to the model they were fitted for and ship in its folder.
pub struct Calibrated {
    inner: Arc<dyn Nli>,
    weights: CalibrationWeights,
}

impl Calibrated {
    pub fn new(inner: Arc<dyn Nli>, weights: CalibrationWeights) -> Calibrated {
        Calibrated { inner, weights }
    }

    pub fn weights(&self) -> CalibrationWeights {
        self.weights
    }
}

impl std::fmt::Debug for Calibrated {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Calibrated")
            .field("inner", &self.inner.name())
            .field("weights", &self.weights)
            .finish()
    }
}

#[async_trait]
impl Nli for Calibrated {
    fn name(&self) -> String {
        self.inner.name()
    }

    fn reads(&self, language: &str) -> bool {
        self.inner.reads(language)
    }

    async fn classify(&self, pairs: &[NliPair]) -> Result<Vec<NliJudgement>, LlmError> {
        let judgements = self.inner.classify(pairs).await?;
        Ok(pairs
            .iter()
            .zip(judgements)
            .map(|(pair, judgement)| {
                let scores = judgement.scores;
                // The share of missing terms costs two tokenisations: only when it counts.
                let missing = if self.weights.missing_words == 0.0 {
                    0.0
                } else {
                    missing_share(&pair.premise, &pair.hypothesis)
                };
                let entailment = self.weights.apply(
                    scores.entailment,
                    premise_sentences(&pair.premise),
                    missing,
                );
                // Contradiction stays as the model said (less, where entailment grew into
                // it); the rest is neutral.
                let contradiction = if scores.contradiction.is_finite() {
                    scores.contradiction.clamp(0.0, 1.0 - entailment)
                } else {
                    0.0
                };
                NliJudgement {
                    scores: NliScores::normalised(
                        entailment,
                        (1.0 - entailment - contradiction).max(0.0),
                        contradiction,
                    ),
                    ..judgement
                }
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use factdesk_llm::TokenUsage;

    /// Entailment 0.8, neutral 0.15, contradiction 0.05 for every pair.
    struct Constant;

    #[async_trait]
    impl Nli for Constant {
        fn name(&self) -> String {
            "constant".into()
        }
        async fn classify(&self, pairs: &[NliPair]) -> Result<Vec<NliJudgement>, LlmError> {
            Ok(pairs
                .iter()
                .map(|_| NliJudgement {
                    scores: NliScores::normalised(0.8, 0.15, 0.05),
                    usage: TokenUsage::default(),
                })
                .collect())
        }
    }

    fn pair(premise: &str, hypothesis: &str) -> NliPair {
        NliPair { premise: premise.into(), hypothesis: hypothesis.into() }
    }

    #[test]
    fn a_premise_counts_the_sentences_it_joins() {
        assert_eq!(premise_sentences("Okra is a plant."), 1);
        assert_eq!(
            premise_sentences("Okra is a plant. It grows in warm regions. Its pods are green."),
            3
        );
        // A premise cut in mid-sentence, or empty, still counts as one.
        assert_eq!(premise_sentences("okra is a plant grown in"), 1);
        assert_eq!(premise_sentences(""), 1);
    }

    #[test]
    fn calibration_with_unit_weight_and_no_discount_is_the_model() {
        let identity =
            CalibrationWeights { nli: 1.0, extra_sentence: 0.0, missing_words: 0.0, bias: 0.0 };
        for p in [0.01, 0.3, 0.5, 0.9] {
            assert!((identity.apply(p, 3, 0.0) - p).abs() < 1e-9);
        }
        let weights =
            CalibrationWeights { nli: 1.2, extra_sentence: 1.0, missing_words: 0.0, bias: 0.5 };
        // Each sentence after the first takes w_extra off the logit.
        let logit = |p: f64| (p / (1.0 - p)).ln();
        assert!(
            (logit(weights.apply(0.9, 1, 0.0)) - logit(weights.apply(0.9, 3, 0.0)) - 2.0).abs()
                < 1e-9
        );
        assert!(weights.apply(0.9, 1, 0.0) > weights.apply(0.6, 1, 0.0));
        // Extreme model outputs stay strictly between 0 and 1; not a number is no entailment.
        assert!(weights.apply(1.0, 1, 0.0) < 1.0 && weights.apply(0.0, 4, 0.0) > 0.0);
        assert_eq!(weights.apply(f64::NAN, 2, 0.0), weights.apply(0.0, 2, 0.0));
    }

    #[tokio::test]
    async fn calibrated_judgements_discount_longer_premises_and_never_add_contradiction() {
        let weights =
            CalibrationWeights { nli: 1.0, extra_sentence: 1.0, missing_words: 0.0, bias: 0.0 };
        let calibrated = Calibrated::new(Arc::new(Constant), weights);
        assert_eq!(calibrated.name(), "constant");
        let pairs = [
            pair("Okra belongs to the mallow family.", "Okra is a mallow."),
            pair(
                "Okra belongs to the mallow family. Cotton does too. Both like heat.",
                "Okra is a mallow.",
            ),
        ];
        let out = calibrated.classify(&pairs).await.unwrap();
        let (short, long) = (out[0].scores, out[1].scores);
        assert!((short.entailment - 0.8).abs() < 1e-9);
        assert!((long.entailment - weights.apply(0.8, 3, 0.0)).abs() < 1e-9);
        assert!(long.entailment < short.entailment);
        for scores in [short, long] {
            let total = scores.entailment + scores.neutral + scores.contradiction;
            assert!((total - 1.0).abs() < 1e-9);
            // What entailment lost went to neutral, not to contradiction.
            assert!((scores.contradiction - 0.05).abs() < 1e-9, "{scores:?}");
        }
        // Entailment raised past 1 - contradiction takes contradiction down with it.
        let eager = Calibrated::new(
            Arc::new(Constant),
            CalibrationWeights { nli: 1.0, extra_sentence: 0.0, missing_words: 0.0, bias: 5.0 },
        );
        let raised = eager.classify(&pairs[..1]).await.unwrap()[0].scores;
        assert!(raised.entailment > 0.99 && raised.contradiction <= 1.0 - raised.entailment);
        assert!(raised.neutral >= 0.0);
    }

    #[test]
    fn missing_words_are_the_claim_s_terms_the_premise_lacks() {
        let page = "Okra is a flowering plant in the mallow family. Its seed pods are green.";
        // Terms okra, belong, mallow, famil: "belong" is missing, then "rose" too.
        assert_eq!(missing_share(page, "Okra belongs to the mallow family."), 0.25);
        assert_eq!(missing_share(page, "Okra belongs to the rose family."), 0.5);
        let everest = "Hillary and Tenzing climbed Everest in 1953.";
        assert_eq!(missing_share(everest, "Everest was climbed in 1953."), 0.0);
        assert_eq!(missing_share(everest, "Everest was climbed in 1921."), 1.0 / 3.0);
        assert_eq!(missing_share("Many families grow it.", "Families grow."), 0.0);
        // No terms, nothing missing; any script.
        assert_eq!(missing_share("anything", "It is."), 0.0);
        assert_eq!(missing_share("", ""), 0.0);
        assert_eq!(
            missing_share("Η Αθήνα είναι η πρωτεύουσα.", "Η Αθήνα είναι η πρωτεύουσα."),
            0.0
        );
        let weights =
            CalibrationWeights { nli: 1.0, extra_sentence: 0.0, missing_words: 4.0, bias: 0.0 };
        assert!(weights.apply(0.9, 1, 0.5) < weights.apply(0.9, 1, 0.25));
        assert_eq!(weights.apply(0.9, 1, f64::NAN), weights.apply(0.9, 1, 0.0));
    }

    #[test]
    fn calibration_files_load_and_bad_ones_say_why() {
        let folder = tempfile::tempdir().unwrap();
        assert_eq!(CalibrationWeights::load(folder.path()).unwrap(), None);
        let path = folder.path().join(CALIBRATION_FILE);
        std::fs::write(
            &path,
            r#"{"weights": {"nli": 0.9, "extra_sentence": 1.5, "bias": -0.5}, "fitted_on": "x"}"#,
        )
        .unwrap();
        assert_eq!(
            CalibrationWeights::load(folder.path()).unwrap(),
            Some(CalibrationWeights {
                nli: 0.9,
                extra_sentence: 1.5,
                missing_words: 0.0,
                bias: -0.5
            })
        );
        std::fs::write(&path, r#"{"weights": {"nli": 1.0}}"#).unwrap();
        let error = CalibrationWeights::load(folder.path()).unwrap_err();
        assert!(error.contains("not a calibration file") && error.contains("extra_sentence"));
        std::fs::write(&path, "not json").unwrap();
        assert!(CalibrationWeights::load(folder.path()).unwrap_err().contains("not a calibration"));
        std::fs::write(&path, r#"{"weights": {"nli": -1.0, "extra_sentence": 1.0, "bias": 0}}"#)
            .unwrap();
        assert!(CalibrationWeights::load(folder.path()).unwrap_err().contains("positive"));
    }
}
