//! CIBER's documents in reports: per document, the words quoted and the verdict under each
//! fusion rule, the strongest supporting and refuting ones marked, and the claim's verdict under
//! each rule beside plain RAG. Rendered from templates (`templates/ciber.html`, `.md`) by
//! minijinja; the HTML one escapes everything it is given.

use std::io::{self, Write};

use factdesk_model::ClaimCheck;
use factdesk_model::ciber::{CiberDetail, FusionRule, RuleVerdict, Stance};
use serde::Serialize;

const HTML: &str = include_str!("../templates/ciber.html");
const MARKDOWN: &str = include_str!("../templates/ciber.md");

#[derive(Serialize)]
struct Context {
    alpha: f64,
    rule: String,
    rules: Vec<String>,
    claim: Vec<String>,
    rag: Option<&'static str>,
    documents: Vec<DocumentRow>,
}

#[derive(Serialize)]
struct DocumentRow {
    number: usize,
    name: String,
    words: usize,
    truncated: bool,
    /// `support` or `refute` for the strongest document of that stance.
    strongest: Option<&'static str>,
    strongest_label: &'static str,
    verdicts: Vec<String>,
}

fn stance_word(stance: Stance) -> &'static str {
    match stance {
        Stance::Support => "supports",
        Stance::Refute => "refutes",
        Stance::Neutral => "neutral",
    }
}

fn verdict_text(verdict: &RuleVerdict) -> String {
    format!("{} {:.2}", stance_word(verdict.stance), verdict.confidence)
}

fn context(check: &ClaimCheck, detail: &CiberDetail) -> Context {
    let rule_name = |rule: FusionRule| rule.as_str().to_uppercase();
    let documents = detail
        .documents
        .iter()
        .enumerate()
        .map(|(index, document)| {
            let source = check.sources.get(document.source);
            let name = source
                .and_then(|source| source.title.clone().or_else(|| source.url.clone()))
                .unwrap_or_else(|| format!("document {}", index + 1));
            let (strongest, strongest_label) = if detail.strongest_support == Some(index) {
                (Some("support"), "strongest support")
            } else if detail.strongest_refute == Some(index) {
                (Some("refute"), "strongest refutation")
            } else {
                (None, "")
            };
            DocumentRow {
                number: index + 1,
                name,
                words: document.words,
                truncated: document.truncated,
                strongest,
                strongest_label,
                verdicts: FusionRule::ALL
                    .iter()
                    .map(|&rule| document.verdict(rule).map(verdict_text).unwrap_or_default())
                    .collect(),
            }
        })
        .collect();
    Context {
        alpha: detail.alpha,
        rule: rule_name(detail.rule),
        rules: FusionRule::ALL.iter().map(|&rule| rule_name(rule)).collect(),
        claim: detail
            .claim
            .iter()
            .map(|verdict| format!("{} {}", rule_name(verdict.rule), verdict_text(verdict)))
            .collect(),
        rag: detail.rag.as_ref().map(|rag| stance_word(rag.stance)),
        documents,
    }
}

fn render(
    template: &'static str,
    html: bool,
    check: &ClaimCheck,
    detail: &CiberDetail,
) -> io::Result<String> {
    crate::templates::render("ciber", template, html, false, context(check, detail))
}

/// The CIBER section of a check in an HTML report (nothing for other methods).
pub(crate) fn write_html(check: &ClaimCheck, out: &mut dyn Write) -> io::Result<()> {
    match check.ciber() {
        Some(detail) => out.write_all(render(HTML, true, check, detail)?.as_bytes()),
        None => Ok(()),
    }
}

/// The CIBER section of a check in a Markdown report (nothing for other methods).
pub(crate) fn write_markdown(check: &ClaimCheck, out: &mut dyn Write) -> io::Result<()> {
    match check.ciber() {
        Some(detail) => out.write_all(render(MARKDOWN, false, check, detail)?.as_bytes()),
        None => Ok(()),
    }
}
