//! Sentence segmentation. Paragraphs (blank-line separated) never share a sentence; inside a
//! paragraph the boundaries come from `sentencex` (Wikimedia's rule-based segmenter, with
//! abbreviation lists and quote handling for many languages). Over-long spans (tables, lists
//! without punctuation) are cut at line breaks, then at spaces, so no sentence exceeds
//! [`MAX_SENTENCE_CHARS`].

use factdesk_model::SentenceSpan;

/// The longest sentence kept whole, in characters.
pub const MAX_SENTENCE_CHARS: usize = 1000;

/// Splits `text` into sentences for `language` (an ISO 639-1 code; unknown codes fall back to
/// English rules). Spans are trimmed of surrounding white space, in order, non-overlapping.
pub fn segment_sentences(text: &str, language: &str) -> Vec<SentenceSpan> {
    let mut byte_spans: Vec<(usize, usize)> = Vec::new();
    for (paragraph_start, paragraph) in paragraphs(text) {
        let boundaries = sentencex::get_sentence_boundaries(language, paragraph)
            .into_iter()
            .map(|boundary| (boundary.start_byte, boundary.end_byte.min(paragraph.len())));
        for (start, end) in join_mid_word_cuts(paragraph, boundaries) {
            let (start, end) = trim_span(paragraph, start, end);
            if start < end {
                split_long(paragraph, start, end, paragraph_start, &mut byte_spans);
            }
        }
    }
    with_char_offsets(text, &byte_spans)
}

/// Joins spans that the segmenter cut inside a word: after a full stop `.`, a sentence ends
/// before white space, so a cut right after `.` with a word character next (`window.__state`,
/// `os.Path`, `2.0.Beta`) is not a sentence boundary. Scripts that end sentences with their
/// own marks and no space (`。`) are left as the segmenter cut them.
fn join_mid_word_cuts(
    paragraph: &str,
    spans: impl Iterator<Item = (usize, usize)>,
) -> Vec<(usize, usize)> {
    let mut joined: Vec<(usize, usize)> = Vec::new();
    for (start, end) in spans {
        if let Some(last) = joined.last_mut() {
            let before = paragraph[..last.1].chars().next_back();
            let after = paragraph[start..].chars().next();
            let mid_word = last.1 == start
                && before == Some('.')
                && after.is_some_and(|c| c.is_alphanumeric() || c == '_');
            if mid_word {
                last.1 = end;
                continue;
            }
        }
        joined.push((start, end));
    }
    joined
}

/// Paragraphs with their byte offsets: maximal runs of text between blank lines.
fn paragraphs(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut offset = 0;
    text.split("\n\n").filter_map(move |paragraph| {
        let start = offset;
        offset += paragraph.len() + 2;
        (!paragraph.trim().is_empty()).then_some((start, paragraph))
    })
}

fn trim_span(text: &str, start: usize, end: usize) -> (usize, usize) {
    let end = end.min(text.len());
    let slice = &text[start..end];
    let leading = slice.len() - slice.trim_start().len();
    let trailing = slice.len() - slice.trim_end().len();
    if leading == slice.len() { (start, start) } else { (start + leading, end - trailing) }
}

/// Cuts a span longer than [`MAX_SENTENCE_CHARS`] into pieces of at most that length. A loop,
/// and no character count of the whole rest at each piece: a 20 MB text without punctuation
/// is 20 000 pieces.
fn split_long(
    paragraph: &str,
    mut start: usize,
    mut end: usize,
    base: usize,
    out: &mut Vec<(usize, usize)>,
) {
    loop {
        let slice = &paragraph[start..end];
        let Some((limit_byte, _)) = slice.char_indices().nth(MAX_SENTENCE_CHARS) else {
            out.push((base + start, base + end));
            return;
        };
        // Prefer line breaks, then the last space before the limit, then a hard cut.
        let head = &slice[..limit_byte];
        let cut = head
            .rfind('\n')
            .filter(|&i| i > 0)
            .or_else(|| head.rfind(' ').filter(|&i| i > 0))
            .unwrap_or(limit_byte);
        let (first_start, first_end) = trim_span(paragraph, start, start + cut);
        if first_start < first_end {
            out.push((base + first_start, base + first_end));
        }
        let (rest_start, rest_end) = trim_span(paragraph, start + cut, end);
        if rest_start >= rest_end {
            return;
        }
        (start, end) = (rest_start, rest_end);
    }
}

fn with_char_offsets(text: &str, byte_spans: &[(usize, usize)]) -> Vec<SentenceSpan> {
    let mut spans = Vec::with_capacity(byte_spans.len());
    let (mut cursor_byte, mut cursor_char) = (0usize, 0usize);
    for &(start, end) in byte_spans {
        cursor_char += text[cursor_byte..start].chars().count();
        let start_char = cursor_char;
        let end_char = start_char + text[start..end].chars().count();
        cursor_byte = end;
        cursor_char = end_char;
        spans.push(SentenceSpan {
            start_char: start_char as u32,
            end_char: end_char as u32,
            start_byte: start as u32,
            end_byte: end as u32,
        });
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str, expected: &[&str]) {
        let spans = segment_sentences(text, "en");
        let got: Vec<&str> = spans
            .iter()
            .map(|span| &text[span.start_byte as usize..span.end_byte as usize])
            .collect();
        assert_eq!(got, expected, "segmenting {text:?}");
        for span in &spans {
            let by_chars: String = text
                .chars()
                .skip(span.start_char as usize)
                .take((span.end_char - span.start_char) as usize)
                .collect();
            assert_eq!(by_chars, &text[span.start_byte as usize..span.end_byte as usize]);
        }
    }

    #[test]
    fn abbreviations_titles_and_initials_do_not_split() {
        check(
            "Mr. Smith met Dr. Jones at 10 a.m. on Monday. They spoke for an hour.",
            &["Mr. Smith met Dr. Jones at 10 a.m. on Monday.", "They spoke for an hour."],
        );
        check(
            "The novel by J. R. R. Tolkien sold well. Sales rose again.",
            &["The novel by J. R. R. Tolkien sold well.", "Sales rose again."],
        );
        check(
            "The U.S. economy grew. Europe's did not.",
            &["The U.S. economy grew.", "Europe's did not."],
        );
    }

    #[test]
    fn periods_inside_words_names_and_code_do_not_split() {
        check(
            "See www.example.com/page.html for more. The variable window.__state holds it.",
            &["See www.example.com/page.html for more.", "The variable window.__state holds it."],
        );
        check(
            "It calls document.Title and os.Path here. Version 2.0.Beta shipped.",
            &["It calls document.Title and os.Path here.", "Version 2.0.Beta shipped."],
        );
        // Without a space after their own full stop, Chinese sentences still split.
        let text = "我们昨天去了北京。天气很好。";
        let got: Vec<&str> = segment_sentences(text, "zh")
            .iter()
            .map(|span| &text[span.start_byte as usize..span.end_byte as usize])
            .collect();
        assert_eq!(got, ["我们昨天去了北京。", "天气很好。"]);
    }

    #[test]
    fn decimals_and_money_do_not_split() {
        check(
            "Shares fell 3.5% to $12.75 on Friday. Analysts were surprised.",
            &["Shares fell 3.5% to $12.75 on Friday.", "Analysts were surprised."],
        );
    }

    #[test]
    fn quotes_stay_with_their_sentence() {
        check(
            "\"We will rebuild,\" the mayor said. \"It will take time.\" Residents agreed.",
            &[
                "\"We will rebuild,\" the mayor said.",
                "\"It will take time.\"",
                "Residents agreed.",
            ],
        );
        check(
            "She asked: “Is it safe?” Nobody answered.",
            &["She asked: “Is it safe?”", "Nobody answered."],
        );
    }

    #[test]
    fn paragraphs_and_headings_are_separate_sentences() {
        check(
            "Floods in the north\n\nRivers rose overnight. Roads closed.\n\nWhat next",
            &["Floods in the north", "Rivers rose overnight.", "Roads closed.", "What next"],
        );
    }

    #[test]
    fn offsets_count_characters_not_bytes() {
        let text = "Zoë went to Zürich. Café prices rose 5 %.";
        let spans = segment_sentences(text, "en");
        assert_eq!(spans.len(), 2);
        assert_eq!(spans[1].start_char, 20);
        assert_eq!(spans[1].start_byte, 22);
    }

    #[test]
    fn a_long_text_without_punctuation_is_cut_in_one_pass_on_a_small_stack() {
        let spans = std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn(|| segment_sentences(&"word ".repeat(200_000), "en"))
            .unwrap()
            .join()
            .unwrap();
        assert!(spans.len() >= 1000, "{}", spans.len());
        assert!(spans.iter().all(|s| (s.end_char - s.start_char) as usize <= MAX_SENTENCE_CHARS));
        assert!(spans.windows(2).all(|pair| pair[0].end_byte <= pair[1].start_byte));
    }

    #[test]
    fn over_long_spans_are_cut() {
        let text = "word ".repeat(900);
        let spans = segment_sentences(text.trim(), "en");
        assert!(spans.len() >= 5);
        assert!(
            spans
                .iter()
                .all(|span| (span.end_char - span.start_char) as usize <= MAX_SENTENCE_CHARS)
        );
    }
}
