//! Corpus file formats to documents. A source (a file's or a fetched page's bytes) becomes one
//! document (.txt, .md, .html) or many (.jsonl: one per line; .csv: one per row). Every
//! document is decoded, extracted, segmented and hashed here, before anything touches the
//! store; a line or row that cannot be read becomes a failure naming the file and the line,
//! and the rest of the file goes on.

use std::ops::ControlFlow;
use std::time::Duration;

use factdesk_model::{DocumentFormat, OriginKind};
use factdesk_store::NewDocument;
use factdesk_text::{ExtractedText, TextError};
use rayon::prelude::*;

use crate::settings::FieldNames;

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
    pub language: &'a str,
    pub fields: &'a FieldNames,
    pub batch: usize,
    /// The longest JSONL line or CSV row read as a document, in bytes; a longer one fails
    /// alone.
    pub max_record_bytes: usize,
    /// The longest a single file's text may take to extract.
    pub deadline: Duration,
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

/// A PDF's text layer within `deadline`, always on a thread of its own: a PDF's pages can
/// take long to lay out, and the reader is not linear in the file's size.
fn extract_pdf_bounded(
    bytes: Vec<u8>,
    deadline: Duration,
) -> Result<factdesk_text::ExtractedPdf, String> {
    within_deadline(deadline, move || {
        factdesk_text::extract_pdf(&bytes).map_err(|error| error.to_string())
    })
}

/// Decodes the bytes of a source: with the charset declared outside them (an HTTP header),
/// else, for HTML, the one its `<meta>` declares, else a detected one.
fn decode_source(
    bytes: &[u8],
    format: DocumentFormat,
    declared_charset: Option<&str>,
) -> Result<factdesk_text::DecodedText, TextError> {
    let declared = declared_charset.map(str::to_owned).or_else(|| {
        (format == DocumentFormat::Html).then(|| factdesk_text::sniff_html_charset(bytes)).flatten()
    });
    factdesk_text::decode_bytes(bytes, declared.as_deref())
}

/// The text of a one-document format (plain text, Markdown, HTML).
fn extract_single(format: DocumentFormat, text: &str) -> Result<ExtractedText, TextError> {
    match format {
        DocumentFormat::Html => factdesk_text::extract_html(text),
        DocumentFormat::Markdown => factdesk_text::extract_markdown(text),
        _ => factdesk_text::extract_plain_text(text),
    }
}

/// Texts shorter than this are extracted in place: linear extraction of them takes
/// milliseconds, and a thread each would slow folders of small files.
const EXTRACT_IN_PLACE_BYTES: usize = 256 * 1024;

/// [`extract_single`] within `deadline`: a longer text is extracted on a thread of its own,
/// and past the deadline the file fails (the thread ends on its own; extraction is linear in
/// the file's size, which the import caps).
fn extract_bounded(
    format: DocumentFormat,
    text: String,
    deadline: Duration,
) -> Result<ExtractedText, String> {
    if text.len() < EXTRACT_IN_PLACE_BYTES {
        return extract_single(format, &text).map_err(|error| text_error_message(&error));
    }
    within_deadline(deadline, move || {
        extract_single(format, &text).map_err(|error| text_error_message(&error))
    })
}

/// `extract` on a thread of its own, waited for up to `deadline`: past it the file fails, and
/// the thread, which cannot be stopped, is left to finish with its result dropped.
fn within_deadline<T: Send + 'static>(
    deadline: Duration,
    extract: impl FnOnce() -> Result<T, String> + Send + 'static,
) -> Result<T, String> {
    let (sender, receiver) = std::sync::mpsc::channel();
    let spawned = std::thread::Builder::new().name("factdesk-extract".into()).spawn(move || {
        let _ = sender.send(extract());
    });
    if let Err(error) = spawned {
        return Err(format!("could not start extracting the text: {error}"));
    }
    match receiver.recv_timeout(deadline) {
        Ok(extracted) => extracted,
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => Err(format!(
            "its text could not be extracted within {} s (import.file_timeout_secs); the file \
             is left out — raise the setting if it is a genuine document",
            deadline.as_secs()
        )),
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
            Err("extracting its text failed unexpectedly".into())
        }
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
    extracted: ExtractedText,
    page_starts: Vec<u32>,
    language: &str,
) -> Result<NewDocument, String> {
    let sentences = factdesk_text::segment_sentences(&extracted.text, language);
    if sentences.is_empty() {
        return Err(text_error_message(&TextError::NoText));
    }
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
    })
}

/// The fields of one record (a JSONL object or a CSV row), by name.
trait Record {
    fn field(&self, name: &str) -> Result<Option<String>, String>;
    fn field_names(&self) -> Vec<String>;
}

impl Record for serde_json::Map<String, serde_json::Value> {
    fn field(&self, name: &str) -> Result<Option<String>, String> {
        match self.get(name) {
            None | Some(serde_json::Value::Null) => Ok(None),
            Some(serde_json::Value::String(text)) => Ok(Some(text.clone())),
            Some(serde_json::Value::Number(number)) => Ok(Some(number.to_string())),
            Some(serde_json::Value::Array(items)) if items.iter().all(|i| i.is_string()) => {
                Ok(Some(items.iter().filter_map(|i| i.as_str()).collect::<Vec<_>>().join("\n\n")))
            }
            Some(other) => Err(format!(
                "field \"{name}\" holds {}, not text",
                match other {
                    serde_json::Value::Bool(_) => "true/false",
                    serde_json::Value::Array(_) => "a list of non-text values",
                    _ => "an object",
                }
            )),
        }
    }

    fn field_names(&self) -> Vec<String> {
        self.keys().cloned().collect()
    }
}

fn first_present(record: &dyn Record, names: &[String]) -> Result<Option<String>, String> {
    for name in names {
        if let Some(value) = record.field(name)?
            && !value.trim().is_empty()
        {
            return Ok(Some(value));
        }
    }
    Ok(None)
}

/// Turns one record into a document.
fn record_to_document(
    source: &SourceBytes,
    item: &str,
    raw: &str,
    charset: &str,
    record: &dyn Record,
    options: &ParseOptions<'_>,
) -> Result<NewDocument, String> {
    let fields = options.fields;
    let Some(text) = first_present(record, &fields.text)? else {
        return Err(format!(
            "no text: none of the fields {} is present and non-empty (this record has: {}); \
             name the text field with --text-field",
            fields.text.join(", "),
            record.field_names().join(", ")
        ));
    };
    let text = factdesk_text::normalise_text(&text);
    if text.is_empty() {
        return Err(text_error_message(&TextError::NoText));
    }
    let extracted = ExtractedText {
        title: first_present(record, &fields.title)?.map(|t| t.trim().to_owned()),
        published: first_present(record, &fields.date)?
            .and_then(|d| factdesk_text::normalise_date(&d)),
        canonical_url: first_present(record, &fields.url)?.map(|u| u.trim().to_owned()),
        text,
    };
    let raw = raw.as_bytes().to_vec();
    build(source, item.to_owned(), raw, Some(charset), extracted, Vec::new(), options.language)
}

fn parse_jsonl(
    source: &SourceBytes,
    text: &str,
    charset: &'static str,
    options: &ParseOptions<'_>,
    sink: &mut dyn FnMut(Vec<Parsed>) -> ControlFlow<()>,
) {
    let mut found = false;
    let _ = parse_jsonl_lines(source, text, 1, charset, options, sink, &mut found);
    if !found {
        let _ = sink(vec![no_lines(source)]);
    }
}

fn no_lines(source: &SourceBytes) -> Parsed {
    Parsed::Failed {
        item: source.origin.clone(),
        message: "the file has no lines; nothing to import".into(),
    }
}

/// The JSONL records of `text`, whose first line is line `first_line` of the file, handed to
/// `sink` in batches; `found` is set when a non-blank line is seen.
fn parse_jsonl_lines(
    source: &SourceBytes,
    text: &str,
    first_line: usize,
    charset: &'static str,
    options: &ParseOptions<'_>,
    sink: &mut dyn FnMut(Vec<Parsed>) -> ControlFlow<()>,
    found: &mut bool,
) -> ControlFlow<()> {
    let lines: Vec<(usize, &str)> = text
        .split('\n')
        .enumerate()
        .map(|(index, line)| (first_line + index, line.trim_end_matches('\r')))
        .filter(|(_, line)| !line.trim().is_empty())
        .collect();
    *found |= !lines.is_empty();
    for chunk in lines.chunks(options.batch.max(1)) {
        let parsed: Vec<Parsed> = chunk
            .par_iter()
            .map(|&(line_number, line)| {
                let item = format!("{}:{line_number}", source.origin);
                if line.len() > options.max_record_bytes {
                    let message = record_too_long(line.len(), options.max_record_bytes, "line");
                    return Parsed::Failed { item, message };
                }
                let result = match serde_json::from_str::<serde_json::Value>(line) {
                    Ok(serde_json::Value::Object(object)) => {
                        record_to_document(source, &item, line, charset, &object, options)
                    }
                    Ok(_) => Err("the line is JSON but not an object ({...})".to_owned()),
                    Err(error) => Err(format!("not valid JSON: {error}")),
                };
                result.map_or_else(
                    |message| Parsed::Failed { item: item.clone(), message },
                    |document| Parsed::Document(Box::new(document)),
                )
            })
            .collect();
        sink(parsed)?;
    }
    ControlFlow::Continue(())
}

/// Bytes of a JSONL file read and parsed at a time when it is streamed.
const JSONL_CHUNK_BYTES: usize = 8 << 20;

/// A JSONL file parsed as it is read, a chunk of whole lines at a time, so that memory does not
/// grow with the file: at most a chunk and one record (`options.max_record_bytes`) are held;
/// a longer line is skipped to its end and fails alone. Each chunk is decoded on its own (JSON
/// is UTF-8; another charset is detected per chunk). `source.bytes` is unused.
pub(crate) fn parse_jsonl_stream(
    source: &SourceBytes,
    reader: &mut dyn std::io::Read,
    options: &ParseOptions<'_>,
    sink: &mut dyn FnMut(Vec<Parsed>) -> ControlFlow<()>,
) -> std::io::Result<()> {
    parse_jsonl_chunks(source, reader, JSONL_CHUNK_BYTES, options, sink)
}

fn parse_jsonl_chunks(
    source: &SourceBytes,
    reader: &mut dyn std::io::Read,
    chunk_bytes: usize,
    options: &ParseOptions<'_>,
    sink: &mut dyn FnMut(Vec<Parsed>) -> ControlFlow<()>,
) -> std::io::Result<()> {
    let mut pending: Vec<u8> = Vec::new();
    let mut buffer = vec![0u8; chunk_bytes.max(1)];
    // The file's line number of the first line in `pending`.
    let mut line = 1usize;
    // Inside a line over the limit: its bytes are dropped up to its end.
    let mut skipping = false;
    let mut found = false;
    let mut first = true;
    loop {
        let read = match reader.read(&mut buffer) {
            Ok(read) => read,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
        };
        let end = read == 0;
        let mut fresh = &buffer[..read];
        if first && !end {
            first = false;
            // Lines can be cut at newline bytes only in an ASCII-compatible encoding: a file in
            // UTF-16 or UTF-32 (a byte-order mark, or NUL bytes) is read whole, as any other
            // file is, and a binary one is refused the same way.
            let head = &fresh[..fresh.len().min(8192)];
            let wide = head.starts_with(&[0xFF, 0xFE]) || head.starts_with(&[0xFE, 0xFF]);
            if wide || head.contains(&0) {
                let mut bytes = fresh.to_vec();
                reader.read_to_end(&mut bytes)?;
                parse_whole(source, &bytes, options, sink);
                return Ok(());
            }
            fresh = fresh.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(fresh);
        }
        if skipping {
            match fresh.iter().position(|&byte| byte == b'\n') {
                Some(at) => {
                    skipping = false;
                    line += 1;
                    fresh = &fresh[at + 1..];
                }
                None if end => break,
                None => continue,
            }
        }
        pending.extend_from_slice(fresh);
        let cut = if end {
            pending.len()
        } else {
            match pending.iter().rposition(|&byte| byte == b'\n') {
                Some(at) => at + 1,
                // Room for a carriage return: the exact check is `parse_jsonl_lines`'s.
                None if pending.len() > options.max_record_bytes + 1 => {
                    found = true;
                    let item = format!("{}:{line}", source.origin);
                    let message = format!(
                        "the line is longer than the limit of {} bytes for one record; split it \
                         or raise import.max_record_bytes in the config file",
                        options.max_record_bytes
                    );
                    if sink(vec![Parsed::Failed { item, message }]).is_break() {
                        return Ok(());
                    }
                    pending.clear();
                    skipping = true;
                    continue;
                }
                None => continue,
            }
        };
        // Parsed where it lies; the parsed lines leave `pending` afterwards.
        let chunk = &pending[..cut];
        let newlines = chunk.iter().filter(|&&byte| byte == b'\n').count();
        if !chunk.iter().all(u8::is_ascii_whitespace) {
            let decoded = match std::str::from_utf8(chunk) {
                Ok(text) => Ok((std::borrow::Cow::Borrowed(text), "UTF-8")),
                Err(_) => factdesk_text::decode_bytes(chunk, None)
                    .map(|decoded| (std::borrow::Cow::Owned(decoded.text), decoded.charset)),
            };
            match decoded {
                Ok((text, charset)) => {
                    let flow =
                        parse_jsonl_lines(source, &text, line, charset, options, sink, &mut found);
                    if flow.is_break() {
                        return Ok(());
                    }
                }
                Err(error) => {
                    found = true;
                    let last = line + newlines - usize::from(chunk.ends_with(b"\n"));
                    let item = format!("{}:{line}", source.origin);
                    let message = format!("lines {line}–{last}: {}", text_error_message(&error));
                    if sink(vec![Parsed::Failed { item, message }]).is_break() {
                        return Ok(());
                    }
                }
            }
        }
        pending.drain(..cut);
        line += newlines;
        if end {
            break;
        }
    }
    if !found {
        let _ = sink(vec![no_lines(source)]);
    }
    Ok(())
}

/// A JSONL file's bytes parsed whole (decoded once, as a file of any other format is).
fn parse_whole(
    source: &SourceBytes,
    bytes: &[u8],
    options: &ParseOptions<'_>,
    sink: &mut dyn FnMut(Vec<Parsed>) -> ControlFlow<()>,
) {
    match decode_source(bytes, DocumentFormat::Jsonl, source.declared_charset.as_deref()) {
        Ok(decoded) => parse_jsonl(source, &decoded.text, decoded.charset, options, sink),
        Err(error) => {
            let failure =
                Parsed::Failed { item: source.origin.clone(), message: text_error_message(&error) };
            let _ = sink(vec![failure]);
        }
    }
}

struct CsvRecord<'a> {
    headers: &'a [String],
    values: csv::StringRecord,
}

impl Record for CsvRecord<'_> {
    fn field(&self, name: &str) -> Result<Option<String>, String> {
        Ok(self
            .headers
            .iter()
            .position(|header| header.eq_ignore_ascii_case(name))
            .and_then(|index| self.values.get(index))
            .map(str::to_owned))
    }

    fn field_names(&self) -> Vec<String> {
        self.headers.to_vec()
    }
}

/// Why the last row of a CSV file is refused by [`csv_quote_left_open`].
pub(crate) const CSV_QUOTE_LEFT_OPEN: &str = "a quoted field of this row is never closed, so it \
    and every line after it were read as one row; close the quote (\") and import the file again";

/// Does the text of a CSV file's last row (from its start to the end of the file) hold a
/// quote that never closes? The reader then takes every line after it as part of that row,
/// without an error of its own. (Quotes inside a quoted field are doubled, and a stray quote
/// inside an unquoted field cannot span lines, so an odd count over several lines is one.)
pub(crate) fn csv_quote_left_open(last_row: &str) -> bool {
    last_row.trim_end().contains('\n') && last_row.matches('"').count() % 2 == 1
}

/// A CSV row as read: its raw text and fields, or why it could not be read.
type RowResult = Result<(String, csv::StringRecord), String>;

fn parse_csv(
    source: &SourceBytes,
    text: &str,
    charset: &'static str,
    options: &ParseOptions<'_>,
    sink: &mut dyn FnMut(Vec<Parsed>) -> ControlFlow<()>,
) {
    let fail_whole =
        |message: String| vec![Parsed::Failed { item: source.origin.clone(), message }];
    let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(text.as_bytes());
    let headers: Vec<String> = match reader.headers() {
        Ok(headers) => headers.iter().map(|h| h.trim().to_owned()).collect(),
        Err(error) => {
            let _ = sink(fail_whole(format!("cannot read the header row: {error}")));
            return;
        }
    };
    let has_text_column =
        options.fields.text.iter().any(|name| headers.iter().any(|h| h.eq_ignore_ascii_case(name)));
    if !has_text_column {
        let _ = sink(fail_whole(format!(
            "no text column: the header row has {}, but none of {}; name the text column with --text-field",
            if headers.is_empty() { "no columns".to_owned() } else { headers.join(", ") },
            options.fields.text.join(", ")
        )));
        return;
    }
    // Rows are read in order (the CSV reader is sequential), then converted in parallel.
    let mut pending: Vec<(String, RowResult)> = Vec::new();
    let mut records = reader.into_records().peekable();
    let mut previous_end = 0usize;
    loop {
        let next = records.next();
        let done = next.is_none();
        if let Some(result) = next {
            match result {
                Ok(record) => {
                    let position = record.position().cloned();
                    let line = position.as_ref().map_or(0, |p| p.line());
                    let start = position.as_ref().map_or(previous_end, |p| p.byte() as usize);
                    let end = records
                        .peek()
                        .and_then(|next| next.as_ref().ok())
                        .and_then(|next| next.position())
                        .map_or(text.len(), |p| p.byte() as usize);
                    previous_end = end;
                    let raw = text.get(start..end).unwrap_or_default().trim_end().to_owned();
                    let item = format!("{}:{line}", source.origin);
                    if end == text.len() && csv_quote_left_open(&raw) {
                        pending.push((item, Err(CSV_QUOTE_LEFT_OPEN.to_owned())));
                    } else if raw.len() > options.max_record_bytes {
                        let message = record_too_long(raw.len(), options.max_record_bytes, "row");
                        pending.push((item, Err(message)));
                    } else if record.len() != headers.len() {
                        let message = format!(
                            "the row has {} fields but the header has {}",
                            record.len(),
                            headers.len()
                        );
                        pending.push((item, Err(message)));
                    } else {
                        pending.push((item, Ok((raw, record))));
                    }
                }
                Err(error) => {
                    let line = error.position().map_or(0, |p| p.line());
                    pending.push((
                        format!("{}:{line}", source.origin),
                        Err(format!("malformed CSV: {error}")),
                    ));
                }
            }
        }
        if pending.len() >= options.batch.max(1) || (done && !pending.is_empty()) {
            let parsed: Vec<Parsed> = std::mem::take(&mut pending)
                .into_par_iter()
                .map(|(item, row)| {
                    let result = row.and_then(|(raw, values)| {
                        let record = CsvRecord { headers: &headers, values };
                        record_to_document(source, &item, &raw, charset, &record, options)
                    });
                    result.map_or_else(
                        |message| Parsed::Failed { item: item.clone(), message },
                        |document| Parsed::Document(Box::new(document)),
                    )
                })
                .collect();
            if sink(parsed).is_break() {
                return;
            }
        }
        if done {
            return;
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
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
            language: "en",
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
