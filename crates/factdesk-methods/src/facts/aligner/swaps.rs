//! Words swapped in a restatement: a premise sentence that says the claim word for word but
//! for a few words, where the words that differ are rival members of one closed set ("switched
//! to ISIS after just four months" against "… before just four months"; "the male employee and
//! a female accomplice" against "the female employee and …"), or names ("Pettier, 22, was
//! appearing on the show" against "Ellie Grant, 22, was appearing on the show"; two names
//! turned round, a role). Read position by position, such a sentence contradicts the claim
//! however often the claim's own word or name occurs elsewhere, which the alignment by kind and
//! neighbourhood (steps 3–4) cannot see when it does.

use similar::{Algorithm, DiffOp, capture_diff_slices};

use super::*;
use crate::facts::{NAME_SWAP_SHARE, NAME_SWAP_SLACK, RESTATED_SHARE};

impl Aligner<'_> {
    /// What the premise's sentences restating the claim swap in its place: closed-set terms
    /// ([`Self::swapped_term`]) and names ([`Self::swapped_name`]), each pair once.
    pub(in crate::facts) fn swapped(&self) -> Vec<FactPair> {
        let claim: Vec<&str> = self.claim.tokens.iter().map(|t| t.lower.as_str()).collect();
        if claim.is_empty() {
            return Vec::new();
        }
        let mut out: Vec<FactPair> = Vec::new();
        for (index, range) in self.premise.sentences.iter().enumerate() {
            let sentence: Vec<&str> =
                self.premise.sentence_tokens(index).iter().map(|t| t.lower.as_str()).collect();
            let ops = capture_diff_slices(Algorithm::Myers, &claim, &sentence);
            let share = equal_words(&ops) as f64 / claim.len() as f64;
            if share < RESTATED_SHARE {
                continue;
            }
            for run in changed_runs(&ops, &claim) {
                let mut found = Vec::new();
                if run.before {
                    found.extend(self.swapped_term(run.old.0, range.start + run.new.0));
                }
                if run.after {
                    found.extend(self.swapped_term(run.old.1 - 1, range.start + run.new.1 - 1));
                }
                let framed = (run.before || run.old.0 == 0 && run.new.0 == 0)
                    && (run.after || run.old.1 == claim.len() && run.new.1 == sentence.len());
                if share >= NAME_SWAP_SHARE && framed {
                    let new = (range.start + run.new.0, range.start + run.new.1);
                    found.extend(self.swapped_name(index, run.old, new));
                }
                for pair in found {
                    if !out.contains(&pair) {
                        out.push(pair);
                    }
                }
            }
        }
        out
    }

    /// The name a sentence restating the claim ([`NAME_SWAP_SHARE`] of its words, in order)
    /// holds in the claim's changed words `old` (claim tokens) where the claim has one: its
    /// changed words `new` (premise tokens), in the same frame, hold another name of the same
    /// kind with at most [`NAME_SWAP_SLACK`] words more. A name the claim does not use is a name
    /// swapped in, unless the sentence holds the claim's too; the claim's other name, sharing
    /// no word with this one, is the two turned round, a role ("Terrence Freebody, 71, is
    /// accused of killing his neighbour Luigi Costa" against "Luigi Costa, 71, is accused of
    /// killing his elderly neighbour Terrence Freebody"), unless a word between them makes the
    /// relation read both ways ("Costa shook hands with Freebody"). A people or an office
    /// stands in no one's place here either.
    fn swapped_name(
        &self,
        sentence: usize,
        old: (usize, usize),
        new: (usize, usize),
    ) -> Option<FactPair> {
        let names = || self.claim.facts.iter().filter(|f| matches!(f.value, Value::Name(_)));
        let mine =
            names().find(|fact| fact.token <= old.0 && old.1 <= token_span(&self.claim, fact))?;
        let Value::Name(words) = &mine.value else { return None };
        let class = name_class(&self.claim, mine);
        if matches!(class, NameClass::Office | NameClass::People) {
            return None;
        }
        let (from, to) = new;
        let (kind, theirs) = self.premise.facts.iter().find_map(|fact| {
            let Value::Name(other) = &fact.value else { return None };
            let end = token_span(&self.premise, fact);
            // A clause set off after the name ("Angela, who weighs only 16 lbs., celebrated")
            // describes the one named; it takes no other's place.
            let to = if aside_end(&self.premise, end) == Some(to) { end.max(from + 1) } else { to };
            if fact.token >= to || end <= from || to - from > end - fact.token + NAME_SWAP_SLACK {
                return None;
            }
            let theirs = name_class(&self.premise, fact);
            match names().find(|c| matches!(&c.value, Value::Name(w) if names_match(w, other))) {
                None => (theirs == class && !self.name_held_in(&[sentence], words))
                    .then_some((FactKind::Name, fact)),
                // The claim's other name in this one's place ("Fredericksburg Police" is not
                // the town "Fredericksburg").
                Some(c) => (!std::ptr::eq(c, mine)
                    && !other.iter().any(|word| words.contains(word))
                    && name_class(&self.claim, c) == theirs
                    && !self.reads_both_ways(mine, c))
                .then_some((FactKind::Role, fact)),
            }
        })?;
        Some(FactPair { kind, claim: self.claim_text(mine), evidence: self.premise_text(theirs) })
    }

    /// Whether a word between claim names `a` and `b` makes their relation read both ways
    /// ([`lexicon::is_symmetric_cue`]).
    fn reads_both_ways(&self, a: &Fact, b: &Fact) -> bool {
        let (first, second) = if a.token <= b.token { (a, b) } else { (b, a) };
        let between = token_span(&self.claim, first).min(second.token)..second.token;
        self.claim.tokens[between].iter().any(|token| lexicon::is_symmetric_cue(&token.lower))
    }

    /// The claim's term at claim token `claim_at` and the premise's rival at premise token
    /// `premise_at`, as a conflict, when both are members of one closed set and differ (in the
    /// same frame, for a relation that reads both ways).
    fn swapped_term(&self, claim_at: usize, premise_at: usize) -> Option<FactPair> {
        let (mine, set, member) = term_at(&self.claim, claim_at)?;
        let (theirs, other_set, other_member) = term_at(&self.premise, premise_at)?;
        // A relation that reads both ways is swapped only between the same words or names
        // ("John is the husband of Mary" is "Mary is the wife of John").
        if set != other_set
            || member == other_member
            || framed(set) && !self.same_frame(mine, theirs)
        {
            return None;
        }
        Some(FactPair {
            kind: FactKind::Term,
            claim: self.claim_text(mine),
            evidence: self.premise_text(theirs),
        })
    }
}

/// The closed-set term standing at token `at`, with its set and member.
fn term_at<'p>(parsed: &'p Parsed<'_>, at: usize) -> Option<(&'p Fact, usize, usize)> {
    parsed.facts.iter().find_map(|fact| match fact.value {
        Value::Term { set, member } if fact.token == at => Some((fact, set, member)),
        _ => None,
    })
}

/// A run of changed words in a diff of the claim's words against a sentence's, that both
/// sides change: the claim's words `old` and the sentence's `new` ([start, end) each), and
/// whether an anchor stands before it and after it (two equal words or more, or one content
/// word).
struct Run {
    old: (usize, usize),
    new: (usize, usize),
    before: bool,
    after: bool,
}

/// The runs of changed words (what lies between two runs of equal words) that both sides
/// change. A term swapped for its rival stands first in a run with an anchor before it, or
/// last in one with an anchor after it.
fn changed_runs(ops: &[DiffOp], claim: &[&str]) -> Vec<Run> {
    let anchor = |op: Option<&DiffOp>| match op {
        Some(DiffOp::Equal { old_index, len, .. }) => {
            *len >= 2 || claim[*old_index..old_index + len].iter().any(|w| is_content(w))
        }
        _ => false,
    };
    let mut runs = Vec::new();
    let mut at = 0;
    while at < ops.len() {
        if matches!(ops[at], DiffOp::Equal { .. }) {
            at += 1;
            continue;
        }
        // A run of changes: ops[at..end].
        let mut end = at;
        while end < ops.len() && !matches!(ops[end], DiffOp::Equal { .. }) {
            end += 1;
        }
        let (mut old, mut new) = (None, None);
        for op in &ops[at..end] {
            match *op {
                DiffOp::Delete { old_index, old_len, .. } => widen(&mut old, old_index, old_len),
                DiffOp::Insert { new_index, new_len, .. } => widen(&mut new, new_index, new_len),
                DiffOp::Replace { old_index, old_len, new_index, new_len } => {
                    widen(&mut old, old_index, old_len);
                    widen(&mut new, new_index, new_len);
                }
                DiffOp::Equal { .. } => {}
            }
        }
        if let (Some(old), Some(new)) = (old, new) {
            let before = at > 0 && anchor(ops.get(at - 1));
            runs.push(Run { old, new, before, after: anchor(ops.get(end)) });
        }
        at = end;
    }
    runs
}

/// Widens `span` ([start, end)) to hold `len` words from `start`.
fn widen(span: &mut Option<(usize, usize)>, start: usize, len: usize) {
    if len > 0 {
        let end = start + len;
        *span = Some(span.map_or((start, end), |(from, to)| (from.min(start), to.max(end))));
    }
}

/// A word that is not a function word ([`crate::bm25_terms`] keeps none of those).
fn is_content(word: &str) -> bool {
    crate::bm25_terms(word).iter().any(|term| term.chars().count() > 1)
}

/// The token just past fact `fact`'s last token.
fn token_span(parsed: &Parsed<'_>, fact: &Fact) -> usize {
    let range = &parsed.sentences[fact.sentence];
    parsed.tokens[fact.token..range.end]
        .iter()
        .position(|token| token.end >= fact.end)
        .map_or(fact.token + 1, |offset| fact.token + offset + 1)
}

/// How many words a diff leaves equal.
fn equal_words(ops: &[DiffOp]) -> usize {
    ops.iter()
        .map(|op| match op {
            DiffOp::Equal { len, .. } => *len,
            _ => 0,
        })
        .sum()
}
