//! The leases on a run's subjects that keep two processes running the same run on disjoint
//! subjects: how long one lasts, whether its holder is alive, and giving one up.

use factdesk_model::{RunId, SubjectId};
use factdesk_store::LeaseHolder;

use crate::Factdesk;

/// How long a lease on a subject lasts. A subject's model calls may take minutes; a lease of a
/// process that died is taken over at once (its process id is checked), so this only bounds a
/// process that hangs.
pub(super) const LEASE_SECONDS: u64 = 3600;

/// Whether process `pid` is alive on this machine (on Linux, by `/proc`; elsewhere it is taken
/// to be, and its leases end when they expire).
pub(super) fn process_alive(pid: u32) -> bool {
    if pid == std::process::id() || !cfg!(target_os = "linux") {
        return true;
    }
    std::path::Path::new(&format!("/proc/{pid}")).exists()
}

impl Factdesk {
    /// Gives up a lease; a failure to do so only delays another process (until the lease
    /// expires or this process ends), so it is logged, not raised.
    pub(super) fn release(&self, run: RunId, subject: SubjectId, holder: &LeaseHolder) {
        if let Err(error) =
            self.store().and_then(|store| Ok(store.release_lease(run, subject, holder)?))
        {
            tracing::warn!(%run, %subject, %error, "could not release a subject lease");
        }
    }
}
