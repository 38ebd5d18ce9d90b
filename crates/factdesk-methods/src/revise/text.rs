//! Text helpers the methods share: sentences with their byte ranges, the word diff that
//! turns a changed part into edits, applying edits, evidence quoted up to a word count,
//! whether a question is about a text, and word sets for overlap measures.

use factdesk_model::Edit;

/// `texts` one per line, cut after `limit` words in all (at least one word).
pub(crate) fn capped_lines(texts: &[&str], limit: usize) -> String {
    let mut left = limit.max(1);
    let mut lines = Vec::new();
    for text in texts {
        if left == 0 {
            break;
        }
        let words: Vec<&str> = text.split_whitespace().take(left).collect();
        left -= words.len();
        if !words.is_empty() {
            lines.push(words.join(" "));
        }
    }
    lines.join("\n")
}

/// The sentences of `text` with their byte ranges (the whole text when the splitter finds
/// none).
pub(crate) fn sentence_spans(text: &str, language: &str) -> Vec<(usize, usize)> {
    let spans: Vec<(usize, usize)> = factdesk_text::segment_sentences(text, language)
        .into_iter()
        .map(|span| {
            let slice = span.slice(text);
            let lead = slice.len() - slice.trim_start().len();
            let start = span.start_byte as usize + lead;
            (start, start + slice.trim().len())
        })
        .filter(|(start, end)| text[*start..*end].chars().any(char::is_alphanumeric))
        .collect();
    if spans.is_empty() {
        let lead = text.len() - text.trim_start().len();
        return vec![(lead, lead + text.trim().len())];
    }
    spans
}

/// The changes that turn `before` into `after`, as (byte offset in `before`, replaced text,
/// new text), from a word diff; changes separated only by white space are one.
pub fn word_changes(before: &str, after: &str) -> Vec<(usize, String, String)> {
    let old = diff_tokens(before);
    let new = diff_tokens(after);
    let diff = similar::TextDiff::configure()
        .algorithm(similar::Algorithm::Patience)
        .diff_slices(&old, &new);
    let old_offsets: Vec<usize> = old
        .iter()
        .scan(0usize, |at, slice| {
            let start = *at;
            *at += slice.len();
            Some(start)
        })
        .collect();
    let old_at = |index: usize| old_offsets.get(index).copied().unwrap_or(before.len());
    let new_text = |from: usize, to: usize| new[from..to].concat();
    // (old start, old end, new start, new end) in tokens.
    let mut hunks: Vec<(usize, usize, usize, usize)> = Vec::new();
    for op in diff.ops() {
        let (tag, old_range, new_range) = op.as_tag_tuple();
        if tag == similar::DiffTag::Equal {
            continue;
        }
        if let Some(last) = hunks.last_mut() {
            let gap = &old[last.1..old_range.start];
            if gap.iter().all(|token| token.trim().is_empty()) {
                last.1 = old_range.end;
                last.3 = new_range.end;
                continue;
            }
        }
        hunks.push((old_range.start, old_range.end, new_range.start, new_range.end));
    }
    hunks
        .into_iter()
        .map(|(old_start, old_end, new_start, new_end)| {
            let start = old_at(old_start);
            let end = old_at(old_end);
            (start, before[start..end].to_owned(), new_text(new_start, new_end))
        })
        .collect()
}

/// The tokens a diff compares: runs of letters and digits, runs of white space, and each other
/// character alone (so "1899." changes as "1899", not with its full stop).
fn diff_tokens(text: &str) -> Vec<&str> {
    let class = |c: char| {
        if c.is_alphanumeric() {
            0
        } else if c.is_whitespace() {
            1
        } else {
            2
        }
    };
    let mut tokens = Vec::new();
    let mut start = 0;
    let mut previous: Option<u8> = None;
    for (at, c) in text.char_indices() {
        let kind = class(c);
        if let Some(last) = previous
            && (kind != last || kind == 2)
        {
            tokens.push(&text[start..at]);
            start = at;
        }
        previous = Some(kind);
    }
    if start < text.len() {
        tokens.push(&text[start..]);
    }
    tokens
}

/// Applies `edits` (made in order, not overlapping) to `original`; edits that do not fit leave
/// the original, which storing the revision then refuses as inconsistent.
pub(crate) fn apply(original: &str, edits: &[Edit]) -> String {
    factdesk_model::apply_edits(original, edits, |_| true).unwrap_or_else(|_| original.to_owned())
}

/// Question words: never what a question is about.
const ASKING: &[&str] = &["what", "when", "where", "why", "how", "many", "much", "whose"];

/// Whether `question` is about `text`: they share a content word (a BM25 term that is not a
/// question word). A small model copies its worked examples; a search or question about
/// something the passage never mentions is such a copy, and is not used.
pub fn is_about(question: &str, text: &str) -> bool {
    let said: std::collections::HashSet<String> = crate::bm25::terms(text).into_iter().collect();
    crate::bm25::terms(question)
        .into_iter()
        .any(|term| !ASKING.contains(&term.as_str()) && said.contains(&term))
}

/// The words of `text` as written that [`is_about`] counts (those with a BM25 term that is
/// not a question word), in order, each once (any case): a question naming one of them is
/// about `text`.
pub fn content_words(text: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    for word in text.split(|c: char| !c.is_alphanumeric()).filter(|word| !word.is_empty()) {
        let counts = crate::bm25::terms(word).iter().any(|term| !ASKING.contains(&term.as_str()));
        if counts && !words.iter().any(|seen| seen.to_lowercase() == word.to_lowercase()) {
            words.push(word.to_owned());
        }
    }
    words
}

/// The words of `text` (lower-case, alphanumeric), for overlap measures.
pub(crate) fn word_set(text: &str) -> std::collections::HashSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_changes_are_minimal_spans_of_the_original() {
        let before = "The tower opened in 1899 and is 300 metres tall.";
        let after = "The tower opened in 1889 and is 330 metres tall.";
        let changes = word_changes(before, after);
        assert_eq!(
            changes,
            vec![(20, "1899".to_owned(), "1889".to_owned()), (32, "300".into(), "330".into())]
        );
        // Punctuation is a token of its own.
        assert_eq!(
            word_changes("in 1899.", "in 1889."),
            vec![(3, "1899".to_owned(), "1889".to_owned())]
        );
        // Changes next to each other across a space are one; insertions and deletions keep
        // their place.
        let merged = word_changes("profit rose 12 percent", "profit fell 15 percent");
        assert_eq!(merged, vec![(7, "rose 12".to_owned(), "fell 15".to_owned())]);
        let inserted = word_changes("It opened.", "It opened in May.");
        assert_eq!(inserted.len(), 1);
        let (start, removed, added) = &inserted[0];
        let mut text = before_apply("It opened.", *start, removed, added);
        assert_eq!(text, "It opened in May.");
        text = before_apply("a b c", 1, " b", "");
        assert_eq!(text, "a c");
        assert!(word_changes("Same text.", "Same text.").is_empty());
        // Non-ASCII text keeps byte offsets on char boundaries.
        let accents = word_changes("Café à Genève en 1990.", "Café à Zürich en 1990.");
        assert_eq!(accents, vec![(9, "Genève".to_owned(), "Zürich".to_owned())]);
    }

    fn before_apply(text: &str, start: usize, removed: &str, added: &str) -> String {
        format!("{}{}{}", &text[..start], added, &text[start + removed.len()..])
    }

    #[test]
    fn content_words_are_those_a_question_about_the_text_names() {
        let sentence = "How many Nobel Prizes did Marie Curie win, and what prizes?";
        let words = content_words(sentence);
        assert_eq!(words, ["Nobel", "Prizes", "Marie", "Curie", "win"]);
        // Each one makes a question about the sentence; a question word or stop word does not.
        for word in &words {
            assert!(is_about(&format!("Who is {word}?"), sentence), "{word}");
        }
        assert!(!is_about("How many of them?", sentence));
        assert!(content_words("It is what it is.").is_empty());
        assert_eq!(content_words("Brücke über die Moldau"), ["Brücke", "über", "die", "Moldau"]);
    }

    #[test]
    fn sentence_spans_cover_each_sentence_without_its_spaces() {
        let text = "  Okra is green.  It grows in Ghana. ";
        let spans = sentence_spans(text, "en");
        let parts: Vec<&str> = spans.iter().map(|(s, e)| &text[*s..*e]).collect();
        assert_eq!(parts, ["Okra is green.", "It grows in Ghana."]);
        assert_eq!(sentence_spans("no stop", "en"), vec![(0, 7)]);
    }
}
