//! Fitting SGSS's weights to pairwise preferences, and how well a set of weights agrees with
//! them, as "Plans for Evaluating Structured Generative Search Summaries" proposes. SGSS is
//! linear in its weights, so for two summaries ΔSGSS = w · (f(left) − f(right)) with f their
//! [`features`](super::features); logistic regression on those differences (linfa's, with no
//! intercept: which summary is shown on the left means nothing), one example per preference
//! label, estimates w with the chance that the left one is preferred as σ(ΔSGSS).
//!
//! The agreement rate of a pair is the share of its labels that agree with the sign of ΔSGSS
//! (a tie agrees with none); MAR is its mean over pairs.

use linfa::prelude::*;
use linfa_logistic::LogisticRegression;
use ndarray::{Array1, Array2};

use super::Weights;

/// One pair of summaries with the preference labels people (or a rule) gave it.
#[derive(Debug, Clone, PartialEq)]
pub struct Pair {
    pub left: [f64; 7],
    pub right: [f64; 7],
    /// Labels preferring the left summary.
    pub left_votes: usize,
    /// Labels preferring the right summary.
    pub right_votes: usize,
}

impl Pair {
    fn delta(&self) -> [f64; 7] {
        std::array::from_fn(|k| self.left[k] - self.right[k])
    }
}

/// The L2 penalty of the fit by default: small beside the number of labels, but it keeps the
/// weights finite when the labels are separable (an original always beats its degraded
/// variant).
pub const DEFAULT_ALPHA: f64 = 0.01;

/// Weights fitted by logistic regression on `pairs` with L2 penalty `alpha`. Each label is one
/// example; each example is also given mirrored (left and right swapped, the other answer), so
/// the fit cannot depend on the side a summary was shown on.
pub fn fit(pairs: &[Pair], alpha: f64) -> Result<Weights, String> {
    let mut rows: Vec<f64> = Vec::new();
    let mut targets: Vec<usize> = Vec::new();
    for pair in pairs {
        let delta = pair.delta();
        let mirrored = delta.map(|d| -d);
        for (votes, answer) in [(pair.left_votes, 1), (pair.right_votes, 0)] {
            for _ in 0..votes {
                rows.extend_from_slice(&delta);
                targets.push(answer);
                rows.extend_from_slice(&mirrored);
                targets.push(1 - answer);
            }
        }
    }
    if targets.is_empty() {
        return Err("no preference labels to fit the weights on".into());
    }
    if rows.iter().any(|value| !value.is_finite()) {
        return Err("a summary's features are not finite numbers".into());
    }
    let records = Array2::from_shape_vec((targets.len(), 7), rows)
        .map_err(|error| format!("the features do not form a table: {error}"))?;
    let dataset = Dataset::new(records, Array1::from(targets));
    let model = LogisticRegression::default()
        .alpha(alpha)
        .with_intercept(false)
        .max_iterations(1000)
        .fit(&dataset)
        .map_err(|error| format!("the logistic regression failed: {error}"))?;
    // linfa names either label positive; the weights are those of "left preferred" (1).
    let sign = if model.labels().pos.class == 1 { 1.0 } else { -1.0 };
    let params = model.params();
    Ok(Weights::from_array(std::array::from_fn(|k| sign * params[k])))
}

/// ΔSGSS of a pair under `weights`.
pub fn delta_sgss(pair: &Pair, weights: &Weights) -> f64 {
    pair.delta().iter().zip(weights.to_array()).map(|(d, w)| d * w).sum()
}

/// The share of the pair's labels that agree with the sign of ΔSGSS; `None` without labels.
pub fn agreement_rate(pair: &Pair, weights: &Weights) -> Option<f64> {
    let votes = pair.left_votes + pair.right_votes;
    if votes == 0 {
        return None;
    }
    let delta = delta_sgss(pair, weights);
    let agreeing = if delta > 0.0 {
        pair.left_votes
    } else if delta < 0.0 {
        pair.right_votes
    } else {
        0
    };
    Some(agreeing as f64 / votes as f64)
}

/// MAR: the mean agreement rate over the pairs that have labels; `None` if none has.
pub fn mean_agreement_rate(pairs: &[Pair], weights: &Weights) -> Option<f64> {
    let rates: Vec<f64> = pairs.iter().filter_map(|pair| agreement_rate(pair, weights)).collect();
    if rates.is_empty() { None } else { Some(rates.iter().sum::<f64>() / rates.len() as f64) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small seeded generator (xorshift64*), enough for synthetic data.
    struct Rng(u64);

    impl Rng {
        fn unit(&mut self) -> f64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    #[test]
    fn fitting_recovers_known_weights_from_synthetic_preferences() {
        let truth = Weights::from_array([2.0, 0.5, 1.0, 3.0, 4.0, 1.5, 2.5]);
        let mut rng = Rng(0x5eed);
        let mut pairs = Vec::new();
        for _ in 0..6000 {
            let left: [f64; 7] = std::array::from_fn(|_| rng.unit());
            let right: [f64; 7] = std::array::from_fn(|_| rng.unit());
            let mut pair = Pair { left, right, left_votes: 0, right_votes: 0 };
            let p_left = 1.0 / (1.0 + (-delta_sgss(&pair, &truth)).exp());
            if rng.unit() < p_left {
                pair.left_votes = 1;
            } else {
                pair.right_votes = 1;
            }
            pairs.push(pair);
        }
        let fitted = fit(&pairs, 1e-6).unwrap();
        for (k, (got, want)) in fitted.to_array().iter().zip(truth.to_array()).enumerate() {
            assert!((got - want).abs() < 0.35, "weight {k}: {got} against {want}: {fitted:?}");
        }
        // The fitted weights agree with the labels about as often as the true ones do.
        let fitted_mar = mean_agreement_rate(&pairs, &fitted).unwrap();
        let true_mar = mean_agreement_rate(&pairs, &truth).unwrap();
        assert!((fitted_mar - true_mar).abs() < 0.01, "{fitted_mar} vs {true_mar}");
        // Flat weights (all equal) agree less often than the fitted ones.
        let flat = mean_agreement_rate(&pairs, &Weights::from_array([1.0; 7])).unwrap();
        assert!(flat < fitted_mar, "{flat} vs {fitted_mar}");
    }

    #[test]
    fn separable_preferences_give_finite_weights_of_the_right_sign() {
        // The left summary is better on statement relevance only, and always preferred.
        let pairs: Vec<Pair> = (0..50)
            .map(|i| {
                let mut left = [0.5; 7];
                left[4] = 0.6 + i as f64 / 200.0;
                Pair { left, right: [0.5; 7], left_votes: 1, right_votes: 0 }
            })
            .collect();
        let fitted = fit(&pairs, DEFAULT_ALPHA).unwrap();
        let w = fitted.to_array();
        assert!(w.iter().all(|x| x.is_finite()), "{w:?}");
        assert!(w[4] > 1.0, "{w:?}");
        // Features that never differ get no weight.
        assert!(
            w.iter().enumerate().filter(|(k, _)| *k != 4).all(|(_, x)| x.abs() < 1e-9),
            "{w:?}"
        );
        assert_eq!(mean_agreement_rate(&pairs, &fitted), Some(1.0));
    }

    #[test]
    fn agreement_rates_are_worked_by_hand() {
        let weights = Weights::from_array([1.0; 7]);
        let mut left = [0.0; 7];
        left[0] = 1.0;
        let pair = Pair { left, right: [0.0; 7], left_votes: 2, right_votes: 1 };
        assert_eq!(agreement_rate(&pair, &weights), Some(2.0 / 3.0));
        // Swapped sides: ΔSGSS < 0 and the one right vote agrees.
        let swapped = Pair { left: [0.0; 7], right: left, ..pair.clone() };
        assert_eq!(agreement_rate(&swapped, &weights), Some(1.0 / 3.0));
        // A tie agrees with no label; a pair without labels has no rate.
        let tie = Pair { left, right: left, left_votes: 1, right_votes: 1 };
        assert_eq!(agreement_rate(&tie, &weights), Some(0.0));
        let none = Pair { left_votes: 0, right_votes: 0, ..pair.clone() };
        assert_eq!(agreement_rate(&none, &weights), None);
        let mar = mean_agreement_rate(&[pair, swapped, none], &weights).unwrap();
        assert!((mar - 0.5).abs() < 1e-12, "{mar}");
        assert_eq!(mean_agreement_rate(&[], &weights), None);
        assert!(fit(&[], DEFAULT_ALPHA).unwrap_err().contains("no preference labels"));
    }
}
