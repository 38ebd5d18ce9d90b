//! PDF: the text layer, page by page, with the title and date of the file's metadata. Reading
//! is `pdf-extract`'s (on `lopdf`); what is added here is the page structure (where each page
//! starts in the text, so every sentence keeps its page), lines joined into paragraphs, and
//! errors a person can act on: a protected file, a scan without a text layer, a file that is
//! not a PDF or is cut short. No OCR.

use std::panic::{AssertUnwindSafe, catch_unwind};

use pdf_extract::{Document, Object, PlainTextOutput, output_doc_page};

use crate::normalise_text;

/// A PDF's text and where each page begins in it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ExtractedPdf {
    /// The metadata's title, if it has one that is not blank.
    pub title: Option<String>,
    /// The metadata's creation date as a calendar date (`YYYY-MM-DD`).
    pub published: Option<String>,
    /// The pages' text in order, paragraphs separated by blank lines, pages too.
    pub text: String,
    /// For page n (1-based), `page_starts[n - 1]` is the character offset in `text` where it
    /// begins; a page without text has the offset where the text so far ends, so no sentence
    /// starts on it. A sentence running on over a break is one sentence, of the page it starts
    /// on.
    pub page_starts: Vec<u32>,
}

/// Why a PDF's text could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PdfError {
    #[error(
        "it is not a readable PDF ({0}); if it opens in a PDF viewer, print it to a new PDF and import that"
    )]
    Broken(String),
    #[error(
        "it is protected by a password; Factdesk does not open protected PDFs: save a copy \
         without the password and import that"
    )]
    Encrypted,
    #[error(
        "it has no text layer ({pages} page{}, no text on any): probably a scan; Factdesk reads \
         the text of PDFs and does no OCR, so run it through OCR first (e.g. ocrmypdf) and import \
         the result",
        if *.pages == 1 { "" } else { "s" }
    )]
    NoTextLayer { pages: usize },
}

/// Reads the text layer of the PDF in `bytes`.
pub fn extract_pdf(bytes: &[u8]) -> Result<ExtractedPdf, PdfError> {
    // The reader is a large body of code over untrusted bytes; a panic in it is this file's
    // failure, not the import's.
    catch_unwind(AssertUnwindSafe(|| read(bytes))).unwrap_or_else(|_| {
        Err(PdfError::Broken("the PDF reader stopped on something it could not handle".into()))
    })
}

fn read(bytes: &[u8]) -> Result<ExtractedPdf, PdfError> {
    if !bytes.starts_with(b"%PDF-")
        && !bytes.get(..1024).is_some_and(|head| contains(head, b"%PDF-"))
    {
        return Err(PdfError::Broken("it does not start like a PDF file".into()));
    }
    let mut document =
        Document::load_mem(bytes).map_err(|error| PdfError::Broken(error.to_string()))?;
    if document.is_encrypted() && document.decrypt("").is_err() {
        return Err(PdfError::Encrypted);
    }
    let pages = document.get_pages();
    let mut text = String::new();
    let mut chars = 0u32;
    let mut page_starts = Vec::with_capacity(pages.len());
    for &number in pages.keys() {
        let mut raw = String::new();
        output_doc_page(&document, &mut PlainTextOutput::new(&mut raw), number)
            .map_err(|error| PdfError::Broken(format!("page {number}: {error}")))?;
        let page = paragraphs(&raw);
        if !page.is_empty() && !text.is_empty() {
            // A sentence that runs on over the page break stays one sentence: the pages join
            // as lines of one paragraph unless the page ended a sentence.
            let joiner = page_joiner(&text, &page);
            if joiner == "-" {
                text.pop();
                chars -= 1;
            } else {
                text.push_str(joiner);
                chars += joiner.chars().count() as u32;
            }
        }
        page_starts.push(chars);
        chars += page.chars().count() as u32;
        text.push_str(&page);
    }
    if text.is_empty() {
        return Err(PdfError::NoTextLayer { pages: pages.len() });
    }
    let info = info_dictionary(&document);
    let entry =
        |key: &[u8]| info.as_ref().and_then(|info| info.get(key).ok()).and_then(text_string);
    let title = entry(b"Title").map(|title| title.split_whitespace().collect::<Vec<_>>().join(" "));
    let published = entry(b"CreationDate").and_then(|date| pdf_date(&date));
    Ok(ExtractedPdf {
        title: title.filter(|title| !title.is_empty()),
        published,
        text,
        page_starts,
    })
}

/// How the text so far and the next page's text join: `"-"` for a word broken by a hyphen
/// (the hyphen goes), `" "` when the page stopped mid-sentence (no sentence end, and either the
/// next page goes on in lower case or the last paragraph is prose, not a heading or a page
/// number), else `"\n\n"`, a new paragraph.
fn page_joiner(before: &str, page: &str) -> &'static str {
    let ended = before.trim_end().ends_with(['.', '!', '?', ':', '"', '\u{201d}', '\u{2019}', ')']);
    let next_lower = page.chars().next().is_some_and(char::is_lowercase);
    let hyphen = before.ends_with('-')
        && before[..before.len() - 1].chars().last().is_some_and(char::is_alphabetic);
    let prose = before.rsplit("\n\n").next().is_some_and(|last| last.chars().count() > 60);
    if hyphen && next_lower {
        "-"
    } else if !ended && (next_lower || prose) {
        " "
    } else {
        "\n\n"
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|window| window == needle)
}

/// A page's lines as paragraphs: lines joined with a space (a word broken by a hyphen at a
/// line's end joined again), paragraphs where the page had blank lines.
fn paragraphs(raw: &str) -> String {
    let normalised = normalise_text(raw);
    let mut out = String::with_capacity(normalised.len());
    for (index, paragraph) in normalised.split("\n\n").enumerate() {
        if index > 0 {
            out.push_str("\n\n");
        }
        let mut previous: Option<&str> = None;
        for line in paragraph.split('\n').map(str::trim).filter(|line| !line.is_empty()) {
            if let Some(before) = previous {
                let broken_word = before.ends_with('-')
                    && before[..before.len() - 1].chars().last().is_some_and(char::is_alphabetic)
                    && line.chars().next().is_some_and(char::is_lowercase);
                if broken_word {
                    out.pop();
                } else {
                    out.push(' ');
                }
            }
            out.push_str(line);
            previous = Some(line);
        }
    }
    out.trim().to_owned()
}

fn info_dictionary(document: &Document) -> Option<pdf_extract::Dictionary> {
    let info = document.trailer.get(b"Info").ok()?;
    let info = match info {
        Object::Reference(id) => document.get_object(*id).ok()?,
        other => other,
    };
    info.as_dict().ok().cloned()
}

/// A PDF text string: UTF-16 with a byte-order mark, UTF-8 with one, else PDFDocEncoding.
fn text_string(object: &Object) -> Option<String> {
    let Object::String(bytes, _) = object else { return None };
    let text = if let Some(utf16) = bytes.strip_prefix(&[0xFE, 0xFF]) {
        let units: Vec<u16> =
            utf16.chunks_exact(2).map(|pair| u16::from_be_bytes([pair[0], pair[1]])).collect();
        String::from_utf16_lossy(&units)
    } else if let Some(utf8) = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]) {
        String::from_utf8_lossy(utf8).into_owned()
    } else {
        bytes.iter().map(|&byte| pdf_doc_char(byte)).collect()
    };
    let text = text.trim().to_owned();
    (!text.is_empty()).then_some(text)
}

/// A byte of PDFDocEncoding: Latin-1 but for the accents at 0x18–0x1F and the punctuation,
/// ligatures and letters at 0x80–0xA0 (the PDF specification's table).
fn pdf_doc_char(byte: u8) -> char {
    const LOW: [char; 8] = ['˘', 'ˇ', 'ˆ', '˙', '˝', '˛', '˚', '˜'];
    const HIGH: [char; 33] = [
        '•', '†', '‡', '…', '—', '–', 'ƒ', '⁄', '‹', '›', '−', '‰', '„', '“', '”', '‘', '’', '‚',
        '™', 'ﬁ', 'ﬂ', 'Ł', 'Œ', 'Š', 'Ÿ', 'Ž', 'ı', 'ł', 'œ', 'š', 'ž', '\u{fffd}', '€',
    ];
    match byte {
        0x18..=0x1F => LOW[usize::from(byte - 0x18)],
        0x80..=0xA0 => HIGH[usize::from(byte - 0x80)],
        _ => char::from(byte),
    }
}

/// `D:YYYYMMDDHHmmSS…` as `YYYY-MM-DD`, if it is a real date.
fn pdf_date(raw: &str) -> Option<String> {
    let digits = raw.trim().strip_prefix("D:").unwrap_or(raw.trim());
    let date = digits.get(..8)?;
    if !date.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    crate::normalise_date(&format!("{}-{}-{}", &date[..4], &date[4..6], &date[6..8]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sentence_running_over_a_page_break_stays_whole() {
        let prose = "The authority said on Monday that the new north quay was finished in";
        assert_eq!(page_joiner(prose, "May after two years of delays."), " ");
        assert_eq!(page_joiner("Short line and", "then more of it."), " ");
        assert_eq!(page_joiner("It was meas-", "ured twice."), "-");
        assert_eq!(page_joiner("It ended here.", "next page starts lower-case"), "\n\n");
        // A heading or a page number at the foot of a page is not continued.
        assert_eq!(page_joiner("Finances", "Revenue reached 61 million euros."), "\n\n");
        assert_eq!(page_joiner("Text.\n\n3", "Outlook"), "\n\n");
        assert_eq!(page_joiner("He said: \u{201c}yes.\u{201d}", "Then"), "\n\n");
    }

    #[test]
    fn lines_become_paragraphs_and_broken_words_are_joined() {
        let raw =
            "The survey began\nin April. It meas-\nured the depth.\n\n\nA second para-\nGraph.\n";
        assert_eq!(
            paragraphs(raw),
            "The survey began in April. It measured the depth.\n\nA second para- Graph."
        );
    }

    #[test]
    fn metadata_dates_and_strings_are_read() {
        assert_eq!(pdf_date("D:20240305090000+00'00'").as_deref(), Some("2024-03-05"));
        assert_eq!(pdf_date("20231231").as_deref(), Some("2023-12-31"));
        assert_eq!(pdf_date("D:2024"), None);
        assert_eq!(pdf_date("D:20241341"), None);
        let utf16 = Object::String(
            vec![0xFE, 0xFF, 0, b'C', 0, b'a', 0, b'f', 0, 0xE9],
            Default::default(),
        );
        assert_eq!(text_string(&utf16).as_deref(), Some("Café"));
        let latin = Object::String(b"Caf\xe9 \x85 \x93n \xa0".to_vec(), Default::default());
        assert_eq!(text_string(&latin).as_deref(), Some("Café – ﬁn €"));
    }

    /// A PDF of `scripts/make-test-pdfs.py` (written with reportlab).
    fn fixture(name: &str) -> Vec<u8> {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/pdf");
        std::fs::read(path.join(name)).unwrap()
    }

    #[test]
    fn pages_title_and_date_are_read() {
        let pdf = extract_pdf(&fixture("report.pdf")).unwrap();
        assert_eq!(pdf.title.as_deref(), Some("Harbour Authority Annual Report 2023"));
        assert_eq!(pdf.published.as_deref(), Some("2024-03-05"));
        assert_eq!(pdf.page_starts.len(), 3);
        let page_of = |needle: &str| {
            let byte = pdf.text.find(needle).unwrap_or_else(|| panic!("{needle}: {}", pdf.text));
            factdesk_model::page_at(&pdf.page_starts, pdf.text[..byte].chars().count() as u32)
        };
        assert_eq!(page_of("The harbour handled 4.2 million tonnes"), Some(1));
        assert_eq!(page_of("Revenue reached 61 million euros"), Some(2));
        assert_eq!(page_of("The new north quay cost 12 million euros"), Some(2));
        assert_eq!(page_of("dredging of the main channel"), Some(3));
        assert!(pdf.text.starts_with("Harbour Authority Annual Report 2023"), "{}", pdf.text);
    }

    #[test]
    fn columns_read_one_after_the_other() {
        let pdf = extract_pdf(&fixture("two-columns.pdf")).unwrap();
        let left = pdf.text.find("Engineers measured the depth at forty points along the bank.");
        let right = pdf.text.find("Biologists blame the warm water that followed a dry spring.");
        assert!(left.is_some() && right.is_some(), "{}", pdf.text);
        assert!(left < right, "{}", pdf.text);
        assert!(pdf.published.is_some_and(|date| date == "2000-01-01"), "reportlab's fixed date");
    }

    #[test]
    fn text_beyond_ascii_survives() {
        let pdf = extract_pdf(&fixture("non-ascii.pdf")).unwrap();
        assert_eq!(pdf.title.as_deref(), Some("Café Zürich – Überblick"));
        for sentence in [
            "Das Café in Zürich öffnete 1911 am Seeufer.",
            "Σωκράτης γεννήθηκε στην Αθήνα.",
            "Москва — столица России.",
            "Crème brûlée costs 7,50 € at the café.",
        ] {
            assert!(pdf.text.contains(sentence), "{sentence}: {}", pdf.text);
        }
    }

    #[test]
    fn scans_protected_and_cut_short_files_say_what_to_do() {
        let error = extract_pdf(&fixture("scanned.pdf")).unwrap_err();
        assert_eq!(error, PdfError::NoTextLayer { pages: 1 });
        assert!(error.to_string().contains("no text layer") && error.to_string().contains("OCR"));
        let error = extract_pdf(&fixture("encrypted.pdf")).unwrap_err();
        assert_eq!(error, PdfError::Encrypted);
        assert!(error.to_string().contains("password"), "{error}");
        let whole = fixture("report.pdf");
        for cut in [whole.len() / 2, whole.len() - 200, 40] {
            match extract_pdf(&whole[..cut]) {
                Err(PdfError::Broken(_)) => {}
                // A reader may recover the pages before the cut; it must not invent text.
                Ok(pdf) => assert!(pdf.text.len() < 400, "{cut}: {}", pdf.text),
                Err(other) => panic!("{cut}: {other}"),
            }
        }
    }

    #[test]
    fn what_is_not_a_pdf_is_refused_by_name() {
        for bytes in
            [&b""[..], b"hello", b"%PDF-1.7\n garbage", b"%PDF-1.4\n1 0 obj << /Type /Catalog"]
        {
            let error = extract_pdf(bytes).unwrap_err();
            assert!(matches!(error, PdfError::Broken(_)), "{error}");
            assert!(error.to_string().starts_with("it is not a readable PDF"), "{error}");
        }
    }
}
