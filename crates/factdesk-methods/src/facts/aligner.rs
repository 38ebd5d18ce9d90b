//! The aligner: one claim against one premise (steps 1–6 of the rule in the module
//! documentation).

use std::collections::HashSet;

use factdesk_model::{FactAlignment, FactKind, FactPair};

use super::compare::{
    age, bare, dates_agree, dates_comparable, loosely_comparable, names_match, neighbours,
    numbers_agree, numbers_comparable, same_year,
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
        let mut first = extract::FirstWords::default();
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
                if token.capitalised && !token.first {
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
                        // From the name's last word.
                        let last = parsed.tokens.partition_point(|t| t.end <= p.end) - 1;
                        p.token < fact.token && fact.token - last <= 4
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

    /// The premise sentences that restate the claim but for the name `words`: those sharing
    /// most of the claim's other content words (and any within 15 points of the best), with
    /// the best share. A sentence that says the same of another name lacks the claim's name,
    /// so the name's own words are left out of the share.
    fn restating_without(&self, words: &[String]) -> (Vec<usize>, f64) {
        let left_out: HashSet<String> =
            words.iter().flat_map(|word| crate::bm25_terms(word)).collect();
        let wanted: HashSet<String> =
            content(&self.claim.tokens).into_iter().filter(|w| !left_out.contains(w)).collect();
        if wanted.is_empty() {
            return (Vec::new(), 0.0);
        }
        let shares: Vec<f64> = (0..self.premise.sentences.len())
            .map(|index| {
                let held = content(self.premise.sentence_tokens(index));
                wanted.iter().filter(|word| held.contains(*word)).count() as f64
                    / wanted.len() as f64
            })
            .collect();
        let best = shares.iter().copied().fold(0.0, f64::max);
        let sentences = (0..shares.len())
            .filter(|&index| shares[index] > 0.0 && shares[index] >= best - 0.15)
            .collect();
        (sentences, best)
    }

    /// Whether one of `sentences` names `words`.
    fn name_held_in(&self, sentences: &[usize], words: &[String]) -> bool {
        self.premise.facts.iter().any(|fact| {
            sentences.contains(&fact.sentence)
                && matches!(&fact.value, Value::Name(other) if names_match(words, other))
        }) || sentences.iter().any(|&index| {
            let tokens = self.premise.sentence_tokens(index);
            words.iter().all(|word| tokens.iter().any(|t| t.lower.trim_end_matches("'s") == word))
        })
    }

    /// The name standing in the claim name `fact`'s place in `sentences`, among those `free`
    /// accepts and sharing a neighbouring word with it: the one sharing most, then the nearest
    /// its place.
    fn name_in_place(
        &self,
        fact: &Fact,
        sentences: &[usize],
        free: impl Fn(&Fact) -> bool,
    ) -> Option<&Fact> {
        let mine = neighbours(&self.claim, fact);
        self.premise
            .facts
            .iter()
            .filter(|p| sentences.contains(&p.sentence) && free(p))
            .filter_map(|p| {
                let standing = self.standing(fact, &mine, p);
                (standing.0 > 0).then_some((standing, p))
            })
            .max_by(|(a, _), (b, _)| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)))
            .map(|(_, p)| p)
    }

    pub(super) fn name_held(&self, words: &[String]) -> bool {
        self.premise
            .facts
            .iter()
            .any(|fact| matches!(&fact.value, Value::Name(other) if names_match(words, other)))
            || words.iter().all(|word| self.premise_words.contains(word))
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
                    let free = |p: &Fact| match &p.value {
                        Value::Name(other) => {
                            name_class(&self.premise, p) == name_class(&self.claim, fact)
                                && name_class(&self.claim, fact) != NameClass::Office
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

    /// The name standing nearest before token `at` in its sentence, within a few words.
    /// A name after a preposition is no holder: "the second planet from the Sun and the
    /// hottest" ranks no Sun.
    fn holder<'p>(parsed: &'p Parsed, at: usize) -> Option<&'p Fact> {
        let sentence = parsed.tokens[at].sentence;
        let object = |fact: &Fact| {
            let before = parsed.tokens[..fact.token]
                .iter()
                .rev()
                .map(|token| token.lower.as_str())
                .find(|word| !matches!(*word, "the" | "a" | "an"));
            before.is_some_and(|word| {
                matches!(
                    word,
                    "from" | "of" | "to" | "in" | "at" | "by" | "with" | "on" | "for" | "than"
                )
            })
        };
        parsed
            .facts
            .iter()
            .filter(|fact| fact.sentence == sentence && fact.token < at && at - fact.token <= 8)
            .filter(|fact| matches!(fact.value, Value::Name(_)) && !object(fact))
            .max_by_key(|fact| fact.token)
    }

    /// Who holds the rank a claim term gives (`claim_term`, of closed set `set`: "Aldrin was
    /// the first") where the premise states the same term (`same`): the claim's name
    /// somewhere ([`Rank::Held`]), or only another while the premise names the claim's holder
    /// elsewhere ([`Rank::GivenElsewhere`]); none when the premise ranks no one so.
    fn role(&self, claim_term: &Fact, same: impl Fn(&Fact) -> bool, set: usize) -> Option<Rank> {
        if !RANKED_SETS.contains(&lexicon::CLOSED_SETS[set].name) {
            return None;
        }
        // A rank held among others: "the first person", "the largest city" ("was first
        // climbed" ranks no one, and "his first visit" ranks him only among his own).
        let ranked = |parsed: &Parsed, term: &Fact| {
            term.token > 0 && parsed.tokens[term.token - 1].lower == "the"
        };
        if !ranked(&self.claim, claim_term) {
            return None;
        }
        let mine = Self::holder(&self.claim, claim_term.token)?;
        let Value::Name(a) = &mine.value else { return None };
        if !self.name_held(a) {
            return None;
        }
        // The first of the same kind: "the first woman" is not "the first human".
        fn next(parsed: &Parsed, term: &Fact) -> Option<String> {
            parsed.tokens.get(term.token + 1).map(|token| token.lower.clone())
        }
        let wanted = next(&self.claim, claim_term);
        let of_kind = |term: &Fact| match (&wanted, next(&self.premise, term)) {
            (Some(a), Some(b)) => *a == b,
            _ => true,
        };
        let holders: Vec<(&Fact, &Fact)> = self
            .premise
            .facts
            .iter()
            .filter(|p| same(p) && ranked(&self.premise, p) && of_kind(p))
            .filter_map(|p| Some((p, Self::holder(&self.premise, p.token)?)))
            .filter(|(_, holder)| matches!(holder.value, Value::Name(_)))
            .collect();
        let held_by = |holder: &Fact| matches!(&holder.value, Value::Name(b) if names_match(a, b));
        let claim = self.claim.slice(mine.start, claim_term.end).to_owned();
        if holders.iter().any(|(_, holder)| held_by(holder)) {
            return Some(Rank::Held(claim));
        }
        let (term, theirs) = holders.first()?;
        Some(Rank::GivenElsewhere(FactPair {
            kind: FactKind::Role,
            claim,
            evidence: self.premise.slice(theirs.start, term.end).to_owned(),
        }))
    }

    /// The belief frame premise sentence `index` reports its content in ("popular belief"),
    /// if any.
    fn belief_frame(&self, index: usize) -> Option<&'static str> {
        let range = &self.premise.sentences[index];
        if range.is_empty() {
            return None;
        }
        let text = self
            .premise
            .slice(self.premise.tokens[range.start].start, self.premise.tokens[range.end - 1].end)
            .to_lowercase();
        lexicon::BELIEF_FRAMES.iter().find(|frame| text.contains(*frame)).copied()
    }

    /// The premise sentence that denies the belief sentence `index` reports: the next one
    /// opening with a negation, or another that points back at it ("It cannot: …").
    fn denied_belief(&self, index: usize) -> Option<usize> {
        self.belief_frame(index)?;
        let denies = |at: usize| {
            self.premise.sentence_tokens(at).iter().take(4).any(|t| lexicon::is_negation(&t.lower))
        };
        let next = index + 1;
        if next < self.premise.sentences.len() && denies(next) {
            return Some(next);
        }
        // Further on in a premise whose sentences stand in another order, a denial that
        // points back at it ("It cannot: …").
        (0..self.premise.sentences.len()).filter(|&at| at != index && at != next).find(|&at| {
            self.premise.sentence_tokens(at).first().is_some_and(|t| {
                matches!(t.lower.as_str(), "it" | "this" | "that" | "they" | "neither")
            }) && denies(at)
        })
    }

    fn polarity_conflict(&self) -> Option<FactPair> {
        let best = *self.aligned.first()?;
        // A belief the premise reports and denies is about the claim at a lower overlap than a
        // negation is: the report restates it.
        let denial = self.denied_belief(best).filter(|_| self.overlap >= 0.5);
        if self.overlap < POLARITY_OVERLAP && denial.is_none() {
            return None;
        }
        // A cue counts where it negates a word both state: "accused him of not properly
        // checking" negates nothing a claim about the accusation says.
        let claim_words = content(&self.claim.tokens);
        let premise_words = content(self.premise.sentence_tokens(best));
        let shared = |word: &str| {
            crate::bm25_terms(word)
                .first()
                .is_some_and(|term| claim_words.contains(term) && premise_words.contains(term))
        };
        let mut evidence_sentence = best;
        if let Some(denial) = denial {
            // A belief the next sentence denies: the premise says not-so of all it reports.
            let claim_negated = (0..self.claim.sentences.len())
                .map(|i| self.claim.negations_before(i, shared))
                .sum::<usize>()
                % 2
                == 1;
            let premise_negated = self.premise.negations_before(best, shared).is_multiple_of(2);
            if claim_negated == premise_negated {
                return None;
            }
            evidence_sentence = denial;
        } else {
            // A word both state, said not to be so on one side only ("did not sign" against
            // "signed"); "doesn't know" and "does not know" agree.
            let stems = |words: Vec<String>| -> HashSet<String> {
                words.iter().filter_map(|word| crate::bm25_terms(word).into_iter().next()).collect()
            };
            let claim_negated = stems(
                (0..self.claim.sentences.len())
                    .flat_map(|i| self.claim.negated_words(i, shared))
                    .collect(),
            );
            let premise_negated = stems(self.premise.negated_words(best, shared));
            if claim_negated == premise_negated {
                return None;
            }
        }
        // The cue with the verb it negates: "did not sign", "was never opened", "It cannot".
        let cue = |parsed: &Parsed, tokens: &[extract::Token]| -> String {
            match tokens.iter().position(|t| lexicon::is_negation(&t.lower)) {
                Some(at) => {
                    let word = tokens[at].lower.as_str();
                    let with_previous = matches!(word, "not" | "never" | "cannot");
                    let with_next =
                        !matches!(word, "cannot" | "nor" | "none" | "nothing" | "nobody");
                    let start = tokens[if with_previous { at.saturating_sub(1) } else { at }].start;
                    let end =
                        tokens[if with_next { (at + 1).min(tokens.len() - 1) } else { at }].end;
                    parsed.slice(start, end).to_owned()
                }
                None => "(not negated)".to_owned(),
            }
        };
        Some(FactPair {
            kind: FactKind::Polarity,
            claim: cue(&self.claim, &self.claim.tokens),
            evidence: cue(&self.premise, self.premise.sentence_tokens(evidence_sentence)),
        })
    }
}

/// The preposition a name stands after ("in", "from", "by"; articles and determiners
/// skipped), or none ([`name_class`]: a name after "in" names a place).
fn slot<'p>(parsed: &'p Parsed, fact: &Fact) -> &'p str {
    let range = &parsed.sentences[fact.sentence];
    let before = parsed.tokens[range.start..fact.token]
        .iter()
        .rev()
        .map(|token| token.lower.as_str())
        .find(|word| !matches!(*word, "the" | "a" | "an" | "this" | "that" | "its" | "their"));
    match before {
        Some(word) if lexicon::is_preposition(word) => word,
        _ => "",
    }
}

/// What a name names, as far as its words and place say: a people, a faith or a party
/// ("British", "Tories"), an office ("the London Mayor", "the Duke of York"), a body (a school,
/// a department, a party), a place (a street, a city: a name with a place's word, or after
/// "in", "at", "from" …), else a person (most names in the news). A name stands in another's
/// place only when both name the same kind of thing: "Alix" is not contradicted by "Bowburn
/// Infants School", nor "Rose Byrne" by "Australian". An office is held by someone the premise
/// may name: it stands in no one's place, and no one in its.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NameClass {
    Person,
    Place,
    Body,
    People,
    Office,
}

fn name_class(parsed: &Parsed, fact: &Fact) -> NameClass {
    let Value::Name(words) = &fact.value else { return NameClass::Person };
    let text = parsed.slice(fact.start, fact.end).to_lowercase();
    let office = words.last().is_some_and(|word| lexicon::is_office_word(word))
        || words.first().is_some_and(|word| lexicon::is_office_word(word)) && text.contains(" of ");
    if office {
        NameClass::Office
    } else if let [word] = words.as_slice()
        && lexicon::is_people_word(word)
    {
        NameClass::People
    } else if words.iter().any(|word| lexicon::is_body_word(word)) {
        NameClass::Body
    } else if words.iter().any(|word| lexicon::is_place_word(word))
        || matches!(
            slot(parsed, fact),
            "in" | "at" | "near" | "from" | "into" | "across" | "throughout" | "outside" | "inside"
        )
    {
        NameClass::Place
    } else {
        NameClass::Person
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

/// Who holds a rank the claim gives ([`Aligner::role`]).
pub(super) enum Rank {
    /// The claim's name, in the premise (its claim text: "Aldrin was the first").
    Held(String),
    /// Only another name, while the premise names the claim's elsewhere.
    GivenElsewhere(FactPair),
}
