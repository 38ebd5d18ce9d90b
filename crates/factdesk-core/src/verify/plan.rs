//! A run's plan: the chosen method's configuration and models, resolved by the method
//! ([`super::methods::VerdictMethod::plan`]) from the settings and the per-run options, and the
//! plan's method run on one claim.

use std::path::PathBuf;
use std::sync::Arc;

use factdesk_llm::{CacheMode, CallCollector};
use factdesk_methods::prompts;
use factdesk_model::ClaimCheck;
use tokio::sync::Semaphore;

use super::config::RunModels;
use super::methods::{CheckContext, Planned, PlannedMethod};
use super::{Method, VerifyOptions, cross_encoder_folder};
use crate::identity::RunIdentity;
use crate::{CoreError, Factdesk, Result};

/// The method configuration of a run and the models it asks, resolved from settings and
/// options; with the method's name, they are the run's identity.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    pub(crate) method: Method,
    /// The configuration, to run.
    pub(crate) run: Arc<dyn PlannedMethod>,
    /// The configuration serialised whole, for the run's identity.
    pub(crate) config: serde_json::Value,
    pub(crate) models: RunModels,
}

impl Plan {
    pub(super) fn identity(&self) -> Result<RunIdentity> {
        RunIdentity::new(self.method.as_str(), &self.config, self.models.clone())
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
        let method = match options.method {
            Some(method) => method,
            None => self.settings().verify.method.parse()?,
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
        let Planned { run, config, models } = method.seam().plan(self, options)?;
        Ok(Plan { method, run, config, models })
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
        let context = CheckContext {
            app: self,
            plan,
            run,
            cache,
            collector: CallCollector::default(),
            prompts: Arc::new(prompts::builtin_library()?),
            fetch_permits,
        };
        let mut check = plan.run.check(&context, claim).await?;
        // The check is made: pages are a note on it, and a failure to read them loses none of it.
        if let Err(error) = self.mark_pages(&mut check) {
            tracing::warn!(%error, "could not note the pages of the evidence");
        }
        if let Err(error) = self.mark_dates(&mut check) {
            tracing::warn!(%error, "could not note the dates of the evidence");
        }
        Ok((check, context.collector.ids()))
    }
}
