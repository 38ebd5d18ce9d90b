//! Ranks and who holds them: "Aldrin was the first" against a premise that gives the first to
//! another name (step 6 of the rule in the module documentation).

use super::*;

impl<'a> Aligner<'a> {
    /// The name standing nearest before token `at` in its sentence, within a few words.
    /// A name after a preposition is no holder: "the second planet from the Sun and the
    /// hottest" ranks no Sun.
    pub(super) fn holder<'p>(parsed: &'p Parsed, at: usize) -> Option<&'p Fact> {
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
    pub(super) fn role(
        &self,
        claim_term: &Fact,
        same: impl Fn(&Fact) -> bool,
        set: usize,
    ) -> Option<Rank> {
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
}

/// Who holds a rank the claim gives ([`Aligner::role`]).
pub(super) enum Rank {
    /// The claim's name, in the premise (its claim text: "Aldrin was the first").
    Held(String),
    /// Only another name, while the premise names the claim's elsewhere.
    GivenElsewhere(FactPair),
}
