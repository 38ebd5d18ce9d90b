//! Correcting passages and deciding on the edits: `revise` and `revision`.

use std::sync::Arc;

use factdesk_core::model::{CheckId, DocumentId, PassageId};
use factdesk_core::revise::ReviseOptions;

use super::{Globals, Outcome, cancel_on_interrupt, runtime};
use crate::args::revise::{ReviseArgs, RevisionArgs};
use crate::{output, progress};

pub fn revise(args: ReviseArgs, globals: &Globals) -> anyhow::Result<Outcome> {
    let ReviseArgs {
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
    } = args;
    let json = globals.json;
    let app = globals.open()?;
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
    let runtime = runtime()?;
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
        (_, Some(id)) => runtime.block_on(app.revise_passage(PassageId(id), method, &options))?,
        (Some(text), None) => runtime.block_on(app.revise_text(&text, method, &options))?,
        (None, None) => {
            anyhow::bail!("give a passage to correct, --passage ID or --collection NAME")
        }
    };
    output::show(&stored, json)?;
    Ok(Outcome::Success)
}

pub fn revision(args: RevisionArgs, globals: &Globals) -> anyhow::Result<Outcome> {
    let RevisionArgs { id, accept, reject, reviewer, text } = args;
    let json = globals.json;
    let app = globals.open()?;
    let mut reviewed = app.revision(CheckId(id))?;
    for (edits, accepted) in [(accept, true), (reject, false)] {
        for edit in edits {
            let Some(index) = edit.checked_sub(1) else {
                anyhow::bail!("edits are numbered from 1");
            };
            reviewed = app.decide_edit(CheckId(id), index, accepted, None, reviewer.as_deref())?;
        }
    }
    if text && !json {
        println!("{}", reviewed.accepted_text);
    } else {
        output::show(&reviewed, json)?;
    }
    Ok(Outcome::Success)
}
