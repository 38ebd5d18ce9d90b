//! Sentence segmentation. Paragraphs (blank-line separated) never share a sentence; inside a
//! paragraph the boundaries come from `sentencex` (Wikimedia's rule-based segmenter, with
//! abbreviation lists and quote handling for many languages). A span over 400 bytes is cut
//! again with its quote marks and brackets blanked out, because one quote left open (as news
//! copy leaves them) would otherwise run every sentence after it together. Over-long spans
//! (tables, lists without punctuation) are cut at line breaks, then at spaces, so no sentence
//! exceeds [`MAX_SENTENCE_CHARS`].

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
            if start >= end {
                continue;
            }
            for (start, end) in resplit_run_on(paragraph, start, end, language) {
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

/// Quote marks and brackets, blanked out when a long span is cut again.
const BLANKED: [char; 12] = ['\'', '"', '‘', '’', '“', '”', '«', '»', '(', ')', '[', ']'];

/// A span this long (in bytes) is looked at again for run-on sentences.
const RUN_ON_BYTES: usize = 400;

/// A long span cut again with its quotation marks and brackets blanked out. The segmenter does
/// not end a sentence inside quotes or brackets, so one quote left open — news copy opens each
/// quoted paragraph with `'` and closes only the last — runs every sentence up to the next
/// quote mark into one. Blanking keeps every byte offset. Short spans are left as they are, so
/// that a quoted sentence with a full stop inside stays whole.
fn resplit_run_on(
    paragraph: &str,
    start: usize,
    end: usize,
    language: &str,
) -> Vec<(usize, usize)> {
    if end - start < RUN_ON_BYTES {
        return vec![(start, end)];
    }
    let mut blanked = String::with_capacity(end - start);
    for c in paragraph[start..end].chars() {
        if BLANKED.contains(&c) {
            // The same number of bytes, so offsets hold.
            blanked.extend(std::iter::repeat_n(' ', c.len_utf8()));
        } else {
            blanked.push(c);
        }
    }
    let pieces: Vec<(usize, usize)> = sentencex::get_sentence_boundaries(language, &blanked)
        .into_iter()
        .map(|boundary| (boundary.start_byte, boundary.end_byte.min(blanked.len())))
        .collect();
    let pieces = join_mid_word_cuts(&blanked, pieces.into_iter());
    // Trimmed in the blanked text (a piece's edges are letters or stops, never the blanks),
    // then grown over the quote marks and brackets that touch it: the quote that opens the
    // next sentence belongs to it, not to the one before.
    let blank = |c: char| BLANKED.contains(&c);
    let spans: Vec<(usize, usize)> = pieces
        .into_iter()
        .map(|(piece_start, piece_end)| {
            let (mut from, mut to) = trim_span(&blanked, piece_start, piece_end);
            if from >= to {
                return (0, 0);
            }
            while let Some(c) =
                paragraph[start..start + from].chars().next_back().filter(|&c| blank(c))
            {
                from -= c.len_utf8();
            }
            // Closing marks right after the piece, when white space (or the end) follows them.
            let closing: usize = paragraph[start + to..end]
                .chars()
                .take_while(|&c| blank(c))
                .map(char::len_utf8)
                .sum();
            let after = paragraph[start + to + closing..end].chars().next();
            if after.is_none_or(char::is_whitespace) {
                to += closing;
            }
            (start + from, start + to)
        })
        .collect();
    // In order and apart: a mark claimed by two pieces stays with the first.
    let mut spans: Vec<(usize, usize)> = spans
        .into_iter()
        .scan(start, |taken, (from, to)| {
            let from = from.max(*taken);
            *taken = (*taken).max(to);
            Some((from, to))
        })
        .filter(|(from, to)| from < to)
        .collect();
    spans.dedup();
    if spans.is_empty() { vec![(start, end)] } else { spans }
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
    fn a_quote_left_open_does_not_run_the_sentences_after_it_together() {
        // News copy opens each quoted paragraph with ' and closes only the last one, and
        // mixes curly and straight marks; the segmenter waits for a closing mark and ran the
        // sentences in between into one (1,734 "sentences" over 600 characters in the HaluEval
        // news articles, 34 after this).
        let sentences = [
            "Mr Smith told reporters: 'The review found that the fire was caused by a dropped cigarette in an old wooden stand, and nothing I have heard since has changed my mind about that.",
            "'The chairman was one of those men who ran the club like a family business for many years, and he was liked for it.",
            "‘The team is doing well and has turned a corner,' said the chief executive, who spoke at the harbour on Monday.",
            "Other officials said the old stand (pictured) had been due for repair since the spring of the year before.",
        ];
        let text = sentences.join(" ");
        assert!(segment_without_resplit(&text) < sentences.len(), "the segmenter alone splits it");
        check(&text, &sentences);
        // A short quoted sentence with a full stop inside stays whole.
        let short = "He said 'I left. Then I came back.' and smiled at the crowd.";
        assert_eq!(segment_sentences(short, "en").len(), segment_without_resplit(short));
    }

    /// How many sentences the segmenter alone finds in `text` (a single paragraph).
    fn segment_without_resplit(text: &str) -> usize {
        sentencex::get_sentence_boundaries("en", text).len()
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
    fn chinese_and_japanese_sentences_end_at_their_own_marks() {
        let cases = [
            (
                "zh",
                "巴黎是法国的首都！你去过吗？我们明年去。",
                &["巴黎是法国的首都！", "你去过吗？", "我们明年去。"][..],
            ),
            (
                "ja",
                "富士山は日本で一番高い山です。登ったことがありますか？とても美しい！",
                &["富士山は日本で一番高い山です。", "登ったことがありますか？", "とても美しい！"][..],
            ),
        ];
        for (language, text, expected) in cases {
            let got: Vec<&str> = segment_sentences(text, language)
                .iter()
                .map(|span| &text[span.start_byte as usize..span.end_byte as usize])
                .collect();
            assert_eq!(got, expected, "{language}: {text}");
        }
    }

    #[test]
    fn the_language_chooses_the_abbreviations() {
        // "z. B." (German for "for example") and "Nr." do not end a German sentence.
        let text = "Es gibt z. B. Äpfel und Birnen. Das Haus Nr. 5 ist rot.";
        let got: Vec<&str> = segment_sentences(text, "de")
            .iter()
            .map(|span| &text[span.start_byte as usize..span.end_byte as usize])
            .collect();
        assert_eq!(got, ["Es gibt z. B. Äpfel und Birnen.", "Das Haus Nr. 5 ist rot."]);
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
