//! Correcting a passage against evidence, the two self-correcting methods of "Correcting
//! Hallucinations in News Summaries: Exploration of Self-Correcting LLM Methods with External
//! Knowledge":
//!
//! - [`rarr`] (few-shot): for each sentence, searches ("I googled: …"); evidence for each
//!   search; an agreement gate on each (search, evidence) pair; only where the evidence
//!   disagrees, an edit that changes as little as possible.
//! - [`cove`] (zero-shot): verification questions planned from the passage; each answered
//!   from its own evidence alone (factored: the passage is never shown); the passage refined
//!   from the question / answer pairs.
//!
//! Both see evidence through [`evidence::EvidenceFinder`] (a corpus, the passage's source
//! documents, or none: the model's own knowledge), as snippets or as chunks ranked by
//! embedding similarity ([`evidence::Granularity`]). The gate is the chat model (reasoning
//! ending in agrees / disagrees) or the NLI verifier ([`Gate`]).
//!
//! What either returns is a [`Revision`]: the revised text and its edits (word spans of the
//! original, from a diff of each changed part, each with the question, evidence and agreement
//! behind it), every step, and the changes refused. Guard rails, recorded when they act:
//! - an edit may not grow the passage beyond [`ReviseConfig::max_growth`] times its length;
//! - a change to a sentence that all the evidence asked about agreed with is refused (the
//!   paper's "preserve" property): RARR edits only after a disagreement, and CoVe's
//!   refinement keeps only the changes inside a sentence some answer disagreed with;
//! - a changed sentence is kept only if the gate then agrees with it;
//! - model output that cannot be used (no questions, an empty edit) leaves the passage as it
//!   was and says why. The original is never lost: it is part of every revision.

pub mod cove;
pub mod evidence;
pub mod metrics;
pub mod rarr;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use factdesk_llm::prompts::PromptLibrary;
use factdesk_llm::{LanguageModel, Nli, NliPair, TokenUsage};
use factdesk_model::{
    Edit, Envelope, EvidenceSentences, RejectedChange, Revision, TokenUse, VerificationStep,
};
use serde::{Deserialize, Serialize};

use crate::MethodError;
use evidence::{EvidenceFinder, EvidenceUnit};

/// Which method revises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReviseMethod {
    Rarr,
    Cove,
}

impl ReviseMethod {
    pub fn as_str(self) -> &'static str {
        match self {
            ReviseMethod::Rarr => "rarr",
            ReviseMethod::Cove => "cove",
        }
    }
}

impl std::str::FromStr for ReviseMethod {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "rarr" => Ok(ReviseMethod::Rarr),
            "cove" => Ok(ReviseMethod::Cove),
            other => Err(format!("'{other}' is no revising method; use rarr or cove")),
        }
    }
}

/// Who decides whether evidence agrees with a part of the passage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Gate {
    /// The chat model, reasoning and ending in "agrees" or "disagrees".
    Chat,
    /// The NLI verifier: agrees when some evidence unit entails the part with P(entailment)
    /// at least [`ReviseConfig::threshold`].
    Nli,
}

impl std::str::FromStr for Gate {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "chat" | "llm" => Ok(Gate::Chat),
            "nli" | "verifier" => Ok(Gate::Nli),
            other => Err(format!("'{other}' is no agreement gate; use chat or nli")),
        }
    }
}

/// How a revision runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReviseConfig {
    pub method: ReviseMethod,
    /// CoVe: at most this many verification questions; RARR: at most this many searches per
    /// sentence.
    pub questions: usize,
    /// The revised passage may be at most this many times as long as the original.
    pub max_growth: f64,
    /// Longer passages are refused.
    pub max_chars: usize,
    pub gate: Gate,
    /// With the NLI gate, the P(entailment) at which evidence agrees.
    pub threshold: f64,
    /// Words of evidence quoted to the chat model per step.
    pub evidence_words: usize,
    /// Sentence rules of the passage's language (ISO 639-1).
    pub language: String,
    pub seed: u64,
}

impl Default for ReviseConfig {
    fn default() -> Self {
        ReviseConfig {
            method: ReviseMethod::Rarr,
            questions: 3,
            max_growth: 1.5,
            max_chars: 20_000,
            gate: Gate::Chat,
            threshold: 0.5,
            evidence_words: 200,
            language: "en".into(),
            seed: 0,
        }
    }
}

/// What a reviser uses: the chat model, the NLI verifier (for the NLI gate), the prompts and
/// where evidence comes from.
pub struct Reviser {
    pub model: Arc<dyn LanguageModel>,
    pub nli: Option<Arc<dyn Nli>>,
    pub prompts: Arc<PromptLibrary>,
    pub evidence: Arc<dyn EvidenceFinder>,
    pub config: ReviseConfig,
}

impl std::fmt::Debug for Reviser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reviser").field("config", &self.config).finish_non_exhaustive()
    }
}

/// Token use and model calls by step, shared by the concurrent steps of one revision.
#[derive(Debug, Default)]
pub(crate) struct Ledger(Mutex<(TokenUse, BTreeMap<String, u32>)>);

impl Ledger {
    fn record(&self, purpose: &str, usage: TokenUsage) {
        if let Ok(mut ledger) = self.0.lock() {
            ledger.0.add(
                purpose,
                u64::from(usage.prompt_tokens),
                u64::from(usage.completion_tokens),
            );
            *ledger.1.entry(purpose.to_owned()).or_default() += 1;
        }
    }

    /// Adds tokens spent outside the reviser's own calls (an evidence finder's).
    fn merge(&self, tokens: &TokenUse) {
        if let Ok(mut ledger) = self.0.lock() {
            ledger.0.merge(tokens);
        }
    }

    fn take(&self) -> (TokenUse, BTreeMap<String, u32>) {
        self.0.lock().map(|ledger| ledger.clone()).unwrap_or_default()
    }
}

/// A gate's decision on one part.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Decision {
    pub agrees: Option<bool>,
    pub agreement: Option<f64>,
    pub note: Option<String>,
}

impl Reviser {
    /// Revises `passage` with the configured method.
    pub async fn revise(&self, passage: &str) -> Result<Revision, MethodError> {
        let chars = passage.chars().count();
        if chars > self.config.max_chars {
            return Err(MethodError::Input(format!(
                "the passage has {chars} characters, more than the {} a revision takes; split \
                 it, or raise max_chars",
                self.config.max_chars
            )));
        }
        if passage.trim().is_empty() {
            return Err(MethodError::Input(
                "the passage is empty: there is nothing to revise".into(),
            ));
        }
        if self.config.gate == Gate::Nli && self.nli.is_none() {
            return Err(MethodError::Input("the NLI gate needs an NLI model".into()));
        }
        if self.config.method == ReviseMethod::Rarr && self.evidence.closed_book() {
            return Err(MethodError::Input(
                "RARR changes a passage only where evidence disagrees, so without evidence it \
                 can change nothing: choose source, corpus or web evidence (CoVe can answer from \
                 the model's own knowledge)"
                    .into(),
            ));
        }
        match self.config.method {
            ReviseMethod::Rarr => rarr::revise(self, passage).await,
            ReviseMethod::Cove => cove::revise(self, passage).await,
        }
    }

    /// One chat call of `template`, its cost recorded under `purpose`; the answer's text.
    pub(crate) async fn ask(
        &self,
        ledger: &Ledger,
        template: &str,
        context: serde_json::Value,
        purpose: &str,
    ) -> Result<String, MethodError> {
        let completion = self.complete(ledger, template, context, purpose, None).await?;
        Ok(completion.text().trim().to_owned())
    }

    /// As [`Self::ask`], asking for an answer of `schema`'s shape where the model may take
    /// one ([`crate::shape`]); the caller still reads an answer of any shape.
    pub(crate) async fn ask_shaped(
        &self,
        ledger: &Ledger,
        template: &str,
        context: serde_json::Value,
        purpose: &str,
        schema: serde_json::Value,
    ) -> Result<String, MethodError> {
        let completion = self.complete(ledger, template, context, purpose, Some(schema)).await?;
        Ok(completion.text().trim().to_owned())
    }

    /// As [`Self::ask`], but `None` when the answer was cut at the template's `max_tokens`: a
    /// cut edit or rewrite would drop the rest of the text.
    /// With `schema`, it asks for an answer of that shape as [`Self::ask_shaped`] does.
    pub(crate) async fn ask_whole(
        &self,
        ledger: &Ledger,
        template: &str,
        context: serde_json::Value,
        purpose: &str,
        schema: Option<serde_json::Value>,
    ) -> Result<Option<String>, MethodError> {
        let completion = self.complete(ledger, template, context, purpose, schema).await?;
        let cut = completion
            .choices
            .first()
            .is_some_and(|choice| choice.finish_reason == factdesk_llm::FinishReason::Length);
        Ok((!cut).then(|| completion.text().trim().to_owned()))
    }

    async fn complete(
        &self,
        ledger: &Ledger,
        template: &str,
        context: serde_json::Value,
        purpose: &str,
        schema: Option<serde_json::Value>,
    ) -> Result<factdesk_llm::Completion, MethodError> {
        let mut request = self.prompts.render_request(template, &context)?;
        request.params.seed = Some(self.config.seed);
        if let Some(schema) = schema {
            crate::shape::constrain(&*self.model, &mut request, schema, None);
        }
        let completion = self.model.complete(&request).await?;
        ledger.record(purpose, completion.usage);
        Ok(completion)
    }

    /// Evidence for a query, or the note saying why there is none.
    /// Sentences that address the model ([`crate::injection`]) are left out of every unit,
    /// and the note says how many.
    pub(crate) async fn find(
        &self,
        ledger: &Ledger,
        query: &str,
    ) -> (Vec<EvidenceUnit>, Option<String>) {
        let found = match self.evidence.find(query).await {
            Ok(found) => found,
            Err(message) => {
                return (Vec::new(), Some(format!("evidence could not be read: {message}")));
            }
        };
        ledger.merge(&found.tokens);
        let units = found.units;
        let mut left_out = 0;
        let units: Vec<EvidenceUnit> = units
            .into_iter()
            .filter_map(|unit| {
                let before = unit.sentences.len();
                let kept: Vec<String> = unit
                    .sentences
                    .into_iter()
                    .filter(|sentence| !crate::injection::addresses_model(sentence))
                    .collect();
                left_out += before - kept.len();
                (!kept.is_empty()).then(|| EvidenceUnit::new(unit.source, kept))
            })
            .collect();
        let mut notes: Vec<String> = found.note.into_iter().collect();
        if left_out > 0 {
            notes.push(format!(
                "{left_out} evidence sentence(s) that address the model were left out"
            ));
        }
        if units.is_empty() && !self.evidence.closed_book() {
            notes.push("no evidence found".into());
        }
        (units, (!notes.is_empty()).then(|| notes.join("; ")))
    }

    /// The evidence text quoted to the chat model: the units in order, cut at
    /// `evidence_words`.
    pub(crate) fn quoted(&self, units: &[EvidenceUnit]) -> String {
        let texts: Vec<&str> = units.iter().map(|unit| unit.text.as_str()).collect();
        capped_lines(&texts, self.config.evidence_words)
    }

    /// Does `evidence` agree with `statement`, as the answer to `query`? With the chat gate
    /// the model reads the quoted evidence; with the NLI gate each unit is a premise and the
    /// best P(entailment) decides.
    pub(crate) async fn gate(
        &self,
        ledger: &Ledger,
        statement: &str,
        query: &str,
        evidence: &[String],
    ) -> Result<Decision, MethodError> {
        if evidence.is_empty() {
            return Ok(Decision { agrees: None, agreement: None, note: None });
        }
        match self.config.gate {
            Gate::Chat => {
                let texts: Vec<&str> = evidence.iter().map(String::as_str).collect();
                let joined = capped_lines(&texts, self.config.evidence_words);
                let boundary = factdesk_llm::nli::boundary(&joined, statement);
                let answer = self
                    .ask_shaped(
                        ledger,
                        rarr::AGREEMENT_TEMPLATE,
                        serde_json::json!({
                            "statement": statement,
                            "query": query,
                            "evidence": joined,
                            "boundary": boundary,
                        }),
                        "gate",
                        agreement_schema(),
                    )
                    .await?;
                let agrees = parse_agreement_answer(&answer);
                let note = match agrees {
                    Some(_) => Some(answer),
                    None => Some(format!(
                        "the gate's answer ends in neither agrees nor disagrees, so nothing is \
                         changed: {answer}"
                    )),
                };
                Ok(Decision { agrees, agreement: agrees.map(|a| if a { 1.0 } else { 0.0 }), note })
            }
            Gate::Nli => {
                let Some(nli) = &self.nli else {
                    return Err(MethodError::Input("the NLI gate needs an NLI model".into()));
                };
                let pairs: Vec<NliPair> = evidence
                    .iter()
                    .map(|premise| NliPair {
                        premise: premise.clone(),
                        hypothesis: statement.into(),
                    })
                    .collect();
                // The snippets are all the gate sees: a figure they leave out is unsupported,
                // not a sign that the statement is wrong.
                let judgements = crate::judge::classify_all(nli.as_ref(), &pairs, &[]).await?;
                let best = judgements
                    .iter()
                    .map(|judgement| judgement.scores.entailment)
                    .fold(0.0f64, f64::max);
                Ok(Decision {
                    agrees: Some(best >= self.config.threshold),
                    agreement: Some(best.clamp(0.0, 1.0)),
                    note: None,
                })
            }
        }
    }

    /// The envelope's parameters: the configuration, the evidence and the calls by step.
    pub(crate) fn parameters(&self, calls: &BTreeMap<String, u32>) -> serde_json::Value {
        serde_json::json!({
            "gate": self.config.gate,
            "evidence": self.evidence.name(),
            "granularity": self.evidence.granularity(),
            "questions": self.config.questions,
            "max_growth": self.config.max_growth,
            "threshold": self.config.threshold,
            "seed": self.config.seed,
            "calls": calls,
        })
    }

    /// The revision of `passage` these edits, steps and refusals make, with the tokens and
    /// calls of `ledger`.
    pub(crate) fn finish(
        &self,
        method: &str,
        passage: &str,
        ledger: Ledger,
        (edits, steps, rejected): (Vec<Edit>, Vec<VerificationStep>, Vec<RejectedChange>),
        explanation: String,
    ) -> Revision {
        let (tokens, calls) = ledger.take();
        Revision {
            envelope: Envelope {
                method: method.into(),
                parameters: self.parameters(&calls),
                model: crate::llm_cite::model_name(&*self.model),
                nli_model: self.nli_name(),
                tokens,
                explanation,
            },
            original: passage.to_owned(),
            revised: apply(passage, &edits),
            edits,
            steps,
            rejected,
            metrics: None,
        }
    }

    pub(crate) fn nli_name(&self) -> Option<String> {
        match self.config.gate {
            Gate::Nli => self.nli.as_ref().map(|nli| nli.name()),
            Gate::Chat => None,
        }
    }
}

/// `texts` one per line, cut after `limit` words in all (at least one word).
pub(crate) fn capped_lines(texts: &[&str], limit: usize) -> String {
    let mut left = limit.max(1);
    let mut lines = Vec::new();
    for text in texts {
        if left == 0 {
            break;
        }
        let words: Vec<&str> = text.split_whitespace().take(left).collect();
        left -= words.len();
        if !words.is_empty() {
            lines.push(words.join(" "));
        }
    }
    lines.join("\n")
}

/// The sentences of `text` with their byte ranges (the whole text when the splitter finds
/// none).
pub(crate) fn sentence_spans(text: &str, language: &str) -> Vec<(usize, usize)> {
    let spans: Vec<(usize, usize)> = factdesk_text::segment_sentences(text, language)
        .into_iter()
        .map(|span| {
            let slice = span.slice(text);
            let lead = slice.len() - slice.trim_start().len();
            let start = span.start_byte as usize + lead;
            (start, start + slice.trim().len())
        })
        .filter(|(start, end)| text[*start..*end].chars().any(char::is_alphanumeric))
        .collect();
    if spans.is_empty() {
        let lead = text.len() - text.trim_start().len();
        return vec![(lead, lead + text.trim().len())];
    }
    spans
}

/// The changes that turn `before` into `after`, as (byte offset in `before`, replaced text,
/// new text), from a word diff; changes separated only by white space are one.
pub fn word_changes(before: &str, after: &str) -> Vec<(usize, String, String)> {
    let old = diff_tokens(before);
    let new = diff_tokens(after);
    let diff = similar::TextDiff::configure()
        .algorithm(similar::Algorithm::Patience)
        .diff_slices(&old, &new);
    let old_offsets: Vec<usize> = old
        .iter()
        .scan(0usize, |at, slice| {
            let start = *at;
            *at += slice.len();
            Some(start)
        })
        .collect();
    let old_at = |index: usize| old_offsets.get(index).copied().unwrap_or(before.len());
    let new_text = |from: usize, to: usize| new[from..to].concat();
    // (old start, old end, new start, new end) in tokens.
    let mut hunks: Vec<(usize, usize, usize, usize)> = Vec::new();
    for op in diff.ops() {
        let (tag, old_range, new_range) = op.as_tag_tuple();
        if tag == similar::DiffTag::Equal {
            continue;
        }
        if let Some(last) = hunks.last_mut() {
            let gap = &old[last.1..old_range.start];
            if gap.iter().all(|token| token.trim().is_empty()) {
                last.1 = old_range.end;
                last.3 = new_range.end;
                continue;
            }
        }
        hunks.push((old_range.start, old_range.end, new_range.start, new_range.end));
    }
    hunks
        .into_iter()
        .map(|(old_start, old_end, new_start, new_end)| {
            let start = old_at(old_start);
            let end = old_at(old_end);
            (start, before[start..end].to_owned(), new_text(new_start, new_end))
        })
        .collect()
}

/// The tokens a diff compares: runs of letters and digits, runs of white space, and each other
/// character alone (so "1899." changes as "1899", not with its full stop).
fn diff_tokens(text: &str) -> Vec<&str> {
    let class = |c: char| {
        if c.is_alphanumeric() {
            0
        } else if c.is_whitespace() {
            1
        } else {
            2
        }
    };
    let mut tokens = Vec::new();
    let mut start = 0;
    let mut previous: Option<u8> = None;
    for (at, c) in text.char_indices() {
        let kind = class(c);
        if let Some(last) = previous
            && (kind != last || kind == 2)
        {
            tokens.push(&text[start..at]);
            start = at;
        }
        previous = Some(kind);
    }
    if start < text.len() {
        tokens.push(&text[start..]);
    }
    tokens
}

/// Applies `edits` (made in order, not overlapping) to `original`; edits that do not fit leave
/// the original, which storing the revision then refuses as inconsistent.
pub(crate) fn apply(original: &str, edits: &[Edit]) -> String {
    factdesk_model::apply_edits(original, edits, |_| true).unwrap_or_else(|_| original.to_owned())
}

/// Evidence units as the model records them.
pub(crate) fn recorded(units: &[EvidenceUnit]) -> Vec<EvidenceSentences> {
    units
        .iter()
        .map(|unit| EvidenceSentences {
            source: unit.source.clone(),
            sentences: unit.sentences.clone(),
        })
        .collect()
}

/// The JSON Schema of the chat gate's answer (`rarr/agreement`): its reasoning first, then its
/// verdict, `{"reasoning": "...", "verdict": "agrees" | "disagrees"}`.
pub fn agreement_schema() -> serde_json::Value {
    serde_json::json!({
        "type": "object",
        "properties": {
            "reasoning": {"type": "string"},
            "verdict": {"type": "string", "enum": ["agrees", "disagrees"]},
        },
        "required": ["reasoning", "verdict"],
        "additionalProperties": false,
    })
}

/// The gate's verdict: from the `verdict` of its JSON answer when it is one
/// ([`agreement_schema`]), else from its free text; both read by [`parse_agreement`]. An
/// answer begun as JSON that gives no verdict (cut at the token limit inside its reasoning,
/// as SmolLM2-135M's looping reasoning was in 2 of 8 gates) has none: the words of its
/// reasoning are no verdict.
pub fn parse_agreement_answer(text: &str) -> Option<bool> {
    match crate::shape::read_text(text, "verdict") {
        Some(verdict) => parse_agreement(&verdict),
        None if text.trim_start().starts_with('{') => None,
        None => parse_agreement(text),
    }
}

/// Reads the gate's verdict from its last "agree…" or "disagree…" word: `Some(false)` for
/// "disagrees", `Some(true)` for "agrees", `None` when it says neither or negates it ("does
/// not agree", "wouldn't disagree", "no agreement": read as no verdict, so nothing is changed
/// or kept on it).
pub fn parse_agreement(text: &str) -> Option<bool> {
    const NEGATIONS: &[&str] = &["not", "no", "never", "nor", "cannot", "t"];
    // Apostrophes split words too, so every "n't" leaves a "t".
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .collect();
    let at =
        words.iter().rposition(|word| word.starts_with("agree") || word.starts_with("disagree"))?;
    let negated =
        words[at.saturating_sub(3)..at].iter().any(|word| NEGATIONS.contains(&word.as_str()));
    if negated {
        return None;
    }
    Some(!words[at].starts_with("disagree"))
}

/// Whether `question` is about `text`: they share a content word (a BM25 term that is not a
/// question word). A small model copies its worked examples; a search or question about
/// something the passage never mentions is such a copy, and is not used.
pub fn is_about(question: &str, text: &str) -> bool {
    const ASKING: &[&str] = &["what", "when", "where", "why", "how", "many", "much", "whose"];
    let said: std::collections::HashSet<String> = crate::bm25::terms(text).into_iter().collect();
    crate::bm25::terms(question)
        .into_iter()
        .any(|term| !ASKING.contains(&term.as_str()) && said.contains(&term))
}

/// The words of `text` (lower-case, alphanumeric), for overlap measures.
pub(crate) fn word_set(text: &str) -> std::collections::HashSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_changes_are_minimal_spans_of_the_original() {
        let before = "The tower opened in 1899 and is 300 metres tall.";
        let after = "The tower opened in 1889 and is 330 metres tall.";
        let changes = word_changes(before, after);
        assert_eq!(
            changes,
            vec![(20, "1899".to_owned(), "1889".to_owned()), (32, "300".into(), "330".into())]
        );
        // Punctuation is a token of its own.
        assert_eq!(
            word_changes("in 1899.", "in 1889."),
            vec![(3, "1899".to_owned(), "1889".to_owned())]
        );
        // Changes next to each other across a space are one; insertions and deletions keep
        // their place.
        let merged = word_changes("profit rose 12 percent", "profit fell 15 percent");
        assert_eq!(merged, vec![(7, "rose 12".to_owned(), "fell 15".to_owned())]);
        let inserted = word_changes("It opened.", "It opened in May.");
        assert_eq!(inserted.len(), 1);
        let (start, removed, added) = &inserted[0];
        let mut text = before_apply("It opened.", *start, removed, added);
        assert_eq!(text, "It opened in May.");
        text = before_apply("a b c", 1, " b", "");
        assert_eq!(text, "a c");
        assert!(word_changes("Same text.", "Same text.").is_empty());
        // Non-ASCII text keeps byte offsets on char boundaries.
        let accents = word_changes("Café à Genève en 1990.", "Café à Zürich en 1990.");
        assert_eq!(accents, vec![(9, "Genève".to_owned(), "Zürich".to_owned())]);
    }

    fn before_apply(text: &str, start: usize, removed: &str, added: &str) -> String {
        format!("{}{}{}", &text[..start], added, &text[start + removed.len()..])
    }

    #[test]
    fn the_gate_answer_is_read_from_its_last_verdict() {
        assert_eq!(parse_agreement("The years differ.\nTherefore: disagrees"), Some(false));
        // A JSON answer is read by its verdict alone, whatever its reasoning says.
        let json =
            r#"{"reasoning": "It seems to agree, but the years differ.", "verdict": "disagrees"}"#;
        assert_eq!(parse_agreement_answer(json), Some(false));
        assert_eq!(parse_agreement_answer(r#"{"reasoning": "", "verdict": "agrees"}"#), Some(true));
        assert_eq!(parse_agreement_answer(r#"{"reasoning": "disagrees", "verdict": ""}"#), None);
        assert_eq!(parse_agreement_answer("Therefore: agrees"), Some(true));
        let cut = r#"{"reasoning": "The statement disagrees with the evidence. The statement"#;
        assert_eq!(parse_agreement_answer(cut), None);
        assert_eq!(agreement_schema()["required"], serde_json::json!(["reasoning", "verdict"]));
        assert_eq!(parse_agreement("Both say chemistry. Therefore: agrees."), Some(true));
        assert_eq!(parse_agreement("It disagrees at first, but on reading it agrees"), Some(true));
        assert_eq!(parse_agreement("It seems to agree. Therefore: This disagrees."), Some(false));
        assert_eq!(parse_agreement("I cannot tell."), None);
        assert_eq!(parse_agreement("The evidence does not agree with the statement."), None);
        assert_eq!(parse_agreement("There is no agreement."), None);
        assert_eq!(parse_agreement("It doesn’t agree."), None);
        assert_eq!(parse_agreement("It wouldn't agree."), None);
        assert_eq!(parse_agreement("The evidence does not disagree."), None);
        assert_eq!(parse_agreement("Therefore: This agrees with what you said."), Some(true));
        assert_eq!(parse_agreement(""), None);
    }

    #[test]
    fn sentence_spans_cover_each_sentence_without_its_spaces() {
        let text = "  Okra is green.  It grows in Ghana. ";
        let spans = sentence_spans(text, "en");
        let parts: Vec<&str> = spans.iter().map(|(s, e)| &text[*s..*e]).collect();
        assert_eq!(parts, ["Okra is green.", "It grows in Ghana."]);
        assert_eq!(sentence_spans("no stop", "en"), vec![(0, 7)]);
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod method_tests;
