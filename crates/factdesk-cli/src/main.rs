//! The `factdesk` command: parses arguments, calls `factdesk-core`, prints results (tables for
//! people, `--json` for programs) and progress bars, and maps outcomes to exit codes:
//! 0 all went well, 1 some items failed, 2 usage or fatal error. It holds no logic of its own.

#![allow(clippy::print_stdout, clippy::print_stderr)]

mod output;
mod progress;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use clap::{Parser, Subcommand};
use factdesk_core::claims::ClaimQuery;
use factdesk_core::import::ImportRequest;
use factdesk_core::llm::CacheMode;
use factdesk_core::methods::llm_cite::UrlStrategy;
use factdesk_core::methods::revise::evidence::Granularity;
use factdesk_core::methods::revise::{Gate, ReviseMethod};
use factdesk_core::methods::tts::TtsConfig;
use factdesk_core::model::PassageId;
use factdesk_core::model::{CheckId, ReviewDecision, RunId, Verdict};
use factdesk_core::model::{ClaimStatus, DocumentId, PassageKind};
use factdesk_core::models::AskOptions;
use factdesk_core::passages::PassageImportRequest;
use factdesk_core::report::Format as ReportFormat;
use factdesk_core::revise::{EvidenceChoice, ReviseOptions};
use factdesk_core::score::{FitRequest, Labeller, ScoreRequest};
use factdesk_core::search::SearchRequest;
use factdesk_core::summarize::{SummarizeRequest, SummarySources};
use factdesk_core::verify::{CheckSelection, Method, VerifyOptions};
use factdesk_core::{CancelToken, Factdesk, Settings, env};

/// mimalloc instead of glibc's malloc, which maps and faults in afresh each of the verifier's
/// and the index writer's large short-lived buffers (`factdesk-bench verifier` and
/// `import-search` measure the difference).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Debug, Parser)]
#[command(
    name = "factdesk",
    version,
    about = "Offline-first fact-checking workbench",
    max_term_width = 100
)]
struct Cli {
    /// Data directory (database, search index, config) [default: the platform data folder]
    #[arg(long, global = true, env = env::DATA_DIR, value_name = "DIR")]
    data_dir: Option<PathBuf>,
    /// Print results as JSON
    #[arg(long, global = true)]
    json: bool,
    /// More log output on stderr (-v info, -vv debug); FACTDESK_LOG overrides
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    verbose: u8,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Create the data directory with its database, search index and config file
    Init,
    /// Import files, folders (recursively) and http(s) URLs into a corpus
    Import {
        /// Files (.txt .md .html .htm .jsonl .csv), folders, or http(s) URLs
        #[arg(required = true, value_name = "PATH|URL")]
        sources: Vec<String>,
        /// Corpus to import into (created if missing)
        #[arg(long, default_value = "default")]
        corpus: String,
        /// JSONL field / CSV column holding the text (replaces import.fields.text)
        #[arg(long, value_name = "NAME")]
        text_field: Option<String>,
        /// JSONL field / CSV column holding the title
        #[arg(long, value_name = "NAME")]
        title_field: Option<String>,
        /// JSONL field / CSV column holding the URL
        #[arg(long, value_name = "NAME")]
        url_field: Option<String>,
        /// JSONL field / CSV column holding the publication date
        #[arg(long, value_name = "NAME")]
        date_field: Option<String>,
    },
    /// Search sentences (BM25) with highlighted snippets
    Search {
        query: String,
        /// Number of hits [default: search.limit]
        #[arg(long, short = 'n')]
        limit: Option<usize>,
        /// Only this corpus (repeatable)
        #[arg(long)]
        corpus: Vec<String>,
        /// Only this document id (repeatable)
        #[arg(long)]
        document: Vec<i64>,
    },
    /// List documents, newest first
    Docs {
        #[arg(long)]
        corpus: Option<String>,
        #[arg(long, default_value_t = 50)]
        limit: u64,
        #[arg(long, default_value_t = 0)]
        offset: u64,
    },
    /// Show one document with its sentences
    Doc { id: i64 },
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
    Summarize {
        /// The question the summary answers (with --corpus, --documents or --search)
        #[arg(long, required_unless_present_any = ["outcome", "list"])]
        question: Option<String>,
        /// Every document of this corpus (at most 40)
        #[arg(long, conflicts_with_all = ["documents", "search"])]
        corpus: Option<String>,
        /// These documents (ids in `factdesk docs`), comma-separated or repeated
        #[arg(long, num_args = 1.., value_delimiter = ',', conflicts_with = "search")]
        documents: Vec<i64>,
        /// The documents whose sentences best match this search of the index
        #[arg(long, value_name = "QUERY")]
        search: Option<String>,
        /// With --search: at most this many documents
        #[arg(long, default_value_t = 10, requires = "search")]
        limit: usize,
        /// Pages to fetch (or read from the page archive) as the sources, imported into the
        /// corpus --into first (repeatable)
        #[arg(long = "url", value_name = "URL", conflicts_with_all = ["corpus", "documents", "search"])]
        urls: Vec<String>,
        /// With --url: the corpus the pages are imported into
        #[arg(long, default_value = "web", value_name = "CORPUS", requires = "urls")]
        into: String,
        /// Sources scoring at least this are kept
        #[arg(long, default_value_t = 0.06)]
        tau: f64,
        /// Seeds each source's permutation
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// tts, or a baseline: all-sources, majority-prompt, majority-claims
        #[arg(long, default_value = "tts", value_parser = ["tts", "all-sources", "majority-prompt", "majority-claims"])]
        method: String,
        /// Who judges each source's stance on a claim: chat (the chat model) or verifier (the
        /// NLI verifier; Factdesk's judges support only, so its stances support or abstain)
        #[arg(long, default_value = "chat", value_parser = ["chat", "verifier"])]
        stances: String,
        /// Sources whose word 5-gram overlap (Jaccard) reaches this are one source
        #[arg(long, default_value_t = factdesk_core::methods::tts::duplicates::DEFAULT_THRESHOLD)]
        duplicate_threshold: f64,
        /// Start a new run even if an unfinished one (cancelled, failed) with the same sources,
        /// question and settings would be resumed
        #[arg(long)]
        restart: bool,
        /// A stored summary (`id` of summarize --json): show it, export it with -o, or write
        /// its answer again from the sources --use names
        #[arg(long, value_name = "ID", conflicts_with_all = ["question", "list", "corpus", "documents", "search", "urls", "tau", "seed", "method", "stances", "duplicate_threshold", "restart"])]
        outcome: Option<i64>,
        /// With --outcome: the sources to write the answer from, by their numbers in its source
        /// table (comma-separated); the others are dropped by hand
        #[arg(long = "use", value_name = "N", num_args = 1.., value_delimiter = ',', requires = "outcome")]
        use_sources: Vec<usize>,
        /// List the stored summaries of several sources, newest first
        #[arg(long, conflicts_with_all = ["question", "output"])]
        list: bool,
        /// Also write the summary as a report to this file (md, html or json by its extension)
        #[arg(long, short = 'o', value_name = "FILE")]
        output: Option<PathBuf>,
        /// The report's format: md, html or json [default: by the file's extension]
        #[arg(long, requires = "output")]
        format: Option<ReportFormat>,
    },
    /// Structured summaries kept in the library for scoring with SGSS: add, list, label and
    /// score a question's summaries (as the app's Scores view does)
    Summaries {
        #[command(subcommand)]
        command: SummariesCommand,
    },
    /// Rebuild the search index from the database, or check that the two agree
    Reindex {
        /// Only compare index and database; exit 1 if they differ
        #[arg(long)]
        check: bool,
    },
    /// Chat models: which one is selected, what is installed, whether it answers
    Models {
        #[command(subcommand)]
        command: ModelsCommand,
    },
    /// Send one prompt to the configured model (recorded in the database like every call)
    Ask {
        prompt: String,
        /// A system message before the prompt
        #[arg(long)]
        system: Option<String>,
        #[arg(long)]
        max_tokens: Option<u32>,
        #[arg(long)]
        temperature: Option<f32>,
        #[arg(long)]
        seed: Option<u64>,
    },
    /// Check a claim, or every claim of a collection, and store the verdicts
    Verify {
        /// The claim to check (or --collection)
        #[arg(required_unless_present = "collection", conflicts_with = "collection")]
        claim: Option<String>,
        /// Check every claim of this collection (resumes an unfinished run with the same method
        /// configuration and models)
        #[arg(long)]
        collection: Option<String>,
        /// llm-cite, p-true, corpus-nli or ciber [default: verify.method]
        #[arg(long)]
        method: Option<Method>,
        /// llm-cite: URL generation, diverse, controlled or rs [default: methods.llm-cite.urls]
        #[arg(long)]
        urls: Option<UrlStrategy>,
        /// llm-cite: URLs per claim [default: methods.llm-cite.m]; corpus-nli: documents per
        /// claim sentence [default: methods.corpus-nli.documents]; ciber: evidence documents
        /// per claim [default: methods.ciber.documents]
        #[arg(long)]
        m: Option<usize>,
        /// Sentences per page (llm-cite) or document (corpus-nli) [default: methods.<method>.l]
        #[arg(long)]
        l: Option<usize>,
        /// llm-cite: rejection-sampling samples [default: methods.llm-cite.r]
        #[arg(long)]
        r: Option<u32>,
        /// llm-cite: sampling temperature for controlled and rs [default:
        /// methods.llm-cite.temperature]
        #[arg(long)]
        temperature: Option<f32>,
        /// Entailment probability needed [default: methods.<method>.threshold]
        #[arg(long)]
        threshold: Option<f64>,
        /// llm-cite: judge each page's first characters with the chat model instead of cumulative
        /// premises
        #[arg(long)]
        whole_document: bool,
        /// NLI model: auto, factdesk-verifier, llm, or cross-encoder:<folder> [default: verify.nli]
        #[arg(long)]
        nli: Option<String>,
        /// corpus-nli and ciber: only these corpora (repeatable)
        #[arg(long)]
        corpus: Vec<String>,
        /// ciber: judge this corpus document (its id, as `factdesk search` and `documents` show
        /// it) instead of retrieving documents (repeatable)
        #[arg(long = "document", value_name = "ID")]
        documents: Vec<i64>,
        /// ciber: judge this web page (fetched, or from the archive when offline) instead of
        /// retrieving documents (repeatable)
        #[arg(long = "page", value_name = "URL")]
        pages: Vec<String>,
        /// ciber: judge the web pages the newest LLM-Cite check of each claim read (from the
        /// page archive, offline) instead of retrieving documents
        #[arg(long)]
        from_llm_cite: bool,
        /// Model-call cache: off, read-write or replay-only [default: llm.cache]
        #[arg(long)]
        cache: Option<CacheMode>,
        /// Claims checked at once [default: verify.concurrency]
        #[arg(long)]
        concurrency: Option<usize>,
        /// Start a new run instead of continuing an unfinished one
        #[arg(long)]
        restart: bool,
        /// Leave out claims that an earlier run already checked with the same method
        /// configuration and models
        #[arg(long, requires = "collection", conflicts_with = "claim")]
        skip_checked: bool,
    },
    /// Score structured summaries (Markdown or JSON) with SGSS from a labels file: X(l), XUX,
    /// XUX_F, XUX_G, and Comp and SGSS for two or more summaries with pool labels; or, with
    /// --fit, fit SGSS's weights to pairwise preferences and measure their agreement
    Score {
        /// Summary files (.md or .json), in the labels file's order
        #[arg(required_unless_present = "fit", conflicts_with = "fit")]
        summaries: Vec<PathBuf>,
        /// The labels file (JSON); without it every element counts 0 and is named missing
        #[arg(long, conflicts_with = "fit")]
        labels: Option<PathBuf>,
        /// Weights to score with: a file written by --fit --out
        #[arg(long, conflicts_with = "fit")]
        weights: Option<PathBuf>,
        /// The documents the summaries cite, in citation order ([1] is the first): citations
        /// of others are named, and --label-with verifier judges against them
        #[arg(long, num_args = 1.., conflicts_with = "fit")]
        documents: Vec<PathBuf>,
        /// Label what the labels file leaves out (repeatable): `verifier` labels the
        /// faithfulness of the overview and each statement by the NLI verifier against the
        /// documents it cites; `llm` has the chat model label every criterion and Comp's pool
        /// (faithfulness too when --documents are given and the verifier is not asked)
        #[arg(long, value_parser = ["verifier", "llm"], conflicts_with = "fit")]
        label_with: Vec<String>,
        /// The question the summaries answer (needed by --label-with llm)
        #[arg(long, conflicts_with = "fit")]
        question: Option<String>,
        /// Also write a report (each summary's figures and X(l) curve) to this file: md, html or
        /// json, by its extension unless --format says
        #[arg(long, short = 'o', conflicts_with = "fit")]
        report: Option<PathBuf>,
        /// The report's format: md, html or json
        #[arg(long, requires = "report")]
        format: Option<ReportFormat>,
        /// Fit the weights by logistic regression on this preference dataset (JSON: questions,
        /// each with labelled summaries and people's left/right preferences)
        #[arg(long, value_name = "DATASET")]
        fit: Option<PathBuf>,
        /// --fit: the share of questions held out to measure the mean agreement rate
        #[arg(long, default_value_t = 0.3, requires = "fit")]
        test_share: f64,
        /// --fit: seeds the split of questions
        #[arg(long, default_value_t = 0, requires = "fit")]
        seed: u64,
        /// --fit: the L2 penalty of the logistic regression
        #[arg(long, default_value_t = factdesk_core::score::DEFAULT_FIT_ALPHA, requires = "fit")]
        alpha: f64,
        /// --fit: do not add "original preferred over its NoHeadings / NoSection1 variant"
        #[arg(long, requires = "fit")]
        no_degraded: bool,
        /// --fit: write the weights file here (give it to --weights)
        #[arg(long, requires = "fit")]
        out: Option<PathBuf>,
        /// XUX counts at most this many lines
        #[arg(long, default_value_t = 20)]
        l_max: usize,
        /// XUX_G: the chance a reader stops after each line
        #[arg(long, default_value_t = 0.2)]
        stop: f64,
    },
    /// Show a revision with the decisions on its edits; accept or reject edits (the revision
    /// itself is kept as the method made it); print the text kept
    Revision {
        /// The revision's outcome id (`outcome_id` of `revise`, `id` of `revise --json`)
        id: i64,
        /// Accept this edit (numbered from 1 as `revision` shows them); repeatable
        #[arg(long, value_name = "EDIT")]
        accept: Vec<usize>,
        /// Reject this edit; repeatable
        #[arg(long, value_name = "EDIT")]
        reject: Vec<usize>,
        #[arg(long)]
        reviewer: Option<String>,
        /// Print only the text kept: the original with every edit not rejected
        #[arg(long)]
        text: bool,
    },
    /// Correct a passage, one stored passage, or every passage of a collection with RARR or
    /// CoVe against evidence, and store each revision with its edits and their evidence
    Revise {
        /// The passage to correct (or --passage, or --collection)
        #[arg(
            required_unless_present_any = ["passage", "collection"],
            conflicts_with_all = ["passage", "collection"]
        )]
        text: Option<String>,
        /// A stored passage (its id in `factdesk passages list`), with its source documents
        #[arg(long, value_name = "ID", conflicts_with = "collection")]
        passage: Option<i64>,
        /// Every passage of this collection (resumes an unfinished run with the same
        /// configuration and models)
        #[arg(long)]
        collection: Option<String>,
        /// rarr or cove
        #[arg(long, default_value = "rarr")]
        method: ReviseMethod,
        /// auto, corpus, source, web or none [default: methods.<method>.evidence]
        #[arg(long)]
        evidence: Option<EvidenceChoice>,
        /// snippets or chunks [default: methods.<method>.granularity]
        #[arg(long)]
        granularity: Option<Granularity>,
        /// Who decides whether evidence agrees: chat or nli [default: methods.<method>.gate]
        #[arg(long)]
        gate: Option<Gate>,
        /// Corpus evidence from these corpora only (repeatable)
        #[arg(long)]
        corpus: Vec<String>,
        /// A source document of the text (its id in `factdesk docs`); repeatable
        #[arg(long = "source", value_name = "DOCUMENT_ID")]
        sources: Vec<i64>,
        /// A reference text to measure the revision against (with a text only)
        #[arg(long)]
        reference: Option<String>,
        /// Model-call cache: off, read-write or replay-only [default: llm.cache]
        #[arg(long)]
        cache: Option<CacheMode>,
        /// Passages revised at once [default: verify.concurrency]
        #[arg(long)]
        concurrency: Option<usize>,
        /// Leave out the metrics (edit distance, similarity, entailment by the sources)
        #[arg(long)]
        no_metrics: bool,
        /// Also have the chat model score the original and the revision against the sources:
        /// overall, factuality, relevance, 1-5 (G-Eval style)
        #[arg(long, conflicts_with = "no_metrics")]
        judge: bool,
        /// Start a new run instead of continuing an unfinished one
        #[arg(long)]
        restart: bool,
    },
    /// Accept or override a machine verdict (kept beside it as a human review)
    Review {
        /// The check id: "Check ID" in md and html reports, `id` in `verify --json` and in the
        /// checks of `report --format json`
        check: i64,
        /// Accept the machine verdict
        #[arg(long, conflicts_with = "verdict", required_unless_present = "verdict")]
        accept: bool,
        /// Override with this verdict: supported, refuted or not_enough_info
        #[arg(long = "override", value_name = "VERDICT")]
        verdict: Option<Verdict>,
        /// Why (required for an override)
        #[arg(long, default_value = "")]
        comment: String,
        #[arg(long)]
        reviewer: Option<String>,
    },
    /// The page archive as a WACZ package (WARC records, index, page list, hashes); import a
    /// WARC or WACZ file with `factdesk import FILE --corpus NAME`
    Archive {
        #[command(subcommand)]
        command: ArchiveCommand,
    },
    /// Export a collection's verdicts as md, html, json, csv or claimreview (JSON-LD)
    Report {
        #[arg(long)]
        collection: String,
        /// md (the default), html, json, csv or claimreview; with --json and no file, json
        #[arg(long)]
        format: Option<ReportFormat>,
        /// Write to this file instead of standard output
        #[arg(long, short = 'o')]
        output: Option<PathBuf>,
        /// Each claim's newest check of this method (llm-cite, p-true or corpus-nli) instead of
        /// its newest of any method
        #[arg(long)]
        method: Option<Method>,
        /// Only the checks of this run (the `run_id` of `verify --json`)
        #[arg(long)]
        run: Option<i64>,
        /// Export the revisions of the collection's passages (RARR, CoVe: md, html or json)
        /// instead of its verdicts
        #[arg(long, conflicts_with = "method")]
        revisions: bool,
    },
    /// Score a labelled collection's verdicts: accuracy, balanced accuracy, confusion matrix,
    /// each method's own figures (LLM-Cite's URL figures), tokens per claim
    Eval {
        #[arg(long)]
        collection: String,
        /// Score this run's checks instead of each claim's newest
        #[arg(long)]
        run: Option<i64>,
        /// Score each claim's newest check of this method (llm-cite, p-true, corpus-nli or
        /// ciber)
        #[arg(long)]
        method: Option<Method>,
        /// ciber: grid-search α (0 to 1 by 0.1) on this collection's checks instead; use a
        /// tuning collection, never the one you report
        #[arg(long, value_parser = ["alpha"])]
        tune: Option<String>,
        /// The figures of the collection's revisions (RARR, CoVe) instead of its verdicts
        #[arg(long, conflicts_with_all = ["method", "tune"])]
        revisions: bool,
    },
    /// Show settings: the effective ones, the defaults, or the config file's path
    Config {
        /// Print the built-in defaults file, with its comments
        #[arg(long, conflicts_with = "path")]
        defaults: bool,
        /// Print the path of the user config file
        #[arg(long)]
        path: bool,
    },
}

#[derive(Debug, Subcommand)]
enum ModelsCommand {
    /// The selected model, the model files installed, and the server's models
    List,
    /// Ask the selected model for a one-word answer; exit 2 if it does not answer
    Check,
}

#[derive(Debug, Subcommand)]
enum ClaimsCommand {
    /// Add claims typed on the command line (each argument one claim)
    Add {
        #[arg(required = true)]
        texts: Vec<String>,
        /// Collection to add the claims to (created if missing)
        #[arg(long)]
        collection: String,
        /// When the claims were made (YYYY-MM-DD): evidence published more than
        /// verify.stale_after_days before it is flagged as old
        #[arg(long)]
        date: Option<String>,
    },
    /// Import claims from CSV, JSONL, or a text file with one claim per line (a `date` column
    /// or field gives each claim's date)
    Import {
        file: PathBuf,
        /// Collection to add the claims to (created if missing)
        #[arg(long)]
        collection: String,
    },
    /// List claims
    List {
        #[arg(long)]
        collection: Option<String>,
        /// unchecked, checked or reviewed
        #[arg(long)]
        status: Option<ClaimStatus>,
        #[arg(long)]
        tag: Option<String>,
        #[arg(long)]
        limit: Option<u64>,
    },
    /// List claim collections
    Collections,
    /// Earlier claims of the library that say the same thing as a text (checked before), with
    /// their newest verdict and review; claims added since the last search are embedded first
    Similar {
        text: String,
        #[arg(long, default_value_t = 5)]
        limit: usize,
        /// Least cosine similarity shown [default: search.similar_claims]
        #[arg(long)]
        threshold: Option<f64>,
    },
}

#[derive(Debug, Subcommand)]
enum ArchiveCommand {
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

#[derive(Debug, Subcommand)]
enum SummariesCommand {
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
        #[arg(value_parser = ["verifier", "llm"], required = true)]
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

#[derive(Debug, Subcommand)]
enum PassagesCommand {
    /// Add a passage to a collection (created if missing)
    Add {
        /// The passage's text
        text: String,
        #[arg(long)]
        collection: String,
        /// summary, structured_summary, answer or text
        #[arg(long, default_value = "summary")]
        kind: PassageKind,
        /// The question it answers
        #[arg(long)]
        question: Option<String>,
        /// A corpus document it was written from (its id in `factdesk docs`); repeatable
        #[arg(long = "source", value_name = "DOCUMENT_ID")]
        sources: Vec<i64>,
    },
    /// List the passages of a collection
    List {
        #[arg(long)]
        collection: String,
    },
    /// Import passages from a JSONL file, each optionally with its source article (imported
    /// into a corpus and tied to the passage)
    Import {
        file: PathBuf,
        #[arg(long)]
        collection: String,
        /// The field holding each passage's text
        #[arg(long, default_value = "summary")]
        text_field: String,
        /// summary, structured_summary, answer or text
        #[arg(long, default_value = "summary")]
        kind: PassageKind,
        /// The field holding the question a passage answers
        #[arg(long)]
        question_field: Option<String>,
        /// The field holding each record's source article (needs --corpus)
        #[arg(long, requires = "corpus")]
        source_field: Option<String>,
        /// The corpus the source articles go into
        #[arg(long)]
        corpus: Option<String>,
    },
}

/// How a command ended, when it ended at all.
enum Outcome {
    Success,
    SomeFailed,
}

/// A cancel token that Ctrl-C fires, so a batch stops starting new items and can be resumed.
fn cancel_on_interrupt(runtime: &tokio::runtime::Runtime) -> CancelToken {
    let cancel = CancelToken::new();
    let on_interrupt = cancel.clone();
    runtime.spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            on_interrupt.cancel();
        }
    });
    cancel
}

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
    let data_dir = cli.data_dir.clone().unwrap_or_else(env::default_data_dir);
    let json = cli.json;
    let open =
        || Factdesk::open(&data_dir).with_context(|| format!("opening {}", data_dir.display()));
    match cli.command {
        Command::Init => {
            let report = Factdesk::init(&data_dir)?;
            output::show(&report, json)?;
            Ok(Outcome::Success)
        }
        Command::Import { sources, corpus, text_field, title_field, url_field, date_field } => {
            let app = open()?;
            let reporter = Arc::new(progress::BarReporter::new(json));
            let request =
                ImportRequest { sources, corpus, text_field, title_field, url_field, date_field };
            let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
            let cancel = CancelToken::new();
            let summary = runtime.block_on(app.import(request, reporter, cancel))?;
            output::show(&summary, json)?;
            Ok(if summary.failed > 0 { Outcome::SomeFailed } else { Outcome::Success })
        }
        Command::Search { query, limit, corpus, document } => {
            let app = open()?;
            let request = SearchRequest {
                query,
                limit,
                corpora: corpus,
                documents: document.into_iter().map(DocumentId).collect(),
                plain_words: false,
            };
            let hits = app.search(&request)?;
            output::show(&hits, json)?;
            Ok(Outcome::Success)
        }
        Command::Docs { corpus, limit, offset } => {
            let documents = open()?.documents(corpus.as_deref(), Some(limit), offset)?;
            output::show(&documents, json)?;
            Ok(Outcome::Success)
        }
        Command::Doc { id } => {
            let document = open()?.document(DocumentId(id))?;
            output::show(&document, json)?;
            Ok(Outcome::Success)
        }
        Command::Corpora => {
            output::show(&open()?.corpora()?, json)?;
            Ok(Outcome::Success)
        }
        Command::Claims { command } => match command {
            ClaimsCommand::Add { texts, collection, date } => {
                let summary = open()?.add_claims(&collection, &texts, date.as_deref())?;
                output::show(&summary, json)?;
                Ok(Outcome::Success)
            }
            ClaimsCommand::Import { file, collection } => {
                let summary = open()?.import_claims(&file, &collection)?;
                output::show(&summary, json)?;
                Ok(if summary.failed > 0 { Outcome::SomeFailed } else { Outcome::Success })
            }
            ClaimsCommand::List { collection, status, tag, limit } => {
                let claims = open()?.claims(&ClaimQuery { collection, status, tag, limit })?;
                output::show(&claims, json)?;
                Ok(Outcome::Success)
            }
            ClaimsCommand::Collections => {
                output::show(&open()?.collections()?, json)?;
                Ok(Outcome::Success)
            }
            ClaimsCommand::Similar { text, limit, threshold } => {
                let app = open()?;
                let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
                let similar = runtime.block_on(app.similar_claims(&text, limit, threshold))?;
                output::show(&similar, json)?;
                Ok(Outcome::Success)
            }
        },
        Command::Summarize {
            question,
            corpus,
            documents,
            search,
            limit,
            urls,
            into,
            tau,
            seed,
            method,
            stances,
            duplicate_threshold,
            restart,
            outcome,
            use_sources,
            list,
            output,
            format,
        } => {
            use factdesk_core::methods::tts::baselines::Baseline;
            let app = open()?;
            if list {
                output::show(&app.sourced_summaries()?, json)?;
                return Ok(Outcome::Success);
            }
            let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
            let stored = match (outcome, question) {
                (Some(id), _) if use_sources.is_empty() => app.sourced_summary(CheckId(id))?.0,
                (Some(id), _) => {
                    if let Some(zero) = use_sources.iter().find(|n| **n == 0) {
                        anyhow::bail!("--use {zero}: sources are numbered from 1, as listed");
                    }
                    let used: Vec<usize> = use_sources.iter().map(|n| n - 1).collect();
                    runtime.block_on(app.resummarize(CheckId(id), &used))?
                }
                (None, Some(question)) => {
                    let sources = match (corpus, search) {
                        (Some(name), _) => SummarySources::Corpus(name),
                        (None, Some(query)) => SummarySources::Search { query, limit },
                        (None, None) if !urls.is_empty() => {
                            SummarySources::Urls { urls, corpus: into }
                        }
                        (None, None) if !documents.is_empty() => SummarySources::Documents(
                            documents.into_iter().map(DocumentId).collect(),
                        ),
                        (None, None) => anyhow::bail!(
                            "say where the sources are: --corpus NAME, --documents IDS, \
                             --search QUERY or --url URL (repeated)"
                        ),
                    };
                    let baseline = match method.as_str() {
                        "all-sources" => Some(Baseline::AllSources),
                        "majority-prompt" => Some(Baseline::MajorityPrompt),
                        "majority-claims" => Some(Baseline::MajorityClaims),
                        _ => None,
                    };
                    let config = TtsConfig {
                        tau,
                        seed,
                        duplicate_threshold,
                        stance_judge: stances.parse().map_err(anyhow::Error::msg)?,
                        ..TtsConfig::default()
                    };
                    let request = SummarizeRequest {
                        question,
                        sources,
                        baseline,
                        config,
                        cache: None,
                        restart,
                    };
                    let reporter = Arc::new(progress::BarReporter::new(json));
                    let cancel = cancel_on_interrupt(&runtime);
                    let run = runtime.block_on(app.summarize(&request, reporter, cancel))?;
                    if run.resumed && !json {
                        eprintln!("Resumed unfinished run {}.", run.stored.run_id);
                    }
                    run.stored
                }
                (None, None) => anyhow::bail!("give --question, --outcome ID or --list"),
            };
            if let Some(path) = output {
                let format = score_report_format(&path, format)?;
                app.write_summary_report(stored.id, format, &path)?;
            }
            output::sourced_summary(&stored, json)?;
            Ok(Outcome::Success)
        }
        Command::Summaries { command } => {
            let app = open()?;
            match command {
                SummariesCommand::Add { file, question, name } => {
                    let max = app.settings().import.max_file_bytes;
                    let bytes = std::fs::metadata(&file)
                        .map_err(|error| anyhow::anyhow!("{}: {error}", file.display()))?;
                    anyhow::ensure!(
                        bytes.len() <= max,
                        "{}: {} bytes, more than import.max_file_bytes ({max})",
                        file.display(),
                        bytes.len()
                    );
                    let text = std::fs::read_to_string(&file).map_err(|error| {
                        anyhow::anyhow!("{}: not readable as UTF-8 text: {error}", file.display())
                    })?;
                    let name = if name.is_empty() {
                        file.file_stem()
                            .map(|s| s.to_string_lossy().into_owned())
                            .unwrap_or_default()
                    } else {
                        name
                    };
                    let kept = app
                        .add_summary(&question, &name, &text)
                        .map_err(|error| anyhow::anyhow!("{}: {error}", file.display()))?;
                    output::show(&kept, json)?;
                }
                SummariesCommand::List { question: None } => {
                    output::show(&app.summary_questions()?, json)?;
                }
                SummariesCommand::List { question: Some(question) } => {
                    output::question_summaries(&app.score_question(&question)?, json)?;
                }
                SummariesCommand::Label { id, element, grade, by } => {
                    let grade = match grade.trim().to_ascii_lowercase().as_str() {
                        "perfectly" => Some(1.0),
                        "partially" => Some(0.5),
                        "not" => Some(0.0),
                        "clear" => None,
                        number => Some(number.parse::<f64>().map_err(|_| {
                            anyhow::anyhow!(
                                "'{grade}' is no grade; use perfectly, partially, not, a number \
                                 from 0 to 1, or clear"
                            )
                        })?),
                    };
                    let labeller =
                        by.map_or_else(|| "person".to_owned(), |n| format!("person:{n}"));
                    app.label_summary(id, &element, grade, &labeller)?;
                    if json {
                        output::print_json(
                            &serde_json::json!({"id": id, "element": element, "grade": grade}),
                        )?;
                    } else {
                        println!("Summary {id}: {element} labelled");
                    }
                }
                SummariesCommand::LabelWith { labellers, question, documents } => {
                    let labellers: Vec<Labeller> = labellers
                        .iter()
                        .map(|name| if name == "llm" { Labeller::Chat } else { Labeller::Verifier })
                        .collect();
                    let runtime =
                        tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
                    let done =
                        runtime.block_on(app.label_question(&question, &labellers, &documents))?;
                    if json {
                        output::print_json(&done)?;
                    } else {
                        println!("{} label(s) stored", done.stored);
                        if !done.unanswered.is_empty() {
                            println!("no label given for: {}", done.unanswered.join("; "));
                        }
                    }
                }
                SummariesCommand::Score { question, report } => {
                    let scored = app.score_question(&question)?;
                    if let Some(path) = report {
                        let format = score_report_format(&path, None)?;
                        app.write_score_report(&scored.scores, format, &path)?;
                    }
                    output::show(&scored.scores, json)?;
                }
            }
            Ok(Outcome::Success)
        }
        Command::Passages { command } => match command {
            PassagesCommand::Add { text, collection, kind, question, sources } => {
                let sources: Vec<DocumentId> = sources.into_iter().map(DocumentId).collect();
                let summary =
                    open()?.add_passage(&collection, kind, &text, question.as_deref(), &sources)?;
                output::show(&summary, json)?;
                Ok(Outcome::Success)
            }
            PassagesCommand::List { collection } => {
                output::show(&open()?.passages(&collection)?, json)?;
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
                let app = open()?;
                let request = PassageImportRequest {
                    file,
                    collection,
                    text_field,
                    kind,
                    question_field,
                    source_field,
                    corpus,
                };
                let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
                let reporter = Arc::new(progress::BarReporter::new(json));
                let summary = runtime.block_on(app.import_passages(
                    &request,
                    reporter,
                    CancelToken::new(),
                ))?;
                output::show(&summary, json)?;
                Ok(if summary.failed > 0 { Outcome::SomeFailed } else { Outcome::Success })
            }
        },
        Command::Reindex { check } => {
            let app = open()?;
            if check {
                let report = app.check_index()?;
                output::show(&report, json)?;
                return Ok(if report.consistent { Outcome::Success } else { Outcome::SomeFailed });
            }
            let reporter = Arc::new(progress::BarReporter::new(json));
            let summary = app.reindex(reporter, CancelToken::new())?;
            output::reindex(summary.as_ref(), json)?;
            Ok(Outcome::Success)
        }
        Command::Models { command } => {
            let app = open()?;
            let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
            match command {
                ModelsCommand::List => output::show(&runtime.block_on(app.list_models())?, json)?,
                ModelsCommand::Check => output::show(&runtime.block_on(app.check_model())?, json)?,
            }
            Ok(Outcome::Success)
        }
        Command::Ask { prompt, system, max_tokens, temperature, seed } => {
            let app = open()?;
            let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
            let options = AskOptions { system, max_tokens, temperature, seed };
            let answer = runtime.block_on(app.ask(&prompt, options))?;
            output::show(&answer, json)?;
            Ok(Outcome::Success)
        }
        Command::Verify {
            claim,
            collection,
            method,
            urls,
            m,
            l,
            r,
            temperature,
            threshold,
            whole_document,
            nli,
            corpus,
            documents,
            pages,
            from_llm_cite,
            cache,
            concurrency,
            restart,
            skip_checked,
        } => {
            let app = open()?;
            let options = VerifyOptions {
                method,
                urls,
                m,
                l,
                r,
                temperature,
                threshold,
                whole_document,
                nli,
                corpora: corpus,
                documents: documents.into_iter().map(factdesk_core::model::DocumentId).collect(),
                pages,
                from_llm_cite,
                cache,
                concurrency,
                restart,
                skip_checked,
            };
            let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
            match (claim, collection) {
                (_, Some(collection)) => {
                    let reporter = Arc::new(progress::BarReporter::new(json));
                    let cancel = cancel_on_interrupt(&runtime);
                    let summary = runtime.block_on(app.verify_collection(
                        &collection,
                        &options,
                        reporter,
                        cancel,
                    ))?;
                    output::show(&summary, json)?;
                    Ok(if summary.failed > 0 || summary.cancelled {
                        Outcome::SomeFailed
                    } else {
                        Outcome::Success
                    })
                }
                (Some(claim), None) => {
                    let check = runtime.block_on(app.verify_claim(&claim, &options))?;
                    output::show(&check, json)?;
                    Ok(Outcome::Success)
                }
                (None, None) => anyhow::bail!("give a claim to check, or --collection NAME"),
            }
        }
        Command::Revise {
            text,
            passage,
            collection,
            method,
            evidence,
            granularity,
            gate,
            corpus,
            sources,
            reference,
            cache,
            concurrency,
            no_metrics,
            judge,
            restart,
        } => {
            let app = open()?;
            let options = ReviseOptions {
                evidence,
                granularity,
                gate,
                corpora: corpus,
                sources: sources.into_iter().map(DocumentId).collect(),
                reference,
                restart,
                concurrency,
                cache,
                skip_metrics: no_metrics,
                judge,
            };
            let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
            if let Some(collection) = collection {
                let reporter = Arc::new(progress::BarReporter::new(json));
                let cancel = cancel_on_interrupt(&runtime);
                let summary = runtime.block_on(app.revise_collection(
                    &collection,
                    method,
                    &options,
                    reporter,
                    cancel,
                ))?;
                output::show(&summary, json)?;
                return Ok(if summary.failed > 0 || summary.cancelled {
                    Outcome::SomeFailed
                } else {
                    Outcome::Success
                });
            }
            let stored = match (text, passage) {
                (_, Some(id)) => {
                    runtime.block_on(app.revise_passage(PassageId(id), method, &options))?
                }
                (Some(text), None) => runtime.block_on(app.revise_text(&text, method, &options))?,
                (None, None) => {
                    anyhow::bail!("give a passage to correct, --passage ID or --collection NAME")
                }
            };
            output::show(&stored, json)?;
            Ok(Outcome::Success)
        }
        Command::Score {
            summaries,
            labels,
            weights,
            documents,
            label_with,
            question,
            report,
            format,
            fit,
            test_share,
            seed,
            alpha,
            no_degraded,
            out,
            l_max,
            stop,
        } => {
            if let Some(dataset) = fit {
                let request = FitRequest {
                    dataset,
                    test_share,
                    seed,
                    l_max,
                    alpha,
                    degraded: !no_degraded,
                    out,
                };
                let report = open()?.fit_summary_weights(&request)?;
                output::show(&report, json)?;
                return Ok(Outcome::Success);
            }
            let label_with = label_with
                .iter()
                .map(|name| if name == "llm" { Labeller::Chat } else { Labeller::Verifier })
                .collect();
            let request = ScoreRequest {
                summaries,
                labels,
                weights,
                documents,
                label_with,
                question,
                l_max,
                stop,
            };
            let app = open()?;
            let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
            let scores = runtime.block_on(app.score_summaries(&request))?;
            if let Some(path) = report {
                let format = score_report_format(&path, format)?;
                app.write_score_report(&scores, format, &path)?;
                if !json {
                    println!("Report written to {} ({format})", path.display());
                }
            }
            output::show(&scores, json)?;
            Ok(Outcome::Success)
        }
        Command::Revision { id, accept, reject, reviewer, text } => {
            let app = open()?;
            let mut reviewed = app.revision(CheckId(id))?;
            for (edits, accepted) in [(accept, true), (reject, false)] {
                for edit in edits {
                    let Some(index) = edit.checked_sub(1) else {
                        anyhow::bail!("edits are numbered from 1");
                    };
                    reviewed =
                        app.decide_edit(CheckId(id), index, accepted, reviewer.as_deref())?;
                }
            }
            if text && !json {
                println!("{}", reviewed.accepted_text);
            } else {
                output::show(&reviewed, json)?;
            }
            Ok(Outcome::Success)
        }
        Command::Review { check, accept, verdict, comment, reviewer } => {
            let decision = if accept { ReviewDecision::Accept } else { ReviewDecision::Override };
            let review = open()?.review_check(
                CheckId(check),
                decision,
                verdict,
                &comment,
                reviewer.as_deref(),
            )?;
            output::show(&review, json)?;
            Ok(Outcome::Success)
        }
        Command::Archive { command: ArchiveCommand::Export { output, collection } } => {
            let export = open()?.export_archive(&output, collection.as_deref())?;
            output::show(&export, json)?;
            Ok(Outcome::Success)
        }
        Command::Report { collection, format, output, method, run, revisions } => {
            let selection = CheckSelection { method, run: run.map(RunId) };
            // --json without a file prints the JSON report.
            let json_on_stdout = json && output.is_none();
            let format = match format {
                Some(format) if json_on_stdout && format != ReportFormat::Json => anyhow::bail!(
                    "--json prints the report as JSON on standard output; leave out --format, \
                     or write the other format to a file with -o FILE"
                ),
                Some(format) => format,
                None if json_on_stdout => ReportFormat::Json,
                None => ReportFormat::Markdown,
            };
            let app = open()?;
            match (output, revisions) {
                (Some(path), false) => {
                    app.write_report_file(&collection, &selection, format, &path)?;
                    output::report_written(&path, format, json)?;
                }
                (Some(path), true) => {
                    app.write_revision_report_file(&collection, &selection, format, &path)?;
                    output::report_written(&path, format, json)?;
                }
                (None, false) => {
                    let mut stdout = std::io::stdout().lock();
                    app.write_report(&collection, &selection, format, &mut stdout)?;
                }
                (None, true) => {
                    let mut stdout = std::io::stdout().lock();
                    app.write_revision_report(&collection, &selection, format, &mut stdout)?;
                }
            }
            Ok(Outcome::Success)
        }
        Command::Eval { collection, run, revisions: true, .. } => {
            let selection = CheckSelection { method: None, run: run.map(RunId) };
            let figures = open()?.evaluate_revisions(&collection, &selection)?;
            output::show(&figures, json)?;
            Ok(Outcome::Success)
        }
        Command::Eval { collection, run, method, tune: Some(_), .. } => {
            let selection = CheckSelection { method, run: run.map(RunId) };
            let tuning = open()?.tune_alpha(&collection, &selection)?;
            output::show(&tuning, json)?;
            Ok(Outcome::Success)
        }
        Command::Eval { collection, run, method, tune: None, .. } => {
            let selection = CheckSelection { method, run: run.map(RunId) };
            let evaluation = open()?.evaluate(&collection, &selection)?;
            output::show(&evaluation, json)?;
            Ok(Outcome::Success)
        }
        Command::Config { defaults, path } => {
            if defaults && json {
                output::show(&Settings::default(), true)?;
            } else if defaults {
                print!("{}", factdesk_core::settings::DEFAULT_CONFIG);
            } else if path {
                output::config_path(&Settings::user_config_path(&data_dir), json)?;
            } else {
                let settings = Settings::load(&data_dir)?;
                output::show(&settings, json)?;
            }
            Ok(Outcome::Success)
        }
    }
}

/// A score report's format: as given, else by the file's extension (md without one).
fn score_report_format(path: &Path, given: Option<ReportFormat>) -> anyhow::Result<ReportFormat> {
    if let Some(format) = given {
        return Ok(format);
    }
    path.extension().and_then(|e| e.to_str()).unwrap_or("md").parse::<ReportFormat>().map_err(
        |_| {
            anyhow::anyhow!(
                "{}: name the report's format with --format md, html or json",
                path.display()
            )
        },
    )
}
