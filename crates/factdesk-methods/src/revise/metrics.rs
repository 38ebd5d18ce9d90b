//! The measures of a revision (the paper's: edit distance, embedding similarity, NLI against
//! the source): normalised Levenshtein distance over characters (`strsim`) to the original and
//! to a reference; cosine of MiniLM sentence embeddings; and the support of the text by its
//! source documents under the grounding rule ([`crate::grounding::ground`]: min over sentences
//! of the max over premises of P(entailment)).

use factdesk_llm::embeddings::cosine;
use factdesk_llm::{Embedder, Nli};
use factdesk_model::{Revision, RevisionMetrics};

use crate::MethodError;
use crate::grounding::{GroundingConfig, ground};

/// Normalised Levenshtein distance over characters: 0 for the same text, 1 for nothing in
/// common.
pub fn edit_distance(a: &str, b: &str) -> f64 {
    1.0 - strsim::normalized_levenshtein(a, b)
}

/// What to measure a revision with; each part is optional.
#[derive(Default)]
pub struct Measures<'a> {
    pub reference: Option<&'a str>,
    /// The source documents' texts, for entailment.
    pub sources: &'a [String],
    pub embedder: Option<&'a dyn Embedder>,
    pub nli: Option<&'a dyn Nli>,
    pub grounding: GroundingConfig,
}

/// Measures `revision`.
pub async fn measure(
    revision: &Revision,
    measures: &Measures<'_>,
) -> Result<RevisionMetrics, MethodError> {
    let (original, revised) = (revision.original.as_str(), revision.revised.as_str());
    let mut metrics = RevisionMetrics {
        edit_distance: edit_distance(original, revised),
        reference_distance_before: measures.reference.map(|r| edit_distance(r, original)),
        reference_distance_after: measures.reference.map(|r| edit_distance(r, revised)),
        ..RevisionMetrics::default()
    };
    if let Some(embedder) = measures.embedder {
        let mut texts = vec![original.to_owned(), revised.to_owned()];
        texts.extend(measures.reference.map(str::to_owned));
        let vectors = embedder.embed(&texts).await?;
        let similarity = |a: usize, b: usize| f64::from(cosine(&vectors[a], &vectors[b]));
        metrics.similarity = Some(similarity(0, 1));
        if measures.reference.is_some() {
            metrics.reference_similarity_before = Some(similarity(2, 0));
            metrics.reference_similarity_after = Some(similarity(2, 1));
        }
        metrics.embedder = Some(embedder.name());
    }
    if let Some(nli) = measures.nli
        && !measures.sources.is_empty()
    {
        let evidence = measures.sources.join("\n\n");
        let before = ground(nli, &evidence, original, &measures.grounding).await?.support;
        let after = if revised == original {
            before
        } else {
            ground(nli, &evidence, revised, &measures.grounding).await?.support
        };
        metrics.entailment_before = Some(before);
        metrics.entailment_after = Some(after);
        metrics.nli_model = Some(nli.name());
    }
    Ok(metrics)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance_is_levenshtein_over_the_longer_length() {
        assert_eq!(edit_distance("1889", "1889"), 0.0);
        assert!((edit_distance("opened in 1899", "opened in 1889") - 1.0 / 14.0).abs() < 1e-12);
        assert_eq!(edit_distance("abc", ""), 1.0);
        assert_eq!(edit_distance("", ""), 0.0);
        // Characters, not bytes.
        assert!((edit_distance("Zürich", "Zurich") - 1.0 / 6.0).abs() < 1e-12);
    }
}
