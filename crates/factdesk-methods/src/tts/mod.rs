//! Truthful Text Summarization, from "Incentive-Aligned Multi-Source LLM Summaries": a
//! question is answered from several sources, each scored by how its stances on claims it
//! could not shape agree with its peers' ([`score`]), and the answer is written again from the
//! sources that score at least τ. The steps, as [`Tts::run`] takes them:
//!
//! 1. Near-duplicate sources are collapsed first ([`duplicates`]): the method assumes
//!    independent sources. Fewer than three distinct sources are refused (peer prediction
//!    needs peers).
//! 2. Leave-one-out: for each source i, a draft from every *other* source (`tts/draft`),
//!    decomposed into atomic claims T_i (`tts/claims`; asked for as a JSON list where the model
//!    may take a schema, [`claims_schema`], and read from that or a numbered list,
//!    [`parse_claims`]).
//! 3. Stances of every source on every claim of T_i: by the chat model (`tts/stances`,
//!    several claims per call: supports, contradicts, or abstains, a JSON list of them where the
//!    model may take a schema, [`stances_schema`]; a claim a source's answer does not mention
//!    counts as abstained), or by an NLI model ([`StanceJudge::Verifier`]:
//!    the source supports a claim its best premises entail with probability at least
//!    [`TtsConfig::stance_threshold`], contradicts one they contradict with that probability,
//!    and abstains otherwise; a two-way grounding classifier never contradicts).
//! 4. Scores: correlated agreement with one seeded permutation per source, and the majority
//!    rule beside it; a source is kept when its score is at least τ.
//! 5. The final answer from the kept sources only (`tts/draft`).
//!
//! The paper's baselines are in [`baselines`]. The pipeline sees the chat model through its
//! trait only, and tells a [`Progress`] how far it got; the stance calls of different sources
//! may run side by side ([`Tts::concurrency`]), and before every call the run stops if the
//! [`Progress`] says it is cancelled.

pub mod baselines;
pub mod duplicates;
pub mod score;

use std::sync::Arc;

use factdesk_llm::prompts::PromptLibrary;
use factdesk_llm::{LanguageModel, Nli, NliPair};
use factdesk_model::TokenUse;
use factdesk_model::ciber::Stance;
use futures_util::{StreamExt, TryStreamExt};
use serde::{Deserialize, Serialize};

use crate::MethodError;

/// The templates, by step.
pub const DRAFT_TEMPLATE: &str = "tts/draft";
pub const CLAIMS_TEMPLATE: &str = "tts/claims";
pub const STANCES_TEMPLATE: &str = "tts/stances";

/// How a run goes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TtsConfig {
    /// Sources scoring at least this are kept.
    pub tau: f64,
    /// Seeds each source's permutation (the source given at position i uses `seed + i`, so
    /// collapsing a duplicate changes no other source's permutation).
    pub seed: u64,
    /// Sources whose word 5-gram Jaccard similarity reaches this are one source.
    pub duplicate_threshold: f64,
    /// Claims asked of each draft.
    pub max_claims: usize,
    /// Claims per stance call.
    pub stance_batch: usize,
    /// Words of each document quoted to the model.
    pub document_words: usize,
    /// Who gives the stances.
    pub stance_judge: StanceJudge,
    /// With the NLI judge: the probability a stance needs.
    pub stance_threshold: f64,
}

/// Who judges each source's stance on a claim.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
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

impl Default for TtsConfig {
    fn default() -> Self {
        TtsConfig {
            tau: score::DEFAULT_TAU,
            seed: 0,
            duplicate_threshold: duplicates::DEFAULT_THRESHOLD,
            max_claims: 8,
            stance_batch: 8,
            document_words: 600,
            stance_judge: StanceJudge::Chat,
            stance_threshold: 0.5,
        }
    }
}

/// One source: a name for reports and its text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Source {
    pub name: String,
    pub text: String,
}

/// What became of one distinct source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoredSource {
    /// The source's index in the input, and those of its near-duplicates.
    pub source: usize,
    pub copies: Vec<usize>,
    /// The leave-one-out draft (from every other distinct source) and its claims T_i.
    pub draft: String,
    pub claims: Vec<String>,
    /// `stances[j][k]`: distinct source j's stance on claim k (j in the order of
    /// [`TtsResult::sources`]).
    pub stances: Vec<Vec<Stance>>,
    /// The permutation the score used.
    pub permutation: Vec<usize>,
    pub score: f64,
    pub majority: f64,
    pub kept: bool,
}

/// A run's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TtsResult {
    pub question: String,
    pub sources: Vec<ScoredSource>,
    /// The answer from the kept sources; `None` when none was kept.
    pub summary: Option<String>,
    pub tokens: TokenUse,
    pub calls: usize,
    pub notes: Vec<String>,
}

/// The method, over a chat model and the prompt templates.
pub struct Tts {
    pub model: Arc<dyn LanguageModel>,
    pub prompts: Arc<PromptLibrary>,
    pub config: TtsConfig,
    /// How many sources' stance calls run at once (at least 1).
    pub concurrency: usize,
    /// The NLI model that judges stances with [`StanceJudge::Verifier`].
    pub nli: Option<Arc<dyn Nli>>,
    pub progress: Arc<dyn Progress>,
}

/// What a run reports as it goes, and how it is asked to stop.
pub trait Progress: Send + Sync {
    /// `done` of `total` distinct sources are scored; `next` is the one scored now (none when
    /// all are).
    fn scoring(&self, _done: usize, _total: usize, _next: Option<&str>) {}
    /// The answer is being written from the kept sources.
    fn answering(&self) {}
    /// Asked before every model call: `true` stops the run with [`MethodError::Cancelled`].
    fn cancelled(&self) -> bool {
        false
    }
}

/// A [`Progress`] that ignores everything and never cancels.
#[derive(Debug, Clone, Copy, Default)]
pub struct Quiet;

impl Progress for Quiet {}

/// The field of [`claims_schema`]'s object that holds the claims.
pub const CLAIMS_FIELD: &str = "claims";

/// The JSON Schema of a draft's claims (`tts/claims`): 1 to `max`, `{"claims": [...]}`.
pub fn claims_schema(max: usize) -> serde_json::Value {
    crate::shape::list(CLAIMS_FIELD, max, serde_json::json!({"type": "string"}))
}

/// The claims of a model's answer, up to `max`, without repeats: the items of its
/// `{"claims": [...]}` list when it is one ([`claims_schema`]; each on one line, numbers or
/// bullets before it dropped), else the lines of its numbered or bulleted list
/// ([`crate::revise::cove::parse_questions`]).
pub fn parse_claims(text: &str, max: usize) -> Vec<String> {
    crate::shape::read_items(text, CLAIMS_FIELD, max)
        .unwrap_or_else(|| crate::revise::cove::parse_questions(text, max))
}

/// The stance a line gives after its number: its first stance word, read as abstaining when
/// "not", "neither" or "no" comes before it ("does not support", "neither supports nor …").
fn stance_of(rest: &str) -> Option<Stance> {
    let mut negated = false;
    for word in rest.split(|c: char| !c.is_alphabetic()).filter(|w| !w.is_empty()) {
        let word = word.to_ascii_lowercase();
        if word.starts_with("abstain") {
            return Some(Stance::Neutral);
        }
        let stance = if word.starts_with("support") {
            Some(Stance::Support)
        } else if word.starts_with("contradict") || word.starts_with("refute") {
            Some(Stance::Refute)
        } else {
            None
        };
        if let Some(stance) = stance {
            return Some(if negated { Stance::Neutral } else { stance });
        }
        if matches!(word.as_str(), "not" | "neither" | "no" | "nor" | "doesn" | "don") {
            negated = true;
        }
    }
    None
}

/// The stances of `count` claims in an answer of "number. stance" lines ("Claim 2: supports"
/// and Markdown emphasis around the number are read too); a claim the answer gives no stance
/// for abstains. Also how many were given.
pub fn parse_stances(text: &str, count: usize) -> (Vec<Stance>, usize) {
    let mut stances = vec![None; count];
    for line in text.lines() {
        let line = line.trim().trim_start_matches(['*', '_', '#', '-', ' ']);
        let line =
            line.strip_prefix("Claim").or_else(|| line.strip_prefix("claim")).unwrap_or(line);
        let line = line.trim_start();
        let digits: String = line.chars().take_while(char::is_ascii_digit).collect();
        let Ok(number) = digits.parse::<usize>() else { continue };
        let Some(slot) = number.checked_sub(1).and_then(|index| stances.get_mut(index)) else {
            continue;
        };
        if slot.is_none() {
            *slot = stance_of(&line[digits.len()..]);
        }
    }
    let given = stances.iter().filter(|s| s.is_some()).count();
    (stances.into_iter().map(|s| s.unwrap_or(Stance::Neutral)).collect(), given)
}

/// The field of [`stances_schema`]'s object that holds the stances.
pub const STANCES_FIELD: &str = "stances";

/// The JSON Schema of one source's stances on `count` claims (`tts/stances`): exactly `count`
/// of "supports", "contradicts" and "abstains", in the claims' order, `{"stances": [...]}`.
pub fn stances_schema(count: usize) -> serde_json::Value {
    let words =
        serde_json::json!({"type": "string", "enum": ["supports", "contradicts", "abstains"]});
    let mut schema = crate::shape::list(STANCES_FIELD, count, words);
    schema["properties"][STANCES_FIELD]["minItems"] = count.max(1).into();
    schema
}

/// The stances of `count` claims in a model's answer, and how many were given: the items of
/// its `{"stances": [...]}` list in order when it is one ([`stances_schema`]; each read as a
/// line after its number is), else the lines of its free text ([`parse_stances`]).
pub fn parse_stance_answer(text: &str, count: usize) -> (Vec<Stance>, usize) {
    let Some(listed) = crate::shape::read_list(text, STANCES_FIELD) else {
        return parse_stances(text, count);
    };
    let read: Vec<Option<Stance>> = listed.iter().take(count).map(|item| stance_of(item)).collect();
    let given = read.iter().flatten().count();
    let mut stances: Vec<Stance> = read.into_iter().map(|s| s.unwrap_or(Stance::Neutral)).collect();
    stances.resize(count, Stance::Neutral);
    (stances, given)
}

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
    pub(crate) async fn ask(
        &self,
        template: &str,
        context: serde_json::Value,
        purpose: &str,
        tokens: &mut TokenUse,
        calls: &mut usize,
    ) -> Result<String, MethodError> {
        self.ask_shaped(template, context, purpose, None, tokens, calls).await
    }

    /// As [`Self::ask`], asking for an answer of `schema`'s shape where the model may take one
    /// ([`crate::shape`]); the caller still reads an answer of any shape.
    pub(crate) async fn ask_shaped(
        &self,
        template: &str,
        context: serde_json::Value,
        purpose: &str,
        schema: Option<serde_json::Value>,
        tokens: &mut TokenUse,
        calls: &mut usize,
    ) -> Result<String, MethodError> {
        if self.progress.cancelled() {
            return Err(MethodError::Cancelled);
        }
        let mut request = self.prompts.render_request(template, &context)?;
        request.params.seed = Some(self.config.seed);
        if let Some(schema) = schema {
            crate::shape::constrain(&*self.model, &mut request, schema, None);
        }
        let completion = self.model.complete(&request).await?;
        tokens.add(
            purpose,
            u64::from(completion.usage.prompt_tokens),
            u64::from(completion.usage.completion_tokens),
        );
        *calls += 1;
        Ok(completion.text().trim().to_owned())
    }

    pub(crate) fn quoted(&self, texts: &[&str]) -> Vec<String> {
        texts
            .iter()
            .map(|text| crate::grounding::first_words(text, self.config.document_words))
            .collect()
    }

    /// A draft answering `question` from `documents`.
    pub(crate) async fn draft(
        &self,
        question: &str,
        documents: &[&str],
        purpose: &str,
        tokens: &mut TokenUse,
        calls: &mut usize,
    ) -> Result<String, MethodError> {
        let documents = self.quoted(documents);
        let boundary = factdesk_llm::nli::boundary(&documents.join("\n"), question);
        let answer = self.ask(
            DRAFT_TEMPLATE,
            serde_json::json!({"question": question, "documents": documents, "boundary": boundary}),
            purpose,
            tokens,
            calls,
        )
        .await?;
        // A weak model may echo the data markers it was shown (their case garbled); they are no
        // part of the answer.
        let hex = boundary.trim_start_matches("DATA-").to_ascii_lowercase();
        let lines: Vec<&str> = answer
            .lines()
            .filter(|line| {
                let line = line.trim().to_ascii_lowercase();
                !(line.starts_with("<<<") && line.contains(&hex))
            })
            .collect();
        Ok(lines.join("\n").trim().to_owned())
    }

    /// The atomic claims of `draft` (`tts/claims`), at most `max_claims`.
    pub(crate) async fn claims(
        &self,
        draft: &str,
        question: &str,
        tokens: &mut TokenUse,
        calls: &mut usize,
    ) -> Result<Vec<String>, MethodError> {
        let answer = self
            .ask_shaped(
                CLAIMS_TEMPLATE,
                serde_json::json!({
                    "summary": draft,
                    "max": self.config.max_claims,
                    "boundary": factdesk_llm::nli::boundary(draft, question),
                }),
                "claims",
                Some(claims_schema(self.config.max_claims)),
                tokens,
                calls,
            )
            .await?;
        Ok(parse_claims(&answer, self.config.max_claims))
    }

    /// Every source's stances on `claims` (`[source][claim]`), several claims per call; a
    /// stance not given abstains, and a note (naming `whose` claims) says so.
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn stances(
        &self,
        claims: &[String],
        quoted: &[String],
        names: &[&str],
        whose: &str,
        tokens: &mut TokenUse,
        calls: &mut usize,
        notes: &mut Vec<String>,
    ) -> Result<Vec<Vec<Stance>>, MethodError> {
        if self.config.stance_judge == StanceJudge::Verifier {
            return self.verifier_stances(claims, quoted, notes).await;
        }
        // One source's row, with what it cost and noted; rows are merged in source order.
        let row = |j: usize| async move {
            let document = &quoted[j];
            let (mut row, mut tokens, mut calls, mut notes) =
                (Vec::new(), TokenUse::default(), 0, Vec::new());
            for batch in claims.chunks(self.config.stance_batch.max(1)) {
                let boundary = factdesk_llm::nli::boundary(document, &batch.join("\n"));
                let answer = self
                    .ask_shaped(
                        STANCES_TEMPLATE,
                        serde_json::json!({"document": document, "claims": batch, "boundary": boundary}),
                        "stance",
                        Some(stances_schema(batch.len())),
                        &mut tokens,
                        &mut calls,
                    )
                    .await?;
                let (given, read) = parse_stance_answer(&answer, batch.len());
                if read < batch.len() {
                    notes.push(format!(
                        "{} on {whose}: {} of {} stance(s) not given, counted as abstained",
                        names[j],
                        batch.len() - read,
                        batch.len()
                    ));
                }
                row.extend(given);
            }
            Ok::<_, MethodError>((row, tokens, calls, notes))
        };
        // The first error stops the rows still in flight.
        let rows: Vec<_> = futures_util::stream::iter(0..quoted.len())
            .map(row)
            .buffered(self.concurrency.max(1))
            .try_collect()
            .await?;
        let mut stances = Vec::new();
        for (row, used, made, noted) in rows {
            tokens.merge(&used);
            *calls += made;
            notes.extend(noted);
            stances.push(row);
        }
        Ok(stances)
    }

    /// Every source's stances on `claims` by the NLI model: each claim against its best
    /// premises in the source (BM25-ranked sentences, as grounding cuts them), one batch per
    /// source; the pairs judged are noted.
    async fn verifier_stances(
        &self,
        claims: &[String],
        quoted: &[String],
        notes: &mut Vec<String>,
    ) -> Result<Vec<Vec<Stance>>, MethodError> {
        let nli = self.nli.as_ref().ok_or_else(|| {
            MethodError::Input("stances by the verifier need an NLI model; none is loaded".into())
        })?;
        let config = crate::grounding::GroundingConfig::default();
        let threshold = self.config.stance_threshold;
        let mut rows = Vec::new();
        let mut judged = 0;
        for document in quoted {
            if self.progress.cancelled() {
                return Err(MethodError::Cancelled);
            }
            let spans = factdesk_text::segment_sentences(document, &config.language);
            let sentences: Vec<&str> = spans
                .iter()
                .map(|span| span.slice(document).trim())
                .filter(|text| !text.is_empty())
                .collect();
            let mut slots = Vec::new();
            let mut pairs = Vec::new();
            for (k, claim) in claims.iter().enumerate() {
                for premise in crate::grounding::premises(claim, &sentences, &config) {
                    slots.push(k);
                    pairs.push(NliPair { premise: premise.join(" "), hypothesis: claim.clone() });
                }
            }
            let judgements =
                crate::judge::classify_all(nli.as_ref(), &pairs, &[document.as_str()]).await?;
            judged += pairs.len();
            let (mut entail, mut contradict) =
                (vec![0.0_f64; claims.len()], vec![0.0_f64; claims.len()]);
            for (k, judgement) in slots.into_iter().zip(judgements) {
                entail[k] = entail[k].max(judgement.scores.entailment);
                contradict[k] = contradict[k].max(judgement.scores.contradiction);
            }
            rows.push(
                (0..claims.len())
                    .map(|k| {
                        if entail[k] >= threshold && entail[k] >= contradict[k] {
                            Stance::Support
                        } else if contradict[k] >= threshold {
                            Stance::Refute
                        } else {
                            Stance::Neutral
                        }
                    })
                    .collect(),
            );
        }
        if !claims.is_empty() {
            notes.push(format!(
                "stances on {} claim(s) by {}: {judged} premise pair(s) judged",
                claims.len(),
                nli.name()
            ));
        }
        Ok(rows)
    }

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
        let text = self.draft(question.trim(), sources, "summary", &mut tokens, &mut calls).await?;
        Ok((text, tokens))
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
            let draft = self.draft(question, &others, "draft", &mut tokens, &mut calls).await?;
            let claims = self.claims(&draft, question, &mut tokens, &mut calls).await?;
            if claims.is_empty() {
                notes.push(format!(
                    "{}: its leave-one-out draft gave no claims; scored 0",
                    sources[group[0]].name
                ));
            }
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
            Some(self.draft(question, &kept, "summary", &mut tokens, &mut calls).await?)
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

#[cfg(test)]
mod tests;
