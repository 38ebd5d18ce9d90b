//! Chat models for the application: the provider chosen from settings and environment
//! (an OpenAI-compatible server when one is configured, else the embedded GGUF model, loaded
//! once per process), every call recorded in the database through the audit layer, and the
//! user actions `ask`, `models list` and `models check` (which also asks a server once for a
//! JSON-Schema answer), and what servers have shown they take of output constraints
//! ([`Factdesk::constraint_support`], kept by `factdesk-llm`).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[cfg(feature = "embedded")]
use factdesk_llm::embedded::{EmbeddedModel, EmbeddedSettings};
use factdesk_llm::openai::{OpenAiCompatible, OpenAiSettings};
/// What a server and model have shown of output constraints (kept by `factdesk-llm`).
pub use factdesk_llm::openai::{ServerSupport, Support};
use factdesk_llm::{
    AuditedModel, CacheMode, CallCollector, CallRecord, CallStore, ChatMessage, CompletionRequest,
    FinishReason, LanguageModel, OutputConstraint,
};
use factdesk_model::{RunId, RunStatus};
use factdesk_store::NewModelCall;
use serde::Serialize;

use crate::{CoreError, Factdesk, Result, env};

/// The model the settings and environment select.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(tag = "provider", rename_all = "kebab-case")]
pub enum ModelChoice {
    Embedded { path: PathBuf },
    OpenaiCompatible { base_url: String, model: String, has_api_key: bool },
}

impl ModelChoice {
    /// The model's name as runs record it: the server's model name, or the GGUF file's stem.
    pub fn model_name(&self) -> String {
        match self {
            ModelChoice::OpenaiCompatible { model, .. } => model.clone(),
            ModelChoice::Embedded { path } => path
                .file_stem()
                .map_or_else(|| path.display().to_string(), |s| s.to_string_lossy().into_owned()),
        }
    }
}

/// Options of `ask`.
#[derive(Debug, Clone, Default)]
pub struct AskOptions {
    pub system: Option<String>,
    pub max_tokens: Option<u32>,
    pub temperature: Option<f32>,
    pub seed: Option<u64>,
}

/// The answer of `ask`, with where it came from and what it cost.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AskAnswer {
    pub text: String,
    pub provider: String,
    pub model: String,
    pub run_id: RunId,
    /// The audit record of the call (`model_calls.id`).
    pub audit_id: Option<i64>,
    /// True when the answer came from the record of an identical earlier call.
    pub replayed: bool,
    pub prompt_tokens: u32,
    pub completion_tokens: u32,
    pub truncated: bool,
    pub latency_ms: u64,
}

/// What `models list` shows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelListing {
    pub selected: ModelChoice,
    pub models_dir: PathBuf,
    /// GGUF files in the models directory.
    pub local_models: Vec<String>,
    /// Models the configured server offers (when a server is configured and answers).
    pub server_models: Option<Vec<String>>,
    pub server_error: Option<String>,
}

/// What `models check` found.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct ModelCheck {
    pub selected: ModelChoice,
    pub answer: String,
    pub latency_ms: u64,
    pub prompt_tokens: u32,
    pub completion_tokens: u32,
    /// With a server and shaped answers on: what it showed of output constraints after one
    /// request carrying a small JSON Schema (none with the embedded model, which takes
    /// grammars, or with shaped answers off).
    pub constraints: Option<ServerSupport>,
}

fn parse_field<T: serde::de::DeserializeOwned>(
    id: i64,
    value: &serde_json::Value,
) -> std::result::Result<T, String> {
    serde_json::from_value(value.clone()).map_err(|e| format!("model call {id}: {e}"))
}

/// Writes audit records to the store and finds them again.
struct StoreCallLog {
    app: Factdesk,
}

impl CallStore for StoreCallLog {
    fn find(&self, request_key: &str) -> std::result::Result<Option<(i64, CallRecord)>, String> {
        let row = self
            .app
            .store()
            .map_err(|e| e.to_string())?
            .model_call_by_key(request_key)
            .map_err(|e| e.to_string())?;
        let Some(row) = row else { return Ok(None) };
        let call = &row.call;
        let parameters: serde_json::Value = serde_json::from_str(&call.parameters_json)
            .map_err(|e| format!("model call {}: {e}", row.id))?;
        let record = CallRecord {
            request_key: call.request_key.clone(),
            kind: parse_field(row.id, &serde_json::Value::String(call.kind.clone()))?,
            run_id: call.run_id.map(|r| r.0),
            provider: call.provider.clone(),
            model: call.model.clone(),
            template_id: call.template_id.clone(),
            template_version: call.template_version,
            messages: serde_json::from_str(&call.messages_json)
                .map_err(|e| format!("model call {}: {e}", row.id))?,
            params: parse_field(row.id, &parameters["sampling"])?,
            constraint: parse_field(row.id, &parameters["constraint"])?,
            answers: parse_field(row.id, &parameters["answers"])?,
            response: serde_json::from_str(&call.response_json)
                .map_err(|e| format!("model call {}: {e}", row.id))?,
            usage: factdesk_llm::TokenUsage {
                prompt_tokens: call.prompt_tokens,
                completion_tokens: call.completion_tokens,
            },
            latency_ms: call.latency_ms,
        };
        Ok(Some((row.id, record)))
    }

    fn save(&self, record: &CallRecord) -> std::result::Result<i64, String> {
        let parameters = serde_json::json!({
            "sampling": record.params,
            "constraint": record.constraint,
            "answers": record.answers,
        });
        let call = NewModelCall {
            run_id: record.run_id.map(RunId),
            request_key: record.request_key.clone(),
            kind: record.kind.as_str().to_owned(),
            provider: record.provider.clone(),
            model: record.model.clone(),
            template_id: record.template_id.clone(),
            template_version: record.template_version,
            messages_json: serde_json::to_string(&record.messages).map_err(|e| e.to_string())?,
            parameters_json: parameters.to_string(),
            seed: record.params.seed,
            response_json: record.response.to_string(),
            prompt_tokens: record.usage.prompt_tokens,
            completion_tokens: record.usage.completion_tokens,
            latency_ms: record.latency_ms,
        };
        self.app
            .store()
            .map_err(|e| e.to_string())?
            .insert_model_call(&call)
            .map_err(|e| e.to_string())
    }
}

impl Factdesk {
    /// The model the settings select, with environment overrides applied.
    pub fn model_choice(&self) -> ModelChoice {
        let llm = &self.settings().llm;
        let base_url = env::var(env::LLM_BASE_URL).unwrap_or_else(|| llm.base_url.clone());
        let model = env::var(env::LLM_MODEL).unwrap_or_else(|| llm.model.clone());
        let api_key = env::var(env::LLM_API_KEY).unwrap_or_else(|| llm.api_key.clone());
        let use_server = match llm.provider.as_str() {
            "openai-compatible" => true,
            "embedded" => false,
            _ => !base_url.trim().is_empty(),
        };
        if use_server {
            return ModelChoice::OpenaiCompatible {
                base_url: base_url.trim().trim_end_matches('/').to_owned(),
                model,
                has_api_key: !api_key.is_empty(),
            };
        }
        let file = PathBuf::from(&llm.embedded_model);
        let path = if file.is_absolute() || file.components().count() > 1 {
            file
        } else {
            factdesk_llm::embeddings::model_path(&llm.embedded_model)
        };
        ModelChoice::Embedded { path }
    }

    /// Client settings for the configured server: key from the environment or settings,
    /// timeouts, retries and concurrency from `[llm]`.
    fn openai_settings(&self, base_url: &str, model: &str) -> OpenAiSettings {
        let llm = &self.settings().llm;
        let mut settings = OpenAiSettings::new(base_url, model);
        settings.api_key = env::var(env::LLM_API_KEY)
            .or_else(|| Some(llm.api_key.clone()))
            .filter(|k| !k.is_empty());
        settings.request_timeout = Duration::from_secs(llm.request_timeout_secs.max(1));
        settings.max_retries = llm.max_retries;
        settings.max_concurrency = llm.max_concurrency.max(1);
        settings.call_deadline = Duration::from_secs(llm.call_deadline_secs.max(1));
        settings.shaped_answers = llm.shaped_answers;
        settings
    }

    /// The selected chat model without the audit layer.
    fn raw_language_model(&self) -> Result<Arc<dyn LanguageModel>> {
        match self.model_choice() {
            ModelChoice::OpenaiCompatible { base_url, model, .. } => {
                if base_url.is_empty() {
                    return Err(CoreError::InvalidInput(
                        "llm.provider is openai-compatible but no server is set; set FACTDESK_LLM_BASE_URL or llm.base_url".into(),
                    ));
                }
                if model.is_empty() {
                    return Err(CoreError::InvalidInput(format!(
                        "no model name for the server at {base_url}; set FACTDESK_LLM_MODEL or llm.model"
                    )));
                }
                // One client per server and model for the application's life: its bound on
                // calls in flight (`llm.max_concurrency`) holds across every check and
                // revision running at once, not per check.
                let key = PathBuf::from(format!("{base_url}\n{model}"));
                self.inner.server.get(&key, || {
                    Ok(Arc::new(OpenAiCompatible::new(self.openai_settings(&base_url, &model))?))
                })
            }
            #[cfg(feature = "embedded")]
            ModelChoice::Embedded { path } => self.inner.embedded.get(&path, || {
                let llm = &self.settings().llm;
                let settings = EmbeddedSettings {
                    context_tokens: llm.context_tokens,
                    threads: (llm.threads > 0).then_some(llm.threads),
                    ..EmbeddedSettings::default()
                };
                Ok(Arc::new(EmbeddedModel::load(&path, settings)?))
            }),
            #[cfg(not(feature = "embedded"))]
            ModelChoice::Embedded { path } => Err(CoreError::InvalidInput(format!(
                "the settings select the embedded model {}, but this build of Factdesk has none \
                     (built without the `embedded` feature); set llm.provider = \"openai-compatible\" \
                     with a server, or use a build with the feature (the default)",
                path.display()
            ))),
        }
    }

    /// The selected chat model, every call recorded in the database for `run`; identical
    /// requests are answered from the record as `llm.cache` (or `cache`) says.
    pub fn language_model(
        &self,
        run: Option<RunId>,
        cache: Option<CacheMode>,
    ) -> Result<Arc<dyn LanguageModel>> {
        let mode = match cache {
            Some(mode) => mode,
            None => self.settings().llm.cache.parse().map_err(CoreError::InvalidInput)?,
        };
        self.collecting_language_model(run, Some(mode), None)
    }

    /// [`Self::language_model`], also reporting the record id of every answer to `collector`
    /// (so a check can name the model calls behind it).
    pub fn collecting_language_model(
        &self,
        run: Option<RunId>,
        cache: Option<CacheMode>,
        collector: Option<CallCollector>,
    ) -> Result<Arc<dyn LanguageModel>> {
        let mode = match cache {
            Some(mode) => mode,
            None => self.settings().llm.cache.parse().map_err(CoreError::InvalidInput)?,
        };
        let log = Arc::new(StoreCallLog { app: self.clone() });
        let mut audited =
            AuditedModel::new(self.raw_language_model()?, log, mode, run.map(|r| r.0));
        if let Some(collector) = collector {
            audited = audited.with_collector(collector);
        }
        Ok(Arc::new(audited))
    }

    /// Sends one prompt to the selected model, as a run of its own.
    #[tracing::instrument(skip(self, prompt))]
    pub async fn ask(&self, prompt: &str, options: AskOptions) -> Result<AskAnswer> {
        if prompt.trim().is_empty() {
            return Err(CoreError::InvalidInput("the prompt is empty".into()));
        }
        let choice = self.model_choice();
        let config = serde_json::json!({
            "max_tokens": options.max_tokens, "temperature": options.temperature, "seed": options.seed,
        });
        let models = crate::identity::RunModels { chat: Some(choice.model_name()), nli: None };
        let run =
            self.create_run(&crate::identity::RunIdentity::new("ask", &config, models)?, None)?;
        self.store()?.set_run_status(run, RunStatus::Running, None)?;
        let result = async {
            let model = self.language_model(Some(run), None)?;
            let mut messages = Vec::new();
            if let Some(system) = &options.system {
                messages.push(ChatMessage::system(system));
            }
            messages.push(ChatMessage::user(prompt));
            let mut request = CompletionRequest::new(messages);
            request.params.max_tokens = options.max_tokens.unwrap_or(256);
            request.params.temperature = options.temperature.unwrap_or(0.0);
            request.params.seed = options.seed;
            let started = Instant::now();
            let completion = model.complete(&request).await?;
            let info = model.info();
            Ok::<_, CoreError>(AskAnswer {
                text: completion.text().to_owned(),
                provider: info.provider,
                model: completion.model.clone(),
                run_id: run,
                audit_id: completion.audit_id,
                replayed: completion.replayed,
                prompt_tokens: completion.usage.prompt_tokens,
                completion_tokens: completion.usage.completion_tokens,
                truncated: completion
                    .choices
                    .first()
                    .is_some_and(|c| c.finish_reason == FinishReason::Length),
                latency_ms: started.elapsed().as_millis() as u64,
            })
        }
        .await;
        let (status, error) = match &result {
            Ok(_) => (RunStatus::Completed, None),
            Err(error) => (RunStatus::Failed, Some(error.to_string())),
        };
        self.store()?.set_run_status(run, status, error.as_deref())?;
        result
    }

    /// The selected model, the model files present, and the server's models.
    pub async fn list_models(&self) -> Result<ModelListing> {
        let selected = self.model_choice();
        let models_dir = env::models_dir();
        let mut local_models: Vec<String> = std::fs::read_dir(&models_dir)
            .map(|entries| {
                entries
                    .filter_map(|entry| entry.ok())
                    .map(|entry| entry.file_name().to_string_lossy().into_owned())
                    .filter(|name| name.to_ascii_lowercase().ends_with(".gguf"))
                    .collect()
            })
            .unwrap_or_default();
        local_models.sort();
        let (mut server_models, mut server_error) = (None, None);
        if let ModelChoice::OpenaiCompatible { base_url, model, .. } = &selected {
            let mut settings = self.openai_settings(base_url, model);
            settings.max_retries = 0;
            settings.request_timeout = Duration::from_secs(20);
            match OpenAiCompatible::new(settings)?.list_models().await {
                Ok(models) => server_models = Some(models),
                Err(error) => server_error = Some(error.to_string()),
            }
        }
        Ok(ModelListing { selected, models_dir, local_models, server_models, server_error })
    }

    /// Asks the selected model for a one-word answer, bypassing the record, to show that it
    /// answers.
    pub async fn check_model(&self) -> Result<ModelCheck> {
        let selected = self.model_choice();
        let model = self.raw_language_model()?;
        let mut request =
            CompletionRequest::new(vec![ChatMessage::user("Reply with the single word OK.")]);
        request.params.max_tokens = 8;
        let started = Instant::now();
        let completion = model.complete(&request).await?;
        let latency_ms = started.elapsed().as_millis() as u64;
        let constraints = match &selected {
            ModelChoice::OpenaiCompatible { base_url, model: name, .. }
                if self.settings().llm.shaped_answers =>
            {
                // One request with a schema, once per server and model in the process: the
                // provider learns from its answer (accepted, refused) as a run would.
                if factdesk_llm::openai::support(base_url, name).json_schema
                    == factdesk_llm::openai::Support::NotTried
                {
                    request.constraint = Some(OutputConstraint::JsonSchema(serde_json::json!({
                        "type": "object",
                        "properties": {"answer": {"type": "string"}},
                        "required": ["answer"],
                    })));
                    request.params.max_tokens = 16;
                    if let Err(error) = model.complete(&request).await {
                        tracing::warn!(%error, "the server failed a request with a JSON Schema");
                    }
                }
                Some(factdesk_llm::openai::support(base_url, name))
            }
            _ => None,
        };
        Ok(ModelCheck {
            selected,
            answer: completion.text().trim().to_owned(),
            latency_ms,
            prompt_tokens: completion.usage.prompt_tokens,
            completion_tokens: completion.usage.completion_tokens,
            constraints,
        })
    }

    /// What the servers this process has asked have shown they take of output constraints
    /// (JSON Schemas, grammars), per server and model, with the selected server and model
    /// first (not tried when nothing has been asked of it yet); empty with the embedded
    /// model and no server asked.
    pub fn constraint_support(&self) -> Vec<ServerSupport> {
        let mut known = factdesk_llm::openai::known_support();
        if let ModelChoice::OpenaiCompatible { base_url, model, .. } = self.model_choice() {
            known.retain(|seen| (&seen.base_url, &seen.model) != (&base_url, &model));
            known.insert(0, factdesk_llm::openai::support(&base_url, &model));
        }
        known
    }
}
