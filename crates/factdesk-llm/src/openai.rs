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
//! which the audit layer records with the answer.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use async_trait::async_trait;
use serde::Deserialize;
use tokio::sync::Semaphore;

use crate::{
    Choice, Completion, CompletionRequest, ConstraintKind, ConstraintOutcome, FinishReason,
    LanguageModel, LlmError, ModelInfo, OutputConstraint, TokenLogprob, TokenUsage,
};

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
struct Learned {
    /// Per kind of constraint, what became of it (absent: not tried).
    seen: Mutex<BTreeMap<ConstraintKind, Support>>,
    /// Whether a JSON Schema goes in llama-cpp-python's form (`{"type": "json_object",
    /// "schema": …}`), after the server refused OpenAI's (`json_schema`).
    json_object_form: std::sync::atomic::AtomicBool,
}

impl Learned {
    fn get(&self, kind: ConstraintKind) -> Support {
        let seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        seen.get(&kind).copied().unwrap_or_default()
    }

    /// Notes `support` for `kind`: a refusal or an ignored constraint is kept (an answer taken
    /// later does not undo it).
    fn note(&self, kind: ConstraintKind, support: Support) {
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        let known = seen.entry(kind).or_default();
        if matches!(*known, Support::NotTried | Support::Accepted) {
            *known = support;
        }
    }

    fn support(&self, base_url: &str, model: &str) -> ServerSupport {
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
fn learned(base_url: &str, model: &str) -> Arc<Learned> {
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

#[derive(Debug, Deserialize)]
struct WireCompletion {
    #[serde(default)]
    model: Option<String>,
    choices: Vec<WireChoice>,
    #[serde(default)]
    usage: Option<WireUsage>,
}

#[derive(Debug, Deserialize)]
struct WireChoice {
    message: WireMessage,
    #[serde(default)]
    finish_reason: Option<String>,
    #[serde(default)]
    logprobs: Option<WireLogprobs>,
}

#[derive(Debug, Deserialize)]
struct WireMessage {
    #[serde(default)]
    content: Option<String>,
}

#[derive(Debug, Deserialize)]
struct WireLogprobs {
    #[serde(default)]
    content: Option<Vec<WireTokenLogprob>>,
}

#[derive(Debug, Deserialize)]
struct WireTokenLogprob {
    token: String,
    logprob: f32,
    #[serde(default)]
    top_logprobs: Vec<WireTopLogprob>,
}

#[derive(Debug, Deserialize)]
struct WireTopLogprob {
    token: String,
    logprob: f32,
}

#[derive(Debug, Deserialize)]
struct WireUsage {
    #[serde(default)]
    prompt_tokens: u32,
    #[serde(default)]
    completion_tokens: u32,
}

#[derive(Debug, Deserialize)]
struct WireModels {
    data: Vec<WireModel>,
}

#[derive(Debug, Deserialize)]
struct WireModel {
    id: String,
}

/// What one attempt came to.
enum Attempt {
    Done(reqwest::Response),
    /// Worth another try, after at least this long.
    Retry(LlmError, Option<Duration>),
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

    /// The JSON body of `request`, with its constraint when `constrained`, a JSON Schema in
    /// llama-cpp-python's form when `object_form`.
    fn body(
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

    async fn attempt(&self, builder: reqwest::RequestBuilder) -> Result<Attempt, LlmError> {
        let endpoint = self.settings.base_url.clone();
        let response = match builder.send().await {
            Ok(response) => response,
            Err(error) if error.is_timeout() => {
                return Ok(Attempt::Retry(
                    LlmError::Timeout {
                        endpoint,
                        seconds: self.settings.request_timeout.as_secs(),
                    },
                    None,
                ));
            }
            Err(error) if error.is_connect() || error.is_request() => {
                let mut message = error.to_string();
                let mut source = std::error::Error::source(&error);
                while let Some(inner) = source {
                    message = inner.to_string();
                    source = inner.source();
                }
                return Ok(Attempt::Retry(LlmError::Unreachable { endpoint, message }, None));
            }
            Err(error) => {
                return Err(LlmError::Unreachable { endpoint, message: error.to_string() });
            }
        };
        let status = response.status().as_u16();
        if response.status().is_success() {
            return Ok(Attempt::Done(response));
        }
        let retry_after = response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.trim().parse::<u64>().ok())
            .map(|seconds| Duration::from_secs(seconds.min(60)));
        // Only the start of an error's body is shown; no more than that is read.
        let body = read_start(response, ERROR_BODY_BYTES).await;
        let short: String = body.chars().take(300).collect();
        let mentions_unknown_model = {
            let lower = body.to_lowercase();
            lower.contains("model")
                && (lower.contains("not found")
                    || lower.contains("does not exist")
                    || lower.contains("model_not_found"))
        };
        if let Some((prompt_tokens, context_tokens)) =
            context_exceeded(&body).filter(|_| matches!(status, 400 | 413 | 500))
        {
            return Err(LlmError::ServerContextExceeded {
                endpoint,
                prompt_tokens,
                context_tokens,
            });
        }
        match status {
            401 | 403 => Err(LlmError::Unauthorized { endpoint, status }),
            // Ollama: `model "x" not found, try pulling it first`.
            404 | 400 if mentions_unknown_model && body.to_lowercase().contains("try pulling") => {
                Err(LlmError::ModelNotPulled { endpoint, model: self.settings.model.clone() })
            }
            404 | 400 if mentions_unknown_model => {
                Err(LlmError::ModelNotFound { endpoint, model: self.settings.model.clone() })
            }
            // A request the server's validation refused, reported as its own failure
            // (llama-cpp-python's server answers a `json_schema` response format so): asking
            // again cannot help.
            500 if refuses_constraint(&body) && is_validation_error(&body) => {
                Err(LlmError::Server { endpoint, status, body: short })
            }
            429 | 500..=599 => Ok(Attempt::Retry(
                LlmError::Overloaded { endpoint, status, attempts: 0 },
                retry_after,
            )),
            _ => Err(LlmError::Server { endpoint, status, body: short }),
        }
    }

    /// Sends a request built by `build`, retrying as configured, and reads the answer's body (at
    /// most [`MAX_ANSWER_BYTES`]),
    /// all within the call deadline.
    async fn send(&self, build: impl Fn() -> reqwest::RequestBuilder) -> Result<String, LlmError> {
        let _permit = self.permits.acquire().await.map_err(|e| LlmError::Backend(e.to_string()))?;
        let deadline = self.settings.call_deadline;
        let exchange = async {
            let response = self.send_with_retries(build).await?;
            read_capped(response, MAX_ANSWER_BYTES).await.map_err(|error| match error {
                CappedRead(message) => self.invalid(message),
            })
        };
        match tokio::time::timeout(deadline, exchange).await {
            Ok(outcome) => outcome,
            Err(_) => Err(LlmError::DeadlineExceeded {
                endpoint: self.settings.base_url.clone(),
                seconds: deadline.as_secs(),
            }),
        }
    }

    async fn send_with_retries(
        &self,
        build: impl Fn() -> reqwest::RequestBuilder,
    ) -> Result<reqwest::Response, LlmError> {
        let mut backoff = self.settings.initial_backoff;
        let attempts = self.settings.max_retries + 1;
        for attempt in 1..=attempts {
            let mut builder = build();
            if let Some(key) = &self.settings.api_key {
                builder = builder.bearer_auth(key);
            }
            match self.attempt(builder).await? {
                Attempt::Done(response) => return Ok(response),
                Attempt::Retry(error, retry_after) => {
                    if attempt == attempts {
                        return Err(match error {
                            LlmError::Overloaded { endpoint, status, .. } => {
                                LlmError::Overloaded { endpoint, status, attempts }
                            }
                            other => other,
                        });
                    }
                    let wait = retry_after.unwrap_or(backoff).max(backoff);
                    tracing::debug!(attempt, ?wait, %error, "model request failed; retrying");
                    tokio::time::sleep(wait).await;
                    backoff = (backoff * 2).min(Duration::from_secs(30));
                }
            }
        }
        unreachable!("the loop returns on its last attempt")
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

fn finish_reason(reason: Option<&str>) -> FinishReason {
    match reason {
        Some("stop") | Some("eos") | None => FinishReason::Stop,
        Some("length") => FinishReason::Length,
        Some(_) => FinishReason::Other,
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
        Ok(Completion {
            choices,
            usage,
            model: wire.model.unwrap_or_else(|| self.settings.model.clone()),
            audit_id: None,
            replayed: false,
            constraint: outcome,
        })
    }
}

/// Whether an error body refuses a request's output constraint: it names the field
/// (`response_format`, `json_schema`, `grammar`), or says a field is unknown, unrecognised,
/// not permitted or unsupported (servers that name no field).
fn refuses_constraint(body: &str) -> bool {
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

/// The prompt's tokens and the context's, when an error body says the prompt does not fit the
/// model's context: OpenAI's and llama-cpp-python's `context_length_exceeded` ("maximum
/// context length is C tokens … (P in the messages, …)" or "… your messages resulted in P
/// tokens"), llama.cpp's `exceed_context_size_error` (`n_prompt_tokens`, `n_ctx`). A count the
/// body does not give is 0.
fn context_exceeded(body: &str) -> Option<(u32, u32)> {
    if let Ok(value) = serde_json::from_str::<serde_json::Value>(body) {
        let error = &value["error"];
        if let (Some(prompt), Some(context)) =
            (error["n_prompt_tokens"].as_u64(), error["n_ctx"].as_u64())
        {
            let clamp = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
            return Some((clamp(prompt), clamp(context)));
        }
    }
    let lower = body.to_lowercase();
    if !["context_length_exceeded", "maximum context length", "exceed context window"]
        .iter()
        .any(|clue| lower.contains(clue))
    {
        return None;
    }
    // The number just after `before`, or just before `after`.
    let number_after = |before: &str| -> Option<u32> {
        let rest = &lower[lower.find(before)? + before.len()..];
        rest.trim_start().split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()
    };
    let number_before = |after: &str| -> Option<u32> {
        let head = &lower[..lower.find(after)?];
        head.trim_end().rsplit(|c: char| !c.is_ascii_digit()).next()?.parse().ok()
    };
    let context = number_after("maximum context length is")
        .or_else(|| number_after("context window of"))
        .unwrap_or(0);
    let prompt = number_before(" in the messages")
        .or_else(|| number_after("resulted in"))
        .or_else(|| number_after("requested tokens ("))
        .unwrap_or(0);
    Some((prompt, context))
}

/// Whether an error body reports a request that failed the server's validation (pydantic's
/// words, as llama-cpp-python's server gives them with status 500).
fn is_validation_error(body: &str) -> bool {
    let body = body.to_lowercase();
    ["validation error", "literal_error", "input should be"].iter().any(|clue| body.contains(clue))
}

/// The most of an answer's body read: far more than any chat completion (ten samples with
/// log-probabilities are well under a megabyte), little enough that a server sending without
/// end cannot take the machine's memory.
pub const MAX_ANSWER_BYTES: usize = 32 * 1024 * 1024;

/// The most of an error answer's body read (its start is shown in the error).
const ERROR_BODY_BYTES: usize = 64 * 1024;

/// Why a body was not read whole.
struct CappedRead(String);

/// The first `limit` bytes of the body of `response` as text (the rest is not read); what
/// arrived before a failure, if the body breaks off.
async fn read_start(mut response: reqwest::Response, limit: usize) -> String {
    let mut body = Vec::new();
    while body.len() < limit {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                body.extend_from_slice(&chunk[..chunk.len().min(limit - body.len())])
            }
            Ok(None) | Err(_) => break,
        }
    }
    String::from_utf8_lossy(&body).into_owned()
}

/// The body of `response` as text, read chunk by chunk and refused past `limit` bytes; a body
/// cut off says so. Invalid UTF-8 is replaced (the parser then names what it cannot read).
async fn read_capped(mut response: reqwest::Response, limit: usize) -> Result<String, CappedRead> {
    let mut body = Vec::new();
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                if body.len() + chunk.len() > limit {
                    return Err(CappedRead(format!(
                        "the answer is larger than {} MiB, more than any completion; the server \
                         is not answering as an OpenAI-compatible server does",
                        limit / (1024 * 1024)
                    )));
                }
                body.extend_from_slice(&chunk);
            }
            Ok(None) => return Ok(String::from_utf8_lossy(&body).into_owned()),
            Err(error) if error.is_timeout() => {
                return Err(CappedRead(
                    "the answer was still arriving when the request timed out \
                     (llm.request_timeout_secs)"
                        .into(),
                ));
            }
            Err(error) => return Err(CappedRead(format!("the body was cut off: {error}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{context_exceeded, refuses_constraint};

    #[test]
    fn prompts_longer_than_the_context_are_read_from_each_servers_words() {
        let llama_cpp_python = r#"{"error": {"message": "This model's maximum context length is 2048 tokens. However, you requested 2304 tokens (2048 in the messages, 256 in the completion). Please reduce the length of the messages or completion.", "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}}"#;
        assert_eq!(context_exceeded(llama_cpp_python), Some((2048, 2048)));
        let openai = r#"{"error": {"message": "This model's maximum context length is 8192 tokens. However, your messages resulted in 9001 tokens. Please reduce the length of the messages.", "code": "context_length_exceeded"}}"#;
        assert_eq!(context_exceeded(openai), Some((9001, 8192)));
        let llama_cpp = r#"{"error": {"code": 400, "message": "the request exceeds the available context size, try increasing it", "type": "exceed_context_size_error", "n_prompt_tokens": 5000, "n_ctx": 4096}}"#;
        assert_eq!(context_exceeded(llama_cpp), Some((5000, 4096)));
        assert_eq!(context_exceeded(r#"{"error": "context_length_exceeded"}"#), Some((0, 0)));
        assert_eq!(context_exceeded(r#"{"error": {"message": "temperature too high"}}"#), None);
    }

    #[test]
    fn refusals_of_a_constraint_are_told_from_other_bad_requests() {
        for refusal in [
            r#"{"error": {"message": "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model."}}"#,
            r#"{"detail": [{"type": "extra_forbidden", "loc": ["body", "grammar"]}]}"#,
            r#"{"error": "Unknown field: json_schema"}"#,
            r#"{"error": {"message": "failed to parse grammar"}}"#,
            "unsupported argument",
        ] {
            assert!(refuses_constraint(refusal), "{refusal}");
        }
        for other in [
            r#"{"error": {"message": "the prompt is longer than the context window"}}"#,
            r#"{"error": {"message": "temperature must be at most 2"}}"#,
            "",
        ] {
            assert!(!refuses_constraint(other), "{other}");
        }
    }
}
