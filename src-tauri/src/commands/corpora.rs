//! Corpora and their documents: listing, reading, importing (with progress), searching, and
//! finishing a rebuild of the search index (with progress).

use std::sync::Arc;

use factdesk_core::Factdesk;
use factdesk_core::import::{ImportRequest, ImportSummary};
use factdesk_core::index_sync::IndexRebuild;
use factdesk_core::model::{Corpus, Document, DocumentId, DocumentSummary};
use factdesk_core::search::{SearchHit, SearchRequest};
use tauri::State;
use tauri::ipc::Channel;

use super::{CommandResult, off_main_thread};
use crate::state::AppState;
use crate::tasks::{ChannelReporter, RunningTasks, TaskProgress};

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
/// `task_id` is chosen by the UI, so that it can cancel the import (with
/// [`cancel_task`](super::cancel_task)) before any progress arrives; it must not be the id of a
/// task still running.
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
