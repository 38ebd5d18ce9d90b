//! Scoring structured summaries with SGSS (`factdesk-methods` `sgss`): summaries read from
//! Markdown or JSON files, labels given by a person in a JSON file, and per summary its
//! user-experience curve X(l), XUX, XUX_F, XUX_G, and — for two or more summaries of one
//! question with pool labels — Comp and SGSS. Labels by the chat model or the verifier, weight
//! fitting and the app's view are not here yet.
//!
//! The labels file: `{"weights": {…}?, "summaries": [one entry per summary, in order]}`, each
//! entry `{"overview": {"sufficiency", "faithfulness", "representativeness"}, "sections":
//! [{"heading": [per statement], "relevance": [...], "faithfulness": [...]}], "pool": [...]}`,
//! where a label is "perfectly", "partially", "not" or a number from 0 to 1, and `pool` grades
//! how relevant the summary is to each section of the other summaries, in their order.

use std::path::{Path, PathBuf};

use factdesk_methods::sgss::{self, Labels, SectionLabels, StructuredSummary, Weights};
use serde::{Deserialize, Serialize};

use crate::{CoreError, Factdesk, Result};

/// What to score.
#[derive(Debug, Clone)]
pub struct ScoreRequest {
    pub summaries: Vec<PathBuf>,
    pub labels: Option<PathBuf>,
    /// XUX counts at most this many lines (L_max).
    pub l_max: usize,
    /// XUX_G's chance that a reader stops after each line (geometric).
    pub stop: f64,
}

/// One summary's scores.
#[derive(Debug, Clone, Serialize)]
pub struct SummaryScore {
    pub file: String,
    pub lines: usize,
    /// X(l) for each line.
    pub x: Vec<f64>,
    pub xux: f64,
    pub xux_f: f64,
    pub xux_g: f64,
    pub comp: Option<f64>,
    pub sgss: Option<f64>,
    /// Elements without a label (counted 0).
    pub missing: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LabelsFile {
    #[serde(default)]
    weights: Option<Weights>,
    summaries: Vec<SummaryLabels>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct SummaryLabels {
    #[serde(default)]
    overview: OverviewLabels,
    #[serde(default)]
    sections: Vec<SectionLabelsFile>,
    #[serde(default)]
    pool: Option<Vec<Label>>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct OverviewLabels {
    sufficiency: Option<Label>,
    faithfulness: Option<Label>,
    representativeness: Option<Label>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct SectionLabelsFile {
    #[serde(default)]
    heading: Vec<Option<Label>>,
    #[serde(default)]
    relevance: Vec<Option<Label>>,
    #[serde(default)]
    faithfulness: Vec<Option<Label>>,
}

/// A label: a word of the 3-point scale or a grade.
#[derive(Deserialize, Clone)]
#[serde(untagged)]
enum Label {
    Word(String),
    Grade(f64),
}

impl Label {
    fn grade(&self) -> std::result::Result<f64, String> {
        match self {
            Label::Grade(g) if (0.0..=1.0).contains(g) => Ok(*g),
            Label::Grade(g) => Err(format!("the grade {g} is not between 0 and 1")),
            Label::Word(word) => match word.trim().to_ascii_lowercase().as_str() {
                "perfectly" => Ok(sgss::PERFECTLY),
                "partially" => Ok(sgss::PARTIALLY),
                "not" => Ok(sgss::NOT),
                other => Err(format!(
                    "'{other}' is no label; use perfectly, partially, not or a grade from 0 to 1"
                )),
            },
        }
    }
}

fn grades(list: &[Option<Label>], what: &str) -> std::result::Result<Vec<Option<f64>>, String> {
    list.iter()
        .enumerate()
        .map(|(i, label)| {
            label
                .as_ref()
                .map(Label::grade)
                .transpose()
                .map_err(|e| format!("{what} {}: {e}", i + 1))
        })
        .collect()
}

fn read_summary(path: &Path, max_bytes: u64) -> Result<StructuredSummary> {
    let origin = path.display().to_string();
    let bytes = crate::import::read_capped(path, max_bytes)
        .map_err(|message| CoreError::InvalidInput(format!("{origin}: {message}")))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| CoreError::InvalidInput(format!("{origin}: not UTF-8 text")))?;
    let is_json = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("json"));
    let parsed = if is_json {
        StructuredSummary::from_json(&text)
    } else {
        StructuredSummary::from_markdown(&text)
    };
    parsed.map_err(|error| CoreError::InvalidInput(format!("{origin}: {error}")))
}

impl Factdesk {
    /// Scores structured summaries (see the module documentation).
    pub fn score_summaries(&self, request: &ScoreRequest) -> Result<Vec<SummaryScore>> {
        if request.summaries.is_empty() {
            return Err(CoreError::InvalidInput("name one or more summary files".into()));
        }
        let max_bytes = self.settings().import.max_file_bytes;
        let summaries: Vec<StructuredSummary> = request
            .summaries
            .iter()
            .map(|path| read_summary(path, max_bytes))
            .collect::<Result<_>>()?;
        let file = match &request.labels {
            Some(path) => {
                let origin = path.display().to_string();
                let bytes = crate::import::read_capped(path, max_bytes)
                    .map_err(|message| CoreError::InvalidInput(format!("{origin}: {message}")))?;
                let parsed: LabelsFile = serde_json::from_slice(&bytes).map_err(|error| {
                    CoreError::InvalidInput(format!("{origin}: not a labels file: {error}"))
                })?;
                if parsed.summaries.len() != summaries.len() {
                    return Err(CoreError::InvalidInput(format!(
                        "{origin}: labels for {} summaries, but {} summary files given, in the \
                         same order",
                        parsed.summaries.len(),
                        summaries.len()
                    )));
                }
                parsed
            }
            None => LabelsFile {
                weights: None,
                summaries: summaries.iter().map(|_| SummaryLabels::default()).collect(),
            },
        };
        let weights = file.weights.unwrap_or_default();
        let mut scored = Vec::new();
        let mut pool_rows: Vec<Option<Vec<f64>>> = Vec::new();
        for (n, (summary, given)) in summaries.iter().zip(&file.summaries).enumerate() {
            let name = request.summaries[n].display().to_string();
            let bad =
                |message: String| CoreError::InvalidInput(format!("labels of {name}: {message}"));
            let one = |label: &Option<Label>, what: &str| {
                label
                    .as_ref()
                    .map(Label::grade)
                    .transpose()
                    .map_err(|e| bad(format!("{what}: {e}")))
            };
            let mut labels = Labels {
                overview_sufficiency: one(&given.overview.sufficiency, "overview sufficiency")?,
                overview_faithfulness: one(&given.overview.faithfulness, "overview faithfulness")?,
                overview_representativeness: one(
                    &given.overview.representativeness,
                    "overview representativeness",
                )?,
                sections: Vec::new(),
            };
            for (i, section) in given.sections.iter().enumerate() {
                let what = |part: &str| format!("section {} {part}", i + 1);
                labels.sections.push(SectionLabels {
                    heading: grades(&section.heading, &what("heading for statement"))
                        .map_err(bad)?,
                    relevance: grades(&section.relevance, &what("statement")).map_err(bad)?,
                    faithfulness: grades(&section.faithfulness, &what("statement")).map_err(bad)?,
                });
            }
            let experience = sgss::experience(summary, &labels, &weights);
            let stop = sgss::geometric(request.stop, experience.lines());
            // This summary's grades over the pooled sections: 1 for its own, labels for the rest.
            let others: usize = summaries
                .iter()
                .enumerate()
                .filter(|(m, _)| *m != n)
                .map(|(_, s)| s.sections.len())
                .sum();
            let row = match &given.pool {
                Some(pool) if pool.len() != others => {
                    return Err(bad(format!(
                        "pool has {} labels; the other summaries have {others} sections",
                        pool.len()
                    )));
                }
                Some(pool) => {
                    let mut other = pool.iter().map(Label::grade);
                    let mut row = Vec::new();
                    for (m, s) in summaries.iter().enumerate() {
                        for _ in 0..s.sections.len() {
                            row.push(if m == n {
                                1.0
                            } else {
                                other.next().transpose().map_err(bad)?.unwrap_or(0.0)
                            });
                        }
                    }
                    Some(row)
                }
                None => None,
            };
            pool_rows.push(row);
            scored.push(SummaryScore {
                file: name,
                lines: experience.lines(),
                xux: experience.xux(request.l_max),
                xux_f: experience.xux_f(),
                xux_g: experience.xux_g(&stop),
                x: experience.x.clone(),
                comp: None,
                sgss: None,
                missing: experience.missing,
            });
        }
        // Comp needs two or more summaries, each with sections and pool labels.
        if summaries.len() >= 2 && pool_rows.iter().all(Option::is_some) {
            let rows: Vec<Vec<f64>> = pool_rows.into_iter().flatten().collect();
            let comp = sgss::comp(&rows).map_err(CoreError::InvalidInput)?;
            for (score, comp) in scored.iter_mut().zip(comp) {
                score.comp = Some(comp);
                score.sgss = Some(sgss::sgss(score.xux, comp, &weights));
            }
        }
        Ok(scored)
    }
}
