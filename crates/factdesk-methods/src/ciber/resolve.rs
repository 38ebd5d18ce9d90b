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
//! 3. Otherwise the answer's first word: yes to an agreeing probe supports the claim and to a
//!    contradicting one refutes it; no the other way round.
//! 4. Anything else is neutral.
//!
//! So "Yes, the claim is not necessarily false" and "No. The claim is not false" both support
//! the claim when they answer "is the claim false?", where reading the first word alone gets
//! the first wrong. Words the answer repeats from the claim itself are ignored, so that a claim
//! such as "The rumour is false" does not decide its own answer. The tables below are the
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
    let words = words_of(answer);
    if words.is_empty() {
        return Stance::Neutral;
    }
    let joined = format!(" {} ", words.join(" "));
    if HEDGES.iter().any(|hedge| joined.contains(&format!(" {hedge} "))) {
        return Stance::Neutral;
    }
    // The claim's own words decide nothing: blank out a verbatim repetition of it.
    let claim_words = words_of(claim);
    let words = blank_out(words, &claim_words);
    // A leading yes or no is the answer, not a negation of what follows it.
    let answered = words
        .first()
        .is_some_and(|word| YES.contains(&word.as_str()) || NO.contains(&word.as_str()));
    if let Some(stance) = statement(&words, usize::from(answered)) {
        return stance;
    }
    let first = words.iter().find(|word| !word.is_empty()).map(String::as_str);
    let said_yes = match first {
        Some(word) if YES.contains(&word) => true,
        Some(word) if NO.contains(&word) => false,
        _ => return Stance::Neutral,
    };
    let towards_probe = if said_yes { Stance::Support } else { Stance::Refute };
    match set {
        ProbeSet::Agree => towards_probe,
        ProbeSet::Conflict => towards_probe.inverted(),
    }
}

/// The stance of the answer's first statement about the claim's truth, if it makes one.
/// Negations are looked for from `from` on.
fn statement(words: &[String], from: usize) -> Option<Stance> {
    for (index, word) in words.iter().enumerate() {
        let Some(&(_, holds)) = EVALUATIVE.iter().find(|(evaluative, _)| evaluative == word) else {
            continue;
        };
        let before = &words[index.saturating_sub(3).max(from).min(index)..index];
        let negations = before
            .iter()
            .filter(|word| NEGATIONS.contains(&word.as_str()) || word.ends_with("n't"))
            .count();
        let necessarily = before.iter().any(|word| word == "necessarily");
        let holds = if negations % 2 == 1 { !holds } else { holds };
        return Some(match (necessarily && negations % 2 == 1, holds) {
            // "not necessarily true" is a hedge (caught above); "not necessarily false"
            // leaves the claim standing.
            (true, false) => Stance::Neutral,
            (_, true) => Stance::Support,
            (false, false) => Stance::Refute,
        });
    }
    None
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
