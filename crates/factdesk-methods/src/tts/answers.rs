//! What TTS asks of the model and how it reads the answers: the JSON Schemas of a draft's
//! claims and of a source's stances, and the readers of either answer, in that shape or as
//! free text.

use factdesk_model::ciber::Stance;

/// The field of [`draft_schema`]'s object that holds the draft's sentences.
pub const DRAFT_FIELD: &str = "sentences";

/// The most sentences of a draft in [`draft_schema`]: a short paragraph, as `tts/draft` asks,
/// and more than the claims step reads out of it needs no more.
pub const DRAFT_SENTENCES: usize = 5;

/// The most characters of one of a draft's sentences in [`draft_schema`]. Five such lines
/// (800 characters, under 300 tokens even at three characters a token) end within the
/// template's 300 tokens. Unbounded, SmolLM2-135M copied the documents one after another,
/// line breaks and all, until cut at the token limit mid-sentence (8 of 13 drafts against
/// llama-cpp-python's server).
pub const DRAFT_SENTENCE_CHARS: usize = 160;

/// The JSON Schema of a draft (`tts/draft`): 1 to [`DRAFT_SENTENCES`] sentences,
/// `{"sentences": [...]}`, each one line of at most [`DRAFT_SENTENCE_CHARS`] characters
/// ([`crate::shape::line`]).
pub fn draft_schema() -> serde_json::Value {
    crate::shape::list(DRAFT_FIELD, DRAFT_SENTENCES, crate::shape::line(DRAFT_SENTENCE_CHARS))
}

/// A draft as read from a model's answer: its text, and whether the answer was cut at the
/// template's token limit (a free-text draft then loses its unfinished last sentence).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Draft {
    pub text: String,
    pub cut: bool,
}

/// The draft in a model's answer: the sentences of its `{"sentences": [...]}` list when it is
/// one ([`draft_schema`]), one after another, else its free text; either without a line that
/// echoes the data markers it was shown (`marker`, their case garbled by a weak model).
/// A free-text answer `cut` at the token limit ends at its last whole sentence (its
/// unfinished one would be read as a claim), unless it has none.
pub(crate) fn parse_draft(answer: &str, marker: &str, cut: bool) -> Draft {
    // The marker's first hex digits: SmolLM2-135M echoed markers with some of the last ones
    // left out ("<<<Data-b8953ca806fc99a14c2f7>>*").
    let hex: String =
        marker.trim_start_matches("DATA-").to_ascii_lowercase().chars().take(8).collect();
    let echoed = |line: &str| {
        let line = line.trim().to_ascii_lowercase();
        line.starts_with("<<<") && line.contains(&hex)
    };
    if let Some(sentences) = crate::shape::read_items(answer, DRAFT_FIELD, DRAFT_SENTENCES) {
        let kept: Vec<String> = sentences.into_iter().filter(|s| !echoed(s)).collect();
        return Draft { text: kept.join(" "), cut };
    }
    let lines: Vec<&str> = answer.lines().filter(|line| !echoed(line)).collect();
    let text = lines.join("\n");
    let text = text.trim();
    let whole = if cut { last_sentence_end(text).map_or(text, |end| &text[..end]) } else { text };
    Draft { text: whole.trim().to_owned(), cut }
}

/// The note for a draft of `whose` (a source's leave-one-out draft, the summary) cut at the
/// template's token limit.
pub(crate) fn cut_note(whose: &str) -> String {
    format!(
        "{whose} was cut at the model's answer length; what it wrote after its last whole \
         sentence was left out"
    )
}

/// The note for the claims of a draft of `whose` whose answer was cut at the template's
/// token limit.
pub(crate) fn cut_claims_note(whose: &str) -> String {
    format!(
        "the claims of {whose} were cut at the model's answer length; those written whole \
         before the cut are kept"
    )
}

/// Where `text`'s last whole sentence ends: after its last '.', '!' or '?' that a space, a
/// line break or the text's end follows (a closing quote or bracket after it kept).
fn last_sentence_end(text: &str) -> Option<usize> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    (0..chars.len()).rev().find_map(|i| {
        let (at, c) = chars[i];
        if !matches!(c, '.' | '!' | '?') {
            return None;
        }
        let mut end = at + c.len_utf8();
        let mut next = i + 1;
        while let Some(&(at, closing)) =
            chars.get(next).filter(|(_, c)| matches!(c, '"' | ')' | '\'' | '”' | '’'))
        {
            end = at + closing.len_utf8();
            next += 1;
        }
        chars.get(next).is_none_or(|(_, after)| after.is_whitespace()).then_some(end)
    })
}

/// The field of [`claims_schema`]'s object that holds the claims.
pub const CLAIMS_FIELD: &str = "claims";

/// The most characters of one claim in [`claims_schema`]: a fact that can be checked on its
/// own fits in a sentence, and eight such lines (the default `max_claims`) stay within the
/// template's 300 tokens. Without a bound a small model copied the whole draft, paragraph
/// breaks and all, into one item and was cut at its token limit mid-answer.
pub const CLAIM_CHARS: usize = 120;

/// The JSON Schema of a draft's claims (`tts/claims`): 1 to `max`, `{"claims": [...]}`, each
/// one line of at most [`CLAIM_CHARS`] characters ([`crate::shape::line`]).
pub fn claims_schema(max: usize) -> serde_json::Value {
    crate::shape::list(CLAIMS_FIELD, max, crate::shape::line(CLAIM_CHARS))
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
