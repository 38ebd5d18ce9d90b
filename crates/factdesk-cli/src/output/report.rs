//! What `report` and `eval` print: where a report went, the figures of checks and revisions.

use std::path::Path;

use factdesk_core::eval::{AlphaTuning, Evaluation};
use factdesk_core::model::Verdict;
use factdesk_core::model::ciber::FusionRule;
use factdesk_core::report::Format as ReportFormat;
use factdesk_core::revise::RevisionEvaluation;

use super::{Text, figure, print_json, purposes};

/// Where `report -o` wrote, on stderr for people or as JSON on stdout.
pub fn report_written(path: &Path, format: ReportFormat, json: bool) -> anyhow::Result<()> {
    if json {
        return print_json(&serde_json::json!({ "path": path, "format": format.as_str() }));
    }
    eprintln!("Wrote {}", path.display());
    Ok(())
}

fn percent(value: Option<f64>) -> String {
    value.map_or_else(|| "n/a".to_owned(), |v| format!("{:.1}%", v * 100.0))
}

impl Text for AlphaTuning {
    fn text(&self) -> anyhow::Result<()> {
        let tuning = self;
        println!(
            "CIBER α grid on '{}' ({} labelled claims): accuracy / macro-F1 (three-way)",
            tuning.collection, tuning.claims
        );
        let mut alphas: Vec<f64> = tuning.scores.iter().map(|score| score.alpha).collect();
        alphas.dedup();
        println!(
            "  α     {}",
            FusionRule::ALL.map(|rule| format!("{:<14}", rule.as_str().to_uppercase())).join("")
        );
        for alpha in alphas {
            let cells: Vec<String> = FusionRule::ALL
                .iter()
                .map(|&rule| {
                    tuning
                        .scores
                        .iter()
                        .find(|score| score.rule == rule && score.alpha == alpha)
                        .map_or_else(String::new, |score| {
                            format!("{} / {}", percent(score.accuracy), percent(score.macro_f1))
                        })
                })
                .map(|cell| format!("{cell:<14}"))
                .collect();
            println!("  {alpha:<5.1} {}", cells.join(""));
        }
        for best in &tuning.best {
            println!(
                "Best α for {}: {:.1} (macro-F1 {})",
                best.rule.as_str().to_uppercase(),
                best.alpha,
                percent(best.macro_f1)
            );
        }
        Ok(())
    }
}

impl Text for Evaluation {
    fn text(&self) -> anyhow::Result<()> {
        let evaluation = self;
        println!(
            "Collection '{}': {} claim(s), {} labelled, {} scored (methods: {})",
            evaluation.collection,
            evaluation.claims,
            evaluation.labelled,
            evaluation.evaluated,
            if evaluation.methods.is_empty() {
                "none".to_owned()
            } else {
                evaluation.methods.join(", ")
            }
        );
        println!("accuracy             {}", percent(evaluation.accuracy));
        println!("balanced accuracy    {}", percent(evaluation.balanced_accuracy));
        println!("true claims found    {}", percent(evaluation.true_positive_rate));
        println!("other claims not     {}", percent(evaluation.true_negative_rate));
        println!(
            "not supported: precision {}, recall {}",
            percent(evaluation.not_supported_precision),
            percent(evaluation.not_supported_recall)
        );
        println!("ROC AUC              {}", figure(evaluation.roc_auc));
        println!("calibration error    {}", figure(evaluation.expected_calibration_error));
        if !evaluation.nli_models.is_empty() {
            println!("NLI                  {}", evaluation.nli_models.join(", "));
        }
        println!("Confusion (rows gold label, columns verdict):");
        print!("  {:<16}", "");
        for verdict in Verdict::ALL {
            print!("{:>16}", verdict.label());
        }
        println!();
        for row in &evaluation.confusion {
            print!("  {:<16}", row.gold.label());
            for (_, count) in &row.verdicts {
                print!("{count:>16}");
            }
            println!();
        }
        println!("macro F1 (3-way)     {}", figure(evaluation.macro_f1));
        if !evaluation.undecided.is_empty() {
            let reasons: Vec<String> = evaluation
                .undecided
                .iter()
                .map(|(reason, count)| format!("{count} {}", reason.label()))
                .collect();
            println!("could not decide     {}", reasons.join(", "));
        }
        for own in &evaluation.figures {
            for figure in &own.figures {
                let value = match (figure.rate, figure.value) {
                    (true, value) => percent(value),
                    (false, Some(count)) => format!("{count:.0}"),
                    (false, None) => "n/a".to_owned(),
                };
                println!("{:<20} {value} ({}: {})", figure.label, own.method, figure.note);
            }
        }
        let tokens = &evaluation.tokens_per_claim;
        println!(
            "tokens per claim     {:.0}{}",
            tokens.total,
            purposes(
                tokens.purposes.iter().map(|purpose| {
                    (purpose.purpose.as_str(), purpose.prompt, purpose.completion)
                })
            )
        );
        Ok(())
    }
}

impl Text for RevisionEvaluation {
    fn text(&self) -> anyhow::Result<()> {
        let figures = self;
        println!(
            "Revisions of '{}': {} ({} changed), {} edit(s), {} change(s) refused",
            figures.collection, figures.revisions, figures.changed, figures.edits, figures.refused
        );
        println!(
            "  entailment by the sources: measured for {}, rose for {}, fell for {}; mean {} → {}",
            figures.entailment_measured,
            figures.entailment_rose,
            figures.entailment_fell,
            figure(figures.mean_entailment_before),
            figure(figures.mean_entailment_after)
        );
        println!(
            "  mean edit distance to the original {} · mean similarity {}",
            figure(figures.mean_edit_distance),
            figure(figures.mean_similarity)
        );
        println!(
            "  people's decisions: {} accepted, {} rejected",
            figures.accepted, figures.rejected
        );
        for (step, calls) in &figures.calls_per_revision {
            let tokens = figures.tokens_per_revision.get(step).copied().unwrap_or(0.0);
            println!("  {step:<10} {calls:.2} calls, {tokens:.0} tokens per revision");
        }
        Ok(())
    }
}
