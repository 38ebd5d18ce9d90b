//! Ranking a document's sentences against a claim with BM25 (Okapi, k1 = 1.2, b = 0.75), the
//! sentences of one document being the collection. LLM-Cite's paper ranks them with TF-IDF;
//! BM25 plays the same role with length normalisation. Terms are lower-cased words and numbers
//! with a light English suffix strip, function words left out.

use std::collections::HashMap;

const K1: f64 = 1.2;
const B: f64 = 0.75;

/// Words that carry no evidence on their own.
const STOPWORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "been", "but", "by", "did", "do", "does", "for",
    "from", "had", "has", "have", "he", "her", "his", "i", "in", "into", "is", "it", "its", "of",
    "on", "or", "she", "so", "than", "that", "the", "their", "them", "then", "there", "these",
    "they", "this", "those", "to", "was", "were", "which", "who", "whom", "will", "with", "would",
    "you",
];

/// The index terms of `text`.
pub fn terms(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .filter(|word| !STOPWORDS.contains(&word.as_str()))
        .map(|word| stem(&word))
        .collect()
}

/// Strips a few English inflections so "discovered"/"discovers"/"discovery" meet.
fn stem(word: &str) -> String {
    if word.chars().count() <= 4 || word.chars().any(|c| c.is_ascii_digit()) {
        return word.to_owned();
    }
    for suffix in ["ies", "ied", "ing", "ed", "es", "ly", "s", "y"] {
        if let Some(stem) = word.strip_suffix(suffix)
            && stem.chars().count() >= 3
        {
            return stem.to_owned();
        }
    }
    word.to_owned()
}

/// Indices of the `top` sentences most relevant to `query`, best first. Sentences that share
/// no term with the query are not returned; ties keep document order.
pub fn rank(query: &str, sentences: &[&str], top: usize) -> Vec<(usize, f64)> {
    let query_terms = {
        let mut terms = terms(query);
        terms.sort();
        terms.dedup();
        terms
    };
    if query_terms.is_empty() || sentences.is_empty() {
        return Vec::new();
    }
    let documents: Vec<Vec<String>> = sentences.iter().map(|s| terms(s)).collect();
    let count = documents.len() as f64;
    let average_length = (documents.iter().map(Vec::len).sum::<usize>() as f64 / count).max(1.0);
    let mut document_frequency: HashMap<&str, usize> = HashMap::new();
    for document in &documents {
        let mut seen: Vec<&str> = document.iter().map(String::as_str).collect();
        seen.sort_unstable();
        seen.dedup();
        for term in seen {
            *document_frequency.entry(term).or_default() += 1;
        }
    }
    let mut scored: Vec<(usize, f64)> = documents
        .iter()
        .enumerate()
        .filter_map(|(index, document)| {
            let length = document.len() as f64;
            let score: f64 = query_terms
                .iter()
                .map(|term| {
                    let frequency = document.iter().filter(|t| *t == term).count() as f64;
                    if frequency == 0.0 {
                        return 0.0;
                    }
                    let containing =
                        document_frequency.get(term.as_str()).copied().unwrap_or(0) as f64;
                    let idf = ((count - containing + 0.5) / (containing + 0.5) + 1.0).ln();
                    idf * frequency * (K1 + 1.0)
                        / (frequency + K1 * (1.0 - B + B * length / average_length))
                })
                .sum();
            (score > 0.0).then_some((index, score))
        })
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    scored.truncate(top);
    scored
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_drop_function_words_and_strip_suffixes() {
        assert_eq!(terms("The Tower was discovered in 1889!"), vec!["tower", "discover", "1889"]);
        assert_eq!(terms("Discovers, discovery"), vec!["discover", "discover"]);
    }

    #[test]
    fn the_sentence_about_the_claim_ranks_first() {
        let sentences = [
            "Paris is the capital of France.",
            "The tower is 330 metres tall.",
            "Construction of the Eiffel Tower finished in 1889.",
            "Gustave Eiffel's company designed and built the tower.",
        ];
        let ranked = rank("The Eiffel Tower was finished in 1889", &sentences, 3);
        let order: Vec<usize> = ranked.iter().map(|(index, _)| *index).collect();
        assert_eq!(order[0], 2);
        assert!(!order.contains(&0), "a sentence sharing no term is left out: {ranked:?}");
        assert!(ranked.windows(2).all(|pair| pair[0].1 >= pair[1].1));
    }

    #[test]
    fn rare_terms_weigh_more_than_common_ones() {
        let sentences = ["okra okra okra", "okra pods", "okra mucilage"];
        let ranked = rank("mucilage of okra", &sentences, 3);
        assert_eq!(ranked[0].0, 2);
    }

    #[test]
    fn empty_inputs_rank_nothing() {
        assert!(rank("the of and", &["Paris is big."], 3).is_empty());
        assert!(rank("Paris", &[], 3).is_empty());
    }
}
