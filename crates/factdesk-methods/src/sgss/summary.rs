//! A structured summary: an overview, then sections of a heading and statements, each statement
//! citing documents of a list by number. Parsed from Markdown (the overview is the text before
//! the first `## ` heading; `- `, `* ` or `1. ` lines are statements; `[n]` cites document n)
//! or from JSON (`{"overview": …, "sections": [{"heading": …, "statements": [text or {"text",
//! "citations"}]}]}`); a malformed one is refused with the line that is wrong and why.

use serde::{Deserialize, Serialize};

use super::{Labels, SectionLabels};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StructuredSummary {
    pub overview: String,
    /// Documents the overview cites, numbered from 1.
    #[serde(default)]
    pub overview_citations: Vec<usize>,
    pub sections: Vec<Section>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Section {
    pub heading: String,
    pub statements: Vec<Statement>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Statement {
    pub text: String,
    /// Documents cited, numbered from 1 in the summary's document list.
    #[serde(default)]
    pub citations: Vec<usize>,
}

/// Why a summary could not be read: the line (1-based; 0 for the whole text) and what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct SummaryError {
    pub line: usize,
    pub message: String,
}

fn error(line: usize, message: impl Into<String>) -> SummaryError {
    SummaryError { line, message: message.into() }
}

/// The `[n]` citations of `text` and the text without them.
fn citations(text: &str, line: usize) -> Result<(String, Vec<usize>), SummaryError> {
    let mut clean = String::with_capacity(text.len());
    let mut cited = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        let Some(close) = rest[open..].find(']') else { break };
        let inside = &rest[open + 1..open + close];
        let numbers: Option<Vec<usize>> =
            inside.split(',').map(|part| part.trim().parse::<usize>().ok()).collect();
        match numbers {
            Some(numbers) if !inside.trim().is_empty() => {
                if numbers.contains(&0) {
                    return Err(error(
                        line,
                        "citations are numbered from 1: [0] cites no document",
                    ));
                }
                clean.push_str(&rest[..open]);
                cited.extend(numbers);
            }
            _ => clean.push_str(&rest[..open + close + 1]),
        }
        rest = &rest[open + close + 1..];
    }
    clean.push_str(rest);
    let clean = clean.split_whitespace().collect::<Vec<_>>().join(" ");
    let clean = clean.replace(" .", ".").replace(" ,", ",");
    Ok((clean, cited))
}

impl StructuredSummary {
    /// Reads a summary from Markdown.
    pub fn from_markdown(text: &str) -> Result<StructuredSummary, SummaryError> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut overview: Vec<String> = Vec::new();
        let mut overview_citations: Vec<usize> = Vec::new();
        let mut sections: Vec<Section> = Vec::new();
        for (index, raw) in text.lines().enumerate() {
            let number = index + 1;
            let line = raw.trim();
            if line.is_empty() {
                continue;
            }
            let heading = if line == "##" { Some("") } else { line.strip_prefix("## ") };
            if let Some(heading) = heading {
                let heading = heading.trim();
                if heading.is_empty() {
                    return Err(error(number, "a section heading without text"));
                }
                sections.push(Section { heading: heading.to_owned(), statements: Vec::new() });
                continue;
            }
            if line.starts_with('#') && !line.starts_with("##") {
                // A title above the overview is not a part of the summary.
                if sections.is_empty() && overview.is_empty() {
                    continue;
                }
                return Err(error(number, "only `## ` headings start sections"));
            }
            let bullet = ["- ", "* ", "+ "]
                .iter()
                .find_map(|prefix| line.strip_prefix(prefix))
                .or_else(|| {
                    let digits = line.chars().take_while(char::is_ascii_digit).count();
                    (digits > 0).then(|| line[digits..].strip_prefix(". ")).flatten()
                });
            match (bullet, sections.last_mut()) {
                (Some(statement), Some(section)) => {
                    let (text, cited) = citations(statement.trim(), number)?;
                    if text.is_empty() {
                        return Err(error(number, "a statement without text"));
                    }
                    section.statements.push(Statement { text, citations: cited });
                }
                (Some(_), None) => {
                    return Err(error(
                        number,
                        "a statement before any section: start a section with `## heading`",
                    ));
                }
                (None, None) => {
                    let (clean, cited) = citations(line, number)?;
                    overview.push(clean);
                    overview_citations.extend(cited);
                }
                (None, Some(_)) => {
                    return Err(error(
                        number,
                        "text in a section that is not a statement: write it as `- statement`",
                    ));
                }
            }
        }
        let overview = overview.join(" ").trim().to_owned();
        if overview.is_empty() {
            return Err(error(0, "no overview: write a paragraph before the first `## ` heading"));
        }
        Ok(StructuredSummary { overview, overview_citations, sections })
    }

    /// Reads a summary from JSON.
    pub fn from_json(text: &str) -> Result<StructuredSummary, SummaryError> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Raw {
            overview: String,
            #[serde(default)]
            sections: Vec<RawSection>,
        }
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct RawSection {
            heading: String,
            #[serde(default)]
            statements: Vec<RawStatement>,
        }
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum RawStatement {
            Text(String),
            Cited {
                text: String,
                #[serde(default)]
                citations: Vec<usize>,
            },
        }
        let raw: Raw = serde_json::from_str(text)
            .map_err(|e| error(e.line(), format!("not a structured summary: {e}")))?;
        if raw.overview.trim().is_empty() {
            return Err(error(0, "no overview: the \"overview\" field is empty"));
        }
        let sections = raw
            .sections
            .into_iter()
            .map(|section| Section {
                heading: section.heading.trim().to_owned(),
                statements: section
                    .statements
                    .into_iter()
                    .map(|statement| match statement {
                        RawStatement::Text(text) => Statement { text, citations: Vec::new() },
                        RawStatement::Cited { text, citations } => Statement { text, citations },
                    })
                    .collect(),
            })
            .collect();
        let summary = StructuredSummary {
            overview: raw.overview.trim().to_owned(),
            overview_citations: Vec::new(),
            sections,
        };
        // What the Markdown reader refuses line by line, said here by place.
        for (i, section) in summary.sections.iter().enumerate() {
            if section.heading.is_empty() {
                return Err(error(0, format!("section {} has an empty heading", i + 1)));
            }
            for (j, statement) in section.statements.iter().enumerate() {
                let place = format!("section {} statement {}", i + 1, j + 1);
                if statement.text.trim().is_empty() {
                    return Err(error(0, format!("{place} has no text")));
                }
                if statement.citations.contains(&0) {
                    return Err(error(0, format!("{place}: citations are numbered from 1")));
                }
            }
        }
        Ok(summary)
    }

    /// Statements in all.
    pub fn statement_count(&self) -> usize {
        self.sections.iter().map(|section| section.statements.len()).sum()
    }

    /// Citations of documents a list of `documents` does not have: (section, statement,
    /// cited number), all 1-based.
    pub fn missing_citations(&self, documents: usize) -> Vec<(usize, usize, usize)> {
        let mut missing = Vec::new();
        for (i, section) in self.sections.iter().enumerate() {
            for (j, statement) in section.statements.iter().enumerate() {
                for &cited in &statement.citations {
                    if cited == 0 || cited > documents {
                        missing.push((i + 1, j + 1, cited));
                    }
                }
            }
        }
        missing
    }

    /// The NoHeadings variant: every heading removed (its line carries nothing: HR = 0), the
    /// other labels inherited.
    pub fn no_headings(&self, labels: &Labels) -> (StructuredSummary, Labels) {
        let summary = StructuredSummary {
            overview: self.overview.clone(),
            overview_citations: self.overview_citations.clone(),
            sections: self
                .sections
                .iter()
                .map(|section| Section {
                    heading: String::new(),
                    statements: section.statements.clone(),
                })
                .collect(),
        };
        let mut labels = labels.clone();
        for (section, own) in self.sections.iter().zip(labels.sections.iter_mut()) {
            own.heading = vec![Some(0.0); section.statements.len()];
        }
        (summary, labels)
    }

    /// The NoSection1 variant: the first section and its labels removed.
    pub fn no_section_1(&self, labels: &Labels) -> (StructuredSummary, Labels) {
        let summary = StructuredSummary {
            overview: self.overview.clone(),
            overview_citations: self.overview_citations.clone(),
            sections: self.sections.iter().skip(1).cloned().collect(),
        };
        let labels = Labels {
            sections: labels.sections.iter().skip(1).cloned().collect::<Vec<SectionLabels>>(),
            ..labels.clone()
        };
        (summary, labels)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MARKDOWN: &str = "# Why did the bridge close?\n\nThe bridge closed after an inspection [1].\n\n\
        ## The inspection\n- Cracks were found in two piers [1, 2].\n- Engineers closed it the same day.\n\n\
        ## What comes next\n1. Repairs take six months [3].\n";

    #[test]
    fn markdown_gives_the_overview_sections_statements_and_citations() {
        let summary = StructuredSummary::from_markdown(MARKDOWN).unwrap();
        assert_eq!(summary.overview, "The bridge closed after an inspection.");
        assert_eq!(summary.overview_citations, [1]);
        assert_eq!(summary.sections.len(), 2);
        assert_eq!(summary.sections[0].heading, "The inspection");
        assert_eq!(summary.sections[0].statements[0].text, "Cracks were found in two piers.");
        assert_eq!(summary.sections[0].statements[0].citations, [1, 2]);
        assert_eq!(summary.sections[1].statements[0].citations, [3]);
        assert_eq!(summary.statement_count(), 3);
        assert_eq!(summary.missing_citations(2), [(2, 1, 3)]);
        // Brackets that are not citations stay in the text.
        let odd = StructuredSummary::from_markdown("Overview [sic] here.\n## A\n- B [x].").unwrap();
        assert_eq!(odd.overview, "Overview [sic] here.");
        assert_eq!(odd.sections[0].statements[0].text, "B [x].");
    }

    #[test]
    fn malformed_summaries_are_refused_with_their_line() {
        let cases = [
            ("## A\n- b", "line 0: no overview"),
            ("Overview.\n- b", "line 2: a statement before any section"),
            ("Overview.\n## A\nloose text", "line 3: text in a section that is not a statement"),
            ("Overview.\n## \n- b", "line 2: a section heading without text"),
            ("Overview.\n## A\n- cites [0].", "line 3: citations are numbered from 1"),
            ("", "line 0: no overview"),
            (
                "Title-less.\nAn overview citing [0].\n## A\n- b",
                "line 2: citations are numbered from 1",
            ),
        ];
        for (text, expected) in cases {
            let message = StructuredSummary::from_markdown(text).unwrap_err().to_string();
            assert!(message.starts_with(expected), "{text:?}: {message}");
        }
        // A byte-order mark before the title does not make the title part of the overview.
        let marked =
            StructuredSummary::from_markdown("\u{feff}# Title\nThe overview.\n## A\n- b").unwrap();
        assert_eq!(marked.overview, "The overview.");
        // No sections is a summary of one line; zero statements is allowed, and scored.
        assert!(StructuredSummary::from_markdown("Just an overview.").unwrap().sections.is_empty());
    }

    #[test]
    fn json_reads_both_statement_forms_and_names_bad_input() {
        let json = r#"{"overview": "O.", "sections": [{"heading": "H", "statements": ["a", {"text": "b", "citations": [2]}]}]}"#;
        let summary = StructuredSummary::from_json(json).unwrap();
        assert_eq!(summary.sections[0].statements[1].citations, [2]);
        let bad = StructuredSummary::from_json("{\n\"overview\": 3}").unwrap_err();
        assert_eq!(bad.line, 2, "{bad}");
        assert!(
            StructuredSummary::from_json(r#"{"overview": " "}"#)
                .unwrap_err()
                .to_string()
                .contains("no overview")
        );
        for (json, expected) in [
            (
                r#"{"overview": "O.", "sections": [{"heading": " ", "statements": []}]}"#,
                "section 1 has an empty heading",
            ),
            (
                r#"{"overview": "O.", "sections": [{"heading": "H", "statements": [""]}]}"#,
                "section 1 statement 1 has no text",
            ),
            (
                r#"{"overview": "O.", "sections": [{"heading": "H", "statements": [{"text": "a", "citations": [0]}]}]}"#,
                "numbered from 1",
            ),
        ] {
            let message = StructuredSummary::from_json(json).unwrap_err().to_string();
            assert!(message.contains(expected), "{json}: {message}");
        }
    }
}
