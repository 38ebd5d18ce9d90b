//! Raw llama.cpp speed, measured the way `llama-bench` does ([`EmbeddedModel::measure_speed`]):
//! tokens per second of prompt processing and of generation.

use std::time::Instant;

use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::token::LlamaToken;

use super::{EmbeddedModel, Shared, backend_error};
use crate::LlmError;

/// Tokens per second of prompt processing and generation, as measured by
/// [`EmbeddedModel::measure_speed`]: one figure per repetition.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SpeedFigures {
    pub threads: i32,
    pub prompt_tokens: u32,
    pub decode_tokens: u32,
    pub prompt_tokens_per_second: Vec<f64>,
    pub decode_tokens_per_second: Vec<f64>,
}

impl EmbeddedModel {
    /// Measures raw llama.cpp speed the way `llama-bench` does: one batch of `prompt_tokens`
    /// tokens evaluated at once (prompt processing), then `decode_tokens` tokens decoded one at
    /// a time (generation), each `repetitions` times in a fresh context. No sampling, chat
    /// template or stop handling is timed; the token ids come from tokenising a fixed text.
    pub async fn measure_speed(
        &self,
        prompt_tokens: u32,
        decode_tokens: u32,
        repetitions: u32,
    ) -> Result<SpeedFigures, LlmError> {
        self.check_speed_request(prompt_tokens, decode_tokens)?;
        self.run(move |shared| shared.measure_speed(prompt_tokens, decode_tokens, repetitions))
            .await
    }

    fn check_speed_request(&self, prompt_tokens: u32, decode_tokens: u32) -> Result<(), LlmError> {
        if prompt_tokens == 0 || decode_tokens == 0 {
            return Err(LlmError::Backend("a speed test needs at least one token of each".into()));
        }
        self.shared.check_fits(prompt_tokens, decode_tokens)
    }
}

impl Shared {
    fn measure_speed(
        &self,
        prompt_tokens: u32,
        decode_tokens: u32,
        repetitions: u32,
    ) -> Result<SpeedFigures, LlmError> {
        let vocab = self.model.vocab();
        let seed_text = "The quick brown fox jumps over the lazy dog while the committee reviews \
                         every claim, source and figure in the report before it is published.";
        let pattern = vocab.tokenize(seed_text.as_bytes(), false, false);
        if pattern.is_empty() {
            return Err(LlmError::Backend("the model tokenises no text".into()));
        }
        let tokens: Vec<LlamaToken> =
            pattern.iter().copied().cycle().take(prompt_tokens as usize).collect();
        let mut figures = SpeedFigures {
            threads: self.threads,
            prompt_tokens,
            decode_tokens,
            prompt_tokens_per_second: Vec::new(),
            decode_tokens_per_second: Vec::new(),
        };
        for _ in 0..repetitions.max(1) {
            // Prompt processing: the whole prompt in one batch, as a fresh context sees it.
            let mut ctx = self.new_context(prompt_tokens + decode_tokens + 1, 1, prompt_tokens)?;
            let mut batch = LlamaBatch::new(prompt_tokens as usize, 1);
            let started = Instant::now();
            self.evaluate_prompt(&mut ctx, &mut batch, &tokens, 1)?;
            figures
                .prompt_tokens_per_second
                .push(f64::from(prompt_tokens) / started.elapsed().as_secs_f64());
            drop(ctx);

            // Generation: one token per decode call, each attending to all before it.
            let mut ctx = self.new_context(decode_tokens + 1, 1, 1)?;
            let mut batch = LlamaBatch::new(1, 1);
            let started = Instant::now();
            for position in 0..decode_tokens {
                batch.clear();
                let token = pattern[position as usize % pattern.len()];
                batch
                    .add(token, position as i32, &[0], true)
                    .map_err(|error| backend_error("cannot batch a token", error))?;
                ctx.decode(&mut batch).map_err(|error| backend_error("decoding failed", error))?;
            }
            figures
                .decode_tokens_per_second
                .push(f64::from(decode_tokens) / started.elapsed().as_secs_f64());
        }
        Ok(figures)
    }
}
