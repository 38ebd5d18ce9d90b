//! Figures a method reports about its own checks in an evaluation, beside the verdict figures
//! every method shares: LLM-Cite's URL figures, corpus-NLI's share of claims with no evidence.
//! Each method's module says which it reports (`figures(checks)`).

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
