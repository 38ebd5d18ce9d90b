//! Records of web pages: every attempt to fetch one ([`FetchRecord`]) and the archive of page
//! bodies with their extracted text ([`StoredPage`], [`ArchivedPage`]). Plain data shared by
//! the store, which keeps them, and the core and the methods, which read them.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::RunId;

id_type!(
    /// One recorded attempt to get a web page.
    FetchId
);

/// One attempt to get a web page, as recorded: fetched from the web, served from the page
/// archive, or failed. Every attempt is recorded, so a run's citations can be traced to what
/// was (or could not be) read, and when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FetchRecord {
    pub id: FetchId,
    pub run_id: Option<RunId>,
    /// The URL asked for, normalised (no fragment).
    pub url: String,
    /// The URL after redirects; a Wikipedia article's canonical URL.
    pub final_url: Option<String>,
    /// The HTTP status, when an answer came.
    pub status: Option<u16>,
    pub media_type: Option<String>,
    pub title: Option<String>,
    /// The archived body's hash; set exactly when the attempt succeeded.
    pub content_hash: Option<String>,
    /// A stable code for the failure (`forbidden`, `timeout`, `not_found`, `not_archived`, …).
    pub error_kind: Option<String>,
    pub error_message: Option<String>,
    /// True when the page came through the MediaWiki API.
    pub via_api: bool,
    /// True when the page was served from the archive instead of the network.
    pub from_archive: bool,
    /// When the answer arrived, for a fetch from the network; else when the attempt was made
    /// (RFC 3339, UTC).
    pub fetched_at: String,
    pub elapsed_ms: u64,
}

impl FetchRecord {
    pub fn succeeded(&self) -> bool {
        self.content_hash.is_some()
    }
}

/// A page body in the archive, kept once per content hash (BLAKE3 of the body), with the
/// text extracted from it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredPage {
    pub content_hash: String,
    pub media_type: Option<String>,
    pub body: Vec<u8>,
    pub text: String,
    pub title: Option<String>,
    pub first_fetched_at: String,
}

/// The archive's answer for a URL: the newest successful fetch whose requested or final URL
/// it is, and the page that fetch got.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArchivedPage {
    pub fetch: FetchRecord,
    pub page: StoredPage,
}
