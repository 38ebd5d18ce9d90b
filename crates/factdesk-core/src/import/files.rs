//! The files of an import's sources (folders walked, URLs set apart), the format of a file or
//! a fetched page, and reading a file within the import's size limit without blocking.

use std::path::{Path, PathBuf};

use factdesk_model::{DocumentFormat, OriginKind, now_rfc3339};

use super::{ImportFailure, ImportSummary, SUPPORTED};
use crate::formats::SourceBytes;

fn is_url(source: &str) -> bool {
    let lower = source.trim_start().to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

/// Splits sources into files (folders walked recursively, hidden entries skipped) and URLs.
pub(super) fn expand_sources(
    sources: &[String],
    summary: &mut ImportSummary,
) -> (Vec<PathBuf>, Vec<String>) {
    let mut files = Vec::new();
    let mut urls = Vec::new();
    for source in sources {
        if is_url(source) {
            urls.push(source.trim().to_owned());
            continue;
        }
        let path = Path::new(source);
        let fail = |message: String| ImportFailure { item: source.clone(), message };
        match std::fs::metadata(path) {
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                summary.failures.push(fail("no such file or folder".into()));
            }
            Err(error) => summary.failures.push(fail(format!("cannot read it: {error}"))),
            Ok(metadata) if metadata.is_dir() => {
                let walker = walkdir::WalkDir::new(path)
                    .sort_by_file_name()
                    .into_iter()
                    .filter_entry(|entry| {
                        entry.depth() == 0 || !entry.file_name().to_string_lossy().starts_with('.')
                    });
                for entry in walker {
                    match entry {
                        Ok(entry) if entry.file_type().is_file() => {
                            if format_of_path(entry.path()).is_some()
                                || is_archive_path(entry.path())
                            {
                                files.push(entry.into_path());
                            } else {
                                summary.skipped.push(entry.path().display().to_string());
                            }
                        }
                        Ok(entry) if entry.file_type().is_dir() => {}
                        // Links, pipes, devices and sockets in a folder are passed over, and said.
                        Ok(entry) => summary.skipped.push(entry.path().display().to_string()),
                        Err(error) => summary.failures.push(ImportFailure {
                            item: error.path().map_or(source.clone(), |p| p.display().to_string()),
                            message: format!("cannot read it: {error}"),
                        }),
                    }
                }
            }
            Ok(_) => {
                if format_of_path(path).is_some() || is_archive_path(path) {
                    files.push(path.to_path_buf());
                } else {
                    let extension = path
                        .extension()
                        .map_or(String::new(), |e| format!(".{}", e.to_string_lossy()));
                    summary.failures.push(fail(format!(
                        "unsupported file type{}; Factdesk imports {SUPPORTED}",
                        if extension.is_empty() {
                            " (no extension)".to_owned()
                        } else {
                            format!(" '{extension}'")
                        }
                    )));
                }
            }
        }
    }
    (files, urls)
}

pub(super) fn format_of_path(path: &Path) -> Option<DocumentFormat> {
    DocumentFormat::from_extension(&path.extension()?.to_string_lossy())
}

/// The format of a fetched page: from its media type, else its URL's extension, else a sniff.
pub(crate) fn format_of_page(
    media_type: Option<&str>,
    url: &str,
    body: &[u8],
) -> Option<DocumentFormat> {
    match media_type {
        Some("text/html" | "application/xhtml+xml") => Some(DocumentFormat::Html),
        Some("text/plain") => Some(DocumentFormat::Text),
        Some("text/markdown" | "text/x-markdown") => Some(DocumentFormat::Markdown),
        Some("application/pdf") => Some(DocumentFormat::Pdf),
        Some(_) if body.starts_with(b"%PDF-") => Some(DocumentFormat::Pdf),
        Some(_) => None,
        None => {
            let path = url.split(['?', '#']).next().unwrap_or(url);
            let from_extension = Path::new(path).extension().and_then(|e| {
                DocumentFormat::from_extension(&e.to_string_lossy()).filter(|f| {
                    matches!(
                        f,
                        DocumentFormat::Html
                            | DocumentFormat::Text
                            | DocumentFormat::Markdown
                            | DocumentFormat::Pdf
                    )
                })
            });
            from_extension.or_else(|| {
                let head =
                    String::from_utf8_lossy(&body[..body.len().min(512)]).to_ascii_lowercase();
                Some(if body.starts_with(b"%PDF-") {
                    DocumentFormat::Pdf
                } else if head.trim_start().starts_with('<') {
                    DocumentFormat::Html
                } else {
                    DocumentFormat::Text
                })
            })
        }
    }
}

/// What a path is when it is not a regular file, for messages.
fn special_kind(file_type: std::fs::FileType) -> Option<&'static str> {
    if file_type.is_file() {
        return None;
    }
    if file_type.is_dir() {
        return Some("a folder");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return Some("a named pipe");
        }
        if file_type.is_socket() {
            return Some("a socket");
        }
        if file_type.is_char_device() || file_type.is_block_device() {
            return Some("a device");
        }
    }
    Some("a special file")
}

/// Opens `path` for reading. Opening a named pipe blocks until someone writes to it; opened
/// non-blocking, a path swapped for one after its type was looked at opens at once, and the
/// look at what was opened refuses it. (Reads of a regular file do not mind the flag.)
fn open_without_blocking(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    options.open(path)
}

/// The bytes of the regular file at `path` (a link is followed), at most `max_bytes` of them:
/// devices, pipes and sockets are refused before they are opened (reading one could block or
/// never end), and the cap holds while reading, whatever size the file claims (files in /proc
/// claim 0). The message says what is wrong and what to do.
pub(crate) fn read_capped(path: &Path, max_bytes: u64) -> std::result::Result<Vec<u8>, String> {
    use std::io::Read;
    let (mut reader, size) = open_capped(path, max_bytes)?;
    let mut bytes = Vec::new();
    reader.read_to_end(&mut bytes).map_err(|error| format!("cannot read it: {error}"))?;
    if bytes.len() as u64 > max_bytes {
        return Err(over_the_limit(max_bytes, size));
    }
    Ok(bytes)
}

const FILE_LIMIT_ADVICE: &str = "raise import.max_file_bytes in the config file or split the file";

/// A file that grew past the limit while it was read (its size said less).
fn over_the_limit(max_bytes: u64, size: u64) -> String {
    format!(
        "the file holds more than the import limit of {max_bytes} bytes (its size said {size}); \
         {FILE_LIMIT_ADVICE}"
    )
}

/// The file at `path` opened for reading at most `max_bytes` + 1 bytes (one more shows that
/// it holds more than its size said), with its size; refused when it is not a regular file or
/// is over the limit.
pub(crate) fn open_capped(
    path: &Path,
    max_bytes: u64,
) -> std::result::Result<(std::io::Take<std::fs::File>, u64), String> {
    use std::io::Read;
    let refuse =
        |kind: &str| format!("it is {kind}, not a regular file; Factdesk reads only regular files");
    let metadata = std::fs::metadata(path).map_err(|error| format!("cannot read it: {error}"))?;
    if let Some(kind) = special_kind(metadata.file_type()) {
        return Err(refuse(kind));
    }
    if metadata.len() > max_bytes {
        return Err(format!(
            "the file is {} bytes, over the import limit of {max_bytes} bytes; {FILE_LIMIT_ADVICE}",
            metadata.len()
        ));
    }
    let file = open_without_blocking(path).map_err(|error| format!("cannot read it: {error}"))?;
    // Swapped for something else between the two looks: look again at what was opened.
    match file.metadata().map(|opened| special_kind(opened.file_type())) {
        Ok(Some(kind)) => return Err(refuse(kind)),
        Ok(None) => {}
        Err(error) => return Err(format!("cannot read it: {error}")),
    }
    Ok((file.take(max_bytes.saturating_add(1)), metadata.len()))
}

/// A file read as a stream that fails, before handing over a byte past the limit, when it
/// holds more than its size said (it grew while it was read).
pub(super) struct CappedReader {
    file: std::io::Take<std::fs::File>,
    max_bytes: u64,
    size: u64,
    read: u64,
}

impl std::io::Read for CappedReader {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        let read = self.file.read(buffer)?;
        self.read += read as u64;
        if self.read > self.max_bytes {
            return Err(std::io::Error::other(over_the_limit(self.max_bytes, self.size)));
        }
        Ok(read)
    }
}

/// A JSONL file opened to be parsed as it is read (memory does not grow with its size): its
/// source (without bytes), reader and size.
pub(super) fn open_jsonl(
    path: &Path,
    max_bytes: u64,
) -> std::result::Result<(SourceBytes, CappedReader, u64), ImportFailure> {
    let item = path.display().to_string();
    let (file, size) = open_capped(path, max_bytes)
        .map_err(|message| ImportFailure { item: item.clone(), message })?;
    let reader = CappedReader { file, max_bytes, size, read: 0 };
    let source = SourceBytes {
        origin: item,
        origin_kind: OriginKind::File,
        url: None,
        format: DocumentFormat::Jsonl,
        bytes: Vec::new(),
        declared_charset: None,
        acquired_at: now_rfc3339(),
        fallback_title: path.file_stem().map(|stem| stem.to_string_lossy().into_owned()),
    };
    Ok((source, reader, size))
}

pub(super) fn read_file(
    path: &Path,
    max_bytes: u64,
) -> std::result::Result<SourceBytes, ImportFailure> {
    let item = path.display().to_string();
    let fail = |message: String| ImportFailure { item: item.clone(), message };
    let format = format_of_path(path)
        .ok_or_else(|| fail(format!("unsupported file type; Factdesk imports {SUPPORTED}")))?;
    let bytes = read_capped(path, max_bytes).map_err(fail)?;
    Ok(SourceBytes {
        origin: item.clone(),
        origin_kind: OriginKind::File,
        url: None,
        format,
        bytes,
        declared_charset: None,
        acquired_at: now_rfc3339(),
        fallback_title: path.file_stem().map(|stem| stem.to_string_lossy().into_owned()),
    })
}

/// Whether a path names a web archive file by its extension (`.warc`, `.warc.gz`, `.wacz`).
pub(crate) fn is_archive_path(path: &Path) -> bool {
    let name = path.file_name().map(|name| name.to_string_lossy().to_ascii_lowercase());
    name.is_some_and(|name| {
        name.ends_with(".warc") || name.ends_with(".warc.gz") || name.ends_with(".wacz")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A named pipe opens at once (a blocking open would wait for a writer forever), and what
    /// was opened is seen to be a pipe.
    #[cfg(unix)]
    #[test]
    fn a_named_pipe_opens_without_blocking_and_shows_what_it_is() {
        use std::os::unix::fs::FileTypeExt;
        let dir = tempfile::tempdir().unwrap();
        let pipe = dir.path().join("pipe.txt");
        let made = std::process::Command::new("mkfifo").arg(&pipe).status().unwrap();
        assert!(made.success());
        let file = open_without_blocking(&pipe).unwrap();
        assert!(file.metadata().unwrap().file_type().is_fifo());
        assert_eq!(special_kind(file.metadata().unwrap().file_type()), Some("a named pipe"));
    }
}
