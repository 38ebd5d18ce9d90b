//! The corpus commands: `import`, `search`, `docs`, `doc`, `corpora` and `reindex`.

use std::sync::Arc;

use factdesk_core::CancelToken;
use factdesk_core::import::ImportRequest;
use factdesk_core::model::DocumentId;
use factdesk_core::search::SearchRequest;

use super::{Globals, Outcome, runtime};
use crate::args::corpus::{DocArgs, DocsArgs, ImportArgs, ReindexArgs, SearchArgs};
use crate::{output, progress};

pub fn import(args: ImportArgs, globals: &Globals) -> anyhow::Result<Outcome> {
    let ImportArgs { sources, corpus, text_field, title_field, url_field, date_field, language } =
        args;
    let json = globals.json;
    let app = globals.open()?;
    let reporter = Arc::new(progress::BarReporter::new(json));
    let request =
        ImportRequest { sources, corpus, text_field, title_field, url_field, date_field, language };
    let runtime = runtime()?;
    let cancel = CancelToken::new();
    let summary = runtime.block_on(app.import(request, reporter, cancel))?;
    output::show(&summary, json)?;
    Ok(if summary.failed > 0 { Outcome::SomeFailed } else { Outcome::Success })
}

pub fn search(args: SearchArgs, globals: &Globals) -> anyhow::Result<Outcome> {
    let SearchArgs { query, limit, corpus, document, language } = args;
    let app = globals.open()?;
    let request = SearchRequest {
        query,
        limit,
        corpora: corpus,
        documents: document.into_iter().map(DocumentId).collect(),
        plain_words: false,
        language,
    };
    let hits = app.search(&request)?;
    output::show(&hits, globals.json)?;
    Ok(Outcome::Success)
}

pub fn docs(args: DocsArgs, globals: &Globals) -> anyhow::Result<Outcome> {
    let DocsArgs { corpus, limit, offset } = args;
    let documents = globals.open()?.documents(corpus.as_deref(), Some(limit), offset)?;
    output::show(&documents, globals.json)?;
    Ok(Outcome::Success)
}

pub fn doc(args: DocArgs, globals: &Globals) -> anyhow::Result<Outcome> {
    let document = globals.open()?.document(DocumentId(args.id))?;
    output::show(&document, globals.json)?;
    Ok(Outcome::Success)
}

pub fn corpora(globals: &Globals) -> anyhow::Result<Outcome> {
    output::show(&globals.open()?.corpora()?, globals.json)?;
    Ok(Outcome::Success)
}

pub fn reindex(args: ReindexArgs, globals: &Globals) -> anyhow::Result<Outcome> {
    let json = globals.json;
    let app = globals.open()?;
    if args.check {
        let report = app.check_index()?;
        output::show(&report, json)?;
        return Ok(if report.consistent { Outcome::Success } else { Outcome::SomeFailed });
    }
    let reporter = Arc::new(progress::BarReporter::new(json));
    let summary = app.reindex(reporter, CancelToken::new())?;
    output::corpus::reindex(summary.as_ref(), json)?;
    Ok(Outcome::Success)
}
