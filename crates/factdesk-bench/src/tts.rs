//! `factdesk-bench tts`: what Truthful Text Summarization costs as the sources grow. For each
//! N (5, 10, 20 by default) a corpus of N sources is made up from a pool of facts: each
//! truthful source states about three in five of them (a different share each, with a sentence
//! of its own), and one source in five is a liar that states facts negated ("X never …").
//! `Factdesk::summarize` runs TTS on it, once with the stance questions batched (several
//! claims per call, `--batch`) and once with one claim per call, and the model calls, prompt
//! and completion tokens, prompt characters sent and wall time are printed beside the
//! sources kept and dropped. With `--model scripted` the chat model is the testkit's scripted
//! model on loopback answering after `--latency-ms` (it measures the pipeline and the calls;
//! it has no quality to claim: its stances follow the "never" rule); with `--model embedded`
//! the embedded llama.cpp model answers (slow: keep N small).

use std::io::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};

use factdesk_core::import::ImportRequest;
use factdesk_core::methods::tts::TtsConfig;
use factdesk_core::model::Outcome;
use factdesk_core::summarize::{SummarizeRequest, SummarySources};
use factdesk_core::{CancelToken, Factdesk, NoProgress, Settings};
use factdesk_llm::CacheMode;
use factdesk_testkit::scripted::{Asked, ScriptedModel, TTS_DRAFT_TEMPLATE, quoted_documents};

use crate::revise::BenchModel;

#[derive(Debug, clap::Args)]
pub struct TtsBench {
    /// Numbers of sources to summarise
    #[arg(long, value_delimiter = ',', default_value = "5,10,20")]
    sources: Vec<usize>,
    /// Claims per stance call when batched (the method's default is 8)
    #[arg(long, default_value_t = 8)]
    batch: usize,
    /// Only the batched runs (leave out one claim per call)
    #[arg(long)]
    batched_only: bool,
    #[arg(long, value_enum, default_value = "scripted")]
    model: BenchModel,
    /// The scripted model's latency per call, in milliseconds
    #[arg(long, default_value_t = 200)]
    latency_ms: u64,
    /// Chat calls in flight at most (llm.max_concurrency; a model server only)
    #[arg(long, default_value_t = 4)]
    max_concurrency: usize,
    #[arg(long)]
    json: bool,
}

/// The pool of facts; each one's first two words are its subject, so that "never" after them
/// negates it as the scripted model reads negation.
const FACTS: [&str; 8] = [
    "Bridge crews closed the river crossing on Monday.",
    "Inspectors found cracks in two piers.",
    "Repair work will take six months.",
    "City buses use the old road meanwhile.",
    "The council approved emergency funds on Tuesday.",
    "Ferry services run every twenty minutes.",
    "Local shops reported fewer customers this week.",
    "Engineers expect the crossing to reopen in spring.",
];

fn negated(fact: &str) -> String {
    let mut words: Vec<&str> = fact.split(' ').collect();
    words.insert(2, "never");
    words.join(" ")
}

/// The texts of `n` sources: every fifth one a liar.
pub fn sources(n: usize) -> Vec<(String, String, bool)> {
    (0..n)
        .map(|j| {
            let liar = j % 5 == 4;
            let mut sentences: Vec<String> = FACTS
                .iter()
                .enumerate()
                // About three facts in five, a different choice for each source.
                .filter(|(k, _)| {
                    (j * 31 + k * 17 + j * k * 7) % 5 % 3 != 0 || *k == j % FACTS.len()
                })
                .map(|(_, fact)| if liar { negated(fact) } else { (*fact).to_owned() })
                .collect();
            let turn = j % sentences.len().max(1);
            sentences.rotate_left(turn);
            sentences.push(format!("Reporter {} wrote this from desk {}.", j + 1, j * 13 % 97));
            let name = format!("{}-{}", if liar { "liar" } else { "source" }, j + 1);
            (name, sentences.join(" "), liar)
        })
        .collect()
}

/// The scripted draft: the quoted documents' sentences taken in turn (each document's first,
/// then each one's second, …), each once, so that a draft's first claims come from every
/// source and not from the first one alone.
fn draft(asked: &Asked) -> String {
    let documents: Vec<Vec<String>> = quoted_documents(&asked.prompt)
        .iter()
        .map(|document| {
            document
                .split_inclusive('.')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect()
        })
        .collect();
    let longest = documents.iter().map(Vec::len).max().unwrap_or(0);
    let mut seen: Vec<String> = Vec::new();
    for k in 0..longest {
        for sentence in documents.iter().filter_map(|sentences| sentences.get(k)) {
            if !seen.contains(sentence) {
                seen.push(sentence.clone());
            }
        }
    }
    seen.join(" ")
}

struct Figures {
    sources: usize,
    batch: usize,
    calls: usize,
    prompt_tokens: u64,
    completion_tokens: u64,
    prompt_chars: usize,
    seconds: f64,
    liars_dropped: usize,
    liars: usize,
    truthful_kept: usize,
    truthful: usize,
}

fn run_once(bench: &TtsBench, n: usize, batch: usize) -> anyhow::Result<Figures> {
    let dir = tempfile::tempdir()?;
    let latency = Duration::from_millis(bench.latency_ms);
    let server = (bench.model == BenchModel::Scripted).then(|| {
        ScriptedModel::new().on(TTS_DRAFT_TEMPLATE, draft).delay(move |_| latency).serve()
    });
    let mut settings = Settings::default();
    if let Some(server) = &server {
        crate::use_scripted_server(&mut settings, server, bench.max_concurrency);
    }
    Factdesk::init(dir.path())?;
    let app = Factdesk::open_with_settings(dir.path(), settings)?;
    let folder = dir.path().join("sources");
    std::fs::create_dir(&folder)?;
    let made = sources(n);
    for (name, text, _) in &made {
        std::fs::write(folder.join(format!("{name}.txt")), text)?;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(app.import(
        ImportRequest {
            sources: vec![folder.display().to_string()],
            corpus: "bench".into(),
            text_field: None,
            title_field: None,
            url_field: None,
            date_field: None,
            language: None,
        },
        Arc::new(NoProgress),
        CancelToken::new(),
    ))?;
    let request = SummarizeRequest {
        question: "What happened to the river crossing?".into(),
        sources: SummarySources::Corpus("bench".into()),
        baseline: None,
        config: TtsConfig { stance_batch: batch, ..TtsConfig::default() },
        cache: Some(CacheMode::Off),
        restart: true,
    };
    let started = Instant::now();
    let run =
        runtime.block_on(app.summarize(&request, Arc::new(NoProgress), CancelToken::new()))?;
    let seconds = started.elapsed().as_secs_f64();
    let Outcome::Summary(summary) = &run.stored.outcome else {
        anyhow::bail!("the run stored no summary");
    };
    let liar = |title: &Option<String>| title.as_deref().is_some_and(|t| t.starts_with("liar"));
    let tokens = &summary.envelope.tokens;
    let prompt_chars = server
        .as_ref()
        .map_or(0, |server| server.requests().iter().map(|request| request.body.len()).sum());
    Ok(Figures {
        sources: n,
        batch,
        calls: run.stored.model_calls.len(),
        prompt_tokens: tokens.0.values().map(|count| count.prompt).sum(),
        completion_tokens: tokens.0.values().map(|count| count.completion).sum(),
        prompt_chars,
        seconds,
        liars_dropped: summary.sources.iter().filter(|s| liar(&s.source.title) && !s.used).count(),
        liars: made.iter().filter(|(_, _, liar)| *liar).count(),
        truthful_kept: summary.sources.iter().filter(|s| !liar(&s.source.title) && s.used).count(),
        truthful: made.iter().filter(|(_, _, liar)| !*liar).count(),
    })
}

pub fn run(bench: &TtsBench) -> anyhow::Result<()> {
    let mut rows = Vec::new();
    for &n in &bench.sources {
        anyhow::ensure!(n >= 3, "TTS needs at least 3 sources ({n} asked for)");
        let batches: Vec<usize> = if bench.batched_only || bench.batch == 1 {
            vec![bench.batch.max(1)]
        } else {
            vec![bench.batch, 1]
        };
        for batch in batches {
            let figures = run_once(bench, n, batch)?;
            if !bench.json {
                eprintln!("N = {n}, {batch} claim(s) per stance call: {:.1} s", figures.seconds);
            }
            rows.push(figures);
        }
    }
    let model = match bench.model {
        BenchModel::Embedded => "embedded".to_owned(),
        BenchModel::Scripted => {
            format!(
                "scripted, {} ms per call, {} in flight",
                bench.latency_ms, bench.max_concurrency
            )
        }
    };
    if bench.json {
        let rows: Vec<serde_json::Value> = rows
            .iter()
            .map(|f| {
                serde_json::json!({
                    "sources": f.sources, "claims_per_stance_call": f.batch, "calls": f.calls,
                    "prompt_tokens": f.prompt_tokens, "completion_tokens": f.completion_tokens,
                    "prompt_chars": f.prompt_chars, "seconds": f.seconds,
                    "liars_dropped": f.liars_dropped, "liars": f.liars,
                    "truthful_kept": f.truthful_kept, "truthful": f.truthful,
                })
            })
            .collect();
        println!("{}", serde_json::json!({"model": model, "runs": rows}));
        return Ok(());
    }
    let mut out = std::io::stdout().lock();
    writeln!(out, "TTS cost by number of sources (model: {model})")?;
    writeln!(
        out,
        "{:>3}  {:>6}  {:>6}  {:>10}  {:>10}  {:>12}  {:>8}  {:>13}  {:>13}",
        "N",
        "batch",
        "calls",
        "prompt tok",
        "compl. tok",
        "prompt chars",
        "wall s",
        "liars dropped",
        "truthful kept"
    )?;
    for f in &rows {
        writeln!(
            out,
            "{:>3}  {:>6}  {:>6}  {:>10}  {:>10}  {:>12}  {:>8.1}  {:>13}  {:>13}",
            f.sources,
            f.batch,
            f.calls,
            f.prompt_tokens,
            f.completion_tokens,
            f.prompt_chars,
            f.seconds,
            format!("{}/{}", f.liars_dropped, f.liars),
            format!("{}/{}", f.truthful_kept, f.truthful)
        )?;
    }
    let compared = |pair: &&[Figures]| {
        pair.len() == 2
            && pair[0].sources == pair[1].sources
            && pair[0].batch != 1
            && pair[1].batch == 1
    };
    for pair in rows.chunks(2).filter(compared) {
        let (batched, single) = (&pair[0], &pair[1]);
        if batched.calls == single.calls {
            writeln!(
                out,
                "N = {}: both runs made the same {} calls: no stance question was asked (no \
                 draft gave claims), so batching saved nothing to compare",
                batched.sources, batched.calls
            )?;
            continue;
        }
        writeln!(
            out,
            "N = {}: batching {} claims per stance call makes {:.1}x fewer calls and takes {:.1}x less time",
            batched.sources,
            batched.batch,
            single.calls as f64 / batched.calls.max(1) as f64,
            single.seconds / batched.seconds.max(1e-9)
        )?;
    }
    Ok(())
}
