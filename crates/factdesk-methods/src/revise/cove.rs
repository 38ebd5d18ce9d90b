//! Chain-of-Verification (CoVe), as "Correcting Hallucinations in News Summaries: Exploration
//! of Self-Correcting LLM Methods with External Knowledge" runs it (zero-shot prompts, Table 8):
//!
//! 1. Plan: a numbered list of verification questions from the passage (a JSON list where the
//!    model may take a schema, [`questions_schema`]; [`parse_answer`] reads either).
//! 2. Execute, factored: each question answered from its own evidence alone — the passage is
//!    not in the prompt, so its errors cannot steer the answer. The questions are answered at
//!    the same time.
//! 3. Each answer is gated against the passage sentence the question is about (the sentence
//!    that best matches the question and answer by BM25).
//! 4. Refine: only when some answer disagreed, the passage is rewritten from the question /
//!    answer pairs. The rewrite's word diff against the passage gives the edits; a change is
//!    kept only inside a sentence some answer disagreed with (and tied to that answer's
//!    question and evidence), and only if that answer's gate then agrees with the changed
//!    sentence: changes elsewhere are refused, so that what all the evidence agreed with stays
//!    as it was, and so is a change the evidence does not back either.
//!
//! A question that shares no word with the passage is not asked (small models copy examples);
//! it is kept as a step with a note.

use factdesk_model::{Edit, RejectedChange, Revision, VerificationStep};

use super::{Ledger, Reviser, recorded, sentence_spans, word_changes, word_set};
use crate::MethodError;

pub const METHOD: &str = "cove";
pub const QUESTIONS_TEMPLATE: &str = "cove/questions";
pub const ANSWER_TEMPLATE: &str = "cove/answer";
pub const REVISE_TEMPLATE: &str = "cove/revise";

/// The answer a question gets when its evidence does not say.
const NOT_STATED: &str = "not stated";

/// The field of [`questions_schema`]'s object that holds the questions.
pub const QUESTIONS_FIELD: &str = "questions";

/// The JSON Schema of a plan of 1 to `max` verification questions, `{"questions": [...]}`.
pub fn questions_schema(max: usize) -> serde_json::Value {
    crate::shape::list(QUESTIONS_FIELD, max, serde_json::json!({"type": "string"}))
}

/// The questions of a model's plan, up to `max`, without repeats: the items of its
/// `{"questions": [...]}` list when it is one ([`questions_schema`]), else those of its
/// free text ([`parse_questions`]).
pub fn parse_answer(text: &str, max: usize) -> Vec<String> {
    crate::shape::read_items(text, QUESTIONS_FIELD, max)
        .unwrap_or_else(|| parse_questions(text, max))
}

/// The questions in the model's answer: lines of a numbered or bulleted list, or lines that
/// end in a question mark, without their numbers, up to `max`, without repeats. Text that is
/// not such a list gives none.
pub fn parse_questions(text: &str, max: usize) -> Vec<String> {
    let mut questions: Vec<String> = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        let mut rest = line;
        if let Some(after) = rest.strip_prefix("Question") {
            rest = after.trim_start();
        }
        let unnumbered = rest.trim_start_matches(|c: char| c.is_ascii_digit());
        let numbered = unnumbered.len() < rest.len() && unnumbered.starts_with(['.', ')', ':']);
        let bulleted = rest.starts_with(['-', '*', '•']);
        let question = if numbered {
            &unnumbered[1..]
        } else if bulleted {
            &rest[rest.chars().next().map_or(0, char::len_utf8)..]
        } else {
            rest
        };
        let question = question.trim();
        let listed = numbered || bulleted || question.ends_with('?');
        if listed
            && question.chars().any(char::is_alphanumeric)
            && !questions.iter().any(|seen| seen.eq_ignore_ascii_case(question))
        {
            questions.push(question.to_owned());
        }
        if questions.len() >= max {
            break;
        }
    }
    questions
}

/// The rewritten passage in the model's answer: without a label or surrounding quotes; `None`
/// when there is no text.
pub fn parse_rewrite(text: &str) -> Option<String> {
    let mut text = text.trim();
    if let Some(at) = text.to_ascii_lowercase().find("rewritten passage:") {
        text = text[at + "rewritten passage:".len()..].trim();
    }
    let text = text.trim_matches('"').trim();
    text.chars().any(char::is_alphanumeric).then(|| text.to_owned())
}

/// The sentence (byte range) of `spans` that `words` best match, by BM25.
fn part_about(passage: &str, spans: &[(usize, usize)], words: &str) -> (usize, usize) {
    let texts: Vec<&str> = spans.iter().map(|(start, end)| &passage[*start..*end]).collect();
    crate::bm25::rank(words, &texts, 1)
        .first()
        .map_or_else(|| (spans[0].0, spans[spans.len() - 1].1), |(index, _)| spans[*index])
}

/// What the gate reads for a step: the chat model compares the answer with the sentence; the
/// verifier reads the evidence itself when there is some, else the answer.
fn judged(reviser: &Reviser, step: &VerificationStep) -> Vec<String> {
    match reviser.config.gate {
        super::Gate::Nli if !step.evidence.is_empty() => {
            step.evidence.iter().map(|evidence| evidence.sentences.join(" ")).collect()
        }
        _ => step.answer.iter().cloned().collect(),
    }
}

async fn verify_one(
    reviser: &Reviser,
    ledger: &Ledger,
    passage: &str,
    spans: &[(usize, usize)],
    question: String,
) -> Result<VerificationStep, MethodError> {
    let (units, find_note) = reviser.find(ledger, &question).await;
    let evidence = reviser.quoted(&units);
    let boundary = factdesk_llm::nli::boundary(&evidence, &question);
    let raw = reviser
        .ask(
            ledger,
            ANSWER_TEMPLATE,
            serde_json::json!({"question": question, "evidence": evidence, "boundary": boundary}),
            "answers",
        )
        .await?;
    let answer = raw.lines().map(str::trim).find(|line| !line.is_empty()).unwrap_or("").to_owned();
    let (start, end) = part_about(passage, spans, &format!("{question} {answer}"));
    let mut step = VerificationStep {
        start,
        end,
        question: question.clone(),
        answer: Some(answer.clone()),
        evidence: recorded(&units),
        agrees: None,
        agreement: None,
        note: find_note.clone(),
    };
    let silent = answer.is_empty() || answer.to_lowercase().contains(NOT_STATED);
    let no_evidence = units.is_empty() && !reviser.evidence.closed_book();
    if silent || no_evidence {
        step.note = Some(find_note.unwrap_or_else(|| "the evidence does not answer it".into()));
        return Ok(step);
    }
    let decision =
        reviser.gate(ledger, &passage[start..end], &question, &judged(reviser, &step)).await?;
    step.agrees = decision.agrees;
    step.agreement = decision.agreement;
    step.note = match (step.note.take(), decision.note) {
        (Some(found), Some(gate)) => Some(format!("{found}; {gate}")),
        (found, gate) => found.or(gate),
    };
    Ok(step)
}

/// The changes of `rewrite` that are kept: each inside one sentence some answer disagreed
/// with (tied to that answer), a sentence's changes only if its gate then agrees with the
/// changed sentence, and, in the passage's order, only while the passage stays within the
/// growth limit. The others are refused with their reason.
async fn keep_backed_changes(
    reviser: &Reviser,
    ledger: &Ledger,
    passage: &str,
    disagreeing: &[&VerificationStep],
    rewrite: &str,
) -> Result<(Vec<Edit>, Vec<RejectedChange>), MethodError> {
    let mut rejected = Vec::new();
    let refuse =
        |before: String, after: String, reason: String| RejectedChange { before, after, reason };
    // Changes grouped by the disagreeing answer whose sentence holds them, in passage order.
    let mut caused: Vec<(&VerificationStep, Vec<Edit>)> = Vec::new();
    for (start, before, after) in word_changes(passage, rewrite) {
        let end = start + before.len();
        let holds =
            |step: &&&VerificationStep| step.start <= start && start < step.end.max(step.start + 1);
        let changed = word_set(&format!("{before} {after}"));
        let cause = disagreeing.iter().filter(holds).max_by_key(|step| {
            let asked =
                word_set(&format!("{} {}", step.question, step.answer.as_deref().unwrap_or("")));
            changed.intersection(&asked).count()
        });
        match cause {
            Some(step) if end > step.end => rejected.push(refuse(
                before,
                after,
                "the change runs past the end of its sentence, so it is not tied to one answer \
                 and stays as it was"
                    .into(),
            )),
            Some(step) => {
                let edit = Edit {
                    start,
                    before,
                    after,
                    question: Some(step.question.clone()),
                    evidence: step.evidence.clone(),
                    agreement: step.agreement,
                };
                // Grouped by sentence: several answers may be about the same one.
                match caused
                    .iter_mut()
                    .find(|(seen, _)| (seen.start, seen.end) == (step.start, step.end))
                {
                    Some((_, group)) => group.push(edit),
                    None => caused.push((step, vec![edit])),
                }
            }
            None => rejected.push(refuse(
                before,
                after,
                "no answer disagreed with this part of the passage, so it stays as it was".into(),
            )),
        }
    }
    let limit = (passage.len() as f64 * reviser.config.max_growth.max(1.0)).floor() as usize;
    let mut length = passage.len();
    let mut kept: Vec<Edit> = Vec::new();
    for (step, group) in caused {
        let sentence = passage.get(step.start..step.end).unwrap_or_default();
        let shifted: Vec<Edit> = group
            .iter()
            .map(|edit| Edit { start: edit.start - step.start, ..edit.clone() })
            .collect();
        let changed = super::apply(sentence, &shifted);
        // Sentences do not overlap, so the passage still holds this one whole.
        let grown = (length + changed.len()).saturating_sub(sentence.len());
        let mut reason = (grown > limit).then(|| {
            format!(
                "the passage would grow to {grown} bytes, past {} times its {} bytes",
                reviser.config.max_growth,
                passage.len()
            )
        });
        // Every answer that disagreed with the sentence must agree with it as changed.
        let about: Vec<&&VerificationStep> = disagreeing
            .iter()
            .filter(|other| (other.start, other.end) == (step.start, step.end))
            .collect();
        for other in about {
            if reason.is_some() {
                break;
            }
            let recheck =
                reviser.gate(ledger, &changed, &other.question, &judged(reviser, other)).await?;
            if recheck.agrees != Some(true) {
                reason = Some(format!(
                    "the answer to \"{}\" does not agree with the changed sentence either, so it \
                     stays as it was",
                    other.question
                ));
            }
        }
        match reason {
            None => {
                length = grown;
                kept.extend(group);
            }
            Some(reason) => rejected.extend(
                group.into_iter().map(|edit| refuse(edit.before, edit.after, reason.clone())),
            ),
        }
    }
    kept.sort_by_key(|edit| edit.start);
    Ok((kept, rejected))
}

/// Revises `passage` by CoVe.
pub async fn revise(reviser: &Reviser, passage: &str) -> Result<Revision, MethodError> {
    reviser.check(passage)?;
    let ledger = Ledger::default();
    let spans = sentence_spans(passage, &reviser.config.language);
    let max = reviser.config.questions.max(1);
    let planned = reviser
        .ask_shaped(
            &ledger,
            QUESTIONS_TEMPLATE,
            serde_json::json!({"passage": passage, "max": max}),
            "questions",
            questions_schema(max),
        )
        .await?;
    let (questions, copied): (Vec<String>, Vec<String>) = parse_answer(&planned, max)
        .into_iter()
        .partition(|question| super::is_about(question, passage));
    let mut rejected = Vec::new();
    let mut steps = Vec::new();
    let unused: Vec<VerificationStep> = copied
        .into_iter()
        .map(|question| VerificationStep {
            start: 0,
            end: passage.len(),
            question,
            answer: None,
            evidence: Vec::new(),
            agrees: None,
            agreement: None,
            note: Some("the question shares no word with the passage, so it was not asked".into()),
        })
        .collect();
    if questions.is_empty() {
        rejected.push(RejectedChange {
            before: passage.to_owned(),
            after: passage.to_owned(),
            reason: format!(
                "the model gave no verification questions, so nothing was checked: {planned:?}"
            ),
        });
    } else {
        steps = futures_util::future::try_join_all(
            questions
                .into_iter()
                .map(|question| verify_one(reviser, &ledger, passage, &spans, question)),
        )
        .await?;
    }
    steps.extend(unused);

    let disagreeing: Vec<&VerificationStep> =
        steps.iter().filter(|step| step.agrees == Some(false)).collect();
    let mut edits: Vec<Edit> = Vec::new();
    if !disagreeing.is_empty() {
        let checks: Vec<serde_json::Value> = steps
            .iter()
            .filter(|step| step.agrees.is_some())
            .map(|step| serde_json::json!({"question": step.question, "answer": step.answer}))
            .collect();
        let answer = reviser
            .ask_whole(
                &ledger,
                REVISE_TEMPLATE,
                serde_json::json!({"passage": passage, "checks": checks}),
                "refine",
                None,
            )
            .await?;
        match answer.as_deref().map(parse_rewrite) {
            None => rejected.push(RejectedChange {
                before: passage.to_owned(),
                after: String::new(),
                reason: "the refinement was cut at the model's answer length, so the passage \
                         was left as it was"
                    .into(),
            }),
            Some(None) => rejected.push(RejectedChange {
                before: passage.to_owned(),
                after: answer.unwrap_or_default(),
                reason: "the refinement gave no text, so the passage was left as it was".into(),
            }),
            Some(Some(rewrite)) => {
                let (kept, refused) =
                    keep_backed_changes(reviser, &ledger, passage, &disagreeing, &rewrite).await?;
                edits = kept;
                rejected.extend(refused);
            }
        }
    }
    let explanation = format!(
        "{} verification question(s); {} answer(s) disagreed with the passage; {} edit(s) \
         made, {} change(s) refused.",
        steps.len(),
        disagreeing.len(),
        edits.len(),
        rejected.len()
    );
    Ok(reviser.finish(METHOD, passage, ledger, (edits, steps, rejected), explanation))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_come_from_a_list_and_nothing_else() {
        let answer = "1. When did the tower open?\n2) How tall is it?\n- Who built it?\n\
                      Question 4: Where is it?\nThis line is not a question.\n1. When did the tower open?";
        assert_eq!(
            parse_questions(answer, 10),
            ["When did the tower open?", "How tall is it?", "Who built it?", "Where is it?"]
        );
        assert_eq!(parse_questions(answer, 2).len(), 2);
        assert!(parse_questions("I cannot help with that.", 5).is_empty());
        assert!(parse_questions("", 5).is_empty());
        assert_eq!(parse_questions("Is it 1889?", 5), ["Is it 1889?"]);
        // A JSON plan is read item by item; free text as before.
        let planned =
            r#"{"questions": ["1. When did it open?", "Where is it?", "when did it open?"]}"#;
        assert_eq!(parse_answer(planned, 5), ["When did it open?", "Where is it?"]);
        assert_eq!(parse_answer(answer, 10), parse_questions(answer, 10));
        assert_eq!(questions_schema(4)["properties"][QUESTIONS_FIELD]["maxItems"], 4);
    }

    #[test]
    fn a_rewrite_loses_its_label_and_quotes() {
        assert_eq!(
            parse_rewrite("Rewritten passage: \"It opened in 1889.\""),
            Some("It opened in 1889.".into())
        );
        assert_eq!(parse_rewrite("  "), None);
        assert_eq!(parse_rewrite("İİ Rewritten passage: Ça va."), Some("Ça va.".into()));
    }
}
