//! Natural language inference: does a premise entail, contradict, or say nothing about a
//! hypothesis? The [`Nli`] trait has two backends: [`LlmNli`], which asks a chat model the
//! "premise + claim → True or False?" question and reads its answer probabilities, and the
//! cross-encoder classifier in [`crate::cross_encoder`].

use std::sync::Arc;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::prompts::PromptLibrary;
use crate::{LanguageModel, LlmError, TokenUsage};

/// The three NLI probabilities; they sum to 1.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct NliScores {
    pub entailment: f64,
    pub neutral: f64,
    pub contradiction: f64,
}

impl NliScores {
    /// Scores from unnormalised non-negative weights (all zero gives all neutral).
    pub fn normalised(entailment: f64, neutral: f64, contradiction: f64) -> NliScores {
        let total = entailment + neutral + contradiction;
        if total <= 0.0 || !total.is_finite() {
            return NliScores { entailment: 0.0, neutral: 1.0, contradiction: 0.0 };
        }
        NliScores {
            entailment: entailment / total,
            neutral: neutral / total,
            contradiction: contradiction / total,
        }
    }
}

/// One premise / hypothesis pair.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NliPair {
    pub premise: String,
    pub hypothesis: String,
}

/// An NLI judgement with what it cost.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NliJudgement {
    pub scores: NliScores,
    pub usage: TokenUsage,
}

/// A natural language inference model. Batches are answered in order.
#[async_trait]
pub trait Nli: Send + Sync {
    /// A short name for reports (`llm:<model>` or `cross-encoder:<path>`).
    fn name(&self) -> String;

    /// Whether the model judges text in `language` (an ISO 639-1 code such as `de`, or `und`
    /// for a language no one recognised). A chat model is asked in any language and says yes
    /// to every code, `und` included (methods then detect no language for it); a model that
    /// reads one language says so, and a method declines a claim in another rather than let
    /// it guess.
    fn reads(&self, language: &str) -> bool {
        let _ = language;
        true
    }

    async fn classify(&self, pairs: &[NliPair]) -> Result<Vec<NliJudgement>, LlmError>;

    /// Classifies `pairs` whose premises were cut from `sources`, the whole texts the evidence
    /// came from (a document, a fetched page). A judge that weighs what the premises leave out
    /// reads them: a figure the premises miss but the source states elsewhere is no sign of
    /// an invented one. By default the sources are not read.
    async fn classify_from(
        &self,
        pairs: &[NliPair],
        sources: &[&str],
    ) -> Result<Vec<NliJudgement>, LlmError> {
        let _ = sources;
        self.classify(pairs).await
    }
}

/// NLI by asking a chat model whether the claim is true given the document, in the
/// "document + claim → True or False?" form. The model can only say true or false, so the
/// probability mass it puts on "true" is entailment and on "false" contradiction; neutral is
/// always 0 for this backend.
pub struct LlmNli {
    model: Arc<dyn LanguageModel>,
    prompts: Arc<PromptLibrary>,
    /// Samples used when the backend gives no log-probabilities.
    pub samples: u32,
    /// The name of the language a text is in when it is not English ("German"), for the
    /// prompt to say so; none names no language.
    language_of: Option<fn(&str) -> Option<&'static str>>,
}

impl std::fmt::Debug for LlmNli {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmNli").field("model", &self.model.info()).finish_non_exhaustive()
    }
}

/// The template LLM-instructed NLI renders.
pub const LLM_NLI_TEMPLATE: &str = "nli/true_false";

/// The marker that quotes a document in a prompt: 24 hex digits of a hash of the document and
/// claim. The same pair always gets the same marker (so calls replay from the record), and a
/// document cannot contain the marker that will quote it without containing its own hash.
pub fn boundary(document: &str, claim: &str) -> String {
    let mut hasher = blake3::Hasher::new();
    hasher.update(b"factdesk quote\0");
    hasher.update(claim.as_bytes());
    hasher.update(b"\0");
    hasher.update(document.as_bytes());
    let hex = hasher.finalize().to_hex();
    format!("DATA-{}", &hex[..24])
}

impl LlmNli {
    pub fn new(model: Arc<dyn LanguageModel>, prompts: Arc<PromptLibrary>) -> LlmNli {
        LlmNli { model, prompts, samples: 10, language_of: None }
    }

    /// Tells the model which language the claim and the document are in when either is not
    /// English, as `language_of` names them.
    pub fn naming_languages(mut self, language_of: fn(&str) -> Option<&'static str>) -> LlmNli {
        self.language_of = Some(language_of);
        self
    }

    /// "The claim is in German; the document is in French.", naming only what was found (the
    /// document read as far as the prompt quotes it); nothing when neither reads as another
    /// language than English (or no languages are named).
    fn languages(&self, pair: &NliPair) -> String {
        let Some(language_of) = self.language_of else { return String::new() };
        let quoted: String = pair.premise.chars().take(4000).collect();
        let found = [("claim", language_of(&pair.hypothesis)), ("document", language_of(&quoted))];
        let said: Vec<String> = found
            .iter()
            .filter_map(|(what, language)| language.map(|name| format!("the {what} is in {name}")))
            .collect();
        match said.join("; ") {
            text if text.is_empty() => text,
            text => {
                let mut chars = text.chars();
                let first = chars.next().map(|c| c.to_uppercase().collect::<String>());
                format!("{}{}.", first.unwrap_or_default(), chars.as_str())
            }
        }
    }
}

#[async_trait]
impl Nli for LlmNli {
    fn name(&self) -> String {
        format!("llm:{}", self.model.info().model)
    }

    async fn classify(&self, pairs: &[NliPair]) -> Result<Vec<NliJudgement>, LlmError> {
        let mut judgements = Vec::with_capacity(pairs.len());
        for pair in pairs {
            let request = self.prompts.render_request(
                LLM_NLI_TEMPLATE,
                &serde_json::json!({
                    "document": pair.premise,
                    "claim": pair.hypothesis,
                    "boundary": boundary(&pair.premise, &pair.hypothesis),
                    "languages": self.languages(pair),
                }),
            )?;
            let answer =
                self.model.answer_probabilities(&request, &["true", "false"], self.samples).await?;
            judgements.push(NliJudgement {
                scores: NliScores::normalised(answer.get("true"), 0.0, answer.get("false")),
                usage: answer.usage,
            });
        }
        Ok(judgements)
    }
}
