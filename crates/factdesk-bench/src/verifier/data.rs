//! The items judged: the ranges of `training/verifier/split.json` ([`Range`]), HaluEval's
//! JSONL items read from them, and each item's claims with their evidence ([`Case`]).

use std::path::Path;

use anyhow::Context;

/// How the training scripts split HaluEval; the benchmark reads its ranges from the same file.
const SPLIT: &str = include_str!("../../../../training/verifier/split.json");

/// Which part of each file is judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Range {
    /// The evaluation range: reported figures.
    Eval,
    /// The dev slice of the training range: for tuning settings.
    Dev,
    /// The training range less its dev slice.
    Train,
}

impl Range {
    pub(super) fn key(self) -> &'static str {
        match self {
            Range::Eval => "eval",
            Range::Dev => "dev",
            Range::Train => "train",
        }
    }

    /// The half-open item range of `dataset` ("qa" or "summarization") in the split file.
    pub fn items(self, dataset: &str) -> anyhow::Result<(usize, usize)> {
        let split: serde_json::Value = serde_json::from_str(SPLIT)?;
        let range = split[dataset][self.key()]
            .as_array()
            .and_then(|pair| Some((pair.first()?.as_u64()?, pair.get(1)?.as_u64()?)))
            .with_context(|| format!("split.json has no {} range for {dataset}", self.key()))?;
        Ok((usize::try_from(range.0)?, usize::try_from(range.1)?))
    }
}

/// One claim with its evidence and gold label; `swapped` pairs a supported claim with another
/// item's evidence (so it is not supported).
pub(super) struct Case {
    pub(super) dataset: &'static str,
    /// The item's line number in its file.
    pub(super) item: usize,
    pub(super) claim: String,
    pub(super) evidence: String,
    pub(super) supported: bool,
    pub(super) swapped: bool,
}

pub(crate) fn read_items(
    path: &Path,
    (start, end): (usize, usize),
    count: usize,
) -> anyhow::Result<Vec<serde_json::Value>> {
    use std::io::BufRead;
    let end = (start + count).min(end);
    let file = std::fs::File::open(path).with_context(|| {
        format!("cannot open {} (run scripts/bench-verifier.sh)", path.display())
    })?;
    let mut items = Vec::new();
    for (number, line) in std::io::BufReader::new(file).lines().enumerate() {
        if number >= end {
            break;
        }
        let line = line?;
        if number >= start {
            items.push(
                serde_json::from_str(&line)
                    .with_context(|| format!("{} line {}", path.display(), number + 1))?,
            );
        }
    }
    Ok(items)
}

pub(crate) fn field<'a>(item: &'a serde_json::Value, name: &str) -> anyhow::Result<&'a str> {
    item.get(name).and_then(serde_json::Value::as_str).with_context(|| format!("no '{name}' field"))
}

/// The QA claim wording of scripts/eval-halueval.sh and the training data.
pub fn qa_claim(question: &str, answer: &str) -> String {
    format!("The answer to the question \"{}\" is: {}", question.trim(), answer.trim())
}

pub(super) fn cases(
    data: &Path,
    range: Range,
    qa_items: usize,
    summary_items: usize,
) -> anyhow::Result<Vec<Case>> {
    let mut cases = Vec::new();
    let qa_range = range.items("qa")?;
    let qa = read_items(&data.join("dataset_halueval_qa.jsonl"), qa_range, qa_items)?;
    for (index, item) in qa.iter().enumerate() {
        let knowledge = field(item, "knowledge")?;
        let question = field(item, "question")?;
        let right = qa_claim(question, field(item, "right_answer")?);
        let wrong = qa_claim(question, field(item, "hallucinated_answer")?);
        let other = field(&qa[(index + 1) % qa.len()], "knowledge")?;
        for (claim, evidence, supported, swapped) in [
            (&right, knowledge, true, false),
            (&wrong, knowledge, false, false),
            (&right, other, false, true),
        ] {
            cases.push(Case {
                dataset: "qa",
                item: qa_range.0 + index,
                claim: claim.clone(),
                evidence: evidence.to_owned(),
                supported,
                swapped,
            });
        }
    }
    let summary_range = range.items("summarization")?;
    let summaries = read_items(
        &data.join("dataset_halueval_summarization.jsonl"),
        summary_range,
        summary_items,
    )?;
    for (index, item) in summaries.iter().enumerate() {
        let document = field(item, "document")?;
        let right = field(item, "right_summary")?;
        let wrong = field(item, "hallucinated_summary")?;
        let other = field(&summaries[(index + 1) % summaries.len()], "document")?;
        for (claim, evidence, supported, swapped) in [
            (right, document, true, false),
            (wrong, document, false, false),
            (right, other, false, true),
        ] {
            cases.push(Case {
                dataset: "summarization",
                item: summary_range.0 + index,
                claim: claim.to_owned(),
                evidence: evidence.to_owned(),
                supported,
                swapped,
            });
        }
    }
    Ok(cases)
}
