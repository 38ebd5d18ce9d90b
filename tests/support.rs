//! Shared harness of the integration tests: a Factdesk over a temporary data directory, the
//! bundled demo corpus, and a blocking wrapper around the async import.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use factdesk_core::import::{ImportRequest, ImportSummary};
use factdesk_core::{CancelToken, Factdesk, NoProgress, Settings};

/// The repository's root folder.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ has a parent").to_path_buf()
}

/// The bundled demo corpus folder.
pub fn demo_corpus() -> PathBuf {
    repo_root().join("assets/demo/corpus")
}

/// A data directory that is deleted when the test ends, and the app opened on it.
pub struct Harness {
    pub dir: tempfile::TempDir,
    pub app: Factdesk,
}

impl Harness {
    pub fn new() -> Harness {
        Harness::with_settings(Settings::default())
    }

    pub fn with_settings(settings: Settings) -> Harness {
        let dir = tempfile::tempdir().expect("temp dir");
        let app = Factdesk::open_with_settings(dir.path(), settings).expect("open data dir");
        Harness { dir, app }
    }

    /// Imports `sources` into `corpus`, blocking until done.
    pub fn import(&self, sources: &[&str], corpus: &str) -> ImportSummary {
        self.import_request(ImportRequest {
            sources: sources.iter().map(|s| s.to_string()).collect(),
            corpus: corpus.into(),
            ..ImportRequest::default()
        })
    }

    pub fn import_request(&self, request: ImportRequest) -> ImportSummary {
        self.import_with_cancel(request, CancelToken::new())
    }

    pub fn import_with_cancel(&self, request: ImportRequest, cancel: CancelToken) -> ImportSummary {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime");
        runtime
            .block_on(self.app.import(request, Arc::new(NoProgress), cancel))
            .expect("import runs")
    }

    /// A path inside the data directory's temp folder, as a string.
    pub fn path(&self, name: &str) -> String {
        self.dir.path().join(name).display().to_string()
    }

    /// Writes a file in a scratch folder beside the data and returns its path.
    pub fn write(&self, name: &str, bytes: &[u8]) -> String {
        let path = self.dir.path().join("input").join(name);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, bytes).expect("write fixture");
        path.display().to_string()
    }
}

impl Default for Harness {
    fn default() -> Self {
        Harness::new()
    }
}
