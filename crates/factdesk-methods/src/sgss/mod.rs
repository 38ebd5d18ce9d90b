//! Scoring structured summaries, as "Plans for Evaluating Structured Generative Search
//! Summaries" defines SGSS (a reader reads the overview first, then the sections line by line,
//! and may stop at any line): the structured summary and its parser ([`summary`]), and the
//! measures:
//!
//! - lines: the overview is line 1, then each heading and each statement is one line;
//!   L = 1 + I + Σ J_i and L' = min(L, L_max);
//! - OQ = w_OS·OS + w_OF·OF + w_OR·OR (overview sufficiency, faithfulness, representativeness);
//! - X'(l) is OQ plus w_HR·Σ HR(headings at lines ≤ l), w_SRel·Σ SRel(statements ≤ l) and
//!   w_SF·Σ SF(statements ≤ l); X(l) = X'(l) / l; HR(h_i) is the mean over the section's
//!   statements of how well the heading represents each;
//! - XUX = (1/L')·Σ_{l ≤ L'} X(l): the reader stops at a line chosen uniformly; XUX_F
//!   averages X(l) over the lines that end the overview or a section; XUX_G weighs each line by
//!   any distribution of where readers stop ([`geometric`] gives the geometric one);
//! - Comp = 1 − JSD(F, U) over the sections pooled from several summaries of one question
//!   ([`comp`]); SGSS = XUX + w_Comp·Comp.
//!
//! Labels are 3-point (perfectly / partially / not → 1 / 0.5 / 0 by default). An element
//! without a label counts 0, and [`Scored::missing`] names it, so a partly labelled summary is
//! scored for what is labelled and says what is not.

pub mod fit;
pub mod label;
pub mod summary;

use serde::{Deserialize, Serialize};

pub use summary::{Section, Statement, StructuredSummary, SummaryError};

/// The weight of each component. The defaults keep every line's contribution at most 1 (the
/// overview's three labels share 1, a statement's two share 1), so XUX stays within [0, 1].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Weights {
    pub overview_sufficiency: f64,
    pub overview_faithfulness: f64,
    pub overview_representativeness: f64,
    pub heading_representativeness: f64,
    pub statement_relevance: f64,
    pub statement_faithfulness: f64,
    pub comp: f64,
}

impl Default for Weights {
    fn default() -> Self {
        Weights {
            overview_sufficiency: 1.0 / 3.0,
            overview_faithfulness: 1.0 / 3.0,
            overview_representativeness: 1.0 / 3.0,
            heading_representativeness: 1.0,
            statement_relevance: 0.5,
            statement_faithfulness: 0.5,
            comp: 1.0,
        }
    }
}

impl Weights {
    /// The weights in [`FEATURES`] order.
    pub fn to_array(&self) -> [f64; 7] {
        [
            self.overview_sufficiency,
            self.overview_faithfulness,
            self.overview_representativeness,
            self.heading_representativeness,
            self.statement_relevance,
            self.statement_faithfulness,
            self.comp,
        ]
    }

    /// Weights from an array in [`FEATURES`] order.
    pub fn from_array(w: [f64; 7]) -> Weights {
        Weights {
            overview_sufficiency: w[0],
            overview_faithfulness: w[1],
            overview_representativeness: w[2],
            heading_representativeness: w[3],
            statement_relevance: w[4],
            statement_faithfulness: w[5],
            comp: w[6],
        }
    }
}

/// The names of SGSS's features, one per weight, in the order of [`features`] and
/// [`Weights::to_array`].
pub const FEATURES: [&str; 7] = [
    "overview_sufficiency",
    "overview_faithfulness",
    "overview_representativeness",
    "heading_representativeness",
    "statement_relevance",
    "statement_faithfulness",
    "comp",
];

/// SGSS split into the features its weights multiply: X(l) is linear in the six label weights,
/// so XUX (over L' = min(L, `l_max`) lines) is the sum over label kinds of that kind's weight
/// times the XUX computed with that weight 1 and the others 0; the seventh feature is Comp.
/// `features(..) · weights.to_array()` is SGSS.
pub fn features(summary: &StructuredSummary, labels: &Labels, l_max: usize, comp: f64) -> [f64; 7] {
    let mut out = [0.0; 7];
    for (k, value) in out.iter_mut().enumerate().take(6) {
        let mut one = [0.0; 7];
        one[k] = 1.0;
        *value = experience(summary, labels, &Weights::from_array(one)).xux(l_max);
    }
    out[6] = comp;
    out
}

/// Labels of one summary's elements, as graded scores in [0, 1]; `None` where nobody labelled.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Labels {
    pub overview_sufficiency: Option<f64>,
    pub overview_faithfulness: Option<f64>,
    pub overview_representativeness: Option<f64>,
    /// Per section: the heading's representativeness of each of its statements, and each
    /// statement's relevance and faithfulness (each list as long as the section's statements).
    pub sections: Vec<SectionLabels>,
}

/// The labels of one section.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SectionLabels {
    pub heading: Vec<Option<f64>>,
    pub relevance: Vec<Option<f64>>,
    pub faithfulness: Vec<Option<f64>>,
}

/// The 3-point scale's grades.
pub const PERFECTLY: f64 = 1.0;
pub const PARTIALLY: f64 = 0.5;
pub const NOT: f64 = 0.0;

/// The user experience at each line and what was not labelled.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scored {
    /// X(l) for l = 1..=L.
    pub x: Vec<f64>,
    /// The lines that end the overview or a section (1-based), for XUX_F.
    pub section_ends: Vec<usize>,
    /// Elements without a label (counted as 0), e.g. "overview sufficiency", "section 2
    /// statement 1 faithfulness".
    pub missing: Vec<String>,
}

impl Scored {
    /// L, the summary's lines.
    pub fn lines(&self) -> usize {
        self.x.len()
    }

    /// XUX with the reader stopping at a line drawn uniformly from the first L' = min(L,
    /// `l_max`) lines.
    pub fn xux(&self, l_max: usize) -> f64 {
        let cut = self.x.len().min(l_max.max(1));
        if cut == 0 {
            return 0.0;
        }
        self.x[..cut].iter().sum::<f64>() / cut as f64
    }

    /// XUX_F: the reader stops only where the overview or a section ends, each equally likely.
    pub fn xux_f(&self) -> f64 {
        if self.section_ends.is_empty() {
            return 0.0;
        }
        let ends: Vec<f64> = self
            .section_ends
            .iter()
            .filter_map(|&line| line.checked_sub(1).and_then(|index| self.x.get(index)))
            .copied()
            .collect();
        if ends.is_empty() {
            return 0.0;
        }
        ends.iter().sum::<f64>() / ends.len() as f64
    }

    /// XUX_G: the reader stops at line l with probability `stop[l - 1]` (normalised over the
    /// summary's lines; a shorter list gives the lines past it nothing).
    pub fn xux_g(&self, stop: &[f64]) -> f64 {
        let weights: Vec<f64> =
            (0..self.x.len()).map(|i| stop.get(i).copied().unwrap_or(0.0).max(0.0)).collect();
        let total: f64 = weights.iter().sum();
        if total <= 0.0 {
            return 0.0;
        }
        weights.iter().zip(&self.x).map(|(w, x)| w * x).sum::<f64>() / total
    }
}

/// A geometric distribution of where readers stop over `lines` lines: P(l) ∝ (1 − p)^(l−1)·p
/// (p the chance of stopping after each line).
pub fn geometric(p: f64, lines: usize) -> Vec<f64> {
    let p = p.clamp(f64::EPSILON, 1.0);
    (0..lines).map(|i| (1.0 - p).powi(i as i32) * p).collect()
}

/// X(l) at every line of `summary` under `labels` and `weights`.
pub fn experience(summary: &StructuredSummary, labels: &Labels, weights: &Weights) -> Scored {
    let mut missing = Vec::new();
    let mut get = |value: Option<f64>, name: String| {
        value.unwrap_or_else(|| {
            missing.push(name);
            0.0
        })
    };
    let overview = weights.overview_sufficiency
        * get(labels.overview_sufficiency, "overview sufficiency".into())
        + weights.overview_faithfulness
            * get(labels.overview_faithfulness, "overview faithfulness".into())
        + weights.overview_representativeness
            * get(labels.overview_representativeness, "overview representativeness".into());
    let mut running = overview;
    let mut x = vec![overview];
    let mut section_ends = vec![1];
    let empty = SectionLabels::default();
    for (i, section) in summary.sections.iter().enumerate() {
        let own = labels.sections.get(i).unwrap_or(&empty);
        let label = |list: &Vec<Option<f64>>, j: usize| list.get(j).copied().flatten();
        // HR(h_i): the mean over the section's statements of how well the heading represents
        // each; a section without statements has a heading that represents nothing.
        let heading: Vec<f64> = (0..section.statements.len())
            .map(|j| {
                get(
                    label(&own.heading, j),
                    format!("section {} heading for statement {}", i + 1, j + 1),
                )
            })
            .collect();
        let hr = if heading.is_empty() {
            0.0
        } else {
            heading.iter().sum::<f64>() / heading.len() as f64
        };
        running += weights.heading_representativeness * hr;
        x.push(running);
        for j in 0..section.statements.len() {
            let relevance = get(
                label(&own.relevance, j),
                format!("section {} statement {} relevance", i + 1, j + 1),
            );
            let faithfulness = get(
                label(&own.faithfulness, j),
                format!("section {} statement {} faithfulness", i + 1, j + 1),
            );
            running += weights.statement_relevance * relevance
                + weights.statement_faithfulness * faithfulness;
            x.push(running);
        }
        section_ends.push(x.len());
    }
    let x = x.into_iter().enumerate().map(|(i, value)| value / (i + 1) as f64).collect();
    Scored { x, section_ends, missing }
}

/// Comprehensiveness of each of N ≥ 2 summaries of one question: `grades[n][k]` is how
/// relevant summary n is to pooled section k (1 for its own sections, else a label), each
/// summary's row normalised into a distribution F^n and compared with the uniform one:
/// Comp = 1 − JSD(F^n, U), with base-2 logarithms. A summary relevant to no pooled section
/// scores 0.
pub fn comp(grades: &[Vec<f64>]) -> Result<Vec<f64>, String> {
    if grades.len() < 2 {
        return Err(format!(
            "comprehensiveness compares several summaries of one question; {} given",
            grades.len()
        ));
    }
    let k = grades[0].len();
    if k == 0 || grades.iter().any(|row| row.len() != k) {
        return Err("every summary needs a grade for each pooled section".into());
    }
    let uniform = vec![1.0 / k as f64; k];
    Ok(grades
        .iter()
        .map(|row| {
            let total: f64 = row.iter().map(|g| g.max(0.0)).sum();
            if total <= 0.0 {
                return 0.0;
            }
            let f: Vec<f64> = row.iter().map(|g| g.max(0.0) / total).collect();
            1.0 - jensen_shannon(&f, &uniform)
        })
        .collect())
}

/// The Jensen–Shannon divergence of two distributions, base 2 (0 to 1).
fn jensen_shannon(p: &[f64], q: &[f64]) -> f64 {
    let m: Vec<f64> = p.iter().zip(q).map(|(a, b)| (a + b) / 2.0).collect();
    let kl = |x: &[f64]| -> f64 {
        x.iter().zip(&m).filter(|(a, _)| **a > 0.0).map(|(a, b)| a * (a / b).log2()).sum()
    };
    (kl(p) + kl(q)) / 2.0
}

/// SGSS = XUX + w_Comp·Comp.
pub fn sgss(xux: f64, comp: f64, weights: &Weights) -> f64 {
    xux + weights.comp * comp
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(sections: &[usize]) -> StructuredSummary {
        StructuredSummary {
            overview: "Overview.".into(),
            overview_citations: Vec::new(),
            sections: sections
                .iter()
                .enumerate()
                .map(|(i, &n)| Section {
                    heading: format!("Section {}", i + 1),
                    statements: (0..n)
                        .map(|j| Statement {
                            text: format!("Statement {j}."),
                            citations: Vec::new(),
                        })
                        .collect(),
                })
                .collect(),
        }
    }

    /// The paper's Figure 3 weights: OS, HR and SRel count 1, the rest 0.
    fn figure_3_weights() -> Weights {
        Weights {
            overview_sufficiency: 1.0,
            overview_faithfulness: 0.0,
            overview_representativeness: 0.0,
            heading_representativeness: 1.0,
            statement_relevance: 1.0,
            statement_faithfulness: 0.0,
            comp: 1.0,
        }
    }

    fn labels(sections: &[f64]) -> Labels {
        Labels {
            overview_sufficiency: Some(1.0),
            overview_faithfulness: Some(0.0),
            overview_representativeness: Some(0.0),
            sections: sections
                .iter()
                .map(|&g| SectionLabels {
                    heading: vec![Some(g)],
                    relevance: vec![Some(g)],
                    faithfulness: vec![Some(0.0)],
                })
                .collect(),
        }
    }

    #[test]
    fn xux_is_worked_by_hand_and_top_heavy() {
        // Three one-statement sections, the zero-scored one last (a) or first (b).
        let shape = summary(&[1, 1, 1]);
        let a = experience(&shape, &labels(&[1.0, 1.0, 0.0]), &figure_3_weights());
        // X'(l): 1, 2, 3, 4, 5, 5, 5 → X(l) = 1, 1, 1, 1, 1, 5/6, 5/7.
        let expected = [1.0, 1.0, 1.0, 1.0, 1.0, 5.0 / 6.0, 5.0 / 7.0];
        for (got, want) in a.x.iter().zip(expected) {
            assert!((got - want).abs() < 1e-12, "{:?}", a.x);
        }
        assert_eq!(a.lines(), 7);
        assert!((a.xux(100) - expected.iter().sum::<f64>() / 7.0).abs() < 1e-12);
        // L > L_max: only the first L_max lines count.
        assert!((a.xux(3) - 1.0).abs() < 1e-12);
        let b = experience(&shape, &labels(&[0.0, 1.0, 1.0]), &figure_3_weights());
        assert!(a.xux(100) > b.xux(100), "{} vs {}", a.xux(100), b.xux(100));
        // XUX_F: lines 1 (overview), 3, 5, 7 end the overview and the sections.
        assert_eq!(a.section_ends, [1, 3, 5, 7]);
        assert!((a.xux_f() - (1.0 + 1.0 + 1.0 + 5.0 / 7.0) / 4.0).abs() < 1e-12);
        // XUX_G with the uniform distribution is XUX; a geometric one favours early lines.
        assert!((a.xux_g(&[1.0; 7]) - a.xux(100)).abs() < 1e-12);
        let stop = geometric(0.5, 7);
        assert!((stop[0] - 0.5).abs() < 1e-12 && (stop[1] - 0.25).abs() < 1e-12);
        assert!(a.xux_g(&stop) > a.xux(100));
        assert!(a.missing.is_empty());
        // Section ends that name no line are left out rather than read past the end.
        let mut odd = a.clone();
        odd.section_ends = vec![0, 1, 99];
        assert!((odd.xux_f() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn no_sections_one_section_and_missing_labels() {
        // No sections: the overview is the only line.
        let alone = experience(&summary(&[]), &labels(&[]), &Weights::default());
        assert_eq!(alone.x, [1.0 / 3.0]);
        assert_eq!(alone.section_ends, [1]);
        // One section of two statements, half labelled: what is missing counts 0 and is named.
        let mut partial = labels(&[1.0]);
        partial.sections[0].heading.push(None);
        partial.overview_faithfulness = None;
        let scored = experience(&summary(&[2]), &partial, &Weights::default());
        assert_eq!(scored.lines(), 4);
        assert!(
            scored.missing.contains(&"overview faithfulness".to_owned()),
            "{:?}",
            scored.missing
        );
        assert!(scored.missing.contains(&"section 1 statement 2 relevance".to_owned()));
        assert!(scored.missing.contains(&"section 1 heading for statement 2".to_owned()));
        // X'(1) = 1/3; X'(2) = 1/3 + HR (mean of 1 and 0) = 5/6; X'(3) = 5/6 + 0.5; X'(4) = same.
        let want = [1.0 / 3.0, 5.0 / 12.0, (5.0 / 6.0 + 0.5) / 3.0, (5.0 / 6.0 + 0.5) / 4.0];
        for (got, want) in scored.x.iter().zip(want) {
            assert!((got - want).abs() < 1e-12, "{:?}", scored.x);
        }
        // Default weights keep X(l) ≤ 1 with perfect labels.
        let perfect = experience(&summary(&[3, 2]), &labels_all(1.0, &[3, 2]), &Weights::default());
        assert!(perfect.x.iter().all(|x| (x - 1.0).abs() < 1e-12), "{:?}", perfect.x);
    }

    fn labels_all(g: f64, sections: &[usize]) -> Labels {
        Labels {
            overview_sufficiency: Some(g),
            overview_faithfulness: Some(g),
            overview_representativeness: Some(g),
            sections: sections
                .iter()
                .map(|&n| SectionLabels {
                    heading: vec![Some(g); n],
                    relevance: vec![Some(g); n],
                    faithfulness: vec![Some(g); n],
                })
                .collect(),
        }
    }

    #[test]
    fn comprehensiveness_gives_the_papers_figure_4_values() {
        // Pool a1, a2, b1: summary a is partially relevant to b1; b is not relevant to a1 and
        // partially relevant to a2.
        let scores = comp(&[vec![1.0, 1.0, 0.5], vec![0.0, 0.5, 1.0]]).unwrap();
        assert!((scores[0] - 0.983).abs() < 5e-4, "{scores:?}");
        assert!((scores[1] - 0.792).abs() < 5e-4, "{scores:?}");
        // Covering every pooled section equally is comprehensiveness 1.
        assert!((comp(&[vec![1.0, 1.0], vec![1.0, 1.0]]).unwrap()[0] - 1.0).abs() < 1e-12);
        // One summary only, or ragged grades: a clear error.
        let one = comp(&[vec![1.0]]).unwrap_err();
        assert!(one.contains("several summaries"), "{one}");
        assert!(comp(&[vec![1.0, 0.5], vec![1.0]]).is_err());
        let weights = Weights::default();
        assert!((sgss(0.5, scores[0], &weights) - (0.5 + scores[0])).abs() < 1e-12);
    }

    #[test]
    fn features_times_weights_is_sgss() {
        let shape = summary(&[2, 1, 3]);
        let mut given = labels_all(0.5, &[2, 1, 3]);
        given.overview_faithfulness = Some(1.0);
        given.sections[2].relevance[1] = Some(1.0);
        given.sections[0].heading[0] = None;
        let weights = Weights::from_array([0.2, 0.7, 0.1, 1.3, 0.4, 0.9, 0.6]);
        for l_max in [3, 100] {
            let f = features(&shape, &given, l_max, 0.8);
            let dot: f64 = f.iter().zip(weights.to_array()).map(|(a, b)| a * b).sum();
            let xux = experience(&shape, &given, &weights).xux(l_max);
            assert!((dot - sgss(xux, 0.8, &weights)).abs() < 1e-12, "{dot} vs {xux}");
        }
        // The overview's features are its labels (line 1 carries them, X(l) divides by l).
        let f = features(&summary(&[]), &given, 100, 0.0);
        assert_eq!(f[..3], [0.5, 1.0, 0.5]);
        assert_eq!(Weights::from_array(weights.to_array()), weights);
    }

    #[test]
    fn degraded_variants_rank_below_the_original() {
        let original = summary(&[2, 2]);
        let full = labels_all(1.0, &[2, 2]);
        let weights = Weights::default();
        let xux = experience(&original, &full, &weights).xux(100);
        // NoHeadings: the headings' lines carry nothing.
        let (no_headings, no_headings_labels) = original.no_headings(&full);
        let degraded = experience(&no_headings, &no_headings_labels, &weights).xux(100);
        assert!(degraded < xux, "{degraded} vs {xux}");
        // NoSection1: the first section is gone, and with it its good lines.
        let mut mixed = full.clone();
        mixed.sections[1] = SectionLabels {
            heading: vec![Some(0.5); 2],
            relevance: vec![Some(0.5); 2],
            faithfulness: vec![Some(0.5); 2],
        };
        let with_first = experience(&original, &mixed, &weights).xux(100);
        let (no_first, no_first_labels) = original.no_section_1(&mixed);
        let without_first = experience(&no_first, &no_first_labels, &weights).xux(100);
        assert!(without_first < with_first, "{without_first} vs {with_first}");
    }
}
