//! TTS's and the baselines' results as stored summaries: each source's score, use and note,
//! TTS's leave-one-out drafts, claims and stances, and the envelope naming the method, its
//! settings and the chat model.

use factdesk_methods::tts::TtsConfig;
use factdesk_methods::tts::baselines::{Baseline, BaselineResult};
use factdesk_model::ciber::Stance;
use factdesk_model::parameters::MethodParameters;
use factdesk_model::{
    Document, Envelope, EvidenceSource, ScoredSource, SourceClaims, SourcedSummary,
};

use crate::Result;

pub(super) fn source_name(document: &Document) -> String {
    document.summary.title.clone().unwrap_or_else(|| format!("document {}", document.summary.id))
}

fn evidence_source(document: &Document) -> EvidenceSource {
    let summary = &document.summary;
    EvidenceSource {
        url: summary.url.clone(),
        title: summary.title.clone(),
        document_id: Some(summary.id),
        fetched_at: None,
        content_hash: Some(summary.content_hash.clone()),
        published_at: None,
    }
}

fn notes_suffix(notes: &[String]) -> String {
    if notes.is_empty() { String::new() } else { format!(" Notes: {}", notes.join("; ")) }
}

/// A summary's envelope: its method, the settings it ran with, the chat model and tokens.
fn envelope(
    method: &str,
    config: &TtsConfig,
    chat: &str,
    tokens: &factdesk_model::TokenUse,
    explanation: String,
) -> Envelope {
    Envelope {
        method: method.to_owned(),
        parameters: MethodParameters::Summary(config.parameters()),
        model: chat.to_owned(),
        nli_model: None,
        tokens: tokens.clone(),
        explanation,
    }
}

/// TTS's result as a stored summary.
pub(super) fn tts_summary(
    result: &factdesk_methods::tts::TtsResult,
    config: &TtsConfig,
    chat: &str,
    documents: &[Document],
) -> Result<SourcedSummary> {
    let kept = result.sources.iter().filter(|s| s.kept).count();
    Ok(SourcedSummary {
        envelope: envelope(
            "tts",
            config,
            chat,
            &result.tokens,
            format!(
                "{} of {} distinct source(s) scored at least τ = {} by correlated agreement and \
                 were summarised; {} model call(s).{}",
                kept,
                result.sources.len(),
                config.tau,
                result.calls,
                notes_suffix(&result.notes)
            ),
        ),
        question: Some(result.question.clone()),
        text: result.summary.clone().unwrap_or_default(),
        sources: result
            .sources
            .iter()
            .map(|scored| ScoredSource {
                source: evidence_source(&documents[scored.source]),
                score: scored.score,
                used: scored.kept,
                note: (!scored.copies.is_empty()).then(|| {
                    let copies: Vec<String> = scored
                        .copies
                        .iter()
                        .map(|&c| {
                            format!(
                                "{} (document {})",
                                source_name(&documents[c]),
                                documents[c].summary.id
                            )
                        })
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
                draft: scored.draft.clone(),
                claims: scored.claims.clone(),
                stances: scored.stances.clone(),
                majority: scored.majority,
                permutation: scored.permutation.clone(),
            })
            .collect(),
    })
}

/// A baseline's answer as a stored summary: every distinct source read; with majority claims,
/// each source's score is the share of the claims it supports.
pub(super) fn baseline_summary(
    result: &BaselineResult,
    config: &TtsConfig,
    chat: &str,
    documents: &[Document],
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
        envelope: envelope(
            result.baseline.as_str(),
            config,
            chat,
            &result.tokens,
            format!(
                "Baseline: {what}; {} distinct source(s); {} model call(s).{}",
                result.groups.len(),
                result.calls,
                notes_suffix(&result.notes)
            ),
        ),
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
                    source: evidence_source(&documents[group[0]]),
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
