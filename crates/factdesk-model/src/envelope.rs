//! What every outcome carries, whatever its kind: the [`Envelope`] (the method, its
//! parameters, the models it asked, an explanation for people) and the tokens it spent by
//! purpose ([`TokenUse`]). Its own module so that a check ([`crate::check`]) and the outcomes
//! around it ([`crate::outcome`]) both build on it without depending on each other.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::parameters::MethodParameters;

/// What every outcome carries, whatever its kind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Envelope {
    /// `llm-cite`, `p-true`, `corpus-nli`, …
    pub method: String,
    /// The settings the method ran with, typed by the method's shape (stored as the JSON
    /// object each method has always written).
    pub parameters: MethodParameters,
    /// The chat model (provider:model).
    pub model: String,
    /// The NLI model, when one judged premises.
    pub nli_model: Option<String>,
    /// Tokens spent, by purpose.
    pub tokens: TokenUse,
    /// A sentence or two for people on how the outcome was reached.
    pub explanation: String,
}

/// Tokens one purpose of a method cost: read (the prompt) and written (the completion).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct TokenCount {
    pub prompt: u64,
    pub completion: u64,
}

impl TokenCount {
    pub fn total(&self) -> u64 {
        self.prompt + self.completion
    }
}

/// Tokens a method cost, by purpose: `url` (LLM-Cite asking for URLs), `judge` (a chat model
/// judging premises or a claim), and whatever purposes a method names for its own model
/// calls. A purpose that cost nothing is absent.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(transparent)]
pub struct TokenUse(pub BTreeMap<String, TokenCount>);

impl TokenUse {
    /// Asking the chat model for URLs (LLM-Cite).
    pub const URLS: &'static str = "url";
    /// A chat model judging premises, or a claim without evidence.
    pub const JUDGE: &'static str = "judge";

    /// Adds what one call for `purpose` cost.
    pub fn add(&mut self, purpose: &str, prompt: u64, completion: u64) {
        if prompt + completion == 0 {
            return;
        }
        let count = self.0.entry(purpose.to_owned()).or_default();
        count.prompt += prompt;
        count.completion += completion;
    }

    /// Adds every purpose of `other`.
    pub fn merge(&mut self, other: &TokenUse) {
        for (purpose, count) in &other.0 {
            self.add(purpose, count.prompt, count.completion);
        }
    }

    /// What `purpose` cost (zero when it is absent).
    pub fn of(&self, purpose: &str) -> TokenCount {
        self.0.get(purpose).copied().unwrap_or_default()
    }

    pub fn total(&self) -> u64 {
        self.0.values().map(TokenCount::total).sum()
    }
}
