//! The commands the web UI calls. Each one adapts a single `factdesk-core` call: it takes the
//! UI's arguments, calls the core (off the main thread when the call blocks) and turns a
//! failure into a [`CommandError`]. None of them decides anything of its own; a command that
//! needs more than that belongs in `factdesk-core`, where the CLI can use it too. The one
//! exception is [`save_settings`], which after the core has written the settings opens the
//! data directory again with them: replacing the app's state is the shell's business.
//!
//! Every command is declared once, in `command_names.rs`, with the struct of its arguments
//! (taken as [`Args`], beside the command here) and what it answers: its handler, its
//! permission and its TypeScript signature follow from there (the capability file is checked
//! against it, and the function against the declaration).

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
use serde::{Deserialize, Serialize};
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
pub use crate::signature::Args;

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

/// The arguments of a command that names one stored item (a document, claim, revision or
/// summary) by its id.
#[derive(Debug, Clone, Deserialize, ts_rs::TS)]
pub struct IdArgs {
    pub id: i64,
}

/// The arguments of a command about one collection.
#[derive(Debug, Clone, Deserialize, ts_rs::TS)]
pub struct CollectionArgs {
    pub collection: String,
}

/// The arguments of a command over the checks of a collection that `selection` selects (each
/// claim's newest, of one method or run when given).
#[derive(Debug, Clone, Deserialize, ts_rs::TS)]
#[ts(optional_fields = nullable)]
pub struct SelectionArgs {
    pub collection: String,
    pub selection: Option<CheckSelection>,
}

/// The arguments of a command that reads a text.
#[derive(Debug, Clone, Deserialize, ts_rs::TS)]
pub struct TextArgs {
    pub text: String,
}

#[derive(Debug, Clone, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct CancelTaskArgs {
    pub task_id: u32,
}

/// Asks a running import or batch of checks to stop at its next safe point (between
/// documents or claims, never in the middle of a write). Answers whether a task with that id
/// was running.
#[tauri::command]
pub fn cancel_task(tasks: State<'_, RunningTasks>, args: Args<CancelTaskArgs>) -> bool {
    tasks.cancel(args.0.task_id)
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

#[derive(Debug, Clone, Deserialize, ts_rs::TS)]
pub struct SaveSettingsArgs {
    pub changes: Vec<SettingChange>,
}

/// Writes `changes` into the user's config file (the core checks them first and refuses an
/// invalid one, naming its key, with the file untouched), then opens the data directory again
/// with the new settings so that they take effect, and answers them.
#[tauri::command]
pub async fn save_settings(
    state: State<'_, AppState>,
    args: Args<SaveSettingsArgs>,
) -> CommandResult<SettingsView> {
    let SaveSettingsArgs { changes } = args.0;
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

/// Which claims `list_claims` lists: each field left out is no filter.
#[derive(Debug, Clone, Deserialize, ts_rs::TS)]
#[ts(optional_fields = nullable)]
pub struct ListClaimsArgs {
    pub collection: Option<String>,
    pub status: Option<ClaimStatus>,
    pub tag: Option<String>,
    pub limit: Option<u64>,
}

/// Claims, optionally of one collection, with one status, or with one tag.
#[tauri::command]
pub async fn list_claims(
    state: State<'_, AppState>,
    args: Args<ListClaimsArgs>,
) -> CommandResult<Vec<Claim>> {
    let ListClaimsArgs { collection, status, tag, limit } = args.0;
    let query = ClaimQuery { collection, status, tag, limit };
    off_main_thread(&state, move |app| app.claims(&query)).await
}

/// Splits a pasted text into candidate claims, one per sentence, for the user to edit.
#[tauri::command]
pub fn split_claims(state: State<'_, AppState>, args: Args<TextArgs>) -> Vec<String> {
    state.current().split_into_claims(&args.0.text)
}

#[derive(Debug, Clone, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct AddClaimsArgs {
    pub collection: String,
    pub claims: Vec<String>,
    /// When the claims were made (YYYY-MM-DD), if known.
    pub claimed_on: Option<String>,
}

/// Adds claims (typed, or split from a text) to a collection, created if missing; `claimed_on`
/// is when they were made (YYYY-MM-DD), if known.
#[tauri::command]
pub async fn add_claims(
    state: State<'_, AppState>,
    args: Args<AddClaimsArgs>,
) -> CommandResult<ClaimImportSummary> {
    let AddClaimsArgs { collection, claims, claimed_on } = args.0;
    off_main_thread(&state, move |app| app.add_claims(&collection, &claims, claimed_on.as_deref()))
        .await
}

#[derive(Debug, Clone, Deserialize, ts_rs::TS)]
pub struct ImportClaimsArgs {
    pub path: PathBuf,
    pub collection: String,
}

/// Imports a claims file (CSV, JSONL, or one claim per line) into a collection.
#[tauri::command]
pub async fn import_claims(
    state: State<'_, AppState>,
    args: Args<ImportClaimsArgs>,
) -> CommandResult<ClaimImportSummary> {
    let ImportClaimsArgs { path, collection } = args.0;
    off_main_thread(&state, move |app| app.import_claims(&path, &collection)).await
}

#[derive(Debug, Clone, Deserialize, ts_rs::TS)]
#[ts(optional_fields = nullable)]
pub struct VerifyCollectionArgs {
    pub collection: String,
    /// What is left out comes from `[verify]` and the method's `[methods.<name>]`.
    pub options: Option<VerifyOptions>,
}

/// Checks every claim of a collection, sending progress over `on_progress`; an unfinished run
/// with the same method configuration and models is resumed (the summary says so). Cancel it with
/// [`cancel_task`] and `task_id`, which the UI chooses.
#[tauri::command]
pub async fn verify_collection(
    state: State<'_, AppState>,
    tasks: State<'_, RunningTasks>,
    task_id: u32,
    args: Args<VerifyCollectionArgs>,
    on_progress: Channel<TaskProgress>,
) -> CommandResult<BatchSummary> {
    let VerifyCollectionArgs { collection, options } = args.0;
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
    args: Args<SelectionArgs>,
) -> CommandResult<Vec<ClaimWithCheck>> {
    let SelectionArgs { collection, selection } = args.0;
    let selection = selection.unwrap_or_default();
    off_main_thread(&state, move |app| app.collection_checks(&collection, &selection)).await
}

#[derive(Debug, Clone, Deserialize, ts_rs::TS)]
pub struct CollectionPageArgs {
    pub collection: String,
    pub request: ClaimPageRequest,
}

/// One page of a collection's claims, filtered and sorted over the whole collection in the
/// core (the collection view draws a page at a time).
#[tauri::command]
pub async fn collection_page(
    state: State<'_, AppState>,
    args: Args<CollectionPageArgs>,
) -> CommandResult<ClaimPage> {
    let CollectionPageArgs { collection, request } = args.0;
    off_main_thread(&state, move |app| app.collection_page(&collection, &request)).await
}

/// The dashboard of a collection: verdict counts, machine verdicts against reviews, the
/// confidence histogram split by agreement, checks and reviews per day (over the checks
/// `selection` selects, all by default).
#[tauri::command]
pub async fn collection_dashboard(
    state: State<'_, AppState>,
    args: Args<SelectionArgs>,
) -> CommandResult<Dashboard> {
    let SelectionArgs { collection, selection } = args.0;
    let selection = selection.unwrap_or_default();
    off_main_thread(&state, move |app| app.collection_dashboard(&collection, &selection)).await
}

/// The runs over a collection, newest first (the dashboard's choice of one run's checks).
#[tauri::command]
pub async fn collection_runs(
    state: State<'_, AppState>,
    args: Args<CollectionArgs>,
) -> CommandResult<Vec<Run>> {
    let CollectionArgs { collection } = args.0;
    off_main_thread(&state, move |app| app.collection_runs(&collection)).await
}

/// Every check of a claim, oldest first.
#[tauri::command]
pub async fn checks_of_claim(
    state: State<'_, AppState>,
    args: Args<IdArgs>,
) -> CommandResult<Vec<StoredCheck>> {
    let IdArgs { id } = args.0;
    off_main_thread(&state, move |app| app.checks_of_claim(ClaimId(id))).await
}

#[derive(Debug, Clone, Deserialize, ts_rs::TS)]
pub struct SetClaimLanguageArgs {
    /// The claim.
    pub id: i64,
    /// An ISO 639-1 code such as `de`; `null`: unknown.
    pub language: Option<String>,
}

/// Sets a claim's language (an ISO 639-1 code such as `de`; `None`: unknown), as a person
/// corrects the one detected, and gives the claim back. A code that is not one is refused,
/// named.
#[tauri::command]
pub async fn set_claim_language(
    state: State<'_, AppState>,
    args: Args<SetClaimLanguageArgs>,
) -> CommandResult<Claim> {
    let SetClaimLanguageArgs { id, language } = args.0;
    off_main_thread(&state, move |app| app.set_claim_language(ClaimId(id), language.as_deref()))
        .await
}

#[derive(Debug, Clone, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct ReviewCheckArgs {
    pub check_id: i64,
    pub decision: ReviewDecision,
    /// Required for `override`; for `accept`, the machine verdict or nothing.
    pub verdict: Option<Verdict>,
    /// Required for `override`: why the machine verdict is wrong.
    pub comment: String,
    pub reviewer: Option<String>,
}

/// Records a person's review of a check: accept its verdict, or override it with `verdict`
/// and a `comment` saying why. The machine verdict is kept beside it.
#[tauri::command]
pub async fn review_check(
    state: State<'_, AppState>,
    args: Args<ReviewCheckArgs>,
) -> CommandResult<Review> {
    let ReviewCheckArgs { check_id, decision, verdict, comment, reviewer } = args.0;
    off_main_thread(&state, move |app| {
        app.review_check(CheckId(check_id), decision, verdict, &comment, reviewer.as_deref())
    })
    .await
}

#[derive(Debug, Clone, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct ExportReportArgs {
    pub collection: String,
    pub format: Format,
    pub path: PathBuf,
    pub selection: Option<CheckSelection>,
    /// Whether ClaimReview holds the claims no person reviewed too, marked.
    pub machine_verdicts: Option<bool>,
}

/// Writes the report of a collection in `format` to `path`, which the user chose in the save
/// dialog; ClaimReview holds the reviewed claims, and the others too, marked, with
/// `machine_verdicts`.
#[tauri::command]
pub async fn export_report(
    state: State<'_, AppState>,
    args: Args<ExportReportArgs>,
) -> CommandResult<()> {
    let ExportReportArgs { collection, format, path, selection, machine_verdicts } = args.0;
    let selection = selection.unwrap_or_default();
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
    args: Args<SelectionArgs>,
) -> CommandResult<Evaluation> {
    let SelectionArgs { collection, selection } = args.0;
    let selection = selection.unwrap_or_default();
    off_main_thread(&state, move |app| app.evaluate(&collection, &selection)).await
}

#[derive(Debug, Clone, Deserialize, ts_rs::TS)]
#[ts(optional_fields = nullable)]
pub struct SimilarClaimsArgs {
    pub text: String,
    /// At most this many (3 when left out).
    pub limit: Option<usize>,
}

/// Earlier claims of the library like `text` (checked before), most alike first, each with
/// its newest check; at most `limit`, at least the setting `search.similar_claims` alike.
#[tauri::command]
pub async fn similar_claims(
    state: State<'_, AppState>,
    args: Args<SimilarClaimsArgs>,
) -> CommandResult<Vec<SimilarClaim>> {
    let SimilarClaimsArgs { text, limit } = args.0;
    let app = state.current();
    Ok(app.similar_claims(&text, limit.unwrap_or(3), None).await?)
}
