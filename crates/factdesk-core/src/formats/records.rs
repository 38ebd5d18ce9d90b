//! The fields of a record (a JSONL object or a CSV row) read by name, and a record turned
//! into a document.

use factdesk_store::NewDocument;
use factdesk_text::{ExtractedText, TextError};
use serde::{Deserialize, Serialize};

use super::{ParseOptions, SourceBytes, build, text_error_message};

/// Field (JSONL) or column (CSV) names tried in order for each part of a document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(deny_unknown_fields)]
pub struct FieldNames {
    pub text: Vec<String>,
    pub title: Vec<String>,
    pub url: Vec<String>,
    pub date: Vec<String>,
}

/// The fields of one record (a JSONL object or a CSV row), by name.
pub(super) trait Record {
    fn field(&self, name: &str) -> Result<Option<String>, String>;
    fn field_names(&self) -> Vec<String>;
}

impl Record for serde_json::Map<String, serde_json::Value> {
    fn field(&self, name: &str) -> Result<Option<String>, String> {
        match self.get(name) {
            None | Some(serde_json::Value::Null) => Ok(None),
            Some(serde_json::Value::String(text)) => Ok(Some(text.clone())),
            Some(serde_json::Value::Number(number)) => Ok(Some(number.to_string())),
            Some(serde_json::Value::Array(items)) if items.iter().all(|i| i.is_string()) => {
                Ok(Some(items.iter().filter_map(|i| i.as_str()).collect::<Vec<_>>().join("\n\n")))
            }
            Some(other) => Err(format!(
                "field \"{name}\" holds {}, not text",
                match other {
                    serde_json::Value::Bool(_) => "true/false",
                    serde_json::Value::Array(_) => "a list of non-text values",
                    _ => "an object",
                }
            )),
        }
    }

    fn field_names(&self) -> Vec<String> {
        self.keys().cloned().collect()
    }
}

fn first_present(record: &dyn Record, names: &[String]) -> Result<Option<String>, String> {
    for name in names {
        if let Some(value) = record.field(name)?
            && !value.trim().is_empty()
        {
            return Ok(Some(value));
        }
    }
    Ok(None)
}

/// Turns one record into a document.
pub(super) fn record_to_document(
    source: &SourceBytes,
    item: &str,
    raw: &str,
    charset: &str,
    record: &dyn Record,
    options: &ParseOptions<'_>,
) -> Result<NewDocument, String> {
    let fields = options.fields;
    let Some(text) = first_present(record, &fields.text)? else {
        return Err(format!(
            "no text: none of the fields {} is present and non-empty (this record has: {}); \
             name the text field with --text-field",
            fields.text.join(", "),
            record.field_names().join(", ")
        ));
    };
    let text = factdesk_text::normalise_text(&text);
    if text.is_empty() {
        return Err(text_error_message(&TextError::NoText));
    }
    let extracted = ExtractedText {
        title: first_present(record, &fields.title)?.map(|t| t.trim().to_owned()),
        published: first_present(record, &fields.date)?
            .and_then(|d| factdesk_text::normalise_date(&d)),
        canonical_url: first_present(record, &fields.url)?.map(|u| u.trim().to_owned()),
        text,
    };
    let raw = raw.as_bytes().to_vec();
    build(source, item.to_owned(), raw, Some(charset), extracted, Vec::new(), options.language)
}
