//! The ClaimReview export: schema.org `ClaimReview` objects as a JSON-LD array, published by the
//! newsroom ([`crate::Publishing`]: its name and site are the `author`, and without one the
//! export is refused). By default one per claim a person reviewed; with machine verdicts asked
//! for, one per checked claim, the unreviewed ones saying so first in `reviewBody`. Unchecked
//! claims have no review to publish and are skipped.
//!
//! # Rating scale
//!
//! `reviewRating` uses the usual 1–5 scale (`worstRating` 1 = false, `bestRating` 5 = true), with
//! `alternateName` naming the verdict:
//!
//! | verdict | `ratingValue` | `alternateName` |
//! | --- | --- | --- |
//! | supported | 5 | Supported |
//! | refuted | 1 | Refuted |
//! | not_enough_info, evidence read | 3 | Not enough info |
//! | not_enough_info, no valid URL | (none) | No valid URL |
//! | not_enough_info, fetch failed | (none) | Fetch failed |
//! | not_enough_info, no evidence | (none) | No evidence |
//! | not_enough_info, language not read | (none) | Language not read |
//!
//! Not enough info after reading evidence means the claim was neither shown true nor shown
//! false, the middle of the scale. When the method could not read any evidence at all, there is
//! nothing to place on the scale; the `Rating` carries only its `alternateName`, the reason (and
//! no `bestRating`/`worstRating`). A reviewer's verdict is always placed on the scale.
//!
//! When a person reviewed the check, the reviewer's verdict sets the rating and `reviewBody` says
//! so; the machine verdict, its confidence, method, models and explanation stay in `reviewBody`,
//! and so does what the deciding premise states differently from the claim or not at all
//! ("claim: 412 metres · evidence: 212 metres; not in the evidence: 1887").
//! `citation` lists the attribution sources (the evidence) that are http(s) pages; other URLs
//! are left out, since consumers may render them as links. They are not `itemReviewed.
//! appearance`, which names where a claim was made, not what backs it. `datePublished` is the
//! date of the human review when there is one (it set the rating), else of the check.

use factdesk_model::{StoredCheck, Undecided, Verdict};
use serde::Serialize;

use crate::escape::is_web_link;
use crate::{Report, ReportError, format_probability};

/// Where a verdict sits on the ClaimReview 1–5 scale, and its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClaimReviewRating {
    /// 1 (false) to 5 (true); none when no evidence was judged.
    pub value: Option<u8>,
    /// The `alternateName` of the rating.
    pub name: &'static str,
}

/// The ClaimReview rating for a verdict (see the module documentation for the reasoning).
pub fn rating_for(verdict: Verdict, undecided: Option<Undecided>) -> ClaimReviewRating {
    let (value, name) = match (verdict, undecided) {
        (_, Some(Undecided::NoValidUrl)) => (None, "No valid URL"),
        (_, Some(Undecided::FetchFailed)) => (None, "Fetch failed"),
        (_, Some(Undecided::NoEvidence)) => (None, "No evidence"),
        (_, Some(Undecided::UnreadLanguage)) => (None, "Language not read"),
        (Verdict::Supported, None) => (Some(5), "Supported"),
        (Verdict::Refuted, None) => (Some(1), "Refuted"),
        (Verdict::NotEnoughInfo, None) => (Some(3), "Not enough info"),
    };
    ClaimReviewRating { value, name }
}

const BEST_RATING: u8 = 5;
const WORST_RATING: u8 = 1;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ClaimReview<'a> {
    #[serde(rename = "@context")]
    context: &'static str,
    #[serde(rename = "@type")]
    kind: &'static str,
    claim_reviewed: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    date_published: Option<&'a str>,
    author: Organization<'a>,
    review_rating: Rating,
    item_reviewed: ReviewedClaim,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    citation: Vec<CitedPage<'a>>,
    review_body: String,
}

#[derive(Serialize)]
struct Organization<'a> {
    #[serde(rename = "@type")]
    kind: &'static str,
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    url: Option<&'a str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Rating {
    #[serde(rename = "@type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    rating_value: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    best_rating: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    worst_rating: Option<u8>,
    alternate_name: &'static str,
}

#[derive(Serialize)]
struct ReviewedClaim {
    #[serde(rename = "@type")]
    kind: &'static str,
}

#[derive(Serialize)]
struct CitedPage<'a> {
    #[serde(rename = "@type")]
    kind: &'static str,
    url: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
}

/// One `ClaimReview` per reviewed claim of the report (per checked claim with machine verdicts),
/// in report order, by the report's newsroom.
pub(crate) fn claim_reviews(report: &Report) -> Result<Vec<ClaimReview<'_>>, ReportError> {
    let newsroom = report.publishing.newsroom.as_ref().ok_or(ReportError::NoNewsroom)?;
    let author =
        Organization { kind: "Organization", name: &newsroom.name, url: newsroom.url.as_deref() };
    Ok(report
        .items
        .iter()
        .filter_map(|item| {
            let stored = item.check.as_ref()?;
            (stored.review.is_some() || report.publishing.machine_verdicts)
                .then(|| claim_review(&item.claim_text, stored, &author))
        })
        .collect())
}

fn claim_review<'a>(
    claim: &'a str,
    stored: &'a StoredCheck,
    author: &Organization<'a>,
) -> ClaimReview<'a> {
    let rating = match &stored.review {
        Some(review) => rating_for(review.verdict, None),
        None => rating_for(stored.check.verdict, stored.check.undecided),
    };
    ClaimReview {
        context: "https://schema.org",
        kind: "ClaimReview",
        claim_reviewed: claim,
        date_published: date_part(
            stored.review.as_ref().map_or(&stored.checked_at, |review| &review.created_at),
        ),
        author: Organization { kind: author.kind, name: author.name, url: author.url },
        review_rating: Rating {
            kind: "Rating",
            rating_value: rating.value,
            best_rating: rating.value.map(|_| BEST_RATING),
            worst_rating: rating.value.map(|_| WORST_RATING),
            alternate_name: rating.name,
        },
        item_reviewed: ReviewedClaim { kind: "Claim" },
        citation: cited_pages(stored),
        review_body: review_body(stored),
    }
}

/// The attribution pages, each once, that may be shown as links.
fn cited_pages(stored: &StoredCheck) -> Vec<CitedPage<'_>> {
    let mut pages: Vec<CitedPage<'_>> = Vec::new();
    for attribution in &stored.check.attributions {
        let Some(url) = attribution.source.url.as_deref() else { continue };
        if is_web_link(url) && !pages.iter().any(|page| page.url == url) {
            pages.push(CitedPage {
                kind: "CreativeWork",
                url,
                name: attribution.source.title.as_deref(),
            });
        }
    }
    pages
}

/// The `YYYY-MM-DD` part of an RFC 3339 time, if it has one.
fn date_part(time: &str) -> Option<&str> {
    let date = time.get(..10)?;
    let bytes = date.as_bytes();
    let shaped_like_a_date = bytes.iter().enumerate().all(|(index, byte)| match index {
        4 | 7 => *byte == b'-',
        _ => byte.is_ascii_digit(),
    });
    shaped_like_a_date.then_some(date)
}

/// Who decided what: the human review first when there is one (it sets the rating), then the
/// machine verdict with its confidence, method, models and explanation, and where the evidence
/// differs from the claim.
fn review_body(stored: &StoredCheck) -> String {
    let check = &stored.check;
    let mut body = String::new();
    if let Some(review) = &stored.review {
        body.push_str(&format!(
            "Human review ({} by {} at {}): {}; the rating is the reviewer's verdict.",
            review.decision.as_str(),
            review.reviewer.as_deref().unwrap_or("an unnamed reviewer"),
            review.created_at,
            review.verdict.label()
        ));
        if !review.comment.trim().is_empty() {
            body.push_str(&format!(" Comment: {}", review.comment.trim()));
        }
        body.push(' ');
    } else {
        body.push_str("Not reviewed by a person: the rating is the machine's verdict. ");
    }
    body.push_str(&format!("Machine verdict: {}", check.verdict_label()));
    if let Some(confidence) = check.confidence {
        body.push_str(&format!(" (confidence {})", format_probability(confidence)));
    }
    body.push_str(&format!(", by {} with {}", check.envelope.method, check.envelope.model));
    if let Some(nli_model) = &check.envelope.nli_model {
        body.push_str(&format!(" and NLI model {nli_model}"));
    }
    body.push('.');
    if !check.envelope.explanation.trim().is_empty() {
        body.push(' ');
        body.push_str(check.envelope.explanation.trim());
    }
    // What the deciding premise states differently, unless the explanation says it already.
    if let Some(facts) = crate::facts::summary(check)
        && !check.envelope.explanation.contains(&facts)
    {
        body.push_str(&format!(" Where the evidence differs from the claim: {facts}."));
    }
    body
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_date(input: &str, expected: Option<&str>) {
        assert_eq!(date_part(input), expected, "input {input:?}");
    }

    #[test]
    fn dates_are_cut_from_rfc3339_times() {
        check_date("2026-03-04T05:06:07Z", Some("2026-03-04"));
        check_date("2026-03-04", Some("2026-03-04"));
        check_date("yesterday", None);
        check_date("", None);
        check_date("2026-3-4T00:00Z", None);
        check_date("2026-03-0é", None);
    }

    #[test]
    fn only_judged_verdicts_have_a_rating_value() {
        assert_eq!(rating_for(Verdict::Supported, None).value, Some(BEST_RATING));
        assert_eq!(rating_for(Verdict::Refuted, None).value, Some(WORST_RATING));
        assert_eq!(rating_for(Verdict::NotEnoughInfo, None).value, Some(3));
        for reason in Undecided::ALL {
            let rating = rating_for(Verdict::NotEnoughInfo, Some(reason));
            assert_eq!(rating.value, None, "{reason}");
            assert_eq!(rating.name.to_lowercase(), reason.label().to_lowercase());
        }
    }
}
