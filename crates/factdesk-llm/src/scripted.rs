//! A scripted model for tests: answers come from a queue or a function of the request, and
//! every request is recorded so a test can assert what was asked.

use std::collections::VecDeque;
use std::sync::Mutex;

use async_trait::async_trait;

use crate::{
    Choice, Completion, CompletionRequest, FinishReason, LanguageModel, LlmError, ModelInfo,
    TokenUsage,
};

type Responder = dyn Fn(&CompletionRequest) -> Result<Vec<String>, LlmError> + Send + Sync;

/// A fake [`LanguageModel`]. Token counts are whitespace word counts.
pub struct ScriptedModel {
    responder: Box<Responder>,
    queue: Mutex<VecDeque<Result<Vec<String>, LlmError>>>,
    requests: Mutex<Vec<CompletionRequest>>,
}

impl std::fmt::Debug for ScriptedModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScriptedModel").finish_non_exhaustive()
    }
}

impl ScriptedModel {
    /// Answers every request with `respond(request)` (one text per requested completion is
    /// expected; fewer are repeated to fill `n`).
    pub fn new(
        respond: impl Fn(&CompletionRequest) -> Result<Vec<String>, LlmError> + Send + Sync + 'static,
    ) -> ScriptedModel {
        ScriptedModel {
            responder: Box::new(respond),
            queue: Mutex::new(VecDeque::new()),
            requests: Mutex::new(Vec::new()),
        }
    }

    /// Answers requests in order from `answers`, then with an error.
    pub fn from_queue(
        answers: impl IntoIterator<Item = Result<Vec<String>, LlmError>>,
    ) -> ScriptedModel {
        let model =
            ScriptedModel::new(|_| Err(LlmError::Backend("the scripted queue is empty".into())));
        if let Ok(mut queue) = model.queue.lock() {
            queue.extend(answers);
        }
        model
    }

    /// Always answers `text`.
    pub fn constant(text: &str) -> ScriptedModel {
        let text = text.to_owned();
        ScriptedModel::new(move |_| Ok(vec![text.clone()]))
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<CompletionRequest> {
        self.requests.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

fn words(text: &str) -> u32 {
    text.split_whitespace().count() as u32
}

#[async_trait]
impl LanguageModel for ScriptedModel {
    fn info(&self) -> ModelInfo {
        ModelInfo {
            provider: "scripted".into(),
            model: "scripted".into(),
            location: "memory".into(),
        }
    }

    async fn complete(&self, request: &CompletionRequest) -> Result<Completion, LlmError> {
        if let Ok(mut requests) = self.requests.lock() {
            requests.push(request.clone());
        }
        let queued = self.queue.lock().ok().and_then(|mut queue| queue.pop_front());
        let texts = match queued {
            Some(answer) => answer?,
            None => (self.responder)(request)?,
        };
        if texts.is_empty() {
            return Err(LlmError::EmptyChoices { endpoint: "scripted".into() });
        }
        let wanted = request.params.n.max(1) as usize;
        let choices: Vec<Choice> = texts
            .iter()
            .cycle()
            .take(wanted)
            .map(|text| Choice {
                text: text.clone(),
                finish_reason: FinishReason::Stop,
                logprobs: None,
            })
            .collect();
        let prompt_tokens = request.messages.iter().map(|m| words(&m.content)).sum();
        let completion_tokens = choices.iter().map(|c| words(&c.text)).sum();
        Ok(Completion {
            choices,
            usage: TokenUsage { prompt_tokens, completion_tokens },
            model: "scripted".into(),
            audit_id: None,
            replayed: false,
            constraint: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ChatMessage;

    #[tokio::test]
    async fn records_requests_and_answers_from_the_queue() {
        let model = ScriptedModel::from_queue([
            Ok(vec!["first".to_string()]),
            Err(LlmError::Backend("boom".into())),
        ]);
        let request = CompletionRequest::new(vec![ChatMessage::user("hello there")]);
        assert_eq!(model.complete(&request).await.unwrap().text(), "first");
        assert!(model.complete(&request).await.is_err());
        assert_eq!(model.requests().len(), 2);
        assert_eq!(model.requests()[0].messages[0].content, "hello there");
    }

    #[tokio::test]
    async fn sampled_answers_give_probabilities_without_logprobs() {
        let model = ScriptedModel::new(|request| {
            Ok(if request.params.n > 1 {
                vec!["Yes".into(), "No".into(), "Yes.".into(), "yes".into()]
            } else {
                vec!["Yes".into()]
            })
        });
        let request = CompletionRequest::new(vec![ChatMessage::user("Is it?")]);
        let probabilities = model.answer_probabilities(&request, &["yes", "no"], 4).await.unwrap();
        assert_eq!(probabilities.method, "samples");
        assert!((probabilities.get("yes") - 0.75).abs() < 1e-9);
        assert!((probabilities.get("no") - 0.25).abs() < 1e-9);
    }
}
