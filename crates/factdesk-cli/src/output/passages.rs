//! What the `passages` subcommands print: passages added, listed and imported.

use factdesk_core::model::Passage;
use factdesk_core::passages::{PassageAddSummary, PassageImportSummary};

use super::{Text, import_failures};

impl Text for PassageAddSummary {
    fn text(&self) -> anyhow::Result<()> {
        let summary = self;
        if summary.added > 0 {
            println!("Added the passage to '{}'.", summary.collection);
        } else {
            println!("'{}' already holds this passage; nothing was added.", summary.collection);
        }
        Ok(())
    }
}

impl Text for [Passage] {
    fn text(&self) -> anyhow::Result<()> {
        let passages = self;
        if passages.is_empty() {
            println!("No passages.");
        }
        for passage in passages {
            let sources: Vec<String> = passage.sources.iter().map(|id| id.to_string()).collect();
            println!(
                "{:>6}  {:<18} {}{}{}",
                passage.id,
                passage.kind.as_str(),
                passage.text,
                passage
                    .question
                    .as_deref()
                    .map(|q| format!("  (question: {q})"))
                    .unwrap_or_default(),
                if sources.is_empty() {
                    String::new()
                } else {
                    format!("  (sources: {})", sources.join(", "))
                }
            );
        }
        Ok(())
    }
}

impl Text for PassageImportSummary {
    fn text(&self) -> anyhow::Result<()> {
        let summary = self;
        println!(
            "'{}': {} passage(s) added, {} already there, {} failed; source articles: {} imported, {} \
             already in the corpus.",
            summary.collection,
            summary.added,
            summary.duplicates,
            summary.failed,
            summary.sources_imported,
            summary.sources_already_there
        );
        import_failures(&summary.failures);
        Ok(())
    }
}
