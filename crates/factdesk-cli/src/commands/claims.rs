//! The `claims` subcommands: adding, importing, listing claims, setting a claim's language and
//! finding similar ones.

use factdesk_core::claims::ClaimQuery;
use factdesk_core::model::ClaimId;

use super::{Globals, Outcome, runtime};
use crate::args::claims::ClaimsCommand;
use crate::output;

pub fn claims(command: ClaimsCommand, globals: &Globals) -> anyhow::Result<Outcome> {
    let json = globals.json;
    match command {
        ClaimsCommand::Add { texts, collection, date } => {
            let summary = globals.open()?.add_claims(&collection, &texts, date.as_deref())?;
            output::show(&summary, json)?;
            Ok(Outcome::Success)
        }
        ClaimsCommand::Import { file, collection } => {
            let summary = globals.open()?.import_claims(&file, &collection)?;
            output::show(&summary, json)?;
            Ok(if summary.failed > 0 { Outcome::SomeFailed } else { Outcome::Success })
        }
        ClaimsCommand::List { collection, status, tag, limit } => {
            let claims = globals.open()?.claims(&ClaimQuery { collection, status, tag, limit })?;
            output::show(&claims, json)?;
            Ok(Outcome::Success)
        }
        ClaimsCommand::Language { id, code } => {
            let claim = globals.open()?.set_claim_language(ClaimId(id), code.as_deref())?;
            output::show(std::slice::from_ref(&claim), json)?;
            Ok(Outcome::Success)
        }
        ClaimsCommand::Collections => {
            output::show(&globals.open()?.collections()?, json)?;
            Ok(Outcome::Success)
        }
        ClaimsCommand::Similar { text, limit, threshold } => {
            let app = globals.open()?;
            let runtime = runtime()?;
            let similar = runtime.block_on(app.similar_claims(&text, limit, threshold))?;
            output::show(&similar, json)?;
            Ok(Outcome::Success)
        }
    }
}
