//! Prints, for each case of a contrast file (`scripts/bench-contrast.sh`), the fact alignment
//! of the claim with each premise the grounding rule would judge: a tool for reading where
//! alignment goes wrong, on the dev range only.
//!
//!     cargo run -p factdesk-methods --example align_cases -- cases.jsonl [kind] [limit]

use std::io::{BufRead, Write};

use factdesk_methods::{facts, grounding};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).ok_or("usage: align_cases CASES.jsonl [KIND] [LIMIT]")?;
    let kind = args.get(2).cloned();
    let limit: usize = args.get(3).map_or(Ok(20), |n| n.parse())?;
    let config = grounding::GroundingConfig::default();
    let mut out = std::io::stdout().lock();
    let mut shown = 0;
    let (mut all_conflict, mut any_conflict, mut total) = (0, 0, 0);
    for line in std::io::BufReader::new(std::fs::File::open(path)?).lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let case: serde_json::Value = serde_json::from_str(&line)?;
        if kind.as_deref().is_some_and(|k| case["kind"] != k) {
            continue;
        }
        let article = case["article"].as_str().unwrap_or_default();
        let claim = case["claim"].as_str().unwrap_or_default();
        let spans = factdesk_text::segment_sentences(article, "en");
        let sentences: Vec<&str> =
            spans.iter().map(|s| s.slice(article).trim()).filter(|s| !s.is_empty()).collect();
        let premises = grounding::premises(claim, &sentences, &config);
        let alignments: Vec<_> =
            premises.iter().map(|p| facts::align(&p.join(" "), claim)).collect();
        total += 1;
        let conflicted = alignments.iter().filter(|a| !a.conflicts.is_empty()).count();
        if conflicted == alignments.len() && conflicted > 0 {
            all_conflict += 1;
        }
        if conflicted > 0 {
            any_conflict += 1;
        }
        if shown < limit {
            shown += 1;
            writeln!(
                out,
                "== [{}] {claim}\n   old {:?} new {:?}",
                case["kind"], case["old"], case["new"]
            )?;
            for (premise, alignment) in premises.iter().zip(&alignments) {
                writeln!(
                    out,
                    "   premise ({} sentences): {}",
                    premise.len(),
                    premise.join(" ").chars().take(300).collect::<String>()
                )?;
                writeln!(
                    out,
                    "     conflicts {:?}",
                    alignment
                        .conflicts
                        .iter()
                        .map(|p| format!("{}:{}|{}", p.kind.label(), p.claim, p.evidence))
                        .collect::<Vec<_>>()
                )?;
                writeln!(
                    out,
                    "     unsupported {:?}",
                    alignment.unsupported.iter().map(|p| p.claim.clone()).collect::<Vec<_>>()
                )?;
            }
        }
    }
    writeln!(
        out,
        "cases {total}: every premise conflicting {all_conflict}, some premise conflicting {any_conflict}"
    )?;
    Ok(())
}
