//! What `revise` and `revision` print: a revision with its edits, a batch's summary.

use factdesk_core::model::{Outcome, StoredOutcome};
use factdesk_core::revise::{ReviewedRevision, ReviseSummary};

use super::{Text, figure, retry_failures, run_line, source_name, tokens};

impl Text for ReviewedRevision {
    fn text(&self) -> anyhow::Result<()> {
        let reviewed = self;
        reviewed.stored.text()?;
        for decision in &reviewed.decisions {
            println!(
                "Decision:   edit {} {}{} at {}",
                decision.edit + 1,
                if decision.accepted { "accepted" } else { "rejected" },
                decision.reviewer.as_deref().map(|name| format!(" by {name}")).unwrap_or_default(),
                decision.decided_at
            );
        }
        println!("Kept:       {}", reviewed.accepted_text);
        Ok(())
    }
}

impl Text for StoredOutcome {
    fn text(&self) -> anyhow::Result<()> {
        let stored = self;
        let Outcome::Revision(revision) = &stored.outcome else {
            anyhow::bail!("outcome {} is not a revision", stored.id);
        };
        let envelope = &revision.envelope;
        let recorded = envelope.parameters.revision();
        println!("Original:   {}", revision.original);
        println!("Revised:    {}", revision.revised);
        println!("            {}", envelope.explanation);
        println!(
            "Method:     {} · model {}{} · evidence {} {}",
            envelope.method,
            envelope.model,
            envelope
                .nli_model
                .as_deref()
                .map(|nli| format!(" · NLI gate {nli}"))
                .unwrap_or_default(),
            recorded.map_or("?", |r| r.evidence.as_str()),
            recorded.and_then(|r| r.granularity).map_or("", |granularity| granularity.as_str())
        );
        println!("Outcome id: {} (run {})", stored.id, stored.run_id);
        for (index, edit) in revision.edits.iter().enumerate() {
            println!(
                "Edit {}:     “{}” → “{}” at byte {}{}",
                index + 1,
                edit.before,
                edit.after,
                edit.start,
                edit.agreement.map(|a| format!(" (agreement {a:.2})")).unwrap_or_default()
            );
            if let Some(question) = &edit.question {
                println!("            asked: {question}");
            }
            for evidence in &edit.evidence {
                let name = source_name(&evidence.source);
                println!("            evidence from {name}: “{}”", evidence.sentences.join(" "));
            }
        }
        for step in revision.steps.iter().filter(|step| step.agrees == Some(true)) {
            let sources: Vec<&str> = step.evidence.iter().map(|e| source_name(&e.source)).collect();
            println!(
                "Backed:     “{}” — {} ({})",
                revision.original.get(step.start..step.end).unwrap_or_default(),
                step.question,
                sources.join(", ")
            );
        }
        for change in &revision.rejected {
            println!("Refused:    “{}” → “{}”: {}", change.before, change.after, change.reason);
        }
        if let Some(metrics) = &revision.metrics {
            println!(
                "Metrics:    edit distance {:.3} · similarity {} · entailment by the sources {} → {}",
                metrics.edit_distance,
                figure(metrics.similarity),
                figure(metrics.entailment_before),
                figure(metrics.entailment_after)
            );
            for score in &metrics.judge {
                println!(
                    "            judge, {}: {:.2} → {:.2} (1-5)",
                    score.criterion, score.before, score.after
                );
            }
            for note in &metrics.notes {
                println!("            {note}");
            }
            if metrics.reference_distance_before.is_some() {
                println!(
                    "            to the reference: edit distance {} → {} · similarity {} → {}",
                    figure(metrics.reference_distance_before),
                    figure(metrics.reference_distance_after),
                    figure(metrics.reference_similarity_before),
                    figure(metrics.reference_similarity_after)
                );
            }
        }
        tokens(&envelope.tokens);
        Ok(())
    }
}

impl Text for ReviseSummary {
    fn text(&self) -> anyhow::Result<()> {
        let summary = self;
        println!(
            "{}",
            run_line(
                format!(
                    "Run {} ({}) over '{}': {} passage(s); {} revised now ({} changed), {} before",
                    summary.run_id,
                    summary.method,
                    summary.collection,
                    summary.passages,
                    summary.revised,
                    summary.changed,
                    summary.already_revised,
                ),
                summary.resumed,
                summary.elsewhere,
                "being revised",
                summary.failed,
                summary.cancelled,
            )
        );
        retry_failures(&summary.failures);
        Ok(())
    }
}
