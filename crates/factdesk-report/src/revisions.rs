//! Exports of revisions (RARR, CoVe): each passage's original beside its revision, the changes
//! inline, every edit with the question and evidence behind it, what backs the parts left as
//! they were, the changes refused and why, and the metrics. Markdown and a standalone HTML page
//! are rendered from templates (`templates/revisions.md`, `.html`) by minijinja, the HTML one
//! escaping everything it is given; JSON is the outcomes as stored.

use std::io::Write;

use factdesk_model::{EvidenceSentences, Outcome, Revision, RevisionMetrics, StoredOutcome};
use serde::{Deserialize, Serialize};

use crate::escape::is_web_link;
use crate::{Format, ReportError};

const HTML: &str = include_str!("../templates/revisions.html");
const MARKDOWN: &str = include_str!("../templates/revisions.md");

/// What to export: a title, when and by what it was generated, and the revisions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RevisionReport {
    pub title: String,
    pub generated_at: String,
    pub generator: String,
    /// Stored outcomes; those that are not revisions are left out of every format.
    pub items: Vec<StoredOutcome>,
}

#[derive(Serialize)]
struct Context<'a> {
    title: &'a str,
    generated_at: &'a str,
    generator: &'a str,
    items: Vec<Item>,
}

#[derive(Serialize)]
struct Item {
    heading: String,
    method: String,
    model: String,
    nli_model: Option<String>,
    evidence: String,
    checked_at: String,
    explanation: String,
    original: String,
    revised: String,
    parts: Vec<Part>,
    edits: Vec<EditRow>,
    backed: Vec<Backed>,
    refused: Vec<Refused>,
    metrics: Vec<(String, String)>,
}

/// A piece of the original: unchanged text, or an edit (numbered from 1).
#[derive(Serialize)]
struct Part {
    text: String,
    number: Option<usize>,
    before: String,
    after: String,
}

#[derive(Serialize)]
struct EditRow {
    before: String,
    after: String,
    question: Option<String>,
    agreement: Option<String>,
    evidence: Vec<Quote>,
}

#[derive(Serialize)]
struct Quote {
    text: String,
    name: String,
    /// An http(s) URL to link, percent-encoding what would end a Markdown autolink.
    link: Option<String>,
}

#[derive(Serialize)]
struct Backed {
    part: String,
    question: String,
    evidence: Vec<Quote>,
}

#[derive(Serialize)]
struct Refused {
    before: String,
    after: String,
    reason: String,
}

fn quotes(evidence: &[EvidenceSentences]) -> Vec<Quote> {
    evidence
        .iter()
        .map(|evidence| {
            let source = &evidence.source;
            let name = source
                .title
                .clone()
                .or_else(|| source.url.clone())
                .or_else(|| source.document_id.map(|id| format!("document {id}")))
                .unwrap_or_else(|| "evidence".into());
            let link = source
                .url
                .as_deref()
                .filter(|url| is_web_link(url))
                .map(|url| url.replace('<', "%3C").replace('>', "%3E").replace(' ', "%20"));
            Quote { text: evidence.sentences.join(" "), name, link }
        })
        .collect()
}

fn parts(revision: &Revision) -> Vec<Part> {
    let mut parts = Vec::new();
    let mut at = 0;
    let original = &revision.original;
    for (index, edit) in revision.edits.iter().enumerate() {
        // Stored revisions were checked whole; a part that does not fit is shown as it is.
        let Some(text) = original.get(at..edit.start) else { continue };
        parts.push(Part {
            text: text.to_owned(),
            number: None,
            before: String::new(),
            after: String::new(),
        });
        parts.push(Part {
            text: String::new(),
            number: Some(index + 1),
            before: edit.before.clone(),
            after: edit.after.clone(),
        });
        at = edit.start + edit.before.len();
    }
    parts.push(Part {
        text: original.get(at..).unwrap_or_default().to_owned(),
        number: None,
        before: String::new(),
        after: String::new(),
    });
    parts
}

fn metric_rows(metrics: &RevisionMetrics) -> Vec<(String, String)> {
    let figure = |value: Option<f64>| value.map(|v| format!("{v:.3}"));
    let pair = |before: Option<f64>, after: Option<f64>| match (figure(before), figure(after)) {
        (Some(before), Some(after)) => Some(format!("{before} → {after}")),
        _ => None,
    };
    [
        ("Edit distance to the original", figure(Some(metrics.edit_distance))),
        ("Similarity to the original", figure(metrics.similarity)),
        (
            "Entailment by the sources (before → after)",
            pair(metrics.entailment_before, metrics.entailment_after),
        ),
        (
            "Edit distance to the reference",
            pair(metrics.reference_distance_before, metrics.reference_distance_after),
        ),
        (
            "Similarity to the reference",
            pair(metrics.reference_similarity_before, metrics.reference_similarity_after),
        ),
    ]
    .into_iter()
    .filter_map(|(name, value)| Some((name.to_owned(), value?)))
    .chain(metrics.judge.iter().map(|score| {
        (
            format!("Judge, {} (1–5, before → after)", score.criterion),
            format!("{:.2} → {:.2}", score.before, score.after),
        )
    }))
    .chain(metrics.notes.iter().map(|note| ("Not measured".to_owned(), note.clone())))
    .collect()
}

fn item(stored: &StoredOutcome, revision: &Revision) -> Item {
    let envelope = &revision.envelope;
    let heading = match stored.subject {
        Some(subject) => format!("{subject} (outcome {})", stored.id),
        None => format!("Text (outcome {})", stored.id),
    };
    Item {
        heading,
        method: envelope.method.clone(),
        model: envelope.model.clone(),
        nli_model: envelope.nli_model.clone(),
        evidence: envelope.parameters.revision().map_or("?", |r| r.evidence.as_str()).to_owned(),
        checked_at: stored.checked_at.clone(),
        explanation: envelope.explanation.clone(),
        original: revision.original.clone(),
        revised: revision.revised.clone(),
        parts: parts(revision),
        edits: revision
            .edits
            .iter()
            .map(|edit| EditRow {
                before: edit.before.clone(),
                after: edit.after.clone(),
                question: edit.question.clone(),
                agreement: edit.agreement.map(|a| format!("{a:.2}")),
                evidence: quotes(&edit.evidence),
            })
            .collect(),
        backed: revision
            .steps
            .iter()
            .filter(|step| step.agrees == Some(true))
            .map(|step| Backed {
                part: revision.original.get(step.start..step.end).unwrap_or_default().to_owned(),
                question: step.question.clone(),
                evidence: quotes(&step.evidence),
            })
            .collect(),
        refused: revision
            .rejected
            .iter()
            .map(|change| Refused {
                before: change.before.clone(),
                after: change.after.clone(),
                reason: change.reason.clone(),
            })
            .collect(),
        metrics: revision.metrics.as_ref().map(metric_rows).unwrap_or_default(),
    }
}

/// Writes `report` to `out` in `format`: Markdown, HTML or JSON (revisions have no CSV or
/// ClaimReview form).
pub fn render_revisions(
    report: &RevisionReport,
    format: Format,
    out: &mut dyn Write,
) -> Result<(), ReportError> {
    let revisions: Vec<(&StoredOutcome, &Revision)> = report
        .items
        .iter()
        .filter_map(|stored| match &stored.outcome {
            Outcome::Revision(revision) => Some((stored, revision)),
            _ => None,
        })
        .collect();
    let Some((template, html)) = crate::templates::page_or_json(
        format,
        (MARKDOWN, HTML),
        "revisions",
        || {
            let kept: Vec<&StoredOutcome> = revisions.iter().map(|(stored, _)| *stored).collect();
            serde_json::json!({
                "title": report.title,
                "generated_at": report.generated_at,
                "generator": report.generator,
                "items": kept,
            })
        },
        out,
    )?
    else {
        return Ok(());
    };
    let context = Context {
        title: &report.title,
        generated_at: &report.generated_at,
        generator: &report.generator,
        items: revisions.iter().map(|(stored, revision)| item(stored, revision)).collect(),
    };
    let rendered = crate::templates::render("revisions", template, html, true, context)?;
    out.write_all(rendered.as_bytes())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use factdesk_model::{
        CheckId, Edit, Envelope, EvidenceSource, PassageId, RejectedChange, RunId, SubjectId,
        TokenUse, VerificationStep,
    };

    use super::*;

    fn source(url: &str) -> EvidenceSource {
        EvidenceSource {
            url: Some(url.into()),
            title: Some("Tower <b>history</b>".into()),
            document_id: None,
            fetched_at: None,
            content_hash: None,
            published_at: None,
        }
    }

    fn report() -> RevisionReport {
        let original = "The tower opened in 1899. It is <script>alert(1)</script> tall.";
        let evidence = vec![EvidenceSentences {
            source: source("https://example.org/tower?a=1&b=<2>"),
            sentences: vec!["It opened in 1889 *officially*.".into()],
        }];
        let revision = Revision {
            envelope: Envelope {
                method: "rarr".into(),
                parameters: serde_json::json!({"evidence": "web"}).into(),
                model: "scripted".into(),
                nli_model: None,
                tokens: TokenUse::default(),
                explanation: "One date disagreed.".into(),
            },
            original: original.into(),
            revised: original.replace("1899", "1889"),
            edits: vec![Edit {
                start: 20,
                before: "1899".into(),
                after: "1889".into(),
                question: Some("When did the tower open?".into()),
                evidence: evidence.clone(),
                agreement: Some(0.0),
            }],
            steps: vec![VerificationStep {
                start: 26,
                end: original.len(),
                question: "How tall is it?".into(),
                answer: None,
                evidence: vec![EvidenceSentences {
                    source: source("javascript:alert(2)"),
                    sentences: vec!["It is tall.".into()],
                }],
                agrees: Some(true),
                agreement: Some(1.0),
                note: None,
            }],
            rejected: vec![RejectedChange {
                before: "tall".into(),
                after: "short".into(),
                reason: "no answer disagreed".into(),
            }],
            metrics: Some(RevisionMetrics { edit_distance: 0.016, ..RevisionMetrics::default() }),
        };
        RevisionReport {
            title: "desk · revisions".into(),
            generated_at: "2026-11-25T00:00:00Z".into(),
            generator: "Factdesk test".into(),
            items: vec![StoredOutcome {
                id: CheckId(4),
                run_id: RunId(2),
                subject: Some(SubjectId::Passage(PassageId(3))),
                checked_at: "2026-11-25T00:00:00Z".into(),
                model_calls: Vec::new(),
                outcome: Outcome::Revision(revision),
            }],
        }
    }

    #[test]
    fn an_insertion_or_a_deletion_shows_nothing_on_its_empty_side() {
        let mut report = report();
        if let Outcome::Revision(revision) = &mut report.items[0].outcome {
            revision.edits[0] = Edit {
                start: 25,
                before: String::new(),
                after: " officially".into(),
                ..revision.edits[0].clone()
            };
            revision.revised = revision.original.replacen(".", " officially.", 1);
        }
        let mut out = Vec::new();
        render_revisions(&report, Format::Markdown, &mut out).unwrap();
        let md = String::from_utf8(out).unwrap();
        assert!(md.contains("1. (nothing) → **officially**"), "{md}");
        assert!(!md.contains("~~~~"), "{md}");
    }

    fn rendered(format: Format) -> String {
        let mut out = Vec::new();
        render_revisions(&report(), format, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn html_shows_the_changes_inline_and_escapes_everything() {
        let html = rendered(Format::Html);
        assert!(html.contains("<del>1899</del><ins>1889</ins><sup>1</sup>"), "{html}");
        assert!(!html.contains("<script>"), "{html}");
        assert!(html.contains("&lt;script&gt;"));
        assert!(
            html.contains("Tower &lt;b&gt;history&lt;&#x2f;b&gt;")
                || html.contains("Tower &lt;b&gt;history&lt;/b&gt;"),
            "{html}"
        );
        // Only http(s) sources become links; the javascript: one is its name alone.
        assert!(
            html.contains("href=\"https:&#x2f;&#x2f;example.org")
                || html.contains("href=\"https://example.org"),
            "{html}"
        );
        assert!(!html.contains("href=\"javascript"), "{html}");
        assert!(html.contains("When did the tower open?") && html.contains("no answer disagreed"));
        assert!(html.contains("Edit distance to the original") && html.contains("0.016"));
        assert!(html.contains("passage 3 (outcome 4)"), "{html}");
    }

    #[test]
    fn markdown_escapes_web_text_and_links_only_web_urls() {
        let md = rendered(Format::Markdown);
        assert!(md.contains("~~1899~~ → **1889**"), "{md}");
        assert!(md.contains("\\*officially\\*"), "{md}");
        assert!(md.contains("<https://example.org/tower?a=1&b=%3C2%3E>"), "{md}");
        assert!(!md.contains("<javascript:"), "{md}");
        assert!(md.contains("What backs the rest"), "{md}");
    }

    #[test]
    fn json_keeps_the_outcomes_and_other_formats_are_refused() {
        let json: serde_json::Value = serde_json::from_str(&rendered(Format::Json)).unwrap();
        assert_eq!(json["items"][0]["outcome"]["kind"], "revision");
        assert_eq!(json["items"][0]["outcome"]["edits"][0]["after"], "1889");
        let error = render_revisions(&report(), Format::Csv, &mut Vec::new()).unwrap_err();
        assert!(error.to_string().contains("md, html or json"), "{error}");
    }
}
