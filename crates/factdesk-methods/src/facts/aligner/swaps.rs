//! Words swapped in a restatement: a premise sentence that says the claim word for word but
//! for a few words, where the words that differ are rival members of one closed set ("switched
//! to ISIS after just four months" against "… before just four months"; "the male employee and
//! a female accomplice" against "the female employee and …"). Read position by position, such
//! a sentence contradicts the claim however often the claim's own word occurs elsewhere, which
//! the alignment by kind and neighbourhood (steps 3–4) cannot see when it does.

use similar::{Algorithm, DiffOp, capture_diff_slices};

use super::*;
use crate::facts::{NAME_SWAP_SHARE, NAME_SWAP_SLACK, RESTATED_SHARE};

impl Aligner<'_> {
    /// The claim's closed-set terms that a premise sentence restating the claim
    /// ([`RESTATED_SHARE`]) swaps for a rival of the same set in the same place: the rival
    /// stands first (or last) in a run of changed words that the same words precede (or
    /// follow) in both, at least two of them or one content word.
    pub(in crate::facts) fn swapped_terms(&self) -> Vec<FactPair> {
        let claim: Vec<&str> = self.claim.tokens.iter().map(|t| t.lower.as_str()).collect();
        if claim.is_empty() {
            return Vec::new();
        }
        let mut out: Vec<FactPair> = Vec::new();
        for (index, range) in self.premise.sentences.iter().enumerate() {
            let sentence: Vec<&str> =
                self.premise.sentence_tokens(index).iter().map(|t| t.lower.as_str()).collect();
            let ops = capture_diff_slices(Algorithm::Myers, &claim, &sentence);
            if (equal_words(&ops) as f64) < RESTATED_SHARE * claim.len() as f64 {
                continue;
            }
            for (claim_at, premise_at) in swapped_places(&ops, &claim) {
                if let Some(rival) = self.rival_at(claim_at, range.start + premise_at)
                    && !out.contains(&rival)
                {
                    out.push(rival);
                }
            }
        }
        out
    }

    /// The claim's names that a premise sentence restating the claim ([`NAME_SWAP_SHARE`] of
    /// its words, in order) gives another name in the same frame: the claim's changed words lie
    /// within one name, the sentence's changed words hold another name of the same kind with
    /// at most [`NAME_SWAP_SLACK`] words more, and the same words stand before and after both
    /// (or both runs start, or end, their texts). A name the claim does not use is a name
    /// swapped in ("Pettier, 22, was appearing on the show" against "Ellie Grant, 22, was
    /// appearing on the show"); the claim's other name is the two turned round, a role
    /// ("Terrence Freebody, 71, is accused of killing his neighbour Luigi Costa" against
    /// "Luigi Costa, 71, is accused of killing his elderly neighbour Terrence Freebody").
    /// Read position by position, where the alignment by neighbourhood (step 4) sees both
    /// names held. A people or an office stands in no one's place here either.
    pub(in crate::facts) fn swapped_names(&self) -> Vec<FactPair> {
        let claim: Vec<&str> = self.claim.tokens.iter().map(|t| t.lower.as_str()).collect();
        let claim_names: Vec<&Fact> =
            self.claim.facts.iter().filter(|f| matches!(f.value, Value::Name(_))).collect();
        if claim.is_empty() || claim_names.is_empty() {
            return Vec::new();
        }
        let mut out: Vec<FactPair> = Vec::new();
        for (index, range) in self.premise.sentences.iter().enumerate() {
            let sentence: Vec<&str> =
                self.premise.sentence_tokens(index).iter().map(|t| t.lower.as_str()).collect();
            let ops = capture_diff_slices(Algorithm::Myers, &claim, &sentence);
            if (equal_words(&ops) as f64) < NAME_SWAP_SHARE * claim.len() as f64 {
                continue;
            }
            for (old, new) in framed_runs(&ops, &claim, sentence.len()) {
                let Some(&mine) = claim_names
                    .iter()
                    .find(|fact| fact.token <= old.0 && old.1 <= token_span(&self.claim, fact))
                else {
                    continue;
                };
                let Value::Name(words) = &mine.value else { continue };
                let class = name_class(&self.claim, mine);
                if matches!(class, NameClass::Office | NameClass::People) {
                    continue;
                }
                let (from, to) = (range.start + new.0, range.start + new.1);
                let in_run = |fact: &&Fact| {
                    let end = token_span(&self.premise, fact);
                    matches!(fact.value, Value::Name(_))
                        && fact.token < to
                        && end > from
                        && new.1 - new.0 <= end - fact.token + NAME_SWAP_SLACK
                };
                let swapped = self.premise.facts.iter().filter(in_run).find_map(|fact| {
                    let Value::Name(other) = &fact.value else { return None };
                    let theirs = name_class(&self.premise, fact);
                    let claimed = claim_names
                        .iter()
                        .find(|c| matches!(&c.value, Value::Name(w) if names_match(w, other)));
                    match claimed {
                        None => (theirs == class && !self.name_held_in(&[index], words))
                            .then_some((FactKind::Name, fact)),
                        // The claim's other name in this one's place: sharing no word with
                        // it, and naming the same kind of thing as the claim's other name
                        // ("Fredericksburg Police" is not the town "Fredericksburg").
                        Some(&c) => (!std::ptr::eq(c, mine)
                            && !other.iter().any(|word| words.contains(word))
                            && name_class(&self.claim, c) == theirs)
                            .then_some((FactKind::Role, fact)),
                    }
                });
                if let Some((kind, theirs)) = swapped {
                    let pair = FactPair {
                        kind,
                        claim: self.claim_text(mine),
                        evidence: self.premise_text(theirs),
                    };
                    if !out.contains(&pair) {
                        out.push(pair);
                    }
                }
            }
        }
        out
    }

    /// The claim's term at claim token `claim_at` and the premise's rival at premise token
    /// `premise_at`, as a conflict, when both are members of one closed set and differ (in the
    /// same frame, for a relation that reads both ways).
    fn rival_at(&self, claim_at: usize, premise_at: usize) -> Option<FactPair> {
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

/// The places where a diff of the claim's words against a sentence's swaps one word for
/// another: for each run of changed words (what lies between two runs of equal words) that
/// both sides change, the first word of each side when the run before is an anchor, and the
/// last when the run after is. An anchor is two equal words or more, or one content word.
fn swapped_places(ops: &[DiffOp], claim: &[&str]) -> Vec<(usize, usize)> {
    let anchor = |op: Option<&DiffOp>| match op {
        Some(DiffOp::Equal { old_index, len, .. }) => {
            *len >= 2 || claim[*old_index..old_index + len].iter().any(|w| is_content(w))
        }
        _ => false,
    };
    let mut places = Vec::new();
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
        // The claim's and the sentence's changed words, as [start, end) ranges.
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
        if let (Some((old_start, old_end)), Some((new_start, new_end))) = (old, new) {
            if at > 0 && anchor(ops.get(at - 1)) {
                places.push((old_start, new_start));
            }
            if anchor(ops.get(end)) {
                places.push((old_end - 1, new_end - 1));
            }
        }
        at = end;
    }
    places
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

/// The runs of changed words (claim's [start, end), sentence's [start, end)) that both sides
/// change and that stand in the same frame: an anchor ([`swapped_places`]' kind) or both
/// sequences' start before them, and an anchor or both sequences' end after them, one of the
/// two an anchor.
fn framed_runs(
    ops: &[DiffOp],
    claim: &[&str],
    sentence_len: usize,
) -> Vec<((usize, usize), (usize, usize))> {
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
            let after = anchor(ops.get(end));
            let starts = old.0 == 0 && new.0 == 0;
            let ends = old.1 == claim.len() && new.1 == sentence_len;
            if (before || starts) && (after || ends) && (before || after) {
                runs.push((old, new));
            }
        }
        at = end;
    }
    runs
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
