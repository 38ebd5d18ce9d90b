//! Checking claims: one claim ([`Factdesk::verify_claim`]) or a whole collection
//! ([`Factdesk::verify_collection`]) with a method from `factdesk-methods` — LLM-Cite, P(True),
//! corpus-NLI or CIBER. This module resolves the method's configuration from its settings section and
//! the per-run options ([`config`]), gives the method its evidence ([`evidence`]) and the
//! audited chat model, and stores each result with the model calls behind it. The NLI judge
//! comes from `verify.nli`: `auto` picks Factdesk's trained verifier (a cross-encoder in
//! `<models dir>/factdesk-verifier`, with the premise-size calibration its folder ships in
//! `calibration.json`) when the embedded chat model answers, and LLM-instructed NLI when a
//! model server is configured.
//!
//! A collection run goes through the resumable batch runner ([`crate::batch`]): a run that did
//! not complete (killed, cancelled, or with failed claims) is continued by the next
//! `verify_collection` with the same method configuration and models, skipping the claims it
//! already checked. Model calls already made are answered from the audit record, so a resumed
//! claim costs no repeated calls either.

pub mod config;
pub mod evidence;

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

use factdesk_llm::cross_encoder::CrossEncoderNli;
use factdesk_llm::nli::LlmNli;
use factdesk_llm::{CacheMode, CallCollector, LanguageModel, Nli};
use factdesk_methods::ciber::{self, Ciber};
use factdesk_methods::corpus_nli::{self, CorpusNli};
use factdesk_methods::evidence::PageSource;
use factdesk_methods::judge::PremiseForm;
use factdesk_methods::llm_cite::{self, LlmCite, UrlStrategy, model_name};
use factdesk_methods::p_true::PTrue;
use factdesk_methods::{MethodError, prompts};
use factdesk_model::{
    CheckId, Claim, ClaimCheck, ClaimId, DocumentId, Review, ReviewDecision, RunStatus,
    StoredCheck, Undecided, Verdict,
};
use factdesk_store::{CheckFilter, ClaimFilter};
use serde::{Deserialize, Serialize};
use tokio::sync::Semaphore;

pub use crate::batch::SubjectFailure as ClaimFailure;
use crate::batch::{BatchSpec, BatchSubjects, Subject};
use crate::models::ModelChoice;
use crate::{CancelToken, CoreError, Factdesk, Reporter, Result};
use config::{
    CiberConfig, CorpusNliConfig, LlmCiteConfig, MethodConfig, PTrueConfig, RunIdentity, RunModels,
};
use evidence::{CorpusSearch, LlmCitePages, WebPages};

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

/// The name of the language `text` is in when it is not English, for the chat model's NLI
/// prompt (`factdesk_text::other_than_english`).
pub(crate) fn language_name(text: &str) -> Option<&'static str> {
    factdesk_text::other_than_english(text).map(|language| language.name)
}

/// Where the built-in verifier is installed: `factdesk-verifier` in the models folder (the
/// user's, else the one an installed package brings).
pub fn verifier_folder() -> PathBuf {
    factdesk_llm::embeddings::model_path(NLI_VERIFIER)
}

/// The `[verify]` settings: which method checks claims by default, the NLI judge the
/// evidence-reading methods share, and how a batch runs. Each method's own settings are in
/// `[methods.<name>]` ([`config::MethodsSettings`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct VerifySettings {
    pub method: String,
    pub nli: String,
    /// Samples per question when the chat model judges (`nli = "llm"`) and gives no
    /// probabilities.
    pub nli_samples: u32,
    pub concurrency: usize,
    pub seed: u64,
    /// Evidence published more than this many days before a claim's date is flagged as
    /// possibly out of date for it (0: never flagged); claims without a date are not compared.
    pub stale_after_days: u32,
}

/// The checking methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    LlmCite,
    PTrue,
    CorpusNli,
    Ciber,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::LlmCite => factdesk_methods::llm_cite::METHOD,
            Method::PTrue => factdesk_methods::p_true::METHOD,
            Method::CorpusNli => factdesk_methods::corpus_nli::METHOD,
            Method::Ciber => factdesk_methods::ciber::METHOD,
        }
    }

    /// The per-run options ([`VerifyOptions`]) this method takes.
    pub fn options(self) -> &'static [&'static str] {
        match self {
            Method::LlmCite => {
                &["urls", "m", "l", "r", "temperature", "threshold", "whole_document", "nli"]
            }
            Method::PTrue => &[],
            Method::CorpusNli => &["m", "l", "threshold", "nli", "corpora"],
            Method::Ciber => &["m", "corpora", "documents", "pages", "from_llm_cite"],
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
            "ciber" => Ok(Method::Ciber),
            other => Err(CoreError::InvalidInput(format!(
                "unknown method '{other}'; expected llm-cite, p-true, corpus-nli or ciber"
            ))),
        }
    }
}

/// Per-run choices that override the settings; what is left out comes from `[verify]` and
/// the method's `[methods.<name>]` section. An option the chosen method does not take is an
/// error. The desktop app receives these from the UI as JSON (unknown fields are refused).
#[derive(Debug, Clone, Default, Deserialize, ts_rs::TS)]
#[serde(default, deny_unknown_fields)]
pub struct VerifyOptions {
    pub method: Option<Method>,
    /// LLM-Cite.
    pub urls: Option<UrlStrategy>,
    /// LLM-Cite's URLs per claim, corpus-NLI's documents per claim sentence, CIBER's evidence
    /// documents per claim.
    pub m: Option<usize>,
    /// Sentences kept per page (LLM-Cite) or document (corpus-NLI).
    pub l: Option<usize>,
    /// LLM-Cite.
    pub r: Option<u32>,
    /// LLM-Cite.
    pub temperature: Option<f32>,
    /// LLM-Cite and corpus-NLI.
    pub threshold: Option<f64>,
    /// LLM-Cite: LLM-instructed NLI on each page's first characters instead of cumulative
    /// premises.
    pub whole_document: bool,
    /// LLM-Cite and corpus-NLI: `auto`, `factdesk-verifier`, `llm`, or
    /// `cross-encoder:<model folder>`.
    pub nli: Option<String>,
    /// corpus-NLI and CIBER: the corpora they retrieve from (all when empty).
    pub corpora: Vec<String>,
    /// CIBER: judge these corpus documents instead of retrieving some.
    pub documents: Vec<factdesk_model::DocumentId>,
    /// CIBER: judge these web pages (fetched, or from the archive when offline) instead of
    /// retrieving documents.
    pub pages: Vec<String>,
    /// CIBER: judge the web pages the newest LLM-Cite check of each claim read (from the page
    /// archive) instead of retrieving documents.
    pub from_llm_cite: bool,
    pub cache: Option<CacheMode>,
    pub concurrency: Option<usize>,
    /// Start a new run even if an unfinished one with the same identity exists.
    pub restart: bool,
    /// Leave out the claims that already hold a check made with the same method
    /// configuration and models by any earlier run, finished or not.
    pub skip_checked: bool,
}

impl VerifyOptions {
    /// The options given that `method` does not take.
    fn foreign_to(&self, method: Method) -> Vec<&'static str> {
        let given = [
            ("urls", self.urls.is_some()),
            ("m", self.m.is_some()),
            ("l", self.l.is_some()),
            ("r", self.r.is_some()),
            ("temperature", self.temperature.is_some()),
            ("threshold", self.threshold.is_some()),
            ("whole_document", self.whole_document),
            ("nli", self.nli.is_some()),
            ("corpora", !self.corpora.is_empty()),
            ("documents", !self.documents.is_empty()),
            ("pages", !self.pages.is_empty()),
            ("from_llm_cite", self.from_llm_cite),
        ];
        let takes = method.options();
        given
            .into_iter()
            .filter(|(name, set)| *set && !takes.contains(name))
            .map(|(n, _)| n)
            .collect()
    }
}

/// The method and configuration of a run, resolved from settings and options.
#[derive(Debug, Clone, PartialEq)]
struct Plan {
    identity: RunIdentity,
}

impl Plan {
    /// The NLI judge, for methods that judge evidence.
    fn nli(&self) -> Option<&str> {
        self.identity.models.nli.as_deref()
    }

    /// The model folder of a cross-encoder NLI judge (the built-in verifier or
    /// `cross-encoder:<folder>`), with the name checks record for it.
    fn cross_encoder(&self) -> Option<(PathBuf, Option<&'static str>)> {
        cross_encoder_folder(self.nli()?)
    }
}

/// The model folder of a resolved NLI choice that names a cross-encoder (the built-in verifier
/// or `cross-encoder:<folder>`), with the name results record for it.
pub(crate) fn cross_encoder_folder(nli: &str) -> Option<(PathBuf, Option<&'static str>)> {
    if nli == NLI_VERIFIER {
        return Some((verifier_folder(), Some(NLI_VERIFIER)));
    }
    nli.strip_prefix("cross-encoder:").map(|folder| (PathBuf::from(folder.trim()), None))
}

/// What a collection run did.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct BatchSummary {
    pub run_id: factdesk_model::RunId,
    pub collection: String,
    pub method: String,
    /// True when an unfinished run was continued.
    pub resumed: bool,
    pub claims: usize,
    /// Checked in earlier attempts of this run (with `skip_checked`, also by earlier runs
    /// with the same method configuration and models), and so left out.
    pub already_checked: usize,
    /// Being checked by another process running this run when this one reached them.
    pub elsewhere: usize,
    pub checked: usize,
    pub failed: usize,
    pub cancelled: bool,
    /// Checks per verdict, in order of first appearance.
    pub verdicts: Vec<(Verdict, usize)>,
    /// Of the not-enough-info checks, those that could not decide, per reason.
    pub undecided: Vec<(Undecided, usize)>,
    pub failures: Vec<ClaimFailure>,
}

/// Which checks lists, reports and eval read: each claim's newest check, among those of
/// `method` and of `run` when given (a run over the collection read). By default, each claim's
/// newest check whatever its method.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, ts_rs::TS)]
#[serde(default, deny_unknown_fields)]
pub struct CheckSelection {
    pub method: Option<Method>,
    pub run: Option<factdesk_model::RunId>,
}

/// A check with the claim it belongs to, for lists and reports.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct ClaimWithCheck {
    pub claim: Claim,
    pub check: Option<StoredCheck>,
}

/// The date a fetched page says it was published, read again from its archived body (pages
/// are archived as received; their dates are not kept apart).
/// Only HTML pages are read again (their metadata is in the markup, and reading it is quick);
/// a PDF's own date is not looked for here.
fn page_published(url: Option<&str>, page: &factdesk_model::StoredPage) -> Option<String> {
    let format = crate::import::format_of_page(
        page.media_type.as_deref(),
        url.unwrap_or_default(),
        &page.body,
    )?;
    if format != factdesk_model::DocumentFormat::Html {
        return None;
    }
    crate::formats::page_text(&page.body, format, None).ok()?.1.published
}

pub(crate) fn method_error(error: MethodError) -> CoreError {
    match error {
        MethodError::Model(error) => CoreError::Model(error),
        MethodError::Evidence(message) => CoreError::Internal(message),
        MethodError::Input(message) => CoreError::InvalidInput(message),
        MethodError::Cancelled => {
            CoreError::Cancelled { what: "the run".into(), resume: "run it again".into() }
        }
    }
}

impl Factdesk {
    /// Resolves the run's method configuration and models from the settings and `options`.
    fn plan(&self, options: &VerifyOptions) -> Result<Plan> {
        let settings = self.settings();
        let verify = &settings.verify;
        let method = match options.method {
            Some(method) => method,
            None => verify.method.parse()?,
        };
        let foreign = options.foreign_to(method);
        if !foreign.is_empty() {
            let takes = method.options();
            return Err(CoreError::InvalidInput(format!(
                "{} does not take the option(s) {}; it takes {}",
                method.as_str(),
                foreign.join(", "),
                if takes.is_empty() { "none".to_owned() } else { takes.join(", ") }
            )));
        }
        let chat = self.model_choice();
        let chat_name = chat.model_name();
        let threshold = |default: f64| {
            let threshold = options.threshold.unwrap_or(default);
            config::check_threshold(threshold).map(|()| threshold).map_err(CoreError::InvalidInput)
        };
        let at_least_one = |name: &str, value: usize| {
            if value == 0 {
                Err(CoreError::InvalidInput(format!("{name} must be at least 1")))
            } else {
                Ok(value)
            }
        };
        let identity = match method {
            Method::LlmCite => {
                let own = &settings.methods.llm_cite;
                let urls = match options.urls {
                    Some(urls) => urls,
                    None => own.urls.parse().map_err(CoreError::InvalidInput)?,
                };
                let premises = if options.whole_document {
                    PremiseForm::WholeDocument { max_chars: own.document_chars.max(1) }
                } else {
                    config::premise_form(&own.premises, own.document_chars)
                        .map_err(CoreError::InvalidInput)?
                };
                // The paper's whole-document variant is LLM-instructed NLI.
                let nli = if matches!(premises, PremiseForm::WholeDocument { .. }) {
                    NLI_LLM.to_owned()
                } else {
                    self.nli_choice(options, &chat)?
                };
                RunIdentity {
                    method,
                    config: MethodConfig::LlmCite(LlmCiteConfig {
                        method: llm_cite::LlmCiteConfig {
                            strategy: urls,
                            m: at_least_one("m", options.m.unwrap_or(own.m))?,
                            r: options.r.unwrap_or(own.r).max(1),
                            temperature: options.temperature.unwrap_or(own.temperature),
                            l: at_least_one("l", options.l.unwrap_or(own.l))?,
                            threshold: threshold(own.threshold)?,
                            premises,
                            language: settings.import.language.clone(),
                            seed: verify.seed,
                        },
                        nli_samples: RunIdentity::judged_by_llm(&nli, verify.nli_samples),
                    }),
                    models: RunModels { chat: Some(chat_name), nli: Some(nli) },
                }
            }
            Method::PTrue => RunIdentity {
                method,
                config: MethodConfig::PTrue(PTrueConfig {
                    samples: settings.methods.p_true.samples.max(1),
                    seed: verify.seed,
                }),
                models: RunModels { chat: Some(chat_name), nli: None },
            },
            Method::CorpusNli => {
                let own = &settings.methods.corpus_nli;
                let nli = self.nli_choice(options, &chat)?;
                let nli_samples = RunIdentity::judged_by_llm(&nli, verify.nli_samples);
                RunIdentity {
                    method,
                    config: MethodConfig::CorpusNli(CorpusNliConfig {
                        method: corpus_nli::CorpusNliConfig {
                            documents: at_least_one("m", options.m.unwrap_or(own.documents))?,
                            l: at_least_one("l", options.l.unwrap_or(own.l))?,
                            retrieve: own.retrieve.max(1),
                            threshold: threshold(own.threshold)?,
                        },
                        corpora: options.corpora.clone(),
                        nli_samples,
                    }),
                    // The chat model is asked only when it is the judge.
                    models: RunModels {
                        chat: nli_samples.is_some().then_some(chat_name),
                        nli: Some(nli),
                    },
                }
            }
            Method::Ciber => {
                let own = &settings.methods.ciber;
                if options.from_llm_cite
                    && (options.m.is_some()
                        || !options.corpora.is_empty()
                        || !options.documents.is_empty()
                        || !options.pages.is_empty())
                {
                    return Err(CoreError::InvalidInput(
                        "from_llm_cite judges the pages LLM-Cite read for each claim; leave out \
                         m, corpora, documents and pages, which choose other evidence"
                            .into(),
                    ));
                }
                if options.m.is_some()
                    && !(options.documents.is_empty() && options.pages.is_empty())
                {
                    return Err(CoreError::InvalidInput(
                        "m (documents per claim) chooses how many documents to retrieve; with \
                         named documents or pages nothing is retrieved, so leave out m"
                            .into(),
                    ));
                }
                RunIdentity {
                    method,
                    config: MethodConfig::Ciber(CiberConfig {
                        method: ciber::CiberConfig {
                            documents: at_least_one("m", options.m.unwrap_or(own.documents))?,
                            retrieve: own.retrieve.max(1),
                            document_words: own.document_words.max(1),
                            agree: own.agree,
                            conflict: own.conflict,
                            mode: own.probe_mode().map_err(CoreError::InvalidInput)?,
                            samples: own.samples.max(1),
                            temperature: own.temperature,
                            alpha: own.alpha,
                            rule: own.fusion_rule().map_err(CoreError::InvalidInput)?,
                            rag: own.rag,
                            seed: verify.seed,
                            probes: ciber::ProbeSets::builtin()
                                .map_err(CoreError::Internal)?
                                .version,
                        },
                        corpora: options.corpora.clone(),
                        named: options.documents.clone(),
                        pages: options.pages.iter().map(|url| url.trim().to_owned()).collect(),
                        llm_cite: options.from_llm_cite,
                    }),
                    models: RunModels { chat: Some(chat_name), nli: None },
                }
            }
        };
        Ok(Plan { identity })
    }

    /// The NLI judge from `options.nli` or `verify.nli`, with `auto` resolved: the embedded
    /// chat model is far too weak to judge entailment, so it means the trained verifier; a
    /// configured server is asked itself.
    fn nli_choice(&self, options: &VerifyOptions, chat: &ModelChoice) -> Result<String> {
        self.resolve_nli(options.nli.as_deref(), chat)
    }

    /// `nli` (else `verify.nli`) checked, with `auto` resolved for the chat model `chat`.
    pub(crate) fn resolve_nli(&self, nli: Option<&str>, chat: &ModelChoice) -> Result<String> {
        let settings = &self.settings().verify;
        let nli = nli.unwrap_or(&settings.nli).trim().to_owned();
        check_nli_choice(&nli)
            .map_err(|message| CoreError::InvalidInput(format!("verify.nli: {message}")))?;
        Ok(if nli == NLI_AUTO {
            match chat {
                ModelChoice::Embedded { .. } => NLI_VERIFIER.into(),
                _ => NLI_LLM.into(),
            }
        } else {
            nli
        })
    }

    /// The NLI judge of `plan`; `chat` gives the audited chat model when it is the judge.
    fn nli_model(
        &self,
        plan: &Plan,
        chat: impl FnOnce() -> Result<Arc<dyn LanguageModel>>,
        prompts: &Arc<factdesk_llm::prompts::PromptLibrary>,
    ) -> Result<Arc<dyn Nli>> {
        self.nli_named(plan.nli().unwrap_or_default(), chat, prompts)
    }

    /// The NLI judge a resolved choice names; `chat` gives the audited chat model when it is
    /// the judge.
    pub(crate) fn nli_named(
        &self,
        nli: &str,
        chat: impl FnOnce() -> Result<Arc<dyn LanguageModel>>,
        prompts: &Arc<factdesk_llm::prompts::PromptLibrary>,
    ) -> Result<Arc<dyn Nli>> {
        if nli == NLI_LLM {
            let mut nli = LlmNli::new(chat()?, prompts.clone()).naming_languages(language_name);
            nli.samples = self.settings().verify.nli_samples.max(1);
            return Ok(Arc::new(nli));
        }
        match cross_encoder_folder(nli) {
            Some((folder, name)) => self.cross_encoder(&folder, name),
            // The choice was resolved (`auto`) and checked before.
            None => Err(CoreError::Internal(format!("unresolved NLI choice {nli:?}"))),
        }
    }

    /// The cross-encoder in `folder`, loaded once and shared by every check; `name` replaces
    /// the folder in what checks record (for the built-in verifier, whose folder differs
    /// between machines).
    pub(crate) fn cross_encoder(&self, folder: &Path, name: Option<&str>) -> Result<Arc<dyn Nli>> {
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
            let model: Arc<dyn Nli> = Arc::new(match name {
                Some(name) => model.with_name(name),
                None => model,
            });
            // A model folder may ship a calibration for the grounding rule's premises; fact
            // alignment moves every judgement (factdesk_methods::facts::shipped_verifier).
            let calibrated = factdesk_methods::facts::shipped_verifier(model, folder);
            calibrated.map_err(|message| {
                factdesk_llm::LlmError::ModelFile {
                    path: folder
                        .join(factdesk_methods::calibration::CALIBRATION_FILE)
                        .display()
                        .to_string(),
                    message,
                    fetch_command: "run scripts/fetch-models.sh from Factdesk's source tree (the \
                                    built-in verifier), or remove the file to use the model's \
                                    judgement uncalibrated"
                        .into(),
                }
                .into()
            })
        })
    }

    /// Checks one claim with the plan's method, its model calls recorded for `run`.
    async fn check_one(
        &self,
        plan: &Plan,
        claim: &str,
        run: factdesk_model::RunId,
        cache: Option<CacheMode>,
        fetch_permits: Arc<Semaphore>,
    ) -> Result<(ClaimCheck, Vec<i64>)> {
        let collector = CallCollector::default();
        // The chat model, audited and its calls collected for the check; loaded only by the
        // methods that ask it.
        let chat = || self.collecting_language_model(Some(run), cache, Some(collector.clone()));
        let prompts = Arc::new(prompts::builtin_library()?);
        let check = match &plan.identity.config {
            MethodConfig::LlmCite(config) => {
                let model = chat()?;
                let method = LlmCite {
                    model: model.clone(),
                    nli: self.nli_model(plan, || Ok(model.clone()), &prompts)?,
                    prompts,
                    pages: Arc::new(WebPages { app: self.clone(), run, permits: fetch_permits }),
                    config: config.method.clone(),
                };
                method.check(claim).await
            }
            MethodConfig::PTrue(config) => {
                let method =
                    PTrue { model: chat()?, prompts, samples: config.samples, seed: config.seed };
                method.check(claim).await
            }
            MethodConfig::CorpusNli(config) => {
                // The chat model is asked only when it judges; otherwise the judge is what
                // the check names as its model.
                let mut asked = None;
                let nli = self.nli_model(
                    plan,
                    || {
                        let model = chat()?;
                        asked = Some(model_name(&*model));
                        Ok(model)
                    },
                    &prompts,
                )?;
                let model = asked.unwrap_or_else(|| nli.name());
                let method = CorpusNli {
                    retriever: Arc::new(CorpusSearch {
                        app: self.clone(),
                        corpora: config.corpora.clone(),
                    }),
                    nli,
                    model,
                    config: config.method.clone(),
                    language: self.settings().import.language.clone(),
                };
                method.check(claim).await
            }
            MethodConfig::Ciber(config) => {
                let web: Arc<dyn PageSource>;
                let documents = if config.llm_cite {
                    let cited = LlmCitePages::of_claim(self, claim)?;
                    let pages = cited.urls();
                    web = Arc::new(cited);
                    ciber::Documents::LlmCite { pages }
                } else {
                    web = Arc::new(WebPages { app: self.clone(), run, permits: fetch_permits });
                    if config.named.is_empty() && config.pages.is_empty() {
                        ciber::Documents::Retrieved
                    } else {
                        ciber::Documents::Named {
                            documents: config.named.clone(),
                            pages: config.pages.clone(),
                        }
                    }
                };
                let method = Ciber {
                    model: chat()?,
                    prompts,
                    probes: ciber::ProbeSets::builtin().map_err(CoreError::Internal)?,
                    retriever: Arc::new(CorpusSearch {
                        app: self.clone(),
                        corpora: config.corpora.clone(),
                    }),
                    documents,
                    web: Some(web),
                    language: self.settings().import.language.clone(),
                    config: config.method.clone(),
                };
                method.check(claim).await
            }
        }
        .map_err(method_error)?;
        let mut check = check;
        // The check is made: pages are a note on it, and a failure to read them loses none of it.
        if let Err(error) = self.mark_pages(&mut check) {
            tracing::warn!(%error, "could not note the pages of the evidence");
        }
        if let Err(error) = self.mark_dates(&mut check) {
            tracing::warn!(%error, "could not note the dates of the evidence");
        }
        Ok((check, collector.ids()))
    }

    /// Notes the date each source says it was published (a local document's stored date, a
    /// fetched page's own metadata), on the sources a check read and those it cites: methods
    /// see the evidence's text only. What has no date keeps none.
    fn mark_dates(&self, check: &mut ClaimCheck) -> Result<()> {
        let mut dates: std::collections::HashMap<
            (Option<DocumentId>, Option<String>),
            Option<String>,
        > = std::collections::HashMap::new();
        let store = self.store()?;
        let sources =
            check.sources.iter_mut().chain(check.attributions.iter_mut().map(|a| &mut a.source));
        for source in sources {
            if source.published_at.is_some() {
                continue;
            }
            let key = (source.document_id, source.content_hash.clone());
            let date = match dates.get(&key) {
                Some(date) => date.clone(),
                None => {
                    let date = match (source.document_id, source.content_hash.as_deref()) {
                        (Some(document), _) => store.published_at(document)?,
                        (None, Some(hash)) => store
                            .page_by_hash(hash)?
                            .and_then(|page| page_published(source.url.as_deref(), &page)),
                        (None, None) => None,
                    };
                    dates.insert(key, date.clone());
                    date
                }
            };
            source.published_at = date;
        }
        Ok(())
    }

    /// Fills in each check's evidence that is old for `claim` ([`StoredCheck::stale`]), by the
    /// claim's date and `verify.stale_after_days`.
    pub(crate) fn mark_stale(&self, claim: Option<&Claim>, checks: &mut [StoredCheck]) {
        let window = self.settings().verify.stale_after_days;
        let Some(claimed_on) = claim.and_then(|claim| claim.claimed_on.as_deref()) else {
            return;
        };
        for check in checks {
            check.stale = factdesk_model::stale_evidence(&check.check, claimed_on, window);
        }
    }

    /// Notes the page of each evidence sentence that comes from a paged local document (a
    /// PDF), on its premises and attributions, from the stored sentences: methods see the
    /// sentences' text only.
    fn mark_pages(&self, check: &mut ClaimCheck) -> Result<()> {
        let mut paged: std::collections::HashMap<DocumentId, Vec<(String, u32)>> =
            std::collections::HashMap::new();
        let documents = check.sources.iter().chain(check.attributions.iter().map(|a| &a.source));
        for id in documents.filter_map(|source| source.document_id) {
            if let std::collections::hash_map::Entry::Vacant(entry) = paged.entry(id) {
                entry.insert(self.store()?.paged_sentences(id)?);
            }
        }
        let pages_of = |document: Option<DocumentId>, sentences: &[String]| -> Vec<Option<u32>> {
            let Some(stored) = document.and_then(|id| paged.get(&id)).filter(|p| !p.is_empty())
            else {
                return Vec::new();
            };
            sentences
                .iter()
                .map(|sentence| {
                    let sentence = sentence.trim();
                    let exact = stored.iter().find(|(text, _)| text == sentence);
                    // A method may have trimmed or joined a sentence; a long enough part of
                    // one still places it.
                    let within = || {
                        stored.iter().find(|(text, _)| {
                            (sentence.len() >= 20 && text.contains(sentence))
                                || (text.len() >= 20 && sentence.contains(text.as_str()))
                        })
                    };
                    exact.or_else(within).map(|(_, page)| *page)
                })
                .collect()
        };
        for index in 0..check.premises.len() {
            let source =
                check.sources.get(check.premises[index].source).and_then(|s| s.document_id);
            let pages = pages_of(source, &check.premises[index].sentences);
            check.premises[index].pages = pages;
        }
        for attribution in &mut check.attributions {
            attribution.pages = pages_of(attribution.source.document_id, &attribution.sentences);
        }
        Ok(())
    }

    pub(crate) fn fetch_permits(&self) -> Arc<Semaphore> {
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
            plan.identity.method.as_str(),
            &plan.identity.to_json(),
            plan.identity.model_label(),
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
    /// result as it comes, through the resumable batch runner ([`Factdesk::run_batch`]): the
    /// newest unfinished run with the same method configuration and models is continued unless
    /// `options.restart`, and with `options.skip_checked` the claims any run checked the same
    /// way are left out. A claim whose check fails is reported and left unchecked (the run
    /// then ends `failed`, and the next call retries just those claims). Cancelling stops
    /// starting new claims.
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
        if let Some((folder, name)) = plan.cross_encoder() {
            self.cross_encoder(&folder, name)?;
        }
        let identity = plan.identity.to_json();
        let method = plan.identity.method.as_str();
        let spec = BatchSpec {
            collection,
            subjects: BatchSubjects::Claims,
            method,
            identity: &identity,
            model: plan.identity.model_label(),
            restart: options.restart,
            skip_done: options.skip_checked,
            concurrency: options.concurrency.unwrap_or(self.settings().verify.concurrency),
        };
        let permits = self.fetch_permits();
        let plan = &plan;
        let outcome = self
            .run_batch(spec, reporter, cancel, |subject, run| {
                let permits = permits.clone();
                async move {
                    let Subject::Claim(claim) = subject else {
                        return Err(CoreError::Internal(
                            "a claims batch was given a passage".into(),
                        ));
                    };
                    let (check, calls) =
                        self.check_one(plan, &claim.text, run, options.cache, permits).await?;
                    self.store()?.insert_check(run, Some(claim.id), &check, &calls)?;
                    Ok((check.verdict, check.undecided))
                }
            })
            .await?;
        let mut verdicts: Vec<(Verdict, usize)> = Vec::new();
        let mut undecided: Vec<(Undecided, usize)> = Vec::new();
        for ((verdict, reason), count) in outcome.tally {
            match verdicts.iter_mut().find(|(seen, _)| *seen == verdict) {
                Some((_, total)) => *total += count,
                None => verdicts.push((verdict, count)),
            }
            if let Some(reason) = reason {
                undecided.push((reason, count));
            }
        }
        Ok(BatchSummary {
            run_id: outcome.run_id,
            collection: collection.to_owned(),
            method: method.to_owned(),
            resumed: outcome.resumed,
            claims: outcome.subjects,
            already_checked: outcome.already_done,
            elsewhere: outcome.elsewhere,
            checked: outcome.done,
            failed: outcome.failed,
            cancelled: outcome.cancelled,
            verdicts,
            undecided,
            failures: outcome.failures,
        })
    }

    /// The newest check of each claim of `collection` that `selection` selects, with its
    /// latest review; a run that is not over `collection` is refused.
    pub(crate) fn selected_checks(
        &self,
        collection: &str,
        selection: &CheckSelection,
    ) -> Result<(Vec<Claim>, Vec<StoredCheck>)> {
        let store = self.store()?;
        let collection_id = store.collection_id(collection)?;
        if let Some(run) = selection.run
            && store.run(run)?.collection_id != Some(collection_id)
        {
            return Err(CoreError::InvalidInput(format!(
                "run {run} is not a run over the collection '{collection}'; leave out the run to \
                 read each claim's newest check"
            )));
        }
        let claims = store
            .claims(&ClaimFilter { collection: Some(collection_id), ..ClaimFilter::default() })?;
        let checks = store.checks(&CheckFilter {
            collection: Some(collection_id),
            run: selection.run,
            method: selection.method.map(|method| method.as_str().to_owned()),
            latest_per_claim: true,
            ..CheckFilter::default()
        })?;
        Ok((claims, checks))
    }

    /// Claims of a collection with their newest check that `selection` selects (and its latest
    /// review).
    pub fn collection_checks(
        &self,
        collection: &str,
        selection: &CheckSelection,
    ) -> Result<Vec<ClaimWithCheck>> {
        let (claims, checks) = self.selected_checks(collection, selection)?;
        Ok(claims
            .into_iter()
            .map(|claim| {
                let mut check =
                    checks.iter().find(|check| check.claim_id == Some(claim.id)).cloned();
                self.mark_stale(Some(&claim), check.as_mut_slice());
                ClaimWithCheck { claim, check }
            })
            .collect())
    }

    /// One stored check, with its evidence that is old for its claim.
    pub fn check(&self, id: CheckId) -> Result<StoredCheck> {
        let mut check = self.store()?.check(id)?;
        let claim = self.claim_of(&check)?;
        self.mark_stale(claim.as_ref(), std::slice::from_mut(&mut check));
        Ok(check)
    }

    /// Every check of a claim, oldest first, with their evidence that is old for the claim.
    pub fn checks_of_claim(&self, claim: ClaimId) -> Result<Vec<StoredCheck>> {
        let store = self.store()?;
        let mut checks =
            store.checks(&CheckFilter { claim: Some(claim), ..CheckFilter::default() })?;
        let claim = store.claims(&ClaimFilter { id: Some(claim), ..ClaimFilter::default() })?;
        drop(store);
        self.mark_stale(claim.first(), &mut checks);
        Ok(checks)
    }

    /// The stored claim a check is of, if any.
    fn claim_of(&self, check: &StoredCheck) -> Result<Option<Claim>> {
        let Some(id) = check.claim_id else { return Ok(None) };
        let claims =
            self.store()?.claims(&ClaimFilter { id: Some(id), ..ClaimFilter::default() })?;
        Ok(claims.into_iter().next())
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
