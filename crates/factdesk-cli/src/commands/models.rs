//! The model commands: `models` (list, check) and `ask`.

use factdesk_core::models::AskOptions;

use super::{Globals, Outcome, runtime};
use crate::args::models::{AskArgs, ModelsCommand};
use crate::output;

pub fn models(command: ModelsCommand, globals: &Globals) -> anyhow::Result<Outcome> {
    let json = globals.json;
    let app = globals.open()?;
    let runtime = runtime()?;
    match command {
        ModelsCommand::List => output::show(&runtime.block_on(app.list_models())?, json)?,
        ModelsCommand::Check => output::show(&runtime.block_on(app.check_model())?, json)?,
    }
    Ok(Outcome::Success)
}

pub fn ask(args: AskArgs, globals: &Globals) -> anyhow::Result<Outcome> {
    let AskArgs { prompt, system, max_tokens, temperature, seed } = args;
    let app = globals.open()?;
    let runtime = runtime()?;
    let options = AskOptions { system, max_tokens, temperature, seed };
    let answer = runtime.block_on(app.ask(&prompt, options))?;
    output::show(&answer, globals.json)?;
    Ok(Outcome::Success)
}
