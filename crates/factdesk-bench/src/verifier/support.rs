//! A judged claim's support from its premises' P(entailment): calibrated for premise size,
//! moved by fact alignment, under the grounding rule; the lexical baseline; and the dump of
//! every judged premise.

use std::path::Path;

use anyhow::Context;
use factdesk_methods::calibration::{self, CalibrationWeights};
use factdesk_methods::grounding::{self, Grounding};

use super::{Case, Range};

/// A premise's P(entailment) for a claim sentence, calibrated when the model ships a
/// calibration: what the calibration wrapper gives `grounding::ground`.
fn calibrated(
    premise: &str,
    sentence: &str,
    entailment: f64,
    weights: Option<&CalibrationWeights>,
) -> f64 {
    weights.map_or(entailment, |weights| {
        weights.apply(
            entailment,
            calibration::premise_sentences(premise),
            calibration::missing_share(premise, sentence),
        )
    })
}

/// Each premise's calibrated P(entailment) for `sentence`, moved by fact alignment with the
/// sentence's premises as its evidence and `source` as the text they were cut from when
/// `alignment` is given (`factdesk_methods::facts::FactChecked`).
fn premise_supports(
    sentence: &grounding::SentenceSupport,
    source: &str,
    weights: Option<&CalibrationWeights>,
    alignment: Option<&factdesk_methods::facts::AlignmentWeights>,
) -> Vec<f64> {
    let premises = sentence.premise_texts();
    let plain: Vec<f64> = premises
        .iter()
        .zip(&sentence.premises)
        .map(|(premise, (_, entailment))| {
            calibrated(premise, &sentence.sentence, *entailment, weights)
        })
        .collect();
    let Some(alignment) = alignment else { return plain };
    let texts: Vec<&str> = premises.iter().map(String::as_str).collect();
    let absent = factdesk_methods::facts::absent_facts(&[source], &sentence.sentence);
    factdesk_methods::facts::align_all_from(&texts, &[source], &sentence.sentence)
        .iter()
        .zip(plain)
        .map(|(facts, p)| {
            let scores = factdesk_llm::NliScores::normalised(p, 1.0 - p, 0.0);
            alignment.apply(scores, facts, &absent).entailment
        })
        .collect()
}

/// The claim's support from [`premise_supports`] under the grounding rule (max over
/// premises, min over sentences).
pub(super) fn calibrated_support(
    grounding: &Grounding,
    source: &str,
    weights: Option<&CalibrationWeights>,
    alignment: Option<&factdesk_methods::facts::AlignmentWeights>,
) -> f64 {
    grounding::aggregate(grounding.sentences.iter().map(|sentence| {
        premise_supports(sentence, source, weights, alignment).into_iter().fold(0.0, f64::max)
    }))
}

/// The lexical baseline: the share of the claim's distinct content words (as BM25 ranks
/// them) that the evidence contains.
pub(super) fn lexical_support(case: &Case) -> f64 {
    1.0 - calibration::missing_share(&case.evidence, &case.claim)
}

/// Writes each judged case with its premises' text, P(entailment) (raw, calibrated, moved by
/// `alignment`), size and fact alignment, one JSON line each.
pub(super) fn dump(
    path: &Path,
    range: Range,
    judged: &[(&Case, Grounding)],
    weights: Option<&CalibrationWeights>,
    alignment: &factdesk_methods::facts::AlignmentWeights,
) -> anyhow::Result<()> {
    use std::io::Write;
    let partial = path.with_extension("part");
    let mut out = std::io::BufWriter::new(
        std::fs::File::create(&partial)
            .with_context(|| format!("cannot write {}", partial.display()))?,
    );
    for (case, grounding) in judged {
        let sentences: Vec<serde_json::Value> = grounding
            .sentences
            .iter()
            .map(|sentence| {
                let texts = sentence.premise_texts();
                let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
                let facts = factdesk_methods::facts::align_all_from(
                    &refs,
                    &[&case.evidence],
                    &sentence.sentence,
                );
                let plain = premise_supports(sentence, &case.evidence, weights, None);
                let aligned = premise_supports(sentence, &case.evidence, weights, Some(alignment));
                let premises: Vec<serde_json::Value> = sentence
                    .premises
                    .iter()
                    .enumerate()
                    .map(|(index, (_, entailment))| {
                        let premise = &texts[index];
                        serde_json::json!({
                            "entailment": entailment,
                            "sentences": calibration::premise_sentences(premise),
                            "missing": calibration::missing_share(premise, &sentence.sentence),
                            "premise": premise,
                            "facts": facts[index],
                            "calibrated": plain[index],
                            "aligned": aligned[index],
                        })
                    })
                    .collect();
                serde_json::json!({ "sentence": sentence.sentence, "premises": premises })
            })
            .collect();
        let line = serde_json::json!({
            "range": range.key(),
            "dataset": case.dataset,
            "item": case.item,
            "supported": case.supported,
            "swapped": case.swapped,
            "sentences": sentences,
        });
        writeln!(out, "{line}")?;
    }
    out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
    std::fs::rename(&partial, path)
        .with_context(|| format!("cannot move {} to {}", partial.display(), path.display()))?;
    Ok(())
}
