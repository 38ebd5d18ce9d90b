//! `factdesk-bench language`: may the English-only verifier judge a claim? The methods that
//! judge evidence decline a claim `factdesk_text::other_than_english` takes for another
//! language. This prints the two ways that can go wrong: English claims taken for another
//! language (claims as the product forms them from HaluEval, on the evaluation range unless
//! `--dev` or `--train`: each QA question with its right and with its hallucinated answer, and every
//! sentence of the right and hallucinated news summaries; and every sentence of the evidence,
//! QA knowledge and news articles, which the methods judge sentence by sentence), and sentences in other languages
//! taken for English (`data/languages.tsv`: short factual sentences written for this bench,
//! a line per sentence, its ISO 639-1 code, a tab, the sentence), per language, with the
//! misses listed. Then how an import reads English news sentence by sentence
//! (`factdesk_text::sentence_languages`): the range's article sentences taken for another
//! language and the time per article, and each of those sentences in other languages, and
//! headlines in six languages (`data/headlines.tsv`, on which the screen's lists were grown,
//! and `data/headlines-unseen.tsv`, written after), put into an English article, found in
//! their language or not.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;

use crate::verifier::{Range, field, qa_claim, read_items};

/// The sentences in other languages, by language.
const OTHER_LANGUAGES: &str = include_str!("../data/languages.tsv");

/// Headlines in six languages of Latin script, written for this bench, a line each as in
/// `data/languages.tsv`: sentences with few of their language's short words, which
/// `sentence_languages` may leave unread in an English document. The screen's word lists were
/// grown on these: its figure on them is a fitted one.
const HEADLINES: &str = include_str!("../data/headlines.tsv");

/// More such headlines, written after the lists were last changed and measured as they were:
/// what the screen costs on headlines it was not fitted to.
const HEADLINES_UNSEEN: &str = include_str!("../data/headlines-unseen.tsv");

/// What to measure.
#[derive(Debug, Clone, clap::Args)]
pub struct LanguageBench {
    /// The folder of HaluEval's JSONL files (scripts/bench-verifier.sh fetches them)
    pub data: PathBuf,
    /// Use the dev slice of the training range instead of the evaluation range
    #[arg(long, conflicts_with = "train")]
    pub dev: bool,
    /// Use the training range (less its dev slice) instead of the evaluation range
    #[arg(long)]
    pub train: bool,
    /// Items of each file read (QA and summarization)
    #[arg(long, default_value_t = 2000)]
    pub items: usize,
    /// English claims taken for another language to print
    #[arg(long, default_value_t = 10)]
    pub show: usize,
}

pub fn run(bench: &LanguageBench) -> anyhow::Result<()> {
    let range = match (bench.dev, bench.train) {
        (true, _) => Range::Dev,
        (_, true) => Range::Train,
        _ => Range::Eval,
    };
    let mut english: Vec<(&str, String)> = Vec::new();
    let qa_range = range.items("qa")?;
    for item in read_items(&bench.data.join("dataset_halueval_qa.jsonl"), qa_range, bench.items)? {
        let question = field(&item, "question")?;
        for answer in ["right_answer", "hallucinated_answer"] {
            english.push(("qa", qa_claim(question, field(&item, answer)?)));
        }
        let knowledge = field(&item, "knowledge")?;
        for span in factdesk_text::segment_sentences(knowledge, "en") {
            english.push(("qa evidence", span.slice(knowledge).trim().to_owned()));
        }
    }
    let summary_range = range.items("summarization")?;
    let summaries = read_items(
        &bench.data.join("dataset_halueval_summarization.jsonl"),
        summary_range,
        bench.items,
    )?;
    let mut articles = Vec::new();
    for item in summaries {
        let document = field(&item, "document")?;
        for span in factdesk_text::segment_sentences(document, "en") {
            english.push(("news evidence", span.slice(document).trim().to_owned()));
        }
        articles.push(document.to_owned());
        for summary in ["right_summary", "hallucinated_summary"] {
            let text = field(&item, summary)?;
            for span in factdesk_text::segment_sentences(text, "en") {
                english.push(("summarization", span.slice(text).trim().to_owned()));
            }
        }
    }

    let started = Instant::now();
    let taken: Vec<(&str, &str, &str)> = english
        .iter()
        .filter_map(|(dataset, text)| {
            factdesk_text::other_than_english(text)
                .map(|language| (*dataset, language.name, text.as_str()))
        })
        .collect();
    let per_text = started.elapsed().as_secs_f64() / english.len().max(1) as f64;
    println!(
        "English claims and evidence ({} range: QA items {}–{}, summarization items {}–{}), taken for another language:",
        match range {
            Range::Dev => "dev",
            Range::Train => "training",
            Range::Eval => "evaluation",
        },
        qa_range.0,
        (qa_range.0 + bench.items).min(qa_range.1) - 1,
        summary_range.0,
        (summary_range.0 + bench.items).min(summary_range.1) - 1,
    );
    for dataset in ["qa", "summarization", "qa evidence", "news evidence"] {
        let total = english.iter().filter(|(d, _)| *d == dataset).count();
        let wrong = taken.iter().filter(|(d, _, _)| *d == dataset).count();
        println!("  {dataset:<15} {wrong} of {total} ({:.2}%)", percent(wrong, total));
    }
    for (dataset, language, text) in taken.iter().take(bench.show) {
        println!("    [{dataset}] as {language}: {text}");
    }

    println!("Sentences in other languages (data/languages.tsv), recognised as not English:");
    let mut rows: Vec<(&str, usize, usize)> = Vec::new();
    let mut misses = Vec::new();
    for (number, line) in OTHER_LANGUAGES.lines().enumerate() {
        let (code, sentence) = line
            .split_once('\t')
            .with_context(|| format!("data/languages.tsv line {}: no tab", number + 1))?;
        let found = factdesk_text::other_than_english(sentence);
        let right = found.is_some_and(|language| language.code == code);
        match rows.iter_mut().find(|(c, _, _)| *c == code) {
            Some(row) => {
                row.1 += usize::from(right);
                row.2 += 1;
            }
            None => rows.push((code, usize::from(right), 1)),
        }
        if !right {
            let said = found.map_or("English (judged)", |language| language.name);
            misses.push(format!("    [{code}] as {said}: {sentence}"));
        }
    }
    let (right, total) = rows.iter().fold((0, 0), |(r, t), row| (r + row.1, t + row.2));
    for (code, right, total) in &rows {
        println!("  {code:<3} {right} of {total}");
    }
    println!("  all {right} of {total} ({:.1}%)", percent(right, total));
    for miss in misses {
        println!("{miss}");
    }
    println!("{:.3} ms per text", per_text * 1000.0);
    mixed_documents(&articles)
}

/// How an import reads the sentences of English news (`factdesk_text::sentence_languages`):
/// the sentences of the range's articles taken for another language and the time it takes;
/// then each sentence of `data/languages.tsv` and of the two headline files put into the
/// first article ([`put_in_an_article`]).
fn mixed_documents(articles: &[String]) -> anyhow::Result<()> {
    let mut sentences = 0;
    let mut taken = Vec::new();
    let mut reading = std::time::Duration::ZERO;
    for article in articles {
        let spans = factdesk_text::segment_sentences(article, "en");
        sentences += spans.len();
        let started = Instant::now();
        let found = factdesk_text::sentence_languages(article, &spans, "en", true);
        reading += started.elapsed();
        for (index, code) in found {
            taken.push((code, spans[index].slice(article).to_owned()));
        }
    }
    println!(
        "Sentences of the English articles read as an import reads them: {} of {sentences} taken for another language; {:.1} µs per article",
        taken.len(),
        reading.as_secs_f64() * 1e6 / articles.len().max(1) as f64,
    );
    for (code, sentence) in &taken {
        println!("    as {code}: {sentence}");
    }
    let Some(host) = articles.first() else {
        return Ok(());
    };
    for (name, file) in [
        ("data/languages.tsv", OTHER_LANGUAGES),
        ("data/headlines.tsv (the lists were grown on these)", HEADLINES),
        ("data/headlines-unseen.tsv", HEADLINES_UNSEEN),
    ] {
        put_in_an_article(host, name, file)?;
    }
    Ok(())
}

/// Each sentence of `file` (`name`: a line per sentence, its ISO 639-1 code, a tab, the
/// sentence) put, as a paragraph of its own, after `host`'s third sentence: how many
/// `sentence_languages` finds in their language, and how many the detector finds read alone
/// (`other_than_english`, as an English document's sentence is read once it is put to it).
fn put_in_an_article(host: &str, name: &str, file: &str) -> anyhow::Result<()> {
    let spans = factdesk_text::segment_sentences(host, "en");
    let cut = spans.get(3).map_or(host.len(), |span| span.start_byte as usize);
    let (before, after) = host.split_at(cut);
    println!(
        "The sentences of {name} put in the first article, found in their language (read by the detector alone):"
    );
    let mut rows: Vec<(&str, usize, usize, usize)> = Vec::new();
    let mut misses = Vec::new();
    for (number, line) in file.lines().enumerate() {
        let (code, sentence) =
            line.split_once('\t').with_context(|| format!("{name} line {}: no tab", number + 1))?;
        let text = format!("{}\n\n{sentence}\n\n{after}", before.trim_end());
        let spans = factdesk_text::segment_sentences(&text, "en");
        let found = factdesk_text::sentence_languages(&text, &spans, "en", true);
        let right = found.iter().any(|(index, found_code)| {
            *found_code == code && spans[*index].slice(&text).trim() == sentence
        });
        let alone = factdesk_text::other_than_english(sentence)
            .is_some_and(|language| language.code == code);
        match rows.iter_mut().find(|row| row.0 == code) {
            Some(row) => {
                row.1 += usize::from(right);
                row.2 += usize::from(alone);
                row.3 += 1;
            }
            None => rows.push((code, usize::from(right), usize::from(alone), 1)),
        }
        if !right {
            let alone = if alone { "the detector alone finds it" } else { "nor alone" };
            misses.push(format!("    [{code}] {sentence} ({alone})"));
        }
    }
    let (right, alone, total) =
        rows.iter().fold((0, 0, 0), |(r, a, t), row| (r + row.1, a + row.2, t + row.3));
    for (code, right, alone, total) in &rows {
        println!("  {code:<3} {right} of {total} ({alone})");
    }
    println!(
        "  all {right} of {total} ({:.1}%; the detector alone {alone})",
        percent(right, total)
    );
    for miss in misses {
        println!("{miss}");
    }
    Ok(())
}

fn percent(part: usize, whole: usize) -> f64 {
    if whole == 0 { 0.0 } else { 100.0 * part as f64 / whole as f64 }
}
