//! JSONL files: one document per line, parsed whole or streamed a chunk of whole lines at a
//! time; a line that cannot be read fails alone, naming its line number.

use std::ops::ControlFlow;

use factdesk_model::DocumentFormat;
use rayon::prelude::*;

use super::extract::decode_source;
use super::records::record_to_document;
use super::{ParseOptions, Parsed, SourceBytes, record_too_long, text_error_message};

pub(super) fn parse_jsonl(
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

pub(super) fn parse_jsonl_chunks(
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
