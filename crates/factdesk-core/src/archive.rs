//! The page archive in and out of the formats web archivists use: every fetched page (or the
//! pages behind a collection's checks) exported as a WACZ package, and WARC/WACZ files read
//! into a corpus and into the archive, so that offline checks are served their pages.
//!
//! This module orders the store, the text extraction and `factdesk-archive`; it holds no SQL
//! and no record format of its own.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use factdesk_archive::{Package, PageToArchive};
use factdesk_model::{OriginKind, now_rfc3339};
use factdesk_store::{CheckFilter, FetchOutcome, NewFetch, NewPage};
use serde::Serialize;

use crate::formats::SourceBytes;
use crate::import::ImportFailure;
use crate::{CoreError, Factdesk, Result};

/// What an export wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct ArchiveExport {
    pub path: PathBuf,
    /// Pages written (each address and content once).
    pub pages: u64,
    /// The package's size in bytes.
    pub bytes: u64,
}

/// What a WARC or WACZ file gave an import.
pub(crate) struct ReadArchive {
    /// The pages, as sources to import into the corpus.
    pub sources: Vec<SourceBytes>,
    /// Records that could not be read or archived.
    pub failures: Vec<ImportFailure>,
    /// Records of pages Factdesk does not read (images, scripts, style sheets…), by location.
    pub skipped: Vec<String>,
    /// Pages newly added to the page archive.
    pub archived: u64,
}

/// A page read from a web archive, for the aliases that name it.
struct ImportedPage {
    url: String,
    content_hash: String,
    media_type: Option<String>,
    title: Option<String>,
    /// The digest a WARC record states for the page's body.
    digest: String,
}

impl Factdesk {
    /// Writes the page archive as a WACZ package to `path`, all or nothing: every page fetched
    /// from the network, or with `collection` only the pages the checks of its claims read.
    /// Each address and content is written once, as first fetched.
    pub fn export_archive(&self, path: &Path, collection: Option<&str>) -> Result<ArchiveExport> {
        let store = self.store()?;
        let mut archived = store.pages_to_export()?;
        let aliases = store.fetch_aliases()?;
        let title = match collection {
            Some(name) => {
                let id = store.collection_id(name)?;
                let checks = store
                    .checks(&CheckFilter { collection: Some(id), ..CheckFilter::default() })?;
                let read: HashSet<String> = checks
                    .iter()
                    .flat_map(|stored| {
                        let check = &stored.check;
                        check.sources.iter().chain(check.attributions.iter().map(|a| &a.source))
                    })
                    .filter_map(|source| source.content_hash.clone())
                    .collect();
                archived.retain(|page| read.contains(&page.page.content_hash));
                format!("Pages behind the checks of \"{name}\"")
            }
            None => "Factdesk page archive".to_owned(),
        };
        drop(store);
        if archived.is_empty() {
            return Err(CoreError::InvalidInput(match collection {
                Some(name) => format!(
                    "the checks of \"{name}\" read no archived web page, so there is nothing to \
                     export"
                ),
                None => "the page archive is empty: no page was fetched yet".into(),
            }));
        }
        let pages: Vec<PageToArchive> = archived
            .into_iter()
            .map(|archived| {
                let url = archived.fetch.final_url.unwrap_or(archived.fetch.url);
                let requested_as = aliases
                    .iter()
                    .filter(|(to, hash, _)| *to == url && *hash == archived.page.content_hash)
                    .map(|(_, _, from)| from.clone())
                    .collect();
                PageToArchive {
                    url,
                    fetched_at: archived.fetch.fetched_at,
                    media_type: archived.page.media_type,
                    title: archived.page.title,
                    body: archived.page.body,
                    requested_as,
                }
            })
            .collect();
        let package = Package {
            title,
            software: format!("Factdesk {}", env!("CARGO_PKG_VERSION")),
            created: now_rfc3339(),
        };
        let mut bytes = std::io::Cursor::new(Vec::new());
        let written = factdesk_archive::write_wacz(&mut bytes, &package, &pages)
            .map_err(|error| CoreError::Internal(error.to_string()))?;
        let bytes = bytes.into_inner();
        self.write_atomically(path, |out| Ok(out.write_all(&bytes)?))?;
        Ok(ArchiveExport {
            path: path.to_path_buf(),
            pages: written.pages as u64,
            bytes: bytes.len() as u64,
        })
    }

    /// Reads a WARC, WARC.gz or WACZ file for an import: each page record becomes a source for
    /// the corpus and, unless the archive has it already, a page of the archive (recorded as
    /// fetched at the record's date). A record that cannot be read, or whose page has no text,
    /// is a failure of its own; an `Err` is a file that cannot be read as an archive at all.
    pub(crate) fn read_web_archive(
        &self,
        path: &Path,
    ) -> std::result::Result<ReadArchive, ImportFailure> {
        let name = path.display().to_string();
        let fail = |message: String| ImportFailure { item: name.clone(), message };
        let bytes = crate::import::read_capped(path, self.settings().import.max_file_bytes)
            .map_err(&fail)?;
        let contents =
            factdesk_archive::read_archive(&name, &bytes, self.settings().import.max_file_bytes)
                .map_err(|error| fail(error.to_string()))?;
        drop(bytes);
        let mut read = ReadArchive {
            sources: Vec::new(),
            failures: contents
                .problems
                .into_iter()
                .map(|problem| ImportFailure { item: problem.location, message: problem.message })
                .collect(),
            skipped: Vec::new(),
            archived: 0,
        };
        let store_failure = |error: factdesk_store::StoreError| fail(error.to_string());
        // The pages of this file, for its aliases.
        let mut imported: Vec<ImportedPage> = Vec::new();
        for record in contents.pages {
            let url = match factdesk_fetch::normalise_url(&record.url) {
                Ok(url) => url,
                Err(error) => {
                    read.failures.push(ImportFailure {
                        item: record.location,
                        message: format!("its address cannot be used: {error}"),
                    });
                    continue;
                }
            };
            let Some(format) =
                crate::import::format_of_page(record.media_type.as_deref(), &url, &record.body)
            else {
                read.skipped.push(record.location);
                continue;
            };
            let extracted =
                crate::formats::page_text(&record.body, format, record.charset.as_deref());
            let (_, extracted) = match extracted {
                Ok(extracted) => extracted,
                Err(error) => {
                    read.failures.push(ImportFailure {
                        item: record.location,
                        message: format!("{url}: {error}"),
                    });
                    continue;
                }
            };
            let content_hash = factdesk_text::content_hash(&record.body);
            imported.push(ImportedPage {
                url: url.clone(),
                content_hash: content_hash.clone(),
                media_type: record.media_type.clone(),
                title: extracted.title.clone(),
                digest: factdesk_archive::block_digest(&record.body),
            });
            let mut store = self.store().map_err(|error| fail(error.to_string()))?;
            if !store.has_capture(&url, &content_hash).map_err(store_failure)? {
                store
                    .record_fetch(&NewFetch {
                        run_id: None,
                        url: url.clone(),
                        final_url: Some(url.clone()),
                        status: None,
                        media_type: record.media_type.clone(),
                        title: extracted.title.clone(),
                        via_api: false,
                        fetched_at: record.archived_at.clone(),
                        elapsed_ms: 0,
                        outcome: FetchOutcome::Fetched(NewPage {
                            content_hash,
                            media_type: record.media_type.clone(),
                            body: record.body.clone(),
                            text: extracted.text,
                            title: extracted.title,
                        }),
                    })
                    .map_err(store_failure)?;
                read.archived += 1;
            }
            read.sources.push(SourceBytes {
                origin: record.location,
                origin_kind: OriginKind::File,
                url: Some(url.clone()),
                format,
                bytes: record.body,
                declared_charset: record.charset,
                acquired_at: record.archived_at,
                fallback_title: Some(url),
            });
        }
        // Another address of a page of this file is recorded as a fetch of that address that
        // gave the page, so an offline check that asks for it is served the page.
        for alias in contents.aliases {
            // The page it names: by address, and by digest when it states one (an address may
            // have been captured more than once).
            let to = factdesk_fetch::normalise_url(&alias.refers_to).ok();
            let page = imported.iter().find(|page| {
                Some(&page.url) == to.as_ref()
                    && alias.payload_digest.as_deref().is_none_or(|stated| {
                        // A SHA-1 is compared; another algorithm leaves the address to decide.
                        !stated.to_ascii_lowercase().starts_with("sha1:")
                            || stated.eq_ignore_ascii_case(&page.digest)
                    })
            });
            let (Some(page), Ok(from)) = (page, factdesk_fetch::normalise_url(&alias.url)) else {
                read.skipped.push(alias.location);
                continue;
            };
            let mut store = self.store().map_err(|error| fail(error.to_string()))?;
            if store.has_capture(&from, &page.content_hash).map_err(store_failure)? {
                continue;
            }
            store
                .record_fetch(&NewFetch {
                    run_id: None,
                    url: from,
                    final_url: Some(page.url.clone()),
                    status: None,
                    media_type: page.media_type.clone(),
                    title: page.title.clone(),
                    via_api: false,
                    fetched_at: alias.archived_at,
                    elapsed_ms: 0,
                    outcome: FetchOutcome::SamePageAs { content_hash: page.content_hash.clone() },
                })
                .map_err(store_failure)?;
        }
        Ok(read)
    }
}
