//! The core's error type. Messages name the input and say what to do next; [`CoreError::code`]
//! gives shells a stable code for the cases they act on.

use std::path::PathBuf;

/// Errors of application actions.
#[derive(Debug, thiserror::Error)]
pub enum CoreError {
    #[error(transparent)]
    Store(#[from] factdesk_store::StoreError),
    #[error(transparent)]
    Index(#[from] factdesk_index::IndexError),
    #[error(transparent)]
    Fetch(#[from] factdesk_fetch::FetchError),
    #[error(transparent)]
    Model(#[from] factdesk_llm::LlmError),
    #[error(
        "{url} is not in the page archive, and offline mode is on (fetch.offline or \
         FACTDESK_OFFLINE), so it was not fetched; fetch it once with offline mode off (a \
         Wikipedia article can also be read offline from a Wikipedia ZIM file: \
         fetch.wikipedia_zim)"
    )]
    NotArchived { url: String },
    #[error("{url} is not a text page Factdesk can read: {reason}")]
    NotTextPage { url: String, reason: String },
    /// The page arrived, but its text was not read out of it within the budget for a page.
    #[error(
        "{url} arrived in {downloaded_secs:.1} s, but its text could not be extracted within \
         the {seconds} s a page may take in all (fetch.total_timeout_secs)"
    )]
    PageDeadline { url: String, seconds: u64, downloaded_secs: f64 },
    #[error("settings in {file}: {message}")]
    Config { file: String, message: String },
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A long action stopped when asked to; what it did is kept, and `resume` continues it.
    #[error("{what} was cancelled; {resume} to continue where it stopped")]
    Cancelled { what: String, resume: String },
    #[error("{0}")]
    InvalidInput(String),
    #[error("internal error: {0}")]
    Internal(String),
}

impl CoreError {
    /// A stable code for shells: `not_found`, `invalid_input`, `config`, `database_too_new`,
    /// `index_busy`, `fetch`, `forbidden` (a URL refused by the address policy),
    /// `not_archived` (offline, and the page was never fetched), `model`, `cancelled`, `io` or
    /// `internal`.
    pub fn code(&self) -> &'static str {
        use factdesk_index::IndexError;
        use factdesk_store::StoreError;
        match self {
            CoreError::Store(StoreError::NotFound { .. }) => "not_found",
            CoreError::Store(StoreError::DatabaseTooNew { .. }) => "database_too_new",
            CoreError::Store(_) => "internal",
            CoreError::Index(IndexError::WriterBusy { .. }) => "index_busy",
            CoreError::Index(IndexError::EmptyQuery { .. }) => "invalid_input",
            CoreError::Index(_) => "internal",
            CoreError::Fetch(factdesk_fetch::FetchError::Forbidden { .. }) => "forbidden",
            CoreError::Fetch(_)
            | CoreError::NotTextPage { .. }
            | CoreError::PageDeadline { .. } => "fetch",
            CoreError::NotArchived { .. } => "not_archived",
            CoreError::Model(_) => "model",
            CoreError::Config { .. } => "config",
            CoreError::Io { .. } => "io",
            CoreError::Cancelled { .. } => "cancelled",
            CoreError::InvalidInput(_) => "invalid_input",
            CoreError::Internal(_) => "internal",
        }
    }
}

pub type Result<T, E = CoreError> = std::result::Result<T, E>;
