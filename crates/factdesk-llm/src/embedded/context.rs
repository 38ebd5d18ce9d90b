//! llama.cpp contexts: whether a prompt and its answer fit in the context window, a context
//! made for some sequences, and a prompt evaluated once for all of them.

use std::num::NonZeroU32;
use std::sync::PoisonError;

use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::token::LlamaToken;

use super::{Shared, backend, backend_error};
use crate::LlmError;

impl Shared {
    /// Prompt plus `max_tokens` must fit in the context. The error's `context_tokens` is the
    /// room left for the prompt once `max_tokens` is reserved.
    pub(super) fn check_fits(&self, prompt_tokens: u32, max_tokens: u32) -> Result<(), LlmError> {
        if u64::from(prompt_tokens) + u64::from(max_tokens) > u64::from(self.context_tokens) {
            return Err(LlmError::ContextOverflow {
                prompt_tokens,
                context_tokens: self.context_tokens.saturating_sub(max_tokens),
            });
        }
        Ok(())
    }

    /// A context holding `tokens` cells shared by `sequences` sequences (one unified cache, so
    /// a prompt evaluated once serves every sequence), decoding up to `batch` tokens at a time.
    pub(super) fn new_context(
        &self,
        tokens: u32,
        sequences: u32,
        batch: u32,
    ) -> Result<LlamaContext<'_>, LlmError> {
        let params = LlamaContextParams::default()
            .with_n_ctx(NonZeroU32::new(tokens.max(1)))
            .with_n_batch(batch.max(1))
            .with_n_seq_max(sequences.max(1))
            .with_kv_unified(true)
            .with_n_threads(self.threads)
            .with_n_threads_batch(self.threads);
        let _creating = self.context_creation.lock().unwrap_or_else(PoisonError::into_inner);
        self.model.new_context(backend(), params).map_err(|error| {
            backend_error(&format!("cannot create a context of {tokens} tokens"), error)
        })
    }

    /// Decodes `prompt` once for sequences `0..sequences`; the logits of its last token are at
    /// output `prompt.len() - 1`.
    pub(super) fn evaluate_prompt(
        &self,
        ctx: &mut LlamaContext<'_>,
        batch: &mut LlamaBatch<'_>,
        prompt: &[LlamaToken],
        sequences: u32,
    ) -> Result<(), LlmError> {
        let sequence_ids: Vec<i32> = (0..sequences as i32).collect();
        batch.clear();
        for (position, &token) in prompt.iter().enumerate() {
            batch
                .add(token, position as i32, &sequence_ids, position + 1 == prompt.len())
                .map_err(|error| backend_error("cannot batch the prompt", error))?;
        }
        ctx.decode(batch).map_err(|error| backend_error("evaluating the prompt failed", error))
    }
}
