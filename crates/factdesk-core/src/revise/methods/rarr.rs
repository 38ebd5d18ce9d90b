//! RARR ("Correcting Hallucinations in News Summaries: Exploration of Self-Correcting LLM
//! Methods with External Knowledge"): per sentence, searches; evidence for each; an agreement
//! gate; a minimal edit only where the evidence disagrees. Its section is `[methods.rarr]`.

use factdesk_methods::revise::ReviseMethod;

use super::{ReviseSettings, RevisionMethod};
use crate::verify::config::MethodsSettings;

pub(super) struct Rarr;

impl RevisionMethod for Rarr {
    fn method(&self) -> ReviseMethod {
        ReviseMethod::Rarr
    }

    fn name(&self) -> &'static str {
        "rarr"
    }

    fn label(&self) -> &'static str {
        "RARR (search, agree or disagree, minimal edits)"
    }

    fn section<'a>(&self, settings: &'a MethodsSettings) -> &'a ReviseSettings {
        &settings.rarr
    }
}
