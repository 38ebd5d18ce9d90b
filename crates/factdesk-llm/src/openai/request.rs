//! The JSON body of a chat request: messages, sampling parameters and the output constraint
//! in the form the server is known to take.

use super::OpenAiCompatible;
use crate::{CompletionRequest, OutputConstraint};

impl OpenAiCompatible {
    /// The JSON body of `request`, with its constraint when `constrained`, a JSON Schema in
    /// llama-cpp-python's form when `object_form`.
    pub(super) fn body(
        &self,
        request: &CompletionRequest,
        constrained: bool,
        object_form: bool,
    ) -> serde_json::Value {
        let params = &request.params;
        let constraint = request.constraint.as_ref().filter(|_| constrained);
        let mut body = serde_json::json!({
            "model": self.settings.model,
            "messages": request.messages,
            "temperature": params.temperature,
            "top_p": params.top_p,
            "max_tokens": params.max_tokens,
            "n": params.n.max(1),
            "stream": false,
        });
        if let Some(seed) = params.seed {
            body["seed"] = seed.into();
        }
        // A stop sequence of whitespace alone ("\n", "\n\n") would cut a JSON answer at its
        // first line break; the schema ends the answer instead.
        let stop: Vec<&String> = params
            .stop
            .iter()
            .filter(|stop| {
                !matches!(constraint, Some(OutputConstraint::JsonSchema(_)))
                    || !stop.trim().is_empty()
            })
            .collect();
        if !stop.is_empty() {
            body["stop"] = serde_json::json!(stop);
        }
        if params.logprobs {
            body["logprobs"] = true.into();
            if let Some(top) = params.top_logprobs {
                body["top_logprobs"] = top.min(20).into();
            }
        }
        match constraint {
            Some(OutputConstraint::JsonSchema(schema)) if object_form => {
                body["response_format"] =
                    serde_json::json!({ "type": "json_object", "schema": schema });
            }
            Some(OutputConstraint::JsonSchema(schema)) => {
                body["response_format"] = serde_json::json!({
                    "type": "json_schema",
                    "json_schema": { "name": "output", "schema": schema, "strict": true },
                });
            }
            // llama.cpp's server takes a GBNF grammar; other servers may refuse the field.
            Some(OutputConstraint::Grammar(grammar)) => body["grammar"] = grammar.clone().into(),
            None => {}
        }
        body
    }
}
