//! The subcommands of `passages`.

use std::path::PathBuf;

use clap::Subcommand;
use factdesk_core::model::PassageKind;

#[derive(Debug, Subcommand)]
pub enum PassagesCommand {
    /// Add a passage to a collection (created if missing)
    Add {
        /// The passage's text
        text: String,
        #[arg(long)]
        collection: String,
        /// summary, structured_summary, answer or text
        #[arg(long, default_value = "summary")]
        kind: PassageKind,
        /// The question it answers
        #[arg(long)]
        question: Option<String>,
        /// A corpus document it was written from (its id in `factdesk docs`); repeatable
        #[arg(long = "source", value_name = "DOCUMENT_ID")]
        sources: Vec<i64>,
    },
    /// List the passages of a collection
    List {
        #[arg(long)]
        collection: String,
    },
    /// Import passages from a JSONL file, each optionally with its source article (imported
    /// into a corpus and tied to the passage)
    Import {
        file: PathBuf,
        #[arg(long)]
        collection: String,
        /// The field holding each passage's text
        #[arg(long, default_value = "summary")]
        text_field: String,
        /// summary, structured_summary, answer or text
        #[arg(long, default_value = "summary")]
        kind: PassageKind,
        /// The field holding the question a passage answers
        #[arg(long)]
        question_field: Option<String>,
        /// The field holding each record's source article (needs --corpus)
        #[arg(long, requires = "corpus")]
        source_field: Option<String>,
        /// The corpus the source articles go into
        #[arg(long)]
        corpus: Option<String>,
    },
}
