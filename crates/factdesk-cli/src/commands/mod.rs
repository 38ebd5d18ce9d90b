//! The commands, one module per family, each function doing what its command does; and what
//! they share: the global options, how a command ended, the runtime and Ctrl-C.

pub mod archive;
pub mod claims;
pub mod config;
pub mod corpus;
pub mod models;
pub mod passages;
pub mod report;
pub mod revise;
pub mod summaries;
pub mod verify;

use std::path::PathBuf;

use anyhow::Context;
use factdesk_core::{CancelToken, Factdesk};

/// How a command ended, when it ended at all.
pub enum Outcome {
    Success,
    SomeFailed,
}

/// The global options every command sees: where the data is, and whether to print JSON.
pub struct Globals {
    pub data_dir: PathBuf,
    pub json: bool,
}

impl Globals {
    /// The library in the data directory. An index of an older layout is rebuilt first, its
    /// progress drawn on stderr (an interrupted rebuild goes on the next time).
    pub fn open(&self) -> anyhow::Result<Factdesk> {
        let app = Factdesk::open_deferring_index_rebuild(&self.data_dir)
            .with_context(|| format!("opening {}", self.data_dir.display()))?;
        if app.index_rebuild_pending() {
            let reporter = std::sync::Arc::new(crate::progress::BarReporter::new(self.json));
            app.finish_index_rebuild(reporter, CancelToken::new()).with_context(|| {
                format!("rebuilding the search index in {}", self.data_dir.display())
            })?;
        }
        Ok(app)
    }
}

/// A runtime for the core's async calls.
pub fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread().enable_all().build()
}

/// A cancel token that Ctrl-C fires, so a batch stops starting new items and can be resumed.
pub fn cancel_on_interrupt(runtime: &tokio::runtime::Runtime) -> CancelToken {
    let cancel = CancelToken::new();
    let on_interrupt = cancel.clone();
    runtime.spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            on_interrupt.cancel();
        }
    });
    cancel
}
