//! What an outcome records of the settings its method ran with ([`MethodParameters`], the
//! envelope's `parameters`), one struct per method's shape.
//!
//! A stored envelope names no kind of parameters: each method wrote its own JSON object beside
//! `method`, so the shape is read by its fields (untagged, the variants tried in order, each
//! requiring the fields every body of its method holds; those some bodies lack, such as the
//! stance settings of summaries stored before they existed, are optional and stay absent when
//! written back). A field a variant does not name is kept in its `other` map and written back;
//! a body no variant describes (the test-only toy verifier's, or a shape of a method this
//! version does not know) is kept whole as [`MethodParameters::Other`]. Written, the
//! parameters are one JSON object with its keys in alphabetical order, as the `serde_json`
//! values the methods wrote before were, so the bodies the methods write (and wrote before)
//! read and write back byte for byte. Other bodies a variant reads may be normalised: a
//! revision's `granularity` is written (null) when it was absent, its `gate` and a summary's
//! `stance_judge` are left out when they were null, and a whole number where a variant holds
//! a fraction (`p_true`, a `threshold`, …) is written as one (`1` as `1.0`).
//!
//! The settings are typed as the methods run on them: the enums of [`crate::ciber`] and those
//! re-exported here (URL strategy, premise form, gate, granularity, stance judge), which the
//! methods' crate re-exports too. A revision's evidence stays a name: the evidence finders are
//! a trait of the methods' crate, each naming itself.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize, Serializer};

use crate::ciber::{FusionRule, ProbeMode};
pub use crate::method_settings::{Gate, Granularity, PremiseForm, StanceJudge, UrlStrategy};

/// Fields of a stored body that its variant does not name, kept so that it is written back
/// whole.
pub type OtherFields = BTreeMap<String, serde_json::Value>;

/// The settings an outcome's method ran with, by method.
#[derive(Debug, Clone, PartialEq, Deserialize, ts_rs::TS)]
#[serde(untagged)]
pub enum MethodParameters {
    /// A summary written again by hand from some of another's sources.
    Resummarized(ResummarizedParameters),
    Ciber(CiberParameters),
    LlmCite(LlmCiteParameters),
    CorpusNli(CorpusNliParameters),
    PTrue(PTrueParameters),
    /// RARR, CoVe and any revision method that records its evidence.
    Revision(RevisionParameters),
    /// TTS and its baselines.
    Summary(SummaryParameters),
    /// A body none of the above describes, kept as it was stored: the test-only toy
    /// verifier's and any method's whose parameters this version does not know. Open-ended by
    /// design, so that a method added through its seam stores what it likes before it has a
    /// variant.
    Other(serde_json::Value),
}

/// LLM-Cite's settings, and how many proposed URLs of each sample led to a page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct LlmCiteParameters {
    /// How the URLs were asked for.
    pub urls: UrlStrategy,
    /// URLs asked per sample.
    pub m: usize,
    /// Samples.
    pub r: u32,
    pub temperature: f64,
    /// Sentences kept per page.
    pub l: usize,
    pub threshold: f64,
    pub premises: PremiseForm,
    pub seed: u64,
    pub valid_urls_per_sample: Vec<usize>,
    #[serde(flatten)]
    #[ts(skip)]
    pub other: OtherFields,
}

/// P(True)'s answer samples and seed, and the probability it found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct PTrueParameters {
    pub p_true: f64,
    pub samples: u32,
    pub seed: u64,
    #[serde(flatten)]
    #[ts(skip)]
    pub other: OtherFields,
}

/// Corpus-NLI's settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct CorpusNliParameters {
    /// Documents judged per claim.
    pub documents: usize,
    /// Sentences per document.
    pub l: usize,
    /// Sentences retrieved before grouping by document.
    pub retrieve: usize,
    pub threshold: f64,
    #[serde(flatten)]
    #[ts(skip)]
    pub other: OtherFields,
}

/// CIBER's settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct CiberParameters {
    /// Evidence documents per claim (k).
    pub documents: usize,
    /// Sentences retrieved to find the documents.
    pub retrieve: usize,
    /// Words of a document quoted to the model at most.
    pub document_words: usize,
    /// Agreeing probes asked.
    pub agree: usize,
    /// Contradicting probes asked.
    pub conflict: usize,
    pub mode: ProbeMode,
    /// Answers sampled per probe.
    pub samples: u32,
    pub temperature: f64,
    /// Weight of the agreeing probes against the contradicting ones.
    pub alpha: f64,
    pub rule: FusionRule,
    /// Whether the plain-RAG baseline was asked too.
    pub rag: bool,
    pub seed: u64,
    /// The version of the probe questions.
    pub probes: u32,
    #[serde(flatten)]
    #[ts(skip)]
    pub other: OtherFields,
}

/// A revision's settings: the evidence it read and, for RARR and CoVe, their settings and the
/// model calls each step made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct RevisionParameters {
    /// The evidence read: `source`, `corpus`, `web`, `none`.
    pub evidence: String,
    /// How the evidence was cut; none without evidence (null, as written).
    pub granularity: Option<Granularity>,
    /// The agreement gate (RARR's and CoVe's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub gate: Option<Gate>,
    /// Questions asked per sentence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub questions: Option<usize>,
    /// How much longer than the original the revision may grow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub max_growth: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub threshold: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub seed: Option<u64>,
    /// Model calls by step (`questions`, `gate`, `edit`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub calls: Option<BTreeMap<String, u32>>,
    #[serde(flatten)]
    #[ts(skip)]
    pub other: OtherFields,
}

/// The settings TTS or a baseline wrote a summary with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct SummaryParameters {
    /// Sources scoring at least τ are kept.
    pub tau: f64,
    pub seed: u64,
    pub duplicate_threshold: f64,
    pub max_claims: usize,
    pub stance_batch: usize,
    pub document_words: usize,
    /// Who gave the stances (absent from summaries stored before it was a setting).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub stance_judge: Option<StanceJudge>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub stance_threshold: Option<f64>,
    #[serde(flatten)]
    #[ts(skip)]
    pub other: OtherFields,
}

/// A summary written again by hand: the summary it came from and that one's settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ResummarizedParameters {
    pub from_summary: i64,
    pub config: SummaryParameters,
    #[serde(flatten)]
    #[ts(skip)]
    pub other: OtherFields,
}

impl MethodParameters {
    /// A revision's parameters, if these are one's.
    pub fn revision(&self) -> Option<&RevisionParameters> {
        match self {
            MethodParameters::Revision(revision) => Some(revision),
            _ => None,
        }
    }

    /// The settings a summary was written with (those of the first summary, for one written
    /// again by hand).
    pub fn summary(&self) -> Option<&SummaryParameters> {
        match self {
            MethodParameters::Summary(summary) => Some(summary),
            MethodParameters::Resummarized(again) => Some(&again.config),
            _ => None,
        }
    }

    /// The parameters as a JSON value, with its keys in alphabetical order.
    pub fn to_json(&self) -> serde_json::Value {
        let value = match self {
            MethodParameters::Resummarized(p) => serde_json::to_value(p),
            MethodParameters::Ciber(p) => serde_json::to_value(p),
            MethodParameters::LlmCite(p) => serde_json::to_value(p),
            MethodParameters::CorpusNli(p) => serde_json::to_value(p),
            MethodParameters::PTrue(p) => serde_json::to_value(p),
            MethodParameters::Revision(p) => serde_json::to_value(p),
            MethodParameters::Summary(p) => serde_json::to_value(p),
            MethodParameters::Other(value) => return value.clone(),
        };
        // Plain structs of numbers, strings and maps with string keys always serialise.
        value.unwrap_or_default()
    }
}

/// Written through a JSON value, so that the keys come in alphabetical order whatever the
/// fields' order, as the untyped parameters of earlier versions were written.
impl Serialize for MethodParameters {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(serializer)
    }
}

/// Reads a JSON value as the variant its fields describe ([`MethodParameters::Other`] if
/// none does).
impl From<serde_json::Value> for MethodParameters {
    fn from(value: serde_json::Value) -> Self {
        serde_json::from_value(value.clone()).unwrap_or(MethodParameters::Other(value))
    }
}

impl Default for MethodParameters {
    /// No parameters: `null`.
    fn default() -> Self {
        MethodParameters::Other(serde_json::Value::Null)
    }
}

#[cfg(test)]
#[path = "parameters_tests.rs"]
mod tests;
