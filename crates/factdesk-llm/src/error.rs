//! Errors of the model layer. Each names the endpoint or file involved and, where there is
//! one, the thing to do.

/// Why a model call failed. No failed call is ever recorded as a successful one.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LlmError {
    #[error("cannot reach the model server at {endpoint}: {message}; is it running?")]
    Unreachable { endpoint: String, message: String },
    #[error("the model server at {endpoint} did not answer within {seconds} s")]
    Timeout { endpoint: String, seconds: u64 },
    #[error(
        "the model server at {endpoint} gave no answer within {seconds} s, retries included \
         (the most one call may take: llm.call_deadline_secs)"
    )]
    DeadlineExceeded { endpoint: String, seconds: u64 },
    #[error(
        "the model server at {endpoint} refused the API key (HTTP {status}); set FACTDESK_LLM_API_KEY or llm.api_key"
    )]
    Unauthorized { endpoint: String, status: u16 },
    #[error(
        "the model server at {endpoint} does not know the model '{model}'; set FACTDESK_LLM_MODEL or llm.model to one it serves"
    )]
    ModelNotFound { endpoint: String, model: String },
    #[error(
        "the Ollama server at {endpoint} has not pulled the model '{model}'; run `ollama pull {model}` on that machine, or set llm.model to one it has (`ollama list`)"
    )]
    ModelNotPulled { endpoint: String, model: String },
    #[error(
        "the model server at {endpoint} kept answering HTTP {status} after {attempts} attempts"
    )]
    Overloaded { endpoint: String, status: u16, attempts: u32 },
    #[error("the model server at {endpoint} answered HTTP {status}: {body}")]
    Server { endpoint: String, status: u16, body: String },
    #[error("the model server at {endpoint} sent an answer that cannot be read: {message}")]
    InvalidResponse { endpoint: String, message: String },
    #[error("the model server at {endpoint} sent no completion (empty choices)")]
    EmptyChoices { endpoint: String },
    #[error(
        "the prompt has {prompt_tokens} tokens, more than the model's context of {context_tokens}; shorten the input"
    )]
    ContextOverflow { prompt_tokens: u32, context_tokens: u32 },
    #[error(
        "the model server at {endpoint} refused a prompt of {prompt_tokens} tokens: its context holds {context_tokens}; shorten the input, or serve the model with a larger context (llama.cpp: --ctx-size, llama-cpp-python: --n_ctx, Ollama: num_ctx)"
    )]
    ServerContextExceeded { endpoint: String, prompt_tokens: u32, context_tokens: u32 },
    #[error("the model file {path} cannot be used: {message}; to install it: {fetch_command}")]
    ModelFile { path: String, message: String, fetch_command: String },
    #[error("{backend} does not support {feature}")]
    Unsupported { backend: String, feature: String },
    #[error(
        "replay-only mode: no recorded call matches this request (key {key}); run it once with the cache in read-write mode"
    )]
    ReplayMiss { key: String },
    #[error("audit store: {0}")]
    Audit(String),
    #[error("prompt template {id}: {message}")]
    Template { id: String, message: String },
    #[error("model backend error: {0}")]
    Backend(String),
}
