//! The agreement gate: whether evidence agrees with a part of the passage, by the chat model
//! (its answer read by [`parse_agreement_answer`]) or by the NLI verifier.

use factdesk_llm::NliPair;

use super::{Gate, Ledger, Reviser, capped_lines, rarr};
use crate::MethodError;

/// A gate's decision on one part.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Decision {
    pub agrees: Option<bool>,
    pub agreement: Option<f64>,
    pub note: Option<String>,
}

impl Reviser {
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
                let (answer, cut) = self
                    .ask_shaped_cut(
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
                    None if cut => Some(format!(
                        "the gate's answer was cut at the model's answer length before its \
                         verdict, so nothing is changed: {answer}"
                    )),
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
}

/// The most characters of the gate's reasoning: one line (a sentence or two, as the prompt's
/// examples reason), so the verdict after it fits the template's 120 tokens. Unbounded, with
/// the line breaks llama.cpp's JSON grammar lets into a string, SmolLM2-135M copied the
/// evidence into its reasoning until it was cut before any verdict (2 of 39 gates).
pub const REASONING_CHARS: usize = 200;

/// The JSON Schema of the chat gate's answer (`rarr/agreement`): its reasoning first, one line
/// of at most [`REASONING_CHARS`] ([`crate::shape::line`]), then its verdict,
/// `{"reasoning": "...", "verdict": "agrees" | "disagrees"}`.
pub fn agreement_schema() -> serde_json::Value {
    serde_json::json!({
        "type": "object",
        "properties": {
            "reasoning": crate::shape::line(REASONING_CHARS),
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

#[cfg(test)]
mod tests {
    use super::*;

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
        let reasoning = &agreement_schema()["properties"]["reasoning"];
        assert_eq!(reasoning, &crate::shape::line(REASONING_CHARS));
        assert!(reasoning["pattern"].as_str().unwrap().ends_with("{1,200}$"), "{reasoning}");
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
}
