//! CSV files: one document per row, the text and other fields found by the header row; a row
//! that cannot be read fails alone, naming its line number.

use std::ops::ControlFlow;

use rayon::prelude::*;

use super::records::{Record, record_to_document};
use super::{ParseOptions, Parsed, SourceBytes, record_too_long};

struct CsvRecord<'a> {
    headers: &'a [String],
    values: csv::StringRecord,
}

impl Record for CsvRecord<'_> {
    fn field(&self, name: &str) -> Result<Option<String>, String> {
        Ok(self
            .headers
            .iter()
            .position(|header| header.eq_ignore_ascii_case(name))
            .and_then(|index| self.values.get(index))
            .map(str::to_owned))
    }

    fn field_names(&self) -> Vec<String> {
        self.headers.to_vec()
    }
}

/// Why the last row of a CSV file is refused by [`csv_quote_left_open`].
pub(crate) const CSV_QUOTE_LEFT_OPEN: &str = "a quoted field of this row is never closed, so it \
    and every line after it were read as one row; close the quote (\") and import the file again";

/// Does the text of a CSV file's last row (from its start to the end of the file) hold a
/// quote that never closes? The reader then takes every line after it as part of that row,
/// without an error of its own. (Quotes inside a quoted field are doubled, and a stray quote
/// inside an unquoted field cannot span lines, so an odd count over several lines is one.)
pub(crate) fn csv_quote_left_open(last_row: &str) -> bool {
    last_row.trim_end().contains('\n') && last_row.matches('"').count() % 2 == 1
}

/// A CSV row as read: its raw text and fields, or why it could not be read.
type RowResult = Result<(String, csv::StringRecord), String>;

pub(super) fn parse_csv(
    source: &SourceBytes,
    text: &str,
    charset: &'static str,
    options: &ParseOptions<'_>,
    sink: &mut dyn FnMut(Vec<Parsed>) -> ControlFlow<()>,
) {
    let fail_whole =
        |message: String| vec![Parsed::Failed { item: source.origin.clone(), message }];
    let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(text.as_bytes());
    let headers: Vec<String> = match reader.headers() {
        Ok(headers) => headers.iter().map(|h| h.trim().to_owned()).collect(),
        Err(error) => {
            let _ = sink(fail_whole(format!("cannot read the header row: {error}")));
            return;
        }
    };
    let has_text_column =
        options.fields.text.iter().any(|name| headers.iter().any(|h| h.eq_ignore_ascii_case(name)));
    if !has_text_column {
        let _ = sink(fail_whole(format!(
            "no text column: the header row has {}, but none of {}; name the text column with --text-field",
            if headers.is_empty() { "no columns".to_owned() } else { headers.join(", ") },
            options.fields.text.join(", ")
        )));
        return;
    }
    // Rows are read in order (the CSV reader is sequential), then converted in parallel.
    let mut pending: Vec<(String, RowResult)> = Vec::new();
    let mut records = reader.into_records().peekable();
    let mut previous_end = 0usize;
    loop {
        let next = records.next();
        let done = next.is_none();
        if let Some(result) = next {
            match result {
                Ok(record) => {
                    let position = record.position().cloned();
                    let line = position.as_ref().map_or(0, |p| p.line());
                    let start = position.as_ref().map_or(previous_end, |p| p.byte() as usize);
                    let end = records
                        .peek()
                        .and_then(|next| next.as_ref().ok())
                        .and_then(|next| next.position())
                        .map_or(text.len(), |p| p.byte() as usize);
                    previous_end = end;
                    let raw = text.get(start..end).unwrap_or_default().trim_end().to_owned();
                    let item = format!("{}:{line}", source.origin);
                    if end == text.len() && csv_quote_left_open(&raw) {
                        pending.push((item, Err(CSV_QUOTE_LEFT_OPEN.to_owned())));
                    } else if raw.len() > options.max_record_bytes {
                        let message = record_too_long(raw.len(), options.max_record_bytes, "row");
                        pending.push((item, Err(message)));
                    } else if record.len() != headers.len() {
                        let message = format!(
                            "the row has {} fields but the header has {}",
                            record.len(),
                            headers.len()
                        );
                        pending.push((item, Err(message)));
                    } else {
                        pending.push((item, Ok((raw, record))));
                    }
                }
                Err(error) => {
                    let line = error.position().map_or(0, |p| p.line());
                    pending.push((
                        format!("{}:{line}", source.origin),
                        Err(format!("malformed CSV: {error}")),
                    ));
                }
            }
        }
        if pending.len() >= options.batch.max(1) || (done && !pending.is_empty()) {
            let parsed: Vec<Parsed> = std::mem::take(&mut pending)
                .into_par_iter()
                .map(|(item, row)| {
                    let result = row.and_then(|(raw, values)| {
                        let record = CsvRecord { headers: &headers, values };
                        record_to_document(source, &item, &raw, charset, &record, options)
                    });
                    result.map_or_else(
                        |message| Parsed::Failed { item: item.clone(), message },
                        |document| Parsed::Document(Box::new(document)),
                    )
                })
                .collect();
            if sink(parsed).is_break() {
                return;
            }
        }
        if done {
            return;
        }
    }
}
