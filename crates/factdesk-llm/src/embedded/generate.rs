//! Generation: the prompt evaluated once for all `n` samples, then each sample's next token
//! drawn by its sampler (greedy, or temperature and top-p with a per-sample seed, after a GBNF
//! grammar when the request carries one) until it ends, meets a stop sequence or reaches
//! `max_tokens`; log-probabilities kept when asked for.

use std::time::Instant;

use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::LlamaToken;

use super::{Shared, backend_error};
use crate::{
    Choice, Completion, CompletionRequest, ConstraintOutcome, FinishReason, LlmError,
    OutputConstraint, TokenLogprob, TokenUsage,
};

/// The most alternatives reported per generated token.
const MAX_TOP_LOGPROBS: usize = 20;

/// One of the `n` samples being generated.
struct Sample {
    sampler: LlamaSampler,
    bytes: Vec<u8>,
    /// Where each generated token's text starts in `bytes`.
    token_starts: Vec<usize>,
    logprobs: Vec<TokenLogprob>,
    generated: u32,
    position: i32,
    /// Which output of the last decoded batch holds this sample's next-token logits.
    logits_index: i32,
    /// The final text, when a stop sequence cut it.
    cut: Option<(String, usize)>,
    finish: Option<FinishReason>,
}

impl Sample {
    fn into_choice(self, with_logprobs: bool) -> Choice {
        let (text, kept_bytes) = match self.cut {
            Some((text, at)) => (text, at),
            None => (String::from_utf8_lossy(&self.bytes).into_owned(), usize::MAX),
        };
        // After a stop sequence, the tokens that gave any of the kept text stay.
        let logprobs = with_logprobs.then(|| {
            self.logprobs
                .into_iter()
                .zip(self.token_starts)
                .take_while(|(_, start)| *start < kept_bytes)
                .map(|(logprob, _)| logprob)
                .collect()
        });
        Choice { text, finish_reason: self.finish.unwrap_or(FinishReason::Length), logprobs }
    }
}

/// A per-sample seed for llama.cpp's 32-bit sampler seed. `u32::MAX` means "random" there.
fn sampler_seed(seed: u64, index: u32) -> u32 {
    let seed = seed.wrapping_add(u64::from(index));
    let folded = (seed ^ (seed >> 32)) as u32;
    if folded == u32::MAX { u32::MAX - 1 } else { folded }
}

fn random_seed() -> u64 {
    use std::hash::BuildHasher;
    std::collections::hash_map::RandomState::new().hash_one(std::time::SystemTime::now())
}

impl Shared {
    pub(super) fn complete(&self, request: &CompletionRequest) -> Result<Completion, LlmError> {
        let params = &request.params;
        let n = params.n.max(1);
        let started = Instant::now();
        let prompt = self.prompt_tokens(&request.messages)?;
        let prompt_len = u32::try_from(prompt.len()).unwrap_or(u32::MAX);
        self.check_fits(prompt_len, params.max_tokens)?;

        let seed = params.seed.unwrap_or_else(random_seed);
        let mut samples = Vec::with_capacity(n as usize);
        for index in 0..n {
            samples.push(Sample {
                sampler: self.sampler(request, seed, index)?,
                bytes: Vec::new(),
                token_starts: Vec::new(),
                logprobs: Vec::new(),
                generated: 0,
                position: prompt_len as i32,
                logits_index: prompt_len as i32 - 1,
                cut: None,
                finish: None,
            });
        }

        let needed =
            prompt_len.saturating_add(n.saturating_mul(params.max_tokens)).saturating_add(1);
        let mut ctx = self.new_context(needed, n, prompt_len.max(n))?;
        let mut batch = LlamaBatch::new(prompt.len().max(n as usize), n as i32);
        self.evaluate_prompt(&mut ctx, &mut batch, &prompt, n)?;
        let prompt_done = Instant::now();

        let vocab = self.model.vocab();
        let stops: Vec<&str> =
            params.stop.iter().map(String::as_str).filter(|stop| !stop.is_empty()).collect();
        let top_logprobs = if params.logprobs {
            params.top_logprobs.map_or(0, usize::from).min(MAX_TOP_LOGPROBS)
        } else {
            0
        };
        let mut completion_tokens: u32 = 0;
        loop {
            let mut next: Vec<(usize, LlamaToken)> = Vec::new();
            for (index, sample) in samples.iter_mut().enumerate() {
                if sample.finish.is_some() {
                    continue;
                }
                if sample.generated >= params.max_tokens {
                    sample.finish = Some(FinishReason::Length);
                    continue;
                }
                let token = sample.sampler.sample(&ctx, sample.logits_index);
                sample.generated += 1;
                completion_tokens += 1;
                if vocab.is_eog(token) {
                    sample.finish = Some(FinishReason::Stop);
                    continue;
                }
                if params.logprobs {
                    let logits = ctx.get_logits_ith(sample.logits_index);
                    sample.logprobs.push(self.token_logprob(logits, token, top_logprobs));
                }
                sample.token_starts.push(sample.bytes.len());
                vocab.token_to_piece_into(token, &mut sample.bytes, false, None);
                if !stops.is_empty() {
                    let text = String::from_utf8_lossy(&sample.bytes);
                    if let Some(at) = stops.iter().filter_map(|stop| text.find(stop)).min() {
                        sample.cut = Some((text[..at].to_owned(), at));
                        sample.finish = Some(FinishReason::Stop);
                        continue;
                    }
                }
                if sample.generated >= params.max_tokens {
                    sample.finish = Some(FinishReason::Length);
                    continue;
                }
                next.push((index, token));
            }
            if next.is_empty() {
                break;
            }
            batch.clear();
            for (slot, (index, token)) in next.into_iter().enumerate() {
                let sample = &mut samples[index];
                batch
                    .add(token, sample.position, &[index as i32], true)
                    .map_err(|error| backend_error("cannot batch a token", error))?;
                sample.position += 1;
                sample.logits_index = slot as i32;
            }
            ctx.decode(&mut batch).map_err(|error| backend_error("decoding failed", error))?;
        }

        let prompt_seconds = prompt_done.duration_since(started).as_secs_f64();
        let generation_seconds = prompt_done.elapsed().as_secs_f64();
        tracing::debug!(
            model = %self.name,
            prompt_tokens = prompt_len,
            completion_tokens,
            samples = n,
            prompt_seconds,
            generation_seconds,
            "embedded completion"
        );
        Ok(Completion {
            choices: samples
                .into_iter()
                .map(|sample| sample.into_choice(params.logprobs))
                .collect(),
            usage: TokenUsage { prompt_tokens: prompt_len, completion_tokens },
            model: self.name.clone(),
            audit_id: None,
            replayed: false,
            constraint: request.constraint.as_ref().map(|_| ConstraintOutcome::Accepted),
        })
    }
    fn sampler(
        &self,
        request: &CompletionRequest,
        seed: u64,
        index: u32,
    ) -> Result<LlamaSampler, LlmError> {
        let mut chain = Vec::new();
        if let Some(OutputConstraint::Grammar(grammar)) = &request.constraint {
            let sampler = LlamaSampler::grammar(&self.model, grammar, "root").map_err(|error| {
                LlmError::Backend(format!(
                    "the GBNF grammar cannot be used ({error}); it must define `root` and parse"
                ))
            })?;
            chain.push(sampler);
        }
        let params = &request.params;
        if params.temperature > 0.0 {
            if params.top_p > 0.0 && params.top_p < 1.0 {
                chain.push(LlamaSampler::top_p(params.top_p, 1));
            }
            chain.push(LlamaSampler::temp(params.temperature));
            chain.push(LlamaSampler::dist(sampler_seed(seed, index)));
        } else {
            chain.push(LlamaSampler::greedy());
        }
        Ok(LlamaSampler::chain_simple(chain))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_differ_per_sample_and_avoid_the_random_marker() {
        assert_ne!(sampler_seed(42, 0), sampler_seed(42, 1));
        assert_eq!(sampler_seed(42, 1), sampler_seed(43, 0));
        assert_ne!(sampler_seed(u64::from(u32::MAX), 0), u32::MAX);
    }
}
