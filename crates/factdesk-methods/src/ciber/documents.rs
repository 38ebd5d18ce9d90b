//! The evidence documents a claim is checked against (retrieved, named, or read by an earlier
//! LLM-Cite check), each cut to the words the probes quote around the sentence that best
//! matches the claim.

use factdesk_model::{DocumentId, EvidenceSource};

use super::{Ciber, Documents, Evidence};
use crate::MethodError;

impl Ciber {
    /// The documents to probe: the best `documents` of a corpus retrieval, the corpus
    /// documents and web pages named, or the pages LLM-Cite read; empty ones are left out.
    pub(super) async fn evidence(&self, claim: &str) -> Result<Vec<Evidence>, MethodError> {
        let (ids, pages): (Vec<DocumentId>, &[String]) = match &self.documents {
            Documents::Retrieved => {
                let hits = self
                    .retriever
                    .retrieve(claim, self.config.retrieve.max(1))
                    .await
                    .map_err(MethodError::Evidence)?;
                let mut ids = Vec::new();
                for hit in hits {
                    if !ids.contains(&hit.document_id) && ids.len() < self.config.documents {
                        ids.push(hit.document_id);
                    }
                }
                (ids, &[])
            }
            Documents::Named { documents, pages } => (documents.clone(), pages),
            Documents::LlmCite { pages } => (Vec::new(), pages),
        };
        let limit = self.config.document_words;
        let mut evidence = Vec::with_capacity(ids.len() + pages.len());
        for id in ids {
            let document = self.retriever.document(id).await.map_err(MethodError::Evidence)?;
            let source = EvidenceSource {
                url: document.url.clone(),
                title: document.title.clone(),
                document_id: Some(document.id),
                fetched_at: None,
                content_hash: None,
                published_at: None,
            };
            evidence.push(window(claim, source, &document.text, &document.sentences, limit));
        }
        for url in pages {
            let Some(web) = &self.web else {
                return Err(MethodError::Evidence(format!(
                    "{url}: this check was given no way to read web pages"
                )));
            };
            let page = web
                .page(url)
                .await
                .map_err(|error| MethodError::Evidence(format!("{url}: {}", error.message)))?;
            let sentences: Vec<String> =
                factdesk_text::segment_sentences(&page.text, &self.language)
                    .into_iter()
                    .map(|span| span.slice(&page.text).trim().to_owned())
                    .filter(|sentence| !sentence.is_empty())
                    .collect();
            let source = EvidenceSource {
                url: Some(page.final_url.clone()),
                title: page.title.clone(),
                document_id: None,
                fetched_at: Some(page.fetched_at.clone()),
                content_hash: Some(page.content_hash.clone()),
                published_at: None,
            };
            evidence.push(window(claim, source, &page.text, &sentences, limit));
        }
        // A document with no words has nothing to ask about.
        evidence.retain(|document| document.words > 0);
        Ok(evidence)
    }
}

/// The part of `document` the probes quote: all of it when it has at most `limit` words, else
/// whole sentences around the one that best matches the claim, added before and after in turn
/// while they fit (a single longer sentence is cut at `limit` words).
fn window(
    claim: &str,
    source: EvidenceSource,
    text: &str,
    sentences: &[String],
    limit: usize,
) -> Evidence {
    let limit = limit.max(1);
    let sentences: Vec<&str> = sentences.iter().map(String::as_str).collect();
    let best_index =
        crate::bm25_rank(claim, &sentences, 1).first().map(|&(index, _)| index).unwrap_or(0);
    let best = sentences.get(best_index).map(|sentence| (*sentence).to_owned());
    let total_words = text.split_whitespace().count();
    if total_words <= limit || sentences.is_empty() {
        let text = crate::grounding::first_words(text, limit);
        let words = text.split_whitespace().count();
        return Evidence { source, text, words, truncated: total_words > limit, best };
    }
    let count = |index: usize| sentences[index].split_whitespace().count();
    let (mut start, mut end) = (best_index, best_index + 1);
    let mut words = count(best_index);
    let mut grew = true;
    while grew {
        grew = false;
        if end < sentences.len() && words + count(end) <= limit {
            words += count(end);
            end += 1;
            grew = true;
        }
        if start > 0 && words + count(start - 1) <= limit {
            start -= 1;
            words += count(start);
            grew = true;
        }
    }
    let text = crate::grounding::first_words(&sentences[start..end].join(" "), limit);
    let words = text.split_whitespace().count();
    Evidence { source, text, words, truncated: true, best }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evidence::CorpusDocument;

    #[test]
    fn a_long_document_is_cut_around_the_sentence_that_matches_the_claim() {
        let filler: Vec<String> = (0..40)
            .map(|i| format!("Sentence number {i} talks about weather and roads."))
            .collect();
        let mut sentences = filler.clone();
        sentences.insert(25, "Okra belongs to the mallow family of flowering plants.".into());
        let document = CorpusDocument {
            id: DocumentId(7),
            title: Some("Okra".into()),
            url: None,
            text: sentences.join(" "),
            sentences: sentences.clone(),
        };
        let source = |document: &CorpusDocument| EvidenceSource {
            url: None,
            title: document.title.clone(),
            document_id: Some(document.id),
            fetched_at: None,
            content_hash: None,
            published_at: None,
        };
        let claim = "Okra is in the mallow family.";
        let evidence = window(claim, source(&document), &document.text, &document.sentences, 40);
        assert!(evidence.truncated);
        assert!(evidence.words <= 40, "{}", evidence.words);
        assert!(evidence.text.contains("mallow family"), "{}", evidence.text);
        assert_eq!(evidence.best.as_deref(), Some(sentences[25].as_str()));
        // Short documents are quoted whole.
        let short = window(claim, source(&document), &document.text, &document.sentences, 10_000);
        assert!(!short.truncated);
        assert_eq!(short.text, document.text);
    }
}
