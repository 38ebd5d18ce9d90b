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

pub mod fusion;
pub mod resolve;

use std::sync::Arc;

use factdesk_llm::prompts::PromptLibrary;
use factdesk_llm::{CompletionRequest, LanguageModel, LlmError, OutputConstraint, TokenUsage};
use factdesk_model::ciber::{
    CiberDetail, CiberDocument, FusionRule, Masses, ProbeMode, ProbeResult, ProbeSet, RagAnswer,
    ResolvedAnswer, RuleVerdict, Stance,
};
use factdesk_model::{
    Attribution, ClaimCheck, DocumentId, Envelope, EvidenceSource, TokenUse, Undecided, Verdict,
};
use futures_util::future::{try_join, try_join_all};
use serde::{Deserialize, Serialize};

use crate::MethodError;
#[cfg(test)]
use crate::evidence::CorpusDocument;
use crate::evidence::{CorpusRetriever, PageSource};
use crate::llm_cite::model_name;

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

/// One probe's answer distribution.
struct Answered {
    mode: ProbeMode,
    answers: Vec<ResolvedAnswer>,
    shares: Masses,
    usage: TokenUsage,
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
                parameters: serde_json::to_value(config).unwrap_or_default(),
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
            urls: Vec::new(),
            sources,
            premises: Vec::new(),
            left_out: Vec::new(),
            ciber: Some(Box::new(CiberDetail {
                rule: config.rule,
                alpha: config.alpha,
                documents,
                claim: claim_level.into_iter().map(|(verdict, _, _)| verdict).collect(),
                strongest_support,
                strongest_refute,
                rag,
            })),
        })
    }

    /// The documents to probe: the best `documents` of a corpus retrieval, the corpus
    /// documents and web pages named, or the pages LLM-Cite read; empty ones are left out.
    async fn evidence(&self, claim: &str) -> Result<Vec<Evidence>, MethodError> {
        let (ids, pages): (Vec<DocumentId>, &[String]) = match &self.documents {
            Documents::Retrieved => {
                let hits = self
                    .retriever
                    .retrieve(claim, self.config.retrieve.max(1))
                    .await
                    .map_err(MethodError::Evidence)?;
                let mut ids = Vec::new();
                for hit in hits {
                    if !ids.contains(&hit.document_id) && ids.len() < self.config.documents {
                        ids.push(hit.document_id);
                    }
                }
                (ids, &[])
            }
            Documents::Named { documents, pages } => (documents.clone(), pages),
            Documents::LlmCite { pages } => (Vec::new(), pages),
        };
        let limit = self.config.document_words;
        let mut evidence = Vec::with_capacity(ids.len() + pages.len());
        for id in ids {
            let document = self.retriever.document(id).await.map_err(MethodError::Evidence)?;
            let source = EvidenceSource {
                url: document.url.clone(),
                title: document.title.clone(),
                document_id: Some(document.id),
                fetched_at: None,
                content_hash: None,
                published_at: None,
            };
            evidence.push(window(claim, source, &document.text, &document.sentences, limit));
        }
        for url in pages {
            let Some(web) = &self.web else {
                return Err(MethodError::Evidence(format!(
                    "{url}: this check was given no way to read web pages"
                )));
            };
            let page = web
                .page(url)
                .await
                .map_err(|error| MethodError::Evidence(format!("{url}: {}", error.message)))?;
            let sentences: Vec<String> =
                factdesk_text::segment_sentences(&page.text, &self.language)
                    .into_iter()
                    .map(|span| span.slice(&page.text).trim().to_owned())
                    .filter(|sentence| !sentence.is_empty())
                    .collect();
            let source = EvidenceSource {
                url: Some(page.final_url.clone()),
                title: page.title.clone(),
                document_id: None,
                fetched_at: Some(page.fetched_at.clone()),
                content_hash: Some(page.content_hash.clone()),
                published_at: None,
            };
            evidence.push(window(claim, source, &page.text, &sentences, limit));
        }
        // A document with no words has nothing to ask about.
        evidence.retain(|document| document.words > 0);
        Ok(evidence)
    }

    /// Every probe about one document, and the fusion of their answers; with the tokens
    /// (prompt, completion) they cost.
    async fn judge(
        &self,
        claim: &str,
        document: &Evidence,
    ) -> Result<(CiberDocument, (u64, u64)), MethodError> {
        let asked: Vec<(ProbeSet, &String)> = self
            .probes
            .agree
            .iter()
            .take(self.config.agree)
            .map(|question| (ProbeSet::Agree, question))
            .chain(
                self.probes
                    .conflict
                    .iter()
                    .take(self.config.conflict)
                    .map(|question| (ProbeSet::Conflict, question)),
            )
            .collect();
        let boundary = factdesk_llm::nli::boundary(&document.text, claim);
        let answered = try_join_all(asked.iter().map(|(set, question)| {
            let context = serde_json::json!({
                "document": document.text,
                "claim": claim,
                "question": question,
                "boundary": boundary,
            });
            async move {
                let request = self.prompts.render_request(PROBE_TEMPLATE, &context)?;
                self.ask(request, *set, claim).await
            }
        }))
        .await?;
        let mut probes = Vec::with_capacity(answered.len());
        let mut usage = (0u64, 0u64);
        for ((set, question), answer) in asked.into_iter().zip(answered) {
            usage.0 += u64::from(answer.usage.prompt_tokens);
            usage.1 += u64::from(answer.usage.completion_tokens);
            probes.push(ProbeResult {
                set,
                question: question.clone(),
                mode: answer.mode,
                answers: answer.answers,
                shares: answer.shares,
            });
        }
        let agree = mean_shares(probes.iter().filter(|p| p.set == ProbeSet::Agree));
        let conflict = mean_shares(probes.iter().filter(|p| p.set == ProbeSet::Conflict));
        let fusion = fusion::fuse(&agree, &conflict, self.config.alpha);
        Ok((
            CiberDocument {
                source: 0,
                words: document.words,
                truncated: document.truncated,
                probes,
                agree,
                conflict,
                fusion,
            },
            usage,
        ))
    }

    /// The plain-RAG baseline: every document in one prompt.
    async fn rag(
        &self,
        claim: &str,
        evidence: &[Evidence],
    ) -> Result<(RagAnswer, TokenUsage), MethodError> {
        let texts: Vec<&str> = evidence.iter().map(|document| document.text.as_str()).collect();
        let boundary = factdesk_llm::nli::boundary(&texts.join("\n"), claim);
        let context = serde_json::json!({"documents": texts, "claim": claim, "boundary": boundary});
        let request = self.prompts.render_request(RAG_TEMPLATE, &context)?;
        // One answer, as plain RAG gives: the most probable (exact mode) or the greedy one.
        let answer = match self.config.mode {
            ProbeMode::Exact => self.ask(request, ProbeSet::Agree, claim).await?,
            ProbeMode::Sampling => self.sample(request, ProbeSet::Agree, claim, 1, 0.0).await?,
        };
        let (stance, _) = fusion::decide(&answer.shares);
        Ok((RagAnswer { stance, mode: answer.mode, shares: answer.shares }, answer.usage))
    }

    /// One probe's answer distribution towards the claim, in the configured mode.
    async fn ask(
        &self,
        mut request: CompletionRequest,
        set: ProbeSet,
        claim: &str,
    ) -> Result<Answered, MethodError> {
        request.params.seed = Some(probe_seed(self.config.seed, &request));
        if self.config.mode == ProbeMode::Exact {
            // One sample at most if the backend has no probabilities: those answers are only
            // first words counted, so they are set aside and sampled again for the parser.
            match self.model.answer_probabilities(&request, &ANSWERS, 1).await {
                Ok(read) if read.method != "samples" => {
                    let (yes, no, unsure) = (read.get("yes"), read.get("no"), read.get("not"));
                    let towards_probe = Masses::new(yes, no, unsure);
                    let shares = match set {
                        ProbeSet::Agree => towards_probe,
                        ProbeSet::Conflict => towards_probe.inverted(),
                    };
                    return Ok(Answered {
                        mode: ProbeMode::Exact,
                        answers: Vec::new(),
                        shares,
                        usage: read.usage,
                    });
                }
                // No probabilities (the sample was counted, or began with none of the words).
                Ok(_) | Err(LlmError::InvalidResponse { .. }) => {}
                Err(error) => return Err(error.into()),
            }
        }
        self.sample(request, set, claim, self.config.samples, self.config.temperature).await
    }

    /// Sampling mode: `n` answers from one request, each resolved.
    async fn sample(
        &self,
        mut request: CompletionRequest,
        set: ProbeSet,
        claim: &str,
        n: u32,
        temperature: f32,
    ) -> Result<Answered, MethodError> {
        request.params.n = n.max(1);
        request.params.temperature = temperature;
        if self.model.supports_grammar() {
            request.constraint = Some(OutputConstraint::Grammar(ANSWER_GRAMMAR.to_owned()));
        }
        let completion = self.model.complete(&request).await?;
        let answers: Vec<ResolvedAnswer> = completion
            .choices
            .iter()
            .map(|choice| ResolvedAnswer {
                text: choice.text.trim().to_owned(),
                stance: resolve::resolve(&choice.text, set, claim),
            })
            .collect();
        let mut shares = Masses::default();
        for answer in &answers {
            *shares.get_mut(answer.stance) += 1.0;
        }
        let total = shares.total();
        let shares = if total > 0.0 {
            Masses::new(shares.support / total, shares.refute / total, shares.neutral / total)
        } else {
            Masses::only(Stance::Neutral)
        };
        Ok(Answered { mode: ProbeMode::Sampling, answers, shares, usage: completion.usage })
    }
}

/// The sampling seed of one probe: the run's seed mixed with the prompt (FNV-1a), so that
/// every probe draws its own answers (one seed for all would draw the same sequence for each,
/// and their answers would agree by construction) and a re-run draws the same ones.
fn probe_seed(seed: u64, request: &CompletionRequest) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in request.messages.iter().flat_map(|message| message.content.bytes()) {
        hash = (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    seed ^ hash
}

/// The mean of the probes' shares (all neutral for no probe).
fn mean_shares<'a>(probes: impl Iterator<Item = &'a ProbeResult>) -> Masses {
    let mut sum = Masses::default();
    let mut count = 0usize;
    for probe in probes {
        sum.support += probe.shares.support;
        sum.refute += probe.shares.refute;
        sum.neutral += probe.shares.neutral;
        count += 1;
    }
    if count == 0 {
        return Masses::only(Stance::Neutral);
    }
    let n = count as f64;
    Masses::new(sum.support / n, sum.refute / n, sum.neutral / n)
}

/// The claim's probability of being supported under `rule`: the highest support score any
/// document reaches (WP's and WBU's as they are, WIG's divided by ln 3, meta's the mean of the
/// three), 0 with no documents.
pub fn support_probability(rule: FusionRule, documents: &[CiberDocument]) -> f64 {
    /// One rule's support score for one document, in [0, 1].
    fn support(document: &CiberDocument, rule: FusionRule) -> f64 {
        let scores = document.verdict(rule).and_then(|verdict| verdict.scores);
        match rule {
            FusionRule::Wig => scores.map_or(0.0, |s| s.support / fusion::LN_3),
            FusionRule::Wp | FusionRule::Wbu => scores.map_or(0.0, |s| s.support),
            FusionRule::Meta => {
                [FusionRule::Wp, FusionRule::Wig, FusionRule::Wbu]
                    .iter()
                    .map(|&rule| support(document, rule))
                    .sum::<f64>()
                    / 3.0
            }
        }
    }
    documents.iter().map(|document| support(document, rule)).fold(0.0, f64::max).clamp(0.0, 1.0)
}

/// The claim's verdict under `rule` from its documents' verdicts (the rule of the module
/// documentation), with the most confident supporting and refuting documents.
pub fn claim_verdict(
    rule: FusionRule,
    documents: &[CiberDocument],
) -> (RuleVerdict, Option<usize>, Option<usize>) {
    let strongest = |stance: Stance| {
        documents
            .iter()
            .enumerate()
            .filter_map(|(index, document)| document.verdict(rule).map(|v| (index, v)))
            .filter(|(_, verdict)| verdict.stance == stance)
            .fold(None, |best: Option<(usize, f64)>, (index, verdict)| match best {
                Some((_, confidence)) if confidence >= verdict.confidence => best,
                _ => Some((index, verdict.confidence)),
            })
    };
    let (support, refute, neutral) =
        (strongest(Stance::Support), strongest(Stance::Refute), strongest(Stance::Neutral));
    let neutral_confidence = neutral.map_or(0.0, |(_, confidence)| confidence);
    let (stance, confidence) = match (support, refute) {
        (Some((_, s)), Some((_, r))) if (s - r).abs() <= 1e-12 => {
            (Stance::Neutral, neutral_confidence)
        }
        (Some((_, s)), Some((_, r))) if s > r => (Stance::Support, s),
        (Some(_), Some((_, r))) => (Stance::Refute, r),
        (Some((_, s)), None) => (Stance::Support, s),
        (None, Some((_, r))) => (Stance::Refute, r),
        (None, None) => (Stance::Neutral, neutral_confidence),
    };
    (
        RuleVerdict { rule, stance, confidence, scores: None },
        support.map(|(index, _)| index),
        refute.map(|(index, _)| index),
    )
}

/// The part of `document` the probes quote: all of it when it has at most `limit` words, else
/// whole sentences around the one that best matches the claim, added before and after in turn
/// while they fit (a single longer sentence is cut at `limit` words).
fn window(
    claim: &str,
    source: EvidenceSource,
    text: &str,
    sentences: &[String],
    limit: usize,
) -> Evidence {
    let limit = limit.max(1);
    let sentences: Vec<&str> = sentences.iter().map(String::as_str).collect();
    let best_index =
        crate::bm25_rank(claim, &sentences, 1).first().map(|&(index, _)| index).unwrap_or(0);
    let best = sentences.get(best_index).map(|sentence| (*sentence).to_owned());
    let total_words = text.split_whitespace().count();
    if total_words <= limit || sentences.is_empty() {
        let text = crate::grounding::first_words(text, limit);
        let words = text.split_whitespace().count();
        return Evidence { source, text, words, truncated: total_words > limit, best };
    }
    let count = |index: usize| sentences[index].split_whitespace().count();
    let (mut start, mut end) = (best_index, best_index + 1);
    let mut words = count(best_index);
    let mut grew = true;
    while grew {
        grew = false;
        if end < sentences.len() && words + count(end) <= limit {
            words += count(end);
            end += 1;
            grew = true;
        }
        if start > 0 && words + count(start - 1) <= limit {
            start -= 1;
            words += count(start);
            grew = true;
        }
    }
    let text = crate::grounding::first_words(&sentences[start..end].join(" "), limit);
    let words = text.split_whitespace().count();
    Evidence { source, text, words, truncated: true, best }
}

/// The claim's verdict under every rule had the checks used `alpha`: fused again from the
/// stored shares of each document, without asking the model.
pub fn with_alpha(detail: &CiberDetail, alpha: f64) -> Vec<RuleVerdict> {
    let documents: Vec<CiberDocument> = detail
        .documents
        .iter()
        .map(|document| CiberDocument {
            fusion: fusion::fuse(&document.agree, &document.conflict, alpha),
            ..document.clone()
        })
        .collect();
    FusionRule::ALL.iter().map(|&rule| claim_verdict(rule, &documents).0).collect()
}

/// How one rule scores on labelled claims at one α.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct AlphaScore {
    pub alpha: f64,
    pub rule: FusionRule,
    /// Three-way: the verdict equals the label.
    pub accuracy: Option<f64>,
    pub macro_f1: Option<f64>,
}

/// α from 0 to 1 in steps of 0.1.
pub const ALPHA_GRID: [f64; 11] = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0];

/// Every rule's accuracy and macro-F1 at each α of `grid` on labelled CIBER checks (the paper
/// picks α by grid search; do it on a tuning split, never on the one reported).
pub fn tune_alpha(labelled: &[(&CiberDetail, Verdict)], grid: &[f64]) -> Vec<AlphaScore> {
    let mut scores = Vec::new();
    for &alpha in grid {
        let verdicts: Vec<(Vec<RuleVerdict>, Verdict)> =
            labelled.iter().map(|(detail, gold)| (with_alpha(detail, alpha), *gold)).collect();
        for (index, &rule) in FusionRule::ALL.iter().enumerate() {
            let pairs: Vec<(Verdict, Verdict)> = verdicts
                .iter()
                .filter_map(|(rules, gold)| rules.get(index).map(|v| (*gold, v.stance.verdict())))
                .collect();
            let right = pairs.iter().filter(|(gold, said)| gold == said).count();
            let cell = |gold: Verdict, said: Verdict| {
                pairs.iter().filter(|pair| **pair == (gold, said)).count()
            };
            scores.push(AlphaScore {
                alpha,
                rule,
                accuracy: (!pairs.is_empty()).then(|| right as f64 / pairs.len() as f64),
                macro_f1: crate::figures::macro_f1(cell),
            });
        }
    }
    scores
}

/// CIBER's figures over its checks: how many probes each read exactly, and, against gold
/// labels, each rule's and RAG's accuracy and macro-F1 over support / refute / neutral.
pub fn figures(checks: &[(&ClaimCheck, Option<Verdict>)]) -> Vec<crate::figures::Figure> {
    use crate::figures::{Figure, macro_f1};
    let details: Vec<(&CiberDetail, Option<Verdict>)> = checks
        .iter()
        .filter_map(|(check, gold)| check.ciber.as_deref().map(|d| (d, *gold)))
        .collect();
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

    fn document(verdicts: [(Stance, f64); 4]) -> CiberDocument {
        CiberDocument {
            source: 0,
            words: 10,
            truncated: false,
            probes: Vec::new(),
            agree: Masses::default(),
            conflict: Masses::default(),
            fusion: FusionRule::ALL
                .iter()
                .zip(verdicts)
                .map(|(&rule, (stance, confidence))| RuleVerdict {
                    rule,
                    stance,
                    confidence,
                    scores: None,
                })
                .collect(),
        }
    }

    #[test]
    fn the_claim_takes_the_most_confident_non_neutral_document() {
        use Stance::{Neutral as N, Refute as R, Support as S};
        let documents = vec![
            document([(S, 0.6), (S, 0.2), (S, 0.7), (S, 0.5)]),
            document([(R, 0.8), (N, 0.9), (R, 0.7), (R, 0.7)]),
            document([(N, 0.9), (N, 0.4), (N, 0.9), (N, 0.9)]),
        ];
        // WP: the refuting document (0.8) beats the supporting one (0.6).
        let (wp, support, refute) = claim_verdict(FusionRule::Wp, &documents);
        assert_eq!((wp.stance, wp.confidence, support, refute), (R, 0.8, Some(0), Some(1)));
        // WIG: one supporting document, the others neutral.
        let (wig, ..) = claim_verdict(FusionRule::Wig, &documents);
        assert_eq!((wig.stance, wig.confidence), (S, 0.2));
        // WBU: 0.7 against 0.7 decides nothing; the confidence is the neutral document's.
        let (wbu, support, refute) = claim_verdict(FusionRule::Wbu, &documents);
        assert_eq!((wbu.stance, wbu.confidence, support, refute), (N, 0.9, Some(0), Some(1)));
        // Every document neutral, and no documents at all.
        let neutral = vec![documents[2].clone()];
        assert_eq!(claim_verdict(FusionRule::Meta, &neutral).0.stance, N);
        let (none, support, refute) = claim_verdict(FusionRule::Meta, &[]);
        assert_eq!((none.stance, none.confidence, support, refute), (N, 0.0, None, None));
    }

    #[test]
    fn each_probe_samples_with_its_own_reproducible_seed() {
        let request =
            |text: &str| CompletionRequest::new(vec![factdesk_llm::ChatMessage::user(text)]);
        let (a, b) = (request("Is the claim true?"), request("Is the claim false?"));
        assert_ne!(probe_seed(7, &a), probe_seed(7, &b));
        assert_eq!(probe_seed(7, &a), probe_seed(7, &request("Is the claim true?")));
        assert_ne!(probe_seed(7, &a), probe_seed(8, &a));
    }

    #[test]
    fn alpha_is_tuned_from_the_stored_shares() {
        // One document whose agreeing probes support the claim and whose contradicting probes
        // refute it: α decides.
        let document = CiberDocument {
            agree: Masses::new(0.8, 0.1, 0.1),
            conflict: Masses::new(0.1, 0.8, 0.1),
            ..document([(Stance::Neutral, 0.0); 4])
        };
        let detail = CiberDetail {
            rule: FusionRule::Wp,
            alpha: 0.5,
            documents: vec![document],
            claim: Vec::new(),
            strongest_support: None,
            strongest_refute: None,
            rag: None,
        };
        assert_eq!(with_alpha(&detail, 1.0)[0].stance, Stance::Support);
        assert_eq!(with_alpha(&detail, 0.0)[0].stance, Stance::Refute);
        let scores = tune_alpha(&[(&detail, Verdict::Supported)], &[0.0, 1.0]);
        assert_eq!(scores.len(), 2 * FusionRule::ALL.len());
        let wp = |alpha: f64| {
            scores.iter().find(|s| s.rule == FusionRule::Wp && s.alpha == alpha).unwrap().accuracy
        };
        assert_eq!((wp(0.0), wp(1.0)), (Some(0.0), Some(1.0)));
    }

    #[test]
    fn a_long_document_is_cut_around_the_sentence_that_matches_the_claim() {
        let filler: Vec<String> = (0..40)
            .map(|i| format!("Sentence number {i} talks about weather and roads."))
            .collect();
        let mut sentences = filler.clone();
        sentences.insert(25, "Okra belongs to the mallow family of flowering plants.".into());
        let document = CorpusDocument {
            id: DocumentId(7),
            title: Some("Okra".into()),
            url: None,
            text: sentences.join(" "),
            sentences: sentences.clone(),
        };
        let source = |document: &CorpusDocument| EvidenceSource {
            url: None,
            title: document.title.clone(),
            document_id: Some(document.id),
            fetched_at: None,
            content_hash: None,
            published_at: None,
        };
        let claim = "Okra is in the mallow family.";
        let evidence = window(claim, source(&document), &document.text, &document.sentences, 40);
        assert!(evidence.truncated);
        assert!(evidence.words <= 40, "{}", evidence.words);
        assert!(evidence.text.contains("mallow family"), "{}", evidence.text);
        assert_eq!(evidence.best.as_deref(), Some(sentences[25].as_str()));
        // Short documents are quoted whole.
        let short = window(claim, source(&document), &document.text, &document.sentences, 10_000);
        assert!(!short.truncated);
        assert_eq!(short.text, document.text);
    }
}
