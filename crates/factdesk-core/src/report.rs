//! Reports: a collection's claims with their newest checks and reviews, exported through
//! `factdesk-report` (Markdown, HTML, JSON, CSV, ClaimReview JSON-LD). A file is written next
//! to its destination and renamed into place, so a failed export leaves no half-written file.

use std::io::Write;
use std::path::Path;

pub use factdesk_report::Format;
use factdesk_report::{Report, ReportItem};

use crate::{CoreError, Factdesk, Result};

impl Factdesk {
    /// The report of `collection`: every claim with its newest check and latest review.
    pub fn report(&self, collection: &str) -> Result<Report> {
        let items = self
            .collection_checks(collection)?
            .into_iter()
            .map(|entry| ReportItem::for_claim(&entry.claim, entry.check))
            .collect();
        Ok(Report {
            title: collection.to_owned(),
            generated_at: factdesk_model::now_rfc3339(),
            generator: format!("Factdesk {}", env!("CARGO_PKG_VERSION")),
            items,
        })
    }

    /// Writes the report of `collection` in `format` to `out`.
    pub fn write_report(
        &self,
        collection: &str,
        format: Format,
        out: &mut dyn Write,
    ) -> Result<()> {
        let report = self.report(collection)?;
        factdesk_report::render(&report, format, out)
            .map_err(|error| CoreError::Internal(error.to_string()))
    }

    /// Writes the report of `collection` to `path`, all or nothing.
    pub fn write_report_file(&self, collection: &str, format: Format, path: &Path) -> Result<()> {
        let report = self.report(collection)?;
        let io = |source| CoreError::Io { path: path.to_path_buf(), source };
        let directory = match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent,
            _ => Path::new("."),
        };
        let mut file = tempfile::NamedTempFile::new_in(directory).map_err(io)?;
        factdesk_report::render(&report, format, &mut file).map_err(|error| match error {
            factdesk_report::ReportError::Io(source) => io(source),
            other => CoreError::Internal(other.to_string()),
        })?;
        file.flush().map_err(io)?;
        file.persist(path).map_err(|error| io(error.error))?;
        Ok(())
    }
}
