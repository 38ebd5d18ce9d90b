//! The `model_calls` table: the audit record of every model call. Rows are written once and
//! never changed; JSON columns are stored as given.

use factdesk_model::{RunId, now_rfc3339};
use rusqlite::{OptionalExtension, Row, params};

use crate::{Result, Store};

/// A model call to record. JSON fields hold compact JSON text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewModelCall {
    pub run_id: Option<RunId>,
    pub request_key: String,
    pub kind: String,
    pub provider: String,
    pub model: String,
    pub template_id: Option<String>,
    pub template_version: Option<u32>,
    pub messages_json: String,
    pub parameters_json: String,
    pub seed: Option<u64>,
    pub response_json: String,
    pub prompt_tokens: u32,
    pub completion_tokens: u32,
    pub latency_ms: u64,
}

/// A recorded model call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelCallRow {
    pub id: i64,
    pub call: NewModelCall,
    pub created_at: String,
}

const COLUMNS: &str = "id, run_id, request_key, kind, provider, model, template_id, template_version,
     messages, parameters, seed, response, prompt_tokens, completion_tokens, latency_ms, created_at";

fn row_to_call(row: &Row<'_>) -> rusqlite::Result<ModelCallRow> {
    Ok(ModelCallRow {
        id: row.get(0)?,
        call: NewModelCall {
            run_id: row.get::<_, Option<i64>>(1)?.map(RunId),
            request_key: row.get(2)?,
            kind: row.get(3)?,
            provider: row.get(4)?,
            model: row.get(5)?,
            template_id: row.get(6)?,
            template_version: row.get(7)?,
            messages_json: row.get(8)?,
            parameters_json: row.get(9)?,
            seed: row.get::<_, Option<i64>>(10)?.map(|seed| seed as u64),
            response_json: row.get(11)?,
            prompt_tokens: row.get(12)?,
            completion_tokens: row.get(13)?,
            latency_ms: row.get::<_, i64>(14)? as u64,
        },
        created_at: row.get(15)?,
    })
}

impl Store {
    /// Records a model call; returns its id.
    pub fn insert_model_call(&self, call: &NewModelCall) -> Result<i64> {
        self.conn.execute(
            "INSERT INTO model_calls (run_id, request_key, kind, provider, model, template_id,
                 template_version, messages, parameters, seed, response, prompt_tokens,
                 completion_tokens, latency_ms, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
            params![
                call.run_id.map(|r| r.0),
                call.request_key,
                call.kind,
                call.provider,
                call.model,
                call.template_id,
                call.template_version,
                call.messages_json,
                call.parameters_json,
                call.seed.map(|seed| seed as i64),
                call.response_json,
                call.prompt_tokens,
                call.completion_tokens,
                call.latency_ms as i64,
                now_rfc3339(),
            ],
        )?;
        Ok(self.conn.last_insert_rowid())
    }

    /// The newest call recorded with this request key.
    pub fn model_call_by_key(&self, request_key: &str) -> Result<Option<ModelCallRow>> {
        let sql = format!(
            "SELECT {COLUMNS} FROM model_calls WHERE request_key = ?1 ORDER BY id DESC LIMIT 1"
        );
        Ok(self.conn.query_row(&sql, [request_key], row_to_call).optional()?)
    }

    /// One recorded call.
    pub fn model_call(&self, id: i64) -> Result<Option<ModelCallRow>> {
        let sql = format!("SELECT {COLUMNS} FROM model_calls WHERE id = ?1");
        Ok(self.conn.query_row(&sql, [id], row_to_call).optional()?)
    }

    /// The calls of a run, in order.
    pub fn model_calls_of_run(&self, run: RunId) -> Result<Vec<ModelCallRow>> {
        let sql = format!("SELECT {COLUMNS} FROM model_calls WHERE run_id = ?1 ORDER BY id");
        let mut statement = self.conn.prepare(&sql)?;
        let rows = statement.query_map([run.0], row_to_call)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(key: &str, response: &str) -> NewModelCall {
        NewModelCall {
            run_id: None,
            request_key: key.into(),
            kind: "completion".into(),
            provider: "scripted".into(),
            model: "m".into(),
            template_id: Some("nli/true_false".into()),
            template_version: Some(1),
            messages_json: r#"[{"role":"user","content":"hi"}]"#.into(),
            parameters_json: r#"{"temperature":0.0}"#.into(),
            seed: Some(42),
            response_json: response.into(),
            prompt_tokens: 3,
            completion_tokens: 1,
            latency_ms: 12,
        }
    }

    #[test]
    fn calls_are_found_by_key_newest_first_and_by_run() {
        let store = Store::open_in_memory().unwrap();
        let run = store.create_run("ask", &serde_json::json!({}), Some("m"), None).unwrap();
        let first = store.insert_model_call(&call("k", r#"{"n":1}"#)).unwrap();
        let second = store
            .insert_model_call(&NewModelCall { run_id: Some(run), ..call("k", r#"{"n":2}"#) })
            .unwrap();
        let found = store.model_call_by_key("k").unwrap().unwrap();
        assert_eq!((found.id, found.call.response_json.as_str()), (second, r#"{"n":2}"#));
        assert_eq!(found.call.seed, Some(42));
        assert!(store.model_call_by_key("other").unwrap().is_none());
        assert_eq!(store.model_call(first).unwrap().unwrap().call.template_version, Some(1));
        assert_eq!(store.model_calls_of_run(run).unwrap().len(), 1);
    }

    #[test]
    fn invalid_json_is_refused() {
        let store = Store::open_in_memory().unwrap();
        assert!(store.insert_model_call(&call("k", "not json")).is_err());
    }
}
