//! Judging a claim against evidence longer than an NLI model's window, and a claim of several
//! sentences (a summary). The rule, for a method that holds the evidence text:
//!
//! 1. The claim is cut into sentences ([`claim_sentences`]); each is judged on its own.
//! 2. For each claim sentence, the evidence sentences are ranked against it with BM25 and the
//!    best `l` kept; the premises are the cumulative prefixes s1, s1 s2, …, s1 … sl of that
//!    ranking, each cut at [`GroundingConfig::premise_words`] words ([`premises`]). These are
//!    the chunks: small enough for the model's window, and the evidence most likely to bear on
//!    the sentence.
//!    A premise made only of fragments — headings and titles such as "Mount Everest" or "How
//!    penicillin was found" ([`is_fragment`]) — is not judged: a title names a topic and states
//!    nothing, yet a claim about that topic shares all its words, and the verifier gave such
//!    pairs 0.5–0.9. A fragment still joins the longer premises as context.
//! 3. A sentence's support is the highest P(entailment) over its premises (max over chunks).
//! 4. The claim's support is the lowest support over its sentences (min over sentences): a
//!    summary is supported only if every sentence is.
//!
//! Corpus-NLI follows steps 1, 3 and 4 with [`claim_sentences`] and [`aggregate`]; its
//! premises in step 2 are the cumulative prefixes of the sentences the search index retrieves
//! from each of its best documents, under the same caps (`corpus_nli.rs`, `judge.rs`). The verifier Factdesk ships was trained on premises formed like these
//! (training/verifier).

use factdesk_llm::{Nli, NliPair};

use crate::MethodError;
pub use crate::fragment::{FRAGMENT_WORDS, is_fragment, judgeable};
use crate::{bm25, judge};

/// How premises are cut.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GroundingConfig {
    /// Evidence sentences kept per claim sentence (the longest premise joins this many).
    pub l: usize,
    /// A premise stops growing before it passes this many words (its first sentence is kept
    /// whole, up to [`MAX_SENTENCE_WORDS`]).
    pub premise_words: usize,
    /// Sentence rules of the claim's language (ISO 639-1).
    pub language: String,
}

impl Default for GroundingConfig {
    fn default() -> Self {
        GroundingConfig { l: 4, premise_words: PREMISE_WORDS, language: "en".into() }
    }
}

/// The default cap on a premise's words: the verifier was trained on premises of this size,
/// and with the claim sentence they fit its 256-token window.
pub const PREMISE_WORDS: usize = 150;

/// A single evidence sentence longer than this many words is cut: no model window holds more.
pub const MAX_SENTENCE_WORDS: usize = 180;

/// The sentences of a claim, trimmed and non-empty; a claim with no sentence break (or no
/// text the splitter recognises) is one sentence.
pub fn claim_sentences(claim: &str, language: &str) -> Vec<String> {
    let claim = claim.trim();
    if claim.is_empty() {
        return Vec::new();
    }
    let parts: Vec<String> = factdesk_text::segment_sentences(claim, language)
        .into_iter()
        .map(|span| span.slice(claim).trim().to_owned())
        .filter(|text| text.chars().any(char::is_alphanumeric))
        .collect();
    if parts.is_empty() { vec![claim.to_owned()] } else { parts }
}

/// The first `limit` words of `text` (all of it when shorter).
pub fn first_words(text: &str, limit: usize) -> String {
    text.split_whitespace().take(limit).collect::<Vec<_>>().join(" ")
}

/// The cumulative premises for one claim sentence from `evidence` (the evidence's sentences):
/// each premise is the list of sentences it joins, best first; a premise of fragments only
/// ([`judgeable`]) is left out. Empty when no evidence sentence shares a word with the claim
/// sentence.
pub fn premises(sentence: &str, evidence: &[&str], config: &GroundingConfig) -> Vec<Vec<String>> {
    let ranked = bm25::rank(sentence, evidence, config.l.max(1));
    let mut out: Vec<Vec<String>> = Vec::new();
    let mut current: Vec<String> = Vec::new();
    let mut words = 0;
    for (index, _) in ranked {
        let text = first_words(evidence[index], MAX_SENTENCE_WORDS);
        let size = text.split_whitespace().count();
        if !current.is_empty() && words + size > config.premise_words {
            break;
        }
        words += size;
        current.push(text);
        if judgeable(&current) {
            out.push(current.clone());
        }
    }
    out
}

/// One claim sentence and what the evidence says of it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SentenceSupport {
    pub sentence: String,
    /// The premises judged, each with its P(entailment).
    pub premises: Vec<(Vec<String>, f64)>,
    /// The highest P(entailment) over the premises (0 when there were none).
    pub support: f64,
    /// The highest P(contradiction) over the premises that contradict more than they entail
    /// (0 when none does).
    #[serde(default)]
    pub contradiction: f64,
    /// The claim facts the most contradicting premise states differently ([`crate::facts`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conflicts: Vec<factdesk_model::FactPair>,
}

impl SentenceSupport {
    /// Each premise's text, its sentences joined by a space, as the judge read it.
    pub fn premise_texts(&self) -> Vec<String> {
        self.premises.iter().map(|(sentences, _)| sentences.join(" ")).collect()
    }

    /// Whether the evidence contradicts this sentence: no premise entails it (support below
    /// `threshold`) and one contradicts it with at least that probability.
    pub fn refuted(&self, threshold: f64) -> bool {
        self.support < threshold && self.contradiction >= threshold
    }
}

/// A claim judged against evidence.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Grounding {
    pub sentences: Vec<SentenceSupport>,
    /// The claim's support: the lowest sentence support (0 for an empty claim).
    pub support: f64,
    /// NLI pairs classified.
    pub pairs: usize,
}

impl Grounding {
    /// The sentence with the lowest support: the one that decides.
    pub fn weakest(&self) -> Option<&SentenceSupport> {
        self.sentences.iter().min_by(|a, b| a.support.total_cmp(&b.support))
    }

    /// Whether the evidence contradicts the claim: some sentence of it is refuted
    /// ([`SentenceSupport::refuted`]).
    pub fn refuted(&self, threshold: f64) -> bool {
        self.sentences.iter().any(|sentence| sentence.refuted(threshold))
    }
}

/// The claim's support: the minimum over sentence supports (0 when there are none).
pub fn aggregate(supports: impl IntoIterator<Item = f64>) -> f64 {
    supports.into_iter().reduce(f64::min).unwrap_or(0.0)
}

/// Judges `claim` against the text `evidence` (any length) by the rule of this module, all
/// pairs in one batch.
pub async fn ground(
    nli: &dyn Nli,
    evidence: &str,
    claim: &str,
    config: &GroundingConfig,
) -> Result<Grounding, MethodError> {
    let spans = factdesk_text::segment_sentences(evidence, &config.language);
    let evidence_sentences: Vec<&str> = spans
        .iter()
        .map(|span| span.slice(evidence).trim())
        .filter(|text| !text.is_empty())
        .collect();
    let sentences = claim_sentences(claim, &config.language);
    let mut slots: Vec<(usize, Vec<String>)> = Vec::new();
    for (index, sentence) in sentences.iter().enumerate() {
        for premise in premises(sentence, &evidence_sentences, config) {
            slots.push((index, premise));
        }
    }
    let pairs: Vec<NliPair> = slots
        .iter()
        .map(|(index, premise)| NliPair {
            premise: premise.join(" "),
            hypothesis: sentences[*index].clone(),
        })
        .collect();
    let judgements = judge::classify_all(nli, &pairs, &[evidence]).await?;
    let mut supports: Vec<SentenceSupport> = sentences
        .into_iter()
        .map(|sentence| SentenceSupport {
            sentence,
            premises: Vec::new(),
            support: 0.0,
            contradiction: 0.0,
            conflicts: Vec::new(),
        })
        .collect();
    // A contradicted sentence's conflicts, its premises read together as its evidence (as
    // the shipped verifier weighs them, `facts::FactChecked`): aligned once per sentence.
    let mut aligned: Vec<Option<Vec<factdesk_model::FactAlignment>>> = vec![None; supports.len()];
    let mut words: Option<crate::facts::SourceWords> = None;
    let mut place = vec![0; supports.len()];
    for ((index, premise), judgement) in slots.into_iter().zip(judgements) {
        let at = place[index];
        place[index] += 1;
        let scores = judgement.scores;
        let support = &mut supports[index];
        support.support = support.support.max(scores.entailment);
        if scores.contradiction > scores.entailment && scores.contradiction > support.contradiction
        {
            support.contradiction = scores.contradiction;
            let alignments = aligned[index].get_or_insert_with(|| {
                let texts: Vec<&str> = pairs
                    .iter()
                    .filter(|pair| pair.hypothesis == support.sentence)
                    .map(|pair| pair.premise.as_str())
                    .collect();
                let words = words.get_or_insert_with(|| crate::facts::source_words(&[evidence]));
                crate::facts::align_all_with(&texts, &support.sentence, words)
            });
            support.conflicts = alignments[at].conflicts.clone();
        }
        support.premises.push((premise, scores.entailment));
    }
    let support = aggregate(supports.iter().map(|s| s.support));
    Ok(Grounding { sentences: supports, support, pairs: pairs.len() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use async_trait::async_trait;
    use factdesk_llm::{LlmError, NliJudgement, NliScores, TokenUsage};

    /// Entailment 0.9 when every word of the hypothesis is in the premise, else 0.1.
    struct WordsNli;

    #[async_trait]
    impl Nli for WordsNli {
        fn name(&self) -> String {
            "words".into()
        }
        async fn classify(&self, pairs: &[NliPair]) -> Result<Vec<NliJudgement>, LlmError> {
            Ok(pairs
                .iter()
                .map(|pair| {
                    let premise = pair.premise.to_lowercase();
                    let covered = pair
                        .hypothesis
                        .to_lowercase()
                        .split(|c: char| !c.is_alphanumeric())
                        .filter(|w| !w.is_empty())
                        .all(|w| premise.split(|c: char| !c.is_alphanumeric()).any(|p| p == w));
                    let e = if covered { 0.9 } else { 0.1 };
                    NliJudgement {
                        scores: NliScores::normalised(e, 1.0 - e, 0.0),
                        usage: TokenUsage::default(),
                    }
                })
                .collect())
        }
    }

    const ARTICLE: &str = "Okra is a flowering plant in the mallow family. It is valued for its \
        edible green seed pods. The plant is cultivated in tropical regions. Okra pods are \
        rich in fibre. Cotton also belongs to the mallow family.";

    #[test]
    fn claims_are_cut_into_sentences_and_one_sentence_stays_whole() {
        let parts = claim_sentences("Okra is a plant. It grows in the tropics!  ", "en");
        assert_eq!(parts, vec!["Okra is a plant.", "It grows in the tropics!"]);
        assert_eq!(claim_sentences("no punctuation at all", "en"), vec!["no punctuation at all"]);
        assert!(claim_sentences("   ", "en").is_empty());
    }

    #[test]
    fn premises_are_cumulative_best_first_and_capped_in_words() {
        let evidence: Vec<&str> = vec![
            "Cotton is grown for fibre.",
            "Okra belongs to the mallow family.",
            "The mallow family has many members.",
        ];
        let config = GroundingConfig { l: 3, premise_words: 100, language: "en".into() };
        let got = premises("Okra is in the mallow family.", &evidence, &config);
        assert_eq!(got[0], vec!["Okra belongs to the mallow family."]);
        assert_eq!(got[1].len(), 2);
        assert!(got.iter().all(|premise| !premise.contains(&"Cotton is grown for fibre.".into())));
        // A cap of 6 words keeps only the first sentence.
        let tight = GroundingConfig { l: 3, premise_words: 6, language: "en".into() };
        assert_eq!(premises("Okra is in the mallow family.", &evidence, &tight).len(), 1);
        // Nothing shared: no premise.
        assert!(premises("Quantum chromodynamics", &evidence, &config).is_empty());
    }

    #[test]
    fn a_heading_is_never_a_premise_alone_but_joins_longer_ones() {
        for fragment in
            ["Mount Everest", "How penicillin was found", "  The Eiffel Tower  ", "“Okra”"]
        {
            assert!(is_fragment(fragment), "{fragment:?}");
        }
        for sentence in [
            "It rained.",
            "Did it rain?",
            "He said: “It rained.”",
            "Okra (Abelmoschus esculentus) is a flowering plant grown in warm regions of the world",
            "オクラはアオイ科の植物である。",
        ] {
            assert!(!is_fragment(sentence), "{sentence:?}");
        }
        let evidence: Vec<&str> =
            vec!["Mount Everest", "It was first climbed in 1953 by Hillary and Norgay."];
        let got = premises(
            "Mount Everest was first climbed in 1953.",
            &evidence,
            &GroundingConfig::default(),
        );
        assert!(!got.is_empty() && got.iter().all(|premise| judgeable(premise)), "{got:?}");
        assert!(
            got.iter().any(|premise| premise.len() == 2),
            "the heading joins as context: {got:?}"
        );
        // Only a heading: nothing to judge.
        assert!(
            premises("Mount Everest is tall.", &["Mount Everest"], &GroundingConfig::default())
                .is_empty()
        );
    }

    #[test]
    fn the_claim_is_as_supported_as_its_weakest_sentence() {
        assert_eq!(aggregate([0.9, 0.2, 0.7]), 0.2);
        assert_eq!(aggregate(Vec::<f64>::new()), 0.0);
    }

    #[tokio::test]
    async fn a_summary_with_one_unsupported_sentence_is_unsupported() {
        let config = GroundingConfig::default();
        let good =
            ground(&WordsNli, ARTICLE, "Okra is a flowering plant in the mallow family.", &config)
                .await
                .unwrap();
        assert_eq!(good.support, 0.9);
        let mixed = ground(
            &WordsNli,
            ARTICLE,
            "Okra is a flowering plant in the mallow family. Okra pods are poisonous to cattle.",
            &config,
        )
        .await
        .unwrap();
        assert_eq!(mixed.sentences.len(), 2);
        assert_eq!(mixed.sentences[0].support, 0.9);
        assert_eq!(mixed.support, 0.1);
        assert_eq!(mixed.weakest().unwrap().sentence, "Okra pods are poisonous to cattle.");
        // No evidence at all: nothing supports the claim, and nothing was asked.
        let none = ground(&WordsNli, "", "Okra is a plant.", &config).await.unwrap();
        assert_eq!((none.support, none.pairs), (0.0, 0));
    }
}
