//! A toy revising method over passages, added the way a real one would be (an outcome body of
//! its own kind, stored per passage through the one batch runner): it spells "teh" right.

use std::sync::{Arc, Mutex};

use factdesk_model::{
    Edit, Envelope, NewPassage, Outcome, PassageKind, Revision, RunId, RunStatus, SubjectId,
    TokenUse,
};

use super::*;
use crate::{CancelToken, Factdesk, NoProgress, Settings};

fn toy_revision(text: &str) -> Revision {
    let edits: Vec<Edit> = text
        .match_indices("teh")
        .map(|(start, _)| Edit {
            start,
            before: "teh".into(),
            after: "the".into(),
            question: None,
            evidence: Vec::new(),
            agreement: None,
        })
        .collect();
    let mut tokens = TokenUse::default();
    tokens.add("edit", text.len() as u64, 3);
    Revision {
        envelope: Envelope {
            method: "toy-speller".into(),
            parameters: serde_json::json!({"word": "teh"}).into(),
            model: "none".into(),
            nli_model: None,
            tokens,
            explanation: format!("{} misspelling(s) corrected", edits.len()),
        },
        original: text.to_owned(),
        revised: text.replace("teh", "the"),
        edits,
        steps: Vec::new(),
        rejected: Vec::new(),
        metrics: None,
    }
}

#[tokio::test]
async fn a_revising_method_runs_over_passages_resumably() {
    let dir = tempfile::tempdir().unwrap();
    let app = Factdesk::open_with_settings(dir.path(), Settings::default()).unwrap();
    let texts = ["teh cat sat.", "All fine here.", "teh end of teh story.", "Last one."];
    {
        let mut store = app.store().unwrap();
        let collection = store.ensure_collection("summaries").unwrap();
        let passages: Vec<NewPassage> = texts
            .iter()
            .map(|text| NewPassage {
                kind: PassageKind::Summary,
                text: (*text).to_owned(),
                question: None,
                sources: Vec::new(),
            })
            .collect();
        store.insert_passages(collection, &passages).unwrap();
        // A claim in the same collection is not a subject of a passages batch.
        let claim = factdesk_model::NewClaim {
            text: "A claim.".into(),
            origin: None,
            tags: Vec::new(),
            notes: None,
            gold_label: None,
            claimed_on: None,
        };
        store.insert_claims(collection, &[claim]).unwrap();
    }
    let identity = crate::identity::RunIdentity::new(
        "toy-speller",
        &serde_json::json!({}),
        crate::identity::RunModels::default(),
    )
    .unwrap();
    let spec = || BatchSpec {
        collection: "summaries",
        subjects: BatchSubjects::Passages,
        identity: &identity,
        restart: false,
        skip_done: false,
        concurrency: 1,
    };
    let seen = Mutex::new(Vec::<String>::new());
    let cancel = CancelToken::new();
    let run_one = |subject: Subject, run: RunId| {
        let (app, seen, cancel) = (&app, &seen, &cancel);
        async move {
            let Subject::Passage(passage) = &subject else { unreachable!("passages only") };
            seen.lock().unwrap().push(passage.text.clone());
            let revision = toy_revision(&passage.text);
            let edits = revision.edits.len();
            let outcome = Outcome::Revision(revision);
            app.store()?.insert_outcome(run, Some(subject.id()), &outcome, &[])?;
            if seen.lock().unwrap().len() == 2 {
                cancel.cancel();
            }
            Ok(edits)
        }
    };
    let first = app.run_batch(spec(), Arc::new(NoProgress), cancel.clone(), run_one).await.unwrap();
    assert!(first.cancelled, "{first:?}");
    assert_eq!((first.subjects, first.done), (4, 2));

    seen.lock().unwrap().clear();
    let second =
        app.run_batch(spec(), Arc::new(NoProgress), CancelToken::new(), run_one).await.unwrap();
    assert!(second.resumed && second.run_id == first.run_id, "{second:?}");
    assert_eq!((second.already_done, second.done), (2, 2));
    assert_eq!(seen.lock().unwrap().len(), 2, "no passage revised twice");
    let store = app.store().unwrap();
    assert_eq!(store.run(first.run_id).unwrap().status, RunStatus::Completed);

    let outcomes = store.outcomes(Some(first.run_id), None).unwrap();
    assert_eq!(outcomes.len(), 4);
    let story = outcomes
        .iter()
        .find(|stored| stored.outcome.subject_text() == "teh end of teh story.")
        .unwrap();
    let Outcome::Revision(revision) = &story.outcome else { panic!("{story:?}") };
    assert_eq!(revision.revised, "the end of the story.");
    assert_eq!(revision.edits.len(), 2);
    assert!(matches!(story.subject, Some(SubjectId::Passage(_))));
    assert_eq!(revision.envelope.tokens.of("edit").completion, 3);
}
