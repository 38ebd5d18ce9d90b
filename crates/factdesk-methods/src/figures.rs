//! Figures a method reports about its own checks in an evaluation, beside the verdict figures
//! every method shares: LLM-Cite's URL figures, corpus-NLI's share of claims with no evidence.
//! Each method's module says which it reports (`figures(checks)`).

use factdesk_model::Verdict;
use serde::Serialize;

/// One figure.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct Figure {
    /// A stable name, e.g. `invalid_url_rate`.
    pub key: &'static str,
    pub label: &'static str,
    /// None when undefined (a rate over nothing).
    pub value: Option<f64>,
    /// A share in [0, 1] rather than a count.
    pub rate: bool,
    /// What it counts, for people.
    pub note: &'static str,
}

impl Figure {
    pub fn count(key: &'static str, label: &'static str, value: usize, note: &'static str) -> Self {
        Figure { key, label, value: Some(value as f64), rate: false, note }
    }

    /// `numerator / denominator`, undefined over nothing.
    pub fn rate(
        key: &'static str,
        label: &'static str,
        numerator: usize,
        denominator: usize,
        note: &'static str,
    ) -> Self {
        let value = (denominator > 0).then(|| numerator as f64 / denominator as f64);
        Figure { key, label, value, rate: true, note }
    }
}

/// The mean F1 over the verdicts that occur as a gold label or a verdict, from `cell(gold,
/// said)`, the count of claims labelled `gold` that were given `said`; none when no claim
/// was. A class a method never gives, though claims carry it, scores 0.
pub fn macro_f1(cell: impl Fn(Verdict, Verdict) -> usize) -> Option<f64> {
    let scores: Vec<f64> = Verdict::ALL
        .iter()
        .filter_map(|&class| {
            let hits = cell(class, class);
            let gold: usize = Verdict::ALL.iter().map(|&v| cell(class, v)).sum();
            let said: usize = Verdict::ALL.iter().map(|&g| cell(g, class)).sum();
            if gold == 0 && said == 0 {
                return None;
            }
            // Precision and recall over an empty set count as 0, so F1 is 0 then.
            Some(if hits == 0 { 0.0 } else { 2.0 * hits as f64 / (gold + said) as f64 })
        })
        .collect();
    (!scores.is_empty()).then(|| scores.iter().sum::<f64>() / scores.len() as f64)
}
