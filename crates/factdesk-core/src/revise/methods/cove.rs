//! CoVe (the same paper as RARR): verification questions planned from the passage, each
//! answered from its own evidence alone, the passage refined from the answers. Its section is
//! `[methods.cove]`.

use factdesk_methods::revise::ReviseMethod;

use super::{ReviseSettings, RevisionMethod};
use crate::verify::config::MethodsSettings;

pub(super) struct Cove;

impl RevisionMethod for Cove {
    fn method(&self) -> ReviseMethod {
        ReviseMethod::Cove
    }

    fn name(&self) -> &'static str {
        "cove"
    }

    fn label(&self) -> &'static str {
        "CoVe (verification questions, factored answers)"
    }

    fn section<'a>(&self, settings: &'a MethodsSettings) -> &'a ReviseSettings {
        &settings.cove
    }
}
