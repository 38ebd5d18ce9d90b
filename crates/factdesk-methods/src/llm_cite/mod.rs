//! LLM-Cite ("LLM-Cite: Cheap Fact Verification with Attribution via URL Generation"): verify a
//! claim with citations the model proposes.
//!
//! 1. [`LlmCite::generate_urls`]: the chat model proposes up to m Wikipedia URLs (DIVERSE: one prompt,
//!    a list; CONTROLLED: one URL per sample, m samples; RS: the DIVERSE prompt sampled R times
//!    at temperature 0.8, keeping the sample with the most valid URLs).
//!    Where the model enforces grammars, its answer is held to Wikipedia URLs
//!    ([`urls::wikipedia_url_grammar`]); where it may take a JSON Schema (a server), it is asked
//!    for a list of them ([`urls::url_list_schema`]). [`urls::parse_answer`] reads the list,
//!    or the free text of a server that refused or ignored the schema.
//! 2. Each URL is fetched through the [`PageSource`] (the application fetches, archives and
//!    applies the fetch policy; Wikipedia goes through the MediaWiki API).
//! 3. Each page's sentences are ranked against the claim with BM25; the top l are kept.
//! 4. Cumulative premises s1, s1 s2, … are judged by the NLI model ([`crate::judge`]).
//! 5. Supported ("verified" in the paper) if any premise entails the claim. The paper's "not
//!    verified" is split: refuted when a premise contradicts the claim and none entails it
//!    (only a judge with a contradiction class can say so), else not enough info. When no
//!    page could be read, not enough info with the reason apart: no valid URL, or fetch failed.

pub mod urls;

use std::collections::HashMap;
use std::sync::Arc;

use factdesk_llm::prompts::PromptLibrary;
use factdesk_llm::{LanguageModel, Nli};
pub use factdesk_model::parameters::UrlStrategy;
use factdesk_model::parameters::{LlmCiteParameters, MethodParameters};
use factdesk_model::{
    ClaimCheck, Envelope, EvidenceSource, LeftOut, MethodDetail, ProposedUrl, TokenUse, Undecided,
    UrlStatus, Verdict,
};
use futures_util::future::join_all;
use serde::{Deserialize, Serialize};

use crate::evidence::{Page, PageError, PageSource};
use crate::judge::{self, PremiseForm, RankedSource};
use crate::{MethodError, bm25};

/// The template of the DIVERSE (and RS) prompt.
pub const DIVERSE_TEMPLATE: &str = "llm_cite/urls_diverse";
/// The template of the CONTROLLED prompt.
pub const CONTROLLED_TEMPLATE: &str = "llm_cite/url_controlled";
pub const METHOD: &str = "llm-cite";

/// LLM-Cite's settings (paper defaults: m = 4, R = 5 at temperature 0.8, l = 6). Serialized
/// as part of a run's identity: the strategy as `urls`; the language, which comes from the
/// import settings, is left out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LlmCiteConfig {
    #[serde(rename = "urls")]
    pub strategy: UrlStrategy,
    /// URLs per claim.
    pub m: usize,
    /// Samples for rejection sampling.
    pub r: u32,
    /// Sampling temperature for CONTROLLED and RS (DIVERSE decodes greedily).
    pub temperature: f32,
    /// Sentences kept per page.
    pub l: usize,
    /// Entailment probability at or above which a premise entails the claim.
    pub threshold: f64,
    pub premises: PremiseForm,
    /// Sentence rules for splitting pages.
    #[serde(skip_serializing, default = "english")]
    pub language: String,
    pub seed: u64,
}

fn english() -> String {
    "en".into()
}

impl Default for LlmCiteConfig {
    fn default() -> Self {
        LlmCiteConfig {
            strategy: UrlStrategy::Diverse,
            m: 4,
            r: 5,
            temperature: 0.8,
            l: 6,
            threshold: 0.5,
            premises: PremiseForm::Cumulative,
            language: english(),
            seed: 0,
        }
    }
}

/// What the URL step produced: candidate URLs with the sample they came from, tokens spent,
/// and the pages already fetched while validating (rejection sampling).
#[derive(Debug, Default)]
pub struct GeneratedUrls {
    pub urls: Vec<(String, u32)>,
    pub tokens: TokenUse,
    /// Valid URLs per sample (rejection sampling only).
    pub valid_per_sample: Vec<usize>,
    fetched: HashMap<String, Result<Page, PageError>>,
}

/// The models and evidence LLM-Cite uses.
pub struct LlmCite {
    pub model: Arc<dyn LanguageModel>,
    pub nli: Arc<dyn Nli>,
    pub prompts: Arc<PromptLibrary>,
    pub pages: Arc<dyn PageSource>,
    pub config: LlmCiteConfig,
}

impl std::fmt::Debug for LlmCite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmCite").field("config", &self.config).finish_non_exhaustive()
    }
}

impl LlmCite {
    /// Checks one claim.
    pub async fn check(&self, claim: &str) -> Result<ClaimCheck, MethodError> {
        let claim = claim.trim();
        let config = &self.config;
        let unread = judge::unread_language(&*self.nli, claim);
        // A claim the NLI model cannot read is not sent to the chat model for URLs either.
        let mut generated = match unread {
            Some(_) => GeneratedUrls::default(),
            None => self.generate_urls(claim).await?,
        };
        let mut tokens = generated.tokens;

        // Fetch every URL not fetched yet (at most m; the application bounds concurrency).
        let missing: Vec<String> = generated
            .urls
            .iter()
            .map(|(url, _)| url.clone())
            .filter(|url| !generated.fetched.contains_key(url))
            .collect();
        let results = join_all(missing.iter().map(|url| self.pages.page(url))).await;
        stop_on_local_failure(&results)?;
        generated.fetched.extend(missing.into_iter().zip(results));

        let mut proposed = Vec::with_capacity(generated.urls.len());
        let mut pages: Vec<&Page> = Vec::new();
        for (url, sample) in &generated.urls {
            let outcome = &generated.fetched[url];
            proposed.push(proposed_url(url, *sample, outcome));
            if let Ok(page) = outcome {
                // Two URLs that resolve to the same page are one source.
                if !pages.iter().any(|seen| seen.content_hash == page.content_hash) {
                    pages.push(page);
                }
            }
        }

        let mut sources = Vec::with_capacity(pages.len());
        let mut texts = Vec::with_capacity(pages.len());
        for page in &pages {
            let sentences = top_sentences(&page.text, claim, config.l, &config.language);
            sources.push(RankedSource {
                source: EvidenceSource {
                    url: Some(page.final_url.clone()),
                    title: page.title.clone(),
                    document_id: None,
                    fetched_at: Some(page.fetched_at.clone()),
                    content_hash: Some(page.content_hash.clone()),
                    published_at: None,
                },
                sentences,
            });
            texts.push(Some(page.text.as_str()));
        }
        let judged =
            judge::judge(&*self.nli, claim, &sources, &texts, config.premises, config.threshold)
                .await?;
        tokens.merge(&judged.tokens);

        let fetched = proposed.iter().filter(|url| url.status.is_valid()).count();
        let failed = proposed
            .iter()
            .filter(|url| matches!(url.status, UrlStatus::Refused | UrlStatus::Failed))
            .count();
        let (verdict, undecided, confidence, explanation) = if let Some(why) = unread {
            (Verdict::NotEnoughInfo, Some(Undecided::UnreadLanguage), None, why)
        } else if fetched > 0 && judged.premises.is_empty() && !judged.unread.is_empty() {
            let why = judged.unread_note(&*self.nli).unwrap_or_default();
            let explanation =
                format!("{fetched} of {} proposed URLs led to pages.{why}", proposed.len());
            (Verdict::NotEnoughInfo, Some(Undecided::UnreadLanguage), None, explanation)
        } else if fetched > 0 {
            let explanation = match judged.attributions.first() {
                Some(best) => format!(
                    "{} of {} proposed URLs led to pages; {} entails the claim (P = {:.2}).",
                    fetched,
                    proposed.len(),
                    best.source.url.as_deref().unwrap_or("a page"),
                    best.entailment
                ),
                None => format!(
                    "{} of {} proposed URLs led to pages; no premise entails the claim (best P = {:.2}){}.",
                    fetched,
                    proposed.len(),
                    judged.best_entailment,
                    if judged.contradicted { " and one contradicts it" } else { "" }
                ),
            };
            let explanation = explanation
                + &judged.left_out_note().unwrap_or_default()
                + &judged.unread_note(&*self.nli).unwrap_or_default();
            (judged.verdict(), None, judged.confidence(), explanation)
        } else if failed > 0 {
            (
                Verdict::NotEnoughInfo,
                Some(Undecided::FetchFailed),
                None,
                format!(
                    "None of the {} proposed URLs could be fetched ({failed} refused or failed).",
                    proposed.len()
                ),
            )
        } else if proposed.is_empty() {
            (
                Verdict::NotEnoughInfo,
                Some(Undecided::NoValidUrl),
                None,
                "The model proposed no URL.".to_owned(),
            )
        } else {
            (
                Verdict::NotEnoughInfo,
                Some(Undecided::NoValidUrl),
                None,
                format!("None of the {} proposed URLs leads to an existing page.", proposed.len()),
            )
        };

        Ok(ClaimCheck {
            envelope: Envelope {
                method: METHOD.into(),
                parameters: MethodParameters::LlmCite(LlmCiteParameters {
                    urls: config.strategy,
                    m: config.m,
                    r: config.r,
                    temperature: f64::from(config.temperature),
                    l: config.l,
                    threshold: config.threshold,
                    premises: config.premises,
                    seed: config.seed,
                    valid_urls_per_sample: generated.valid_per_sample,
                    other: Default::default(),
                }),
                model: model_name(&*self.model),
                nli_model: Some(self.nli.name()),
                tokens,
                explanation,
            },
            claim: claim.to_owned(),
            verdict,
            undecided,
            confidence,
            attributions: judged.attributions,
            sources: sources.into_iter().map(|ranked| ranked.source).collect(),
            premises: judged.premises,
            left_out: judged
                .left_out
                .into_iter()
                .map(|(source, sentence)| LeftOut { source, sentence })
                .collect(),
            detail: Some(MethodDetail::LlmCite { urls: proposed }),
        })
    }

    /// Step 1: candidate URLs.
    pub async fn generate_urls(&self, claim: &str) -> Result<GeneratedUrls, MethodError> {
        let config = &self.config;
        let m = config.m.max(1);
        let mut generated = GeneratedUrls::default();
        match config.strategy {
            UrlStrategy::Diverse => {
                let mut request = self.prompts.render_request(
                    DIVERSE_TEMPLATE,
                    &serde_json::json!({"claim": claim, "m": m}),
                )?;
                request.params.seed = Some(config.seed);
                let completion = self.ask_for_urls(request, m).await?;
                count_url_tokens(&mut generated.tokens, &completion.usage);
                generated.urls = urls::parse_answer(completion.text(), m)
                    .into_iter()
                    .map(|url| (url, 0))
                    .collect();
            }
            UrlStrategy::Controlled => {
                let mut request = self
                    .prompts
                    .render_request(CONTROLLED_TEMPLATE, &serde_json::json!({"claim": claim}))?;
                request.params.n = m as u32;
                request.params.temperature = config.temperature;
                request.params.seed = Some(config.seed);
                let completion = self.ask_for_urls(request, 1).await?;
                count_url_tokens(&mut generated.tokens, &completion.usage);
                let mut keys = Vec::new();
                for (sample, choice) in completion.choices.iter().enumerate() {
                    if let Some(url) = urls::parse_answer(&choice.text, 1).into_iter().next() {
                        let key = urls::dedupe_key(&url);
                        if !keys.contains(&key) {
                            keys.push(key);
                            generated.urls.push((url, sample as u32));
                        }
                    }
                }
            }
            UrlStrategy::Rs => {
                let mut request = self.prompts.render_request(
                    DIVERSE_TEMPLATE,
                    &serde_json::json!({"claim": claim, "m": m}),
                )?;
                request.params.n = config.r.max(1);
                request.params.temperature = config.temperature;
                request.params.seed = Some(config.seed);
                let completion = self.ask_for_urls(request, m).await?;
                count_url_tokens(&mut generated.tokens, &completion.usage);
                let samples: Vec<Vec<String>> = completion
                    .choices
                    .iter()
                    .map(|choice| urls::parse_answer(&choice.text, m))
                    .collect();
                // Validate every distinct URL once.
                let mut distinct: Vec<String> = Vec::new();
                for url in samples.iter().flatten() {
                    if !distinct.contains(url) {
                        distinct.push(url.clone());
                    }
                }
                let results = join_all(distinct.iter().map(|url| self.pages.page(url))).await;
                stop_on_local_failure(&results)?;
                generated.fetched = distinct.into_iter().zip(results).collect();
                generated.valid_per_sample = samples
                    .iter()
                    .map(|sample| {
                        sample.iter().filter(|url| generated.fetched[*url].is_ok()).count()
                    })
                    .collect();
                // The first sample with the most valid URLs wins.
                let best = generated
                    .valid_per_sample
                    .iter()
                    .enumerate()
                    .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(&a.0)))
                    .map_or(0, |(index, _)| index);
                if let Some(sample) = samples.get(best) {
                    generated.urls = sample.iter().map(|url| (url.clone(), best as u32)).collect();
                }
            }
        }
        Ok(generated)
    }

    /// Asks for at most `max_urls` Wikipedia URLs, the answer held to them by a grammar where
    /// the model may take one (the embedded model; llama.cpp's server), else by a JSON Schema
    /// where it may take one. A grammar the model took but did not apply (an answer that is
    /// not lines of URLs: a lenient server ignored the field) is reported to the model; where
    /// the grammar was refused or ignored and the model may take a schema, the URLs are asked
    /// for again with it (the tokens of both calls counted), and the next claims ask with it
    /// at once.
    async fn ask_for_urls(
        &self,
        mut request: factdesk_llm::CompletionRequest,
        max_urls: usize,
    ) -> Result<factdesk_llm::Completion, MethodError> {
        use factdesk_llm::{ConstraintKind, ConstraintOutcome, OutputConstraint};
        let schema = urls::url_list_schema(max_urls);
        let grammar = urls::wikipedia_url_grammar(max_urls);
        crate::shape::constrain(&*self.model, &mut request, schema.clone(), Some(grammar));
        let completion = self.model.complete(&request).await?;
        if !matches!(request.constraint, Some(OutputConstraint::Grammar(_))) {
            return Ok(completion);
        }
        let ignored = completion.constraint == Some(ConstraintOutcome::Accepted)
            && completion.choices.iter().any(|choice| !urls::fits_url_grammar(&choice.text));
        if ignored {
            self.model.constraint_ignored(ConstraintKind::Grammar);
        }
        let refused = matches!(
            completion.constraint,
            Some(ConstraintOutcome::Refused | ConstraintOutcome::Withheld)
        );
        if !(ignored || refused) || !self.model.may_accept(ConstraintKind::JsonSchema) {
            return Ok(completion);
        }
        request.constraint = Some(OutputConstraint::JsonSchema(schema));
        let mut again = self.model.complete(&request).await?;
        again.usage.prompt_tokens += completion.usage.prompt_tokens;
        again.usage.completion_tokens += completion.usage.completion_tokens;
        Ok(again)
    }
}

fn count_url_tokens(tokens: &mut TokenUse, usage: &factdesk_llm::TokenUsage) {
    tokens.add(TokenUse::URLS, u64::from(usage.prompt_tokens), u64::from(usage.completion_tokens));
}

/// A page that failed for Factdesk's own reasons (its database, its archive) leaves the claim
/// without a verdict rather than counting as a URL that failed.
fn stop_on_local_failure(results: &[Result<Page, PageError>]) -> Result<(), MethodError> {
    match results.iter().find_map(|result| result.as_ref().err().filter(|error| error.local)) {
        Some(error) => Err(MethodError::Evidence(error.message.clone())),
        None => Ok(()),
    }
}

fn proposed_url(url: &str, sample: u32, outcome: &Result<Page, PageError>) -> ProposedUrl {
    match outcome {
        Ok(page) => ProposedUrl {
            url: url.to_owned(),
            status: UrlStatus::Fetched,
            final_url: Some(page.final_url.clone()),
            title: page.title.clone(),
            fetched_at: Some(page.fetched_at.clone()),
            content_hash: Some(page.content_hash.clone()),
            error: None,
            sample,
        },
        Err(error) => ProposedUrl {
            url: url.to_owned(),
            status: error.status,
            final_url: None,
            title: None,
            fetched_at: None,
            content_hash: None,
            error: Some(error.message.clone()),
            sample,
        },
    }
}

/// The name reports show for a chat model: `provider:model`.
pub fn model_name(model: &dyn LanguageModel) -> String {
    let info = model.info();
    format!("{}:{}", info.provider, info.model)
}

/// Step 3: the `l` sentences of `text` that best match `claim`, best first.
pub fn top_sentences(text: &str, claim: &str, l: usize, language: &str) -> Vec<String> {
    let spans = factdesk_text::segment_sentences(text, language);
    let sentences: Vec<&str> = spans
        .iter()
        .map(|span| span.slice(text).trim())
        .filter(|sentence| !sentence.is_empty())
        .collect();
    bm25::rank(claim, &sentences, l)
        .into_iter()
        .map(|(index, _)| sentences[index].to_owned())
        .collect()
}

/// LLM-Cite's figures over its checks: URLs proposed, the shares of them that lead nowhere or
/// could not be fetched, and the share of claims none of whose URLs led to a page.
pub fn figures(checks: &[&ClaimCheck]) -> Vec<crate::figures::Figure> {
    use crate::figures::Figure;
    let urls: Vec<&ProposedUrl> = checks.iter().flat_map(|check| check.proposed_urls()).collect();
    let invalid =
        urls.iter().filter(|url| matches!(url.status, UrlStatus::NotFound | UrlStatus::Invalid));
    let failed =
        urls.iter().filter(|url| matches!(url.status, UrlStatus::Refused | UrlStatus::Failed));
    let without_valid = checks
        .iter()
        .filter(|check| !check.proposed_urls().iter().any(|url| url.status.is_valid()));
    vec![
        Figure::count("urls_proposed", "URLs proposed", urls.len(), "by the model, all claims"),
        Figure::rate(
            "invalid_url_rate",
            "Invalid URL rate",
            invalid.count(),
            urls.len(),
            "no such page, or not a URL",
        ),
        Figure::rate(
            "fetch_failure_rate",
            "Fetch failure rate",
            failed.count(),
            urls.len(),
            "refused or failed fetches",
        ),
        Figure::rate(
            "no_valid_url_rate",
            "No valid URL rate",
            without_valid.count(),
            checks.len(),
            "claims none of whose URLs led to a page",
        ),
    ]
}
