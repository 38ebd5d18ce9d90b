//! The verifier's judgements shared between the judges of one benchmark run and, with
//! `--nli-cache FILE`, kept between runs: each (premise, hypothesis) pair goes to the model once.
//! A run that only changes what is done with the model's scores (fact alignment, calibration,
//! the grounding rule's aggregation) then replays them instead of waiting on the model.
//!
//! The file is JSON lines: a first line naming the model's weights (their size and SHA-256),
//! then one line per pair. A file made with other weights is refused, never mixed in; a file
//! is rewritten whole (a `.part` file renamed over it), so an interrupted run leaves the last
//! complete one.

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

use anyhow::{Context, bail};
use async_trait::async_trait;
use factdesk_llm::cross_encoder::CrossEncoderNli;
use factdesk_llm::{LlmError, Nli, NliJudgement, NliPair};
use sha2::Digest;

type Key = (String, String);

/// The model, each pair classified once; counts the pairs it sends to the model and the time
/// they take.
pub struct SharedNli<N = CrossEncoderNli> {
    model: N,
    seen: Mutex<HashMap<Key, NliJudgement>>,
    /// The weights' identity and the file the judgements persist in, when asked.
    file: Option<(serde_json::Value, PathBuf)>,
    pub pairs: AtomicUsize,
    pub nanos: AtomicU64,
}

#[derive(serde::Deserialize)]
struct Line {
    premise: String,
    hypothesis: String,
    judgement: NliJudgement,
}

/// The size and SHA-256 of the model's weights in `folder`.
fn weights_identity(folder: &Path) -> anyhow::Result<serde_json::Value> {
    let path = folder.join("model.safetensors");
    let bytes = std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let sha256 = sha2::Sha256::digest(&bytes);
    let hex: String = sha256.iter().map(|byte| format!("{byte:02x}")).collect();
    Ok(serde_json::json!({ "weights_bytes": bytes.len(), "weights_sha256": hex }))
}

impl<N: Nli> SharedNli<N> {
    /// Judgements kept in memory for this run only.
    pub fn new(model: N) -> SharedNli<N> {
        SharedNli {
            model,
            seen: Mutex::new(HashMap::new()),
            file: None,
            pairs: AtomicUsize::new(0),
            nanos: AtomicU64::new(0),
        }
    }

    /// Judgements read from `cache` when it exists (made with the weights in `folder`) and
    /// written back by [`SharedNli::save`].
    pub fn with_cache(model: N, folder: &Path, cache: &Path) -> anyhow::Result<Self> {
        let identity = weights_identity(folder)?;
        let mut seen = HashMap::new();
        if cache.exists() {
            let file = std::fs::File::open(cache)
                .with_context(|| format!("cannot open the NLI cache {}", cache.display()))?;
            let mut lines = std::io::BufReader::new(file).lines();
            let header: serde_json::Value = match lines.next() {
                Some(line) => serde_json::from_str(&line?).with_context(|| {
                    format!("{} line 1 is not an NLI cache header", cache.display())
                })?,
                None => identity.clone(),
            };
            if header != identity {
                bail!(
                    "the NLI cache {} was made with other verifier weights ({header}); delete it or name another file",
                    cache.display()
                );
            }
            for (number, line) in lines.enumerate() {
                let line: Line = serde_json::from_str(&line?).with_context(|| {
                    format!("{} line {} is not a cached judgement", cache.display(), number + 2)
                })?;
                seen.insert((line.premise, line.hypothesis), line.judgement);
            }
        }
        Ok(SharedNli {
            model,
            seen: Mutex::new(seen),
            file: Some((identity, cache.to_owned())),
            pairs: AtomicUsize::new(0),
            nanos: AtomicU64::new(0),
        })
    }

    /// Writes every judgement to the cache file, when there is one.
    pub fn save(&self) -> anyhow::Result<()> {
        let Some((identity, path)) = &self.file else { return Ok(()) };
        let partial = path.with_extension("part");
        let mut out = std::io::BufWriter::new(
            std::fs::File::create(&partial)
                .with_context(|| format!("cannot write {}", partial.display()))?,
        );
        writeln!(out, "{identity}")?;
        let seen = self.seen.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        for ((premise, hypothesis), judgement) in seen.iter() {
            let line = serde_json::json!({
                "premise": premise,
                "hypothesis": hypothesis,
                "judgement": judgement,
            });
            writeln!(out, "{line}")?;
        }
        out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        std::fs::rename(&partial, path)
            .with_context(|| format!("cannot move {} to {}", partial.display(), path.display()))?;
        Ok(())
    }

    /// Pairs sent to the model and pairs per second of the model's time.
    pub fn throughput(&self) -> (usize, f64) {
        let pairs = self.pairs.load(Ordering::Relaxed);
        let seconds = self.nanos.load(Ordering::Relaxed) as f64 / 1e9;
        (pairs, if seconds > 0.0 { pairs as f64 / seconds } else { 0.0 })
    }
}

#[async_trait]
impl<N: Nli> Nli for SharedNli<N> {
    fn name(&self) -> String {
        self.model.name()
    }

    fn reads(&self, language: &str) -> bool {
        self.model.reads(language)
    }

    async fn classify(&self, pairs: &[NliPair]) -> Result<Vec<NliJudgement>, LlmError> {
        let key = |pair: &NliPair| (pair.premise.clone(), pair.hypothesis.clone());
        let missing: Vec<NliPair> = {
            let seen = self.seen.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            pairs.iter().filter(|pair| !seen.contains_key(&key(pair))).cloned().collect()
        };
        if !missing.is_empty() {
            let started = Instant::now();
            let judged = self.model.classify(&missing).await?;
            self.nanos.fetch_add(
                u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX),
                Ordering::Relaxed,
            );
            self.pairs.fetch_add(missing.len(), Ordering::Relaxed);
            let mut seen = self.seen.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            for (pair, judgement) in missing.iter().zip(judged) {
                seen.insert(key(pair), judgement);
            }
        }
        let seen = self.seen.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        pairs
            .iter()
            .map(|pair| {
                seen.get(&key(pair)).cloned().ok_or_else(|| {
                    LlmError::Backend("the verifier left a pair unclassified".into())
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use factdesk_llm::NliScores;

    /// Scores each pair by its premise's length and counts the pairs it is asked.
    struct Counting(AtomicUsize);

    #[async_trait]
    impl Nli for Counting {
        fn name(&self) -> String {
            "counting".into()
        }
        async fn classify(&self, pairs: &[NliPair]) -> Result<Vec<NliJudgement>, LlmError> {
            self.0.fetch_add(pairs.len(), Ordering::Relaxed);
            Ok(pairs
                .iter()
                .map(|pair| NliJudgement {
                    scores: NliScores::normalised(pair.premise.len() as f64, 1.0, 0.0),
                    usage: Default::default(),
                })
                .collect())
        }
    }

    fn pair(premise: &str) -> NliPair {
        NliPair { premise: premise.into(), hypothesis: "A claim.".into() }
    }

    #[tokio::test]
    async fn judgements_are_kept_for_the_same_weights_and_refused_for_others() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("model");
        std::fs::create_dir(&folder).unwrap();
        std::fs::write(folder.join("model.safetensors"), b"weights one").unwrap();
        let cache = dir.path().join("cache.jsonl");

        let first = SharedNli::with_cache(Counting(AtomicUsize::new(0)), &folder, &cache).unwrap();
        let asked = [pair("One premise."), pair("Another, longer premise.")];
        let judged = first.classify(&asked).await.unwrap();
        first.classify(&asked[..1]).await.unwrap();
        assert_eq!(first.model.0.load(Ordering::Relaxed), 2, "each pair goes to the model once");
        assert_eq!(first.throughput().0, 2);
        first.save().unwrap();

        // The next run replays them without asking the model.
        let second = SharedNli::with_cache(Counting(AtomicUsize::new(0)), &folder, &cache).unwrap();
        assert_eq!(second.classify(&asked).await.unwrap(), judged);
        assert_eq!(second.model.0.load(Ordering::Relaxed), 0);
        second.classify(&[pair("New.")]).await.unwrap();
        assert_eq!(second.model.0.load(Ordering::Relaxed), 1);

        // Other weights: the file is refused, not mixed in, and left as it was.
        std::fs::write(folder.join("model.safetensors"), b"weights two").unwrap();
        let before = std::fs::read(&cache).unwrap();
        let error = SharedNli::with_cache(Counting(AtomicUsize::new(0)), &folder, &cache)
            .err()
            .expect("other weights are refused")
            .to_string();
        assert!(
            error.contains("other verifier weights") && error.contains("cache.jsonl"),
            "{error}"
        );
        assert_eq!(std::fs::read(&cache).unwrap(), before);

        // A damaged line is named.
        std::fs::write(folder.join("model.safetensors"), b"weights one").unwrap();
        let mut text = String::from_utf8(before).unwrap();
        text.push_str("{not json\n");
        std::fs::write(&cache, text).unwrap();
        let error = SharedNli::with_cache(Counting(AtomicUsize::new(0)), &folder, &cache)
            .err()
            .expect("a damaged file is refused")
            .to_string();
        assert!(error.contains("line 4"), "{error}");
    }
}
