//! CIBER ("CIBER: Claim Investigation Based on Evidence Retrieval"): judge a claim by how
//! consistently the chat model answers agreeing and contradicting questions about each evidence
//! document, and fuse those answers into a verdict with a confidence.
//!
//! For claim C and each evidence document A ([`Documents`]: the top `documents` of a corpus
//! retrieval, the corpus documents and web pages a person names, or the pages an earlier
//! LLM-Cite check of the claim read):
//! 1. **Probes** ([`ProbeSets`], `assets/ciber/probes.v1.toml`): the original probe ("Based on
//!    the document, is the claim true?") and paraphrases (P_AG), the negated probe and its
//!    paraphrases (P_CF), each asked with the document quoted (template `ciber/probe`) and
//!    answered Yes / No / Not sure.
//! 2. **Answers**: in *sampling* mode each probe is asked `samples` times (K) at a temperature
//!    above 0, in one request of n completions (a grammar holds the answer to the three words
//!    where the model enforces one), and each answer is resolved to support / refute / neutral
//!    by [`resolve`]. In *exact* mode one call per probe reads P(yes), P(no), P(not sure) from
//!    the first answer token's probabilities (the embedded model's logits, a server's
//!    log-probabilities); a server that gives none is sampled instead, and the probe records
//!    which was used.
//! 3. **Fusion** ([`fusion`]): P_AG and P_CF (contradicting answers read towards the claim) give
//!    a verdict and confidence under WP, WIG, WBU and meta.
//! 4. **Claim level** (Factdesk's rule; the paper judges one document at a time): under each
//!    rule, the claim takes the verdict of the document that supports or refutes it with the
//!    highest confidence; when the best supporting and refuting documents are equally
//!    confident, or every document is neutral, the claim has not enough info (the rule's
//!    confidence is then that of the most confident neutral document). The check's verdict is
//!    that of the configured rule (`meta` by default), and it names the documents that support
//!    and refute the claim most strongly. Its confidence means what it means for every method:
//!    P(supported) for a supported verdict, one minus it otherwise, where P(supported) is the
//!    highest support score a document reaches under the rule ([`support_probability`]).
//! 5. **Baseline**: plain RAG, one prompt with every document (template `ciber/rag`) and one
//!    answer (the most probable in exact mode — sampled like a probe where the backend gives no
//!    probabilities — the greedy one in sampling mode), asked beside the probes and kept with
//!    CIBER's verdicts so that an evaluation compares them on the same claims; if it fails, the
//!    check goes on without it.
//!
//! Long documents are cut to `document_words` words around the sentence that best matches the
//! claim (whole sentences, growing both ways), and the cut is recorded.
//!
//! This file holds the configuration and the check, step by step; `documents.rs` gathers and
//! cuts the documents, `answers.rs` asks the probes (steps 1–3, and the baseline), [`resolve`]
//! and [`fusion`] read and fuse the answers, and `claim.rs` holds step 4 and α's tuning.

mod answers;
mod claim;
mod documents;
pub mod fusion;
pub mod resolve;

use std::sync::Arc;

use factdesk_llm::LanguageModel;
use factdesk_llm::prompts::PromptLibrary;
use factdesk_model::ciber::{
    CiberDetail, CiberDocument, FusionRule, ProbeMode, ProbeResult, RuleVerdict, Stance,
};
use factdesk_model::parameters::{CiberParameters, MethodParameters};
use factdesk_model::{
    Attribution, ClaimCheck, DocumentId, Envelope, EvidenceSource, MethodDetail, TokenUse,
    Undecided, Verdict,
};
use futures_util::future::{try_join, try_join_all};
use serde::{Deserialize, Serialize};

use crate::MethodError;
use crate::evidence::{CorpusRetriever, PageSource};
use crate::llm_cite::model_name;

pub use claim::{
    ALPHA_GRID, AlphaScore, claim_verdict, support_probability, tune_alpha, with_alpha,
};

pub const METHOD: &str = "ciber";
pub const PROBE_TEMPLATE: &str = "ciber/probe";
pub const RAG_TEMPLATE: &str = "ciber/rag";
/// Token purposes of CIBER's model calls.
pub const PROBE_PURPOSE: &str = "probe";
pub const RAG_PURPOSE: &str = "rag";

/// The answer words read in exact mode ("not" for "not sure").
const ANSWERS: [&str; 3] = ["yes", "no", "not"];
/// Holds a sampled answer to the three words, where the model enforces grammars.
const ANSWER_GRAMMAR: &str = r#"root ::= "Yes" | "No" | "Not sure""#;

/// The shipped probe questions.
const PROBES_V1: &str = include_str!("../../../../assets/ciber/probes.v1.toml");

/// The probe questions, versioned like prompt templates.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProbeSets {
    pub id: String,
    pub version: u32,
    pub follows: String,
    /// The original probe first, then its paraphrases.
    pub agree: Vec<String>,
    /// The negated probe first, then its paraphrases.
    pub conflict: Vec<String>,
}

impl ProbeSets {
    /// The questions Factdesk ships.
    pub fn builtin() -> Result<ProbeSets, String> {
        toml_probe_sets(PROBES_V1)
            .map_err(|error| format!("assets/ciber/probes.v1.toml does not parse: {error}"))
    }
}

fn toml_probe_sets(text: &str) -> Result<ProbeSets, String> {
    toml::from_str(text).map_err(|error| error.to_string())
}

/// CIBER's settings for a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CiberConfig {
    /// Evidence documents per claim (k).
    pub documents: usize,
    /// Sentences retrieved to find the documents.
    pub retrieve: usize,
    /// Words of a document quoted to the model at most.
    pub document_words: usize,
    /// Agreeing probes asked: the original and `agree − 1` paraphrases.
    pub agree: usize,
    /// Contradicting probes asked: the negation and `conflict − 1` paraphrases.
    pub conflict: usize,
    pub mode: ProbeMode,
    /// Answers sampled per probe (K) in sampling mode, or where exact mode must sample.
    pub samples: u32,
    pub temperature: f32,
    /// Weight of the agreeing probes against the contradicting ones, in [0, 1].
    pub alpha: f64,
    /// The rule the verdict follows.
    pub rule: FusionRule,
    /// Also ask the plain-RAG baseline.
    pub rag: bool,
    pub seed: u64,
    /// The version of the probe questions.
    pub probes: u32,
}

impl Default for CiberConfig {
    fn default() -> Self {
        CiberConfig {
            documents: 3,
            retrieve: 50,
            document_words: 300,
            agree: 2,
            conflict: 2,
            mode: ProbeMode::Exact,
            samples: 10,
            temperature: 0.7,
            alpha: 0.5,
            rule: FusionRule::Meta,
            rag: true,
            seed: 0,
            probes: 1,
        }
    }
}

impl CiberConfig {
    /// What a check records of these settings (all of them).
    pub fn parameters(&self) -> CiberParameters {
        CiberParameters {
            documents: self.documents,
            retrieve: self.retrieve,
            document_words: self.document_words,
            agree: self.agree,
            conflict: self.conflict,
            mode: self.mode,
            samples: self.samples,
            temperature: f64::from(self.temperature),
            alpha: self.alpha,
            rule: self.rule,
            rag: self.rag,
            seed: self.seed,
            probes: self.probes,
            other: Default::default(),
        }
    }
}

pub struct Ciber {
    pub model: Arc<dyn LanguageModel>,
    pub prompts: Arc<PromptLibrary>,
    pub probes: ProbeSets,
    pub retriever: Arc<dyn CorpusRetriever>,
    /// Where the evidence documents come from.
    pub documents: Documents,
    /// Where web pages are read from (fetched, or from the archive).
    pub web: Option<Arc<dyn PageSource>>,
    /// Sentence rules for cutting a page around its best sentence (ISO 639-1).
    pub language: String,
    pub config: CiberConfig,
}

impl std::fmt::Debug for Ciber {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ciber").field("config", &self.config).finish_non_exhaustive()
    }
}

/// Where a check's evidence documents come from.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum Documents {
    /// The best `documents` of a corpus retrieval for the claim.
    #[default]
    Retrieved,
    /// The corpus documents and web pages (by URL) a person named.
    Named { documents: Vec<DocumentId>, pages: Vec<String> },
    /// The web pages the newest LLM-Cite check of the claim that read any read (by URL; the
    /// page source gives the text that check judged).
    LlmCite { pages: Vec<String> },
}

/// An evidence document as the probes quote it.
#[derive(Debug, Clone)]
struct Evidence {
    source: EvidenceSource,
    /// What the probes quote.
    text: String,
    words: usize,
    truncated: bool,
    /// The sentence that best matches the claim (for the attribution).
    best: Option<String>,
}

impl Ciber {
    pub async fn check(&self, claim: &str) -> Result<ClaimCheck, MethodError> {
        let claim = claim.trim();
        let config = &self.config;
        let evidence = self.evidence(claim).await?;
        let mut tokens = TokenUse::default();
        // The RAG baseline needs no probe's answer: it is asked beside them.
        let probing = try_join_all(evidence.iter().map(|document| self.judge(claim, document)));
        let baseline = async {
            if !config.rag || evidence.is_empty() {
                return Ok(None);
            }
            // The baseline is there for comparison: its failure costs the probes nothing.
            match self.rag(claim, &evidence).await {
                Ok(answered) => Ok(Some(answered)),
                Err(error) => {
                    tracing::warn!(%error, "CIBER's RAG baseline failed; the check goes on without it");
                    Ok::<_, MethodError>(None)
                }
            }
        };
        let (judged, rag) = try_join(probing, baseline).await?;
        let mut documents = Vec::with_capacity(judged.len());
        for (source, (document, usage)) in judged.into_iter().enumerate() {
            tokens.add(PROBE_PURPOSE, usage.0, usage.1);
            documents.push(CiberDocument { source, ..document });
        }
        let rag = rag.map(|(answer, usage)| {
            tokens.add(
                RAG_PURPOSE,
                u64::from(usage.prompt_tokens),
                u64::from(usage.completion_tokens),
            );
            answer
        });
        let claim_level: Vec<(RuleVerdict, Option<usize>, Option<usize>)> =
            FusionRule::ALL.iter().map(|&rule| claim_verdict(rule, &documents)).collect();
        let (chosen, strongest_support, strongest_refute) = claim_level
            .iter()
            .find(|(verdict, _, _)| verdict.rule == config.rule)
            .copied()
            .unwrap_or((
                RuleVerdict {
                    rule: config.rule,
                    stance: Stance::Neutral,
                    confidence: 0.0,
                    scores: None,
                },
                None,
                None,
            ));
        let sources: Vec<EvidenceSource> =
            evidence.iter().map(|document| document.source.clone()).collect();
        let title = |index: usize| {
            let source = &sources[documents[index].source];
            format!(
                "\"{}\"",
                source
                    .title
                    .clone()
                    .or_else(|| source.url.clone())
                    .unwrap_or_else(|| "a document".into())
            )
        };
        let undecided = evidence.is_empty().then_some(Undecided::NoEvidence);
        let explanation = if evidence.is_empty() {
            match &self.documents {
                Documents::Retrieved => "No evidence document was found for the claim.",
                Documents::Named { .. } => "The documents named for the claim have no text.",
                Documents::LlmCite { pages } if pages.is_empty() => {
                    "No LLM-Cite check of this claim read a web page: check it with LLM-Cite \
                     first, or check it with CIBER on your corpora or on pages you name."
                }
                Documents::LlmCite { .. } => "The pages LLM-Cite read for the claim have no text.",
            }
            .to_owned()
        } else {
            let read = format!(
                "{} document{} asked {} probes each",
                evidence.len(),
                if evidence.len() == 1 { "" } else { "s" },
                config.agree + config.conflict
            );
            let mut parts = vec![read];
            if let Some(index) = strongest_support {
                let confidence =
                    documents[index].verdict(config.rule).map_or(0.0, |v| v.confidence);
                parts.push(format!(
                    "{} supports the claim most strongly ({confidence:.2})",
                    title(index)
                ));
            }
            if let Some(index) = strongest_refute {
                let confidence =
                    documents[index].verdict(config.rule).map_or(0.0, |v| v.confidence);
                parts.push(format!("{} refutes it most strongly ({confidence:.2})", title(index)));
            }
            if strongest_support.is_none() && strongest_refute.is_none() {
                parts.push("no document supports or refutes the claim".into());
            }
            format!(
                "{}; under {} fusion (α = {}) the claim is {}.",
                parts.join("; "),
                config.rule.as_str().to_uppercase(),
                config.alpha,
                chosen.stance.verdict().label()
            )
        };
        let verdict =
            if undecided.is_some() { Verdict::NotEnoughInfo } else { chosen.stance.verdict() };
        let attributions = match (verdict, strongest_support) {
            (Verdict::Supported, Some(index)) => {
                let document = &evidence[documents[index].source];
                vec![Attribution {
                    source: document.source.clone(),
                    sentences: document.best.iter().cloned().collect(),
                    entailment: chosen.confidence,
                    claim_part: None,
                    pages: Vec::new(),
                }]
            }
            _ => Vec::new(),
        };
        Ok(ClaimCheck {
            envelope: Envelope {
                method: METHOD.into(),
                parameters: MethodParameters::Ciber(config.parameters()),
                model: model_name(&*self.model),
                nli_model: None,
                tokens,
                explanation,
            },
            claim: claim.to_owned(),
            verdict,
            undecided,
            // As for every method: P(supported) for a supported verdict, one minus it otherwise.
            confidence: (undecided.is_none()).then(|| {
                let supported = support_probability(config.rule, &documents);
                if verdict == Verdict::Supported { supported } else { 1.0 - supported }
            }),
            attributions,
            sources,
            premises: Vec::new(),
            left_out: Vec::new(),
            detail: Some(MethodDetail::Ciber(Box::new(CiberDetail {
                rule: config.rule,
                alpha: config.alpha,
                documents,
                claim: claim_level.into_iter().map(|(verdict, _, _)| verdict).collect(),
                strongest_support,
                strongest_refute,
                rag,
            }))),
        })
    }
}

/// CIBER's figures over its checks: how many probes each read exactly, and, against gold
/// labels, each rule's and RAG's accuracy and macro-F1 over support / refute / neutral.
pub fn figures(checks: &[(&ClaimCheck, Option<Verdict>)]) -> Vec<crate::figures::Figure> {
    use crate::figures::{Figure, macro_f1};
    let details: Vec<(&CiberDetail, Option<Verdict>)> =
        checks.iter().filter_map(|(check, gold)| check.ciber().map(|d| (d, *gold))).collect();
    let probes: Vec<&ProbeResult> = details
        .iter()
        .flat_map(|(d, _)| d.documents.iter().flat_map(|doc| doc.probes.iter()))
        .collect();
    let exact = probes.iter().filter(|probe| probe.mode == ProbeMode::Exact).count();
    let mut figures = vec![Figure::rate(
        "exact_probe_rate",
        "Probes read exactly",
        exact,
        probes.len(),
        "probes whose answer probabilities came from token probabilities, not samples",
    )];
    let labelled: Vec<(&CiberDetail, Verdict)> =
        details.iter().filter_map(|(d, gold)| gold.map(|gold| (*d, gold))).collect();
    const KEYS: [(&str, &str, &str, &str); 5] = [
        ("wp_accuracy", "WP accuracy", "wp_macro_f1", "WP macro-F1"),
        ("wig_accuracy", "WIG accuracy", "wig_macro_f1", "WIG macro-F1"),
        ("wbu_accuracy", "WBU accuracy", "wbu_macro_f1", "WBU macro-F1"),
        ("meta_accuracy", "Meta accuracy", "meta_macro_f1", "Meta macro-F1"),
        ("rag_accuracy", "RAG accuracy", "rag_macro_f1", "RAG macro-F1"),
    ];
    for (index, (accuracy_key, accuracy_label, f1_key, f1_label)) in KEYS.into_iter().enumerate() {
        let pairs: Vec<(Verdict, Verdict)> = labelled
            .iter()
            .filter_map(|(detail, gold)| {
                let said = match FusionRule::ALL.get(index) {
                    Some(&rule) => detail.claim_verdict(rule).map(|v| v.stance),
                    None => detail.rag.as_ref().map(|rag| rag.stance),
                };
                said.map(|stance| (*gold, stance.verdict()))
            })
            .collect();
        let right = pairs.iter().filter(|(gold, said)| gold == said).count();
        let cell = |gold: Verdict, said: Verdict| {
            pairs.iter().filter(|pair| **pair == (gold, said)).count()
        };
        figures.push(Figure::rate(
            accuracy_key,
            accuracy_label,
            right,
            pairs.len(),
            "labelled claims whose verdict under this rule matches the label (three-way)",
        ));
        figures.push(Figure {
            key: f1_key,
            label: f1_label,
            value: macro_f1(cell),
            rate: true,
            note: "mean F1 over supported / refuted / not enough info under this rule",
        });
    }
    figures
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_probes_parse_and_lead_with_the_original_questions() {
        let probes = toml_probe_sets(PROBES_V1).unwrap();
        assert_eq!(probes.version, 1);
        assert!(probes.agree.len() >= 2 && probes.conflict.len() >= 2);
        assert!(probes.agree[0].contains("true"));
        assert!(probes.conflict[0].contains("false"));
        assert_eq!(ProbeSets::builtin().unwrap(), probes);
    }
}
