//! The NLI judge of the evidence-reading methods (`verify.nli`): the choices it takes, `auto`
//! resolved for the chat model, and the judge loaded (the chat model asked, or a cross-encoder
//! such as the built-in verifier, loaded once and shared).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use factdesk_llm::cross_encoder::CrossEncoderNli;
use factdesk_llm::nli::LlmNli;
use factdesk_llm::{LanguageModel, Nli};
use serde::{Deserialize, Serialize};

use super::VerifyOptions;
use super::plan::Plan;
use crate::models::ModelChoice;
use crate::{CoreError, Factdesk, Result};

/// `verify.nli`: the trained verifier with the embedded chat model, the chat model itself
/// with a configured server.
pub const NLI_AUTO: &str = "auto";
/// `verify.nli`: Factdesk's own grounding verifier, a cross-encoder installed in the models
/// directory by `scripts/fetch-models.sh` (see `assets/models/factdesk-verifier/README.md`).
pub const NLI_VERIFIER: &str = "factdesk-verifier";
/// `verify.nli`: the chat model asked "True or False?" (LLM-instructed NLI).
pub const NLI_LLM: &str = "llm";

/// An NLI judge as a check's options name it (`VerifyOptions::nli`, the window's and the CLI's
/// `--nli`): `auto`, `factdesk-verifier`, `llm`, or `cross-encoder:<model folder>`, the values
/// of `verify.nli`. Read from that name ([`check_nli_choice`] refuses any other) and written as
/// it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(try_from = "String", into = "String")]
pub enum NliChoice {
    /// The trained verifier with the embedded chat model, the chat model with a server.
    #[serde(rename = "auto")]
    Auto,
    #[serde(rename = "factdesk-verifier")]
    Verifier,
    /// The chat model asked "True or False?".
    #[serde(rename = "llm")]
    Llm,
    /// The cross-encoder in this model folder.
    #[ts(untagged, type = "`cross-encoder:${string}`")]
    CrossEncoder(String),
}

/// The NLI judges a form offers (the app writes them into the UI's generated bindings), each
/// with its name for people; `cross-encoder:<folder>` is typed into the settings file.
pub const NLI_CHOICES: [(NliChoice, &str); 3] = [
    (NliChoice::Auto, "Automatic — picks one of the two below"),
    (NliChoice::Verifier, "Factdesk verifier (a trained classifier, works offline)"),
    (NliChoice::Llm, "The chat model, asked “True or False?”"),
];

impl std::fmt::Display for NliChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NliChoice::Auto => f.write_str(NLI_AUTO),
            NliChoice::Verifier => f.write_str(NLI_VERIFIER),
            NliChoice::Llm => f.write_str(NLI_LLM),
            NliChoice::CrossEncoder(folder) => write!(f, "cross-encoder:{folder}"),
        }
    }
}

impl std::str::FromStr for NliChoice {
    type Err = String;

    fn from_str(value: &str) -> std::result::Result<Self, String> {
        check_nli_choice(value)?;
        let value = value.trim();
        Ok(match value {
            NLI_AUTO => NliChoice::Auto,
            NLI_VERIFIER => NliChoice::Verifier,
            NLI_LLM => NliChoice::Llm,
            // As given, so that the choice is written back exactly as before (it is part of a
            // run's identity); the folder is trimmed where it is read.
            _ => {
                let folder = value.strip_prefix("cross-encoder:").unwrap_or(value);
                NliChoice::CrossEncoder(folder.to_owned())
            }
        })
    }
}

impl TryFrom<String> for NliChoice {
    type Error = String;

    fn try_from(value: String) -> std::result::Result<Self, String> {
        value.parse()
    }
}

impl From<NliChoice> for String {
    fn from(choice: NliChoice) -> String {
        choice.to_string()
    }
}

/// Refuses a `verify.nli` value that names no judge (an empty `cross-encoder:` folder
/// included); the message names the value and the accepted forms.
pub fn check_nli_choice(value: &str) -> std::result::Result<(), String> {
    let value = value.trim();
    let known = [NLI_AUTO, NLI_VERIFIER, NLI_LLM].contains(&value)
        || value.strip_prefix("cross-encoder:").is_some_and(|folder| !folder.trim().is_empty());
    if known {
        Ok(())
    } else {
        Err(format!(
            "'{value}' names no NLI judge; use {NLI_AUTO}, {NLI_VERIFIER}, {NLI_LLM} or \
             cross-encoder:<model folder>"
        ))
    }
}

/// The name of the language `text` is in when it is not English, for the chat model's NLI
/// prompt (`factdesk_text::other_than_english`).
pub(crate) fn language_name(text: &str) -> Option<&'static str> {
    factdesk_text::other_than_english(text).map(|language| language.name)
}

/// Where the built-in verifier is installed: `factdesk-verifier` in the models folder (the
/// user's, else the one an installed package brings).
pub fn verifier_folder() -> PathBuf {
    factdesk_llm::embeddings::model_path(NLI_VERIFIER)
}

/// The model folder of a resolved NLI choice that names a cross-encoder (the built-in verifier
/// or `cross-encoder:<folder>`), with the name results record for it.
pub(crate) fn cross_encoder_folder(nli: &str) -> Option<(PathBuf, Option<&'static str>)> {
    if nli == NLI_VERIFIER {
        return Some((verifier_folder(), Some(NLI_VERIFIER)));
    }
    nli.strip_prefix("cross-encoder:").map(|folder| (PathBuf::from(folder.trim()), None))
}

impl Factdesk {
    /// The NLI judge from `options.nli` or `verify.nli`, with `auto` resolved: the embedded
    /// chat model is far too weak to judge entailment, so it means the trained verifier; a
    /// configured server is asked itself.
    pub(super) fn nli_choice(&self, options: &VerifyOptions, chat: &ModelChoice) -> Result<String> {
        let given = options.nli.as_ref().map(NliChoice::to_string);
        self.resolve_nli(given.as_deref(), chat)
    }

    /// `nli` (else `verify.nli`) checked, with `auto` resolved for the chat model `chat`.
    pub(crate) fn resolve_nli(&self, nli: Option<&str>, chat: &ModelChoice) -> Result<String> {
        let settings = &self.settings().verify;
        let nli = nli.unwrap_or(&settings.nli).trim().to_owned();
        check_nli_choice(&nli)
            .map_err(|message| CoreError::InvalidInput(format!("verify.nli: {message}")))?;
        Ok(if nli == NLI_AUTO {
            match chat {
                ModelChoice::Embedded { .. } => NLI_VERIFIER.into(),
                _ => NLI_LLM.into(),
            }
        } else {
            nli
        })
    }

    /// The NLI judge of `plan`; `chat` gives the audited chat model when it is the judge.
    pub(super) fn nli_model(
        &self,
        plan: &Plan,
        chat: impl FnOnce() -> Result<Arc<dyn LanguageModel>>,
        prompts: &Arc<factdesk_llm::prompts::PromptLibrary>,
    ) -> Result<Arc<dyn Nli>> {
        self.nli_named(plan.nli().unwrap_or_default(), chat, prompts)
    }

    /// The NLI judge a resolved choice names; `chat` gives the audited chat model when it is
    /// the judge.
    pub(crate) fn nli_named(
        &self,
        nli: &str,
        chat: impl FnOnce() -> Result<Arc<dyn LanguageModel>>,
        prompts: &Arc<factdesk_llm::prompts::PromptLibrary>,
    ) -> Result<Arc<dyn Nli>> {
        if nli == NLI_LLM {
            let mut nli = LlmNli::new(chat()?, prompts.clone()).naming_languages(language_name);
            nli.samples = self.settings().verify.nli_samples.max(1);
            return Ok(Arc::new(nli));
        }
        match cross_encoder_folder(nli) {
            Some((folder, name)) => self.cross_encoder(&folder, name),
            // The choice was resolved (`auto`) and checked before.
            None => Err(CoreError::Internal(format!("unresolved NLI choice {nli:?}"))),
        }
    }

    /// The cross-encoder in `folder`, loaded once and shared by every check; `name` replaces
    /// the folder in what checks record (for the built-in verifier, whose folder differs
    /// between machines).
    pub(crate) fn cross_encoder(&self, folder: &Path, name: Option<&str>) -> Result<Arc<dyn Nli>> {
        self.inner.cross_encoder.get(folder, || {
            let model = CrossEncoderNli::load(folder).map_err(|error| match (name, error) {
                // The built-in verifier ships with Factdesk: say how to put it back.
                (Some(_), factdesk_llm::LlmError::ModelFile { path, message, .. }) => {
                    let missing = !Path::new(&path).exists();
                    factdesk_llm::LlmError::ModelFile {
                        path,
                        message: if missing { "it does not exist".into() } else { message },
                        fetch_command: format!(
                            "run scripts/fetch-models.sh from Factdesk's source tree, which copies \
                             assets/models/{NLI_VERIFIER} into {}",
                            crate::env::models_dir().display()
                        ),
                    }
                }
                (_, error) => error,
            })?;
            let model: Arc<dyn Nli> = Arc::new(match name {
                Some(name) => model.with_name(name),
                None => model,
            });
            // A model folder may ship a calibration for the grounding rule's premises; fact
            // alignment moves every judgement (factdesk_methods::facts::shipped_verifier).
            let calibrated = factdesk_methods::facts::shipped_verifier(model, folder);
            calibrated.map_err(|message| {
                factdesk_llm::LlmError::ModelFile {
                    path: folder
                        .join(factdesk_methods::calibration::CALIBRATION_FILE)
                        .display()
                        .to_string(),
                    message,
                    fetch_command: "run scripts/fetch-models.sh from Factdesk's source tree (the \
                                    built-in verifier), or remove the file to use the model's \
                                    judgement uncalibrated"
                        .into(),
                }
                .into()
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_nli_choice_is_read_and_written_by_the_names_verify_nli_takes() {
        let cases = [
            ("auto", NliChoice::Auto),
            ("factdesk-verifier", NliChoice::Verifier),
            ("llm", NliChoice::Llm),
            ("cross-encoder:/models/nli", NliChoice::CrossEncoder("/models/nli".into())),
        ];
        for (name, choice) in cases {
            assert_eq!(name.parse::<NliChoice>(), Ok(choice.clone()), "{name}");
            assert_eq!(serde_json::to_value(&choice).unwrap(), name);
            assert_eq!(serde_json::from_value::<NliChoice>(name.into()).unwrap(), choice);
            assert_eq!(check_nli_choice(&choice.to_string()), Ok(()));
        }
        assert_eq!(" llm ".parse::<NliChoice>(), Ok(NliChoice::Llm));
        // Written back as the trimmed value was, as run identities hold it.
        let spaced = " cross-encoder: /models/nli ".parse::<NliChoice>().unwrap();
        assert_eq!(spaced.to_string(), "cross-encoder: /models/nli");
        for bad in ["oracle", "cross-encoder: ", ""] {
            let refused = serde_json::from_value::<NliChoice>(bad.into()).unwrap_err().to_string();
            assert!(refused.contains("names no NLI judge; use auto"), "{bad}: {refused}");
        }
        let offered: Vec<String> =
            NLI_CHOICES.iter().map(|(choice, _)| choice.to_string()).collect();
        assert_eq!(offered, [NLI_AUTO, NLI_VERIFIER, NLI_LLM]);
    }
}
