//! Printing results: JSON for `--json`, plain text for people. Highlights are shown in bold
//! on a terminal and between [brackets] otherwise. What each command family prints is in the
//! module named like its `commands` module; this one holds what they share.

pub mod archive;
pub mod claims;
pub mod config;
pub mod corpus;
pub mod models;
pub mod passages;
pub mod report;
pub mod revise;
pub mod summaries;
pub mod verify;

use factdesk_core::import::ImportFailure;
use factdesk_core::model::{EvidenceSource, TokenUse};
use serde::Serialize;

/// What a command prints for people (its JSON is its `Serialize`).
pub(crate) trait Text {
    fn text(&self) -> anyhow::Result<()>;
}

impl<T> Text for Vec<T>
where
    [T]: Text,
{
    fn text(&self) -> anyhow::Result<()> {
        self.as_slice().text()
    }
}

/// Prints `value` as JSON with `--json`, else as text: the one place that chooses.
pub fn show<T: Serialize + Text + ?Sized>(value: &T, json: bool) -> anyhow::Result<()> {
    if json { print_json(&value) } else { value.text() }
}

/// How a batch run went, after its first words ("Run 3 (corpus-nli) over 'demo': 10
/// claim(s); 4 checked now, 6 checked before"): resumed, subjects another process holds
/// (`busy`: "being checked"), failures, and how to go on after a cancel.
fn run_line(
    head: String,
    resumed: bool,
    elsewhere: usize,
    busy: &str,
    failed: usize,
    cancelled: bool,
) -> String {
    format!(
        "{head}{}{}, {failed} failed{}.",
        if resumed { " (run resumed)" } else { "" },
        if elsewhere > 0 {
            format!(", {elsewhere} {busy} by another process")
        } else {
            String::new()
        },
        if cancelled { "; cancelled — run the same command again to continue" } else { "" }
    )
}

/// The claims or passages a batch could not do, and how to retry them.
fn retry_failures(failures: &[factdesk_core::batch::SubjectFailure]) {
    if !failures.is_empty() {
        println!("Failures (run the same command again to retry them):");
        for failure in failures {
            println!("  {}: {}", failure.subject, failure.message);
        }
    }
}

/// The items an import could not take, one a line with why.
fn import_failures(failures: &[ImportFailure]) {
    for failure in failures {
        println!("  {}: {}", failure.item, failure.message);
    }
}

pub(crate) fn print_json(value: &impl Serialize) -> anyhow::Result<()> {
    println!("{}", serde_json::to_string_pretty(value)?);
    Ok(())
}

/// A source's URL, else its title, else "(document)".
fn source_name(source: &EvidenceSource) -> &str {
    source.url.as_deref().or(source.title.as_deref()).unwrap_or("(document)")
}

/// The tokens a check or a revision spent, in all and per purpose.
fn tokens(tokens: &TokenUse) {
    println!(
        "Tokens:     {}{}",
        tokens.total(),
        purposes(tokens.0.iter().map(|(purpose, count)| {
            (purpose.as_str(), count.prompt as f64, count.completion as f64)
        }))
    );
}

/// " (url 120 in + 30 out, judge 800 in + 4 out)", or nothing when no purpose cost tokens.
fn purposes<'a>(counts: impl Iterator<Item = (&'a str, f64, f64)>) -> String {
    let parts: Vec<String> = counts
        .map(|(purpose, prompt, completion)| {
            format!("{purpose} {prompt:.0} in + {completion:.0} out")
        })
        .collect();
    if parts.is_empty() { String::new() } else { format!(" ({})", parts.join(", ")) }
}

/// "0.123" or "n/a".
fn figure(value: Option<f64>) -> String {
    value.map_or_else(|| "n/a".to_owned(), |v| format!("{v:.3}"))
}

#[cfg(test)]
mod tests {
    use super::run_line;

    #[test]
    fn a_run_line_says_what_was_resumed_held_elsewhere_failed_and_cancelled() {
        let head =
            || "Run 3 (corpus-nli) over 'demo': 10 claim(s); 4 checked now, 6 checked before";
        assert_eq!(
            run_line(head().into(), false, 0, "being checked", 0, false),
            "Run 3 (corpus-nli) over 'demo': 10 claim(s); 4 checked now, 6 checked before, 0 failed."
        );
        assert_eq!(
            run_line(head().into(), true, 2, "being checked", 1, true),
            "Run 3 (corpus-nli) over 'demo': 10 claim(s); 4 checked now, 6 checked before (run \
             resumed), 2 being checked by another process, 1 failed; cancelled — run the same \
             command again to continue."
        );
    }
}
