//! The desktop app's log: daily files in `<data dir>/logs/` (`factdesk-app.YYYY-MM-DD.log`),
//! the oldest deleted once there are more than [`KEPT_LOG_FILES`]. `FACTDESK_LOG` sets the
//! filter as for the CLI (`tracing` syntax); the default is `info`. Lines are written by a
//! background thread, so logging never blocks a command.

use std::path::{Path, PathBuf};

use tracing_appender::non_blocking::WorkerGuard;
use tracing_appender::rolling::{RollingFileAppender, Rotation};

/// How many daily log files are kept.
pub const KEPT_LOG_FILES: usize = 14;

/// The folder of the log files of the data directory `data_dir`.
pub fn log_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("logs")
}

/// Starts writing the log. Keep the guard until the app exits: dropping it writes out the
/// lines still queued.
pub fn start_logging(data_dir: &Path) -> Result<WorkerGuard, String> {
    let dir = log_dir(data_dir);
    let appender = RollingFileAppender::builder()
        .rotation(Rotation::DAILY)
        .filename_prefix("factdesk-app")
        .filename_suffix("log")
        .max_log_files(KEPT_LOG_FILES)
        .build(&dir)
        .map_err(|error| format!("cannot write logs to {}: {error}", dir.display()))?;
    let (writer, guard) = tracing_appender::non_blocking(appender);
    let filter = factdesk_core::env::var(factdesk_core::env::LOG).unwrap_or_else(|| "info".into());
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
        .with_writer(writer)
        .with_ansi(false)
        .try_init()
        .map_err(|error| format!("cannot start logging: {error}"))?;
    Ok(guard)
}
