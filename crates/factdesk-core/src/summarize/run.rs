//! A summary's run: TTS or a baseline over the sources, recorded under a run of its own that
//! a cancelled, failed or interrupted attempt of the same input continues, with the scoring
//! progress told to a [`Reporter`].

use std::sync::Arc;

use factdesk_llm::{CacheMode, CallCollector};
use factdesk_methods::tts::{Progress, Source, StanceJudge, Tts};
use factdesk_model::{DocumentId, Outcome, RunId, RunStatus};

use super::methods::{SummaryContext, of_request};
use super::outcome::source_name;
use super::{SummarizeRequest, SummaryRun};
use crate::identity::{RunIdentity, RunModels};
use crate::verify::{NLI_VERIFIER, method_error, verifier_folder};
use crate::{CancelToken, CoreError, Factdesk, ProgressUnit, Reporter, Result};

/// Tells a [`Reporter`] how far a TTS run got, and stops it when the token is cancelled.
struct RunProgress {
    reporter: Arc<dyn Reporter>,
    cancel: CancelToken,
}

impl Progress for RunProgress {
    fn scoring(&self, done: usize, total: usize, next: Option<&str>) {
        if done == 0 {
            self.reporter.phase("scoring sources", Some(total as u64), ProgressUnit::Items);
        } else {
            self.reporter.advance(1);
        }
        if let Some(next) = next {
            self.reporter.working_on(next);
        }
    }

    fn answering(&self) {
        self.reporter.phase("writing the summary", None, ProgressUnit::Items);
    }

    fn cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }
}

impl Factdesk {
    /// Summarises the sources for the question with TTS (or a baseline) and stores the
    /// summary (see the module documentation). `reporter` hears how many sources are scored;
    /// `cancel` stops the run before its next model call (the run is then resumable).
    pub async fn summarize(
        &self,
        request: &SummarizeRequest,
        reporter: Arc<dyn Reporter>,
        cancel: CancelToken,
    ) -> Result<SummaryRun> {
        let ids = self.summary_documents(&request.sources, &cancel).await?;
        let mut documents = Vec::new();
        for id in &ids {
            documents.push(self.document(*id)?);
        }
        let sources: Vec<Source> = documents
            .iter()
            .map(|document| Source { name: source_name(document), text: document.text.clone() })
            .collect();
        // Bad input is refused before a run is recorded.
        factdesk_methods::tts::check(&request.config, &request.question, &sources)
            .map_err(method_error)?;
        // The verifier, when it judges the stances of a method that asks them, is loaded
        // before a run is recorded.
        let method = of_request(request.baseline)?;
        let nli = match request.config.stance_judge {
            StanceJudge::Verifier if method.asks_stances() => {
                Some(self.cross_encoder(&verifier_folder(), Some(NLI_VERIFIER))?)
            }
            _ => None,
        };
        let nli_name = nli.as_ref().map(|nli| nli.name());
        let name = method.name();
        let chat = self.model_choice().model_name();
        let identity = summary_identity(name, request, &chat, nli.is_some(), &ids)?;
        let existing = if request.restart {
            None
        } else {
            self.store()?.unfinished_free_run(name, &identity.to_json())?
        };
        let resumed = existing.is_some();
        let run = match existing {
            Some(run) => run,
            None => self.create_run(&identity, None)?,
        };
        self.store()?.set_run_status(run, RunStatus::Running, None)?;
        tracing::info!(%run, method = name, resumed, sources = sources.len(), "summarising");
        // A resumed run's recorded calls answer again, whatever the cache setting.
        let cache = if resumed { Some(CacheMode::ReadWrite) } else { request.cache };
        let stored = async {
            let collector = CallCollector::default();
            let model =
                self.collecting_language_model(Some(run), cache, Some(collector.clone()))?;
            let tts = Tts {
                model,
                prompts: Arc::new(factdesk_methods::prompts::builtin_library()?),
                config: request.config.clone(),
                concurrency: self.settings().llm.max_concurrency.max(1),
                nli,
                progress: Arc::new(RunProgress { reporter: reporter.clone(), cancel }),
            };
            let context = SummaryContext {
                question: &request.question,
                config: &request.config,
                chat: &chat,
                documents: &documents,
                run,
            };
            let mut summary = method.summarize(&tts, &sources, &context).await?;
            // The NLI model that judged the stances, if one did.
            summary.envelope.nli_model = nli_name;
            Ok::<_, CoreError>(self.store()?.insert_outcome(
                run,
                None,
                &Outcome::Summary(summary),
                &collector.ids(),
            )?)
        }
        .await;
        reporter.finish();
        Ok(SummaryRun { resumed, stored: self.finish_outcome_run(run, stored)? })
    }
}

/// A method's error, a cancellation named as one of `run` (which a second run continues).
pub(super) fn run_error(error: factdesk_methods::MethodError, run: RunId) -> CoreError {
    match error {
        factdesk_methods::MethodError::Cancelled => CoreError::Cancelled {
            what: format!("the summary (run {run})"),
            resume: "summarise the same sources with the same settings again".into(),
        },
        other => method_error(other),
    }
}

/// A summary run's identity: the method (TTS or a baseline), its configuration, the chat model
/// and, when the verifier judges the stances, the verifier by name (as a verdict method's
/// identity names its NLI judge), over the question and the source documents.
fn summary_identity(
    method: &str,
    request: &SummarizeRequest,
    chat: &str,
    verifier_judges: bool,
    documents: &[DocumentId],
) -> Result<RunIdentity> {
    let models = RunModels {
        chat: Some(chat.to_owned()),
        nli: verifier_judges.then(|| NLI_VERIFIER.to_owned()),
    };
    RunIdentity::new(method, &request.config, models)?
        .over(&serde_json::json!({"question": request.question, "documents": documents}))
}

#[cfg(test)]
mod tests {
    use factdesk_methods::tts::TtsConfig;
    use factdesk_model::MethodParameters;
    use factdesk_testkit::scripted::ScriptedModel;

    use super::*;
    use crate::NoProgress;
    use crate::summarize::SummarySources;

    /// Cancels the run when the `at`-th source starts being scored.
    struct CancelAt {
        at: usize,
        started: std::sync::Mutex<usize>,
        cancel: CancelToken,
    }

    impl Reporter for CancelAt {
        fn working_on(&self, _item: &str) {
            let mut started = self.started.lock().unwrap();
            *started += 1;
            if *started == self.at {
                self.cancel.cancel();
            }
        }
    }

    /// The identity migration 0018 rewrote the summaries stored before it into (the store's
    /// migration test holds the same value): an unfinished one still resumes.
    #[test]
    fn a_summary_identity_is_what_the_migration_wrote() {
        let request = SummarizeRequest {
            question: "Did the dam hold?".into(),
            sources: SummarySources::Corpus("dam".into()),
            baseline: None,
            config: TtsConfig { stance_judge: StanceJudge::Verifier, ..TtsConfig::default() },
            cache: None,
            restart: false,
        };
        let identity =
            summary_identity("tts", &request, "mock", true, &[DocumentId(3), DocumentId(1)])
                .unwrap();
        assert_eq!(
            identity.to_json(),
            serde_json::json!({
                "method": "tts",
                "config": request.config,
                "models": {"chat": "mock", "nli": "factdesk-verifier"},
                "inputs": {"question": "Did the dam hold?", "documents": [3, 1]},
            })
        );
    }

    #[tokio::test]
    async fn a_cancelled_summary_resumes_its_run_without_repeating_a_call() {
        let model = ScriptedModel::new().serve();
        let dir = tempfile::tempdir().unwrap();
        let app = crate::testing::open_scripted(dir.path(), model.url("/v1"));
        let texts = [
            ("1.txt", "The dam held. Water rose by a metre."),
            ("2.txt", "Water rose by a metre. The dam held. Roads were shut."),
            ("3.txt", "Roads were shut. The dam held."),
            ("4.txt", "The dam never held. Water never rose by a metre."),
        ];
        crate::testing::import_texts(&app, &dir.path().join("sources"), "dam", &texts).await;
        let request = SummarizeRequest {
            question: "Did the dam hold?".into(),
            sources: SummarySources::Corpus("dam".into()),
            baseline: None,
            config: TtsConfig::default(),
            cache: Some(CacheMode::Off),
            restart: false,
        };
        // Cancelled as the third source's turn comes: two sources were scored.
        let cancel = CancelToken::new();
        let reporter = CancelAt { at: 3, started: Default::default(), cancel: cancel.clone() };
        let error = app.summarize(&request, Arc::new(reporter), cancel).await.unwrap_err();
        assert_eq!(error.code(), "cancelled", "{error}");
        let runs = app.store().unwrap().runs(None).unwrap();
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].status, RunStatus::Cancelled);
        let before = model.requests().len();
        assert!(before > 0);
        // The second run continues the first: what was asked is answered from the record.
        let resumed = app.summarize(&request, Arc::new(NoProgress), CancelToken::new()).await;
        let resumed = resumed.unwrap();
        assert!(resumed.resumed);
        assert_eq!(resumed.stored.run_id, runs[0].id);
        let prompts: Vec<String> = model
            .requests()
            .iter()
            .map(|r| String::from_utf8_lossy(&r.body).into_owned())
            .collect();
        let mut seen = std::collections::HashSet::new();
        for prompt in &prompts {
            assert!(seen.insert(prompt.clone()), "asked twice: {prompt}");
        }
        assert!(prompts.len() > before);
        // The liar is dropped; a fresh run from scratch with --restart makes a new run.
        let Outcome::Summary(summary) = &resumed.stored.outcome else { panic!() };
        let liar = summary.sources.iter().find(|s| s.source.title.as_deref() == Some("4")).unwrap();
        assert!(!liar.used, "{summary:#?}");
        assert!(summary.claims.iter().all(|c| !c.draft.is_empty()));
        let restarted = SummarizeRequest { restart: true, ..request.clone() };
        let fresh = app.summarize(&restarted, Arc::new(NoProgress), CancelToken::new()).await;
        let fresh = fresh.unwrap();
        assert!(!fresh.resumed && fresh.stored.run_id != runs[0].id);
        // Dropping the first source by hand writes the answer from the other two kept ones.
        let kept: Vec<usize> =
            (0..summary.sources.len()).filter(|&i| summary.sources[i].used).skip(1).collect();
        let by_hand = app.resummarize(resumed.stored.id, &kept).await.unwrap();
        // Both envelopes, read back from the store, hold typed settings written as the
        // untyped ones were: TTS's configuration, and under "config" beside the first summary.
        let parameters = |id| {
            let stored = app.store().unwrap().outcome(id).unwrap();
            stored.outcome.envelope().parameters.clone()
        };
        let first = parameters(resumed.stored.id);
        let config = serde_json::to_value(&request.config).unwrap();
        assert!(matches!(first, MethodParameters::Summary(_)), "{first:?}");
        assert_eq!(serde_json::to_string(&first).unwrap(), config.to_string());
        let again = parameters(by_hand.id);
        let MethodParameters::Resummarized(ref again_typed) = again else { panic!("{again:?}") };
        assert_eq!(again_typed.from_summary, resumed.stored.id.0);
        let before = serde_json::json!({"from_summary": resumed.stored.id.0, "config": config});
        assert_eq!(serde_json::to_string(&again).unwrap(), before.to_string());
        let Outcome::Summary(by_hand) = by_hand.outcome else { panic!() };
        assert!(by_hand.envelope.explanation.contains("dropped:"), "{by_hand:#?}");
        assert_eq!(by_hand.sources.iter().filter(|s| s.used).count(), kept.len());
        assert_eq!(app.sourced_summaries().unwrap().len(), 3);
        let error = app.resummarize(resumed.stored.id, &[]).await.unwrap_err();
        assert_eq!(error.code(), "invalid_input");

        // People review the sources: agreeing needs no reason, disagreeing does; the newest
        // review of a source counts and the summary is not changed.
        let id = resumed.stored.id;
        let liar_at = summary.sources.iter().position(|s| !s.used).unwrap();
        let kept_at = summary.sources.iter().position(|s| s.used).unwrap();
        assert!(app.summary_source_reviews(id).unwrap().is_empty());
        let error = app.review_summary_source(id, liar_at, false, Some("  "), None).unwrap_err();
        assert_eq!(error.code(), "invalid_input");
        assert!(error.to_string().contains("it was dropped) needs a comment"), "{error}");
        app.review_summary_source(id, liar_at, true, None, Some(" ana ")).unwrap();
        let reviews =
            app.review_summary_source(id, kept_at, false, Some(" says too little "), None).unwrap();
        assert_eq!(reviews.len(), 2);
        let first = reviews.iter().find(|r| r.source == kept_at).unwrap();
        assert_eq!((first.accepted, first.comment.as_deref()), (false, Some("says too little")));
        let liar_review = reviews.iter().find(|r| r.source == liar_at).unwrap();
        assert_eq!((liar_review.accepted, liar_review.reviewer.as_deref()), (true, Some("ana")));
        assert_eq!(app.summary_source_reviews(id).unwrap(), reviews);
        assert_eq!(app.sourced_summary(id).unwrap().1, *summary);
        let error = app.review_summary_source(id, 9, true, None, None).unwrap_err();
        assert!(error.to_string().contains("there is no source 10"), "{error}");
    }
}
