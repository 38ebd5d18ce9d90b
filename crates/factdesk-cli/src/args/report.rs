//! The options of `report` and `eval`.

use std::path::PathBuf;

use clap::Args;
use factdesk_core::report::Format as ReportFormat;
use factdesk_core::verify::Method;

#[derive(Debug, Args)]
pub struct ReportArgs {
    #[arg(long)]
    pub collection: String,
    /// md (the default), html, json, csv or claimreview; with --json and no file, json
    #[arg(long)]
    pub format: Option<ReportFormat>,
    /// Write to this file instead of standard output
    #[arg(long, short = 'o')]
    pub output: Option<PathBuf>,
    /// Each claim's newest check of this method instead of its newest of any method
    #[arg(long, help = format!(
        "Each claim's newest check of this method ({}) instead of its newest of any method",
        Method::choices()
    ))]
    pub method: Option<Method>,
    /// Only the checks of this run (the `run_id` of `verify --json`)
    #[arg(long)]
    pub run: Option<i64>,
    /// Export the revisions of the collection's passages (RARR, CoVe: md, html or json)
    /// instead of its verdicts
    #[arg(long, conflicts_with = "method")]
    pub revisions: bool,
    /// claimreview: also publish the verdicts no person reviewed, each marked as the
    /// machine's (by default only reviewed claims are published)
    #[arg(long, conflicts_with = "revisions")]
    pub machine_verdicts: bool,
}

#[derive(Debug, Args)]
pub struct EvalArgs {
    #[arg(long)]
    pub collection: String,
    /// Score this run's checks instead of each claim's newest
    #[arg(long)]
    pub run: Option<i64>,
    /// Score each claim's newest check of this method
    #[arg(long, help = format!("Score each claim's newest check of this method ({})", Method::choices()))]
    pub method: Option<Method>,
    /// ciber: grid-search α (0 to 1 by 0.1) on this collection's checks instead; use a
    /// tuning collection, never the one you report
    #[arg(long, value_parser = ["alpha"])]
    pub tune: Option<String>,
    /// The figures of the collection's revisions (RARR, CoVe) instead of its verdicts
    #[arg(long, conflicts_with_all = ["method", "tune"])]
    pub revisions: bool,
}
