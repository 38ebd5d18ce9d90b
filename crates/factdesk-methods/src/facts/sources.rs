//! The sources the evidence came from: the figures a claim states that none of them states
//! (step 8 of the rule in the module documentation).

use std::collections::HashSet;

use factdesk_model::{FactKind, FactPair};

use super::aligner::Aligner;
use super::extract;
use super::lexicon;

/// How much of a source [`absent_figures`] reads (its first characters): a book-length page
/// would cost more to read than its tail is worth.
pub const SOURCE_CHARS: usize = 100_000;

/// The first `limit` characters of `text`, cut at a character boundary.
fn cut(text: &str, limit: usize) -> &str {
    match text.char_indices().nth(limit) {
        Some((at, _)) => &text[..at],
        None => text,
    }
}

/// The numbers, dates and days of the week `claim` states that none of `sources` states
/// anywhere, each once (its evidence empty). `sources` are the whole texts the evidence was drawn from: a figure
/// the premises leave unsupported is often stated elsewhere in its article, and is then no
/// sign of an invented figure; one that no source states at all is.
pub fn absent_figures(sources: &[&str], claim: &str) -> Vec<FactPair> {
    if claim.trim().is_empty() {
        return Vec::new();
    }
    let sources: Vec<&str> = sources.iter().map(|source| cut(source, SOURCE_CHARS)).collect();
    let sources = sources.as_slice();
    let mut stated: HashSet<(FactKind, String)> = HashSet::new();
    let mut figures: Vec<FactPair> = Vec::new();
    for source in sources.iter().filter(|source| !source.trim().is_empty()) {
        let alignment = Aligner::new(source, claim).align();
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
    if sources.iter().all(|source| source.trim().is_empty()) {
        return Vec::new();
    }
    figures.retain(|pair| !stated.contains(&(pair.kind, pair.claim.clone())));
    // A day of the week is a date too ("arrested on Sunday").
    let words = |text: &str| -> Vec<String> {
        extract::tokenize(text)
            .into_iter()
            .map(|(start, end)| text[start..end].to_lowercase())
            .collect()
    };
    let named: HashSet<String> = sources
        .iter()
        .flat_map(|source| words(source))
        .filter(|word| lexicon::is_weekday(word))
        .collect();
    for (start, end) in extract::tokenize(claim) {
        let word = &claim[start..end];
        let lower = word.to_lowercase();
        if lexicon::is_weekday(&lower)
            && !named.contains(&lower)
            && !figures.iter().any(|pair| pair.claim == word)
        {
            figures.push(FactPair {
                kind: FactKind::Term,
                claim: word.to_owned(),
                evidence: String::new(),
            });
        }
    }
    figures
}
