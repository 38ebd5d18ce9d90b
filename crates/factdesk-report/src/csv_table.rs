//! The CSV export: one row per claim, for spreadsheets. Lists inside a cell are joined (tags with
//! `;`, URLs, fetch times and hashes with spaces and in the same order, evidence sentences with
//! ` | `). Every cell passes through [`guard_spreadsheet_cell`], so text from the web or a user
//! cannot become a spreadsheet formula.
//!
//! The columns are [`COLUMNS`]; the first seventeen are the agreed export, the next four (NLI
//! model, reviewer, review time, explanation) complete what every format must show, and the rest
//! came later: why a method could not decide, flagged sources, every source a check read, and
//! CIBER's strongest supporting and refuting documents and its verdict under each rule, the
//! claim's date, the evidence published long before it, and what of the claim the deciding
//! premise states differently or not at all.

use std::io::Write;

use factdesk_model::ciber::CiberDetail;
use factdesk_model::{Attribution, ClaimCheck, EvidenceSource, StoredCheck};

use crate::escape::guard_spreadsheet_cell;
use crate::{Report, ReportItem, UNCHECKED, format_probability};

/// The header row, in order.
pub const COLUMNS: [&str; 30] = [
    "claim_id",
    "claim",
    "tags",
    "gold_label",
    "method",
    "model",
    "verdict",
    "confidence",
    "review_decision",
    "review_verdict",
    "review_comment",
    "attribution_urls",
    "attribution_fetched_at",
    "attribution_hashes",
    "evidence",
    "tokens",
    "checked_at",
    "nli_model",
    "reviewer",
    "reviewed_at",
    "explanation",
    // Why the method could not decide (its verdict is then not_enough_info); empty if judged.
    "undecided",
    // Sources holding text addressed to AI systems (kept out of the premises), "; "-joined.
    "flagged_sources",
    // Every source the check read (URLs, or document:<id>), space-joined.
    "sources",
    // CIBER: the document that supports the claim most strongly, and the one that refutes it.
    "supporting_source",
    "refuting_source",
    // CIBER: the claim's verdict under each fusion rule and by the RAG baseline
    // ("wp:supported wig:… wbu:… meta:… rag:…").
    "rule_verdicts",
    // When the claim was made (YYYY-MM-DD), if known.
    "claimed_on",
    // Sources published more than verify.stale_after_days before the claim's date:
    // "<source> published <date>", "; "-joined.
    "old_evidence",
    // The deciding premise's facts: "claim: 412 metres · evidence: 212 metres; not in the
    // evidence: 1887" (`deciding_premise`, `FactAlignment::summary`).
    "conflicts",
];

/// Stands in for a missing fetch time or hash, so the space-joined lists stay aligned.
const MISSING: &str = "unknown";

pub(crate) fn write_csv(report: &Report, out: &mut dyn Write) -> Result<(), csv::Error> {
    let mut writer = csv::Writer::from_writer(out);
    writer.write_record(COLUMNS)?;
    for item in &report.items {
        let row = row_for(item);
        writer.write_record(row.iter().map(|cell| guard_spreadsheet_cell(cell).into_owned()))?;
    }
    writer.flush()?;
    Ok(())
}

fn row_for(item: &ReportItem) -> [String; COLUMNS.len()] {
    let claim_id = item.claim_id.map(|id| id.to_string()).unwrap_or_default();
    let tags = item.tags.join(";");
    let gold_label = item.gold_label.map(|label| label.as_str().to_owned()).unwrap_or_default();
    let Some(stored) = &item.check else {
        let mut row: [String; COLUMNS.len()] = Default::default();
        row[0] = claim_id;
        row[1] = item.claim_text.clone();
        row[2] = tags;
        row[3] = gold_label;
        row[6] = UNCHECKED.to_owned();
        let claimed_on = COLUMNS.iter().position(|column| *column == "claimed_on");
        if let Some(at) = claimed_on {
            row[at] = item.claimed_on.clone().unwrap_or_default();
        }
        return row;
    };
    let StoredCheck { check, review, checked_at, stale, .. } = stored;
    let attributions = &check.attributions;
    [
        claim_id,
        item.claim_text.clone(),
        tags,
        gold_label,
        check.envelope.method.clone(),
        check.envelope.model.clone(),
        check.verdict.as_str().to_owned(),
        check.confidence.map(format_probability).unwrap_or_default(),
        review.as_ref().map(|review| review.decision.as_str().to_owned()).unwrap_or_default(),
        review.as_ref().map(|review| review.verdict.as_str().to_owned()).unwrap_or_default(),
        review.as_ref().map(|review| review.comment.clone()).unwrap_or_default(),
        join_attributions(attributions, attribution_url),
        join_attributions(attributions, |attribution| {
            attribution.source.fetched_at.clone().unwrap_or_else(|| MISSING.to_owned())
        }),
        join_attributions(attributions, |attribution| {
            attribution.source.content_hash.clone().unwrap_or_else(|| MISSING.to_owned())
        }),
        attributions
            .iter()
            .flat_map(|attribution| &attribution.sentences)
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join(" | "),
        check.envelope.tokens.total().to_string(),
        checked_at.clone(),
        check.envelope.nli_model.clone().unwrap_or_default(),
        review.as_ref().and_then(|review| review.reviewer.clone()).unwrap_or_default(),
        review.as_ref().map(|review| review.created_at.clone()).unwrap_or_default(),
        check.envelope.explanation.clone(),
        check.undecided.map(|reason| reason.as_str().to_owned()).unwrap_or_default(),
        crate::flagged_sources(check).join("; "),
        check.sources.iter().map(source_reference).collect::<Vec<_>>().join(" "),
        ciber_source(check, |detail| detail.strongest_support),
        ciber_source(check, |detail| detail.strongest_refute),
        check.ciber().map(rule_verdicts).unwrap_or_default(),
        item.claimed_on.clone().unwrap_or_default(),
        stale
            .iter()
            .map(|stale| {
                format!("{} published {}", source_reference(&stale.source()), stale.published_at)
            })
            .collect::<Vec<_>>()
            .join("; "),
        crate::facts::summary(check).unwrap_or_default(),
    ]
}

/// The source of the CIBER document `pick` names, if the check is CIBER's and names one.
fn ciber_source(check: &ClaimCheck, pick: impl Fn(&CiberDetail) -> Option<usize>) -> String {
    check
        .ciber()
        .and_then(|detail| pick(detail).and_then(|index| detail.documents.get(index)))
        .and_then(|document| check.sources.get(document.source))
        .map(source_reference)
        .unwrap_or_default()
}

fn rule_verdicts(detail: &CiberDetail) -> String {
    let rules = detail
        .claim
        .iter()
        .map(|verdict| format!("{}:{}", verdict.rule.as_str(), verdict.stance.verdict().as_str()));
    let rag = detail.rag.iter().map(|rag| format!("rag:{}", rag.stance.verdict().as_str()));
    rules.chain(rag).collect::<Vec<_>>().join(" ")
}

fn join_attributions(
    attributions: &[Attribution],
    field: impl Fn(&Attribution) -> String,
) -> String {
    attributions.iter().map(field).collect::<Vec<_>>().join(" ")
}

/// An attribution's URL with any white space encoded (so the space-joined list splits cleanly),
/// or `document:<id>` for a corpus document without one.
fn attribution_url(attribution: &Attribution) -> String {
    source_reference(&attribution.source)
}

/// A source's URL with any white space encoded, or `document:<id>` for a corpus document
/// without one.
fn source_reference(source: &EvidenceSource) -> String {
    match (&source.url, source.document_id) {
        (Some(url), _) => url.replace(char::is_whitespace, "%20"),
        (None, Some(document)) => format!("document:{document}"),
        (None, None) => MISSING.to_owned(),
    }
}
