//! Exports of checked claims: a [`Report`] (a titled list of claims, each with its stored check
//! or none yet) rendered as Markdown, a standalone HTML page, complete JSON, a CSV table, or
//! schema.org `ClaimReview` JSON-LD; and of revised passages: a [`RevisionReport`] rendered as
//! Markdown, HTML or JSON ([`render_revisions`]); and of scored structured summaries: a
//! [`ScoreReport`] with each summary's X(l) curve, as Markdown, HTML or JSON ([`render_scores`]);
//! and of summaries written from several sources: a [`SourcedReport`] with each source's score
//! and the stance matrix, as Markdown, HTML or JSON ([`render_sourced`]).
//!
//! This crate owns how a verdict is presented outside the application, and the escaping that
//! keeps text taken from the web or from users (claim text, page titles, URLs, sentences,
//! comments) inert in every format. It does no I/O besides writing to the writer it is handed:
//! no files, no SQL, no network. The caller (the core) gathers claims and checks from the store.
//!
//! Every format keeps the machine verdict and, beside it, the latest human review; a review never
//! replaces the machine verdict, it is shown next to it. Claims without a check read `unchecked`
//! (and are left out of ClaimReview, which describes reviews only).
//!
//! The JSON export holds each stored check as Factdesk writes it today, whichever version
//! stored it: what only its method keeps is its `detail`, tagged by the method (`{"method":
//! "llm-cite", "urls": [...]}`, `{"method": "ciber", ...}`), and a method that keeps nothing
//! of its own has none. Exports of earlier versions had `urls` on every check and `ciber` on
//! CIBER's instead.

mod charts;
mod ciber;
mod claim_review;
mod csv_table;
pub mod dashboard;
mod escape;
mod facts;
mod html;
mod markdown;
mod revisions;
mod scores;
mod sourced;
mod templates;

use std::fmt;
use std::io::Write;
use std::str::FromStr;

use factdesk_model::{
    Claim, ClaimId, ClaimLabel, EvidenceSource, ReviewDecision, StoredCheck, UnknownValue,
    UrlStatus, Verdict,
};
use serde::{Deserialize, Serialize};

pub use claim_review::{ClaimReviewRating, rating_for};
pub use csv_table::COLUMNS as CSV_COLUMNS;
pub use escape::{escape_html, escape_markdown, guard_spreadsheet_cell, is_web_link};
pub use facts::deciding_premise;
pub use revisions::{RevisionReport, render_revisions};
pub use scores::{ScoreReport, ScoredSummary, render_scores};
pub use sourced::{SourcedReport, render_sourced};

/// What to export: a title, when and by what it was generated, and the claims.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// What the report covers, e.g. the collection name.
    pub title: String,
    /// When the report was generated (RFC 3339).
    pub generated_at: String,
    /// What generated it, e.g. `Factdesk 0.1.0`.
    pub generator: String,
    pub items: Vec<ReportItem>,
    /// The collection's dashboard, drawn as charts in the HTML form (not part of the report's
    /// content: never written in its JSON); none leaves the charts out.
    #[serde(skip)]
    pub dashboard: Option<dashboard::Dashboard>,
    /// Who publishes the ClaimReview form, and which checks it holds (not part of the
    /// report's content: never written in its JSON).
    #[serde(skip)]
    pub publishing: Publishing,
}

/// How a report's ClaimReview objects are published: by the newsroom, of the claims a person
/// reviewed unless machine verdicts are asked for too.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Publishing {
    /// The author of every review; ClaimReview is refused without one.
    pub newsroom: Option<Newsroom>,
    /// Also the checks no person reviewed, each marked as a machine verdict.
    pub machine_verdicts: bool,
}

/// A newsroom as ClaimReview names its author (a schema.org `Organization`).
#[derive(Debug, Clone, PartialEq)]
pub struct Newsroom {
    pub name: String,
    /// Its web site.
    pub url: Option<String>,
}

/// One claim of a report and its latest check.
///
/// The claim is described by its text and the few fields a report shows, so a check of an
/// ad-hoc claim (one that belongs to no collection) can be exported too.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReportItem {
    /// The stored claim's id; none for an ad-hoc claim.
    pub claim_id: Option<ClaimId>,
    /// The claim as written.
    #[serde(rename = "claim")]
    pub claim_text: String,
    pub tags: Vec<String>,
    pub gold_label: Option<ClaimLabel>,
    /// When the claim was made (YYYY-MM-DD), if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claimed_on: Option<String>,
    /// The check, as stored, with its review; none when the claim was not checked yet.
    pub check: Option<StoredCheck>,
}

impl ReportItem {
    /// An item for a stored claim and its latest check, if any.
    pub fn for_claim(claim: &Claim, check: Option<StoredCheck>) -> Self {
        ReportItem {
            claim_id: Some(claim.id),
            claim_text: claim.text.clone(),
            tags: claim.tags.clone(),
            gold_label: claim.gold_label,
            claimed_on: claim.claimed_on.clone(),
            check,
        }
    }

    /// An item for a check of an ad-hoc claim: the claim text is the one the check was given.
    pub fn for_ad_hoc_check(check: StoredCheck) -> Self {
        ReportItem {
            claim_id: check.claim_id,
            claim_text: check.check.claim.clone(),
            tags: Vec::new(),
            gold_label: None,
            claimed_on: None,
            check: Some(check),
        }
    }

    /// The verdict a reader should act on: the reviewer's when the check was reviewed, else the
    /// machine's; none when unchecked. The machine verdict itself stays in the check.
    pub fn verdict_after_review(&self) -> Option<Verdict> {
        let stored = self.check.as_ref()?;
        Some(stored.review.as_ref().map_or(stored.check.verdict, |review| review.verdict))
    }
}

/// The export formats. Their serde names are the ones the desktop window sends (`md`,
/// `claimreview`; `markdown` and `claim_review` are read too), and the UI's `ReportFormat` type
/// is generated from this enum: the one list of report formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
#[ts(rename = "ReportFormat")]
pub enum Format {
    /// A Markdown document: heading, summary table, one section per claim.
    #[serde(rename = "md", alias = "markdown")]
    Markdown,
    /// A standalone HTML page with inline CSS, no scripts and no external resources.
    Html,
    /// The whole report as pretty-printed JSON, checks exactly as stored.
    Json,
    /// One row per claim, for spreadsheets.
    Csv,
    /// schema.org `ClaimReview` objects as a JSON-LD array, one per checked claim.
    #[serde(alias = "claim_review")]
    ClaimReview,
}

impl Format {
    pub const ALL: [Format; 5] =
        [Format::Markdown, Format::Html, Format::Json, Format::Csv, Format::ClaimReview];

    /// The formats of the reports that are one page (a summary's, a revision's, SGSS's scores):
    /// the others are refused for them ([`ReportError::Unsupported`]).
    pub const PAGES: [Format; 3] = [Format::Markdown, Format::Html, Format::Json];

    pub fn as_str(self) -> &'static str {
        match self {
            Format::Markdown => "markdown",
            Format::Html => "html",
            Format::Json => "json",
            Format::Csv => "csv",
            Format::ClaimReview => "claimreview",
        }
    }

    /// The file extension for an export in this format, without the dot.
    pub fn file_extension(self) -> &'static str {
        match self {
            Format::Markdown => "md",
            Format::Html => "html",
            Format::Json => "json",
            Format::Csv => "csv",
            Format::ClaimReview => "jsonld",
        }
    }

    /// The media type of an export in this format.
    pub fn media_type(self) -> &'static str {
        match self {
            Format::Markdown => "text/markdown; charset=utf-8",
            Format::Html => "text/html; charset=utf-8",
            Format::Json => "application/json",
            Format::Csv => "text/csv; charset=utf-8",
            Format::ClaimReview => "application/ld+json",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Format {
    type Err = UnknownValue;

    /// Accepts `md`/`markdown`, `html`/`htm`, `json`, `csv` and `claimreview` (also
    /// `claim-review`, `claim_review`, `jsonld`), case-insensitive.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "md" | "markdown" => Ok(Format::Markdown),
            "html" | "htm" => Ok(Format::Html),
            "json" => Ok(Format::Json),
            "csv" => Ok(Format::Csv),
            "claimreview" | "claim-review" | "claim_review" | "jsonld" => Ok(Format::ClaimReview),
            _ => Err(UnknownValue {
                kind: "report format",
                value: s.to_owned(),
                expected: "md, markdown, html, json, csv, claimreview",
            }),
        }
    }
}

/// Why a report could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// The writer refused the bytes (disk full, closed pipe, …).
    #[error("could not write the report: {0}")]
    Io(#[from] std::io::Error),
    #[error("could not write the report as JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("could not write the report as CSV: {0}")]
    Csv(#[from] csv::Error),
    /// The format has no form for this kind of report.
    #[error("{what} are exported as md, html or json, not {format}")]
    Unsupported { format: Format, what: &'static str },
    /// ClaimReview names the newsroom as the author of every review, and none was given.
    #[error(
        "ClaimReview names your newsroom as the author of every review: set its name (and \
         site) as newsroom and url under [publish] in the settings (`factdesk config --path` \
         shows the file; the app's Settings has the fields)"
    )]
    NoNewsroom,
}

/// Writes `report` to `out` in `format`.
pub fn render(report: &Report, format: Format, out: &mut dyn Write) -> Result<(), ReportError> {
    match format {
        Format::Markdown => markdown::write_markdown(report, out)?,
        Format::Html => html::write_html(report, out)?,
        Format::Json => templates::write_json(report, out)?,
        Format::Csv => csv_table::write_csv(report, out)?,
        Format::ClaimReview => templates::write_json(&claim_review::claim_reviews(report)?, out)?,
    }
    out.flush()?;
    Ok(())
}

/// [`render`] into a string.
pub fn render_to_string(report: &Report, format: Format) -> Result<String, ReportError> {
    let mut bytes = Vec::new();
    render(report, format, &mut bytes)?;
    // Every format writes only `str` data, so the bytes are UTF-8.
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// Counts for a report's summary table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub claims: usize,
    pub unchecked: usize,
    /// Claims per machine verdict, in [`Verdict::ALL`] order.
    pub machine_verdicts: Vec<(Verdict, usize)>,
    /// Claims per verdict after review (the reviewer's verdict where there is one), in
    /// [`Verdict::ALL`] order.
    pub verdicts_after_review: Vec<(Verdict, usize)>,
    /// Checked claims with a human review.
    pub reviewed: usize,
    /// Reviews that overrode the machine verdict.
    pub overridden: usize,
}

impl Report {
    /// Counts per verdict, before and after review, and how many claims were reviewed.
    pub fn summary(&self) -> Summary {
        let zeroes = || Verdict::ALL.map(|verdict| (verdict, 0)).to_vec();
        let mut summary = Summary {
            claims: self.items.len(),
            unchecked: 0,
            machine_verdicts: zeroes(),
            verdicts_after_review: zeroes(),
            reviewed: 0,
            overridden: 0,
        };
        let bump = |counts: &mut Vec<(Verdict, usize)>, verdict: Verdict| {
            if let Some((_, count)) = counts.iter_mut().find(|(counted, _)| *counted == verdict) {
                *count += 1;
            }
        };
        for item in &self.items {
            let Some(stored) = &item.check else {
                summary.unchecked += 1;
                continue;
            };
            bump(&mut summary.machine_verdicts, stored.check.verdict);
            match &stored.review {
                Some(review) => {
                    bump(&mut summary.verdicts_after_review, review.verdict);
                    summary.reviewed += 1;
                    if review.decision == ReviewDecision::Override {
                        summary.overridden += 1;
                    }
                }
                None => bump(&mut summary.verdicts_after_review, stored.check.verdict),
            }
        }
        summary
    }
}

/// The word shown for a claim that has no check yet.
pub(crate) const UNCHECKED: &str = "unchecked";

/// A probability or confidence as people read it: three decimals.
pub(crate) fn format_probability(value: f64) -> String {
    format!("{value:.3}")
}

/// How a source is named when it has no URL: the local corpus document it came from.
pub(crate) fn source_location(source: &EvidenceSource) -> String {
    match (&source.url, source.document_id) {
        (Some(url), _) => url.clone(),
        (None, Some(document)) => format!("corpus document {document}"),
        (None, None) => "unknown source".to_owned(),
    }
}

/// The sources that hold text addressed to AI systems (left out of the premises), each named
/// as [`source_location`] names it, with how many of its sentences were left out: "corpus
/// document 3 (2 sentences)".
pub(crate) fn flagged_sources(check: &factdesk_model::ClaimCheck) -> Vec<String> {
    let mut flagged: Vec<(usize, usize)> = Vec::new();
    for left in &check.left_out {
        match flagged.iter_mut().find(|(source, _)| *source == left.source) {
            Some((_, count)) => *count += 1,
            None => flagged.push((left.source, 1)),
        }
    }
    flagged
        .into_iter()
        .map(|(source, count)| {
            let name = check
                .sources
                .get(source)
                .map_or_else(|| format!("source {}", source + 1), source_location);
            format!("{name} ({count} sentence{})", if count == 1 { "" } else { "s" })
        })
        .collect()
}

/// The check's evidence that is old for its claim, for people: "Title: location (published
/// 2019-03-01, 3 years before the claim's date (2022-05-10))".
pub(crate) fn stale_sources(stored: &StoredCheck) -> Vec<String> {
    stored
        .stale
        .iter()
        .map(|stale| {
            let location = source_location(&stale.source());
            let name = match &stale.title {
                Some(title) if !title.trim().is_empty() => format!("{title}: {location}"),
                _ => location,
            };
            format!("{name} ({})", stale.note)
        })
        .collect()
}

/// Words for what happened to a proposed URL.
pub(crate) fn url_status_label(status: UrlStatus) -> &'static str {
    match status {
        UrlStatus::Fetched => "fetched",
        UrlStatus::NotFound => "not found",
        UrlStatus::Invalid => "invalid",
        UrlStatus::Refused => "refused",
        UrlStatus::Failed => "failed",
        UrlStatus::Skipped => "skipped",
    }
}
