//! Checking claims: one claim ([`Factdesk::verify_claim`]) or a whole collection
//! ([`Factdesk::verify_collection`]) with a method from `factdesk-methods` — LLM-Cite, P(True),
//! corpus-NLI or CIBER. Each method is one file of `methods/`, reached through the one list
//! there (what a method is: its name, options, evidence, settings section, plan and figures);
//! this module resolves the run's plan through it, gives the method its evidence ([`evidence`])
//! and the audited chat model, and stores each result with the model calls behind it. The NLI judge
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
//!
//! Besides [`config`] (the `[methods]` settings) and [`evidence`]: `plan.rs` resolves a run's plan and builds its method for
//! each claim, `nli.rs` loads the NLI judge, `notes.rs` notes the pages and dates of a check's
//! evidence, and `review.rs` reads stored checks back and records a person's review of one.

pub mod config;
pub mod evidence;
mod methods;
mod nli;
mod notes;
mod plan;
mod review;

use std::sync::Arc;

use factdesk_llm::CacheMode;
use factdesk_methods::MethodError;
use factdesk_methods::llm_cite::UrlStrategy;
use factdesk_model::{Claim, RunStatus, StoredCheck, Undecided, Verdict};
use serde::{Deserialize, Serialize};
use tokio::sync::Semaphore;

pub use crate::batch::SubjectFailure as ClaimFailure;
use crate::batch::{BatchSpec, BatchSubjects, Subject};
use crate::{CancelToken, CoreError, Factdesk, Reporter, Result};

pub use methods::{Method, MethodInfo};
pub use nli::{
    NLI_AUTO, NLI_CHOICES, NLI_LLM, NLI_VERIFIER, NliChoice, check_nli_choice, verifier_folder,
};
pub(crate) use nli::{cross_encoder_folder, language_name};

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

/// Per-run choices that override the settings; what is left out comes from `[verify]` and
/// the method's `[methods.<name>]` section. An option the chosen method does not take is an
/// error. The desktop app receives these from the UI as JSON (unknown fields are refused).
#[derive(Debug, Clone, Default, Deserialize, ts_rs::TS)]
#[serde(default, deny_unknown_fields)]
#[ts(optional_fields = nullable)]
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
    #[ts(optional = nullable)]
    pub whole_document: bool,
    /// LLM-Cite and corpus-NLI: `auto`, `factdesk-verifier`, `llm`, or
    /// `cross-encoder:<model folder>`.
    pub nli: Option<NliChoice>,
    /// corpus-NLI and CIBER: the corpora they retrieve from (all when empty).
    #[ts(optional = nullable)]
    pub corpora: Vec<String>,
    /// CIBER: judge these corpus documents instead of retrieving some.
    #[ts(optional = nullable)]
    pub documents: Vec<factdesk_model::DocumentId>,
    /// CIBER: judge these web pages (fetched, or from the archive when offline) instead of
    /// retrieving documents.
    #[ts(optional = nullable)]
    pub pages: Vec<String>,
    /// CIBER: judge the web pages the newest LLM-Cite check of each claim read (from the page
    /// archive) instead of retrieving documents.
    #[ts(optional = nullable)]
    pub from_llm_cite: bool,
    pub cache: Option<CacheMode>,
    pub concurrency: Option<usize>,
    /// Start a new run even if an unfinished one with the same identity exists.
    #[ts(optional = nullable)]
    pub restart: bool,
    /// Leave out the claims that already hold a check made with the same method
    /// configuration and models by any earlier run, finished or not.
    #[ts(optional = nullable)]
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
#[ts(optional_fields = nullable)]
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
        let run = self.create_run(&plan.identity()?, None)?;
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
        let identity = plan.identity()?;
        let spec = BatchSpec {
            collection,
            subjects: BatchSubjects::Claims,
            identity: &identity,
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
            method: identity.method.clone(),
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
}
