//! How a claim's name stands in a premise: the sentences restating the claim but for the
//! name, the name standing in its place there, and what kind of thing a name names.

use super::*;

impl<'a> Aligner<'a> {
    /// The premise sentences that restate the claim but for the name `words`: those sharing
    /// most of the claim's other content words (and any within 15 points of the best), with
    /// the best share. A sentence that says the same of another name lacks the claim's name,
    /// so the name's own words are left out of the share.
    pub(super) fn restating_without(&self, words: &[String]) -> (Vec<usize>, f64) {
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
    pub(super) fn name_held_in(&self, sentences: &[usize], words: &[String]) -> bool {
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
    pub(super) fn name_in_place(
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

    pub(in crate::facts) fn name_held(&self, words: &[String]) -> bool {
        self.premise
            .facts
            .iter()
            .any(|fact| matches!(&fact.value, Value::Name(other) if names_match(words, other)))
            || words.iter().all(|word| self.premise_words.contains(word))
    }
}

/// The preposition a name stands after ("in", "from", "by"; articles and determiners
/// skipped), or none ([`name_class`]: a name after "in" names a place).
pub(super) fn slot<'p>(parsed: &'p Parsed, fact: &Fact) -> &'p str {
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
/// "in", "at", "from" …), a region (the state or county set off after a place), else a person
/// (most names in the news). A name stands in another's
/// place only when both name the same kind of thing: "Alix" is not contradicted by "Bowburn
/// Infants School", nor "Rose Byrne" by "Australian". An office is held by someone the premise
/// may name: it stands in no one's place, and no one in its.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum NameClass {
    Person,
    Place,
    Body,
    People,
    Office,
    /// The state, county or city a place lies in, set off by a comma after it and closed by a
    /// comma, a stop or the sentence's end ("at their home in Fredericksburg, Virginia."): only
    /// another such stands in its place (not "Washington Avenue").
    Region,
}

/// The prepositions after which a name names a place.
const PLACE_SLOTS: &[&str] =
    &["in", "at", "near", "from", "into", "across", "throughout", "outside", "inside"];

/// Whether name `fact` is set off by a comma after a place ("found at their home in
/// Fredericksburg, Virginia.", "a brothel in Battersea, London, …"): the state, county or city
/// it lies in. At most two words ("South Carolina"), closed by a comma, a stop or the
/// sentence's end ("… in Paris, Emmanuel Macron said" names a person), after a place that is
/// not among the sentence's first four words ("In London, Boris Johnson, the mayor, said …",
/// "Speaking in Paris, Boris Johnson, …") and named as a place (a body is left out: "the leader
/// of the Labour Party, Ed Miliband, said").
fn set_off_after_place(parsed: &Parsed, fact: &Fact) -> bool {
    let Value::Name(words) = &fact.value else { return false };
    let range = &parsed.sentences[fact.sentence];
    if words.len() > 2 || fact.token <= range.start {
        return false;
    }
    let before = &parsed.tokens[fact.token - 1];
    if parsed.slice(before.end, fact.start).trim() != "," {
        return false;
    }
    let last = parsed.tokens[fact.token..range.end]
        .iter()
        .position(|token| token.end >= fact.end)
        .map_or(fact.token, |offset| fact.token + offset);
    let closed = match parsed.tokens.get(last + 1).filter(|t| t.sentence == fact.sentence) {
        Some(next) => parsed.slice(fact.end, next.start).trim_start().starts_with([',', '.', ';']),
        // The sentence's last word.
        None => true,
    };
    closed
        && parsed.facts.iter().any(|other| {
            let Value::Name(named) = &other.value else { return false };
            let place = named.iter().any(|word| lexicon::is_place_word(word))
                || PLACE_SLOTS.contains(&slot(parsed, other));
            other.end == before.end && place && other.token > range.start + 3
        })
}

pub(super) fn name_class(parsed: &Parsed, fact: &Fact) -> NameClass {
    let Value::Name(words) = &fact.value else { return NameClass::Person };
    let text = parsed.slice(fact.start, fact.end).to_lowercase();
    let office = words.last().is_some_and(|word| lexicon::is_office_word(word))
        || words.first().is_some_and(|word| lexicon::is_office_word(word)) && text.contains(" of ");
    if office {
        NameClass::Office
    } else if set_off_after_place(parsed, fact) {
        NameClass::Region
    } else if let [word] = words.as_slice()
        && lexicon::is_people_word(word)
    {
        NameClass::People
    } else if words.iter().any(|word| lexicon::is_body_word(word)) {
        NameClass::Body
    } else if words.iter().any(|word| lexicon::is_place_word(word))
        || PLACE_SLOTS.contains(&slot(parsed, fact))
    {
        NameClass::Place
    } else {
        NameClass::Person
    }
}
