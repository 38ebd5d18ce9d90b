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

use std::path::{Path, PathBuf};

use factdesk_llm::prompts::PromptLibrary;
use factdesk_methods::grounding::GroundingConfig;
use factdesk_methods::sgss::label::{ChatLabeller, Labelled, ModelLabel};
use factdesk_methods::sgss::{self, Labels, SectionLabels, StructuredSummary, Weights};
use serde::{Deserialize, Serialize};

pub use factdesk_methods::sgss::fit::DEFAULT_ALPHA as DEFAULT_FIT_ALPHA;

use factdesk_model::{RunId, RunStatus};

use crate::verify::{NLI_VERIFIER, method_error, verifier_folder};
use crate::{CoreError, Factdesk, Result};

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

#[derive(Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
struct SummaryLabels {
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

/// One summary's labels as grades, and its row of pool grades (1 for its own sections, the
/// labels for the other summaries' sections, in their order) if it has pool labels.
fn convert_labels(
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

/// The models that label what people left out, ready for one scoring (see [`Labeller`]).
pub(crate) struct ModelLabellers {
    nli: Option<std::sync::Arc<dyn factdesk_llm::Nli>>,
    /// The chat model with the run its calls are recorded under.
    chat: Option<(RunId, std::sync::Arc<dyn factdesk_llm::LanguageModel>, PromptLibrary)>,
    question: String,
    config: GroundingConfig,
    samples: u32,
}

impl Factdesk {
    /// Loads the models `labellers` ask for; the chat model's calls go under a new run of kind
    /// `score` with `parameters`. The verifier needs `documents`, the chat model `question`.
    pub(crate) fn model_labellers(
        &self,
        labellers: &[Labeller],
        documents: &[String],
        question: &str,
        parameters: serde_json::Value,
    ) -> Result<ModelLabellers> {
        let use_verifier = labellers.contains(&Labeller::Verifier);
        let use_chat = labellers.contains(&Labeller::Chat);
        if use_verifier && documents.is_empty() {
            return Err(CoreError::InvalidInput(
                "the verifier labels faithfulness against the documents a summary cites: name \
                 them with --documents, in citation order"
                    .into(),
            ));
        }
        if use_chat && question.trim().is_empty() {
            return Err(CoreError::InvalidInput(
                "the chat model labels a summary against the question it answers: give the \
                 question with --question"
                    .into(),
            ));
        }
        let nli = if use_verifier {
            Some(self.cross_encoder(&verifier_folder(), Some(NLI_VERIFIER))?)
        } else {
            None
        };
        let chat = if use_chat {
            let mut parameters = parameters;
            parameters["template"] = sgss::label::LABEL_TEMPLATE.into();
            let store = self.store()?;
            let model_name = self.model_choice().model_name();
            let run = store.create_run("score", &parameters, Some(&model_name), None)?;
            store.set_run_status(run, RunStatus::Running, None)?;
            drop(store);
            let loaded = self
                .language_model(Some(run), None)
                .and_then(|model| Ok((model, factdesk_methods::prompts::builtin_library()?)));
            match loaded {
                Ok((model, prompts)) => Some((run, model, prompts)),
                Err(error) => {
                    let message = error.to_string();
                    self.store()?.set_run_status(run, RunStatus::Failed, Some(&message))?;
                    return Err(error);
                }
            }
        } else {
            None
        };
        Ok(ModelLabellers {
            nli,
            chat,
            question: question.trim().to_owned(),
            config: GroundingConfig {
                language: self.settings().import.language.clone(),
                ..GroundingConfig::default()
            },
            samples: self.settings().verify.nli_samples.max(1),
        })
    }
}

impl ModelLabellers {
    /// Labels what `labels` leaves out of summary `n` of `summaries` (the verifier first, then
    /// the chat model); with `pool`, the chat model also gives its Comp pool row.
    pub(crate) async fn label(
        &self,
        n: usize,
        summaries: &[StructuredSummary],
        labels: &mut Labels,
        documents: &[String],
        pool: bool,
    ) -> Result<(Labelled, Option<Vec<f64>>)> {
        let summary = &summaries[n];
        let mut got = Labelled::default();
        let mut merge = |more: Labelled| {
            got.labels.extend(more.labels);
            got.unanswered.extend(more.unanswered);
            got.tokens.merge(&more.tokens);
        };
        if let Some(nli) = &self.nli {
            merge(
                sgss::label::faithfulness_by_verifier(
                    nli.as_ref(),
                    summary,
                    labels,
                    documents,
                    &self.config,
                )
                .await
                .map_err(method_error)?,
            );
        }
        let mut row = None;
        if let Some((_, model, prompts)) = &self.chat {
            let labeller = ChatLabeller {
                model: model.as_ref(),
                prompts,
                question: &self.question,
                samples: self.samples,
            };
            let cited = (!documents.is_empty()).then_some(documents);
            merge(labeller.label(summary, labels, cited).await.map_err(method_error)?);
            if pool && summaries.len() >= 2 {
                let (pooled, more) = labeller.pool(n, summaries).await.map_err(method_error)?;
                row = Some(pooled);
                merge(more);
            }
        }
        Ok((got, row))
    }

    /// Closes the chat model's run: completed, or failed with `error`.
    pub(crate) fn finish(&self, app: &Factdesk, error: Option<&CoreError>) -> Result<()> {
        if let Some((run, ..)) = &self.chat {
            let (status, message) = match error {
                None => (RunStatus::Completed, None),
                Some(error) => (RunStatus::Failed, Some(error.to_string())),
            };
            app.store()?.set_run_status(*run, status, message.as_deref())?;
        }
        Ok(())
    }
}

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
