//! The corpus-NLI baseline (FActScore-style retrieval + NLI): instead of asking the model for
//! URLs, retrieve the claim's best-matching sentences from the local corpus (the tantivy
//! sentence index), group them by document, and judge cumulative premises exactly as LLM-Cite
//! does. It needs no network, so it runs fully offline.

use std::sync::Arc;

use factdesk_llm::Nli;
use factdesk_model::{CheckTokens, ClaimCheck, EvidenceSource, Verdict};

use crate::MethodError;
use crate::evidence::CorpusRetriever;
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

pub struct CorpusNli {
    pub retriever: Arc<dyn CorpusRetriever>,
    pub nli: Arc<dyn Nli>,
    /// The chat model behind the NLI, if any (for reports).
    pub model: String,
    pub config: CorpusNliConfig,
}

impl std::fmt::Debug for CorpusNli {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CorpusNli").field("config", &self.config).finish_non_exhaustive()
    }
}

impl CorpusNli {
    pub async fn check(&self, claim: &str) -> Result<ClaimCheck, MethodError> {
        let claim = claim.trim();
        let config = &self.config;
        let hits = self
            .retriever
            .retrieve(claim, config.retrieve.max(1))
            .await
            .map_err(MethodError::Evidence)?;
        // Group by document in the order of each document's best sentence.
        let mut sources: Vec<RankedSource> = Vec::new();
        for hit in hits {
            let position = sources
                .iter()
                .position(|source| source.source.document_id == Some(hit.document_id));
            match position {
                Some(index)
                    if sources[index].sentences.len() < config.l
                        && !sources[index].sentences.contains(&hit.text) =>
                {
                    sources[index].sentences.push(hit.text);
                }
                Some(_) => {}
                None if sources.len() < config.documents => sources.push(RankedSource {
                    source: EvidenceSource {
                        url: hit.url,
                        title: hit.title,
                        document_id: Some(hit.document_id),
                        fetched_at: None,
                        content_hash: None,
                    },
                    sentences: vec![hit.text],
                }),
                None => {}
            }
        }
        let texts = vec![None; sources.len()];
        let judged = judge::judge(
            &*self.nli,
            claim,
            &sources,
            &texts,
            PremiseForm::Cumulative,
            config.threshold,
        )
        .await?;
        let (verdict, explanation) = if sources.is_empty() {
            (Verdict::NoEvidence, "The local corpus has no sentence matching the claim.".to_owned())
        } else {
            let explanation = match judged.attributions.first() {
                Some(best) => format!(
                    "{} corpus documents read; {} entails the claim (P = {:.2}).",
                    sources.len(),
                    best.source.title.as_deref().unwrap_or("a document"),
                    best.entailment
                ),
                None => format!(
                    "{} corpus documents read; no premise entails the claim (best P = {:.2}).",
                    sources.len(),
                    judged.best_entailment
                ),
            };
            (judged.verdict(), explanation)
        };
        let mut tokens = CheckTokens::default();
        tokens.add(judged.tokens);
        Ok(ClaimCheck {
            claim: claim.to_owned(),
            method: METHOD.into(),
            parameters: serde_json::to_value(config).unwrap_or_default(),
            model: self.model.clone(),
            nli_model: Some(self.nli.name()),
            verdict,
            confidence: judged.confidence(),
            attributions: judged.attributions.clone(),
            urls: Vec::new(),
            sources: sources.into_iter().map(|ranked| ranked.source).collect(),
            premises: judged.premises,
            tokens,
            explanation,
        })
    }
}
