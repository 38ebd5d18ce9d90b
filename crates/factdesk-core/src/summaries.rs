//! Structured summaries kept in the library for scoring with SGSS: each with the question it
//! answers, and labels of its elements given by a person (in the app's Scores view or the
//! CLI) or a model, each stored with who or what gave it (migration 0012). The newest label of
//! an element counts.
//!
//! Elements are named by keys: `overview.sufficiency`, `overview.faithfulness`,
//! `overview.representativeness`; `s<i>.<j>.heading` (does section i's heading represent its
//! statement j), `s<i>.<j>.relevance`, `s<i>.<j>.faithfulness` (numbered from 1); and for Comp
//! `pool.<id>.<k>`: how relevant this summary is to section k of summary `id` of the same
//! question.

use factdesk_methods::sgss::{Labels, SectionLabels, StructuredSummary, Weights};
use serde::Serialize;

use std::path::PathBuf;

use crate::score::{Labeller, ScoreConfig, SummaryScore, add_comp, read_document, score_of};
use crate::{CoreError, Factdesk, Result};

/// A question with stored summaries.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct SummaryQuestion {
    pub question: String,
    pub summaries: usize,
}

/// One element's label as the app shows it.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct ElementLabel {
    /// The element's key (see the module documentation).
    pub element: String,
    /// What is asked of it, in a few words.
    pub criterion: String,
    /// 1 perfectly, 0.5 partially, 0 not; `None` when nobody labelled it.
    pub grade: Option<f64>,
    /// `person:<name>` or `model:<name>`.
    pub labeller: Option<String>,
    pub why: Option<String>,
}

/// One line of a summary as a reader meets it, with the labels that belong to it.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct SummaryLine {
    /// `overview`, `heading` or `statement`.
    pub kind: String,
    pub text: String,
    pub citations: Vec<usize>,
    pub labels: Vec<ElementLabel>,
}

/// A stored summary with its lines and labels.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct SummaryView {
    pub id: i64,
    pub question: String,
    pub name: String,
    pub lines: Vec<SummaryLine>,
    /// Comp's labels: its relevance to each section of the question's other summaries.
    pub pool: Vec<ElementLabel>,
}

/// Every stored summary of one question, labelled and scored.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct QuestionScores {
    pub question: String,
    pub summaries: Vec<SummaryView>,
    /// In the order of `summaries`.
    pub scores: Vec<SummaryScore>,
}

/// What the models labelled of a question's stored summaries.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct QuestionLabelling {
    /// Labels stored (each as `model:<name>`, with its reason).
    pub stored: usize,
    /// Elements the chat model gave no label for (they stay unlabelled).
    pub unanswered: Vec<String>,
}

/// The grade `labels` holds for element `key` (see the module documentation; not pool keys).
fn grade_at(labels: &Labels, key: &str) -> Option<f64> {
    match key {
        "overview.sufficiency" => return labels.overview_sufficiency,
        "overview.faithfulness" => return labels.overview_faithfulness,
        "overview.representativeness" => return labels.overview_representativeness,
        _ => {}
    }
    let mut parts = key.strip_prefix('s')?.split('.');
    let i: usize = parts.next()?.parse().ok()?;
    let j: usize = parts.next()?.parse().ok()?;
    let section = labels.sections.get(i.checked_sub(1)?)?;
    let list = match parts.next()? {
        "heading" => &section.heading,
        "relevance" => &section.relevance,
        "faithfulness" => &section.faithfulness,
        _ => return None,
    };
    list.get(j.checked_sub(1)?).copied().flatten()
}

/// How `factdesk-methods`' labellers name element `key` (not pool keys).
fn method_name(key: &str) -> String {
    if let Some(what) = key.strip_prefix("overview.") {
        return format!("overview {what}");
    }
    let parts: Vec<&str> = key.trim_start_matches('s').split('.').collect();
    match parts.as_slice() {
        [i, j, "heading"] => format!("section {i} heading for statement {j}"),
        [i, j, what] => format!("section {i} statement {j} {what}"),
        _ => key.to_owned(),
    }
}

fn parse_body(id: i64, body: &str) -> Result<StructuredSummary> {
    serde_json::from_str(body).map_err(|error| {
        CoreError::InvalidInput(format!(
            "summary {id} is stored in a form this version cannot read: {error}"
        ))
    })
}

fn label(
    element: String,
    criterion: &str,
    stored: &[factdesk_store::SummaryLabelRow],
) -> ElementLabel {
    let found = stored.iter().find(|row| row.element == element);
    ElementLabel {
        criterion: criterion.to_owned(),
        grade: found.and_then(|row| row.grade),
        labeller: found.filter(|row| row.grade.is_some()).map(|row| row.labeller.clone()),
        why: found.filter(|row| row.grade.is_some()).and_then(|row| row.why.clone()),
        element,
    }
}

/// The lines of `summary` with their labels from `stored`.
fn lines_of(
    summary: &StructuredSummary,
    stored: &[factdesk_store::SummaryLabelRow],
) -> Vec<SummaryLine> {
    let mut lines = vec![SummaryLine {
        kind: "overview".into(),
        text: summary.overview.clone(),
        citations: summary.overview_citations.clone(),
        labels: vec![
            label("overview.sufficiency".into(), "answers the question", stored),
            label("overview.faithfulness".into(), "faithful", stored),
            label("overview.representativeness".into(), "represents the sections", stored),
        ],
    }];
    for (i, section) in summary.sections.iter().enumerate() {
        lines.push(SummaryLine {
            kind: "heading".into(),
            text: section.heading.clone(),
            citations: Vec::new(),
            labels: Vec::new(),
        });
        for (j, statement) in section.statements.iter().enumerate() {
            let key = |what: &str| format!("s{}.{}.{what}", i + 1, j + 1);
            lines.push(SummaryLine {
                kind: "statement".into(),
                text: statement.text.clone(),
                citations: statement.citations.clone(),
                labels: vec![
                    label(key("heading"), "heading fits", stored),
                    label(key("relevance"), "relevant", stored),
                    label(key("faithfulness"), "faithful", stored),
                ],
            });
        }
    }
    lines
}

/// `Labels` from the lines' labels.
fn labels_of(summary: &StructuredSummary, lines: &[SummaryLine]) -> Labels {
    let grade = |element: &str| {
        lines
            .iter()
            .flat_map(|line| &line.labels)
            .find(|l| l.element == element)
            .and_then(|l| l.grade)
    };
    Labels {
        overview_sufficiency: grade("overview.sufficiency"),
        overview_faithfulness: grade("overview.faithfulness"),
        overview_representativeness: grade("overview.representativeness"),
        sections: summary
            .sections
            .iter()
            .enumerate()
            .map(|(i, section)| {
                let list = |what: &str| {
                    (0..section.statements.len())
                        .map(|j| grade(&format!("s{}.{}.{what}", i + 1, j + 1)))
                        .collect()
                };
                SectionLabels {
                    heading: list("heading"),
                    relevance: list("relevance"),
                    faithfulness: list("faithfulness"),
                }
            })
            .collect(),
    }
}

impl Factdesk {
    /// Keeps a structured summary (Markdown, or JSON when it starts with `{`) of `question`.
    pub fn add_summary(&self, question: &str, name: &str, text: &str) -> Result<SummaryView> {
        let question = question.trim();
        if question.is_empty() {
            return Err(CoreError::InvalidInput(
                "name the question the summary answers: summaries are scored and compared per \
                 question"
                    .into(),
            ));
        }
        let summary = if text.trim_start().starts_with('{') {
            StructuredSummary::from_json(text)
        } else {
            StructuredSummary::from_markdown(text)
        }
        .map_err(|error| CoreError::InvalidInput(format!("the summary: {error}")))?;
        let body = serde_json::to_string(&summary)
            .map_err(|error| CoreError::InvalidInput(format!("the summary: {error}")))?;
        let mut store = self.store()?;
        let number = store.structured_summaries(Some(question))?.len() + 1;
        let name = match name.trim() {
            "" => format!("Summary {number}"),
            given => given.to_owned(),
        };
        let id = store.add_structured_summary(question, &name, &body)?;
        Ok(SummaryView {
            id,
            question: question.to_owned(),
            name,
            lines: lines_of(&summary, &[]),
            pool: Vec::new(),
        })
    }

    /// The questions with stored summaries.
    pub fn summary_questions(&self) -> Result<Vec<SummaryQuestion>> {
        Ok(self
            .store()?
            .summary_questions()?
            .into_iter()
            .map(|(question, summaries)| SummaryQuestion { question, summaries })
            .collect())
    }

    /// Labels `element` of stored summary `id` (`None` clears it), as `labeller`
    /// (`person:<name>` or `model:<name>`). The element must be one the summary has.
    pub fn label_summary(
        &self,
        id: i64,
        element: &str,
        grade: Option<f64>,
        labeller: &str,
    ) -> Result<()> {
        if let Some(grade) = grade.filter(|g| !(0.0..=1.0).contains(g)) {
            return Err(CoreError::InvalidInput(format!(
                "the grade {grade} is not between 0 and 1 (1 perfectly, 0.5 partially, 0 not)"
            )));
        }
        let labeller = labeller.trim();
        if !(labeller.starts_with("person") || labeller.starts_with("model:")) {
            return Err(CoreError::InvalidInput(format!(
                "'{labeller}' names no labeller; use person, person:<name> or model:<name>"
            )));
        }
        let row = self.store()?.structured_summary(id)?;
        let view = self.summary_views(&row.question)?.0.into_iter().find(|view| view.id == id);
        let known = view.is_some_and(|view| {
            view.lines
                .iter()
                .flat_map(|line| &line.labels)
                .chain(&view.pool)
                .any(|l| l.element == element)
        });
        if !known {
            return Err(CoreError::InvalidInput(format!(
                "summary {id} has no element '{element}' (overview.sufficiency, s1.2.relevance, \
                 pool.<id>.<section>, …)"
            )));
        }
        self.store()?.add_summary_label(id, element, grade, labeller, None)?;
        Ok(())
    }

    /// The stored summaries of `question` with their labels, and each parsed.
    fn summary_views(&self, question: &str) -> Result<(Vec<SummaryView>, Vec<StructuredSummary>)> {
        let store = self.store()?;
        let rows = store.structured_summaries(Some(question))?;
        let parsed: Vec<StructuredSummary> =
            rows.iter().map(|row| parse_body(row.id, &row.body)).collect::<Result<_>>()?;
        let mut views = Vec::new();
        for (n, row) in rows.iter().enumerate() {
            let stored = store.summary_labels(row.id)?;
            let mut pool = Vec::new();
            for (m, other) in rows.iter().enumerate() {
                if m == n {
                    continue;
                }
                for (k, section) in parsed[m].sections.iter().enumerate() {
                    let criterion = format!("covers “{}” of {}", section.heading, other.name);
                    pool.push(label(format!("pool.{}.{}", other.id, k + 1), &criterion, &stored));
                }
            }
            views.push(SummaryView {
                id: row.id,
                question: row.question.clone(),
                name: row.name.clone(),
                lines: lines_of(&parsed[n], &stored),
                pool,
            });
        }
        Ok((views, parsed))
    }

    /// Every stored summary of `question`, labelled and scored with the default weights:
    /// unlabelled elements count 0 and are named; Comp when there are two or more summaries
    /// (pool elements without a label count 0 and are named too).
    pub fn score_question(&self, question: &str) -> Result<QuestionScores> {
        let (views, parsed) = self.summary_views(question)?;
        if views.is_empty() {
            return Err(CoreError::InvalidInput(format!(
                "no summary answers '{question}'; add one first"
            )));
        }
        let weights = Weights::default();
        let mut scores = Vec::new();
        let mut rows = Vec::new();
        for (n, (view, summary)) in views.iter().zip(&parsed).enumerate() {
            let labels = labels_of(summary, &view.lines);
            // XUX's L_max and XUX_G's stopping chance: SGSS's defaults (as `factdesk score`'s).
            let ScoreConfig { l_max, stop } = ScoreConfig::default();
            let mut score = score_of(view.name.clone(), summary, &labels, &weights, l_max, stop);
            let mut row = Vec::new();
            let mut pool = view.pool.iter();
            for (m, other) in parsed.iter().enumerate() {
                for _ in &other.sections {
                    if m == n {
                        row.push(1.0);
                    } else if let Some(element) = pool.next() {
                        row.push(element.grade.unwrap_or_else(|| {
                            score.missing.push(format!("Comp: {}", element.criterion));
                            0.0
                        }));
                    }
                }
            }
            scores.push(score);
            rows.push(Some(row));
        }
        let any_section = parsed.iter().any(|summary| !summary.sections.is_empty());
        if views.len() >= 2 && any_section {
            add_comp(&mut scores, rows, &weights)?;
        }
        Ok(QuestionScores { question: question.to_owned(), summaries: views, scores })
    }
}

impl Factdesk {
    /// Has models label what nobody has labelled of `question`'s stored summaries (the verifier
    /// faithfulness against `documents`, in citation order; the chat model every criterion and
    /// the Comp pool), storing each label as `model:<name>` with its reason. A person's label is
    /// never replaced.
    pub async fn label_question(
        &self,
        question: &str,
        labellers: &[Labeller],
        documents: &[PathBuf],
    ) -> Result<QuestionLabelling> {
        let (views, parsed) = self.summary_views(question)?;
        if views.is_empty() {
            return Err(CoreError::InvalidInput(format!(
                "no summary answers '{question}'; add one first"
            )));
        }
        let max_bytes = self.settings().import.max_file_bytes;
        let texts: Vec<String> =
            documents.iter().map(|path| read_document(path, max_bytes)).collect::<Result<_>>()?;
        let models = self.model_labellers(
            labellers,
            &texts,
            question,
            serde_json::json!({
                "question": question,
                "stored_summaries": views.iter().map(|view| view.id).collect::<Vec<_>>(),
                "documents": documents,
            }),
        )?;
        let result = async {
            let mut outcome = QuestionLabelling { stored: 0, unanswered: Vec::new() };
            for (n, view) in views.iter().enumerate() {
                let mut labels = labels_of(&parsed[n], &view.lines);
                let pool_missing = view.pool.iter().any(|label| label.grade.is_none());
                let (got, row) =
                    models.label(n, &parsed, &mut labels, &texts, pool_missing).await?;
                let given = |name: &str| got.labels.iter().find(|label| label.element == name);
                let mut store = self.store()?;
                for label in view.lines.iter().flat_map(|line| &line.labels) {
                    if label.grade.is_some() {
                        continue;
                    }
                    let (Some(grade), Some(model)) =
                        (grade_at(&labels, &label.element), given(&method_name(&label.element)))
                    else {
                        continue;
                    };
                    let by = format!("model:{}", model.by);
                    store.add_summary_label(
                        view.id,
                        &label.element,
                        Some(grade),
                        &by,
                        Some(&model.why),
                    )?;
                    outcome.stored += 1;
                }
                if let Some(row) = row {
                    // The row runs over every summary's sections; this summary's own count 1.
                    let mut at = 0;
                    for (m, other) in parsed.iter().enumerate() {
                        for k in 0..other.sections.len() {
                            let index = at;
                            at += 1;
                            if m == n {
                                continue;
                            }
                            let key = format!("pool.{}.{}", views[m].id, k + 1);
                            let open =
                                view.pool.iter().any(|l| l.element == key && l.grade.is_none());
                            let name = format!("relevance to summary {} section {}", m + 1, k + 1);
                            if let (true, Some(model), Some(&grade)) =
                                (open, given(&name), row.get(index))
                            {
                                let by = format!("model:{}", model.by);
                                store.add_summary_label(
                                    view.id,
                                    &key,
                                    Some(grade),
                                    &by,
                                    Some(&model.why),
                                )?;
                                outcome.stored += 1;
                            }
                        }
                    }
                }
                outcome.unanswered.extend(
                    got.unanswered.iter().map(|element| format!("{}: {element}", view.name)),
                );
            }
            Ok::<_, CoreError>(outcome)
        }
        .await;
        models.finish(self, result.as_ref().err())?;
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_summaries_are_labelled_by_key_and_scored_with_comp() {
        let dir = tempfile::tempdir().unwrap();
        let app = Factdesk::open(dir.path()).unwrap();
        let a = app
            .add_summary(
                "Why did the bridge close?",
                "",
                "The bridge closed.\n## Why\n- Cracks were found.\n",
            )
            .unwrap();
        assert_eq!(a.name, "Summary 1");
        let b = app
            .add_summary(
                "Why did the bridge close?",
                "B",
                "The bridge closed.\n## Next\n- Repairs.\n",
            )
            .unwrap();
        // Every label of a: perfect; its pool label for b's section: partially.
        for element in [
            "overview.sufficiency",
            "overview.faithfulness",
            "overview.representativeness",
            "s1.1.heading",
            "s1.1.relevance",
            "s1.1.faithfulness",
        ] {
            app.label_summary(a.id, element, Some(1.0), "person:ana").unwrap();
        }
        app.label_summary(a.id, &format!("pool.{}.1", b.id), Some(0.5), "person").unwrap();
        let scored = app.score_question("Why did the bridge close?").unwrap();
        assert_eq!(scored.summaries.len(), 2);
        let first = &scored.scores[0];
        assert!((first.xux - 1.0).abs() < 1e-12, "{first:?}");
        assert!(first.missing.is_empty(), "{:?}", first.missing);
        // a's pool row (1, 0.5) against b's (0, 1), b's label missing and counted 0.
        assert_eq!(first.pool.as_deref(), Some(&[2.0 / 3.0, 1.0 / 3.0][..]));
        let second = &scored.scores[1];
        assert!(
            second.missing.iter().any(|m| m.starts_with("Comp: covers “Why”")),
            "{:?}",
            second.missing
        );
        assert!(first.comp.unwrap() > second.comp.unwrap());
        let shown = &scored.summaries[0].lines[0].labels[0];
        assert_eq!((shown.grade, shown.labeller.as_deref()), (Some(1.0), Some("person:ana")));
        // Clearing a label makes it missing again; unknown elements, grades and labellers are
        // refused.
        app.label_summary(a.id, "s1.1.relevance", None, "person").unwrap();
        let again = app.score_question("Why did the bridge close?").unwrap();
        assert_eq!(again.scores[0].missing, ["section 1 statement 1 relevance"]);
        for (element, grade, labeller) in [
            ("s2.1.relevance", Some(1.0), "person"),
            ("overview.sufficiency", Some(1.5), "person"),
            ("overview.sufficiency", Some(1.0), "robot"),
        ] {
            assert!(app.label_summary(a.id, element, grade, labeller).is_err());
        }
        assert!(app.add_summary(" ", "", "Overview.").is_err());
        assert!(app.add_summary("Q", "", "Overview.\n- no section\n").is_err());
        assert!(app.score_question("Nobody asked").is_err());
    }

    #[test]
    fn element_keys_name_the_methods_elements() {
        assert_eq!(method_name("overview.sufficiency"), "overview sufficiency");
        assert_eq!(method_name("s2.3.heading"), "section 2 heading for statement 3");
        assert_eq!(method_name("s1.4.relevance"), "section 1 statement 4 relevance");
        let labels = Labels {
            overview_faithfulness: Some(0.5),
            sections: vec![SectionLabels {
                heading: vec![None, Some(1.0)],
                relevance: vec![Some(0.0), None],
                faithfulness: vec![None, None],
            }],
            ..Labels::default()
        };
        assert_eq!(grade_at(&labels, "overview.faithfulness"), Some(0.5));
        assert_eq!(grade_at(&labels, "s1.2.heading"), Some(1.0));
        assert_eq!(grade_at(&labels, "s1.1.relevance"), Some(0.0));
        assert_eq!(grade_at(&labels, "s1.1.faithfulness"), None);
        assert_eq!(grade_at(&labels, "s3.1.relevance"), None);
        assert_eq!(grade_at(&labels, "s0.1.relevance"), None);
    }
}
