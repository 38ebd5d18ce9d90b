//! The dashboard's charts as inline SVG for the HTML report: verdict counts (machine and after
//! review), the machine's verdicts against the reviews as a grid of cells shaded by count, the
//! confidence histogram split by agreement (calibration), and the checks and reviews per day.
//! Drawn here by hand, a few rectangles and labels each: no charting dependency, nothing that
//! runs in the page (its Content-Security-Policy allows only the inline style sheet), and the
//! same shapes as the desktop app's dashboard (`ui/src/views/charts.ts`).
//!
//! Every shape carries its count in a `data-count` attribute and a `<title>` people see on
//! hover; the only text from outside is escaped (days are parsed dates, labels are fixed).

use std::fmt::Write;

use factdesk_model::Verdict;

use crate::dashboard::Dashboard;
use crate::escape::escape_html as h;

/// Colours of the verdicts and of agreement, as in the report's badges.
fn verdict_colour(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Supported => "#2f855a",
        Verdict::Refuted => "#c53030",
        Verdict::NotEnoughInfo => "#b7791f",
    }
}

const AGREE: &str = "#2f855a";
const DISAGREE: &str = "#c53030";
const UNJUDGED: &str = "#a0aec0";
const INK: &str = "#1d232a";
const MUTED: &str = "#5b6570";

/// An `<svg>` opening tag with a title for screen readers.
fn open_svg(out: &mut String, class: &str, width: u32, height: u32, title: &str) {
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart {class}\" viewBox=\"0 0 {width} {height}\" width=\"{width}\" height=\"{height}\" role=\"img\"><title>{}</title>",
        h(title)
    );
}

/// A rectangle with its count and a hover title.
#[allow(clippy::too_many_arguments)]
fn bar(
    out: &mut String,
    class: &str,
    x: f64,
    y: f64,
    width: f64,
    height: f64,
    fill: &str,
    count: usize,
    title: &str,
) {
    let _ = write!(
        out,
        "<rect class=\"{class}\" x=\"{x:.1}\" y=\"{y:.1}\" width=\"{width:.1}\" height=\"{height:.1}\" fill=\"{fill}\" data-count=\"{count}\"><title>{}</title></rect>",
        h(title)
    );
}

fn label(out: &mut String, x: f64, y: f64, anchor: &str, fill: &str, text: &str) {
    let _ = write!(
        out,
        "<text x=\"{x:.1}\" y=\"{y:.1}\" text-anchor=\"{anchor}\" fill=\"{fill}\" font-size=\"12\">{}</text>",
        h(text)
    );
}

/// Verdict counts: for each verdict a bar of the machine's verdicts and one after review.
pub fn verdict_bars(dashboard: &Dashboard) -> String {
    const WIDTH: u32 = 520;
    const LABELS: f64 = 170.0;
    const ROW: f64 = 18.0;
    let rows = dashboard.verdicts.len() * 2;
    let height = (rows as f64 * ROW + 8.0) as u32;
    let most = dashboard
        .verdicts
        .iter()
        .map(|count| count.machine.max(count.after_review))
        .max()
        .unwrap_or(0)
        .max(1);
    let scale = (f64::from(WIDTH) - LABELS - 40.0) / most as f64;
    let mut out = String::new();
    open_svg(
        &mut out,
        "verdict-bars",
        WIDTH,
        height,
        "Claims per verdict: the machine's and after review",
    );
    for (index, count) in dashboard.verdicts.iter().enumerate() {
        for (part, (name, value, opacity)) in
            [("machine", count.machine, "1"), ("after review", count.after_review, "0.55")]
                .into_iter()
                .enumerate()
        {
            let y = (index * 2 + part) as f64 * ROW + 4.0;
            label(
                &mut out,
                LABELS - 6.0,
                y + 13.0,
                "end",
                INK,
                &format!("{} · {name}", count.verdict.label()),
            );
            let width = value as f64 * scale;
            let _ = write!(out, "<g opacity=\"{opacity}\">");
            bar(
                &mut out,
                &format!(
                    "bar verdict-{} {}",
                    count.verdict.as_str(),
                    if part == 0 { "machine" } else { "after-review" }
                ),
                LABELS,
                y + 2.0,
                width,
                ROW - 4.0,
                verdict_colour(count.verdict),
                value,
                &format!("{value} {name}: {}", count.verdict.label()),
            );
            out.push_str("</g>");
            label(&mut out, LABELS + width + 4.0, y + 13.0, "start", MUTED, &value.to_string());
        }
    }
    out.push_str("</svg>");
    out
}

/// The machine's verdicts (rows) against the reviews (columns: not reviewed, then each
/// verdict): each cell shaded by its share of the largest cell, its count written in it.
pub fn review_grid(dashboard: &Dashboard) -> String {
    const LABELS: f64 = 120.0;
    const CELL_WIDTH: f64 = 96.0;
    const CELL_HEIGHT: f64 = 30.0;
    const HEAD: f64 = 34.0;
    let columns = dashboard.machine_vs_review.first().map_or(0, |row| row.cells.len());
    let width = (LABELS + columns as f64 * CELL_WIDTH + 4.0) as u32;
    let height = (HEAD + dashboard.machine_vs_review.len() as f64 * CELL_HEIGHT + 4.0) as u32;
    let most = dashboard
        .machine_vs_review
        .iter()
        .flat_map(|row| row.cells.iter().map(|cell| cell.claims))
        .max()
        .unwrap_or(0)
        .max(1);
    let mut out = String::new();
    open_svg(
        &mut out,
        "review-grid",
        width,
        height,
        "Machine verdicts (rows) against reviews (columns)",
    );
    label(&mut out, LABELS + columns as f64 * CELL_WIDTH / 2.0, 12.0, "middle", MUTED, "review");
    if let Some(first) = dashboard.machine_vs_review.first() {
        for (column, cell) in first.cells.iter().enumerate() {
            let name = cell.review.map_or("not reviewed", Verdict::label);
            label(
                &mut out,
                LABELS + (column as f64 + 0.5) * CELL_WIDTH,
                HEAD - 6.0,
                "middle",
                INK,
                name,
            );
        }
    }
    for (index, row) in dashboard.machine_vs_review.iter().enumerate() {
        let y = HEAD + index as f64 * CELL_HEIGHT;
        label(
            &mut out,
            LABELS - 6.0,
            y + 19.0,
            "end",
            INK,
            &format!("machine: {}", row.machine.label()),
        );
        for (column, cell) in row.cells.iter().enumerate() {
            let x = LABELS + column as f64 * CELL_WIDTH;
            let shade = 0.08 + 0.8 * cell.claims as f64 / most as f64;
            let review = cell.review.map_or("none", Verdict::as_str);
            let _ = write!(out, "<g opacity=\"{shade:.2}\">");
            bar(
                &mut out,
                &format!("cell machine-{} review-{review}", row.machine.as_str()),
                x + 1.0,
                y + 1.0,
                CELL_WIDTH - 2.0,
                CELL_HEIGHT - 2.0,
                cell.review.map_or(
                    UNJUDGED,
                    |review| if review == row.machine { AGREE } else { DISAGREE },
                ),
                cell.claims,
                &format!(
                    "{} claims: machine {}, {}",
                    cell.claims,
                    row.machine.label(),
                    cell.review.map_or("not reviewed".to_owned(), |review| format!(
                        "review {}",
                        review.label()
                    ))
                ),
            );
            out.push_str("</g>");
            label(
                &mut out,
                x + CELL_WIDTH / 2.0,
                y + 19.0,
                "middle",
                INK,
                &cell.claims.to_string(),
            );
        }
    }
    out.push_str("</svg>");
    out
}

/// The confidence histogram: one stacked column per bin (agree, disagree, neither judged).
pub fn confidence_histogram(dashboard: &Dashboard) -> String {
    const WIDTH: u32 = 520;
    const HEIGHT: u32 = 200;
    const LEFT: f64 = 30.0;
    const BOTTOM: f64 = 36.0;
    let bins = dashboard.confidence.len().max(1);
    let column = (f64::from(WIDTH) - LEFT - 4.0) / bins as f64;
    let plot = f64::from(HEIGHT) - BOTTOM - 8.0;
    let most = dashboard
        .confidence
        .iter()
        .map(|bin| bin.agree + bin.disagree + bin.unjudged)
        .max()
        .unwrap_or(0)
        .max(1);
    let mut out = String::new();
    open_svg(
        &mut out,
        "confidence-histogram",
        WIDTH,
        HEIGHT,
        "Confidence of the newest checks, split by whether a gold label or a review agrees",
    );
    label(&mut out, LEFT - 4.0, 16.0, "end", MUTED, &most.to_string());
    label(&mut out, LEFT - 4.0, 8.0 + plot, "end", MUTED, "0");
    for (index, bin) in dashboard.confidence.iter().enumerate() {
        let x = LEFT + index as f64 * column;
        let mut top = 8.0 + plot;
        let range = format!("{:.0}–{:.0}%", bin.from * 100.0, bin.to * 100.0);
        for (class, count, fill, name) in [
            ("agree", bin.agree, AGREE, "agree"),
            ("disagree", bin.disagree, DISAGREE, "disagree"),
            ("unjudged", bin.unjudged, UNJUDGED, "neither judged"),
        ] {
            let height = count as f64 / most as f64 * plot;
            top -= height;
            bar(
                &mut out,
                &format!("bar {class}"),
                x + 2.0,
                top,
                column - 4.0,
                height,
                fill,
                count,
                &format!("{range}: {count} {name}"),
            );
        }
        if index % 2 == 0 {
            label(
                &mut out,
                x,
                8.0 + plot + 14.0,
                "start",
                MUTED,
                &format!("{:.0}%", bin.from * 100.0),
            );
        }
    }
    label(&mut out, f64::from(WIDTH) - 4.0, 8.0 + plot + 14.0, "end", MUTED, "100%");
    label(
        &mut out,
        LEFT,
        f64::from(HEIGHT) - 4.0,
        "start",
        MUTED,
        "green: agrees · red: disagrees · grey: neither a gold label nor a review",
    );
    out.push_str("</svg>");
    out
}

/// Checks (dark) and reviews (light) per day, oldest first.
pub fn per_day_bars(dashboard: &Dashboard) -> String {
    const WIDTH: u32 = 520;
    const HEIGHT: u32 = 160;
    const LEFT: f64 = 30.0;
    const BOTTOM: f64 = 22.0;
    let days = dashboard.per_day.len().max(1);
    // Columns at most 48 units wide, so that a few days do not make a wall.
    let column = ((f64::from(WIDTH) - LEFT - 4.0) / days as f64).min(48.0);
    let plot = f64::from(HEIGHT) - BOTTOM - 8.0;
    let most =
        dashboard.per_day.iter().map(|day| day.checks.max(day.reviews)).max().unwrap_or(0).max(1);
    let mut out = String::new();
    open_svg(&mut out, "per-day", WIDTH, HEIGHT, "Checks and reviews per day");
    label(&mut out, LEFT - 4.0, 16.0, "end", MUTED, &most.to_string());
    label(&mut out, LEFT - 4.0, 8.0 + plot, "end", MUTED, "0");
    for (index, day) in dashboard.per_day.iter().enumerate() {
        let x = LEFT + index as f64 * column;
        let half = (column - 2.0).max(1.0) / 2.0;
        for (part, (class, count, fill, name)) in [
            ("checks", day.checks, "#2c5282", "checks"),
            ("reviews", day.reviews, "#90cdf4", "reviews"),
        ]
        .into_iter()
        .enumerate()
        {
            let height = count as f64 / most as f64 * plot;
            bar(
                &mut out,
                &format!("bar {class}"),
                x + 1.0 + part as f64 * half,
                8.0 + plot - height,
                half,
                height,
                fill,
                count,
                &format!("{}: {count} {name}", day.day),
            );
        }
    }
    if let (Some(first), Some(last)) = (dashboard.per_day.first(), dashboard.per_day.last()) {
        label(&mut out, LEFT, f64::from(HEIGHT) - 6.0, "start", MUTED, &first.day);
        if last.day != first.day {
            label(
                &mut out,
                f64::from(WIDTH) - 4.0,
                f64::from(HEIGHT) - 6.0,
                "end",
                MUTED,
                &last.day,
            );
        }
    }
    out.push_str("</svg>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dashboard::{ConfidenceBin, DayCount, ReviewCell, ReviewRow, VerdictCount};

    /// A dashboard with the given verdict counts, review cells, bins and days.
    fn dashboard() -> Dashboard {
        Dashboard {
            collection: "desk <b>".into(),
            claims: 9,
            checked: 8,
            reviewed: 3,
            labelled: 0,
            verdicts: vec![
                VerdictCount { verdict: Verdict::Supported, machine: 5, after_review: 4 },
                VerdictCount { verdict: Verdict::Refuted, machine: 2, after_review: 3 },
                VerdictCount { verdict: Verdict::NotEnoughInfo, machine: 1, after_review: 1 },
            ],
            machine_vs_review: Verdict::ALL
                .iter()
                .map(|&machine| ReviewRow {
                    machine,
                    cells: std::iter::once(None)
                        .chain(Verdict::ALL.iter().map(|&verdict| Some(verdict)))
                        .map(|review| ReviewCell {
                            review,
                            claims: match (machine, review) {
                                (Verdict::Supported, None) => 3,
                                (Verdict::Supported, Some(Verdict::Supported)) => 1,
                                (Verdict::Supported, Some(Verdict::Refuted)) => 1,
                                (Verdict::Refuted, None) => 1,
                                (Verdict::Refuted, Some(Verdict::Refuted)) => 1,
                                (Verdict::NotEnoughInfo, None) => 1,
                                _ => 0,
                            },
                        })
                        .collect(),
                })
                .collect(),
            confidence: (0..10)
                .map(|bin| ConfidenceBin {
                    from: bin as f64 / 10.0,
                    to: (bin + 1) as f64 / 10.0,
                    agree: if bin == 9 { 2 } else { 0 },
                    disagree: if bin == 9 { 1 } else { 0 },
                    unjudged: if bin == 5 { 4 } else { 0 },
                })
                .collect(),
            judged_by_gold: 0,
            judged_by_review: 3,
            without_confidence: 1,
            per_day: vec![
                DayCount { day: "2026-11-26".into(), checks: 8, reviews: 0 },
                DayCount { day: "2026-11-27".into(), checks: 2, reviews: 3 },
            ],
        }
    }

    /// The first shape (`<rect …</rect>`) whose class is `class`.
    fn shape<'a>(svg: &'a str, class: &str) -> Option<&'a str> {
        let at = svg.find(&format!("class=\"{class}\""))?;
        let end = svg[at..].find("</rect>")? + at;
        Some(&svg[at..end])
    }

    /// The `data-count` of the first shape whose class is `class`.
    fn count_of(svg: &str, class: &str) -> Option<usize> {
        let rect = shape(svg, class)?;
        let count = rect.find("data-count=\"")? + "data-count=\"".len();
        rect[count..].split('"').next()?.parse().ok()
    }

    #[test]
    fn verdict_bars_hold_a_bar_per_verdict_machine_and_after_review() {
        let svg = verdict_bars(&dashboard());
        assert!(svg.starts_with("<svg ") && svg.ends_with("</svg>"));
        assert_eq!(svg.matches("<rect ").count(), 6);
        assert_eq!(count_of(&svg, "bar verdict-supported machine"), Some(5));
        assert_eq!(count_of(&svg, "bar verdict-supported after-review"), Some(4));
        assert_eq!(count_of(&svg, "bar verdict-refuted after-review"), Some(3));
        assert_eq!(count_of(&svg, "bar verdict-not_enough_info machine"), Some(1));
    }

    #[test]
    fn review_grid_holds_every_cell_with_its_count() {
        let svg = review_grid(&dashboard());
        assert_eq!(
            svg.matches("<rect ").count(),
            12,
            "3 machine verdicts × (not reviewed + 3 reviews)"
        );
        assert_eq!(count_of(&svg, "cell machine-supported review-none"), Some(3));
        assert_eq!(count_of(&svg, "cell machine-supported review-refuted"), Some(1));
        assert_eq!(count_of(&svg, "cell machine-refuted review-refuted"), Some(1));
        assert_eq!(count_of(&svg, "cell machine-not_enough_info review-supported"), Some(0));
        // A disagreeing review is red, an agreeing one green, none grey.
        assert!(shape(&svg, "cell machine-supported review-refuted").unwrap().contains(DISAGREE));
        assert!(shape(&svg, "cell machine-refuted review-refuted").unwrap().contains(AGREE));
        assert!(shape(&svg, "cell machine-refuted review-none").unwrap().contains(UNJUDGED));
    }

    #[test]
    fn the_histogram_stacks_agreement_per_bin() {
        let svg = confidence_histogram(&dashboard());
        assert_eq!(svg.matches("<rect ").count(), 30, "10 bins × agree, disagree, unjudged");
        let counts = |class: &str| -> Vec<usize> {
            svg.match_indices(&format!("class=\"bar {class}\""))
                .map(|(at, _)| count_of(&svg[at..], &format!("bar {class}")).unwrap())
                .collect()
        };
        assert_eq!(counts("agree"), [0, 0, 0, 0, 0, 0, 0, 0, 0, 2]);
        assert_eq!(counts("disagree"), [0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
        assert_eq!(counts("unjudged"), [0, 0, 0, 0, 0, 4, 0, 0, 0, 0]);
        assert!(svg.contains("<title>90–100%: 2 agree</title>"), "{svg}");
    }

    #[test]
    fn per_day_bars_hold_checks_and_reviews_of_each_day() {
        let svg = per_day_bars(&dashboard());
        assert_eq!(svg.matches("<rect ").count(), 4);
        assert!(svg.contains("<title>2026-11-26: 8 checks</title>"));
        assert!(svg.contains("<title>2026-11-27: 3 reviews</title>"));
        assert!(svg.contains(">2026-11-26</text>") && svg.contains(">2026-11-27</text>"));
    }

    #[test]
    fn an_empty_dashboard_draws_empty_charts() {
        let empty = Dashboard { per_day: Vec::new(), ..dashboard() };
        assert_eq!(per_day_bars(&empty).matches("<rect ").count(), 0);
    }
}
