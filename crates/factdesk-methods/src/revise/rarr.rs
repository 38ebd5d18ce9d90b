//! RARR, as "Correcting Hallucinations in News Summaries: Exploration of Self-Correcting LLM
//! Methods with External Knowledge" runs it on news summaries (few-shot prompts, Tables 9–10):
//!
//! 1. Research: for each sentence, searches that would check it ("I googled: …"; asked for as
//!    a JSON list where the model may take a schema, [`queries_schema`], and read from that or
//!    the free text, [`parse_answer`]). The prompt (`rarr/queries` version 2) shows the
//!    sentence alone; the schema's searches each name a word of it early on: a small model
//!    writes in what else it is shown (version 1's worked examples, the passage's other
//!    sentences), which then is no answer the server lets it give.
//! 2. Evidence for each search from the run's source ([`super::evidence`]).
//! 3. Agreement gate on each (search, evidence) pair, against the sentence as it stands
//!    (reasoning, then agrees or disagrees; as JSON where the model may take a schema,
//!    [`super::agreement_schema`]).
//! 4. Only on disagreement, an edit of the sentence that changes as little as possible
//!    (`{"fixed": ...}` where the model may take a schema, [`edit_schema`]). The edit is kept
//!    only if the gate then agrees with it (a small model may "fix" a sentence into something
//!    the evidence does not say either); the next search is gated against the sentence as it
//!    then stands.
//!
//! A search that shares no word with its sentence is not used (small models copy the prompt's
//! worked examples, where no schema stops them); it is kept as a step with a note. When every
//! search the model gave is such a copy, the sentence itself is the search (the claim as its
//! own query), and its step's note says so: the sentence is still checked, and the record
//! shows the search was not the model's. An answer with no search at all leaves the sentence
//! unchecked, and says so.
//!
//! Sentences are worked on at the same time (they do not depend on each other); within a
//! sentence the steps run in order, as each edit changes what the next gate reads. The edits
//! of a sentence are the word diff between it and its final form, each tied to the last
//! search that disagreed. Afterwards, sentence revisions are kept in order while the passage
//! stays within the growth limit; one that would pass it is refused.

use factdesk_model::{Edit, RejectedChange, Revision, VerificationStep};

use super::{Ledger, Reviser, recorded, sentence_spans, word_changes};
use crate::MethodError;

pub const METHOD: &str = "rarr";
pub const QUERIES_TEMPLATE: &str = "rarr/queries";
pub const AGREEMENT_TEMPLATE: &str = "rarr/agreement";
pub const EDIT_TEMPLATE: &str = "rarr/edit";

/// The field of [`queries_schema`]'s object that holds the searches. The prompt's searches
/// are questions, and a small model asked for "searches" wrote web addresses in their place
/// (SmolLM2-135M: 3 of 8 sentences got a search about them; asked for "questions", 4 of 8,
/// with 11 such questions against 4).
pub const QUERIES_FIELD: &str = "questions";

/// Characters a search may have before the word of its sentence it names ("When did the ",
/// "How many ") and after it.
pub const QUERY_LEAD: usize = 16;
pub const QUERY_REST: usize = 60;

/// The JSON Schema of an answer of 1 to `max` searches for `sentence`, `{"questions": [...]}`,
/// each one line naming one of the sentence's [`content_words`](super::content_words) early
/// on (so about it as [`super::is_about`] counts; [`crate::shape::line_naming`]): a copy of
/// a worked example or of another sentence does not fit it. Three searches of at most
/// 77 characters stay within the template's 120 tokens.
pub fn queries_schema(max: usize, sentence: &str) -> serde_json::Value {
    let words = super::content_words(sentence);
    let item = crate::shape::line_naming(&words, QUERY_LEAD, QUERY_REST);
    crate::shape::list(QUERIES_FIELD, max, item)
}

/// The note of the step that searched for the sentence itself.
pub const SENTENCE_SEARCHED: &str = "the model's searches were all about something else, so \
                                     the sentence itself was searched for";

/// The searches of a model's answer, up to `max`, without repeats: those of its
/// `{"questions": [...]}` list when it is one ([`queries_schema`]; each item one search, its
/// number or bullet dropped), else those of its free text ([`parse_queries`]).
pub fn parse_answer(text: &str, max: usize) -> Vec<String> {
    match crate::shape::read_items(text, QUERIES_FIELD, usize::MAX) {
        Some(listed) => parse_queries(&listed.join("\n"), max),
        None => parse_queries(text, max),
    }
}

/// The searches in the model's answer: one per line, with or without the "I googled:" label
/// (the prompt ends with the first one's), up to `max`, without repeats; it stops where the
/// model starts another worked example.
pub fn parse_queries(text: &str, max: usize) -> Vec<String> {
    let mut queries: Vec<String> = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let lower = line.to_ascii_lowercase();
        if lower.starts_with("context:") || lower.starts_with("statement:") {
            break;
        }
        let query = match lower.find("googled:") {
            Some(at) => line[at + "googled:".len()..].trim(),
            None => line,
        };
        let query = query.trim_matches(|c: char| c == '"' || c == '\'' || c.is_whitespace());
        if query.chars().any(char::is_alphanumeric)
            && !queries.iter().any(|seen| seen.eq_ignore_ascii_case(query))
        {
            queries.push(query.to_owned());
        }
        if queries.len() >= max {
            break;
        }
    }
    queries
}

/// The field of [`edit_schema`]'s object that holds the fixed statement.
pub const EDIT_FIELD: &str = "fixed";

/// The JSON Schema of an edit of `statement` (`rarr/edit`): `{"fixed": "..."}`, the fixed
/// statement one line of at most one and a half times the statement's characters and 40 more
/// (a minimal edit is about as long; a model that runs on into the prompt's evidence is cut
/// short of its token limit). A statement with a quote or backslash, which such a line cannot
/// hold, gets any string.
pub fn edit_schema(statement: &str) -> serde_json::Value {
    let fixed = if statement.contains(['"', '\\']) {
        serde_json::json!({"type": "string"})
    } else {
        crate::shape::line(statement.chars().count() * 3 / 2 + 40)
    };
    serde_json::json!({
        "type": "object",
        "properties": {EDIT_FIELD: fixed},
        "required": [EDIT_FIELD],
        "additionalProperties": false,
    })
}

/// The edited statement of a model's answer: the `fixed` text of its JSON answer when it is
/// one ([`edit_schema`]), else its free text, either read by [`parse_edit`].
pub fn parse_edit_answer(text: &str) -> Option<String> {
    match crate::shape::read_text(text, EDIT_FIELD) {
        Some(fixed) => parse_edit(&fixed),
        None => parse_edit(text),
    }
}

/// The edited statement in the model's answer: its first non-empty line, without a label or
/// quotes; `None` when there is no text.
pub fn parse_edit(text: &str) -> Option<String> {
    let line = text.lines().map(str::trim).find(|line| !line.is_empty())?;
    let line = match line.to_ascii_lowercase().find("fixed statement:") {
        Some(at) => &line[at + "fixed statement:".len()..],
        None => line,
    };
    let line = line.trim().trim_matches('"').trim();
    line.chars().any(char::is_alphanumeric).then(|| line.to_owned())
}

/// What the research and revision of one sentence gave.
struct SentenceWork {
    start: usize,
    end: usize,
    revised: String,
    steps: Vec<VerificationStep>,
    /// Index into `steps` of the last disagreement that changed the sentence.
    cause: Option<usize>,
    rejected: Vec<RejectedChange>,
}

async fn research_and_revise(
    reviser: &Reviser,
    ledger: &Ledger,
    passage: &str,
    (start, end): (usize, usize),
) -> Result<SentenceWork, MethodError> {
    let sentence = &passage[start..end];
    let max = reviser.config.questions.max(1);
    let answer = reviser
        .ask_shaped(
            ledger,
            QUERIES_TEMPLATE,
            serde_json::json!({"passage": passage, "sentence": sentence}),
            "queries",
            queries_schema(max, sentence),
        )
        .await?;
    let (mut queries, copied): (Vec<String>, Vec<String>) =
        parse_answer(&answer, max).into_iter().partition(|query| super::is_about(query, sentence));
    let sentence_searched = queries.is_empty() && !copied.is_empty();
    if sentence_searched {
        queries.push(sentence.to_owned());
    }
    let mut work = SentenceWork {
        start,
        end,
        revised: sentence.to_owned(),
        steps: Vec::new(),
        cause: None,
        rejected: Vec::new(),
    };
    for query in copied {
        work.steps.push(VerificationStep {
            start,
            end,
            question: query,
            answer: None,
            evidence: Vec::new(),
            agrees: None,
            agreement: None,
            note: Some("the search shares no word with the sentence, so it was not used".into()),
        });
    }
    if queries.is_empty() {
        work.rejected.push(RejectedChange {
            before: sentence.to_owned(),
            after: sentence.to_owned(),
            reason: format!(
                "the model gave no searches for this sentence, so it was not checked: {answer:?}"
            ),
        });
        return Ok(work);
    }
    for query in queries {
        let (units, mut note) = reviser.find(ledger, &query).await;
        if sentence_searched {
            note = Some(match note {
                Some(found) => format!("{SENTENCE_SEARCHED}; {found}"),
                None => SENTENCE_SEARCHED.to_owned(),
            });
        }
        let texts: Vec<String> = units.iter().map(|unit| unit.text.clone()).collect();
        // With the model's own knowledge there is nothing to gate against: RARR then has no
        // disagreement to act on.
        let decision = reviser.gate(ledger, &work.revised, &query, &texts).await?;
        note = match (note, decision.note.clone()) {
            (Some(found), Some(gate)) => Some(format!("{found}; {gate}")),
            (found, gate) => found.or(gate),
        };
        work.steps.push(VerificationStep {
            start,
            end,
            question: query.clone(),
            answer: None,
            evidence: recorded(&units),
            agrees: decision.agrees,
            agreement: decision.agreement,
            note,
        });
        if decision.agrees != Some(false) {
            continue;
        }
        let evidence = reviser.quoted(&units);
        let boundary = factdesk_llm::nli::boundary(&evidence, &work.revised);
        let Some(answer) = reviser
            .ask_whole(
                ledger,
                EDIT_TEMPLATE,
                serde_json::json!({
                    "statement": work.revised,
                    "query": query,
                    "evidence": evidence,
                    "boundary": boundary,
                }),
                "edit",
                Some(edit_schema(&work.revised)),
            )
            .await?
        else {
            work.rejected.push(RejectedChange {
                before: work.revised.clone(),
                after: String::new(),
                reason: "the edit was cut at the model's answer length, so the sentence was left \
                         as it was"
                    .into(),
            });
            continue;
        };
        match parse_edit_answer(&answer) {
            Some(edited) if edited != work.revised => {
                // The edit must make the evidence agree, or it is no correction.
                let recheck = reviser.gate(ledger, &edited, &query, &texts).await?;
                if recheck.agrees == Some(true) {
                    work.revised = edited;
                    work.cause = Some(work.steps.len() - 1);
                } else {
                    work.rejected.push(RejectedChange {
                        before: work.revised.clone(),
                        after: edited,
                        reason: format!(
                            "the evidence does not agree with the edit either{}, so the \
                             sentence was left as it was",
                            recheck
                                .agreement
                                .map(|a| format!(" (agreement {a:.2})"))
                                .unwrap_or_default()
                        ),
                    });
                }
            }
            Some(_) => {}
            None => work.rejected.push(RejectedChange {
                before: work.revised.clone(),
                after: answer.clone(),
                reason: "the edit step gave no statement, so the sentence was left as it was"
                    .into(),
            }),
        }
    }
    Ok(work)
}

/// Revises `passage` by RARR. Without evidence it is refused before any call: RARR edits
/// only where evidence disagrees.
pub async fn revise(reviser: &Reviser, passage: &str) -> Result<Revision, MethodError> {
    reviser.check(passage)?;
    if reviser.evidence.closed_book() {
        return Err(MethodError::Input(
            "RARR changes a passage only where evidence disagrees, so without evidence it can \
             change nothing: choose source, corpus or web evidence (CoVe can answer from the \
             model's own knowledge)"
                .into(),
        ));
    }
    let ledger = Ledger::default();
    let spans = sentence_spans(passage, &reviser.config.language);
    let works = futures_util::future::try_join_all(
        spans.iter().map(|span| research_and_revise(reviser, &ledger, passage, *span)),
    )
    .await?;

    let limit = (passage.len() as f64 * reviser.config.max_growth.max(1.0)).floor() as usize;
    let mut length = passage.len();
    let mut edits: Vec<Edit> = Vec::new();
    let mut steps = Vec::new();
    let mut rejected = Vec::new();
    for work in works {
        let original = &passage[work.start..work.end];
        rejected.extend(work.rejected);
        if let Some(cause) = work.cause {
            let grown = length - original.len() + work.revised.len();
            if grown > limit {
                rejected.push(RejectedChange {
                    before: original.to_owned(),
                    after: work.revised.clone(),
                    reason: format!(
                        "the passage would grow to {grown} bytes, past {} times its {} bytes",
                        reviser.config.max_growth,
                        passage.len()
                    ),
                });
            } else {
                length = grown;
                let step: &VerificationStep = &work.steps[cause];
                for (offset, before, after) in word_changes(original, &work.revised) {
                    edits.push(Edit {
                        start: work.start + offset,
                        before,
                        after,
                        question: Some(step.question.clone()),
                        evidence: step.evidence.clone(),
                        agreement: step.agreement,
                    });
                }
            }
        }
        steps.extend(work.steps);
    }
    let disagreed = steps.iter().filter(|step| step.agrees == Some(false)).count();
    let explanation = format!(
        "{} search(es) over {} sentence(s); the evidence disagreed {disagreed} time(s); {} \
         edit(s) made, {} change(s) refused.",
        steps.len(),
        spans.len(),
        edits.len(),
        rejected.len()
    );
    Ok(reviser.finish(METHOD, passage, ledger, (edits, steps, rejected), explanation))
}

#[cfg(test)]
#[path = "rarr_tests.rs"]
mod rarr_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn searches_are_read_line_by_line_until_another_example() {
        let answer = " When did the tower open?\nI googled: How tall is the tower?\n\
                      I googled: how tall is the tower?\nContext: Something else.\n\
                      I googled: Not this one?";
        assert_eq!(
            parse_queries(answer, 5),
            ["When did the tower open?", "How tall is the tower?"]
        );
        assert_eq!(parse_queries(answer, 1), ["When did the tower open?"]);
        // A list of searches is read item by item, labels and repeats as in free text.
        let listed = r#"{"questions": ["1. When did the\ntower open?", "I googled: How tall is it?", "how tall is it?"]}"#;
        assert_eq!(parse_answer(listed, 5), ["When did the tower open?", "How tall is it?"]);
        assert_eq!(parse_answer(listed, 1), ["When did the tower open?"]);
        assert_eq!(parse_answer(answer, 5), parse_queries(answer, 5));
        assert_eq!(queries_schema(3, "It opened.")["properties"][QUERIES_FIELD]["maxItems"], 3);
        assert!(parse_queries("  \n I googled: \n", 3).is_empty());
        // Labels found in text whose lower case is longer than it (İ) cut at the right place.
        assert_eq!(parse_queries("İ googled: é?", 3), ["é?"]);
        assert_eq!(parse_queries("İİ I googled: Où est-il ?", 3), ["Où est-il ?"]);
    }

    #[test]
    fn an_edit_is_the_first_line_without_its_label() {
        assert_eq!(
            parse_edit("The tower opened in 1889.\nmore"),
            Some("The tower opened in 1889.".into())
        );
        assert_eq!(parse_edit("Fixed statement: \"It fell.\""), Some("It fell.".into()));
        assert_eq!(parse_edit("  \n "), None);
        // A JSON answer's fixed text, read as free text is.
        let fixed = r#"{"fixed": "Fixed statement: \"It fell.\"\nmore"}"#;
        assert_eq!(parse_edit_answer(fixed), Some("It fell.".into()));
        assert_eq!(parse_edit_answer(r#"{"fixed": " "}"#), None);
        assert_eq!(parse_edit_answer("It fell."), Some("It fell.".into()));
        assert_eq!(edit_schema("It fell.")["required"], serde_json::json!([EDIT_FIELD]));
        assert_eq!(parse_edit("İİ Fixed statement: Élan."), Some("Élan.".into()));
    }
}
