//! The commands the web UI calls. Each one adapts a single `factdesk-core` call: it takes the
//! UI's arguments, calls the core (off the main thread when the call blocks) and turns a
//! failure into a [`CommandError`]. None of them decides anything of its own; a command that
//! needs more than that belongs in `factdesk-core`, where the CLI can use it too. The one
//! exception is [`save_settings`], which after the core has written the settings opens the
//! data directory again with them: replacing the app's state is the shell's business.
//!
//! Every command listed here must also be listed in `command_names.rs`, in `build_app`'s
//! handler list, and granted in `capabilities/default.json`, or the window is refused when it
//! calls it.

use std::path::PathBuf;
use std::sync::Arc;

use factdesk_core::claims::{ClaimImportSummary, ClaimQuery};
use factdesk_core::eval::Evaluation;
use factdesk_core::import::{ImportRequest, ImportSummary};
use factdesk_core::methods::revise::evidence::Granularity;
use factdesk_core::methods::revise::{Gate, ReviseMethod};
use factdesk_core::methods::tts::TtsConfig;
use factdesk_core::model::StoredOutcome;
use factdesk_core::model::{
    CheckId, Claim, ClaimCollection, ClaimId, ClaimStatus, Corpus, Document, DocumentId,
    DocumentSummary, Review, ReviewDecision, StoredCheck, Verdict,
};
use factdesk_core::model::{Passage, PassageId};
use factdesk_core::models::{ModelCheck, ModelChoice};
use factdesk_core::report::Format;
use factdesk_core::revise::{EvidenceChoice, ReviewedRevision, ReviseOptions};
use factdesk_core::search::{SearchHit, SearchRequest};
use factdesk_core::settings::SettingChange;
use factdesk_core::similar::SimilarClaim;
use factdesk_core::summaries::{QuestionScores, SummaryQuestion, SummaryView};
use factdesk_core::summarize::{SummarizeRequest, SummaryRun, SummarySources};
use factdesk_core::verify::{BatchSummary, CheckSelection, ClaimWithCheck, VerifyOptions};
use factdesk_core::{CoreError, Factdesk, Settings};
use serde::Serialize;
use tauri::State;
use tauri::ipc::Channel;

use crate::state::AppState;
use crate::tasks::{ChannelReporter, RunningTasks, TaskProgress};

/// For the end-to-end tests only: a folder that Reports exports into without asking, because
/// WebDriver cannot drive the native save dialog. Unset in normal use.
pub const E2E_EXPORT_DIR: &str = "FACTDESK_E2E_EXPORT_DIR";

/// What a failed command sends to the UI: a stable code the UI can act on (the core's codes,
/// plus `internal` for failures of the shell itself) and a message for the user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct CommandError {
    pub code: &'static str,
    pub message: String,
}

impl From<CoreError> for CommandError {
    fn from(error: CoreError) -> Self {
        CommandError { code: error.code(), message: error.to_string() }
    }
}

impl From<tauri::Error> for CommandError {
    fn from(error: tauri::Error) -> Self {
        CommandError { code: "internal", message: error.to_string() }
    }
}

pub type CommandResult<T> = Result<T, CommandError>;

/// Runs a blocking core call on a worker thread: synchronous commands run on the main thread,
/// and a database read or a search must not freeze the window.
async fn off_main_thread<T, F>(state: &AppState, call: F) -> CommandResult<T>
where
    T: Send + 'static,
    F: FnOnce(&Factdesk) -> factdesk_core::Result<T> + Send + 'static,
{
    let app = state.current();
    Ok(tauri::async_runtime::spawn_blocking(move || call(&app)).await??)
}

/// The app's version and where its files are.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct AppInfo {
    pub version: &'static str,
    pub data_dir: PathBuf,
    /// The rolling log files of the desktop app.
    pub log_dir: PathBuf,
    /// The user's settings file (it may not exist yet).
    pub config_file: PathBuf,
    /// `FACTDESK_E2E_EXPORT_DIR`, when the end-to-end tests set it (see [`E2E_EXPORT_DIR`]).
    pub e2e_export_dir: Option<PathBuf>,
}

#[tauri::command]
pub fn app_info(state: State<'_, AppState>) -> AppInfo {
    let app = state.current();
    AppInfo {
        version: env!("CARGO_PKG_VERSION"),
        data_dir: app.data_dir().to_path_buf(),
        log_dir: crate::logs::log_dir(app.data_dir()),
        config_file: Settings::user_config_path(app.data_dir()),
        e2e_export_dir: factdesk_core::env::var(E2E_EXPORT_DIR).map(PathBuf::from),
    }
}

#[tauri::command]
pub async fn list_corpora(state: State<'_, AppState>) -> CommandResult<Vec<Corpus>> {
    off_main_thread(&state, Factdesk::corpora).await
}

/// One page of documents, newest first, of one corpus (or of all).
#[tauri::command]
pub async fn list_documents(
    state: State<'_, AppState>,
    corpus: Option<String>,
    limit: u64,
    offset: u64,
) -> CommandResult<Vec<DocumentSummary>> {
    off_main_thread(&state, move |app| app.documents(corpus.as_deref(), Some(limit), offset)).await
}

/// One document with its text and sentences.
#[tauri::command]
pub async fn get_document(state: State<'_, AppState>, id: i64) -> CommandResult<Document> {
    off_main_thread(&state, move |app| app.document(DocumentId(id))).await
}

/// Imports files, folders and http(s) URLs into a corpus, sending progress over `on_progress`.
/// `task_id` is chosen by the UI, so that it can cancel the import (with [`cancel_task`])
/// before any progress arrives; it must not be the id of a task still running.
#[tauri::command]
pub async fn import_sources(
    state: State<'_, AppState>,
    tasks: State<'_, RunningTasks>,
    task_id: u32,
    corpus: String,
    sources: Vec<String>,
    on_progress: Channel<TaskProgress>,
) -> CommandResult<ImportSummary> {
    let running = tasks.start(task_id)?;
    let request = ImportRequest { sources, corpus, ..ImportRequest::default() };
    let reporter = Arc::new(ChannelReporter::new(on_progress));
    let summary = state.current().import(request, reporter, running.cancel_token()).await?;
    Ok(summary)
}

/// Asks a running import or batch of checks to stop at its next safe point (between
/// documents or claims, never in the middle of a write). Answers whether a task with that id
/// was running.
#[tauri::command]
pub fn cancel_task(tasks: State<'_, RunningTasks>, task_id: u32) -> bool {
    tasks.cancel(task_id)
}

#[tauri::command]
pub async fn search_sentences(
    state: State<'_, AppState>,
    query: String,
    limit: Option<usize>,
    corpora: Vec<String>,
) -> CommandResult<Vec<SearchHit>> {
    let request = SearchRequest { query, limit, corpora, ..SearchRequest::default() };
    off_main_thread(&state, move |app| app.search(&request)).await
}

/// The settings in effect, and the chat model they select.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct SettingsView {
    /// Every setting, defaults and the user's overrides merged; `llm.api_key` is left out.
    pub settings: Settings,
    /// The chat model the settings and the environment select.
    pub model: ModelChoice,
}

/// The settings of `app`, with the API key blanked: the window has no use for it, and
/// `model.has_api_key` says whether one is set.
fn settings_view(app: &Factdesk) -> SettingsView {
    let mut settings = app.settings().clone();
    settings.llm.api_key = String::new();
    SettingsView { settings, model: app.model_choice() }
}

/// The settings in effect (without the API key).
#[tauri::command]
pub fn get_settings(state: State<'_, AppState>) -> SettingsView {
    settings_view(&state.current())
}

/// Writes `changes` into the user's config file (the core checks them first and refuses an
/// invalid one, naming its key, with the file untouched), then opens the data directory again
/// with the new settings so that they take effect, and answers them.
#[tauri::command]
pub async fn save_settings(
    state: State<'_, AppState>,
    changes: Vec<SettingChange>,
) -> CommandResult<SettingsView> {
    let data_dir = state.current().data_dir().to_path_buf();
    let reopened = tauri::async_runtime::spawn_blocking(move || {
        let settings = Settings::save_user_overrides(&data_dir, &changes)?;
        Factdesk::open_with_settings(&data_dir, settings)
    })
    .await??;
    let view = settings_view(&reopened);
    state.replace(reopened);
    tracing::info!("settings saved from the window; the data directory was reopened with them");
    Ok(view)
}

/// Asks the selected chat model for a one-word answer, to show that it works.
#[tauri::command]
pub async fn check_model(state: State<'_, AppState>) -> CommandResult<ModelCheck> {
    Ok(state.current().check_model().await?)
}

#[tauri::command]
pub async fn list_collections(state: State<'_, AppState>) -> CommandResult<Vec<ClaimCollection>> {
    off_main_thread(&state, Factdesk::collections).await
}

/// Claims, optionally of one collection, with one status, or with one tag.
#[tauri::command]
pub async fn list_claims(
    state: State<'_, AppState>,
    collection: Option<String>,
    status: Option<ClaimStatus>,
    tag: Option<String>,
    limit: Option<u64>,
) -> CommandResult<Vec<Claim>> {
    let query = ClaimQuery { collection, status, tag, limit };
    off_main_thread(&state, move |app| app.claims(&query)).await
}

/// Splits a pasted text into candidate claims, one per sentence, for the user to edit.
#[tauri::command]
pub fn split_claims(state: State<'_, AppState>, text: String) -> Vec<String> {
    state.current().split_into_claims(&text)
}

/// Adds claims (typed, or split from a text) to a collection, created if missing; `claimed_on`
/// is when they were made (YYYY-MM-DD), if known.
#[tauri::command]
pub async fn add_claims(
    state: State<'_, AppState>,
    collection: String,
    claims: Vec<String>,
    claimed_on: Option<String>,
) -> CommandResult<ClaimImportSummary> {
    off_main_thread(&state, move |app| app.add_claims(&collection, &claims, claimed_on.as_deref()))
        .await
}

/// Imports a claims file (CSV, JSONL, or one claim per line) into a collection.
#[tauri::command]
pub async fn import_claims(
    state: State<'_, AppState>,
    path: PathBuf,
    collection: String,
) -> CommandResult<ClaimImportSummary> {
    off_main_thread(&state, move |app| app.import_claims(&path, &collection)).await
}

/// Checks every claim of a collection, sending progress over `on_progress`; an unfinished run
/// with the same method configuration and models is resumed (the summary says so). Cancel it with
/// [`cancel_task`] and `task_id`, which the UI chooses.
#[tauri::command]
pub async fn verify_collection(
    state: State<'_, AppState>,
    tasks: State<'_, RunningTasks>,
    task_id: u32,
    collection: String,
    options: Option<VerifyOptions>,
    on_progress: Channel<TaskProgress>,
) -> CommandResult<BatchSummary> {
    let running = tasks.start(task_id)?;
    let options = options.unwrap_or_default();
    let reporter = Arc::new(ChannelReporter::new(on_progress));
    let app = state.current();
    let summary =
        app.verify_collection(&collection, &options, reporter, running.cancel_token()).await?;
    Ok(summary)
}

/// The claims of a collection, each with its newest check (of the method or run `selection`
/// names, if any) and that check's latest review.
#[tauri::command]
pub async fn collection_checks(
    state: State<'_, AppState>,
    collection: String,
    selection: Option<CheckSelection>,
) -> CommandResult<Vec<ClaimWithCheck>> {
    let selection = selection.unwrap_or_default();
    off_main_thread(&state, move |app| app.collection_checks(&collection, &selection)).await
}

/// Every check of a claim, oldest first.
#[tauri::command]
pub async fn checks_of_claim(
    state: State<'_, AppState>,
    id: i64,
) -> CommandResult<Vec<StoredCheck>> {
    off_main_thread(&state, move |app| app.checks_of_claim(ClaimId(id))).await
}

/// Records a person's review of a check: accept its verdict, or override it with `verdict`
/// and a `comment` saying why. The machine verdict is kept beside it.
#[tauri::command]
pub async fn review_check(
    state: State<'_, AppState>,
    check_id: i64,
    decision: ReviewDecision,
    verdict: Option<Verdict>,
    comment: String,
    reviewer: Option<String>,
) -> CommandResult<Review> {
    off_main_thread(&state, move |app| {
        app.review_check(CheckId(check_id), decision, verdict, &comment, reviewer.as_deref())
    })
    .await
}

/// Writes the report of a collection in `format` (`md`, `html`, `json`, `csv` or
/// `claimreview`) to `path`, which the user chose in the save dialog; ClaimReview holds the
/// reviewed claims, and the others too, marked, with `machine_verdicts`.
#[tauri::command]
pub async fn export_report(
    state: State<'_, AppState>,
    collection: String,
    format: String,
    path: PathBuf,
    selection: Option<CheckSelection>,
    machine_verdicts: Option<bool>,
) -> CommandResult<()> {
    let selection = selection.unwrap_or_default();
    let format: Format = format.parse().map_err(|error: factdesk_core::model::UnknownValue| {
        CommandError { code: "invalid_input", message: error.to_string() }
    })?;
    off_main_thread(&state, move |app| {
        app.write_report_file(
            &collection,
            &selection,
            format,
            machine_verdicts.unwrap_or(false),
            &path,
        )
    })
    .await
}

/// Scores the newest check (of the method or run `selection` names, if any) of each labelled
/// claim of a collection against its gold label.
#[tauri::command]
pub async fn evaluate(
    state: State<'_, AppState>,
    collection: String,
    selection: Option<CheckSelection>,
) -> CommandResult<Evaluation> {
    let selection = selection.unwrap_or_default();
    off_main_thread(&state, move |app| app.evaluate(&collection, &selection)).await
}

/// The passages of a collection (texts to correct), oldest first.
#[tauri::command]
pub async fn list_passages(
    state: State<'_, AppState>,
    collection: String,
) -> CommandResult<Vec<Passage>> {
    off_main_thread(&state, move |app| app.passages(&collection)).await
}

/// How the UI asks for a revision: the method and, optionally, the evidence, its granularity
/// and the gate (the method's settings decide what is left out).
#[derive(Debug, Clone, serde::Deserialize, ts_rs::TS)]
pub struct ReviseRequest {
    /// `rarr` or `cove`.
    pub method: String,
    /// `auto`, `corpus`, `source`, `web` or `none`.
    pub evidence: Option<String>,
    /// `snippets` or `chunks`.
    pub granularity: Option<String>,
    /// `chat` or `nli`.
    pub gate: Option<String>,
    /// Source documents of a pasted text.
    #[serde(default)]
    pub sources: Vec<i64>,
}

fn invalid(message: String) -> CommandError {
    CommandError { code: "invalid_input", message }
}

impl ReviseRequest {
    fn parse(&self) -> CommandResult<(ReviseMethod, ReviseOptions)> {
        let method: ReviseMethod = self.method.parse().map_err(invalid)?;
        let evidence = match &self.evidence {
            Some(value) => Some(value.parse::<EvidenceChoice>()?),
            None => None,
        };
        let granularity = match &self.granularity {
            Some(value) => Some(value.parse::<Granularity>().map_err(invalid)?),
            None => None,
        };
        let gate = match &self.gate {
            Some(value) => Some(value.parse::<Gate>().map_err(invalid)?),
            None => None,
        };
        let options = ReviseOptions {
            evidence,
            granularity,
            gate,
            sources: self.sources.iter().copied().map(DocumentId).collect(),
            ..ReviseOptions::default()
        };
        Ok((method, options))
    }
}

/// Corrects a pasted text with RARR or CoVe and stores the revision.
#[tauri::command]
pub async fn revise_text(
    state: State<'_, AppState>,
    text: String,
    request: ReviseRequest,
) -> CommandResult<ReviewedRevision> {
    let (method, options) = request.parse()?;
    let app = state.current();
    let stored = app.revise_text(&text, method, &options).await?;
    off_main_thread(&state, move |app| app.revision(stored.id)).await
}

/// Corrects a stored passage (against its own source documents by default).
#[tauri::command]
pub async fn revise_passage(
    state: State<'_, AppState>,
    id: i64,
    request: ReviseRequest,
) -> CommandResult<ReviewedRevision> {
    let (method, options) = request.parse()?;
    let app = state.current();
    let stored = app.revise_passage(PassageId(id), method, &options).await?;
    off_main_thread(&state, move |app| app.revision(stored.id)).await
}

/// A stored revision with the decisions on its edits.
#[tauri::command]
pub async fn get_revision(state: State<'_, AppState>, id: i64) -> CommandResult<ReviewedRevision> {
    off_main_thread(&state, move |app| app.revision(CheckId(id))).await
}

/// Records a person's decision on edit `edit` (from 0) of revision `id`; the revision itself is
/// kept as the method made it.
#[tauri::command]
pub async fn decide_edit(
    state: State<'_, AppState>,
    id: i64,
    edit: usize,
    accepted: bool,
    reviewer: Option<String>,
) -> CommandResult<ReviewedRevision> {
    off_main_thread(&state, move |app| {
        app.decide_edit(CheckId(id), edit, accepted, reviewer.as_deref())
    })
    .await
}

/// Writes the text kept of revision `id` (every edit not rejected) to `path`, which the user
/// chose in the save dialog.
#[tauri::command]
pub async fn export_kept_text(
    state: State<'_, AppState>,
    id: i64,
    path: PathBuf,
) -> CommandResult<()> {
    off_main_thread(&state, move |app| app.write_kept_text_file(CheckId(id), &path)).await
}

/// The questions with stored structured summaries (Scores view).
#[tauri::command]
pub async fn list_summary_questions(
    state: State<'_, AppState>,
) -> CommandResult<Vec<SummaryQuestion>> {
    off_main_thread(&state, move |app| app.summary_questions()).await
}

/// Keeps a structured summary (Markdown or JSON) of `question`.
#[tauri::command]
pub async fn add_summary(
    state: State<'_, AppState>,
    question: String,
    name: String,
    text: String,
) -> CommandResult<SummaryView> {
    off_main_thread(&state, move |app| app.add_summary(&question, &name, &text)).await
}

/// A person labels (or, with no grade, clears) one element of stored summary `id`.
#[tauri::command]
pub async fn label_summary(
    state: State<'_, AppState>,
    id: i64,
    element: String,
    grade: Option<f64>,
) -> CommandResult<()> {
    off_main_thread(&state, move |app| app.label_summary(id, &element, grade, "person")).await
}

/// Every stored summary of `question`, labelled and scored with SGSS.
#[tauri::command]
pub async fn score_question(
    state: State<'_, AppState>,
    question: String,
) -> CommandResult<QuestionScores> {
    off_main_thread(&state, move |app| app.score_question(&question)).await
}

/// How the UI asks for a summary of several sources: the question, where the sources are
/// (a corpus, a search of the index, web pages, or chosen documents), the method (`tts`, `all-sources`,
/// `majority-prompt` or `majority-claims`) and τ.
#[derive(Debug, Clone, serde::Deserialize, ts_rs::TS)]
pub struct SummarizeInput {
    pub question: String,
    pub corpus: Option<String>,
    #[serde(default)]
    pub documents: Vec<i64>,
    pub search: Option<String>,
    /// Web pages, fetched (or read from the archive) into the corpus `web` first.
    #[serde(default)]
    pub urls: Vec<String>,
    pub method: String,
    pub tau: Option<f64>,
    /// `chat` (the default) or `verifier`.
    pub stances: Option<String>,
}

impl SummarizeInput {
    fn parse(self) -> CommandResult<SummarizeRequest> {
        use factdesk_core::methods::tts::baselines::Baseline;
        let baseline = match self.method.as_str() {
            "tts" => None,
            "all-sources" => Some(Baseline::AllSources),
            "majority-prompt" => Some(Baseline::MajorityPrompt),
            "majority-claims" => Some(Baseline::MajorityClaims),
            other => {
                return Err(invalid(format!(
                    "'{other}' is no summary method: tts, all-sources, majority-prompt or \
                     majority-claims"
                )));
            }
        };
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
        if let Some(judge) = &self.stances {
            config.stance_judge = judge.parse().map_err(invalid)?;
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

/// Summarises several sources for a question with TTS (or a baseline), sending progress over
/// `on_progress`; an unfinished run of the same input is resumed. Cancel it with
/// [`cancel_task`] and `task_id`.
#[tauri::command]
pub async fn summarize_sources(
    state: State<'_, AppState>,
    tasks: State<'_, RunningTasks>,
    task_id: u32,
    input: SummarizeInput,
    on_progress: Channel<TaskProgress>,
) -> CommandResult<SummaryRun> {
    let running = tasks.start(task_id)?;
    let request = input.parse()?;
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
    id: i64,
) -> CommandResult<StoredOutcome> {
    off_main_thread(&state, move |app| Ok(app.sourced_summary(CheckId(id))?.0)).await
}

/// Writes the answer of summary `id` again from the sources `used` (indices into its sources)
/// and stores it as a new summary.
#[tauri::command]
pub async fn resummarize(
    state: State<'_, AppState>,
    id: i64,
    used: Vec<usize>,
) -> CommandResult<StoredOutcome> {
    let app = state.current();
    Ok(app.resummarize(CheckId(id), &used).await?)
}

/// Writes summary `id` as a report (`md`, `html` or `json`) to `path`.
#[tauri::command]
pub async fn export_summary_report(
    state: State<'_, AppState>,
    id: i64,
    format: String,
    path: PathBuf,
) -> CommandResult<()> {
    let format: Format = format.parse().map_err(|error: factdesk_core::model::UnknownValue| {
        CommandError { code: "invalid_input", message: error.to_string() }
    })?;
    off_main_thread(&state, move |app| app.write_summary_report(CheckId(id), format, &path)).await
}

/// Earlier claims of the library like `text` (checked before), most alike first, each with
/// its newest check; at most `limit`, at least the setting `search.similar_claims` alike.
#[tauri::command]
pub async fn similar_claims(
    state: State<'_, AppState>,
    text: String,
    limit: Option<usize>,
) -> CommandResult<Vec<SimilarClaim>> {
    let app = state.current();
    Ok(app.similar_claims(&text, limit.unwrap_or(3), None).await?)
}
