//! The HTML export: one standalone page with inline CSS, meant to be opened from disk or mailed.
//! It carries no scripts and loads nothing (its Content-Security-Policy forbids everything but
//! the inline style sheet). Every piece of text from the web or a user is escaped with
//! [`escape_html`]; only http(s) URLs become links, opened without an opener or a referrer;
//! any other URL (`javascript:`, `data:`, …) is printed as text.

use std::io::{self, Write};

use factdesk_model::{Attribution, StoredCheck};

use crate::charts;
use crate::dashboard::Dashboard;
use crate::escape::{escape_html as h, is_web_link};
use crate::facts::{FactsShown, Mark};
use crate::{Report, ReportItem, UNCHECKED, format_probability, source_location, url_status_label};

const STYLE: &str = "\
body{font:15px/1.5 system-ui,-apple-system,'Segoe UI',sans-serif;color:#1d232a;margin:0 auto;max-width:60rem;padding:1.5rem}
h1{font-size:1.6rem;margin-bottom:.2rem}
h2{font-size:1.2rem;margin:0 0 .6rem}
h3{font-size:1rem;margin:1rem 0 .4rem}
.meta,.provenance{color:#5b6570;font-size:.9rem}
table{border-collapse:collapse;margin:.5rem 0}
th,td{border:1px solid #cfd5db;padding:.25rem .6rem;text-align:left}
td.count{text-align:right;font-variant-numeric:tabular-nums}
article{border:1px solid #cfd5db;border-radius:6px;padding:1rem 1.2rem;margin:1rem 0}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem;margin:0}
dt{font-weight:600}
dd{margin:0;overflow-wrap:anywhere}
.verdict{display:inline-block;border-radius:4px;padding:0 .45rem;font-weight:600;background:#e6e9ec}
.verdict-supported{background:#d5f0dc;color:#14532d}
.verdict-refuted{background:#fbe0dc;color:#7f1d1d}
.verdict-not_enough_info{background:#fdf0d5;color:#713f12}
.verdict-unchecked{background:#eef0f2;color:#4b5563}
blockquote{margin:.2rem 0;padding-left:.7rem;border-left:3px solid #cfd5db}
.url{overflow-wrap:anywhere}
svg.chart{display:block;max-width:100%;height:auto;margin:.3rem 0 .8rem}
mark.conflict{background:#fbe0dc;color:#7f1d1d;font-weight:600;padding:0 .15rem;border-radius:3px}
mark.unsupported{background:#fdf0d5;color:#713f12;padding:0 .15rem;border-radius:3px;border-bottom:2px dotted #713f12}
";

pub(crate) fn write_html(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "<!DOCTYPE html>")?;
    writeln!(out, "<html lang=\"en\">")?;
    writeln!(out, "<head>")?;
    writeln!(out, "<meta charset=\"utf-8\">")?;
    writeln!(
        out,
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
    )?;
    writeln!(out, "<meta name=\"referrer\" content=\"no-referrer\">")?;
    writeln!(out, "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")?;
    writeln!(out, "<meta name=\"generator\" content=\"{}\">", h(&report.generator))?;
    writeln!(out, "<title>{}</title>", h(&report.title))?;
    writeln!(out, "<style>\n{STYLE}</style>")?;
    writeln!(out, "</head>")?;
    writeln!(out, "<body>")?;
    writeln!(out, "<header>")?;
    writeln!(out, "<h1>{}</h1>", h(&report.title))?;
    writeln!(
        out,
        "<p class=\"meta\">Generated at {} by {}.</p>",
        h(&report.generated_at),
        h(&report.generator)
    )?;
    writeln!(out, "</header>")?;
    write_summary(report, out)?;
    if let Some(dashboard) = &report.dashboard {
        write_dashboard(dashboard, out)?;
    }
    writeln!(out, "<main>")?;
    for (number, item) in report.items.iter().enumerate() {
        write_item(number + 1, item, out)?;
    }
    writeln!(out, "</main>")?;
    writeln!(out, "</body>")?;
    writeln!(out, "</html>")
}

fn write_summary(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let summary = report.summary();
    writeln!(out, "<section class=\"summary\">")?;
    writeln!(out, "<h2>Summary</h2>")?;
    writeln!(out, "<table>")?;
    writeln!(out, "<thead><tr><th>Verdict</th><th>Machine</th><th>After review</th></tr></thead>")?;
    writeln!(out, "<tbody>")?;
    for ((verdict, machine), (_, after_review)) in
        summary.machine_verdicts.iter().zip(&summary.verdicts_after_review)
    {
        writeln!(
            out,
            "<tr><td>{}</td><td class=\"count\">{machine}</td><td class=\"count\">{after_review}</td></tr>",
            verdict.label()
        )?;
    }
    writeln!(
        out,
        "<tr><td>{UNCHECKED}</td><td class=\"count\">{0}</td><td class=\"count\">{0}</td></tr>",
        summary.unchecked
    )?;
    writeln!(
        out,
        "<tr><th>total</th><td class=\"count\">{0}</td><td class=\"count\">{0}</td></tr>",
        summary.claims
    )?;
    writeln!(out, "</tbody>")?;
    writeln!(out, "</table>")?;
    writeln!(
        out,
        "<p>Reviewed by a person: {} of {} checked claims ({} overridden).</p>",
        summary.reviewed,
        summary.claims - summary.unchecked,
        summary.overridden
    )?;
    writeln!(out, "</section>")
}

/// The dashboard's charts (as the desktop app draws them), each under a heading.
fn write_dashboard(dashboard: &Dashboard, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "<section class=\"dashboard\">")?;
    writeln!(out, "<h2>Dashboard</h2>")?;
    writeln!(out, "<h3>Verdicts</h3>")?;
    writeln!(out, "{}", charts::verdict_bars(dashboard))?;
    writeln!(out, "<h3>Machine and people</h3>")?;
    writeln!(
        out,
        "<p class=\"meta\">The newest check's verdict of each claim (rows) against its review (columns).</p>"
    )?;
    writeln!(out, "{}", charts::review_grid(dashboard))?;
    writeln!(out, "<h3>Confidence and agreement</h3>")?;
    writeln!(
        out,
        "<p class=\"meta\">Judged by {} gold labels and {} reviews; {} checks without a confidence are left out.</p>",
        dashboard.judged_by_gold, dashboard.judged_by_review, dashboard.without_confidence
    )?;
    writeln!(out, "{}", charts::confidence_histogram(dashboard))?;
    writeln!(out, "<h3>Checks over time</h3>")?;
    writeln!(out, "{}", charts::per_day_bars(dashboard))?;
    writeln!(out, "</section>")
}

fn write_item(number: usize, item: &ReportItem, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "<article class=\"claim\" id=\"claim-{number}\">")?;
    writeln!(out, "<h2>{number}. {}</h2>", h(&item.claim_text))?;
    writeln!(out, "<dl>")?;
    if let Some(claim_id) = item.claim_id {
        writeln!(out, "<dt>Claim ID</dt><dd>{claim_id}</dd>")?;
    }
    if !item.tags.is_empty() {
        let tags: Vec<_> = item.tags.iter().map(|tag| h(tag)).collect();
        writeln!(out, "<dt>Tags</dt><dd>{}</dd>", tags.join(", "))?;
    }
    if let Some(label) = item.gold_label {
        writeln!(out, "<dt>Gold label</dt><dd>{}</dd>", label.as_str())?;
    }
    if let Some(date) = &item.claimed_on {
        writeln!(out, "<dt>Claimed on</dt><dd>{}</dd>", h(date))?;
    }
    match &item.check {
        None => {
            writeln!(
                out,
                "<dt>Verdict</dt><dd><span class=\"verdict verdict-unchecked\">{UNCHECKED}</span></dd>"
            )?;
            writeln!(out, "</dl>")?;
        }
        Some(stored) => write_check(stored, out)?,
    }
    writeln!(out, "</article>")
}

/// The rest of the item's `<dl>` (which it closes), then its evidence and proposed URLs.
fn write_check(stored: &StoredCheck, out: &mut dyn Write) -> io::Result<()> {
    let check = &stored.check;
    let confidence = check
        .confidence
        .map(|confidence| format!(", confidence {}", format_probability(confidence)))
        .unwrap_or_default();
    writeln!(
        out,
        "<dt>Machine verdict</dt><dd><span class=\"verdict verdict-{}\">{}</span>{confidence}</dd>",
        check.verdict.as_str(),
        check.verdict_label()
    )?;
    match &stored.review {
        Some(review) => {
            writeln!(
                out,
                "<dt>Human review</dt><dd>{}: <span class=\"verdict verdict-{}\">{}</span>, by {} at {}</dd>",
                review.decision.as_str(),
                review.verdict.as_str(),
                review.verdict.label(),
                review.reviewer.as_deref().map_or("an unnamed reviewer".into(), h),
                h(&review.created_at)
            )?;
            if !review.comment.trim().is_empty() {
                writeln!(out, "<dt>Review comment</dt><dd>{}</dd>", h(&review.comment))?;
            }
        }
        None => writeln!(out, "<dt>Human review</dt><dd>none</dd>")?,
    }
    writeln!(out, "<dt>Method</dt><dd>{}</dd>", h(&check.envelope.method))?;
    writeln!(out, "<dt>Model</dt><dd>{}</dd>", h(&check.envelope.model))?;
    if let Some(nli_model) = &check.envelope.nli_model {
        writeln!(out, "<dt>NLI model</dt><dd>{}</dd>", h(nli_model))?;
    }
    writeln!(out, "<dt>Checked at</dt><dd>{}</dd>", h(&stored.checked_at))?;
    writeln!(out, "<dt>Check ID</dt><dd>{}</dd>", stored.id)?;
    writeln!(out, "<dt>Tokens</dt><dd>{}</dd>", check.envelope.tokens.total())?;
    if !check.envelope.explanation.trim().is_empty() {
        writeln!(out, "<dt>Explanation</dt><dd>{}</dd>", h(&check.envelope.explanation))?;
    }
    if let Some(shown) = crate::facts::shown(check) {
        write_facts(&shown, out)?;
    }
    let flagged = crate::flagged_sources(check);
    if !flagged.is_empty() {
        writeln!(
            out,
            "<dt>Flagged sources</dt><dd class=\"flagged\">Text addressed to AI systems, kept out of the premises: {}</dd>",
            h(&flagged.join("; "))
        )?;
    }
    if let Some(window) = stored.stale.first().map(|stale| stale.window_days) {
        writeln!(
            out,
            "<dt>Old evidence</dt><dd class=\"flagged\">Published more than {window} days before the claim's date: {}</dd>",
            h(&crate::stale_sources(stored).join("; "))
        )?;
    }
    writeln!(out, "</dl>")?;
    crate::ciber::write_html(check, out)?;
    if !check.attributions.is_empty() {
        writeln!(out, "<h3>Evidence</h3>")?;
        writeln!(out, "<ol class=\"evidence\">")?;
        for attribution in &check.attributions {
            write_attribution(attribution, out)?;
        }
        writeln!(out, "</ol>")?;
    }
    if !check.proposed_urls().is_empty() {
        writeln!(out, "<h3>Proposed URLs</h3>")?;
        writeln!(out, "<ul class=\"proposed\">")?;
        for proposed in check.proposed_urls() {
            let error = proposed
                .error
                .as_deref()
                .map(|error| format!(": {}", h(error)))
                .unwrap_or_default();
            writeln!(
                out,
                "<li><span class=\"url\">{}</span> — {}{error}</li>",
                h(&proposed.url),
                url_status_label(proposed.status)
            )?;
        }
        writeln!(out, "</ul>")?;
    }
    Ok(())
}

/// The deciding premise's conflicting and missing facts (more `<dt>`/`<dd>` pairs), then the
/// claim and the premise with those spans in `<mark class="conflict">` and
/// `<mark class="unsupported">`.
fn write_facts(shown: &FactsShown<'_>, out: &mut dyn Write) -> io::Result<()> {
    if let Some(conflicts) = shown.conflicts() {
        writeln!(out, "<dt>Conflicts</dt><dd class=\"facts\">{}</dd>", h(&conflicts))?;
    }
    if let Some(missing) = shown.unsupported() {
        writeln!(out, "<dt>Not in the evidence</dt><dd class=\"facts\">{}</dd>", h(&missing))?;
    }
    writeln!(
        out,
        "<dt>Claim, marked</dt><dd class=\"marked\">{}</dd>",
        marked(&shown.claim_pieces())
    )?;
    if !shown.facts.conflicts.is_empty() {
        let source = shown.source_name().map(|name| format!("{}: ", h(&name))).unwrap_or_default();
        writeln!(
            out,
            "<dt>Evidence, marked</dt><dd class=\"marked\">{source}“{}”</dd>",
            marked(&shown.evidence_pieces())
        )?;
    }
    Ok(())
}

/// Pieces of text as HTML, each escaped, marked ones in a `<mark>` of their class.
fn marked(pieces: &[(&str, Option<Mark>)]) -> String {
    pieces
        .iter()
        .map(|(text, mark)| match mark {
            None => h(text).into_owned(),
            Some(mark) => format!("<mark class=\"{}\">{}</mark>", mark.class(), h(text)),
        })
        .collect()
}

fn write_attribution(attribution: &Attribution, out: &mut dyn Write) -> io::Result<()> {
    let source = &attribution.source;
    let location = source_location(source);
    let shown_location = if source.url.as_deref().is_some_and(is_web_link) {
        format!(
            "<a class=\"url\" href=\"{0}\" rel=\"noopener noreferrer\" target=\"_blank\">{0}</a>",
            h(&location)
        )
    } else {
        format!("<span class=\"url\">{}</span>", h(&location))
    };
    writeln!(out, "<li>")?;
    match &source.title {
        Some(title) => writeln!(out, "<p class=\"source\">{}: {shown_location}</p>", h(title))?,
        None => writeln!(out, "<p class=\"source\">{shown_location}</p>")?,
    }
    let pages = factdesk_model::page_label(&attribution.pages)
        .map(|label| format!(" · {}", h(&label)))
        .unwrap_or_default();
    let published = source
        .published_at
        .as_deref()
        .map(|date| format!("published {} · ", h(date)))
        .unwrap_or_default();
    writeln!(
        out,
        "<p class=\"provenance\">{published}fetched at {} · content hash {} · entailment {}{pages}</p>",
        h(source.fetched_at.as_deref().unwrap_or("unknown")),
        h(source.content_hash.as_deref().unwrap_or("unknown")),
        format_probability(attribution.entailment)
    )?;
    for (index, sentence) in attribution.sentences.iter().enumerate() {
        match attribution.pages.get(index).copied().flatten() {
            Some(page) => writeln!(
                out,
                "<blockquote>{} <span class=\"page\">(p. {page})</span></blockquote>",
                h(sentence)
            )?,
            None => writeln!(out, "<blockquote>{}</blockquote>", h(sentence))?,
        }
    }
    writeln!(out, "</li>")
}
