//! Reports: a collection's claims with their newest checks and reviews, exported through
//! `factdesk-report` (Markdown, HTML, JSON, CSV, ClaimReview JSON-LD), and its passages'
//! revisions (Markdown, HTML, JSON). A file is written next
//! to its destination and renamed into place, so a failed export leaves no half-written file.

use std::io::Write;
use std::path::{Path, PathBuf};

use factdesk_model::{Outcome, StoredOutcome};
pub use factdesk_report::Format;
use factdesk_report::{Publishing, Report, ReportError, ReportItem, RevisionReport};

use crate::verify::CheckSelection;
use crate::{CoreError, Factdesk, Result};

/// A report error as the core's: the writer's failure names where it wrote, a format the
/// report has no form for is the caller's mistake.
fn report_error(error: ReportError, path: impl FnOnce() -> PathBuf) -> CoreError {
    match error {
        ReportError::Io(source) => CoreError::Io { path: path(), source },
        error @ (ReportError::Unsupported { .. } | ReportError::NoNewsroom) => {
            CoreError::InvalidInput(error.to_string())
        }
        other => CoreError::Internal(other.to_string()),
    }
}

impl Factdesk {
    /// The report of `collection`: every claim with its newest check that `selection` selects
    /// (of one method, of one run), and that check's latest review, with the collection's
    /// dashboard (charted in the HTML form). The title names the selection.
    pub fn report(&self, collection: &str, selection: &CheckSelection) -> Result<Report> {
        let items: Vec<ReportItem> = self
            .collection_checks(collection, selection)?
            .into_iter()
            .map(|entry| ReportItem::for_claim(&entry.claim, entry.check))
            .collect();
        let dashboard = self.dashboard_of(collection, selection, &items)?;
        let mut title = collection.to_owned();
        if let Some(method) = selection.method {
            title.push_str(&format!(" · {}", method.as_str()));
        }
        if let Some(run) = selection.run {
            title.push_str(&format!(" · run {run}"));
        }
        Ok(Report {
            title,
            generated_at: factdesk_model::now_rfc3339(),
            generator: format!("Factdesk {}", env!("CARGO_PKG_VERSION")),
            items,
            dashboard: Some(dashboard),
            publishing: Publishing {
                newsroom: self.settings().publish.newsroom(),
                machine_verdicts: false,
            },
        })
    }

    /// Writes the report of `collection` in `format` to `out`; its ClaimReview form holds the
    /// claims a person reviewed, and the others too, marked, with `machine_verdicts`.
    pub fn write_report(
        &self,
        collection: &str,
        selection: &CheckSelection,
        format: Format,
        machine_verdicts: bool,
        out: &mut dyn Write,
    ) -> Result<()> {
        let mut report = self.report(collection, selection)?;
        report.publishing.machine_verdicts = machine_verdicts;
        factdesk_report::render(&report, format, out)
            .map_err(|error| report_error(error, || PathBuf::from("(standard output)")))
    }

    /// Writes the report of `collection` to `path` (as [`Self::write_report`]), all or nothing:
    /// to a new file beside it, renamed over it when complete. A link at `path` is written
    /// through, not replaced; a folder, a missing folder or a file of the data directory itself
    /// is refused.
    pub fn write_report_file(
        &self,
        collection: &str,
        selection: &CheckSelection,
        format: Format,
        machine_verdicts: bool,
        path: &Path,
    ) -> Result<()> {
        let mut report = self.report(collection, selection)?;
        report.publishing.machine_verdicts = machine_verdicts;
        self.write_atomically(path, |out| factdesk_report::render(&report, format, out))
    }

    /// The revisions of `collection`'s passages that `selection` selects (of one method, of one
    /// run; all by default), oldest first.
    pub fn revision_report(
        &self,
        collection: &str,
        selection: &CheckSelection,
    ) -> Result<RevisionReport> {
        let items: Vec<StoredOutcome> = self
            .outcomes(collection, selection)?
            .into_iter()
            .filter(|stored| matches!(stored.outcome, Outcome::Revision(_)))
            .collect();
        Ok(RevisionReport {
            title: format!("{collection} · revisions"),
            generated_at: factdesk_model::now_rfc3339(),
            generator: format!("Factdesk {}", env!("CARGO_PKG_VERSION")),
            items,
        })
    }

    /// Writes the revisions of `collection` in `format` (md, html or json) to `out`.
    pub fn write_revision_report(
        &self,
        collection: &str,
        selection: &CheckSelection,
        format: Format,
        out: &mut dyn Write,
    ) -> Result<()> {
        let report = self.revision_report(collection, selection)?;
        factdesk_report::render_revisions(&report, format, out)
            .map_err(|error| report_error(error, || PathBuf::from("(standard output)")))
    }

    /// Writes the revisions of `collection` to `path`, all or nothing (as
    /// [`Self::write_report_file`]).
    pub fn write_revision_report_file(
        &self,
        collection: &str,
        selection: &CheckSelection,
        format: Format,
        path: &Path,
    ) -> Result<()> {
        let report = self.revision_report(collection, selection)?;
        // A format revisions have no form for fails before a byte is written; the temporary
        // file is then removed and `path` left as it was.
        self.write_atomically(path, |out| factdesk_report::render_revisions(&report, format, out))
    }

    /// Writes the text people keep of revision `id` (every edit not rejected) to `path` as
    /// plain UTF-8, all or nothing.
    pub fn write_kept_text_file(&self, id: factdesk_model::CheckId, path: &Path) -> Result<()> {
        let kept = self.revision(id)?.accepted_text;
        self.write_atomically(path, |out| {
            out.write_all(kept.as_bytes())?;
            out.write_all(b"\n")?;
            Ok(())
        })
    }

    /// Writes what `render` gives to `path`: to a new file beside it, renamed over it when
    /// complete.
    pub(crate) fn write_atomically(
        &self,
        path: &Path,
        render: impl FnOnce(&mut dyn Write) -> std::result::Result<(), ReportError>,
    ) -> Result<()> {
        let path = &self.report_target(path)?;
        let io = |source| CoreError::Io { path: path.to_path_buf(), source };
        let directory = match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent,
            _ => Path::new("."),
        };
        let mut builder = tempfile::Builder::new();
        builder.prefix(".factdesk-report-");
        // As a new file would have (the process umask applies), not the temp file's 0600.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            builder.permissions(std::fs::Permissions::from_mode(0o666));
        }
        let mut file = builder.tempfile_in(directory).map_err(io)?;
        render(&mut file).map_err(|error| report_error(error, || path.to_path_buf()))?;
        file.flush().map_err(io)?;
        file.persist(path).map_err(|error| io(error.error))?;
        Ok(())
    }

    /// Where a file written for `path` (a report, an archive export) goes, or why it cannot go
    /// there.
    fn report_target(&self, path: &Path) -> Result<PathBuf> {
        let invalid = |why: String| CoreError::InvalidInput(format!("{}: {why}", path.display()));
        let target = match std::fs::symlink_metadata(path) {
            Ok(meta) if meta.file_type().is_symlink() => std::fs::canonicalize(path)
                .map_err(|source| CoreError::Io { path: path.to_path_buf(), source })?,
            _ => path.to_path_buf(),
        };
        if target.is_dir() {
            return Err(invalid("is a folder; name a file to write to".into()));
        }
        let folder = match target.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let Ok(folder) = std::fs::canonicalize(&folder) else {
            return Err(invalid(format!(
                "the folder {} does not exist; create it or write the file elsewhere",
                folder.display()
            )));
        };
        let data_dir = std::fs::canonicalize(self.data_dir())
            .unwrap_or_else(|_| self.data_dir().to_path_buf());
        let name = target.file_name().and_then(std::ffi::OsStr::to_str).unwrap_or_default();
        // The database with its -wal and -shm files, the index, the config file, the logs.
        let own = name.starts_with(crate::DATABASE_FILE)
            || [crate::INDEX_DIR, "config.toml", "logs"].contains(&name);
        if folder == data_dir && own {
            return Err(invalid(
                "is one of Factdesk's own files in its data directory; write the file elsewhere"
                    .into(),
            ));
        }
        Ok(target)
    }
}
