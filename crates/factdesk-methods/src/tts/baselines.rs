//! The baselines Truthful Text Summarization is compared with ("Incentive-Aligned
//! Multi-Source LLM Summaries"), on the same distinct sources:
//!
//! - all sources: one answer from every source (`tts/draft`);
//! - majority prompt: one answer told to keep only what most sources agree on
//!   (`tts/majority`);
//! - majority claims: the all-sources answer decomposed into claims (`tts/claims`), every
//!   source's stance on each (`tts/stances`), and an answer written again from the claims more
//!   than half of the sources support (`tts/from_claims`).

use factdesk_model::TokenUse;
use factdesk_model::ciber::Stance;
use serde::{Deserialize, Serialize};

use super::{Source, Tts, check};
use crate::MethodError;

/// The majority-prompt template.
pub const MAJORITY_TEMPLATE: &str = "tts/majority";
/// The template of an answer from chosen claims.
pub const FROM_CLAIMS_TEMPLATE: &str = "tts/from_claims";

/// Which baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "kebab-case")]
pub enum Baseline {
    AllSources,
    MajorityPrompt,
    MajorityClaims,
}

impl Baseline {
    pub fn as_str(self) -> &'static str {
        match self {
            Baseline::AllSources => "all-sources",
            Baseline::MajorityPrompt => "majority-prompt",
            Baseline::MajorityClaims => "majority-claims",
        }
    }
}

/// A baseline's answer, with (for majority claims) the claims, the stances and which claims
/// were kept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BaselineResult {
    pub baseline: Baseline,
    pub question: String,
    /// Groups of near-duplicate sources (indices into the input; the first of each is read).
    pub groups: Vec<Vec<usize>>,
    /// `None` when no claim had a majority (majority claims only).
    pub summary: Option<String>,
    pub claims: Vec<String>,
    /// `stances[j][k]`: distinct source j's stance on claim k.
    pub stances: Vec<Vec<Stance>>,
    pub kept_claims: Vec<bool>,
    pub tokens: TokenUse,
    pub calls: usize,
    pub notes: Vec<String>,
}

impl Tts {
    /// Runs `baseline` on `sources` for `question`, after the same checks as [`Tts::run`].
    pub async fn baseline(
        &self,
        baseline: Baseline,
        question: &str,
        sources: &[Source],
    ) -> Result<BaselineResult, MethodError> {
        let groups = check(&self.config, question, sources)?;
        let question = question.trim();
        let distinct: Vec<&str> = groups.iter().map(|g| sources[g[0]].text.as_str()).collect();
        let names: Vec<&str> = groups.iter().map(|g| sources[g[0]].name.as_str()).collect();
        let mut tokens = TokenUse::default();
        let mut calls = 0;
        let mut notes = Vec::new();
        let mut result = BaselineResult {
            baseline,
            question: question.to_owned(),
            groups: groups.clone(),
            summary: None,
            claims: Vec::new(),
            stances: Vec::new(),
            kept_claims: Vec::new(),
            tokens: TokenUse::default(),
            calls: 0,
            notes: Vec::new(),
        };
        match baseline {
            Baseline::AllSources => {
                let answer =
                    self.draft(question, &distinct, "summary", &mut tokens, &mut calls).await?;
                notes.extend(answer.cut.then(|| super::answers::cut_note("the answer")));
                result.summary = Some(answer.text);
            }
            Baseline::MajorityPrompt => {
                let documents = self.quoted(&distinct);
                let boundary = factdesk_llm::nli::boundary(&documents.join("\n"), question);
                let answer = self
                    .ask(
                        MAJORITY_TEMPLATE,
                        serde_json::json!({"question": question, "documents": documents, "boundary": boundary}),
                        "summary",
                        &mut tokens,
                        &mut calls,
                    )
                    .await?;
                result.summary = Some(answer);
            }
            Baseline::MajorityClaims => {
                let draft =
                    self.draft(question, &distinct, "draft", &mut tokens, &mut calls).await?;
                notes.extend(draft.cut.then(|| super::answers::cut_note("the draft")));
                let (claims, cut) =
                    self.claims(&draft.text, question, &mut tokens, &mut calls).await?;
                notes.extend(cut.then(|| super::answers::cut_claims_note("the draft")));
                let quoted = self.quoted(&distinct);
                let stances = self
                    .stances(
                        &claims,
                        &quoted,
                        &names,
                        "the all-sources answer's claims",
                        &mut tokens,
                        &mut calls,
                        &mut notes,
                    )
                    .await?;
                // A claim is kept when more than half of the distinct sources support it.
                let kept: Vec<bool> = (0..claims.len())
                    .map(|k| {
                        let support =
                            stances.iter().filter(|row| row[k] == Stance::Support).count();
                        2 * support > stances.len()
                    })
                    .collect();
                let chosen: Vec<&String> =
                    claims.iter().zip(&kept).filter(|(_, k)| **k).map(|(c, _)| c).collect();
                if chosen.is_empty() {
                    notes.push(
                        "no claim is supported by more than half of the sources: no summary".into(),
                    );
                } else {
                    let boundary = factdesk_llm::nli::boundary(
                        &chosen.iter().map(|c| c.as_str()).collect::<Vec<_>>().join("\n"),
                        question,
                    );
                    let answer = self
                        .ask(
                            FROM_CLAIMS_TEMPLATE,
                            serde_json::json!({"question": question, "claims": chosen, "boundary": boundary}),
                            "summary",
                            &mut tokens,
                            &mut calls,
                        )
                        .await?;
                    result.summary = Some(answer);
                }
                result.claims = claims;
                result.stances = stances;
                result.kept_claims = kept;
            }
        }
        result.tokens = tokens;
        result.calls = calls;
        result.notes = notes;
        Ok(result)
    }
}
