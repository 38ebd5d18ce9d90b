//! Checking claims and reviewing the verdicts: `verify` and `review`.

use std::sync::Arc;

use factdesk_core::model::{CheckId, DocumentId, ReviewDecision};
use factdesk_core::verify::VerifyOptions;

use super::{Globals, Outcome, cancel_on_interrupt, runtime};
use crate::args::verify::{ReviewArgs, VerifyArgs};
use crate::{output, progress};

pub fn verify(args: VerifyArgs, globals: &Globals) -> anyhow::Result<Outcome> {
    let VerifyArgs {
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
    } = args;
    let json = globals.json;
    let app = globals.open()?;
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
        documents: documents.into_iter().map(DocumentId).collect(),
        pages,
        from_llm_cite,
        cache,
        concurrency,
        restart,
        skip_checked,
    };
    let runtime = runtime()?;
    match (claim, collection) {
        (_, Some(collection)) => {
            let reporter = Arc::new(progress::BarReporter::new(json));
            let cancel = cancel_on_interrupt(&runtime);
            let summary =
                runtime.block_on(app.verify_collection(&collection, &options, reporter, cancel))?;
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

pub fn review(args: ReviewArgs, globals: &Globals) -> anyhow::Result<Outcome> {
    let ReviewArgs { check, accept, verdict, comment, reviewer } = args;
    let decision = if accept { ReviewDecision::Accept } else { ReviewDecision::Override };
    let review = globals.open()?.review_check(
        CheckId(check),
        decision,
        verdict,
        &comment,
        reviewer.as_deref(),
    )?;
    output::show(&review, globals.json)?;
    Ok(Outcome::Success)
}
