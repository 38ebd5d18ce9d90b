//! A one-document file's text: its bytes decoded with the charset declared or detected, and
//! its text extracted, on a thread of its own within the file's deadline when it is long.

use std::time::Duration;

use factdesk_model::DocumentFormat;
use factdesk_text::{ExtractedText, TextError};

use super::text_error_message;

/// A PDF's text layer within `deadline`, always on a thread of its own: a PDF's pages can
/// take long to lay out, and the reader is not linear in the file's size.
pub(super) fn extract_pdf_bounded(
    bytes: Vec<u8>,
    deadline: Duration,
) -> Result<factdesk_text::ExtractedPdf, String> {
    within_deadline(deadline, move || {
        factdesk_text::extract_pdf(&bytes).map_err(|error| error.to_string())
    })
}

/// Decodes the bytes of a source: with the charset declared outside them (an HTTP header),
/// else, for HTML, the one its `<meta>` declares, else a detected one.
pub(super) fn decode_source(
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
pub(super) fn extract_single(
    format: DocumentFormat,
    text: &str,
) -> Result<ExtractedText, TextError> {
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
pub(super) fn extract_bounded(
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
