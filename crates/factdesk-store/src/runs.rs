//! The `runs` table: one row per run of a method, with its parameters and life cycle.

use factdesk_model::{CollectionId, Run, RunId, RunStatus, now_rfc3339};
use rusqlite::{OptionalExtension, params};

use crate::{Result, Store, StoreError, parse_column};

impl Store {
    /// Records a new pending run.
    pub fn create_run(
        &self,
        method: &str,
        parameters: &serde_json::Value,
        model: Option<&str>,
        collection: Option<CollectionId>,
    ) -> Result<RunId> {
        self.conn.execute(
            "INSERT INTO runs (method, parameters, model, collection_id, status, created_at)
             VALUES (?1, ?2, ?3, ?4, 'pending', ?5)",
            params![method, parameters.to_string(), model, collection.map(|c| c.0), now_rfc3339()],
        )?;
        Ok(RunId(self.conn.last_insert_rowid()))
    }

    /// Moves a run to `status`, stamping the start or finish time and keeping `error`. A run
    /// that runs again (resumed) loses its earlier finish time.
    pub fn set_run_status(&self, run: RunId, status: RunStatus, error: Option<&str>) -> Result<()> {
        let now = now_rfc3339();
        let changed = self.conn.execute(
            "UPDATE runs SET status = ?2, error = ?3,
                 started_at = CASE WHEN ?2 = 'running' AND started_at IS NULL THEN ?4 ELSE started_at END,
                 finished_at = CASE WHEN ?2 IN ('completed', 'failed', 'cancelled') THEN ?4
                                    WHEN ?2 = 'running' THEN NULL ELSE finished_at END
             WHERE id = ?1",
            params![run.0, status.as_str(), error, now],
        )?;
        if changed == 0 {
            return Err(StoreError::NotFound { what: format!("run {run}") });
        }
        Ok(())
    }

    /// The newest run of `method` over `collection` with exactly these parameters, if it did
    /// not complete (pending, running, failed or cancelled): the run a resumed batch continues.
    /// An older unfinished run behind a completed one is not: the completed run came later.
    pub fn unfinished_run(
        &self,
        method: &str,
        parameters: &serde_json::Value,
        collection: CollectionId,
    ) -> Result<Option<RunId>> {
        let mut statement = self.conn.prepare(
            "SELECT id, parameters, status FROM runs
             WHERE method = ?1 AND collection_id = ?2
             ORDER BY id DESC",
        )?;
        let rows = statement.query_map(params![method, collection.0], |row| {
            Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?, row.get::<_, String>(2)?))
        })?;
        for row in rows {
            let (id, stored, status) = row?;
            if same_parameters(&stored, parameters) {
                return Ok((status != RunStatus::Completed.as_str()).then_some(RunId(id)));
            }
        }
        Ok(None)
    }

    /// The newest run of `method` over no collection with exactly these parameters, if it did
    /// not complete (pending, running — its process may have been killed — failed or
    /// cancelled): the run a resumed single action (a multi-source summary) continues. As with
    /// [`Store::unfinished_run`], one behind a completed run with them is not.
    pub fn unfinished_free_run(
        &self,
        method: &str,
        parameters: &serde_json::Value,
    ) -> Result<Option<RunId>> {
        let mut statement = self.conn.prepare(
            "SELECT id, parameters, status FROM runs
             WHERE method = ?1 AND collection_id IS NULL
             ORDER BY id DESC",
        )?;
        let rows = statement.query_map(params![method], |row| {
            Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?, row.get::<_, String>(2)?))
        })?;
        for row in rows {
            let (id, stored, status) = row?;
            if same_parameters(&stored, parameters) {
                return Ok((status != RunStatus::Completed.as_str()).then_some(RunId(id)));
            }
        }
        Ok(None)
    }

    /// Runs over `collection` (or every run), newest first.
    pub fn runs(&self, collection: Option<CollectionId>) -> Result<Vec<Run>> {
        let ids: Vec<i64> = {
            let mut statement = self.conn.prepare(
                "SELECT id FROM runs WHERE ?1 IS NULL OR collection_id = ?1 ORDER BY id DESC",
            )?;
            let rows = statement.query_map([collection.map(|c| c.0)], |row| row.get(0))?;
            rows.collect::<rusqlite::Result<_>>()?
        };
        ids.into_iter().map(|id| self.run(RunId(id))).collect()
    }

    /// One run.
    pub fn run(&self, id: RunId) -> Result<Run> {
        let row = self
            .conn
            .query_row(
                "SELECT id, method, parameters, model, collection_id, status, created_at,
                        started_at, finished_at, error FROM runs WHERE id = ?1",
                [id.0],
                |row| {
                    Ok((
                        row.get::<_, String>(1)?,
                        row.get::<_, String>(2)?,
                        row.get::<_, Option<String>>(3)?,
                        row.get::<_, Option<i64>>(4)?,
                        row.get::<_, String>(5)?,
                        row.get::<_, String>(6)?,
                        row.get::<_, Option<String>>(7)?,
                        row.get::<_, Option<String>>(8)?,
                        row.get::<_, Option<String>>(9)?,
                    ))
                },
            )
            .optional()?
            .ok_or_else(|| StoreError::NotFound { what: format!("run {id}") })?;
        let (
            method,
            parameters,
            model,
            collection,
            status,
            created_at,
            started_at,
            finished_at,
            error,
        ) = row;
        Ok(Run {
            id,
            method,
            parameters: serde_json::from_str(&parameters).map_err(|error| StoreError::Corrupt {
                column: "runs.parameters",
                message: error.to_string(),
            })?,
            model,
            collection_id: collection.map(CollectionId),
            status: parse_column("runs.status", &status)?,
            created_at,
            started_at,
            finished_at,
            error,
        })
    }
}

/// Whether a run's stored parameters are `parameters`, compared as JSON values (so key order
/// and spacing do not matter; unreadable stored JSON matches nothing).
pub(crate) fn same_parameters(stored: &str, parameters: &serde_json::Value) -> bool {
    serde_json::from_str::<serde_json::Value>(stored).ok().as_ref() == Some(parameters)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_life_cycle_is_recorded() {
        let store = Store::open_in_memory().unwrap();
        let parameters = serde_json::json!({"m": 4, "temperature": 0.8});
        let run = store.create_run("llm-cite", &parameters, Some("smollm2"), None).unwrap();
        assert_eq!(store.run(run).unwrap().status, RunStatus::Pending);
        store.set_run_status(run, RunStatus::Running, None).unwrap();
        store.set_run_status(run, RunStatus::Failed, Some("model unreachable")).unwrap();
        let stored = store.run(run).unwrap();
        assert_eq!(stored.status, RunStatus::Failed);
        assert_eq!(stored.parameters, parameters);
        assert!(stored.started_at.is_some() && stored.finished_at.is_some());
        assert_eq!(stored.error.as_deref(), Some("model unreachable"));
        // Resumed: running again, with its first start kept and no finish time.
        store.set_run_status(run, RunStatus::Running, None).unwrap();
        let resumed = store.run(run).unwrap();
        assert_eq!(resumed.started_at, stored.started_at);
        assert_eq!(resumed.finished_at, None);
        assert!(store.set_run_status(RunId(999), RunStatus::Running, None).is_err());
    }

    #[test]
    fn an_unfinished_run_with_the_same_parameters_is_found() {
        let store = Store::open_in_memory().unwrap();
        let collection = store.ensure_collection("demo").unwrap();
        let parameters = serde_json::json!({"m": 4, "urls": "diverse"});
        assert_eq!(store.unfinished_run("llm-cite", &parameters, collection).unwrap(), None);
        let run = store.create_run("llm-cite", &parameters, None, Some(collection)).unwrap();
        store.set_run_status(run, RunStatus::Cancelled, None).unwrap();
        // Key order does not matter; other parameters or methods are other runs.
        let same = serde_json::json!({"urls": "diverse", "m": 4});
        assert_eq!(store.unfinished_run("llm-cite", &same, collection).unwrap(), Some(run));
        assert_eq!(
            store.unfinished_run("llm-cite", &serde_json::json!({"m": 5}), collection).unwrap(),
            None
        );
        assert_eq!(store.unfinished_run("p-true", &parameters, collection).unwrap(), None);
        store.set_run_status(run, RunStatus::Completed, None).unwrap();
        assert_eq!(store.unfinished_run("llm-cite", &parameters, collection).unwrap(), None);
        assert_eq!(store.runs(Some(collection)).unwrap().len(), 1);

        // A failed run, then a completed one (started over): nothing is left to resume.
        let failed = store.create_run("llm-cite", &parameters, None, Some(collection)).unwrap();
        store.set_run_status(failed, RunStatus::Failed, Some("model unreachable")).unwrap();
        assert_eq!(
            store.unfinished_run("llm-cite", &parameters, collection).unwrap(),
            Some(failed)
        );
        let over = store.create_run("llm-cite", &parameters, None, Some(collection)).unwrap();
        store.set_run_status(over, RunStatus::Completed, None).unwrap();
        assert_eq!(store.unfinished_run("llm-cite", &parameters, collection).unwrap(), None);
    }
}
