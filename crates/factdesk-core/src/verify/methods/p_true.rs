//! P(True): the chat model judges the claim from what it learned, with no evidence. Its
//! `[methods.p-true]` section, its run configuration and how a check is built from it.

use async_trait::async_trait;
use factdesk_methods::p_true as paper;
use factdesk_model::ClaimCheck;
use serde::{Deserialize, Serialize};

use super::{CheckContext, Method, Planned, PlannedMethod, VerdictMethod, nonzero};
use crate::verify::config::{MethodsSettings, RunModels};
use crate::verify::evidence::Evidence;
use crate::verify::{VerifyOptions, method_error};
use crate::{Factdesk, Result};

/// `[methods.p-true]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct PTrueSettings {
    pub samples: u32,
}

/// P(True) as a run runs it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PTrueConfig {
    pub samples: u32,
    pub seed: u64,
}

pub(super) struct PTrue;

impl VerdictMethod for PTrue {
    fn method(&self) -> Method {
        Method::PTrue
    }

    fn name(&self) -> &'static str {
        paper::METHOD
    }

    fn short_name(&self) -> &'static str {
        "P(True)"
    }

    fn title(&self) -> &'static str {
        "P(True) (the model alone)"
    }

    fn hint(&self) -> &'static str {
        "The model judges the claim from what it knows, with no evidence to show for it."
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["ptrue"]
    }

    fn options(&self) -> &'static [&'static str] {
        &[]
    }

    fn evidence(&self) -> Evidence {
        Evidence::None
    }

    fn validate(&self, settings: &MethodsSettings) -> std::result::Result<(), String> {
        nonzero(&[("methods.p-true.samples", u64::from(settings.p_true.samples))])
    }

    fn plan(&self, app: &Factdesk, _options: &VerifyOptions) -> Result<Planned> {
        let settings = app.settings();
        let config = PTrueConfig {
            samples: settings.methods.p_true.samples.max(1),
            seed: settings.verify.seed,
        };
        let models = RunModels { chat: Some(app.model_choice().model_name()), nli: None };
        Planned::new(self.name(), config, models)
    }
}

#[async_trait]
impl PlannedMethod for PTrueConfig {
    async fn check(&self, context: &CheckContext<'_>, claim: &str) -> Result<ClaimCheck> {
        let method = paper::PTrue {
            model: context.chat()?,
            prompts: context.prompts.clone(),
            samples: self.samples,
            seed: self.seed,
        };
        method.check(claim).await.map_err(method_error)
    }
}
