//! Running a revision method (RARR, CoVe): a run's plan from the settings and options, the
//! evidence and models it asks, one revision measured and stored, and the runs over one text,
//! one passage or a whole collection.

use std::sync::Arc;

use factdesk_llm::embeddings::MiniLmEmbedder;
use factdesk_llm::nli::LlmNli;
use factdesk_llm::{CallCollector, Embedder, Nli};
use factdesk_methods::evidence::PageSource;
use factdesk_methods::evidence::{CorpusDocument, CorpusRetriever};
use factdesk_methods::grounding::GroundingConfig;
use factdesk_methods::llm_cite::LlmCite;
use factdesk_methods::prompts;
use factdesk_methods::revise::Reviser;
use factdesk_methods::revise::evidence::{
    CorpusEvidence, EvidenceFinder, Granularity, NoEvidence, SourceEvidence, WebEvidence,
};
use factdesk_methods::revise::metrics::{Measures, measure};
use factdesk_model::{
    DocumentId, Outcome, PassageId, Revision, RunId, RunStatus, StoredOutcome, SubjectId,
};

use super::methods::seam;
use super::{EvidenceChoice, ReviseMethod, ReviseOptions, RevisePlan, ReviseSummary};
use crate::batch::{BatchSpec, BatchSubjects, Subject};
use crate::verify::evidence::{CorpusSearch, WebPages};
use crate::verify::{NLI_VERIFIER, method_error, verifier_folder};
use crate::{CancelToken, CoreError, Factdesk, Reporter, Result};

impl Factdesk {
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
        let mut revision = seam(plan.method)?.revise(&reviser, text).await.map_err(method_error)?;
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
        let plan = seam(method)?.plan(self, options)?;
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
        let plan = seam(method)?.plan(self, options)?;
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
        let collection = passage.map(|(_, collection)| collection);
        let run = self.create_run(&plan.identity()?, collection)?;
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
        let plan = seam(method)?.plan(self, options)?;
        // A judge that cannot be loaded stops the batch before it starts.
        if let Some(nli) = &plan.nli
            && let Some((folder, name)) = crate::verify::cross_encoder_folder(nli)
        {
            self.cross_encoder(&folder, name)?;
        }
        let identity = plan.identity()?;
        let spec = BatchSpec {
            collection,
            subjects: BatchSubjects::Passages,
            identity: &identity,
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
