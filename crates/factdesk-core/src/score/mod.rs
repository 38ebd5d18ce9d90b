//! Scoring structured summaries with SGSS (`factdesk-methods` `sgss`): summaries read from
//! Markdown or JSON files, labels given by a person in a JSON file, and per summary its
//! user-experience curve X(l), XUX, XUX_F, XUX_G, and — for two or more summaries of one
//! question with pool labels — Comp and SGSS; and weights fitted to people's pairwise
//! preferences ([`Factdesk::fit_summary_weights`]), with their mean agreement rate on held-out
//! questions. What the person left out, a model can label (`factdesk-methods` `sgss::label`):
//! the NLI verifier faithfulness against the cited documents ([`Labeller::Verifier`]), the chat
//! model every criterion and Comp's pool ([`Labeller::Chat`], its calls recorded under a run of
//! kind `score`); each such label is reported with its model and reason beside the person's.
//! Reports draw each summary's X(l) ([`Factdesk::write_score_report`]). Summaries kept in the
//! library, with stored labels, are in [`crate::summaries`].
//!
//! The labels file: `{"weights": {…}?, "summaries": [one entry per summary, in order]}`, each
//! entry `{"overview": {"sufficiency", "faithfulness", "representativeness"}, "sections":
//! [{"heading": [per statement], "relevance": [...], "faithfulness": [...]}], "pool": [...]}`,
//! where a label is "perfectly", "partially", "not" or a number from 0 to 1, and `pool` grades
//! how relevant the summary is to each section of the other summaries, in their order.
//!
//! This module holds the requests and scores, [`Factdesk::score_summaries`] (the files read,
//! each summary scored, Comp) and the report; `method.rs` says what SGSS is as a method (its
//! configuration and defaults, grades and labellers, and the UI's lists of them);
//! `labels.rs` turns a labels file's entries into grades, `labellers.rs` loads and asks the
//! models that label what people left out, and `fit.rs` fits the weights.

mod fit;
mod labellers;
mod labels;
mod method;

use std::path::{Path, PathBuf};

use factdesk_methods::sgss::label::ModelLabel;
use factdesk_methods::sgss::{self, Labels, StructuredSummary, Weights};
use serde::{Deserialize, Serialize};

pub use factdesk_methods::sgss::fit::DEFAULT_ALPHA as DEFAULT_FIT_ALPHA;

use crate::{CoreError, Factdesk, Result};
pub use fit::{Agreement, FitPart, FitReport, FitRequest};
use labels::{SummaryLabels, convert_labels};
pub use method::{GRADES, Grade, LABELLERS, ScoreChoices, ScoreConfig, grade_of_word, grade_words};

/// What to score.
#[derive(Debug, Clone)]
pub struct ScoreRequest {
    pub summaries: Vec<PathBuf>,
    pub labels: Option<PathBuf>,
    /// A weights file (what a fit wrote), instead of the labels file's or the default weights.
    pub weights: Option<PathBuf>,
    /// The documents the summaries cite, in citation order ([1] is the first).
    pub documents: Vec<PathBuf>,
    /// Who labels what the labels file leaves out (the verifier before the chat model).
    pub label_with: Vec<Labeller>,
    /// The question the summaries answer (the chat model's labels need it).
    pub question: Option<String>,
    /// XUX counts at most this many lines (L_max).
    pub l_max: usize,
    /// XUX_G's chance that a reader stops after each line (geometric).
    pub stop: f64,
}

/// A labeller for what people have not labelled (`factdesk-methods` `sgss::label`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Labeller {
    /// The NLI verifier labels faithfulness against the cited documents.
    Verifier,
    /// The chat model labels every criterion (faithfulness only when the documents are given
    /// and the verifier is not asked too) and Comp's pool.
    Chat,
}

/// One summary's scores.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct SummaryScore {
    pub file: String,
    pub lines: usize,
    /// Each line as a reader sees it: the overview, then each heading and its statements.
    pub line_texts: Vec<String>,
    /// X(l) for each line.
    pub x: Vec<f64>,
    pub xux: f64,
    pub xux_f: f64,
    pub xux_g: f64,
    pub comp: Option<f64>,
    pub sgss: Option<f64>,
    /// With Comp: the summary's distribution F over the pooled sections (all summaries'
    /// sections, in order).
    pub pool: Option<Vec<f64>>,
    /// Elements without a label (counted 0).
    pub missing: Vec<String>,
    /// Labels given by a model (`ScoreRequest::label_with`), beside the person's.
    pub machine_labels: Vec<ModelLabel>,
    /// Tokens the chat model's labels cost (purpose `label`).
    pub tokens: factdesk_model::TokenUse,
    /// What else was noticed, e.g. citations of documents not given.
    pub notes: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LabelsFile {
    #[serde(default)]
    weights: Option<Weights>,
    summaries: Vec<SummaryLabels>,
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

/// One summary's scores under `labels` (no model labels, tokens or notes yet).
pub(crate) fn score_of(
    name: String,
    summary: &StructuredSummary,
    labels: &Labels,
    weights: &Weights,
    l_max: usize,
    stop: f64,
) -> SummaryScore {
    let experience = sgss::experience(summary, labels, weights);
    let stops = sgss::geometric(stop, experience.lines());
    let mut line_texts = vec![format!("Overview: {}", summary.overview)];
    for section in &summary.sections {
        line_texts.push(format!("Heading: {}", section.heading));
        line_texts.extend(section.statements.iter().map(|s| format!("Statement: {}", s.text)));
    }
    SummaryScore {
        file: name,
        line_texts,
        lines: experience.lines(),
        xux: experience.xux(l_max),
        xux_f: experience.xux_f(),
        xux_g: experience.xux_g(&stops),
        x: experience.x.clone(),
        comp: None,
        sgss: None,
        pool: None,
        missing: experience.missing,
        machine_labels: Vec::new(),
        tokens: factdesk_model::TokenUse::default(),
        notes: if summary.statement_count() == 0 {
            vec!["the summary has no statements: only its overview and headings are read".into()]
        } else {
            Vec::new()
        },
    }
}

/// Adds Comp, SGSS and the pool distribution to `scored` when `rows` allow
/// ([`comps`]).
pub(crate) fn add_comp(
    scored: &mut [SummaryScore],
    rows: Vec<Option<Vec<f64>>>,
    weights: &Weights,
) -> Result<()> {
    let distributions: Vec<Option<Vec<f64>>> = rows
        .iter()
        .map(|row| {
            row.as_ref().and_then(|row| {
                let total: f64 = row.iter().map(|g| g.max(0.0)).sum();
                (total > 0.0).then(|| row.iter().map(|g| g.max(0.0) / total).collect())
            })
        })
        .collect();
    if let Some(comp) = comps(rows)? {
        for ((score, comp), pool) in scored.iter_mut().zip(comp).zip(distributions) {
            score.comp = Some(comp);
            score.sgss = Some(sgss::sgss(score.xux, comp, weights));
            score.pool = pool;
        }
    }
    Ok(())
}

/// Comp of each summary, when there are two or more and every one has pool labels.
/// Summaries without any section between them have nothing to pool: no Comp.
fn comps(rows: Vec<Option<Vec<f64>>>) -> Result<Option<Vec<f64>>> {
    if rows.len() < 2 || rows.iter().any(|row| row.as_ref().is_none_or(Vec::is_empty)) {
        return Ok(None);
    }
    let rows: Vec<Vec<f64>> = rows.into_iter().flatten().collect();
    sgss::comp(&rows).map(Some).map_err(CoreError::InvalidInput)
}

/// Reads a JSON file of at most `max_bytes`, naming it in any error.
fn read_json<T: serde::de::DeserializeOwned>(path: &Path, max_bytes: u64, what: &str) -> Result<T> {
    let origin = path.display().to_string();
    let bytes = crate::import::read_capped(path, max_bytes)
        .map_err(|message| CoreError::InvalidInput(format!("{origin}: {message}")))?;
    serde_json::from_slice(&bytes)
        .map_err(|error| CoreError::InvalidInput(format!("{origin}: not {what}: {error}")))
}

/// A document a summary cites, as text: HTML and Markdown through the importer's extractors,
/// anything else as plain text.
pub(crate) fn read_document(path: &Path, max_bytes: u64) -> Result<String> {
    let origin = path.display().to_string();
    let invalid = |message: String| CoreError::InvalidInput(format!("{origin}: {message}"));
    let bytes = crate::import::read_capped(path, max_bytes).map_err(invalid)?;
    let text = String::from_utf8(bytes).map_err(|_| invalid("not UTF-8 text".into()))?;
    let extension =
        path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    let extracted = match extension.as_str() {
        "html" | "htm" => factdesk_text::extract_html(&text),
        "md" | "markdown" => factdesk_text::extract_markdown(&text),
        _ => factdesk_text::extract_plain_text(&text),
    }
    .map_err(|error| invalid(format!("no text to judge against: {error}")))?;
    Ok(extracted.text)
}

/// A weights file: what `fit_summary_weights` writes (its other fields are not read here).
#[derive(Deserialize)]
struct WeightsFile {
    weights: Weights,
}

impl Factdesk {
    /// Scores structured summaries (see the module documentation).
    pub async fn score_summaries(&self, request: &ScoreRequest) -> Result<Vec<SummaryScore>> {
        if request.summaries.is_empty() {
            return Err(CoreError::InvalidInput("name one or more summary files".into()));
        }
        ScoreConfig { l_max: request.l_max, stop: request.stop }
            .validate()
            .map_err(CoreError::InvalidInput)?;
        let max_bytes = self.settings().import.max_file_bytes;
        let summaries: Vec<StructuredSummary> = request
            .summaries
            .iter()
            .map(|path| read_summary(path, max_bytes))
            .collect::<Result<_>>()?;
        let file = match &request.labels {
            Some(path) => {
                let parsed: LabelsFile = read_json(path, max_bytes, "a labels file")?;
                if parsed.summaries.len() != summaries.len() {
                    return Err(CoreError::InvalidInput(format!(
                        "{}: labels for {} summaries, but {} summary files given, in the same \
                         order",
                        path.display(),
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
        let weights = match (&request.weights, file.weights) {
            (Some(path), Some(_)) => {
                return Err(CoreError::InvalidInput(format!(
                    "{} gives weights, and so does {}; keep one of the two",
                    request.labels.as_deref().unwrap_or(Path::new("the labels file")).display(),
                    path.display()
                )));
            }
            (Some(path), None) => {
                read_json::<WeightsFile>(path, max_bytes, "a weights file (\"weights\": {…})")?
                    .weights
            }
            (None, given) => given.unwrap_or_default(),
        };
        let documents: Vec<String> = request
            .documents
            .iter()
            .map(|path| read_document(path, max_bytes))
            .collect::<Result<_>>()?;
        let question = request.question.as_deref().map(str::trim).unwrap_or_default();
        let labellers = self.model_labellers(
            &request.label_with,
            &documents,
            question,
            serde_json::json!({
                "summaries": request.summaries,
                "documents": request.documents,
                "question": question,
            }),
        )?;
        let labelled = async {
            let mut out = Vec::new();
            for (n, given) in file.summaries.iter().enumerate() {
                let name = request.summaries[n].display().to_string();
                let (mut labels, given_row) = convert_labels(n, &summaries, given, &name)?;
                let (got, pooled) = labellers
                    .label(n, &summaries, &mut labels, &documents, given_row.is_none())
                    .await?;
                out.push((labels, given_row.or(pooled), got));
            }
            Ok::<_, CoreError>(out)
        }
        .await;
        labellers.finish(self, labelled.as_ref().err())?;
        let mut scored = Vec::new();
        let mut pool_rows = Vec::new();
        for (n, (summary, (labels, row, got))) in summaries.iter().zip(labelled?).enumerate() {
            let name = request.summaries[n].display().to_string();
            let mut notes = Vec::new();
            if !request.documents.is_empty() {
                for cited in &summary.overview_citations {
                    if *cited > documents.len() {
                        notes.push(format!(
                            "the overview cites document {cited}; {} given",
                            documents.len()
                        ));
                    }
                }
                for (i, j, cited) in summary.missing_citations(documents.len()) {
                    notes.push(format!(
                        "section {i} statement {j} cites document {cited}; {} given",
                        documents.len()
                    ));
                }
            }
            if !got.unanswered.is_empty() {
                notes.push(format!(
                    "the chat model gave no label (no 2, 1 or 0) for: {}",
                    got.unanswered.join("; ")
                ));
            }
            let machine_labels = got.labels;
            let tokens = got.tokens;
            pool_rows.push(row);
            let mut score = score_of(name, summary, &labels, &weights, request.l_max, request.stop);
            score.machine_labels = machine_labels;
            score.tokens = tokens;
            score.notes.extend(notes);
            scored.push(score);
        }
        add_comp(&mut scored, pool_rows, &weights)?;
        Ok(scored)
    }
}

impl Factdesk {
    /// Writes `scores` to `path` as a report in `format` (Markdown, HTML or JSON), all or
    /// nothing.
    pub fn write_score_report(
        &self,
        scores: &[SummaryScore],
        format: factdesk_report::Format,
        path: &Path,
    ) -> Result<()> {
        let report = factdesk_report::ScoreReport {
            title: "Structured summaries scored with SGSS".into(),
            generated_at: factdesk_model::now_rfc3339(),
            generator: format!("Factdesk {}", env!("CARGO_PKG_VERSION")),
            summaries: scores
                .iter()
                .map(|score| factdesk_report::ScoredSummary {
                    name: score.file.clone(),
                    lines: score.line_texts.clone(),
                    x: score.x.clone(),
                    xux: score.xux,
                    xux_f: score.xux_f,
                    xux_g: score.xux_g,
                    comp: score.comp,
                    sgss: score.sgss,
                    missing: score.missing.clone(),
                    machine_labels: score
                        .machine_labels
                        .iter()
                        .map(|l| (l.element.clone(), l.grade, l.by.clone(), l.why.clone()))
                        .collect(),
                    notes: score.notes.clone(),
                })
                .collect(),
        };
        self.write_atomically(path, |out| factdesk_report::render_scores(&report, format, out))
    }
}
