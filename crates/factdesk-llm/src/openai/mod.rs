//! The OpenAI-compatible HTTP provider: `POST {base_url}/chat/completions` as served by
//! Ollama, llama.cpp's server, vLLM, LM Studio and OpenAI. Timeouts; bounded retries with
//! exponential backoff on 429, 5xx, timeouts and connection errors (honouring Retry-After);
//! a limit on concurrent requests; typed errors for a bad key, an unknown model and
//! unreadable answers. A request made from a prompt template names it in the
//! [`TEMPLATE_HEADER`] header (servers ignore it; test servers answer by it).
//!
//! Output constraints are found out, not assumed: a JSON Schema goes as `response_format`
//! (`json_schema`), a GBNF grammar as `grammar` (llama.cpp's and llama-cpp-python's field;
//! callers prefer it where a prompt has one, [`OutputConstraint::for_model`]). A server that
//! refuses the field (a 400 or 422 whose body names it, or says the field is unknown or
//! unsupported, as strict servers do; a 500 that is a validation error naming it, as
//! llama-cpp-python's server gives, is not retried) is asked again: a schema once in
//! llama-cpp-python's own form (`{"type": "json_object", "schema": …}`, kept for later
//! requests when it is taken), else the same request without it, and the provider remembers
//! the refusal: later requests of that kind go without the constraint, and callers are not
//! offered it ([`LanguageModel::may_accept`]). A server that takes a field and answers outside
//! it is told so by the caller ([`LanguageModel::constraint_ignored`]) and not offered that
//! kind again. The memory is the process's, one per server and model (every provider of them
//! shares it; [`support`] and [`known_support`] read it for the settings), not kept across
//! restarts. Each completion notes what became of its constraint ([`ConstraintOutcome`]),
//! which the audit layer records with the answer. An answer given as another model than
//! the one asked for ([`same_model`]) is kept under the name the server gave it, with a
//! warning naming both; the audit record keeps both names.
//!
//! The module by concern: `support` what each server has shown it takes of output
//! constraints (and whether an error refuses one), `request` a request's JSON body,
//! `transport` sending with retries, backoff, deadline and capped reads and the errors read
//! from a server's answers, `wire` the JSON of an answer.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use tokio::sync::Semaphore;

use crate::{
    Choice, Completion, CompletionRequest, ConstraintKind, ConstraintOutcome, LanguageModel,
    LlmError, ModelInfo, OutputConstraint, TokenLogprob, TokenUsage,
};

mod request;
mod support;
mod transport;
mod wire;

pub use support::{ServerSupport, Support, known_support, support};
pub use transport::MAX_ANSWER_BYTES;

use support::{Learned, learned, refuses_constraint};
use wire::{WireCompletion, WireModels, finish_reason};

/// The header naming the prompt template of a request, as `<id>@<version>` (e.g.
/// `nli/true_false@1`).
pub const TEMPLATE_HEADER: &str = "x-factdesk-template";

/// Where the server is and how to talk to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenAiSettings {
    /// Up to and including the API version, e.g. `http://localhost:11434/v1`.
    pub base_url: String,
    pub model: String,
    pub api_key: Option<String>,
    pub connect_timeout: Duration,
    /// Longest wait for one whole answer.
    pub request_timeout: Duration,
    /// Retries after the first attempt, for 429, 5xx, timeouts and connection errors.
    pub max_retries: u32,
    /// The first backoff; each retry doubles it (capped at 30 s).
    pub initial_backoff: Duration,
    /// Requests in flight at once.
    pub max_concurrency: usize,
    /// Longest time one call may take, its retries and their waits included (waiting for a
    /// free request slot is not counted): a silent server then holds a check for this long,
    /// not for every attempt's request timeout in turn.
    pub call_deadline: Duration,
    /// Whether shaped prompts send their JSON Schema (`response_format`); off, the server is
    /// never asked for a shape and every answer is read as free text.
    pub shaped_answers: bool,
}

impl OpenAiSettings {
    pub fn new(base_url: &str, model: &str) -> OpenAiSettings {
        OpenAiSettings {
            base_url: base_url.trim_end_matches('/').to_owned(),
            model: model.to_owned(),
            api_key: None,
            connect_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(300),
            max_retries: 3,
            initial_backoff: Duration::from_millis(500),
            max_concurrency: 4,
            call_deadline: Duration::from_secs(360),
            shaped_answers: true,
        }
    }
}

/// A chat model behind an OpenAI-compatible endpoint.
#[derive(Debug, Clone)]
pub struct OpenAiCompatible {
    client: reqwest::Client,
    settings: OpenAiSettings,
    permits: Arc<Semaphore>,
    /// What this server and model are known to take ([`learned`]: shared by every provider
    /// of the same server and model in the process).
    learned: Arc<Learned>,
}

impl OpenAiCompatible {
    pub fn new(settings: OpenAiSettings) -> Result<OpenAiCompatible, LlmError> {
        let client = reqwest::Client::builder()
            .connect_timeout(settings.connect_timeout)
            .timeout(settings.request_timeout)
            .build()
            .map_err(|error| LlmError::Backend(error.to_string()))?;
        let permits = Arc::new(Semaphore::new(settings.max_concurrency.max(1)));
        let learned = learned(&settings.base_url, &settings.model);
        Ok(OpenAiCompatible { client, settings, permits, learned })
    }

    pub fn settings(&self) -> &OpenAiSettings {
        &self.settings
    }

    fn url(&self, path: &str) -> String {
        format!("{}/{path}", self.settings.base_url)
    }

    /// Whether the server has refused constraints of this kind.
    pub fn refuses(&self, kind: ConstraintKind) -> bool {
        self.learned.get(kind) == Support::Refused
    }

    /// What this server and model have shown they take of output constraints.
    pub fn support(&self) -> ServerSupport {
        self.learned.support(&self.settings.base_url, &self.settings.model)
    }

    /// Whether JSON Schemas now go in llama-cpp-python's `json_object` form.
    fn json_object_form(&self) -> bool {
        self.learned.json_object_form.load(std::sync::atomic::Ordering::Relaxed)
    }

    fn remember_refusal(&self, kind: ConstraintKind) {
        tracing::info!(
            endpoint = %self.settings.base_url,
            model = %self.settings.model,
            ?kind,
            "the server refused an output constraint; it is not sent again"
        );
        self.learned.note(kind, Support::Refused);
    }

    /// The model ids the server offers (`GET {base_url}/models`).
    pub async fn list_models(&self) -> Result<Vec<String>, LlmError> {
        let text = self.send(|| self.client.get(self.url("models"))).await?;
        let models: WireModels =
            serde_json::from_str(&text).map_err(|e| self.not_json(&text, e))?;
        Ok(models.data.into_iter().map(|model| model.id).collect())
    }

    /// An answer that is not the JSON asked for, with its start (the best clue to what the
    /// server is: an HTML error page, a proxy's message).
    fn not_json(&self, text: &str, error: serde_json::Error) -> LlmError {
        let start: String = text.chars().take(120).collect();
        self.invalid(format!(
            "it is not the JSON of a chat completion ({error}); it begins {start:?}"
        ))
    }

    fn invalid(&self, message: String) -> LlmError {
        LlmError::InvalidResponse { endpoint: self.settings.base_url.clone(), message }
    }
}

#[async_trait]
impl LanguageModel for OpenAiCompatible {
    fn info(&self) -> ModelInfo {
        ModelInfo {
            provider: "openai-compatible".into(),
            model: self.settings.model.clone(),
            location: self.settings.base_url.clone(),
        }
    }

    fn may_accept(&self, kind: ConstraintKind) -> bool {
        self.settings.shaped_answers
            && matches!(self.learned.get(kind), Support::NotTried | Support::Accepted)
    }

    fn constraint_ignored(&self, kind: ConstraintKind) {
        if self.learned.get(kind) != Support::Ignored {
            tracing::info!(
                endpoint = %self.settings.base_url,
                model = %self.settings.model,
                ?kind,
                "the server took an output constraint but answered outside it; it is not chosen \
                 again"
            );
        }
        self.learned.note(kind, Support::Ignored);
    }

    async fn complete(&self, request: &CompletionRequest) -> Result<Completion, LlmError> {
        let kind = request.constraint.as_ref().map(OutputConstraint::kind);
        let withheld = kind.is_some_and(|kind| self.refuses(kind));
        // The form this request's schema goes in, as known when it is sent: requests sent at
        // the same time may all meet the refusal of OpenAI's form, and each asks again in
        // llama-cpp-python's rather than take another's switch of form for a refusal of both.
        let object_form = self.json_object_form();
        let post = |constrained: bool, object_form: bool| {
            let body = self.body(request, constrained, object_form);
            async move {
                self.send(|| {
                    let post = self.client.post(self.url("chat/completions")).json(&body);
                    match &request.template {
                        Some(template) => post.header(
                            TEMPLATE_HEADER,
                            format!("{}@{}", template.id, template.version),
                        ),
                        None => post,
                    }
                })
                .await
            }
        };
        let (text, outcome) = match (kind, post(!withheld, object_form).await) {
            (None, answer) => (answer?, None),
            (Some(_), Ok(text)) if withheld => (text, Some(ConstraintOutcome::Withheld)),
            (Some(_), Ok(text)) => (text, Some(ConstraintOutcome::Accepted)),
            (Some(kind), Err(LlmError::Server { status: 400 | 422 | 500, body, .. }))
                if !withheld && refuses_constraint(&body) =>
            {
                // OpenAI's form refused: llama-cpp-python's server takes a schema in its own.
                let retried = if kind == ConstraintKind::JsonSchema && !object_form {
                    match post(true, true).await {
                        Ok(text) => {
                            self.learned
                                .json_object_form
                                .store(true, std::sync::atomic::Ordering::Relaxed);
                            Some(text)
                        }
                        Err(LlmError::Server { status: 400 | 422 | 500, body, .. })
                            if refuses_constraint(&body) =>
                        {
                            None
                        }
                        Err(error) => return Err(error),
                    }
                } else {
                    None
                };
                match retried {
                    Some(text) => (text, Some(ConstraintOutcome::Accepted)),
                    None => {
                        let text = post(false, object_form).await?;
                        self.remember_refusal(kind);
                        (text, Some(ConstraintOutcome::Refused))
                    }
                }
            }
            (Some(_), Err(error)) => return Err(error),
        };
        if let (Some(kind), Some(ConstraintOutcome::Accepted)) = (kind, outcome) {
            self.learned.note(kind, Support::Accepted);
        }
        let wire: WireCompletion =
            serde_json::from_str(&text).map_err(|e| self.not_json(&text, e))?;
        if wire.choices.is_empty() {
            return Err(LlmError::EmptyChoices { endpoint: self.settings.base_url.clone() });
        }
        let choices = wire
            .choices
            .into_iter()
            .map(|choice| Choice {
                text: choice.message.content.unwrap_or_default(),
                finish_reason: finish_reason(choice.finish_reason.as_deref()),
                logprobs: choice.logprobs.and_then(|l| l.content).map(|tokens| {
                    tokens
                        .into_iter()
                        .map(|t| TokenLogprob {
                            token: t.token,
                            logprob: t.logprob,
                            top: t
                                .top_logprobs
                                .into_iter()
                                .map(|top| (top.token, top.logprob))
                                .collect(),
                        })
                        .collect()
                }),
            })
            .collect();
        let usage = wire
            .usage
            .map(|u| TokenUsage {
                prompt_tokens: u.prompt_tokens,
                completion_tokens: u.completion_tokens,
            })
            .unwrap_or_default();
        let model = wire.model.unwrap_or_else(|| self.settings.model.clone());
        if !same_model(&self.settings.model, &model)
            && first_substitution(&self.settings.base_url, &self.settings.model, &model)
        {
            // The answer is kept (the batch goes on) under the name the server gave, which
            // the audit record keeps beside the model asked for (every call's).
            tracing::warn!(
                asked = %self.settings.model,
                answered = %model,
                endpoint = %self.settings.base_url,
                "the server answered as another model than the one asked for"
            );
        }
        Ok(Completion {
            choices,
            usage,
            model,
            audit_id: None,
            replayed: false,
            constraint: outcome,
        })
    }
}

/// Whether a server that names the model `answered` answered as the model `asked` for: the
/// same name in any case, or it with a version or tag after it (OpenAI's dated snapshots,
/// `gpt-4o-2024-08-06` for `gpt-4o`; Ollama's default tag, `llama3.2:latest` for
/// `llama3.2`). A word after a dash names another model (`gpt-4o-mini` is not `gpt-4o`), as
/// does any other name; the provider warns of it once per server and pair of names.
pub fn same_model(asked: &str, answered: &str) -> bool {
    let (asked, answered) = (asked.to_lowercase(), answered.to_lowercase());
    answered == asked
        || !asked.is_empty()
            && answered.strip_prefix(&asked).is_some_and(|rest| {
                rest.starts_with([':', '@'])
                    || rest
                        .strip_prefix('-')
                        .is_some_and(|version| version.starts_with(|c: char| c.is_ascii_digit()))
            })
}

/// Whether the substitution of `answered` for `asked` at `endpoint` is seen for the first time
/// by this program (a batch of thousands of calls warns of it once).
fn first_substitution(endpoint: &str, asked: &str, answered: &str) -> bool {
    static SEEN: std::sync::Mutex<Vec<(String, String, String)>> =
        std::sync::Mutex::new(Vec::new());
    let key = (endpoint.to_owned(), asked.to_owned(), answered.to_owned());
    let mut seen = SEEN.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if seen.contains(&key) {
        return false;
    }
    seen.push(key);
    true
}

#[cfg(test)]
mod tests;
