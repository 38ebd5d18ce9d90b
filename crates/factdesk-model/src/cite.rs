//! What LLM-Cite ("LLM-Cite: Cheap Fact Verification with Attribution via URL Generation")
//! keeps of its own on a check: each URL the model proposed and what became of it, stored in
//! the check's [`crate::MethodDetail::LlmCite`]. The method is in `factdesk-methods`; these are
//! the shapes stored with the check and shown to people, as `ciber.rs` is for CIBER.

use serde::{Deserialize, Serialize};

/// What happened to one URL the model proposed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum UrlStatus {
    /// Fetched (or served from the archive): a valid URL.
    Fetched,
    /// The page does not exist (HTTP 404/410, or no such Wikipedia article): invalid.
    NotFound,
    /// Not a fetchable URL (bad syntax, unsupported scheme): invalid.
    Invalid,
    /// Refused by the fetch policy (private address, not allow-listed; a redirect to a
    /// non-http(s) URL), or offline and not archived.
    Refused,
    /// The fetch failed for another reason (timeout, too large, not a text page, server error).
    Failed,
    /// Not tried (rejection sampling kept another response).
    Skipped,
}

impl UrlStatus {
    /// Whether the URL leads to an existing page (the paper's "valid URL").
    pub fn is_valid(self) -> bool {
        self == UrlStatus::Fetched
    }
}

/// A URL the model proposed, and what became of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct ProposedUrl {
    pub url: String,
    pub status: UrlStatus,
    /// The URL after redirects (and Wikipedia title resolution), when fetched.
    pub final_url: Option<String>,
    pub title: Option<String>,
    pub fetched_at: Option<String>,
    pub content_hash: Option<String>,
    /// Why it was not fetched.
    pub error: Option<String>,
    /// Which sample (rejection sampling) or response it came from.
    pub sample: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_fetched_urls_are_valid() {
        assert!(UrlStatus::Fetched.is_valid());
        for status in
            [UrlStatus::NotFound, UrlStatus::Invalid, UrlStatus::Refused, UrlStatus::Failed]
        {
            assert!(!status.is_valid());
        }
    }
}
