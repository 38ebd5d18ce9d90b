//! Shaped answers against a loopback OpenAI-compatible server: LLM-Cite asks for its URLs by
//! its GBNF grammar (llama.cpp's `grammar`) and, where the server refuses or ignores that, as
//! a JSON list by a schema; it reads them whether the server answered in shape, refused the
//! constraint (asked again without it) or ignored it.

use std::sync::Arc;

use async_trait::async_trait;
use factdesk_llm::openai::{OpenAiCompatible, OpenAiSettings, Support};
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

/// A server answering both URL templates in free text, as a JSON list when it takes a schema,
/// or as URL lines when it takes a grammar, meeting constraints as `mode` says.
fn server(mode: ConstraintMode) -> TestServer {
    let model = ScriptedModel::new().on_urls(|_| format!("1. {OKRA}\n2. {MALLOW}"));
    URL_TEMPLATES
        .iter()
        .fold(model, |model, template| {
            model
                .on_shaped(template, |_| format!(r#"{{"urls": ["{OKRA}", "{MALLOW}"]}}"#))
                .on_grammar(template, |_| format!("{OKRA}\n{MALLOW}"))
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

/// What each request to `server` carried: `grammar`, `schema` or `none`.
fn constraints_sent(server: &TestServer) -> Vec<&'static str> {
    server
        .requests()
        .iter()
        .map(|request| {
            let body: serde_json::Value = serde_json::from_slice(&request.body).unwrap();
            match (body.get("grammar"), body.get("response_format")) {
                (Some(_), _) => "grammar",
                (None, Some(_)) => "schema",
                (None, None) => "none",
            }
        })
        .collect()
}

#[tokio::test]
async fn urls_are_asked_for_in_shape_and_read_in_every_case() {
    for strategy in [UrlStrategy::Diverse, UrlStrategy::Controlled, UrlStrategy::Rs] {
        let want: &[&str] =
            if strategy == UrlStrategy::Controlled { &[OKRA] } else { &[OKRA, MALLOW] };
        let urls_of = |generated: &factdesk_methods::llm_cite::GeneratedUrls| -> Vec<String> {
            generated.urls.iter().map(|(url, _)| url.clone()).collect()
        };

        // llama.cpp's server: the grammar is taken, the URL lines are read, and the claims
        // after the first ask by it at once.
        let llama = server(ConstraintMode::Grammar);
        let (method, model) = cite(&llama, strategy);
        let generated = method.generate_urls("Okra is a plant.").await.unwrap();
        assert_eq!(urls_of(&generated), want, "{strategy:?} grammar");
        method.generate_urls("Okra is green.").await.unwrap();
        assert_eq!(constraints_sent(&llama), ["grammar", "grammar"], "{strategy:?}");
        let body: serde_json::Value = serde_json::from_slice(&llama.requests()[0].body).unwrap();
        assert!(body["grammar"].as_str().unwrap().contains(".wikipedia.org/wiki/"));
        assert_eq!(model.support().grammar, Support::Accepted);

        // A JSON Schema server refuses the grammar: that answer (asked without it) is set
        // aside, the URLs are asked for again with the schema, and the next claim asks with
        // the schema at once.
        let accepting = server(ConstraintMode::JsonSchema);
        let (method, model) = cite(&accepting, strategy);
        let generated = method.generate_urls("Okra is a plant.").await.unwrap();
        assert_eq!(urls_of(&generated), want, "{strategy:?} schema");
        method.generate_urls("Okra is green.").await.unwrap();
        assert_eq!(constraints_sent(&accepting), ["grammar", "none", "schema", "schema"]);
        let schema = schema_sent(&accepting.requests()[2]).expect("a schema is sent");
        let max = if strategy == UrlStrategy::Controlled { 1 } else { 3 };
        assert_eq!(schema["properties"]["urls"]["maxItems"], max, "{strategy:?}");
        let support = model.support();
        assert_eq!((support.grammar, support.json_schema), (Support::Refused, Support::Accepted));

        // Refused both (the schema in OpenAI's form and in llama-cpp-python's): read as free
        // text; the next claim's request goes without either.
        let strict = server(ConstraintMode::Strict);
        let (method, model) = cite(&strict, strategy);
        let generated = method.generate_urls("Okra is a plant.").await.unwrap();
        assert_eq!(urls_of(&generated), want, "{strategy:?} refused");
        assert!(!model.may_accept(ConstraintKind::JsonSchema));
        assert!(!model.may_accept(ConstraintKind::Grammar));
        method.generate_urls("Okra is green.").await.unwrap();
        assert_eq!(
            constraints_sent(&strict),
            ["grammar", "none", "schema", "schema", "none", "none"],
            "{strategy:?}"
        );

        // Ignored: the server answers free text to the grammar, which is then not chosen
        // again; the schema is ignored too, and the free text read.
        let lenient = server(ConstraintMode::Ignore);
        let (method, model) = cite(&lenient, strategy);
        let generated = method.generate_urls("Okra is a plant.").await.unwrap();
        assert_eq!(urls_of(&generated), want, "{strategy:?} ignored");
        method.generate_urls("Okra is green.").await.unwrap();
        assert_eq!(constraints_sent(&lenient), ["grammar", "schema", "schema"], "{strategy:?}");
        assert_eq!(model.support().grammar, Support::Ignored);
    }
}
