//! Passages and their revisions (RARR, CoVe): revising, reading a revision back, deciding on
//! its edits, writing the text kept.

use std::path::PathBuf;

use factdesk_core::methods::revise::Gate;
use factdesk_core::methods::revise::evidence::Granularity;
use factdesk_core::model::{CheckId, DocumentId, Passage, PassageId};
use factdesk_core::revise::{EvidenceChoice, ReviewedRevision, ReviseMethod, ReviseOptions};
use serde::Deserialize;
use tauri::State;

use super::{Args, CollectionArgs, CommandResult, IdArgs, off_main_thread};
use crate::state::AppState;

/// The passages of a collection (texts to correct), oldest first.
#[tauri::command]
pub async fn list_passages(
    state: State<'_, AppState>,
    args: Args<CollectionArgs>,
) -> CommandResult<Vec<Passage>> {
    let CollectionArgs { collection } = args.0;
    off_main_thread(&state, move |app| app.passages(&collection)).await
}

/// How the UI asks for a revision: the method and, optionally, the evidence, its granularity
/// and the gate (the method's settings decide what is left out). Each is one of the core's
/// values, as `REVISION_CHOICES` lists them for the forms.
#[derive(Debug, Clone, serde::Deserialize, ts_rs::TS)]
#[ts(optional_fields = nullable)]
pub struct ReviseRequest {
    pub method: ReviseMethod,
    pub evidence: Option<EvidenceChoice>,
    pub granularity: Option<Granularity>,
    pub gate: Option<Gate>,
    /// Source documents of a pasted text.
    #[serde(default)]
    #[ts(optional = nullable)]
    pub sources: Vec<i64>,
}

impl ReviseRequest {
    fn into_options(self) -> (ReviseMethod, ReviseOptions) {
        let options = ReviseOptions {
            evidence: self.evidence,
            granularity: self.granularity,
            gate: self.gate,
            sources: self.sources.into_iter().map(DocumentId).collect(),
            ..ReviseOptions::default()
        };
        (self.method, options)
    }
}

#[derive(Debug, Clone, Deserialize, ts_rs::TS)]
pub struct ReviseTextArgs {
    pub text: String,
    pub request: ReviseRequest,
}

/// Corrects a pasted text with RARR or CoVe and stores the revision.
#[tauri::command]
pub async fn revise_text(
    state: State<'_, AppState>,
    args: Args<ReviseTextArgs>,
) -> CommandResult<ReviewedRevision> {
    let ReviseTextArgs { text, request } = args.0;
    let (method, options) = request.into_options();
    let app = state.current();
    let stored = app.revise_text(&text, method, &options).await?;
    off_main_thread(&state, move |app| app.revision(stored.id)).await
}

#[derive(Debug, Clone, Deserialize, ts_rs::TS)]
pub struct RevisePassageArgs {
    /// The passage.
    pub id: i64,
    pub request: ReviseRequest,
}

/// Corrects a stored passage (against its own source documents by default).
#[tauri::command]
pub async fn revise_passage(
    state: State<'_, AppState>,
    args: Args<RevisePassageArgs>,
) -> CommandResult<ReviewedRevision> {
    let RevisePassageArgs { id, request } = args.0;
    let (method, options) = request.into_options();
    let app = state.current();
    let stored = app.revise_passage(PassageId(id), method, &options).await?;
    off_main_thread(&state, move |app| app.revision(stored.id)).await
}

/// A stored revision with the decisions on its edits.
#[tauri::command]
pub async fn get_revision(
    state: State<'_, AppState>,
    args: Args<IdArgs>,
) -> CommandResult<ReviewedRevision> {
    let IdArgs { id } = args.0;
    off_main_thread(&state, move |app| app.revision(CheckId(id))).await
}

#[derive(Debug, Clone, Deserialize, ts_rs::TS)]
#[ts(optional_fields = nullable)]
pub struct DecideEditArgs {
    /// The revision.
    pub id: i64,
    /// Which edit, from 0.
    pub edit: usize,
    pub accepted: bool,
    pub comment: Option<String>,
    pub reviewer: Option<String>,
}

/// Records a person's decision on edit `edit` (from 0) of revision `id`, with why when they
/// said (`comment`); the revision itself is kept as the method made it.
#[tauri::command]
pub async fn decide_edit(
    state: State<'_, AppState>,
    args: Args<DecideEditArgs>,
) -> CommandResult<ReviewedRevision> {
    let DecideEditArgs { id, edit, accepted, comment, reviewer } = args.0;
    off_main_thread(&state, move |app| {
        app.decide_edit(CheckId(id), edit, accepted, comment.as_deref(), reviewer.as_deref())
    })
    .await
}

#[derive(Debug, Clone, Deserialize, ts_rs::TS)]
pub struct ExportKeptTextArgs {
    /// The revision.
    pub id: i64,
    pub path: PathBuf,
}

/// Writes the text kept of revision `id` (every edit not rejected) to `path`, which the user
/// chose in the save dialog.
#[tauri::command]
pub async fn export_kept_text(
    state: State<'_, AppState>,
    args: Args<ExportKeptTextArgs>,
) -> CommandResult<()> {
    let ExportKeptTextArgs { id, path } = args.0;
    off_main_thread(&state, move |app| app.write_kept_text_file(CheckId(id), &path)).await
}
