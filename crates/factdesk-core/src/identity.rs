//! What identifies a run, built one way for every method: `{"method", "config", "models"}`,
//! and `"inputs"` for a run over inputs that no collection holds (TTS's question and
//! documents). It is stored as the run's parameters: a batch continues the unfinished run of
//! the same identity, `skip_checked` leaves out the subjects any run of it already did, and a
//! summary resumes the unfinished run over the same question and documents.
//!
//! The config is the method's configuration as the run resolved it from its settings section
//! and the options, serialised whole, so a field a method adds is part of its identity without
//! a change here; the models are the ones the run asks. Runs stored in another shape before
//! migration 0018 were rewritten into this one.

use factdesk_model::{CollectionId, RunId};
use serde::Serialize;

use crate::{CoreError, Factdesk, Result};

/// The models a run asks: the chat model when the method talks to it, and the NLI judge when
/// the method judges evidence with one.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RunModels {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chat: Option<String>,
    /// `llm`, `factdesk-verifier` or `cross-encoder:<folder>`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nli: Option<String>,
}

/// A run's identity (see the module's documentation).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunIdentity {
    pub method: String,
    pub config: serde_json::Value,
    pub models: RunModels,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inputs: Option<serde_json::Value>,
}

impl RunIdentity {
    /// The identity of a run of `method` with `config`, asking `models`.
    pub fn new(method: &str, config: &impl Serialize, models: RunModels) -> Result<RunIdentity> {
        Ok(RunIdentity {
            method: method.to_owned(),
            config: to_json(method, "configuration", config)?,
            models,
            inputs: None,
        })
    }

    /// The same identity over `inputs` that no collection holds.
    pub fn over(mut self, inputs: &impl Serialize) -> Result<RunIdentity> {
        self.inputs = Some(to_json(&self.method, "inputs", inputs)?);
        Ok(self)
    }

    /// The run's stored parameters.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!(self)
    }

    /// The model a run's row names: the chat model if the run asks it, else the NLI judge.
    pub fn model_label(&self) -> Option<&str> {
        self.models.chat.as_deref().or(self.models.nli.as_deref())
    }
}

fn to_json(method: &str, what: &str, value: &impl Serialize) -> Result<serde_json::Value> {
    serde_json::to_value(value)
        .map_err(|error| CoreError::Internal(format!("the {what} of a {method} run: {error}")))
}

impl Factdesk {
    /// Records a new run with `identity`, over `collection` if it has one.
    pub(crate) fn create_run(
        &self,
        identity: &RunIdentity,
        collection: Option<CollectionId>,
    ) -> Result<RunId> {
        let parameters = identity.to_json();
        Ok(self.store()?.create_run(
            &identity.method,
            &parameters,
            identity.model_label(),
            collection,
        )?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_identity_reads_method_config_models_and_inputs() {
        #[derive(Serialize)]
        struct Config {
            tau: f64,
            rounds: u32,
        }
        let models = RunModels { chat: Some("embedded:smollm2".into()), nli: None };
        let identity = RunIdentity::new("tts", &Config { tau: 0.1, rounds: 2 }, models).unwrap();
        assert_eq!(
            identity.to_json(),
            serde_json::json!({
                "method": "tts",
                "config": {"tau": 0.1, "rounds": 2},
                "models": {"chat": "embedded:smollm2"},
            })
        );
        let over = identity.over(&serde_json::json!({"question": "Who?", "documents": [3, 1]}));
        let over = over.unwrap();
        assert_eq!(
            over.to_json()["inputs"],
            serde_json::json!({"question": "Who?", "documents": [3, 1]})
        );
        assert_eq!(over.model_label(), Some("embedded:smollm2"));
        let judged = RunIdentity::new(
            "corpus-nli",
            &serde_json::json!({}),
            RunModels { chat: None, nli: Some("factdesk-verifier".into()) },
        )
        .unwrap();
        assert_eq!(judged.model_label(), Some("factdesk-verifier"));
    }
}
