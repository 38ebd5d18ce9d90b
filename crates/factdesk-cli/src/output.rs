//! Printing results: JSON for `--json`, plain text for people. Highlights are shown in bold
//! on a terminal and between [brackets] otherwise.

use std::io::IsTerminal;
use std::path::Path;

use factdesk_core::claims::ClaimImportSummary;
use factdesk_core::eval::{AlphaTuning, Evaluation};
use factdesk_core::import::ImportSummary;
use factdesk_core::index_sync::{IndexCheck, ReindexSummary};
use factdesk_core::model::ClaimCheck;
use factdesk_core::model::ciber::{CiberDetail, FusionRule, Masses, ProbeMode, ProbeSet};
use factdesk_core::model::{Claim, ClaimCollection, Corpus, Document, DocumentSummary};
use factdesk_core::model::{Outcome, StoredOutcome};
use factdesk_core::model::{Passage, Review, StoredCheck, Verdict};
use factdesk_core::models::{AskAnswer, ModelCheck, ModelChoice, ModelListing};
use factdesk_core::passages::{PassageAddSummary, PassageImportSummary};
use factdesk_core::report::Format as ReportFormat;
use factdesk_core::revise::{ReviewedRevision, ReviseSummary, RevisionEvaluation};
use factdesk_core::score::{FitReport, SummaryScore};
use factdesk_core::search::SearchHit;
use factdesk_core::summaries::{QuestionScores, SummaryQuestion, SummaryView};
use factdesk_core::verify::BatchSummary;
use factdesk_core::{InitReport, Settings};
use serde::Serialize;

/// What a command prints for people (its JSON is its `Serialize`).
pub(crate) trait Text {
    fn text(&self) -> anyhow::Result<()>;
}

impl<T> Text for Vec<T>
where
    [T]: Text,
{
    fn text(&self) -> anyhow::Result<()> {
        self.as_slice().text()
    }
}

/// Prints `value` as JSON with `--json`, else as text: the one place that chooses.
pub fn show<T: Serialize + Text + ?Sized>(value: &T, json: bool) -> anyhow::Result<()> {
    if json { print_json(&value) } else { value.text() }
}

/// The claims or passages a batch could not do, and how to retry them.
fn retry_failures(failures: &[factdesk_core::batch::SubjectFailure]) {
    if !failures.is_empty() {
        println!("Failures (run the same command again to retry them):");
        for failure in failures {
            println!("  {}: {}", failure.subject, failure.message);
        }
    }
}

pub(crate) fn print_json(value: &impl Serialize) -> anyhow::Result<()> {
    println!("{}", serde_json::to_string_pretty(value)?);
    Ok(())
}

impl Text for InitReport {
    fn text(&self) -> anyhow::Result<()> {
        let report = self;
        println!("Data directory: {}", report.data_dir.display());
        println!(
            "  database:     {} (schema version {})",
            report.database.display(),
            report.schema_version
        );
        println!("  search index: {}", report.index.display());
        println!(
            "  config:       {}{}",
            report.config.display(),
            if report.config_created { " (created)" } else { " (kept)" }
        );
        Ok(())
    }
}

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
            for failure in &summary.failures {
                println!("  {}: {}", failure.item, failure.message);
            }
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

impl Text for ClaimImportSummary {
    fn text(&self) -> anyhow::Result<()> {
        let summary = self;
        println!(
            "Imported {} claim(s) into collection '{}'; {} already present, {} failed.",
            summary.imported, summary.collection, summary.duplicates, summary.failed
        );
        for failure in &summary.failures {
            println!("  {}: {}", failure.item, failure.message);
        }
        Ok(())
    }
}

impl Text for PassageAddSummary {
    fn text(&self) -> anyhow::Result<()> {
        let summary = self;
        if summary.added > 0 {
            println!("Added the passage to '{}'.", summary.collection);
        } else {
            println!("'{}' already holds this passage; nothing was added.", summary.collection);
        }
        Ok(())
    }
}

impl Text for [Passage] {
    fn text(&self) -> anyhow::Result<()> {
        let passages = self;
        if passages.is_empty() {
            println!("No passages.");
        }
        for passage in passages {
            let sources: Vec<String> = passage.sources.iter().map(|id| id.to_string()).collect();
            println!(
                "{:>6}  {:<18} {}{}{}",
                passage.id,
                passage.kind.as_str(),
                passage.text,
                passage
                    .question
                    .as_deref()
                    .map(|q| format!("  (question: {q})"))
                    .unwrap_or_default(),
                if sources.is_empty() {
                    String::new()
                } else {
                    format!("  (sources: {})", sources.join(", "))
                }
            );
        }
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
            println!(
                "{:>6}  {:<10} {:<10} gold {:<16} {}{}{}",
                claim.id,
                claim.collection,
                claim.status.as_str(),
                label,
                claim.text,
                date,
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

/// What `archive export` wrote.
impl Text for factdesk_core::archive::ArchiveExport {
    fn text(&self) -> anyhow::Result<()> {
        let export = self;
        println!(
            "Wrote {} page(s) to {} ({:.1} MB, WACZ).",
            export.pages,
            export.path.display(),
            export.bytes as f64 / 1e6
        );
        Ok(())
    }
}

/// Where `report -o` wrote, on stderr for people or as JSON on stdout.
pub fn report_written(path: &Path, format: ReportFormat, json: bool) -> anyhow::Result<()> {
    if json {
        return print_json(&serde_json::json!({ "path": path, "format": format.as_str() }));
    }
    eprintln!("Wrote {}", path.display());
    Ok(())
}

/// The user config file's path.
pub fn config_path(path: &Path, json: bool) -> anyhow::Result<()> {
    if json {
        return print_json(&serde_json::json!({ "path": path }));
    }
    println!("{}", path.display());
    Ok(())
}

impl Text for Settings {
    fn text(&self) -> anyhow::Result<()> {
        let settings = self;
        print!("{}", toml::to_string_pretty(settings)?);
        Ok(())
    }
}

fn describe_choice(choice: &ModelChoice) -> String {
    match choice {
        ModelChoice::Embedded { path } => format!("embedded (llama.cpp) {}", path.display()),
        ModelChoice::OpenaiCompatible { base_url, model, has_api_key } => format!(
            "openai-compatible {base_url}, model '{model}'{}",
            if *has_api_key { ", with API key" } else { "" }
        ),
    }
}

impl Text for ModelListing {
    fn text(&self) -> anyhow::Result<()> {
        let listing = self;
        println!("Selected: {}", describe_choice(&listing.selected));
        println!("Model files in {}:", listing.models_dir.display());
        if listing.local_models.is_empty() {
            println!("  (none; `bash scripts/fetch-models.sh` installs the default)");
        }
        for model in &listing.local_models {
            println!("  {model}");
        }
        if let Some(models) = &listing.server_models {
            println!("Models the server offers:");
            for model in models {
                println!("  {model}");
            }
        }
        if let Some(error) = &listing.server_error {
            println!("The server did not list its models: {error}");
        }
        Ok(())
    }
}

impl Text for ModelCheck {
    fn text(&self) -> anyhow::Result<()> {
        let check = self;
        println!("{} answers: {:?}", describe_choice(&check.selected), check.answer);
        println!(
            "  {} ms, {} prompt + {} completion tokens",
            check.latency_ms, check.prompt_tokens, check.completion_tokens
        );
        Ok(())
    }
}

impl Text for AskAnswer {
    fn text(&self) -> anyhow::Result<()> {
        let answer = self;
        println!("{}", answer.text.trim());
        eprintln!(
            "[{} {} · run {} · call {} · {} + {} tokens · {} ms{}{}]",
            answer.provider,
            answer.model,
            answer.run_id,
            answer.audit_id.map_or("-".to_owned(), |id| id.to_string()),
            answer.prompt_tokens,
            answer.completion_tokens,
            answer.latency_ms,
            if answer.replayed { " · replayed from the record" } else { "" },
            if answer.truncated { " · cut at max tokens" } else { "" }
        );
        Ok(())
    }
}

/// " (url 120 in + 30 out, judge 800 in + 4 out)", or nothing when no purpose cost tokens.
fn purposes<'a>(counts: impl Iterator<Item = (&'a str, f64, f64)>) -> String {
    let parts: Vec<String> = counts
        .map(|(purpose, prompt, completion)| {
            format!("{purpose} {prompt:.0} in + {completion:.0} out")
        })
        .collect();
    if parts.is_empty() { String::new() } else { format!(" ({})", parts.join(", ")) }
}

fn percent(value: Option<f64>) -> String {
    value.map_or_else(|| "n/a".to_owned(), |v| format!("{:.1}%", v * 100.0))
}

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
            println!(
                "Evidence:   {} (P = {:.2})",
                source.url.as_deref().or(source.title.as_deref()).unwrap_or("(document)"),
                attribution.entailment
            );
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
            let name = source.url.as_deref().or(source.title.as_deref()).unwrap_or("(document)");
            println!("Old:        {name}: {}", stale.note);
        }
        if let Some(detail) = &check.ciber {
            ciber(check, detail);
        }
        if !check.urls.is_empty() {
            println!("URLs proposed:");
            for url in &check.urls {
                let status = serde_json::to_value(url.status)?;
                println!("  {:<10} {}", status.as_str().unwrap_or_default(), url.url);
                if let Some(error) = &url.error {
                    println!("             {error}");
                }
            }
        }
        println!(
            "Tokens:     {}{}",
            check.envelope.tokens.total(),
            purposes(check.envelope.tokens.0.iter().map(|(purpose, count)| {
                (purpose.as_str(), count.prompt as f64, count.completion as f64)
            }))
        );
        Ok(())
    }
}

/// CIBER's claim verdict under each rule, then per document its probes and fused verdicts.
fn ciber(check: &ClaimCheck, detail: &CiberDetail) {
    let masses = |m: &Masses| format!("S {:.2} R {:.2} N {:.2}", m.support, m.refute, m.neutral);
    let rules: Vec<String> = detail
        .claim
        .iter()
        .map(|v| {
            format!("{} {} {:.2}", v.rule.as_str().to_uppercase(), v.stance.letter(), v.confidence)
        })
        .collect();
    println!("Fusion:     α = {} · claim: {}", detail.alpha, rules.join(" · "));
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
        let fused: Vec<String> = document
            .fusion
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
        println!("  {}", fused.join(" · "));
    }
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

impl Text for BatchSummary {
    fn text(&self) -> anyhow::Result<()> {
        let summary = self;
        println!(
            "Run {} ({}) over '{}': {} claim(s); {} checked now, {} checked before{}{}, {} failed{}.",
            summary.run_id,
            summary.method,
            summary.collection,
            summary.claims,
            summary.checked,
            summary.already_checked,
            if summary.resumed { " (run resumed)" } else { "" },
            if summary.elsewhere > 0 {
                format!(", {} being checked by another process", summary.elsewhere)
            } else {
                String::new()
            },
            summary.failed,
            if summary.cancelled {
                "; cancelled — run the same command again to continue"
            } else {
                ""
            }
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
        println!(
            "ROC AUC              {}",
            evaluation.roc_auc.map_or_else(|| "n/a".to_owned(), |auc| format!("{auc:.3}"))
        );
        println!(
            "calibration error    {}",
            evaluation
                .expected_calibration_error
                .map_or_else(|| "n/a".to_owned(), |ece| format!("{ece:.3}"))
        );
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
        println!(
            "macro F1 (3-way)     {}",
            evaluation.macro_f1.map_or_else(|| "n/a".to_owned(), |f1| format!("{f1:.3}"))
        );
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

/// "0.12" or "n/a".
fn figure(value: Option<f64>) -> String {
    value.map_or_else(|| "n/a".to_owned(), |v| format!("{v:.3}"))
}

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
            envelope.parameters["evidence"].as_str().unwrap_or("?"),
            envelope.parameters["granularity"].as_str().unwrap_or("")
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
                let source = &evidence.source;
                let name =
                    source.url.as_deref().or(source.title.as_deref()).unwrap_or("(document)");
                println!("            evidence from {name}: “{}”", evidence.sentences.join(" "));
            }
        }
        for step in revision.steps.iter().filter(|step| step.agrees == Some(true)) {
            let sources: Vec<&str> = step
                .evidence
                .iter()
                .map(|e| {
                    e.source.url.as_deref().or(e.source.title.as_deref()).unwrap_or("(document)")
                })
                .collect();
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
        println!(
            "Tokens:     {}{}",
            envelope.tokens.total(),
            purposes(envelope.tokens.0.iter().map(|(purpose, count)| {
                (purpose.as_str(), count.prompt as f64, count.completion as f64)
            }))
        );
        Ok(())
    }
}

impl Text for ReviseSummary {
    fn text(&self) -> anyhow::Result<()> {
        let summary = self;
        println!(
            "Run {} ({}) over '{}': {} passage(s); {} revised now ({} changed), {} before{}{}, {} \
             failed{}.",
            summary.run_id,
            summary.method,
            summary.collection,
            summary.passages,
            summary.revised,
            summary.changed,
            summary.already_revised,
            if summary.resumed { " (run resumed)" } else { "" },
            if summary.elsewhere > 0 {
                format!(", {} being revised by another process", summary.elsewhere)
            } else {
                String::new()
            },
            summary.failed,
            if summary.cancelled {
                "; cancelled — run the same command again to continue"
            } else {
                ""
            }
        );
        retry_failures(&summary.failures);
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

impl Text for PassageImportSummary {
    fn text(&self) -> anyhow::Result<()> {
        let summary = self;
        println!(
            "'{}': {} passage(s) added, {} already there, {} failed; source articles: {} imported, {} \
             already in the corpus.",
            summary.collection,
            summary.added,
            summary.duplicates,
            summary.failed,
            summary.sources_imported,
            summary.sources_already_there
        );
        for failure in &summary.failures {
            println!("  {}: {}", failure.item, failure.message);
        }
        Ok(())
    }
}

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
        let rate =
            |value: Option<f64>| value.map_or_else(|| "n/a".to_owned(), |v| format!("{v:.3}"));
        println!(
            "{:<10} {:>10} {:>10} {:>14}",
            "weights", "MAR train", "MAR test", "test degraded"
        );
        for row in &report.agreement {
            println!(
                "{:<10} {:>10} {:>10} {:>14}",
                row.weights,
                rate(row.train),
                rate(row.test),
                rate(row.test_degraded)
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
