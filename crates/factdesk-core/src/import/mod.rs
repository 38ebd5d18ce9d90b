//! Corpus import: files, folders (recursively) and http(s) URLs into a corpus. Each document
//! is imported whole or not at all; a bad file, line, row or URL is reported by name and the
//! import goes on with the rest. Re-running an import skips what is already there (documents
//! are deduplicated by content hash), so an interrupted import is resumed by running it again.
//!
//! `mod.rs` runs an import and stages its documents into the store and the index;
//! `files.rs` finds the files of the sources and reads them within the size limit.

mod files;

pub(crate) use files::{format_of_page, open_capped, read_capped};

use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use factdesk_index::{SentenceIndexWriter, SentenceRecord};
use factdesk_model::{CorpusId, DocumentFormat, DocumentId, OriginKind};
use factdesk_store::{DocumentInsertOutcome, NewDocument};
use futures_util::StreamExt;
use serde::Serialize;

use self::files::{expand_sources, format_of_path, is_archive_path, open_jsonl, read_file};
use crate::formats::FieldNames;
use crate::formats::{
    Languages, ParseOptions, Parsed, SourceBytes, parse_jsonl_stream, parse_source,
};
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
    /// The language of every document imported (an ISO 639-1 code such as `de`), instead of
    /// the one detected in each text.
    pub language: Option<String>,
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
        if let Some(language) = &request.language {
            check_language_code(language, "--language")?;
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
        let language = request.language.clone();
        let summary = tokio::task::spawn_blocking(move || {
            let language = language.as_deref();
            app.import_units(units, language, &fields, summary, &*reporter, &cancel).map(
                |mut summary| {
                    summary.failed = summary.failures.len() as u64;
                    summary.seconds = started.elapsed().as_secs_f64();
                    reporter.finish();
                    summary
                },
            )
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
        language: Option<&str>,
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
            language: Languages { default: &settings.language, given: language },
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
                    default_language: &settings.language,
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
    /// The language of a document stored without one.
    default_language: &'a str,
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
                    let language = document.language.as_deref().unwrap_or(self.default_language);
                    let mut own_languages = document.sentence_languages.iter().peekable();
                    for (ordinal, (span, sentence_id)) in
                        document.sentences.iter().zip(sentence_ids).enumerate()
                    {
                        // A sentence in another language than its document's is analysed in it.
                        let own = own_languages.next_if(|(at, _)| *at == ordinal);
                        self.writer.add(SentenceRecord {
                            sentence_id,
                            document_id: id,
                            corpus_id,
                            text: span.slice(&document.text),
                            language: own.map_or(language, |(_, code)| code.as_str()),
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

/// Checks that `code` is a language code (two or three lower-case letters, ISO 639-1 or 639-3),
/// naming the `what` it was given as when it is not.
pub(crate) fn check_language_code(code: &str, what: &str) -> Result<()> {
    let letters = code.len();
    if (2..=3).contains(&letters) && code.bytes().all(|b| b.is_ascii_lowercase()) {
        return Ok(());
    }
    Err(CoreError::InvalidInput(format!(
        "{what} '{code}' is not a language code; use an ISO 639-1 code such as en, de, fr or zh"
    )))
}
