//! What a method produces, whatever it runs on: an [`Outcome`] is one [`Envelope`] (the method,
//! its parameters, the models it asked, the tokens it spent by purpose, an explanation for
//! people) around a body of one kind — a verdict on a claim ([`ClaimCheck`]), a revision of a
//! passage ([`Revision`]), a summary scored source by source ([`SourcedSummary`]), or a table
//! of criterion scores ([`ScoreTable`]). The subjects outcomes are about are claims and
//! [`Passage`]s (a text with its kind, and the source documents it came from, if known).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

pub use crate::envelope::Envelope;
pub use crate::passage::{NewPassage, Passage, PassageId, PassageKind, SubjectId};

use crate::check::{CheckId, ClaimCheck, EvidenceSource};
use crate::{RunId, UnknownValue};

/// One result of a method on one subject, tagged by its `kind`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Outcome {
    /// A verdict on a claim, with its evidence.
    Verdict(ClaimCheck),
    /// A passage rewritten to agree with the evidence.
    Revision(Revision),
    /// A summary of several sources, each scored.
    Summary(SourcedSummary),
    /// Scores of a passage against named criteria.
    Scores(ScoreTable),
}

impl Outcome {
    pub fn envelope(&self) -> &Envelope {
        match self {
            Outcome::Verdict(check) => &check.envelope,
            Outcome::Revision(revision) => &revision.envelope,
            Outcome::Summary(summary) => &summary.envelope,
            Outcome::Scores(table) => &table.envelope,
        }
    }

    pub fn kind(&self) -> OutcomeKind {
        match self {
            Outcome::Verdict(_) => OutcomeKind::Verdict,
            Outcome::Revision(_) => OutcomeKind::Revision,
            Outcome::Summary(_) => OutcomeKind::Summary,
            Outcome::Scores(_) => OutcomeKind::Scores,
        }
    }

    /// The text the outcome is about: the claim, the passage revised or scored, or the
    /// summary's question (its text when there is none).
    pub fn subject_text(&self) -> &str {
        match self {
            Outcome::Verdict(check) => &check.claim,
            Outcome::Revision(revision) => &revision.original,
            Outcome::Summary(summary) => summary.question.as_deref().unwrap_or(&summary.text),
            Outcome::Scores(table) => &table.passage,
        }
    }

    /// What makes an outcome consistent, checked before it is stored.
    pub fn inconsistency(&self) -> Option<String> {
        match self {
            Outcome::Verdict(check) => check.inconsistency(),
            Outcome::Revision(revision) => revision.inconsistency(),
            Outcome::Summary(summary) => summary
                .sources
                .iter()
                .find(|scored| !scored.score.is_finite())
                .map(|scored| format!("source {} has no finite score", scored.source_label())),
            Outcome::Scores(table) => table
                .rows
                .iter()
                .find(|row| row.score.is_some_and(|score| !score.is_finite()))
                .map(|row| format!("criterion {} has no finite score", row.criterion)),
        }
    }
}

/// The kinds of [`Outcome`], as stored beside each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum OutcomeKind {
    Verdict,
    Revision,
    Summary,
    Scores,
}

impl OutcomeKind {
    pub const ALL: [OutcomeKind; 4] =
        [OutcomeKind::Verdict, OutcomeKind::Revision, OutcomeKind::Summary, OutcomeKind::Scores];

    pub fn as_str(self) -> &'static str {
        match self {
            OutcomeKind::Verdict => "verdict",
            OutcomeKind::Revision => "revision",
            OutcomeKind::Summary => "summary",
            OutcomeKind::Scores => "scores",
        }
    }
}

impl fmt::Display for OutcomeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for OutcomeKind {
    type Err = UnknownValue;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        OutcomeKind::ALL.into_iter().find(|kind| kind.as_str() == s.trim()).ok_or(UnknownValue {
            kind: "outcome kind",
            value: s.to_owned(),
            expected: "verdict, revision, summary, scores",
        })
    }
}

/// A passage rewritten to agree with the evidence: the original, the revision, and each edit
/// with what led to it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Revision {
    #[serde(flatten)]
    pub envelope: Envelope,
    pub original: String,
    pub revised: String,
    /// In order of their place in the original; applying them to it gives `revised`.
    pub edits: Vec<Edit>,
    /// What the method checked, question by question: the part of the passage asked about,
    /// the evidence found and whether it agreed. The agreeing steps are the attribution
    /// report: the evidence that backs each part left as it was.
    #[serde(default)]
    pub steps: Vec<VerificationStep>,
    /// Changes the method proposed and did not make, each with the reason (a guard rail, or
    /// model output that could not be applied).
    #[serde(default)]
    pub rejected: Vec<RejectedChange>,
    /// How far the revision moved from the original, and what the evidence says of each.
    #[serde(default)]
    pub metrics: Option<RevisionMetrics>,
}

impl Revision {
    /// Edits must apply: each `before` is found, in order and without overlap, at its offset
    /// in the original, and applying all of them gives the revised text.
    pub fn inconsistency(&self) -> Option<String> {
        if let Some((index, agreement)) = self.edits.iter().enumerate().find_map(|(index, edit)| {
            edit.agreement.filter(|a| !(0.0..=1.0).contains(a)).map(|a| (index, a))
        }) {
            return Some(format!("edit {} has agreement {agreement}, not in [0, 1]", index + 1));
        }
        let text = match apply_edits(&self.original, &self.edits, |_| true) {
            Ok(text) => text,
            Err(index) => {
                return Some(format!(
                    "edit {} does not match the original at byte {}",
                    index + 1,
                    self.edits[index].start
                ));
            }
        };
        if let Some((index, step)) = self.steps.iter().enumerate().find(|(_, step)| {
            step.start > step.end || self.original.get(step.start..step.end).is_none()
        }) {
            return Some(format!(
                "step {} covers bytes {}..{}, not a part of the original",
                index + 1,
                step.start,
                step.end
            ));
        }
        (text != self.revised)
            .then(|| "applying the edits to the original does not give the revision".to_owned())
    }
}

/// `original` with each of `edits` applied where `keep(index)`, and left as it was where not;
/// `Err(index)` names the first edit that does not match the original at its offset, in order
/// and without overlap.
pub fn apply_edits(
    original: &str,
    edits: &[Edit],
    keep: impl Fn(usize) -> bool,
) -> Result<String, usize> {
    let mut text = String::with_capacity(original.len());
    let mut at = 0usize;
    for (index, edit) in edits.iter().enumerate() {
        let end = edit.start.saturating_add(edit.before.len());
        if edit.start < at || original.get(edit.start..end) != Some(edit.before.as_str()) {
            return Err(index);
        }
        text.push_str(&original[at..edit.start]);
        text.push_str(if keep(index) { &edit.after } else { &edit.before });
        at = end;
    }
    text.push_str(&original[at..]);
    Ok(text)
}

/// One edit of a revision, with the question, evidence and agreement behind it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Edit {
    /// Where `before` starts in the original, in UTF-8 bytes.
    pub start: usize,
    /// The text replaced (empty for an insertion).
    pub before: String,
    /// The text put in its place (empty for a deletion).
    pub after: String,
    /// The question whose answer disagreed with the passage, when the method asks questions.
    pub question: Option<String>,
    /// The evidence the edit follows.
    pub evidence: Vec<EvidenceSentences>,
    /// How far the evidence agreed with the original text, in [0, 1], when measured.
    pub agreement: Option<f64>,
}

/// One question a revising method asked about part of a passage, the evidence it found, and
/// whether that evidence agrees with the passage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct VerificationStep {
    /// Where the part asked about starts and ends in the original, in UTF-8 bytes.
    pub start: usize,
    pub end: usize,
    /// The question, or the search query.
    pub question: String,
    /// The answer the evidence gave, when the method answers its questions (CoVe).
    pub answer: Option<String>,
    pub evidence: Vec<EvidenceSentences>,
    /// Whether the evidence agrees with the part; `None` when nothing judged it (no evidence,
    /// or an answer that said neither).
    pub agrees: Option<bool>,
    /// How far it agreed, in [0, 1], when the judge gives a degree (the NLI verifier's
    /// P(entailment); 1 or 0 for the chat model's agrees / disagrees).
    pub agreement: Option<f64>,
    /// The judge's reasoning, or why the step could not be judged.
    pub note: Option<String>,
}

/// A person's decision on one edit of a revision, kept beside the revision (which it never
/// changes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct EditDecision {
    /// The edit's place in [`Revision::edits`], from 0.
    pub edit: usize,
    pub accepted: bool,
    /// Why, when the person said (review mode asks it of a rejection).
    #[serde(default)]
    pub comment: Option<String>,
    pub reviewer: Option<String>,
    pub decided_at: String,
}

/// A person's review of one source of a summary of several sources: whether they agree with
/// what the summary did with it (used it, or dropped it), and why not. Kept beside the summary,
/// which it never changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct SourceReview {
    /// The source's place in [`SourcedSummary::sources`], from 0.
    pub source: usize,
    /// The person agrees with the summary's choice for this source.
    pub accepted: bool,
    /// Why, when the person said (review mode asks it when they disagree).
    pub comment: Option<String>,
    pub reviewer: Option<String>,
    pub reviewed_at: String,
}

impl Revision {
    /// The text a person keeps: the original with every edit applied except those `decisions`
    /// reject (an edit nobody decided on stands as the method made it).
    pub fn accepted_text(&self, decisions: &[EditDecision]) -> String {
        let rejected = |index: usize| {
            decisions.iter().any(|decision| decision.edit == index && !decision.accepted)
        };
        // Stored revisions were checked whole; one that is not keeps its original.
        apply_edits(&self.original, &self.edits, |index| !rejected(index))
            .unwrap_or_else(|_| self.original.clone())
    }
}

/// A change proposed and not made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct RejectedChange {
    /// The text the change would have replaced (the whole passage for a refinement).
    pub before: String,
    pub after: String,
    pub reason: String,
}

/// Measures of a revision. Edit distances are normalised Levenshtein distances over
/// characters, 0 (the same) to 1; similarities are cosines of sentence embeddings; entailment
/// is the NLI verifier's support of the text by the source documents (min over sentences of
/// the max over premises).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct RevisionMetrics {
    /// From the original to the revision (preservation: lower keeps more).
    pub edit_distance: f64,
    /// From the reference to the original and to the revision, when a reference was given.
    pub reference_distance_before: Option<f64>,
    pub reference_distance_after: Option<f64>,
    /// Embedding similarity of the revision to the original.
    pub similarity: Option<f64>,
    /// Embedding similarity of the original and of the revision to the reference.
    pub reference_similarity_before: Option<f64>,
    pub reference_similarity_after: Option<f64>,
    /// Support of the original and of the revision by the source documents.
    pub entailment_before: Option<f64>,
    pub entailment_after: Option<f64>,
    /// The embedding and NLI models measured with.
    pub embedder: Option<String>,
    pub nli_model: Option<String>,
    /// An LLM judge's 1–5 scores of the original and of the revision against the sources, by
    /// criterion (when asked for; G-Eval style).
    #[serde(default)]
    pub judge: Vec<JudgeScore>,
    /// What could not be measured, and why.
    #[serde(default)]
    pub notes: Vec<String>,
}

/// A judge's score of a text on one criterion, 1 (very poor) to 5 (excellent): the mean of the
/// five digits weighted by their probabilities where the model gives them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct JudgeScore {
    /// `overall`, `factuality` or `relevance`.
    pub criterion: String,
    pub before: f64,
    pub after: f64,
}

/// Sentences of one source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct EvidenceSentences {
    pub source: EvidenceSource,
    pub sentences: Vec<String>,
}

/// A summary written from several sources, with a score for each source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct SourcedSummary {
    #[serde(flatten)]
    pub envelope: Envelope,
    /// The question the summary answers, when it answers one.
    pub question: Option<String>,
    pub text: String,
    pub sources: Vec<ScoredSource>,
    /// Per source, the claims it was scored on and every source's stance on each (Truthful
    /// Text Summarization); empty for methods that score otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub claims: Vec<SourceClaims>,
}

/// The claims one source was scored on (drafted from the other sources) and each source's
/// stance on them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct SourceClaims {
    /// Index into [`SourcedSummary::sources`].
    pub source: usize,
    /// The draft the claims were taken from, written from every source but this one.
    #[serde(default)]
    pub draft: String,
    pub claims: Vec<String>,
    /// `stances[j][k]`: source j's stance on claim k (neutral: it abstained).
    pub stances: Vec<Vec<crate::ciber::Stance>>,
    /// The source's score by the majority rule, beside its correlated-agreement score.
    pub majority: f64,
    /// The permutation of the claims its score used.
    pub permutation: Vec<usize>,
}

/// One source of a summary and its score (e.g. how far its claims agree with the others').
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ScoredSource {
    pub source: EvidenceSource,
    pub score: f64,
    /// Whether the summary used it.
    pub used: bool,
    pub note: Option<String>,
}

impl ScoredSource {
    fn source_label(&self) -> String {
        let source = &self.source;
        source
            .url
            .clone()
            .or_else(|| source.title.clone())
            .or_else(|| source.document_id.map(|id| format!("document {id}")))
            .unwrap_or_else(|| "without a name".to_owned())
    }
}

/// Scores of a passage against named criteria.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ScoreTable {
    #[serde(flatten)]
    pub envelope: Envelope,
    pub passage: String,
    pub rows: Vec<ScoreRow>,
}

/// One criterion's score, label, or both.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ScoreRow {
    pub criterion: String,
    pub score: Option<f64>,
    pub label: Option<String>,
    pub note: Option<String>,
}

/// A stored outcome: the outcome, what it is about and where it belongs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct StoredOutcome {
    pub id: CheckId,
    pub run_id: RunId,
    /// `None` for an ad-hoc text.
    pub subject: Option<SubjectId>,
    pub checked_at: String,
    /// Model calls recorded for it (their audit record ids).
    pub model_calls: Vec<i64>,
    pub outcome: Outcome,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::TokenUse;

    fn envelope() -> Envelope {
        Envelope {
            method: "toy".into(),
            parameters: serde_json::json!({"k": 1}).into(),
            model: "scripted:test".into(),
            nli_model: None,
            tokens: TokenUse::default(),
            explanation: "because".into(),
        }
    }

    fn edit(start: usize, before: &str, after: &str) -> Edit {
        Edit {
            start,
            before: before.into(),
            after: after.into(),
            question: None,
            evidence: Vec::new(),
            agreement: None,
        }
    }

    fn revision(original: &str, revised: &str, edits: Vec<Edit>) -> Revision {
        Revision {
            envelope: envelope(),
            original: original.into(),
            revised: revised.into(),
            edits,
            steps: Vec::new(),
            rejected: Vec::new(),
            metrics: None,
        }
    }

    #[test]
    fn a_revision_is_consistent_only_if_its_edits_give_it() {
        let original = "The tower opened in 1899 in Rome.";
        let good = revision(
            original,
            "The tower opened in 1889 in Paris.",
            vec![edit(20, "1899", "1889"), edit(28, "Rome", "Paris")],
        );
        assert_eq!(good.inconsistency(), None);
        // An edit that is not where it says, edits out of order, a revision they do not give.
        let misplaced = revision(original, "x", vec![edit(3, "1899", "1889")]);
        assert!(misplaced.inconsistency().unwrap().contains("edit 1"));
        let unordered = revision(
            original,
            "The tower opened in 1889 in Paris.",
            vec![edit(28, "Rome", "Paris"), edit(20, "1899", "1889")],
        );
        assert!(unordered.inconsistency().unwrap().contains("edit 2"));
        let wrong = revision(original, "Something else.", vec![edit(20, "1899", "1889")]);
        assert!(wrong.inconsistency().unwrap().contains("does not give"));
        // An edit that would cut a character in two is refused, not a panic.
        let split = revision("né", "x", vec![edit(2, "\u{301}", "")]);
        assert!(split.inconsistency().is_some());
    }

    #[test]
    fn outcomes_are_tagged_by_kind_with_the_envelope_flat() {
        let outcome = Outcome::Revision(revision("a", "b", vec![edit(0, "a", "b")]));
        let json = serde_json::to_value(&outcome).unwrap();
        assert_eq!(json["kind"], "revision");
        assert_eq!(json["method"], "toy");
        assert_eq!(json["explanation"], "because");
        let back: Outcome = serde_json::from_value(json).unwrap();
        assert_eq!(back, outcome);
        assert_eq!(back.kind(), OutcomeKind::Revision);
        assert_eq!(back.envelope().method, "toy");
        assert_eq!(back.subject_text(), "a");
    }

    #[test]
    fn kinds_and_passage_kinds_parse() {
        for kind in OutcomeKind::ALL {
            assert_eq!(kind.as_str().parse::<OutcomeKind>(), Ok(kind));
        }
        for kind in PassageKind::ALL {
            assert_eq!(kind.as_str().parse::<PassageKind>(), Ok(kind));
        }
        assert_eq!("Structured summary".parse::<PassageKind>(), Ok(PassageKind::StructuredSummary));
        assert!("poem".parse::<PassageKind>().is_err());
        let subject = serde_json::to_value(SubjectId::Passage(PassageId(4))).unwrap();
        assert_eq!(subject, serde_json::json!({"passage": 4}));
    }

    #[test]
    fn the_kept_text_applies_every_edit_but_the_rejected_ones() {
        let edit = |start: usize, before: &str, after: &str| Edit {
            start,
            before: before.into(),
            after: after.into(),
            question: None,
            evidence: Vec::new(),
            agreement: None,
        };
        let revision = revision(
            "Opened in 1899, 300 m tall.",
            "Opened in 1889, 330 m tall.",
            vec![edit(10, "1899", "1889"), edit(16, "300", "330")],
        );
        let decided = |edit: usize, accepted: bool| EditDecision {
            edit,
            accepted,
            comment: None,
            reviewer: None,
            decided_at: String::new(),
        };
        assert_eq!(revision.accepted_text(&[]), revision.revised);
        assert_eq!(revision.accepted_text(&[decided(1, false)]), "Opened in 1889, 300 m tall.");
        assert_eq!(
            revision.accepted_text(&[decided(0, false), decided(1, false)]),
            revision.original
        );
        assert_eq!(revision.accepted_text(&[decided(0, true)]), revision.revised);
    }
}
