//! Passages: the texts of a collection that methods revise, summarise or score (a news summary
//! with the documents it came from, an answer with its question), kept beside its claims;
//! added one by one or imported from a JSONL file with their source articles.

use std::collections::HashMap;
use std::io::BufRead as _;
use std::path::PathBuf;
use std::sync::Arc;

use factdesk_model::{DocumentId, NewPassage, Passage, PassageKind, StoredOutcome};
use factdesk_store::PassageInsertOutcome;
use serde::Serialize;

use crate::import::{ImportFailure, ImportRequest};
use crate::verify::CheckSelection;
use crate::{CancelToken, CoreError, Factdesk, Reporter, Result};

/// What adding passages did.
#[derive(Debug, Clone, Default, Serialize, ts_rs::TS)]
pub struct PassageAddSummary {
    pub collection: String,
    pub added: usize,
    /// Passages whose text the collection already held (left as they were).
    pub duplicates: usize,
}

/// What to import as passages: a JSONL file whose records each hold a passage and, when
/// `source_field` is given, the article it was written from.
#[derive(Debug, Clone)]
pub struct PassageImportRequest {
    pub file: PathBuf,
    pub collection: String,
    /// The field holding each passage's text (e.g. `summary`).
    pub text_field: String,
    pub kind: PassageKind,
    /// The field holding the question a passage answers, if any.
    pub question_field: Option<String>,
    /// The field holding each record's source article: imported into `corpus` (as `factdesk
    /// import --text-field` would) and tied to the record's passage.
    pub source_field: Option<String>,
    pub corpus: Option<String>,
}

/// What importing passages did.
#[derive(Debug, Clone, Default, Serialize, ts_rs::TS)]
pub struct PassageImportSummary {
    pub collection: String,
    pub added: usize,
    /// Passages the collection already held (left as they were).
    pub duplicates: usize,
    pub failed: usize,
    /// Source articles imported, and those the corpus already had.
    pub sources_imported: u64,
    pub sources_already_there: u64,
    /// Records that gave no passage, by file and line, with why.
    pub failures: Vec<ImportFailure>,
}

impl Factdesk {
    /// Imports the passages of a JSONL file into `request.collection` (created if missing),
    /// each tied to its record's source article when `source_field` names one (the articles
    /// are imported into `corpus` first). The file is read a line at a time; a record without
    /// a passage text, or whose article could not be imported, fails alone and is named by its
    /// line.
    pub async fn import_passages(
        &self,
        request: &PassageImportRequest,
        reporter: Arc<dyn Reporter>,
        cancel: CancelToken,
    ) -> Result<PassageImportSummary> {
        let collection = request.collection.trim();
        if collection.is_empty() {
            return Err(CoreError::InvalidInput(
                "the collection name is empty; pass --collection NAME".into(),
            ));
        }
        let origin = request.file.display().to_string();
        let is_jsonl = request.file.extension().is_some_and(|extension| {
            ["jsonl", "ndjson"].contains(&extension.to_string_lossy().to_ascii_lowercase().as_str())
        });
        if !is_jsonl {
            return Err(CoreError::InvalidInput(format!(
                "{origin}: passages are imported from JSONL files (.jsonl), one record per line"
            )));
        }
        let mut summary =
            PassageImportSummary { collection: collection.to_owned(), ..Default::default() };
        // Each record's source article, by its line in the file.
        let mut sources: HashMap<usize, DocumentId> = HashMap::new();
        let mut source_failures: HashMap<usize, String> = HashMap::new();
        if request.source_field.is_none() && request.corpus.is_some() {
            return Err(CoreError::InvalidInput(
                "--corpus names where the source articles go; name their field with \
                 --source-field too"
                    .into(),
            ));
        }
        if let Some(field) = &request.source_field {
            let Some(corpus) = request.corpus.as_deref().map(str::trim).filter(|c| !c.is_empty())
            else {
                return Err(CoreError::InvalidInput(
                    "the source articles go into a corpus: pass --corpus NAME with --source-field"
                        .into(),
                ));
            };
            let imported = self
                .import(
                    ImportRequest {
                        sources: vec![origin.clone()],
                        corpus: corpus.to_owned(),
                        text_field: Some(field.clone()),
                        ..ImportRequest::default()
                    },
                    reporter,
                    cancel.clone(),
                )
                .await?;
            let line_of =
                |item: &str| item.rsplit_once(':').and_then(|(_, line)| line.parse::<usize>().ok());
            for document in &imported.documents {
                if let Some(line) = line_of(&document.origin) {
                    sources.insert(line, document.id);
                }
            }
            for failure in &imported.failures {
                match line_of(&failure.item) {
                    Some(line) => {
                        source_failures.insert(line, failure.message.clone());
                    }
                    // A failure of the whole file, or of no single line: said as it is.
                    None => summary.failures.push(ImportFailure {
                        item: failure.item.clone(),
                        message: format!("the source articles: {}", failure.message),
                    }),
                }
            }
            summary.sources_imported = imported.imported;
            summary.sources_already_there = imported.duplicates;
            if imported.cancelled {
                return Err(CoreError::InvalidInput(
                    "cancelled while importing the source articles; no passage was added".into(),
                ));
            }
        }
        let (file, _) =
            crate::import::open_capped(&request.file, self.settings().import.max_file_bytes)
                .map_err(|message| CoreError::InvalidInput(format!("{origin}: {message}")))?;
        let max_record = self.settings().import.max_record_bytes;
        let mut reader = std::io::BufReader::new(file);
        let mut bytes = Vec::new();
        let mut passages = Vec::new();
        let mut number = 0usize;
        loop {
            bytes.clear();
            let read = reader
                .read_until(b'\n', &mut bytes)
                .map_err(|error| CoreError::InvalidInput(format!("{origin}: {error}")))?;
            if read == 0 {
                break;
            }
            number += 1;
            let item = format!("{origin}:{number}");
            let fail = |message: String| ImportFailure { item: item.clone(), message };
            let mut raw: &[u8] = &bytes;
            if number == 1 {
                raw = raw.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(raw);
            }
            if raw.len() as u64 > max_record {
                summary.failures.push(fail(format!(
                    "the line has {} bytes, more than import.max_record_bytes ({max_record})",
                    raw.len()
                )));
                continue;
            }
            let Ok(line) = std::str::from_utf8(raw) else {
                summary
                    .failures
                    .push(fail("the line is not UTF-8 text: save the file as UTF-8".into()));
                continue;
            };
            if line.trim().is_empty() {
                continue;
            }
            let record: serde_json::Value = match serde_json::from_str(line) {
                Ok(value @ serde_json::Value::Object(_)) => value,
                Ok(_) => {
                    summary
                        .failures
                        .push(fail("the line is JSON but not an object ({...})".into()));
                    continue;
                }
                Err(error) => {
                    summary.failures.push(fail(format!("not valid JSON: {error}")));
                    continue;
                }
            };
            let Some(text) =
                record[&request.text_field].as_str().map(str::trim).filter(|t| !t.is_empty())
            else {
                summary.failures.push(fail(format!(
                    "no passage: the field {} is missing, empty or not text; name it with --text-field",
                    request.text_field
                )));
                continue;
            };
            let source = match (&request.source_field, sources.get(&number)) {
                (None, _) => Vec::new(),
                (Some(_), Some(id)) => vec![*id],
                (Some(field), None) => {
                    let why = source_failures
                        .get(&number)
                        .cloned()
                        .unwrap_or_else(|| format!("the field {field} gave no article"));
                    summary
                        .failures
                        .push(fail(format!("its source article was not imported: {why}")));
                    continue;
                }
            };
            let question = request
                .question_field
                .as_ref()
                .and_then(|field| record[field].as_str())
                .map(str::trim)
                .filter(|question| !question.is_empty())
                .map(str::to_owned);
            passages.push(NewPassage {
                kind: request.kind,
                text: text.to_owned(),
                question,
                sources: source,
            });
        }
        let mut store = self.store()?;
        let collection_id = store.ensure_collection(collection)?;
        for outcome in store.insert_passages(collection_id, &passages)? {
            match outcome {
                PassageInsertOutcome::Inserted(_) => summary.added += 1,
                PassageInsertOutcome::Duplicate(_) => summary.duplicates += 1,
            }
        }
        summary.failed = summary.failures.len();
        Ok(summary)
    }

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
