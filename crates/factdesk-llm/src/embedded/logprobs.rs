//! Probabilities from logits: the log-probability of each generated token and its most likely
//! alternatives, and the probabilities of short answers read from the next-token distribution
//! (every vocabulary token whose first word starts an answer).

use std::collections::BTreeMap;

use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::token::LlamaToken;

use super::Shared;
use crate::chat::normalise_answer;
use crate::{AnswerProbabilities, ChatMessage, LlmError, TokenLogprob, TokenUsage};

/// The first word of a token or answer as
/// [`chat::leading_answer`](crate::chat::leading_answer) reads it: leading non-alphanumerics
/// skipped, lower-case.
fn first_word(text: &str) -> String {
    text.chars()
        .skip_while(|c| !c.is_alphanumeric())
        .take_while(|c| c.is_alphanumeric())
        .collect::<String>()
        .to_lowercase()
}

/// `ln Σ exp(logit)` over the vocabulary.
fn log_sum_exp(logits: &[f32]) -> f64 {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    if !max.is_finite() {
        return f64::from(max);
    }
    let sum: f64 = logits.iter().map(|&logit| f64::from(logit - max).exp()).sum();
    sum.ln() + f64::from(max)
}

impl Shared {
    /// `None` when no vocabulary token starts any of the answers.
    pub(super) fn answer_probabilities(
        &self,
        messages: &[ChatMessage],
        answers: &[String],
    ) -> Result<Option<AnswerProbabilities>, LlmError> {
        let prompt = self.prompt_tokens(messages)?;
        let prompt_len = u32::try_from(prompt.len()).unwrap_or(u32::MAX);
        self.check_fits(prompt_len, 1)?;
        let mut ctx = self.new_context(prompt_len + 1, 1, prompt_len)?;
        let mut batch = LlamaBatch::new(prompt.len(), 1);
        self.evaluate_prompt(&mut ctx, &mut batch, &prompt, 1)?;
        let logits = ctx.get_logits_ith(prompt_len as i32 - 1);
        let words = self.token_words();
        let keys: Vec<String> =
            answers.iter().map(|answer| first_word(&normalise_answer(answer))).collect();
        let log_total = log_sum_exp(logits);
        let mut mass = vec![0.0_f64; answers.len()];
        let mut matching = Vec::with_capacity(answers.len());
        for (word, &logit) in words.iter().zip(logits) {
            if word.is_empty() {
                continue;
            }
            matching.clear();
            matching
                .extend(keys.iter().enumerate().filter(|(_, key)| *key == word).map(|(i, _)| i));
            if matching.is_empty() {
                continue;
            }
            let probability = (f64::from(logit) - log_total).exp();
            let share = probability / matching.len() as f64;
            for &i in &matching {
                mass[i] += share;
            }
        }
        let total: f64 = mass.iter().sum();
        if !(total > 0.0 && total.is_finite()) {
            return Ok(None);
        }
        let mut probabilities = BTreeMap::new();
        for (answer, value) in answers.iter().zip(mass) {
            *probabilities.entry(answer.clone()).or_insert(0.0) += value / total;
        }
        Ok(Some(AnswerProbabilities {
            probabilities,
            method: "logits".into(),
            usage: TokenUsage { prompt_tokens: prompt_len, completion_tokens: 0 },
        }))
    }
    /// The log-probability of `chosen` and of the `top` most likely tokens under the softmax of
    /// the raw logits.
    pub(super) fn token_logprob(
        &self,
        logits: &[f32],
        chosen: LlamaToken,
        top: usize,
    ) -> TokenLogprob {
        let log_total = log_sum_exp(logits);
        let logprob = |logit: f32| (f64::from(logit) - log_total) as f32;
        let chosen_logit = usize::try_from(chosen.0)
            .ok()
            .and_then(|i| logits.get(i))
            .copied()
            .unwrap_or(f32::NEG_INFINITY);
        let mut alternatives = Vec::new();
        let top = top.min(logits.len());
        if top > 0 {
            let mut order: Vec<usize> = (0..logits.len()).collect();
            order.select_nth_unstable_by(top - 1, |&a, &b| logits[b].total_cmp(&logits[a]));
            order.truncate(top);
            order.sort_by(|&a, &b| logits[b].total_cmp(&logits[a]));
            alternatives = order
                .into_iter()
                .map(|i| (self.display_piece(LlamaToken(i as i32)), logprob(logits[i])))
                .collect();
        }
        TokenLogprob {
            token: self.display_piece(chosen),
            logprob: logprob(chosen_logit),
            top: alternatives,
        }
    }

    /// A token's text with special tokens spelled out.
    fn display_piece(&self, token: LlamaToken) -> String {
        String::from_utf8_lossy(&self.model.vocab().token_to_piece(token, true, None)).into_owned()
    }

    fn token_words(&self) -> &[String] {
        self.token_words.get_or_init(|| {
            let vocab = self.model.vocab();
            let mut piece = Vec::new();
            vocab
                .tokens()
                .map(|token| {
                    piece.clear();
                    vocab.token_to_piece_into(token, &mut piece, false, None);
                    first_word(&String::from_utf8_lossy(&piece))
                })
                .collect()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_words_ignore_case_space_and_punctuation() {
        assert_eq!(first_word(" Yes"), "yes");
        assert_eq!(first_word("YES,"), "yes");
        assert_eq!(first_word("**no"), "no");
        assert_eq!(first_word("Yesterday"), "yesterday");
        assert_eq!(first_word("<|im_end|>"), "im");
        assert_eq!(first_word(" "), "");
    }

    #[test]
    fn log_sum_exp_is_stable() {
        let value = log_sum_exp(&[1000.0, 1000.0]);
        assert!((value - (1000.0 + 2f64.ln())).abs() < 1e-9);
    }
}
