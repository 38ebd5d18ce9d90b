//! Passages: the texts of a collection that methods revise, summarise or score (a news summary
//! with the documents it came from, an answer with its question), kept beside its claims.

use factdesk_model::{DocumentId, NewPassage, Passage, PassageKind, StoredOutcome};
use factdesk_store::PassageInsertOutcome;
use serde::Serialize;

use crate::verify::CheckSelection;
use crate::{CoreError, Factdesk, Result};

/// What adding passages did.
#[derive(Debug, Clone, Default, Serialize, ts_rs::TS)]
pub struct PassageAddSummary {
    pub collection: String,
    pub added: usize,
    /// Passages whose text the collection already held (left as they were).
    pub duplicates: usize,
}

impl Factdesk {
    /// Adds a passage to `collection` (created if missing). Its text may not be empty, and its
    /// source documents must exist.
    pub fn add_passage(
        &self,
        collection: &str,
        kind: PassageKind,
        text: &str,
        question: Option<&str>,
        sources: &[DocumentId],
    ) -> Result<PassageAddSummary> {
        let collection = collection.trim();
        if collection.is_empty() {
            return Err(CoreError::InvalidInput("the collection name is empty".into()));
        }
        let text = text.trim();
        if text.is_empty() {
            return Err(CoreError::InvalidInput("the passage is empty: give its text".into()));
        }
        let passage = NewPassage {
            kind,
            text: text.to_owned(),
            question: question.map(str::trim).filter(|q| !q.is_empty()).map(str::to_owned),
            sources: sources.to_vec(),
        };
        let mut store = self.store()?;
        let collection_id = store.ensure_collection(collection)?;
        let mut summary =
            PassageAddSummary { collection: collection.to_owned(), ..PassageAddSummary::default() };
        for outcome in store.insert_passages(collection_id, &[passage])? {
            match outcome {
                PassageInsertOutcome::Inserted(_) => summary.added += 1,
                PassageInsertOutcome::Duplicate(_) => summary.duplicates += 1,
            }
        }
        Ok(summary)
    }

    /// The passages of `collection`, oldest first.
    pub fn passages(&self, collection: &str) -> Result<Vec<Passage>> {
        let store = self.store()?;
        let collection = store.collection_id(collection)?;
        Ok(store.passages(collection)?)
    }

    /// Every outcome (of any kind) stored for the claims and passages of `collection`, of the
    /// run `selection` names when it names one, oldest first.
    pub fn outcomes(
        &self,
        collection: &str,
        selection: &CheckSelection,
    ) -> Result<Vec<StoredOutcome>> {
        let store = self.store()?;
        let collection = store.collection_id(collection)?;
        let mut outcomes = store.outcomes(selection.run, Some(collection))?;
        if let Some(method) = selection.method {
            outcomes.retain(|stored| stored.outcome.envelope().method == method.as_str());
        }
        Ok(outcomes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Settings;

    #[test]
    fn passages_are_added_listed_and_refused_when_empty_or_unsourced() {
        let dir = tempfile::tempdir().unwrap();
        let app = Factdesk::open_with_settings(dir.path(), Settings::default()).unwrap();
        let added = app
            .add_passage("desk", PassageKind::Answer, " Paris. ", Some("Where is it?"), &[])
            .unwrap();
        assert_eq!((added.added, added.duplicates), (1, 0));
        let again = app
            .add_passage("desk", PassageKind::Answer, "Paris.", Some("Where is it?"), &[])
            .unwrap();
        assert_eq!((again.added, again.duplicates), (0, 1));
        // The same words without the question are another passage.
        let other = app.add_passage("desk", PassageKind::Answer, "Paris.", None, &[]).unwrap();
        assert_eq!((other.added, other.duplicates), (1, 0));
        let listed = app.passages("desk").unwrap();
        assert_eq!(listed.len(), 2);
        assert_eq!(listed[0].question.as_deref(), Some("Where is it?"));
        assert_eq!(listed[0].text, "Paris.");

        let empty = app.add_passage("desk", PassageKind::Text, "  ", None, &[]).unwrap_err();
        assert!(empty.to_string().contains("passage is empty"), "{empty}");
        let unsourced = app
            .add_passage("desk", PassageKind::Summary, "A.", None, &[DocumentId(5)])
            .unwrap_err();
        assert!(unsourced.to_string().contains("document 5"), "{unsourced}");
        assert!(app.outcomes("desk", &CheckSelection::default()).unwrap().is_empty());
    }
}
