//! Settings of the methods that their outcomes record by name ([`crate::parameters`]): how
//! LLM-Cite asks for URLs and forms premises, how a revision gates agreement and cuts its
//! evidence, and who judges TTS's stances. Plain data, here so that an envelope's parameters
//! name them with the types the methods (in `factdesk-methods`, which re-exports them) run on.

use serde::{Deserialize, Serialize};

/// How the candidate URLs are generated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "kebab-case")]
pub enum UrlStrategy {
    Diverse,
    Controlled,
    /// Rejection sampling over the DIVERSE prompt.
    Rs,
}

impl std::str::FromStr for UrlStrategy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "diverse" => Ok(UrlStrategy::Diverse),
            "controlled" => Ok(UrlStrategy::Controlled),
            "rs" | "rejection-sampling" => Ok(UrlStrategy::Rs),
            other => {
                Err(format!("unknown URL strategy '{other}'; expected diverse, controlled or rs"))
            }
        }
    }
}

/// How premises are formed from a source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "kebab-case")]
pub enum PremiseForm {
    /// s1, s1 s2, …, s1 … sl (the paper's main method).
    Cumulative,
    /// The document itself, its first `max_chars` characters (the paper's §4.4 variant with an
    /// LLM instructed for NLI).
    WholeDocument { max_chars: usize },
}

/// Who decides whether evidence agrees with a part of the passage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
pub enum Gate {
    /// The chat model, reasoning and ending in "agrees" or "disagrees".
    Chat,
    /// The NLI verifier: agrees when some evidence unit entails the part with P(entailment)
    /// at least the revision's threshold.
    Nli,
}

impl std::str::FromStr for Gate {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "chat" | "llm" => Ok(Gate::Chat),
            "nli" | "verifier" => Ok(Gate::Nli),
            other => Err(format!("'{other}' is no agreement gate; use chat or nli")),
        }
    }
}

/// Snippets or chunks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
pub enum Granularity {
    Snippets,
    Chunks,
}

impl Granularity {
    /// Its name, as written: `snippets` or `chunks`.
    pub fn as_str(self) -> &'static str {
        match self {
            Granularity::Snippets => "snippets",
            Granularity::Chunks => "chunks",
        }
    }
}

impl std::str::FromStr for Granularity {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "snippets" | "snippet" => Ok(Granularity::Snippets),
            "chunks" | "chunk" => Ok(Granularity::Chunks),
            other => Err(format!("'{other}' is no evidence granularity; use snippets or chunks")),
        }
    }
}

/// Who judges each source's stance on a claim.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "kebab-case")]
pub enum StanceJudge {
    /// The chat model, with `tts/stances`.
    #[default]
    Chat,
    /// The NLI model (Factdesk's verifier by default), premise by premise.
    Verifier,
}

impl std::str::FromStr for StanceJudge {
    type Err = String;
    fn from_str(value: &str) -> Result<Self, Self::Err> {
        match value {
            "chat" | "llm" => Ok(StanceJudge::Chat),
            "verifier" | "nli" => Ok(StanceJudge::Verifier),
            other => Err(format!("'{other}' judges no stances: use chat or verifier")),
        }
    }
}
