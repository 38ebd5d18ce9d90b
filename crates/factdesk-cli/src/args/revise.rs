//! The options of `revise` and `revision`.

use clap::Args;
use factdesk_core::llm::CacheMode;
use factdesk_core::methods::revise::Gate;
use factdesk_core::methods::revise::evidence::Granularity;
use factdesk_core::revise::{EvidenceChoice, ReviseMethod};

#[derive(Debug, Args)]
pub struct ReviseArgs {
    /// The passage to correct (or --passage, or --collection)
    #[arg(
        required_unless_present_any = ["passage", "collection"],
        conflicts_with_all = ["passage", "collection"]
    )]
    pub text: Option<String>,
    /// A stored passage (its id in `factdesk passages list`), with its source documents
    #[arg(long, value_name = "ID", conflicts_with = "collection")]
    pub passage: Option<i64>,
    /// Every passage of this collection (resumes an unfinished run with the same
    /// configuration and models)
    #[arg(long)]
    pub collection: Option<String>,
    /// rarr or cove
    #[arg(long, default_value = "rarr")]
    pub method: ReviseMethod,
    /// auto, corpus, source, web or none [default: methods.<method>.evidence]
    #[arg(long)]
    pub evidence: Option<EvidenceChoice>,
    /// snippets or chunks [default: methods.<method>.granularity]
    #[arg(long)]
    pub granularity: Option<Granularity>,
    /// Who decides whether evidence agrees: chat or nli [default: methods.<method>.gate]
    #[arg(long)]
    pub gate: Option<Gate>,
    /// Corpus evidence from these corpora only (repeatable)
    #[arg(long)]
    pub corpus: Vec<String>,
    /// A source document of the text (its id in `factdesk docs`); repeatable
    #[arg(long = "source", value_name = "DOCUMENT_ID")]
    pub sources: Vec<i64>,
    /// A reference text to measure the revision against (with a text only)
    #[arg(long)]
    pub reference: Option<String>,
    /// Model-call cache: off, read-write or replay-only [default: llm.cache]
    #[arg(long)]
    pub cache: Option<CacheMode>,
    /// Passages revised at once [default: verify.concurrency]
    #[arg(long)]
    pub concurrency: Option<usize>,
    /// Leave out the metrics (edit distance, similarity, entailment by the sources)
    #[arg(long)]
    pub no_metrics: bool,
    /// Also have the chat model score the original and the revision against the sources:
    /// overall, factuality, relevance, 1-5 (G-Eval style)
    #[arg(long, conflicts_with = "no_metrics")]
    pub judge: bool,
    /// Start a new run instead of continuing an unfinished one
    #[arg(long)]
    pub restart: bool,
}

#[derive(Debug, Args)]
pub struct RevisionArgs {
    /// The revision's outcome id (`outcome_id` of `revise`, `id` of `revise --json`)
    pub id: i64,
    /// Accept this edit (numbered from 1 as `revision` shows them); repeatable
    #[arg(long, value_name = "EDIT")]
    pub accept: Vec<usize>,
    /// Reject this edit; repeatable
    #[arg(long, value_name = "EDIT")]
    pub reject: Vec<usize>,
    #[arg(long)]
    pub reviewer: Option<String>,
    /// Print only the text kept: the original with every edit not rejected
    #[arg(long)]
    pub text: bool,
}
