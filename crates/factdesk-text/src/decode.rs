//! Bytes to text: byte-order marks, declared charsets, UTF-8, and statistical detection
//! (chardetng) for everything else; binary files are recognised and refused.

use encoding_rs::Encoding;

use crate::TextError;

/// Text decoded from bytes, with the charset that was used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodedText {
    pub text: String,
    /// The WHATWG name of the encoding (e.g. `UTF-8`, `windows-1252`).
    pub charset: &'static str,
}

const SIGNATURES: &[(&[u8], &str)] = &[
    (b"%PDF", "PDF"),
    (b"PK\x03\x04", "ZIP or Office document"),
    (b"\x89PNG", "PNG image"),
    (b"GIF8", "GIF image"),
    (b"\xFF\xD8\xFF", "JPEG image"),
    (b"\x1F\x8B", "gzip archive"),
    (b"SQLite format 3\0", "SQLite database"),
    (b"\x7FELF", "executable"),
    (b"7z\xBC\xAF", "7-Zip archive"),
];

/// Decodes `bytes` to text. `declared` is a charset label from outside the bytes (an HTTP
/// header or an HTML meta tag); a byte-order mark wins over it, and a declared UTF-8 that is
/// not valid UTF-8 falls back to detection.
pub fn decode_bytes(bytes: &[u8], declared: Option<&str>) -> Result<DecodedText, TextError> {
    if bytes.is_empty() {
        return Err(TextError::Empty);
    }
    let (encoding, body) = match Encoding::for_bom(bytes) {
        Some((encoding, bom_length)) => (encoding, &bytes[bom_length..]),
        None => {
            refuse_binary(bytes)?;
            (choose_encoding(bytes, declared), bytes)
        }
    };
    let (text, _, _) = encoding.decode(body);
    let text = text.into_owned();
    if text.trim().is_empty() {
        return Err(TextError::Empty);
    }
    let control = text
        .chars()
        .take(8192)
        .filter(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t' | '\u{c}'))
        .count();
    let sampled = text.chars().take(8192).count();
    if control * 10 > sampled {
        return Err(TextError::Binary(None));
    }
    Ok(DecodedText { text, charset: encoding.name() })
}

fn refuse_binary(bytes: &[u8]) -> Result<(), TextError> {
    for (signature, kind) in SIGNATURES {
        if bytes.starts_with(signature) {
            return Err(TextError::Binary(Some(kind)));
        }
    }
    let head = &bytes[..bytes.len().min(8192)];
    if head.contains(&0) {
        return Err(TextError::Binary(None));
    }
    Ok(())
}

fn choose_encoding(bytes: &[u8], declared: Option<&str>) -> &'static Encoding {
    let is_utf8 = mostly_utf8(bytes);
    // As browsers read a declaration: UTF-16 without a byte-order mark means UTF-8, and the
    // "replacement" encoding (labels such as iso-2022-kr) would turn everything into U+FFFD.
    let declared = declared
        .and_then(|label| Encoding::for_label(label.trim().as_bytes()))
        .filter(|encoding| *encoding != encoding_rs::REPLACEMENT)
        .map(Encoding::output_encoding);
    if let Some(encoding) = declared {
        // A page that says UTF-8 but is not is common; trust the bytes then.
        if encoding != encoding_rs::UTF_8 || is_utf8 {
            return encoding;
        }
    }
    if is_utf8 {
        return encoding_rs::UTF_8;
    }
    let mut detector = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Deny);
    detector.feed(bytes, true);
    let guess = detector.guess(None, chardetng::Utf8Detection::Deny);
    // Words of a non-Latin script written in a legacy charset are runs of non-ASCII bytes
    // (a byte a letter, or two). Stray bytes in ASCII text are not: reading them as Cyrillic,
    // Greek, Hebrew or CJK letters would invent words, so when no run of three non-ASCII
    // bytes exists they stay unknown (U+FFFD).
    if !LATIN_SCRIPT.contains(&guess.name()) && longest_non_ascii_run(bytes) < 3 {
        return encoding_rs::UTF_8;
    }
    guess
}

fn longest_non_ascii_run(bytes: &[u8]) -> usize {
    let (mut longest, mut run) = (0, 0);
    for byte in bytes {
        run = if byte.is_ascii() { 0 } else { run + 1 };
        longest = longest.max(run);
    }
    longest
}

/// Legacy charsets of Latin-script languages (WHATWG names): their stray bytes are letters
/// with accents, left as the detector reads them.
const LATIN_SCRIPT: &[&str] = &[
    "windows-1252",
    "windows-1250",
    "windows-1254",
    "windows-1257",
    "windows-1258",
    "ISO-8859-2",
    "ISO-8859-3",
    "ISO-8859-4",
    "ISO-8859-10",
    "ISO-8859-13",
    "ISO-8859-14",
    "ISO-8859-15",
    "ISO-8859-16",
    "macintosh",
];

/// UTF-8, or UTF-8 but for a few stray bytes: at most one invalid byte for every four valid
/// multi-byte characters (a file of UTF-8 with a pasted Windows quote in it). Text in a
/// legacy charset almost never forms valid multi-byte sequences, so it is not taken.
fn mostly_utf8(bytes: &[u8]) -> bool {
    if std::str::from_utf8(bytes).is_ok() {
        return true;
    }
    let (mut valid_multibyte, mut invalid) = (0usize, 0usize);
    for chunk in bytes.utf8_chunks() {
        valid_multibyte += chunk.valid().chars().filter(|c| c.len_utf8() > 1).count();
        invalid += usize::from(!chunk.invalid().is_empty());
    }
    valid_multibyte > 0 && invalid * 4 <= valid_multibyte
}

/// Looks for a charset declared by a `<meta>` tag in the first 2 KiB of an HTML document
/// (`<meta charset=…>` or `<meta http-equiv … content="…; charset=…">`); other tags'
/// `charset` attributes (`<script charset=…>`) say nothing about the page.
pub fn sniff_html_charset(bytes: &[u8]) -> Option<String> {
    let head = &bytes[..bytes.len().min(2048)];
    let head = String::from_utf8_lossy(head).to_ascii_lowercase();
    head.match_indices("<meta").find_map(|(at, _)| {
        let tag = &head[at..];
        let tag = &tag[..tag.find('>').unwrap_or(tag.len())];
        let value = &tag[tag.find("charset=")? + "charset=".len()..];
        let label: String = value
            .trim_start_matches(['"', '\''])
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':' | '.'))
            .collect();
        (!label.is_empty()).then_some(label)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_is_taken_as_is() {
        let decoded = decode_bytes("Zürich café".as_bytes(), None).unwrap();
        assert_eq!(decoded.text, "Zürich café");
        assert_eq!(decoded.charset, "UTF-8");
    }

    #[test]
    fn latin1_is_detected() {
        let bytes = b"Le caf\xe9 de la gare est ferm\xe9 depuis l'\xe9t\xe9 dernier, a d\xe9clar\xe9 le maire.";
        let decoded = decode_bytes(bytes, None).unwrap();
        assert!(decoded.text.contains("café"), "{}", decoded.text);
        assert_eq!(decoded.charset, "windows-1252");
    }

    #[test]
    fn utf16_with_bom_is_decoded() {
        let mut bytes = vec![0xFF, 0xFE];
        for unit in "Hello world.".encode_utf16() {
            bytes.extend_from_slice(&unit.to_le_bytes());
        }
        assert_eq!(decode_bytes(&bytes, None).unwrap().text, "Hello world.");
    }

    #[test]
    fn declared_charset_is_used_unless_it_lies_about_utf8() {
        let decoded = decode_bytes(b"caf\xe9", Some("iso-8859-1")).unwrap();
        assert_eq!(decoded.text, "café");
        let decoded = decode_bytes("café".as_bytes(), Some("windows-1252")).unwrap();
        assert_eq!(decoded.text, "cafÃ©");
        let decoded = decode_bytes(b"caf\xe9 au lait, s'il vous pla\xeet", Some("utf-8")).unwrap();
        assert!(decoded.text.starts_with("café"));
    }

    #[test]
    fn binary_and_empty_inputs_are_refused() {
        assert_eq!(decode_bytes(b"", None), Err(TextError::Empty));
        assert_eq!(decode_bytes(b" \n\t ", None), Err(TextError::Empty));
        assert_eq!(decode_bytes(b"%PDF-1.7 ...", None), Err(TextError::Binary(Some("PDF"))));
        assert_eq!(decode_bytes(b"abc\0def", None), Err(TextError::Binary(None)));
        assert_eq!(decode_bytes(&[1, 2, 3, 4, 5, 6, 7, 8, 65], None), Err(TextError::Binary(None)));
    }

    #[test]
    fn html_charset_is_sniffed() {
        assert_eq!(
            sniff_html_charset(b"<html><head><meta charset=\"ISO-8859-1\">").as_deref(),
            Some("iso-8859-1")
        );
        assert_eq!(
            sniff_html_charset(
                b"<meta http-equiv=\"Content-Type\" content=\"text/html; charset=windows-1251\">"
            )
            .as_deref(),
            Some("windows-1251")
        );
        assert_eq!(sniff_html_charset(b"<html><body>no declaration"), None);
        // A script's charset is not the page's.
        assert_eq!(
            sniff_html_charset(
                b"<script charset=\"iso-8859-1\" src=a.js></script><meta charset=utf-8>"
            )
            .as_deref(),
            Some("utf-8")
        );
    }

    #[test]
    fn utf8_with_a_stray_byte_stays_utf8() {
        let mut bytes =
            "Zürich, Genève und Lausanne: die Schweiz hat viele Städte.\n".repeat(5).into_bytes();
        bytes.extend_from_slice(b"He said \x92hello\x92.\n");
        let decoded = decode_bytes(&bytes, None).unwrap();
        assert_eq!(decoded.charset, "UTF-8");
        assert!(decoded.text.starts_with("Zürich, Genève"), "{}", decoded.text);
        assert!(decoded.text.contains("He said \u{FFFD}hello"), "{}", decoded.text);
    }

    #[test]
    fn stray_bytes_in_ascii_text_are_not_read_as_another_script() {
        // Invalid UTF-8 that a detector reads as windows-1251 ("Okra РФ is a plant"): the
        // stray bytes stay unknown instead of becoming Cyrillic letters.
        let bytes = b"Okra \xd0\xd4 is a plant. It grows \xef\xf0 in warm places.\n";
        let decoded = decode_bytes(bytes, None).unwrap();
        assert_eq!(decoded.charset, "UTF-8");
        assert_eq!(
            decoded.text,
            "Okra \u{FFFD}\u{FFFD} is a plant. It grows \u{FFFD}\u{FFFD} in warm places.\n"
        );
        // Real words in such a charset are kept, even among much ASCII (markup, fields).
        let mut page = "<p class=\"intro\">".repeat(40).into_bytes();
        page.extend(encoding_rs::WINDOWS_1251.encode("Окра растёт в Гане.").0.iter());
        assert!(decode_bytes(&page, None).unwrap().text.contains("Окра растёт"));
        // Text really written in windows-1251 is still read as such, and French in
        // windows-1252 keeps its accents though most of it is ASCII.
        let (russian, _, _) = encoding_rs::WINDOWS_1251
            .encode("Окра — цветковое растение семейства мальвовых. Её плоды едят как овощ.");
        let decoded = decode_bytes(&russian, None).unwrap();
        assert_eq!(decoded.charset, "windows-1251");
        assert!(decoded.text.starts_with("Окра — цветковое"), "{}", decoded.text);
        let (french, _, _) = encoding_rs::WINDOWS_1252.encode(
            "Le gombo est une plante à fleurs de la famille des mauves. Il est cultivé en été.",
        );
        let decoded = decode_bytes(&french, None).unwrap();
        assert!(decoded.text.contains("cultivé en été"), "{}", decoded.text);
    }

    #[test]
    fn declarations_that_would_garble_the_text_are_not_followed() {
        // UTF-16 declared on a page without a byte-order mark: read as browsers do.
        let decoded = decode_bytes(b"<p>Plain ASCII page.</p>", Some("utf-16")).unwrap();
        assert_eq!(decoded.text, "<p>Plain ASCII page.</p>");
        // The "replacement" encoding would leave nothing but U+FFFD.
        let decoded = decode_bytes(b"Plain text.", Some("iso-2022-kr")).unwrap();
        assert_eq!(decoded.text, "Plain text.");
    }
}
