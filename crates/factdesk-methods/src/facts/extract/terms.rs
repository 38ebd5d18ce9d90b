//! Closed-set terms ([`super::super::lexicon::CLOSED_SETS`]): a word of a name may state one
//! ("Western Australia"), and so may the noun a number counts ("three women"). Of a set whose
//! two members exclude each other with nothing between ([`lexicon::COMPLEMENTARY_SETS`]), one
//! right after "not" or "never" states the other ("found him not guilty" is "cleared"), and
//! after "pleaded not" neither ("pleaded not guilty" is a plea, no verdict).

use super::dates::month_token;
use super::*;

impl Reader<'_, '_> {
    /// Takes the closed-set terms, in tokens no date or number took or in the nouns numbers
    /// count.
    pub(super) fn terms(&mut self) {
        let Reader { parsed, used, counted, out } = self;
        let parsed: &Parsed = parsed;
        let tokens = &parsed.tokens;
        let fact = |value: Value, from: usize, to: usize| make_fact(tokens, value, from, to);
        let same_sentence = |a: usize, b: usize| tokens[a].sentence == tokens[b].sentence;
        // Closed-set terms (a word of a name may state one: "Western Australia"; so may the noun
        // a number counts: "three women", "her 65-year-old daughter").
        for (index, token) in tokens.iter().enumerate() {
            if used[index] && !counted.contains(&index) {
                continue;
            }
            // "last Wednesday", "last year" say when, not a rank ("the last day" is one).
            let determined = index.checked_sub(1).is_some_and(|at| {
                same_sentence(at, index)
                    && matches!(
                        tokens[at].lower.as_str(),
                        "the" | "its" | "his" | "her" | "their" | "our" | "my" | "your" | "this"
                    )
            });
            if token.lower == "last"
                && !determined
                && tokens.get(index + 1).is_some_and(|next| {
                    same_sentence(index, index + 1)
                        && (lexicon::is_time_word(&next.lower) || month_token(next).is_some())
                })
            {
                continue;
            }
            let mut parts: Vec<&str> =
                std::iter::once(token.lower.as_str()).chain(token.lower.split('-')).collect();
            // "northeast", "southwestern": both directions.
            for head in ["north", "south"] {
                if let Some(tail) = token.lower.strip_prefix(head)
                    && (tail.starts_with("east") || tail.starts_with("west"))
                {
                    parts.extend([head, tail]);
                }
            }
            // Of two members with nothing between, the one said not to be is the other: "found
            // him not guilty" is "cleared", "is not dead" "alive". A plea is no verdict:
            // "pleaded not guilty" states neither.
            let cue = index.checked_sub(1).filter(|&at| {
                same_sentence(at, index) && matches!(tokens[at].lower.as_str(), "not" | "never")
            });
            let pleaded = cue.and_then(|at| at.checked_sub(1)).is_some_and(|at| {
                same_sentence(at, index)
                    && matches!(
                        tokens[at].lower.as_str(),
                        "pleaded" | "pleads" | "plead" | "pleading"
                    )
            });
            let negated = cue.is_some();
            let mut seen = Vec::new();
            for part in parts {
                for (set_index, set) in CLOSED_SETS.iter().enumerate() {
                    if token.capitalised && !token.first && !token.after_quote && !set.capitalised {
                        continue;
                    }
                    let complementary =
                        set.members.len() == 2 && lexicon::COMPLEMENTARY_SETS.contains(&set.name);
                    if pleaded && complementary {
                        continue;
                    }
                    if let Some(member) =
                        set.members.iter().position(|forms| forms.contains(&part)).map(|member| {
                            if negated && complementary { 1 - member } else { member }
                        })
                        && !seen.contains(&(set_index, member))
                    {
                        seen.push((set_index, member));
                        out.push(fact(Value::Term { set: set_index, member }, index, index));
                    }
                }
            }
        }
    }
}
