//! The `factdesk` command: parses arguments, calls `factdesk-core`, prints results (tables for
//! people, `--json` for programs) and progress bars, and maps outcomes to exit codes:
//! 0 all went well, 1 some items failed, 2 usage or fatal error. It holds no logic of its own.
//! The arguments are declared in `args`, what each command does is in `commands`.

#![allow(clippy::print_stdout, clippy::print_stderr)]

mod args;
mod commands;
mod output;
mod progress;

use std::process::ExitCode;

use clap::Parser;
use factdesk_core::env;

use crate::args::{Cli, Command};
use crate::commands::{Globals, Outcome};
use crate::commands::{
    archive, claims, config, corpus, models, passages, report, revise, summaries, verify,
};

/// mimalloc instead of glibc's malloc, which maps and faults in afresh each of the verifier's
/// and the index writer's large short-lived buffers (`factdesk-bench verifier` and
/// `import-search` measure the difference).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging(cli.verbose);
    let json = cli.json;
    match run(cli) {
        Ok(Outcome::Success) => ExitCode::SUCCESS,
        Ok(Outcome::SomeFailed) => ExitCode::from(1),
        // A reader that stopped reading (`factdesk report … | head`) is not an error.
        Err(error) if is_broken_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            let message = describe(&error);
            eprintln!("error: {message}");
            // A program reading --json gets an answer on stdout too.
            if json {
                let code = error
                    .chain()
                    .find_map(|cause| cause.downcast_ref::<factdesk_core::CoreError>())
                    .map_or("error", factdesk_core::CoreError::code);
                let object = serde_json::json!({"error": {"code": code, "message": message}});
                println!("{object}");
            }
            ExitCode::from(2)
        }
    }
}

/// The error and its causes, each cause left out when the message before already says it
/// (many messages quote their cause).
fn describe(error: &anyhow::Error) -> String {
    let mut message = error.to_string();
    for cause in error.chain().skip(1) {
        let cause = cause.to_string();
        if !message.contains(&cause) {
            message.push_str(": ");
            message.push_str(&cause);
        }
    }
    message
}

fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

fn init_logging(verbose: u8) {
    let default = match verbose {
        0 => "warn",
        1 => "info",
        _ => "debug",
    };
    let filter = env::var(env::LOG).unwrap_or_else(|| default.to_owned());
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
        .with_writer(std::io::stderr)
        .with_target(false)
        .try_init();
}

fn run(cli: Cli) -> anyhow::Result<Outcome> {
    let data_dir = cli.data_dir.unwrap_or_else(env::default_data_dir);
    let globals = Globals { data_dir, json: cli.json };
    match cli.command {
        Command::Init => config::init(&globals),
        Command::Import(args) => corpus::import(args, &globals),
        Command::Search(args) => corpus::search(args, &globals),
        Command::Docs(args) => corpus::docs(args, &globals),
        Command::Doc(args) => corpus::doc(args, &globals),
        Command::Corpora => corpus::corpora(&globals),
        Command::Claims { command } => claims::claims(command, &globals),
        Command::Passages { command } => passages::passages(command, &globals),
        Command::Summarize(args) => summaries::summarize(args, &globals),
        Command::Summaries { command } => summaries::summaries(command, &globals),
        Command::Reindex(args) => corpus::reindex(args, &globals),
        Command::Models { command } => models::models(command, &globals),
        Command::Ask(args) => models::ask(args, &globals),
        Command::Verify(args) => verify::verify(args, &globals),
        Command::Score(args) => summaries::score(args, &globals),
        Command::Revision(args) => revise::revision(args, &globals),
        Command::Revise(args) => revise::revise(args, &globals),
        Command::Review(args) => verify::review(args, &globals),
        Command::Archive { command } => archive::archive(command, &globals),
        Command::Report(args) => report::report(args, &globals),
        Command::Eval(args) => report::eval(args, &globals),
        Command::Config(args) => config::config(args, &globals),
    }
}
