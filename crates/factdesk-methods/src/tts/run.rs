//! A run from start to end: the question, settings and sources checked before any call
//! ([`check`]), then for each distinct source its leave-one-out draft, claims, stances and
//! scores, and the answer from the kept sources ([`Tts::run`]); and an answer from sources a
//! person chose ([`Tts::answer`]).

use factdesk_model::TokenUse;

use super::{ScoredSource, Source, Tts, TtsConfig, TtsResult, duplicates, score};
use crate::MethodError;

/// Checks the question, the settings and the sources before any call; gives the groups of
/// near-duplicate sources (indices into `sources`, the first of each the one kept).
pub fn check(
    config: &TtsConfig,
    question: &str,
    sources: &[Source],
) -> Result<Vec<Vec<usize>>, MethodError> {
    if question.trim().is_empty() {
        return Err(MethodError::Input(
            "the question is empty: say what the summary answers".into(),
        ));
    }
    if !config.tau.is_finite() || !config.duplicate_threshold.is_finite() {
        return Err(MethodError::Input("tau and the duplicate threshold must be numbers".into()));
    }
    if !(config.stance_threshold > 0.0 && config.stance_threshold <= 1.0) {
        return Err(MethodError::Input(
            "the stance threshold is a probability above 0 and at most 1".into(),
        ));
    }
    if config.max_claims == 0 || config.stance_batch == 0 || config.document_words == 0 {
        return Err(MethodError::Input(
            "max_claims, stance_batch and document_words must be at least 1".into(),
        ));
    }
    let empty: Vec<String> = sources
        .iter()
        .enumerate()
        .filter(|(_, source)| source.text.trim().is_empty())
        .map(|(i, source)| format!("{} (source {})", source.name, i + 1))
        .collect();
    if !empty.is_empty() {
        return Err(MethodError::Input(format!(
            "source(s) without text: {}; choose other documents",
            empty.join(", ")
        )));
    }
    let texts: Vec<&str> = sources.iter().map(|source| source.text.as_str()).collect();
    let groups = duplicates::groups(&texts, config.duplicate_threshold);
    if groups.len() < 3 {
        let merged: Vec<String> = groups
            .iter()
            .filter(|group| group.len() > 1)
            .map(|group| {
                let names: Vec<&str> = group.iter().map(|&i| sources[i].name.as_str()).collect();
                names.join(" = ")
            })
            .collect();
        return Err(MethodError::Input(format!(
            "peer prediction needs peers: at least 3 distinct sources ({} given, {} after \
             collapsing near-duplicates{}); add documents",
            sources.len(),
            groups.len(),
            if merged.is_empty() { String::new() } else { format!(": {}", merged.join("; ")) }
        )));
    }
    Ok(groups)
}

impl Tts {
    /// The answer to `question` from `sources` alone (what [`Tts::run`] writes from the kept
    /// sources; also an answer from sources a person chose), with its tokens.
    pub async fn answer(
        &self,
        question: &str,
        sources: &[&str],
    ) -> Result<(String, TokenUse), MethodError> {
        if question.trim().is_empty() || sources.iter().all(|text| text.trim().is_empty()) {
            return Err(MethodError::Input(
                "an answer needs a question and at least one source with text".into(),
            ));
        }
        let (mut tokens, mut calls) = (TokenUse::default(), 0);
        self.progress.answering();
        let draft =
            self.draft(question.trim(), sources, "summary", &mut tokens, &mut calls).await?;
        Ok((draft.text, tokens))
    }

    /// Runs the method on `sources` for `question` (see the module documentation).
    pub async fn run(&self, question: &str, sources: &[Source]) -> Result<TtsResult, MethodError> {
        let groups = check(&self.config, question, sources)?;
        let question = question.trim();
        let texts: Vec<&str> = sources.iter().map(|source| source.text.as_str()).collect();
        let distinct: Vec<&str> = groups.iter().map(|group| texts[group[0]]).collect();
        let quoted = self.quoted(&distinct);
        let mut tokens = TokenUse::default();
        let mut calls = 0;
        let mut notes = Vec::new();
        let mut scored = Vec::new();
        let names: Vec<&str> = groups.iter().map(|g| sources[g[0]].name.as_str()).collect();
        for (i, group) in groups.iter().enumerate() {
            self.progress.scoring(i, groups.len(), Some(names[i]));
            let others: Vec<&str> =
                distinct.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, t)| *t).collect();
            // A call that fails on its own (a prompt longer than the server's context, an
            // answer that cannot be read) leaves this source without claims, noted; the other
            // sources go on.
            let name = &sources[group[0]].name;
            let draft = match self.draft(question, &others, "draft", &mut tokens, &mut calls).await
            {
                Ok(draft) => {
                    let whose = format!("{name}: its leave-one-out draft");
                    notes.extend(draft.cut.then(|| super::answers::cut_note(&whose)));
                    Ok(draft.text)
                }
                Err(error) if error.is_one_calls() => {
                    Err(format!("{name}: its leave-one-out draft failed ({error}); scored 0"))
                }
                Err(error) => return Err(error),
            };
            let claims = match &draft {
                // An answer in shape whose sentences hold no words (`{"sentences": [" "]}`).
                Ok(draft) if draft.is_empty() => {
                    Err(format!("{name}: its leave-one-out draft was empty; scored 0"))
                }
                Ok(draft) => match self.claims(draft, question, &mut tokens, &mut calls).await {
                    Ok((claims, cut)) => {
                        let note = || {
                            let note = super::answers::cut_claims_note("its leave-one-out draft");
                            format!("{name}: {note}")
                        };
                        notes.extend(cut.then(note));
                        Ok(claims)
                    }
                    Err(error) if error.is_one_calls() => Err(format!(
                        "{name}: the claims of its leave-one-out draft failed ({error}); scored 0"
                    )),
                    Err(error) => return Err(error),
                },
                Err(note) => Err(note.clone()),
            };
            let claims = match claims {
                Ok(claims) if claims.is_empty() => {
                    notes.push(format!("{name}: its leave-one-out draft gave no claims; scored 0"));
                    claims
                }
                Ok(claims) => claims,
                Err(note) => {
                    notes.push(note);
                    Vec::new()
                }
            };
            let draft = draft.unwrap_or_default();
            let whose = format!("{}'s claims", sources[group[0]].name);
            let stances = self
                .stances(&claims, &quoted, &names, &whose, &mut tokens, &mut calls, &mut notes)
                .await?;
            let permutation =
                score::permutation(claims.len(), self.config.seed.wrapping_add(group[0] as u64));
            let ca = score::correlated_agreement(i, &stances, &permutation, None)
                .map_err(MethodError::Input)?;
            let majority = score::majority_score(i, &stances, None).map_err(MethodError::Input)?;
            scored.push(ScoredSource {
                source: group[0],
                copies: group[1..].to_vec(),
                draft,
                claims,
                stances,
                permutation,
                score: ca,
                majority,
                kept: ca >= self.config.tau,
            });
        }
        self.progress.scoring(groups.len(), groups.len(), None);
        let kept: Vec<&str> = scored
            .iter()
            .zip(&distinct)
            .filter(|(source, _)| source.kept)
            .map(|(_, text)| *text)
            .collect();
        let summary = if kept.is_empty() {
            notes.push(format!("no source scored at least τ = {}: no summary", self.config.tau));
            None
        } else {
            self.progress.answering();
            match self.draft(question, &kept, "summary", &mut tokens, &mut calls).await {
                Ok(summary) => {
                    notes.extend(summary.cut.then(|| super::answers::cut_note("the summary")));
                    Some(summary.text)
                }
                Err(error) if error.is_one_calls() => {
                    notes.push(format!("the summary from the kept sources failed ({error})"));
                    None
                }
                Err(error) => return Err(error),
            }
        };
        Ok(TtsResult {
            question: question.to_owned(),
            sources: scored,
            summary,
            tokens,
            calls,
            notes,
        })
    }
}
