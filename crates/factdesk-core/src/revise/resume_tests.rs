//! Runs stored by earlier versions, which named a revision method by an enum of RARR and CoVe
//! in `factdesk-methods`: their identity and their revisions are read as today's, so an
//! unfinished run over a collection resumes where it stopped.

use std::sync::Arc;

use factdesk_model::{Outcome, PassageKind, RunStatus, SubjectId};
use factdesk_testkit::scripted::ScriptedModel;
use serde_json::json;

use super::{ReviseMethod, ReviseOptions};
use crate::{CancelToken, NoProgress};

#[tokio::test]
async fn a_rarr_run_stored_before_the_registry_named_methods_resumes() {
    let model = ScriptedModel::new().serve();
    let dir = tempfile::tempdir().unwrap();
    let app = crate::testing::open_scripted(dir.path(), model.url("/v1"));
    app.add_passage("dams", PassageKind::Summary, "The dam held in 1899.", None, &[]).unwrap();
    let passage = app.passages("dams").unwrap().remove(0);
    // What the version before wrote for a RARR run over the collection with the shipped
    // settings, stopped after revising its one passage: the run's identity and the revision.
    let identity = json!({
        "method": "rarr",
        "config": {
            "questions": 3, "max_growth": 1.5, "max_chars": 20000, "gate": "chat",
            "threshold": 0.5, "evidence_words": 200, "language": "en", "seed": 0,
            "evidence": "auto", "granularity": "snippets", "corpora": [], "web": null,
            "judge": false,
        },
        "models": {"chat": "mock"},
    });
    let revision = json!({
        "method": "rarr",
        "parameters": {
            "gate": "chat", "evidence": "corpus", "granularity": "snippets", "questions": 3,
            "max_growth": 1.5, "threshold": 0.5, "seed": 0, "calls": {"edit": 1, "gate": 1},
        },
        "model": "mock",
        "nli_model": null,
        "tokens": {"edit": {"prompt": 120, "completion": 9}},
        "explanation": "1 edit where the evidence disagreed",
        "original": "The dam held in 1899.",
        "revised": "The dam held in 1889.",
        "edits": [{
            "start": 16, "before": "1899", "after": "1889", "question": null,
            "evidence": [], "agreement": null,
        }],
        "steps": [],
        "rejected": [],
        "metrics": null,
    });
    let (run, stored) = {
        let mut store = app.store().unwrap();
        let collection = store.collection_id("dams").unwrap();
        let run = store.create_run("rarr", &identity, Some("mock"), Some(collection)).unwrap();
        let revision = serde_json::from_value(revision.clone()).unwrap();
        let subject = Some(SubjectId::Passage(passage.id));
        let stored = store.insert_outcome(run, subject, &Outcome::Revision(revision), &[]).unwrap();
        store.set_run_status(run, RunStatus::Cancelled, Some("interrupted")).unwrap();
        (run, stored)
    };

    let method: ReviseMethod = "rarr".parse().unwrap();
    let options = ReviseOptions { skip_metrics: true, ..ReviseOptions::default() };
    let summary = app
        .revise_collection("dams", method, &options, Arc::new(NoProgress), CancelToken::new())
        .await
        .unwrap();
    assert!(summary.resumed, "{summary:?}");
    assert_eq!(summary.run_id, run);
    assert_eq!(summary.method, "rarr");
    assert_eq!((summary.passages, summary.already_revised, summary.revised), (1, 1, 0));
    assert!(model.requests().is_empty(), "the revised passage was asked about again");
    // The stored revision reads as it was written.
    let read = app.revision(stored).unwrap();
    let Outcome::Revision(read) = &read.stored.outcome else { panic!("{read:?}") };
    assert_eq!(read.envelope.method, "rarr");
    assert_eq!(read.revised, "The dam held in 1889.");
    assert_eq!(read.edits[0].after, "1889");
    // Its parameters read typed, and write back as they were stored.
    let recorded = read.envelope.parameters.revision().expect("a revision's parameters");
    let gate = Some(factdesk_model::parameters::Gate::Chat);
    assert_eq!((recorded.evidence.as_str(), recorded.gate), ("corpus", gate));
    assert_eq!(recorded.calls.as_ref().unwrap().get("edit"), Some(&1));
    assert_eq!(
        serde_json::to_string(&read.envelope.parameters).unwrap(),
        revision["parameters"].to_string()
    );
}
