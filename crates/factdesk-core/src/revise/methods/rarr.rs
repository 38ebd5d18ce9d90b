//! RARR ("Correcting Hallucinations in News Summaries: Exploration of Self-Correcting LLM
//! Methods with External Knowledge"): per sentence, searches; evidence for each; an agreement
//! gate; a minimal edit only where the evidence disagrees. Its section is `[methods.rarr]`.

use async_trait::async_trait;
use factdesk_methods::MethodError;
use factdesk_methods::revise::Reviser;
use factdesk_model::Revision;

use super::{ReviseSettings, RevisionMethod};
use crate::verify::config::MethodsSettings;

pub(super) struct Rarr;

#[async_trait]
impl RevisionMethod for Rarr {
    fn name(&self) -> &'static str {
        "rarr"
    }

    fn label(&self) -> &'static str {
        "RARR (search, agree or disagree, minimal edits)"
    }

    fn section<'a>(&self, settings: &'a MethodsSettings) -> &'a ReviseSettings {
        &settings.rarr
    }

    async fn revise(&self, reviser: &Reviser, text: &str) -> Result<Revision, MethodError> {
        factdesk_methods::revise::rarr::revise(reviser, text).await
    }
}
