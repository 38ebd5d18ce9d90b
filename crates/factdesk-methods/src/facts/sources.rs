//! The sources the evidence came from: the figures and names a claim states that none of them
//! states (step 8 of the rule in the module documentation).

use std::collections::HashSet;

use factdesk_model::{FactKind, FactPair};

use super::aligner::Aligner;
use super::extract::Value;
use super::lexicon;

/// How much of a source [`absent_facts`] reads (its first characters): a book-length page
/// would cost more to read than its tail is worth.
pub const SOURCE_CHARS: usize = 100_000;

/// The first `limit` characters of `text`, cut at a character boundary.
pub(super) fn cut(text: &str, limit: usize) -> &str {
    match text.char_indices().nth(limit) {
        Some((at, _)) => &text[..at],
        None => text,
    }
}

/// The numbers, dates, days of the week and names `claim` states that none of `sources` states
/// anywhere, each once (its evidence empty). `sources` are the whole texts the evidence was
/// drawn from: a figure or name the premises leave unsupported is often stated elsewhere in
/// its article, and is then no sign of an invented fact; one that no source states at all is.
/// A name counts as stated when a source names it as the aligner matches names (a short
/// form, a title dropped, a people for its place) or holds all its words in any case.
pub fn absent_facts(sources: &[&str], claim: &str) -> Vec<FactPair> {
    let aligners: Vec<Aligner> = sources
        .iter()
        .map(|source| cut(source, SOURCE_CHARS))
        .filter(|source| !source.trim().is_empty())
        .map(|source| Aligner::new(source, claim))
        .collect();
    if claim.trim().is_empty() || aligners.is_empty() {
        return Vec::new();
    }
    let mut stated: HashSet<(FactKind, String)> = HashSet::new();
    let mut figures: Vec<FactPair> = Vec::new();
    for aligner in &aligners {
        let alignment = aligner.align();
        stated.extend(
            alignment
                .matched
                .iter()
                .filter(|pair| matches!(pair.kind, FactKind::Number | FactKind::Date))
                .map(|pair| (pair.kind, pair.claim.clone())),
        );
        for pair in alignment.conflicts.iter().chain(&alignment.unsupported) {
            if matches!(pair.kind, FactKind::Number | FactKind::Date)
                && !figures.iter().any(|seen| seen.kind == pair.kind && seen.claim == pair.claim)
            {
                figures.push(FactPair { evidence: String::new(), ..pair.clone() });
            }
        }
    }
    figures.retain(|pair| !stated.contains(&(pair.kind, pair.claim.clone())));
    // A day of the week is a date too ("arrested on Sunday"): the words the aligners read.
    let named: HashSet<&str> = aligners
        .iter()
        .flat_map(|aligner| aligner.premise.tokens.iter())
        .map(|token| token.lower.as_str())
        .filter(|word| lexicon::is_weekday(word))
        .collect();
    let parsed = &aligners[0].claim;
    for token in &parsed.tokens {
        let word = parsed.slice(token.start, token.end);
        if lexicon::is_weekday(&token.lower)
            && !named.contains(token.lower.as_str())
            && !figures.iter().any(|pair| pair.claim == word)
        {
            figures.push(FactPair {
                kind: FactKind::Term,
                claim: word.to_owned(),
                evidence: String::new(),
            });
        }
    }
    // A name no source holds: a person, place or body the claim brings in.
    for fact in parsed.facts.iter().filter(|fact| !parsed.asked(fact.start)) {
        if let Value::Name(words) = &fact.value {
            let text = aligners[0].claim_text(fact);
            if !aligners.iter().any(|aligner| aligner.name_held(words))
                && !figures.iter().any(|pair| pair.claim == text)
            {
                figures.push(FactPair {
                    kind: FactKind::Name,
                    claim: text,
                    evidence: String::new(),
                });
            }
        }
    }
    figures
}
