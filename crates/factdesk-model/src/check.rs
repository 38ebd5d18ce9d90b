//! What a check of one claim produced: the verdict, its confidence, the attribution (which
//! page and which sentences back it), every premise with its NLI probabilities, the tokens it
//! cost, and what only its method keeps ([`MethodDetail`]: the URLs LLM-Cite proposed and what
//! became of them, CIBER's probes). Every method returns a [`ClaimCheck`]; the store keeps it
//! whole (as JSON) beside its verdict, and reports read it. How a stored check is read, in
//! today's shape or an earlier one, is in `check_shapes.rs`.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::ciber::CiberDetail;
pub use crate::cite::{ProposedUrl, UrlStatus};
use crate::detail::MethodDetail;
use crate::envelope::Envelope;
pub use crate::envelope::{TokenCount, TokenUse};
use crate::{ClaimId, DocumentId, RunId, UnknownValue, Verdict};

id_type!(
    /// One stored check of one claim (a claim checked in a run).
    CheckId
);
id_type!(
    /// A human review of a check.
    ReviewId
);

/// Why a method could not reach a verdict on the evidence: kept apart from the verdict, which
/// for such a check is always [`Verdict::NotEnoughInfo`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Undecided {
    /// The model proposed no URL that leads to an existing page.
    NoValidUrl,
    /// Pages exist but none could be fetched (refused, timed out, failed).
    FetchFailed,
    /// The local corpus returned nothing to check the claim against.
    NoEvidence,
    /// The claim is in a language the judging model does not read (the offline verifier reads
    /// English only); the explanation names the language.
    UnreadLanguage,
}

impl Undecided {
    pub const ALL: [Undecided; 4] = [
        Undecided::NoValidUrl,
        Undecided::FetchFailed,
        Undecided::NoEvidence,
        Undecided::UnreadLanguage,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Undecided::NoValidUrl => "no_valid_url",
            Undecided::FetchFailed => "fetch_failed",
            Undecided::NoEvidence => "no_evidence",
            Undecided::UnreadLanguage => "unread_language",
        }
    }

    /// Words for people: "no valid URL", "fetch failed", "no evidence", "language not read".
    pub fn label(self) -> &'static str {
        match self {
            Undecided::NoValidUrl => "no valid URL",
            Undecided::FetchFailed => "fetch failed",
            Undecided::NoEvidence => "no evidence",
            Undecided::UnreadLanguage => "language not read",
        }
    }
}

impl fmt::Display for Undecided {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Undecided {
    type Err = UnknownValue;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let key = s.trim().to_ascii_lowercase().replace([' ', '-'], "_");
        let label = |reason: Undecided| reason.label().to_ascii_lowercase().replace(' ', "_");
        Undecided::ALL.into_iter().find(|r| r.as_str() == key || label(*r) == key).ok_or(
            UnknownValue {
                kind: "reason for no verdict",
                value: s.to_owned(),
                expected: "no_valid_url, fetch_failed, no_evidence, unread_language",
            },
        )
    }
}

/// Where a premise's sentences come from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct EvidenceSource {
    /// The page URL (after redirects) for fetched pages, or the document's URL if it has one.
    pub url: Option<String>,
    pub title: Option<String>,
    /// A local corpus document, for corpus evidence.
    pub document_id: Option<DocumentId>,
    pub fetched_at: Option<String>,
    pub content_hash: Option<String>,
    /// The calendar date (YYYY-MM-DD) the document or page says it was published, when it
    /// says; set by Factdesk when it stores the check.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published_at: Option<String>,
}

/// One premise checked against the claim, with the NLI probabilities.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct PremiseCheck {
    /// Index into [`ClaimCheck::sources`].
    pub source: usize,
    /// The sentences the premise joins, best first.
    pub sentences: Vec<String>,
    /// The text given to the NLI model.
    pub premise: String,
    pub entailment: f64,
    pub neutral: f64,
    pub contradiction: f64,
    pub entails: bool,
    /// The sentence of the claim this premise was judged against, when the claim has several
    /// (a summary is judged sentence by sentence); `None` when the whole claim was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim_part: Option<String>,
    /// For a paged document (a PDF), the page of each of `sentences`, in order (`None` where
    /// it was not found); set by Factdesk when it stores the check, empty for other sources.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pages: Vec<Option<u32>>,
    /// How the claim's facts (numbers, dates, names, negation, closed-set terms) line up with
    /// this premise; empty for checks stored before Factdesk aligned facts.
    #[serde(default, skip_serializing_if = "crate::FactAlignment::is_empty")]
    pub facts: crate::FactAlignment,
}

/// Evidence that backs a verified claim: a source and its entailing sentences.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Attribution {
    pub source: EvidenceSource,
    pub sentences: Vec<String>,
    pub entailment: f64,
    /// The sentence of the claim these sentences back, when the claim has several.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim_part: Option<String>,
    /// For a paged document (a PDF), the page of each of `sentences`, in order (`None` where
    /// it was not found); set by Factdesk when it stores the check, empty for other sources.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pages: Vec<Option<u32>>,
}

/// The pages a set of sentences is on, for people: `p. 4`, `pp. 4–5`, `pp. 2, 7`; `None`
/// when no page is known.
pub fn page_label(pages: &[Option<u32>]) -> Option<String> {
    let mut known: Vec<u32> = pages.iter().flatten().copied().collect();
    known.sort_unstable();
    known.dedup();
    match known.as_slice() {
        [] => None,
        [one] => Some(format!("p. {one}")),
        [first, .., last] if (last - first) as usize == known.len() - 1 => {
            Some(format!("pp. {first}–{last}"))
        }
        many => {
            let list: Vec<String> = many.iter().map(u32::to_string).collect();
            Some(format!("pp. {}", list.join(", ")))
        }
    }
}

/// Everything one check of one claim produced.
// Deserialize is `check_shapes.rs`'s: it reads the shape of earlier versions too.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct ClaimCheck {
    /// The method, its parameters and models, the tokens it spent, and the explanation.
    #[serde(flatten)]
    pub envelope: Envelope,
    pub claim: String,
    pub verdict: Verdict,
    /// Why the method could not decide, when it could not (the verdict is then not enough
    /// info); none when it judged the claim on evidence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undecided: Option<Undecided>,
    /// How sure the method is of its verdict, in [0, 1]: for supported, the probability that
    /// the claim is supported; for refuted and not enough info, one minus it; none when
    /// nothing was judged.
    pub confidence: Option<f64>,
    /// The evidence behind a supported verdict.
    pub attributions: Vec<Attribution>,
    pub sources: Vec<EvidenceSource>,
    pub premises: Vec<PremiseCheck>,
    /// Evidence sentences that address the model (instructions, role tags, "answer True"),
    /// left out of the premises: the sources that hold them are flagged to people.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<LeftOut>,
    /// What only the method keeps (LLM-Cite's proposed URLs, CIBER's probes and fusion);
    /// none for a method that keeps nothing of its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<MethodDetail>,
}

/// An evidence sentence left out of the premises because it addresses the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct LeftOut {
    /// Index into [`ClaimCheck::sources`].
    pub source: usize,
    pub sentence: String,
}

impl ClaimCheck {
    /// The URLs LLM-Cite proposed, with what became of each; empty for other methods.
    pub fn proposed_urls(&self) -> &[ProposedUrl] {
        match &self.detail {
            Some(MethodDetail::LlmCite { urls }) => urls,
            _ => &[],
        }
    }

    /// CIBER's probes, fusion and per-document verdicts; none for other methods.
    pub fn ciber(&self) -> Option<&CiberDetail> {
        match &self.detail {
            Some(MethodDetail::Ciber(detail)) => Some(detail),
            _ => None,
        }
    }

    /// The premise the verdict rests on: for a refuted claim, the one that contradicts it most
    /// among those that contradict it more than they entail it; otherwise the premise of the
    /// best attribution, else the one that entails the claim most. None when nothing was
    /// judged (or a refuted check has no contradicting premise). Reports, the CLI and the
    /// claim view show its fact alignment.
    pub fn deciding_premise(&self) -> Option<&PremiseCheck> {
        let most = |score: fn(&PremiseCheck) -> f64| {
            move |a: &&PremiseCheck, b: &&PremiseCheck| score(a).total_cmp(&score(b))
        };
        if self.verdict == Verdict::Refuted {
            return self
                .premises
                .iter()
                .filter(|premise| premise.contradiction > premise.entailment)
                .max_by(most(|premise| premise.contradiction));
        }
        let attributed = self.attributions.first().and_then(|best| {
            self.premises
                .iter()
                .filter(|premise| premise.sentences == best.sentences)
                .max_by(most(|premise| premise.entailment))
        });
        attributed.or_else(|| self.premises.iter().max_by(most(|premise| premise.entailment)))
    }

    /// The verdict in words for people, with the reason when the method could not decide:
    /// "supported", "not enough info (no evidence)".
    pub fn verdict_label(&self) -> String {
        match self.undecided {
            Some(reason) => format!("{} ({})", self.verdict.label(), reason.label()),
            None => self.verdict.label().to_owned(),
        }
    }

    /// What makes a check consistent, checked before it is stored (the database keeps no
    /// list of verdicts of its own): a check that could not decide says not enough info, and
    /// a confidence is a probability.
    pub fn inconsistency(&self) -> Option<String> {
        if let Some(reason) = self.undecided
            && self.verdict != Verdict::NotEnoughInfo
        {
            return Some(format!(
                "the check says {} yet could not decide ({})",
                self.verdict.label(),
                reason.label()
            ));
        }
        match self.confidence {
            Some(confidence) if !(0.0..=1.0).contains(&confidence) => {
                Some(format!("confidence {confidence} is not a probability"))
            }
            _ => None,
        }
    }
}

/// A stored check: the result plus where it belongs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct StoredCheck {
    pub id: CheckId,
    pub run_id: RunId,
    pub claim_id: Option<ClaimId>,
    pub checked_at: String,
    /// Model calls recorded for this run and claim (their audit record ids).
    pub model_calls: Vec<i64>,
    pub check: ClaimCheck,
    /// The latest human review, if any.
    pub review: Option<Review>,
    /// Evidence published longer before the claim's date than the freshness window allows,
    /// worked out when the check is read (from the claim's date and the setting
    /// `verify.stale_after_days`); empty when the claim has no date or no evidence is that old.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stale: Vec<StaleEvidence>,
}

/// A source of a check published long before the claim was made: evidence that may be out of
/// date for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct StaleEvidence {
    pub title: Option<String>,
    pub url: Option<String>,
    pub document_id: Option<DocumentId>,
    /// The source's publication date (YYYY-MM-DD).
    pub published_at: String,
    /// The claim's date it is compared with (YYYY-MM-DD).
    pub claimed_on: String,
    /// Whole days from the publication to the claim's date, more than the window.
    pub days_before: u32,
    /// The window, in days.
    pub window_days: u32,
    /// For people: "published 2019-03-01, 3 years before the claim's date (2022-05-10)".
    pub note: String,
}

impl StaleEvidence {
    /// The source it is about, as far as this entry names it (title, URL, document).
    pub fn source(&self) -> EvidenceSource {
        EvidenceSource {
            url: self.url.clone(),
            title: self.title.clone(),
            document_id: self.document_id,
            fetched_at: None,
            content_hash: None,
            published_at: Some(self.published_at.clone()),
        }
    }

    /// Whether this is the entry of `source` (the same document, or the same page).
    pub fn is_of(&self, source: &EvidenceSource) -> bool {
        match (self.document_id, source.document_id) {
            (Some(own), Some(other)) => own == other,
            (None, None) => self.url.is_some() && self.url == source.url,
            _ => false,
        }
    }
}

/// A number of days for people: "40 days", "5 months", "3 years".
fn span_of_days(days: u32) -> String {
    let plural =
        |n: u32, unit: &str| if n == 1 { format!("1 {unit}") } else { format!("{n} {unit}s") };
    match days {
        0..=59 => plural(days, "day"),
        60..=729 => plural(days / 30, "month"),
        _ => plural(days / 365, "year"),
    }
}

/// A calendar date (`YYYY-MM-DD`, or the date part of a longer timestamp).
fn calendar_date(text: &str) -> Option<time::Date> {
    let format = time::macros::format_description!("[year]-[month]-[day]");
    time::Date::parse(text.trim().get(..10)?, &format).ok()
}

/// The sources of `check` (those it read and those it cites) published more than
/// `window_days` days before `claimed_on`, each once, in the order they appear. None when the
/// window is 0 (freshness is not checked), the claim's date cannot be read, or no source has a
/// date. A source dated after the claim is never stale.
pub fn stale_evidence(
    check: &ClaimCheck,
    claimed_on: &str,
    window_days: u32,
) -> Vec<StaleEvidence> {
    let Some(claim_date) = calendar_date(claimed_on).filter(|_| window_days > 0) else {
        return Vec::new();
    };
    let mut stale: Vec<StaleEvidence> = Vec::new();
    let sources = check.sources.iter().chain(check.attributions.iter().map(|a| &a.source));
    for source in sources {
        let Some(published) = source.published_at.as_deref().and_then(calendar_date) else {
            continue;
        };
        let days = (claim_date - published).whole_days();
        if days <= i64::from(window_days) || stale.iter().any(|entry| entry.is_of(source)) {
            continue;
        }
        let days_before = u32::try_from(days).unwrap_or(u32::MAX);
        stale.push(StaleEvidence {
            title: source.title.clone(),
            url: source.url.clone(),
            document_id: source.document_id,
            published_at: published.to_string(),
            claimed_on: claim_date.to_string(),
            days_before,
            window_days,
            note: format!(
                "published {published}, {} before the claim's date ({claim_date})",
                span_of_days(days_before)
            ),
        });
    }
    stale
}

/// What a person decided about a machine verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ReviewDecision {
    /// The machine verdict stands.
    Accept,
    /// The reviewer's verdict replaces it.
    Override,
}

impl ReviewDecision {
    pub fn as_str(self) -> &'static str {
        match self {
            ReviewDecision::Accept => "accept",
            ReviewDecision::Override => "override",
        }
    }
}

impl FromStr for ReviewDecision {
    type Err = UnknownValue;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "accept" => Ok(ReviewDecision::Accept),
            "override" => Ok(ReviewDecision::Override),
            _ => Err(UnknownValue {
                kind: "review decision",
                value: s.to_owned(),
                expected: "accept, override",
            }),
        }
    }
}

/// A human review kept beside a machine verdict (never replacing it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Review {
    pub id: ReviewId,
    pub check_id: CheckId,
    pub decision: ReviewDecision,
    /// The reviewer's verdict: the machine's for `accept`, theirs for `override`.
    pub verdict: Verdict,
    pub comment: String,
    pub reviewer: Option<String>,
    pub created_at: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_and_reasons_round_trip() {
        for verdict in Verdict::ALL {
            assert_eq!(verdict.as_str().parse::<Verdict>(), Ok(verdict));
            assert_eq!(verdict.label().parse::<Verdict>(), Ok(verdict));
        }
        for reason in Undecided::ALL {
            assert_eq!(reason.as_str().parse::<Undecided>(), Ok(reason));
            assert_eq!(reason.label().parse::<Undecided>(), Ok(reason));
        }
        // The old two-way words are not verdicts: "not verified" could be either of two.
        assert!("not_verified".parse::<Verdict>().is_err());
        assert!("verified".parse::<Verdict>().is_err());
        assert!("maybe".parse::<Undecided>().is_err());
        assert_eq!(serde_json::to_string(&Verdict::NotEnoughInfo).unwrap(), "\"not_enough_info\"");
        assert_eq!(serde_json::to_string(&Undecided::NoValidUrl).unwrap(), "\"no_valid_url\"");
    }

    fn dated(url: &str, document: Option<i64>, published: Option<&str>) -> EvidenceSource {
        EvidenceSource {
            url: Some(url.into()),
            title: Some(format!("Title of {url}")),
            document_id: document.map(DocumentId),
            fetched_at: None,
            content_hash: None,
            published_at: published.map(str::to_owned),
        }
    }

    fn check_with(sources: Vec<EvidenceSource>, cited: Vec<EvidenceSource>) -> ClaimCheck {
        ClaimCheck {
            envelope: Envelope {
                method: "corpus-nli".into(),
                parameters: crate::MethodParameters::default(),
                model: "scripted".into(),
                nli_model: None,
                tokens: TokenUse::default(),
                explanation: String::new(),
            },
            claim: "Unemployment is 4%.".into(),
            verdict: Verdict::Supported,
            undecided: None,
            confidence: Some(0.9),
            attributions: cited
                .into_iter()
                .map(|source| Attribution {
                    source,
                    sentences: vec!["Unemployment was 4%.".into()],
                    entailment: 0.9,
                    claim_part: None,
                    pages: Vec::new(),
                })
                .collect(),
            sources,
            premises: Vec::new(),
            left_out: Vec::new(),
            detail: None,
        }
    }

    #[test]
    fn evidence_older_than_the_window_before_the_claim_is_stale() {
        let old = dated("https://a.example/old", Some(1), Some("2019-03-01"));
        let recent = dated("https://a.example/recent", Some(2), Some("2022-01-10"));
        let undated = dated("https://a.example/undated", Some(3), None);
        let later = dated("https://a.example/later", Some(4), Some("2024-01-01"));
        let old_page = dated("https://b.example/page", None, Some("2020-05-10T08:00:00Z"));
        let check = check_with(
            vec![old.clone(), recent, undated, later, old_page.clone()],
            vec![old.clone(), old_page.clone()],
        );
        let stale = stale_evidence(&check, "2022-05-10", 365);
        // Each old source once, though it is both read and cited; the rest are not stale.
        assert_eq!(stale.len(), 2, "{stale:?}");
        assert!(stale[0].is_of(&old) && !stale[0].is_of(&old_page));
        assert_eq!(stale[0].published_at, "2019-03-01");
        assert_eq!(stale[0].days_before, 1166);
        assert_eq!(
            stale[0].note,
            "published 2019-03-01, 3 years before the claim's date (2022-05-10)"
        );
        assert!(stale[1].is_of(&old_page));
        assert_eq!(stale[1].published_at, "2020-05-10");
        assert_eq!(stale[1].days_before, 730);
        // A wider window lets the page through; exactly the window is not stale.
        assert_eq!(stale_evidence(&check, "2022-05-10", 730).len(), 1);
        // No window, or a claim date that is no date: nothing is flagged.
        assert!(stale_evidence(&check, "2022-05-10", 0).is_empty());
        assert!(stale_evidence(&check, "last spring", 365).is_empty());
        assert!(stale_evidence(&check, "", 365).is_empty());
    }
}
