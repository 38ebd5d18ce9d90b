//! The JSON of an OpenAI-compatible server's answers: a chat completion (choices,
//! log-probabilities, usage) and the list of models.

use serde::Deserialize;

use crate::FinishReason;

#[derive(Debug, Deserialize)]
pub(super) struct WireCompletion {
    #[serde(default)]
    pub(super) model: Option<String>,
    pub(super) choices: Vec<WireChoice>,
    #[serde(default)]
    pub(super) usage: Option<WireUsage>,
}

#[derive(Debug, Deserialize)]
pub(super) struct WireChoice {
    pub(super) message: WireMessage,
    #[serde(default)]
    pub(super) finish_reason: Option<String>,
    #[serde(default)]
    pub(super) logprobs: Option<WireLogprobs>,
}

#[derive(Debug, Deserialize)]
pub(super) struct WireMessage {
    #[serde(default)]
    pub(super) content: Option<String>,
}

#[derive(Debug, Deserialize)]
pub(super) struct WireLogprobs {
    #[serde(default)]
    pub(super) content: Option<Vec<WireTokenLogprob>>,
}

#[derive(Debug, Deserialize)]
pub(super) struct WireTokenLogprob {
    pub(super) token: String,
    pub(super) logprob: f32,
    #[serde(default)]
    pub(super) top_logprobs: Vec<WireTopLogprob>,
}

#[derive(Debug, Deserialize)]
pub(super) struct WireTopLogprob {
    pub(super) token: String,
    pub(super) logprob: f32,
}

#[derive(Debug, Deserialize)]
pub(super) struct WireUsage {
    #[serde(default)]
    pub(super) prompt_tokens: u32,
    #[serde(default)]
    pub(super) completion_tokens: u32,
}

#[derive(Debug, Deserialize)]
pub(super) struct WireModels {
    pub(super) data: Vec<WireModel>,
}

#[derive(Debug, Deserialize)]
pub(super) struct WireModel {
    pub(super) id: String,
}

pub(super) fn finish_reason(reason: Option<&str>) -> FinishReason {
    match reason {
        Some("stop") | Some("eos") | None => FinishReason::Stop,
        Some("length") => FinishReason::Length,
        Some(_) => FinishReason::Other,
    }
}
