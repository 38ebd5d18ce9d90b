//! What `verify` and `review` print: a check with its evidence, a batch's summary, a review.

use factdesk_core::model::ciber::{CiberDetail, Masses, ProbeMode, ProbeSet, RuleVerdict};
use factdesk_core::model::{ClaimCheck, Review, StoredCheck};
use factdesk_core::verify::BatchSummary;

use super::{Text, retry_failures, run_line, source_name, tokens};

impl Text for StoredCheck {
    fn text(&self) -> anyhow::Result<()> {
        let stored = self;
        let check = &stored.check;
        println!("Claim:      {}", check.claim);
        println!(
            "Verdict:    {}{}",
            check.verdict_label(),
            check.confidence.map(|c| format!(" (confidence {c:.2})")).unwrap_or_default()
        );
        println!("            {}", check.envelope.explanation);
        // What the deciding premise states differently or not at all (FactAlignment::summary).
        if let Some(facts) = check.deciding_premise().and_then(|premise| premise.facts.summary()) {
            println!("            facts: {facts}");
        }
        println!(
            "Method:     {} · model {}{}",
            check.envelope.method,
            check.envelope.model,
            check
                .envelope
                .nli_model
                .as_deref()
                .map(|nli| format!(" · NLI {nli}"))
                .unwrap_or_default()
        );
        println!("Check id:   {} (run {})", stored.id, stored.run_id);
        for attribution in &check.attributions {
            let source = &attribution.source;
            println!("Evidence:   {} (P = {:.2})", source_name(source), attribution.entailment);
            if let Some(date) = &source.published_at {
                println!("            published {date}");
            }
            if let (Some(at), Some(hash)) = (&source.fetched_at, &source.content_hash) {
                println!("            fetched {at}, content {}", &hash[..hash.len().min(16)]);
            }
            for sentence in &attribution.sentences {
                println!("            “{sentence}”");
            }
        }
        for stale in &stored.stale {
            let source = stale.source();
            let name = source_name(&source);
            println!("Old:        {name}: {}", stale.note);
        }
        if let Some(detail) = check.ciber() {
            ciber(check, detail);
        }
        if !check.proposed_urls().is_empty() {
            println!("URLs proposed:");
            for url in check.proposed_urls() {
                let status = serde_json::to_value(url.status)?;
                println!("  {:<10} {}", status.as_str().unwrap_or_default(), url.url);
                if let Some(error) = &url.error {
                    println!("             {error}");
                }
            }
        }
        tokens(&check.envelope.tokens);
        Ok(())
    }
}

/// CIBER's claim verdict under each rule, then per document its probes and fused verdicts.
fn ciber(check: &ClaimCheck, detail: &CiberDetail) {
    let masses = |m: &Masses| format!("S {:.2} R {:.2} N {:.2}", m.support, m.refute, m.neutral);
    // "WP S 0.81 · WIG S 0.64 · …": each rule's stance and confidence.
    let verdicts = |verdicts: &[RuleVerdict]| {
        let parts: Vec<String> = verdicts
            .iter()
            .map(|v| {
                format!(
                    "{} {} {:.2}",
                    v.rule.as_str().to_uppercase(),
                    v.stance.letter(),
                    v.confidence
                )
            })
            .collect();
        parts.join(" · ")
    };
    println!("Fusion:     α = {} · claim: {}", detail.alpha, verdicts(&detail.claim));
    if let Some(rag) = &detail.rag {
        println!("RAG:        {} ({})", rag.stance.letter(), masses(&rag.shares));
    }
    for (index, document) in detail.documents.iter().enumerate() {
        let source = check.sources.get(document.source);
        let name =
            source.and_then(|s| s.title.as_deref().or(s.url.as_deref())).unwrap_or("(document)");
        let mark = if detail.strongest_support == Some(index) {
            " · strongest support"
        } else if detail.strongest_refute == Some(index) {
            " · strongest refutation"
        } else {
            ""
        };
        println!(
            "Document {}: {name} ({} words{}){mark}",
            index + 1,
            document.words,
            if document.truncated { ", cut" } else { "" }
        );
        for probe in &document.probes {
            let set = match probe.set {
                ProbeSet::Agree => "AG",
                ProbeSet::Conflict => "CF",
            };
            let mode = match probe.mode {
                ProbeMode::Exact => "exact",
                ProbeMode::Sampling => "sampled",
            };
            println!("  {set} {:<52} {} ({mode})", probe.question, masses(&probe.shares));
        }
        println!("  P_AG {} · P_CF {}", masses(&document.agree), masses(&document.conflict));
        println!("  {}", verdicts(&document.fusion));
    }
}

impl Text for BatchSummary {
    fn text(&self) -> anyhow::Result<()> {
        let summary = self;
        println!(
            "{}",
            run_line(
                format!(
                    "Run {} ({}) over '{}': {} claim(s); {} checked now, {} checked before",
                    summary.run_id,
                    summary.method,
                    summary.collection,
                    summary.claims,
                    summary.checked,
                    summary.already_checked,
                ),
                summary.resumed,
                summary.elsewhere,
                "being checked",
                summary.failed,
                summary.cancelled,
            )
        );
        for (verdict, count) in &summary.verdicts {
            println!("  {:<16} {count}", verdict.label());
        }
        for (reason, count) in &summary.undecided {
            println!("    of which {:<12} {count}", reason.label());
        }
        retry_failures(&summary.failures);
        Ok(())
    }
}

impl Text for Review {
    fn text(&self) -> anyhow::Result<()> {
        let review = self;
        println!(
            "Review {} of check {}: {} → {}{}",
            review.id,
            review.check_id,
            review.decision.as_str(),
            review.verdict.label(),
            if review.comment.is_empty() {
                String::new()
            } else {
                format!(" ({})", review.comment)
            }
        );
        Ok(())
    }
}
