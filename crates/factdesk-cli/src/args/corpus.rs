//! The options of the corpus commands: `import`, `search`, `docs`, `doc` and `reindex`.

use clap::Args;

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// Files (.txt .md .html .htm .jsonl .csv), folders, or http(s) URLs
    #[arg(required = true, value_name = "PATH|URL")]
    pub sources: Vec<String>,
    /// Corpus to import into (created if missing)
    #[arg(long, default_value = "default")]
    pub corpus: String,
    /// JSONL field / CSV column holding the text (replaces import.fields.text)
    #[arg(long, value_name = "NAME")]
    pub text_field: Option<String>,
    /// JSONL field / CSV column holding the title
    #[arg(long, value_name = "NAME")]
    pub title_field: Option<String>,
    /// JSONL field / CSV column holding the URL
    #[arg(long, value_name = "NAME")]
    pub url_field: Option<String>,
    /// JSONL field / CSV column holding the publication date
    #[arg(long, value_name = "NAME")]
    pub date_field: Option<String>,
    /// The language of every document (an ISO 639-1 code such as de, fr, zh) instead of the
    /// one detected in each text
    #[arg(long, value_name = "CODE")]
    pub language: Option<String>,
}

#[derive(Debug, Args)]
pub struct SearchArgs {
    pub query: String,
    /// Number of hits [default: search.limit]
    #[arg(long, short = 'n')]
    pub limit: Option<usize>,
    /// Only this corpus (repeatable)
    #[arg(long)]
    pub corpus: Vec<String>,
    /// Only this document id (repeatable)
    #[arg(long)]
    pub document: Vec<i64>,
    /// The language the query is analysed in (an ISO 639-1 code such as de) [default: the one
    /// detected in a query with accents or another script, else the one most documents of the
    /// corpora searched are in, else import.language]
    #[arg(long, value_name = "CODE")]
    pub language: Option<String>,
}

#[derive(Debug, Args)]
pub struct DocsArgs {
    #[arg(long)]
    pub corpus: Option<String>,
    #[arg(long, default_value_t = 50)]
    pub limit: u64,
    #[arg(long, default_value_t = 0)]
    pub offset: u64,
}

#[derive(Debug, Args)]
pub struct DocArgs {
    pub id: i64,
}

#[derive(Debug, Args)]
pub struct ReindexArgs {
    /// Only compare index and database; exit 1 if they differ
    #[arg(long)]
    pub check: bool,
}
