//! Corpora and their documents: listing, reading, importing (with progress), searching, and
//! finishing a rebuild of the search index (with progress).

use std::sync::Arc;

use factdesk_core::Factdesk;
use factdesk_core::import::{ImportRequest, ImportSummary};
use factdesk_core::index_sync::IndexRebuild;
use factdesk_core::model::{Corpus, Document, DocumentId, DocumentSummary};
use factdesk_core::search::{SearchHit, SearchRequest};
use serde::Deserialize;
use tauri::State;
use tauri::ipc::Channel;

use super::{Args, CommandResult, IdArgs, off_main_thread};
use crate::state::AppState;
use crate::tasks::{ChannelReporter, RunningTasks, TaskProgress};

#[tauri::command]
pub async fn list_corpora(state: State<'_, AppState>) -> CommandResult<Vec<Corpus>> {
    off_main_thread(&state, Factdesk::corpora).await
}

#[derive(Debug, Clone, Deserialize, ts_rs::TS)]
#[ts(optional_fields = nullable)]
pub struct ListDocumentsArgs {
    /// Of every corpus when left out.
    pub corpus: Option<String>,
    pub limit: u64,
    pub offset: u64,
}

/// One page of documents, newest first, of one corpus (or of all).
#[tauri::command]
pub async fn list_documents(
    state: State<'_, AppState>,
    args: Args<ListDocumentsArgs>,
) -> CommandResult<Vec<DocumentSummary>> {
    let ListDocumentsArgs { corpus, limit, offset } = args.0;
    off_main_thread(&state, move |app| app.documents(corpus.as_deref(), Some(limit), offset)).await
}

/// One document with its text and sentences.
#[tauri::command]
pub async fn get_document(
    state: State<'_, AppState>,
    args: Args<IdArgs>,
) -> CommandResult<Document> {
    let IdArgs { id } = args.0;
    off_main_thread(&state, move |app| app.document(DocumentId(id))).await
}

#[derive(Debug, Clone, Deserialize, ts_rs::TS)]
pub struct ImportSourcesArgs {
    /// Created if missing.
    pub corpus: String,
    /// Files, folders and http(s) URLs.
    pub sources: Vec<String>,
}

/// Imports files, folders and http(s) URLs into a corpus, sending progress over `on_progress`.
/// `task_id` is chosen by the UI, so that it can cancel the import (with
/// [`cancel_task`](super::cancel_task)) before any progress arrives; it must not be the id of a
/// task still running.
#[tauri::command]
pub async fn import_sources(
    state: State<'_, AppState>,
    tasks: State<'_, RunningTasks>,
    task_id: u32,
    args: Args<ImportSourcesArgs>,
    on_progress: Channel<TaskProgress>,
) -> CommandResult<ImportSummary> {
    let ImportSourcesArgs { corpus, sources } = args.0;
    let running = tasks.start(task_id)?;
    let request = ImportRequest { sources, corpus, ..ImportRequest::default() };
    let reporter = Arc::new(ChannelReporter::new(on_progress));
    let summary = state.current().import(request, reporter, running.cancel_token()).await?;
    Ok(summary)
}

/// Finishes the rebuild of a search index replaced when the data directory was opened (an
/// index of an older layout, or a rebuild left unfinished), sending progress over
/// `on_progress`; `None` at once when none is pending. The window starts it when it opens;
/// `task_id` as for [`import_sources`].
#[tauri::command]
pub async fn finish_index_rebuild(
    state: State<'_, AppState>,
    tasks: State<'_, RunningTasks>,
    task_id: u32,
    on_progress: Channel<TaskProgress>,
) -> CommandResult<Option<IndexRebuild>> {
    let running = tasks.start(task_id)?;
    let reporter = Arc::new(ChannelReporter::new(on_progress));
    let cancel = running.cancel_token();
    off_main_thread(&state, move |app| app.finish_index_rebuild(reporter, cancel)).await
}

#[derive(Debug, Clone, Deserialize, ts_rs::TS)]
#[ts(optional_fields = nullable)]
pub struct SearchSentencesArgs {
    pub query: String,
    pub limit: Option<usize>,
    /// Every corpus when empty.
    #[serde(default)]
    pub corpora: Vec<String>,
    /// The language the query is analysed in (an ISO 639-1 code); when none, the one the
    /// core finds for it (`Factdesk::query_language`: detected, else the corpora's).
    #[serde(default)]
    pub language: Option<String>,
}

/// The sentences of the index that match `query` (in `corpora`, or in every corpus).
#[tauri::command]
pub async fn search_sentences(
    state: State<'_, AppState>,
    args: Args<SearchSentencesArgs>,
) -> CommandResult<Vec<SearchHit>> {
    let SearchSentencesArgs { query, limit, corpora, language } = args.0;
    let request = SearchRequest { query, limit, corpora, language, ..SearchRequest::default() };
    off_main_thread(&state, move |app| app.search(&request)).await
}
