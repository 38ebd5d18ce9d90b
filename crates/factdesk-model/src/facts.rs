//! How the facts a claim states line up with a premise: each number, date, name, negation and
//! closed-set term of the claim (a direction, a material, one side of an antonym pair) is
//! matched, stated differently (a conflict: "claim: 412 metres · evidence: 212 metres"), or
//! not found in the premise at all (unsupported). The alignment itself is made by
//! `factdesk-methods` (`facts`); this is what a check keeps of it, beside each premise, for
//! people and reports.

use serde::{Deserialize, Serialize};

/// What kind of fact a span states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum FactKind {
    /// A number or a quantity, with its unit when it has one ("212 metres", "20%", "two").
    Number,
    /// A year or a date ("1889", "20 July 1969").
    Date,
    /// A name: a person, a place, an organisation, a work ("Louis Pasteur").
    Name,
    /// Whether the statement is negated ("is not", "never", "cannot").
    Polarity,
    /// A word of a closed set whose members exclude each other: directions, materials,
    /// antonyms such as rose / fell, won / lost, first / last.
    Term,
    /// Who does what: the claim gives a role (the first, the largest, the winner) to another
    /// name than the premise does.
    Role,
}

impl FactKind {
    /// The kind for people ("number", "date", …).
    pub fn label(self) -> &'static str {
        match self {
            FactKind::Number => "number",
            FactKind::Date => "date",
            FactKind::Name => "name",
            FactKind::Polarity => "negation",
            FactKind::Term => "term",
            FactKind::Role => "role",
        }
    }
}

/// A claim fact and what the premise says in its place.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct FactPair {
    pub kind: FactKind,
    /// The span of the claim, as written there.
    pub claim: String,
    /// The span of the premise, as written there (empty for an unsupported fact).
    pub evidence: String,
}

/// The alignment of a claim's facts with one premise.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, ts_rs::TS)]
pub struct FactAlignment {
    /// Claim facts the premise states differently: the claim is contradicted there.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conflicts: Vec<FactPair>,
    /// Claim facts the premise does not hold at all (their `evidence` is empty).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unsupported: Vec<FactPair>,
    /// Claim facts the premise holds too.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub matched: Vec<FactPair>,
    /// The premise holds too few of the claim's words to be about the same thing, whatever a
    /// model makes of it (under `factdesk_methods::facts::UNRELATED_SHARE` of them, or one
    /// alone of five or more).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unrelated: bool,
}

impl FactAlignment {
    /// Whether the claim stated no fact the alignment could look for.
    pub fn is_empty(&self) -> bool {
        self.conflicts.is_empty() && self.unsupported.is_empty() && self.matched.is_empty()
    }

    /// One line for people: "claim: 412 metres · evidence: 212 metres; not in the evidence:
    /// 1887"; `None` when nothing conflicts or is missing and the premise is about the claim's
    /// subject.
    pub fn summary(&self) -> Option<String> {
        let mut parts: Vec<String> = self
            .conflicts
            .iter()
            .map(|pair| format!("claim: {} · evidence: {}", pair.claim, pair.evidence))
            .collect();
        let (reported, missing): (Vec<&FactPair>, Vec<&FactPair>) =
            self.unsupported.iter().partition(|pair| pair.kind == FactKind::Polarity);
        if !missing.is_empty() {
            let missing: Vec<&str> = missing.iter().map(|pair| pair.claim.as_str()).collect();
            parts.push(format!("not in the evidence: {}", missing.join(", ")));
        }
        // An unsupported polarity is a claim the evidence only reports as a belief.
        for pair in reported {
            parts.push(format!("the evidence reports it only as a {}", pair.claim));
        }
        if self.unrelated {
            parts.push(
                "the evidence is about something else (it holds few of the claim's words)".into(),
            );
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(kind: FactKind, claim: &str, evidence: &str) -> FactPair {
        FactPair { kind, claim: claim.into(), evidence: evidence.into() }
    }

    #[test]
    fn the_summary_names_conflicts_then_what_is_missing() {
        let alignment = FactAlignment {
            conflicts: vec![pair(FactKind::Number, "412 metres", "212 metres")],
            unsupported: vec![pair(FactKind::Date, "1887", ""), pair(FactKind::Name, "Oslo", "")],
            matched: vec![pair(FactKind::Name, "Eiffel", "Eiffel")],
            unrelated: false,
        };
        assert_eq!(
            alignment.summary().as_deref(),
            Some("claim: 412 metres · evidence: 212 metres; not in the evidence: 1887, Oslo")
        );
        let quiet = FactAlignment { matched: alignment.matched.clone(), ..Default::default() };
        assert_eq!(quiet.summary(), None);
        let elsewhere = FactAlignment { unrelated: true, ..Default::default() };
        assert_eq!(
            elsewhere.summary().as_deref(),
            Some("the evidence is about something else (it holds few of the claim's words)")
        );
        assert!(elsewhere.is_empty(), "a premise about something else states no claim fact");
        assert!(!quiet.is_empty());
        assert!(FactAlignment::default().is_empty());
    }

    #[test]
    fn an_alignment_without_facts_is_left_out_of_json() {
        let json = serde_json::to_string(&FactAlignment::default()).unwrap();
        assert_eq!(json, "{}");
        let back: FactAlignment = serde_json::from_str("{}").unwrap();
        assert!(back.is_empty());
    }
}
