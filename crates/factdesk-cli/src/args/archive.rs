//! The subcommands of `archive`.

use std::path::PathBuf;

use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum ArchiveCommand {
    /// Write every page fetched so far (or those the checks of a collection read) to a .wacz
    /// file, all or nothing
    Export {
        /// The file to write, e.g. pages.wacz
        output: PathBuf,
        /// Only the pages the checks of this collection's claims read
        #[arg(long)]
        collection: Option<String>,
    },
}
