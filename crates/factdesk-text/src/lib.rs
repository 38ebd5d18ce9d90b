//! Text extraction shared by corpus import and page fetching: charset detection and decoding,
//! HTML main-text extraction, Markdown and plain-text normalisation, the text layer of PDFs
//! page by page, sentence segmentation with character and byte offsets, content hashing, and
//! which language a text is in (and whether it is other than English), down to the sentences
//! of a document in another language than the rest.
//!
//! Everything here is a pure function of its input bytes: this crate does no I/O, keeps no
//! state (the language detector, built once, is a cache), and knows nothing of the store, the
//! index or the network.

mod decode;
mod depth;
mod html;
mod language;
mod markdown;
mod mixed;
mod pdf;
mod plain;
mod segment;

pub use decode::{DecodedText, decode_bytes, sniff_html_charset};
pub use html::{ExtractedHtml, extract_html};
pub use language::{
    DetectedLanguage, ENGLISH_BELOW, MIN_LETTERS_TO_DETECT, SAMPLE_BYTES, SURE_AT, detect_language,
    language_name, other_than_english,
};
pub use markdown::extract_markdown;
pub use mixed::sentence_languages;
pub use pdf::{ExtractedPdf, PdfError, extract_pdf};
pub use plain::{extract_plain_text, nfc, normalise_text};
pub use segment::{MAX_SENTENCE_CHARS, segment_sentences};

/// Why bytes could not be turned into text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TextError {
    /// Zero bytes, or nothing but white space.
    #[error("it is empty")]
    Empty,
    /// The bytes are not text (NUL bytes, a known binary signature, or mostly control characters).
    #[error("it is a binary file{}, not text", .0.map(|kind| format!(" ({kind})")).unwrap_or_default())]
    Binary(Option<&'static str>),
    /// The format parsed, but no readable text was left after extraction.
    #[error("no readable text was left after extraction")]
    NoText,
    /// A PDF whose text layer could not be read.
    #[error(transparent)]
    Pdf(#[from] PdfError),
}

/// A document's text with the title and date found in it, ready to be segmented.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ExtractedText {
    pub title: Option<String>,
    pub published: Option<String>,
    /// The canonical URL a page declares for itself, if any.
    pub canonical_url: Option<String>,
    /// Paragraphs separated by blank lines; no leading or trailing white space.
    pub text: String,
}

/// The hex BLAKE3 hash of a text, used to deduplicate documents and to identify page bodies.
pub fn content_hash(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

/// Splits `text/html; charset=ISO-8859-1` into (`text/html`, `iso-8859-1`).
pub fn split_content_type(value: Option<&str>) -> (Option<String>, Option<String>) {
    let Some(value) = value else { return (None, None) };
    let mut parts = value.split(';');
    let media_type = parts.next().map(|m| m.trim().to_ascii_lowercase()).filter(|m| !m.is_empty());
    let charset = parts
        .filter_map(|part| part.split_once('='))
        .find(|(name, _)| name.trim().eq_ignore_ascii_case("charset"))
        .map(|(_, value)| value.trim().trim_matches('"').to_ascii_lowercase());
    (media_type, charset)
}

/// Normalises a date as found in metadata: an ISO date or date-time keeps its calendar date
/// (`2024-03-05T10:00:00Z` → `2024-03-05`); an RFC 2822 date is converted; anything else is
/// dropped, so that the store only keeps dates it can sort.
pub fn normalise_date(raw: &str) -> Option<String> {
    let raw = raw.trim();
    let prefix: String = raw.chars().take(10).collect();
    let format = time::macros::format_description!("[year]-[month]-[day]");
    if let Ok(date) = time::Date::parse(&prefix, &format) {
        return date.format(&format).ok();
    }
    if let Ok(date_time) =
        time::OffsetDateTime::parse(raw, &time::format_description::well_known::Rfc2822)
    {
        return date_time.date().format(&format).ok();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_normalise_to_calendar_days() {
        assert_eq!(normalise_date("2024-03-05T10:00:00Z").as_deref(), Some("2024-03-05"));
        assert_eq!(normalise_date(" 2019-12-31 ").as_deref(), Some("2019-12-31"));
        assert_eq!(
            normalise_date("Tue, 05 Mar 2024 10:00:00 +0000").as_deref(),
            Some("2024-03-05")
        );
        assert_eq!(normalise_date("last Tuesday"), None);
        assert_eq!(normalise_date("2024-13-45"), None);
    }

    #[test]
    fn content_type_is_split() {
        assert_eq!(
            split_content_type(Some("Text/HTML; Charset=\"UTF-8\"")),
            (Some("text/html".into()), Some("utf-8".into()))
        );
        assert_eq!(split_content_type(Some("text/plain")), (Some("text/plain".into()), None));
        assert_eq!(split_content_type(None), (None, None));
    }

    #[test]
    fn content_hash_is_stable_hex() {
        let hash = content_hash(b"hello");
        assert_eq!(hash.len(), 64);
        assert_eq!(hash, content_hash(b"hello"));
        assert_ne!(hash, content_hash(b"hello!"));
    }
}
