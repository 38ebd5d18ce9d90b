//! The subcommands of `claims`.

use std::path::PathBuf;

use clap::Subcommand;
use factdesk_core::model::ClaimStatus;

#[derive(Debug, Subcommand)]
pub enum ClaimsCommand {
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
    /// Set a claim's language (the one its evidence is searched in), correcting the one
    /// detected when it was added; without a code, it becomes unknown
    Language {
        /// The claim's id (as `claims list` shows it)
        id: i64,
        /// An ISO 639-1 code such as de, fr or zh
        code: Option<String>,
    },
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
