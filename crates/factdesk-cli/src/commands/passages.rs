//! The `passages` subcommands: adding, listing and importing the passages of a collection.

use std::sync::Arc;

use factdesk_core::CancelToken;
use factdesk_core::model::DocumentId;
use factdesk_core::passages::PassageImportRequest;

use super::{Globals, Outcome, runtime};
use crate::args::passages::PassagesCommand;
use crate::{output, progress};

pub fn passages(command: PassagesCommand, globals: &Globals) -> anyhow::Result<Outcome> {
    let json = globals.json;
    match command {
        PassagesCommand::Add { text, collection, kind, question, sources } => {
            let sources: Vec<DocumentId> = sources.into_iter().map(DocumentId).collect();
            let summary = globals.open()?.add_passage(
                &collection,
                kind,
                &text,
                question.as_deref(),
                &sources,
            )?;
            output::show(&summary, json)?;
            Ok(Outcome::Success)
        }
        PassagesCommand::List { collection } => {
            output::show(&globals.open()?.passages(&collection)?, json)?;
            Ok(Outcome::Success)
        }
        PassagesCommand::Import {
            file,
            collection,
            text_field,
            kind,
            question_field,
            source_field,
            corpus,
        } => {
            let app = globals.open()?;
            let request = PassageImportRequest {
                file,
                collection,
                text_field,
                kind,
                question_field,
                source_field,
                corpus,
            };
            let runtime = runtime()?;
            let reporter = Arc::new(progress::BarReporter::new(json));
            let summary =
                runtime.block_on(app.import_passages(&request, reporter, CancelToken::new()))?;
            output::show(&summary, json)?;
            Ok(if summary.failed > 0 { Outcome::SomeFailed } else { Outcome::Success })
        }
    }
}
