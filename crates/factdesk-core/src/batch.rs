//! The resumable batch runner that every method's collection run goes through: the subjects of
//! a collection → run one → store one, a few at a time.
//!
//! A run is found by its identity (the method's configuration and models, see
//! [`crate::verify::config`]): the newest unfinished run over the same collection with the same
//! identity is continued, and the subjects it already stored a result for are left out; with
//! `skip_done`, so are the subjects any run with that identity stored a result for. Each
//! result is stored by the method's `run_one` as it comes (one transaction each), so a killed
//! run loses at most the subjects in flight. A subject whose `run_one` fails is reported and
//! left undone: the run then ends `failed` and the next call retries just those. Cancelling
//! stops starting new subjects; those in flight finish. Two processes may run the same run at
//! once: a batch takes a lease on each subject before working on it (`subject_leases`), so the
//! two work on disjoint subjects; each leaves out what the other has stored (counted as already
//! done) or holds (counted as elsewhere), never as a failure. A lease of a process that died is
//! taken over at once; one of a process that hangs, after an hour.

use std::collections::HashSet;
use std::future::Future;
use std::sync::Arc;

use factdesk_model::{Claim, Passage, RunId, RunStatus, SubjectId};
use factdesk_store::{ClaimFilter, LeaseHolder, StoreError};
use futures_util::StreamExt;
use serde::Serialize;

use crate::{CancelToken, CoreError, Factdesk, ProgressUnit, Reporter, Result};

/// Why a subject gave no result of this call.
enum Done {
    /// Another process running the same run stored it first.
    Elsewhere,
    /// Another process running the same run holds its lease: it is working on it.
    Leased,
    Failed(CoreError),
}

/// How long a lease on a subject lasts. A subject's model calls may take minutes; a lease of a
/// process that died is taken over at once (its process id is checked), so this only bounds a
/// process that hangs.
const LEASE_SECONDS: u64 = 3600;

/// Whether process `pid` is alive on this machine (on Linux, by `/proc`; elsewhere it is taken
/// to be, and its leases end when they expire).
fn process_alive(pid: u32) -> bool {
    if pid == std::process::id() || !cfg!(target_os = "linux") {
        return true;
    }
    std::path::Path::new(&format!("/proc/{pid}")).exists()
}

/// Which subjects of a collection a batch runs over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BatchSubjects {
    Claims,
    Passages,
}

/// One subject of a batch: a claim or a passage of the collection.
#[derive(Debug, Clone, PartialEq)]
pub enum Subject {
    Claim(Claim),
    Passage(Passage),
}

impl Subject {
    pub fn id(&self) -> SubjectId {
        match self {
            Subject::Claim(claim) => SubjectId::Claim(claim.id),
            Subject::Passage(passage) => SubjectId::Passage(passage.id),
        }
    }

    pub fn text(&self) -> &str {
        match self {
            Subject::Claim(claim) => &claim.text,
            Subject::Passage(passage) => &passage.text,
        }
    }
}

/// What a batch runs over and as what.
#[derive(Debug, Clone)]
pub struct BatchSpec<'a> {
    /// The collection whose claims or passages are the subjects.
    pub collection: &'a str,
    pub subjects: BatchSubjects,
    pub method: &'a str,
    /// The run's identity, stored as its parameters.
    pub identity: &'a serde_json::Value,
    /// The model the run's row names.
    pub model: Option<&'a str>,
    /// Start a new run even if an unfinished one with this identity exists.
    pub restart: bool,
    /// Leave out subjects that any run with this identity already did.
    pub skip_done: bool,
    /// Subjects run at once.
    pub concurrency: usize,
}

/// What a batch did; `T` is what one subject's run gives (e.g. a verdict), tallied.
#[derive(Debug, Clone)]
pub struct BatchOutcome<T> {
    pub run_id: RunId,
    /// True when an unfinished run was continued.
    pub resumed: bool,
    pub subjects: usize,
    /// Done in earlier attempts of this run, or meanwhile by another process running it (with
    /// `skip_done`, also by earlier runs with the same identity), and so left out.
    pub already_done: usize,
    /// Being worked on by another process running this run when this batch reached them
    /// (their leases were held), and so left to it.
    pub elsewhere: usize,
    pub done: usize,
    pub failed: usize,
    pub cancelled: bool,
    pub tally: Vec<(T, usize)>,
    pub failures: Vec<SubjectFailure>,
}

/// A subject whose run failed, and why.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct SubjectFailure {
    pub subject: SubjectId,
    /// The claim's or passage's text.
    pub text: String,
    pub message: String,
}

impl Factdesk {
    /// Gives up a lease; a failure to do so only delays another process (until the lease
    /// expires or this process ends), so it is logged, not raised.
    fn release(&self, run: RunId, subject: SubjectId, holder: &LeaseHolder) {
        if let Err(error) =
            self.store().and_then(|store| Ok(store.release_lease(run, subject, holder)?))
        {
            tracing::warn!(%run, %subject, %error, "could not release a subject lease");
        }
    }

    /// Runs `run_one` over the claims or passages of `spec.collection` that are not done yet,
    /// as the run `spec` identifies (continued or new); see the module documentation. `run_one`
    /// gets the subject and the run, and must store its outcome before it returns.
    pub async fn run_batch<T, F, Fut>(
        &self,
        spec: BatchSpec<'_>,
        reporter: Arc<dyn Reporter>,
        cancel: CancelToken,
        run_one: F,
    ) -> Result<BatchOutcome<T>>
    where
        T: PartialEq,
        F: Fn(Subject, RunId) -> Fut,
        Fut: Future<Output = Result<T>>,
    {
        let (subjects, run, resumed, done) = {
            let store = self.store()?;
            let collection_id = store.collection_id(spec.collection)?;
            let subjects: Vec<Subject> = match spec.subjects {
                BatchSubjects::Claims => store
                    .claims(&ClaimFilter {
                        collection: Some(collection_id),
                        ..ClaimFilter::default()
                    })?
                    .into_iter()
                    .map(Subject::Claim)
                    .collect(),
                BatchSubjects::Passages => {
                    store.passages(collection_id)?.into_iter().map(Subject::Passage).collect()
                }
            };
            let existing = if spec.restart {
                None
            } else {
                store.unfinished_run(spec.method, spec.identity, collection_id)?
            };
            let (run, resumed) = match existing {
                Some(run) => (run, true),
                None => (
                    store.create_run(
                        spec.method,
                        spec.identity,
                        spec.model,
                        Some(collection_id),
                    )?,
                    false,
                ),
            };
            let mut done: HashSet<SubjectId> = store.done_subjects(run)?;
            if spec.skip_done {
                done.extend(store.subjects_done_with(collection_id, spec.method, spec.identity)?);
            }
            // Only this batch's kind of subject counts.
            let ids: HashSet<SubjectId> = subjects.iter().map(Subject::id).collect();
            done.retain(|id| ids.contains(id));
            store.set_run_status(run, RunStatus::Running, None)?;
            (subjects, run, resumed, done)
        };
        tracing::info!(%run, method = spec.method, resumed, subjects = subjects.len(), already = done.len(), "running a batch");
        let todo: Vec<Subject> =
            subjects.iter().filter(|subject| !done.contains(&subject.id())).cloned().collect();
        let phase = match spec.subjects {
            BatchSubjects::Claims => "checking claims",
            BatchSubjects::Passages => "working on passages",
        };
        reporter.phase(phase, Some(subjects.len() as u64), ProgressUnit::Items);
        reporter.advance(done.len() as u64);

        let mut outcome = BatchOutcome {
            run_id: run,
            resumed,
            subjects: subjects.len(),
            already_done: done.len(),
            elsewhere: 0,
            done: 0,
            failed: 0,
            cancelled: false,
            tally: Vec::new(),
            failures: Vec::new(),
        };
        let run_one = &run_one;
        let holder = &LeaseHolder::this_process();
        let mut results = futures_util::stream::iter(todo.into_iter().map(|subject| {
            let cancel = cancel.clone();
            let reporter = reporter.clone();
            async move {
                if cancel.is_cancelled() {
                    return (subject, None);
                }
                // Another process running the same run may be at it, or have done it meanwhile.
                let id = subject.id();
                let claim = self.store().and_then(|mut store| {
                    if !store.take_lease(run, id, holder, LEASE_SECONDS, process_alive)? {
                        return Ok(Some(Done::Leased));
                    }
                    Ok(store.is_done_in(run, id)?.then_some(Done::Elsewhere))
                });
                match claim {
                    Ok(Some(done)) => {
                        if let Done::Elsewhere = done {
                            self.release(run, id, holder);
                        }
                        return (subject, Some(Err(done)));
                    }
                    Ok(None) => {}
                    Err(error) => return (subject, Some(Err(Done::Failed(error)))),
                }
                reporter.working_on(subject.text());
                let result = run_one(subject.clone(), run).await.map_err(|error| match error {
                    CoreError::Store(StoreError::AlreadyDone { .. }) => Done::Elsewhere,
                    error => Done::Failed(error),
                });
                self.release(run, id, holder);
                (subject, Some(result))
            }
        }))
        .buffer_unordered(spec.concurrency.max(1));
        while let Some((subject, result)) = results.next().await {
            match result {
                None => outcome.cancelled = true,
                Some(Ok(value)) => {
                    outcome.done += 1;
                    match outcome.tally.iter_mut().find(|(seen, _)| *seen == value) {
                        Some((_, count)) => *count += 1,
                        None => outcome.tally.push((value, 1)),
                    }
                    reporter.advance(1);
                }
                Some(Err(Done::Elsewhere)) => {
                    outcome.already_done += 1;
                    reporter.advance(1);
                }
                Some(Err(Done::Leased)) => {
                    outcome.elsewhere += 1;
                    reporter.advance(1);
                }
                Some(Err(Done::Failed(error))) => {
                    outcome.failed += 1;
                    let message = error.to_string();
                    reporter.item_failed(subject.text(), &message);
                    outcome.failures.push(SubjectFailure {
                        subject: subject.id(),
                        text: subject.text().to_owned(),
                        message,
                    });
                }
            }
        }
        drop(results);
        outcome.cancelled |= cancel.is_cancelled();
        // Another process on the same run may have failed subjects, or still be at some: the
        // run is complete only when every subject is done, whoever did it.
        let stored = self.store()?.done_subjects(run)?;
        let left = subjects
            .iter()
            .filter(|subject| !stored.contains(&subject.id()) && !done.contains(&subject.id()))
            .count();
        let (status, error) = if outcome.cancelled {
            (RunStatus::Cancelled, None)
        } else if outcome.failed > 0 {
            let error = format!("{} of {} could not be done", outcome.failed, outcome.subjects);
            (RunStatus::Failed, Some(error))
        } else if left > 0 {
            let error = format!(
                "{left} of {} are not done: another process running this run failed them or is \
                 still at them",
                outcome.subjects
            );
            (RunStatus::Failed, Some(error))
        } else {
            (RunStatus::Completed, None)
        };
        self.store()?.set_run_status(run, status, error.as_deref())?;
        reporter.finish();
        Ok(outcome)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use factdesk_model::{ClaimCheck, Envelope, NewClaim, TokenUse, Verdict};

    use super::*;
    use crate::{CoreError, NoProgress, Settings};

    /// A toy method: a claim is supported when it has an even number of words, else refuted.
    fn toy_check(claim: &str) -> ClaimCheck {
        let even = claim.split_whitespace().count().is_multiple_of(2);
        ClaimCheck {
            envelope: Envelope {
                method: "toy".into(),
                parameters: serde_json::json!({}),
                model: "none".into(),
                nli_model: None,
                tokens: TokenUse::default(),
                explanation: "counted the words".into(),
            },
            claim: claim.to_owned(),
            verdict: if even { Verdict::Supported } else { Verdict::Refuted },
            undecided: None,
            confidence: None,
            attributions: Vec::new(),
            urls: Vec::new(),
            sources: Vec::new(),
            premises: Vec::new(),
            left_out: Vec::new(),
            ciber: None,
        }
    }

    fn app_with_claims(dir: &std::path::Path, texts: &[&str]) -> Factdesk {
        let app = Factdesk::open_with_settings(dir, Settings::default()).unwrap();
        {
            let mut store = app.store().unwrap();
            let collection = store.ensure_collection("toys").unwrap();
            let claims: Vec<NewClaim> = texts
                .iter()
                .map(|text| NewClaim {
                    text: (*text).to_owned(),
                    origin: None,
                    tags: Vec::new(),
                    notes: None,
                    gold_label: None,
                    claimed_on: None,
                })
                .collect();
            store.insert_claims(collection, &claims).unwrap();
        }
        app
    }

    fn spec<'a>(identity: &'a serde_json::Value, skip_done: bool) -> BatchSpec<'a> {
        BatchSpec {
            collection: "toys",
            subjects: BatchSubjects::Claims,
            method: "toy",
            identity,
            model: None,
            restart: false,
            skip_done,
            concurrency: 2,
        }
    }

    #[tokio::test]
    async fn a_cancelled_batch_resumes_without_repeats_and_a_failure_is_retried() {
        let dir = tempfile::tempdir().unwrap();
        let texts = ["one two", "one", "one two three", "a b c d", "fails here", "x y"];
        let app = app_with_claims(dir.path(), &texts);
        let identity =
            serde_json::json!({"method": "toy", "config": {"words": "even"}, "models": {}});
        let seen = Mutex::new(Vec::<String>::new());
        let fail = std::sync::atomic::AtomicBool::new(true);
        let cancel = CancelToken::new();
        let run_one = |subject: Subject, run: RunId| {
            let Subject::Claim(claim) = subject else { unreachable!("claims only") };
            let (app, seen, cancel, fail) = (&app, &seen, &cancel, &fail);
            async move {
                seen.lock().unwrap().push(claim.text.clone());
                if claim.text == "fails here" && fail.load(std::sync::atomic::Ordering::SeqCst) {
                    return Err(CoreError::Internal("the toy failed".into()));
                }
                let check = toy_check(&claim.text);
                app.store()?.insert_check(run, Some(claim.id), &check, &[])?;
                if seen.lock().unwrap().len() == 3 {
                    cancel.cancel();
                }
                Ok(check.verdict)
            }
        };
        let first = app
            .run_batch(spec(&identity, false), Arc::new(NoProgress), cancel.clone(), run_one)
            .await
            .unwrap();
        assert!(first.cancelled && !first.resumed, "{first:?}");
        assert_eq!(first.done + first.failed, seen.lock().unwrap().len());
        assert!(first.done < texts.len());
        let stored = app.store().unwrap().run(first.run_id).unwrap();
        assert_eq!(stored.status, RunStatus::Cancelled);

        // The same identity continues the run; the claims done are not run again.
        let done_before: HashSet<String> = seen.lock().unwrap().iter().cloned().collect();
        seen.lock().unwrap().clear();
        let cancel = CancelToken::new();
        let second = app
            .run_batch(
                spec(&identity, false),
                Arc::new(NoProgress),
                cancel.clone(),
                |subject, run| {
                    let Subject::Claim(claim) = subject else { unreachable!("claims only") };
                    let (app, seen) = (&app, &seen);
                    async move {
                        seen.lock().unwrap().push(claim.text.clone());
                        if claim.text == "fails here" {
                            return Err(CoreError::Internal("the toy failed".into()));
                        }
                        let check = toy_check(&claim.text);
                        app.store()?.insert_check(run, Some(claim.id), &check, &[])?;
                        Ok(check.verdict)
                    }
                },
            )
            .await
            .unwrap();
        assert!(second.resumed && second.run_id == first.run_id, "{second:?}");
        assert_eq!(second.already_done, first.done);
        assert_eq!((second.failed, second.failures[0].text.as_str()), (1, "fails here"));
        for text in seen.lock().unwrap().iter() {
            assert!(text == "fails here" || !done_before.contains(text), "'{text}' was run twice");
        }
        assert_eq!(app.store().unwrap().run(first.run_id).unwrap().status, RunStatus::Failed);

        // The failed run is continued once more: only the failed claim is left.
        fail.store(false, std::sync::atomic::Ordering::SeqCst);
        seen.lock().unwrap().clear();
        let third = app
            .run_batch(spec(&identity, false), Arc::new(NoProgress), CancelToken::new(), run_one)
            .await
            .unwrap();
        assert_eq!(*seen.lock().unwrap(), ["fails here"]);
        assert_eq!((third.done, third.already_done, third.failed), (1, texts.len() - 1, 0));
        let verified = third.tally.iter().find(|(v, _)| *v == Verdict::Supported);
        assert_eq!(verified.map(|(_, n)| *n), Some(1), "'fails here' has two words");
        assert_eq!(app.store().unwrap().run(first.run_id).unwrap().status, RunStatus::Completed);

        // A completed run is not continued; with skip_done a new run has nothing left, and
        // another identity runs every claim again.
        seen.lock().unwrap().clear();
        let fourth = app
            .run_batch(spec(&identity, true), Arc::new(NoProgress), CancelToken::new(), run_one)
            .await
            .unwrap();
        assert!(!fourth.resumed && fourth.run_id != first.run_id);
        assert_eq!((fourth.done, fourth.already_done), (0, texts.len()));
        let other = serde_json::json!({"method": "toy", "config": {"words": "odd"}, "models": {}});
        let fifth = app
            .run_batch(spec(&other, true), Arc::new(NoProgress), CancelToken::new(), run_one)
            .await
            .unwrap();
        assert_eq!(fifth.done, texts.len());
    }

    /// Two batches of one run at once (as two processes running the same command): neither
    /// reports the other's results as failures, and every claim is stored once.
    #[tokio::test]
    async fn two_batches_of_one_run_share_it_without_failures() {
        let dir = tempfile::tempdir().unwrap();
        let texts: Vec<String> = (0..12).map(|i| format!("Claim number {i} here.")).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let app = app_with_claims(dir.path(), &refs);
        let identity = serde_json::json!({"method": "toy", "config": {}, "models": {}});
        let worked = Mutex::new(Vec::<String>::new());
        let run_one = |subject: Subject, run: RunId| {
            let Subject::Claim(claim) = subject else { unreachable!("claims only") };
            let (app, worked) = (&app, &worked);
            async move {
                worked.lock().unwrap().push(claim.text.clone());
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                let check = toy_check(&claim.text);
                app.store()?.insert_check(run, Some(claim.id), &check, &[])?;
                Ok(check.verdict)
            }
        };
        let (first, second) = tokio::join!(
            app.run_batch(
                spec(&identity, false),
                Arc::new(NoProgress),
                CancelToken::new(),
                run_one
            ),
            app.run_batch(
                spec(&identity, false),
                Arc::new(NoProgress),
                CancelToken::new(),
                run_one
            ),
        );
        let (first, second) = (first.unwrap(), second.unwrap());
        assert_eq!(first.run_id, second.run_id, "the second joins the first's run");
        assert_eq!((first.failed, second.failed), (0, 0), "{first:?} {second:?}");
        // Leases keep the two apart: every claim is worked on once, by one of them.
        assert_eq!(first.done + second.done, texts.len(), "{first:?} {second:?}");
        let mut worked = worked.into_inner().unwrap();
        worked.sort();
        assert_eq!(worked.len(), texts.len(), "a claim was worked on twice: {worked:?}");
        worked.dedup();
        assert_eq!(worked.len(), texts.len());
        assert_eq!(app.store().unwrap().checked_claims(first.run_id).unwrap().len(), texts.len());
        // The one that finished last saw every claim done.
        assert_eq!(app.store().unwrap().run(first.run_id).unwrap().status, RunStatus::Completed);
    }
}

/// A toy revising method over passages, added the way a real one would be (an outcome body of
/// its own kind, stored per passage through the one batch runner): it spells "teh" right.
#[cfg(test)]
mod passage_tests {
    use std::sync::Mutex;

    use factdesk_model::{
        Edit, Envelope, NewPassage, Outcome, PassageKind, Revision, SubjectId, TokenUse,
    };

    use super::*;
    use crate::{NoProgress, Settings};

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
                parameters: serde_json::json!({"word": "teh"}),
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
        let identity = serde_json::json!({"method": "toy-speller", "config": {}, "models": {}});
        let spec = || BatchSpec {
            collection: "summaries",
            subjects: BatchSubjects::Passages,
            method: "toy-speller",
            identity: &identity,
            model: None,
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
        let first =
            app.run_batch(spec(), Arc::new(NoProgress), cancel.clone(), run_one).await.unwrap();
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
}
