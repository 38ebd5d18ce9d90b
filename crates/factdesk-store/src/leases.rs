//! The `subject_leases` table: which batch of which process is working on a subject of a run,
//! so that two processes running the same run never work on the same subject at once.

use std::time::{SystemTime, UNIX_EPOCH};

use factdesk_model::{RunId, SubjectId};
use rusqlite::{OptionalExtension, params};

use crate::{Result, Store};

/// Who holds leases: one batch of one process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaseHolder {
    pub name: String,
    pub pid: u32,
}

impl LeaseHolder {
    /// A holder for a new batch of this process.
    pub fn this_process() -> LeaseHolder {
        let pid = std::process::id();
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
        LeaseHolder { name: format!("{pid}:{nanos:08x}"), pid }
    }
}

fn key(subject: SubjectId) -> String {
    match subject {
        SubjectId::Claim(id) => format!("claim:{id}"),
        SubjectId::Passage(id) => format!("passage:{id}"),
    }
}

fn now_secs() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

impl Store {
    /// Takes the lease on `subject` of `run` for `holder` for `seconds`, and answers whether
    /// it holds it now. A lease held by another holder is taken over only when it has expired
    /// or `alive` says its process is gone (killed, crashed).
    pub fn take_lease(
        &mut self,
        run: RunId,
        subject: SubjectId,
        holder: &LeaseHolder,
        seconds: u64,
        alive: impl Fn(u32) -> bool,
    ) -> Result<bool> {
        let key = key(subject);
        let now = now_secs();
        let tx = self.conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let current: Option<(String, i64, i64)> = tx
            .query_row(
                "SELECT holder, pid, expires_at FROM subject_leases WHERE run_id = ?1 AND subject = ?2",
                params![run.0, key],
                |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
            )
            .optional()?;
        if let Some((other, pid, expires_at)) = &current
            && *other != holder.name
            && *expires_at > now
            && alive(*pid as u32)
        {
            return Ok(false);
        }
        tx.execute(
            "INSERT INTO subject_leases (run_id, subject, holder, pid, expires_at)
             VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (run_id, subject) DO UPDATE
             SET holder = excluded.holder, pid = excluded.pid, expires_at = excluded.expires_at",
            params![run.0, key, holder.name, holder.pid, now + seconds as i64],
        )?;
        tx.commit()?;
        Ok(true)
    }

    /// Gives up `holder`'s lease on `subject` of `run` (nothing if another holds it).
    pub fn release_lease(
        &self,
        run: RunId,
        subject: SubjectId,
        holder: &LeaseHolder,
    ) -> Result<()> {
        self.conn.execute(
            "DELETE FROM subject_leases WHERE run_id = ?1 AND subject = ?2 AND holder = ?3",
            params![run.0, key(subject), holder.name],
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use factdesk_model::ClaimId;

    use super::*;

    #[test]
    fn a_lease_is_held_by_one_holder_until_released_expired_or_orphaned() {
        let mut store = Store::open_in_memory().unwrap();
        let run = store.create_run("toy", &serde_json::json!({}), None, None).unwrap();
        let subject = SubjectId::Claim(ClaimId(1));
        let first = LeaseHolder { name: "1:a".into(), pid: 1 };
        let second = LeaseHolder { name: "2:b".into(), pid: 2 };
        let alive = |_: u32| true;
        assert!(store.take_lease(run, subject, &first, 60, alive).unwrap());
        assert!(store.take_lease(run, subject, &first, 60, alive).unwrap(), "its own lease");
        assert!(!store.take_lease(run, subject, &second, 60, alive).unwrap());
        // Another subject is free.
        assert!(store.take_lease(run, SubjectId::Claim(ClaimId(2)), &second, 60, alive).unwrap());
        // The holder's process is gone: the lease is taken over.
        assert!(store.take_lease(run, subject, &second, 60, |pid| pid != 1).unwrap());
        assert!(!store.take_lease(run, subject, &first, 60, alive).unwrap());
        // Released: free again; another's release does nothing.
        store.release_lease(run, subject, &first).unwrap();
        assert!(!store.take_lease(run, subject, &first, 60, alive).unwrap());
        store.release_lease(run, subject, &second).unwrap();
        assert!(store.take_lease(run, subject, &first, 0, alive).unwrap());
        // Expired (0 seconds): taken over although its process lives.
        assert!(store.take_lease(run, subject, &second, 60, alive).unwrap());
    }
}
