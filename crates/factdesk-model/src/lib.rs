//! Factdesk's domain types: corpora, documents, sentences, claim collections, claims, runs and
//! checks (verdicts with their evidence, in [`check`]), with their ids and the small enums that
//! the store, the index, the methods and the shells share. This crate does no I/O and knows nothing about SQL, tantivy or the network; it only
//! names things and validates their textual forms.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

macro_rules! id_type {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ts_rs::TS)]
        #[serde(transparent)]
        pub struct $name(pub i64);

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }
    };
}

pub mod check;
mod check_shapes;
pub mod ciber;
pub mod cite;
pub mod detail;
pub use detail::MethodDetail;
mod envelope;
pub use check::{
    Attribution, CheckId, ClaimCheck, EvidenceSource, LeftOut, PremiseCheck, ProposedUrl, Review,
    ReviewDecision, ReviewId, StaleEvidence, StoredCheck, TokenCount, TokenUse, Undecided,
    UrlStatus, page_label, stale_evidence,
};
pub mod facts;
mod method_settings;
pub use facts::{FactAlignment, FactKind, FactPair};
pub mod fetch;
pub mod outcome;
pub mod parameters;
pub use parameters::MethodParameters;
mod passage;
pub use fetch::{ArchivedPage, FetchId, FetchRecord, StoredPage};
pub use outcome::{
    Edit, EditDecision, Envelope, EvidenceSentences, JudgeScore, NewPassage, Outcome, OutcomeKind,
    Passage, PassageId, PassageKind, RejectedChange, Revision, RevisionMetrics, ScoreRow,
    ScoreTable, ScoredSource, SourceClaims, SourceReview, SourcedSummary, StoredOutcome, SubjectId,
    VerificationStep, apply_edits,
};

id_type!(
    /// A corpus: a named set of documents that searches and checks can be limited to.
    CorpusId
);
id_type!(
    /// A document of a corpus.
    DocumentId
);
id_type!(
    /// One sentence of a document (its span in the document text).
    SentenceId
);
id_type!(
    /// A named collection of claims.
    CollectionId
);
id_type!(
    /// One claim of a collection.
    ClaimId
);
id_type!(
    /// One run of a method over one claim or a collection.
    RunId
);

/// A value of a closed textual enum was not one of the allowed spellings.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind} '{value}' is not recognised; expected one of: {expected}")]
pub struct UnknownValue {
    pub kind: &'static str,
    pub value: String,
    pub expected: &'static str,
}

/// A named corpus with its document count.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct Corpus {
    pub id: CorpusId,
    pub name: String,
    pub description: Option<String>,
    pub created_at: String,
    pub document_count: u64,
}

/// Where a document came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
pub enum OriginKind {
    /// A file on disk (for JSONL and CSV, one line or row of it).
    File,
    /// A page fetched over http(s).
    Url,
}

impl OriginKind {
    pub fn as_str(self) -> &'static str {
        match self {
            OriginKind::File => "file",
            OriginKind::Url => "url",
        }
    }
}

impl FromStr for OriginKind {
    type Err = UnknownValue;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "file" => Ok(OriginKind::File),
            "url" => Ok(OriginKind::Url),
            _ => Err(UnknownValue {
                kind: "origin kind",
                value: s.to_owned(),
                expected: "file, url",
            }),
        }
    }
}

/// The format a document was imported from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
pub enum DocumentFormat {
    Text,
    Markdown,
    Html,
    Jsonl,
    Csv,
    /// The text layer of a PDF, page by page (its sentences keep their page).
    Pdf,
}

impl DocumentFormat {
    pub fn as_str(self) -> &'static str {
        match self {
            DocumentFormat::Text => "text",
            DocumentFormat::Markdown => "markdown",
            DocumentFormat::Html => "html",
            DocumentFormat::Jsonl => "jsonl",
            DocumentFormat::Csv => "csv",
            DocumentFormat::Pdf => "pdf",
        }
    }

    /// Every file extension Factdesk imports (lower case, without the dot), with its format:
    /// the one list, which the window's file dialog offers too.
    pub const EXTENSIONS: &[(&str, DocumentFormat)] = &[
        ("txt", DocumentFormat::Text),
        ("text", DocumentFormat::Text),
        ("md", DocumentFormat::Markdown),
        ("markdown", DocumentFormat::Markdown),
        ("html", DocumentFormat::Html),
        ("htm", DocumentFormat::Html),
        ("xhtml", DocumentFormat::Html),
        ("jsonl", DocumentFormat::Jsonl),
        ("ndjson", DocumentFormat::Jsonl),
        ("csv", DocumentFormat::Csv),
        ("pdf", DocumentFormat::Pdf),
    ];

    /// The format for a file extension (case-insensitive, without the dot), if Factdesk imports it.
    pub fn from_extension(extension: &str) -> Option<Self> {
        let extension = extension.to_ascii_lowercase();
        Self::EXTENSIONS.iter().find(|(known, _)| *known == extension).map(|&(_, format)| format)
    }
}

impl FromStr for DocumentFormat {
    type Err = UnknownValue;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "text" => Ok(DocumentFormat::Text),
            "markdown" => Ok(DocumentFormat::Markdown),
            "html" => Ok(DocumentFormat::Html),
            "jsonl" => Ok(DocumentFormat::Jsonl),
            "csv" => Ok(DocumentFormat::Csv),
            "pdf" => Ok(DocumentFormat::Pdf),
            _ => Err(UnknownValue {
                kind: "document format",
                value: s.to_owned(),
                expected: "text, markdown, html, jsonl, csv, pdf",
            }),
        }
    }
}

/// A document without its bytes and text: what lists show.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct DocumentSummary {
    pub id: DocumentId,
    pub corpus: String,
    pub origin: String,
    pub origin_kind: OriginKind,
    pub url: Option<String>,
    pub format: DocumentFormat,
    pub title: Option<String>,
    pub published_at: Option<String>,
    pub acquired_at: String,
    pub content_hash: String,
    pub sentence_count: u64,
    pub text_chars: u64,
    /// The text's language, an ISO 639-1 code (`de`, `zh`); `None` when unknown.
    pub language: Option<String>,
}

/// One sentence as a span of its document's text.
///
/// `start_char`/`end_char` count Unicode scalar values (what a user interface highlights);
/// `start_byte`/`end_byte` are the same span in UTF-8 bytes (what Rust slices with).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct SentenceSpan {
    pub start_char: u32,
    pub end_char: u32,
    pub start_byte: u32,
    pub end_byte: u32,
}

impl SentenceSpan {
    /// The sentence's text within its document's text.
    pub fn slice<'t>(&self, text: &'t str) -> &'t str {
        &text[self.start_byte as usize..self.end_byte as usize]
    }
}

/// A stored sentence with its text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct Sentence {
    pub id: SentenceId,
    pub document_id: DocumentId,
    pub ordinal: u32,
    pub span: SentenceSpan,
    pub text: String,
    /// The page it starts on (1-based), for a paged document (a PDF).
    pub page: Option<u32>,
}

/// The page (1-based) of the character at `offset` of a paged document's text, given the
/// character offset where each page starts (`page_starts[0]` for page 1, …; a page without
/// text starts where the next one does). `None` for a document without pages.
pub fn page_at(page_starts: &[u32], offset: u32) -> Option<u32> {
    if page_starts.is_empty() {
        return None;
    }
    let after = page_starts.partition_point(|&start| start <= offset);
    Some(after.max(1) as u32)
}

#[cfg(test)]
mod page_tests {
    use super::page_at;

    #[test]
    fn pages_are_found_by_offset() {
        let starts = [0, 10, 10, 25];
        assert_eq!(page_at(&starts, 0), Some(1));
        assert_eq!(page_at(&starts, 9), Some(1));
        // Page 2 has no text: offset 10 is on page 3.
        assert_eq!(page_at(&starts, 10), Some(3));
        assert_eq!(page_at(&starts, 400), Some(4));
        assert_eq!(page_at(&[], 3), None);
    }
}

/// A whole document with its text and sentences (the bytes as imported stay in the store).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct Document {
    pub summary: DocumentSummary,
    pub charset: Option<String>,
    pub text: String,
    pub sentences: Vec<Sentence>,
}

/// A verdict on a claim: supported, refuted, or not enough information to decide. Methods give
/// it, reviewers give it, and labelled collections carry it as their gold label
/// ([`ClaimLabel`]). Why a method could not decide is kept apart, in
/// [`check::Undecided`]; such a check's verdict is `not_enough_info`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The evidence supports the claim (it is true).
    Supported,
    /// The evidence contradicts the claim (it is false).
    Refuted,
    /// The evidence does not settle it, or there was none to read.
    NotEnoughInfo,
}

/// A claim's gold label: the verdict a person gave it in advance.
pub type ClaimLabel = Verdict;

impl Verdict {
    pub const ALL: [Verdict; 3] = [Verdict::Supported, Verdict::Refuted, Verdict::NotEnoughInfo];

    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Supported => "supported",
            Verdict::Refuted => "refuted",
            Verdict::NotEnoughInfo => "not_enough_info",
        }
    }

    /// Words for people: "supported", "refuted", "not enough info".
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Supported => "supported",
            Verdict::Refuted => "refuted",
            Verdict::NotEnoughInfo => "not enough info",
        }
    }

    /// Parses the spellings found in labelled data sets: true/false, yes/no, 1/0,
    /// supported/refuted, supports/refutes, S/R/N, nei, "not enough info" (case-insensitive).
    pub fn parse_lenient(value: &str) -> Result<Self, UnknownValue> {
        let normalised = value.trim().to_ascii_lowercase().replace([' ', '-'], "_");
        match normalised.as_str() {
            "true" | "yes" | "1" | "supported" | "supports" | "support" | "s" | "t" | "correct" => {
                Ok(Verdict::Supported)
            }
            "false" | "no" | "0" | "refuted" | "refutes" | "refute" | "r" | "f" | "incorrect" => {
                Ok(Verdict::Refuted)
            }
            "not_enough_info" | "nei" | "n" | "neutral" | "unknown" | "unverifiable" => {
                Ok(Verdict::NotEnoughInfo)
            }
            _ => Err(UnknownValue {
                kind: "verdict",
                value: value.to_owned(),
                expected: "supported/refuted/not_enough_info, true/false, yes/no, 1/0, S/R/N",
            }),
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Verdict {
    type Err = UnknownValue;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Verdict::parse_lenient(s)
    }
}

/// Where a claim stands in a fact-checker's workflow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ClaimStatus {
    /// Imported, never checked.
    Unchecked,
    /// A method produced a verdict.
    Checked,
    /// A person accepted or overrode the verdict.
    Reviewed,
}

impl ClaimStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ClaimStatus::Unchecked => "unchecked",
            ClaimStatus::Checked => "checked",
            ClaimStatus::Reviewed => "reviewed",
        }
    }
}

impl FromStr for ClaimStatus {
    type Err = UnknownValue;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "unchecked" => Ok(ClaimStatus::Unchecked),
            "checked" => Ok(ClaimStatus::Checked),
            "reviewed" => Ok(ClaimStatus::Reviewed),
            _ => Err(UnknownValue {
                kind: "claim status",
                value: s.to_owned(),
                expected: "unchecked, checked, reviewed",
            }),
        }
    }
}

/// A claim collection with its claim count.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct ClaimCollection {
    pub id: CollectionId,
    pub name: String,
    pub description: Option<String>,
    pub created_at: String,
    pub claim_count: u64,
}

/// A claim to be checked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct Claim {
    pub id: ClaimId,
    pub collection: String,
    pub text: String,
    pub origin: Option<String>,
    pub tags: Vec<String>,
    pub notes: Option<String>,
    pub status: ClaimStatus,
    pub gold_label: Option<ClaimLabel>,
    /// When the claim was made (YYYY-MM-DD), if known: evidence published long before it is
    /// flagged as possibly out of date.
    pub claimed_on: Option<String>,
    /// The claim's language, an ISO 639-1 code (`de`, `zh`); `None` when unknown.
    pub language: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

/// A claim before it is stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct NewClaim {
    pub text: String,
    pub origin: Option<String>,
    pub tags: Vec<String>,
    pub notes: Option<String>,
    pub gold_label: Option<ClaimLabel>,
    /// When the claim was made (YYYY-MM-DD), if known.
    pub claimed_on: Option<String>,
}

/// The life of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    Pending,
    Running,
    Completed,
    Failed,
    Cancelled,
}

impl RunStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Pending => "pending",
            RunStatus::Running => "running",
            RunStatus::Completed => "completed",
            RunStatus::Failed => "failed",
            RunStatus::Cancelled => "cancelled",
        }
    }
}

impl FromStr for RunStatus {
    type Err = UnknownValue;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "pending" => Ok(RunStatus::Pending),
            "running" => Ok(RunStatus::Running),
            "completed" => Ok(RunStatus::Completed),
            "failed" => Ok(RunStatus::Failed),
            "cancelled" => Ok(RunStatus::Cancelled),
            _ => Err(UnknownValue {
                kind: "run status",
                value: s.to_owned(),
                expected: "pending, running, completed, failed, cancelled",
            }),
        }
    }
}

/// One run of a method: what was run, with which parameters and model, and how it went.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Run {
    pub id: RunId,
    pub method: String,
    pub parameters: serde_json::Value,
    pub model: Option<String>,
    pub collection_id: Option<CollectionId>,
    pub status: RunStatus,
    pub created_at: String,
    pub started_at: Option<String>,
    pub finished_at: Option<String>,
    pub error: Option<String>,
}

/// The current time as an RFC 3339 string in UTC, the one time format the store keeps.
pub fn now_rfc3339() -> String {
    let now = time::OffsetDateTime::now_utc();
    now.format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_else(|_| now.unix_timestamp().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_label(input: &str, expected: Option<ClaimLabel>) {
        assert_eq!(ClaimLabel::parse_lenient(input).ok(), expected, "input {input:?}");
    }

    #[test]
    fn labels_parse_from_common_spellings() {
        check_label("TRUE", Some(ClaimLabel::Supported));
        check_label(" yes ", Some(ClaimLabel::Supported));
        check_label("1", Some(ClaimLabel::Supported));
        check_label("Refutes", Some(ClaimLabel::Refuted));
        check_label("no", Some(ClaimLabel::Refuted));
        check_label("Not Enough Info", Some(ClaimLabel::NotEnoughInfo));
        check_label("not-enough-info", Some(ClaimLabel::NotEnoughInfo));
        check_label("N", Some(ClaimLabel::NotEnoughInfo));
        check_label("maybe", None);
        check_label("", None);
    }

    #[test]
    fn enums_round_trip_through_their_text() {
        for status in [ClaimStatus::Unchecked, ClaimStatus::Checked, ClaimStatus::Reviewed] {
            assert_eq!(status.as_str().parse::<ClaimStatus>(), Ok(status));
        }
        for format in [
            DocumentFormat::Text,
            DocumentFormat::Markdown,
            DocumentFormat::Html,
            DocumentFormat::Jsonl,
            DocumentFormat::Csv,
            DocumentFormat::Pdf,
        ] {
            assert_eq!(format.as_str().parse::<DocumentFormat>(), Ok(format));
        }
        assert_eq!(DocumentFormat::from_extension("HTM"), Some(DocumentFormat::Html));
        assert_eq!(DocumentFormat::from_extension("PDF"), Some(DocumentFormat::Pdf));
        assert_eq!(DocumentFormat::from_extension("docx"), None);
    }

    #[test]
    fn span_slices_by_bytes() {
        let text = "Café au lait. Next one.";
        let span = SentenceSpan { start_char: 14, end_char: 23, start_byte: 15, end_byte: 24 };
        assert_eq!(span.slice(text), "Next one.");
    }
}
