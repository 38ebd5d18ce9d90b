//! Corpus import: files, folders (recursively) and http(s) URLs into a corpus. Each document
//! is imported whole or not at all; a bad file, line, row or URL is reported by name and the
//! import goes on with the rest. Re-running an import skips what is already there (documents
//! are deduplicated by content hash), so an interrupted import is resumed by running it again.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use factdesk_index::{SentenceIndexWriter, SentenceRecord};
use factdesk_model::{CorpusId, DocumentFormat, DocumentId, OriginKind, now_rfc3339};
use factdesk_store::{DocumentInsertOutcome, NewDocument};
use futures_util::StreamExt;
use serde::Serialize;

use crate::archive::is_archive_path;
use crate::formats::{ParseOptions, Parsed, SourceBytes, parse_jsonl_stream, parse_source};
use crate::settings::FieldNames;
use crate::{CancelToken, CoreError, Factdesk, ProgressUnit, Reporter, Result};

/// What to import and how.
#[derive(Debug, Clone, Default)]
pub struct ImportRequest {
    /// Paths of files or folders, and http(s) URLs.
    pub sources: Vec<String>,
    /// The corpus to import into (created if missing).
    pub corpus: String,
    /// Field names for JSONL and CSV that replace the configured lists for this import.
    pub text_field: Option<String>,
    pub title_field: Option<String>,
    pub url_field: Option<String>,
    pub date_field: Option<String>,
}

/// A document that was imported, or found already present.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct ImportedDocument {
    pub id: DocumentId,
    pub origin: String,
    pub title: Option<String>,
    pub sentences: u64,
    /// True when the corpus already had this text; `id` is then the earlier document.
    pub duplicate: bool,
}

/// An item (file, line, row or URL) that could not be imported, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct ImportFailure {
    pub item: String,
    pub message: String,
}

/// The outcome of an import.
#[derive(Debug, Clone, Default, Serialize, ts_rs::TS)]
pub struct ImportSummary {
    pub corpus: String,
    pub imported: u64,
    pub duplicates: u64,
    pub failed: u64,
    pub sentences: u64,
    /// Bytes read from files and fetched pages.
    pub bytes: u64,
    pub seconds: f64,
    pub cancelled: bool,
    pub documents: Vec<ImportedDocument>,
    pub failures: Vec<ImportFailure>,
    /// Entries of imported folders that were passed over: files of a format Factdesk does not
    /// import, and links, pipes, devices and sockets (which are not followed or read); and
    /// records of web archives that hold no readable page (images, scripts…).
    pub skipped: Vec<String>,
    /// Pages of WARC or WACZ files newly added to the page archive (served to offline checks).
    pub archived: u64,
}

const SUPPORTED: &str =
    ".txt, .md, .html, .htm, .jsonl, .csv, .pdf and web archives (.warc, .warc.gz, .wacz)";

/// One thing to read: a file, or a page already fetched.
enum Unit {
    File(PathBuf),
    Fetched(SourceBytes),
}

impl Factdesk {
    /// Imports files, folders and URLs into a corpus. Failures of single items are in the
    /// summary; an `Err` means the import could not go on at all (database or index failure),
    /// and then the batch in flight was rolled back.
    #[tracing::instrument(skip(self, reporter, cancel), fields(corpus = %request.corpus))]
    pub async fn import(
        &self,
        request: ImportRequest,
        reporter: Arc<dyn Reporter>,
        cancel: CancelToken,
    ) -> Result<ImportSummary> {
        let corpus = request.corpus.trim().to_owned();
        if corpus.is_empty() {
            return Err(CoreError::InvalidInput(
                "the corpus name is empty; pass --corpus NAME".into(),
            ));
        }
        if request.sources.is_empty() {
            return Err(CoreError::InvalidInput(
                "nothing to import: name files, folders or URLs".into(),
            ));
        }
        let started = Instant::now();
        let mut summary = ImportSummary { corpus: corpus.clone(), ..ImportSummary::default() };
        let (paths, urls) = expand_sources(&request.sources, &mut summary);
        for failure in &summary.failures {
            reporter.item_failed(&failure.item, &failure.message);
        }

        let (archives, paths): (Vec<PathBuf>, Vec<PathBuf>) =
            paths.into_iter().partition(|path| is_archive_path(path));
        let mut units: Vec<Unit> = paths.into_iter().map(Unit::File).collect();
        for path in archives {
            if cancel.is_cancelled() {
                summary.cancelled = true;
                break;
            }
            reporter.working_on(&path.display().to_string());
            let app = self.clone();
            let read =
                tokio::task::spawn_blocking(move || app.read_web_archive(&path)).await.map_err(
                    |error| CoreError::Internal(format!("reading a web archive stopped: {error}")),
                )?;
            match read {
                Ok(read) => {
                    for failure in read.failures {
                        reporter.item_failed(&failure.item, &failure.message);
                        summary.failures.push(failure);
                    }
                    summary.skipped.extend(read.skipped);
                    summary.archived += read.archived;
                    units.extend(read.sources.into_iter().map(Unit::Fetched));
                }
                Err(failure) => {
                    reporter.item_failed(&failure.item, &failure.message);
                    summary.failures.push(failure);
                }
            }
        }
        if !urls.is_empty() && !cancel.is_cancelled() {
            reporter.phase("Fetching", Some(urls.len() as u64), ProgressUnit::Items);
            let fetched = self.fetch_all(&urls, &*reporter).await;
            for result in fetched {
                match result {
                    Ok(source) => units.push(Unit::Fetched(source)),
                    Err(failure) => {
                        reporter.item_failed(&failure.item, &failure.message);
                        summary.failures.push(failure);
                    }
                }
            }
        }

        let app = self.clone();
        let fields = self.field_names(&request);
        let summary = tokio::task::spawn_blocking(move || {
            app.import_units(units, &fields, summary, &*reporter, &cancel).map(|mut summary| {
                summary.failed = summary.failures.len() as u64;
                summary.seconds = started.elapsed().as_secs_f64();
                reporter.finish();
                summary
            })
        })
        .await
        .map_err(|error| CoreError::Internal(format!("the import task stopped: {error}")))??;
        tracing::info!(
            imported = summary.imported,
            duplicates = summary.duplicates,
            failed = summary.failed,
            "import finished"
        );
        Ok(summary)
    }

    fn field_names(&self, request: &ImportRequest) -> FieldNames {
        let configured = &self.settings().import.fields;
        let pick = |given: &Option<String>, default: &Vec<String>| {
            given.as_ref().map_or_else(|| default.clone(), |name| vec![name.clone()])
        };
        FieldNames {
            text: pick(&request.text_field, &configured.text),
            title: pick(&request.title_field, &configured.title),
            url: pick(&request.url_field, &configured.url),
            date: pick(&request.date_field, &configured.date),
        }
    }

    async fn fetch_all(
        &self,
        urls: &[String],
        reporter: &dyn Reporter,
    ) -> Vec<std::result::Result<SourceBytes, ImportFailure>> {
        let concurrency = self.settings().fetch.concurrency;
        futures_util::stream::iter(urls.iter().cloned())
            .map(|url| async move {
                let result = self.fetcher().fetch(&url).await;
                reporter.advance(1);
                let page = result.map_err(|error| ImportFailure {
                    item: url.clone(),
                    message: error.to_string(),
                })?;
                let format = format_of_page(
                    page.media_type.as_deref(),
                    &page.final_url,
                    &page.body,
                )
                .ok_or_else(|| ImportFailure {
                    item: url.clone(),
                    message: format!(
                        "{url} is {}, not a page Factdesk can read (HTML, plain text, Markdown or PDF)",
                        page.media_type.as_deref().unwrap_or("of unknown type")
                    ),
                })?;
                Ok(SourceBytes {
                    origin: url.clone(),
                    origin_kind: OriginKind::Url,
                    url: Some(page.final_url.clone()),
                    format,
                    bytes: page.body,
                    declared_charset: page.charset,
                    acquired_at: page.fetched_at,
                    fallback_title: Some(page.final_url),
                })
            })
            .buffered(concurrency.max(1))
            .collect()
            .await
    }

    /// Reads, parses and stores every unit, holding the index's write lock throughout.
    ///
    /// Two stages run at once: this thread reads and parses (parsing itself is spread over
    /// the rayon pool) while a writer thread stores each parsed batch in SQLite and hands its
    /// sentences to the index, whose own threads build segments in the background.
    fn import_units(
        &self,
        units: Vec<Unit>,
        fields: &FieldNames,
        mut summary: ImportSummary,
        reporter: &dyn Reporter,
        cancel: &CancelToken,
    ) -> Result<ImportSummary> {
        let settings = &self.settings().import;
        let corpus_id = self.store()?.ensure_corpus(&summary.corpus)?;
        let mut writer = self.index().writer()?;
        self.index_pending_documents(&mut writer)?;

        let total: u64 = units
            .iter()
            .map(|unit| match unit {
                Unit::File(path) => std::fs::metadata(path).map_or(0, |m| m.len()),
                Unit::Fetched(source) => source.bytes.len() as u64,
            })
            .sum();
        reporter.phase("Importing", Some(total), ProgressUnit::Bytes);
        let options = ParseOptions {
            language: &settings.language,
            fields,
            batch: settings.batch_documents,
            max_record_bytes: usize::try_from(settings.max_record_bytes).unwrap_or(usize::MAX),
            deadline: std::time::Duration::from_secs(settings.file_timeout_secs),
        };

        std::thread::scope(|scope| {
            // One batch may wait while the next is parsed; more would only hold memory.
            let (batches, received) = std::sync::mpsc::sync_channel::<Vec<NewDocument>>(1);
            let stored = scope.spawn(move || {
                let mut staged = StagedIndex {
                    app: self,
                    writer,
                    uncommitted: Vec::new(),
                    uncommitted_bytes: 0,
                    outcome: StagedOutcome::default(),
                };
                let result = received
                    .iter()
                    .try_for_each(|documents| staged.stage(corpus_id, &documents))
                    .and_then(|()| staged.commit());
                match result {
                    Ok(()) => {
                        staged.writer.finish()?;
                        Ok(staged.outcome)
                    }
                    Err(error) => {
                        staged.abort();
                        Err(error)
                    }
                }
            });

            for unit in units {
                if cancel.is_cancelled() {
                    summary.cancelled = true;
                    break;
                }
                let opened = match unit {
                    Unit::Fetched(source) => Ok((source, None)),
                    Unit::File(path) if format_of_path(&path) == Some(DocumentFormat::Jsonl) => {
                        match open_jsonl(&path, settings.max_file_bytes) {
                            Ok((source, reader, size)) => Ok((source, Some((reader, size, path)))),
                            Err(failure) => Err((failure, path)),
                        }
                    }
                    Unit::File(path) => match read_file(&path, settings.max_file_bytes) {
                        Ok(source) => Ok((source, None)),
                        Err(failure) => Err((failure, path)),
                    },
                };
                let (source, stream) = match opened {
                    Ok(opened) => opened,
                    Err((failure, path)) => {
                        reporter.advance(std::fs::metadata(&path).map_or(0, |m| m.len()));
                        reporter.item_failed(&failure.item, &failure.message);
                        summary.failures.push(failure);
                        continue;
                    }
                };
                reporter.working_on(&source.origin);
                let size = stream.as_ref().map_or(source.bytes.len() as u64, |(_, size, _)| *size);
                summary.bytes += size;
                let mut reported = 0u64;
                let mut writer_stopped = false;
                let mut sink = |batch: Vec<Parsed>| {
                    let mut documents: Vec<NewDocument> = Vec::with_capacity(batch.len());
                    for parsed in batch {
                        match parsed {
                            Parsed::Document(document) => documents.push(*document),
                            Parsed::Failed { item, message } => {
                                reporter.item_failed(&item, &message);
                                summary.failures.push(ImportFailure { item, message });
                            }
                        }
                    }
                    let raw_bytes: u64 = documents.iter().map(|d| d.raw.len() as u64 + 1).sum();
                    if !documents.is_empty() && batches.send(documents).is_err() {
                        // The writer stopped on an error; it is reported below.
                        writer_stopped = true;
                        return ControlFlow::Break(());
                    }
                    let step = raw_bytes.min(size.saturating_sub(reported));
                    reported += step;
                    reporter.advance(step);
                    if cancel.is_cancelled() {
                        summary.cancelled = true;
                        return ControlFlow::Break(());
                    }
                    ControlFlow::Continue(())
                };
                match stream {
                    None => parse_source(&source, &options, &mut sink),
                    Some((mut reader, _, path)) => {
                        let read = parse_jsonl_stream(&source, &mut reader, &options, &mut sink);
                        if let Err(error) = read {
                            // Whole lines read before it were imported, as with any bad line.
                            let message = format!(
                                "cannot read it to the end: {error}; the lines read before this \
                                 were imported"
                            );
                            let item = path.display().to_string();
                            reporter.item_failed(&item, &message);
                            summary.failures.push(ImportFailure { item, message });
                        }
                    }
                }
                reporter.advance(size.saturating_sub(reported));
                if writer_stopped {
                    break;
                }
            }
            drop(batches);
            let outcome = stored
                .join()
                .map_err(|_| CoreError::Internal("the import's writer thread panicked".into()))??;
            summary.imported = outcome.imported;
            summary.duplicates = outcome.duplicates;
            summary.sentences = outcome.sentences;
            summary.documents = outcome.documents;
            Ok(summary)
        })
    }
}

/// Sentences of text an import hands to the index before committing it. Between commits
/// the index builds segments in the background while the next batches are parsed and stored.
const INDEX_COMMIT_BYTES: usize = 64 << 20;

/// The index writer of an import, with the documents stored in SQLite whose sentences it has
/// been given but not yet committed.
struct StagedIndex<'a> {
    app: &'a Factdesk,
    writer: SentenceIndexWriter<'a>,
    uncommitted: Vec<DocumentId>,
    uncommitted_bytes: usize,
    outcome: StagedOutcome,
}

/// What the writer stored, for the import summary.
#[derive(Debug, Default)]
struct StagedOutcome {
    imported: u64,
    duplicates: u64,
    sentences: u64,
    documents: Vec<ImportedDocument>,
}

impl StagedIndex<'_> {
    /// Stores a batch in SQLite (one transaction) and hands its sentences to the index,
    /// committing the index when enough text has been staged.
    fn stage(&mut self, corpus_id: CorpusId, documents: &[NewDocument]) -> Result<()> {
        let summary = &mut self.outcome;
        if documents.is_empty() {
            return Ok(());
        }
        let outcomes = self.app.store()?.insert_documents(corpus_id, documents)?;
        for (document, outcome) in documents.iter().zip(outcomes) {
            let (id, duplicate) = match outcome {
                DocumentInsertOutcome::Inserted { document: id, sentence_ids } => {
                    self.uncommitted.push(id);
                    self.uncommitted_bytes += document.text.len();
                    self.writer.delete_document(id);
                    for (span, sentence_id) in document.sentences.iter().zip(sentence_ids) {
                        self.writer.add(SentenceRecord {
                            sentence_id,
                            document_id: id,
                            corpus_id,
                            text: span.slice(&document.text),
                        })?;
                    }
                    summary.imported += 1;
                    summary.sentences += document.sentences.len() as u64;
                    (id, false)
                }
                DocumentInsertOutcome::Duplicate(existing) => {
                    summary.duplicates += 1;
                    (existing, true)
                }
            };
            summary.documents.push(ImportedDocument {
                id,
                origin: document.origin.clone(),
                title: document.title.clone(),
                sentences: document.sentences.len() as u64,
                duplicate,
            });
        }
        if self.uncommitted_bytes >= INDEX_COMMIT_BYTES {
            self.commit()?;
        }
        Ok(())
    }

    /// Commits the index, then marks the staged documents as indexed.
    fn commit(&mut self) -> Result<()> {
        if self.uncommitted.is_empty() {
            return Ok(());
        }
        self.writer.commit()?;
        if let Err(error) = self.app.store()?.mark_indexed(&self.uncommitted) {
            // The documents stay pending and are indexed again by the next write.
            tracing::warn!(%error, "could not mark documents as indexed");
        }
        self.uncommitted.clear();
        self.uncommitted_bytes = 0;
        Ok(())
    }

    /// After a failure: drops what the index was given and takes the staged documents out of
    /// SQLite again, so that nothing is left half-imported.
    fn abort(&mut self) {
        if let Err(error) = self.writer.rollback() {
            tracing::error!(%error, "could not roll back the search index");
        }
        let removed = self.app.store().map_err(|e| e.to_string()).and_then(|mut store| {
            store.delete_documents(&self.uncommitted).map_err(|e| e.to_string())
        });
        if let Err(error) = removed {
            // They stay pending; the next write indexes them.
            tracing::error!(%error, "could not remove documents the index did not take");
        }
        self.uncommitted.clear();
        self.uncommitted_bytes = 0;
    }
}

fn is_url(source: &str) -> bool {
    let lower = source.trim_start().to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

/// Splits sources into files (folders walked recursively, hidden entries skipped) and URLs.
fn expand_sources(sources: &[String], summary: &mut ImportSummary) -> (Vec<PathBuf>, Vec<String>) {
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

fn format_of_path(path: &Path) -> Option<DocumentFormat> {
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
struct CappedReader {
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
fn open_jsonl(
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

fn read_file(path: &Path, max_bytes: u64) -> std::result::Result<SourceBytes, ImportFailure> {
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
