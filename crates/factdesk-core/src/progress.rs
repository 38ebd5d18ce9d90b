//! Progress reporting and cancellation for long actions. The core calls a [`Reporter`]
//! (the CLI draws progress bars with it, the desktop app sends events over IPC) and checks a
//! [`CancelToken`] between units of work, never in the middle of a write.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// What a progress total counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ProgressUnit {
    Items,
    Bytes,
}

/// Receives progress from a long action. Every method has a no-op default.
pub trait Reporter: Send + Sync {
    /// A new phase begins (`total` units if known).
    fn phase(&self, _name: &str, _total: Option<u64>, _unit: ProgressUnit) {}
    /// `amount` more units of the current phase are done.
    fn advance(&self, _amount: u64) {}
    /// What is being worked on now (a file name, a URL).
    fn working_on(&self, _item: &str) {}
    /// One item failed; the action goes on with the rest.
    fn item_failed(&self, _item: &str, _message: &str) {}
    /// The action is over.
    fn finish(&self) {}
}

/// A reporter that ignores everything.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProgress;

impl Reporter for NoProgress {}

/// A shared flag that asks a running action to stop at its next safe point.
#[derive(Debug, Clone, Default)]
pub struct CancelToken(Arc<AtomicBool>);

impl CancelToken {
    pub fn new() -> CancelToken {
        CancelToken::default()
    }

    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}
