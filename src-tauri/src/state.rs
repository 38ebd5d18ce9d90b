//! The app's state: the open data directory, held so that it can be replaced. Saving the
//! settings reopens the data directory with them, and the commands that follow use the new
//! [`Factdesk`]; an action already running (an import, a batch of checks) finishes on the one
//! it started with. The state is complete before the first window exists.

use std::sync::{PoisonError, RwLock};

use factdesk_core::Factdesk;

/// The open data directory, behind a lock that is held only to clone or swap it.
#[derive(Debug)]
pub struct AppState {
    factdesk: RwLock<Factdesk>,
}

impl AppState {
    pub fn new(factdesk: Factdesk) -> AppState {
        AppState { factdesk: RwLock::new(factdesk) }
    }

    /// The data directory as it is open now (a cheap clone that shares everything).
    pub fn current(&self) -> Factdesk {
        // A panic while holding the lock cannot leave a half-replaced value.
        self.factdesk.read().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Puts a newly opened data directory in place of the current one.
    pub fn replace(&self, factdesk: Factdesk) {
        *self.factdesk.write().unwrap_or_else(PoisonError::into_inner) = factdesk;
    }
}
