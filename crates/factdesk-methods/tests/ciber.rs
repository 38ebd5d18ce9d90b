//! CIBER against models whose answer distribution is known: exact mode must reproduce it,
//! sampling must come close, and a server without probabilities must be sampled and say so.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use factdesk_llm::{
    Choice, Completion, CompletionRequest, FinishReason, LanguageModel, LlmError, ModelInfo,
    TokenLogprob, TokenUsage,
};
use factdesk_methods::ciber::{Ciber, CiberConfig, Documents, ProbeSets};
use factdesk_methods::evidence::{
    CorpusDocument, CorpusRetriever, CorpusSentence, Page, PageError, PageSource,
};
use factdesk_methods::prompts::builtin_library;
use factdesk_model::ciber::{FusionRule, Masses, ProbeMode, ProbeSet, Stance};
use factdesk_model::{DocumentId, Undecided, Verdict};

/// A model that believes the claim with probability `p_yes` to an agreeing probe (and says no
/// with `p_no`, not sure with the rest); to a contradicting probe, yes and no swap.
struct KnownModel {
    p_yes: f64,
    p_no: f64,
    /// Gives first-token log-probabilities when asked.
    logprobs: bool,
    /// Free-text answers instead of the three words.
    prose: Option<&'static str>,
    calls: AtomicUsize,
}

impl KnownModel {
    fn new(p_yes: f64, p_no: f64) -> KnownModel {
        KnownModel { p_yes, p_no, logprobs: true, prose: None, calls: AtomicUsize::new(0) }
    }

    fn distribution(&self, request: &CompletionRequest) -> [(&'static str, f64); 3] {
        let prompt = &request.messages.last().unwrap().content;
        let question = prompt.rsplit("Question: ").next().unwrap_or_default();
        let negated = ["false", "refuted", "incorrect", "contradict"]
            .iter()
            .any(|word| question.lines().next().unwrap_or_default().contains(word));
        let (yes, no) = if negated { (self.p_no, self.p_yes) } else { (self.p_yes, self.p_no) };
        [("Yes", yes), ("No", no), ("Not sure", 1.0 - yes - no)]
    }
}

#[async_trait]
impl LanguageModel for KnownModel {
    fn info(&self) -> ModelInfo {
        ModelInfo { provider: "scripted".into(), model: "known".into(), location: "test".into() }
    }

    async fn complete(&self, request: &CompletionRequest) -> Result<Completion, LlmError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let distribution = self.distribution(request);
        let usage = TokenUsage { prompt_tokens: 100, completion_tokens: request.params.n };
        let choice = |text: &str, logprobs| Choice {
            text: text.to_owned(),
            finish_reason: FinishReason::Stop,
            logprobs,
        };
        if request.params.logprobs && self.logprobs {
            let top: Vec<(String, f32)> = distribution
                .iter()
                .map(|(text, p)| (text.split(' ').next().unwrap().to_owned(), p.ln() as f32))
                .collect();
            let first = TokenLogprob { token: top[0].0.clone(), logprob: top[0].1, top };
            return Ok(Completion {
                choices: vec![choice("Yes", Some(vec![first]))],
                usage,
                model: "known".into(),
                audit_id: None,
                replayed: false,
                constraint: None,
            });
        }
        // Seeded draws from the distribution (xorshift).
        let mut state =
            request.params.seed.unwrap_or(1) ^ 0x9e37_79b9_7f4a_7c15 ^ prompt_hash(request);
        let mut choices = Vec::new();
        for _ in 0..request.params.n.max(1) {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let draw = (state >> 11) as f64 / (1u64 << 53) as f64;
            let text = match self.prose {
                Some(prose) => prose,
                None if draw < distribution[0].1 => distribution[0].0,
                None if draw < distribution[0].1 + distribution[1].1 => distribution[1].0,
                None => distribution[2].0,
            };
            choices.push(choice(text, None));
        }
        Ok(Completion {
            choices,
            usage,
            model: "known".into(),
            audit_id: None,
            replayed: false,
            constraint: None,
        })
    }
}

fn prompt_hash(request: &CompletionRequest) -> u64 {
    request
        .messages
        .iter()
        .flat_map(|m| m.content.bytes())
        .fold(1469598103934665603u64, |h, b| (h ^ u64::from(b)).wrapping_mul(1099511628211))
}

/// Two documents about okra.
struct Okra;

const DOCUMENTS: [(&str, &[&str]); 2] = [
    ("Okra", &["Okra is a flowering plant in the mallow family.", "It is grown in warm regions."]),
    ("Gumbo", &["Gumbo is a stew that often contains okra.", "It comes from Louisiana."]),
];

#[async_trait]
impl CorpusRetriever for Okra {
    async fn retrieve(&self, query: &str, limit: usize) -> Result<Vec<CorpusSentence>, String> {
        if !query.to_lowercase().contains("okra") {
            return Ok(Vec::new());
        }
        Ok(DOCUMENTS
            .iter()
            .enumerate()
            .flat_map(|(id, (title, sentences))| {
                sentences.iter().map(move |text| CorpusSentence {
                    document_id: DocumentId(id as i64 + 1),
                    title: Some((*title).to_owned()),
                    url: None,
                    text: (*text).to_owned(),
                    score: 1.0,
                })
            })
            .take(limit)
            .collect())
    }

    async fn document(&self, id: DocumentId) -> Result<CorpusDocument, String> {
        if id.0 == 3 {
            let blank = "  \n ".to_owned();
            return Ok(CorpusDocument {
                id,
                title: None,
                url: None,
                text: blank,
                sentences: vec![],
            });
        }
        let (title, sentences) =
            DOCUMENTS.get((id.0 - 1) as usize).ok_or_else(|| format!("no document {id}"))?;
        Ok(CorpusDocument {
            id,
            title: Some((*title).to_owned()),
            url: None,
            text: sentences.join(" "),
            sentences: sentences.iter().map(|s| (*s).to_owned()).collect(),
        })
    }
}

fn ciber(model: Arc<dyn LanguageModel>, config: CiberConfig) -> Ciber {
    Ciber {
        model,
        prompts: Arc::new(builtin_library().unwrap()),
        probes: ProbeSets::builtin().unwrap(),
        retriever: Arc::new(Okra),
        documents: Documents::Retrieved,
        web: None,
        language: "en".into(),
        config,
    }
}

fn close(a: &Masses, b: &Masses, tolerance: f64) -> bool {
    (a.support - b.support).abs() <= tolerance
        && (a.refute - b.refute).abs() <= tolerance
        && (a.neutral - b.neutral).abs() <= tolerance
}

const CLAIM: &str = "Okra is in the mallow family.";

#[tokio::test]
async fn exact_mode_reproduces_the_answer_distribution_in_one_call_per_probe() {
    let model = Arc::new(KnownModel::new(0.7, 0.2));
    let config = CiberConfig { documents: 2, agree: 2, conflict: 2, ..CiberConfig::default() };
    let check = ciber(model.clone(), config).check(CLAIM).await.unwrap();
    let detail = check.ciber.as_ref().unwrap();
    assert_eq!(detail.documents.len(), 2);
    // Probes per document plus one RAG call per claim, not probes × K.
    assert_eq!(model.calls.load(Ordering::SeqCst), 2 * 4 + 1);
    let believed = Masses::new(0.7, 0.2, 0.1);
    for document in &detail.documents {
        assert_eq!(document.probes.len(), 4);
        for probe in &document.probes {
            assert_eq!(probe.mode, ProbeMode::Exact);
            assert!(probe.answers.is_empty());
            // A contradicting probe's "no" (0.7) supports the claim.
            assert!(close(&probe.shares, &believed, 1e-6), "{probe:?}");
        }
        assert!(close(&document.agree, &believed, 1e-6));
        assert!(close(&document.conflict, &believed, 1e-6));
        let wp = document.verdict(FusionRule::Wp).unwrap();
        assert_eq!(wp.stance, Stance::Support);
        assert!((wp.confidence - 0.7).abs() < 1e-6);
    }
    assert_eq!(check.verdict, Verdict::Supported);
    assert!(check.confidence.unwrap() > 0.5);
    assert_eq!(detail.strongest_support, Some(0));
    assert_eq!(detail.strongest_refute, None);
    assert_eq!(detail.rag.as_ref().unwrap().stance, Stance::Support);
    assert_eq!(check.sources.len(), 2);
    assert_eq!(check.attributions.len(), 1);
    assert!(check.envelope.tokens.of("probe").prompt == 800);
    assert!(check.envelope.tokens.of("rag").prompt == 100);
    assert!(
        check.envelope.explanation.contains("\"Okra\" supports the claim"),
        "{}",
        check.envelope.explanation
    );
}

#[tokio::test]
async fn sampling_mode_comes_close_to_the_distribution() {
    let model = Arc::new(KnownModel::new(0.2, 0.7));
    let config = CiberConfig {
        documents: 1,
        mode: ProbeMode::Sampling,
        samples: 400,
        rag: false,
        ..CiberConfig::default()
    };
    let check = ciber(model.clone(), config).check(CLAIM).await.unwrap();
    let detail = check.ciber.as_ref().unwrap();
    assert_eq!(model.calls.load(Ordering::SeqCst), 4, "one request of n answers per probe");
    let document = &detail.documents[0];
    let believed = Masses::new(0.2, 0.7, 0.1);
    for probe in &document.probes {
        assert_eq!(probe.mode, ProbeMode::Sampling);
        assert_eq!(probe.answers.len(), 400);
        assert!(close(&probe.shares, &believed, 0.07), "{:?}: {:?}", probe.set, probe.shares);
    }
    // The model disbelieves the claim: refuted.
    assert_eq!(check.verdict, Verdict::Refuted);
    assert_eq!(detail.strongest_refute, Some(0));
    assert!(detail.rag.is_none());
    // A contradicting probe's "Yes" is read as refuting the claim.
    let conflict = document.probes.iter().find(|p| p.set == ProbeSet::Conflict).unwrap();
    let yes = conflict.answers.iter().find(|a| a.text == "Yes").unwrap();
    assert_eq!(yes.stance, Stance::Refute);
}

#[tokio::test]
async fn a_server_without_probabilities_is_sampled_and_says_so() {
    let model = Arc::new(KnownModel { logprobs: false, ..KnownModel::new(0.9, 0.05) });
    let config = CiberConfig { documents: 1, samples: 50, rag: false, ..CiberConfig::default() };
    let check = ciber(model, config).check(CLAIM).await.unwrap();
    for probe in &check.ciber.as_ref().unwrap().documents[0].probes {
        assert_eq!(probe.mode, ProbeMode::Sampling, "{probe:?}");
    }
    assert_eq!(check.verdict, Verdict::Supported);

    // Answers the first-word count cannot read go through the parser: all hedges, neutral.
    let model = Arc::new(KnownModel {
        logprobs: false,
        prose: Some("It is unclear from the document."),
        ..KnownModel::new(0.9, 0.05)
    });
    let config = CiberConfig { documents: 1, samples: 5, rag: false, ..CiberConfig::default() };
    let check = ciber(model, config).check(CLAIM).await.unwrap();
    let document = &check.ciber.as_ref().unwrap().documents[0];
    for probe in &document.probes {
        assert_eq!(probe.mode, ProbeMode::Sampling);
        assert_eq!(probe.shares, Masses::only(Stance::Neutral));
        assert_eq!(probe.answers[0].text, "It is unclear from the document.");
    }
    assert_eq!(check.verdict, Verdict::NotEnoughInfo);
    assert_eq!(check.undecided, None);
}

#[tokio::test]
async fn a_claim_without_evidence_documents_is_not_enough_info_with_the_reason() {
    let model = Arc::new(KnownModel::new(0.7, 0.2));
    let check =
        ciber(model.clone(), CiberConfig::default()).check("Paris is in France.").await.unwrap();
    assert_eq!(check.verdict, Verdict::NotEnoughInfo);
    assert_eq!(check.undecided, Some(Undecided::NoEvidence));
    assert_eq!(check.confidence, None);
    assert_eq!(model.calls.load(Ordering::SeqCst), 0);
    assert!(check.inconsistency().is_none());
}

#[tokio::test]
async fn named_documents_replace_retrieval_and_empty_ones_are_left_out() {
    let model = Arc::new(KnownModel::new(0.7, 0.2));
    let mut method = ciber(model, CiberConfig { rag: false, ..CiberConfig::default() });
    method.documents = Documents::Named { documents: vec![DocumentId(2)], pages: Vec::new() };
    let check = method.check(CLAIM).await.unwrap();
    assert_eq!(check.sources.len(), 1);
    assert_eq!(check.sources[0].title.as_deref(), Some("Gumbo"));
    // An empty document is left out; with nothing else, there is no evidence.
    method.documents =
        Documents::Named { documents: vec![DocumentId(3), DocumentId(1)], pages: Vec::new() };
    let check = method.check(CLAIM).await.unwrap();
    assert_eq!(check.sources.len(), 1);
    assert_eq!(check.sources[0].title.as_deref(), Some("Okra"));
    method.documents = Documents::Named { documents: vec![DocumentId(3)], pages: Vec::new() };
    let check = method.check(CLAIM).await.unwrap();
    assert_eq!(check.undecided, Some(Undecided::NoEvidence));
    method.documents = Documents::Named { documents: vec![DocumentId(9)], pages: Vec::new() };
    let error = method.check(CLAIM).await.unwrap_err();
    assert!(error.to_string().contains("no document"), "{error}");
}

/// One page on okra; any other URL is not found.
struct OkraPage;

#[async_trait]
impl PageSource for OkraPage {
    async fn page(&self, url: &str) -> Result<Page, PageError> {
        if url != "https://example.org/okra" {
            return Err(PageError::of_url(factdesk_model::UrlStatus::NotFound, "no such page"));
        }
        Ok(Page {
            requested_url: url.into(),
            final_url: url.into(),
            title: Some("Okra page".into()),
            fetched_at: "2026-11-25T00:00:00Z".into(),
            content_hash: "abc".into(),
            text: "Okra is a flowering plant. It is in the mallow family.".into(),
        })
    }
}

#[tokio::test]
async fn named_web_pages_are_probed_and_a_missing_one_is_named() {
    let model = Arc::new(KnownModel::new(0.7, 0.2));
    let mut method = ciber(model, CiberConfig { rag: false, ..CiberConfig::default() });
    method.web = Some(Arc::new(OkraPage));
    method.documents =
        Documents::Named { documents: Vec::new(), pages: vec!["https://example.org/okra".into()] };
    let check = method.check(CLAIM).await.unwrap();
    assert_eq!(check.sources.len(), 1, "the named page replaces retrieval");
    let source = &check.sources[0];
    assert_eq!(source.url.as_deref(), Some("https://example.org/okra"));
    assert_eq!(source.content_hash.as_deref(), Some("abc"));
    assert_eq!(source.document_id, None);
    assert_eq!(check.ciber.as_ref().unwrap().documents[0].words, 11);
    method.documents =
        Documents::Named { documents: Vec::new(), pages: vec!["https://example.org/gone".into()] };
    let error = method.check(CLAIM).await.unwrap_err();
    assert!(error.to_string().contains("https://example.org/gone: no such page"), "{error}");
}

#[tokio::test]
async fn the_pages_llm_cite_read_replace_retrieval_and_none_is_not_enough_info() {
    let model = Arc::new(KnownModel::new(0.7, 0.2));
    let mut method = ciber(model.clone(), CiberConfig { rag: false, ..CiberConfig::default() });
    method.web = Some(Arc::new(OkraPage));
    method.documents = Documents::LlmCite { pages: vec!["https://example.org/okra".into()] };
    let check = method.check(CLAIM).await.unwrap();
    assert_eq!(check.sources.len(), 1, "LLM-Cite's page replaces retrieval");
    assert_eq!(check.sources[0].title.as_deref(), Some("Okra page"));
    assert_eq!(check.verdict, Verdict::Supported);
    // A claim LLM-Cite read no page for has no evidence, and the explanation says what to do;
    // nothing is retrieved from the corpus in its place and no model is asked.
    let calls = model.calls.load(Ordering::SeqCst);
    method.documents = Documents::LlmCite { pages: Vec::new() };
    let check = method.check(CLAIM).await.unwrap();
    assert_eq!(check.verdict, Verdict::NotEnoughInfo);
    assert_eq!(check.undecided, Some(Undecided::NoEvidence));
    assert!(check.sources.is_empty());
    assert!(check.envelope.explanation.contains("check it with LLM-Cite first"));
    assert_eq!(model.calls.load(Ordering::SeqCst), calls);
}
