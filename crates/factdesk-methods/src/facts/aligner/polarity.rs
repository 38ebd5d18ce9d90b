//! Polarity: a negation on one side only, and a belief the premise reports or denies (step 5
//! of the rule in the module documentation).

use super::*;

impl<'a> Aligner<'a> {
    /// The belief frame premise sentence `index` reports its content in ("popular belief"),
    /// if any.
    pub(super) fn belief_frame(&self, index: usize) -> Option<&'static str> {
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
    pub(super) fn denied_belief(&self, index: usize) -> Option<usize> {
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

    pub(super) fn polarity_conflict(&self) -> Option<FactPair> {
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
        let shared_with = |sentence: usize| {
            let premise_words = content(self.premise.sentence_tokens(sentence));
            let claim_words = &claim_words;
            move |word: &str| {
                crate::bm25_terms(word)
                    .first()
                    .is_some_and(|term| claim_words.contains(term) && premise_words.contains(term))
            }
        };
        let shared = shared_with(best);
        let mut evidence_sentence = best;
        if let Some(denial) = denial {
            // A belief the next sentence denies: the premise says not-so of all it reports.
            let claim_negated = (0..self.claim.sentences.len())
                .map(|i| self.claim.negations_before(i, &shared))
                .sum::<usize>()
                % 2
                == 1;
            let premise_negated = self.premise.negations_before(best, &shared).is_multiple_of(2);
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
            let negated = |sentence: usize| {
                let shared = shared_with(sentence);
                let claim = stems(
                    (0..self.claim.sentences.len())
                        .flat_map(|i| self.claim.negated_words(i, &shared))
                        .collect(),
                );
                (claim, stems(self.premise.negated_words(sentence, &shared)))
            };
            let (claim_negated, premise_negated) = negated(best);
            if claim_negated == premise_negated {
                return None;
            }
            // Another sentence about the claim may say the same words are not so ("the captain
            // and co-pilot usually eat different meals … pilots do not eat the same"): then
            // the premise states the claim's polarity too. The claim's negated words are read
            // from the claim alone ("did not sign the contract" negates signing, whatever a
            // sentence shares with it: "He did not discuss the contract" holds nothing).
            let own = |word: &str| {
                crate::bm25_terms(word).first().is_some_and(|term| claim_words.contains(term))
            };
            let claim_own = stems(
                (0..self.claim.sentences.len())
                    .flat_map(|i| self.claim.negated_words(i, own))
                    .collect(),
            );
            let about = |sentence: usize| {
                let held = content(self.premise.sentence_tokens(sentence));
                let shared = claim_words.iter().filter(|word| held.contains(*word)).count();
                shared as f64 >= MIN_OVERLAP * claim_words.len() as f64
            };
            let negates_the_same = |sentence: usize| {
                let said = |word: &str| {
                    crate::bm25_terms(word).first().is_some_and(|term| claim_own.contains(term))
                };
                stems(self.premise.negated_words(sentence, said)) == claim_own
            };
            // Nor is it said of someone else ("Jones did not sign the contract").
            let names_another = |sentence: usize| {
                self.premise.facts.iter().any(|p| {
                    p.sentence == sentence
                        && matches!(&p.value, Value::Name(other) if !self.claim.facts.iter().any(
                            |c| matches!(&c.value, Value::Name(mine) if names_match(mine, other))
                        ))
                })
            };
            if !claim_own.is_empty()
                && (0..self.premise.sentences.len()).any(|sentence| {
                    sentence != best
                        && about(sentence)
                        && !names_another(sentence)
                        && negates_the_same(sentence)
                })
            {
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
