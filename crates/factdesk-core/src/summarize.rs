//! Summaries of several sources answering one question, with Truthful Text Summarization
//! (`factdesk-methods` `tts`): the sources are corpus documents (a whole corpus, chosen ones,
//! those a search of the index finds, or pages fetched by URL and imported first), each scored by correlated agreement with its peers,
//! and the answer is written from the ones scoring at least τ. The result is stored as an
//! [`Outcome::Summary`] under a run of its own, with the model calls behind it, each source's
//! leave-one-out draft, claims and stances, and the scores. The paper's baselines (all
//! sources, majority prompt, majority claims) run the same way on the same sources.
//!
//! A run is resumable: a cancelled, failed or interrupted run of the same method, settings,
//! question and documents is continued, its recorded model calls answered from the record, so
//! only the calls it had not made are made. A person may drop or restore sources of a stored
//! summary and have the answer written again from their choice ([`Factdesk::resummarize`]).

use std::sync::Arc;

use factdesk_llm::{CacheMode, CallCollector};
use factdesk_methods::tts::baselines::{Baseline, BaselineResult};
use factdesk_methods::tts::{Progress, Source, StanceJudge, Tts, TtsConfig};
use factdesk_model::ciber::Stance;
use factdesk_model::{
    CheckId, Document, DocumentId, Envelope, EvidenceSource, Outcome, RunId, RunStatus,
    ScoredSource, SourceClaims, SourcedSummary, StoredOutcome,
};
use serde::Serialize;

use crate::search::SearchRequest;
use crate::verify::{NLI_VERIFIER, method_error, verifier_folder};
use crate::{CancelToken, CoreError, Factdesk, ProgressUnit, Reporter, Result};

/// Where the sources come from.
#[derive(Debug, Clone)]
pub enum SummarySources {
    /// Every document of a corpus.
    Corpus(String),
    /// Chosen documents.
    Documents(Vec<DocumentId>),
    /// The documents of the best sentence hits for a query, in the order of their best hit,
    /// at most `limit` of them.
    Search { query: String, limit: usize },
    /// Pages fetched (or read from the page archive) and imported into `corpus` first, as
    /// `factdesk import` would; a page already there is used as it is.
    Urls { urls: Vec<String>, corpus: String },
}

/// What to summarise and how.
#[derive(Debug, Clone)]
pub struct SummarizeRequest {
    pub question: String,
    pub sources: SummarySources,
    /// TTS, or one of its baselines (`None`).
    pub baseline: Option<Baseline>,
    pub config: TtsConfig,
    pub cache: Option<CacheMode>,
    /// Start a new run even when an unfinished one with the same input exists.
    pub restart: bool,
}

/// A stored summary, and whether its run continued an unfinished one.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct SummaryRun {
    pub resumed: bool,
    #[serde(flatten)]
    pub stored: StoredOutcome,
}

/// At most this many sources: the method's calls grow as N² (N drafts, N·N stance calls).
pub const MAX_SOURCES: usize = 40;

/// Tells a [`Reporter`] how far a TTS run got, and stops it when the token is cancelled.
struct RunProgress {
    reporter: Arc<dyn Reporter>,
    cancel: CancelToken,
}

impl Progress for RunProgress {
    fn scoring(&self, done: usize, total: usize, next: Option<&str>) {
        if done == 0 {
            self.reporter.phase("scoring sources", Some(total as u64), ProgressUnit::Items);
        } else {
            self.reporter.advance(1);
        }
        if let Some(next) = next {
            self.reporter.working_on(next);
        }
    }

    fn answering(&self) {
        self.reporter.phase("writing the summary", None, ProgressUnit::Items);
    }

    fn cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }
}

fn source_name(document: &Document) -> String {
    document.summary.title.clone().unwrap_or_else(|| format!("document {}", document.summary.id))
}

fn evidence_source(document: &Document) -> EvidenceSource {
    let summary = &document.summary;
    EvidenceSource {
        url: summary.url.clone(),
        title: summary.title.clone(),
        document_id: Some(summary.id),
        fetched_at: None,
        content_hash: Some(summary.content_hash.clone()),
        published_at: None,
    }
}

fn notes_suffix(notes: &[String]) -> String {
    if notes.is_empty() { String::new() } else { format!(" Notes: {}", notes.join("; ")) }
}

/// A summary's envelope: its method, the settings it ran with, the chat model and tokens.
fn envelope(
    method: &str,
    config: &TtsConfig,
    chat: &str,
    tokens: &factdesk_model::TokenUse,
    explanation: String,
) -> Result<Envelope> {
    Ok(Envelope {
        method: method.to_owned(),
        parameters: serde_json::to_value(config)
            .map_err(|e| CoreError::InvalidInput(e.to_string()))?,
        model: chat.to_owned(),
        nli_model: None,
        tokens: tokens.clone(),
        explanation,
    })
}

impl Factdesk {
    /// The documents `sources` names, checked against [`MAX_SOURCES`]; URLs are imported
    /// first, and a page that cannot be read stops it with the reason.
    async fn summary_documents(
        &self,
        sources: &SummarySources,
        cancel: &CancelToken,
    ) -> Result<Vec<DocumentId>> {
        let too_many = |what: String, hint: &str| {
            CoreError::InvalidInput(format!(
                "{what}: at most {MAX_SOURCES} sources are summarised at once (the stance calls \
                 grow with the square of the sources); {hint}"
            ))
        };
        Ok(match sources {
            SummarySources::Documents(ids) if ids.len() > MAX_SOURCES => {
                return Err(too_many(format!("{} documents", ids.len()), "choose fewer"));
            }
            SummarySources::Documents(ids) => ids.clone(),
            SummarySources::Urls { urls, .. } if urls.len() > MAX_SOURCES => {
                return Err(too_many(format!("{} URLs", urls.len()), "give fewer"));
            }
            SummarySources::Urls { urls, corpus } => {
                let request = crate::import::ImportRequest {
                    sources: urls.clone(),
                    corpus: corpus.clone(),
                    text_field: None,
                    title_field: None,
                    url_field: None,
                    date_field: None,
                };
                let imported =
                    self.import(request, Arc::new(crate::NoProgress), cancel.clone()).await?;
                if imported.cancelled {
                    return Err(CoreError::Cancelled {
                        what: "fetching the pages".into(),
                        resume: "summarise them again (the pages read are kept)".into(),
                    });
                }
                if !imported.failures.is_empty() {
                    let failed: Vec<String> = imported
                        .failures
                        .iter()
                        .map(|failure| format!("{}: {}", failure.item, failure.message))
                        .collect();
                    return Err(CoreError::InvalidInput(format!(
                        "could not read every page: {}; leave those URLs out or try again",
                        failed.join("; ")
                    )));
                }
                let mut ids: Vec<DocumentId> = Vec::new();
                for document in &imported.documents {
                    if !ids.contains(&document.id) {
                        ids.push(document.id);
                    }
                }
                ids
            }
            SummarySources::Corpus(name) => {
                let ids: Vec<DocumentId> = self
                    .documents(Some(name), Some(MAX_SOURCES as u64 + 1), 0)?
                    .into_iter()
                    .map(|document| document.id)
                    .collect();
                if ids.len() > MAX_SOURCES {
                    return Err(too_many(
                        format!("more than {MAX_SOURCES} documents in corpus '{name}'"),
                        "choose documents of it, or search it",
                    ));
                }
                ids
            }
            SummarySources::Search { query, limit } => {
                if *limit > MAX_SOURCES {
                    return Err(too_many(
                        format!("{limit} search results asked for"),
                        "ask for fewer",
                    ));
                }
                if *limit < 3 {
                    return Err(CoreError::InvalidInput(format!(
                        "{limit} search result(s) asked for: peer prediction needs at least 3 \
                         sources"
                    )));
                }
                // Enough sentence hits to reach `limit` distinct documents in most indexes.
                let hits = self.search(&SearchRequest {
                    query: query.clone(),
                    limit: Some(limit.saturating_mul(20).max(100)),
                    corpora: Vec::new(),
                    documents: Vec::new(),
                    plain_words: true,
                })?;
                let mut ids: Vec<DocumentId> = Vec::new();
                for hit in hits {
                    if ids.len() == *limit {
                        break;
                    }
                    if !ids.contains(&hit.document_id) {
                        ids.push(hit.document_id);
                    }
                }
                if ids.is_empty() {
                    return Err(CoreError::InvalidInput(format!(
                        "no document of the index matches '{query}'; import sources first or \
                         search other words"
                    )));
                }
                ids
            }
        })
    }

    /// Summarises the sources for the question with TTS (or a baseline) and stores the
    /// summary (see the module documentation). `reporter` hears how many sources are scored;
    /// `cancel` stops the run before its next model call (the run is then resumable).
    pub async fn summarize(
        &self,
        request: &SummarizeRequest,
        reporter: Arc<dyn Reporter>,
        cancel: CancelToken,
    ) -> Result<SummaryRun> {
        let ids = self.summary_documents(&request.sources, &cancel).await?;
        let mut documents = Vec::new();
        for id in &ids {
            documents.push(self.document(*id)?);
        }
        let sources: Vec<Source> = documents
            .iter()
            .map(|document| Source { name: source_name(document), text: document.text.clone() })
            .collect();
        // Bad input is refused before a run is recorded.
        factdesk_methods::tts::check(&request.config, &request.question, &sources)
            .map_err(method_error)?;
        // The verifier, when it judges the stances, is loaded before a run is recorded.
        // (Only TTS and the majority-claims baseline ask for stances.)
        let asks_stances = matches!(request.baseline, None | Some(Baseline::MajorityClaims));
        let nli = match request.config.stance_judge {
            StanceJudge::Verifier if asks_stances => {
                Some(self.cross_encoder(&verifier_folder(), Some(NLI_VERIFIER))?)
            }
            _ => None,
        };
        let nli_name = nli.as_ref().map(|nli| nli.name());
        let method = request.baseline.map_or("tts", Baseline::as_str);
        let chat = self.model_choice().model_name();
        let identity = serde_json::json!({
            "method": method,
            "config": request.config,
            "question": request.question,
            "documents": ids,
            "model": chat,
        });
        let existing = if request.restart {
            None
        } else {
            self.store()?.unfinished_free_run(method, &identity)?
        };
        let resumed = existing.is_some();
        let run = match existing {
            Some(run) => run,
            None => self.store()?.create_run(method, &identity, Some(&chat), None)?,
        };
        self.store()?.set_run_status(run, RunStatus::Running, None)?;
        tracing::info!(%run, method, resumed, sources = sources.len(), "summarising");
        // A resumed run's recorded calls answer again, whatever the cache setting.
        let cache = if resumed { Some(CacheMode::ReadWrite) } else { request.cache };
        let stored = async {
            let collector = CallCollector::default();
            let model =
                self.collecting_language_model(Some(run), cache, Some(collector.clone()))?;
            let tts = Tts {
                model,
                prompts: Arc::new(factdesk_methods::prompts::builtin_library()?),
                config: request.config.clone(),
                concurrency: self.settings().llm.max_concurrency.max(1),
                nli,
                progress: Arc::new(RunProgress { reporter: reporter.clone(), cancel }),
            };
            let mut summary = match request.baseline {
                Some(baseline) => {
                    let result = tts
                        .baseline(baseline, &request.question, &sources)
                        .await
                        .map_err(|error| run_error(error, run))?;
                    baseline_summary(&result, &request.config, &chat, &documents)?
                }
                None => {
                    let result = tts
                        .run(&request.question, &sources)
                        .await
                        .map_err(|error| run_error(error, run))?;
                    tts_summary(&result, &request.config, &chat, &documents)?
                }
            };
            // The NLI model that judged the stances, if one did.
            summary.envelope.nli_model = nli_name;
            Ok::<_, CoreError>(self.store()?.insert_outcome(
                run,
                None,
                &Outcome::Summary(summary),
                &collector.ids(),
            )?)
        }
        .await;
        reporter.finish();
        Ok(SummaryRun { resumed, stored: self.finish_outcome_run(run, stored)? })
    }

    /// The stored multi-source summaries (of TTS and its baselines), newest first.
    pub fn sourced_summaries(&self) -> Result<Vec<StoredOutcome>> {
        let mut all = self.store()?.outcomes_of_kind("summary")?;
        all.retain(|stored| matches!(&stored.outcome, Outcome::Summary(s) if s.question.is_some()));
        all.reverse();
        Ok(all)
    }

    /// One stored multi-source summary.
    pub fn sourced_summary(&self, id: CheckId) -> Result<(StoredOutcome, SourcedSummary)> {
        let stored = self.store()?.outcome(id)?;
        match &stored.outcome {
            Outcome::Summary(summary) if summary.question.is_some() => {
                let summary = summary.clone();
                Ok((stored, summary))
            }
            other => Err(CoreError::InvalidInput(format!(
                "outcome {id} is a {}, not a summary of several sources",
                other.kind().as_str()
            ))),
        }
    }

    /// Writes the answer of stored summary `id` again from the sources a person chose
    /// (`used`, indices into its sources) and stores it as a new summary beside the first:
    /// the same scores, claims and stances, the choice marked in each source's `used` and
    /// named in the explanation.
    pub async fn resummarize(&self, id: CheckId, used: &[usize]) -> Result<StoredOutcome> {
        let mut used = used.to_vec();
        used.sort_unstable();
        used.dedup();
        let used = used.as_slice();
        let (_, original) = self.sourced_summary(id)?;
        let question = original.question.clone().unwrap_or_default();
        if let Some(bad) = used.iter().find(|&&i| i >= original.sources.len()) {
            return Err(CoreError::InvalidInput(format!(
                "summary {id} has {} source(s); there is no source {}",
                original.sources.len(),
                bad + 1
            )));
        }
        if used.is_empty() {
            return Err(CoreError::InvalidInput(
                "choose at least one source to write the answer from".into(),
            ));
        }
        // The chosen sources' texts, as they were when the summary was made.
        let mut texts = Vec::new();
        for &index in used {
            let source = &original.sources[index].source;
            let name = source.title.clone().unwrap_or_else(|| format!("source {}", index + 1));
            let document = source
                .document_id
                .ok_or_else(|| {
                    CoreError::InvalidInput(format!("{name} is not a document of the library"))
                })
                .and_then(|document| self.document(document))?;
            if source.content_hash.as_deref() != Some(document.summary.content_hash.as_str()) {
                return Err(CoreError::InvalidInput(format!(
                    "{name} (document {}) changed since summary {id} was made; summarise the \
                     sources again",
                    document.summary.id
                )));
            }
            texts.push(document.text);
        }
        // A summary written again by hand keeps the first one's settings under "config".
        let settings = original.envelope.parameters.get("config").cloned();
        let settings = settings.unwrap_or_else(|| original.envelope.parameters.clone());
        let config: TtsConfig = serde_json::from_value(settings.clone()).unwrap_or_default();
        let identity = serde_json::json!({"from_summary": id.0, "used": used});
        let chat = self.model_choice().model_name();
        let run = self.store()?.create_run("tts-by-hand", &identity, Some(&chat), None)?;
        self.store()?.set_run_status(run, RunStatus::Running, None)?;
        let stored = async {
            let collector = CallCollector::default();
            let model = self.collecting_language_model(Some(run), None, Some(collector.clone()))?;
            let tts = Tts {
                model,
                prompts: Arc::new(factdesk_methods::prompts::builtin_library()?),
                config: config.clone(),
                concurrency: 1,
                nli: None,
                progress: Arc::new(factdesk_methods::tts::Quiet),
            };
            let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
            let (text, tokens) = tts.answer(&question, &texts).await.map_err(method_error)?;
            let mut summary = original.clone();
            let names = |chosen: bool| -> Vec<String> {
                summary_names(&original, |i, source| {
                    used.contains(&i) == chosen && source.used != chosen
                })
            };
            let (restored, dropped) = (names(true), names(false));
            summary.text = text;
            summary.envelope.tokens = tokens;
            summary.envelope.model = chat.clone();
            summary.envelope.parameters = serde_json::json!({
                "from_summary": id.0,
                "config": settings,
            });
            summary.envelope.explanation = format!(
                "Written again by hand from {} of the {} source(s) of summary {id}{}{}; the \
                 scores are that summary's.",
                used.len(),
                original.sources.len(),
                if dropped.is_empty() {
                    String::new()
                } else {
                    format!("; dropped: {}", dropped.join(", "))
                },
                if restored.is_empty() {
                    String::new()
                } else {
                    format!("; restored: {}", restored.join(", "))
                },
            );
            for (i, source) in summary.sources.iter_mut().enumerate() {
                source.used = used.contains(&i);
            }
            Ok::<_, CoreError>(self.store()?.insert_outcome(
                run,
                None,
                &Outcome::Summary(summary),
                &collector.ids(),
            )?)
        }
        .await;
        self.finish_outcome_run(run, stored)
    }
}

impl Factdesk {
    /// Writes stored summary `id` (Markdown, HTML or JSON) to `path`, all or nothing.
    pub fn write_summary_report(
        &self,
        id: CheckId,
        format: factdesk_report::Format,
        path: &std::path::Path,
    ) -> Result<()> {
        let (_, summary) = self.sourced_summary(id)?;
        let report = factdesk_report::SourcedReport {
            title: summary.question.clone().unwrap_or_default(),
            generated_at: factdesk_model::now_rfc3339(),
            generator: format!("Factdesk {}", env!("CARGO_PKG_VERSION")),
            id: id.0,
            summary,
        };
        self.write_atomically(path, |out| factdesk_report::render_sourced(&report, format, out))
    }
}

/// The names of the sources of `summary` that `pick` chooses.
fn summary_names(
    summary: &SourcedSummary,
    pick: impl Fn(usize, &ScoredSource) -> bool,
) -> Vec<String> {
    summary
        .sources
        .iter()
        .enumerate()
        .filter(|(i, source)| pick(*i, source))
        .map(|(i, source)| {
            source.source.title.clone().unwrap_or_else(|| format!("source {}", i + 1))
        })
        .collect()
}

/// A method's error, a cancellation named as one of `run` (which a second run continues).
fn run_error(error: factdesk_methods::MethodError, run: RunId) -> CoreError {
    match error {
        factdesk_methods::MethodError::Cancelled => CoreError::Cancelled {
            what: format!("the summary (run {run})"),
            resume: "summarise the same sources with the same settings again".into(),
        },
        other => method_error(other),
    }
}

/// TTS's result as a stored summary.
fn tts_summary(
    result: &factdesk_methods::tts::TtsResult,
    config: &TtsConfig,
    chat: &str,
    documents: &[Document],
) -> Result<SourcedSummary> {
    let kept = result.sources.iter().filter(|s| s.kept).count();
    Ok(SourcedSummary {
        envelope: envelope(
            "tts",
            config,
            chat,
            &result.tokens,
            format!(
                "{} of {} distinct source(s) scored at least τ = {} by correlated agreement and \
                 were summarised; {} model call(s).{}",
                kept,
                result.sources.len(),
                config.tau,
                result.calls,
                notes_suffix(&result.notes)
            ),
        )?,
        question: Some(result.question.clone()),
        text: result.summary.clone().unwrap_or_default(),
        sources: result
            .sources
            .iter()
            .map(|scored| ScoredSource {
                source: evidence_source(&documents[scored.source]),
                score: scored.score,
                used: scored.kept,
                note: (!scored.copies.is_empty()).then(|| {
                    let copies: Vec<String> = scored
                        .copies
                        .iter()
                        .map(|&c| {
                            format!(
                                "{} (document {})",
                                source_name(&documents[c]),
                                documents[c].summary.id
                            )
                        })
                        .collect();
                    format!("near-duplicates collapsed into it: {}", copies.join(", "))
                }),
            })
            .collect(),
        claims: result
            .sources
            .iter()
            .enumerate()
            .map(|(index, scored)| SourceClaims {
                source: index,
                draft: scored.draft.clone(),
                claims: scored.claims.clone(),
                stances: scored.stances.clone(),
                majority: scored.majority,
                permutation: scored.permutation.clone(),
            })
            .collect(),
    })
}

/// A baseline's answer as a stored summary: every distinct source read; with majority claims,
/// each source's score is the share of the claims it supports.
fn baseline_summary(
    result: &BaselineResult,
    config: &TtsConfig,
    chat: &str,
    documents: &[Document],
) -> Result<SourcedSummary> {
    let claims = result.claims.len();
    let kept = result.kept_claims.iter().filter(|k| **k).count();
    let what = match result.baseline {
        Baseline::AllSources => "one answer from every source".to_owned(),
        Baseline::MajorityPrompt => {
            "one answer from every source, told to keep what most agree on".to_owned()
        }
        Baseline::MajorityClaims => format!(
            "the all-sources answer's {claims} claim(s), {kept} supported by more than half of \
             the sources and written up again"
        ),
    };
    Ok(SourcedSummary {
        envelope: envelope(
            result.baseline.as_str(),
            config,
            chat,
            &result.tokens,
            format!(
                "Baseline: {what}; {} distinct source(s); {} model call(s).{}",
                result.groups.len(),
                result.calls,
                notes_suffix(&result.notes)
            ),
        )?,
        question: Some(result.question.clone()),
        text: result.summary.clone().unwrap_or_default(),
        sources: result
            .groups
            .iter()
            .enumerate()
            .map(|(j, group)| {
                let supported = result
                    .stances
                    .get(j)
                    .map_or(0, |row| row.iter().filter(|s| **s == Stance::Support).count());
                ScoredSource {
                    source: evidence_source(&documents[group[0]]),
                    score: if claims == 0 { 0.0 } else { supported as f64 / claims as f64 },
                    used: true,
                    note: Some(if claims == 0 {
                        "not scored by this baseline".to_owned()
                    } else {
                        format!("supports {supported} of the {claims} claim(s)")
                    }),
                }
            })
            .collect(),
        claims: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use factdesk_testkit::scripted::ScriptedModel;

    use super::*;
    use crate::import::ImportRequest;
    use crate::{NoProgress, Settings};

    /// Cancels the run when the `at`-th source starts being scored.
    struct CancelAt {
        at: usize,
        started: std::sync::Mutex<usize>,
        cancel: CancelToken,
    }

    impl Reporter for CancelAt {
        fn working_on(&self, _item: &str) {
            let mut started = self.started.lock().unwrap();
            *started += 1;
            if *started == self.at {
                self.cancel.cancel();
            }
        }
    }

    #[tokio::test]
    async fn a_cancelled_summary_resumes_its_run_without_repeating_a_call() {
        let model = ScriptedModel::new().serve();
        let dir = tempfile::tempdir().unwrap();
        let mut settings = Settings::default();
        settings.llm.provider = "openai-compatible".into();
        settings.llm.base_url = model.url("/v1");
        settings.llm.model = "mock".into();
        let app = Factdesk::open_with_settings(dir.path(), settings).unwrap();
        let sources = dir.path().join("sources");
        std::fs::create_dir(&sources).unwrap();
        let texts = [
            "The dam held. Water rose by a metre.",
            "Water rose by a metre. The dam held. Roads were shut.",
            "Roads were shut. The dam held.",
            "The dam never held. Water never rose by a metre.",
        ];
        for (i, text) in texts.iter().enumerate() {
            std::fs::write(sources.join(format!("{}.txt", i + 1)), text).unwrap();
        }
        let request = ImportRequest {
            sources: vec![sources.to_string_lossy().into_owned()],
            corpus: "dam".into(),
            text_field: None,
            title_field: None,
            url_field: None,
            date_field: None,
        };
        app.import(request, Arc::new(NoProgress), CancelToken::new()).await.unwrap();
        let request = SummarizeRequest {
            question: "Did the dam hold?".into(),
            sources: SummarySources::Corpus("dam".into()),
            baseline: None,
            config: TtsConfig::default(),
            cache: Some(CacheMode::Off),
            restart: false,
        };
        // Cancelled as the third source's turn comes: two sources were scored.
        let cancel = CancelToken::new();
        let reporter = CancelAt { at: 3, started: Default::default(), cancel: cancel.clone() };
        let error = app.summarize(&request, Arc::new(reporter), cancel).await.unwrap_err();
        assert_eq!(error.code(), "cancelled", "{error}");
        let runs = app.store().unwrap().runs(None).unwrap();
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].status, RunStatus::Cancelled);
        let before = model.requests().len();
        assert!(before > 0);
        // The second run continues the first: what was asked is answered from the record.
        let resumed = app.summarize(&request, Arc::new(NoProgress), CancelToken::new()).await;
        let resumed = resumed.unwrap();
        assert!(resumed.resumed);
        assert_eq!(resumed.stored.run_id, runs[0].id);
        let prompts: Vec<String> = model
            .requests()
            .iter()
            .map(|r| String::from_utf8_lossy(&r.body).into_owned())
            .collect();
        let mut seen = std::collections::HashSet::new();
        for prompt in &prompts {
            assert!(seen.insert(prompt.clone()), "asked twice: {prompt}");
        }
        assert!(prompts.len() > before);
        // The liar is dropped; a fresh run from scratch with --restart makes a new run.
        let Outcome::Summary(summary) = &resumed.stored.outcome else { panic!() };
        let liar = summary.sources.iter().find(|s| s.source.title.as_deref() == Some("4")).unwrap();
        assert!(!liar.used, "{summary:#?}");
        assert!(summary.claims.iter().all(|c| !c.draft.is_empty()));
        let restarted = SummarizeRequest { restart: true, ..request.clone() };
        let fresh = app.summarize(&restarted, Arc::new(NoProgress), CancelToken::new()).await;
        let fresh = fresh.unwrap();
        assert!(!fresh.resumed && fresh.stored.run_id != runs[0].id);
        // Dropping the first source by hand writes the answer from the other two kept ones.
        let kept: Vec<usize> =
            (0..summary.sources.len()).filter(|&i| summary.sources[i].used).skip(1).collect();
        let by_hand = app.resummarize(resumed.stored.id, &kept).await.unwrap();
        let Outcome::Summary(by_hand) = by_hand.outcome else { panic!() };
        assert!(by_hand.envelope.explanation.contains("dropped:"), "{by_hand:#?}");
        assert_eq!(by_hand.sources.iter().filter(|s| s.used).count(), kept.len());
        assert_eq!(app.sourced_summaries().unwrap().len(), 3);
        let error = app.resummarize(resumed.stored.id, &[]).await.unwrap_err();
        assert_eq!(error.code(), "invalid_input");
    }
}
