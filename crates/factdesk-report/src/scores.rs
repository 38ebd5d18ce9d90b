//! Exports of SGSS scores: each summary's figures, its user-experience curve X(l) line by line
//! (in HTML also drawn as an inline SVG line chart, every summary on one chart), the labels a
//! model gave and what was not labelled. Markdown and HTML come from templates
//! (`templates/scores.md`, `.html`) rendered by minijinja, the HTML one escaping everything it
//! is given; JSON is the scores as computed.

use std::io::Write;

use serde::{Deserialize, Serialize};

use crate::{Format, ReportError};

const HTML: &str = include_str!("../templates/scores.html");
const MARKDOWN: &str = include_str!("../templates/scores.md");

/// What to export.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoreReport {
    pub title: String,
    pub generated_at: String,
    pub generator: String,
    pub summaries: Vec<ScoredSummary>,
}

/// One summary's scores.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoredSummary {
    pub name: String,
    /// Each line as a reader sees it (overview, headings, statements), in order.
    pub lines: Vec<String>,
    /// X(l) for each line.
    pub x: Vec<f64>,
    pub xux: f64,
    pub xux_f: f64,
    pub xux_g: f64,
    pub comp: Option<f64>,
    pub sgss: Option<f64>,
    pub missing: Vec<String>,
    /// Labels a model gave: element, grade, model, reason.
    pub machine_labels: Vec<(String, f64, String, String)>,
    pub notes: Vec<String>,
}

#[derive(Serialize)]
struct Context<'a> {
    title: &'a str,
    generated_at: &'a str,
    generator: &'a str,
    summaries: &'a [ScoredSummary],
    chart: Chart,
    /// One row per line number: the number and each summary's X(l) there ("" past its end).
    curve: Vec<(usize, Vec<String>)>,
}

/// The HTML line chart: numbers only, computed here.
#[derive(Serialize)]
struct Chart {
    width: f64,
    height: f64,
    /// Per summary: its colour and the SVG points of its curve.
    series: Vec<(String, String)>,
    /// Tick labels of the x axis: (position, line number).
    ticks: Vec<(f64, usize)>,
    /// The y axis's grid: (position, value).
    grid: Vec<(f64, String)>,
}

const COLOURS: [&str; 6] = ["#1f5fa8", "#b4451f", "#2e7d32", "#7b3fa0", "#8a6d00", "#00707a"];
const LEFT: f64 = 40.0;
const TOP: f64 = 10.0;
const PLOT_W: f64 = 520.0;
const PLOT_H: f64 = 200.0;

fn chart(summaries: &[ScoredSummary]) -> Chart {
    let lines = summaries.iter().map(|s| s.x.len()).max().unwrap_or(0).max(2);
    let top = summaries.iter().flat_map(|s| s.x.iter().copied()).fold(1.0_f64, f64::max);
    let x_of = |l: usize| LEFT + PLOT_W * (l - 1) as f64 / (lines - 1) as f64;
    let y_of = |v: f64| TOP + PLOT_H * (1.0 - v.clamp(0.0, top) / top);
    let series = summaries
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let points: Vec<String> =
                s.x.iter()
                    .enumerate()
                    .map(|(l, v)| format!("{:.1},{:.1}", x_of(l + 1), y_of(*v)))
                    .collect();
            (COLOURS[i % COLOURS.len()].to_owned(), points.join(" "))
        })
        .collect();
    let step = lines.div_ceil(10).max(1);
    let ticks = (1..=lines).filter(|l| (l - 1) % step == 0).map(|l| (x_of(l), l)).collect();
    let grid =
        (0..=4).map(|k| top * k as f64 / 4.0).map(|v| (y_of(v), format!("{v:.2}"))).collect();
    Chart { width: LEFT + PLOT_W + 20.0, height: TOP + PLOT_H + 30.0, series, ticks, grid }
}

/// Writes `report` to `out` as Markdown, HTML or JSON.
pub fn render_scores(
    report: &ScoreReport,
    format: Format,
    out: &mut dyn Write,
) -> Result<(), ReportError> {
    let Some((template, html)) =
        crate::templates::page_or_json(format, (MARKDOWN, HTML), "scores", || report, out)?
    else {
        return Ok(());
    };
    let rows = report.summaries.iter().map(|s| s.x.len()).max().unwrap_or(0);
    let curve = (0..rows)
        .map(|l| {
            let values = report
                .summaries
                .iter()
                .map(|s| s.x.get(l).map(|v| format!("{v:.3}")).unwrap_or_default())
                .collect();
            (l + 1, values)
        })
        .collect();
    let context = Context {
        title: &report.title,
        generated_at: &report.generated_at,
        generator: &report.generator,
        summaries: &report.summaries,
        chart: chart(&report.summaries),
        curve,
    };
    let page = crate::templates::render("scores", template, html, true, context)?;
    out.write_all(page.as_bytes())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report() -> ScoreReport {
        ScoreReport {
            title: "Scores <of> two".into(),
            generated_at: "2026-11-25T00:00:00Z".into(),
            generator: "Factdesk test".into(),
            summaries: vec![
                ScoredSummary {
                    name: "a.md".into(),
                    lines: vec!["Overview <b>".into(), "## Why".into(), "- Cracks [1]".into()],
                    x: vec![1.0, 0.75, 0.5],
                    xux: 0.75,
                    xux_f: 0.75,
                    xux_g: 0.8,
                    comp: Some(0.983),
                    sgss: Some(1.733),
                    missing: vec!["overview sufficiency".into()],
                    machine_labels: vec![(
                        "section 1 statement 1 faithfulness".into(),
                        1.0,
                        "factdesk-verifier".into(),
                        "1 of 1 sentence(s) supported".into(),
                    )],
                    notes: vec!["section 1 statement 1 cites document 4; 3 given".into()],
                },
                ScoredSummary {
                    name: "b.md".into(),
                    lines: vec!["Overview".into()],
                    x: vec![0.5],
                    xux: 0.5,
                    xux_f: 0.5,
                    xux_g: 0.5,
                    comp: None,
                    sgss: None,
                    missing: Vec::new(),
                    machine_labels: Vec::new(),
                    notes: Vec::new(),
                },
            ],
        }
    }

    fn render(format: Format) -> String {
        let mut out = Vec::new();
        render_scores(&report(), format, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn html_draws_each_curve_and_escapes_what_it_is_given() {
        let page = render(Format::Html);
        assert!(page.contains("Scores &lt;of&gt; two"), "{page}");
        assert!(page.contains("Overview &lt;b&gt;"), "{page}");
        assert!(!page.contains("<b>"), "{page}");
        // a's curve: three points from X = 1 at line 1 (top) down to X = 0.5 at line 3 (right).
        assert!(page.contains("points=\"40.0,10.0 300.0,60.0 560.0,110.0\""), "{page}");
        assert_eq!(page.matches("<polyline").count(), 2, "{page}");
        assert!(page.contains("0.983") && page.contains("1.733"), "{page}");
        assert!(page.contains("factdesk-verifier") && page.contains("cites document 4"));
        assert!(!page.contains("<script"), "{page}");
    }

    #[test]
    fn markdown_gives_the_curve_line_by_line() {
        let text = render(Format::Markdown);
        assert!(text.contains("| 2 | 0.750 |  |"), "{text}");
        assert!(text.contains("| 1 | 1.000 | 0.500 |"), "{text}");
        assert!(text.contains("Not labelled (counted 0): overview sufficiency"), "{text}");
        assert!(text.contains("Scores \\<of\\> two"), "{text}");
        let json: serde_json::Value = serde_json::from_str(&render(Format::Json)).unwrap();
        assert_eq!(json["summaries"][0]["x"][1], 0.75);
        let mut out = Vec::new();
        assert!(matches!(
            render_scores(&report(), Format::Csv, &mut out),
            Err(ReportError::Unsupported { .. })
        ));
    }
}
