//! The models that label what a person left out: the NLI verifier for faithfulness against
//! the cited documents, the chat model for every criterion and Comp's pool (its calls under a
//! run of their own).

use factdesk_llm::prompts::PromptLibrary;
use factdesk_methods::grounding::GroundingConfig;
use factdesk_methods::sgss::label::{ChatLabeller, Labelled};
use factdesk_methods::sgss::{self, Labels, StructuredSummary};
use factdesk_model::{RunId, RunStatus};

use super::Labeller;
use crate::identity::{RunIdentity, RunModels};
use crate::verify::{NLI_VERIFIER, method_error, verifier_folder};
use crate::{CoreError, Factdesk, Result};

/// The models that label what people left out, ready for one scoring (see [`Labeller`]).
pub(crate) struct ModelLabellers {
    nli: Option<std::sync::Arc<dyn factdesk_llm::Nli>>,
    /// The chat model with the run its calls are recorded under.
    chat: Option<(RunId, std::sync::Arc<dyn factdesk_llm::LanguageModel>, PromptLibrary)>,
    question: String,
    config: GroundingConfig,
    samples: u32,
}

impl Factdesk {
    /// Loads the models `labellers` ask for; the chat model's calls go under a new run of kind
    /// `score` over `inputs` (the files scored). The verifier needs `documents`, the chat
    /// model `question`.
    pub(crate) fn model_labellers(
        &self,
        labellers: &[Labeller],
        documents: &[String],
        question: &str,
        inputs: serde_json::Value,
    ) -> Result<ModelLabellers> {
        let use_verifier = labellers.contains(&Labeller::Verifier);
        let use_chat = labellers.contains(&Labeller::Chat);
        if use_verifier && documents.is_empty() {
            return Err(CoreError::InvalidInput(
                "the verifier labels faithfulness against the documents a summary cites: name \
                 them with --documents, in citation order"
                    .into(),
            ));
        }
        if use_chat && question.trim().is_empty() {
            return Err(CoreError::InvalidInput(
                "the chat model labels a summary against the question it answers: give the \
                 question with --question"
                    .into(),
            ));
        }
        let nli = if use_verifier {
            Some(self.cross_encoder(&verifier_folder(), Some(NLI_VERIFIER))?)
        } else {
            None
        };
        let chat = if use_chat {
            let models = RunModels { chat: Some(self.model_choice().model_name()), nli: None };
            let config = serde_json::json!({"template": sgss::label::LABEL_TEMPLATE});
            let identity = RunIdentity::new("score", &config, models)?.over(&inputs)?;
            let run = self.create_run(&identity, None)?;
            self.store()?.set_run_status(run, RunStatus::Running, None)?;
            let loaded = self
                .language_model(Some(run), None)
                .and_then(|model| Ok((model, factdesk_methods::prompts::builtin_library()?)));
            match loaded {
                Ok((model, prompts)) => Some((run, model, prompts)),
                Err(error) => {
                    let message = error.to_string();
                    self.store()?.set_run_status(run, RunStatus::Failed, Some(&message))?;
                    return Err(error);
                }
            }
        } else {
            None
        };
        Ok(ModelLabellers {
            nli,
            chat,
            question: question.trim().to_owned(),
            config: GroundingConfig {
                language: self.settings().import.language.clone(),
                ..GroundingConfig::default()
            },
            samples: self.settings().verify.nli_samples.max(1),
        })
    }
}

impl ModelLabellers {
    /// Labels what `labels` leaves out of summary `n` of `summaries` (the verifier first, then
    /// the chat model); with `pool`, the chat model also gives its Comp pool row.
    pub(crate) async fn label(
        &self,
        n: usize,
        summaries: &[StructuredSummary],
        labels: &mut Labels,
        documents: &[String],
        pool: bool,
    ) -> Result<(Labelled, Option<Vec<f64>>)> {
        let summary = &summaries[n];
        let mut got = Labelled::default();
        let mut merge = |more: Labelled| {
            got.labels.extend(more.labels);
            got.unanswered.extend(more.unanswered);
            got.tokens.merge(&more.tokens);
        };
        if let Some(nli) = &self.nli {
            merge(
                sgss::label::faithfulness_by_verifier(
                    nli.as_ref(),
                    summary,
                    labels,
                    documents,
                    &self.config,
                )
                .await
                .map_err(method_error)?,
            );
        }
        let mut row = None;
        if let Some((_, model, prompts)) = &self.chat {
            let labeller = ChatLabeller {
                model: model.as_ref(),
                prompts,
                question: &self.question,
                samples: self.samples,
            };
            let cited = (!documents.is_empty()).then_some(documents);
            merge(labeller.label(summary, labels, cited).await.map_err(method_error)?);
            if pool && summaries.len() >= 2 {
                let (pooled, more) = labeller.pool(n, summaries).await.map_err(method_error)?;
                row = Some(pooled);
                merge(more);
            }
        }
        Ok((got, row))
    }

    /// Closes the chat model's run: completed, or failed with `error`.
    pub(crate) fn finish(&self, app: &Factdesk, error: Option<&CoreError>) -> Result<()> {
        if let Some((run, ..)) = &self.chat {
            let (status, message) = match error {
                None => (RunStatus::Completed, None),
                Some(error) => (RunStatus::Failed, Some(error.to_string())),
            };
            app.store()?.set_run_status(*run, status, message.as_deref())?;
        }
        Ok(())
    }
}
