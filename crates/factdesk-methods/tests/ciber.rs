//! CIBER against the testkit's scripted model with a known answer distribution: exact mode
//! must reproduce it, sampling must come close, and a server without probabilities must be
//! sampled and say so.

use std::sync::Arc;

use async_trait::async_trait;
use factdesk_llm::LanguageModel;
use factdesk_llm::openai::{OpenAiCompatible, OpenAiSettings};
use factdesk_methods::ciber::{Ciber, CiberConfig, Documents, ProbeSets};
use factdesk_methods::evidence::{
    CorpusDocument, CorpusRetriever, CorpusSentence, Page, PageError, PageSource,
};
use factdesk_methods::prompts::builtin_library;
use factdesk_model::ciber::{FusionRule, Masses, ProbeMode, ProbeSet, Stance};
use factdesk_model::{DocumentId, Undecided, Verdict};
use factdesk_testkit::TestServer;
use factdesk_testkit::scripted::{
    Asked, CIBER_PROBE_TEMPLATE, CIBER_RAG_TEMPLATE, ScriptedModel, negated_question,
};

/// The testkit's model believing the claim with probability `p_yes` to an agreeing probe (and
/// saying no with `p_no`, not sure with the rest); to a contradicting probe, yes and no swap.
/// It gives those probabilities as log-probabilities when asked, and draws from them otherwise.
fn known(p_yes: f64, p_no: f64) -> ScriptedModel {
    let distribution = move |asked: &Asked| {
        let negated = negated_question(&asked.question);
        let (yes, no) = if negated { (p_no, p_yes) } else { (p_yes, p_no) };
        vec![
            ("Yes".to_owned(), yes),
            ("No".to_owned(), no),
            ("Not sure".to_owned(), 1.0 - yes - no),
        ]
    };
    ScriptedModel::new()
        .on_distribution(CIBER_PROBE_TEMPLATE, distribution)
        .on_distribution(CIBER_RAG_TEMPLATE, distribution)
}

/// `model` on loopback, through a provider that offers no output constraint and does not
/// retry; the server counts the calls.
fn served(model: ScriptedModel) -> (TestServer, Arc<OpenAiCompatible>) {
    let server = model.serve();
    let mut settings = OpenAiSettings::new(&server.url("/v1"), "known");
    settings.max_retries = 0;
    settings.shaped_answers = false;
    (server, Arc::new(OpenAiCompatible::new(settings).unwrap()))
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
    let (server, model) = served(known(0.7, 0.2));
    let config = CiberConfig { documents: 2, agree: 2, conflict: 2, ..CiberConfig::default() };
    let check = ciber(model, config).check(CLAIM).await.unwrap();
    let detail = check.ciber().unwrap();
    assert_eq!(detail.documents.len(), 2);
    // Probes per document plus one RAG call per claim, not probes × K.
    assert_eq!(server.requests().len(), 2 * 4 + 1);
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
    // The testkit's server counts 20 prompt tokens a call.
    assert!(check.envelope.tokens.of("probe").prompt == 8 * 20);
    assert!(check.envelope.tokens.of("rag").prompt == 20);
    assert!(
        check.envelope.explanation.contains("\"Okra\" supports the claim"),
        "{}",
        check.envelope.explanation
    );
}

#[tokio::test]
async fn sampling_mode_comes_close_to_the_distribution() {
    let (server, model) = served(known(0.2, 0.7));
    let config = CiberConfig {
        documents: 1,
        mode: ProbeMode::Sampling,
        samples: 400,
        rag: false,
        ..CiberConfig::default()
    };
    let check = ciber(model, config).check(CLAIM).await.unwrap();
    let detail = check.ciber().unwrap();
    assert_eq!(server.requests().len(), 4, "one request of n answers per probe");
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
    let (_server, model) = served(known(0.9, 0.05).without_logprobs());
    let config = CiberConfig { documents: 1, samples: 50, rag: false, ..CiberConfig::default() };
    let check = ciber(model, config).check(CLAIM).await.unwrap();
    for probe in &check.ciber().unwrap().documents[0].probes {
        assert_eq!(probe.mode, ProbeMode::Sampling, "{probe:?}");
    }
    assert_eq!(check.verdict, Verdict::Supported);

    // Answers the first-word count cannot read go through the parser: all hedges, neutral.
    let (_server, model) = served(
        ScriptedModel::new()
            .on(CIBER_PROBE_TEMPLATE, |_| "It is unclear from the document.".to_owned())
            .without_logprobs(),
    );
    let config = CiberConfig { documents: 1, samples: 5, rag: false, ..CiberConfig::default() };
    let check = ciber(model, config).check(CLAIM).await.unwrap();
    let document = &check.ciber().unwrap().documents[0];
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
    let (server, model) = served(known(0.7, 0.2));
    let check = ciber(model, CiberConfig::default()).check("Paris is in France.").await.unwrap();
    assert_eq!(check.verdict, Verdict::NotEnoughInfo);
    assert_eq!(check.undecided, Some(Undecided::NoEvidence));
    assert_eq!(check.confidence, None);
    assert!(server.requests().is_empty());
    assert!(check.inconsistency().is_none());
}

#[tokio::test]
async fn named_documents_replace_retrieval_and_empty_ones_are_left_out() {
    let (_server, model) = served(known(0.7, 0.2));
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
    let (_server, model) = served(known(0.7, 0.2));
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
    assert_eq!(check.ciber().unwrap().documents[0].words, 11);
    method.documents =
        Documents::Named { documents: Vec::new(), pages: vec!["https://example.org/gone".into()] };
    let error = method.check(CLAIM).await.unwrap_err();
    assert!(error.to_string().contains("https://example.org/gone: no such page"), "{error}");
}

#[tokio::test]
async fn the_pages_llm_cite_read_replace_retrieval_and_none_is_not_enough_info() {
    let (server, model) = served(known(0.7, 0.2));
    let mut method = ciber(model, CiberConfig { rag: false, ..CiberConfig::default() });
    method.web = Some(Arc::new(OkraPage));
    method.documents = Documents::LlmCite { pages: vec!["https://example.org/okra".into()] };
    let check = method.check(CLAIM).await.unwrap();
    assert_eq!(check.sources.len(), 1, "LLM-Cite's page replaces retrieval");
    assert_eq!(check.sources[0].title.as_deref(), Some("Okra page"));
    assert_eq!(check.verdict, Verdict::Supported);
    // A claim LLM-Cite read no page for has no evidence, and the explanation says what to do;
    // nothing is retrieved from the corpus in its place and no model is asked.
    let calls = server.requests().len();
    method.documents = Documents::LlmCite { pages: Vec::new() };
    let check = method.check(CLAIM).await.unwrap();
    assert_eq!(check.verdict, Verdict::NotEnoughInfo);
    assert_eq!(check.undecided, Some(Undecided::NoEvidence));
    assert!(check.sources.is_empty());
    assert!(check.envelope.explanation.contains("check it with LLM-Cite first"));
    assert_eq!(server.requests().len(), calls);
}
