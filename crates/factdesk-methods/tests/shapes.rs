//! Shaped answers against a loopback OpenAI-compatible server: LLM-Cite asks for its URLs as a
//! JSON list where the server may take a schema, and reads them whether the server answered in
//! shape, refused the schema (asked again without it) or ignored it.

use std::sync::Arc;

use async_trait::async_trait;
use factdesk_llm::openai::{OpenAiCompatible, OpenAiSettings};
use factdesk_llm::{ConstraintKind, LanguageModel, LlmError, Nli, NliJudgement, NliPair};
use factdesk_methods::evidence::{Page, PageError, PageSource};
use factdesk_methods::llm_cite::{LlmCite, LlmCiteConfig, UrlStrategy};
use factdesk_methods::prompts::builtin_library;
use factdesk_model::UrlStatus;
use factdesk_testkit::TestServer;
use factdesk_testkit::scripted::{ConstraintMode, ScriptedModel, URL_TEMPLATES};

struct NoNli;

#[async_trait]
impl Nli for NoNli {
    fn name(&self) -> String {
        "none".into()
    }
    async fn classify(&self, _: &[NliPair]) -> Result<Vec<NliJudgement>, LlmError> {
        Err(LlmError::Backend("not asked in these tests".into()))
    }
}

struct NoPages;

#[async_trait]
impl PageSource for NoPages {
    async fn page(&self, url: &str) -> Result<Page, PageError> {
        Err(PageError::of_url(UrlStatus::NotFound, format!("{url}: not served")))
    }
}

const OKRA: &str = "https://en.wikipedia.org/wiki/Okra";
const MALLOW: &str = "https://en.wikipedia.org/wiki/Malvaceae";

/// A server answering both URL templates in free text, or as a JSON list when it takes a
/// schema, meeting constraints as `mode` says.
fn server(mode: ConstraintMode) -> TestServer {
    let model = ScriptedModel::new().on_urls(|_| format!("1. {OKRA}\n2. {MALLOW}"));
    URL_TEMPLATES
        .iter()
        .fold(model, |model, template| {
            model.on_shaped(template, |_| format!(r#"{{"urls": ["{OKRA}", "{MALLOW}"]}}"#))
        })
        .constraints(mode)
        .serve()
}

fn cite(server: &TestServer, strategy: UrlStrategy) -> (LlmCite, Arc<OpenAiCompatible>) {
    let mut settings = OpenAiSettings::new(&server.url("/v1"), "small-model");
    settings.max_retries = 0;
    let model = Arc::new(OpenAiCompatible::new(settings).unwrap());
    let method = LlmCite {
        model: model.clone(),
        nli: Arc::new(NoNli),
        prompts: Arc::new(builtin_library().unwrap()),
        pages: Arc::new(NoPages),
        config: LlmCiteConfig { strategy, m: 3, r: 2, ..LlmCiteConfig::default() },
    };
    (method, model)
}

fn schema_sent(request: &factdesk_testkit::RecordedRequest) -> Option<serde_json::Value> {
    let body: serde_json::Value = serde_json::from_slice(&request.body).unwrap();
    body.get("response_format").map(|format| {
        format.get("json_schema").map_or(&format["schema"], |named| &named["schema"]).clone()
    })
}

#[tokio::test]
async fn urls_are_asked_for_in_shape_and_read_in_every_case() {
    for strategy in [UrlStrategy::Diverse, UrlStrategy::Controlled, UrlStrategy::Rs] {
        let want: &[&str] =
            if strategy == UrlStrategy::Controlled { &[OKRA] } else { &[OKRA, MALLOW] };

        // Accepted: the JSON list is read.
        let accepting = server(ConstraintMode::JsonSchema);
        let (method, _) = cite(&accepting, strategy);
        let generated = method.generate_urls("Okra is a plant.").await.unwrap();
        let urls: Vec<&str> = generated.urls.iter().map(|(url, _)| url.as_str()).collect();
        assert_eq!(urls, want, "{strategy:?} accepted");
        let schema = schema_sent(&accepting.requests()[0]).expect("a schema is sent");
        let max = if strategy == UrlStrategy::Controlled { 1 } else { 3 };
        assert_eq!(schema["properties"]["urls"]["maxItems"], max, "{strategy:?}");

        // Refused (in OpenAI's form and in llama-cpp-python's): asked again without the
        // schema, read as free text; the next claim's request goes without it.
        let strict = server(ConstraintMode::Strict);
        let (method, model) = cite(&strict, strategy);
        let generated = method.generate_urls("Okra is a plant.").await.unwrap();
        let urls: Vec<&str> = generated.urls.iter().map(|(url, _)| url.as_str()).collect();
        assert_eq!(urls, want, "{strategy:?} refused");
        assert!(!model.may_accept(ConstraintKind::JsonSchema));
        method.generate_urls("Okra is green.").await.unwrap();
        let sent: Vec<bool> = strict.requests().iter().map(|r| schema_sent(r).is_some()).collect();
        assert_eq!(sent, [true, true, false, false], "{strategy:?}");

        // Ignored: the server answers free text to a schema; it is read as such.
        let lenient = server(ConstraintMode::Ignore);
        let (method, _) = cite(&lenient, strategy);
        let generated = method.generate_urls("Okra is a plant.").await.unwrap();
        let urls: Vec<&str> = generated.urls.iter().map(|(url, _)| url.as_str()).collect();
        assert_eq!(urls, want, "{strategy:?} ignored");
        assert!(schema_sent(&lenient.requests()[0]).is_some());
    }
}
