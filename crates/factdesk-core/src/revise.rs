//! Correcting passages with RARR or CoVe (`factdesk-methods` `revise`): one text
//! ([`Factdesk::revise_text`]), one stored passage ([`Factdesk::revise_passage`]) or every
//! passage of a collection ([`Factdesk::revise_collection`], through the resumable batch
//! runner). This module resolves a run's configuration from `[methods.rarr]` / `[methods.cove]`
//! and the options, builds the evidence (the corpus search, the passage's source documents,
//! or none), the audited chat model and, for the NLI gate, the judge `verify.nli` names; it
//! measures each revision ([`RevisionMetrics`]: edit distance, MiniLM similarity, the
//! verifier's entailment by the source documents) and stores it with the model calls behind
//! it. The original passage is part of every stored revision and is never changed.

use std::sync::Arc;

use factdesk_llm::embeddings::MiniLmEmbedder;
use factdesk_llm::nli::LlmNli;
use factdesk_llm::{CacheMode, CallCollector, Embedder, Nli};
use factdesk_methods::evidence::PageSource;
use factdesk_methods::evidence::{CorpusDocument, CorpusRetriever};
use factdesk_methods::grounding::GroundingConfig;
use factdesk_methods::llm_cite::LlmCite;
use factdesk_methods::prompts;
use factdesk_methods::revise::evidence::{
    CorpusEvidence, EvidenceFinder, Granularity, NoEvidence, SourceEvidence, WebEvidence,
};
use factdesk_methods::revise::metrics::{Measures, measure};
use factdesk_methods::revise::{Gate, ReviseConfig, ReviseMethod, Reviser};
use factdesk_model::{
    CheckId, DocumentId, EditDecision, Outcome, PassageId, Revision, RunId, RunStatus,
    StoredOutcome, SubjectId,
};
use serde::{Deserialize, Serialize};

use crate::batch::{BatchSpec, BatchSubjects, Subject, SubjectFailure};
use crate::models::ModelChoice;
use crate::verify::evidence::{CorpusSearch, WebPages};
use crate::verify::{NLI_VERIFIER, method_error, verifier_folder};
use crate::{CancelToken, CoreError, Factdesk, Reporter, Result};

/// `[methods.rarr]` and `[methods.cove]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct ReviseSettings {
    /// `auto` (the passage's source documents when it has some, else the corpus), `corpus`,
    /// `source`, `web` (pages the chat model proposes, as LLM-Cite's URL step with
    /// `[methods.llm-cite]`'s `urls` and `m`) or `none` (the model's own knowledge).
    pub evidence: String,
    /// `snippets` or `chunks`.
    pub granularity: String,
    /// `auto` (the NLI judge with the embedded chat model, the chat model with a server),
    /// `chat` or `nli`.
    pub gate: String,
    /// RARR: searches per sentence; CoVe: verification questions per passage.
    pub questions: usize,
    pub max_growth: f64,
    pub threshold: f64,
    pub evidence_words: usize,
    pub max_chars: usize,
}

impl ReviseSettings {
    /// The first setting of section `key` that no run could use, as a message naming it.
    pub fn validate(&self, key: &str) -> std::result::Result<(), String> {
        parse_evidence(&self.evidence).map_err(|message| format!("`{key}.evidence`: {message}"))?;
        self.granularity
            .parse::<Granularity>()
            .map_err(|message| format!("`{key}.granularity`: {message}"))?;
        if self.gate.trim() != "auto" {
            self.gate.parse::<Gate>().map_err(|message| format!("`{key}.gate`: {message}"))?;
        }
        for (name, value) in [
            ("questions", self.questions),
            ("evidence_words", self.evidence_words),
            ("max_chars", self.max_chars),
        ] {
            if value == 0 {
                return Err(format!("`{key}.{name}` must be at least 1"));
            }
        }
        if !(self.max_growth.is_finite() && self.max_growth >= 1.0) {
            return Err(format!(
                "`{key}.max_growth` is {}; it must be 1 or more (the revision may be at most \
                 that many times as long as the passage)",
                self.max_growth
            ));
        }
        crate::verify::config::check_threshold(self.threshold)
            .map_err(|message| format!("`{key}.threshold`: {message}"))
    }
}

/// Where a revision's evidence comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
pub enum EvidenceChoice {
    /// The passage's source documents when it has some, else the corpus.
    Auto,
    Corpus,
    Source,
    /// Web pages the chat model proposes for each query (LLM-Cite's URL step), fetched.
    Web,
    None,
}

fn parse_evidence(value: &str) -> std::result::Result<EvidenceChoice, String> {
    match value.trim().to_ascii_lowercase().as_str() {
        "auto" => Ok(EvidenceChoice::Auto),
        "corpus" => Ok(EvidenceChoice::Corpus),
        "source" | "sources" => Ok(EvidenceChoice::Source),
        "none" => Ok(EvidenceChoice::None),
        "web" => Ok(EvidenceChoice::Web),
        other => {
            Err(format!("'{other}' is no evidence source; use auto, corpus, source, web or none"))
        }
    }
}

impl std::str::FromStr for EvidenceChoice {
    type Err = CoreError;
    fn from_str(s: &str) -> Result<Self> {
        parse_evidence(s).map_err(CoreError::InvalidInput)
    }
}

/// The options of one revision run; what is not given comes from the method's section.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReviseOptions {
    pub evidence: Option<EvidenceChoice>,
    pub granularity: Option<Granularity>,
    pub gate: Option<Gate>,
    /// The corpora searched for corpus evidence (all when empty).
    pub corpora: Vec<String>,
    /// The source documents of an ad-hoc text.
    pub sources: Vec<DocumentId>,
    /// A reference text the revision is measured against (an ad-hoc text only).
    pub reference: Option<String>,
    pub restart: bool,
    pub concurrency: Option<usize>,
    pub cache: Option<CacheMode>,
    /// Leave out the metrics (they load MiniLM and the verifier and judge the sources).
    pub skip_metrics: bool,
    /// Also ask the chat model to score the original and the revision against the sources
    /// (overall, factuality, relevance, 1–5; G-Eval style).
    pub judge: bool,
}

/// A run's resolved configuration.
#[derive(Debug, Clone, PartialEq)]
struct RevisePlan {
    config: ReviseConfig,
    evidence: EvidenceChoice,
    granularity: Granularity,
    corpora: Vec<String>,
    chat: String,
    /// The NLI judge, with the NLI gate.
    nli: Option<String>,
    /// With web evidence, how URLs are proposed (LLM-Cite's URL step).
    web: Option<factdesk_methods::llm_cite::LlmCiteConfig>,
    /// Whether the chat model judges each revision.
    judge: bool,
}

impl RevisePlan {
    /// The run's identity: the method's configuration and the models it asks. Every field of
    /// [`ReviseConfig`] is in it (serialised, so a field added later cannot be left out), the
    /// method named beside it, with the run's evidence, models and judging.
    fn identity(&self) -> serde_json::Value {
        let mut models = serde_json::json!({"chat": self.chat});
        if let Some(nli) = &self.nli {
            models["nli"] = serde_json::json!(nli);
        }
        let mut config = serde_json::to_value(&self.config).unwrap_or_default();
        if let Some(fields) = config.as_object_mut() {
            fields.remove("method");
            fields.insert("evidence".into(), serde_json::json!(self.evidence));
            fields.insert("granularity".into(), serde_json::json!(self.granularity));
            fields.insert("corpora".into(), serde_json::json!(self.corpora));
            fields.insert("web".into(), serde_json::json!(self.web));
            fields.insert("judge".into(), serde_json::json!(self.judge));
        }
        serde_json::json!({
            "method": self.config.method.as_str(),
            "config": config,
            "models": models,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_identity_holds_every_config_field_and_reads_as_before() {
        let plan = RevisePlan {
            config: ReviseConfig::default(),
            evidence: EvidenceChoice::Corpus,
            granularity: Granularity::Snippets,
            corpora: vec!["news".into()],
            chat: "embedded:smollm2".into(),
            nli: Some("cross-encoder:verifier".into()),
            web: None,
            judge: false,
        };
        // The identity runs stored before it was derived from the config: they still resume.
        let before = serde_json::json!({
            "method": "rarr",
            "config": {
                "questions": 3, "max_growth": 1.5, "max_chars": 20_000, "gate": plan.config.gate,
                "threshold": 0.5, "evidence_words": 200, "language": "en", "seed": 0,
                "evidence": plan.evidence, "granularity": plan.granularity,
                "corpora": ["news"], "web": null, "judge": false,
            },
            "models": {"chat": "embedded:smollm2", "nli": "cross-encoder:verifier"},
        });
        assert_eq!(plan.identity(), before);
        // Every field of the method's configuration but its name is there.
        let fields = serde_json::to_value(ReviseConfig::default()).unwrap();
        let identity = plan.identity();
        for field in fields.as_object().unwrap().keys().filter(|key| *key != "method") {
            assert!(identity["config"].get(field).is_some(), "{field} is left out");
        }
    }
}

/// What a collection revision run did.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct ReviseSummary {
    pub run_id: RunId,
    pub collection: String,
    pub method: String,
    pub resumed: bool,
    pub passages: usize,
    pub already_revised: usize,
    pub elsewhere: usize,
    pub revised: usize,
    /// Of those revised, the ones the method changed.
    pub changed: usize,
    pub failed: usize,
    pub cancelled: bool,
    pub failures: Vec<SubjectFailure>,
}

impl Factdesk {
    fn revise_plan(&self, method: ReviseMethod, options: &ReviseOptions) -> Result<RevisePlan> {
        let settings = self.settings();
        let own = match method {
            ReviseMethod::Rarr => &settings.methods.rarr,
            ReviseMethod::Cove => &settings.methods.cove,
        };
        let evidence = match options.evidence {
            Some(evidence) => evidence,
            None => parse_evidence(&own.evidence).map_err(CoreError::InvalidInput)?,
        };
        let granularity = match options.granularity {
            Some(granularity) => granularity,
            None => own.granularity.parse().map_err(CoreError::InvalidInput)?,
        };
        let chat = self.model_choice();
        let gate = match options.gate {
            Some(gate) => gate,
            None if own.gate.trim() == "auto" => match chat {
                ModelChoice::Embedded { .. } => Gate::Nli,
                ModelChoice::OpenaiCompatible { .. } => Gate::Chat,
            },
            None => own.gate.parse().map_err(CoreError::InvalidInput)?,
        };
        let nli = match gate {
            Gate::Nli => Some(self.resolve_nli(None, &chat)?),
            Gate::Chat => None,
        };
        if matches!(evidence, EvidenceChoice::None | EvidenceChoice::Web | EvidenceChoice::Source)
            && !options.corpora.is_empty()
        {
            return Err(CoreError::InvalidInput(
                "corpora choose where corpus evidence comes from; with evidence none, web or \
                 source, leave them out"
                    .into(),
            ));
        }
        let web = (evidence == EvidenceChoice::Web)
            .then(|| {
                let cite = &settings.methods.llm_cite;
                let strategy = cite.urls.parse().map_err(CoreError::InvalidInput)?;
                Ok::<_, CoreError>(factdesk_methods::llm_cite::LlmCiteConfig {
                    strategy,
                    m: cite.m.max(1),
                    r: cite.r.max(1),
                    temperature: cite.temperature,
                    language: settings.import.language.clone(),
                    seed: settings.verify.seed,
                    ..factdesk_methods::llm_cite::LlmCiteConfig::default()
                })
            })
            .transpose()?;
        Ok(RevisePlan {
            config: ReviseConfig {
                method,
                questions: own.questions.max(1),
                max_growth: own.max_growth,
                max_chars: own.max_chars,
                gate,
                threshold: own.threshold,
                evidence_words: own.evidence_words.max(1),
                language: settings.import.language.clone(),
                seed: settings.verify.seed,
            },
            evidence,
            granularity,
            corpora: options.corpora.clone(),
            chat: chat.model_name(),
            nli,
            web,
            // The judge is a metric: without metrics there is none.
            judge: options.judge && !options.skip_metrics,
        })
    }

    /// all-MiniLM-L6-v2 from the models directory, loaded once and kept.
    pub(crate) fn embedder(&self) -> Result<Arc<dyn Embedder>> {
        let folder = factdesk_llm::embeddings::default_minilm_dir();
        self.inner
            .embedder
            .get(&folder, || Ok(Arc::new(MiniLmEmbedder::load(&folder)?) as Arc<dyn Embedder>))
    }

    /// The source documents `ids`, whole.
    async fn source_documents(&self, ids: &[DocumentId]) -> Result<Vec<CorpusDocument>> {
        let search = CorpusSearch { app: self.clone(), corpora: Vec::new() };
        let mut documents = Vec::with_capacity(ids.len());
        for id in ids {
            documents.push(search.document(*id).await.map_err(CoreError::InvalidInput)?);
        }
        Ok(documents)
    }

    /// Revises `text` (whose source documents are `sources`) as `plan` says, measures the
    /// revision and gives it with the model calls behind it.
    async fn revise_one(
        &self,
        plan: &RevisePlan,
        text: &str,
        sources: &[DocumentId],
        reference: Option<&str>,
        run: RunId,
        options: &ReviseOptions,
    ) -> Result<(Revision, Vec<i64>)> {
        let cache = options.cache;
        let collector = CallCollector::default();
        let model = self.collecting_language_model(Some(run), cache, Some(collector.clone()))?;
        let prompts = Arc::new(prompts::builtin_library()?);
        let documents = self.source_documents(sources).await?;
        let embedder = match plan.granularity {
            Granularity::Chunks if plan.evidence != EvidenceChoice::None => Some(self.embedder()?),
            _ => None,
        };
        let pages: Arc<dyn PageSource> =
            Arc::new(WebPages { app: self.clone(), run, permits: self.fetch_permits() });
        let evidence: Arc<dyn EvidenceFinder> = match plan.evidence {
            EvidenceChoice::None => Arc::new(NoEvidence),
            EvidenceChoice::Source => Arc::new(
                SourceEvidence::new(documents.clone(), plan.granularity, embedder).map_err(
                    |message| {
                        CoreError::InvalidInput(format!(
                            "{message}: give the passage's source documents, or choose another \
                         evidence source"
                        ))
                    },
                )?,
            ),
            EvidenceChoice::Auto if !documents.is_empty() => Arc::new(
                SourceEvidence::new(documents.clone(), plan.granularity, embedder)
                    .map_err(CoreError::InvalidInput)?,
            ),
            EvidenceChoice::Web => {
                let config = plan.web.clone().ok_or_else(|| {
                    CoreError::Internal("web evidence without its URL settings".into())
                })?;
                // Only LLM-Cite's URL step runs: its judge is never asked.
                let proposer = LlmCite {
                    model: model.clone(),
                    nli: Arc::new(
                        LlmNli::new(model.clone(), prompts.clone())
                            .naming_languages(crate::verify::language_name),
                    ),
                    prompts: prompts.clone(),
                    pages: pages.clone(),
                    config,
                };
                Arc::new(
                    WebEvidence::new(
                        proposer,
                        pages,
                        plan.granularity,
                        embedder,
                        &self.settings().import.language,
                    )
                    .map_err(CoreError::InvalidInput)?,
                )
            }
            EvidenceChoice::Auto | EvidenceChoice::Corpus => {
                let search = CorpusSearch { app: self.clone(), corpora: plan.corpora.clone() };
                Arc::new(
                    CorpusEvidence::new(Arc::new(search), plan.granularity, embedder)
                        .map_err(CoreError::InvalidInput)?,
                )
            }
        };
        let nli: Option<Arc<dyn Nli>> = match &plan.nli {
            Some(nli) => Some(self.nli_named(nli, || Ok(model.clone()), &prompts)?),
            None => None,
        };
        let reviser = Reviser { model, nli, prompts, evidence, config: plan.config.clone() };
        let mut revision = reviser.revise(text).await.map_err(method_error)?;
        if !options.skip_metrics {
            let mut metrics = self.measure_revision(&revision, &documents, reference).await?;
            if plan.judge {
                if documents.is_empty() {
                    metrics.notes.push(
                        "not judged: the judge rates a revision against its source documents, \
                         and this passage has none"
                            .into(),
                    );
                } else {
                    let sources: Vec<String> =
                        documents.iter().map(|document| document.text.clone()).collect();
                    let samples = self.settings().verify.nli_samples.max(1);
                    match factdesk_methods::revise::metrics::judge(
                        reviser.model.as_ref(),
                        &reviser.prompts,
                        &revision,
                        &sources,
                        samples,
                    )
                    .await
                    {
                        Ok((scores, tokens, note)) => {
                            metrics.judge = scores;
                            metrics.notes.extend(note);
                            revision.envelope.tokens.merge(&tokens);
                        }
                        // The revision stands; the judge's failure is said beside it.
                        Err(error) => metrics.notes.push(format!("not judged: {error}")),
                    }
                }
            }
            revision.metrics = Some(metrics);
        }
        Ok((revision, collector.ids()))
    }

    /// The metrics of a revision: edit distances always; MiniLM similarity and the verifier's
    /// entailment when their models are installed (`scripts/fetch-models.sh`).
    async fn measure_revision(
        &self,
        revision: &Revision,
        documents: &[CorpusDocument],
        reference: Option<&str>,
    ) -> Result<factdesk_model::RevisionMetrics> {
        let mut notes = Vec::new();
        let embedder =
            self.embedder().map_err(|error| notes.push(format!("no similarity: {error}"))).ok();
        let nli = if documents.is_empty() {
            notes.push("no entailment: the passage has no source documents".to_owned());
            None
        } else {
            self.cross_encoder(&verifier_folder(), Some(NLI_VERIFIER))
                .map_err(|error| notes.push(format!("no entailment: {error}")))
                .ok()
        };
        let sources: Vec<String> = documents.iter().map(|document| document.text.clone()).collect();
        let measures = Measures {
            reference,
            sources: &sources,
            embedder: embedder.as_deref(),
            nli: nli.as_deref(),
            grounding: GroundingConfig {
                language: self.settings().import.language.clone(),
                ..GroundingConfig::default()
            },
        };
        let mut metrics = measure(revision, &measures).await.map_err(method_error)?;
        metrics.notes = notes;
        Ok(metrics)
    }

    /// Revises one text (not a stored passage) as a run of its own and stores the revision.
    #[tracing::instrument(skip(self, text, options))]
    pub async fn revise_text(
        &self,
        text: &str,
        method: ReviseMethod,
        options: &ReviseOptions,
    ) -> Result<StoredOutcome> {
        let text = text.trim();
        if text.is_empty() {
            return Err(CoreError::InvalidInput(
                "the passage is empty: there is nothing to revise".into(),
            ));
        }
        let plan = self.revise_plan(method, options)?;
        self.revise_as_run(
            &plan,
            None,
            text,
            &options.sources,
            options.reference.as_deref(),
            options,
        )
        .await
    }

    /// Revises one stored passage, with its source documents, as a run of its own.
    #[tracing::instrument(skip(self, options))]
    pub async fn revise_passage(
        &self,
        id: PassageId,
        method: ReviseMethod,
        options: &ReviseOptions,
    ) -> Result<StoredOutcome> {
        if !options.sources.is_empty() || options.reference.is_some() {
            return Err(CoreError::InvalidInput(
                "a stored passage brings its own source documents; sources and a reference \
                 are for a pasted text"
                    .into(),
            ));
        }
        let passage = self.store()?.passage(id)?;
        let plan = self.revise_plan(method, options)?;
        self.revise_as_run(
            &plan,
            Some((passage.id, passage.collection_id)),
            &passage.text,
            &passage.sources,
            None,
            options,
        )
        .await
    }

    async fn revise_as_run(
        &self,
        plan: &RevisePlan,
        // The stored passage revised and its collection; none for a pasted text.
        passage: Option<(PassageId, factdesk_model::CollectionId)>,
        text: &str,
        sources: &[DocumentId],
        reference: Option<&str>,
        options: &ReviseOptions,
    ) -> Result<StoredOutcome> {
        let identity = plan.identity();
        let method = plan.config.method.as_str();
        let collection = passage.map(|(_, collection)| collection);
        let run = self.store()?.create_run(method, &identity, Some(&plan.chat), collection)?;
        self.store()?.set_run_status(run, RunStatus::Running, None)?;
        let stored = async {
            let (revision, calls) =
                self.revise_one(plan, text, sources, reference, run, options).await?;
            let subject = passage.map(|(id, _)| SubjectId::Passage(id));
            Ok::<_, CoreError>(self.store()?.insert_outcome(
                run,
                subject,
                &Outcome::Revision(revision),
                &calls,
            )?)
        }
        .await;
        self.finish_outcome_run(run, stored)
    }

    /// Ends a run that stores one outcome: completed with the stored outcome, or cancelled or
    /// failed with the error (which is given back).
    pub(crate) fn finish_outcome_run(
        &self,
        run: factdesk_model::RunId,
        stored: Result<factdesk_model::CheckId>,
    ) -> Result<StoredOutcome> {
        match stored {
            Ok(id) => {
                self.store()?.set_run_status(run, RunStatus::Completed, None)?;
                Ok(self.store()?.outcome(id)?)
            }
            Err(error) => {
                let status = match error {
                    CoreError::Cancelled { .. } => RunStatus::Cancelled,
                    _ => RunStatus::Failed,
                };
                if let Err(marking) = self.store().and_then(|store| {
                    Ok(store.set_run_status(run, status, Some(&error.to_string()))?)
                }) {
                    tracing::warn!(%run, error = %marking, "could not mark the run as ended");
                }
                Err(error)
            }
        }
    }

    /// Revises every passage of `collection` with its own source documents, a few at a time,
    /// through the resumable batch runner: an unfinished run with the same configuration and
    /// models is continued (unless `options.restart`), skipping the passages it revised.
    #[tracing::instrument(skip(self, options, reporter, cancel))]
    pub async fn revise_collection(
        &self,
        collection: &str,
        method: ReviseMethod,
        options: &ReviseOptions,
        reporter: Arc<dyn Reporter>,
        cancel: CancelToken,
    ) -> Result<ReviseSummary> {
        if !options.sources.is_empty() || options.reference.is_some() {
            return Err(CoreError::InvalidInput(
                "each passage of a collection brings its own source documents; sources and a \
                 reference are for a pasted text"
                    .into(),
            ));
        }
        let plan = self.revise_plan(method, options)?;
        // A judge that cannot be loaded stops the batch before it starts.
        if let Some(nli) = &plan.nli
            && let Some((folder, name)) = crate::verify::cross_encoder_folder(nli)
        {
            self.cross_encoder(&folder, name)?;
        }
        let identity = plan.identity();
        let spec = BatchSpec {
            collection,
            subjects: BatchSubjects::Passages,
            method: method.as_str(),
            identity: &identity,
            model: Some(&plan.chat),
            restart: options.restart,
            skip_done: false,
            concurrency: options.concurrency.unwrap_or(self.settings().verify.concurrency),
        };
        let plan = &plan;
        let outcome = self
            .run_batch(spec, reporter, cancel, |subject, run| async move {
                let Subject::Passage(passage) = subject else {
                    return Err(CoreError::Internal("a passages batch was given a claim".into()));
                };
                let (revision, calls) = self
                    .revise_one(plan, &passage.text, &passage.sources, None, run, options)
                    .await?;
                let changed = revision.revised != revision.original;
                self.store()?.insert_outcome(
                    run,
                    Some(SubjectId::Passage(passage.id)),
                    &Outcome::Revision(revision),
                    &calls,
                )?;
                Ok(changed)
            })
            .await?;
        let changed =
            outcome.tally.iter().filter(|(changed, _)| *changed).map(|(_, count)| count).sum();
        Ok(ReviseSummary {
            run_id: outcome.run_id,
            collection: collection.to_owned(),
            method: method.as_str().to_owned(),
            resumed: outcome.resumed,
            passages: outcome.subjects,
            already_revised: outcome.already_done,
            elsewhere: outcome.elsewhere,
            revised: outcome.done,
            changed,
            failed: outcome.failed,
            cancelled: outcome.cancelled,
            failures: outcome.failures,
        })
    }
}

/// A stored revision with people's decisions on its edits and the text they keep.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct ReviewedRevision {
    pub stored: StoredOutcome,
    /// The decision that counts for each decided edit, in the edits' order.
    pub decisions: Vec<EditDecision>,
    /// The original with every edit applied except the rejected ones.
    pub accepted_text: String,
}

impl Factdesk {
    fn reviewed(&self, stored: StoredOutcome) -> Result<ReviewedRevision> {
        let Outcome::Revision(revision) = &stored.outcome else {
            return Err(CoreError::InvalidInput(format!(
                "outcome {} is a {}, not a revision",
                stored.id,
                stored.outcome.kind()
            )));
        };
        let decisions = self.store()?.edit_decisions(stored.id)?;
        let accepted_text = revision.accepted_text(&decisions);
        Ok(ReviewedRevision { stored, decisions, accepted_text })
    }

    /// One stored revision with the decisions on its edits.
    pub fn revision(&self, id: CheckId) -> Result<ReviewedRevision> {
        let stored = self.store()?.outcome(id)?;
        self.reviewed(stored)
    }

    /// Records that a person accepts or rejects edit `edit` (from 0) of revision `id`; the
    /// revision stays as the method made it, the decision is kept beside it.
    pub fn decide_edit(
        &self,
        id: CheckId,
        edit: usize,
        accepted: bool,
        reviewer: Option<&str>,
    ) -> Result<ReviewedRevision> {
        let reviewer = reviewer.map(str::trim).filter(|name| !name.is_empty());
        self.store()?.add_edit_decision(id, edit, accepted, reviewer)?;
        self.revision(id)
    }

    /// The revisions of `collection`'s passages, oldest first, each with its decisions.
    pub fn collection_revisions(&self, collection: &str) -> Result<Vec<ReviewedRevision>> {
        self.outcomes(collection, &crate::verify::CheckSelection::default())?
            .into_iter()
            .filter(|stored| matches!(stored.outcome, Outcome::Revision(_)))
            .map(|stored| self.reviewed(stored))
            .collect()
    }
}

/// The figures of a collection's revisions (`factdesk eval --revisions`): how many changed,
/// their metrics on average, what people decided, and what the model calls cost.
#[derive(Debug, Clone, Default, Serialize, ts_rs::TS)]
pub struct RevisionEvaluation {
    pub collection: String,
    pub revisions: usize,
    /// Revisions whose text differs from the original.
    pub changed: usize,
    pub edits: usize,
    pub refused: usize,
    /// Revisions measured for entailment by their sources, and of those, the ones whose
    /// entailment rose or fell.
    pub entailment_measured: usize,
    pub entailment_rose: usize,
    pub entailment_fell: usize,
    pub mean_entailment_before: Option<f64>,
    pub mean_entailment_after: Option<f64>,
    /// Mean normalised edit distance from the original.
    pub mean_edit_distance: Option<f64>,
    /// Mean MiniLM similarity to the original.
    pub mean_similarity: Option<f64>,
    /// People's decisions on edits: accepted, rejected; the rest are open.
    pub accepted: usize,
    pub rejected: usize,
    /// Model calls per revision, by step.
    pub calls_per_revision: std::collections::BTreeMap<String, f64>,
    /// Tokens (prompt + completion) per revision, by step.
    pub tokens_per_revision: std::collections::BTreeMap<String, f64>,
}

fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

impl Factdesk {
    /// The figures of the revisions of `collection`'s passages that `selection` selects (one
    /// run; all by default).
    pub fn evaluate_revisions(
        &self,
        collection: &str,
        selection: &crate::verify::CheckSelection,
    ) -> Result<RevisionEvaluation> {
        let mut figures =
            RevisionEvaluation { collection: collection.to_owned(), ..Default::default() };
        let (mut before, mut after, mut distance, mut similarity) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for stored in self.outcomes(collection, selection)? {
            let reviewed = match stored.outcome {
                Outcome::Revision(_) => self.reviewed(stored)?,
                _ => continue,
            };
            let Outcome::Revision(revision) = &reviewed.stored.outcome else { continue };
            figures.revisions += 1;
            figures.changed += usize::from(revision.revised != revision.original);
            figures.edits += revision.edits.len();
            figures.refused += revision.rejected.len();
            figures.accepted += reviewed.decisions.iter().filter(|d| d.accepted).count();
            figures.rejected += reviewed.decisions.iter().filter(|d| !d.accepted).count();
            if let Some(metrics) = &revision.metrics {
                distance.push(metrics.edit_distance);
                similarity.extend(metrics.similarity);
                if let (Some(b), Some(a)) = (metrics.entailment_before, metrics.entailment_after) {
                    figures.entailment_measured += 1;
                    figures.entailment_rose += usize::from(a > b);
                    figures.entailment_fell += usize::from(a < b);
                    before.push(b);
                    after.push(a);
                }
            }
            let calls =
                revision.envelope.parameters["calls"].as_object().cloned().unwrap_or_default();
            for (step, count) in calls {
                *figures.calls_per_revision.entry(step).or_default() +=
                    count.as_f64().unwrap_or(0.0);
            }
            for (purpose, count) in &revision.envelope.tokens.0 {
                *figures.tokens_per_revision.entry(purpose.clone()).or_default() +=
                    count.total() as f64;
            }
        }
        let n = figures.revisions.max(1) as f64;
        for value in
            figures.calls_per_revision.values_mut().chain(figures.tokens_per_revision.values_mut())
        {
            *value /= n;
        }
        figures.mean_entailment_before = mean(&before);
        figures.mean_entailment_after = mean(&after);
        figures.mean_edit_distance = mean(&distance);
        figures.mean_similarity = mean(&similarity);
        Ok(figures)
    }
}
