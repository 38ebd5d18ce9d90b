//! Notes on a check's evidence that methods do not see: the page of each sentence from a PDF,
//! the date each source says it was published, and the evidence that is old for the claim.

use factdesk_model::{Claim, ClaimCheck, DocumentId, StoredCheck};

use crate::{Factdesk, Result};

/// The date a fetched page says it was published, read again from its archived body (pages
/// are archived as received; their dates are not kept apart).
/// Only HTML pages are read again (their metadata is in the markup, and reading it is quick);
/// a PDF's own date is not looked for here.
fn page_published(url: Option<&str>, page: &factdesk_model::StoredPage) -> Option<String> {
    let format = crate::import::format_of_page(
        page.media_type.as_deref(),
        url.unwrap_or_default(),
        &page.body,
    )?;
    if format != factdesk_model::DocumentFormat::Html {
        return None;
    }
    crate::formats::page_text(&page.body, format, None).ok()?.1.published
}

impl Factdesk {
    /// Notes the date each source says it was published (a local document's stored date, a
    /// fetched page's own metadata), on the sources a check read and those it cites: methods
    /// see the evidence's text only. What has no date keeps none.
    pub(super) fn mark_dates(&self, check: &mut ClaimCheck) -> Result<()> {
        let mut dates: std::collections::HashMap<
            (Option<DocumentId>, Option<String>),
            Option<String>,
        > = std::collections::HashMap::new();
        let store = self.store()?;
        let sources =
            check.sources.iter_mut().chain(check.attributions.iter_mut().map(|a| &mut a.source));
        for source in sources {
            if source.published_at.is_some() {
                continue;
            }
            let key = (source.document_id, source.content_hash.clone());
            let date = match dates.get(&key) {
                Some(date) => date.clone(),
                None => {
                    let date = match (source.document_id, source.content_hash.as_deref()) {
                        (Some(document), _) => store.published_at(document)?,
                        (None, Some(hash)) => store
                            .page_by_hash(hash)?
                            .and_then(|page| page_published(source.url.as_deref(), &page)),
                        (None, None) => None,
                    };
                    dates.insert(key, date.clone());
                    date
                }
            };
            source.published_at = date;
        }
        Ok(())
    }

    /// Fills in each check's evidence that is old for `claim` ([`StoredCheck::stale`]), by the
    /// claim's date and `verify.stale_after_days`.
    pub(crate) fn mark_stale(&self, claim: Option<&Claim>, checks: &mut [StoredCheck]) {
        let window = self.settings().verify.stale_after_days;
        let Some(claimed_on) = claim.and_then(|claim| claim.claimed_on.as_deref()) else {
            return;
        };
        for check in checks {
            check.stale = factdesk_model::stale_evidence(&check.check, claimed_on, window);
        }
    }

    /// Notes the page of each evidence sentence that comes from a paged local document (a
    /// PDF), on its premises and attributions, from the stored sentences: methods see the
    /// sentences' text only.
    pub(super) fn mark_pages(&self, check: &mut ClaimCheck) -> Result<()> {
        let mut paged: std::collections::HashMap<DocumentId, Vec<(String, u32)>> =
            std::collections::HashMap::new();
        let documents = check.sources.iter().chain(check.attributions.iter().map(|a| &a.source));
        for id in documents.filter_map(|source| source.document_id) {
            if let std::collections::hash_map::Entry::Vacant(entry) = paged.entry(id) {
                entry.insert(self.store()?.paged_sentences(id)?);
            }
        }
        let pages_of = |document: Option<DocumentId>, sentences: &[String]| -> Vec<Option<u32>> {
            let Some(stored) = document.and_then(|id| paged.get(&id)).filter(|p| !p.is_empty())
            else {
                return Vec::new();
            };
            sentences
                .iter()
                .map(|sentence| {
                    let sentence = sentence.trim();
                    let exact = stored.iter().find(|(text, _)| text == sentence);
                    // A method may have trimmed or joined a sentence; a long enough part of
                    // one still places it.
                    let within = || {
                        stored.iter().find(|(text, _)| {
                            (sentence.len() >= 20 && text.contains(sentence))
                                || (text.len() >= 20 && sentence.contains(text.as_str()))
                        })
                    };
                    exact.or_else(within).map(|(_, page)| *page)
                })
                .collect()
        };
        for index in 0..check.premises.len() {
            let source =
                check.sources.get(check.premises[index].source).and_then(|s| s.document_id);
            let pages = pages_of(source, &check.premises[index].sentences);
            check.premises[index].pages = pages;
        }
        for attribution in &mut check.attributions {
            attribution.pages = pages_of(attribution.source.document_id, &attribution.sentences);
        }
        Ok(())
    }
}
