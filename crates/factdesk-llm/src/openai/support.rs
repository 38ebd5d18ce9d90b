//! What each server and model has shown it takes of output constraints (JSON Schemas,
//! GBNF grammars), learned once per process and shared by every provider of them, and whether
//! an error body refuses a request's constraint.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use crate::ConstraintKind;

/// What a server and model have shown of one kind of output constraint.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize, ts_rs::TS,
)]
#[serde(rename_all = "snake_case")]
pub enum Support {
    /// No request has carried one yet.
    #[default]
    NotTried,
    /// Sent, and answered without objection.
    Accepted,
    /// Refused (an error naming the field, or a strict server's unknown-field error): not sent
    /// again.
    Refused,
    /// Taken without objection, but an answer was not of the shape asked for
    /// ([`LanguageModel::constraint_ignored`]): not chosen again.
    Ignored,
}

/// What one server and model have shown they take of output constraints, for the settings.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
pub struct ServerSupport {
    pub base_url: String,
    pub model: String,
    /// JSON Schemas (`response_format`).
    pub json_schema: Support,
    /// GBNF grammars (`grammar`, llama.cpp's field).
    pub grammar: Support,
    /// The form a JSON Schema goes in: `json_schema` (OpenAI's) or `json_object`
    /// (llama-cpp-python's, after the server refused OpenAI's).
    pub schema_form: String,
}

/// What a server has shown it takes of output constraints.
#[derive(Debug, Default)]
pub(super) struct Learned {
    /// Per kind of constraint, what became of it (absent: not tried).
    seen: Mutex<BTreeMap<ConstraintKind, Support>>,
    /// Whether a JSON Schema goes in llama-cpp-python's form (`{"type": "json_object",
    /// "schema": …}`), after the server refused OpenAI's (`json_schema`).
    pub(super) json_object_form: std::sync::atomic::AtomicBool,
}

impl Learned {
    pub(super) fn get(&self, kind: ConstraintKind) -> Support {
        let seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        seen.get(&kind).copied().unwrap_or_default()
    }

    /// Notes `support` for `kind`: a refusal or an ignored constraint is kept (an answer taken
    /// later does not undo it).
    pub(super) fn note(&self, kind: ConstraintKind, support: Support) {
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        let known = seen.entry(kind).or_default();
        if matches!(*known, Support::NotTried | Support::Accepted) {
            *known = support;
        }
    }

    pub(super) fn support(&self, base_url: &str, model: &str) -> ServerSupport {
        let json_object = self.json_object_form.load(std::sync::atomic::Ordering::Relaxed);
        ServerSupport {
            base_url: base_url.to_owned(),
            model: model.to_owned(),
            json_schema: self.get(ConstraintKind::JsonSchema),
            grammar: self.get(ConstraintKind::Grammar),
            schema_form: if json_object { "json_object" } else { "json_schema" }.to_owned(),
        }
    }
}

/// What each server and model has shown, by base URL and model.
type ServersLearned = std::collections::HashMap<(String, String), Arc<Learned>>;

fn servers_learned() -> std::sync::MutexGuard<'static, ServersLearned> {
    static LEARNED: std::sync::OnceLock<Mutex<ServersLearned>> = std::sync::OnceLock::new();
    LEARNED.get_or_init(Mutex::default).lock().unwrap_or_else(PoisonError::into_inner)
}

/// What the server at `base_url` has shown it takes for `model`: one record per server and
/// model for the process's life, so the providers a run makes (one per check, say) learn once.
pub(super) fn learned(base_url: &str, model: &str) -> Arc<Learned> {
    servers_learned().entry((base_url.to_owned(), model.to_owned())).or_default().clone()
}

/// What the server at `base_url` (as [`OpenAiSettings::new`] spells it) has shown this process
/// it takes for `model`; every kind not tried when no request has gone to it.
pub fn support(base_url: &str, model: &str) -> ServerSupport {
    let base_url = base_url.trim_end_matches('/');
    match servers_learned().get(&(base_url.to_owned(), model.to_owned())) {
        Some(learned) => learned.support(base_url, model),
        None => Learned::default().support(base_url, model),
    }
}

/// What every server and model this process has talked to has shown, by base URL and model.
pub fn known_support() -> Vec<ServerSupport> {
    let mut known: Vec<ServerSupport> = servers_learned()
        .iter()
        .map(|((base_url, model), learned)| learned.support(base_url, model))
        .collect();
    known.sort_by(|a, b| (&a.base_url, &a.model).cmp(&(&b.base_url, &b.model)));
    known
}

/// Whether an error body refuses a request's output constraint: it names the field
/// (`response_format`, `json_schema`, `grammar`), or says a field is unknown, unrecognised,
/// not permitted or unsupported (servers that name no field).
pub(super) fn refuses_constraint(body: &str) -> bool {
    let body = body.to_lowercase();
    [
        "response_format",
        "json_schema",
        "grammar",
        "unsupported",
        "not supported",
        "unknown field",
        "unrecognized",
        "unrecognised",
        "extra inputs are not permitted",
        "extra_forbidden",
    ]
    .iter()
    .any(|clue| body.contains(clue))
}
