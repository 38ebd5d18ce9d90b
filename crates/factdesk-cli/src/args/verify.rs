//! The options of `verify` and `review`.

use clap::Args;
use factdesk_core::llm::CacheMode;
use factdesk_core::methods::llm_cite::UrlStrategy;
use factdesk_core::model::Verdict;
use factdesk_core::verify::{Method, NliChoice};

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The claim to check (or --collection)
    #[arg(required_unless_present = "collection", conflicts_with = "collection")]
    pub claim: Option<String>,
    /// Check every claim of this collection (resumes an unfinished run with the same method
    /// configuration and models)
    #[arg(long)]
    pub collection: Option<String>,
    /// The method [default: verify.method]
    #[arg(long, help = format!("{} [default: verify.method]", Method::choices()))]
    pub method: Option<Method>,
    /// llm-cite: URL generation, diverse, controlled or rs [default: methods.llm-cite.urls]
    #[arg(long)]
    pub urls: Option<UrlStrategy>,
    /// llm-cite: URLs per claim [default: methods.llm-cite.m]; corpus-nli: documents per
    /// claim sentence [default: methods.corpus-nli.documents]; ciber: evidence documents
    /// per claim [default: methods.ciber.documents]
    #[arg(long)]
    pub m: Option<usize>,
    /// Sentences per page (llm-cite) or document (corpus-nli) [default: methods.<method>.l]
    #[arg(long)]
    pub l: Option<usize>,
    /// llm-cite: rejection-sampling samples [default: methods.llm-cite.r]
    #[arg(long)]
    pub r: Option<u32>,
    /// llm-cite: sampling temperature for controlled and rs [default:
    /// methods.llm-cite.temperature]
    #[arg(long)]
    pub temperature: Option<f32>,
    /// Entailment probability needed [default: methods.<method>.threshold]
    #[arg(long)]
    pub threshold: Option<f64>,
    /// llm-cite: judge each page's first characters with the chat model instead of cumulative
    /// premises
    #[arg(long)]
    pub whole_document: bool,
    /// NLI model: auto, factdesk-verifier, llm, or cross-encoder:<folder> [default: verify.nli]
    #[arg(long)]
    pub nli: Option<NliChoice>,
    /// corpus-nli and ciber: only these corpora (repeatable)
    #[arg(long)]
    pub corpus: Vec<String>,
    /// ciber: judge this corpus document (its id, as `factdesk search` and `documents` show
    /// it) instead of retrieving documents (repeatable)
    #[arg(long = "document", value_name = "ID")]
    pub documents: Vec<i64>,
    /// ciber: judge this web page (fetched, or from the archive when offline) instead of
    /// retrieving documents (repeatable)
    #[arg(long = "page", value_name = "URL")]
    pub pages: Vec<String>,
    /// ciber: judge the web pages the newest LLM-Cite check of each claim read (from the
    /// page archive, offline) instead of retrieving documents
    #[arg(long)]
    pub from_llm_cite: bool,
    /// Model-call cache: off, read-write or replay-only [default: llm.cache]
    #[arg(long)]
    pub cache: Option<CacheMode>,
    /// Claims checked at once [default: verify.concurrency]
    #[arg(long)]
    pub concurrency: Option<usize>,
    /// Start a new run instead of continuing an unfinished one
    #[arg(long)]
    pub restart: bool,
    /// Leave out claims that an earlier run already checked with the same method
    /// configuration and models
    #[arg(long, requires = "collection", conflicts_with = "claim")]
    pub skip_checked: bool,
}

#[derive(Debug, Args)]
pub struct ReviewArgs {
    /// The check id: "Check ID" in md and html reports, `id` in `verify --json` and in the
    /// checks of `report --format json`
    pub check: i64,
    /// Accept the machine verdict
    #[arg(long, conflicts_with = "verdict", required_unless_present = "verdict")]
    pub accept: bool,
    /// Override with this verdict: supported, refuted or not_enough_info
    #[arg(long = "override", value_name = "VERDICT")]
    pub verdict: Option<Verdict>,
    /// Why (required for an override)
    #[arg(long, default_value = "")]
    pub comment: String,
    #[arg(long)]
    pub reviewer: Option<String>,
}
