//! The Factdesk application API: one documented function per user action (import a corpus,
//! search sentences, list documents, import and list claims, rebuild and check the index,
//! fetch a web page through the archive).
//! The CLI and the desktop app call only this crate; they parse input, call a function here,
//! and map its errors. Long actions take a [`Reporter`] for progress and a [`CancelToken`].
//!
//! This crate owns the data directory's layout and the settings. It holds no SQL (that is
//! `factdesk-store`), no tantivy (`factdesk-index`) and no HTTP (`factdesk-fetch`); it
//! orchestrates them, and keeps the store and the index consistent: documents are committed to
//! SQLite first and marked once the index has them (see [`index_sync`]).

pub mod archive;
pub mod batch;
pub mod claim_page;
pub mod claims;
pub mod dashboard;
pub mod env;
mod error;
pub mod eval;
mod formats;
pub mod identity;
pub mod import;
pub mod index_sync;
pub mod metrics;
pub mod models;
pub mod passages;
mod progress;
pub mod report;
pub mod revise;
pub mod score;
pub mod search;
pub mod settings;
pub mod similar;
pub mod summaries;
pub mod summarize;
#[cfg(test)]
mod testing;
pub mod verify;
pub mod web;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

pub use error::{CoreError, Result};
pub use factdesk_llm as llm;
pub use factdesk_methods as methods;
pub use factdesk_model as model;
pub use progress::{CancelToken, NoProgress, ProgressUnit, Reporter};
pub use settings::Settings;
pub use web::WebPage;

use factdesk_fetch::Fetcher;
use factdesk_index::SentenceIndex;
use factdesk_model::{Corpus, Document, DocumentId, DocumentSummary};
use factdesk_store::{DocumentFilter, Store};

/// The file name of the database inside the data directory.
pub const DATABASE_FILE: &str = "factdesk.sqlite3";
/// The folder of the search index inside the data directory.
pub const INDEX_DIR: &str = "index";

/// An open data directory: settings, store, index and HTTP client. Cheap to clone; clones
/// share everything. Several processes may open the same data directory at once.
#[derive(Clone)]
pub struct Factdesk {
    inner: Arc<Inner>,
}

struct Inner {
    data_dir: PathBuf,
    settings: Settings,
    store: Mutex<Store>,
    index: SentenceIndex,
    fetcher: Fetcher,
    /// The embedded chat model, loaded on first use and kept (with the file it came from).
    #[cfg(feature = "embedded")]
    embedded: LoadedOnce<dyn factdesk_llm::LanguageModel>,
    /// The model server's client, made on first use and kept (keyed by URL and model), so that
    /// its concurrency bound covers every call the application makes.
    server: LoadedOnce<dyn factdesk_llm::LanguageModel>,
    /// The cross-encoder NLI model, loaded on first use and kept (with its folder): a batch
    /// checks several claims at once, and each would otherwise load its own copy.
    cross_encoder: LoadedOnce<dyn factdesk_llm::Nli>,
    /// The sentence embedding model (revision metrics and chunk ranking), loaded on first use.
    embedder: LoadedOnce<dyn factdesk_llm::Embedder>,
    /// Claims' embeddings read so far, for "checked before" (`similar.rs`).
    claim_vectors: similar::SharedClaimVectors,
    /// Held by the one search that embeds the claims still without an embedding.
    embedding_claims: tokio::sync::Mutex<()>,
}

/// A model loaded from a file or folder on first use and kept, with the path it came from.
struct LoadedOnce<T: ?Sized>(Mutex<Option<(PathBuf, Arc<T>)>>);

impl<T: ?Sized> LoadedOnce<T> {
    fn new() -> Self {
        LoadedOnce(Mutex::new(None))
    }

    /// The model from `path`: the one kept if it came from there, else `load()`ed and kept.
    fn get(&self, path: &Path, load: impl FnOnce() -> Result<Arc<T>>) -> Result<Arc<T>> {
        let mut slot =
            self.0.lock().map_err(|_| CoreError::Internal("a model lock is poisoned".into()))?;
        if let Some((loaded, model)) = slot.as_ref()
            && loaded == path
        {
            return Ok(model.clone());
        }
        let model = load()?;
        *slot = Some((path.to_path_buf(), model.clone()));
        Ok(model)
    }
}

impl std::fmt::Debug for Factdesk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Factdesk").field("data_dir", &self.inner.data_dir).finish_non_exhaustive()
    }
}

/// What `init` did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct InitReport {
    pub data_dir: PathBuf,
    pub database: PathBuf,
    pub index: PathBuf,
    pub config: PathBuf,
    pub config_created: bool,
    pub schema_version: i64,
}

impl Factdesk {
    /// Opens the data directory (creating it, the database and the index if needed) with the
    /// settings from its config file.
    #[tracing::instrument]
    pub fn open(data_dir: &Path) -> Result<Factdesk> {
        let settings = Settings::load(data_dir)?;
        Self::open_with_settings(data_dir, settings)
    }

    /// Opens the data directory with the given settings (the config file is not read). An
    /// index of an older layout is rebuilt before it returns, without progress; the shells use
    /// [`Factdesk::open_deferring_index_rebuild`] and show it.
    pub fn open_with_settings(data_dir: &Path, settings: Settings) -> Result<Factdesk> {
        let app = Self::open_deferring_index_rebuild_with_settings(data_dir, settings)?;
        app.finish_index_rebuild(Arc::new(NoProgress), CancelToken::new())?;
        Ok(app)
    }

    /// Opens the data directory, leaving the rebuild of an index of an older layout (or of
    /// one an earlier rebuild left unfinished) to [`Factdesk::finish_index_rebuild`], which
    /// reports its progress; until then searches find only what the index has.
    pub fn open_deferring_index_rebuild(data_dir: &Path) -> Result<Factdesk> {
        let settings = Settings::load(data_dir)?;
        Self::open_deferring_index_rebuild_with_settings(data_dir, settings)
    }

    /// [`Factdesk::open_deferring_index_rebuild`] with the given settings.
    pub fn open_deferring_index_rebuild_with_settings(
        data_dir: &Path,
        settings: Settings,
    ) -> Result<Factdesk> {
        std::fs::create_dir_all(data_dir)
            .map_err(|source| CoreError::Io { path: data_dir.to_path_buf(), source })?;
        let mut store = Store::open(&data_dir.join(DATABASE_FILE))?;
        let index_dir = data_dir.join(INDEX_DIR);
        let writer_memory = settings.index.writer_memory_mb << 20;
        let index = match SentenceIndex::open_or_create(&index_dir, writer_memory) {
            Ok(index) => index,
            Err(factdesk_index::IndexError::LayoutMismatch { .. }) => {
                // The index is derived data: replace it and rebuild it from the database. The
                // marker first, so that a rebuild interrupted at any point is finished later.
                tracing::warn!(path = %index_dir.display(), "search index layout changed; rebuilding it");
                let marker = data_dir.join(index_sync::REBUILD_PENDING_FILE);
                std::fs::write(&marker, "")
                    .map_err(|source| CoreError::Io { path: marker, source })?;
                std::fs::remove_dir_all(&index_dir)
                    .map_err(|source| CoreError::Io { path: index_dir.clone(), source })?;
                store.clear_index_marks()?;
                SentenceIndex::open_or_create(&index_dir, writer_memory)?
            }
            Err(error) => return Err(error.into()),
        };
        // Documents stored with a language before sentences had theirs (migration 0021) are
        // read by the same resumable rebuild, which indexes again those where it finds one.
        if store.count_documents_with_unread_sentence_languages()? > 0 {
            let marker = data_dir.join(index_sync::REBUILD_PENDING_FILE);
            std::fs::write(&marker, "").map_err(|source| CoreError::Io { path: marker, source })?;
        }
        let fetcher = Fetcher::new(settings.fetch.to_fetcher_settings(data_dir))?;
        let app = Factdesk {
            inner: Arc::new(Inner {
                data_dir: data_dir.to_path_buf(),
                settings,
                store: Mutex::new(store),
                index,
                fetcher,
                #[cfg(feature = "embedded")]
                embedded: LoadedOnce::new(),
                server: LoadedOnce::new(),
                cross_encoder: LoadedOnce::new(),
                embedder: LoadedOnce::new(),
                claim_vectors: Default::default(),
                embedding_claims: Default::default(),
            }),
        };
        Ok(app)
    }

    /// Creates the data directory with its database, index and a commented user config file
    /// (left alone if it exists).
    pub fn init(data_dir: &Path) -> Result<InitReport> {
        let config = Settings::user_config_path(data_dir);
        let config_created = !config.exists();
        if config_created {
            if let Some(parent) = config.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(|source| CoreError::Io { path: parent.to_path_buf(), source })?;
            }
            std::fs::write(&config, settings::USER_CONFIG_TEMPLATE)
                .map_err(|source| CoreError::Io { path: config.clone(), source })?;
        }
        let app = Factdesk::open(data_dir)?;
        let schema_version = app.store()?.schema_version()?;
        Ok(InitReport {
            data_dir: data_dir.to_path_buf(),
            database: data_dir.join(DATABASE_FILE),
            index: data_dir.join(INDEX_DIR),
            config,
            config_created,
            schema_version,
        })
    }

    pub fn data_dir(&self) -> &Path {
        &self.inner.data_dir
    }

    pub fn settings(&self) -> &Settings {
        &self.inner.settings
    }

    pub(crate) fn store(&self) -> Result<MutexGuard<'_, Store>> {
        self.inner
            .store
            .lock()
            .map_err(|_| CoreError::Internal("the store lock is poisoned".into()))
    }

    pub(crate) fn index(&self) -> &SentenceIndex {
        &self.inner.index
    }

    pub(crate) fn fetcher(&self) -> &Fetcher {
        &self.inner.fetcher
    }

    /// Every corpus with its document count.
    pub fn corpora(&self) -> Result<Vec<Corpus>> {
        Ok(self.store()?.corpora()?)
    }

    /// Documents, newest first, optionally of one corpus.
    pub fn documents(
        &self,
        corpus: Option<&str>,
        limit: Option<u64>,
        offset: u64,
    ) -> Result<Vec<DocumentSummary>> {
        let store = self.store()?;
        let corpus = corpus.map(|name| store.corpus_id(name)).transpose()?;
        Ok(store.documents(&DocumentFilter { corpus, limit, offset })?)
    }

    /// One document with its text and sentences.
    pub fn document(&self, id: DocumentId) -> Result<Document> {
        Ok(self.store()?.document(id)?)
    }
}
