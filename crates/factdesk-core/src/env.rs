//! Every environment variable Factdesk reads, named in one place.

use std::path::PathBuf;

/// The data directory (database, search index, user config); `--data-dir` wins over it.
pub const DATA_DIR: &str = "FACTDESK_DATA_DIR";
/// A user config file to read instead of `<data dir>/config.toml`.
pub const CONFIG: &str = "FACTDESK_CONFIG";
/// The log filter, in `tracing` syntax (e.g. `info`, `factdesk_core=debug`).
pub const LOG: &str = "FACTDESK_LOG";

/// The value of an environment variable, if set and not empty.
pub fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|value| !value.trim().is_empty())
}

/// Where data lives when neither `--data-dir` nor `FACTDESK_DATA_DIR` says:
/// the platform's data folder (`~/.local/share/factdesk` on Linux).
pub fn default_data_dir() -> PathBuf {
    dirs::data_dir().unwrap_or_else(|| PathBuf::from(".")).join("factdesk")
}
