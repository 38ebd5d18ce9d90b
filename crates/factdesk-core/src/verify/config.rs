//! The `[methods]` settings (one section per method, checked when the settings load) and what
//! a run's identity is made of. A verdict method's own section type and run configuration live
//! in its file of `methods/`, which checks the section and resolves the configuration from it
//! and the per-run options; they are re-exported here. That configuration, with the models that
//! answer, is the run's identity: what a resumed batch must match, and what `skip_checked`
//! compares. A method's identity holds only what changes its results, so a setting of another
//! method, or a field a new method adds, leaves it alone.

use factdesk_methods::revise::Gate;
use factdesk_methods::revise::evidence::Granularity;
use serde::{Deserialize, Serialize};

use super::NLI_LLM;
pub use super::methods::{
    CiberConfig, CiberSettings, CorpusNliConfig, CorpusNliSettings, LlmCiteConfig, LlmCiteSettings,
    MethodsSettings, PTrueConfig, PTrueSettings,
};
use crate::CoreError;

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

pub(crate) fn check_threshold(threshold: f64) -> Result<(), String> {
    if (0.0..=1.0).contains(&threshold) {
        Ok(())
    } else {
        Err(format!("the entailment threshold {threshold} is not between 0 and 1"))
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

    /// Every section checked, the verdict methods' and the revision methods'.
    fn validate(methods: &MethodsSettings) -> Result<(), String> {
        methods.validate().and_then(|()| crate::revise::validate_sections(methods))
    }

    #[test]
    fn the_shipped_sections_are_valid() {
        validate(&settings()).unwrap();
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
            let message = validate(&methods).unwrap_err();
            assert!(message.contains(key), "{key}: {message}");
        }
    }

    /// The identity of a run planned with `config`, built as a run builds it.
    fn planned_identity(
        method: super::super::Method,
        config: impl super::super::methods::PlannedMethod + Serialize + 'static,
        models: RunModels,
    ) -> RunIdentity {
        let planned = super::super::methods::Planned::new(method.as_str(), config, models).unwrap();
        let plan = super::super::plan::Plan {
            method,
            run: planned.run,
            config: planned.config,
            models: planned.models,
        };
        plan.identity().unwrap()
    }

    #[test]
    fn an_identity_holds_only_what_its_method_uses() {
        use super::super::Method;
        let identity = planned_identity(
            Method::PTrue,
            PTrueConfig { samples: 5, seed: 0 },
            RunModels { chat: Some("smollm2".into()), nli: None },
        );
        assert_eq!(
            identity.to_json(),
            serde_json::json!({
                "method": "p-true",
                "config": {"samples": 5, "seed": 0},
                "models": {"chat": "smollm2"},
            })
        );
        let corpus = planned_identity(
            Method::CorpusNli,
            CorpusNliConfig {
                method: factdesk_methods::corpus_nli::CorpusNliConfig {
                    documents: 1,
                    l: 4,
                    retrieve: 50,
                    threshold: 0.5,
                },
                corpora: vec!["demo".into()],
                nli_samples: None,
            },
            RunModels { chat: None, nli: Some("factdesk-verifier".into()) },
        );
        assert_eq!(corpus.model_label(), Some("factdesk-verifier"));
        assert_eq!(
            corpus.to_json()["config"],
            serde_json::json!({"documents": 1, "l": 4, "retrieve": 50, "threshold": 0.5, "corpora": ["demo"]})
        );
    }
}
