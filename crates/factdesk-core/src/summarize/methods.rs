//! The seam every summary method goes through, in the shape of the verdict and revision
//! methods' (`verify/methods/`, `revise/methods/`), kept small because TTS's baselines are
//! TTS's own steps: what a method that writes an answer from several sources is
//! ([`SummaryMethod`]: its name, its label for people, whether it asks the sources' stances,
//! and how it turns the sources into a stored summary) and the one list of them
//! ([`REGISTRY`]: TTS and the paper's three baselines). The run (`run.rs`), its identity (the
//! method's name, `TtsConfig` serialised whole, the models, the inputs), the CLI's and the
//! app's names and the UI's lists ([`SummaryChoices`], generated) go through that list.
//!
//! Every summary method runs on a `factdesk-methods` `Tts` (its model, prompts, `TtsConfig`
//! and stance judge), so they share one configuration type and its defaults
//! ([`TtsConfig::default`], τ among them); a method that needed settings of its own would add
//! a section to `MethodsSettings` and read it here, as the verdict methods do.

use async_trait::async_trait;
use factdesk_methods::tts::baselines::Baseline;
use factdesk_methods::tts::{Source, StanceJudge, Tts, TtsConfig};
use factdesk_model::{Document, RunId, SourcedSummary};
use serde::{Deserialize, Serialize};

use super::outcome::{baseline_summary, tts_summary};
use super::run::run_error;
use crate::{CoreError, Result};

/// The summary methods, in the order lists show them; a new one is a type here and a line.
const REGISTRY: &[&dyn SummaryMethod] = &[
    &Truthful,
    &Paper(Baseline::AllSources),
    &Paper(Baseline::MajorityPrompt),
    &Paper(Baseline::MajorityClaims),
];

/// What a summary run gives its method besides the sources.
pub(crate) struct SummaryContext<'a> {
    pub(crate) question: &'a str,
    pub(crate) config: &'a TtsConfig,
    /// The chat model's name, for the envelope.
    pub(crate) chat: &'a str,
    /// The source documents, in the sources' order.
    pub(crate) documents: &'a [Document],
    pub(crate) run: RunId,
}

/// What one summary method is. Everything else reaches a method through [`REGISTRY`].
#[async_trait]
pub(crate) trait SummaryMethod: Sync {
    /// Its name: in requests, runs and stored summaries.
    fn name(&self) -> &'static str;
    /// Its name with what it does, for people's lists.
    fn label(&self) -> &'static str;
    /// The baseline of TTS it is, or `None` for TTS (what `SummarizeRequest::baseline` says).
    fn baseline(&self) -> Option<Baseline>;
    /// Whether it asks each source's stance on claims (so its stance judge is loaded first).
    fn asks_stances(&self) -> bool;
    /// Its summary of `sources` with `tts`.
    async fn summarize(
        &self,
        tts: &Tts,
        sources: &[Source],
        context: &SummaryContext<'_>,
    ) -> Result<SourcedSummary>;
}

/// Truthful Text Summarization: each source scored by correlated agreement with its peers,
/// the answer written from those scoring at least τ.
struct Truthful;

#[async_trait]
impl SummaryMethod for Truthful {
    fn name(&self) -> &'static str {
        "tts"
    }

    fn label(&self) -> &'static str {
        "TTS (score the sources, keep those above τ)"
    }

    fn baseline(&self) -> Option<Baseline> {
        None
    }

    fn asks_stances(&self) -> bool {
        true
    }

    async fn summarize(
        &self,
        tts: &Tts,
        sources: &[Source],
        context: &SummaryContext<'_>,
    ) -> Result<SourcedSummary> {
        let result = tts
            .run(context.question, sources)
            .await
            .map_err(|error| run_error(error, context.run))?;
        tts_summary(&result, context.config, context.chat, context.documents)
    }
}

/// One of the paper's baselines (every source, a majority prompt, majority claims).
struct Paper(Baseline);

#[async_trait]
impl SummaryMethod for Paper {
    fn name(&self) -> &'static str {
        self.0.as_str()
    }

    fn label(&self) -> &'static str {
        match self.0 {
            Baseline::AllSources => "Baseline: every source",
            Baseline::MajorityPrompt => "Baseline: majority prompt",
            Baseline::MajorityClaims => "Baseline: majority claims",
        }
    }

    fn baseline(&self) -> Option<Baseline> {
        Some(self.0)
    }

    fn asks_stances(&self) -> bool {
        self.0 == Baseline::MajorityClaims
    }

    async fn summarize(
        &self,
        tts: &Tts,
        sources: &[Source],
        context: &SummaryContext<'_>,
    ) -> Result<SourcedSummary> {
        let result = tts
            .baseline(self.0, context.question, sources)
            .await
            .map_err(|error| run_error(error, context.run))?;
        baseline_summary(&result, context.config, context.chat, context.documents)
    }
}

fn registry() -> impl Iterator<Item = &'static dyn SummaryMethod> {
    REGISTRY.iter().copied()
}

/// The summary method a request's `baseline` names.
pub(crate) fn of_request(baseline: Option<Baseline>) -> Result<&'static dyn SummaryMethod> {
    registry().find(|method| method.baseline() == baseline).ok_or_else(|| {
        CoreError::Internal(format!("the summary method of {baseline:?} is not registered"))
    })
}

/// Every summary method's name, in the order lists show them (`tts` first).
pub fn method_names() -> Vec<&'static str> {
    registry().map(|method| method.name()).collect()
}

/// The baseline named `name`, or `None` for TTS; a name of no summary method is refused,
/// naming every method.
pub fn parse_method(name: &str) -> Result<Option<Baseline>> {
    name.parse::<SummaryMethodName>()
        .map(SummaryMethodName::baseline)
        .map_err(CoreError::InvalidInput)
}

/// A summary method as requests name it: TTS, or one of its baselines (`all-sources`, …). Read
/// from the name of a method of [`REGISTRY`] (trimmed, case-insensitive); any other name is
/// refused, naming every method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(try_from = "String")]
pub enum SummaryMethodName {
    #[serde(rename = "tts")]
    Tts,
    #[serde(untagged)]
    Baseline(Baseline),
}

impl SummaryMethodName {
    /// The baseline it names, or `None` for TTS (what `SummarizeRequest::baseline` takes).
    pub fn baseline(self) -> Option<Baseline> {
        match self {
            SummaryMethodName::Tts => None,
            SummaryMethodName::Baseline(baseline) => Some(baseline),
        }
    }
}

impl std::str::FromStr for SummaryMethodName {
    type Err = String;

    fn from_str(name: &str) -> std::result::Result<Self, String> {
        let wanted = name.trim().to_ascii_lowercase();
        let method = registry().find(|method| method.name() == wanted);
        method
            .map(|method| method.baseline().map_or(SummaryMethodName::Tts, Self::Baseline))
            .ok_or_else(|| format!("'{name}' is no summary method: {}", method_names().join(", ")))
    }
}

impl TryFrom<String> for SummaryMethodName {
    type Error = String;

    fn try_from(name: String) -> std::result::Result<Self, String> {
        name.parse()
    }
}

/// One value a form offers, with its name for people.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SummaryChoice {
    /// What the request takes.
    pub value: String,
    pub label: String,
}

/// What a summary form offers (the app writes these into the UI's generated bindings).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SummaryChoices {
    pub methods: Vec<SummaryChoice>,
    /// Who may judge the sources' stances, the default first.
    pub stance_judges: Vec<SummaryChoice>,
    /// τ when the request gives none: sources scoring at least this are kept.
    pub tau: f64,
}

/// The stance judges, the default first: each with its name in requests and its label.
const STANCE_JUDGES: [(StanceJudge, &str, &str); 2] = [
    (StanceJudge::Chat, "chat", "the chat model"),
    (StanceJudge::Verifier, "verifier", "the verifier (it judges support only)"),
];

impl SummaryChoices {
    /// Every summary method and stance judge, in the order forms show them, and τ's default.
    pub fn all() -> SummaryChoices {
        SummaryChoices {
            methods: registry()
                .map(|method| SummaryChoice {
                    value: method.name().into(),
                    label: method.label().into(),
                })
                .collect(),
            stance_judges: STANCE_JUDGES
                .iter()
                .map(|(_, value, label)| SummaryChoice {
                    value: (*value).into(),
                    label: (*label).into(),
                })
                .collect(),
            tau: TtsConfig::default().tau,
        }
    }

    /// Every stance judge's name, the default first.
    pub fn stance_judge_names() -> Vec<&'static str> {
        STANCE_JUDGES.iter().map(|(_, name, _)| *name).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_method_is_named_as_its_runs_and_requests_name_it() {
        assert_eq!(method_names(), ["tts", "all-sources", "majority-prompt", "majority-claims"]);
        for method in registry() {
            assert_eq!(parse_method(method.name()).unwrap(), method.baseline());
            assert_eq!(of_request(method.baseline()).unwrap().name(), method.name());
            // A run's identity names the method as it did before the seam.
            assert_eq!(method.name(), method.baseline().map_or("tts", Baseline::as_str));
        }
        // Only TTS and the majority-claims baseline ask for stances.
        let asking: Vec<&str> =
            registry().filter(|method| method.asks_stances()).map(|method| method.name()).collect();
        assert_eq!(asking, ["tts", "majority-claims"]);
        let message = parse_method("Median").unwrap_err().to_string();
        assert!(message.contains("'Median' is no summary method: tts, all-sources"), "{message}");
        // A request's method is read (and written) by the names of the registry's methods.
        for method in registry() {
            let named: SummaryMethodName = serde_json::from_value(method.name().into()).unwrap();
            assert_eq!(named.baseline(), method.baseline());
            assert_eq!(serde_json::to_value(named).unwrap(), method.name());
        }
        let refused = serde_json::from_value::<SummaryMethodName>("median".into()).unwrap_err();
        assert!(refused.to_string().contains("'median' is no summary method: tts"), "{refused}");
    }

    #[test]
    fn the_stance_judges_and_tau_are_what_requests_read() {
        /// `judge` as serde spells it.
        fn spelled(judge: StanceJudge) -> String {
            serde_json::to_value(judge).unwrap().as_str().unwrap().to_owned()
        }
        assert_eq!(SummaryChoices::stance_judge_names(), ["chat", "verifier"]);
        for (judge, name, _) in STANCE_JUDGES {
            assert_eq!(spelled(judge), name);
            assert_eq!(name.parse::<StanceJudge>().unwrap(), judge);
        }
        assert_eq!(STANCE_JUDGES[0].0, TtsConfig::default().stance_judge);
        let choices = SummaryChoices::all();
        assert_eq!(choices.stance_judges[1].value, "verifier");
        assert_eq!(choices.tau, factdesk_methods::tts::score::DEFAULT_TAU);
    }
}
