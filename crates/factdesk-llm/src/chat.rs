//! The vocabulary of chat completion: messages, sampling parameters, output constraints,
//! completions with token counts and log-probabilities, and short-answer probabilities.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::{LanguageModel, LlmError};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ChatMessage {
    pub role: Role,
    pub content: String,
}

impl ChatMessage {
    pub fn system(content: impl Into<String>) -> ChatMessage {
        ChatMessage { role: Role::System, content: content.into() }
    }
    pub fn user(content: impl Into<String>) -> ChatMessage {
        ChatMessage { role: Role::User, content: content.into() }
    }
    pub fn assistant(content: impl Into<String>) -> ChatMessage {
        ChatMessage { role: Role::Assistant, content: content.into() }
    }
}

/// How to sample.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SamplingParams {
    pub temperature: f32,
    pub top_p: f32,
    pub max_tokens: u32,
    /// Fixed seed for reproducible sampling (where the backend honours it).
    pub seed: Option<u64>,
    pub stop: Vec<String>,
    /// Number of completions for the same prompt.
    pub n: u32,
    /// Return the log-probability of each generated token.
    pub logprobs: bool,
    /// With `logprobs`, also the most likely alternatives at each position (at most 20).
    pub top_logprobs: Option<u8>,
}

impl Default for SamplingParams {
    fn default() -> Self {
        SamplingParams {
            temperature: 0.0,
            top_p: 1.0,
            max_tokens: 256,
            seed: None,
            stop: Vec::new(),
            n: 1,
            logprobs: false,
            top_logprobs: None,
        }
    }
}

/// A constraint on the shape of the output, where the backend supports one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "value")]
pub enum OutputConstraint {
    /// A JSON object matching this JSON Schema.
    JsonSchema(serde_json::Value),
    /// A GBNF grammar (llama.cpp).
    Grammar(String),
}

impl OutputConstraint {
    pub fn kind(&self) -> ConstraintKind {
        match self {
            OutputConstraint::JsonSchema(_) => ConstraintKind::JsonSchema,
            OutputConstraint::Grammar(_) => ConstraintKind::Grammar,
        }
    }

    /// The constraint to send `model` for an answer of one shape: its GBNF `grammar` where the
    /// model enforces grammars and the shape has one, else its JSON `schema` where the model
    /// may accept schemas, else none (the answer is then read as free text).
    pub fn for_model<M: LanguageModel + ?Sized>(
        model: &M,
        schema: serde_json::Value,
        grammar: Option<String>,
    ) -> Option<OutputConstraint> {
        match grammar {
            Some(grammar) if model.may_accept(ConstraintKind::Grammar) => {
                Some(OutputConstraint::Grammar(grammar))
            }
            _ if model.may_accept(ConstraintKind::JsonSchema) => {
                Some(OutputConstraint::JsonSchema(schema))
            }
            _ => None,
        }
    }
}

/// The kind of an [`OutputConstraint`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConstraintKind {
    JsonSchema,
    Grammar,
}

/// What became of a request's constraint, noted on its [`Completion`] (and so in the call's
/// audit record). A backend that accepts a constraint may still answer outside it: whether
/// the answer has the shape asked for is the caller's to check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConstraintOutcome {
    /// Sent, and the backend answered without objecting (the embedded model enforces its
    /// grammars).
    Accepted,
    /// Sent and refused by the server; the request was sent again once without it, and the
    /// answer is that second one's.
    Refused,
    /// Not sent: the server refused this kind of constraint to an earlier request.
    Withheld,
}

/// Which prompt template produced the messages, for the audit record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TemplateRef {
    pub id: String,
    pub version: u32,
}

/// One request to a model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompletionRequest {
    pub messages: Vec<ChatMessage>,
    pub params: SamplingParams,
    pub constraint: Option<OutputConstraint>,
    pub template: Option<TemplateRef>,
}

impl CompletionRequest {
    /// A request of these messages with default (greedy) parameters.
    pub fn new(messages: Vec<ChatMessage>) -> CompletionRequest {
        CompletionRequest {
            messages,
            params: SamplingParams::default(),
            constraint: None,
            template: None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    /// The model ended its answer (or hit a stop sequence).
    Stop,
    /// `max_tokens` was reached: the text is cut short.
    Length,
    Other,
}

/// A generated token with its log-probability and the most likely alternatives.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TokenLogprob {
    pub token: String,
    pub logprob: f32,
    pub top: Vec<(String, f32)>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Choice {
    pub text: String,
    pub finish_reason: FinishReason,
    pub logprobs: Option<Vec<TokenLogprob>>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenUsage {
    pub prompt_tokens: u32,
    pub completion_tokens: u32,
}

/// A model's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Completion {
    pub choices: Vec<Choice>,
    pub usage: TokenUsage,
    /// The model that answered, as the backend names it.
    pub model: String,
    /// The audit record of this call, when it went through an [`crate::AuditedModel`].
    pub audit_id: Option<i64>,
    /// True when the audit layer served it from an earlier identical call.
    pub replayed: bool,
    /// What became of the request's constraint; none when it had none (or the backend does
    /// not say).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constraint: Option<ConstraintOutcome>,
}

impl Completion {
    /// The first choice's text ("" when there is none).
    pub fn text(&self) -> &str {
        self.choices.first().map_or("", |choice| choice.text.as_str())
    }
}

/// Which provider and model a [`LanguageModel`] is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelInfo {
    /// `openai-compatible` or `embedded`.
    pub provider: String,
    pub model: String,
    /// The endpoint or model file.
    pub location: String,
}

/// Probabilities of short answers, normalised over the answers asked about.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnswerProbabilities {
    pub probabilities: BTreeMap<String, f64>,
    /// `logprobs` when read from token probabilities, `samples` when counted from samples.
    pub method: String,
    pub usage: TokenUsage,
}

impl AnswerProbabilities {
    pub fn get(&self, answer: &str) -> f64 {
        self.probabilities.get(answer).copied().unwrap_or(0.0)
    }
}

/// Normalises a generated token or answer for matching against short answers: trimmed,
/// lower-case, without surrounding punctuation.
pub fn normalise_answer(text: &str) -> String {
    text.trim().trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase()
}

/// The answer that `text` starts with, if any (e.g. "Yes, because…" → "yes").
pub fn leading_answer<'a>(text: &str, answers: &[&'a str]) -> Option<&'a str> {
    let first_word: String = text
        .trim_start()
        .chars()
        .skip_while(|c| !c.is_alphanumeric())
        .take_while(|c| c.is_alphanumeric())
        .collect::<String>()
        .to_lowercase();
    answers.iter().copied().find(|answer| normalise_answer(answer) == first_word)
}

/// The default of [`LanguageModel::answer_probabilities`]: one token with top log-probs;
/// without log-probs, `samples` sampled answers counted (at temperature 1 unless set).
pub async fn answer_probabilities_via_completions<M: LanguageModel + ?Sized>(
    model: &M,
    request: &CompletionRequest,
    answers: &[&str],
    samples: u32,
) -> Result<AnswerProbabilities, LlmError> {
    let mut probe = request.clone();
    probe.params.max_tokens = 1;
    probe.params.n = 1;
    probe.params.logprobs = true;
    probe.params.top_logprobs = Some(20);
    let completion = model.complete(&probe).await?;
    let mut usage = completion.usage;
    if let Some(first) =
        completion.choices.first().and_then(|c| c.logprobs.as_ref()).and_then(|l| l.first())
    {
        let mut mass: BTreeMap<String, f64> =
            answers.iter().map(|a| (a.to_string(), 0.0)).collect();
        let mut candidates = first.top.clone();
        if candidates.is_empty() {
            candidates.push((first.token.clone(), first.logprob));
        }
        for (token, logprob) in candidates {
            if let Some(answer) = leading_answer(&token, answers) {
                *mass.entry(answer.to_string()).or_default() += f64::from(logprob).exp();
            }
        }
        let total: f64 = mass.values().sum();
        if total > 0.0 {
            for value in mass.values_mut() {
                *value /= total;
            }
            return Ok(AnswerProbabilities {
                probabilities: mass,
                method: "logprobs".into(),
                usage,
            });
        }
    }
    // No usable log-probabilities: count sampled answers.
    let mut sampled = request.clone();
    sampled.params.n = samples.max(1);
    sampled.params.max_tokens = sampled.params.max_tokens.clamp(1, 8);
    if sampled.params.temperature == 0.0 {
        sampled.params.temperature = 1.0;
    }
    let completion = model.complete(&sampled).await?;
    usage.prompt_tokens += completion.usage.prompt_tokens;
    usage.completion_tokens += completion.usage.completion_tokens;
    let mut counts: BTreeMap<String, f64> = answers.iter().map(|a| (a.to_string(), 0.0)).collect();
    for choice in &completion.choices {
        if let Some(answer) = leading_answer(&choice.text, answers) {
            *counts.entry(answer.to_string()).or_default() += 1.0;
        }
    }
    let total: f64 = counts.values().sum();
    if total == 0.0 {
        return Err(LlmError::InvalidResponse {
            endpoint: model.info().location,
            message: format!(
                "none of {} sampled answers started with {}",
                completion.choices.len(),
                answers.join(" / ")
            ),
        });
    }
    for value in counts.values_mut() {
        *value /= total;
    }
    Ok(AnswerProbabilities { probabilities: counts, method: "samples".into(), usage })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leading_answers_are_recognised() {
        let answers = ["yes", "no"];
        assert_eq!(leading_answer("Yes, it is.", &answers), Some("yes"));
        assert_eq!(leading_answer("  **No**", &answers), Some("no"));
        assert_eq!(leading_answer(" yes", &answers), Some("yes"));
        assert_eq!(leading_answer("Nope", &answers), None);
        assert_eq!(leading_answer("", &answers), None);
    }
}
