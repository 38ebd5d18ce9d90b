//! Corpus-NLI: sentences retrieved from the local corpora, judged against the claim by the NLI
//! judge. Its `[methods.corpus-nli]` section, its run configuration and how a check is built
//! from it.

use async_trait::async_trait;
use factdesk_methods::corpus_nli as paper;
use factdesk_methods::figures::Figure;
use factdesk_methods::llm_cite::model_name;
use factdesk_model::{ClaimCheck, ClaimLabel};
use serde::{Deserialize, Serialize};

use super::{CheckContext, Method, Planned, PlannedMethod, VerdictMethod, at_least_one, nonzero};
use crate::verify::config::{MethodsSettings, RunModels, check_threshold, judged_by_llm};
use crate::verify::evidence::Evidence;
use crate::verify::{VerifyOptions, method_error};
use crate::{Factdesk, Result};

/// `[methods.corpus-nli]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct CorpusNliSettings {
    pub documents: usize,
    pub l: usize,
    pub retrieve: usize,
    pub threshold: f64,
}

/// Corpus-NLI as a run runs it: the method's own configuration, the corpora its evidence comes
/// from, and the NLI judge's samples when the chat model judges.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CorpusNliConfig {
    #[serde(flatten)]
    pub method: paper::CorpusNliConfig,
    /// The corpora searched (all when empty).
    pub corpora: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nli_samples: Option<u32>,
}

pub(super) struct CorpusNli;

impl VerdictMethod for CorpusNli {
    fn method(&self) -> Method {
        Method::CorpusNli
    }

    fn name(&self) -> &'static str {
        paper::METHOD
    }

    fn short_name(&self) -> &'static str {
        "Corpus NLI"
    }

    fn title(&self) -> &'static str {
        "Corpus NLI (your corpora)"
    }

    fn hint(&self) -> &'static str {
        "Sentences found in your imported documents are judged against the claim with NLI; works offline."
    }

    fn options(&self) -> &'static [&'static str] {
        &["m", "l", "threshold", "nli", "corpora"]
    }

    fn evidence(&self) -> Evidence {
        Evidence::Corpus
    }

    fn validate(&self, settings: &MethodsSettings) -> std::result::Result<(), String> {
        let own = &settings.corpus_nli;
        nonzero(&[
            ("methods.corpus-nli.documents", own.documents as u64),
            ("methods.corpus-nli.l", own.l as u64),
            ("methods.corpus-nli.retrieve", own.retrieve as u64),
        ])?;
        check_threshold(own.threshold)
            .map_err(|message| format!("`methods.corpus-nli.threshold`: {message}"))
    }

    fn plan(&self, app: &Factdesk, options: &VerifyOptions) -> Result<Planned> {
        let settings = app.settings();
        let own = &settings.methods.corpus_nli;
        let chat = app.model_choice();
        let nli = app.nli_choice(options, &chat)?;
        let nli_samples = judged_by_llm(&nli, settings.verify.nli_samples);
        let config = CorpusNliConfig {
            method: paper::CorpusNliConfig {
                documents: at_least_one("m", options.m.unwrap_or(own.documents))?,
                l: at_least_one("l", options.l.unwrap_or(own.l))?,
                retrieve: own.retrieve.max(1),
                threshold: super::threshold(options, own.threshold)?,
            },
            corpora: options.corpora.clone(),
            nli_samples,
        };
        // The chat model is asked only when it is the judge.
        let models =
            RunModels { chat: nli_samples.is_some().then(|| chat.model_name()), nli: Some(nli) };
        Planned::new(self.name(), config, models)
    }

    fn figures(&self, checks: &[(&ClaimCheck, Option<ClaimLabel>)]) -> Vec<Figure> {
        let plain: Vec<&ClaimCheck> = checks.iter().map(|(check, _)| *check).collect();
        paper::figures(&plain)
    }
}

#[async_trait]
impl PlannedMethod for CorpusNliConfig {
    async fn check(&self, context: &CheckContext<'_>, claim: &str) -> Result<ClaimCheck> {
        // The chat model is asked only when it judges; otherwise the judge is what the check
        // names as its model.
        let mut asked = None;
        let nli = context.nli(|| {
            let model = context.chat()?;
            asked = Some(model_name(&*model));
            Ok(model)
        })?;
        let model = asked.unwrap_or_else(|| nli.name());
        let method = paper::CorpusNli {
            retriever: context.corpus(&self.corpora),
            nli,
            model,
            config: self.method.clone(),
            language: context.language(),
        };
        method.check(claim).await.map_err(method_error)
    }
}
