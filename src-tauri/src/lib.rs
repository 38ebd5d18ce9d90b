//! The Factdesk desktop shell. It is deliberately thin: it opens the data directory, starts the
//! log, hands the open [`Factdesk`] to Tauri as managed state ([`state::AppState`], replaced
//! when the settings are saved), and exposes the commands of [`commands`] to the web UI. Each
//! command adapts one `factdesk-core` call; anything more belongs in `factdesk-core`, where the
//! CLI can use it too.
//!
//! The state is complete before the first window exists: the data directory is opened before
//! the builder runs, so no command can find it missing. The CLI may use the same data
//! directory at the same time (SQLite in WAL mode; the index has one writer at a time).

// First, so that its `command_handler!` and `command_items!` are in scope below.
#[macro_use]
pub mod command_names;
pub mod bindings;
pub mod commands;
mod error;
pub mod logs;
pub mod signature;
pub mod state;
pub mod tasks;

use std::path::PathBuf;

use factdesk_core::Factdesk;

use crate::state::AppState;
use crate::tasks::RunningTasks;

/// Registers the open data directory, the plugins and the commands (every one declared in
/// `command_names.rs`) on a builder (the real one in [`run`], a mock one in tests).
pub fn build_app<R: tauri::Runtime>(
    builder: tauri::Builder<R>,
    app: Factdesk,
) -> tauri::Builder<R> {
    builder
        .plugin(tauri_plugin_dialog::init())
        .manage(AppState::new(app))
        .manage(RunningTasks::default())
        .invoke_handler(command_handler!())
}

/// The data directory: `FACTDESK_DATA_DIR` if set, else the default the CLI uses too.
fn data_dir() -> PathBuf {
    factdesk_core::env::var(factdesk_core::env::DATA_DIR)
        .map(PathBuf::from)
        .unwrap_or_else(factdesk_core::env::default_data_dir)
}

/// Starts the log, opens the data directory, then runs the app until its last window closes.
/// If the directory cannot be opened the error is logged and printed, and the process exits
/// with status 2.
// stderr is where a failure to start can be seen when the log cannot be written.
#[allow(clippy::print_stderr)]
pub fn run() {
    let data_dir = data_dir();
    let log_writer = logs::start_logging(&data_dir)
        .inspect_err(|error| eprintln!("factdesk: {error}; going on without a log file"))
        .ok();
    tracing::info!(version = env!("CARGO_PKG_VERSION"), data_dir = %data_dir.display(), "starting");
    // An index of an older layout is rebuilt once the window is up, showing its progress.
    let app = match Factdesk::open_deferring_index_rebuild(&data_dir) {
        Ok(app) => app,
        Err(error) => {
            tracing::error!(%error, "cannot open the data directory");
            eprintln!("factdesk: cannot open the data directory {}: {error}", data_dir.display());
            drop(log_writer); // writes out the queued lines; `exit` would skip it
            std::process::exit(2);
        }
    };
    if let Err(error) = build_app(tauri::Builder::default(), app).run(tauri::generate_context!()) {
        tracing::error!(%error, "the app failed");
        eprintln!("factdesk: the app failed: {error}");
        drop(log_writer);
        std::process::exit(1);
    }
    tracing::info!("closed");
}

#[cfg(test)]
mod tests;
