//! Exports of a summary written from several sources (Truthful Text Summarization and its
//! baselines): the question and the answer, the source table (correlated-agreement score,
//! majority score, kept or dropped, near-duplicates collapsed into it), in HTML a bar chart of
//! the scores with the threshold τ drawn across it, and for each source the claims it was
//! scored on with every source's stance on each (the stance matrix). Markdown and HTML come
//! from templates (`templates/sourced.md`, `.html`, the HTML one escaping everything it is
//! given); JSON is the stored summary as it is.

use std::io::Write;

use factdesk_model::SourcedSummary;
use factdesk_model::ciber::Stance;
use serde::{Deserialize, Serialize};

use crate::escape::is_web_link;
use crate::{Format, ReportError};

const HTML: &str = include_str!("../templates/sourced.html");
const MARKDOWN: &str = include_str!("../templates/sourced.md");

/// What to export.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourcedReport {
    pub title: String,
    pub generated_at: String,
    pub generator: String,
    /// The stored summary's id.
    pub id: i64,
    pub summary: SourcedSummary,
}

#[derive(Serialize)]
struct Row {
    number: usize,
    name: String,
    /// A web link to the source, when it has one.
    link: Option<String>,
    score: String,
    majority: String,
    used: bool,
    note: Option<String>,
}

/// One source's claims and the stance matrix on them: per claim its text and one mark per
/// source ("supports", "contradicts", "abstains").
#[derive(Serialize)]
struct Matrix {
    source: usize,
    name: String,
    draft: String,
    claims: Vec<(String, Vec<&'static str>)>,
}

/// The HTML bar chart: numbers only, computed here.
#[derive(Serialize)]
struct Chart {
    width: f64,
    height: f64,
    /// x of score 0 and of τ.
    zero: f64,
    tau: f64,
    /// Per source: y, x of the bar's left end, its width, whether it was kept, its label.
    bars: Vec<(f64, f64, f64, bool, String)>,
}

#[derive(Serialize)]
struct Context<'a> {
    title: &'a str,
    generated_at: &'a str,
    generator: &'a str,
    id: i64,
    method: &'a str,
    question: &'a str,
    text: &'a str,
    explanation: &'a str,
    tau: Option<f64>,
    kept: usize,
    rows: Vec<Row>,
    matrices: Vec<Matrix>,
    chart: Chart,
}

fn name_of(summary: &SourcedSummary, index: usize) -> String {
    let source = &summary.sources[index].source;
    source
        .title
        .clone()
        .or_else(|| source.url.clone())
        .or_else(|| source.document_id.map(|id| format!("document {id}")))
        .unwrap_or_else(|| format!("source {}", index + 1))
}

fn mark(stance: Option<&Stance>) -> &'static str {
    match stance {
        Some(Stance::Support) => "supports",
        Some(Stance::Refute) => "contradicts",
        _ => "abstains",
    }
}

const LEFT: f64 = 220.0;
const PLOT_W: f64 = 360.0;
const BAR_H: f64 = 18.0;

fn chart(summary: &SourcedSummary, tau: f64) -> Chart {
    let scores: Vec<f64> = summary.sources.iter().map(|s| s.score).collect();
    let lo = scores.iter().copied().fold(0.0_f64.min(tau), f64::min).min(-0.1);
    let hi = scores.iter().copied().fold(0.0_f64.max(tau), f64::max).max(0.1);
    let x_of = |v: f64| LEFT + PLOT_W * (v - lo) / (hi - lo);
    let zero = x_of(0.0);
    let bars = scores
        .iter()
        .enumerate()
        .map(|(i, &score)| {
            let (a, b) = (x_of(score.min(0.0)), x_of(score.max(0.0)));
            let label = format!("{}. {}", i + 1, name_of(summary, i));
            let label = if label.chars().count() > 30 {
                format!("{}…", label.chars().take(29).collect::<String>())
            } else {
                label
            };
            (10.0 + i as f64 * (BAR_H + 6.0), a, (b - a).max(1.0), summary.sources[i].used, label)
        })
        .collect::<Vec<_>>();
    Chart {
        width: LEFT + PLOT_W + 70.0,
        height: 20.0 + scores.len() as f64 * (BAR_H + 6.0),
        zero,
        tau: x_of(tau),
        bars,
    }
}

/// Writes `report` to `out` as Markdown, HTML or JSON.
pub fn render_sourced(
    report: &SourcedReport,
    format: Format,
    out: &mut dyn Write,
) -> Result<(), ReportError> {
    let Some((template, html)) =
        crate::templates::page_or_json(format, (MARKDOWN, HTML), "summaries", || report, out)?
    else {
        return Ok(());
    };
    let summary = &report.summary;
    // τ is in the settings TTS ran with (the first summary's when the answer was written again).
    let tau = (summary.envelope.parameters.summary())
        .map(|settings| settings.tau)
        .filter(|_| !summary.claims.is_empty());
    let rows = summary
        .sources
        .iter()
        .enumerate()
        .map(|(i, scored)| Row {
            number: i + 1,
            name: name_of(summary, i),
            link: scored.source.url.clone().filter(|url| is_web_link(url)),
            score: format!("{:.3}", scored.score),
            majority: summary
                .claims
                .iter()
                .find(|c| c.source == i)
                .map_or_else(|| "n/a".to_owned(), |c| format!("{:.3}", c.majority)),
            used: scored.used,
            note: scored.note.clone(),
        })
        .collect();
    let matrices = summary
        .claims
        .iter()
        .filter(|entry| entry.source < summary.sources.len())
        .map(|entry| Matrix {
            source: entry.source + 1,
            name: name_of(summary, entry.source),
            draft: entry.draft.clone(),
            claims: entry
                .claims
                .iter()
                .enumerate()
                .map(|(k, claim)| {
                    let marks = (0..summary.sources.len())
                        .map(|j| mark(entry.stances.get(j).and_then(|row| row.get(k))))
                        .collect();
                    (claim.clone(), marks)
                })
                .collect(),
        })
        .collect();
    let context = Context {
        title: &report.title,
        generated_at: &report.generated_at,
        generator: &report.generator,
        id: report.id,
        method: &summary.envelope.method,
        question: summary.question.as_deref().unwrap_or_default(),
        text: &summary.text,
        explanation: &summary.envelope.explanation,
        tau,
        kept: summary.sources.iter().filter(|s| s.used).count(),
        rows,
        matrices,
        chart: chart(summary, tau.unwrap_or(0.0)),
    };
    let page = crate::templates::render("sourced", template, html, true, context)?;
    out.write_all(page.as_bytes())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use factdesk_model::{Envelope, EvidenceSource, ScoredSource, SourceClaims, TokenUse};

    use super::*;

    fn source(title: &str, url: Option<&str>, score: f64, used: bool) -> ScoredSource {
        ScoredSource {
            source: EvidenceSource {
                url: url.map(str::to_owned),
                title: Some(title.to_owned()),
                document_id: Some(factdesk_model::DocumentId(1)),
                fetched_at: None,
                content_hash: None,
                published_at: None,
            },
            score,
            used,
            note: None,
        }
    }

    fn report() -> SourcedReport {
        let mut liar = source("Liar <script>", Some("javascript:alert(1)"), -0.5, false);
        liar.note = Some("near-duplicates collapsed into it: copy (document 9)".into());
        SourcedReport {
            title: "Why did the bridge close?".into(),
            generated_at: "2026-11-25T00:00:00Z".into(),
            generator: "Factdesk test".into(),
            id: 7,
            summary: SourcedSummary {
                envelope: Envelope {
                    method: "tts".into(),
                    parameters: serde_json::json!({
                        "tau": 0.06, "seed": 0, "duplicate_threshold": 0.8, "max_claims": 8,
                        "stance_batch": 8, "document_words": 600,
                    })
                    .into(),
                    model: "mock".into(),
                    nli_model: None,
                    tokens: TokenUse::default(),
                    explanation: "2 of 3 kept".into(),
                },
                question: Some("Why did the bridge <close>?".into()),
                text: "Cracks were found *in* two piers.".into(),
                sources: vec![
                    source("Gazette", Some("https://example.org/a"), 0.4, true),
                    source("Herald", None, 0.25, true),
                    liar,
                ],
                claims: vec![SourceClaims {
                    source: 2,
                    draft: "The bridge closed. Cracks were found.".into(),
                    claims: vec!["The bridge closed.".into(), "Cracks were found.".into()],
                    stances: vec![
                        vec![Stance::Support, Stance::Support],
                        vec![Stance::Support, Stance::Neutral],
                        vec![Stance::Refute, Stance::Refute],
                    ],
                    majority: -1.0,
                    permutation: vec![1, 0],
                }],
            },
        }
    }

    fn render(format: Format) -> String {
        let mut out = Vec::new();
        render_sourced(&report(), format, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn html_shows_scores_tau_and_the_stance_matrix_with_everything_escaped() {
        let html = render(Format::Html);
        assert!(html.contains("Why did the bridge &lt;close&gt;?"), "{html}");
        assert!(!html.contains("<script>") && html.contains("Liar &lt;script&gt;"));
        // A link only where the source has a web address.
        assert!(html.contains("href=\"https:&#x2f;&#x2f;example.org&#x2f;a\""), "{html}");
        assert!(!html.contains("javascript:"), "{html}");
        // One bar per source, the dropped one marked, and the τ line.
        assert_eq!(html.matches("class=\"bar kept\"").count(), 2, "{html}");
        assert_eq!(html.matches("class=\"bar dropped\"").count(), 1, "{html}");
        assert!(html.contains("τ = 0.06"), "{html}");
        // The matrix: the liar contradicts both claims drafted without it.
        assert_eq!(html.matches("title=\"contradicts\"").count(), 2, "{html}");
        assert_eq!(html.matches("title=\"abstains\"").count(), 1, "{html}");
        assert!(html.contains("near-duplicates collapsed into it: copy (document 9)"));
    }

    #[test]
    fn markdown_has_the_table_and_the_matrix_and_json_the_summary() {
        let md = render(Format::Markdown);
        assert!(md.contains("| 3 | Liar \\<script\\> | -0.500 | -1.000 | dropped |"), "{md}");
        assert!(md.contains("Cracks were found \\*in\\* two piers."), "{md}");
        assert!(md.contains("| Cracks were found. | + | · | − |"), "{md}");
        let json: serde_json::Value = serde_json::from_str(&render(Format::Json)).unwrap();
        assert_eq!(json["summary"]["sources"][2]["used"], false);
        assert_eq!(json["id"], 7);
        let mut out = Vec::new();
        assert!(render_sourced(&report(), Format::Csv, &mut out).is_err());
    }
}
