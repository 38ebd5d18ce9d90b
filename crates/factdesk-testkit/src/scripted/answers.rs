//! HTTP answers the scripted server gives besides a script's text: a strict server's refusal
//! of a field, llama.cpp's answer to a prompt longer than its context, an answer cut at the
//! token limit or given by another model than the one asked for, and answers that follow a
//! known distribution (for methods that read a model's probabilities, as CIBER does).

use super::Asked;
use crate::TestResponse;

/// The 400 a strict server gives for a field it does not take.
pub fn refusal(field: &str) -> TestResponse {
    let body = serde_json::json!({
        "error": {
            "message": format!("unknown field `{field}`: this server takes no such argument"),
            "type": "invalid_request_error",
            "param": field,
        }
    });
    TestResponse::json(400, &body.to_string())
}

/// The body llama.cpp's server answers (with status 400) to a prompt of `prompt_tokens` that
/// does not fit its context of `context_tokens`.
pub fn context_exceeded(prompt_tokens: u32, context_tokens: u32) -> TestResponse {
    let body = serde_json::json!({
        "error": {
            "code": 400,
            "message": "the request exceeds the available context size, try increasing it",
            "type": "exceed_context_size_error",
            "n_prompt_tokens": prompt_tokens,
            "n_ctx": context_tokens,
        }
    });
    TestResponse::json(400, &body.to_string())
}

/// A chat-completions answer of one choice, `text`, as `model` names itself, ended for
/// `finish_reason` ("stop", or "length" for an answer cut at the request's `max_tokens`).
pub fn completion(text: &str, finish_reason: &str, model: &str) -> TestResponse {
    let tokens = text.split_whitespace().count();
    let body = serde_json::json!({
        "id": "test",
        "object": "chat.completion",
        "model": model,
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": text},
            "finish_reason": finish_reason,
        }],
        "usage": {"prompt_tokens": 20, "completion_tokens": tokens, "total_tokens": 20 + tokens},
    });
    TestResponse::json(200, &body.to_string())
}

/// `text` as an answer cut at the request's `max_tokens` (finish reason "length"), as a
/// server stops a model that has not finished: mid-sentence, or mid-JSON.
pub fn cut(text: &str) -> TestResponse {
    completion(text, "length", "mock")
}

/// How a request asks to be answered from a distribution.
#[derive(Debug, Clone, Copy)]
pub struct Draw {
    /// Log-probabilities asked for (and given by the server).
    pub logprobs: bool,
    /// The request's sampling seed (0 without one).
    pub seed: u64,
    /// Choices asked for.
    pub n: usize,
}

/// The answer to `asked` from `distribution` (answers with their probabilities). With
/// log-probabilities: one choice, the likeliest answer's first word, whose first token carries
/// every answer's first word with the log of its probability (answers of probability 0 left
/// out), as llama.cpp's and OpenAI's servers give them. Without: `n` answers drawn by their
/// probabilities, the same ones for the same seed and prompt (splitmix64 over both).
pub fn from_distribution(
    distribution: &[(String, f64)],
    asked: &Asked,
    draw: Draw,
) -> TestResponse {
    let first_word = |text: &str| text.split_whitespace().next().unwrap_or_default().to_owned();
    let choices: Vec<serde_json::Value> = if draw.logprobs {
        let top: Vec<serde_json::Value> = distribution
            .iter()
            .filter(|(_, p)| *p > 0.0)
            .map(|(text, p)| serde_json::json!({"token": first_word(text), "logprob": p.ln()}))
            .collect();
        let (likeliest, probability) = distribution
            .iter()
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map_or((String::new(), 1.0), |(text, p)| (first_word(text), *p));
        let logprob = probability.ln();
        vec![serde_json::json!({
            "index": 0,
            "message": {"role": "assistant", "content": likeliest},
            "finish_reason": "stop",
            "logprobs": {"content": [{"token": likeliest, "logprob": logprob, "top_logprobs": top}]},
        })]
    } else {
        let mut state = draw.seed ^ fnv1a(&asked.prompt);
        (0..draw.n.max(1))
            .map(|index| {
                let at = unit(&mut state);
                let mut sum = 0.0;
                let text = distribution
                    .iter()
                    .find(|(_, p)| {
                        sum += p;
                        at < sum
                    })
                    .or(distribution.last())
                    .map(|(text, _)| text.clone())
                    .unwrap_or_default();
                serde_json::json!({
                    "index": index,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                })
            })
            .collect()
    };
    let completion_tokens = choices.len();
    let body = serde_json::json!({
        "id": "test",
        "object": "chat.completion",
        "model": "mock",
        "choices": choices,
        "usage": {"prompt_tokens": 20, "completion_tokens": completion_tokens,
                  "total_tokens": 20 + completion_tokens},
    });
    TestResponse::json(200, &body.to_string())
}

fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The next number in [0, 1) from `state` (splitmix64).
fn unit(state: &mut u64) -> f64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64
}
