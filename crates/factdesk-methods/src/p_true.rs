//! The P(True) baseline (LLM-Cite, "LLM-Cite: Cheap Fact Verification with Attribution via URL
//! Generation", Table 3): the chat model judges the claim from what it learned, with no
//! evidence and so no attribution. The probability it puts on "True" against "False" (from
//! logits or log-probabilities where the backend has them, else from sampled answers) decides:
//! supported when P(True) ≥ 0.5, else refuted (the model's own belief, not evidence).

use std::sync::Arc;

use factdesk_llm::LanguageModel;
use factdesk_llm::prompts::PromptLibrary;
use factdesk_model::parameters::{MethodParameters, PTrueParameters};
use factdesk_model::{ClaimCheck, Envelope, TokenUse, Verdict};

use crate::MethodError;
use crate::llm_cite::model_name;

pub const TEMPLATE: &str = "p_true/true_false";
pub const METHOD: &str = "p-true";

pub struct PTrue {
    pub model: Arc<dyn LanguageModel>,
    pub prompts: Arc<PromptLibrary>,
    /// Samples when the backend gives no probabilities.
    pub samples: u32,
    pub seed: u64,
}

impl std::fmt::Debug for PTrue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PTrue").field("samples", &self.samples).finish_non_exhaustive()
    }
}

impl PTrue {
    pub async fn check(&self, claim: &str) -> Result<ClaimCheck, MethodError> {
        let claim = claim.trim();
        let mut request =
            self.prompts.render_request(TEMPLATE, &serde_json::json!({"claim": claim}))?;
        request.params.seed = Some(self.seed);
        let answer =
            self.model.answer_probabilities(&request, &["true", "false"], self.samples).await?;
        let (yes, no) = (answer.get("true"), answer.get("false"));
        let p_true = if yes + no > 0.0 { yes / (yes + no) } else { 0.5 };
        // The model's own belief, without evidence: "false" is its verdict that the claim is.
        let verdict = if p_true >= 0.5 { Verdict::Supported } else { Verdict::Refuted };
        Ok(ClaimCheck {
            envelope: Envelope {
                method: METHOD.into(),
                parameters: MethodParameters::PTrue(PTrueParameters {
                    p_true,
                    samples: self.samples,
                    seed: self.seed,
                    other: Default::default(),
                }),
                model: model_name(&*self.model),
                nli_model: None,
                tokens: {
                    let mut tokens = TokenUse::default();
                    tokens.add(
                        TokenUse::JUDGE,
                        u64::from(answer.usage.prompt_tokens),
                        u64::from(answer.usage.completion_tokens),
                    );
                    tokens
                },
                explanation: format!(
                    "The model, without evidence, puts P(True) = {p_true:.2} on the claim."
                ),
            },
            claim: claim.to_owned(),
            verdict,
            undecided: None,
            confidence: Some(p_true.max(1.0 - p_true)),
            attributions: Vec::new(),
            sources: Vec::new(),
            premises: Vec::new(),
            left_out: Vec::new(),
            detail: None,
        })
    }
}
