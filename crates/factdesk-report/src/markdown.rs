//! The Markdown export: a heading, a summary table of verdict counts, then one section per
//! claim with its machine verdict, the human review beside it, the method and models, the
//! explanation and the evidence. Every piece of text from the web or a user goes through
//! [`escape_markdown`], and only http(s) URLs become links, so a page title or a claim cannot
//! add links, images or HTML of its own.

use std::io::{self, Write};

use factdesk_model::{Attribution, StoredCheck};

use crate::escape::{escape_markdown, is_web_link, markdown_link_destination};
use crate::facts::{FactsShown, Mark};
use crate::{Report, ReportItem, UNCHECKED, format_probability, source_location, url_status_label};

pub(crate) fn write_markdown(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "# {}", escape_markdown(&report.title))?;
    writeln!(out)?;
    writeln!(
        out,
        "Generated at {} by {}.",
        escape_markdown(&report.generated_at),
        escape_markdown(&report.generator)
    )?;
    writeln!(out)?;
    write_summary(report, out)?;
    writeln!(out, "## Claims")?;
    for (number, item) in report.items.iter().enumerate() {
        writeln!(out)?;
        write_item(number + 1, item, out)?;
    }
    Ok(())
}

fn write_summary(report: &Report, out: &mut dyn Write) -> io::Result<()> {
    let summary = report.summary();
    writeln!(out, "## Summary")?;
    writeln!(out)?;
    writeln!(out, "| Verdict | Machine | After review |")?;
    writeln!(out, "| --- | ---: | ---: |")?;
    for ((verdict, machine), (_, after_review)) in
        summary.machine_verdicts.iter().zip(&summary.verdicts_after_review)
    {
        writeln!(out, "| {} | {machine} | {after_review} |", verdict.label())?;
    }
    writeln!(out, "| {UNCHECKED} | {} | {} |", summary.unchecked, summary.unchecked)?;
    writeln!(out, "| **total** | {} | {} |", summary.claims, summary.claims)?;
    writeln!(out)?;
    let checked = summary.claims - summary.unchecked;
    writeln!(
        out,
        "Reviewed by a person: {} of {checked} checked claims ({} overridden).",
        summary.reviewed, summary.overridden
    )?;
    writeln!(out)
}

fn write_item(number: usize, item: &ReportItem, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "### {number}. {}", escape_markdown(&item.claim_text))?;
    writeln!(out)?;
    if let Some(claim_id) = item.claim_id {
        writeln!(out, "- **Claim ID:** {claim_id}")?;
    }
    if !item.tags.is_empty() {
        let tags: Vec<String> = item.tags.iter().map(|tag| escape_markdown(tag)).collect();
        writeln!(out, "- **Tags:** {}", tags.join(", "))?;
    }
    if let Some(label) = item.gold_label {
        writeln!(out, "- **Gold label:** {}", label.as_str())?;
    }
    if let Some(date) = &item.claimed_on {
        writeln!(out, "- **Claimed on:** {}", escape_markdown(date))?;
    }
    match &item.check {
        None => writeln!(out, "- **Verdict:** {UNCHECKED}"),
        Some(stored) => write_check(stored, out),
    }
}

fn write_check(stored: &StoredCheck, out: &mut dyn Write) -> io::Result<()> {
    let check = &stored.check;
    let confidence = check
        .confidence
        .map(|confidence| format!(" (confidence {})", format_probability(confidence)))
        .unwrap_or_default();
    writeln!(out, "- **Machine verdict:** {}{confidence}", check.verdict_label())?;
    if let Some(review) = &stored.review {
        let reviewer = review.reviewer.as_deref().map(escape_markdown);
        writeln!(
            out,
            "- **Human review:** {} — reviewer's verdict: {}, by {} at {}",
            review.decision.as_str(),
            review.verdict.label(),
            reviewer.as_deref().unwrap_or("an unnamed reviewer"),
            escape_markdown(&review.created_at)
        )?;
        if !review.comment.trim().is_empty() {
            writeln!(out, "- **Review comment:** {}", escape_markdown(&review.comment))?;
        }
    } else {
        writeln!(out, "- **Human review:** none")?;
    }
    write!(
        out,
        "- **Method:** {} · **Model:** {}",
        escape_markdown(&check.envelope.method),
        escape_markdown(&check.envelope.model)
    )?;
    match &check.envelope.nli_model {
        Some(nli_model) => writeln!(out, " · **NLI model:** {}", escape_markdown(nli_model))?,
        None => writeln!(out)?,
    }
    writeln!(
        out,
        "- **Checked at:** {} · **Tokens:** {} · **Check ID:** {}",
        escape_markdown(&stored.checked_at),
        check.envelope.tokens.total(),
        stored.id
    )?;
    if !check.envelope.explanation.trim().is_empty() {
        writeln!(out, "- **Explanation:** {}", escape_markdown(&check.envelope.explanation))?;
    }
    if let Some(shown) = crate::facts::shown(check) {
        write_facts(&shown, out)?;
    }
    let flagged = crate::flagged_sources(check);
    if !flagged.is_empty() {
        writeln!(
            out,
            "- **Flagged sources** (text addressed to AI systems, kept out of the premises): {}",
            escape_markdown(&flagged.join("; "))
        )?;
    }
    let stale = crate::stale_sources(stored);
    if let Some(window) = stored.stale.first().map(|stale| stale.window_days) {
        writeln!(
            out,
            "- **Old evidence** (published more than {window} days before the claim's date): {}",
            escape_markdown(&stale.join("; "))
        )?;
    }
    crate::ciber::write_markdown(check, out)?;
    if !check.attributions.is_empty() {
        writeln!(out)?;
        writeln!(out, "**Evidence**")?;
        writeln!(out)?;
        for (number, attribution) in check.attributions.iter().enumerate() {
            write_attribution(number + 1, attribution, out)?;
        }
    }
    if !check.proposed_urls().is_empty() {
        writeln!(out)?;
        writeln!(out, "**Proposed URLs**")?;
        writeln!(out)?;
        for proposed in check.proposed_urls() {
            write!(
                out,
                "- {} — {}",
                escape_markdown(&proposed.url),
                url_status_label(proposed.status)
            )?;
            match &proposed.error {
                Some(error) => writeln!(out, ": {}", escape_markdown(error))?,
                None => writeln!(out)?,
            }
        }
    }
    Ok(())
}

/// The deciding premise's conflicting and missing facts, then the claim and the premise with
/// those spans in bold (conflicts) and italics (not in the evidence).
fn write_facts(shown: &FactsShown<'_>, out: &mut dyn Write) -> io::Result<()> {
    if let Some(conflicts) = shown.conflicts() {
        writeln!(out, "- **Conflicts:** {}", escape_markdown(&conflicts))?;
    }
    if let Some(missing) = shown.unsupported() {
        writeln!(out, "- **Not in the evidence:** {}", escape_markdown(&missing))?;
    }
    writeln!(
        out,
        "- **Claim, marked** (conflicts in bold, facts not in the evidence in italics): {}",
        marked(&shown.claim_pieces())
    )?;
    if !shown.facts.conflicts.is_empty() {
        let source = shown
            .source_name()
            .map(|name| format!(" ({})", escape_markdown(&name)))
            .unwrap_or_default();
        writeln!(out, "- **Evidence, marked**{source}: “{}”", marked(&shown.evidence_pieces()))?;
    }
    Ok(())
}

/// Pieces of text as inline Markdown, each escaped, marked ones in bold or italics.
fn marked(pieces: &[(&str, Option<Mark>)]) -> String {
    pieces
        .iter()
        .map(|(text, mark)| match mark {
            None => escape_markdown(text),
            Some(Mark::Conflict) => format!("**{}**", escape_markdown(text)),
            Some(Mark::Unsupported) => format!("*{}*", escape_markdown(text)),
        })
        .collect()
}

fn write_attribution(
    number: usize,
    attribution: &Attribution,
    out: &mut dyn Write,
) -> io::Result<()> {
    let source = &attribution.source;
    let location = source_location(source);
    let shown_location = if source.url.as_deref().is_some_and(is_web_link) {
        format!("[{}]({})", escape_markdown(&location), markdown_link_destination(&location))
    } else {
        escape_markdown(&location)
    };
    match &source.title {
        Some(title) => writeln!(out, "{number}. {}: {shown_location}", escape_markdown(title))?,
        None => writeln!(out, "{number}. {shown_location}")?,
    }
    let pages = factdesk_model::page_label(&attribution.pages)
        .map(|label| format!(" · {label}"))
        .unwrap_or_default();
    if let Some(date) = &source.published_at {
        writeln!(out, "   - published {}", escape_markdown(date))?;
    }
    writeln!(
        out,
        "   - fetched at {} · content hash {} · entailment {}{pages}",
        escape_markdown(source.fetched_at.as_deref().unwrap_or("unknown")),
        escape_markdown(source.content_hash.as_deref().unwrap_or("unknown")),
        format_probability(attribution.entailment)
    )?;
    for (index, sentence) in attribution.sentences.iter().enumerate() {
        let page = attribution.pages.get(index).copied().flatten();
        let page = page.map(|page| format!(" (p. {page})")).unwrap_or_default();
        writeln!(out, "   - “{}”{page}", escape_markdown(sentence))?;
    }
    Ok(())
}
