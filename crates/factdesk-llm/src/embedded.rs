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

use std::collections::BTreeMap;
use std::fmt;
use std::fs::File;
use std::io::Read;
use std::num::NonZeroU32;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Instant;

use async_trait::async_trait;
use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::{LlamaChatMessage, LlamaChatTemplate, LlamaModel};
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::LlamaToken;
use tokio::sync::Semaphore;

use crate::chat::{self, normalise_answer};
use crate::{
    AnswerProbabilities, ChatMessage, Choice, Completion, CompletionRequest, ConstraintKind,
    ConstraintOutcome, FinishReason, LanguageModel, LlmError, ModelInfo, OutputConstraint, Role,
    TokenLogprob, TokenUsage,
};

/// The command that installs the model files, named in every [`LlmError::ModelFile`].
pub const FETCH_COMMAND: &str = "bash scripts/fetch-models.sh";

/// Every GGUF file starts with these bytes.
const GGUF_MAGIC: &[u8; 4] = b"GGUF";
/// Magic, version, tensor count and metadata count: the smallest possible GGUF file.
const GGUF_HEADER_BYTES: u64 = 24;
/// llama.cpp's limit on sequences in one context (`LLAMA_MAX_SEQ`).
const MAX_SAMPLES: u32 = 256;
/// The most alternatives reported per generated token.
const MAX_TOP_LOGPROBS: usize = 20;
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

fn model_file_error(path: &Path, message: impl Into<String>) -> LlmError {
    LlmError::ModelFile {
        path: path.display().to_string(),
        message: message.into(),
        fetch_command: FETCH_COMMAND.to_owned(),
    }
}

/// Checks that `path` is a file that starts like a GGUF model, before llama.cpp sees it.
fn check_gguf(path: &Path) -> Result<(), LlmError> {
    let metadata = std::fs::metadata(path).map_err(|error| match error.kind() {
        std::io::ErrorKind::NotFound => model_file_error(path, "the file does not exist"),
        _ => model_file_error(path, format!("cannot read it: {error}")),
    })?;
    if !metadata.is_file() {
        return Err(model_file_error(path, "it is not a file"));
    }
    if metadata.len() == 0 {
        return Err(model_file_error(path, "the file is empty"));
    }
    let mut magic = Vec::with_capacity(GGUF_MAGIC.len());
    File::open(path)
        .and_then(|file| file.take(GGUF_MAGIC.len() as u64).read_to_end(&mut magic))
        .map_err(|error| model_file_error(path, format!("cannot read it: {error}")))?;
    if magic.as_slice() != GGUF_MAGIC {
        if GGUF_MAGIC.starts_with(&magic) {
            return Err(model_file_error(
                path,
                format!("the file is truncated ({} bytes)", metadata.len()),
            ));
        }
        return Err(model_file_error(
            path,
            format!("it is not a GGUF model file (it starts with {magic:02x?}, not \"GGUF\")"),
        ));
    }
    if metadata.len() < GGUF_HEADER_BYTES {
        return Err(model_file_error(
            path,
            format!("the file is truncated ({} bytes, less than a GGUF header)", metadata.len()),
        ));
    }
    Ok(())
}

impl EmbeddedModel {
    /// Loads the GGUF model at `path`. Blocking (it maps the file and reads its metadata): call
    /// it from a blocking context or at start-up.
    ///
    /// A missing, empty, truncated or non-GGUF file, or one llama.cpp cannot load, is an
    /// [`LlmError::ModelFile`] naming the path and the fetch command.
    pub fn load(path: &Path, settings: EmbeddedSettings) -> Result<EmbeddedModel, LlmError> {
        check_gguf(path)?;
        let model = LlamaModel::load_from_file(backend(), path, &LlamaModelParams::default())
            .map_err(|error| {
                model_file_error(
                    path,
                    format!("llama.cpp cannot load it ({error}); it may be truncated or corrupt"),
                )
            })?;
        let template = model.chat_template(None).ok();
        if template.is_none() {
            tracing::warn!(
                path = %path.display(),
                "the model file has no chat template; prompts use a plain role: content layout"
            );
        }
        let trained = model.n_ctx_train();
        let mut context_tokens = settings.context_tokens.max(1);
        if trained > 0 && context_tokens > trained {
            tracing::warn!(
                requested = context_tokens,
                trained,
                "the context is capped at the model's training context"
            );
            context_tokens = trained;
        }
        let threads = settings.threads.map_or_else(
            || std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get),
            |threads| threads as usize,
        );
        let threads = i32::try_from(threads.max(1)).unwrap_or(i32::MAX);
        let workers = settings.workers.max(1);
        let name = path
            .file_stem()
            .map_or_else(|| path.display().to_string(), |stem| stem.to_string_lossy().into_owned());
        tracing::info!(
            path = %path.display(),
            context_tokens,
            threads,
            workers,
            "embedded model loaded"
        );
        Ok(EmbeddedModel {
            shared: Arc::new(Shared {
                model,
                path: path.to_path_buf(),
                name,
                template,
                context_tokens,
                threads,
                context_creation: Mutex::new(()),
                token_words: OnceLock::new(),
            }),
            permits: Arc::new(Semaphore::new(workers)),
            workers,
        })
    }

    /// The context window in tokens (after capping at the model's training context).
    pub fn context_tokens(&self) -> u32 {
        self.shared.context_tokens
    }

    /// The model file.
    pub fn path(&self) -> &Path {
        &self.shared.path
    }

    /// Measures raw llama.cpp speed the way `llama-bench` does: one batch of `prompt_tokens`
    /// tokens evaluated at once (prompt processing), then `decode_tokens` tokens decoded one at
    /// a time (generation), each `repetitions` times in a fresh context. No sampling, chat
    /// template or stop handling is timed; the token ids come from tokenising a fixed text.
    pub async fn measure_speed(
        &self,
        prompt_tokens: u32,
        decode_tokens: u32,
        repetitions: u32,
    ) -> Result<SpeedFigures, LlmError> {
        self.check_speed_request(prompt_tokens, decode_tokens)?;
        self.run(move |shared| shared.measure_speed(prompt_tokens, decode_tokens, repetitions))
            .await
    }

    fn check_speed_request(&self, prompt_tokens: u32, decode_tokens: u32) -> Result<(), LlmError> {
        if prompt_tokens == 0 || decode_tokens == 0 {
            return Err(LlmError::Backend("a speed test needs at least one token of each".into()));
        }
        self.shared.check_fits(prompt_tokens, decode_tokens)
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

/// One of the `n` samples being generated.
struct Sample {
    sampler: LlamaSampler,
    bytes: Vec<u8>,
    /// Where each generated token's text starts in `bytes`.
    token_starts: Vec<usize>,
    logprobs: Vec<TokenLogprob>,
    generated: u32,
    position: i32,
    /// Which output of the last decoded batch holds this sample's next-token logits.
    logits_index: i32,
    /// The final text, when a stop sequence cut it.
    cut: Option<(String, usize)>,
    finish: Option<FinishReason>,
}

impl Sample {
    fn into_choice(self, with_logprobs: bool) -> Choice {
        let (text, kept_bytes) = match self.cut {
            Some((text, at)) => (text, at),
            None => (String::from_utf8_lossy(&self.bytes).into_owned(), usize::MAX),
        };
        // After a stop sequence, the tokens that gave any of the kept text stay.
        let logprobs = with_logprobs.then(|| {
            self.logprobs
                .into_iter()
                .zip(self.token_starts)
                .take_while(|(_, start)| *start < kept_bytes)
                .map(|(logprob, _)| logprob)
                .collect()
        });
        Choice { text, finish_reason: self.finish.unwrap_or(FinishReason::Length), logprobs }
    }
}

fn backend_error(what: &str, error: impl fmt::Display) -> LlmError {
    LlmError::Backend(format!("llama.cpp: {what}: {error}"))
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
    }
}

/// The layout used when the model file has no chat template.
fn plain_prompt(messages: &[ChatMessage]) -> String {
    let mut prompt = String::new();
    for message in messages {
        prompt.push_str(role_name(message.role));
        prompt.push_str(": ");
        prompt.push_str(&message.content);
        prompt.push('\n');
    }
    prompt.push_str("assistant:");
    prompt
}

/// The first word of a token or answer as [`chat::leading_answer`] reads it: leading
/// non-alphanumerics skipped, lower-case.
fn first_word(text: &str) -> String {
    text.chars()
        .skip_while(|c| !c.is_alphanumeric())
        .take_while(|c| c.is_alphanumeric())
        .collect::<String>()
        .to_lowercase()
}

/// A per-sample seed for llama.cpp's 32-bit sampler seed. `u32::MAX` means "random" there.
fn sampler_seed(seed: u64, index: u32) -> u32 {
    let seed = seed.wrapping_add(u64::from(index));
    let folded = (seed ^ (seed >> 32)) as u32;
    if folded == u32::MAX { u32::MAX - 1 } else { folded }
}

fn random_seed() -> u64 {
    use std::hash::BuildHasher;
    std::collections::hash_map::RandomState::new().hash_one(std::time::SystemTime::now())
}

/// `ln Σ exp(logit)` over the vocabulary.
fn log_sum_exp(logits: &[f32]) -> f64 {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    if !max.is_finite() {
        return f64::from(max);
    }
    let sum: f64 = logits.iter().map(|&logit| f64::from(logit - max).exp()).sum();
    sum.ln() + f64::from(max)
}

/// Tokens per second of prompt processing and generation, as measured by
/// [`EmbeddedModel::measure_speed`]: one figure per repetition.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SpeedFigures {
    pub threads: i32,
    pub prompt_tokens: u32,
    pub decode_tokens: u32,
    pub prompt_tokens_per_second: Vec<f64>,
    pub decode_tokens_per_second: Vec<f64>,
}

impl Shared {
    fn measure_speed(
        &self,
        prompt_tokens: u32,
        decode_tokens: u32,
        repetitions: u32,
    ) -> Result<SpeedFigures, LlmError> {
        let vocab = self.model.vocab();
        let seed_text = "The quick brown fox jumps over the lazy dog while the committee reviews \
                         every claim, source and figure in the report before it is published.";
        let pattern = vocab.tokenize(seed_text.as_bytes(), false, false);
        if pattern.is_empty() {
            return Err(LlmError::Backend("the model tokenises no text".into()));
        }
        let tokens: Vec<LlamaToken> =
            pattern.iter().copied().cycle().take(prompt_tokens as usize).collect();
        let mut figures = SpeedFigures {
            threads: self.threads,
            prompt_tokens,
            decode_tokens,
            prompt_tokens_per_second: Vec::new(),
            decode_tokens_per_second: Vec::new(),
        };
        for _ in 0..repetitions.max(1) {
            // Prompt processing: the whole prompt in one batch, as a fresh context sees it.
            let mut ctx = self.new_context(prompt_tokens + decode_tokens + 1, 1, prompt_tokens)?;
            let mut batch = LlamaBatch::new(prompt_tokens as usize, 1);
            let started = Instant::now();
            self.evaluate_prompt(&mut ctx, &mut batch, &tokens, 1)?;
            figures
                .prompt_tokens_per_second
                .push(f64::from(prompt_tokens) / started.elapsed().as_secs_f64());
            drop(ctx);

            // Generation: one token per decode call, each attending to all before it.
            let mut ctx = self.new_context(decode_tokens + 1, 1, 1)?;
            let mut batch = LlamaBatch::new(1, 1);
            let started = Instant::now();
            for position in 0..decode_tokens {
                batch.clear();
                let token = pattern[position as usize % pattern.len()];
                batch
                    .add(token, position as i32, &[0], true)
                    .map_err(|error| backend_error("cannot batch a token", error))?;
                ctx.decode(&mut batch).map_err(|error| backend_error("decoding failed", error))?;
            }
            figures
                .decode_tokens_per_second
                .push(f64::from(decode_tokens) / started.elapsed().as_secs_f64());
        }
        Ok(figures)
    }

    fn complete(&self, request: &CompletionRequest) -> Result<Completion, LlmError> {
        let params = &request.params;
        let n = params.n.max(1);
        let started = Instant::now();
        let prompt = self.prompt_tokens(&request.messages)?;
        let prompt_len = u32::try_from(prompt.len()).unwrap_or(u32::MAX);
        self.check_fits(prompt_len, params.max_tokens)?;

        let seed = params.seed.unwrap_or_else(random_seed);
        let mut samples = Vec::with_capacity(n as usize);
        for index in 0..n {
            samples.push(Sample {
                sampler: self.sampler(request, seed, index)?,
                bytes: Vec::new(),
                token_starts: Vec::new(),
                logprobs: Vec::new(),
                generated: 0,
                position: prompt_len as i32,
                logits_index: prompt_len as i32 - 1,
                cut: None,
                finish: None,
            });
        }

        let needed =
            prompt_len.saturating_add(n.saturating_mul(params.max_tokens)).saturating_add(1);
        let mut ctx = self.new_context(needed, n, prompt_len.max(n))?;
        let mut batch = LlamaBatch::new(prompt.len().max(n as usize), n as i32);
        self.evaluate_prompt(&mut ctx, &mut batch, &prompt, n)?;
        let prompt_done = Instant::now();

        let vocab = self.model.vocab();
        let stops: Vec<&str> =
            params.stop.iter().map(String::as_str).filter(|stop| !stop.is_empty()).collect();
        let top_logprobs = if params.logprobs {
            params.top_logprobs.map_or(0, usize::from).min(MAX_TOP_LOGPROBS)
        } else {
            0
        };
        let mut completion_tokens: u32 = 0;
        loop {
            let mut next: Vec<(usize, LlamaToken)> = Vec::new();
            for (index, sample) in samples.iter_mut().enumerate() {
                if sample.finish.is_some() {
                    continue;
                }
                if sample.generated >= params.max_tokens {
                    sample.finish = Some(FinishReason::Length);
                    continue;
                }
                let token = sample.sampler.sample(&ctx, sample.logits_index);
                sample.generated += 1;
                completion_tokens += 1;
                if vocab.is_eog(token) {
                    sample.finish = Some(FinishReason::Stop);
                    continue;
                }
                if params.logprobs {
                    let logits = ctx.get_logits_ith(sample.logits_index);
                    sample.logprobs.push(self.token_logprob(logits, token, top_logprobs));
                }
                sample.token_starts.push(sample.bytes.len());
                vocab.token_to_piece_into(token, &mut sample.bytes, false, None);
                if !stops.is_empty() {
                    let text = String::from_utf8_lossy(&sample.bytes);
                    if let Some(at) = stops.iter().filter_map(|stop| text.find(stop)).min() {
                        sample.cut = Some((text[..at].to_owned(), at));
                        sample.finish = Some(FinishReason::Stop);
                        continue;
                    }
                }
                if sample.generated >= params.max_tokens {
                    sample.finish = Some(FinishReason::Length);
                    continue;
                }
                next.push((index, token));
            }
            if next.is_empty() {
                break;
            }
            batch.clear();
            for (slot, (index, token)) in next.into_iter().enumerate() {
                let sample = &mut samples[index];
                batch
                    .add(token, sample.position, &[index as i32], true)
                    .map_err(|error| backend_error("cannot batch a token", error))?;
                sample.position += 1;
                sample.logits_index = slot as i32;
            }
            ctx.decode(&mut batch).map_err(|error| backend_error("decoding failed", error))?;
        }

        let prompt_seconds = prompt_done.duration_since(started).as_secs_f64();
        let generation_seconds = prompt_done.elapsed().as_secs_f64();
        tracing::debug!(
            model = %self.name,
            prompt_tokens = prompt_len,
            completion_tokens,
            samples = n,
            prompt_seconds,
            generation_seconds,
            "embedded completion"
        );
        Ok(Completion {
            choices: samples
                .into_iter()
                .map(|sample| sample.into_choice(params.logprobs))
                .collect(),
            usage: TokenUsage { prompt_tokens: prompt_len, completion_tokens },
            model: self.name.clone(),
            audit_id: None,
            replayed: false,
            constraint: request.constraint.as_ref().map(|_| ConstraintOutcome::Accepted),
        })
    }

    /// `None` when no vocabulary token starts any of the answers.
    fn answer_probabilities(
        &self,
        messages: &[ChatMessage],
        answers: &[String],
    ) -> Result<Option<AnswerProbabilities>, LlmError> {
        let prompt = self.prompt_tokens(messages)?;
        let prompt_len = u32::try_from(prompt.len()).unwrap_or(u32::MAX);
        self.check_fits(prompt_len, 1)?;
        let mut ctx = self.new_context(prompt_len + 1, 1, prompt_len)?;
        let mut batch = LlamaBatch::new(prompt.len(), 1);
        self.evaluate_prompt(&mut ctx, &mut batch, &prompt, 1)?;
        let logits = ctx.get_logits_ith(prompt_len as i32 - 1);
        let words = self.token_words();
        let keys: Vec<String> =
            answers.iter().map(|answer| first_word(&normalise_answer(answer))).collect();
        let log_total = log_sum_exp(logits);
        let mut mass = vec![0.0_f64; answers.len()];
        let mut matching = Vec::with_capacity(answers.len());
        for (word, &logit) in words.iter().zip(logits) {
            if word.is_empty() {
                continue;
            }
            matching.clear();
            matching
                .extend(keys.iter().enumerate().filter(|(_, key)| *key == word).map(|(i, _)| i));
            if matching.is_empty() {
                continue;
            }
            let probability = (f64::from(logit) - log_total).exp();
            let share = probability / matching.len() as f64;
            for &i in &matching {
                mass[i] += share;
            }
        }
        let total: f64 = mass.iter().sum();
        if !(total > 0.0 && total.is_finite()) {
            return Ok(None);
        }
        let mut probabilities = BTreeMap::new();
        for (answer, value) in answers.iter().zip(mass) {
            *probabilities.entry(answer.clone()).or_insert(0.0) += value / total;
        }
        Ok(Some(AnswerProbabilities {
            probabilities,
            method: "logits".into(),
            usage: TokenUsage { prompt_tokens: prompt_len, completion_tokens: 0 },
        }))
    }

    /// The prompt for `messages`, rendered and tokenised.
    fn prompt_tokens(&self, messages: &[ChatMessage]) -> Result<Vec<LlamaToken>, LlmError> {
        let prompt = self.render_prompt(messages)?;
        let vocab = self.model.vocab();
        let mut tokens = vocab.tokenize(prompt.as_bytes(), true, true);
        // A template that writes the BOS token itself would otherwise give two.
        let bos = vocab.bos();
        if tokens.len() >= 2 && tokens[0] == bos && tokens[1] == bos {
            tokens.remove(0);
        }
        if tokens.is_empty() {
            return Err(LlmError::Backend(
                "the prompt is empty: there is nothing to complete".into(),
            ));
        }
        Ok(tokens)
    }

    fn render_prompt(&self, messages: &[ChatMessage]) -> Result<String, LlmError> {
        let Some(template) = &self.template else {
            return Ok(plain_prompt(messages));
        };
        let chat = messages
            .iter()
            .map(|message| {
                LlamaChatMessage::new(role_name(message.role).to_owned(), message.content.clone())
            })
            .collect::<Result<Vec<_>, _>>()
            .map_err(|error| backend_error("a message cannot be passed to llama.cpp", error))?;
        match self.model.apply_chat_template(template, &chat, true) {
            Ok(prompt) => Ok(prompt),
            // llama.cpp only knows common templates by their shape; render others as Jinja.
            Err(native) => self.render_jinja(template, messages).map_err(|jinja| {
                LlmError::Backend(format!(
                    "the chat template in {} cannot be applied (llama.cpp: {native}; jinja: {jinja})",
                    self.path.display()
                ))
            }),
        }
    }

    fn render_jinja(
        &self,
        template: &LlamaChatTemplate,
        messages: &[ChatMessage],
    ) -> Result<String, String> {
        let source = template.to_str().map_err(|error| error.to_string())?;
        let mut env = minijinja::Environment::new();
        env.add_function(
            "raise_exception",
            |message: String| -> Result<String, minijinja::Error> {
                Err(minijinja::Error::new(minijinja::ErrorKind::InvalidOperation, message))
            },
        );
        let vocab = self.model.vocab();
        let special = |token: LlamaToken| {
            if token.0 < 0 || token.0 >= vocab.n_tokens() {
                return String::new();
            }
            String::from_utf8_lossy(&vocab.token_to_piece(token, true, None)).into_owned()
        };
        env.render_str(
            source,
            minijinja::context! {
                messages => messages,
                add_generation_prompt => true,
                bos_token => special(vocab.bos()),
                eos_token => special(vocab.eos()),
            },
        )
        .map_err(|error| error.to_string())
    }

    /// Prompt plus `max_tokens` must fit in the context. The error's `context_tokens` is the
    /// room left for the prompt once `max_tokens` is reserved.
    fn check_fits(&self, prompt_tokens: u32, max_tokens: u32) -> Result<(), LlmError> {
        if u64::from(prompt_tokens) + u64::from(max_tokens) > u64::from(self.context_tokens) {
            return Err(LlmError::ContextOverflow {
                prompt_tokens,
                context_tokens: self.context_tokens.saturating_sub(max_tokens),
            });
        }
        Ok(())
    }

    /// A context holding `tokens` cells shared by `sequences` sequences (one unified cache, so
    /// a prompt evaluated once serves every sequence), decoding up to `batch` tokens at a time.
    fn new_context(
        &self,
        tokens: u32,
        sequences: u32,
        batch: u32,
    ) -> Result<LlamaContext<'_>, LlmError> {
        let params = LlamaContextParams::default()
            .with_n_ctx(NonZeroU32::new(tokens.max(1)))
            .with_n_batch(batch.max(1))
            .with_n_seq_max(sequences.max(1))
            .with_kv_unified(true)
            .with_n_threads(self.threads)
            .with_n_threads_batch(self.threads);
        let _creating = self.context_creation.lock().unwrap_or_else(PoisonError::into_inner);
        self.model.new_context(backend(), params).map_err(|error| {
            backend_error(&format!("cannot create a context of {tokens} tokens"), error)
        })
    }

    /// Decodes `prompt` once for sequences `0..sequences`; the logits of its last token are at
    /// output `prompt.len() - 1`.
    fn evaluate_prompt(
        &self,
        ctx: &mut LlamaContext<'_>,
        batch: &mut LlamaBatch<'_>,
        prompt: &[LlamaToken],
        sequences: u32,
    ) -> Result<(), LlmError> {
        let sequence_ids: Vec<i32> = (0..sequences as i32).collect();
        batch.clear();
        for (position, &token) in prompt.iter().enumerate() {
            batch
                .add(token, position as i32, &sequence_ids, position + 1 == prompt.len())
                .map_err(|error| backend_error("cannot batch the prompt", error))?;
        }
        ctx.decode(batch).map_err(|error| backend_error("evaluating the prompt failed", error))
    }

    fn sampler(
        &self,
        request: &CompletionRequest,
        seed: u64,
        index: u32,
    ) -> Result<LlamaSampler, LlmError> {
        let mut chain = Vec::new();
        if let Some(OutputConstraint::Grammar(grammar)) = &request.constraint {
            let sampler = LlamaSampler::grammar(&self.model, grammar, "root").map_err(|error| {
                LlmError::Backend(format!(
                    "the GBNF grammar cannot be used ({error}); it must define `root` and parse"
                ))
            })?;
            chain.push(sampler);
        }
        let params = &request.params;
        if params.temperature > 0.0 {
            if params.top_p > 0.0 && params.top_p < 1.0 {
                chain.push(LlamaSampler::top_p(params.top_p, 1));
            }
            chain.push(LlamaSampler::temp(params.temperature));
            chain.push(LlamaSampler::dist(sampler_seed(seed, index)));
        } else {
            chain.push(LlamaSampler::greedy());
        }
        Ok(LlamaSampler::chain_simple(chain))
    }

    /// The log-probability of `chosen` and of the `top` most likely tokens under the softmax of
    /// the raw logits.
    fn token_logprob(&self, logits: &[f32], chosen: LlamaToken, top: usize) -> TokenLogprob {
        let log_total = log_sum_exp(logits);
        let logprob = |logit: f32| (f64::from(logit) - log_total) as f32;
        let chosen_logit = usize::try_from(chosen.0)
            .ok()
            .and_then(|i| logits.get(i))
            .copied()
            .unwrap_or(f32::NEG_INFINITY);
        let mut alternatives = Vec::new();
        let top = top.min(logits.len());
        if top > 0 {
            let mut order: Vec<usize> = (0..logits.len()).collect();
            order.select_nth_unstable_by(top - 1, |&a, &b| logits[b].total_cmp(&logits[a]));
            order.truncate(top);
            order.sort_by(|&a, &b| logits[b].total_cmp(&logits[a]));
            alternatives = order
                .into_iter()
                .map(|i| (self.display_piece(LlamaToken(i as i32)), logprob(logits[i])))
                .collect();
        }
        TokenLogprob {
            token: self.display_piece(chosen),
            logprob: logprob(chosen_logit),
            top: alternatives,
        }
    }

    /// A token's text with special tokens spelled out.
    fn display_piece(&self, token: LlamaToken) -> String {
        String::from_utf8_lossy(&self.model.vocab().token_to_piece(token, true, None)).into_owned()
    }

    fn token_words(&self) -> &[String] {
        self.token_words.get_or_init(|| {
            let vocab = self.model.vocab();
            let mut piece = Vec::new();
            vocab
                .tokens()
                .map(|token| {
                    piece.clear();
                    vocab.token_to_piece_into(token, &mut piece, false, None);
                    first_word(&String::from_utf8_lossy(&piece))
                })
                .collect()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_differ_per_sample_and_avoid_the_random_marker() {
        assert_ne!(sampler_seed(42, 0), sampler_seed(42, 1));
        assert_eq!(sampler_seed(42, 1), sampler_seed(43, 0));
        assert_ne!(sampler_seed(u64::from(u32::MAX), 0), u32::MAX);
    }

    #[test]
    fn first_words_ignore_case_space_and_punctuation() {
        assert_eq!(first_word(" Yes"), "yes");
        assert_eq!(first_word("YES,"), "yes");
        assert_eq!(first_word("**no"), "no");
        assert_eq!(first_word("Yesterday"), "yesterday");
        assert_eq!(first_word("<|im_end|>"), "im");
        assert_eq!(first_word(" "), "");
    }

    #[test]
    fn log_sum_exp_is_stable() {
        let value = log_sum_exp(&[1000.0, 1000.0]);
        assert!((value - (1000.0 + 2f64.ln())).abs() < 1e-9);
    }

    #[test]
    fn files_that_are_not_gguf_are_refused_before_llama_cpp() {
        let dir = tempfile::tempdir().expect("temp dir");
        let missing = dir.path().join("missing.gguf");
        let empty = dir.path().join("empty.gguf");
        std::fs::write(&empty, b"").expect("write");
        let short = dir.path().join("short.gguf");
        std::fs::write(&short, b"GG").expect("write");
        let header = dir.path().join("header.gguf");
        std::fs::write(&header, b"GGUF\x03\0\0\0").expect("write");
        let text = dir.path().join("text.gguf");
        std::fs::write(&text, b"<html>not a model</html>").expect("write");
        for path in [missing, empty, short, header, text] {
            match check_gguf(&path) {
                Err(LlmError::ModelFile { fetch_command, .. }) => {
                    assert_eq!(fetch_command, FETCH_COMMAND);
                }
                other => panic!("{}: {other:?}", path.display()),
            }
        }
    }
}
