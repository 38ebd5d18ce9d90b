//! The options of `summarize` and `score`, and the subcommands of `summaries`.

use std::path::PathBuf;

use clap::builder::PossibleValuesParser;
use clap::{Args, Subcommand};
use factdesk_core::methods::tts::TtsConfig;
use factdesk_core::report::Format as ReportFormat;
use factdesk_core::score::{Labeller, ScoreConfig};
use factdesk_core::summarize::SummaryChoices;

#[derive(Debug, Args)]
pub struct SummarizeArgs {
    /// The question the summary answers (with --corpus, --documents or --search)
    #[arg(long, required_unless_present_any = ["outcome", "list"])]
    pub question: Option<String>,
    /// Every document of this corpus (at most 40)
    #[arg(long, conflicts_with_all = ["documents", "search"])]
    pub corpus: Option<String>,
    /// These documents (ids in `factdesk docs`), comma-separated or repeated
    #[arg(long, num_args = 1.., value_delimiter = ',', conflicts_with = "search")]
    pub documents: Vec<i64>,
    /// The documents whose sentences best match this search of the index
    #[arg(long, value_name = "QUERY")]
    pub search: Option<String>,
    /// With --search: at most this many documents
    #[arg(long, default_value_t = 10, requires = "search")]
    pub limit: usize,
    /// Pages to fetch (or read from the page archive) as the sources, imported into the
    /// corpus --into first (repeatable)
    #[arg(long = "url", value_name = "URL", conflicts_with_all = ["corpus", "documents", "search"])]
    pub urls: Vec<String>,
    /// With --url: the corpus the pages are imported into
    #[arg(long, default_value = "web", value_name = "CORPUS", requires = "urls")]
    pub into: String,
    /// Sources scoring at least this are kept
    #[arg(long, default_value_t = TtsConfig::default().tau)]
    pub tau: f64,
    /// Seeds each source's permutation
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// tts, or a baseline: all-sources, majority-prompt, majority-claims
    #[arg(
        long,
        default_value = "tts",
        value_parser = PossibleValuesParser::new(factdesk_core::summarize::method_names())
    )]
    pub method: String,
    /// Who judges each source's stance on a claim: chat (the chat model) or verifier (the
    /// NLI verifier; Factdesk's judges support only, so its stances support or abstain)
    #[arg(
        long,
        default_value = "chat",
        value_parser = PossibleValuesParser::new(SummaryChoices::stance_judge_names())
    )]
    pub stances: String,
    /// Sources whose word 5-gram overlap (Jaccard) reaches this are one source
    #[arg(long, default_value_t = factdesk_core::methods::tts::duplicates::DEFAULT_THRESHOLD)]
    pub duplicate_threshold: f64,
    /// Start a new run even if an unfinished one (cancelled, failed) with the same sources,
    /// question and settings would be resumed
    #[arg(long)]
    pub restart: bool,
    /// A stored summary (`id` of summarize --json): show it, export it with -o, or write
    /// its answer again from the sources --use names
    #[arg(long, value_name = "ID", conflicts_with_all = ["question", "list", "corpus", "documents", "search", "urls", "tau", "seed", "method", "stances", "duplicate_threshold", "restart"])]
    pub outcome: Option<i64>,
    /// With --outcome: the sources to write the answer from, by their numbers in its source
    /// table (comma-separated); the others are dropped by hand
    #[arg(long = "use", value_name = "N", num_args = 1.., value_delimiter = ',', requires = "outcome")]
    pub use_sources: Vec<usize>,
    /// List the stored summaries of several sources, newest first
    #[arg(long, conflicts_with_all = ["question", "output"])]
    pub list: bool,
    /// Also write the summary as a report to this file (md, html or json by its extension)
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// The report's format: md, html or json [default: by the file's extension]
    #[arg(long, requires = "output")]
    pub format: Option<ReportFormat>,
}

#[derive(Debug, Subcommand)]
pub enum SummariesCommand {
    /// Keep a structured summary (Markdown, or JSON) of a question
    Add {
        file: PathBuf,
        #[arg(long)]
        question: String,
        #[arg(long, default_value = "")]
        name: String,
    },
    /// The questions with stored summaries, or one question's summaries and their labels
    List {
        #[arg(long)]
        question: Option<String>,
    },
    /// Label one element of a stored summary: overview.sufficiency, overview.faithfulness,
    /// overview.representativeness, s<i>.<j>.heading|relevance|faithfulness, pool.<id>.<k>
    Label {
        id: i64,
        element: String,
        /// perfectly, partially, not, a grade from 0 to 1, or clear
        grade: String,
        /// Who labels (stored as person:<name>)
        #[arg(long)]
        by: Option<String>,
    },
    /// Have models label what nobody has labelled of a question's stored summaries; each label
    /// is stored as model:<name> with its reason, and a person's label is never replaced
    LabelWith {
        /// verifier (faithfulness against --documents) or llm (every criterion and Comp's
        /// pool); repeatable
        #[arg(value_parser = PossibleValuesParser::new(Labeller::names()), required = true)]
        labellers: Vec<String>,
        #[arg(long)]
        question: String,
        /// The documents the summaries cite, in citation order
        #[arg(long, num_args = 1..)]
        documents: Vec<PathBuf>,
    },
    /// Score every stored summary of a question (default weights), optionally writing a report
    Score {
        #[arg(long)]
        question: String,
        /// Also write a report (md, html or json, by the file's extension)
        #[arg(long, short = 'o')]
        report: Option<PathBuf>,
    },
}

#[derive(Debug, Args)]
pub struct ScoreArgs {
    /// Summary files (.md or .json), in the labels file's order
    #[arg(required_unless_present = "fit", conflicts_with = "fit")]
    pub summaries: Vec<PathBuf>,
    /// The labels file (JSON); without it every element counts 0 and is named missing
    #[arg(long, conflicts_with = "fit")]
    pub labels: Option<PathBuf>,
    /// Weights to score with: a file written by --fit --out
    #[arg(long, conflicts_with = "fit")]
    pub weights: Option<PathBuf>,
    /// The documents the summaries cite, in citation order ([1] is the first): citations
    /// of others are named, and --label-with verifier judges against them
    #[arg(long, num_args = 1.., conflicts_with = "fit")]
    pub documents: Vec<PathBuf>,
    /// Label what the labels file leaves out (repeatable): `verifier` labels the
    /// faithfulness of the overview and each statement by the NLI verifier against the
    /// documents it cites; `llm` has the chat model label every criterion and Comp's pool
    /// (faithfulness too when --documents are given and the verifier is not asked)
    #[arg(
        long,
        value_parser = PossibleValuesParser::new(Labeller::names()),
        conflicts_with = "fit"
    )]
    pub label_with: Vec<String>,
    /// The question the summaries answer (needed by --label-with llm)
    #[arg(long, conflicts_with = "fit")]
    pub question: Option<String>,
    /// Also write a report (each summary's figures and X(l) curve) to this file: md, html or
    /// json, by its extension unless --format says
    #[arg(long, short = 'o', conflicts_with = "fit")]
    pub report: Option<PathBuf>,
    /// The report's format: md, html or json
    #[arg(long, requires = "report")]
    pub format: Option<ReportFormat>,
    /// Fit the weights by logistic regression on this preference dataset (JSON: questions,
    /// each with labelled summaries and people's left/right preferences)
    #[arg(long, value_name = "DATASET")]
    pub fit: Option<PathBuf>,
    /// --fit: the share of questions held out to measure the mean agreement rate
    #[arg(long, default_value_t = 0.3, requires = "fit")]
    pub test_share: f64,
    /// --fit: seeds the split of questions
    #[arg(long, default_value_t = 0, requires = "fit")]
    pub seed: u64,
    /// --fit: the L2 penalty of the logistic regression
    #[arg(long, default_value_t = factdesk_core::score::DEFAULT_FIT_ALPHA, requires = "fit")]
    pub alpha: f64,
    /// --fit: do not add "original preferred over its NoHeadings / NoSection1 variant"
    #[arg(long, requires = "fit")]
    pub no_degraded: bool,
    /// --fit: write the weights file here (give it to --weights)
    #[arg(long, requires = "fit")]
    pub out: Option<PathBuf>,
    /// XUX counts at most this many lines
    #[arg(long, default_value_t = ScoreConfig::default().l_max)]
    pub l_max: usize,
    /// XUX_G: the chance a reader stops after each line
    #[arg(long, default_value_t = ScoreConfig::default().stop)]
    pub stop: f64,
}
