//! Each method's settings section (`[methods.<name>]`, checked when the settings load) and the
//! configuration a run resolves from it and from the per-run options. That configuration, with
//! the models that answer, is the run's identity: what a resumed batch must match, and what
//! `skip_checked` compares. A method's identity holds only what changes its results, so a
//! setting of another method, or a field a new method adds, leaves it alone.

use factdesk_methods::judge::PremiseForm;
use factdesk_methods::llm_cite::{self, UrlStrategy};
use factdesk_methods::revise::Gate;
use factdesk_methods::revise::evidence::Granularity;
use factdesk_methods::{ciber, corpus_nli};
use factdesk_model::DocumentId;
use factdesk_model::ciber::{FusionRule, ProbeMode};
use serde::{Deserialize, Serialize};

use super::{Method, NLI_LLM};
use crate::CoreError;

/// `[methods]`: one section per method.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct MethodsSettings {
    #[serde(rename = "llm-cite")]
    pub llm_cite: LlmCiteSettings,
    #[serde(rename = "p-true")]
    pub p_true: PTrueSettings,
    #[serde(rename = "corpus-nli")]
    pub corpus_nli: CorpusNliSettings,
    pub ciber: CiberSettings,
    /// RARR (revises passages; `factdesk revise --method rarr`).
    pub rarr: ReviseSettings,
    /// CoVe (revises passages; `factdesk revise --method cove`).
    pub cove: ReviseSettings,
}

/// `[methods.rarr]` and `[methods.cove]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct ReviseSettings {
    /// `auto` (the passage's source documents when it has some, else the corpus), `corpus`,
    /// `source`, `web` (pages the chat model proposes, as LLM-Cite's URL step with
    /// `[methods.llm-cite]`'s `urls` and `m`) or `none` (the model's own knowledge).
    pub evidence: String,
    /// `snippets` or `chunks`.
    pub granularity: String,
    /// `auto` (the NLI judge with the embedded chat model, the chat model with a server),
    /// `chat` or `nli`.
    pub gate: String,
    /// RARR: searches per sentence; CoVe: verification questions per passage.
    pub questions: usize,
    pub max_growth: f64,
    pub threshold: f64,
    pub evidence_words: usize,
    pub max_chars: usize,
}

impl ReviseSettings {
    /// The first setting of section `key` that no run could use, as a message naming it.
    pub fn validate(&self, key: &str) -> std::result::Result<(), String> {
        parse_evidence(&self.evidence).map_err(|message| format!("`{key}.evidence`: {message}"))?;
        self.granularity
            .parse::<Granularity>()
            .map_err(|message| format!("`{key}.granularity`: {message}"))?;
        if self.gate.trim() != "auto" {
            self.gate.parse::<Gate>().map_err(|message| format!("`{key}.gate`: {message}"))?;
        }
        for (name, value) in [
            ("questions", self.questions),
            ("evidence_words", self.evidence_words),
            ("max_chars", self.max_chars),
        ] {
            if value == 0 {
                return Err(format!("`{key}.{name}` must be at least 1"));
            }
        }
        if !(self.max_growth.is_finite() && self.max_growth >= 1.0) {
            return Err(format!(
                "`{key}.max_growth` is {}; it must be 1 or more (the revision may be at most \
                 that many times as long as the passage)",
                self.max_growth
            ));
        }
        check_threshold(self.threshold).map_err(|message| format!("`{key}.threshold`: {message}"))
    }
}

/// Where a revision's evidence comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
pub enum EvidenceChoice {
    /// The passage's source documents when it has some, else the corpus.
    Auto,
    Corpus,
    Source,
    /// Web pages the chat model proposes for each query (LLM-Cite's URL step), fetched.
    Web,
    None,
}

pub(crate) fn parse_evidence(value: &str) -> std::result::Result<EvidenceChoice, String> {
    match value.trim().to_ascii_lowercase().as_str() {
        "auto" => Ok(EvidenceChoice::Auto),
        "corpus" => Ok(EvidenceChoice::Corpus),
        "source" | "sources" => Ok(EvidenceChoice::Source),
        "none" => Ok(EvidenceChoice::None),
        "web" => Ok(EvidenceChoice::Web),
        other => {
            Err(format!("'{other}' is no evidence source; use auto, corpus, source, web or none"))
        }
    }
}

impl std::str::FromStr for EvidenceChoice {
    type Err = CoreError;
    fn from_str(s: &str) -> crate::Result<Self> {
        parse_evidence(s).map_err(CoreError::InvalidInput)
    }
}

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

/// `[methods.p-true]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct PTrueSettings {
    pub samples: u32,
}

/// `[methods.corpus-nli]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct CorpusNliSettings {
    pub documents: usize,
    pub l: usize,
    pub retrieve: usize,
    pub threshold: f64,
}

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
    pub(crate) fn probe_mode(&self) -> Result<ProbeMode, String> {
        match self.mode.trim() {
            "exact" => Ok(ProbeMode::Exact),
            "sampling" => Ok(ProbeMode::Sampling),
            other => Err(format!("`methods.ciber.mode` is '{other}'; expected exact or sampling")),
        }
    }

    pub(crate) fn fusion_rule(&self) -> Result<FusionRule, String> {
        self.rule.parse().map_err(|_| {
            format!("`methods.ciber.rule` is '{}'; expected wp, wig, wbu or meta", self.rule)
        })
    }
}

impl MethodsSettings {
    /// The first setting that no run could use, as a message naming its key.
    pub fn validate(&self) -> Result<(), String> {
        let llm_cite = &self.llm_cite;
        llm_cite
            .urls
            .parse::<UrlStrategy>()
            .map_err(|message| format!("`methods.llm-cite.urls`: {message}"))?;
        premise_form(&llm_cite.premises, llm_cite.document_chars)?;
        let corpus = &self.corpus_nli;
        let at_least_one = [
            ("methods.llm-cite.m", llm_cite.m as u64),
            ("methods.llm-cite.r", u64::from(llm_cite.r)),
            ("methods.llm-cite.l", llm_cite.l as u64),
            ("methods.llm-cite.document_chars", llm_cite.document_chars as u64),
            ("methods.p-true.samples", u64::from(self.p_true.samples)),
            ("methods.corpus-nli.documents", corpus.documents as u64),
            ("methods.corpus-nli.l", corpus.l as u64),
            ("methods.corpus-nli.retrieve", corpus.retrieve as u64),
            ("methods.ciber.documents", self.ciber.documents as u64),
            ("methods.ciber.retrieve", self.ciber.retrieve as u64),
            ("methods.ciber.document_words", self.ciber.document_words as u64),
            ("methods.ciber.samples", u64::from(self.ciber.samples)),
        ];
        for (key, value) in at_least_one {
            if value == 0 {
                return Err(format!("`{key}` must be at least 1"));
            }
        }
        for (key, value) in [
            ("methods.llm-cite.threshold", llm_cite.threshold),
            ("methods.corpus-nli.threshold", corpus.threshold),
        ] {
            check_threshold(value).map_err(|message| format!("`{key}`: {message}"))?;
        }
        let ciber = &self.ciber;
        ciber.probe_mode()?;
        ciber.fusion_rule()?;
        let probes = ciber::ProbeSets::builtin()?;
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
        self.rarr.validate("methods.rarr")?;
        self.cove.validate("methods.cove")?;
        if !(llm_cite.temperature.is_finite() && llm_cite.temperature >= 0.0) {
            return Err(format!(
                "`methods.llm-cite.temperature` is {}; it must be 0 or more",
                llm_cite.temperature
            ));
        }
        Ok(())
    }
}

/// The premise form a `premises` setting names.
pub(crate) fn premise_form(premises: &str, document_chars: usize) -> Result<PremiseForm, String> {
    match premises.trim() {
        "cumulative" => Ok(PremiseForm::Cumulative),
        "whole-document" => Ok(PremiseForm::WholeDocument { max_chars: document_chars.max(1) }),
        other => Err(format!(
            "`methods.llm-cite.premises` is '{other}'; expected cumulative or whole-document"
        )),
    }
}

pub(crate) fn check_threshold(threshold: f64) -> Result<(), String> {
    if (0.0..=1.0).contains(&threshold) {
        Ok(())
    } else {
        Err(format!("the entailment threshold {threshold} is not between 0 and 1"))
    }
}

/// LLM-Cite as a run runs it: the method's own configuration, and the NLI judge's samples
/// when the chat model judges (`nli = "llm"`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LlmCiteConfig {
    #[serde(flatten)]
    pub method: llm_cite::LlmCiteConfig,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nli_samples: Option<u32>,
}

/// P(True) as a run runs it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PTrueConfig {
    pub samples: u32,
    pub seed: u64,
}

/// Corpus-NLI as a run runs it: the method's own configuration, the corpora its evidence comes
/// from, and the NLI judge's samples when the chat model judges.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CorpusNliConfig {
    #[serde(flatten)]
    pub method: corpus_nli::CorpusNliConfig,
    /// The corpora searched (all when empty).
    pub corpora: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nli_samples: Option<u32>,
}

/// CIBER as a run runs it: the method's own configuration, the corpora its documents come
/// from, and the documents and web pages a person named, or the choice of the pages LLM-Cite
/// read for each claim (judged instead of retrieved ones).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CiberConfig {
    #[serde(flatten)]
    pub method: ciber::CiberConfig,
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

/// One method's configuration for a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum MethodConfig {
    LlmCite(LlmCiteConfig),
    PTrue(PTrueConfig),
    CorpusNli(CorpusNliConfig),
    Ciber(CiberConfig),
}

impl MethodConfig {
    /// The identity of a run of this configuration asking `models`.
    pub fn identity(&self, models: RunModels) -> crate::Result<RunIdentity> {
        RunIdentity::new(self.method().as_str(), self, models)
    }

    pub fn method(&self) -> Method {
        match self {
            MethodConfig::LlmCite(_) => Method::LlmCite,
            MethodConfig::PTrue(_) => Method::PTrue,
            MethodConfig::CorpusNli(_) => Method::CorpusNli,
            MethodConfig::Ciber(_) => Method::Ciber,
        }
    }
}

pub use crate::identity::{RunIdentity, RunModels};

/// The NLI judge's samples when it is the chat model.
pub(crate) fn judged_by_llm(nli: &str, samples: u32) -> Option<u32> {
    (nli == NLI_LLM).then_some(samples.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> MethodsSettings {
        crate::Settings::default().methods
    }

    #[test]
    fn the_shipped_sections_are_valid() {
        settings().validate().unwrap();
    }

    #[test]
    fn a_bad_method_setting_names_its_key() {
        type Change = fn(&mut MethodsSettings);
        let cases: [(Change, &str); 17] = [
            (|s| s.rarr.evidence = "pages".into(), "methods.rarr.evidence"),
            (|s| s.rarr.granularity = "pages".into(), "methods.rarr.granularity"),
            (|s| s.cove.gate = "vote".into(), "methods.cove.gate"),
            (|s| s.cove.max_growth = 0.5, "methods.cove.max_growth"),
            (|s| s.llm_cite.urls = "random".into(), "methods.llm-cite.urls"),
            (|s| s.llm_cite.premises = "sentences".into(), "methods.llm-cite.premises"),
            (|s| s.corpus_nli.documents = 0, "methods.corpus-nli.documents"),
            (|s| s.corpus_nli.threshold = 1.5, "methods.corpus-nli.threshold"),
            (|s| s.p_true.samples = 0, "methods.p-true.samples"),
            (|s| s.ciber.mode = "greedy".into(), "methods.ciber.mode"),
            (|s| s.ciber.rule = "vote".into(), "methods.ciber.rule"),
            (|s| s.ciber.agree = 9, "methods.ciber.agree"),
            (|s| s.ciber.conflict = 0, "methods.ciber.conflict"),
            (|s| s.ciber.alpha = 1.5, "methods.ciber.alpha"),
            (|s| s.ciber.temperature = 0.0, "methods.ciber.temperature"),
            (|s| s.ciber.samples = 0, "methods.ciber.samples"),
            (|s| s.ciber.retrieve = 2, "methods.ciber.retrieve"),
        ];
        for (change, key) in cases {
            let mut methods = settings();
            change(&mut methods);
            let message = methods.validate().unwrap_err();
            assert!(message.contains(key), "{key}: {message}");
        }
    }

    #[test]
    fn an_identity_holds_only_what_its_method_uses() {
        let identity = MethodConfig::PTrue(PTrueConfig { samples: 5, seed: 0 })
            .identity(RunModels { chat: Some("smollm2".into()), nli: None })
            .unwrap();
        assert_eq!(
            identity.to_json(),
            serde_json::json!({
                "method": "p-true",
                "config": {"samples": 5, "seed": 0},
                "models": {"chat": "smollm2"},
            })
        );
        let corpus = MethodConfig::CorpusNli(CorpusNliConfig {
            method: corpus_nli::CorpusNliConfig {
                documents: 1,
                l: 4,
                retrieve: 50,
                threshold: 0.5,
            },
            corpora: vec!["demo".into()],
            nli_samples: None,
        })
        .identity(RunModels { chat: None, nli: Some("factdesk-verifier".into()) })
        .unwrap();
        assert_eq!(corpus.model_label(), Some("factdesk-verifier"));
        assert_eq!(
            corpus.to_json()["config"],
            serde_json::json!({"documents": 1, "l": 4, "retrieve": 50, "threshold": 0.5, "corpora": ["demo"]})
        );
    }
}
