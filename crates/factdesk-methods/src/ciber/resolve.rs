//! Response resolution: what a free-text answer to a probe says about the claim (support,
//! refute, neutral). The answer is understood first and only then read towards the claim:
//!
//! 1. Empty, hedging or two-sided answers ("It is unclear", "Partially", "Yes and no", "The
//!    document does not say") are neutral, whatever else they say.
//! 2. An answer that states the claim's truth ("the claim is not false", "the study does not
//!    support it") is read by that statement: it speaks of the claim itself, so it is never
//!    inverted. The first evaluative word decides, flipped by a negation among the three words
//!    before it; "not necessarily true" is a hedge and "not necessarily false" leaves the claim
//!    standing (support).
//!    An adjective after "that" or "this" ("that is correct", "this is wrong") judges the
//!    question, not the claim: it counts as a yes or a no and is read as in 3 ("it" is taken
//!    to mean the claim: "No, it's true").
//! 3. Otherwise the answer's first word: yes to an agreeing probe supports the claim and to a
//!    contradicting one refutes it; no the other way round ("Certainly not" is a no). A leading
//!    yes or no is an answer, not a negation, only when punctuation or the end follows it: "No
//!    evidence…" opens with a determiner.
//! 4. Anything else is neutral.
//!
//! So "Yes, the claim is not necessarily false" and "No. The claim is not false" both support
//! the claim when they answer "is the claim false?", where reading the first word alone gets
//! the first wrong. A verbatim repetition of the claim (three words or more) in the answer is
//! blanked out before anything else, so that a claim such as "The rumour is false" or "The cause
//! is unclear" does not decide its own answer. The tables below are the
//! whole lexicon; the tests hold a table of answers with their expected reading.

use factdesk_model::ciber::{ProbeSet, Stance};

/// Phrases that make an answer neutral wherever they occur (lower-case, on words separated by
/// single spaces).
const HEDGES: &[&str] = &[
    "not sure",
    "unsure",
    "unclear",
    "not clear",
    "uncertain",
    "i don't know",
    "i do not know",
    "cannot tell",
    "can't tell",
    "cannot say",
    "can't say",
    "impossible to say",
    "hard to say",
    "difficult to say",
    "cannot be determined",
    "can't be determined",
    "cannot determine",
    "cannot be confirmed",
    "cannot be verified",
    "cannot confirm",
    "cannot verify",
    "unable to determine",
    "unable to confirm",
    "unable to verify",
    "not enough information",
    "insufficient",
    "no information",
    "not mentioned",
    "does not mention",
    "doesn't mention",
    "does not say",
    "doesn't say",
    "does not address",
    "doesn't address",
    "does not discuss",
    "doesn't discuss",
    "does not provide",
    "doesn't provide",
    "does not specify",
    "doesn't specify",
    "not addressed",
    "not stated",
    "not specified",
    "partially",
    "partly",
    "in part",
    "half true",
    "mixed",
    "inconclusive",
    "ambiguous",
    "it depends",
    "yes and no",
    "neither true nor false",
    "not necessarily true",
    "not necessarily correct",
    "not necessarily accurate",
    "no evidence",
    "no indication",
    "no mention",
    "nothing in the document",
];

/// Words that say the claim holds (+) or does not (−), in their inflections.
const EVALUATIVE: &[(&str, bool)] = &[
    ("true", true),
    ("correct", true),
    ("accurate", true),
    ("right", true),
    ("valid", true),
    ("supported", true),
    ("supports", true),
    ("support", true),
    ("confirms", true),
    ("confirmed", true),
    ("confirm", true),
    ("corroborates", true),
    ("corroborated", true),
    ("false", false),
    ("untrue", false),
    ("incorrect", false),
    ("inaccurate", false),
    ("wrong", false),
    ("invalid", false),
    ("refutes", false),
    ("refuted", false),
    ("refute", false),
    ("contradicts", false),
    ("contradicted", false),
    ("contradict", false),
    ("disproves", false),
    ("disproved", false),
    ("unsupported", false),
];

/// Words that negate an evaluative word within the three words before it.
const NEGATIONS: &[&str] =
    &["not", "no", "never", "neither", "nor", "cannot", "hardly", "without", "nothing"];

/// First words of an answer that mean yes, in English and a few other languages.
const YES: &[&str] = &[
    "yes",
    "yeah",
    "yep",
    "yup",
    "affirmative",
    "indeed",
    "definitely",
    "certainly",
    "absolutely",
    "oui",
    "sí",
    "si",
    "ja",
    "da",
    "sim",
    "да",
];

/// First words that mean no.
const NO: &[&str] = &["no", "nope", "nah", "negative", "non", "nein", "não", "nao", "нет"];

/// What `answer`, given to a probe of `set` about `claim`, says about the claim.
pub fn resolve(answer: &str, set: ProbeSet, claim: &str) -> Stance {
    // The claim's own words decide nothing: blank out a verbatim repetition of it first.
    let words = blank_out(words_of(answer), &words_of(claim));
    let spoken: Vec<&str> =
        words.iter().map(String::as_str).filter(|word| !word.is_empty()).collect();
    if spoken.is_empty() {
        return Stance::Neutral;
    }
    let joined = format!(" {} ", spoken.join(" "));
    if HEDGES.iter().any(|hedge| joined.contains(&format!(" {hedge} "))) {
        return Stance::Neutral;
    }
    let towards_probe = |said_yes: bool| {
        let stance = if said_yes { Stance::Support } else { Stance::Refute };
        match set {
            ProbeSet::Agree => stance,
            ProbeSet::Conflict => stance.inverted(),
        }
    };
    // A leading yes or no set off by punctuation is the answer, not a negation of what follows
    // ("No evidence supports it" opens with a determiner, not an answer).
    let answered = answer_word(answer);
    match statement(&words, usize::from(answered.is_some())) {
        Some(Reading::Claim(stance)) => return stance,
        Some(Reading::Answer(said_yes)) => return towards_probe(said_yes),
        None => {}
    }
    let said_yes = match (spoken.first(), spoken.get(1)) {
        // "Certainly not", "Absolutely not".
        (Some(first), Some(&"not")) if YES.contains(first) => false,
        (Some(first), _) if YES.contains(first) => true,
        (Some(first), _) if NO.contains(first) => false,
        _ => return Stance::Neutral,
    };
    towards_probe(said_yes)
}

/// What an evaluative word in the answer is about.
enum Reading {
    /// The claim itself ("the claim is false", "the document refutes it"): read as it is.
    Claim(Stance),
    /// The question asked ("that is correct", "this is not right"): a yes (true) or a no (false),
    /// read through the probe like a leading yes or no.
    Answer(bool),
}

/// Adjectives that, after "that" or "this", judge the question rather than the claim.
const ADJECTIVES: &[&str] = &[
    "true",
    "correct",
    "accurate",
    "right",
    "valid",
    "false",
    "untrue",
    "incorrect",
    "inaccurate",
    "wrong",
    "invalid",
];

/// Words that refer back to the question ("it" most often means the claim: "No, it's true").
const PRONOUNS: &[&str] = &["that", "that's", "thats", "this"];

/// The answer's first statement about the claim's truth, if it makes one. Negations are
/// looked for from `from` on.
fn statement(words: &[String], from: usize) -> Option<Reading> {
    for (index, word) in words.iter().enumerate() {
        let Some(&(_, holds)) = EVALUATIVE.iter().find(|(evaluative, _)| evaluative == word) else {
            continue;
        };
        let before = &words[index.saturating_sub(3).max(from).min(index)..index];
        let negations = before
            .iter()
            .filter(|word| NEGATIONS.contains(&word.as_str()) || word.ends_with("n't"))
            .count();
        let negated = negations % 2 == 1;
        let necessarily = before.iter().any(|word| word == "necessarily");
        let holds = if negated { !holds } else { holds };
        let of_question = ADJECTIVES.contains(&word.as_str())
            && before.iter().any(|word| PRONOUNS.contains(&word.as_str()))
            && !before.iter().any(|word| word == "claim" || word == "statement");
        return Some(match (necessarily && negated, holds) {
            // "not necessarily true" is a hedge (caught before); "not necessarily false"
            // leaves the claim standing.
            (true, false) => Reading::Claim(Stance::Neutral),
            (_, holds) if of_question => Reading::Answer(holds),
            (_, true) => Reading::Claim(Stance::Support),
            (false, false) => Reading::Claim(Stance::Refute),
        });
    }
    None
}

/// The answer's leading yes (true) or no (false) when punctuation or the end follows it, or
/// "not" does ("Certainly not").
fn answer_word(answer: &str) -> Option<bool> {
    let text = answer.trim_start_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
    let end = text.find(|c: char| !(c.is_alphanumeric() || c == '\'')).unwrap_or(text.len());
    let (word, rest) = text.split_at(end);
    let next = rest.trim_start();
    let yes = YES.contains(&word);
    if !yes && !NO.contains(&word) {
        return None;
    }
    if yes
        && (next == "not"
            || next.starts_with("not ")
            || next.starts_with("not.")
            || next.starts_with("not,"))
    {
        return Some(false);
    }
    let set_off =
        rest.is_empty() || rest.starts_with(|c: char| !c.is_whitespace()) || rest.trim().is_empty();
    set_off.then_some(yes)
}

/// Lower-case words of `text`, apostrophes kept inside words ("isn't"), everything else that
/// is not a letter or digit a separator.
fn words_of(text: &str) -> Vec<String> {
    text.to_lowercase()
        .replace(['\u{2019}', '\u{2018}'], "'")
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .map(|word| word.trim_matches('\''))
        .filter(|word| !word.is_empty())
        .map(str::to_owned)
        .collect()
}

/// `words` with each run equal to `claim` (at least three words long) replaced by empty words.
fn blank_out(mut words: Vec<String>, claim: &[String]) -> Vec<String> {
    if claim.len() < 3 || claim.len() > words.len() {
        return words;
    }
    let mut start = 0;
    while start + claim.len() <= words.len() {
        if words[start..start + claim.len()] == *claim {
            for word in &mut words[start..start + claim.len()] {
                word.clear();
            }
            start += claim.len();
        } else {
            start += 1;
        }
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;
    use ProbeSet::{Agree, Conflict};
    use Stance::{Neutral, Refute, Support};

    const CLAIM: &str = "Okra is a flowering plant in the mallow family.";

    /// Answers as chat models give them, the probe set they answer, and what they say about
    /// the claim.
    const TABLE: &[(&str, ProbeSet, Stance)] = &[
        // Plain answers.
        ("Yes", Agree, Support),
        ("Yes.", Conflict, Refute),
        ("No", Agree, Refute),
        ("No.", Conflict, Support),
        ("yes", Agree, Support),
        ("**Yes**", Agree, Support),
        ("  No, ", Agree, Refute),
        ("Yes, it is.", Agree, Support),
        ("No, it is not.", Agree, Refute),
        ("Yep", Agree, Support),
        ("Nope.", Conflict, Support),
        // Statements about the claim win over the first word (the paper's parser got these
        // two wrong).
        ("Yes, the claim is not necessarily false.", Conflict, Support),
        ("No. The claim is not false.", Conflict, Support),
        ("No, the claim is true.", Conflict, Support),
        ("No, it's true.", Conflict, Support),
        // "That" or "this" with an adjective answer the question; "it" is the claim.
        ("Yes, that's correct.", Conflict, Refute),
        ("That is correct.", Agree, Support),
        ("It's not true.", Conflict, Refute),
        ("Certainly not.", Agree, Refute),
        ("Absolutely not", Conflict, Support),
        ("No evidence supports the claim.", Agree, Neutral),
        ("There is no evidence that the claim is true.", Agree, Neutral),
        ("Nothing in the document contradicts the claim.", Conflict, Neutral),
        ("Yes, not true.", Agree, Refute),
        ("Yes, the claim is false according to the document.", Conflict, Refute),
        ("Yes, the claim is true.", Agree, Support),
        ("No, the claim is false.", Agree, Refute),
        ("The claim is correct.", Agree, Support),
        ("The claim is incorrect.", Agree, Refute),
        ("The claim isn't true.", Agree, Refute),
        ("The claim is not accurate.", Conflict, Refute),
        ("Yes, the document supports the claim.", Agree, Support),
        ("No, the study does not support the claim.", Agree, Refute),
        ("No, the document does not contradict the claim.", Conflict, Support),
        ("Yes, the document contradicts the claim.", Conflict, Refute),
        ("The document confirms it.", Agree, Support),
        ("It is refuted by the document.", Conflict, Refute),
        ("That is wrong.", Agree, Refute),
        ("Based on the document, the claim is true.", Conflict, Support),
        // Hedges and two-sided answers.
        ("Not sure", Agree, Neutral),
        ("I am not sure.", Conflict, Neutral),
        ("It is unclear.", Agree, Neutral),
        ("Partially.", Agree, Neutral),
        ("Yes, partially.", Agree, Neutral),
        ("Partly true: the plant is in the mallow family but it is not a flower.", Agree, Neutral),
        ("Yes and no.", Agree, Neutral),
        ("The document does not mention okra.", Agree, Neutral),
        ("No, the document doesn't say anything about that.", Agree, Neutral),
        ("There is not enough information to tell.", Conflict, Neutral),
        ("It cannot be determined from the document.", Agree, Neutral),
        ("The claim is not necessarily true.", Agree, Neutral),
        ("The evidence is inconclusive.", Conflict, Neutral),
        ("Uncertain", Agree, Neutral),
        ("The claim is neither true nor false.", Agree, Neutral),
        // Empty, off-topic, other languages.
        ("", Agree, Neutral),
        ("   ", Conflict, Neutral),
        ("Okra", Agree, Neutral),
        ("The document is about plants.", Agree, Neutral),
        ("Oui.", Agree, Support),
        ("Sí, es cierto.", Agree, Support),
        ("Nein.", Agree, Refute),
        ("Ja", Conflict, Refute),
        ("Non", Conflict, Support),
        ("是的", Agree, Neutral),
        // The claim repeated in the answer decides nothing by its own words.
        ("Yes, okra is a flowering plant in the mallow family.", Agree, Support),
    ];

    #[test]
    fn the_table_of_answers_resolves_as_written() {
        assert!(TABLE.len() >= 40);
        let mut wrong = Vec::new();
        for &(answer, set, expected) in TABLE {
            let got = resolve(answer, set, CLAIM);
            if got != expected {
                wrong.push(format!("{answer:?} to {set:?}: {got:?}, expected {expected:?}"));
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn a_claim_with_a_hedging_word_does_not_make_its_answers_neutral() {
        let claim = "The cause of the fire is unclear.";
        assert_eq!(resolve("Yes, the cause of the fire is unclear.", Agree, claim), Support);
        assert_eq!(resolve("No.", Agree, claim), Refute);
        assert_eq!(resolve("It is unclear.", Agree, claim), Neutral);
    }

    #[test]
    fn a_claim_with_an_evaluative_word_does_not_decide_its_answer() {
        let claim = "The rumour about the mayor is false.";
        assert_eq!(resolve("Yes, the rumour about the mayor is false.", Agree, claim), Support);
        assert_eq!(resolve("No, the rumour about the mayor is false.", Agree, claim), Refute);
        assert_eq!(
            resolve("No. The rumour about the mayor is false is not true.", Agree, claim),
            Refute
        );
    }
}
