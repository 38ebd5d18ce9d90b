//! Fitting SGSS's weights to people's pairwise preferences between summaries, and their mean
//! agreement rate on the questions held out.

use std::path::{Path, PathBuf};

use factdesk_methods::sgss::{self, Labels, StructuredSummary, Weights};
use serde::{Deserialize, Serialize};

use super::labels::{SummaryLabels, convert_labels};
use super::{comps, read_json, read_summary};
use crate::{CoreError, Factdesk, Result};

/// Fitting SGSS's weights: what to fit on and how.
#[derive(Debug, Clone)]
pub struct FitRequest {
    /// The preference dataset (see [`Factdesk::fit_summary_weights`]).
    pub dataset: PathBuf,
    /// The share of questions held out to measure agreement (at least one question each side).
    pub test_share: f64,
    /// Seeds the split of questions.
    pub seed: u64,
    pub l_max: usize,
    /// The fit's L2 penalty.
    pub alpha: f64,
    /// Add the pairs "original preferred over its NoHeadings and NoSection1 variants".
    pub degraded: bool,
    /// Where to write the weights file (all or nothing).
    pub out: Option<PathBuf>,
}

/// What was fitted and how well it agrees with the labels.
#[derive(Debug, Clone, Serialize)]
pub struct FitReport {
    pub weights: Weights,
    pub dataset: String,
    pub seed: u64,
    pub test_share: f64,
    pub l_max: usize,
    pub alpha: f64,
    pub train: FitPart,
    pub test: FitPart,
    /// MAR of the fitted weights and of the reference ones, on each part.
    pub agreement: Vec<Agreement>,
    /// What could not be used as given (a question without Comp, unlabelled elements).
    pub notes: Vec<String>,
}

/// One side of the split.
#[derive(Debug, Clone, Serialize)]
pub struct FitPart {
    /// Question numbers (from 1, in the dataset's order).
    pub questions: Vec<usize>,
    /// Pairs with people's labels, and how many labels.
    pub pairs: usize,
    pub labels: usize,
    /// Pairs of a summary and one of its degraded variants.
    pub degraded_pairs: usize,
}

/// The mean agreement rate of one set of weights.
#[derive(Debug, Clone, Serialize)]
pub struct Agreement {
    /// "fitted", "default" or "equal".
    pub weights: String,
    /// MAR on the people's pairs of the training questions.
    pub train: Option<f64>,
    /// MAR on the people's pairs of the held-out questions.
    pub test: Option<f64>,
    /// MAR on the held-out questions' degraded pairs.
    pub test_degraded: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Dataset {
    questions: Vec<DatasetQuestion>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DatasetQuestion {
    #[serde(default)]
    question: Option<String>,
    summaries: Vec<DatasetSummary>,
    #[serde(default)]
    preferences: Vec<Preference>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DatasetSummary {
    file: PathBuf,
    #[serde(default)]
    labels: SummaryLabels,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Preference {
    left: usize,
    right: usize,
    votes: Vec<String>,
}

/// The pairs of one question.
struct QuestionPairs {
    people: Vec<sgss::fit::Pair>,
    degraded: Vec<sgss::fit::Pair>,
}

/// Question indices held out: `round(share · n)` of them, at least one and at most n − 1,
/// drawn by a Fisher–Yates shuffle seeded with `seed` (xorshift64*).
fn held_out(n: usize, share: f64, seed: u64) -> Vec<bool> {
    let mut order: Vec<usize> = (0..n).collect();
    let mut state = seed ^ 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    for i in (1..n).rev() {
        let j = (next() % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
    let count = ((share * n as f64).round() as usize).clamp(1, n.saturating_sub(1));
    let mut test = vec![false; n];
    for &index in &order[..count] {
        test[index] = true;
    }
    test
}

impl Factdesk {
    /// Fits SGSS's weights to pairwise preferences by logistic regression
    /// (`factdesk-methods` `sgss::fit`) on a share of the questions, and reports the mean
    /// agreement rate (MAR) of the fitted, the default and equal weights on the questions held
    /// out.
    ///
    /// The dataset (JSON; summary files relative to it): `{"questions": [{"question": …,
    /// "summaries": [{"file": "a.md", "labels": {…one entry of a labels file…}}],
    /// "preferences": [{"left": 1, "right": 2, "votes": ["left", "right", …]}]}]}`, summaries
    /// numbered from 1 within their question. With `degraded`, each summary is also preferred
    /// (one label) over its NoHeadings variant if a heading is labelled above 0, and over its
    /// NoSection1 variant if a statement of the first section is labelled relevant; a variant
    /// inherits the original's labels and Comp.
    pub fn fit_summary_weights(&self, request: &FitRequest) -> Result<FitReport> {
        let max_bytes = self.settings().import.max_file_bytes;
        let origin = request.dataset.display().to_string();
        let invalid = |message: String| CoreError::InvalidInput(format!("{origin}: {message}"));
        if !(request.test_share > 0.0 && request.test_share < 1.0) {
            return Err(CoreError::InvalidInput(format!(
                "the held-out share {} is not between 0 and 1",
                request.test_share
            )));
        }
        let dataset: Dataset = read_json(&request.dataset, max_bytes, "a preference dataset")?;
        if dataset.questions.len() < 2 {
            return Err(invalid(format!(
                "{} question(s): fitting holds questions out to measure agreement, so it needs \
                 two or more",
                dataset.questions.len()
            )));
        }
        let base = request.dataset.parent().unwrap_or(Path::new("."));
        let mut notes = Vec::new();
        let mut without_comp = Vec::new();
        let mut questions = Vec::new();
        for (q, question) in dataset.questions.iter().enumerate() {
            let place = format!(
                "question {}{}",
                q + 1,
                question.question.as_deref().map(|t| format!(" ({t})")).unwrap_or_default()
            );
            let summaries: Vec<StructuredSummary> = question
                .summaries
                .iter()
                .map(|s| read_summary(&base.join(&s.file), max_bytes))
                .collect::<Result<_>>()?;
            let mut labelled = Vec::new();
            let mut rows = Vec::new();
            for (n, given) in question.summaries.iter().enumerate() {
                let name = format!("{place} summary {} ({})", n + 1, given.file.display());
                let (labels, row) = convert_labels(n, &summaries, &given.labels, &name)?;
                let missing = sgss::experience(&summaries[n], &labels, &Weights::default()).missing;
                if !missing.is_empty() {
                    notes.push(format!(
                        "{name}: {} element(s) not labelled, counted 0",
                        missing.len()
                    ));
                }
                labelled.push(labels);
                rows.push(row);
            }
            let comp = comps(rows)?.unwrap_or_else(|| {
                without_comp.push(q + 1);
                vec![0.0; summaries.len()]
            });
            let features: Vec<[f64; 7]> = summaries
                .iter()
                .zip(&labelled)
                .zip(&comp)
                .map(|((summary, labels), &comp)| {
                    sgss::features(summary, labels, request.l_max, comp)
                })
                .collect();
            let mut people = Vec::new();
            for (p, preference) in question.preferences.iter().enumerate() {
                let pick = |number: usize, side: &str| {
                    number.checked_sub(1).and_then(|i| features.get(i)).copied().ok_or_else(|| {
                        invalid(format!(
                            "{place} preference {}: {side} is {number}; summaries are numbered \
                             1 to {}",
                            p + 1,
                            features.len()
                        ))
                    })
                };
                let mut pair = sgss::fit::Pair {
                    left: pick(preference.left, "left")?,
                    right: pick(preference.right, "right")?,
                    left_votes: 0,
                    right_votes: 0,
                };
                for vote in &preference.votes {
                    match vote.trim().to_ascii_lowercase().as_str() {
                        "left" => pair.left_votes += 1,
                        "right" => pair.right_votes += 1,
                        other => {
                            return Err(invalid(format!(
                                "{place} preference {}: '{other}' is no vote; use left or right",
                                p + 1
                            )));
                        }
                    }
                }
                people.push(pair);
            }
            let mut degraded = Vec::new();
            if request.degraded {
                for (n, (summary, labels)) in summaries.iter().zip(&labelled).enumerate() {
                    let some_heading = labels
                        .sections
                        .iter()
                        .any(|s| s.heading.iter().any(|g| g.is_some_and(|g| g > 0.0)));
                    let first_relevant = labels
                        .sections
                        .first()
                        .is_some_and(|s| s.relevance.iter().any(|g| g.is_some_and(|g| g > 0.0)));
                    let mut prefer = |(variant, variant_labels): (StructuredSummary, Labels)| {
                        degraded.push(sgss::fit::Pair {
                            left: features[n],
                            right: sgss::features(
                                &variant,
                                &variant_labels,
                                request.l_max,
                                comp[n],
                            ),
                            left_votes: 1,
                            right_votes: 0,
                        })
                    };
                    if some_heading {
                        prefer(summary.no_headings(labels));
                    }
                    if first_relevant {
                        prefer(summary.no_section_1(labels));
                    }
                }
            }
            questions.push(QuestionPairs { people, degraded });
        }
        if !without_comp.is_empty() {
            let numbers: Vec<String> = without_comp.iter().map(usize::to_string).collect();
            notes.push(format!(
                "question(s) {}: fewer than two summaries, or not every summary has pool labels; \
                 their Comp is 0",
                numbers.join(", ")
            ));
        }
        let test = held_out(questions.len(), request.test_share, request.seed);
        let part = |held: bool| {
            let chosen: Vec<&QuestionPairs> =
                questions.iter().zip(&test).filter(|(_, t)| **t == held).map(|(q, _)| q).collect();
            let people: Vec<sgss::fit::Pair> =
                chosen.iter().flat_map(|q| q.people.iter().cloned()).collect();
            let degraded: Vec<sgss::fit::Pair> =
                chosen.iter().flat_map(|q| q.degraded.iter().cloned()).collect();
            let summary = FitPart {
                questions: test
                    .iter()
                    .enumerate()
                    .filter(|(_, t)| **t == held)
                    .map(|(i, _)| i + 1)
                    .collect(),
                pairs: people.len(),
                labels: people.iter().map(|p| p.left_votes + p.right_votes).sum(),
                degraded_pairs: degraded.len(),
            };
            (people, degraded, summary)
        };
        let (train_people, train_degraded, train) = part(false);
        let (test_people, test_degraded, test_part) = part(true);
        let training: Vec<sgss::fit::Pair> =
            train_people.iter().chain(&train_degraded).cloned().collect();
        let weights = sgss::fit::fit(&training, request.alpha)
            .map_err(|message| invalid(format!("training questions: {message}")))?;
        let agreement = [
            ("fitted", weights),
            ("default", Weights::default()),
            ("equal", Weights::from_array([1.0; 7])),
        ]
        .into_iter()
        .map(|(name, w)| Agreement {
            weights: name.into(),
            train: sgss::fit::mean_agreement_rate(&train_people, &w),
            test: sgss::fit::mean_agreement_rate(&test_people, &w),
            test_degraded: sgss::fit::mean_agreement_rate(&test_degraded, &w),
        })
        .collect();
        let report = FitReport {
            weights,
            dataset: origin,
            seed: request.seed,
            test_share: request.test_share,
            l_max: request.l_max,
            alpha: request.alpha,
            train,
            test: test_part,
            agreement,
            notes,
        };
        if let Some(out) = &request.out {
            self.write_atomically(out, |file| {
                serde_json::to_writer_pretty(&mut *file, &report)
                    .map_err(|e| std::io::Error::other(e.to_string()))?;
                file.write_all(b"\n")?;
                Ok(())
            })?;
        }
        Ok(report)
    }
}
