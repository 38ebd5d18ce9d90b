//! The `structured_summaries` and `summary_labels` tables: summaries kept for scoring with SGSS
//! and the labels of their elements, each with who or what gave it. The newest label of an
//! element counts; the older ones stay as its history.

use factdesk_model::now_rfc3339;
use rusqlite::{OptionalExtension, params};

use crate::{Result, Store, StoreError};

/// A stored summary: its question, name and the parsed summary as JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct SummaryRow {
    pub id: i64,
    pub question: String,
    pub name: String,
    pub body: String,
    pub created_at: String,
}

/// The label that counts for one element of a summary.
#[derive(Debug, Clone, PartialEq)]
pub struct SummaryLabelRow {
    pub element: String,
    /// `None`: the label was cleared.
    pub grade: Option<f64>,
    pub labeller: String,
    pub why: Option<String>,
    pub labelled_at: String,
}

fn row_to_summary(row: &rusqlite::Row<'_>) -> rusqlite::Result<SummaryRow> {
    Ok(SummaryRow {
        id: row.get(0)?,
        question: row.get(1)?,
        name: row.get(2)?,
        body: row.get(3)?,
        created_at: row.get(4)?,
    })
}

impl Store {
    /// Keeps a summary of `question`; gives its id.
    pub fn add_structured_summary(
        &mut self,
        question: &str,
        name: &str,
        body: &str,
    ) -> Result<i64> {
        self.conn.execute(
            "INSERT INTO structured_summaries (question, name, body, created_at)
             VALUES (?1, ?2, ?3, ?4)",
            params![question, name, body, now_rfc3339()],
        )?;
        Ok(self.conn.last_insert_rowid())
    }

    /// One stored summary.
    pub fn structured_summary(&self, id: i64) -> Result<SummaryRow> {
        self.conn
            .query_row(
                "SELECT id, question, name, body, created_at FROM structured_summaries WHERE id = ?1",
                [id],
                row_to_summary,
            )
            .optional()?
            .ok_or_else(|| StoreError::NotFound { what: format!("summary {id}") })
    }

    /// The stored summaries of `question` (all of them without one), oldest first.
    pub fn structured_summaries(&self, question: Option<&str>) -> Result<Vec<SummaryRow>> {
        let mut statement = self.conn.prepare(
            "SELECT id, question, name, body, created_at FROM structured_summaries
             WHERE ?1 IS NULL OR question = ?1 ORDER BY id",
        )?;
        let rows = statement.query_map([question], row_to_summary)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The questions that have stored summaries, with how many each, in the order first asked.
    pub fn summary_questions(&self) -> Result<Vec<(String, usize)>> {
        let mut statement = self.conn.prepare(
            "SELECT question, COUNT(*) FROM structured_summaries GROUP BY question ORDER BY MIN(id)",
        )?;
        let rows = statement.query_map([], |row| {
            Ok((row.get::<_, String>(0)?, usize::try_from(row.get::<_, i64>(1)?).unwrap_or(0)))
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Records a label of `element` of summary `summary` (`None` clears it).
    pub fn add_summary_label(
        &mut self,
        summary: i64,
        element: &str,
        grade: Option<f64>,
        labeller: &str,
        why: Option<&str>,
    ) -> Result<()> {
        self.structured_summary(summary)?;
        self.conn.execute(
            "INSERT INTO summary_labels (summary_id, element, grade, labeller, why, labelled_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![summary, element, grade, labeller, why, now_rfc3339()],
        )?;
        Ok(())
    }

    /// The label that counts (the newest) for each labelled element of `summary`, cleared ones
    /// included (grade `None`).
    pub fn summary_labels(&self, summary: i64) -> Result<Vec<SummaryLabelRow>> {
        let mut statement = self.conn.prepare(
            "SELECT element, grade, labeller, why, labelled_at FROM summary_labels l
             WHERE summary_id = ?1 AND id = (SELECT MAX(id) FROM summary_labels
                                              WHERE summary_id = l.summary_id
                                                AND element = l.element)
             ORDER BY element",
        )?;
        let rows = statement.query_map([summary], |row| {
            Ok(SummaryLabelRow {
                element: row.get(0)?,
                grade: row.get(1)?,
                labeller: row.get(2)?,
                why: row.get(3)?,
                labelled_at: row.get(4)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_keep_their_history_and_the_newest_counts() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("db.sqlite")).unwrap();
        let a = store.add_structured_summary("Why?", "a", "{}").unwrap();
        let b = store.add_structured_summary("Why?", "b", "{}").unwrap();
        store.add_structured_summary("How?", "c", "{}").unwrap();
        assert_eq!(store.structured_summaries(Some("Why?")).unwrap().len(), 2);
        assert_eq!(store.structured_summaries(None).unwrap().len(), 3);
        assert_eq!(
            store.summary_questions().unwrap(),
            [("Why?".to_owned(), 2), ("How?".to_owned(), 1)]
        );
        store
            .add_summary_label(a, "s1.1.relevance", Some(1.0), "model:mock", Some("P(2) 0.9"))
            .unwrap();
        store.add_summary_label(a, "s1.1.relevance", Some(0.5), "person:ana", None).unwrap();
        store.add_summary_label(a, "overview.sufficiency", Some(1.0), "person:ana", None).unwrap();
        store.add_summary_label(a, "overview.sufficiency", None, "person:ana", None).unwrap();
        let labels = store.summary_labels(a).unwrap();
        assert_eq!(labels.len(), 2);
        assert_eq!((labels[0].element.as_str(), labels[0].grade), ("overview.sufficiency", None));
        assert_eq!((labels[1].grade, labels[1].labeller.as_str()), (Some(0.5), "person:ana"));
        assert!(store.summary_labels(b).unwrap().is_empty());
        // A grade outside [0, 1] or an unknown summary is refused.
        assert!(store.add_summary_label(a, "x", Some(2.0), "person:ana", None).is_err());
        assert!(matches!(
            store.add_summary_label(99, "x", Some(1.0), "person:ana", None),
            Err(StoreError::NotFound { .. })
        ));
    }
}
