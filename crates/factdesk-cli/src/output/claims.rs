//! What the `claims` subcommands print: imports, claim lists, collections, similar claims.

use factdesk_core::claims::ClaimImportSummary;
use factdesk_core::model::{Claim, ClaimCollection};

use super::{Text, import_failures};

impl Text for ClaimImportSummary {
    fn text(&self) -> anyhow::Result<()> {
        let summary = self;
        println!(
            "Imported {} claim(s) into collection '{}'; {} already present, {} failed.",
            summary.imported, summary.collection, summary.duplicates, summary.failed
        );
        import_failures(&summary.failures);
        Ok(())
    }
}

impl Text for [Claim] {
    fn text(&self) -> anyhow::Result<()> {
        let claims = self;
        if claims.is_empty() {
            println!("No claims.");
        }
        for claim in claims {
            let label = claim.gold_label.map_or("-", |label| label.as_str());
            let tags = if claim.tags.is_empty() {
                String::new()
            } else {
                format!("  #{}", claim.tags.join(" #"))
            };
            let date =
                claim.claimed_on.as_deref().map(|date| format!("  ({date})")).unwrap_or_default();
            let language =
                claim.language.as_deref().map(|code| format!("  [{code}]")).unwrap_or_default();
            println!(
                "{:>6}  {:<10} {:<10} gold {:<16} {}{}{}{}",
                claim.id,
                claim.collection,
                claim.status.as_str(),
                label,
                claim.text,
                date,
                language,
                tags
            );
        }
        Ok(())
    }
}

/// Earlier claims like a text: similarity, claim, and its newest verdict and review.
impl Text for [factdesk_core::similar::SimilarClaim] {
    fn text(&self) -> anyhow::Result<()> {
        let similar = self;
        if similar.is_empty() {
            println!("No earlier claim says the same thing.");
        }
        for entry in similar {
            let verdict = entry.check.as_ref().map_or_else(
                || "unchecked".to_owned(),
                |stored| {
                    let machine = stored.check.verdict.as_str();
                    match &stored.review {
                        Some(review) => format!("{machine}, reviewed {}", review.verdict.as_str()),
                        None => machine.to_owned(),
                    }
                },
            );
            println!(
                "{:.2}  {:>6}  {:<10}  {:<28}  {}",
                entry.similarity, entry.claim.id, entry.claim.collection, verdict, entry.claim.text
            );
        }
        Ok(())
    }
}

impl Text for [ClaimCollection] {
    fn text(&self) -> anyhow::Result<()> {
        let collections = self;
        if collections.is_empty() {
            println!(
                "No claim collections yet; add one with `factdesk claims import FILE --collection NAME`."
            );
        }
        for collection in collections {
            println!("{:<20} {:>7} claim(s)", collection.name, collection.claim_count);
        }
        Ok(())
    }
}
