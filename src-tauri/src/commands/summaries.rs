//! Summaries: structured summaries of a question with their labels and SGSS scores (the Scores
//! view), and summaries of several sources with TTS or a baseline (the Summaries view).

use std::path::PathBuf;
use std::sync::Arc;

use factdesk_core::methods::tts::{StanceJudge, TtsConfig};
use factdesk_core::model::{CheckId, DocumentId, SourceReview, StoredOutcome};
use factdesk_core::report::Format;
use factdesk_core::summaries::{QuestionScores, SummaryQuestion, SummaryView};
use factdesk_core::summarize::{SummarizeRequest, SummaryMethodName, SummaryRun, SummarySources};
use serde::Deserialize;
use tauri::State;
use tauri::ipc::Channel;

use super::{Args, CommandResult, IdArgs, off_main_thread};
use crate::error::invalid;
use crate::state::AppState;
use crate::tasks::{ChannelReporter, RunningTasks, TaskProgress};

/// The questions with stored structured summaries (Scores view).
#[tauri::command]
pub async fn list_summary_questions(
    state: State<'_, AppState>,
) -> CommandResult<Vec<SummaryQuestion>> {
    off_main_thread(&state, move |app| app.summary_questions()).await
}

#[derive(Debug, Clone, Deserialize, ts_rs::TS)]
pub struct AddSummaryArgs {
    pub question: String,
    pub name: String,
    /// Markdown or JSON.
    pub text: String,
}

/// Keeps a structured summary (Markdown or JSON) of `question`.
#[tauri::command]
pub async fn add_summary(
    state: State<'_, AppState>,
    args: Args<AddSummaryArgs>,
) -> CommandResult<SummaryView> {
    let AddSummaryArgs { question, name, text } = args.0;
    off_main_thread(&state, move |app| app.add_summary(&question, &name, &text)).await
}

#[derive(Debug, Clone, Deserialize, ts_rs::TS)]
pub struct LabelSummaryArgs {
    /// The stored summary.
    pub id: i64,
    pub element: String,
    /// `null` clears the label.
    pub grade: Option<f64>,
}

/// A person labels (or, with no grade, clears) one element of stored summary `id`.
#[tauri::command]
pub async fn label_summary(
    state: State<'_, AppState>,
    args: Args<LabelSummaryArgs>,
) -> CommandResult<()> {
    let LabelSummaryArgs { id, element, grade } = args.0;
    off_main_thread(&state, move |app| app.label_summary(id, &element, grade, "person")).await
}

#[derive(Debug, Clone, Deserialize, ts_rs::TS)]
pub struct ScoreQuestionArgs {
    pub question: String,
}

/// Every stored summary of `question`, labelled and scored with SGSS.
#[tauri::command]
pub async fn score_question(
    state: State<'_, AppState>,
    args: Args<ScoreQuestionArgs>,
) -> CommandResult<QuestionScores> {
    let ScoreQuestionArgs { question } = args.0;
    off_main_thread(&state, move |app| app.score_question(&question)).await
}

/// How the UI asks for a summary of several sources: the question, where the sources are
/// (a corpus, a search of the index, web pages, or chosen documents), the method (a name of the
/// core's list, `SUMMARY_CHOICES` in the UI) and τ.
#[derive(Debug, Clone, serde::Deserialize, ts_rs::TS)]
#[ts(optional_fields = nullable)]
pub struct SummarizeInput {
    pub question: String,
    pub corpus: Option<String>,
    #[serde(default)]
    #[ts(optional = nullable)]
    pub documents: Vec<i64>,
    pub search: Option<String>,
    /// Web pages, fetched (or read from the archive) into the corpus `web` first.
    #[serde(default)]
    #[ts(optional = nullable)]
    pub urls: Vec<String>,
    /// `tts` or a baseline (any other name is refused as the arguments are read, naming them).
    pub method: SummaryMethodName,
    pub tau: Option<f64>,
    /// Who judges each source's stance (the chat model when left out).
    pub stances: Option<StanceJudge>,
}

impl SummarizeInput {
    fn parse(self) -> CommandResult<SummarizeRequest> {
        let baseline = self.method.baseline();
        let sources = match (self.corpus, self.search) {
            (Some(corpus), _) if !corpus.is_empty() => SummarySources::Corpus(corpus),
            (_, Some(query)) if !query.trim().is_empty() => {
                SummarySources::Search { query, limit: 10 }
            }
            _ if !self.urls.is_empty() => {
                SummarySources::Urls { urls: self.urls, corpus: "web".into() }
            }
            _ if !self.documents.is_empty() => {
                SummarySources::Documents(self.documents.into_iter().map(DocumentId).collect())
            }
            _ => {
                return Err(invalid(
                    "choose a corpus, a search, pages or documents for the sources".into(),
                ));
            }
        };
        let mut config = TtsConfig::default();
        if let Some(tau) = self.tau {
            config.tau = tau;
        }
        if let Some(judge) = self.stances {
            config.stance_judge = judge;
        }
        Ok(SummarizeRequest {
            question: self.question,
            sources,
            baseline,
            config,
            cache: None,
            restart: false,
        })
    }
}

#[derive(Debug, Clone, Deserialize, ts_rs::TS)]
pub struct SummarizeSourcesArgs {
    pub input: SummarizeInput,
}

/// Summarises several sources for a question with TTS (or a baseline), sending progress over
/// `on_progress`; an unfinished run of the same input is resumed. Cancel it with
/// [`cancel_task`](super::cancel_task) and `task_id`.
#[tauri::command]
pub async fn summarize_sources(
    state: State<'_, AppState>,
    tasks: State<'_, RunningTasks>,
    task_id: u32,
    args: Args<SummarizeSourcesArgs>,
    on_progress: Channel<TaskProgress>,
) -> CommandResult<SummaryRun> {
    let running = tasks.start(task_id)?;
    let request = args.0.input.parse()?;
    let reporter = Arc::new(ChannelReporter::new(on_progress));
    let app = state.current();
    Ok(app.summarize(&request, reporter, running.cancel_token()).await?)
}

/// The stored summaries of several sources, newest first.
#[tauri::command]
pub async fn list_sourced_summaries(
    state: State<'_, AppState>,
) -> CommandResult<Vec<StoredOutcome>> {
    off_main_thread(&state, move |app| app.sourced_summaries()).await
}

/// One stored summary of several sources.
#[tauri::command]
pub async fn get_sourced_summary(
    state: State<'_, AppState>,
    args: Args<IdArgs>,
) -> CommandResult<StoredOutcome> {
    let IdArgs { id } = args.0;
    off_main_thread(&state, move |app| Ok(app.sourced_summary(CheckId(id))?.0)).await
}

/// People's reviews of the sources of summary `id` (the newest for each reviewed source).
#[tauri::command]
pub async fn summary_source_reviews(
    state: State<'_, AppState>,
    args: Args<IdArgs>,
) -> CommandResult<Vec<SourceReview>> {
    let IdArgs { id } = args.0;
    off_main_thread(&state, move |app| app.summary_source_reviews(CheckId(id))).await
}

#[derive(Debug, Clone, Deserialize, ts_rs::TS)]
#[ts(optional_fields = nullable)]
pub struct ReviewSummarySourceArgs {
    /// The summary.
    pub id: i64,
    /// Which of its sources, from 0.
    pub source: usize,
    pub accepted: bool,
    pub comment: Option<String>,
    pub reviewer: Option<String>,
}

/// Records a person's review of source `source` (from 0) of summary `id`: agreeing with what
/// the summary did with it, or not with `comment` saying why. Answers every review that counts.
#[tauri::command]
pub async fn review_summary_source(
    state: State<'_, AppState>,
    args: Args<ReviewSummarySourceArgs>,
) -> CommandResult<Vec<SourceReview>> {
    let ReviewSummarySourceArgs { id, source, accepted, comment, reviewer } = args.0;
    off_main_thread(&state, move |app| {
        app.review_summary_source(
            CheckId(id),
            source,
            accepted,
            comment.as_deref(),
            reviewer.as_deref(),
        )
    })
    .await
}

#[derive(Debug, Clone, Deserialize, ts_rs::TS)]
pub struct ResummarizeArgs {
    /// The summary.
    pub id: i64,
    /// Indices into its sources.
    pub used: Vec<usize>,
}

/// Writes the answer of summary `id` again from the sources `used` (indices into its sources)
/// and stores it as a new summary.
#[tauri::command]
pub async fn resummarize(
    state: State<'_, AppState>,
    args: Args<ResummarizeArgs>,
) -> CommandResult<StoredOutcome> {
    let ResummarizeArgs { id, used } = args.0;
    let app = state.current();
    Ok(app.resummarize(CheckId(id), &used).await?)
}

#[derive(Debug, Clone, Deserialize, ts_rs::TS)]
pub struct ExportSummaryReportArgs {
    /// The summary.
    pub id: i64,
    /// One of `Format::PAGES` (`PAGE_REPORT_FORMATS` in the UI); the others are refused.
    pub format: Format,
    pub path: PathBuf,
}

/// Writes summary `id` as a report (`md`, `html` or `json`) to `path`.
#[tauri::command]
pub async fn export_summary_report(
    state: State<'_, AppState>,
    args: Args<ExportSummaryReportArgs>,
) -> CommandResult<()> {
    let ExportSummaryReportArgs { id, format, path } = args.0;
    off_main_thread(&state, move |app| app.write_summary_report(CheckId(id), format, &path)).await
}
