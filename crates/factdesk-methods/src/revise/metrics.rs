//! The measures of a revision (the paper's: edit distance, embedding similarity, NLI against
//! the source): normalised Levenshtein distance over characters (`strsim`) to the original and
//! to a reference; cosine of MiniLM sentence embeddings; and the support of the text by its
//! source documents under the grounding rule ([`crate::grounding::ground`]: min over sentences
//! of the max over premises of P(entailment)); and, when asked, an LLM judge's 1–5 scores
//! (overall, factuality, relevance) of the original and the revision against the sources
//! ([`judge`]).

use factdesk_llm::embeddings::cosine;
use factdesk_llm::prompts::PromptLibrary;
use factdesk_llm::{Embedder, LanguageModel, Nli, TokenUsage};
use factdesk_model::{JudgeScore, Revision, RevisionMetrics, TokenUse};

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

/// The judge's template.
pub const JUDGE_TEMPLATE: &str = "judge/geval";

/// The criteria the judge rates, with what each asks.
pub const JUDGE_CRITERIA: [(&str, &str); 3] = [
    ("overall", "How good is the summary as a whole: accurate, relevant and clear?"),
    (
        "factuality",
        "Does every statement of the summary agree with the article? 5: all of them; 1: most are \
         wrong or not in the article.",
    ),
    (
        "relevance",
        "Does the summary keep the article's important information and leave out what is not \
         important?",
    ),
];

/// Words of the sources quoted to the judge (a small model's window holds little more).
pub const JUDGE_DOCUMENT_WORDS: usize = 600;

/// A judge's score of `summary` against `document` on one criterion, and the tokens it cost.
async fn judge_one(
    model: &dyn LanguageModel,
    prompts: &PromptLibrary,
    document: &str,
    summary: &str,
    (criterion, description): (&str, &str),
    samples: u32,
) -> Result<(f64, TokenUsage), MethodError> {
    let boundary = factdesk_llm::nli::boundary(document, summary);
    let request = prompts.render_request(
        JUDGE_TEMPLATE,
        &serde_json::json!({
            "criterion": criterion,
            "description": description,
            "document": document,
            "summary": summary,
            "boundary": boundary,
        }),
    )?;
    const DIGITS: [&str; 5] = ["1", "2", "3", "4", "5"];
    let answer = model.answer_probabilities(&request, &DIGITS, samples).await?;
    let score = DIGITS
        .iter()
        .enumerate()
        .map(|(index, digit)| (index + 1) as f64 * answer.get(digit))
        .sum::<f64>();
    Ok((score, answer.usage))
}

/// The judge's scores of the original and of the revision against `sources`, on each of
/// [`JUDGE_CRITERIA`], with the tokens spent (purpose `judge`) and a note when the sources
/// were cut to [`JUDGE_DOCUMENT_WORDS`] words.
pub async fn judge(
    model: &dyn LanguageModel,
    prompts: &PromptLibrary,
    revision: &Revision,
    sources: &[String],
    samples: u32,
) -> Result<(Vec<JudgeScore>, TokenUse, Option<String>), MethodError> {
    let joined = sources.join("\n\n");
    let words = joined.split_whitespace().count();
    let document = crate::grounding::first_words(&joined, JUDGE_DOCUMENT_WORDS);
    let note = (words > JUDGE_DOCUMENT_WORDS).then(|| {
        format!("the judge read the first {JUDGE_DOCUMENT_WORDS} of the sources' {words} words")
    });
    let mut scores = Vec::new();
    let mut tokens = TokenUse::default();
    for criterion in JUDGE_CRITERIA {
        let (before, usage) =
            judge_one(model, prompts, &document, &revision.original, criterion, samples).await?;
        tokens.add(
            TokenUse::JUDGE,
            u64::from(usage.prompt_tokens),
            u64::from(usage.completion_tokens),
        );
        let after = if revision.revised == revision.original {
            before
        } else {
            let (after, usage) =
                judge_one(model, prompts, &document, &revision.revised, criterion, samples).await?;
            tokens.add(
                TokenUse::JUDGE,
                u64::from(usage.prompt_tokens),
                u64::from(usage.completion_tokens),
            );
            after
        };
        scores.push(JudgeScore { criterion: criterion.0.to_owned(), before, after });
    }
    Ok((scores, tokens, note))
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
