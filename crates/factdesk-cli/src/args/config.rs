//! The options of `config`.

use clap::Args;

#[derive(Debug, Args)]
pub struct ConfigArgs {
    /// Print the built-in defaults file, with its comments
    #[arg(long, conflicts_with = "path")]
    pub defaults: bool,
    /// Print the path of the user config file
    #[arg(long)]
    pub path: bool,
}
