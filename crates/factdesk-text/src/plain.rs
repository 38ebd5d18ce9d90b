//! Plain text: line endings, control characters and blank-line runs normalised; a title taken
//! from a short first line that reads like a headline.

use std::borrow::Cow;

use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfc_quick};

use crate::{ExtractedText, TextError};

/// `text` in Unicode normalisation form C (composed: "ü" one character, not "u" and a
/// combining diaeresis), so that a word typed one way finds the same word stored the other.
/// Text already in NFC (all ASCII text, most text) is returned as it is, after one quick pass.
pub fn nfc(text: &str) -> Cow<'_, str> {
    match is_nfc_quick(text.chars()) {
        IsNormalized::Yes => Cow::Borrowed(text),
        IsNormalized::No | IsNormalized::Maybe => {
            let normalised: String = text.nfc().collect();
            if normalised == text { Cow::Borrowed(text) } else { Cow::Owned(normalised) }
        }
    }
}

/// Normalises decoded text so every format yields the same shape: `\n` line endings, no
/// control characters but newlines and tabs, no trailing spaces, paragraphs separated by
/// exactly one blank line, and no white space at either end.
pub fn normalise_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    // A line with characters to replace or drop is rebuilt here; most lines are used as they are.
    let mut cleaned = String::new();
    let mut blank_run = 0usize;
    // `\r\n`, a lone `\r` and `\n` each end a line.
    let lines =
        text.split('\n').flat_map(|line| line.strip_suffix('\r').unwrap_or(line).split('\r'));
    for line in lines {
        let line = if line.chars().any(|c| c == '\u{a0}' || (c.is_control() && c != '\t')) {
            cleaned.clear();
            cleaned.extend(
                line.chars()
                    .map(|c| if c == '\u{a0}' { ' ' } else { c })
                    .filter(|c| !c.is_control() || *c == '\t'),
            );
            cleaned.as_str()
        } else {
            line
        };
        let line = line.trim_end();
        if line.trim_start().is_empty() {
            blank_run += 1;
            continue;
        }
        if !out.is_empty() {
            out.push_str(if blank_run > 0 { "\n\n" } else { "\n" });
        }
        blank_run = 0;
        out.push_str(line);
    }
    out
}

/// Extracts a plain-text document. The title is the first line when it is short and does not
/// end like a sentence (a headline); otherwise there is none and the caller names the document.
pub fn extract_plain_text(text: &str) -> Result<ExtractedText, TextError> {
    let text = normalise_text(text);
    if text.is_empty() {
        return Err(TextError::NoText);
    }
    let first_line = text.lines().next().unwrap_or_default().trim();
    let looks_like_headline = first_line.chars().count() <= 150
        && !first_line.ends_with(['.', '!', '?', ',', ';', ':', '"', '\u{201d}'])
        && text.lines().nth(1).is_some();
    let title = looks_like_headline.then(|| first_line.to_owned());
    Ok(ExtractedText { title, published: None, canonical_url: None, text })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn decomposed_accents_are_composed_and_nfc_text_is_kept_as_it_is() {
        let decomposed = "Zu\u{308}rich cafe\u{301}";
        assert_eq!(nfc(decomposed), "Zürich café");
        assert!(matches!(nfc(decomposed), Cow::Owned(_)));
        for text in ["Zürich café", "plain ASCII", "東京", ""] {
            assert!(matches!(nfc(text), Cow::Borrowed(_)), "{text}");
        }
    }

    /// How text was normalised before the one-pass version: the reference it must agree with.
    fn normalise_text_reference(text: &str) -> String {
        let text = text.replace("\r\n", "\n").replace('\r', "\n");
        let mut out = String::with_capacity(text.len());
        let mut blank_run = 0usize;
        for line in text.split('\n') {
            let line: String = line
                .chars()
                .map(|c| if c == '\u{a0}' { ' ' } else { c })
                .filter(|c| !c.is_control() || *c == '\t')
                .collect();
            let line = line.trim_end();
            if line.trim().is_empty() {
                blank_run += 1;
                continue;
            }
            if !out.is_empty() {
                out.push_str(if blank_run > 0 { "\n\n" } else { "\n" });
            }
            blank_run = 0;
            out.push_str(line);
        }
        out
    }

    proptest! {
        #[test]
        fn property_normalisation_agrees_with_the_reference(
            text in "([a-z ]{0,6}|\r|\n|\t|\u{a0}|\u{0}|\u{85}|\u{2028}|\u{3000}|é){0,40}"
        ) {
            prop_assert_eq!(normalise_text(&text), normalise_text_reference(&text));
        }

        #[test]
        fn property_normalisation_agrees_on_any_text(text in any::<String>()) {
            prop_assert_eq!(normalise_text(&text), normalise_text_reference(&text));
        }
    }

    #[test]
    fn normalisation_folds_line_endings_and_blank_runs() {
        assert_eq!(
            normalise_text(
                "  \r\nOne line.  \r\nSame para.\r\n\r\n\r\n\r\nNext\u{0}\u{7} para.\n\n"
            ),
            "One line.\nSame para.\n\nNext para."
        );
    }

    #[test]
    fn headline_becomes_title() {
        let extracted =
            extract_plain_text("Storm closes harbour\n\nThe harbour shut on Monday.").unwrap();
        assert_eq!(extracted.title.as_deref(), Some("Storm closes harbour"));
        let extracted = extract_plain_text("The harbour shut on Monday.\nIt reopened.").unwrap();
        assert_eq!(extracted.title, None);
        assert_eq!(extract_plain_text("\n \n"), Err(TextError::NoText));
    }
}
