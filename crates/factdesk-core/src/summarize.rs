//! Summaries of several sources answering one question, with Truthful Text Summarization
//! (`factdesk-methods` `tts`): the sources are corpus documents (a whole corpus or chosen
//! ones), each scored by correlated agreement with its peers, and the answer is written from
//! the ones scoring at least τ. The result is stored as an [`Outcome::Summary`] under a run of
//! its own, with the model calls behind it, the per-source claims and stances, and the scores.
//! The paper's baselines (all sources, majority prompt, majority claims) run the same way on
//! the same sources. A view in the app and reports are not here yet.

use std::sync::Arc;

use factdesk_llm::{CacheMode, CallCollector};
use factdesk_methods::tts::baselines::{Baseline, BaselineResult};
use factdesk_methods::tts::{Source, Tts, TtsConfig};
use factdesk_model::ciber::Stance;
use factdesk_model::{
    DocumentId, Envelope, EvidenceSource, Outcome, RunStatus, ScoredSource, SourceClaims,
    SourcedSummary, StoredOutcome,
};

use crate::verify::method_error;
use crate::{CoreError, Factdesk, Result};

/// Where the sources come from.
#[derive(Debug, Clone)]
pub enum SummarySources {
    /// Every document of a corpus.
    Corpus(String),
    /// Chosen documents.
    Documents(Vec<DocumentId>),
}

/// What to summarise and how.
#[derive(Debug, Clone)]
pub struct SummarizeRequest {
    pub question: String,
    pub sources: SummarySources,
    /// TTS, or one of its baselines (`None`).
    pub baseline: Option<Baseline>,
    pub config: TtsConfig,
    pub cache: Option<CacheMode>,
}

/// At most this many sources: the method's calls grow as N² (N drafts, N·N stance calls).
pub const MAX_SOURCES: usize = 40;

impl Factdesk {
    /// Summarises the sources for the question with TTS and stores the summary (see the module
    /// documentation).
    pub async fn summarize(&self, request: &SummarizeRequest) -> Result<StoredOutcome> {
        let too_many = |what: String| {
            CoreError::InvalidInput(format!(
                "{what}: at most {MAX_SOURCES} sources are summarised at once (the stance calls \
                 grow with the square of the sources); choose documents with --documents"
            ))
        };
        let ids: Vec<DocumentId> = match &request.sources {
            SummarySources::Documents(ids) if ids.len() > MAX_SOURCES => {
                return Err(too_many(format!("{} documents", ids.len())));
            }
            SummarySources::Documents(ids) => ids.clone(),
            SummarySources::Corpus(name) => {
                let ids: Vec<DocumentId> = self
                    .documents(Some(name), Some(MAX_SOURCES as u64 + 1), 0)?
                    .into_iter()
                    .map(|document| document.id)
                    .collect();
                if ids.len() > MAX_SOURCES {
                    return Err(too_many(format!(
                        "more than {MAX_SOURCES} documents in corpus '{name}'"
                    )));
                }
                ids
            }
        };
        let mut documents = Vec::new();
        for id in &ids {
            documents.push(self.document(*id)?);
        }
        let sources: Vec<Source> = documents
            .iter()
            .map(|document| Source {
                name: document
                    .summary
                    .title
                    .clone()
                    .unwrap_or_else(|| format!("document {}", document.summary.id)),
                text: document.text.clone(),
            })
            .collect();
        // Bad input is refused before a run is recorded.
        factdesk_methods::tts::check(&request.config, &request.question, &sources)
            .map_err(method_error)?;
        let method = request.baseline.map_or("tts", Baseline::as_str);
        let identity = serde_json::json!({
            "method": method,
            "config": request.config,
            "question": request.question,
            "documents": ids,
        });
        let chat = self.model_choice().model_name();
        let run = self.store()?.create_run(method, &identity, Some(&chat), None)?;
        self.store()?.set_run_status(run, RunStatus::Running, None)?;
        let stored = async {
            let collector = CallCollector::default();
            let model =
                self.collecting_language_model(Some(run), request.cache, Some(collector.clone()))?;
            let tts = Tts {
                model,
                prompts: Arc::new(factdesk_methods::prompts::builtin_library()?),
                config: request.config.clone(),
            };
            let source_of = |index: usize| {
                let summary = &documents[index].summary;
                EvidenceSource {
                    url: summary.url.clone(),
                    title: summary.title.clone(),
                    document_id: Some(summary.id),
                    fetched_at: None,
                    content_hash: Some(summary.content_hash.clone()),
                }
            };
            if let Some(baseline) = request.baseline {
                let result = tts
                    .baseline(baseline, &request.question, &sources)
                    .await
                    .map_err(method_error)?;
                let summary = baseline_summary(&result, &request.config, &chat, source_of)?;
                return Ok::<_, CoreError>(self.store()?.insert_outcome(
                    run,
                    None,
                    &Outcome::Summary(summary),
                    &collector.ids(),
                )?);
            }
            let result = tts.run(&request.question, &sources).await.map_err(method_error)?;
            let kept = result.sources.iter().filter(|s| s.kept).count();
            let summary = SourcedSummary {
                envelope: Envelope {
                    method: "tts".into(),
                    parameters: serde_json::to_value(&request.config)
                        .map_err(|e| CoreError::InvalidInput(e.to_string()))?,
                    model: chat.clone(),
                    nli_model: None,
                    tokens: result.tokens.clone(),
                    explanation: format!(
                        "{} of {} distinct source(s) scored at least τ = {} by correlated \
                         agreement and were summarised; {} model call(s).{}",
                        kept,
                        result.sources.len(),
                        request.config.tau,
                        result.calls,
                        if result.notes.is_empty() {
                            String::new()
                        } else {
                            format!(" Notes: {}", result.notes.join("; "))
                        }
                    ),
                },
                question: Some(result.question.clone()),
                text: result.summary.clone().unwrap_or_default(),
                sources: result
                    .sources
                    .iter()
                    .map(|scored| ScoredSource {
                        source: source_of(scored.source),
                        score: scored.score,
                        used: scored.kept,
                        note: (!scored.copies.is_empty()).then(|| {
                            let copies: Vec<String> = scored
                                .copies
                                .iter()
                                .map(|&c| format!("document {}", documents[c].summary.id))
                                .collect();
                            format!("near-duplicates collapsed into it: {}", copies.join(", "))
                        }),
                    })
                    .collect(),
                claims: result
                    .sources
                    .iter()
                    .enumerate()
                    .map(|(index, scored)| SourceClaims {
                        source: index,
                        claims: scored.claims.clone(),
                        stances: scored.stances.clone(),
                        majority: scored.majority,
                        permutation: scored.permutation.clone(),
                    })
                    .collect(),
            };
            Ok::<_, CoreError>(self.store()?.insert_outcome(
                run,
                None,
                &Outcome::Summary(summary),
                &collector.ids(),
            )?)
        }
        .await;
        self.finish_outcome_run(run, stored)
    }
}

/// A baseline's answer as a stored summary: every distinct source read; with majority claims,
/// each source's score is the share of the claims it supports.
fn baseline_summary(
    result: &BaselineResult,
    config: &TtsConfig,
    chat: &str,
    source_of: impl Fn(usize) -> EvidenceSource,
) -> Result<SourcedSummary> {
    let claims = result.claims.len();
    let kept = result.kept_claims.iter().filter(|k| **k).count();
    let what = match result.baseline {
        Baseline::AllSources => "one answer from every source".to_owned(),
        Baseline::MajorityPrompt => {
            "one answer from every source, told to keep what most agree on".to_owned()
        }
        Baseline::MajorityClaims => format!(
            "the all-sources answer's {claims} claim(s), {kept} supported by more than half of \
             the sources and written up again"
        ),
    };
    Ok(SourcedSummary {
        envelope: Envelope {
            method: result.baseline.as_str().into(),
            parameters: serde_json::to_value(config)
                .map_err(|e| CoreError::InvalidInput(e.to_string()))?,
            model: chat.to_owned(),
            nli_model: None,
            tokens: result.tokens.clone(),
            explanation: format!(
                "Baseline: {what}; {} distinct source(s); {} model call(s).{}",
                result.groups.len(),
                result.calls,
                if result.notes.is_empty() {
                    String::new()
                } else {
                    format!(" Notes: {}", result.notes.join("; "))
                }
            ),
        },
        question: Some(result.question.clone()),
        text: result.summary.clone().unwrap_or_default(),
        sources: result
            .groups
            .iter()
            .enumerate()
            .map(|(j, group)| {
                let supported = result
                    .stances
                    .get(j)
                    .map_or(0, |row| row.iter().filter(|s| **s == Stance::Support).count());
                ScoredSource {
                    source: source_of(group[0]),
                    score: if claims == 0 { 0.0 } else { supported as f64 / claims as f64 },
                    used: true,
                    note: Some(if claims == 0 {
                        "not scored by this baseline".to_owned()
                    } else {
                        format!("supports {supported} of the {claims} claim(s)")
                    }),
                }
            })
            .collect(),
        claims: Vec::new(),
    })
}
