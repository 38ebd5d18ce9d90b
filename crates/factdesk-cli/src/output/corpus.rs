//! What the corpus commands print: imports, search hits, documents, corpora and the index.

use std::io::IsTerminal;

use factdesk_core::import::ImportSummary;
use factdesk_core::index_sync::{IndexCheck, ReindexSummary};
use factdesk_core::model::{Corpus, Document, DocumentSummary};
use factdesk_core::search::SearchHit;

use super::{Text, import_failures, print_json};

impl Text for ImportSummary {
    fn text(&self) -> anyhow::Result<()> {
        let summary = self;
        let megabytes = summary.bytes as f64 / 1e6;
        println!(
            "Imported {} document(s) with {} sentence(s) into corpus '{}' ({:.1} MB in {:.1} s); \
             {} already present, {} failed{}.",
            summary.imported,
            summary.sentences,
            summary.corpus,
            megabytes,
            summary.seconds,
            summary.duplicates,
            summary.failed,
            if summary.cancelled { "; cancelled before the end" } else { "" }
        );
        if summary.archived > 0 {
            println!(
                "Added {} page(s) of web archives to the page archive (offline checks are served them).",
                summary.archived
            );
        }
        if !summary.skipped.is_empty() {
            println!(
                "Skipped {} entr{} (other file types; links, pipes, devices; archived records that are no readable page):",
                summary.skipped.len(),
                if summary.skipped.len() == 1 { "y" } else { "ies" }
            );
            for skipped in &summary.skipped {
                println!("  {skipped}");
            }
        }
        if summary.failed > 0 {
            println!("Failures:");
            import_failures(&summary.failures);
        }
        Ok(())
    }
}

fn highlight(snippet: &str, ranges: &[[usize; 2]]) -> String {
    let (open, close) =
        if std::io::stdout().is_terminal() { ("\x1b[1m", "\x1b[0m") } else { ("[", "]") };
    let mut out = String::with_capacity(snippet.len() + ranges.len() * 8);
    let mut at = 0;
    for &[start, end] in ranges {
        if start < at || end > snippet.len() {
            continue;
        }
        out.push_str(&snippet[at..start]);
        out.push_str(open);
        out.push_str(&snippet[start..end]);
        out.push_str(close);
        at = end;
    }
    out.push_str(&snippet[at..]);
    out
}

impl Text for [SearchHit] {
    fn text(&self) -> anyhow::Result<()> {
        let hits = self;
        if hits.is_empty() {
            println!("No sentence matches.");
        }
        for (rank, hit) in hits.iter().enumerate() {
            let page = hit.page.map(|page| format!(" · p. {page}")).unwrap_or_default();
            println!(
                "{:>2}. {}  ({} · doc {} · sentence {}{page} · score {:.2})",
                rank + 1,
                hit.document_title.as_deref().unwrap_or("(untitled)"),
                hit.corpus,
                hit.document_id,
                hit.ordinal + 1,
                hit.score
            );
            println!("    {}", highlight(&hit.snippet, &hit.highlights));
            println!("    {}", hit.document_url.as_deref().unwrap_or(&hit.document_origin));
        }
        Ok(())
    }
}

impl Text for [DocumentSummary] {
    fn text(&self) -> anyhow::Result<()> {
        let documents = self;
        if documents.is_empty() {
            println!("No documents.");
        }
        for document in documents {
            println!(
                "{:>6}  {:<12} {:>5} sent.  {}  [{}]",
                document.id,
                document.corpus,
                document.sentence_count,
                document.title.as_deref().unwrap_or("(untitled)"),
                document.origin
            );
        }
        Ok(())
    }
}

impl Text for Document {
    fn text(&self) -> anyhow::Result<()> {
        let document = self;
        let summary = &document.summary;
        println!("{}", summary.title.as_deref().unwrap_or("(untitled)"));
        println!(
            "  id {} · corpus {} · {} · {}",
            summary.id,
            summary.corpus,
            summary.format.as_str(),
            summary.origin
        );
        if let Some(url) = &summary.url {
            println!("  url {url}");
        }
        if let Some(date) = &summary.published_at {
            println!("  published {date}");
        }
        println!(
            "  acquired {} · hash {}",
            summary.acquired_at,
            &summary.content_hash[..16.min(summary.content_hash.len())]
        );
        let mut page = None;
        for sentence in &document.sentences {
            if sentence.page.is_some() && sentence.page != page {
                page = sentence.page;
                println!("\n  — page {} —", page.unwrap_or_default());
            } else if sentence.ordinal == 0 {
                println!();
            }
            println!("{:>4}  {}", sentence.ordinal + 1, sentence.text);
        }
        Ok(())
    }
}

impl Text for [Corpus] {
    fn text(&self) -> anyhow::Result<()> {
        let corpora = self;
        if corpora.is_empty() {
            println!("No corpora yet; import documents with `factdesk import PATH --corpus NAME`.");
        }
        for corpus in corpora {
            println!("{:<20} {:>7} document(s)", corpus.name, corpus.document_count);
        }
        Ok(())
    }
}

impl Text for IndexCheck {
    fn text(&self) -> anyhow::Result<()> {
        let check = self;
        println!(
            "Database: {} indexed sentence(s), {} document(s) pending. Index: {} sentence(s).",
            check.store_sentences, check.pending_documents, check.index_sentences
        );
        if check.consistent {
            println!("The search index matches the database.");
        } else {
            println!(
                "The search index differs from the database: {} missing, {} orphaned, {} duplicated. \
                 Run `factdesk reindex` to rebuild it.",
                check.missing_from_index, check.orphaned_in_index, check.duplicated_in_index
            );
        }
        Ok(())
    }
}

pub fn reindex(summary: Option<&ReindexSummary>, json: bool) -> anyhow::Result<()> {
    if json {
        return print_json(&summary);
    }
    match summary {
        Some(summary) => println!(
            "Rebuilt the search index: {} document(s), {} sentence(s) in {:.1} s.",
            summary.documents,
            summary.sentences,
            summary.seconds_milli as f64 / 1000.0
        ),
        None => println!("Reindex cancelled; the previous index is unchanged."),
    }
    Ok(())
}
