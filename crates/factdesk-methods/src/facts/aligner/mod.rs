//! The aligner: one claim against one premise (steps 1–6 of the rule in the module
//! documentation).
//!
//! Files: `names` (how a claim's name stands in a premise, and what kind of thing it names),
//! `roles` (ranks and their holders), `polarity` (negation and beliefs), `swaps` (a term
//! or a name swapped in a sentence restating the claim, and names turned round).

mod names;
mod polarity;
mod roles;
mod swaps;

use names::{NameClass, name_class};
use roles::Rank;

use std::collections::HashSet;

use factdesk_model::{FactAlignment, FactKind, FactPair};

use super::compare::{
    age, aside_end, bare, dates_agree, dates_comparable, loosely_comparable, names_match,
    neighbours, numbers_agree, numbers_comparable, same_year,
};
use super::extract::{self, Fact, Parsed, Value};
use super::lexicon;
use super::{
    MIN_OVERLAP, NAME_PLACE_OVERLAP, POLARITY_OVERLAP, RANKED_SETS, content, descriptive, framed,
};

/// The claim's sentence index whose facts are aligned (claims are judged sentence by
/// sentence; a claim of several sentences is aligned as a whole).
pub(super) struct Aligner<'a> {
    pub(super) claim: Parsed<'a>,
    pub(super) premise: Parsed<'a>,
    /// Every lower-cased word of the premise (for names written in lower case there).
    premise_words: HashSet<String>,
    /// The premise sentences aligned with the claim, best first.
    aligned: Vec<usize>,
    /// The share of the claim's content words the best aligned sentence holds.
    overlap: f64,
}

impl<'a> Aligner<'a> {
    pub(super) fn new(premise: &'a str, claim: &'a str) -> Aligner<'a> {
        Aligner::knowing(premise, claim, &HashSet::new())
    }

    /// As [`Aligner::new`], a capitalised first word in `names` (lower-cased: the words the
    /// rest of the evidence writes only capitalised, [`super::evidence_names`]) read as a name.
    pub(super) fn knowing(
        premise: &'a str,
        claim: &'a str,
        names: &HashSet<String>,
    ) -> Aligner<'a> {
        let mut first = extract::FirstWords::default();
        first.capitalised.extend(names.iter().cloned());
        extract::first_words(premise, &mut first);
        extract::first_words(claim, &mut first);
        let claim = extract::parse(claim, &first);
        let premise = extract::parse(premise, &extract::FirstWords { loose: true, ..first });
        let wanted = content(&claim.tokens);
        let mut scored: Vec<(usize, f64)> = (0..premise.sentences.len())
            .map(|index| {
                let held = content(premise.sentence_tokens(index));
                let shared = wanted.iter().filter(|word| held.contains(*word)).count();
                (index, if wanted.is_empty() { 0.0 } else { shared as f64 / wanted.len() as f64 })
            })
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1));
        let overlap = scored.first().map_or(0.0, |(_, share)| *share);
        // The best sentence, and any close behind it.
        let aligned = scored
            .iter()
            .filter(|(_, share)| *share > 0.0 && *share >= overlap - 0.15)
            .map(|(index, _)| *index)
            .collect();
        let premise_words = premise
            .tokens
            .iter()
            .map(|token| token.lower.trim_end_matches("'s").to_owned())
            .collect();
        Aligner { claim, premise, premise_words, aligned, overlap }
    }

    pub(super) fn claim_text(&self, fact: &Fact) -> String {
        self.claim.slice(fact.start, fact.end).to_owned()
    }

    fn premise_text(&self, fact: &Fact) -> String {
        self.premise.slice(fact.start, fact.end).to_owned()
    }

    /// The premise fact that stands in the claim fact's place, among those `fits` accepts:
    /// the one whose neighbouring words (three each side) share most content words with the
    /// claim fact's neighbours, then the one nearest its place in the sentence. It is sought in
    /// the aligned sentences first, where a fact needs shared neighbours only when `needs`
    /// says so; then in the premise's other sentences, where it always does.
    fn counterpart(
        &self,
        claim_fact: &Fact,
        fits: impl Fn(&Fact) -> bool,
        needs: impl Fn(&Fact) -> bool,
    ) -> Option<&Fact> {
        let mine = neighbours(&self.claim, claim_fact);
        let best = |aligned: bool| {
            self.premise
                .facts
                .iter()
                .filter(|fact| self.aligned.contains(&fact.sentence) == aligned && fits(fact))
                .filter_map(|fact| {
                    let (shared, place) = self.standing(claim_fact, &mine, fact);
                    if shared == 0 && (!aligned || needs(fact)) {
                        return None;
                    }
                    Some(((shared, place), fact))
                })
                .max_by(|(a, _), (b, _)| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)))
                .map(|(_, fact)| fact)
        };
        best(true).or_else(|| best(false))
    }

    /// How well premise fact `fact` stands in claim fact `claim_fact`'s place: the content
    /// words their neighbourhoods share (`mine`: the claim fact's), and how near their places
    /// in their sentences are (0 at the same place, down to -1).
    fn standing(&self, claim_fact: &Fact, mine: &HashSet<String>, fact: &Fact) -> (usize, f64) {
        let shared = neighbours(&self.premise, fact).intersection(mine).count();
        let at = claim_fact.token as f64 / self.claim.tokens.len().max(1) as f64;
        let range = &self.premise.sentences[fact.sentence];
        let size = (range.end - range.start).max(1) as f64;
        (shared, -((fact.token - range.start) as f64 / size - at).abs())
    }

    /// Whether the premise term `other` stands in the claim term `fact`'s frame: the three
    /// content words before it, or the three after it, in its sentence share one with those
    /// on the same side of the claim's ("resigned … before the vote" against "resigned …
    /// after the vote", not "the vote came after he resigned"). Names are left out: in "John
    /// Smith is the husband of Mary Smith" they are what the relation turns round.
    fn same_frame(&self, fact: &Fact, other: &Fact) -> bool {
        let around = |parsed: &Parsed, fact: &Fact| -> (HashSet<String>, HashSet<String>) {
            let range = &parsed.sentences[fact.sentence];
            let word = |token: &extract::Token| {
                if token.capitalised && !token.first && !token.after_quote {
                    return None;
                }
                crate::bm25_terms(&token.lower).into_iter().find(|word| word.chars().count() > 1)
            };
            let before =
                parsed.tokens[range.start..fact.token].iter().rev().filter_map(word).take(3);
            let after = parsed.tokens[(fact.token + 1).min(range.end)..range.end]
                .iter()
                .filter_map(word)
                .take(3);
            (before.collect(), after.collect())
        };
        let (before, after) = around(&self.claim, fact);
        let (other_before, other_after) = around(&self.premise, other);
        // The same names right before and right after both are the same frame too: "Major
        // Jackson and his wife Carolyn" against "Major Jackson and his husband Carolyn" ("John
        // is the husband of Mary" against "Mary is the wife of John" names others on each
        // side, "City bought Jones" against "United sold Jones" on one).
        fn nearest<'p>(parsed: &'p Parsed, fact: &Fact, after: bool) -> Option<&'p [String]> {
            parsed
                .facts
                .iter()
                .filter(|p| p.sentence == fact.sentence && matches!(p.value, Value::Name(_)))
                .filter(|p| {
                    if after {
                        p.token > fact.token && p.token - fact.token <= 2
                    } else {
                        // From the name's last word, which ends before the term (a term may
                        // stand inside a name: "Western Australia").
                        let last =
                            parsed.tokens.partition_point(|t| t.end <= p.end).saturating_sub(1);
                        last < fact.token && fact.token - last <= 4
                    }
                })
                .max_by_key(|p| if after { usize::MAX - p.token } else { p.token })
                .and_then(|p| match &p.value {
                    Value::Name(words) => Some(words.as_slice()),
                    _ => None,
                })
        }
        // Some(true) when both sides have the same name there, None when neither has one.
        let same_name = |after: bool| match (
            nearest(&self.claim, fact, after),
            nearest(&self.premise, other, after),
        ) {
            (Some(a), Some(b)) => Some(names_match(a, b)),
            (None, None) => None,
            _ => Some(false),
        };
        let names = match (same_name(false), same_name(true)) {
            (None, None) => false,
            (before, after) => before != Some(false) && after != Some(false),
        };
        !before.is_disjoint(&other_before) || !after.is_disjoint(&other_after) || names
    }

    /// The premise fact `agrees` accepts for `claim_fact`: one in an aligned sentence or
    /// sharing a neighbouring word with it first (recorded in `anchored`), else any.
    fn agreeing(
        &self,
        claim_fact: &Fact,
        agrees: impl Fn(&Fact) -> bool,
        anchored: &mut Vec<usize>,
    ) -> Option<&Fact> {
        let mine = neighbours(&self.claim, claim_fact);
        let mut found = None;
        for fact in self.premise.facts.iter().filter(|fact| agrees(fact)) {
            if self.aligned.contains(&fact.sentence)
                || !neighbours(&self.premise, fact).is_disjoint(&mine)
            {
                anchored.push(claim_fact.start);
                return Some(fact);
            }
            found = found.or(Some(fact));
        }
        found
    }

    pub(super) fn align(&self) -> FactAlignment {
        self.align_anchored().0
    }

    /// The alignment, and what [`Anchors`] records of it for reading the premises together.
    pub(super) fn align_anchored(&self) -> (FactAlignment, Anchors) {
        let mut anchored: Vec<usize> = Vec::new();
        let mut displaced: HashSet<String> = HashSet::new();
        let mut restated: HashSet<String> = HashSet::new();
        let mut anchored_roles: Vec<String> = Vec::new();
        let mut out = FactAlignment::default();
        let claim_names: Vec<&[String]> = self
            .claim
            .facts
            .iter()
            .filter_map(|fact| match &fact.value {
                Value::Name(words) => Some(words.as_slice()),
                _ => None,
            })
            .collect();
        // What the claim only asks about ("the question \"Who won in 2008?\"") it does not
        // state.
        for fact in self.claim.facts.iter().filter(|fact| !self.claim.asked(fact.start)) {
            let pair = |kind: FactKind, evidence: Option<&Fact>| FactPair {
                kind,
                claim: self.claim_text(fact),
                evidence: evidence.map(|e| self.premise_text(e)).unwrap_or_default(),
            };
            match &fact.value {
                Value::Number { .. } => {
                    let kind = FactKind::Number;
                    if let Some(found) = self.agreeing(
                        fact,
                        |p| {
                            numbers_agree(&fact.value, &p.value) || same_year(&fact.value, &p.value)
                        },
                        &mut anchored,
                    ) {
                        out.matched.push(pair(kind, Some(found)));
                    } else if let Some(other) = self.counterpart(
                        fact,
                        |p| {
                            numbers_comparable(&fact.value, &p.value)
                                || bare(&fact.value) && age(&p.value)
                                || bare(&p.value) && age(&fact.value)
                                || loosely_comparable(&fact.value, &p.value)
                        },
                        |p| !numbers_comparable(&fact.value, &p.value),
                    ) {
                        out.conflicts.push(pair(kind, Some(other)));
                    } else {
                        out.unsupported.push(pair(kind, None));
                    }
                }
                Value::Date { .. } => {
                    let kind = FactKind::Date;
                    if let Some(found) = self.agreeing(
                        fact,
                        |p| dates_agree(&fact.value, &p.value) || same_year(&fact.value, &p.value),
                        &mut anchored,
                    ) {
                        out.matched.push(pair(kind, Some(found)));
                    } else if let Some(other) = self.counterpart(
                        fact,
                        |p| dates_comparable(&fact.value, &p.value),
                        |_| false,
                    ) {
                        out.conflicts.push(pair(kind, Some(other)));
                    } else {
                        out.unsupported.push(pair(kind, None));
                    }
                }
                Value::Name(words) => {
                    let kind = FactKind::Name;
                    // A premise name the claim does not use stands in its place.
                    let class = name_class(&self.claim, fact);
                    let free = |p: &Fact| match &p.value {
                        Value::Name(other) => {
                            class != NameClass::Office
                                && name_class(&self.premise, p) == class
                                && !claim_names.iter().any(|mine| names_match(mine, other))
                                && !other
                                    .iter()
                                    .all(|word| self.claim.tokens.iter().any(|t| &t.lower == word))
                        }
                        _ => false,
                    };
                    if self.name_held(words) {
                        // Named elsewhere, but another name stands in its place in the
                        // sentence the claim restates ("assaulted by Kim Ki-Jong" against
                        // "assaulted by Lee Sang-Min", the doctor named further on). The
                        // sentences that say the same of another name lack this one: its own
                        // words are left out of what they must share.
                        let (restating, share) = self.restating_without(words);
                        if share >= NAME_PLACE_OVERLAP {
                            if self.name_held_in(&restating, words) {
                                restated.insert(self.claim_text(fact));
                            } else if let Some(other) = self.name_in_place(fact, &restating, free) {
                                displaced.insert(self.claim_text(fact));
                                out.conflicts.push(pair(kind, Some(other)));
                                continue;
                            }
                        }
                        let found = self.premise.facts.iter().find(
                            |p| matches!(&p.value, Value::Name(other) if names_match(words, other)),
                        );
                        out.matched.push(pair(kind, found));
                        continue;
                    }
                    match self.counterpart(fact, free, |_| true) {
                        Some(other) => out.conflicts.push(pair(kind, Some(other))),
                        None => out.unsupported.push(pair(kind, None)),
                    }
                }
                Value::Term { set, member } => {
                    let same = |p: &Fact| matches!(p.value, Value::Term { set: s, member: m } if s == *set && m == *member);
                    let rival = |p: &Fact| matches!(p.value, Value::Term { set: s, member: m } if s == *set && m != *member);
                    // Held elsewhere, but a rival stands in its place in the sentence the claim
                    // restates ("the last contact a patient has" against "the first contact a
                    // patient has", a "last" further on).
                    let displaced = self.overlap >= NAME_PLACE_OVERLAP
                        && !self
                            .premise
                            .facts
                            .iter()
                            .any(|p| same(p) && self.aligned.contains(&p.sentence))
                        && self.premise.facts.iter().any(&same);
                    // A relation that reads both ways is held only in the claim's frame: "before
                    // switching to ISIS after four months" does not hold "switched to ISIS
                    // before four months".
                    let framed_rival = framed(*set)
                        && !self.premise.facts.iter().any(|p| same(p) && self.same_frame(fact, p));
                    let in_place = (displaced || framed_rival)
                        .then(|| {
                            self.premise.facts.iter().find(|p| {
                                rival(p)
                                    && self.aligned.contains(&p.sentence)
                                    && self.same_frame(fact, p)
                            })
                        })
                        .flatten();
                    if let Some(other) = in_place {
                        out.conflicts.push(pair(FactKind::Term, Some(other)));
                    } else if let Some(found) = self.premise.facts.iter().find(|p| same(p)) {
                        match self.role(fact, same, *set) {
                            Some(Rank::GivenElsewhere(role)) => out.conflicts.push(role),
                            Some(Rank::Held(claim)) => anchored_roles.push(claim),
                            None => {}
                        }
                        out.matched.push(pair(FactKind::Term, Some(found)));
                    } else if let Some(other) = self.counterpart(
                        fact,
                        |p| rival(p) && (!framed(*set) || self.same_frame(fact, p)),
                        |_| false,
                    ) {
                        out.conflicts.push(pair(FactKind::Term, Some(other)));
                    } else if let Some(other) = descriptive(*set)
                        .then(|| self.about_the_same(&claim_names, rival))
                        .flatten()
                    {
                        // "The Eiffel Tower is a wrought-iron lattice tower" says what the
                        // tower is made of wherever it stands in the premise.
                        out.conflicts.push(pair(FactKind::Term, Some(other)));
                    } else if descriptive(*set) {
                        // What a thing is made of, its colour, its direction: a premise that
                        // says none of it does not back a claim that does.
                        out.unsupported.push(pair(FactKind::Term, None));
                    }
                }
            }
        }
        if let Some(conflict) = self.polarity_conflict() {
            out.conflicts.push(conflict);
        } else if let Some(&best) = self.aligned.first()
            && self.overlap >= 0.5
            && let Some(frame) = self.belief_frame(best)
            && self.denied_belief(best).is_none()
        {
            // "A popular belief holds that …" reports a belief: it does not state the claim.
            out.unsupported.push(FactPair {
                kind: FactKind::Polarity,
                claim: frame.to_owned(),
                evidence: String::new(),
            });
        }
        // A premise about something else states nothing against the claim: what it holds in
        // place of the claim's facts leaves them unsupported, not contradicted.
        if self.overlap < MIN_OVERLAP {
            for pair in std::mem::take(&mut out.conflicts) {
                if matches!(pair.kind, FactKind::Number | FactKind::Date | FactKind::Name) {
                    out.unsupported.push(FactPair { evidence: String::new(), ..pair });
                }
            }
        }
        let mut held: HashSet<(FactKind, String)> = out
            .matched
            .iter()
            .filter(|pair| !matches!(pair.kind, FactKind::Number | FactKind::Date))
            .map(|pair| (pair.kind, pair.claim.clone()))
            .collect();
        held.extend(anchored_roles.into_iter().map(|claim| (FactKind::Role, claim)));
        for fact in self.claim.facts.iter().filter(|fact| anchored.contains(&fact.start)) {
            let kind = match fact.value {
                Value::Date { .. } => FactKind::Date,
                _ => FactKind::Number,
            };
            held.insert((kind, self.claim_text(fact)));
        }
        // A compound term ("northeast") states two members, which may meet the same rival.
        for pairs in [&mut out.conflicts, &mut out.unsupported, &mut out.matched] {
            let mut seen: Vec<FactPair> = Vec::new();
            pairs.retain(|pair| {
                let new = !seen.contains(pair);
                if new {
                    seen.push(pair.clone());
                }
                new
            });
        }
        (out, Anchors { held, displaced, restated })
    }

    /// The first premise fact `fits` accepts in a sentence that names what the claim names
    /// (one of `claim_names`).
    fn about_the_same(
        &self,
        claim_names: &[&[String]],
        fits: impl Fn(&Fact) -> bool,
    ) -> Option<&Fact> {
        let names_one = |sentence: usize| {
            self.premise.facts.iter().any(|p| {
                p.sentence == sentence
                    && matches!(&p.value, Value::Name(words) if claim_names.iter().any(|mine| names_match(mine, words)))
            })
        };
        self.premise.facts.iter().find(|p| fits(p) && names_one(p.sentence))
    }
}

/// What one premise's alignment says of the claim's facts beyond itself, for reading the
/// premises together (`align_all`), each by its claim text.
pub(super) struct Anchors {
    /// Facts matched in their place: in an aligned sentence or among the same neighbouring
    /// words, not merely somewhere in the premise (numbers and dates; a name or a term matched
    /// anywhere counts).
    pub(super) held: HashSet<(FactKind, String)>,
    /// Names the premise holds only outside the sentences restating the claim, another name
    /// standing in their place there ("assaulted by Kim Ki-Jong", the claim's name further
    /// on).
    pub(super) displaced: HashSet<String>,
    /// Names a sentence restating the claim holds.
    pub(super) restated: HashSet<String>,
}
