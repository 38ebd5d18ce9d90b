//! Claim collections: importing claims from CSV, JSONL or plain-text files (one claim per
//! line), with optional gold labels, tags and notes; adding claims typed or split from a
//! pasted summary; listing them. A bad line is reported by file and line and left out; the
//! good ones are stored in one transaction.

use std::path::Path;

use factdesk_model::{Claim, ClaimCollection, ClaimId, ClaimLabel, ClaimStatus, NewClaim};
use factdesk_store::{ClaimFilter, ClaimInsertOutcome};
use serde::Serialize;

use crate::import::ImportFailure;
use crate::{CoreError, Factdesk, Result};

const TEXT_COLUMNS: &[&str] = &["claim", "text", "statement", "sentence"];
const LABEL_COLUMNS: &[&str] = &["label", "gold_label", "gold", "verdict", "truth"];
const TAG_COLUMNS: &[&str] = &["tags", "tag"];
const NOTE_COLUMNS: &[&str] = &["notes", "note", "comment"];
const ORIGIN_COLUMNS: &[&str] = &["origin", "source", "url"];
const DATE_COLUMNS: &[&str] = &["date", "claimed_on", "claim_date"];

/// The outcome of a claims import.
#[derive(Debug, Clone, Default, Serialize, ts_rs::TS)]
pub struct ClaimImportSummary {
    pub collection: String,
    pub imported: u64,
    pub duplicates: u64,
    pub failed: u64,
    pub failures: Vec<ImportFailure>,
}

/// How a claims file is read, chosen by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClaimFileFormat {
    /// A header row naming the claim's column (and optionally label, tags, notes, origin, date).
    Csv,
    /// One JSON object per line, with the same fields.
    Jsonl,
    /// One claim per line.
    Lines,
}

impl ClaimFileFormat {
    /// Every file extension a claims import reads (lower case, without the dot), with how it
    /// reads it: the one list, which the window's file dialog offers too. A file of any other
    /// extension is read as one claim per line.
    pub const EXTENSIONS: &[(&str, ClaimFileFormat)] = &[
        ("csv", ClaimFileFormat::Csv),
        ("jsonl", ClaimFileFormat::Jsonl),
        ("ndjson", ClaimFileFormat::Jsonl),
        ("txt", ClaimFileFormat::Lines),
    ];

    /// How `file` is read, by its extension (case-insensitive).
    pub fn of_file(file: &Path) -> ClaimFileFormat {
        let extension = file.extension().map(|e| e.to_string_lossy().to_ascii_lowercase());
        Self::EXTENSIONS
            .iter()
            .find(|(known, _)| Some(*known) == extension.as_deref())
            .map_or(ClaimFileFormat::Lines, |&(_, format)| format)
    }
}

/// Which claims to list.
#[derive(Debug, Clone, Default)]
pub struct ClaimQuery {
    pub collection: Option<String>,
    pub status: Option<ClaimStatus>,
    pub tag: Option<String>,
    pub limit: Option<u64>,
}

impl Factdesk {
    /// Imports claims from a file into a collection (created if missing).
    #[tracing::instrument(skip(self))]
    pub fn import_claims(&self, file: &Path, collection: &str) -> Result<ClaimImportSummary> {
        let collection = collection.trim();
        if collection.is_empty() {
            return Err(CoreError::InvalidInput(
                "the collection name is empty; pass --collection NAME".into(),
            ));
        }
        let origin = file.display().to_string();
        let bytes = crate::import::read_capped(file, self.settings().import.max_file_bytes)
            .map_err(|message| CoreError::InvalidInput(format!("{origin}: {message}")))?;
        let text = factdesk_text::decode_bytes(&bytes, None)
            .map_err(|error| CoreError::InvalidInput(format!("{origin}: {error}")))?
            .text;
        let (claims, failures) = match ClaimFileFormat::of_file(file) {
            ClaimFileFormat::Csv => parse_csv_claims(&text, &origin)?,
            ClaimFileFormat::Jsonl => parse_jsonl_claims(&text, &origin),
            ClaimFileFormat::Lines => parse_line_claims(&text, &origin),
        };
        let mut summary = ClaimImportSummary {
            collection: collection.to_owned(),
            failed: failures.len() as u64,
            failures,
            ..ClaimImportSummary::default()
        };
        self.store_claims(&claims, &mut summary)?;
        Ok(summary)
    }

    /// Splits a pasted text (a news summary, a paragraph) into candidate claims, one per
    /// sentence, for a person to edit before checking.
    pub fn split_into_claims(&self, text: &str) -> Vec<String> {
        let language = &self.settings().import.language;
        factdesk_text::segment_sentences(text, language)
            .iter()
            .map(|span| span.slice(text).split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|sentence| sentence.chars().any(char::is_alphabetic))
            .collect()
    }

    /// Adds claims written by hand (or split from a summary) to a collection, created if
    /// missing; a claim the collection already holds is counted as a duplicate (and keeps its
    /// date). `claimed_on` is when the claims were made (a date; `YYYY-MM-DD` is stored), if
    /// known.
    pub fn add_claims(
        &self,
        collection: &str,
        texts: &[String],
        claimed_on: Option<&str>,
    ) -> Result<ClaimImportSummary> {
        let collection = collection.trim();
        if collection.is_empty() {
            return Err(CoreError::InvalidInput("the collection name is empty".into()));
        }
        let claimed_on =
            claim_date(claimed_on.map(str::to_owned)).map_err(CoreError::InvalidInput)?;
        let claims: Vec<NewClaim> = texts
            .iter()
            .map(|text| text.trim())
            .filter(|text| !text.is_empty())
            .map(|text| NewClaim {
                text: text.to_owned(),
                origin: Some("manual".into()),
                tags: Vec::new(),
                notes: None,
                gold_label: None,
                claimed_on: claimed_on.clone(),
            })
            .collect();
        if claims.is_empty() {
            return Err(CoreError::InvalidInput(
                "there is no claim to add: every line is empty".into(),
            ));
        }
        let mut summary = ClaimImportSummary {
            collection: collection.to_owned(),
            ..ClaimImportSummary::default()
        };
        self.store_claims(&claims, &mut summary)?;
        Ok(summary)
    }

    /// Adds `claims` to `summary.collection` (created if missing), counting what was new and
    /// what the collection already held.
    fn store_claims(&self, claims: &[NewClaim], summary: &mut ClaimImportSummary) -> Result<()> {
        let default_language = &self.settings().import.language;
        let mut store = self.store()?;
        let collection_id = store.ensure_collection(&summary.collection)?;
        let mut languages = Vec::new();
        for (claim, outcome) in claims.iter().zip(store.insert_claims(collection_id, claims)?) {
            match outcome {
                ClaimInsertOutcome::Inserted(id) => {
                    summary.imported += 1;
                    // A claim too short to tell is in the corpus default.
                    let language = factdesk_text::detect_language(&claim.text)
                        .map_or(default_language.as_str(), |language| language.code);
                    languages.push((id, Some(language.to_owned())));
                }
                ClaimInsertOutcome::Duplicate(_) => summary.duplicates += 1,
            }
        }
        store.set_claim_languages(&languages)?;
        Ok(())
    }

    /// Sets the language of a claim (an ISO 639-1 code such as `de`; `None`: unknown), as a
    /// person corrects the one detected, and returns the claim.
    pub fn set_claim_language(&self, claim: ClaimId, language: Option<&str>) -> Result<Claim> {
        if let Some(language) = language {
            crate::import::check_language_code(language, "the claim's language")?;
        }
        let mut store = self.store()?;
        store.set_claim_languages(&[(claim, language.map(str::to_owned))])?;
        let filter = ClaimFilter { id: Some(claim), ..ClaimFilter::default() };
        store.claims(&filter)?.pop().ok_or_else(|| {
            CoreError::Store(factdesk_store::StoreError::NotFound {
                what: format!("claim {claim}"),
            })
        })
    }

    /// Lists claims.
    pub fn claims(&self, query: &ClaimQuery) -> Result<Vec<Claim>> {
        let store = self.store()?;
        let collection =
            query.collection.as_deref().map(|name| store.collection_id(name)).transpose()?;
        Ok(store.claims(&ClaimFilter {
            collection,
            status: query.status,
            tag: query.tag.clone(),
            limit: query.limit,
            id: None,
        })?)
    }

    /// Every claim collection with its claim count.
    pub fn collections(&self) -> Result<Vec<ClaimCollection>> {
        Ok(self.store()?.collections()?)
    }
}

fn split_tags(raw: &str) -> Vec<String> {
    let mut tags: Vec<String> =
        raw.split([';', ',', '|']).map(|t| t.trim().to_owned()).filter(|t| !t.is_empty()).collect();
    tags.sort();
    tags.dedup();
    tags
}

fn non_empty(value: Option<&str>) -> Option<String> {
    value.map(str::trim).filter(|v| !v.is_empty()).map(str::to_owned)
}

/// A claim's date as stored (`YYYY-MM-DD`) from a date as written (a date, a timestamp or an
/// RFC 2822 date), or what is wrong with it.
fn claim_date(raw: Option<String>) -> std::result::Result<Option<String>, String> {
    let Some(raw) = raw.filter(|raw| !raw.trim().is_empty()) else { return Ok(None) };
    factdesk_text::normalise_date(&raw).map(Some).ok_or_else(|| {
        format!("the claim's date {:?} is not a date: write it as YYYY-MM-DD", raw.trim())
    })
}

/// Builds a claim from its parts, or says what is wrong with them.
fn make_claim(
    text: Option<String>,
    label: Option<String>,
    tags: Vec<String>,
    notes: Option<String>,
    date: Option<String>,
    origin: String,
) -> std::result::Result<NewClaim, String> {
    let text =
        text.map(|t| t.split_whitespace().collect::<Vec<_>>().join(" ")).filter(|t| !t.is_empty());
    let Some(text) = text else { return Err("the claim text is empty".into()) };
    let gold_label = label
        .map(|label| ClaimLabel::parse_lenient(&label))
        .transpose()
        .map_err(|e| e.to_string())?;
    let claimed_on = claim_date(date)?;
    Ok(NewClaim { text, origin: Some(origin), tags, notes, gold_label, claimed_on })
}

fn parse_line_claims(text: &str, origin: &str) -> (Vec<NewClaim>, Vec<ImportFailure>) {
    let claims = text
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty() && !line.trim_start().starts_with('#'))
        .filter_map(|(index, line)| {
            make_claim(
                Some(line.to_owned()),
                None,
                Vec::new(),
                None,
                None,
                format!("{origin}:{}", index + 1),
            )
            .ok()
        })
        .collect();
    (claims, Vec::new())
}

fn parse_jsonl_claims(text: &str, origin: &str) -> (Vec<NewClaim>, Vec<ImportFailure>) {
    let mut claims = Vec::new();
    let mut failures = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let item = format!("{origin}:{}", index + 1);
        let result = match serde_json::from_str::<serde_json::Value>(line) {
            Ok(serde_json::Value::Object(object)) => {
                let get = |names: &[&str]| {
                    names.iter().find_map(|name| match object.get(*name) {
                        Some(serde_json::Value::String(s)) => non_empty(Some(s)),
                        Some(serde_json::Value::Bool(b)) => Some(b.to_string()),
                        Some(serde_json::Value::Number(n)) => Some(n.to_string()),
                        _ => None,
                    })
                };
                let tags = TAG_COLUMNS
                    .iter()
                    .find_map(|name| object.get(*name))
                    .map(|value| match value {
                        serde_json::Value::Array(items) => split_tags(
                            &items.iter().filter_map(|i| i.as_str()).collect::<Vec<_>>().join(";"),
                        ),
                        serde_json::Value::String(s) => split_tags(s),
                        _ => Vec::new(),
                    })
                    .unwrap_or_default();
                if get(TEXT_COLUMNS).is_none() {
                    Err(format!(
                        "no claim text: none of the fields {} is present",
                        TEXT_COLUMNS.join(", ")
                    ))
                } else {
                    let origin = get(ORIGIN_COLUMNS).unwrap_or_else(|| item.clone());
                    make_claim(
                        get(TEXT_COLUMNS),
                        get(LABEL_COLUMNS),
                        tags,
                        get(NOTE_COLUMNS),
                        get(DATE_COLUMNS),
                        origin,
                    )
                }
            }
            Ok(_) => Err("the line is JSON but not an object ({...})".into()),
            Err(error) => Err(format!("not valid JSON: {error}")),
        };
        match result {
            Ok(claim) => claims.push(claim),
            Err(message) => failures.push(ImportFailure { item, message }),
        }
    }
    (claims, failures)
}

fn parse_csv_claims(text: &str, origin: &str) -> Result<(Vec<NewClaim>, Vec<ImportFailure>)> {
    let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(text.as_bytes());
    let headers: Vec<String> = reader
        .headers()
        .map_err(|error| {
            CoreError::InvalidInput(format!("{origin}: cannot read the header row: {error}"))
        })?
        .iter()
        .map(|h| h.trim().to_ascii_lowercase())
        .collect();
    let column = |names: &[&str]| headers.iter().position(|h| names.contains(&h.as_str()));
    let Some(text_column) = column(TEXT_COLUMNS) else {
        return Err(CoreError::InvalidInput(format!(
            "{origin}: no claim column; the header row must name one of {} (it has {})",
            TEXT_COLUMNS.join(", "),
            headers.join(", ")
        )));
    };
    let (label, tags, notes, date, source) = (
        column(LABEL_COLUMNS),
        column(TAG_COLUMNS),
        column(NOTE_COLUMNS),
        column(DATE_COLUMNS),
        column(ORIGIN_COLUMNS),
    );
    let mut claims = Vec::new();
    let mut failures = Vec::new();
    let records: Vec<_> = reader.into_records().collect();
    let last = records.len().saturating_sub(1);
    for (index, record) in records.into_iter().enumerate() {
        let record = match record {
            Ok(record) => record,
            Err(error) => {
                let line = error.position().map_or(0, |p| p.line());
                failures.push(ImportFailure {
                    item: format!("{origin}:{line}"),
                    message: format!("malformed CSV: {error}"),
                });
                continue;
            }
        };
        let item = format!("{origin}:{}", record.position().map_or(0, |p| p.line()));
        let start = record.position().map_or(text.len(), |p| p.byte() as usize);
        if index == last
            && crate::formats::csv_quote_left_open(text.get(start..).unwrap_or_default())
        {
            failures
                .push(ImportFailure { item, message: crate::formats::CSV_QUOTE_LEFT_OPEN.into() });
            continue;
        }
        if record.len() != headers.len() {
            failures.push(ImportFailure {
                item,
                message: format!(
                    "the row has {} fields but the header has {}",
                    record.len(),
                    headers.len()
                ),
            });
            continue;
        }
        let get = |index: Option<usize>| non_empty(index.and_then(|i| record.get(i)));
        let result = make_claim(
            get(Some(text_column)),
            get(label),
            get(tags).map(|t| split_tags(&t)).unwrap_or_default(),
            get(notes),
            get(date),
            get(source).unwrap_or_else(|| item.clone()),
        );
        match result {
            Ok(claim) => claims.push(claim),
            Err(message) => failures.push(ImportFailure { item, message }),
        }
    }
    Ok((claims, failures))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_claims_with_labels_tags_and_bad_rows() {
        let csv_text = "claim,label,tags\nOkra is a plant.,true,botany;food\nThe sun is cold.,false,\n,true,\nBad label.,perhaps,\nShort row\n";
        let (claims, failures) = parse_csv_claims(csv_text, "c.csv").unwrap();
        assert_eq!(claims.len(), 2);
        assert_eq!(claims[0].gold_label, Some(ClaimLabel::Supported));
        assert_eq!(claims[0].tags, ["botany", "food"]);
        assert_eq!(claims[1].gold_label, Some(ClaimLabel::Refuted));
        assert_eq!(claims[0].origin.as_deref(), Some("c.csv:2"));
        let items: Vec<_> = failures.iter().map(|f| f.item.as_str()).collect();
        assert_eq!(items, ["c.csv:4", "c.csv:5", "c.csv:6"]);
        assert!(failures[1].message.contains("perhaps"));
    }

    #[test]
    fn claims_carry_their_dates_and_a_bad_date_fails_its_line() {
        let csv_text = "claim,date\nRates rose.,2023-04-05\nRates fell.,2023-04-05T10:00:00Z\nRates held.,\nRates?,last week\n";
        let (claims, failures) = parse_csv_claims(csv_text, "c.csv").unwrap();
        let dates: Vec<_> = claims.iter().map(|c| c.claimed_on.as_deref()).collect();
        assert_eq!(dates, [Some("2023-04-05"), Some("2023-04-05"), None]);
        assert_eq!(failures.len(), 1);
        assert_eq!(failures[0].item, "c.csv:5");
        assert!(
            failures[0].message.contains("\"last week\" is not a date"),
            "{}",
            failures[0].message
        );

        let jsonl = "{\"claim\": \"Rates rose.\", \"claimed_on\": \"Tue, 05 Mar 2024 10:00:00 +0000\"}\n{\"claim\": \"Rates fell.\", \"date\": \"2024-02-30\"}\n";
        let (claims, failures) = parse_jsonl_claims(jsonl, "c.jsonl");
        assert_eq!(claims[0].claimed_on.as_deref(), Some("2024-03-05"));
        assert_eq!(failures[0].item, "c.jsonl:2");
    }

    #[test]
    fn a_claims_file_whose_quote_never_closes_says_so() {
        let csv_text = "claim,label\n\"Okra is a plant.,true\nThe sun is cold.,false\n";
        let (claims, failures) = parse_csv_claims(csv_text, "c.csv").unwrap();
        assert!(claims.is_empty(), "{claims:?}");
        assert_eq!(failures.len(), 1);
        assert_eq!(failures[0].item, "c.csv:2");
        assert!(failures[0].message.contains("never closed"), "{}", failures[0].message);
    }

    #[test]
    fn csv_without_a_claim_column_is_refused() {
        let error = parse_csv_claims("name,age\nx,1\n", "c.csv").unwrap_err();
        assert!(error.to_string().contains("no claim column"), "{error}");
    }

    #[test]
    fn a_claims_file_is_read_by_its_extension_and_others_by_line() {
        let cases = [
            ("claims.csv", ClaimFileFormat::Csv),
            ("CLAIMS.CSV", ClaimFileFormat::Csv),
            ("claims.jsonl", ClaimFileFormat::Jsonl),
            ("claims.ndjson", ClaimFileFormat::Jsonl),
            ("claims.txt", ClaimFileFormat::Lines),
            ("claims.list", ClaimFileFormat::Lines),
            ("claims", ClaimFileFormat::Lines),
        ];
        for (name, format) in cases {
            assert_eq!(ClaimFileFormat::of_file(Path::new(name)), format, "{name}");
        }
        let extensions: Vec<&str> = ClaimFileFormat::EXTENSIONS.iter().map(|(e, _)| *e).collect();
        assert_eq!(extensions, ["csv", "jsonl", "ndjson", "txt"]);
    }

    #[test]
    fn jsonl_and_line_claims() {
        let (claims, failures) = parse_jsonl_claims(
            "{\"claim\": \"A.\", \"label\": true, \"tags\": [\"x\"]}\n{\"text\": \"B.\"}\nnot json\n{\"other\": 1}\n",
            "c.jsonl",
        );
        assert_eq!(claims.len(), 2);
        assert_eq!(claims[0].gold_label, Some(ClaimLabel::Supported));
        assert_eq!(claims[0].tags, ["x"]);
        assert_eq!(failures.len(), 2);
        let (claims, _) =
            parse_line_claims("# comment\nFirst claim.\n\n  Second   claim. \n", "c.txt");
        let texts: Vec<_> = claims.iter().map(|c| c.text.as_str()).collect();
        assert_eq!(texts, ["First claim.", "Second claim."]);
        assert_eq!(claims[1].origin.as_deref(), Some("c.txt:4"));
    }

    proptest::proptest! {
        /// Any JSONL claims file gives one claim or one failure per non-blank line, and
        /// claims with text; any CSV claims file parses or is refused, without a panic.
        #[test]
        fn property_claim_files_parse_line_by_line(
            lines in proptest::collection::vec(crate::formats::tests::record_line(), 0..12),
        ) {
            let text = lines.join("\n");
            let (claims, failures) = parse_jsonl_claims(&text, "f.jsonl");
            let non_blank = text.lines().filter(|line| !line.trim().is_empty()).count();
            proptest::prop_assert_eq!(claims.len() + failures.len(), non_blank);
            proptest::prop_assert!(claims.iter().all(|claim| !claim.text.trim().is_empty()));
            if let Ok((claims, _)) = parse_csv_claims(&text, "f.csv") {
                proptest::prop_assert!(claims.iter().all(|claim| !claim.text.trim().is_empty()));
            }
        }
    }
}
