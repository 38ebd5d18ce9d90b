//! The subcommands of `models`, and the options of `ask`.

use clap::{Args, Subcommand};

#[derive(Debug, Subcommand)]
pub enum ModelsCommand {
    /// The selected model, the model files installed, and the server's models
    List,
    /// Ask the selected model for a one-word answer; exit 2 if it does not answer
    Check,
}

#[derive(Debug, Args)]
pub struct AskArgs {
    pub prompt: String,
    /// A system message before the prompt
    #[arg(long)]
    pub system: Option<String>,
    #[arg(long)]
    pub max_tokens: Option<u32>,
    #[arg(long)]
    pub temperature: Option<f32>,
    #[arg(long)]
    pub seed: Option<u64>,
}
