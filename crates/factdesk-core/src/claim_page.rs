//! One page of a collection's claims for the collection view: each claim with the newest check
//! a selection selects, filtered and sorted here over the whole collection, then cut to the
//! rows asked for. The window receives the rows it draws, not the collection (10,000 claims
//! are 3.4 MB of JSON, which took it about two seconds to carry and draw), and a sorted column
//! is sorted over every claim, whichever page shows them. It reads through the same selection
//! as lists and reports and writes nothing.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::str::FromStr;

use factdesk_model::{ClaimId, ClaimStatus, StoredCheck, Undecided, Verdict};
use serde::{Deserialize, Serialize};

use crate::verify::{CheckSelection, ClaimWithCheck};
use crate::{CoreError, Factdesk, Result};

/// The columns claims can be sorted by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ClaimSort {
    /// The claim's text, lower-cased, character by character.
    Text,
    /// Unchecked, checked, reviewed.
    Status,
    /// The standing verdict (the reviewer's when reviewed): supported, refuted, not enough info.
    Verdict,
    Confidence,
    /// The name of the method that made the check shown.
    Method,
    /// When the check shown was made.
    Checked,
}

/// Which claims of a collection to show, in what order, and which of them.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, ts_rs::TS)]
#[serde(default, deny_unknown_fields)]
#[ts(optional_fields = nullable)]
pub struct ClaimPageRequest {
    /// Whose checks to show: each claim's newest check of this method (or run).
    #[ts(optional = nullable)]
    pub selection: CheckSelection,
    pub status: Option<ClaimStatus>,
    /// A verdict (the reviewer's when reviewed), a reason a check could not decide
    /// (`no_valid_url`, …), or `none`: claims without a check. Empty (`""`): no filter.
    #[serde(deserialize_with = "empty_is_no_filter")]
    pub verdict: Option<VerdictFilter>,
    /// Only claims whose check shown gave this verdict, whatever the review says.
    pub machine: Option<Verdict>,
    /// Only claims whose review gave this verdict, or (`none`) checked claims not reviewed.
    /// Empty (`""`): no filter.
    #[serde(deserialize_with = "empty_is_no_filter")]
    pub review: Option<ReviewFilter>,
    pub tag: Option<String>,
    /// The column to sort by; the collection's order when absent. Claims without a value in
    /// the column come last either way; ties keep the collection's order.
    pub sort: Option<ClaimSort>,
    #[ts(optional = nullable)]
    pub descending: bool,
    /// How many matching claims to pass over, and how many to give (at least one).
    #[ts(optional = nullable)]
    pub offset: usize,
    #[ts(optional = nullable)]
    pub limit: usize,
}

/// Some of a collection's claims, and how many there are.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct ClaimPage {
    /// The claims asked for, from `offset` on, in order.
    pub claims: Vec<ClaimWithCheck>,
    pub offset: usize,
    /// Claims that match the filter, on every page.
    pub matching: usize,
    /// Claims in the collection, and how many of them have a check the selection selects.
    pub total: usize,
    pub checked: usize,
}

/// `none` in a filter: claims without a check (a verdict filter), or checked claims no person
/// reviewed (a review filter).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
pub enum Absent {
    None,
}

/// Which claims a verdict filter keeps: those whose standing verdict (the reviewer's when
/// reviewed) is this one, those whose check could not decide for this reason, or (`none`) those
/// without a check. Read from its name, refusing any other with the names it takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(untagged)]
#[serde(try_from = "String")]
pub enum VerdictFilter {
    Verdict(Verdict),
    Undecided(Undecided),
    NoCheck(Absent),
}

/// Which claims a review filter keeps: those whose review gave this verdict, or (`none`)
/// checked claims no person reviewed. Read from its name, refusing any other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(untagged)]
#[serde(try_from = "String")]
pub enum ReviewFilter {
    Verdict(Verdict),
    NotReviewed(Absent),
}

/// Reads a filter from its name, an empty name (a menu's "any") or null being no filter.
fn empty_is_no_filter<'de, D, T>(deserializer: D) -> std::result::Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: FromStr<Err = String>,
{
    match Option::<String>::deserialize(deserializer)? {
        Some(name) if !name.is_empty() => name.parse().map(Some).map_err(serde::de::Error::custom),
        _ => Ok(None),
    }
}

fn named<T: serde::de::DeserializeOwned>(name: &str) -> Option<T> {
    serde_json::from_value(serde_json::Value::String(name.to_owned())).ok()
}

impl VerdictFilter {
    /// Every verdict filter, in the order menus show them: `none`, the verdicts, the reasons.
    pub fn all() -> Vec<VerdictFilter> {
        let verdicts = Verdict::ALL.into_iter().map(VerdictFilter::Verdict);
        let reasons = Undecided::ALL.into_iter().map(VerdictFilter::Undecided);
        std::iter::once(VerdictFilter::NoCheck(Absent::None))
            .chain(verdicts)
            .chain(reasons)
            .collect()
    }
}

impl FromStr for VerdictFilter {
    type Err = String;

    fn from_str(name: &str) -> std::result::Result<Self, String> {
        named(name)
            .map(VerdictFilter::Verdict)
            .or_else(|| named(name).map(VerdictFilter::Undecided))
            .or_else(|| named(name).map(VerdictFilter::NoCheck))
            .ok_or_else(|| {
                format!(
                    "no verdict is called '{name}'; filter by supported, refuted, \
                     not_enough_info, a reason a check could not decide (no_valid_url, \
                     fetch_failed, no_evidence, unread_language) or none"
                )
            })
    }
}

impl TryFrom<String> for VerdictFilter {
    type Error = String;

    fn try_from(name: String) -> std::result::Result<Self, String> {
        name.parse()
    }
}

impl ReviewFilter {
    /// Every review filter, in the order menus show them: `none`, then the verdicts.
    pub fn all() -> Vec<ReviewFilter> {
        let verdicts = Verdict::ALL.into_iter().map(ReviewFilter::Verdict);
        std::iter::once(ReviewFilter::NotReviewed(Absent::None)).chain(verdicts).collect()
    }
}

impl FromStr for ReviewFilter {
    type Err = String;

    fn from_str(name: &str) -> std::result::Result<Self, String> {
        named(name)
            .map(ReviewFilter::Verdict)
            .or_else(|| named(name).map(ReviewFilter::NotReviewed))
            .ok_or_else(|| {
                format!(
                    "no review verdict is called '{name}'; filter by supported, refuted, \
                     not_enough_info or none (checked, not reviewed)"
                )
            })
    }
}

impl TryFrom<String> for ReviewFilter {
    type Error = String;

    fn try_from(name: String) -> std::result::Result<Self, String> {
        name.parse()
    }
}

/// The verdict that stands: the reviewer's when reviewed, else the machine's.
fn standing(check: &StoredCheck) -> Verdict {
    check.review.as_ref().map_or(check.check.verdict, |review| review.verdict)
}

fn status_rank(status: ClaimStatus) -> u8 {
    match status {
        ClaimStatus::Unchecked => 0,
        ClaimStatus::Checked => 1,
        ClaimStatus::Reviewed => 2,
    }
}

fn verdict_rank(verdict: Verdict) -> u8 {
    match verdict {
        Verdict::Supported => 0,
        Verdict::Refuted => 1,
        Verdict::NotEnoughInfo => 2,
    }
}

/// A claim's value in a sort column (`None`: it has none, and sorts last).
#[derive(PartialEq, PartialOrd)]
enum SortValue {
    Text(String),
    Rank(u8),
    Number(f64),
}

fn sort_value(entry: &ClaimWithCheck, sort: ClaimSort) -> Option<SortValue> {
    let check = entry.check.as_ref();
    match sort {
        ClaimSort::Text => Some(SortValue::Text(entry.claim.text.to_lowercase())),
        ClaimSort::Status => Some(SortValue::Rank(status_rank(entry.claim.status))),
        ClaimSort::Verdict => check.map(|check| SortValue::Rank(verdict_rank(standing(check)))),
        ClaimSort::Confidence => {
            check.and_then(|check| check.check.confidence).map(SortValue::Number)
        }
        ClaimSort::Method => {
            check.map(|check| SortValue::Text(check.check.envelope.method.clone()))
        }
        ClaimSort::Checked => check.map(|check| SortValue::Text(check.checked_at.clone())),
    }
}

/// Sorts `entries` by `sort` (stable: ties keep their order), values missing last.
fn sort_entries(entries: &mut Vec<ClaimWithCheck>, sort: ClaimSort, descending: bool) {
    let mut keyed: Vec<(Option<SortValue>, ClaimWithCheck)> =
        entries.drain(..).map(|entry| (sort_value(&entry, sort), entry)).collect();
    keyed.sort_by(|(a, _), (b, _)| match (a, b) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Greater,
        (Some(_), None) => Ordering::Less,
        (Some(a), Some(b)) => {
            let order = a.partial_cmp(b).unwrap_or(Ordering::Equal);
            if descending { order.reverse() } else { order }
        }
    });
    entries.extend(keyed.into_iter().map(|(_, entry)| entry));
}

impl Factdesk {
    /// The claims of `collection` that `request` asks for, each with the newest check its
    /// selection selects: filtered and sorted over the whole collection, then `limit` of them
    /// from `offset`, with how many match and how many there are.
    pub fn collection_page(
        &self,
        collection: &str,
        request: &ClaimPageRequest,
    ) -> Result<ClaimPage> {
        if request.limit == 0 {
            return Err(CoreError::InvalidInput(
                "a page of claims needs a limit of at least 1".into(),
            ));
        }
        let tag = request.tag.as_deref().map(str::trim).filter(|tag| !tag.is_empty());
        let (claims, checks) = self.selected_checks(collection, &request.selection)?;
        let total = claims.len();
        let mut newest: HashMap<ClaimId, StoredCheck> =
            checks.into_iter().filter_map(|check| Some((check.claim_id?, check))).collect();
        let checked = claims.iter().filter(|claim| newest.contains_key(&claim.id)).count();
        let mut matching: Vec<ClaimWithCheck> = claims
            .into_iter()
            .map(|claim| {
                let check = newest.remove(&claim.id);
                ClaimWithCheck { claim, check }
            })
            .filter(|entry| {
                let check = entry.check.as_ref();
                request.status.is_none_or(|status| entry.claim.status == status)
                    && tag.is_none_or(|tag| entry.claim.tags.iter().any(|t| t == tag))
                    && request
                        .machine
                        .is_none_or(|machine| check.is_some_and(|c| c.check.verdict == machine))
                    && request.review.is_none_or(|review| match (review, check) {
                        (ReviewFilter::NotReviewed(_), Some(check)) => check.review.is_none(),
                        (ReviewFilter::Verdict(verdict), Some(check)) => {
                            check.review.as_ref().is_some_and(|r| r.verdict == verdict)
                        }
                        (_, None) => false,
                    })
                    && request.verdict.is_none_or(|verdict| match (verdict, check) {
                        (VerdictFilter::NoCheck(_), check) => check.is_none(),
                        (VerdictFilter::Undecided(reason), Some(check)) => {
                            check.check.undecided == Some(reason)
                        }
                        (VerdictFilter::Verdict(verdict), Some(check)) => {
                            standing(check) == verdict
                        }
                        (_, None) => false,
                    })
            })
            .collect();
        if let Some(sort) = request.sort {
            sort_entries(&mut matching, sort, request.descending);
        }
        let count = matching.len();
        let mut page: Vec<ClaimWithCheck> =
            matching.into_iter().skip(request.offset).take(request.limit).collect();
        for entry in &mut page {
            let claim = &entry.claim;
            self.mark_stale(Some(claim), entry.check.as_mut_slice());
        }
        Ok(ClaimPage { claims: page, offset: request.offset, matching: count, total, checked })
    }
}

#[cfg(test)]
#[path = "claim_page_tests.rs"]
mod tests;
