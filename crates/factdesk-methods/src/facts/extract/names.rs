//! Names: runs of capitalised words apart by spaces only, or joined by "of", "de", "van" ….

use super::*;

impl Reader<'_, '_> {
    /// Takes the names among the tokens nothing else took; a sentence's first word, and one
    /// after a closing quote, as `first` says.
    pub(super) fn names(&mut self, first: &FirstWords) {
        let Reader { parsed, used, out, .. } = self;
        let parsed: &Parsed = parsed;
        let tokens = &parsed.tokens;
        let fact = |value: Value, from: usize, to: usize| make_fact(tokens, value, from, to);
        let same_sentence = |a: usize, b: usize| tokens[a].sentence == tokens[b].sentence;
        let mut index = 0;
        while index < tokens.len() {
            let token = &tokens[index];
            // A capitalised first word of a sentence starts a name only as `first` says ("Cousin of
            // Princes William" names the princes, not the cousin).
            let opens = !(token.first || token.after_quote) || first.is_name(&token.lower);
            let starts = token.capitalised
                && opens
                && !used[index]
                && token.lower.chars().next().is_some_and(char::is_alphabetic)
                && !lexicon::NOT_NAMES
                    .contains(&token.lower.trim_end_matches("'s").trim_end_matches("’s"))
                && lexicon::month(&token.lower).is_none()
                && !lexicon::is_weekday(&token.lower);
            if !starts {
                index += 1;
                continue;
            }
            // Words of one name stand apart by spaces only, or by the stop after an initial or an
            // abbreviated title ("George W. Bush", "Dr. Fredric Brandt"): not "ORDINARY: Austin
            // Bird", "Trident. 'We", "Buddy Holly, Charles Manson".
            let adjoining = |a: usize, b: usize| {
                let gap = parsed.slice(tokens[a].end, tokens[b].start).trim();
                gap.is_empty()
                    || gap == "."
                        && (tokens[a].lower.chars().count() == 1
                            || matches!(
                                tokens[a].lower.as_str(),
                                "mr" | "mrs"
                                    | "ms"
                                    | "dr"
                                    | "st"
                                    | "jr"
                                    | "sr"
                                    | "prof"
                                    | "gen"
                                    | "col"
                                    | "lt"
                                    | "sgt"
                                    | "rev"
                                    | "capt"
                                    | "gov"
                                    | "sen"
                                    | "rep"
                            ))
            };
            let mut to = index;
            loop {
                let next = to + 1;
                // A possessive ends a name: "Perth's Kim Hames" is a city and a person.
                if tokens[to].lower.ends_with("'s") || tokens[to].lower.ends_with("’s") {
                    break;
                }
                if next < tokens.len()
                    && same_sentence(next, index)
                    && adjoining(to, next)
                    && tokens[next].capitalised
                    && !used[next]
                    && lexicon::month(&tokens[next].lower).is_none()
                {
                    to = next;
                } else if next + 1 < tokens.len()
                    && same_sentence(next + 1, index)
                    && lexicon::NAME_JOINERS.contains(&tokens[next].lower.as_str())
                    && adjoining(to, next)
                    && adjoining(next, next + 1)
                    && !tokens[next].capitalised
                    && tokens[next + 1].capitalised
                    && !used[next + 1]
                {
                    to = next + 1;
                } else {
                    break;
                }
            }
            let words: Vec<String> = tokens[index..=to]
                .iter()
                .map(|t| t.lower.trim_end_matches("'s").trim_end_matches("’s").to_owned())
                .filter(|w| {
                    !lexicon::NAME_JOINERS.contains(&w.as_str())
                        && w.chars().count() > 1
                        && !matches!(
                            w.as_str(),
                            "mr" | "mrs" | "ms" | "dr" | "prof" | "sir" | "st" | "the"
                        )
                })
                .collect();
            if !words.is_empty() {
                out.push(fact(Value::Name(words), index, to));
            }
            index = to + 1;
        }
    }
}
