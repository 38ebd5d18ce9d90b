//! Stored summaries of several sources: read back, people's reviews of their sources (kept
//! beside the summary), one written again from the sources a person chose (a new summary
//! beside the first), and one written as a report.

use std::sync::Arc;

use factdesk_llm::CallCollector;
use factdesk_methods::tts::{Tts, TtsConfig};
use factdesk_model::parameters::{MethodParameters, ResummarizedParameters};
use factdesk_model::{
    CheckId, Outcome, RunStatus, ScoredSource, SourceReview, SourcedSummary, StoredOutcome,
};

use crate::identity::{RunIdentity, RunModels};
use crate::verify::method_error;
use crate::{CoreError, Factdesk, Result};

impl Factdesk {
    /// The stored multi-source summaries (of TTS and its baselines), newest first.
    pub fn sourced_summaries(&self) -> Result<Vec<StoredOutcome>> {
        let mut all = self.store()?.outcomes_of_kind("summary")?;
        all.retain(|stored| matches!(&stored.outcome, Outcome::Summary(s) if s.question.is_some()));
        all.reverse();
        Ok(all)
    }

    /// One stored multi-source summary.
    pub fn sourced_summary(&self, id: CheckId) -> Result<(StoredOutcome, SourcedSummary)> {
        let stored = self.store()?.outcome(id)?;
        match &stored.outcome {
            Outcome::Summary(summary) if summary.question.is_some() => {
                let summary = summary.clone();
                Ok((stored, summary))
            }
            other => Err(CoreError::InvalidInput(format!(
                "outcome {id} is a {}, not a summary of several sources",
                other.kind().as_str()
            ))),
        }
    }

    /// The reviews that count on the sources of summary `id` (the newest for each source), in
    /// the sources' order; a source nobody reviewed has none.
    pub fn summary_source_reviews(&self, id: CheckId) -> Result<Vec<SourceReview>> {
        self.sourced_summary(id)?;
        Ok(self.store()?.source_reviews(id)?)
    }

    /// Records a person's review of source `source` (from 0) of summary `id`: `accepted` when
    /// they agree with what the summary did with it (used it, or dropped it), otherwise with
    /// `comment` saying why. The summary stays as it was made; answers every review that counts.
    pub fn review_summary_source(
        &self,
        id: CheckId,
        source: usize,
        accepted: bool,
        comment: Option<&str>,
        reviewer: Option<&str>,
    ) -> Result<Vec<SourceReview>> {
        let (_, summary) = self.sourced_summary(id)?;
        let Some(scored) = summary.sources.get(source) else {
            return Err(CoreError::InvalidInput(format!(
                "summary {id} has {} source(s); there is no source {}",
                summary.sources.len(),
                source + 1
            )));
        };
        let reviewer = reviewer.map(str::trim).filter(|name| !name.is_empty());
        let comment = comment.map(str::trim).filter(|why| !why.is_empty());
        if !accepted && comment.is_none() {
            let choice = if scored.used { "used" } else { "dropped" };
            return Err(CoreError::InvalidInput(format!(
                "disagreeing with summary {id} on source {} (it was {choice}) needs a comment \
                 saying why",
                source + 1
            )));
        }
        let mut store = self.store()?;
        store.add_source_review(id, source, accepted, comment, reviewer)?;
        Ok(store.source_reviews(id)?)
    }

    /// Writes the answer of stored summary `id` again from the sources a person chose
    /// (`used`, indices into its sources) and stores it as a new summary beside the first:
    /// the same scores, claims and stances, the choice marked in each source's `used` and
    /// named in the explanation.
    pub async fn resummarize(&self, id: CheckId, used: &[usize]) -> Result<StoredOutcome> {
        let mut used = used.to_vec();
        used.sort_unstable();
        used.dedup();
        let used = used.as_slice();
        let (_, original) = self.sourced_summary(id)?;
        let question = original.question.clone().unwrap_or_default();
        if let Some(bad) = used.iter().find(|&&i| i >= original.sources.len()) {
            return Err(CoreError::InvalidInput(format!(
                "summary {id} has {} source(s); there is no source {}",
                original.sources.len(),
                bad + 1
            )));
        }
        if used.is_empty() {
            return Err(CoreError::InvalidInput(
                "choose at least one source to write the answer from".into(),
            ));
        }
        // The chosen sources' texts, as they were when the summary was made.
        let mut texts = Vec::new();
        for &index in used {
            let source = &original.sources[index].source;
            let name = source.title.clone().unwrap_or_else(|| format!("source {}", index + 1));
            let document = source
                .document_id
                .ok_or_else(|| {
                    CoreError::InvalidInput(format!("{name} is not a document of the library"))
                })
                .and_then(|document| self.document(document))?;
            if source.content_hash.as_deref() != Some(document.summary.content_hash.as_str()) {
                return Err(CoreError::InvalidInput(format!(
                    "{name} (document {}) changed since summary {id} was made; summarise the \
                     sources again",
                    document.summary.id
                )));
            }
            texts.push(document.text);
        }
        // A summary written again by hand runs with the first one's settings (the defaults, if
        // the first recorded none TTS reads) and records them as the first one stored them.
        let first = &original.envelope.parameters;
        let config = first.summary().map(TtsConfig::from_parameters).unwrap_or_default();
        let parameters = by_hand_parameters(first, id);
        let chat = self.model_choice().model_name();
        let identity = RunIdentity::new(
            "tts-by-hand",
            &serde_json::json!({"used": used}),
            RunModels { chat: Some(chat.clone()), nli: None },
        )?
        .over(&serde_json::json!({"from_summary": id.0}))?;
        let run = self.create_run(&identity, None)?;
        self.store()?.set_run_status(run, RunStatus::Running, None)?;
        let stored = async {
            let collector = CallCollector::default();
            let model = self.collecting_language_model(Some(run), None, Some(collector.clone()))?;
            let tts = Tts {
                model,
                prompts: Arc::new(factdesk_methods::prompts::builtin_library()?),
                config: config.clone(),
                concurrency: 1,
                nli: None,
                progress: Arc::new(factdesk_methods::tts::Quiet),
            };
            let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
            let (text, tokens) = tts.answer(&question, &texts).await.map_err(method_error)?;
            let mut summary = original.clone();
            let names = |chosen: bool| -> Vec<String> {
                summary_names(&original, |i, source| {
                    used.contains(&i) == chosen && source.used != chosen
                })
            };
            let (restored, dropped) = (names(true), names(false));
            summary.text = text;
            summary.envelope.tokens = tokens;
            summary.envelope.model = chat.clone();
            summary.envelope.parameters = parameters;
            summary.envelope.explanation = format!(
                "Written again by hand from {} of the {} source(s) of summary {id}{}{}; the \
                 scores are that summary's.",
                used.len(),
                original.sources.len(),
                if dropped.is_empty() {
                    String::new()
                } else {
                    format!("; dropped: {}", dropped.join(", "))
                },
                if restored.is_empty() {
                    String::new()
                } else {
                    format!("; restored: {}", restored.join(", "))
                },
            );
            for (i, source) in summary.sources.iter_mut().enumerate() {
                source.used = used.contains(&i);
            }
            Ok::<_, CoreError>(self.store()?.insert_outcome(
                run,
                None,
                &Outcome::Summary(summary),
                &collector.ids(),
            )?)
        }
        .await;
        self.finish_outcome_run(run, stored)
    }
}

impl Factdesk {
    /// Writes stored summary `id` (Markdown, HTML or JSON) to `path`, all or nothing.
    pub fn write_summary_report(
        &self,
        id: CheckId,
        format: factdesk_report::Format,
        path: &std::path::Path,
    ) -> Result<()> {
        let (_, summary) = self.sourced_summary(id)?;
        let report = factdesk_report::SourcedReport {
            title: summary.question.clone().unwrap_or_default(),
            generated_at: factdesk_model::now_rfc3339(),
            generator: format!("Factdesk {}", env!("CARGO_PKG_VERSION")),
            id: id.0,
            summary,
        };
        self.write_atomically(path, |out| factdesk_report::render_sourced(&report, format, out))
    }
}

/// What a summary written again by hand from summary `from` records: that one's number and,
/// under `config`, its settings. Settings a summary's do not describe are recorded as they
/// were stored (their own `config` if they have one, as a summary written again by hand
/// records), never replaced by the defaults the answer was written with.
fn by_hand_parameters(first: &MethodParameters, from: CheckId) -> MethodParameters {
    match first.summary() {
        Some(settings) => MethodParameters::Resummarized(ResummarizedParameters {
            from_summary: from.0,
            config: settings.clone(),
            other: Default::default(),
        }),
        None => {
            let stored = first.to_json();
            let config = stored.get("config").cloned().unwrap_or(stored);
            MethodParameters::from(serde_json::json!({"from_summary": from.0, "config": config}))
        }
    }
}

/// The names of the sources of `summary` that `pick` chooses.
fn summary_names(
    summary: &SourcedSummary,
    pick: impl Fn(usize, &ScoredSource) -> bool,
) -> Vec<String> {
    summary
        .sources
        .iter()
        .enumerate()
        .filter(|(i, source)| pick(*i, source))
        .map(|(i, source)| {
            source.source.title.clone().unwrap_or_else(|| format!("source {}", i + 1))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_not_read_as_a_summarys_are_recorded_as_stored_not_as_defaults() {
        let from = CheckId(7);
        // A body no summary's settings describe is kept whole under "config".
        let odd = serde_json::json!({"tau": "high", "note": "hand-made"});
        let recorded = by_hand_parameters(&MethodParameters::from(odd.clone()), from);
        let expected = serde_json::json!({"from_summary": 7, "config": odd});
        assert_eq!(recorded.to_json(), expected);
        assert!(recorded.summary().is_none(), "{recorded:?}");
        // One written again by hand from such a summary keeps that one's "config".
        let again = by_hand_parameters(&recorded, CheckId(8));
        let expected = serde_json::json!({"from_summary": 8, "config": odd});
        assert_eq!(again.to_json(), expected);
        // No parameters at all stay null.
        let none = by_hand_parameters(&MethodParameters::default(), from);
        assert_eq!(none.to_json(), serde_json::json!({"from_summary": 7, "config": null}));
        // A summary's settings are recorded typed, as they were.
        let tts = TtsConfig::default().parameters();
        let typed = by_hand_parameters(&MethodParameters::Summary(tts.clone()), from);
        let MethodParameters::Resummarized(ref again) = typed else { panic!("{typed:?}") };
        assert_eq!((again.from_summary, &again.config), (7, &tts));
    }
}
