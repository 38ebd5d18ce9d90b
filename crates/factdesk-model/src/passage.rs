//! The passages of a collection (a text with its kind, the question it answers and the
//! source documents it came from, if known) and [`SubjectId`], what an outcome is about: a
//! claim or a passage.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::{ClaimId, CollectionId, DocumentId, UnknownValue};

id_type!(
    /// A passage of a collection: a text that methods revise, summarise or score.
    PassageId
);

/// What a passage is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum PassageKind {
    /// A summary of one or more source documents (a news summary).
    Summary,
    /// A summary with named fields or sections.
    StructuredSummary,
    /// An answer to a question.
    Answer,
    /// Any other text.
    Text,
}

impl PassageKind {
    pub const ALL: [PassageKind; 4] = [
        PassageKind::Summary,
        PassageKind::StructuredSummary,
        PassageKind::Answer,
        PassageKind::Text,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            PassageKind::Summary => "summary",
            PassageKind::StructuredSummary => "structured_summary",
            PassageKind::Answer => "answer",
            PassageKind::Text => "text",
        }
    }
}

impl FromStr for PassageKind {
    type Err = UnknownValue;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let key = s.trim().to_ascii_lowercase().replace([' ', '-'], "_");
        PassageKind::ALL.into_iter().find(|kind| kind.as_str() == key).ok_or(UnknownValue {
            kind: "passage kind",
            value: s.to_owned(),
            expected: "summary, structured_summary, answer, text",
        })
    }
}

/// A passage before it is stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct NewPassage {
    pub kind: PassageKind,
    pub text: String,
    /// The question it answers, for an answer or a question-led summary.
    pub question: Option<String>,
    /// The corpus documents it was written from, when known.
    pub sources: Vec<DocumentId>,
}

/// A stored passage of a collection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct Passage {
    pub id: PassageId,
    pub collection_id: CollectionId,
    pub kind: PassageKind,
    pub text: String,
    pub question: Option<String>,
    pub sources: Vec<DocumentId>,
    pub created_at: String,
}

/// What an outcome is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum SubjectId {
    Claim(ClaimId),
    Passage(PassageId),
}

impl fmt::Display for SubjectId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SubjectId::Claim(id) => write!(f, "claim {id}"),
            SubjectId::Passage(id) => write!(f, "passage {id}"),
        }
    }
}
