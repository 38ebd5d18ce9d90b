//! The batch runner itself: the run found by its identity (continued) or made, the subjects
//! not done yet run a few at a time under a lease each, the results tallied, and the run's
//! status set from what every process running it has stored.

use std::collections::HashSet;
use std::future::Future;
use std::sync::Arc;

use factdesk_model::{RunId, RunStatus, SubjectId};
use factdesk_store::{ClaimFilter, LeaseHolder, StoreError};
use futures_util::StreamExt;

use super::leases::{LEASE_SECONDS, process_alive};
use super::{BatchOutcome, BatchSpec, BatchSubjects, Subject, SubjectFailure};
use crate::{CancelToken, CoreError, Factdesk, ProgressUnit, Reporter, Result};

/// Why a subject gave no result of this call.
enum Done {
    /// Another process running the same run stored it first.
    Elsewhere,
    /// Another process running the same run holds its lease: it is working on it.
    Leased,
    Failed(CoreError),
}

impl Factdesk {
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
            let (method, identity) = (spec.identity.method.as_str(), spec.identity.to_json());
            let existing = if spec.restart {
                None
            } else {
                store.unfinished_run(method, &identity, collection_id)?
            };
            let (run, resumed) = match existing {
                Some(run) => (run, true),
                None => (
                    store.create_run(
                        method,
                        &identity,
                        spec.identity.model_label(),
                        Some(collection_id),
                    )?,
                    false,
                ),
            };
            let mut done: HashSet<SubjectId> = store.done_subjects(run)?;
            if spec.skip_done {
                done.extend(store.subjects_done_with(collection_id, method, &identity)?);
            }
            // Only this batch's kind of subject counts.
            let ids: HashSet<SubjectId> = subjects.iter().map(Subject::id).collect();
            done.retain(|id| ids.contains(id));
            store.set_run_status(run, RunStatus::Running, None)?;
            (subjects, run, resumed, done)
        };
        tracing::info!(%run, method = spec.identity.method, resumed, subjects = subjects.len(), already = done.len(), "running a batch");
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
    use crate::identity::{RunIdentity, RunModels};
    use crate::{CoreError, NoProgress, Settings};

    fn toy(config: serde_json::Value) -> RunIdentity {
        RunIdentity::new("toy", &config, RunModels::default()).unwrap()
    }

    /// A toy method: a claim is supported when it has an even number of words, else refuted.
    fn toy_check(claim: &str) -> ClaimCheck {
        let even = claim.split_whitespace().count().is_multiple_of(2);
        ClaimCheck {
            envelope: Envelope {
                method: "toy".into(),
                parameters: serde_json::json!({}).into(),
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
            sources: Vec::new(),
            premises: Vec::new(),
            left_out: Vec::new(),
            detail: None,
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

    fn spec<'a>(identity: &'a RunIdentity, skip_done: bool) -> BatchSpec<'a> {
        BatchSpec {
            collection: "toys",
            subjects: BatchSubjects::Claims,
            identity,
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
        let identity = toy(serde_json::json!({"words": "even"}));
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
        let other = toy(serde_json::json!({"words": "odd"}));
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
        let identity = toy(serde_json::json!({}));
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
