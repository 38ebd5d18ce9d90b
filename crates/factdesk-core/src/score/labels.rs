//! A person's labels as the labels file gives them (words of the 3-point scale or grades),
//! turned into the grades SGSS scores with, with each summary's row of pool grades.

use factdesk_methods::sgss::{Labels, SectionLabels, StructuredSummary};
use serde::Deserialize;

use crate::{CoreError, Result};

#[derive(Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
pub(super) struct SummaryLabels {
    #[serde(default)]
    overview: OverviewLabels,
    #[serde(default)]
    sections: Vec<SectionLabelsFile>,
    #[serde(default)]
    pool: Option<Vec<Label>>,
}

#[derive(Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
struct OverviewLabels {
    sufficiency: Option<Label>,
    faithfulness: Option<Label>,
    representativeness: Option<Label>,
}

#[derive(Deserialize, Default, Clone)]
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
            Label::Word(word) => super::grade_of_word(word).ok_or_else(|| {
                format!(
                    "'{}' is no label; use {} or a grade from 0 to 1",
                    word.trim().to_ascii_lowercase(),
                    super::grade_words()
                )
            }),
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

/// One summary's labels as grades, and its row of pool grades (1 for its own sections, the
/// labels for the other summaries' sections, in their order) if it has pool labels.
pub(super) fn convert_labels(
    n: usize,
    summaries: &[StructuredSummary],
    given: &SummaryLabels,
    name: &str,
) -> Result<(Labels, Option<Vec<f64>>)> {
    let bad = |message: String| CoreError::InvalidInput(format!("labels of {name}: {message}"));
    let one = |label: &Option<Label>, what: &str| {
        label.as_ref().map(Label::grade).transpose().map_err(|e| bad(format!("{what}: {e}")))
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
            heading: grades(&section.heading, &what("heading for statement")).map_err(bad)?,
            relevance: grades(&section.relevance, &what("statement")).map_err(bad)?,
            faithfulness: grades(&section.faithfulness, &what("statement")).map_err(bad)?,
        });
    }
    let others: usize =
        summaries.iter().enumerate().filter(|(m, _)| *m != n).map(|(_, s)| s.sections.len()).sum();
    let row = match &given.pool {
        Some(pool) if pool.len() != others => {
            return Err(bad(format!(
                "pool has {} labels; the other summaries have {others} sections",
                pool.len()
            )));
        }
        Some(pool) => {
            let mut other = pool.iter().enumerate();
            let mut row = Vec::new();
            for (m, s) in summaries.iter().enumerate() {
                for _ in 0..s.sections.len() {
                    row.push(if m == n {
                        1.0
                    } else {
                        match other.next() {
                            Some((k, label)) => label
                                .grade()
                                .map_err(|e| bad(format!("pool label {}: {e}", k + 1)))?,
                            None => 0.0,
                        }
                    });
                }
            }
            Some(row)
        }
        None => None,
    };
    Ok((labels, row))
}
