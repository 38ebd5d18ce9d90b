//! `factdesk-bench contrast`: does the offline verifier catch a changed fact? It judges the
//! contrast sets of `training/verifier/contrast.py` — sentences of HaluEval's right news
//! summaries against their article, unchanged (`original`, expected supported), with one fact
//! changed (`number`, `year`, `name-same`, `name-other`, `negation`, `antonym`, `role`) or
//! against the next item's article (`someone-else`), all expected not supported — and prints,
//! per kind, the share judged supported, not supported and refuted, and the mean support.
//!
//! Each case is judged as the product judges evidence: the verifier loaded from its folder,
//! calibrated for premise size and moved by fact alignment (`factdesk_methods::facts::
//! shipped_verifier`, what `Factdesk::cross_encoder` builds), under the grounding rule with
//! its default settings (`factdesk_methods::grounding::ground`: BM25-picked cumulative
//! premises from the article, max over premises, min over sentences). The same model calls
//! also give the verifier without fact alignment (calibrated only: the judge before fact
//! alignment), and the lexical baseline (the share of the claim's content terms found in the
//! article) is judged too. A claim is supported when its support is at least 0.5; refuted
//! when the grounding says so at that threshold (`Grounding::refuted`: a sentence no premise
//! entails and one contradicts). Sets built from the evaluation range (items 8000–9999) are
//! for reporting only; tune on the dev range's (7500–7999).

use std::collections::HashMap;
use std::io::BufRead;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::Context;
use factdesk_llm::Nli;
use factdesk_llm::cross_encoder::CrossEncoderNli;
use factdesk_methods::grounding::{self, Grounding, GroundingConfig};

use crate::nli_cache::SharedNli;
use crate::verifier::Range;

/// What to measure.
#[derive(Debug, Clone, clap::Args)]
pub struct ContrastBench {
    /// The contrast cases (JSON lines of training/verifier/contrast.py)
    pub cases: PathBuf,
    /// The verifier's folder (default: the installed one, <models dir>/factdesk-verifier)
    #[arg(long)]
    pub verifier: Option<PathBuf>,
    /// Judge at most this many cases of each kind (the first in the file)
    #[arg(long)]
    pub limit: Option<usize>,
    /// Also write each case's judgements to this JSON-lines file (the product verifier's
    /// grounding with its premises and conflicts, the support without fact alignment, the
    /// lexical share), to look into what it gets wrong
    #[arg(long)]
    pub dump: Option<PathBuf>,
    /// Print the figures as JSON
    #[arg(long)]
    pub json: bool,
    /// Also judge with these fact-alignment weights, e.g. "conflict=6,polarity=3,name=0"
    /// (`factdesk_methods::facts::AlignmentWeights`, unnamed ones at their defaults), each a
    /// row of its own from the same model calls: for choosing the weights on the dev range
    /// (repeatable)
    #[arg(long)]
    pub alignment: Vec<factdesk_methods::facts::AlignmentWeights>,
    /// Keep the verifier's judgements in this file and reuse them on the next run with the
    /// same weights (for trying alignment rules without waiting on the model)
    #[arg(long)]
    pub nli_cache: Option<PathBuf>,
}

/// One line of a contrast file.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
pub struct Case {
    /// The item's line number in HaluEval's summarization file.
    pub item: usize,
    pub kind: String,
    /// The evidence the claim is judged against.
    pub article: String,
    pub claim: String,
    /// The unedited sentence.
    pub original: String,
    /// The words the edit took out and put in (none for `original` and `someone-else`).
    pub old: Option<String>,
    pub new: Option<String>,
}

impl Case {
    /// Whether the article supports the claim: only an unedited sentence against its own
    /// article does.
    pub fn expected_supported(&self) -> bool {
        self.kind == "original"
    }
}

/// Reads a contrast file; blank lines are skipped, any other line must be a case.
pub fn parse_cases(reader: impl BufRead, name: &str) -> anyhow::Result<Vec<Case>> {
    let mut cases = Vec::new();
    for (number, line) in reader.lines().enumerate() {
        let line = line.with_context(|| format!("reading {name}"))?;
        if line.trim().is_empty() {
            continue;
        }
        cases.push(
            serde_json::from_str(&line)
                .with_context(|| format!("{name} line {}: not a contrast case", number + 1))?,
        );
    }
    anyhow::ensure!(!cases.is_empty(), "{name} holds no contrast case");
    Ok(cases)
}

/// At most `limit` cases of each kind, in file order.
fn limited(cases: Vec<Case>, limit: Option<usize>) -> Vec<Case> {
    let Some(limit) = limit else { return cases };
    let mut seen: HashMap<String, usize> = HashMap::new();
    cases
        .into_iter()
        .filter(|case| {
            let count = seen.entry(case.kind.clone()).or_default();
            *count += 1;
            *count <= limit
        })
        .collect()
}

/// One judge's verdict on one case.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Judged {
    pub support: f64,
    /// `None` for a judge that cannot refute (the lexical baseline).
    pub refuted: Option<bool>,
}

/// The figures of one judge on one kind of case.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct KindRow {
    pub judge: String,
    pub kind: String,
    /// Whether the kind's claims are supported by their evidence.
    pub expected_supported: bool,
    pub cases: usize,
    /// Shares of the cases, 0–1.
    pub supported: f64,
    pub not_supported: f64,
    pub refuted: Option<f64>,
    pub mean_support: f64,
}

/// The rows of one judge, one per kind in the order kinds first appear in `judged`; a case
/// is supported when its support is at least `threshold`.
pub fn kind_rows(judge: &str, judged: &[(&Case, Judged)], threshold: f64) -> Vec<KindRow> {
    let mut kinds: Vec<&str> = Vec::new();
    for (case, _) in judged {
        if !kinds.contains(&case.kind.as_str()) {
            kinds.push(&case.kind);
        }
    }
    kinds
        .into_iter()
        .map(|kind| {
            let of: Vec<&(&Case, Judged)> =
                judged.iter().filter(|(case, _)| case.kind == kind).collect();
            let cases = of.len();
            let share = |count: usize| count as f64 / cases as f64;
            let supported = of.iter().filter(|(_, j)| j.support >= threshold).count();
            let refuted = of
                .iter()
                .all(|(_, j)| j.refuted.is_some())
                .then(|| share(of.iter().filter(|(_, j)| j.refuted == Some(true)).count()));
            KindRow {
                judge: judge.to_owned(),
                kind: kind.to_owned(),
                expected_supported: of.first().is_some_and(|(case, _)| case.expected_supported()),
                cases,
                supported: share(supported),
                not_supported: share(cases - supported),
                refuted,
                mean_support: of.iter().map(|(_, j)| j.support).sum::<f64>() / cases as f64,
            }
        })
        .collect()
}

/// Every case judged by `nli` under the grounding rule.
async fn judge_all(
    name: &str,
    nli: &dyn Nli,
    cases: &[Case],
    config: &GroundingConfig,
) -> anyhow::Result<Vec<Grounding>> {
    let mut out = Vec::with_capacity(cases.len());
    for (done, case) in cases.iter().enumerate() {
        out.push(grounding::ground(nli, &case.article, &case.claim, config).await?);
        if (done + 1) % 200 == 0 {
            eprintln!("  {name}: {} of {} cases", done + 1, cases.len());
        }
    }
    Ok(out)
}

/// Each grounding's support and whether it refutes at `threshold`.
fn verdicts(groundings: &[Grounding], threshold: f64) -> Vec<Judged> {
    groundings
        .iter()
        .map(|g| Judged { support: g.support, refuted: Some(g.refuted(threshold)) })
        .collect()
}

/// Writes each case with its judgements, one JSON line each.
fn dump(
    path: &std::path::Path,
    cases: &[Case],
    product: &[Grounding],
    without_facts: &[Judged],
    lexical: &[Judged],
) -> anyhow::Result<()> {
    use std::io::Write;
    let partial = path.with_extension("part");
    let mut out = std::io::BufWriter::new(
        std::fs::File::create(&partial)
            .with_context(|| format!("cannot write {}", partial.display()))?,
    );
    for (((case, grounding), plain), words) in
        cases.iter().zip(product).zip(without_facts).zip(lexical)
    {
        // Each claim sentence's alignment with each of its premises, and what its article
        // never states: why the product judged as it did.
        let alignments: Vec<serde_json::Value> = grounding
            .sentences
            .iter()
            .map(|sentence| {
                let texts = sentence.premise_texts();
                let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
                serde_json::json!({
                    "premises": factdesk_methods::facts::align_all_from(&refs, &[case.article.as_str()], &sentence.sentence),
                    "absent": factdesk_methods::facts::absent_facts(&[case.article.as_str()], &sentence.sentence),
                })
            })
            .collect();
        let line = serde_json::json!({
            "item": case.item,
            "kind": case.kind,
            "alignments": alignments,
            "claim": case.claim,
            "original": case.original,
            "old": case.old,
            "new": case.new,
            "verifier": grounding,
            "support_without_facts": plain.support,
            "lexical_share": words.support,
        });
        writeln!(out, "{line}")?;
    }
    out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
    std::fs::rename(&partial, path)
        .with_context(|| format!("cannot move {} to {}", partial.display(), path.display()))?;
    Ok(())
}

/// Which split range the cases' items come from, for the report ("dev", "eval", or "mixed").
fn range_of(cases: &[Case]) -> anyhow::Result<&'static str> {
    let within = |range: Range| -> anyhow::Result<bool> {
        let (start, end) = range.items("summarization")?;
        Ok(cases.iter().all(|case| (start..end).contains(&case.item)))
    };
    Ok(if within(Range::Dev)? {
        "dev"
    } else if within(Range::Eval)? {
        "eval"
    } else {
        "mixed"
    })
}

/// The lexical baseline needs every content term of the claim in the article to call it
/// supported: a share of 0.5, the other judges' threshold, would let almost any one-word
/// change through.
const LEXICAL_THRESHOLD: f64 = 1.0;

pub fn run(bench: &ContrastBench) -> anyhow::Result<()> {
    let name = bench.cases.display().to_string();
    let file = std::fs::File::open(&bench.cases).with_context(|| {
        format!("cannot open {name} (scripts/bench-contrast.sh builds the contrast sets)")
    })?;
    let cases = limited(parse_cases(std::io::BufReader::new(file), &name)?, bench.limit);
    let range = range_of(&cases)?;
    let folder = bench.verifier.clone().unwrap_or_else(factdesk_core::verify::verifier_folder);
    let threshold = 0.5;
    let config = GroundingConfig::default();

    let started = Instant::now();
    let model = CrossEncoderNli::load(&folder)?.with_name(factdesk_core::verify::NLI_VERIFIER);
    let shared = Arc::new(match &bench.nli_cache {
        Some(cache) => SharedNli::with_cache(model, &folder, cache)?,
        None => SharedNli::new(model),
    });
    let calibration_error = |message: String| {
        anyhow::anyhow!(
            "{}: {message}",
            folder.join(factdesk_methods::calibration::CALIBRATION_FILE).display()
        )
    };
    // The product's judge, and the same without fact alignment.
    let product = factdesk_methods::facts::shipped_verifier(shared.clone(), &folder)
        .map_err(calibration_error)?;
    let calibrated =
        factdesk_methods::calibration::with_shipped_calibration(shared.clone(), &folder)
            .map_err(calibration_error)?;
    let load_seconds = started.elapsed().as_secs_f64();

    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    eprintln!("contrast: {} cases from {name}", cases.len());
    let judged_started = Instant::now();
    let without_facts = verdicts(
        &runtime.block_on(judge_all(
            "verifier without facts",
            calibrated.as_ref(),
            &cases,
            &config,
        ))?,
        threshold,
    );
    let groundings = runtime.block_on(judge_all("verifier", product.as_ref(), &cases, &config))?;
    let with_facts = verdicts(&groundings, threshold);
    let wall_seconds = judged_started.elapsed().as_secs_f64();
    shared.save()?;
    let (pairs, pairs_per_second) = shared.throughput();
    let model_seconds = shared.nanos.load(std::sync::atomic::Ordering::Relaxed) as f64 / 1e9;
    let lexical: Vec<Judged> = cases
        .iter()
        .map(|case| Judged {
            support: 1.0 - factdesk_methods::calibration::missing_share(&case.article, &case.claim),
            refuted: None,
        })
        .collect();

    if let Some(path) = &bench.dump {
        dump(path, &cases, &groundings, &without_facts, &lexical)?;
        eprintln!("judgements of {} cases written to {}", cases.len(), path.display());
    }

    let pair_up = |judged: &[Judged]| -> Vec<(&Case, Judged)> {
        cases.iter().zip(judged.iter().copied()).collect()
    };
    let mut rows = kind_rows("verifier (as shipped)", &pair_up(&with_facts), threshold);
    for weights in &bench.alignment {
        let judge = factdesk_methods::facts::FactChecked::new(calibrated.clone(), *weights);
        let name = format!("+ alignment {weights}");
        let groundings = runtime.block_on(judge_all(&name, &judge, &cases, &config))?;
        rows.extend(kind_rows(&name, &pair_up(&verdicts(&groundings, threshold)), threshold));
    }
    rows.extend(kind_rows("verifier without facts", &pair_up(&without_facts), threshold));
    rows.extend(kind_rows("lexical baseline", &pair_up(&lexical), LEXICAL_THRESHOLD));

    if bench.json {
        let out = serde_json::json!({
            "cases_file": name,
            "range": range,
            "verifier": folder.display().to_string(),
            "threshold": threshold,
            "lexical_threshold": LEXICAL_THRESHOLD,
            "grounding": config,
            "model_load_seconds": load_seconds,
            "pairs": pairs,
            "pairs_per_second": pairs_per_second,
            "wall_seconds": wall_seconds,
            "rows": rows,
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    print!("{}", table(&rows));
    println!(
        "{} cases of {name} (items of the {range} range{}); verifier {} loaded in {load_seconds:.2} s",
        cases.len(),
        if range == "eval" { ": report only, never tune on them" } else { "" },
        folder.display(),
    );
    println!(
        "{pairs} pairs classified at {pairs_per_second:.1} pairs/s ({model_seconds:.1} s in the \
         model, {wall_seconds:.1} s judging in all; both verifier rows share the model calls; pairs \
         replayed from --nli-cache are not counted)"
    );
    println!(
        "supported = support >= {threshold} ({LEXICAL_THRESHOLD} for the lexical baseline: \
         every content term of the claim in the article); refuted = a claim sentence no premise \
         entails and one contradicts at >= {threshold}; expected: original supported, every \
         other kind not supported"
    );
    Ok(())
}

/// The figures as a text table.
pub fn table(rows: &[KindRow]) -> String {
    let percent = |share: f64| format!("{:.1}%", 100.0 * share);
    let mut out = format!(
        "{:<24} {:<13} {:<7} {:>6} {:>10} {:>10} {:>8} {:>8}\n",
        "judge", "kind", "expect", "cases", "supported", "not supp.", "refuted", "mean"
    );
    for row in rows {
        out.push_str(&format!(
            "{:<24} {:<13} {:<7} {:>6} {:>10} {:>10} {:>8} {:>8.3}\n",
            row.judge,
            row.kind,
            if row.expected_supported { "supp." } else { "not" },
            row.cases,
            percent(row.supported),
            percent(row.not_supported),
            row.refuted.map_or_else(|| "n/a".to_owned(), percent),
            row.mean_support,
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = r#"{"item": 7500, "kind": "original", "article": "A. B.", "claim": "Smith, 24, won.", "original": "Smith, 24, won.", "old": null, "new": null}

{"item": 7500, "kind": "number", "article": "A. B.", "claim": "Smith, 36, won.", "original": "Smith, 24, won.", "old": "24", "new": "36"}
{"item": 7501, "kind": "number", "article": "C.", "claim": "Jones, 12, lost.", "original": "Jones, 6, lost.", "old": "6", "new": "12"}
{"item": 7502, "kind": "number", "article": "D.", "claim": "Lee, 40, ran.", "original": "Lee, 30, ran.", "old": "30", "new": "40"}
{"item": 7501, "kind": "someone-else", "article": "E.", "claim": "Jones, 6, lost.", "original": "Jones, 6, lost."}
"#;

    #[test]
    fn contrast_files_are_read_line_by_line_and_blank_lines_skipped() {
        let cases = parse_cases(FILE.as_bytes(), "test").unwrap();
        assert_eq!(cases.len(), 5);
        assert_eq!(cases[1].kind, "number");
        assert_eq!(cases[1].old.as_deref(), Some("24"));
        assert_eq!(cases[1].new.as_deref(), Some("36"));
        assert_eq!(cases[0].old, None);
        // A missing "old" / "new" is none as well.
        assert_eq!(cases[4].new, None);
        assert!(cases[0].expected_supported() && !cases[1].expected_supported());
        let error = parse_cases("{\"item\": 1}\n".as_bytes(), "bad.jsonl").unwrap_err();
        assert!(format!("{error:#}").contains("bad.jsonl line 1"), "{error:#}");
        assert!(parse_cases("\n".as_bytes(), "empty").is_err());
        let first_two = limited(cases, Some(2));
        assert_eq!(first_two.iter().filter(|case| case.kind == "number").count(), 2);
        assert_eq!(first_two.len(), 4);
    }

    #[test]
    fn rows_give_shares_and_mean_support_per_kind_in_file_order() {
        let cases = parse_cases(FILE.as_bytes(), "test").unwrap();
        let verdicts = [(0.9, false), (0.7, false), (0.2, true), (0.1, false), (0.5, false)];
        let judged: Vec<(&Case, Judged)> = cases
            .iter()
            .zip(verdicts)
            .map(|(case, (support, refuted))| (case, Judged { support, refuted: Some(refuted) }))
            .collect();
        let rows = kind_rows("verifier", &judged, 0.5);
        let kinds: Vec<&str> = rows.iter().map(|row| row.kind.as_str()).collect();
        assert_eq!(kinds, ["original", "number", "someone-else"]);
        let number = &rows[1];
        assert_eq!(number.cases, 3);
        assert!(!number.expected_supported);
        assert!((number.supported - 1.0 / 3.0).abs() < 1e-12);
        assert!((number.not_supported - 2.0 / 3.0).abs() < 1e-12);
        assert!((number.refuted.unwrap() - 1.0 / 3.0).abs() < 1e-12);
        assert!((number.mean_support - (0.7 + 0.2 + 0.1) / 3.0).abs() < 1e-12);
        // Support exactly at the threshold counts as supported.
        assert_eq!(rows[2].supported, 1.0);
        assert!(rows[0].expected_supported);
        let text = table(&rows);
        assert!(text.contains("33.3%") && text.contains("66.7%"), "{text}");
        // A judge that cannot refute shows no refuted share.
        let lexical: Vec<(&Case, Judged)> =
            judged.iter().map(|(case, j)| (*case, Judged { refuted: None, ..*j })).collect();
        let rows = kind_rows("lexical baseline", &lexical, 1.0);
        assert!(rows.iter().all(|row| row.refuted.is_none() && row.supported == 0.0));
        assert!(table(&rows).contains("n/a"));
    }
}
