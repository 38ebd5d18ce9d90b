//! Summaries of several sources: `summarize` writes one (TTS or a baseline), `summaries` keeps
//! structured ones with their labels, `score` scores summary files with SGSS or fits its weights.

use std::path::Path;
use std::sync::Arc;

use factdesk_core::methods::tts::TtsConfig;
use factdesk_core::model::{CheckId, DocumentId};
use factdesk_core::report::Format as ReportFormat;
use factdesk_core::score::{FitRequest, Labeller, ScoreRequest};
use factdesk_core::summarize::{SummarizeRequest, SummarySources};

use super::{Globals, Outcome, cancel_on_interrupt, runtime};
use crate::args::summaries::{ScoreArgs, SummariesCommand, SummarizeArgs};
use crate::{output, progress};

pub fn summarize(args: SummarizeArgs, globals: &Globals) -> anyhow::Result<Outcome> {
    let SummarizeArgs {
        question,
        corpus,
        documents,
        search,
        limit,
        urls,
        into,
        tau,
        seed,
        method,
        stances,
        duplicate_threshold,
        restart,
        outcome,
        use_sources,
        list,
        output,
        format,
    } = args;
    let json = globals.json;
    let app = globals.open()?;
    if list {
        output::show(&app.sourced_summaries()?, json)?;
        return Ok(Outcome::Success);
    }
    let runtime = runtime()?;
    let stored = match (outcome, question) {
        (Some(id), _) if use_sources.is_empty() => app.sourced_summary(CheckId(id))?.0,
        (Some(id), _) => {
            if let Some(zero) = use_sources.iter().find(|n| **n == 0) {
                anyhow::bail!("--use {zero}: sources are numbered from 1, as listed");
            }
            let used: Vec<usize> = use_sources.iter().map(|n| n - 1).collect();
            runtime.block_on(app.resummarize(CheckId(id), &used))?
        }
        (None, Some(question)) => {
            let sources = match (corpus, search) {
                (Some(name), _) => SummarySources::Corpus(name),
                (None, Some(query)) => SummarySources::Search { query, limit },
                (None, None) if !urls.is_empty() => SummarySources::Urls { urls, corpus: into },
                (None, None) if !documents.is_empty() => {
                    SummarySources::Documents(documents.into_iter().map(DocumentId).collect())
                }
                (None, None) => anyhow::bail!(
                    "say where the sources are: --corpus NAME, --documents IDS, \
                     --search QUERY or --url URL (repeated)"
                ),
            };
            let baseline = factdesk_core::summarize::parse_method(&method)?;
            let config = TtsConfig {
                tau,
                seed,
                duplicate_threshold,
                stance_judge: stances.parse().map_err(anyhow::Error::msg)?,
                ..TtsConfig::default()
            };
            let request =
                SummarizeRequest { question, sources, baseline, config, cache: None, restart };
            let reporter = Arc::new(progress::BarReporter::new(json));
            let cancel = cancel_on_interrupt(&runtime);
            let run = runtime.block_on(app.summarize(&request, reporter, cancel))?;
            if run.resumed && !json {
                eprintln!("Resumed unfinished run {}.", run.stored.run_id);
            }
            run.stored
        }
        (None, None) => anyhow::bail!("give --question, --outcome ID or --list"),
    };
    if let Some(path) = output {
        let format = score_report_format(&path, format)?;
        app.write_summary_report(stored.id, format, &path)?;
    }
    output::summaries::sourced_summary(&stored, json)?;
    Ok(Outcome::Success)
}

pub fn summaries(command: SummariesCommand, globals: &Globals) -> anyhow::Result<Outcome> {
    let json = globals.json;
    let app = globals.open()?;
    match command {
        SummariesCommand::Add { file, question, name } => {
            let max = app.settings().import.max_file_bytes;
            let bytes = std::fs::metadata(&file)
                .map_err(|error| anyhow::anyhow!("{}: {error}", file.display()))?;
            anyhow::ensure!(
                bytes.len() <= max,
                "{}: {} bytes, more than import.max_file_bytes ({max})",
                file.display(),
                bytes.len()
            );
            let text = std::fs::read_to_string(&file).map_err(|error| {
                anyhow::anyhow!("{}: not readable as UTF-8 text: {error}", file.display())
            })?;
            let name = if name.is_empty() {
                file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
            } else {
                name
            };
            let kept = app
                .add_summary(&question, &name, &text)
                .map_err(|error| anyhow::anyhow!("{}: {error}", file.display()))?;
            output::show(&kept, json)?;
        }
        SummariesCommand::List { question: None } => {
            output::show(&app.summary_questions()?, json)?;
        }
        SummariesCommand::List { question: Some(question) } => {
            output::summaries::question_summaries(&app.score_question(&question)?, json)?;
        }
        SummariesCommand::Label { id, element, grade, by } => {
            let grade = match grade.trim().to_ascii_lowercase().as_str() {
                "clear" => None,
                word => match factdesk_core::score::grade_of_word(word) {
                    Some(value) => Some(value),
                    None => Some(word.parse::<f64>().map_err(|_| {
                        anyhow::anyhow!(
                            "'{grade}' is no grade; use {}, a number from 0 to 1, or clear",
                            factdesk_core::score::grade_words()
                        )
                    })?),
                },
            };
            let labeller = by.map_or_else(|| "person".to_owned(), |n| format!("person:{n}"));
            app.label_summary(id, &element, grade, &labeller)?;
            if json {
                output::print_json(
                    &serde_json::json!({"id": id, "element": element, "grade": grade}),
                )?;
            } else {
                println!("Summary {id}: {element} labelled");
            }
        }
        SummariesCommand::LabelWith { labellers, question, documents } => {
            let labellers = labellers_named(&labellers)?;
            let runtime = runtime()?;
            let done = runtime.block_on(app.label_question(&question, &labellers, &documents))?;
            if json {
                output::print_json(&done)?;
            } else {
                println!("{} label(s) stored", done.stored);
                if !done.unanswered.is_empty() {
                    println!("no label given for: {}", done.unanswered.join("; "));
                }
            }
        }
        SummariesCommand::Score { question, report } => {
            let scored = app.score_question(&question)?;
            if let Some(path) = report {
                let format = score_report_format(&path, None)?;
                app.write_score_report(&scored.scores, format, &path)?;
            }
            output::show(&scored.scores, json)?;
        }
    }
    Ok(Outcome::Success)
}

pub fn score(args: ScoreArgs, globals: &Globals) -> anyhow::Result<Outcome> {
    let ScoreArgs {
        summaries,
        labels,
        weights,
        documents,
        label_with,
        question,
        report,
        format,
        fit,
        test_share,
        seed,
        alpha,
        no_degraded,
        out,
        l_max,
        stop,
    } = args;
    let json = globals.json;
    if let Some(dataset) = fit {
        let request =
            FitRequest { dataset, test_share, seed, l_max, alpha, degraded: !no_degraded, out };
        let report = globals.open()?.fit_summary_weights(&request)?;
        output::show(&report, json)?;
        return Ok(Outcome::Success);
    }
    let label_with = labellers_named(&label_with)?;
    let request =
        ScoreRequest { summaries, labels, weights, documents, label_with, question, l_max, stop };
    let app = globals.open()?;
    let runtime = runtime()?;
    let scores = runtime.block_on(app.score_summaries(&request))?;
    if let Some(path) = report {
        let format = score_report_format(&path, format)?;
        app.write_score_report(&scores, format, &path)?;
        if !json {
            println!("Report written to {} ({format})", path.display());
        }
    }
    output::show(&scores, json)?;
    Ok(Outcome::Success)
}

/// The labellers named on the command line: `llm` the chat model, `verifier` the NLI verifier.
fn labellers_named(names: &[String]) -> anyhow::Result<Vec<Labeller>> {
    names.iter().map(|name| Labeller::named(name).map_err(anyhow::Error::msg)).collect()
}

/// A score report's format: as given, else by the file's extension (md without one).
fn score_report_format(path: &Path, given: Option<ReportFormat>) -> anyhow::Result<ReportFormat> {
    if let Some(format) = given {
        return Ok(format);
    }
    path.extension().and_then(|e| e.to_str()).unwrap_or("md").parse::<ReportFormat>().map_err(
        |_| {
            anyhow::anyhow!(
                "{}: name the report's format with --format md, html or json",
                path.display()
            )
        },
    )
}
