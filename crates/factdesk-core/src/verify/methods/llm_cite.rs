//! LLM-Cite (the chat model proposes web pages; the NLI judge reads their best sentences against
//! the claim): its `[methods.llm-cite]` section, its run configuration and how a check is built
//! from it.

use async_trait::async_trait;
use factdesk_methods::figures::Figure;
use factdesk_methods::judge::PremiseForm;
use factdesk_methods::llm_cite::{self as paper, UrlStrategy};
use factdesk_model::{ClaimCheck, ClaimLabel};
use serde::{Deserialize, Serialize};

use super::{CheckContext, Method, Planned, PlannedMethod, VerdictMethod, at_least_one, nonzero};
use crate::verify::config::{MethodsSettings, RunModels, check_threshold, judged_by_llm};
use crate::verify::evidence::Evidence;
use crate::verify::{NLI_LLM, VerifyOptions, method_error};
use crate::{CoreError, Factdesk, Result};

/// `[methods.llm-cite]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct LlmCiteSettings {
    /// `diverse`, `controlled` or `rs`.
    pub urls: String,
    pub m: usize,
    pub r: u32,
    pub temperature: f32,
    pub l: usize,
    pub threshold: f64,
    /// `cumulative` or `whole-document`.
    pub premises: String,
    pub document_chars: usize,
}

/// LLM-Cite as a run runs it: the method's own configuration, and the NLI judge's samples
/// when the chat model judges (`nli = "llm"`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LlmCiteConfig {
    #[serde(flatten)]
    pub method: paper::LlmCiteConfig,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nli_samples: Option<u32>,
}

/// The premise form a `premises` setting names.
pub(crate) fn premise_form(
    premises: &str,
    document_chars: usize,
) -> std::result::Result<PremiseForm, String> {
    match premises.trim() {
        "cumulative" => Ok(PremiseForm::Cumulative),
        "whole-document" => Ok(PremiseForm::WholeDocument { max_chars: document_chars.max(1) }),
        other => Err(format!(
            "`methods.llm-cite.premises` is '{other}'; expected cumulative or whole-document"
        )),
    }
}

pub(super) struct LlmCite;

impl VerdictMethod for LlmCite {
    fn method(&self) -> Method {
        Method::LlmCite
    }

    fn name(&self) -> &'static str {
        paper::METHOD
    }

    fn short_name(&self) -> &'static str {
        "LLM-Cite"
    }

    fn title(&self) -> &'static str {
        "LLM-Cite (Wikipedia pages)"
    }

    fn hint(&self) -> &'static str {
        "The model proposes Wikipedia articles; their best sentences are judged against the claim with NLI."
    }

    fn options(&self) -> &'static [&'static str] {
        &["urls", "m", "l", "r", "temperature", "threshold", "whole_document", "nli"]
    }

    fn evidence(&self) -> Evidence {
        Evidence::WebPages
    }

    fn validate(&self, settings: &MethodsSettings) -> std::result::Result<(), String> {
        let own = &settings.llm_cite;
        own.urls
            .parse::<UrlStrategy>()
            .map_err(|message| format!("`methods.llm-cite.urls`: {message}"))?;
        premise_form(&own.premises, own.document_chars)?;
        nonzero(&[
            ("methods.llm-cite.m", own.m as u64),
            ("methods.llm-cite.r", u64::from(own.r)),
            ("methods.llm-cite.l", own.l as u64),
            ("methods.llm-cite.document_chars", own.document_chars as u64),
        ])?;
        check_threshold(own.threshold)
            .map_err(|message| format!("`methods.llm-cite.threshold`: {message}"))?;
        if !(own.temperature.is_finite() && own.temperature >= 0.0) {
            return Err(format!(
                "`methods.llm-cite.temperature` is {}; it must be 0 or more",
                own.temperature
            ));
        }
        Ok(())
    }

    fn plan(&self, app: &Factdesk, options: &VerifyOptions) -> Result<Planned> {
        let settings = app.settings();
        let own = &settings.methods.llm_cite;
        let urls = match options.urls {
            Some(urls) => urls,
            None => own.urls.parse().map_err(CoreError::InvalidInput)?,
        };
        let premises = if options.whole_document {
            PremiseForm::WholeDocument { max_chars: own.document_chars.max(1) }
        } else {
            premise_form(&own.premises, own.document_chars).map_err(CoreError::InvalidInput)?
        };
        let chat = app.model_choice();
        // The paper's whole-document variant is LLM-instructed NLI.
        let nli = if matches!(premises, PremiseForm::WholeDocument { .. }) {
            NLI_LLM.to_owned()
        } else {
            app.nli_choice(options, &chat)?
        };
        let config = LlmCiteConfig {
            method: paper::LlmCiteConfig {
                strategy: urls,
                m: at_least_one("m", options.m.unwrap_or(own.m))?,
                r: options.r.unwrap_or(own.r).max(1),
                temperature: options.temperature.unwrap_or(own.temperature),
                l: at_least_one("l", options.l.unwrap_or(own.l))?,
                threshold: super::threshold(options, own.threshold)?,
                premises,
                language: settings.import.language.clone(),
                seed: settings.verify.seed,
            },
            nli_samples: judged_by_llm(&nli, settings.verify.nli_samples),
        };
        Planned::new(
            self.name(),
            config,
            RunModels { chat: Some(chat.model_name()), nli: Some(nli) },
        )
    }

    fn figures(&self, checks: &[(&ClaimCheck, Option<ClaimLabel>)]) -> Vec<Figure> {
        let plain: Vec<&ClaimCheck> = checks.iter().map(|(check, _)| *check).collect();
        paper::figures(&plain)
    }
}

#[async_trait]
impl PlannedMethod for LlmCiteConfig {
    async fn check(&self, context: &CheckContext<'_>, claim: &str) -> Result<ClaimCheck> {
        let model = context.chat()?;
        let method = paper::LlmCite {
            model: model.clone(),
            nli: context.nli(|| Ok(model.clone()))?,
            prompts: context.prompts.clone(),
            pages: context.web_pages(),
            config: self.method.clone(),
        };
        method.check(claim).await.map_err(method_error)
    }
}
