//! SGSS as a method: the one place that says what the score method is — its configuration
//! ([`ScoreConfig`]: XUX's L_max and XUX_G's stopping chance, with serde defaults and their
//! check), the grades a label takes ([`GRADES`]: words, values and the keys people and the chat
//! model give them by) and the labellers that label what people left out ([`LABELLERS`]) — and
//! [`ScoreChoices`], the grades and defaults as the UI's generated bindings carry them. The
//! CLI's defaults and possible values, the labels file, stored labels and the UI's Scores view
//! read them from here.
//!
//! Unlike the verdict, revision and summary methods there is no trait and registry here:
//! SGSS is the only score method, and how it scores (X(l), XUX, Comp, the fitted weights) is
//! its paper's code in `factdesk-methods` `sgss`, called by `mod.rs` and `fit.rs`; a second
//! score method would turn this file into that seam.

use factdesk_methods::sgss;
use serde::{Deserialize, Serialize};

use super::Labeller;

/// What a scoring reads besides the labels and weights.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ScoreConfig {
    /// XUX counts at most this many lines (L_max).
    pub l_max: usize,
    /// XUX_G's chance that a reader stops after each line (geometric).
    pub stop: f64,
}

impl Default for ScoreConfig {
    fn default() -> Self {
        ScoreConfig { l_max: 20, stop: 0.2 }
    }
}

impl ScoreConfig {
    /// The first value no scoring could use, as a message naming it.
    pub fn validate(&self) -> Result<(), String> {
        if self.l_max == 0 {
            return Err("L_max (--l-max) must be at least 1: XUX counts that many lines".into());
        }
        if !(self.stop > 0.0 && self.stop <= 1.0) {
            return Err(format!(
                "the stopping chance (--stop) is {}; it is a probability above 0 and at most 1",
                self.stop
            ));
        }
        Ok(())
    }
}

/// One grade a label may take.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Grade {
    /// Its word, in labels files and the CLI.
    pub word: &'static str,
    pub value: f64,
    /// The key a person presses for it in the Scores view: the digit the chat labeller asks
    /// the model for (`sgss::label::GRADE_DIGITS`; a test holds them equal).
    pub key: &'static str,
}

/// The grades, best first.
pub const GRADES: [Grade; 3] = [
    Grade { word: "perfectly", value: sgss::PERFECTLY, key: "2" },
    Grade { word: "partially", value: sgss::PARTIALLY, key: "1" },
    Grade { word: "not", value: sgss::NOT, key: "0" },
];

/// The grade `word` names (any case, spaces around), if it is one.
pub fn grade_of_word(word: &str) -> Option<f64> {
    let word = word.trim().to_ascii_lowercase();
    GRADES.iter().find(|grade| grade.word == word).map(|grade| grade.value)
}

/// `perfectly, partially, not`, for messages.
pub fn grade_words() -> String {
    GRADES.map(|grade| grade.word).join(", ")
}

/// The labellers, each with its name on the command line.
pub const LABELLERS: [(Labeller, &str); 2] =
    [(Labeller::Verifier, "verifier"), (Labeller::Chat, "llm")];

impl Labeller {
    /// The labeller named `name` (`verifier` or `llm`).
    pub fn named(name: &str) -> Result<Labeller, String> {
        let wanted = name.trim().to_ascii_lowercase();
        LABELLERS
            .iter()
            .find(|(_, named)| *named == wanted)
            .map(|(labeller, _)| *labeller)
            .ok_or_else(|| {
                format!("'{name}' labels nothing; use {}", Labeller::names().join(" or "))
            })
    }

    /// Every labeller's name, in the order lists show them.
    pub fn names() -> Vec<&'static str> {
        LABELLERS.iter().map(|(_, name)| *name).collect()
    }
}

/// What the UI's Scores view offers and reads (the app writes it into the generated bindings).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScoreChoices {
    /// The grades, best first.
    pub grades: Vec<Grade>,
    /// What a scoring reads when nothing else is said.
    pub config: ScoreConfig,
}

impl ScoreChoices {
    pub fn all() -> ScoreChoices {
        ScoreChoices { grades: GRADES.to_vec(), config: ScoreConfig::default() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grades_labellers_and_defaults_read_as_before() {
        assert_eq!(grade_of_word(" Perfectly "), Some(1.0));
        assert_eq!(grade_of_word("partially"), Some(0.5));
        assert_eq!(grade_of_word("not"), Some(0.0));
        assert_eq!(grade_of_word("mostly"), None);
        assert_eq!(grade_words(), "perfectly, partially, not");
        let keys: Vec<(&str, f64)> = GRADES.iter().map(|grade| (grade.key, grade.value)).collect();
        assert_eq!(keys, sgss::label::GRADE_DIGITS);
        assert_eq!(Labeller::named("llm").unwrap(), Labeller::Chat);
        assert_eq!(Labeller::named("verifier").unwrap(), Labeller::Verifier);
        let message = Labeller::named("oracle").unwrap_err();
        assert_eq!(message, "'oracle' labels nothing; use verifier or llm");
        // The input is named as given.
        let message = Labeller::named("Oracle").unwrap_err();
        assert!(message.starts_with("'Oracle' labels nothing"), "{message}");
        assert_eq!(ScoreConfig::default(), ScoreConfig { l_max: 20, stop: 0.2 });
        let config: ScoreConfig = serde_json::from_str(r#"{"stop": 0.5}"#).unwrap();
        assert_eq!(config, ScoreConfig { l_max: 20, stop: 0.5 });
    }

    #[test]
    fn a_config_no_scoring_could_use_is_refused_naming_the_value() {
        ScoreConfig::default().validate().unwrap();
        let message = ScoreConfig { l_max: 0, stop: 0.2 }.validate().unwrap_err();
        assert!(message.contains("L_max (--l-max) must be at least 1"), "{message}");
        for stop in [0.0, 1.5, f64::NAN] {
            let message = ScoreConfig { l_max: 20, stop }.validate().unwrap_err();
            assert!(message.contains("(--stop) is"), "{message}");
        }
    }
}
