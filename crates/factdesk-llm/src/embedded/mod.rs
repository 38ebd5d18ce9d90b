//! The embedded chat model: a GGUF file run in-process by llama.cpp (through `llama-cpp-2`),
//! behind [`LanguageModel`].
//!
//! This module owns the llama.cpp side of the model layer: the process-wide llama.cpp backend
//! (initialised once, its logs routed to `tracing`), checking and loading the model file,
//! rendering messages with the chat template stored in the file, tokenising, evaluating the
//! prompt once for all `n` samples, sampling (greedy, temperature/top-p with a seed, GBNF
//! grammars), stop sequences, log-probabilities, and reading next-token logits for
//! [`LanguageModel::answer_probabilities`].
//!
//! It must not: block the async runtime (every llama.cpp call runs under
//! `tokio::task::spawn_blocking`, at most [`EmbeddedSettings::workers`] at a time), print
//! anything, download or look for model files (it is given a path; a missing or broken file is
//! an [`LlmError::ModelFile`] telling the user to run the fetch script), or know anything about
//! fact-checking.
//!
//! Files, one responsibility each:
//! - `load.rs`: the model file checked and loaded with its settings;
//! - `prompt.rs`: messages rendered with the file's chat template, and tokenised;
//! - `context.rs`: llama.cpp contexts: room for a prompt, a context made, a prompt evaluated;
//! - `generate.rs`: the generation loop for `n` samples: sampling, grammars, stop sequences;
//! - `logprobs.rs`: log-probabilities of generated tokens and answer probabilities from logits;
//! - `speed.rs`: raw llama.cpp speed, measured as `llama-bench` does.

mod context;
mod generate;
mod load;
mod logprobs;
mod prompt;
mod speed;

pub use speed::SpeedFigures;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use async_trait::async_trait;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::model::{LlamaChatTemplate, LlamaModel};
use tokio::sync::Semaphore;

use crate::chat;
use crate::{
    AnswerProbabilities, Completion, CompletionRequest, ConstraintKind, LanguageModel, LlmError,
    ModelInfo, OutputConstraint,
};

/// The command that installs the model files, named in every [`LlmError::ModelFile`].
pub const FETCH_COMMAND: &str = "bash scripts/fetch-models.sh";
/// llama.cpp's limit on sequences in one context (`LLAMA_MAX_SEQ`).
const MAX_SAMPLES: u32 = 256;
const BACKEND_NAME: &str = "the embedded llama.cpp model";

/// How the embedded model runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmbeddedSettings {
    /// The context window in tokens: prompt plus `max_tokens` must fit in it (capped at the
    /// context the model was trained with).
    pub context_tokens: u32,
    /// CPU threads per generation; `None` uses every available core.
    pub threads: Option<u32>,
    /// How many generations may run at once; each one uses `threads` threads.
    pub workers: usize,
}

impl Default for EmbeddedSettings {
    fn default() -> Self {
        EmbeddedSettings { context_tokens: 2048, threads: None, workers: 1 }
    }
}

/// A GGUF chat model run in-process by llama.cpp. Cheap to share: the loaded weights live
/// behind an `Arc`, and every call creates its own llama.cpp context.
pub struct EmbeddedModel {
    shared: Arc<Shared>,
    permits: Arc<Semaphore>,
    workers: usize,
}

/// What every call needs; used only from blocking threads.
struct Shared {
    model: LlamaModel,
    path: PathBuf,
    name: String,
    template: Option<LlamaChatTemplate>,
    context_tokens: u32,
    threads: i32,
    /// Creating contexts concurrently is unsound in llama.cpp (it may adjust the model).
    context_creation: Mutex<()>,
    /// The normalised first word of every vocabulary token, for answer probabilities.
    token_words: OnceLock<Vec<String>>,
}

impl fmt::Debug for EmbeddedModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EmbeddedModel")
            .field("path", &self.shared.path)
            .field("context_tokens", &self.shared.context_tokens)
            .field("threads", &self.shared.threads)
            .field("workers", &self.workers)
            .finish_non_exhaustive()
    }
}

/// The llama.cpp backend, initialised once per process with its logs sent to `tracing`.
fn backend() -> &'static LlamaBackend {
    static BACKEND: OnceLock<LlamaBackend> = OnceLock::new();
    BACKEND.get_or_init(|| {
        llama_cpp_2::send_logs_to_tracing(llama_cpp_2::LogOptions::default());
        // The only error is "already initialised" (by other code in this process); the backend
        // value is then just the proof of that, kept here and never dropped (dropping one frees
        // the backend, so none may be built unless needed).
        match LlamaBackend::init() {
            Ok(backend) => backend,
            Err(_) => LlamaBackend {},
        }
    })
}

fn backend_error(what: &str, error: impl fmt::Display) -> LlmError {
    LlmError::Backend(format!("llama.cpp: {what}: {error}"))
}

impl EmbeddedModel {
    /// The context window in tokens (after capping at the model's training context).
    pub fn context_tokens(&self) -> u32 {
        self.shared.context_tokens
    }

    /// The model file.
    pub fn path(&self) -> &Path {
        &self.shared.path
    }
    /// Runs `job` on a blocking thread once a worker permit is free.
    async fn run<T, F>(&self, job: F) -> Result<T, LlmError>
    where
        T: Send + 'static,
        F: FnOnce(&Shared) -> Result<T, LlmError> + Send + 'static,
    {
        let permit = Arc::clone(&self.permits)
            .acquire_owned()
            .await
            .map_err(|_| LlmError::Backend("the embedded model's worker pool is closed".into()))?;
        let shared = Arc::clone(&self.shared);
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            job(&shared)
        })
        .await
        .map_err(|error| {
            LlmError::Backend(format!("the embedded model's worker failed: {error}"))
        })?
    }
}

#[async_trait]
impl LanguageModel for EmbeddedModel {
    fn info(&self) -> ModelInfo {
        ModelInfo {
            provider: "embedded".into(),
            model: self.shared.name.clone(),
            location: self.shared.path.display().to_string(),
        }
    }

    fn may_accept(&self, kind: ConstraintKind) -> bool {
        kind == ConstraintKind::Grammar
    }

    async fn complete(&self, request: &CompletionRequest) -> Result<Completion, LlmError> {
        if let Some(OutputConstraint::JsonSchema(_)) = &request.constraint {
            return Err(LlmError::Unsupported {
                backend: BACKEND_NAME.into(),
                feature: "JSON Schema constraints; use a grammar (OutputConstraint::Grammar, GBNF)"
                    .into(),
            });
        }
        let n = request.params.n.max(1);
        if n > MAX_SAMPLES {
            return Err(LlmError::Unsupported {
                backend: BACKEND_NAME.into(),
                feature: format!("{n} completions in one request (at most {MAX_SAMPLES})"),
            });
        }
        let request = request.clone();
        self.run(move |shared| shared.complete(&request)).await
    }

    /// Reads the next-token distribution directly: one prompt evaluation, a softmax over the
    /// whole vocabulary, and the mass of every token whose first word is an answer's first word
    /// (case and leading space ignored), normalised over the answers. Output constraints are
    /// ignored. Falls back to the default estimate only when no vocabulary token matches.
    async fn answer_probabilities(
        &self,
        request: &CompletionRequest,
        answers: &[&str],
        samples: u32,
    ) -> Result<AnswerProbabilities, LlmError> {
        if answers.is_empty() {
            return Err(LlmError::Backend("answer probabilities asked for no answers".into()));
        }
        let messages = request.messages.clone();
        let owned: Vec<String> = answers.iter().map(|answer| (*answer).to_owned()).collect();
        let read = self.run(move |shared| shared.answer_probabilities(&messages, &owned)).await?;
        match read {
            Some(probabilities) => Ok(probabilities),
            None => {
                tracing::debug!(
                    ?answers,
                    "no vocabulary token starts an answer; estimating from completions"
                );
                chat::answer_probabilities_via_completions(self, request, answers, samples).await
            }
        }
    }
}
