//! The corpus-NLI baseline (FActScore-style retrieval + NLI): instead of asking the model for
//! URLs, retrieve the claim's best-matching sentences from the local corpus (the tantivy
//! sentence index), group them by document, and judge cumulative premises as LLM-Cite does,
//! cut to the grounding rule's size (at most `l` sentences and [`grounding::PREMISE_WORDS`]
//! words). It needs no network, so it runs fully offline. A claim of several sentences (a
//! summary) is judged sentence by sentence and supported only if every sentence is; it is
//! refuted when some sentence is contradicted (and not entailed), else not enough info.
//!
//! Each premise is one more chance for a false sentence to look supported, so the defaults
//! are small (`[methods.corpus-nli]` `documents = 1`, `l = 4`): on the dev slice of
//! HaluEval's summaries, LLM-Cite's `m = 4`, `l = 6` (24 premises, no word cap) verified 95%
//! of the false summaries.

use std::sync::Arc;

use factdesk_llm::Nli;
use factdesk_model::parameters::{CorpusNliParameters, MethodParameters};
use factdesk_model::{
    ClaimCheck, DocumentId, Envelope, EvidenceSource, LeftOut, TokenUse, Undecided, Verdict,
};

use crate::MethodError;
use crate::evidence::CorpusRetriever;
use crate::grounding;
use crate::judge::{self, PremiseForm, RankedSource};

pub const METHOD: &str = "corpus-nli";

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CorpusNliConfig {
    /// Documents judged per claim (LLM-Cite's m).
    pub documents: usize,
    /// Sentences per document (LLM-Cite's l).
    pub l: usize,
    /// Sentences retrieved before grouping by document.
    pub retrieve: usize,
    pub threshold: f64,
}

impl Default for CorpusNliConfig {
    fn default() -> Self {
        CorpusNliConfig { documents: 4, l: 6, retrieve: 50, threshold: 0.5 }
    }
}

impl CorpusNliConfig {
    /// What a check records of these settings (all of them).
    pub fn parameters(&self) -> CorpusNliParameters {
        CorpusNliParameters {
            documents: self.documents,
            l: self.l,
            retrieve: self.retrieve,
            threshold: self.threshold,
            other: Default::default(),
        }
    }
}

pub struct CorpusNli {
    pub retriever: Arc<dyn CorpusRetriever>,
    pub nli: Arc<dyn Nli>,
    /// The chat model behind the NLI, if any (for reports).
    pub model: String,
    pub config: CorpusNliConfig,
    /// Sentence rules for cutting a claim of several sentences (ISO 639-1).
    pub language: String,
}

impl std::fmt::Debug for CorpusNli {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CorpusNli").field("config", &self.config).finish_non_exhaustive()
    }
}

impl CorpusNli {
    /// The sources for one claim sentence: its best-matching corpus sentences, grouped by
    /// document in the order of each document's best sentence. A document keeps at most `l`
    /// sentences and stops taking them before they pass [`grounding::PREMISE_WORDS`] words
    /// (its longest premise joins them all); a single sentence is cut at
    /// [`grounding::MAX_SENTENCE_WORDS`].
    async fn sources(&self, sentence: &str) -> Result<Vec<RankedSource>, MethodError> {
        let config = &self.config;
        let hits = self
            .retriever
            .retrieve(sentence, config.retrieve.max(1))
            .await
            .map_err(MethodError::Evidence)?;
        let mut sources: Vec<RankedSource> = Vec::new();
        // Per source: its words so far, and whether it is full.
        let mut sizes: Vec<(usize, bool)> = Vec::new();
        for hit in hits {
            let text = grounding::first_words(&hit.text, grounding::MAX_SENTENCE_WORDS);
            let words = text.split_whitespace().count();
            let position = sources
                .iter()
                .position(|source| source.source.document_id == Some(hit.document_id));
            match position {
                Some(index)
                    if !sizes[index].1
                        && sources[index].sentences.len() < config.l
                        && !sources[index].sentences.contains(&text) =>
                {
                    if sizes[index].0 + words > grounding::PREMISE_WORDS {
                        sizes[index].1 = true;
                    } else {
                        sizes[index].0 += words;
                        sources[index].sentences.push(text);
                    }
                }
                Some(_) => {}
                None if sources.len() < config.documents => {
                    sizes.push((words, false));
                    sources.push(RankedSource {
                        source: EvidenceSource {
                            url: hit.url,
                            title: hit.title,
                            document_id: Some(hit.document_id),
                            fetched_at: None,
                            content_hash: None,
                            published_at: None,
                        },
                        sentences: vec![text],
                    });
                }
                None => {}
            }
        }
        Ok(sources)
    }

    /// Checks a claim of one or more sentences. Each sentence is judged on its own (retrieval,
    /// cumulative premises, NLI); the claim is supported only if every sentence is, and its
    /// support is that of its weakest sentence (see [`crate::grounding`]).
    pub async fn check(&self, claim: &str) -> Result<ClaimCheck, MethodError> {
        let claim = claim.trim();
        let config = &self.config;
        let claim_unread = judge::unread_language(&*self.nli, claim);
        let parts = match claim_unread {
            Some(_) => Vec::new(),
            None => grounding::claim_sentences(claim, &self.language),
        };
        let several = parts.len() > 1;
        let mut sources: Vec<EvidenceSource> = Vec::new();
        let mut premises = Vec::new();
        let mut attributions = Vec::new();
        let mut tokens = TokenUse::default();
        let mut supports: Vec<PartSupport> = Vec::new();
        let mut left_out: Vec<LeftOut> = Vec::new();
        let mut unread: Vec<(usize, &'static str)> = Vec::new();
        // The documents found, whole: a figure the premises leave out but the document states
        // elsewhere is no sign of an invented one (`Nli::classify_from`).
        let mut documents: std::collections::HashMap<DocumentId, String> =
            std::collections::HashMap::new();
        for part in &parts {
            let found = self.sources(part).await?;
            for id in found.iter().filter_map(|ranked| ranked.source.document_id) {
                if let std::collections::hash_map::Entry::Vacant(slot) = documents.entry(id) {
                    let document =
                        self.retriever.document(id).await.map_err(MethodError::Evidence)?;
                    slot.insert(document.text);
                }
            }
            let texts: Vec<Option<&str>> = found
                .iter()
                .map(|ranked| {
                    ranked.source.document_id.and_then(|id| documents.get(&id)).map(String::as_str)
                })
                .collect();
            let judged = judge::judge(
                &*self.nli,
                part,
                &found,
                &texts,
                PremiseForm::Cumulative,
                config.threshold,
            )
            .await?;
            tokens.merge(&judged.tokens);
            // Sources are shared by the claim's sentences; premises point into that list.
            let positions: Vec<usize> = found
                .iter()
                .map(|ranked| match sources.iter().position(|known| *known == ranked.source) {
                    Some(position) => position,
                    None => {
                        sources.push(ranked.source.clone());
                        sources.len() - 1
                    }
                })
                .collect();
            unread.extend(
                judged.unread.iter().map(|(source, language)| (positions[*source], *language)),
            );
            for (source, sentence) in judged.left_out {
                let left = LeftOut { source: positions[source], sentence };
                if !left_out.contains(&left) {
                    left_out.push(left);
                }
            }
            let claim_part = several.then(|| part.clone());
            // The premise that contradicts most, and what it states differently.
            let against = judged
                .premises
                .iter()
                .filter(|premise| premise.contradiction > premise.entailment)
                .max_by(|a, b| a.contradiction.total_cmp(&b.contradiction))
                .map(|premise| Against {
                    title: found[premise.source].source.title.clone(),
                    // The sentence stating what conflicts, else the first that is no heading.
                    sentence: premise
                        .facts
                        .conflicts
                        .iter()
                        .find_map(|pair| {
                            premise.sentences.iter().find(|s| {
                                !pair.evidence.is_empty() && s.contains(pair.evidence.as_str())
                            })
                        })
                        .or_else(|| premise.sentences.iter().find(|s| !grounding::is_fragment(s)))
                        .or(premise.sentences.first())
                        .cloned()
                        .unwrap_or_default(),
                    contradiction: premise.contradiction,
                    facts: premise.facts.summary(),
                });
            for mut premise in judged.premises {
                premise.source = positions[premise.source];
                premise.claim_part = claim_part.clone();
                premises.push(premise);
            }
            for mut attribution in judged.attributions {
                attribution.claim_part = claim_part.clone();
                attributions.push(attribution);
            }
            supports.push(PartSupport {
                sentence: part.clone(),
                best: judged.best_entailment,
                read: !found.is_empty(),
                contradicted: judged.contradicted && judged.best_entailment < config.threshold,
                against,
            });
        }
        attributions.sort_by(|a, b| b.entailment.total_cmp(&a.entailment));
        let support = grounding::aggregate(supports.iter().map(|part| part.best));
        let all_entailed =
            !supports.is_empty() && supports.iter().all(|part| part.best >= config.threshold);
        let contradicted: Vec<&PartSupport> =
            supports.iter().filter(|part| part.contradicted).collect();
        let read = |count: usize| {
            format!("{count} corpus document{} read", if count == 1 { "" } else { "s" })
        };
        let title = |attribution: &factdesk_model::Attribution| {
            attribution.source.title.clone().unwrap_or_else(|| "a document".to_owned())
        };
        let mut undecided = None;
        let (verdict, explanation) = if let Some(why) = claim_unread {
            undecided = Some(Undecided::UnreadLanguage);
            (Verdict::NotEnoughInfo, why)
        } else if premises.is_empty() && !unread.is_empty() {
            undecided = Some(Undecided::UnreadLanguage);
            let why = judge::unread_note(&*self.nli, &unread, false).unwrap_or_default();
            (Verdict::NotEnoughInfo, format!("{}.{why}", read(sources.len())))
        } else if supports.iter().all(|part| !part.read) {
            undecided = Some(Undecided::NoEvidence);
            (
                Verdict::NotEnoughInfo,
                "The local corpus has no sentence matching the claim.".to_owned(),
            )
        } else if let (true, false, Some(best)) = (all_entailed, several, attributions.first()) {
            let explanation = format!(
                "{}; {} entails the claim (P = {:.2}).",
                read(sources.len()),
                title(best),
                best.entailment
            );
            (Verdict::Supported, explanation)
        } else if all_entailed {
            let explanation = format!(
                "{}; each of the claim's {} sentences is entailed (weakest P = {:.2}).",
                read(sources.len()),
                supports.len(),
                support
            );
            (Verdict::Supported, explanation)
        } else if !contradicted.is_empty() {
            let which = if several {
                let quoted: Vec<String> = contradicted
                    .iter()
                    .map(|part| format!("\"{}\"{}", part.sentence, part.because()))
                    .collect();
                format!(
                    "{} of the claim's {} sentences {} contradicted: {}",
                    contradicted.len(),
                    supports.len(),
                    if contradicted.len() == 1 { "is" } else { "are" },
                    quoted.join("; ")
                )
            } else {
                format!("the evidence contradicts the claim{}", contradicted[0].because())
            };
            (Verdict::Refuted, format!("{}; {which}.", read(sources.len())))
        } else if several {
            let unsupported: Vec<String> = supports
                .iter()
                .filter(|part| part.best < config.threshold)
                .map(|part| format!("\"{}\" (best P = {:.2})", part.sentence, part.best))
                .collect();
            let explanation = format!(
                "{}; {} of the claim's {} sentences are not entailed: {}.",
                read(sources.len()),
                unsupported.len(),
                supports.len(),
                unsupported.join("; ")
            );
            (Verdict::NotEnoughInfo, explanation)
        } else {
            let explanation = format!(
                "{}; no premise entails the claim (best P = {:.2}).",
                read(sources.len()),
                support
            );
            (Verdict::NotEnoughInfo, explanation)
        };
        let explanation = explanation + &judge::left_out_note(left_out.len()).unwrap_or_default();
        let explanation = match undecided {
            Some(Undecided::UnreadLanguage) => explanation,
            _ => explanation + &judge::unread_note(&*self.nli, &unread, true).unwrap_or_default(),
        };
        let confidence = if premises.is_empty() {
            None
        } else if verdict == Verdict::Supported {
            Some(support)
        } else {
            Some(1.0 - support)
        };
        Ok(ClaimCheck {
            envelope: Envelope {
                method: METHOD.into(),
                parameters: MethodParameters::CorpusNli(config.parameters()),
                model: self.model.clone(),
                nli_model: Some(self.nli.name()),
                tokens,
                explanation,
            },
            claim: claim.to_owned(),
            verdict,
            undecided,
            confidence,
            attributions,
            sources,
            premises,
            left_out,
            detail: None,
        })
    }
}

/// How one sentence of a claim fared against the corpus.
struct PartSupport {
    sentence: String,
    /// The best entailment probability of its premises.
    best: f64,
    /// Whether retrieval found any evidence for it.
    read: bool,
    /// Whether a premise contradicts it and none entails it.
    contradicted: bool,
    /// The premise that contradicts it most, if any does.
    against: Option<Against>,
}

/// A premise that contradicts a claim sentence, for the explanation.
struct Against {
    title: Option<String>,
    /// The premise's first (best-ranked) sentence.
    sentence: String,
    contradiction: f64,
    /// What it states differently ([`factdesk_model::FactAlignment::summary`]).
    facts: Option<String>,
}

impl PartSupport {
    /// " — {title} says: "…" (claim: 412 metres · evidence: 212 metres; P = 0.93)", or nothing.
    fn because(&self) -> String {
        let Some(against) = &self.against else { return String::new() };
        let title = against.title.as_deref().unwrap_or("a document");
        let facts = against.facts.as_deref().map(|facts| format!("{facts}; ")).unwrap_or_default();
        format!(
            " — {title} says: \"{}\" ({facts}P(contradiction) = {:.2})",
            against.sentence, against.contradiction
        )
    }
}

/// Corpus-NLI's figure over its checks: the share of claims the corpora had no evidence for.
pub fn figures(checks: &[&ClaimCheck]) -> Vec<crate::figures::Figure> {
    let without =
        checks.iter().filter(|check| check.undecided == Some(Undecided::NoEvidence)).count();
    vec![crate::figures::Figure::rate(
        "no_evidence_rate",
        "No evidence rate",
        without,
        checks.len(),
        "claims the corpora held no sentence for",
    )]
}
