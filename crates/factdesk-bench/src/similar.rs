//! `factdesk-bench similar-claims`: how long "checked before" takes on a large library. N
//! claims (100,000 by default, made-up texts) are added; the first `--real` are embedded by
//! the model through the product's path, the rest get random unit vectors written straight
//! to `claim_embeddings` (a search costs the same whatever the vectors hold, and embedding
//! 100,000 claims on two cores would take most of an hour). Printed: the time a fresh process
//! takes for its first search (reading every vector from SQLite), then p50 and p95 of
//! `--queries` searches (each embeds its text and scores every claim), and the scoring alone.

use std::time::Instant;

use factdesk_core::similar::nearest;
use factdesk_core::{Factdesk, Settings};
use factdesk_llm::Embedder;
use factdesk_model::ClaimId;

#[derive(Debug, clap::Args)]
pub struct SimilarBench {
    /// Claims in the library
    #[arg(long, default_value_t = 100_000)]
    claims: usize,
    /// Of them, embedded by the model (the rest get random vectors)
    #[arg(long, default_value_t = 1_000)]
    real: usize,
    /// Searches timed
    #[arg(long, default_value_t = 200)]
    queries: usize,
    #[arg(long)]
    json: bool,
}

const SUBJECTS: [&str; 10] = [
    "The city council",
    "A local hospital",
    "The national bank",
    "Regional police",
    "The football club",
    "A tech start-up",
    "The university",
    "State media",
    "The port authority",
    "A charity",
];
const VERBS: [&str; 10] = [
    "announced",
    "denied",
    "cancelled",
    "postponed",
    "approved",
    "criticised",
    "funded",
    "investigated",
    "opened",
    "closed",
];
const OBJECTS: [&str; 10] = [
    "a new bridge",
    "the budget",
    "a vaccine trial",
    "the election results",
    "a merger",
    "the strike",
    "a data breach",
    "the festival",
    "a tax cut",
    "the water supply",
];

/// The `i`-th made-up claim (distinct for every i).
fn claim(i: usize) -> String {
    format!(
        "{} {} {} on day {} of {}.",
        SUBJECTS[i % 10],
        VERBS[(i / 10) % 10],
        OBJECTS[(i / 100) % 10],
        (i / 1000) % 28 + 1,
        2000 + i / 28_000
    )
}

/// A seeded stream of numbers in [-1, 1).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

pub fn run(bench: &SimilarBench) -> anyhow::Result<()> {
    anyhow::ensure!(
        bench.real >= 2 && bench.real <= bench.claims,
        "--real is at least 2 and at most --claims"
    );
    let model = factdesk_llm::embeddings::MiniLmEmbedder::load_default()?.name();
    let dir = tempfile::tempdir()?;
    Factdesk::init(dir.path())?;
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let started = Instant::now();
    {
        let app = Factdesk::open_with_settings(dir.path(), Settings::default())?;
        let texts: Vec<String> = (0..bench.claims).map(claim).collect();
        for chunk in texts.chunks(10_000) {
            app.add_claims("bench", chunk, None)?;
        }
    }
    // Random unit vectors for the claims past `real`, written before the model sees them.
    let dim = 384;
    {
        let mut store =
            factdesk_store::Store::open(&dir.path().join(factdesk_core::DATABASE_FILE))?;
        let mut rng = Rng(0x5eed);
        let rows: Vec<(ClaimId, Vec<f32>)> = ((bench.real + 1)..=bench.claims)
            .map(|id| {
                let v: Vec<f32> = (0..dim).map(|_| rng.next()).collect();
                let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
                (ClaimId(id as i64), v.into_iter().map(|x| x / norm).collect())
            })
            .collect();
        for chunk in rows.chunks(10_000) {
            store.save_claim_embeddings(&model, chunk)?;
        }
    }
    let setup = started.elapsed().as_secs_f64();
    // Embeds the real ones (a first search in the process that added them).
    let app = Factdesk::open_with_settings(dir.path(), Settings::default())?;
    let embed_started = Instant::now();
    runtime.block_on(app.similar_claims(&claim(0), 5, Some(0.5)))?;
    let embed_seconds = embed_started.elapsed().as_secs_f64();
    drop(app);
    // A fresh process's first search reads every vector.
    let app = Factdesk::open_with_settings(dir.path(), Settings::default())?;
    let cold_started = Instant::now();
    let first = runtime.block_on(app.similar_claims(&claim(1), 5, Some(0.5)))?;
    let cold_ms = cold_started.elapsed().as_secs_f64() * 1000.0;
    anyhow::ensure!(
        first.first().is_some_and(|found| found.claim.text == claim(1)),
        "a claim's own text did not find it first"
    );
    let mut times = Vec::with_capacity(bench.queries);
    for q in 0..bench.queries {
        let text = format!("Reportedly, {}", claim((q * 37) % bench.real.max(1)).to_lowercase());
        let started = Instant::now();
        runtime.block_on(app.similar_claims(&text, 5, None))?;
        times.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(f64::total_cmp);
    // The scoring alone, on the same number of vectors.
    let mut rng = Rng(7);
    let data: Vec<f32> = (0..bench.claims * dim).map(|_| rng.next()).collect();
    let query: Vec<f32> = (0..dim).map(|_| rng.next()).collect();
    let scoring_started = Instant::now();
    let rounds = 20;
    for _ in 0..rounds {
        std::hint::black_box(nearest(&data, &query, 5, 0.0));
    }
    let scoring_ms = scoring_started.elapsed().as_secs_f64() * 1000.0 / rounds as f64;
    let (p50, p95) = (percentile(&times, 0.5), percentile(&times, 0.95));
    // Embedding one query alone, as a search does.
    let embedder = factdesk_llm::embeddings::MiniLmEmbedder::load_default()?;
    let mut embeds = Vec::new();
    for q in 0..50 {
        let started = Instant::now();
        embedder.embed_blocking(&[claim(q * 11)])?;
        embeds.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    embeds.sort_by(f64::total_cmp);
    let embed_ms = percentile(&embeds, 0.5);
    if bench.json {
        println!(
            "{}",
            serde_json::json!({
                "claims": bench.claims, "embedded_by_model": bench.real, "setup_seconds": setup,
                "embed_seconds": embed_seconds, "first_search_ms": cold_ms, "search_p50_ms": p50,
                "search_p95_ms": p95, "scoring_ms": scoring_ms, "query_embedding_p50_ms": embed_ms, "queries": bench.queries,
            })
        );
    } else {
        println!(
            "Checked before on {} claims ({} embedded by the model, the rest random)",
            bench.claims, bench.real
        );
        println!("  setup (adding claims, writing vectors): {setup:.1} s");
        println!("  embedding {} claims by the model: {embed_seconds:.1} s", bench.real);
        println!("  first search of a fresh process (reads every vector): {cold_ms:.1} ms");
        println!(
            "  search, {} queries: p50 {p50:.1} ms, p95 {p95:.1} ms (target ≤ 50 ms)",
            bench.queries
        );
        println!("  of which scoring {} vectors: {scoring_ms:.1} ms", bench.claims);
        println!("  and embedding the query (p50 of 50): {embed_ms:.1} ms");
    }
    Ok(())
}
