//! The `archive` subcommands: exporting the page archive as WACZ.

use super::{Globals, Outcome};
use crate::args::archive::ArchiveCommand;
use crate::output;

pub fn archive(command: ArchiveCommand, globals: &Globals) -> anyhow::Result<Outcome> {
    match command {
        ArchiveCommand::Export { output, collection } => {
            let export = globals.open()?.export_archive(&output, collection.as_deref())?;
            output::show(&export, globals.json)?;
            Ok(Outcome::Success)
        }
    }
}
