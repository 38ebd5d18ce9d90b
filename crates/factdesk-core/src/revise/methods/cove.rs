//! CoVe (the same paper as RARR): verification questions planned from the passage, each
//! answered from its own evidence alone, the passage refined from the answers. Its section is
//! `[methods.cove]`.

use async_trait::async_trait;
use factdesk_methods::MethodError;
use factdesk_methods::revise::Reviser;
use factdesk_model::Revision;

use super::{ReviseSettings, RevisionMethod};
use crate::verify::config::MethodsSettings;

pub(super) struct Cove;

#[async_trait]
impl RevisionMethod for Cove {
    fn name(&self) -> &'static str {
        "cove"
    }

    fn label(&self) -> &'static str {
        "CoVe (verification questions, factored answers)"
    }

    fn section<'a>(&self, settings: &'a MethodsSettings) -> &'a ReviseSettings {
        &settings.cove
    }

    async fn revise(&self, reviser: &Reviser, text: &str) -> Result<Revision, MethodError> {
        factdesk_methods::revise::cove::revise(reviser, text).await
    }
}
