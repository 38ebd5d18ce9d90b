//! "Checked before": the earlier claims of the library that say the same thing as a text,
//! with their newest check and its review, found before any model call is spent on the text.
//! Claims are compared by the cosine of their all-MiniLM-L6-v2 embeddings; each claim's
//! embedding is computed once, stored in SQLite (`claim_embeddings`, migration 0013, under the
//! embedding model's name, so another model's vectors are never mixed in) and kept in memory
//! after the first search, so a search embeds only the text and the claims added since the
//! last one (one search at a time catches up; the others wait for it), then scores every
//! claim by one dot product.

use std::sync::Mutex;

use factdesk_model::{Claim, ClaimId, StoredCheck};
use factdesk_store::{CheckFilter, ClaimFilter};
use serde::Serialize;

use crate::{CoreError, Factdesk, Result};

/// Claims embedded per model call when catching up.
const EMBED_BATCH: usize = 256;

/// An earlier claim like the text, how alike, and what its newest check said.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct SimilarClaim {
    /// Cosine similarity of the two embeddings (1: the same meaning as far as the model tells).
    pub similarity: f64,
    pub claim: Claim,
    /// Its newest check (with that check's latest review), if it was checked.
    pub check: Option<StoredCheck>,
}

/// Every claim's normalised embedding, in claim id order, as read from the store so far.
#[derive(Default)]
pub(crate) struct ClaimVectors {
    ids: Vec<ClaimId>,
    /// `ids.len()` vectors of `dim` floats, one after another.
    data: Vec<f32>,
    dim: usize,
    /// The embedding model the vectors are of (its `Embedder::name`).
    model: String,
    /// Every claim up to this id had an embedding when last looked (claims are only ever
    /// added with higher ids), so the next search looks for missing ones above it only.
    embedded_through: i64,
}

impl ClaimVectors {
    fn last(&self) -> i64 {
        self.ids.last().map_or(0, |id| id.0)
    }
}

/// `vector` scaled to length 1 (a zero vector is left as it is).
fn normalised(mut vector: Vec<f32>) -> Vec<f32> {
    let norm = vector.iter().map(|v| v * v).sum::<f32>().sqrt();
    if norm > 0.0 {
        vector.iter_mut().for_each(|v| *v /= norm);
    }
    vector
}

/// The dot product of two vectors of the same length, in eight lanes the compiler can keep in
/// vector registers (a plain sum is one long chain of dependent additions).
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0.0f32; 8];
    let (a8, b8) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = a8.remainder().iter().zip(b8.remainder()).map(|(x, y)| x * y).sum();
    for (x, y) in a8.zip(b8) {
        for lane in 0..8 {
            lanes[lane] += x[lane] * y[lane];
        }
    }
    lanes.iter().sum::<f32>() + tail
}

/// The `limit` rows of `data` (vectors of `query.len()` floats) with the highest dot product
/// with `query` of at least `threshold`, best first: (row, similarity).
pub fn nearest(data: &[f32], query: &[f32], limit: usize, threshold: f32) -> Vec<(usize, f32)> {
    let dim = query.len();
    if dim == 0 || limit == 0 {
        return Vec::new();
    }
    let mut best: Vec<(usize, f32)> = Vec::with_capacity(limit + 1);
    for (row, vector) in data.chunks_exact(dim).enumerate() {
        let score = dot(vector, query);
        if score < threshold || (best.len() == limit && score <= best[limit - 1].1) {
            continue;
        }
        let at = best.partition_point(|(_, other)| *other >= score);
        best.insert(at, (row, score));
        best.truncate(limit);
    }
    best
}

impl Factdesk {
    /// Embeds the claims above id `after` that have no embedding yet and stores them, a batch
    /// at a time; gives the highest claim id there was when it started (all up to it are
    /// embedded then).
    async fn embed_new_claims(&self, model: &str, after: i64) -> Result<i64> {
        let last = self.store()?.last_claim_id()?;
        let embedder = self.embedder()?;
        loop {
            let pending = self.store()?.claims_without_embedding(model, after, EMBED_BATCH)?;
            if pending.is_empty() {
                return Ok(last);
            }
            let texts: Vec<String> = pending.iter().map(|(_, text)| text.clone()).collect();
            let vectors = embedder.embed(&texts).await?;
            if let Some(odd) = vectors.iter().find(|v| v.len() != embedder.dimensions()) {
                return Err(CoreError::Internal(format!(
                    "the embedding model {model} gave a vector of {} dimensions, not the {} it \
                     declares; nothing was stored",
                    odd.len(),
                    embedder.dimensions()
                )));
            }
            if vectors.len() != pending.len() {
                return Err(CoreError::Internal(format!(
                    "the embedding model gave {} vectors for {} claims",
                    vectors.len(),
                    pending.len()
                )));
            }
            let rows: Vec<(ClaimId, Vec<f32>)> = pending
                .iter()
                .zip(vectors)
                .map(|((id, _), vector)| (*id, normalised(vector)))
                .collect();
            self.store()?.save_claim_embeddings(model, &rows)?;
        }
    }

    /// Brings the vectors kept in memory up to the store: the rows above the last id read, or
    /// all of them again when the store holds more than that gives (another process embedded
    /// claims out of order) or fewer (claims were deleted).
    fn refresh_claim_vectors(&self, vectors: &mut ClaimVectors, model: &str) -> Result<()> {
        if vectors.model != model {
            *vectors = ClaimVectors { model: model.to_owned(), ..Default::default() };
        }
        let store = self.store()?;
        let mut rows = store.claim_embeddings(model, vectors.last())?;
        if store.claim_embedding_count(model)? != vectors.ids.len() + rows.len() {
            *vectors = ClaimVectors {
                model: model.to_owned(),
                embedded_through: vectors.embedded_through,
                ..Default::default()
            };
            rows = store.claim_embeddings(model, 0)?;
        }
        drop(store);
        for (id, vector) in rows {
            if vectors.dim == 0 {
                vectors.dim = vector.len();
            }
            if vector.len() != vectors.dim {
                return Err(CoreError::Internal(format!(
                    "claim {id}'s stored embedding has {} dimensions, not {}",
                    vector.len(),
                    vectors.dim
                )));
            }
            vectors.ids.push(id);
            vectors.data.extend(vector);
        }
        Ok(())
    }

    /// The earlier claims most like `text` (at most `limit`, at least `threshold` similar, the
    /// setting `search.similar_claims` when `None`), most alike first, each with its newest
    /// check. Claims added since the last search are embedded first.
    pub async fn similar_claims(
        &self,
        text: &str,
        limit: usize,
        threshold: Option<f64>,
    ) -> Result<Vec<SimilarClaim>> {
        let text = text.trim();
        if text.is_empty() {
            return Err(CoreError::InvalidInput("the text is empty: type a claim".into()));
        }
        let threshold = threshold.unwrap_or(self.settings().search.similar_claims);
        if !(threshold > 0.0 && threshold <= 1.0) {
            return Err(CoreError::InvalidInput(format!(
                "a similarity threshold is above 0 and at most 1, not {threshold}"
            )));
        }
        // Far more than anyone reads; also keeps the arithmetic below from overflowing.
        let limit = limit.min(1_000);
        let embedder = self.embedder()?;
        let model = embedder.name();
        let embedded_through = {
            // One search at a time catches up; the next one finds the work done.
            let _catching_up = self.inner.embedding_claims.lock().await;
            let after = {
                let vectors = self.inner.claim_vectors.lock().map_err(|_| {
                    CoreError::Internal("the claim vectors' lock is poisoned".into())
                })?;
                if vectors.model == model { vectors.embedded_through } else { 0 }
            };
            let through = self.embed_new_claims(&model, after).await?;
            let mut vectors =
                self.inner.claim_vectors.lock().map_err(|_| {
                    CoreError::Internal("the claim vectors' lock is poisoned".into())
                })?;
            if vectors.model == model {
                vectors.embedded_through = vectors.embedded_through.max(through);
            }
            through
        };
        let query = embedder.embed(&[text.to_owned()]).await?;
        let query = normalised(query.into_iter().next().unwrap_or_default());
        let found: Vec<(ClaimId, f64)> = {
            let mut vectors =
                self.inner.claim_vectors.lock().map_err(|_| {
                    CoreError::Internal("the claim vectors' lock is poisoned".into())
                })?;
            self.refresh_claim_vectors(&mut vectors, &model)?;
            vectors.embedded_through = vectors.embedded_through.max(embedded_through);
            if vectors.dim != 0 && vectors.dim != query.len() {
                return Err(CoreError::Internal(format!(
                    "the stored claim embeddings have {} dimensions and the model gives {}",
                    vectors.dim,
                    query.len()
                )));
            }
            // A few more than asked for: claims deleted since they were read are passed over.
            // (An identical text scores a hair under 1 in f32: a threshold of 1 still finds it.)
            nearest(&vectors.data, &query, limit + 8, threshold as f32 - 1e-6)
                .into_iter()
                .map(|(row, score)| (vectors.ids[row], f64::from(score)))
                .collect()
        };
        let store = self.store()?;
        let mut similar = Vec::new();
        for (id, similarity) in found {
            if similar.len() == limit {
                break;
            }
            let Some(claim) =
                store.claims(&ClaimFilter { id: Some(id), ..ClaimFilter::default() })?.pop()
            else {
                continue;
            };
            let check =
                store.checks(&CheckFilter { claim: Some(id), ..CheckFilter::default() })?.pop();
            similar.push(SimilarClaim { similarity: similarity.min(1.0), claim, check });
        }
        Ok(similar)
    }
}

/// The lock type kept in the application's state.
pub(crate) type SharedClaimVectors = Mutex<ClaimVectors>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_keeps_the_best_above_the_threshold_in_order() {
        let data = [1.0, 0.0, 0.6, 0.8, 0.0, 1.0, 0.8, 0.6];
        assert_eq!(nearest(&data, &[1.0, 0.0], 2, 0.5), [(0, 1.0), (3, 0.8)]);
        assert_eq!(nearest(&data, &[1.0, 0.0], 10, 0.7), [(0, 1.0), (3, 0.8)]);
        assert_eq!(nearest(&data, &[0.0, 1.0], 1, 0.0), [(2, 1.0)]);
        assert!(nearest(&data, &[1.0, 0.0], 0, 0.0).is_empty());
        assert!(nearest(&[], &[1.0, 0.0], 3, 0.0).is_empty());
    }

    /// One handle searches, another adds claims, the first finds them: the claims added since
    /// its last search are embedded and its kept vectors brought up to the store.
    #[tokio::test]
    async fn a_search_finds_claims_another_handle_added_since_the_last_one() {
        let dir = tempfile::tempdir().unwrap();
        let first = Factdesk::open_with_settings(dir.path(), crate::Settings::default()).unwrap();
        let texts = ["The bridge closed on Monday.".to_owned(), "Bananas are berries.".to_owned()];
        first.add_claims("news", &texts, None).unwrap();
        let found = first.similar_claims("On Monday the bridge was closed.", 3, None).await;
        let found = found.unwrap();
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].claim.text, texts[0]);
        let second = Factdesk::open_with_settings(dir.path(), crate::Settings::default()).unwrap();
        second.add_claims("more", &["The dam held after the storm.".to_owned()], None).unwrap();
        let found = first.similar_claims("After the storm, the dam held.", 3, None).await;
        let found = found.unwrap();
        assert_eq!(found[0].claim.collection, "more", "{found:?}");
        // The same text at threshold 1 finds itself; a huge limit is no harm.
        let exact = first.similar_claims(&texts[1], usize::MAX, Some(1.0)).await.unwrap();
        assert_eq!(exact.len(), 1, "{exact:?}");
        assert_eq!(exact[0].claim.text, texts[1]);
    }

    #[test]
    fn vectors_are_normalised() {
        let v = normalised(vec![3.0, 4.0]);
        assert!((v[0] - 0.6).abs() < 1e-6 && (v[1] - 0.8).abs() < 1e-6);
        assert_eq!(normalised(vec![0.0, 0.0]), [0.0, 0.0]);
    }
}
