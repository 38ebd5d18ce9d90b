//! What `summarize`, `summaries` and `score` print: summaries, their labels and scores.

use factdesk_core::score::{FitReport, SummaryScore};
use factdesk_core::summaries::{QuestionScores, SummaryQuestion, SummaryView};

use super::{Text, figure, print_json};

impl Text for [SummaryScore] {
    fn text(&self) -> anyhow::Result<()> {
        let scores = self;
        for score in scores {
            println!(
                "{}: {} line(s); XUX {:.3} · XUX_F {:.3} · XUX_G {:.3}{}",
                score.file,
                score.lines,
                score.xux,
                score.xux_f,
                score.xux_g,
                match (score.comp, score.sgss) {
                    (Some(comp), Some(sgss)) => format!(" · Comp {comp:.3} · SGSS {sgss:.3}"),
                    _ => String::new(),
                }
            );
            let curve: Vec<String> = score.x.iter().map(|x| format!("{x:.2}")).collect();
            println!("  X(l): {}", curve.join(" "));
            for label in &score.machine_labels {
                println!("  {} = {} by {}: {}", label.element, label.grade, label.by, label.why);
            }
            if !score.missing.is_empty() {
                println!("  not labelled (counted 0): {}", score.missing.join("; "));
            }
            for note in &score.notes {
                println!("  note: {note}");
            }
        }
        Ok(())
    }
}

impl Text for FitReport {
    fn text(&self) -> anyhow::Result<()> {
        let report = self;
        println!(
            "Fitted on {} question(s) ({} preference pair(s), {} label(s), {} degraded pair(s)); \
             held out {} question(s) ({} pair(s), {} label(s)); seed {}, L_max {}, alpha {}",
            report.train.questions.len(),
            report.train.pairs,
            report.train.labels,
            report.train.degraded_pairs,
            report.test.questions.len(),
            report.test.pairs,
            report.test.labels,
            report.seed,
            report.l_max,
            report.alpha,
        );
        let w = &report.weights;
        println!(
            "Weights: OS {:.3} · OF {:.3} · OR {:.3} · HR {:.3} · SRel {:.3} · SF {:.3} · Comp {:.3}",
            w.overview_sufficiency,
            w.overview_faithfulness,
            w.overview_representativeness,
            w.heading_representativeness,
            w.statement_relevance,
            w.statement_faithfulness,
            w.comp
        );
        println!(
            "{:<10} {:>10} {:>10} {:>14}",
            "weights", "MAR train", "MAR test", "test degraded"
        );
        for row in &report.agreement {
            println!(
                "{:<10} {:>10} {:>10} {:>14}",
                row.weights,
                figure(row.train),
                figure(row.test),
                figure(row.test_degraded)
            );
        }
        for note in &report.notes {
            println!("note: {note}");
        }
        Ok(())
    }
}

impl Text for SummaryView {
    fn text(&self) -> anyhow::Result<()> {
        let summary = self;
        println!(
            "Kept summary {} “{}” of “{}” ({} lines)",
            summary.id,
            summary.name,
            summary.question,
            summary.lines.len()
        );
        Ok(())
    }
}

impl Text for [SummaryQuestion] {
    fn text(&self) -> anyhow::Result<()> {
        let questions = self;
        if questions.is_empty() {
            println!("No summaries yet (factdesk summaries add FILE --question Q)");
        }
        for entry in questions {
            println!("{} ({} summary(ies))", entry.question, entry.summaries);
        }
        Ok(())
    }
}

pub fn question_summaries(scored: &QuestionScores, json: bool) -> anyhow::Result<()> {
    if json {
        return print_json(&scored.summaries);
    }
    for summary in &scored.summaries {
        println!("Summary {} “{}”", summary.id, summary.name);
        for line in &summary.lines {
            println!("  [{}] {}", line.kind, line.text);
            for label in &line.labels {
                let grade = label.grade.map_or_else(|| "unlabelled".to_owned(), |g| g.to_string());
                let by = label.labeller.as_deref().map(|b| format!(" by {b}")).unwrap_or_default();
                println!("      {} ({}): {grade}{by}", label.element, label.criterion);
            }
        }
        for label in &summary.pool {
            let grade = label.grade.map_or_else(|| "unlabelled".to_owned(), |g| g.to_string());
            println!("  {} ({}): {grade}", label.element, label.criterion);
        }
    }
    Ok(())
}

/// The stored summaries of several sources, newest first: id, method, sources kept, question.
impl Text for [factdesk_core::model::StoredOutcome] {
    fn text(&self) -> anyhow::Result<()> {
        let summaries = self;
        if summaries.is_empty() {
            println!(
                "No summaries yet: make one with `factdesk summarize --question Q --corpus C`."
            );
        }
        for stored in summaries {
            if let factdesk_core::model::Outcome::Summary(summary) = &stored.outcome {
                println!(
                    "{:>5}  {:<16}  {:>2}/{:<2} kept  {}",
                    stored.id,
                    summary.envelope.method,
                    summary.sources.iter().filter(|s| s.used).count(),
                    summary.sources.len(),
                    summary.question.as_deref().unwrap_or_default()
                );
            }
        }
        Ok(())
    }
}

pub fn sourced_summary(
    stored: &factdesk_core::model::StoredOutcome,
    json: bool,
) -> anyhow::Result<()> {
    if json {
        return print_json(stored);
    }
    let factdesk_core::model::Outcome::Summary(summary) = &stored.outcome else {
        anyhow::bail!("outcome {} is not a summary", stored.id);
    };
    println!(
        "Summary {} ({}): {}",
        stored.id, summary.envelope.method, summary.envelope.explanation
    );
    if let Some(question) = &summary.question {
        println!("Question: {question}");
    }
    println!();
    println!(
        "{}",
        if summary.text.is_empty() { "(no summary: no source was kept)" } else { &summary.text }
    );
    println!();
    println!("{:>3}  {:>7}  {:>8}  {:<7}  source", "#", "score", "majority", "kept");
    for (index, scored) in summary.sources.iter().enumerate() {
        let majority =
            summary.claims.iter().find(|c| c.source == index).map_or(f64::NAN, |c| c.majority);
        let name = scored
            .source
            .title
            .clone()
            .or_else(|| scored.source.document_id.map(|id| format!("document {id}")))
            .unwrap_or_default();
        println!(
            "{:>3}  {:>7.3}  {:>8.3}  {:<7}  {name}{}",
            index + 1,
            scored.score,
            majority,
            if scored.used { "kept" } else { "dropped" },
            scored.note.as_deref().map(|n| format!(" ({n})")).unwrap_or_default()
        );
    }
    for entry in &summary.claims {
        println!(
            "\nClaims source {} was scored on (stances of sources 1..{}: S supports, C contradicts, . abstains):",
            entry.source + 1,
            summary.sources.len()
        );
        for (k, claim) in entry.claims.iter().enumerate() {
            let row: String = entry
                .stances
                .iter()
                .map(|stances| match stances.get(k) {
                    Some(factdesk_core::model::ciber::Stance::Support) => 'S',
                    Some(factdesk_core::model::ciber::Stance::Refute) => 'C',
                    _ => '.',
                })
                .collect();
            println!("  {row}  {claim}");
        }
    }
    Ok(())
}
