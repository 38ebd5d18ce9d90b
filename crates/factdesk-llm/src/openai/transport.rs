//! Sending a request: bounded retries with exponential backoff on 429, 5xx, timeouts and
//! connection errors (honouring Retry-After), a limit on requests in flight, one deadline per
//! call, answers read up to a cap, and the typed errors a server's answer is read into (a bad
//! key, an unknown or unpulled model, a prompt longer than the context).

use std::time::Duration;

use super::OpenAiCompatible;
use super::support::refuses_constraint;
use crate::LlmError;

/// What one attempt came to.
enum Attempt {
    Done(reqwest::Response),
    /// Worth another try, after at least this long.
    Retry(LlmError, Option<Duration>),
}

impl OpenAiCompatible {
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
    pub(super) async fn send(
        &self,
        build: impl Fn() -> reqwest::RequestBuilder,
    ) -> Result<String, LlmError> {
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
}

/// The prompt's tokens and the context's, when an error body says the prompt does not fit the
/// model's context: OpenAI's and llama-cpp-python's `context_length_exceeded` ("maximum
/// context length is C tokens … (P in the messages, …)" or "… your messages resulted in P
/// tokens"), llama.cpp's `exceed_context_size_error` (`n_prompt_tokens`, `n_ctx`). A count the
/// body does not give is 0.
pub(super) fn context_exceeded(body: &str) -> Option<(u32, u32)> {
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
