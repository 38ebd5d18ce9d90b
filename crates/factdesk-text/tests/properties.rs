//! Property tests of the text pipeline on generated inputs (the short form of the fuzzing
//! campaign; `scripts/fuzz.sh` runs them with many more cases): no decoder, extractor or
//! segmenter panics on any input, and what they give keeps its promises.

use factdesk_text::{
    decode_bytes, extract_html, extract_markdown, extract_plain_text, normalise_text,
    segment_sentences,
};
use proptest::prelude::*;

/// Markup-ish text: tags (closed, unclosed, nested), entities, scripts, comments and words.
fn markup() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("<div>".to_owned()),
        Just("</div>".to_owned()),
        Just("<p>".to_owned()),
        Just("</p>".to_owned()),
        Just("<script>alert(1)</script>".to_owned()),
        Just("<!-- c -->".to_owned()),
        Just("&amp;&lt;&#x1F600;&#0;&bogus;".to_owned()),
        Just("<title>T</title>".to_owned()),
        Just("<table><tr><td>".to_owned()),
        Just("<meta charset=\"koi8-r\">".to_owned()),
        Just("<a href=\"javascript:x\">".to_owned()),
        "[a-zA-Z .,!?é中\n]{0,30}",
        any::<String>(),
    ];
    prop::collection::vec(piece, 0..60).prop_map(|pieces| pieces.concat())
}

proptest! {
    #[test]
    fn decoding_any_bytes_gives_text_or_a_named_error(
        bytes in prop::collection::vec(any::<u8>(), 0..400),
        declared in prop_oneof![Just(None), Just(Some("utf-8")), Just(Some("windows-1251")),
                                Just(Some("shift_jis")), Just(Some("nonsense"))],
    ) {
        match decode_bytes(&bytes, declared) {
            Ok(decoded) => prop_assert!(!decoded.charset.is_empty()),
            Err(error) => prop_assert!(!error.to_string().is_empty()),
        }
    }

    #[test]
    fn html_extraction_never_panics(html in markup()) {
        // (Whether "alert(1)" is script or text depends on what came before: after `<a`, the
        // parser reads `<a<script>` as one odd tag name and the script as text, as browsers do.)
        if let Ok(extracted) = extract_html(&html) {
            prop_assert_eq!(extracted.text.trim(), extracted.text.as_str());
        }
    }

    #[test]
    fn script_elements_never_reach_the_text(before in "[a-zA-Z .]{0,20}", after in "[a-zA-Z .]{0,20}") {
        let html = format!("<p>{before}</p><script>alert(1)</script><p>{after}</p>");
        // Without words around it the page has no text at all (an error naming that).
        if let Ok(extracted) = extract_html(&html) {
            prop_assert!(!extracted.text.contains("alert"), "{}", extracted.text);
        }
    }

    #[test]
    fn deep_markup_is_extracted(depth in 0usize..3000, word in "[a-z]{1,8}") {
        let html = format!("{}{word}{}", "<div>".repeat(depth), "</div>".repeat(depth / 2));
        let extracted = extract_html(&html);
        prop_assert!(extracted.is_ok());
    }

    #[test]
    fn plain_and_markdown_extraction_never_panic(text in any::<String>()) {
        let _ = extract_plain_text(&text);
        let _ = extract_markdown(&text);
        let normal = normalise_text(&text);
        prop_assert!(!normal.contains('\r'));
    }

    #[test]
    fn sentences_are_in_order_inside_the_text_and_on_char_boundaries(
        text in prop_oneof![any::<String>(), "[A-Za-z0-9 .!?\n\"'()é]{0,400}"],
        language in prop_oneof![Just("en"), Just("de"), Just("ja"), Just("xx")],
    ) {
        let spans = segment_sentences(&text, language);
        let mut end = 0usize;
        for span in &spans {
            let (start_byte, end_byte) = (span.start_byte as usize, span.end_byte as usize);
            prop_assert!(start_byte >= end && start_byte < end_byte && end_byte <= text.len());
            prop_assert!(text.is_char_boundary(start_byte) && text.is_char_boundary(end_byte));
            let sentence = &text[start_byte..end_byte];
            prop_assert_eq!(sentence.trim(), sentence);
            prop_assert_eq!(text[..start_byte].chars().count(), span.start_char as usize);
            prop_assert!(sentence.chars().count() <= factdesk_text::MAX_SENTENCE_CHARS);
            end = end_byte;
        }
    }
}
