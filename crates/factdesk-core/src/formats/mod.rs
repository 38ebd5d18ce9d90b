//! Corpus file formats to documents. A source (a file's or a fetched page's bytes) becomes one
//! document (.txt, .md, .html) or many (.jsonl: one per line; .csv: one per row). Every
//! document is decoded, extracted, segmented and hashed here, before anything touches the
//! store; a line or row that cannot be read becomes a failure naming the file and the line,
//! and the rest of the file goes on.
//!
//! This module holds the source types, [`parse_source`] and [`page_text`], and the building of
//! a document from extracted text. `extract.rs` decodes a one-document file and extracts its
//! text within the file's deadline, `records.rs` reads a record's fields by name and turns it
//! into a document, `jsonl.rs` parses JSONL files (whole or streamed) and `csv_rows.rs` CSV
//! files.

mod csv_rows;
mod extract;
mod jsonl;
mod records;

pub use records::FieldNames;

use std::ops::ControlFlow;
use std::time::Duration;

use factdesk_model::{DocumentFormat, OriginKind};
use factdesk_store::NewDocument;
use factdesk_text::{ExtractedText, TextError};

use csv_rows::parse_csv;
pub(crate) use csv_rows::{CSV_QUOTE_LEFT_OPEN, csv_quote_left_open};
use extract::{decode_source, extract_bounded, extract_pdf_bounded, extract_single};
use jsonl::parse_jsonl;
pub(crate) use jsonl::parse_jsonl_stream;

/// The bytes of one import source and what is known about them.
#[derive(Debug, Clone)]
pub(crate) struct SourceBytes {
    /// A path or URL, as the user gave it.
    pub origin: String,
    pub origin_kind: OriginKind,
    /// The page's URL after redirects (fetched pages only).
    pub url: Option<String>,
    pub format: DocumentFormat,
    pub bytes: Vec<u8>,
    /// A charset declared outside the bytes (an HTTP header).
    pub declared_charset: Option<String>,
    pub acquired_at: String,
    /// The title to use when the content has none (a file name).
    pub fallback_title: Option<String>,
}

/// One document of a source, or why it could not be read.
#[derive(Debug)]
pub(crate) enum Parsed {
    Document(Box<NewDocument>),
    Failed { item: String, message: String },
}

/// How to read a source.
#[derive(Debug, Clone)]
pub(crate) struct ParseOptions<'a> {
    pub language: Languages<'a>,
    pub fields: &'a FieldNames,
    pub batch: usize,
    /// The longest JSONL line or CSV row read as a document, in bytes; a longer one fails
    /// alone.
    pub max_record_bytes: usize,
    /// The longest a single file's text may take to extract.
    pub deadline: Duration,
}

/// Which language a document is in: the one given for the import, else the one its text is
/// detected in, else (a text too short to tell) the corpus default.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Languages<'a> {
    /// The corpus default (`import.language`), an ISO 639-1 code.
    pub default: &'a str,
    /// The language every document of the import is in (`import --language`).
    pub given: Option<&'a str>,
}

impl Languages<'_> {
    /// The language of a document with this text, and whether it was given or detected (not
    /// the default taken for a text the detector was not sure of).
    pub(crate) fn of(&self, text: &str) -> (String, bool) {
        match self.given {
            Some(language) => (language.to_owned(), true),
            None => match factdesk_text::detect_language(text) {
                Some(language) => (language.code.to_owned(), true),
                None => (self.default.to_owned(), false),
            },
        }
    }

    /// The sentences of a document in another language than `language`, unless the import
    /// gave every document's language (see [`factdesk_text::sentence_languages`]).
    fn of_sentences(
        &self,
        text: &str,
        sentences: &[factdesk_model::SentenceSpan],
        language: &str,
        told: bool,
    ) -> Vec<(usize, String)> {
        if self.given.is_some() {
            return Vec::new();
        }
        factdesk_text::sentence_languages(text, sentences, language, told)
            .into_iter()
            .map(|(index, code)| (index, code.to_owned()))
            .collect()
    }
}

/// Why a record over the cap is not read.
fn record_too_long(bytes: usize, limit: usize, what: &str) -> String {
    format!(
        "the {what} is {bytes} bytes, over the limit of {limit} bytes for one record; split it \
         or raise import.max_record_bytes in the config file"
    )
}

/// Parses `source`, handing documents to `sink` in batches of at most `options.batch`.
/// The sink may stop the parse by returning `ControlFlow::Break`.
pub(crate) fn parse_source(
    source: &SourceBytes,
    options: &ParseOptions<'_>,
    sink: &mut dyn FnMut(Vec<Parsed>) -> ControlFlow<()>,
) {
    let whole_failure = |message: String| Parsed::Failed { item: source.origin.clone(), message };
    if source.format == DocumentFormat::Pdf {
        let parsed = extract_pdf_bounded(source.bytes.clone(), options.deadline)
            .and_then(|pdf| {
                let extracted = ExtractedText {
                    title: pdf.title,
                    published: pdf.published,
                    canonical_url: None,
                    text: pdf.text,
                };
                let raw = source.bytes.clone();
                let origin = source.origin.clone();
                build(source, origin, raw, None, extracted, pdf.page_starts, options.language)
            })
            .map_or_else(&whole_failure, |d| Parsed::Document(Box::new(d)));
        let _ = sink(vec![parsed]);
        return;
    }
    let decoded =
        match decode_source(&source.bytes, source.format, source.declared_charset.as_deref()) {
            Ok(decoded) => decoded,
            Err(error) => {
                let _ = sink(vec![whole_failure(text_error_message(&error))]);
                return;
            }
        };
    match source.format {
        DocumentFormat::Text | DocumentFormat::Markdown | DocumentFormat::Html => {
            let parsed = match extract_bounded(source.format, decoded.text, options.deadline) {
                Ok(extracted) => build(
                    source,
                    source.origin.clone(),
                    source.bytes.clone(),
                    Some(decoded.charset),
                    extracted,
                    Vec::new(),
                    options.language,
                )
                .map_or_else(&whole_failure, |d| Parsed::Document(Box::new(d))),
                Err(message) => whole_failure(message),
            };
            let _ = sink(vec![parsed]);
        }
        DocumentFormat::Jsonl => parse_jsonl(source, &decoded.text, decoded.charset, options, sink),
        DocumentFormat::Csv => parse_csv(source, &decoded.text, decoded.charset, options, sink),
        DocumentFormat::Pdf => unreachable!("PDFs are read above, not decoded as text"),
    }
}

/// The text of a fetched page, the same way an imported file of its format becomes text:
/// the charset used and what was extracted.
pub(crate) fn page_text(
    bytes: &[u8],
    format: DocumentFormat,
    declared_charset: Option<&str>,
) -> Result<(&'static str, ExtractedText), TextError> {
    if format == DocumentFormat::Pdf {
        let pdf = factdesk_text::extract_pdf(bytes)?;
        let text = ExtractedText {
            title: pdf.title,
            published: pdf.published,
            canonical_url: None,
            text: pdf.text,
        };
        return Ok(("binary", text));
    }
    let decoded = decode_source(bytes, format, declared_charset)?;
    Ok((decoded.charset, extract_single(format, &decoded.text)?))
}

fn text_error_message(error: &TextError) -> String {
    match error {
        TextError::Empty => "the file is empty; nothing to import".into(),
        TextError::Binary(_) => {
            format!("{error}; Factdesk imports .txt, .md, .html, .jsonl, .csv and .pdf files")
        }
        TextError::NoText => format!("{error}; check that the file holds prose"),
        TextError::Pdf(error) => error.to_string(),
    }
}

/// Segments and hashes an extracted document.
fn build(
    source: &SourceBytes,
    origin: String,
    raw: Vec<u8>,
    charset: Option<&str>,
    mut extracted: ExtractedText,
    page_starts: Vec<u32>,
    languages: Languages<'_>,
) -> Result<NewDocument, String> {
    // Composed accents (NFC), as queries are, so that either spelling finds the other. A
    // PDF's text keeps its form: its page starts count its characters as extracted.
    if page_starts.is_empty()
        && let std::borrow::Cow::Owned(normalised) = factdesk_text::nfc(&extracted.text)
    {
        extracted.text = normalised;
    }
    let (language, told) = languages.of(&extracted.text);
    let sentences = factdesk_text::segment_sentences(&extracted.text, &language);
    if sentences.is_empty() {
        return Err(text_error_message(&TextError::NoText));
    }
    let sentence_languages = languages.of_sentences(&extracted.text, &sentences, &language, told);
    Ok(NewDocument {
        origin,
        origin_kind: source.origin_kind,
        url: source.url.clone().or(extracted.canonical_url),
        format: source.format,
        title: extracted.title.or_else(|| source.fallback_title.clone()),
        published_at: extracted.published,
        acquired_at: source.acquired_at.clone(),
        content_hash: factdesk_text::content_hash(extracted.text.as_bytes()),
        raw,
        charset: charset.map(str::to_owned),
        text: extracted.text,
        sentences,
        page_starts,
        language: Some(language),
        sentence_languages,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::jsonl::parse_jsonl_chunks;
    use super::*;
    use crate::settings::Settings;

    fn source(format: DocumentFormat, bytes: &[u8]) -> SourceBytes {
        SourceBytes {
            origin: "fixture".into(),
            origin_kind: OriginKind::File,
            url: None,
            format,
            bytes: bytes.to_vec(),
            declared_charset: None,
            acquired_at: "2024-01-01T00:00:00Z".into(),
            fallback_title: Some("fixture".into()),
        }
    }

    fn parse_all(source: &SourceBytes) -> Vec<Result<NewDocument, (String, String)>> {
        parse_capped(source, 1 << 20)
    }

    fn parse_capped(
        source: &SourceBytes,
        max_record_bytes: usize,
    ) -> Vec<Result<NewDocument, (String, String)>> {
        parse_with(source, max_record_bytes, Duration::from_secs(60))
    }

    fn parse_with(
        source: &SourceBytes,
        max_record_bytes: usize,
        deadline: Duration,
    ) -> Vec<Result<NewDocument, (String, String)>> {
        collect(max_record_bytes, deadline, |options, sink| parse_source(source, options, sink))
    }

    /// What `parse` hands its sink, with these options: documents, or (item, message).
    fn collect(
        max_record_bytes: usize,
        deadline: Duration,
        parse: impl FnOnce(&ParseOptions<'_>, &mut dyn FnMut(Vec<Parsed>) -> ControlFlow<()>),
    ) -> Vec<Result<NewDocument, (String, String)>> {
        let settings = Settings::default();
        let options = ParseOptions {
            language: Languages { default: "en", given: None },
            fields: &settings.import.fields,
            batch: 2,
            max_record_bytes,
            deadline,
        };
        let mut out = Vec::new();
        parse(&options, &mut |batch| {
            out.extend(batch.into_iter().map(|parsed| match parsed {
                Parsed::Document(document) => Ok(*document),
                Parsed::Failed { item, message } => Err((item, message)),
            }));
            ControlFlow::Continue(())
        });
        out
    }

    #[test]
    fn a_record_over_the_cap_fails_alone() {
        let long = "x".repeat(200);
        let jsonl = format!("{{\"text\": \"Short one.\"}}\n{{\"text\": \"{long}\"}}\n");
        let results = parse_capped(&source(DocumentFormat::Jsonl, jsonl.as_bytes()), 100);
        assert!(results[0].is_ok(), "{results:?}");
        let (item, message) = results[1].as_ref().unwrap_err();
        assert_eq!(item, "fixture:2");
        assert!(message.contains("import.max_record_bytes"), "{message}");
        let csv = format!("text\nShort one.\n{long}\n");
        let results = parse_capped(&source(DocumentFormat::Csv, csv.as_bytes()), 100);
        assert!(results[0].is_ok(), "{results:?}");
        assert!(results[1].as_ref().unwrap_err().1.contains("over the limit of 100 bytes"));
    }

    #[test]
    fn a_file_whose_text_takes_too_long_fails_alone_naming_the_setting() {
        let html =
            format!("<html><body>{}</body></html>", "<p>Deep text. Two.</p>".repeat(100_000));
        let page = source(DocumentFormat::Html, html.as_bytes());
        let results = parse_with(&page, 1 << 20, Duration::ZERO);
        let (item, message) = results[0].as_ref().unwrap_err();
        assert_eq!(item, "fixture");
        assert!(message.contains("within 0 s (import.file_timeout_secs)"), "{message}");
        // With time, the same file is read; a small file is read in place whatever the limit.
        let results = parse_with(&page, 1 << 20, Duration::from_secs(600));
        assert!(results[0].as_ref().unwrap().text.starts_with("Deep text. Two."));
        let small = source(DocumentFormat::Html, b"<p>Small text.</p>");
        assert!(parse_with(&small, 1 << 20, Duration::ZERO)[0].is_ok());
    }

    #[test]
    fn jsonl_lines_become_documents_and_bad_lines_fail_alone() {
        let jsonl = concat!(
            "{\"title\": \"First\", \"text\": \"One. Two.\", \"url\": \"https://a.example/1\", \"date\": \"2023-04-05T10:00:00Z\"}\n",
            "\n",
            "{\"text\": \"broken\"\n",
            "[1, 2]\n",
            "{\"headline\": \"No body\"}\n",
            "{\"document\": \"Third document here.\"}\n",
        );
        let results = parse_all(&source(DocumentFormat::Jsonl, jsonl.as_bytes()));
        assert_eq!(results.len(), 5);
        let first = results[0].as_ref().unwrap();
        assert_eq!(first.title.as_deref(), Some("First"));
        assert_eq!(first.url.as_deref(), Some("https://a.example/1"));
        assert_eq!(first.published_at.as_deref(), Some("2023-04-05"));
        assert_eq!(first.sentences.len(), 2);
        assert_eq!(first.origin, "fixture:1");
        let (item, message) = results[1].as_ref().unwrap_err();
        assert_eq!(item, "fixture:3");
        assert!(message.contains("not valid JSON"), "{message}");
        assert!(results[2].as_ref().unwrap_err().1.contains("not an object"));
        let (item, message) = results[3].as_ref().unwrap_err();
        assert_eq!(item, "fixture:5");
        assert!(message.contains("--text-field") && message.contains("headline"), "{message}");
        assert_eq!(results[4].as_ref().unwrap().text, "Third document here.");
    }

    #[test]
    fn csv_rows_become_documents_and_bad_rows_fail_alone() {
        let csv_text = "title,text,date\nA,\"First row. It has, commas.\",2020-01-02\nB,only two\nC,\"Third row.\",bad date\n";
        let results = parse_all(&source(DocumentFormat::Csv, csv_text.as_bytes()));
        assert_eq!(results.len(), 3);
        let first = results[0].as_ref().unwrap();
        assert_eq!(first.text, "First row. It has, commas.");
        assert_eq!(first.published_at.as_deref(), Some("2020-01-02"));
        assert_eq!(first.origin, "fixture:2");
        assert_eq!(first.raw, b"A,\"First row. It has, commas.\",2020-01-02");
        let (item, message) = results[1].as_ref().unwrap_err();
        assert_eq!(item, "fixture:3");
        assert!(message.contains("2 fields"), "{message}");
        assert_eq!(results[2].as_ref().unwrap().published_at, None);
    }

    #[test]
    fn a_quote_that_never_closes_fails_its_row_instead_of_swallowing_the_rest() {
        let csv_text = "id,text\n1,\"Officials said the bridge is safe\n2,The bridge closed in May.\n3,Later.\n";
        let results = parse_all(&source(DocumentFormat::Csv, csv_text.as_bytes()));
        assert_eq!(results.len(), 1, "{results:?}");
        let (item, message) = results[0].as_ref().unwrap_err();
        assert_eq!(item, "fixture:2");
        assert!(message.contains("never closed"), "{message}");
        // Quotes inside an unquoted field, or closed properly across lines, are fine.
        let fine = "id,text\n1,The 5\" screen\n2,\"Two\nlines.\"\n";
        let results = parse_all(&source(DocumentFormat::Csv, fine.as_bytes()));
        assert!(results.iter().all(Result::is_ok), "{results:?}");
        assert_eq!(results.len(), 2);
    }

    #[test]
    fn csv_without_a_text_column_fails_once() {
        let results = parse_all(&source(DocumentFormat::Csv, b"name,age\nAda,36\n"));
        assert_eq!(results.len(), 1);
        let (item, message) = results[0].as_ref().unwrap_err();
        assert_eq!(item, "fixture");
        assert!(message.contains("name, age") && message.contains("--text-field"), "{message}");
    }

    #[test]
    fn single_document_formats_and_bad_files() {
        let html =
            parse_all(&source(DocumentFormat::Html, b"<title>T</title><p>Hello there. Bye.</p>"));
        assert_eq!(html[0].as_ref().unwrap().title.as_deref(), Some("T"));
        let text = parse_all(&source(DocumentFormat::Text, b"just one sentence"));
        assert_eq!(text[0].as_ref().unwrap().title.as_deref(), Some("fixture"));
        for (bytes, expected) in
            [(&b""[..], "empty"), (&b"\x00\x01binary"[..], "binary"), (&b"%PDF-1.4"[..], "PDF")]
        {
            let results = parse_all(&source(DocumentFormat::Text, bytes));
            let (_, message) = results[0].as_ref().unwrap_err();
            assert!(message.contains(expected), "{message}");
        }
        let results = parse_all(&source(DocumentFormat::Html, b"<script>only()</script>"));
        assert!(results[0].as_ref().unwrap_err().1.contains("no readable text"));
    }

    /// A line of a JSONL or CSV file as people and programs write them, or broken: objects
    /// with known and unknown fields and values of every JSON type, arrays, bare values,
    /// quoted cells, cut-off lines and arbitrary text.
    pub(crate) fn record_line() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let key = prop_oneof![
            Just("text".to_owned()),
            Just("title".to_owned()),
            Just("url".to_owned()),
            Just("date".to_owned()),
            Just("claim".to_owned()),
            Just("label".to_owned()),
            Just("tags".to_owned()),
            "[a-z]{1,8}",
        ];
        let value = prop_oneof![
            any::<String>().prop_map(|s| serde_json::Value::String(s).to_string()),
            "[A-Za-z ,.;\"]{0,40}".prop_map(|s| serde_json::Value::String(s).to_string()),
            any::<i64>().prop_map(|n| n.to_string()),
            any::<bool>().prop_map(|b| b.to_string()),
            Just("null".to_owned()),
            Just("[\"a\", 1, null]".to_owned()),
            Just("{\"nested\": {\"deep\": []}}".to_owned()),
        ];
        let object = proptest::collection::vec((key, value), 0..6).prop_map(|fields| {
            let body: Vec<String> = fields
                .iter()
                .map(|(key, value)| format!("{}: {value}", serde_json::Value::String(key.clone())))
                .collect();
            format!("{{{}}}", body.join(", "))
        });
        prop_oneof![
            4 => object.clone(),
            1 => object.prop_flat_map(|line| {
                let cut = line.len();
                (Just(line), 0..=cut).prop_map(|(line, at)| {
                    let mut at = at;
                    while !line.is_char_boundary(at) {
                        at -= 1;
                    }
                    line[..at].to_owned()
                })
            }),
            1 => "[\"a-z, \n]{0,60}",
            1 => any::<String>(),
        ]
    }

    /// What a parse gave: each document's origin and text, each failure's item.
    fn outcomes(results: Vec<Result<NewDocument, (String, String)>>) -> Vec<(String, String)> {
        results
            .into_iter()
            .map(|result| match result {
                Ok(document) => (document.origin, document.text),
                Err((item, _)) => (item, "failed".to_owned()),
            })
            .collect()
    }

    fn stream_with(
        text: &[u8],
        chunk: usize,
        max_record_bytes: usize,
    ) -> Vec<Result<NewDocument, (String, String)>> {
        let source = source(DocumentFormat::Jsonl, b"");
        collect(max_record_bytes, Duration::from_secs(60), |options, sink| {
            parse_jsonl_chunks(&source, &mut &text[..], chunk, options, sink).unwrap();
        })
    }

    #[test]
    fn a_streamed_jsonl_file_skips_an_over_long_line_and_keeps_line_numbers() {
        let long = format!("{{\"text\": \"{}\"}}", "word ".repeat(40));
        let file =
            format!("{{\"text\": \"First one.\"}}\n{long}\n\n{{\"text\": \"Fourth one.\"}}\n");
        let results = stream_with(file.as_bytes(), 16, 100);
        let (item, message) = results[1].as_ref().unwrap_err();
        assert_eq!(item, "fixture:2");
        assert!(message.contains("longer than the limit of 100 bytes"), "{message}");
        assert_eq!(
            outcomes(results),
            [
                ("fixture:1".to_owned(), "First one.".to_owned()),
                ("fixture:2".to_owned(), "failed".to_owned()),
                ("fixture:4".to_owned(), "Fourth one.".to_owned()),
            ]
        );
        let empty = stream_with(b"\n \n", 4, 100);
        assert!(empty[0].as_ref().unwrap_err().1.contains("no lines"));
        // A file that ends inside an over-long line ends (it once read on forever).
        let unended = format!("{{\"text\": \"First one.\"}}\n{}", "x".repeat(500));
        let results = stream_with(unended.as_bytes(), 16, 100);
        assert_eq!(results.len(), 2);
        assert_eq!(results[1].as_ref().unwrap_err().0, "fixture:2");
        // UTF-16 cannot be cut at newline bytes: it is read whole, as before.
        let mut utf16 = vec![0xFF, 0xFE];
        for unit in "{\"text\": \"上 one.\"}\n{\"text\": \"Two.\"}\n".encode_utf16() {
            utf16.extend_from_slice(&unit.to_le_bytes());
        }
        let results = stream_with(&utf16, 8, 100);
        assert_eq!(
            outcomes(results),
            [
                ("fixture:1".to_owned(), "上 one.".to_owned()),
                ("fixture:2".to_owned(), "Two.".to_owned()),
            ]
        );
    }

    proptest::proptest! {
        /// A JSONL file streamed in chunks of any size gives what parsing it whole gives.
        #[test]
        fn property_streamed_jsonl_equals_whole_jsonl(
            lines in proptest::collection::vec(record_line(), 0..12),
            chunk in 1usize..64,
        ) {
            let text = lines.join("\n");
            let whole = parse_all(&source(DocumentFormat::Jsonl, text.as_bytes()));
            let streamed = stream_with(text.as_bytes(), chunk, 1 << 20);
            proptest::prop_assert_eq!(outcomes(streamed), outcomes(whole));
        }

        /// With Windows line ends and a small record limit, the two still agree: the same
        /// lines fail for length, the same ones become documents.
        #[test]
        fn property_streamed_jsonl_equals_whole_jsonl_with_long_lines_and_crlf(
            lines in proptest::collection::vec(record_line(), 0..12),
            chunk in 1usize..64,
        ) {
            let text = lines.join("\r\n");
            let whole = parse_capped(&source(DocumentFormat::Jsonl, text.as_bytes()), 40);
            let streamed = stream_with(text.as_bytes(), chunk, 40);
            proptest::prop_assert_eq!(outcomes(streamed), outcomes(whole));
        }

        /// Any JSONL or CSV corpus file, broken or not, parses without a panic; each record
        /// is a document with text or an error naming its line.
        #[test]
        fn property_corpus_records_parse_or_fail_alone(
            lines in proptest::collection::vec(record_line(), 0..12),
            csv in proptest::bool::ANY,
        ) {
            let text = lines.join("\n");
            let format = if csv { DocumentFormat::Csv } else { DocumentFormat::Jsonl };
            let results = parse_all(&source(format, text.as_bytes()));
            let lines = text.split('\n').count();
            proptest::prop_assert!(results.len() <= lines.max(1));
            for result in results {
                match result {
                    Ok(document) => proptest::prop_assert!(!document.text.trim().is_empty()),
                    Err((item, message)) => {
                        proptest::prop_assert!(item.starts_with("fixture"), "{item}");
                        proptest::prop_assert!(!message.is_empty());
                    }
                }
            }
        }
    }
}
