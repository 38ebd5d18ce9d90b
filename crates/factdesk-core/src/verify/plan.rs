//! A run's plan: the method configuration and models resolved from the settings and the per-run
//! options, and the plan's method built and run on one claim.

use std::path::PathBuf;
use std::sync::Arc;

use factdesk_llm::{CacheMode, CallCollector};
use factdesk_methods::ciber::{self, Ciber};
use factdesk_methods::corpus_nli::{self, CorpusNli};
use factdesk_methods::evidence::PageSource;
use factdesk_methods::judge::PremiseForm;
use factdesk_methods::llm_cite::{self, LlmCite, model_name};
use factdesk_methods::p_true::PTrue;
use factdesk_methods::prompts;
use factdesk_model::ClaimCheck;
use tokio::sync::Semaphore;

use super::config::{
    self, CiberConfig, CorpusNliConfig, LlmCiteConfig, MethodConfig, PTrueConfig, RunModels,
    judged_by_llm,
};
use super::evidence::{CorpusSearch, LlmCitePages, WebPages};
use super::{Method, NLI_LLM, VerifyOptions, cross_encoder_folder, method_error};
use crate::{CoreError, Factdesk, Result};

/// The method configuration of a run and the models it asks, resolved from settings and
/// options; with the method's name, they are the run's identity.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Plan {
    pub(super) config: MethodConfig,
    pub(super) models: RunModels,
}

impl Plan {
    pub(super) fn identity(&self) -> Result<crate::identity::RunIdentity> {
        self.config.identity(self.models.clone())
    }

    /// The NLI judge, for methods that judge evidence.
    pub(super) fn nli(&self) -> Option<&str> {
        self.models.nli.as_deref()
    }

    /// The model folder of a cross-encoder NLI judge (the built-in verifier or
    /// `cross-encoder:<folder>`), with the name checks record for it.
    pub(super) fn cross_encoder(&self) -> Option<(PathBuf, Option<&'static str>)> {
        cross_encoder_folder(self.nli()?)
    }
}

impl Factdesk {
    /// Resolves the run's method configuration and models from the settings and `options`.
    pub(super) fn plan(&self, options: &VerifyOptions) -> Result<Plan> {
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
        let (config, models) = match method {
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
                (
                    MethodConfig::LlmCite(LlmCiteConfig {
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
                        nli_samples: judged_by_llm(&nli, verify.nli_samples),
                    }),
                    RunModels { chat: Some(chat_name), nli: Some(nli) },
                )
            }
            Method::PTrue => (
                MethodConfig::PTrue(PTrueConfig {
                    samples: settings.methods.p_true.samples.max(1),
                    seed: verify.seed,
                }),
                RunModels { chat: Some(chat_name), nli: None },
            ),
            Method::CorpusNli => {
                let own = &settings.methods.corpus_nli;
                let nli = self.nli_choice(options, &chat)?;
                let nli_samples = judged_by_llm(&nli, verify.nli_samples);
                (
                    MethodConfig::CorpusNli(CorpusNliConfig {
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
                    RunModels { chat: nli_samples.is_some().then_some(chat_name), nli: Some(nli) },
                )
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
                (
                    MethodConfig::Ciber(CiberConfig {
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
                    RunModels { chat: Some(chat_name), nli: None },
                )
            }
        };
        Ok(Plan { config, models })
    }

    /// Checks one claim with the plan's method, its model calls recorded for `run`.
    pub(super) async fn check_one(
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
        let check = match &plan.config {
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
}
