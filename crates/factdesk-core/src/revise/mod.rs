//! Correcting passages with RARR or CoVe (`factdesk-methods` `revise`): one text
//! ([`Factdesk::revise_text`]), one stored passage ([`Factdesk::revise_passage`]) or every
//! passage of a collection ([`Factdesk::revise_collection`], through the resumable batch
//! runner). This module resolves a run's configuration from `[methods.rarr]` / `[methods.cove]`
//! and the options, builds the evidence (the corpus search, the passage's source documents,
//! or none), the audited chat model and, for the NLI gate, the judge `verify.nli` names; it
//! measures each revision ([`RevisionMetrics`]: edit distance, MiniLM similarity, the
//! verifier's entailment by the source documents) and stores it with the model calls behind
//! it. The original passage is part of every stored revision and is never changed.
//!
//! `mod.rs` holds the options and a run's plan and identity (the settings section,
//! [`ReviseSettings`], is with every method's in `verify/config.rs`); `methods/` is the seam
//! each revision method goes through (its name, section, plan and run, and the one list of
//! them); `run.rs` revises and measures (one text, one passage, a collection); `review.rs`
//! reads revisions back with people's decisions on their edits and gives a collection's
//! figures.

mod methods;
#[cfg(test)]
mod resume_tests;
mod review;
mod run;

pub use methods::{Choice, ReviseMethod, RevisionChoices, RevisionMethodInfo, validate_sections};
pub use review::{ReviewedRevision, RevisionEvaluation};

use factdesk_llm::CacheMode;
use factdesk_methods::revise::evidence::Granularity;
use factdesk_methods::revise::{Gate, ReviseConfig};
use factdesk_model::{DocumentId, RunId};
use serde::Serialize;

use crate::Result;
use crate::batch::SubjectFailure;
use crate::identity::{RunIdentity, RunModels};
use crate::verify::config::parse_evidence;
pub use crate::verify::config::{EvidenceChoice, ReviseSettings};

/// The options of one revision run; what is not given comes from the method's section.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReviseOptions {
    pub evidence: Option<EvidenceChoice>,
    pub granularity: Option<Granularity>,
    pub gate: Option<Gate>,
    /// The corpora searched for corpus evidence (all when empty).
    pub corpora: Vec<String>,
    /// The source documents of an ad-hoc text.
    pub sources: Vec<DocumentId>,
    /// A reference text the revision is measured against (an ad-hoc text only).
    pub reference: Option<String>,
    pub restart: bool,
    pub concurrency: Option<usize>,
    pub cache: Option<CacheMode>,
    /// Leave out the metrics (they load MiniLM and the verifier and judge the sources).
    pub skip_metrics: bool,
    /// Also ask the chat model to score the original and the revision against the sources
    /// (overall, factuality, relevance, 1–5; G-Eval style).
    pub judge: bool,
}

/// A run's resolved configuration (a method's `RevisionMethod::plan`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RevisePlan {
    method: ReviseMethod,
    config: ReviseConfig,
    evidence: EvidenceChoice,
    granularity: Granularity,
    corpora: Vec<String>,
    chat: String,
    /// The NLI judge, with the NLI gate.
    nli: Option<String>,
    /// With web evidence, how URLs are proposed (LLM-Cite's URL step).
    web: Option<factdesk_methods::llm_cite::LlmCiteConfig>,
    /// Whether the chat model judges each revision.
    judge: bool,
}

impl RevisePlan {
    /// The run's identity: the method's name, its configuration and the models it asks. Every
    /// field of [`ReviseConfig`] is in it (serialised, so a field added later cannot be left
    /// out), with the run's evidence and judging.
    fn identity(&self) -> Result<RunIdentity> {
        let models = RunModels { chat: Some(self.chat.clone()), nli: self.nli.clone() };
        let mut identity = RunIdentity::new(self.method.as_str(), &self.config, models)?;
        if let Some(fields) = identity.config.as_object_mut() {
            fields.insert("evidence".into(), serde_json::json!(self.evidence));
            fields.insert("granularity".into(), serde_json::json!(self.granularity));
            fields.insert("corpora".into(), serde_json::json!(self.corpora));
            fields.insert("web".into(), serde_json::json!(self.web));
            fields.insert("judge".into(), serde_json::json!(self.judge));
        }
        Ok(identity)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_identity_holds_every_config_field_and_reads_as_before() {
        let plan = RevisePlan {
            method: "rarr".parse().unwrap(),
            config: ReviseConfig::default(),
            evidence: EvidenceChoice::Corpus,
            granularity: Granularity::Snippets,
            corpora: vec!["news".into()],
            chat: "embedded:smollm2".into(),
            nli: Some("cross-encoder:verifier".into()),
            web: None,
            judge: false,
        };
        // The identity runs stored before it was derived from the config: they still resume.
        let before = serde_json::json!({
            "method": "rarr",
            "config": {
                "questions": 3, "max_growth": 1.5, "max_chars": 20_000, "gate": plan.config.gate,
                "threshold": 0.5, "evidence_words": 200, "language": "en", "seed": 0,
                "evidence": plan.evidence, "granularity": plan.granularity,
                "corpora": ["news"], "web": null, "judge": false,
            },
            "models": {"chat": "embedded:smollm2", "nli": "cross-encoder:verifier"},
        });
        assert_eq!(plan.identity().unwrap().to_json(), before);
        // Every field of the method's configuration is there.
        let fields = serde_json::to_value(ReviseConfig::default()).unwrap();
        let identity = plan.identity().unwrap().to_json();
        for field in fields.as_object().unwrap().keys() {
            assert!(identity["config"].get(field).is_some(), "{field} is left out");
        }
    }
}

/// What a collection revision run did.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct ReviseSummary {
    pub run_id: RunId,
    pub collection: String,
    pub method: String,
    pub resumed: bool,
    pub passages: usize,
    pub already_revised: usize,
    pub elsewhere: usize,
    pub revised: usize,
    /// Of those revised, the ones the method changed.
    pub changed: usize,
    pub failed: usize,
    pub cancelled: bool,
    pub failures: Vec<SubjectFailure>,
}
