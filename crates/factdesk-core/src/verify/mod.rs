//! Checking claims: one claim ([`Factdesk::verify_claim`]) or a whole collection
//! ([`Factdesk::verify_collection`]) with a method from `factdesk-methods` — LLM-Cite, P(True)
//! or corpus-NLI. This module builds the method from the settings, gives it evidence (web
//! pages through [`Factdesk::fetch_page`], corpus sentences through the search index) and the
//! audited chat model, and stores each result with the model calls behind it. The NLI judge
//! comes from `verify.nli`: `auto` picks Factdesk's trained verifier (a cross-encoder in
//! `<models dir>/factdesk-verifier`) when the embedded chat model answers, and LLM-instructed
//! NLI when a model server is configured.
//!
//! A collection run is resumable: its claims are checked a few at a time, each result is
//! committed on its own, and a run that did not complete (killed, cancelled, or with failed
//! claims) is continued by the next `verify_collection` with the same method and parameters,
//! skipping the claims it already checked. Model calls already made are answered from the
//! audit record, so a resumed claim costs no repeated calls either.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

use async_trait::async_trait;
use factdesk_llm::cross_encoder::CrossEncoderNli;
use factdesk_llm::nli::LlmNli;
use factdesk_llm::{CacheMode, CallCollector, LanguageModel, Nli};
use factdesk_methods::corpus_nli::{CorpusNli, CorpusNliConfig};
use factdesk_methods::evidence::{CorpusRetriever, CorpusSentence, Page, PageError, PageSource};
use factdesk_methods::judge::PremiseForm;
use factdesk_methods::llm_cite::{LlmCite, LlmCiteConfig, UrlStrategy, model_name};
use factdesk_methods::p_true::PTrue;
use factdesk_methods::{MethodError, prompts};
use factdesk_model::{
    CheckId, Claim, ClaimCheck, ClaimId, Review, ReviewDecision, RunId, RunStatus, StoredCheck,
    UrlStatus, Verdict,
};
use factdesk_store::{CheckFilter, ClaimFilter};
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use tokio::sync::Semaphore;

use crate::models::ModelChoice;
use crate::search::SearchRequest;
use crate::{CancelToken, CoreError, Factdesk, ProgressUnit, Reporter, Result};

/// `verify.nli`: the trained verifier with the embedded chat model, the chat model itself
/// with a configured server.
pub const NLI_AUTO: &str = "auto";
/// `verify.nli`: Factdesk's own grounding verifier, a cross-encoder installed in the models
/// directory by `scripts/fetch-models.sh` (see `assets/models/factdesk-verifier/README.md`).
pub const NLI_VERIFIER: &str = "factdesk-verifier";
/// `verify.nli`: the chat model asked "True or False?" (LLM-instructed NLI).
pub const NLI_LLM: &str = "llm";

/// Refuses a `verify.nli` value that names no judge (an empty `cross-encoder:` folder
/// included); the message names the value and the accepted forms.
pub fn check_nli_choice(value: &str) -> std::result::Result<(), String> {
    let value = value.trim();
    let known = [NLI_AUTO, NLI_VERIFIER, NLI_LLM].contains(&value)
        || value.strip_prefix("cross-encoder:").is_some_and(|folder| !folder.trim().is_empty());
    if known {
        Ok(())
    } else {
        Err(format!(
            "'{value}' names no NLI judge; use {NLI_AUTO}, {NLI_VERIFIER}, {NLI_LLM} or \
             cross-encoder:<model folder>"
        ))
    }
}

/// Where the built-in verifier is installed: `<models dir>/factdesk-verifier`.
pub fn verifier_folder() -> PathBuf {
    crate::env::models_dir().join(NLI_VERIFIER)
}

/// The `[verify]` settings: which method checks claims, and its parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VerifySettings {
    pub method: String,
    pub urls: String,
    pub m: usize,
    pub r: u32,
    pub temperature: f32,
    pub l: usize,
    pub threshold: f64,
    pub premises: String,
    pub document_chars: usize,
    pub nli: String,
    pub nli_samples: u32,
    pub p_true_samples: u32,
    pub corpus_retrieve: usize,
    /// corpus-NLI's documents per claim sentence and sentences per document (`m` and `l` are
    /// LLM-Cite's).
    pub corpus_documents: usize,
    pub corpus_l: usize,
    pub concurrency: usize,
    pub seed: u64,
}

/// The checking methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    LlmCite,
    PTrue,
    CorpusNli,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::LlmCite => factdesk_methods::llm_cite::METHOD,
            Method::PTrue => factdesk_methods::p_true::METHOD,
            Method::CorpusNli => factdesk_methods::corpus_nli::METHOD,
        }
    }
}

impl FromStr for Method {
    type Err = CoreError;
    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().replace('_', "-").as_str() {
            "llm-cite" => Ok(Method::LlmCite),
            "p-true" | "ptrue" => Ok(Method::PTrue),
            "corpus-nli" => Ok(Method::CorpusNli),
            other => Err(CoreError::InvalidInput(format!(
                "unknown method '{other}'; expected llm-cite, p-true or corpus-nli"
            ))),
        }
    }
}

/// Per-run choices that override `[verify]`; what is left out comes from the settings. The
/// desktop app receives these from the UI as JSON (unknown fields are refused).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct VerifyOptions {
    pub method: Option<Method>,
    pub urls: Option<UrlStrategy>,
    pub m: Option<usize>,
    pub l: Option<usize>,
    pub r: Option<u32>,
    pub temperature: Option<f32>,
    pub threshold: Option<f64>,
    /// LLM-instructed NLI on each page's first characters instead of cumulative premises.
    pub whole_document: bool,
    /// `llm`, or `cross-encoder:<model folder>`.
    pub nli: Option<String>,
    /// Corpora the corpus-NLI method retrieves from (all when empty).
    pub corpora: Vec<String>,
    pub cache: Option<CacheMode>,
    pub concurrency: Option<usize>,
    /// Start a new run even if an unfinished one with the same parameters exists.
    pub restart: bool,
    /// Leave out the claims that already hold a check made with the same method and
    /// parameters (model included) by any earlier run, finished or not.
    pub skip_checked: bool,
}

/// The method and parameters of a run, resolved from settings and options.
#[derive(Debug, Clone, PartialEq, Serialize)]
struct Plan {
    method: Method,
    urls: UrlStrategy,
    m: usize,
    r: u32,
    temperature: f32,
    l: usize,
    threshold: f64,
    premises: PremiseForm,
    nli: String,
    nli_samples: u32,
    p_true_samples: u32,
    corpus_retrieve: usize,
    corpora: Vec<String>,
    seed: u64,
    model: String,
}

impl Plan {
    /// The model folder of a cross-encoder NLI setting (the built-in verifier or
    /// `cross-encoder:<folder>`), with the name checks record for it.
    fn cross_encoder(&self) -> Option<(PathBuf, Option<&'static str>)> {
        if self.nli == NLI_VERIFIER {
            return Some((verifier_folder(), Some(NLI_VERIFIER)));
        }
        self.nli.strip_prefix("cross-encoder:").map(|folder| (PathBuf::from(folder.trim()), None))
    }

    /// What identifies a run for resuming: everything that changes results.
    fn parameters(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }
}

/// What a collection run did.
#[derive(Debug, Clone, Serialize)]
pub struct BatchSummary {
    pub run_id: RunId,
    pub collection: String,
    pub method: String,
    /// True when an unfinished run was continued.
    pub resumed: bool,
    pub claims: usize,
    /// Checked in earlier attempts of this run (with `skip_checked`, also by earlier runs
    /// with the same method and parameters), and so left out.
    pub already_checked: usize,
    pub checked: usize,
    pub failed: usize,
    pub cancelled: bool,
    pub verdicts: Vec<(Verdict, usize)>,
    pub failures: Vec<ClaimFailure>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ClaimFailure {
    pub claim_id: ClaimId,
    pub claim: String,
    pub message: String,
}

/// A check with the claim it belongs to, for lists and reports.
#[derive(Debug, Clone, Serialize)]
pub struct ClaimWithCheck {
    pub claim: Claim,
    pub check: Option<StoredCheck>,
}

fn method_error(error: MethodError) -> CoreError {
    match error {
        MethodError::Model(error) => CoreError::Model(error),
        MethodError::Evidence(message) => CoreError::Internal(message),
    }
}

/// Web pages for LLM-Cite: fetched (or from the archive) and recorded with the run.
struct WebPages {
    app: Factdesk,
    run: RunId,
    permits: Arc<Semaphore>,
}

#[async_trait]
impl PageSource for WebPages {
    async fn page(&self, url: &str) -> std::result::Result<Page, PageError> {
        let _permit = self
            .permits
            .acquire()
            .await
            .map_err(|_| PageError::local("the fetch pool is closed"))?;
        match self.app.fetch_page(url, Some(self.run)).await {
            Ok(page) => Ok(Page {
                requested_url: page.requested_url,
                final_url: page.final_url,
                title: page.title,
                fetched_at: page.fetched_at,
                content_hash: page.content_hash,
                text: page.text,
            }),
            // The database or the archive failing is not the URL's fault.
            Err(
                error @ (CoreError::Store(_)
                | CoreError::Index(_)
                | CoreError::Io { .. }
                | CoreError::Internal(_)),
            ) => Err(PageError::local(format!("{url}: {error}"))),
            Err(error) => Err(PageError::of_url(url_status(&error), error.to_string())),
        }
    }
}

/// What a fetch failure means for the URL's validity.
fn url_status(error: &CoreError) -> UrlStatus {
    use factdesk_fetch::FetchError;
    match error {
        CoreError::Fetch(FetchError::NotFound { .. }) => UrlStatus::NotFound,
        CoreError::Fetch(FetchError::Status { status: 404 | 410, .. }) => UrlStatus::NotFound,
        CoreError::Fetch(FetchError::InvalidUrl { .. } | FetchError::UnsupportedScheme { .. }) => {
            UrlStatus::Invalid
        }
        CoreError::Fetch(FetchError::Forbidden { .. } | FetchError::RedirectScheme { .. })
        | CoreError::NotArchived { .. } => UrlStatus::Refused,
        _ => UrlStatus::Failed,
    }
}

/// Corpus sentences for corpus-NLI, from the search index.
struct CorpusSearch {
    app: Factdesk,
    corpora: Vec<String>,
}

#[async_trait]
impl CorpusRetriever for CorpusSearch {
    async fn retrieve(
        &self,
        query: &str,
        limit: usize,
    ) -> std::result::Result<Vec<CorpusSentence>, String> {
        // A claim is not a query: "NOT" or "-40" in it must not exclude evidence.
        let request = SearchRequest {
            query: query.to_owned(),
            limit: Some(limit),
            corpora: self.corpora.clone(),
            documents: Vec::new(),
            plain_words: true,
        };
        match self.app.search(&request) {
            Ok(hits) => Ok(hits
                .into_iter()
                .map(|hit| CorpusSentence {
                    document_id: hit.document_id,
                    title: hit.document_title,
                    url: hit.document_url,
                    text: hit.sentence,
                    score: f64::from(hit.score),
                })
                .collect()),
            // A claim made only of stop words matches nothing; that is no evidence, not a failure.
            Err(CoreError::Index(factdesk_index::IndexError::EmptyQuery { .. })) => Ok(Vec::new()),
            Err(error) => Err(error.to_string()),
        }
    }
}

impl Factdesk {
    fn plan(&self, options: &VerifyOptions) -> Result<Plan> {
        let settings = &self.settings().verify;
        let method = match options.method {
            Some(method) => method,
            None => settings.method.parse()?,
        };
        let urls = match options.urls {
            Some(urls) => urls,
            None => settings.urls.parse().map_err(CoreError::InvalidInput)?,
        };
        let premises = if options.whole_document || settings.premises == "whole-document" {
            PremiseForm::WholeDocument { max_chars: settings.document_chars.max(1) }
        } else if settings.premises == "cumulative" {
            PremiseForm::Cumulative
        } else {
            return Err(CoreError::InvalidInput(format!(
                "verify.premises is '{}'; expected cumulative or whole-document",
                settings.premises
            )));
        };
        let model = self.model_choice();
        let mut nli = options.nli.clone().unwrap_or_else(|| settings.nli.clone()).trim().to_owned();
        check_nli_choice(&nli)
            .map_err(|message| CoreError::InvalidInput(format!("verify.nli: {message}")))?;
        if matches!(premises, PremiseForm::WholeDocument { .. }) {
            // The paper's whole-document variant is LLM-instructed NLI.
            nli = "llm".into();
        } else if nli == NLI_AUTO {
            // The embedded chat model is far too weak to judge entailment; a configured
            // server is asked itself.
            nli = match model {
                ModelChoice::Embedded { .. } => NLI_VERIFIER.into(),
                _ => NLI_LLM.into(),
            };
        }
        // corpus-NLI has its own defaults: more documents and longer premises give a false
        // summary sentence more chances to look supported (config.default.toml).
        let (m, l) = match method {
            Method::CorpusNli => (settings.corpus_documents, settings.corpus_l),
            _ => (settings.m, settings.l),
        };
        let m = options.m.unwrap_or(m);
        let l = options.l.unwrap_or(l);
        if m == 0 || l == 0 {
            return Err(CoreError::InvalidInput("m and l must be at least 1".into()));
        }
        let threshold = options.threshold.unwrap_or(settings.threshold);
        if !(0.0..=1.0).contains(&threshold) {
            return Err(CoreError::InvalidInput(format!(
                "the entailment threshold {threshold} is not between 0 and 1"
            )));
        }
        Ok(Plan {
            method,
            urls,
            m,
            r: options.r.unwrap_or(settings.r).max(1),
            temperature: options.temperature.unwrap_or(settings.temperature),
            l,
            threshold,
            premises,
            nli,
            nli_samples: settings.nli_samples.max(1),
            p_true_samples: settings.p_true_samples.max(1),
            corpus_retrieve: settings.corpus_retrieve.max(1),
            corpora: options.corpora.clone(),
            seed: settings.seed,
            model: model.model_name(),
        })
    }

    fn nli_model(
        &self,
        plan: &Plan,
        model: &Arc<dyn LanguageModel>,
        prompts: &Arc<factdesk_llm::prompts::PromptLibrary>,
    ) -> Result<Arc<dyn Nli>> {
        if plan.nli == "llm" {
            let mut nli = LlmNli::new(model.clone(), prompts.clone());
            nli.samples = plan.nli_samples;
            return Ok(Arc::new(nli));
        }
        match plan.cross_encoder() {
            Some((folder, name)) => self.cross_encoder(&folder, name),
            // `plan` resolved `auto` and refused anything else.
            None => Err(CoreError::Internal(format!("unresolved NLI choice '{}'", plan.nli))),
        }
    }

    /// The cross-encoder in `folder`, loaded once and shared by every check; `name` replaces
    /// the folder in what checks record (for the built-in verifier, whose folder differs
    /// between machines).
    fn cross_encoder(&self, folder: &Path, name: Option<&str>) -> Result<Arc<dyn Nli>> {
        self.inner.cross_encoder.get(folder, || {
            let model = CrossEncoderNli::load(folder).map_err(|error| match (name, error) {
                // The built-in verifier ships with Factdesk: say how to put it back.
                (Some(_), factdesk_llm::LlmError::ModelFile { path, message, .. }) => {
                    let missing = !Path::new(&path).exists();
                    factdesk_llm::LlmError::ModelFile {
                        path,
                        message: if missing { "it does not exist".into() } else { message },
                        fetch_command: format!(
                            "run scripts/fetch-models.sh from Factdesk's source tree, which copies \
                             assets/models/{NLI_VERIFIER} into {}",
                            crate::env::models_dir().display()
                        ),
                    }
                }
                (_, error) => error,
            })?;
            Ok(Arc::new(match name {
                Some(name) => model.with_name(name),
                None => model,
            }))
        })
    }

    /// Checks one claim with the plan's method, its model calls recorded for `run`.
    async fn check_one(
        &self,
        plan: &Plan,
        claim: &str,
        run: RunId,
        cache: Option<CacheMode>,
        fetch_permits: Arc<Semaphore>,
    ) -> Result<(ClaimCheck, Vec<i64>)> {
        let collector = CallCollector::default();
        let model = self.collecting_language_model(Some(run), cache, Some(collector.clone()))?;
        let prompts = Arc::new(prompts::builtin_library()?);
        let check = match plan.method {
            Method::LlmCite => {
                let method = LlmCite {
                    model: model.clone(),
                    nli: self.nli_model(plan, &model, &prompts)?,
                    prompts,
                    pages: Arc::new(WebPages { app: self.clone(), run, permits: fetch_permits }),
                    config: LlmCiteConfig {
                        strategy: plan.urls,
                        m: plan.m,
                        r: plan.r,
                        temperature: plan.temperature,
                        l: plan.l,
                        threshold: plan.threshold,
                        premises: plan.premises,
                        language: self.settings().import.language.clone(),
                        seed: plan.seed,
                    },
                };
                method.check(claim).await
            }
            Method::PTrue => {
                let method =
                    PTrue { model, prompts, samples: plan.p_true_samples, seed: plan.seed };
                method.check(claim).await
            }
            Method::CorpusNli => {
                let method = CorpusNli {
                    retriever: Arc::new(CorpusSearch {
                        app: self.clone(),
                        corpora: plan.corpora.clone(),
                    }),
                    nli: self.nli_model(plan, &model, &prompts)?,
                    model: model_name(&*model),
                    config: CorpusNliConfig {
                        documents: plan.m,
                        l: plan.l,
                        retrieve: plan.corpus_retrieve,
                        threshold: plan.threshold,
                    },
                    language: self.settings().import.language.clone(),
                };
                method.check(claim).await
            }
        }
        .map_err(method_error)?;
        Ok((check, collector.ids()))
    }

    fn fetch_permits(&self) -> Arc<Semaphore> {
        Arc::new(Semaphore::new(self.settings().fetch.concurrency.max(1)))
    }

    /// Checks one claim (not part of a collection) as a run of its own and stores the result.
    #[tracing::instrument(skip(self, options))]
    pub async fn verify_claim(&self, claim: &str, options: &VerifyOptions) -> Result<StoredCheck> {
        let claim = claim.trim();
        if claim.is_empty() {
            return Err(CoreError::InvalidInput(
                "the claim is empty: there is nothing to check".into(),
            ));
        }
        let plan = self.plan(options)?;
        let run = self.store()?.create_run(
            plan.method.as_str(),
            &plan.parameters(),
            Some(&plan.model),
            None,
        )?;
        self.store()?.set_run_status(run, RunStatus::Running, None)?;
        let stored = async {
            let (check, calls) =
                self.check_one(&plan, claim, run, options.cache, self.fetch_permits()).await?;
            Ok::<_, CoreError>(self.store()?.insert_check(run, None, &check, &calls)?)
        }
        .await;
        match stored {
            Ok(id) => {
                self.store()?.set_run_status(run, RunStatus::Completed, None)?;
                Ok(self.store()?.check(id)?)
            }
            Err(error) => {
                // The run must not stay "running"; the check's own error is the one to report.
                if let Err(marking) = self.store().and_then(|store| {
                    Ok(store.set_run_status(run, RunStatus::Failed, Some(&error.to_string()))?)
                }) {
                    tracing::warn!(%run, error = %marking, "could not mark the run failed");
                }
                Err(error)
            }
        }
    }

    /// Checks every claim of a collection, a few at a time (`verify.concurrency`), storing each
    /// result as it comes. Continues the newest unfinished run with the same method and
    /// parameters unless `options.restart`; claims that run already checked are skipped, and
    /// with `options.skip_checked` so are claims any run checked the same way. A
    /// claim whose check fails is reported and left unchecked (the run then ends `failed`,
    /// and the next call retries just those claims). Cancelling stops starting new claims.
    #[tracing::instrument(skip(self, options, reporter, cancel))]
    pub async fn verify_collection(
        &self,
        collection: &str,
        options: &VerifyOptions,
        reporter: Arc<dyn Reporter>,
        cancel: CancelToken,
    ) -> Result<BatchSummary> {
        let plan = self.plan(options)?;
        // A cross-encoder that cannot be loaded stops the batch before it starts, rather than
        // failing every claim in turn.
        if plan.method != Method::PTrue
            && let Some((folder, name)) = plan.cross_encoder()
        {
            self.cross_encoder(&folder, name)?;
        }
        let parameters = plan.parameters();
        let (claims, run, resumed, done) = {
            let store = self.store()?;
            let collection_id = store.collection_id(collection)?;
            let claims = store.claims(&ClaimFilter {
                collection: Some(collection_id),
                ..ClaimFilter::default()
            })?;
            let existing = if options.restart {
                None
            } else {
                store.unfinished_run(plan.method.as_str(), &parameters, collection_id)?
            };
            let (run, resumed) = match existing {
                Some(run) => (run, true),
                None => (
                    store.create_run(
                        plan.method.as_str(),
                        &parameters,
                        Some(&plan.model),
                        Some(collection_id),
                    )?,
                    false,
                ),
            };
            let mut done: HashSet<ClaimId> = store.checked_claims(run)?;
            if options.skip_checked {
                done.extend(store.claims_checked_with(
                    collection_id,
                    plan.method.as_str(),
                    &parameters,
                )?);
            }
            store.set_run_status(run, RunStatus::Running, None)?;
            (claims, run, resumed, done)
        };
        tracing::info!(run = %run, resumed, claims = claims.len(), already = done.len(), "verifying a collection");
        let todo: Vec<Claim> =
            claims.iter().filter(|claim| !done.contains(&claim.id)).cloned().collect();
        reporter.phase("checking claims", Some(claims.len() as u64), ProgressUnit::Items);
        reporter.advance(done.len() as u64);

        let concurrency = options.concurrency.unwrap_or(self.settings().verify.concurrency).max(1);
        let permits = self.fetch_permits();
        let mut summary = BatchSummary {
            run_id: run,
            collection: collection.to_owned(),
            method: plan.method.as_str().to_owned(),
            resumed,
            claims: claims.len(),
            already_checked: done.len(),
            checked: 0,
            failed: 0,
            cancelled: false,
            verdicts: Vec::new(),
            failures: Vec::new(),
        };
        let mut results = futures_util::stream::iter(todo.into_iter().map(|claim| {
            let plan = &plan;
            let permits = permits.clone();
            let cancel = cancel.clone();
            let reporter = reporter.clone();
            async move {
                if cancel.is_cancelled() {
                    return (claim, None);
                }
                reporter.working_on(&claim.text);
                let outcome = self
                    .check_one(plan, &claim.text, run, options.cache, permits)
                    .await
                    .and_then(|(check, calls)| {
                        self.store()?.insert_check(run, Some(claim.id), &check, &calls)?;
                        Ok(check.verdict)
                    });
                (claim, Some(outcome))
            }
        }))
        .buffer_unordered(concurrency);
        while let Some((claim, outcome)) = results.next().await {
            match outcome {
                None => summary.cancelled = true,
                Some(Ok(verdict)) => {
                    summary.checked += 1;
                    match summary.verdicts.iter_mut().find(|(v, _)| *v == verdict) {
                        Some((_, count)) => *count += 1,
                        None => summary.verdicts.push((verdict, 1)),
                    }
                    reporter.advance(1);
                }
                Some(Err(error)) => {
                    summary.failed += 1;
                    let message = error.to_string();
                    reporter.item_failed(&claim.text, &message);
                    summary.failures.push(ClaimFailure {
                        claim_id: claim.id,
                        claim: claim.text,
                        message,
                    });
                }
            }
        }
        drop(results);
        summary.cancelled |= cancel.is_cancelled();
        let status = if summary.cancelled {
            RunStatus::Cancelled
        } else if summary.failed > 0 {
            RunStatus::Failed
        } else {
            RunStatus::Completed
        };
        let error =
            (summary.failed > 0).then(|| format!("{} claims could not be checked", summary.failed));
        self.store()?.set_run_status(run, status, error.as_deref())?;
        reporter.finish();
        Ok(summary)
    }

    /// Claims of a collection with their newest check (and its latest review).
    pub fn collection_checks(&self, collection: &str) -> Result<Vec<ClaimWithCheck>> {
        let store = self.store()?;
        let collection_id = store.collection_id(collection)?;
        let claims = store
            .claims(&ClaimFilter { collection: Some(collection_id), ..ClaimFilter::default() })?;
        let checks = store.checks(&CheckFilter {
            collection: Some(collection_id),
            latest_per_claim: true,
            ..CheckFilter::default()
        })?;
        Ok(claims
            .into_iter()
            .map(|claim| {
                let check = checks.iter().find(|check| check.claim_id == Some(claim.id)).cloned();
                ClaimWithCheck { claim, check }
            })
            .collect())
    }

    /// One stored check.
    pub fn check(&self, id: CheckId) -> Result<StoredCheck> {
        Ok(self.store()?.check(id)?)
    }

    /// Every check of a claim, oldest first.
    pub fn checks_of_claim(&self, claim: ClaimId) -> Result<Vec<StoredCheck>> {
        Ok(self.store()?.checks(&CheckFilter { claim: Some(claim), ..CheckFilter::default() })?)
    }

    /// Records a person's decision on a check: accept the machine verdict, or override it with
    /// another (a comment is required for an override). The machine verdict is kept.
    pub fn review_check(
        &self,
        check: CheckId,
        decision: ReviewDecision,
        verdict: Option<Verdict>,
        comment: &str,
        reviewer: Option<&str>,
    ) -> Result<Review> {
        let machine = self.store()?.check(check)?.check.verdict;
        let verdict = match (decision, verdict) {
            (ReviewDecision::Accept, None) => machine,
            (ReviewDecision::Accept, Some(verdict)) if verdict == machine => machine,
            (ReviewDecision::Accept, Some(verdict)) => {
                return Err(CoreError::InvalidInput(format!(
                    "accepting keeps the machine verdict ({machine}); to change it to {verdict}, override"
                )));
            }
            (ReviewDecision::Override, None) => {
                return Err(CoreError::InvalidInput(
                    "an override needs the reviewer's verdict".into(),
                ));
            }
            (ReviewDecision::Override, Some(verdict)) => verdict,
        };
        if decision == ReviewDecision::Override && comment.trim().is_empty() {
            return Err(CoreError::InvalidInput(
                "an override needs a comment saying why the machine verdict is wrong".into(),
            ));
        }
        Ok(self.store()?.add_review(check, decision, verdict, comment.trim(), reviewer)?)
    }
}
