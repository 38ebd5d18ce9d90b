//! The commands the web UI calls. Each one adapts a single `factdesk-core` call: it takes the
//! UI's arguments, calls the core (off the main thread when the call blocks) and turns a
//! failure into a [`CommandError`]. None of them decides anything of its own; a command that
//! needs more than that belongs in `factdesk-core`, where the CLI can use it too. The one
//! exception is [`save_settings`], which after the core has written the settings opens the
//! data directory again with them: replacing the app's state is the shell's business.
//!
//! Every command is declared once, by its name in `command_names.rs`: its handler, its
//! permission and its TypeScript name follow from there (the capability file is checked
//! against it).

use std::path::PathBuf;
use std::sync::Arc;

use factdesk_core::claim_page::{ClaimPage, ClaimPageRequest};
use factdesk_core::claims::{ClaimImportSummary, ClaimQuery};
use factdesk_core::dashboard::Dashboard;
use factdesk_core::eval::Evaluation;
use factdesk_core::model::{
    CheckId, Claim, ClaimCollection, ClaimId, ClaimStatus, Review, ReviewDecision, Run,
    StoredCheck, Verdict,
};
use factdesk_core::models::{ModelCheck, ModelChoice, ServerSupport};
use factdesk_core::report::Format;
use factdesk_core::settings::SettingChange;
use factdesk_core::similar::SimilarClaim;
use factdesk_core::verify::{BatchSummary, CheckSelection, ClaimWithCheck, VerifyOptions};
use factdesk_core::{Factdesk, Settings};
use serde::Serialize;
use tauri::State;
use tauri::ipc::Channel;

use crate::state::AppState;
use crate::tasks::{ChannelReporter, RunningTasks, TaskProgress};

mod corpora;
mod passages;
mod summaries;

pub use corpora::*;
pub use passages::*;
pub use summaries::*;

pub use crate::error::{CommandError, CommandResult};

/// For the end-to-end tests only: a folder that Reports exports into without asking, because
/// WebDriver cannot drive the native save dialog. Unset in normal use.
pub const E2E_EXPORT_DIR: &str = "FACTDESK_E2E_EXPORT_DIR";

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

/// Asks a running import or batch of checks to stop at its next safe point (between
/// documents or claims, never in the middle of a write). Answers whether a task with that id
/// was running.
#[tauri::command]
pub fn cancel_task(tasks: State<'_, RunningTasks>, task_id: u32) -> bool {
    tasks.cancel(task_id)
}

/// The settings in effect, and the chat model they select.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct SettingsView {
    /// Every setting, defaults and the user's overrides merged; `llm.api_key` is left out.
    pub settings: Settings,
    /// The chat model the settings and the environment select.
    pub model: ModelChoice,
    /// What the servers asked so far have shown they take of output constraints, per server
    /// and model, the selected one first.
    pub constraints: Vec<ServerSupport>,
}

/// The settings of `app`, with the API key blanked: the window has no use for it, and
/// `model.has_api_key` says whether one is set.
fn settings_view(app: &Factdesk) -> SettingsView {
    let mut settings = app.settings().clone();
    settings.llm.api_key = String::new();
    SettingsView { settings, model: app.model_choice(), constraints: app.constraint_support() }
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
        // A rebuild still under way goes on in the task that runs it.
        Factdesk::open_deferring_index_rebuild_with_settings(&data_dir, settings)
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

/// One page of a collection's claims, filtered and sorted over the whole collection in the
/// core (the collection view draws a page at a time).
#[tauri::command]
pub async fn collection_page(
    state: State<'_, AppState>,
    collection: String,
    request: ClaimPageRequest,
) -> CommandResult<ClaimPage> {
    off_main_thread(&state, move |app| app.collection_page(&collection, &request)).await
}

/// The dashboard of a collection: verdict counts, machine verdicts against reviews, the
/// confidence histogram split by agreement, checks and reviews per day (over the checks
/// `selection` selects, all by default).
#[tauri::command]
pub async fn collection_dashboard(
    state: State<'_, AppState>,
    collection: String,
    selection: Option<CheckSelection>,
) -> CommandResult<Dashboard> {
    let selection = selection.unwrap_or_default();
    off_main_thread(&state, move |app| app.collection_dashboard(&collection, &selection)).await
}

/// The runs over a collection, newest first (the dashboard's choice of one run's checks).
#[tauri::command]
pub async fn collection_runs(
    state: State<'_, AppState>,
    collection: String,
) -> CommandResult<Vec<Run>> {
    off_main_thread(&state, move |app| app.collection_runs(&collection)).await
}

/// Every check of a claim, oldest first.
#[tauri::command]
pub async fn checks_of_claim(
    state: State<'_, AppState>,
    id: i64,
) -> CommandResult<Vec<StoredCheck>> {
    off_main_thread(&state, move |app| app.checks_of_claim(ClaimId(id))).await
}

/// Sets a claim's language (an ISO 639-1 code such as `de`; `None`: unknown), as a person
/// corrects the one detected, and gives the claim back. A code that is not one is refused,
/// named.
#[tauri::command]
pub async fn set_claim_language(
    state: State<'_, AppState>,
    id: i64,
    language: Option<String>,
) -> CommandResult<Claim> {
    off_main_thread(&state, move |app| app.set_claim_language(ClaimId(id), language.as_deref()))
        .await
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
