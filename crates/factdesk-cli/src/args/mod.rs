//! The command line as clap parses it: the global options and the commands. The options of
//! each family of commands are in the submodule named like its module in `commands`.

pub mod archive;
pub mod claims;
pub mod config;
pub mod corpus;
pub mod models;
pub mod passages;
pub mod report;
pub mod revise;
pub mod summaries;
pub mod verify;

use std::path::PathBuf;

use clap::{Parser, Subcommand};
use factdesk_core::env;

use self::archive::ArchiveCommand;
use self::claims::ClaimsCommand;
use self::config::ConfigArgs;
use self::corpus::{DocArgs, DocsArgs, ImportArgs, ReindexArgs, SearchArgs};
use self::models::{AskArgs, ModelsCommand};
use self::passages::PassagesCommand;
use self::report::{EvalArgs, ReportArgs};
use self::revise::{ReviseArgs, RevisionArgs};
use self::summaries::{ScoreArgs, SummariesCommand, SummarizeArgs};
use self::verify::{ReviewArgs, VerifyArgs};

#[derive(Debug, Parser)]
#[command(
    name = "factdesk",
    version,
    about = "Offline-first fact-checking workbench",
    max_term_width = 100
)]
pub struct Cli {
    /// Data directory (database, search index, config) [default: the platform data folder]
    #[arg(long, global = true, env = env::DATA_DIR, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// Print results as JSON
    #[arg(long, global = true)]
    pub json: bool,
    /// More log output on stderr (-v info, -vv debug); FACTDESK_LOG overrides
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create the data directory with its database, search index and config file
    Init,
    /// Import files, folders (recursively) and http(s) URLs into a corpus
    Import(ImportArgs),
    /// Search sentences (BM25) with highlighted snippets
    Search(SearchArgs),
    /// List documents, newest first
    Docs(DocsArgs),
    /// Show one document with its sentences
    Doc(DocArgs),
    /// List corpora
    Corpora,
    /// Claim collections
    Claims {
        #[command(subcommand)]
        command: ClaimsCommand,
    },
    /// Passages of a collection: summaries, answers and other texts that methods revise,
    /// summarise or score
    Passages {
        #[command(subcommand)]
        command: PassagesCommand,
    },
    /// Answer a question from several corpus documents with Truthful Text Summarization: each
    /// source scored by how its stances agree with its peers' on claims drafted without it, the
    /// answer written from the sources scoring at least tau; stored with the model calls
    Summarize(SummarizeArgs),
    /// Structured summaries kept in the library for scoring with SGSS: add, list, label and
    /// score a question's summaries (as the app's Scores view does)
    Summaries {
        #[command(subcommand)]
        command: SummariesCommand,
    },
    /// Rebuild the search index from the database, or check that the two agree
    Reindex(ReindexArgs),
    /// Chat models: which one is selected, what is installed, whether it answers
    Models {
        #[command(subcommand)]
        command: ModelsCommand,
    },
    /// Send one prompt to the configured model (recorded in the database like every call)
    Ask(AskArgs),
    /// Check a claim, or every claim of a collection, and store the verdicts
    Verify(VerifyArgs),
    /// Score structured summaries (Markdown or JSON) with SGSS from a labels file: X(l), XUX,
    /// XUX_F, XUX_G, and Comp and SGSS for two or more summaries with pool labels; or, with
    /// --fit, fit SGSS's weights to pairwise preferences and measure their agreement
    Score(ScoreArgs),
    /// Show a revision with the decisions on its edits; accept or reject edits (the revision
    /// itself is kept as the method made it); print the text kept
    Revision(RevisionArgs),
    /// Correct a passage, one stored passage, or every passage of a collection with RARR or
    /// CoVe against evidence, and store each revision with its edits and their evidence
    Revise(ReviseArgs),
    /// Accept or override a machine verdict (kept beside it as a human review)
    Review(ReviewArgs),
    /// The page archive as a WACZ package (WARC records, index, page list, hashes); import a
    /// WARC or WACZ file with `factdesk import FILE --corpus NAME`
    Archive {
        #[command(subcommand)]
        command: ArchiveCommand,
    },
    /// Export a collection's verdicts as md, html, json, csv or claimreview (JSON-LD)
    Report(ReportArgs),
    /// Score a labelled collection's verdicts: accuracy, balanced accuracy, confusion matrix,
    /// each method's own figures (LLM-Cite's URL figures), tokens per claim
    Eval(EvalArgs),
    /// Show settings: the effective ones, the defaults, or the config file's path
    Config(ConfigArgs),
}
