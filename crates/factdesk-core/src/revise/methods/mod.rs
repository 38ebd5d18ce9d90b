//! The seam every revision method goes through, in the shape of the verdict methods'
//! (`verify/methods/`): what a method that corrects passages is ([`RevisionMethod`]: its name
//! and its names for people, its `[methods.<name>]` section and how that is checked, a run's
//! plan from the section and the options, and how a planned run revises a text) and the one
//! list of them ([`REGISTRY`]). Naming a method, checking the settings, planning and running a
//! revision and the UI's lists all go through that list, so a revision method is its file here
//! (beside its paper's steps in `factdesk-methods`) and a line in [`REGISTRY`], plus its
//! section in `MethodsSettings` (which holds every method's sections). Requests, options and
//! runs name a method by [`ReviseMethod`] (`name.rs`), a name the registry holds.
//!
//! RARR and CoVe read the same kind of section ([`ReviseSettings`]) and plan alike
//! (`plan.rs`: the evidence, the granularity, the gate and its judge, the run's
//! `ReviseConfig`, which is the run's identity); each file says what is its own. The section
//! type stays in `verify/config.rs` beside every method's, so `verify` never names this module;
//! the settings call [`validate_sections`].
//!
//! [`RevisionChoices`] is what the UI's forms offer (the methods with their names for people,
//! the evidence, the granularities, the gates), written into the UI's generated bindings.

mod cove;
mod name;
mod plan;
mod rarr;
#[cfg(test)]
mod toy;

pub use name::ReviseMethod;

use async_trait::async_trait;
use factdesk_methods::MethodError;
use factdesk_methods::revise::evidence::Granularity;
use factdesk_methods::revise::{Gate, Reviser};
use factdesk_model::Revision;
use serde::Serialize;

use super::{EvidenceChoice, ReviseOptions, RevisePlan, ReviseSettings};
use crate::verify::config::MethodsSettings;
use crate::{CoreError, Factdesk, Result};

/// The revision methods, in the order lists show them. A new method is a module of this
/// folder and a line here (and its section in `MethodsSettings`).
const REGISTRY: &[&dyn RevisionMethod] = &[
    &rarr::Rarr,
    &cove::Cove,
    #[cfg(test)]
    &toy::ToyCut,
];

/// What one revision method is. Implemented once per method in this folder; everything else
/// reaches a method through [`REGISTRY`].
#[async_trait]
pub(crate) trait RevisionMethod: Sync {
    /// Its name, lower case: in settings (`[methods.<name>]`), options, runs and outcomes (what
    /// a [`ReviseMethod`] holds).
    fn name(&self) -> &'static str;
    /// Its name with how it works, for people's lists.
    fn label(&self) -> &'static str;
    /// Its `[methods.<name>]` section.
    fn section<'a>(&self, settings: &'a MethodsSettings) -> &'a ReviseSettings;
    /// Its section checked: the first setting no run could use, as a message naming its key.
    fn validate(&self, settings: &MethodsSettings) -> std::result::Result<(), String> {
        self.section(settings).validate(&format!("methods.{}", self.name()))
    }
    /// The run's configuration, evidence and models, from its section and `options`.
    fn plan(&self, app: &Factdesk, options: &ReviseOptions) -> Result<RevisePlan> {
        plan::plan(app, self.name(), self.section(&app.settings().methods), options)
    }
    /// Revises `text` with `reviser`, whose configuration is this method's plan: its paper's
    /// steps.
    async fn revise(
        &self,
        reviser: &Reviser,
        text: &str,
    ) -> std::result::Result<Revision, MethodError>;
}

/// Every revision method, in the order lists show them.
pub(crate) fn registry() -> impl Iterator<Item = &'static dyn RevisionMethod> {
    REGISTRY.iter().copied()
}

/// The [`RevisionMethod`] of `method`.
pub(crate) fn seam(method: ReviseMethod) -> Result<&'static dyn RevisionMethod> {
    registry().find(|seam| seam.name() == method.as_str()).ok_or_else(|| {
        CoreError::Internal(format!("the revision method {method} is not registered"))
    })
}

/// Every revision method's `[methods.<name>]` section checked (the settings call this beside
/// `MethodsSettings::validate`): the first setting no run could use, as a message naming it.
pub fn validate_sections(settings: &MethodsSettings) -> std::result::Result<(), String> {
    registry().try_for_each(|method| method.validate(settings))
}

/// One value a form offers, with its name for people.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Choice {
    /// What the command takes.
    pub value: String,
    pub label: String,
}

/// A revision method as people see it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RevisionMethodInfo {
    /// Its name, what the command takes.
    pub value: String,
    /// Its name with how it works.
    pub label: String,
}

/// What a revision form offers: the methods and, for each per-run option, its values (the app
/// writes these into the UI's generated bindings).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RevisionChoices {
    pub methods: Vec<RevisionMethodInfo>,
    pub evidence: Vec<Choice>,
    pub granularities: Vec<Choice>,
    pub gates: Vec<Choice>,
}

/// The evidence a form offers, in its order.
const EVIDENCE: [EvidenceChoice; 5] = [
    EvidenceChoice::Auto,
    EvidenceChoice::Source,
    EvidenceChoice::Corpus,
    EvidenceChoice::Web,
    EvidenceChoice::None,
];
const GRANULARITIES: [Granularity; 2] = [Granularity::Snippets, Granularity::Chunks];
const GATES: [Gate; 2] = [Gate::Chat, Gate::Nli];

fn evidence_label(evidence: EvidenceChoice) -> &'static str {
    match evidence {
        EvidenceChoice::Auto => "The passage’s sources, else the corpus",
        EvidenceChoice::Source => "The passage’s source documents",
        EvidenceChoice::Corpus => "The local corpus",
        EvidenceChoice::Web => "Web pages the model proposes",
        EvidenceChoice::None => "None (the model’s own knowledge)",
    }
}

fn granularity_label(granularity: Granularity) -> &'static str {
    match granularity {
        Granularity::Snippets => "Snippets (5 best sentences)",
        Granularity::Chunks => "Chunks (5 closest passages)",
    }
}

fn gate_label(gate: Gate) -> &'static str {
    match gate {
        Gate::Chat => "The chat model",
        Gate::Nli => "The NLI verifier",
    }
}

/// `value` as its options and commands spell it (its serde name).
fn spelled(value: impl Serialize) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(name)) => name,
        other => unreachable!("a unit variant serialises as its name, not {other:?}"),
    }
}

fn choices<T: Copy + Serialize>(values: &[T], label: fn(T) -> &'static str) -> Vec<Choice> {
    values
        .iter()
        .map(|&value| Choice { value: spelled(value), label: label(value).into() })
        .collect()
}

impl RevisionChoices {
    /// Every revision method and option value, in the order forms show them.
    pub fn all() -> RevisionChoices {
        RevisionChoices {
            methods: registry()
                .map(|method| RevisionMethodInfo {
                    value: method.name().into(),
                    label: method.label().into(),
                })
                .collect(),
            evidence: choices(&EVIDENCE, evidence_label),
            granularities: choices(&GRANULARITIES, granularity_label),
            gates: choices(&GATES, gate_label),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_method_is_listed_once_under_its_lower_case_name() {
        for listed in registry() {
            let method: ReviseMethod = listed.name().parse().unwrap();
            assert_eq!(seam(method).unwrap().name(), listed.name());
            assert_eq!(listed.name(), listed.name().to_ascii_lowercase());
            assert_eq!(registry().filter(|other| other.name() == listed.name()).count(), 1);
        }
    }

    #[test]
    fn every_choice_is_what_the_options_read() {
        let choices = RevisionChoices::all();
        let names: Vec<&str> = choices.methods.iter().map(|m| m.value.as_str()).collect();
        let registered: Vec<&str> = registry().map(|method| method.name()).collect();
        assert_eq!(names, registered);
        assert_eq!(names[..2], ["rarr", "cove"]);
        let values = |list: &[Choice]| list.iter().map(|c| c.value.clone()).collect::<Vec<_>>();
        assert_eq!(values(&choices.evidence), ["auto", "source", "corpus", "web", "none"]);
        for choice in &choices.evidence {
            assert_eq!(spelled(choice.value.parse::<EvidenceChoice>().unwrap()), choice.value);
        }
        assert_eq!(values(&choices.granularities), ["snippets", "chunks"]);
        for choice in &choices.granularities {
            assert_eq!(spelled(choice.value.parse::<Granularity>().unwrap()), choice.value);
        }
        assert_eq!(values(&choices.gates), ["chat", "nli"]);
        for choice in &choices.gates {
            assert_eq!(spelled(choice.value.parse::<Gate>().unwrap()), choice.value);
        }
    }
}
