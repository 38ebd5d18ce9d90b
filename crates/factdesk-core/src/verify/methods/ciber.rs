//! CIBER: the chat model answers agreeing and contradicting probes about each evidence document
//! (retrieved from the corpora, named by a person, or the pages LLM-Cite read for the claim) and
//! its answers are fused into a verdict. Its `[methods.ciber]` section, its run configuration and
//! how a check is built from it.

use std::sync::Arc;

use async_trait::async_trait;
use factdesk_methods::ciber as paper;
use factdesk_methods::evidence::PageSource;
use factdesk_methods::figures::Figure;
use factdesk_model::ciber::{FusionRule, ProbeMode};
use factdesk_model::{ClaimCheck, ClaimLabel, DocumentId};
use serde::{Deserialize, Serialize};

use super::{CheckContext, Method, Planned, PlannedMethod, VerdictMethod, at_least_one, nonzero};
use crate::verify::config::{MethodsSettings, RunModels};
use crate::verify::evidence::{Evidence, LlmCitePages};
use crate::verify::{VerifyOptions, method_error};
use crate::{CoreError, Factdesk, Result};

/// `[methods.ciber]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct CiberSettings {
    pub documents: usize,
    pub retrieve: usize,
    pub document_words: usize,
    pub agree: usize,
    pub conflict: usize,
    /// `exact` or `sampling`.
    pub mode: String,
    pub samples: u32,
    pub temperature: f32,
    pub alpha: f64,
    /// `wp`, `wig`, `wbu` or `meta`.
    pub rule: String,
    pub rag: bool,
}

impl CiberSettings {
    /// The probe-answering mode this section names.
    pub(crate) fn probe_mode(&self) -> std::result::Result<ProbeMode, String> {
        match self.mode.trim() {
            "exact" => Ok(ProbeMode::Exact),
            "sampling" => Ok(ProbeMode::Sampling),
            other => Err(format!("`methods.ciber.mode` is '{other}'; expected exact or sampling")),
        }
    }

    pub(crate) fn fusion_rule(&self) -> std::result::Result<FusionRule, String> {
        self.rule.parse().map_err(|_| {
            format!("`methods.ciber.rule` is '{}'; expected wp, wig, wbu or meta", self.rule)
        })
    }
}

/// CIBER as a run runs it: the method's own configuration, the corpora its documents come
/// from, and the documents and web pages a person named, or the choice of the pages LLM-Cite
/// read for each claim (judged instead of retrieved ones).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CiberConfig {
    #[serde(flatten)]
    pub method: paper::CiberConfig,
    pub corpora: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub named: Vec<DocumentId>,
    /// Web pages a person named (fetched, or from the archive when offline).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pages: Vec<String>,
    /// Judge the pages the newest LLM-Cite check of each claim read (from the archive).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub llm_cite: bool,
}

pub(super) struct Ciber;

impl VerdictMethod for Ciber {
    fn method(&self) -> Method {
        Method::Ciber
    }

    fn name(&self) -> &'static str {
        paper::METHOD
    }

    fn short_name(&self) -> &'static str {
        "CIBER"
    }

    fn title(&self) -> &'static str {
        "CIBER (probes on your corpora)"
    }

    fn hint(&self) -> &'static str {
        "The model is asked agreeing and contradicting questions about each of your best-matching documents (or each page LLM-Cite read for the claim); its answers are fused into a verdict."
    }

    fn options(&self) -> &'static [&'static str] {
        &["m", "corpora", "documents", "pages", "from_llm_cite"]
    }

    /// Or the web pages a person names (`--page`), or those LLM-Cite read for the claim
    /// (`--from-llm-cite`).
    fn evidence(&self) -> Evidence {
        Evidence::Corpus
    }

    fn validate(&self, settings: &MethodsSettings) -> std::result::Result<(), String> {
        let ciber = &settings.ciber;
        nonzero(&[
            ("methods.ciber.documents", ciber.documents as u64),
            ("methods.ciber.retrieve", ciber.retrieve as u64),
            ("methods.ciber.document_words", ciber.document_words as u64),
            ("methods.ciber.samples", u64::from(ciber.samples)),
        ])?;
        ciber.probe_mode()?;
        ciber.fusion_rule()?;
        let probes = paper::ProbeSets::builtin()?;
        for (key, asked, shipped) in [
            ("methods.ciber.agree", ciber.agree, probes.agree.len()),
            ("methods.ciber.conflict", ciber.conflict, probes.conflict.len()),
        ] {
            if asked == 0 || asked > shipped {
                return Err(format!(
                    "`{key}` is {asked}; it must be between 1 and {shipped} (the questions \
                     Factdesk has for that probe set)"
                ));
            }
        }
        if ciber.retrieve < ciber.documents {
            return Err(format!(
                "`methods.ciber.retrieve` is {}; it must be at least `methods.ciber.documents` \
                 ({}), or fewer documents than asked could be found",
                ciber.retrieve, ciber.documents
            ));
        }
        if !(0.0..=1.0).contains(&ciber.alpha) {
            return Err(format!(
                "`methods.ciber.alpha` is {}; it must be between 0 and 1",
                ciber.alpha
            ));
        }
        if !(ciber.temperature.is_finite() && ciber.temperature > 0.0) {
            return Err(format!(
                "`methods.ciber.temperature` is {}; sampling needs a temperature above 0",
                ciber.temperature
            ));
        }
        Ok(())
    }

    fn plan(&self, app: &Factdesk, options: &VerifyOptions) -> Result<Planned> {
        let settings = app.settings();
        let own = &settings.methods.ciber;
        if options.from_llm_cite
            && (options.m.is_some()
                || !options.corpora.is_empty()
                || !options.documents.is_empty()
                || !options.pages.is_empty())
        {
            return Err(CoreError::InvalidInput(
                "from_llm_cite judges the pages LLM-Cite read for each claim; leave out m, \
                 corpora, documents and pages, which choose other evidence"
                    .into(),
            ));
        }
        if options.m.is_some() && !(options.documents.is_empty() && options.pages.is_empty()) {
            return Err(CoreError::InvalidInput(
                "m (documents per claim) chooses how many documents to retrieve; with named \
                 documents or pages nothing is retrieved, so leave out m"
                    .into(),
            ));
        }
        let chat = app.model_choice();
        let config = CiberConfig {
            method: paper::CiberConfig {
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
                seed: settings.verify.seed,
                probes: paper::ProbeSets::builtin().map_err(CoreError::Internal)?.version,
            },
            corpora: options.corpora.clone(),
            named: options.documents.clone(),
            pages: options.pages.iter().map(|url| url.trim().to_owned()).collect(),
            llm_cite: options.from_llm_cite,
        };
        Planned::new(self.name(), config, RunModels { chat: Some(chat.model_name()), nli: None })
    }

    fn figures(&self, checks: &[(&ClaimCheck, Option<ClaimLabel>)]) -> Vec<Figure> {
        paper::figures(checks)
    }
}

#[async_trait]
impl PlannedMethod for CiberConfig {
    async fn check(&self, context: &CheckContext<'_>, claim: &str) -> Result<ClaimCheck> {
        let web: Arc<dyn PageSource>;
        let documents = if self.llm_cite {
            let cited = LlmCitePages::of_claim(context.app, claim)?;
            let pages = cited.urls();
            web = Arc::new(cited);
            paper::Documents::LlmCite { pages }
        } else {
            web = context.web_pages();
            if self.named.is_empty() && self.pages.is_empty() {
                paper::Documents::Retrieved
            } else {
                paper::Documents::Named { documents: self.named.clone(), pages: self.pages.clone() }
            }
        };
        let method = paper::Ciber {
            model: context.chat()?,
            prompts: context.prompts.clone(),
            probes: paper::ProbeSets::builtin().map_err(CoreError::Internal)?,
            retriever: context.corpus(&self.corpora),
            documents,
            web: Some(web),
            language: context.language(),
            config: self.method.clone(),
        };
        method.check(claim).await.map_err(method_error)
    }
}
