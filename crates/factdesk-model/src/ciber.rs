//! What a CIBER check keeps beside its verdict ("CIBER: Claim Investigation Based on Evidence
//! Retrieval"): for each evidence document, every probe with its answers (or answer
//! probabilities) and how each was resolved, the support / refute / neutral shares of the
//! agreeing and the contradicting probe sets, and the verdict each fusion rule reaches; for
//! the claim, the verdict of each rule, the plain-RAG baseline's answer, and the documents
//! that support and refute it most strongly. The arithmetic is in `factdesk-methods`; these are
//! the shapes stored with the check and shown to people.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::{UnknownValue, Verdict};

/// What an answer says about the claim: it supports it, refutes it, or neither.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum Stance {
    Support,
    Refute,
    Neutral,
}

impl Stance {
    pub const ALL: [Stance; 3] = [Stance::Support, Stance::Refute, Stance::Neutral];

    /// The stance a contradicting probe's answer has towards the claim: support and refute
    /// swap, neutral stays.
    pub fn inverted(self) -> Stance {
        match self {
            Stance::Support => Stance::Refute,
            Stance::Refute => Stance::Support,
            Stance::Neutral => Stance::Neutral,
        }
    }

    /// The claim verdict this stance amounts to.
    pub fn verdict(self) -> Verdict {
        match self {
            Stance::Support => Verdict::Supported,
            Stance::Refute => Verdict::Refuted,
            Stance::Neutral => Verdict::NotEnoughInfo,
        }
    }

    pub fn letter(self) -> &'static str {
        match self {
            Stance::Support => "S",
            Stance::Refute => "R",
            Stance::Neutral => "N",
        }
    }
}

/// Shares (or masses, or weighted scores) of support, refute and neutral.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Masses {
    pub support: f64,
    pub refute: f64,
    pub neutral: f64,
}

impl Masses {
    pub fn new(support: f64, refute: f64, neutral: f64) -> Masses {
        Masses { support, refute, neutral }
    }

    /// All on one stance.
    pub fn only(stance: Stance) -> Masses {
        let mut masses = Masses::default();
        *masses.get_mut(stance) = 1.0;
        masses
    }

    pub fn get(&self, stance: Stance) -> f64 {
        match stance {
            Stance::Support => self.support,
            Stance::Refute => self.refute,
            Stance::Neutral => self.neutral,
        }
    }

    pub fn get_mut(&mut self, stance: Stance) -> &mut f64 {
        match stance {
            Stance::Support => &mut self.support,
            Stance::Refute => &mut self.refute,
            Stance::Neutral => &mut self.neutral,
        }
    }

    pub fn total(&self) -> f64 {
        self.support + self.refute + self.neutral
    }

    /// Support and refute swapped (a contradicting probe's answers read towards the claim).
    pub fn inverted(&self) -> Masses {
        Masses { support: self.refute, refute: self.support, neutral: self.neutral }
    }
}

/// How per-probe evidence is fused into one verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum FusionRule {
    /// Weighted proportions.
    Wp,
    /// Weighted information gain.
    Wig,
    /// Weighted belief update (Dempster–Shafer).
    Wbu,
    /// The mode of the three.
    Meta,
}

impl FusionRule {
    pub const ALL: [FusionRule; 4] =
        [FusionRule::Wp, FusionRule::Wig, FusionRule::Wbu, FusionRule::Meta];

    pub fn as_str(self) -> &'static str {
        match self {
            FusionRule::Wp => "wp",
            FusionRule::Wig => "wig",
            FusionRule::Wbu => "wbu",
            FusionRule::Meta => "meta",
        }
    }
}

impl fmt::Display for FusionRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for FusionRule {
    type Err = UnknownValue;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let key = s.trim().to_ascii_lowercase();
        FusionRule::ALL.into_iter().find(|rule| rule.as_str() == key).ok_or(UnknownValue {
            kind: "fusion rule",
            value: s.to_owned(),
            expected: "wp, wig, wbu, meta",
        })
    }
}

/// The verdict one fusion rule reaches, with its confidence and the scores it chose from.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct RuleVerdict {
    pub rule: FusionRule,
    pub stance: Stance,
    /// In [0, 1] (WIG's score divided by ln 3).
    pub confidence: f64,
    /// The rule's score for each stance (WIG's not normalised; none for meta).
    pub scores: Option<Masses>,
}

/// Which set a probe belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ProbeSet {
    /// The original question and its paraphrases: a "yes" supports the claim.
    Agree,
    /// The negated question and its paraphrases: a "yes" refutes the claim.
    Conflict,
}

/// How a probe's answer distribution was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ProbeMode {
    /// From the first answer token's probabilities (the model's logits, or a server's
    /// log-probabilities), one call.
    Exact,
    /// From sampled answers, each resolved by the response parser.
    Sampling,
}

/// One probe asked about one document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ProbeResult {
    pub set: ProbeSet,
    pub question: String,
    pub mode: ProbeMode,
    /// Sampled answers and their resolution towards the claim (after inverting a
    /// contradicting probe's); empty in exact mode.
    pub answers: Vec<ResolvedAnswer>,
    /// The probe's support / refute / neutral shares towards the claim.
    pub shares: Masses,
}

/// One sampled answer and what it says about the claim.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct ResolvedAnswer {
    pub text: String,
    pub stance: Stance,
}

/// Everything CIBER read and decided about one evidence document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct CiberDocument {
    /// Index into the check's `sources`.
    pub source: usize,
    /// Words of the document the probes quoted.
    pub words: usize,
    /// Whether the document was cut to fit (`words` of it were quoted).
    pub truncated: bool,
    pub probes: Vec<ProbeResult>,
    /// P_AG: the agreeing probes' shares.
    pub agree: Masses,
    /// P_CF: the contradicting probes' shares, already read towards the claim.
    pub conflict: Masses,
    /// One verdict per rule, in [`FusionRule::ALL`] order.
    pub fusion: Vec<RuleVerdict>,
}

impl CiberDocument {
    pub fn verdict(&self, rule: FusionRule) -> Option<&RuleVerdict> {
        self.fusion.iter().find(|verdict| verdict.rule == rule)
    }
}

/// The plain-RAG baseline: one prompt with every document, answered yes / no / not sure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct RagAnswer {
    pub stance: Stance,
    pub mode: ProbeMode,
    pub shares: Masses,
}

/// A CIBER check's detail.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct CiberDetail {
    /// The rule the check's verdict follows.
    pub rule: FusionRule,
    pub alpha: f64,
    pub documents: Vec<CiberDocument>,
    /// The claim verdict each rule would give, in [`FusionRule::ALL`] order.
    pub claim: Vec<RuleVerdict>,
    /// Index into `documents` of the one that supports the claim most confidently (under
    /// `rule`), if any does.
    pub strongest_support: Option<usize>,
    pub strongest_refute: Option<usize>,
    pub rag: Option<RagAnswer>,
}

impl CiberDetail {
    pub fn claim_verdict(&self, rule: FusionRule) -> Option<&RuleVerdict> {
        self.claim.iter().find(|verdict| verdict.rule == rule)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_round_trip_and_stances_invert() {
        for rule in FusionRule::ALL {
            assert_eq!(rule.as_str().parse::<FusionRule>(), Ok(rule));
        }
        assert!("vote".parse::<FusionRule>().is_err());
        assert_eq!(Stance::Support.inverted(), Stance::Refute);
        assert_eq!(Stance::Neutral.inverted(), Stance::Neutral);
        assert_eq!(Masses::new(0.5, 0.2, 0.3).inverted(), Masses::new(0.2, 0.5, 0.3));
        assert_eq!(Masses::only(Stance::Refute), Masses::new(0.0, 1.0, 0.0));
    }
}
