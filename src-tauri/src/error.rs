//! What a failed command sends to the UI. Its own module so that the commands and the tasks
//! they start ([`crate::tasks`]) both use it without depending on each other.

use factdesk_core::CoreError;
use serde::Serialize;

/// What a failed command sends to the UI: a stable code the UI can act on (the core's codes,
/// plus `internal` for failures of the shell itself) and a message for the user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct CommandError {
    pub code: &'static str,
    pub message: String,
}

impl From<CoreError> for CommandError {
    fn from(error: CoreError) -> Self {
        CommandError { code: error.code(), message: error.to_string() }
    }
}

impl From<tauri::Error> for CommandError {
    fn from(error: tauri::Error) -> Self {
        CommandError { code: "internal", message: error.to_string() }
    }
}

pub type CommandResult<T> = Result<T, CommandError>;

pub(crate) fn invalid(message: String) -> CommandError {
    CommandError { code: "invalid_input", message }
}
