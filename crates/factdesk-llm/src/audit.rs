//! Audit and replay. [`AuditedModel`] wraps any [`LanguageModel`]: every call is recorded
//! (provider, model, template id and version, rendered messages, parameters, seed, the
//! response with its log-probabilities, token counts, latency, time, run) through a
//! [`CallStore`], and, per run, an identical request can be served from an earlier record:
//! [`CacheMode::ReadWrite`] reuses and records, [`CacheMode::ReplayOnly`] never calls the
//! model (a finished run re-runs with zero model calls), [`CacheMode::Off`] only records.
//! Failed calls are never recorded. What became of a request's output constraint (accepted,
//! refused by the server and asked again without it, withheld) is part of the recorded
//! answer ([`crate::Completion::constraint`]); a replay of a constrained request may take the
//! record of the same request unconstrained (an older run's, made before the prompt asked
//! for a shape).

use std::sync::Arc;
use std::time::Instant;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::{
    AnswerProbabilities, ChatMessage, Completion, CompletionRequest, ConstraintKind, LanguageModel,
    LlmError, ModelInfo, OutputConstraint, SamplingParams, TokenUsage,
};

/// Whether identical requests are served from the record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "kebab-case")]
pub enum CacheMode {
    /// Always call the model; record every call.
    Off,
    /// Serve identical requests from the record; call and record the rest.
    ReadWrite,
    /// Serve only from the record; a request never seen is an error.
    ReplayOnly,
}

impl std::str::FromStr for CacheMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "off" => Ok(CacheMode::Off),
            "read-write" => Ok(CacheMode::ReadWrite),
            "replay-only" => Ok(CacheMode::ReplayOnly),
            other => {
                Err(format!("cache mode '{other}' is not one of off, read-write, replay-only"))
            }
        }
    }
}

/// What kind of call a record holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallKind {
    Completion,
    AnswerProbabilities,
}

impl CallKind {
    pub fn as_str(self) -> &'static str {
        match self {
            CallKind::Completion => "completion",
            CallKind::AnswerProbabilities => "answer_probabilities",
        }
    }
}

/// One recorded model call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallRecord {
    pub request_key: String,
    pub kind: CallKind,
    pub run_id: Option<i64>,
    pub provider: String,
    pub model: String,
    pub template_id: Option<String>,
    pub template_version: Option<u32>,
    pub messages: Vec<ChatMessage>,
    pub params: SamplingParams,
    pub constraint: Option<OutputConstraint>,
    /// The answers asked about (answer-probability calls only).
    pub answers: Vec<String>,
    /// The response: a [`Completion`] or [`AnswerProbabilities`] as JSON.
    pub response: serde_json::Value,
    pub usage: TokenUsage,
    pub latency_ms: u64,
}

/// Where call records live (the application's database).
pub trait CallStore: Send + Sync {
    /// The newest record with this key, with its id.
    fn find(&self, request_key: &str) -> Result<Option<(i64, CallRecord)>, String>;
    /// Saves a record and returns its id.
    fn save(&self, record: &CallRecord) -> Result<i64, String>;
}

/// The key of a request: a hash of everything that determines the answer (provider, model,
/// messages, parameters including the seed, constraint, and for answer probabilities the
/// answers), but not of the template id, which only names where the messages came from.
pub fn request_key(
    info: &ModelInfo,
    kind: CallKind,
    request: &CompletionRequest,
    answers: &[&str],
) -> String {
    let identity = serde_json::json!({
        "provider": info.provider,
        "model": info.model,
        "kind": kind,
        "messages": request.messages,
        "params": request.params,
        "constraint": request.constraint,
        "answers": answers,
    });
    blake3::hash(identity.to_string().as_bytes()).to_hex().to_string()
}

/// A model whose calls are recorded and, by mode, replayed.
pub struct AuditedModel {
    inner: Arc<dyn LanguageModel>,
    store: Arc<dyn CallStore>,
    mode: CacheMode,
    run_id: Option<i64>,
    collector: Option<CallCollector>,
}

/// Collects the ids of the records behind every answer a model gives (recorded or replayed),
/// so a result can name the calls that produced it.
#[derive(Debug, Clone, Default)]
pub struct CallCollector(Arc<std::sync::Mutex<Vec<i64>>>);

impl CallCollector {
    fn push(&self, id: i64) {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(id);
    }

    /// The ids collected so far, in call order, without repeats.
    pub fn ids(&self) -> Vec<i64> {
        let ids = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut unique = Vec::with_capacity(ids.len());
        for id in ids.iter() {
            if !unique.contains(id) {
                unique.push(*id);
            }
        }
        unique
    }
}

impl std::fmt::Debug for AuditedModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuditedModel")
            .field("mode", &self.mode)
            .field("run_id", &self.run_id)
            .finish_non_exhaustive()
    }
}

impl AuditedModel {
    pub fn new(
        inner: Arc<dyn LanguageModel>,
        store: Arc<dyn CallStore>,
        mode: CacheMode,
        run_id: Option<i64>,
    ) -> AuditedModel {
        AuditedModel { inner, store, mode, run_id, collector: None }
    }

    /// Reports the record id of every answer to `collector`.
    pub fn with_collector(mut self, collector: CallCollector) -> AuditedModel {
        self.collector = Some(collector);
        self
    }

    fn collected(&self, id: i64) {
        if let Some(collector) = &self.collector {
            collector.push(id);
        }
    }

    fn lookup(&self, key: &str) -> Result<Option<(i64, CallRecord)>, LlmError> {
        if self.mode == CacheMode::Off {
            return Ok(None);
        }
        let found = self.store.find(key).map_err(LlmError::Audit)?;
        if found.is_none() && self.mode == CacheMode::ReplayOnly {
            return Err(LlmError::ReplayMiss { key: key.to_owned() });
        }
        Ok(found)
    }

    /// The record answering a completion request. A replay that finds none for a request with
    /// a constraint takes the record of the same request without it, if there is one: a run
    /// recorded before its prompt asked for a shape replays, its answers read as free text.
    fn replayable(
        &self,
        key: &str,
        request: &CompletionRequest,
    ) -> Result<Option<(i64, CallRecord)>, LlmError> {
        if self.mode != CacheMode::ReplayOnly || request.constraint.is_none() {
            return self.lookup(key);
        }
        match self.store.find(key).map_err(LlmError::Audit)? {
            Some(found) => Ok(Some(found)),
            None => {
                let mut free = request.clone();
                free.constraint = None;
                let free_key = request_key(&self.inner.info(), CallKind::Completion, &free, &[]);
                match self.store.find(&free_key).map_err(LlmError::Audit)? {
                    Some(found) => Ok(Some(found)),
                    None => Err(LlmError::ReplayMiss { key: key.to_owned() }),
                }
            }
        }
    }

    fn record(
        &self,
        key: String,
        kind: CallKind,
        request: &CompletionRequest,
        answers: &[&str],
        (response, usage): (serde_json::Value, TokenUsage),
        started: Instant,
    ) -> Result<i64, LlmError> {
        let info = self.inner.info();
        let record = CallRecord {
            request_key: key,
            kind,
            run_id: self.run_id,
            provider: info.provider,
            model: info.model,
            template_id: request.template.as_ref().map(|t| t.id.clone()),
            template_version: request.template.as_ref().map(|t| t.version),
            messages: request.messages.clone(),
            params: request.params.clone(),
            constraint: request.constraint.clone(),
            answers: answers.iter().map(|a| a.to_string()).collect(),
            response,
            usage,
            latency_ms: started.elapsed().as_millis() as u64,
        };
        self.store.save(&record).map_err(LlmError::Audit)
    }
}

fn decode<T: serde::de::DeserializeOwned>(
    id: i64,
    value: serde_json::Value,
) -> Result<T, LlmError> {
    serde_json::from_value(value)
        .map_err(|error| LlmError::Audit(format!("call record {id} cannot be read: {error}")))
}

#[async_trait]
impl LanguageModel for AuditedModel {
    fn info(&self) -> ModelInfo {
        self.inner.info()
    }

    fn may_accept(&self, kind: ConstraintKind) -> bool {
        self.inner.may_accept(kind)
    }

    fn constraint_ignored(&self, kind: ConstraintKind) {
        self.inner.constraint_ignored(kind);
    }

    async fn complete(&self, request: &CompletionRequest) -> Result<Completion, LlmError> {
        let key = request_key(&self.inner.info(), CallKind::Completion, request, &[]);
        if let Some((id, record)) = self.replayable(&key, request)? {
            let mut completion: Completion = decode(id, record.response)?;
            completion.audit_id = Some(id);
            completion.replayed = true;
            self.collected(id);
            return Ok(completion);
        }
        let started = Instant::now();
        let mut completion = self.inner.complete(request).await?;
        let response =
            serde_json::to_value(&completion).map_err(|e| LlmError::Audit(e.to_string()))?;
        let id = self.record(
            key,
            CallKind::Completion,
            request,
            &[],
            (response, completion.usage),
            started,
        )?;
        completion.audit_id = Some(id);
        self.collected(id);
        Ok(completion)
    }

    async fn answer_probabilities(
        &self,
        request: &CompletionRequest,
        answers: &[&str],
        samples: u32,
    ) -> Result<AnswerProbabilities, LlmError> {
        let mut keyed = request.clone();
        keyed.params.n = samples;
        let key = request_key(&self.inner.info(), CallKind::AnswerProbabilities, &keyed, answers);
        if let Some((id, record)) = self.lookup(&key)? {
            self.collected(id);
            return decode(id, record.response);
        }
        let started = Instant::now();
        let probabilities = self.inner.answer_probabilities(request, answers, samples).await?;
        let response =
            serde_json::to_value(&probabilities).map_err(|e| LlmError::Audit(e.to_string()))?;
        let id = self.record(
            key,
            CallKind::AnswerProbabilities,
            &keyed,
            answers,
            (response, probabilities.usage),
            started,
        )?;
        self.collected(id);
        Ok(probabilities)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use factdesk_testkit::TestServer;
    use factdesk_testkit::scripted::{Asked, P_TRUE_TEMPLATE, ScriptedModel};

    use super::*;
    use crate::openai::{OpenAiCompatible, OpenAiSettings};

    #[derive(Default)]
    struct MemoryStore {
        records: Mutex<Vec<CallRecord>>,
    }

    impl CallStore for MemoryStore {
        fn find(&self, key: &str) -> Result<Option<(i64, CallRecord)>, String> {
            let records = self.records.lock().map_err(|e| e.to_string())?;
            Ok(records
                .iter()
                .enumerate()
                .rev()
                .find(|(_, r)| r.request_key == key)
                .map(|(i, r)| (i as i64 + 1, r.clone())))
        }
        fn save(&self, record: &CallRecord) -> Result<i64, String> {
            let mut records = self.records.lock().map_err(|e| e.to_string())?;
            records.push(record.clone());
            Ok(records.len() as i64)
        }
    }

    /// A prompt of no template: the scripted model answers it with its `otherwise` script.
    fn request(text: &str) -> CompletionRequest {
        CompletionRequest::new(vec![ChatMessage::user(text)])
    }

    /// The testkit's scripted model on loopback, and a provider that talks to it (no retries).
    fn served(model: ScriptedModel) -> (TestServer, Arc<OpenAiCompatible>) {
        let server = model.serve();
        let mut settings = OpenAiSettings::new(&server.url("/v1"), "scripted");
        settings.max_retries = 0;
        (server, Arc::new(OpenAiCompatible::new(settings).unwrap()))
    }

    fn constant(text: &'static str) -> ScriptedModel {
        ScriptedModel::new().otherwise(move |_| text.to_owned())
    }

    #[tokio::test]
    async fn a_second_run_replays_without_calling_the_model() {
        let store = Arc::new(MemoryStore::default());
        let (first, model) = served(
            ScriptedModel::new().otherwise(|asked: &Asked| format!("echo {}", asked.prompt)),
        );
        let audited = AuditedModel::new(model, store.clone(), CacheMode::ReadWrite, Some(7));
        let answer = audited.complete(&request("one")).await.unwrap();
        assert_eq!((answer.text(), answer.audit_id, answer.replayed), ("echo one", Some(1), false));
        let again = audited.complete(&request("one")).await.unwrap();
        assert_eq!((again.text(), again.replayed), ("echo one", true));
        assert_eq!(first.requests().len(), 1);

        let (fresh, model) = served(constant("should not be called"));
        let replay = AuditedModel::new(model, store.clone(), CacheMode::ReplayOnly, Some(8));
        assert_eq!(replay.complete(&request("one")).await.unwrap().text(), "echo one");
        assert!(matches!(replay.complete(&request("two")).await, Err(LlmError::ReplayMiss { .. })));
        assert!(fresh.requests().is_empty());

        let record = &store.records.lock().unwrap()[0];
        assert_eq!(record.run_id, Some(7));
        assert_eq!(record.messages[0].content, "one");
        // The testkit's server counts 20 prompt tokens for any prompt.
        assert_eq!(record.usage.prompt_tokens, 20);
    }

    #[tokio::test]
    async fn a_collector_names_every_call_behind_an_answer() {
        let store = Arc::new(MemoryStore::default());
        // Echoes a prompt of no template; answers "yes" to P(True)'s short-answer question.
        let (_server, model) = served(
            ScriptedModel::new()
                .otherwise(|asked| asked.prompt.clone())
                .on(P_TRUE_TEMPLATE, |_| "yes".to_owned()),
        );
        let collector = CallCollector::default();
        let audited = AuditedModel::new(model, store, CacheMode::ReadWrite, None)
            .with_collector(collector.clone());
        audited.complete(&request("a")).await.unwrap();
        audited.complete(&request("b")).await.unwrap();
        audited.complete(&request("a")).await.unwrap();
        let mut question = request("c");
        question.template = Some(crate::TemplateRef { id: P_TRUE_TEMPLATE.into(), version: 1 });
        audited.answer_probabilities(&question, &["yes", "no"], 2).await.unwrap();
        audited.answer_probabilities(&question, &["yes", "no"], 2).await.unwrap();
        assert_eq!(collector.ids(), vec![1, 2, 3], "replayed calls are named once");
    }

    #[tokio::test]
    async fn failed_calls_are_not_recorded_and_off_mode_always_calls() {
        let store = Arc::new(MemoryStore::default());
        // Down, then up, then down again.
        let calls = Arc::new(AtomicUsize::new(0));
        let counted = calls.clone();
        let (failing, model) = served(ScriptedModel::new().replying("", move |_| {
            let call = counted.fetch_add(1, Ordering::SeqCst);
            (call != 1).then(|| factdesk_testkit::TestResponse::text(503, "down"))
        }));
        let audited = AuditedModel::new(model, store.clone(), CacheMode::Off, None);
        assert!(audited.complete(&request("x")).await.is_err());
        assert!(store.records.lock().unwrap().is_empty());
        audited.complete(&request("x")).await.unwrap();
        audited.complete(&request("x")).await.unwrap_err();
        assert_eq!(failing.requests().len(), 3);
        assert_eq!(store.records.lock().unwrap().len(), 1);
    }

    #[tokio::test]
    async fn a_replay_of_a_shaped_request_takes_the_record_of_it_unshaped() {
        let store = Arc::new(MemoryStore::default());
        let (_server, model) = served(constant("free text"));
        let recorded = AuditedModel::new(model, store.clone(), CacheMode::ReadWrite, None);
        recorded.complete(&request("list")).await.unwrap();
        let mut shaped = request("list");
        shaped.constraint = Some(OutputConstraint::JsonSchema(serde_json::json!({})));
        let (fresh, model) = served(constant("should not be called"));
        let replay = AuditedModel::new(model, store.clone(), CacheMode::ReplayOnly, None);
        let answer = replay.complete(&shaped).await.unwrap();
        assert_eq!((answer.text(), answer.replayed), ("free text", true));
        assert!(fresh.requests().is_empty());
        let mut other = request("other");
        other.constraint = shaped.constraint.clone();
        assert!(matches!(replay.complete(&other).await, Err(LlmError::ReplayMiss { .. })));
        // Reading and writing, a shaped request is not answered by an unshaped record.
        let (live, model) = served(constant("{}"));
        let read_write = AuditedModel::new(model, store, CacheMode::ReadWrite, None);
        assert_eq!(read_write.complete(&shaped).await.unwrap().text(), "{}");
        assert_eq!(live.requests().len(), 1);
    }

    #[tokio::test]
    async fn sampled_answers_give_probabilities_without_logprobs() {
        // The testkit's server gives no log-probabilities: the answers are counted.
        let (_server, model) = served(ScriptedModel::new().on_samples(P_TRUE_TEMPLATE, |asked| {
            if asked.n > 1 {
                vec!["Yes".into(), "No".into(), "Yes.".into(), "yes".into()]
            } else {
                vec!["Yes".into()]
            }
        }));
        let mut question = request("Is it?");
        question.template = Some(crate::TemplateRef { id: P_TRUE_TEMPLATE.into(), version: 1 });
        let probabilities = model.answer_probabilities(&question, &["yes", "no"], 4).await.unwrap();
        assert_eq!(probabilities.method, "samples");
        assert!((probabilities.get("yes") - 0.75).abs() < 1e-9);
        assert!((probabilities.get("no") - 0.25).abs() < 1e-9);
    }

    #[test]
    fn keys_depend_on_what_determines_the_answer() {
        let info = ModelInfo { provider: "p".into(), model: "m".into(), location: "l".into() };
        let base = request("same");
        let key = request_key(&info, CallKind::Completion, &base, &[]);
        let mut seeded = base.clone();
        seeded.params.seed = Some(1);
        let mut templated = base.clone();
        templated.template = Some(crate::TemplateRef { id: "t".into(), version: 3 });
        assert_ne!(key, request_key(&info, CallKind::Completion, &seeded, &[]));
        assert_eq!(key, request_key(&info, CallKind::Completion, &templated, &[]));
        assert_ne!(key, request_key(&info, CallKind::AnswerProbabilities, &base, &["yes"]));
    }
}
