//! Every environment variable Factdesk reads, named in one place.

use std::path::PathBuf;

/// The data directory (database, search index, user config); `--data-dir` wins over it.
pub const DATA_DIR: &str = "FACTDESK_DATA_DIR";
/// A user config file to read instead of `<data dir>/config.toml`.
pub const CONFIG: &str = "FACTDESK_CONFIG";
/// The log filter, in `tracing` syntax (e.g. `info`, `factdesk_core=debug`).
pub const LOG: &str = "FACTDESK_LOG";

/// An OpenAI-compatible endpoint (e.g. `http://localhost:11434/v1`); overrides `llm.base_url`.
pub const LLM_BASE_URL: &str = "FACTDESK_LLM_BASE_URL";
/// The model name at that endpoint; overrides `llm.model`.
pub const LLM_MODEL: &str = "FACTDESK_LLM_MODEL";
/// The endpoint's API key; overrides `llm.api_key`.
pub const LLM_API_KEY: &str = "FACTDESK_LLM_API_KEY";
/// Where model files live (default: `<platform data folder>/factdesk/models`, else the folder
/// an installed package brings, `/usr/lib/factdesk/models`).
pub const MODELS_DIR: &str = "FACTDESK_MODELS_DIR";

/// Hosts fetched although local or private, comma-separated; added to `fetch.allow_hosts`.
pub const FETCH_ALLOW_HOSTS: &str = "FACTDESK_FETCH_ALLOW_HOSTS";
/// `1` serves web pages only from the archive (as `fetch.offline = true`); `0` turns that off.
pub const OFFLINE: &str = "FACTDESK_OFFLINE";

/// The value of an environment variable, if set and not empty.
pub fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|value| !value.trim().is_empty())
}

/// A yes/no value as environment variables spell it: 1/0, true/false, yes/no, on/off.
pub fn parse_flag(value: &str) -> Option<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Some(true),
        "0" | "false" | "no" | "off" => Some(false),
        _ => None,
    }
}

/// Where data lives when neither `--data-dir` nor `FACTDESK_DATA_DIR` says:
/// the platform's data folder (`~/.local/share/factdesk` on Linux).
pub fn default_data_dir() -> PathBuf {
    dirs::data_dir().unwrap_or_else(|| PathBuf::from(".")).join("factdesk")
}

/// Where model files live: `FACTDESK_MODELS_DIR`, else the user's folder
/// (`~/.local/share/factdesk/models` on Linux, where `scripts/fetch-models.sh` puts them) if
/// it exists, else the folder an installed package brings (`/usr/lib/factdesk/models`); one
/// rule for every model ([`factdesk_llm::embeddings::models_dir`]).
pub fn models_dir() -> PathBuf {
    factdesk_llm::embeddings::models_dir()
}
