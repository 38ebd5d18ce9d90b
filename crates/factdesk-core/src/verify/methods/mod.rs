//! The seam every verdict method goes through: what a method is ([`VerdictMethod`]: its name,
//! the options it takes, the evidence it reads, how its `[methods.<name>]` section is checked,
//! how a run's plan is resolved from that section and the options, and its own evaluation
//! figures) and the one list of them ([`REGISTRY`]). Parsing a method's name, listing the
//! methods, checking the settings, planning and running a check and eval's figures all go
//! through that list, so a method is one file here (beside its paper's code in
//! `factdesk-methods`, which sees only traits), a line in the list, a [`Method`] value and its
//! section in [`MethodsSettings`], all in this file.
//!
//! A planned run ([`Planned`]) carries the method's configuration typed, for the check, and
//! serialised, for the run's identity; [`CheckContext`] gives a check the audited chat model,
//! the NLI judge and the evidence adapters of [`super::evidence`].

mod ciber;
mod corpus_nli;
mod llm_cite;
mod p_true;
#[cfg(test)]
mod toy;

use std::str::FromStr;
use std::sync::Arc;

use async_trait::async_trait;
use factdesk_llm::prompts::PromptLibrary;
use factdesk_llm::{CacheMode, CallCollector, LanguageModel, Nli};
use factdesk_methods::figures::Figure;
use factdesk_model::{ClaimCheck, ClaimLabel, RunId};
use serde::{Deserialize, Serialize};
use tokio::sync::Semaphore;

pub use ciber::{CiberConfig, CiberSettings};
pub use corpus_nli::{CorpusNliConfig, CorpusNliSettings};
pub use llm_cite::{LlmCiteConfig, LlmCiteSettings};
pub use p_true::{PTrueConfig, PTrueSettings};
#[cfg(test)]
pub use toy::ToySettings;

use super::VerifyOptions;
use super::config::{ReviseSettings, RunModels};
use super::evidence::{CorpusSearch, Evidence, WebPages};
use super::plan::Plan;
use crate::{CoreError, Factdesk, Result};

/// The verdict methods, in the order lists show them. A new method is a module of this folder,
/// a line here, a [`Method`] value (for the UI's generated types) and its settings section in
/// [`MethodsSettings`].
const REGISTRY: &[&dyn VerdictMethod] = &[
    &llm_cite::LlmCite,
    &p_true::PTrue,
    &corpus_nli::CorpusNli,
    &ciber::Ciber,
    #[cfg(test)]
    &toy::Toy,
];

// A closed list so that the UI's generated types name each method; what a method is and does
// is its `VerdictMethod` in `REGISTRY`. (The doc comment is the UI's: the bindings carry it.)
/// The checking methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    LlmCite,
    PTrue,
    CorpusNli,
    Ciber,
    /// A test-only method that shows the seam (`toy.rs`).
    #[cfg(test)]
    Toy,
}

/// What one verdict method is. Implemented once per method in this folder; everything else
/// reaches a method through [`REGISTRY`].
#[async_trait]
pub(crate) trait VerdictMethod: Sync {
    /// Its value in [`Method`].
    fn method(&self) -> Method;
    /// Its name: in settings (`[methods.<name>]`), options, runs and checks.
    fn name(&self) -> &'static str;
    /// Its name alone, for people and narrow places (filters): `LLM-Cite`.
    fn short_name(&self) -> &'static str;
    /// Its name with what it reads, for people: `LLM-Cite (Wikipedia pages)`.
    fn title(&self) -> &'static str;
    /// A sentence for people on how it checks a claim.
    fn hint(&self) -> &'static str;
    /// Other spellings its name is read from.
    fn aliases(&self) -> &'static [&'static str] {
        &[]
    }
    /// The per-run options ([`VerifyOptions`]) it takes.
    fn options(&self) -> &'static [&'static str];
    /// The evidence it reads.
    fn evidence(&self) -> Evidence;
    /// Its `[methods.<name>]` section checked: the first setting no run could use, as a
    /// message naming its key.
    fn validate(&self, settings: &MethodsSettings) -> std::result::Result<(), String>;
    /// The run's configuration and models, from its settings section and `options` (which
    /// hold only options it takes).
    fn plan(&self, app: &Factdesk, options: &VerifyOptions) -> Result<Planned>;
    /// Its own figures over its checks, with their gold labels (none by default).
    fn figures(&self, _checks: &[(&ClaimCheck, Option<ClaimLabel>)]) -> Vec<Figure> {
        Vec::new()
    }
}

/// A method's configuration for a run, able to check a claim.
#[async_trait]
pub(crate) trait PlannedMethod: Send + Sync + std::fmt::Debug {
    /// Checks `claim` with this configuration.
    async fn check(&self, context: &CheckContext<'_>, claim: &str) -> Result<ClaimCheck>;
}

/// A run's planned method: its configuration typed (to run) and serialised (the run's
/// identity), and the models it asks.
#[derive(Debug, Clone)]
pub(crate) struct Planned {
    pub(crate) run: Arc<dyn PlannedMethod>,
    pub(crate) config: serde_json::Value,
    pub(crate) models: RunModels,
}

impl Planned {
    pub(crate) fn new(
        method: &str,
        config: impl PlannedMethod + Serialize + 'static,
        models: RunModels,
    ) -> Result<Planned> {
        let json = serde_json::to_value(&config).map_err(|error| {
            CoreError::Internal(format!("the configuration of a {method} run: {error}"))
        })?;
        Ok(Planned { run: Arc::new(config), config: json, models })
    }
}

/// What a check is given: the chat model (audited, its calls collected for the check), the
/// run's NLI judge, the prompts and the evidence adapters.
pub(crate) struct CheckContext<'a> {
    pub(crate) app: &'a Factdesk,
    pub(crate) plan: &'a Plan,
    pub(crate) run: RunId,
    pub(crate) cache: Option<CacheMode>,
    pub(crate) collector: CallCollector,
    pub(crate) prompts: Arc<PromptLibrary>,
    pub(crate) fetch_permits: Arc<Semaphore>,
}

impl CheckContext<'_> {
    /// The chat model, loaded when a method asks it.
    pub(crate) fn chat(&self) -> Result<Arc<dyn LanguageModel>> {
        self.app.collecting_language_model(Some(self.run), self.cache, Some(self.collector.clone()))
    }

    /// The run's NLI judge; `chat` gives the chat model when it is the judge.
    pub(crate) fn nli(
        &self,
        chat: impl FnOnce() -> Result<Arc<dyn LanguageModel>>,
    ) -> Result<Arc<dyn Nli>> {
        self.app.nli_model(self.plan, chat, &self.prompts)
    }

    /// Web pages, fetched (or from the archive) and recorded with the run.
    pub(crate) fn web_pages(&self) -> Arc<WebPages> {
        Arc::new(WebPages {
            app: self.app.clone(),
            run: self.run,
            permits: self.fetch_permits.clone(),
        })
    }

    /// Sentences and documents of `corpora` (all when empty).
    pub(crate) fn corpus(&self, corpora: &[String]) -> Arc<CorpusSearch> {
        Arc::new(CorpusSearch { app: self.app.clone(), corpora: corpora.to_vec() })
    }

    /// The language claims are read in when they do not say.
    pub(crate) fn language(&self) -> String {
        self.app.settings().import.language.clone()
    }
}

// A verdict method's section type is in its file here; the revision methods' is
// `ReviseSettings`, each picked by its seam in `revise/methods/`. (The doc comment is the
// UI's: the generated bindings carry it.)
/// `[methods]`: one section per method.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct MethodsSettings {
    #[serde(rename = "llm-cite")]
    pub llm_cite: LlmCiteSettings,
    #[serde(rename = "p-true")]
    pub p_true: PTrueSettings,
    #[serde(rename = "corpus-nli")]
    pub corpus_nli: CorpusNliSettings,
    pub ciber: CiberSettings,
    /// RARR (revises passages; `factdesk revise --method rarr`).
    pub rarr: ReviseSettings,
    /// CoVe (revises passages; `factdesk revise --method cove`).
    pub cove: ReviseSettings,
    /// The test-only toy method (`toy.rs`).
    #[cfg(test)]
    #[serde(default)]
    pub toy: ToySettings,
}

impl MethodsSettings {
    /// The first setting of a verdict method's section that no run could use, as a message
    /// naming its key. The revision methods' sections are checked by their own seam
    /// (`revise::validate_sections`), which the settings call beside this.
    pub fn validate(&self) -> Result<(), String> {
        registry().try_for_each(|method| method.validate(self))
    }
}

/// A verdict method as people see it, for the UI's lists and name tables (the app writes every
/// method's into the UI's generated bindings).
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct MethodInfo {
    pub method: Method,
    /// Its name alone, for narrow places (filters).
    pub short_name: String,
    /// Its name with what it reads.
    pub name: String,
    /// How it checks a claim, in a sentence.
    pub hint: String,
    /// The evidence it reads.
    pub evidence: Evidence,
    /// The per-run options (fields of `VerifyOptions`) it takes.
    pub options: Vec<String>,
}

impl MethodInfo {
    /// Every verdict method's, in the order lists show them.
    pub fn all() -> Vec<MethodInfo> {
        registry()
            .map(|method| MethodInfo {
                method: method.method(),
                short_name: method.short_name().to_owned(),
                name: method.title().to_owned(),
                hint: method.hint().to_owned(),
                evidence: method.evidence(),
                options: method.options().iter().map(|option| (*option).to_owned()).collect(),
            })
            .collect()
    }
}

/// Every verdict method, in the order lists show them.
pub(crate) fn registry() -> impl Iterator<Item = &'static dyn VerdictMethod> {
    REGISTRY.iter().copied()
}

/// The verdict method named `name` (or one of its aliases), if this version has it.
pub(crate) fn named(name: &str) -> Option<&'static dyn VerdictMethod> {
    let name = name.trim().to_ascii_lowercase().replace('_', "-");
    registry().find(|method| method.name() == name || method.aliases().contains(&name.as_str()))
}

impl Method {
    /// Every method, in the order lists show them.
    pub fn all() -> Vec<Method> {
        registry().map(|method| method.method()).collect()
    }

    /// Every method's name, for help and messages: `llm-cite, p-true, corpus-nli or ciber`.
    pub fn choices() -> String {
        let names: Vec<&str> = registry().map(|method| method.name()).collect();
        one_of(&names)
    }

    /// Its [`VerdictMethod`].
    pub(crate) fn seam(self) -> &'static dyn VerdictMethod {
        registry().find(|method| method.method() == self).unwrap_or_else(|| {
            unreachable!("every Method value has its VerdictMethod in the registry")
        })
    }

    pub fn as_str(self) -> &'static str {
        self.seam().name()
    }

    /// The per-run options ([`VerifyOptions`]) this method takes.
    pub fn options(self) -> &'static [&'static str] {
        self.seam().options()
    }

    /// The evidence this method reads.
    pub fn evidence(self) -> Evidence {
        self.seam().evidence()
    }

    /// Its own figures over its checks, with their gold labels (none for a method without).
    pub fn figures(self, checks: &[(&ClaimCheck, Option<ClaimLabel>)]) -> Vec<Figure> {
        self.seam().figures(checks)
    }
}

impl FromStr for Method {
    type Err = CoreError;
    fn from_str(s: &str) -> Result<Self> {
        named(s).map(|method| method.method()).ok_or_else(|| {
            CoreError::InvalidInput(format!(
                "unknown method '{}'; expected {}",
                s.trim().to_ascii_lowercase().replace('_', "-"),
                Method::choices()
            ))
        })
    }
}

/// `a, b or c`.
fn one_of(names: &[&str]) -> String {
    match names.split_last() {
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// `value` of option or setting `name`, which must be at least 1.
pub(crate) fn at_least_one(name: &str, value: usize) -> Result<usize> {
    if value == 0 {
        Err(CoreError::InvalidInput(format!("{name} must be at least 1")))
    } else {
        Ok(value)
    }
}

/// The `threshold` option, else `default`, checked.
pub(crate) fn threshold(options: &VerifyOptions, default: f64) -> Result<f64> {
    let threshold = options.threshold.unwrap_or(default);
    super::config::check_threshold(threshold).map(|()| threshold).map_err(CoreError::InvalidInput)
}

/// The first of `keys` whose value is 0, as a message naming it.
pub(crate) fn nonzero(keys: &[(&str, u64)]) -> std::result::Result<(), String> {
    match keys.iter().find(|(_, value)| *value == 0) {
        Some((key, _)) => Err(format!("`{key}` must be at least 1")),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_method_is_listed_once_and_named_by_its_name() {
        for method in Method::all() {
            assert_eq!(method.as_str().parse::<Method>().unwrap(), method);
            assert_eq!(registry().filter(|seam| seam.method() == method).count(), 1);
        }
        assert_eq!(" P_True ".parse::<Method>().unwrap(), Method::PTrue);
        assert_eq!("ptrue".parse::<Method>().unwrap(), Method::PTrue);
        let message = "lucky".parse::<Method>().unwrap_err().to_string();
        assert!(message.contains("unknown method 'lucky'"), "{message}");
        assert!(message.contains("expected llm-cite, p-true, corpus-nli"), "{message}");
        for method in Method::all() {
            assert!(message.contains(method.as_str()), "{message}");
        }
    }
}
