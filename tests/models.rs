//! Chat models through the core API: a scripted OpenAI-compatible server on loopback, every
//! call recorded with its run, identical requests replayed from the record.

use factdesk_core::Settings;
use factdesk_core::models::{AskOptions, ModelChoice};
use factdesk_testkit::{TestResponse, TestServer};
use factdesk_tests::Harness;

const ANSWER: &str = r#"{"model": "served", "choices": [{"index": 0, "message": {"role": "assistant",
  "content": "Paris."}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 9, "completion_tokens": 2}}"#;

fn harness_for(server: &TestServer, cache: &str) -> Harness {
    let mut settings = Settings::default();
    settings.llm.base_url = server.url("/v1");
    settings.llm.model = "test-model".into();
    settings.llm.cache = cache.into();
    Harness::with_settings(settings)
}

fn block_on<T>(future: impl std::future::Future<Output = T>) -> T {
    tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap().block_on(future)
}

#[test]
fn a_configured_server_is_selected_over_the_embedded_model() {
    let server = TestServer::with_routes(vec![]);
    let harness = harness_for(&server, "read-write");
    assert_eq!(
        harness.app.model_choice(),
        ModelChoice::OpenaiCompatible {
            base_url: server.url("/v1"),
            model: "test-model".into(),
            has_api_key: false
        }
    );
    let plain = Harness::new();
    assert!(matches!(plain.app.model_choice(), ModelChoice::Embedded { .. }));
}

#[test]
fn asking_twice_calls_the_model_once_and_replays_the_record() {
    let server =
        TestServer::with_routes(vec![("/v1/chat/completions", TestResponse::json(200, ANSWER))]);
    let harness = harness_for(&server, "read-write");
    let options = || AskOptions { seed: Some(3), max_tokens: Some(5), ..AskOptions::default() };
    let first = block_on(harness.app.ask("Capital of France?", options())).unwrap();
    assert_eq!(first.text, "Paris.");
    assert!(!first.replayed);
    assert_eq!((first.prompt_tokens, first.completion_tokens), (9, 2));
    let audit_id = first.audit_id.expect("the call is recorded");

    let second = block_on(harness.app.ask("Capital of France?", options())).unwrap();
    assert!(second.replayed);
    assert_eq!(second.text, "Paris.");
    assert_eq!(second.audit_id, Some(audit_id));
    assert_eq!(server.requests().len(), 1, "the second ask made no model call");

    // A different seed is a different request.
    block_on(harness.app.ask("Capital of France?", AskOptions { seed: Some(4), ..options() }))
        .unwrap();
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn replay_only_never_calls_and_failures_are_not_recorded() {
    let server =
        TestServer::with_routes(vec![("/v1/chat/completions", TestResponse::text(500, "down"))]);
    let mut settings = Settings::default();
    settings.llm.base_url = server.url("/v1");
    settings.llm.model = "m".into();
    settings.llm.max_retries = 0;
    let harness = Harness::with_settings(settings.clone());
    let error = block_on(harness.app.ask("Anything?", AskOptions::default())).unwrap_err();
    assert_eq!(error.code(), "model");

    settings.llm.cache = "replay-only".into();
    let replaying =
        factdesk_core::Factdesk::open_with_settings(harness.dir.path(), settings).unwrap();
    let error = block_on(replaying.ask("Anything?", AskOptions::default())).unwrap_err();
    assert!(error.to_string().contains("replay-only"), "{error}");
    assert_eq!(
        server.requests().len(),
        1,
        "replay-only made no call; the failed call was not recorded"
    );
}

#[test]
fn unknown_cache_modes_and_providers_are_config_errors() {
    let error = Settings::from_overrides("[llm]\ncache = \"sometimes\"\n", "c.toml").unwrap_err();
    assert!(error.to_string().contains("llm.cache"), "{error}");
    let error = Settings::from_overrides("[llm]\nprovider = \"magic\"\n", "c.toml").unwrap_err();
    assert!(error.to_string().contains("llm.provider"), "{error}");
}

#[test]
fn models_check_asks_a_server_once_for_a_json_schema_and_shows_what_it_took() {
    use factdesk_core::models::Support;
    let server =
        TestServer::with_routes(vec![("/v1/chat/completions", TestResponse::json(200, ANSWER))]);
    let harness = harness_for(&server, "off");
    let selected = harness.app.constraint_support();
    assert_eq!(selected[0].base_url, server.url("/v1"));
    assert_eq!(
        (selected[0].json_schema, selected[0].grammar),
        (Support::NotTried, Support::NotTried)
    );

    let check = block_on(harness.app.check_model()).unwrap();
    assert_eq!(check.answer, "Paris.");
    let constraints = check.constraints.expect("a server with shaped answers on is probed");
    assert_eq!(
        (constraints.json_schema, constraints.grammar),
        (Support::Accepted, Support::NotTried)
    );
    let sent: Vec<serde_json::Value> =
        server.requests().iter().map(|r| serde_json::from_slice(&r.body).unwrap()).collect();
    assert_eq!(sent.len(), 2, "the one-word answer, then one with a schema");
    assert!(sent[0].get("response_format").is_none());
    assert_eq!(sent[1]["response_format"]["json_schema"]["schema"]["required"][0], "answer");
    assert_eq!(harness.app.constraint_support()[0], constraints);
    // Probed once: the next check asks for the word alone.
    block_on(harness.app.check_model()).unwrap();
    assert_eq!(server.requests().len(), 3);

    // Shaped answers off: no probe, nothing to show.
    let server =
        TestServer::with_routes(vec![("/v1/chat/completions", TestResponse::json(200, ANSWER))]);
    let mut settings = Settings::default();
    settings.llm.base_url = server.url("/v1");
    settings.llm.model = "test-model".into();
    settings.llm.shaped_answers = false;
    let check = block_on(Harness::with_settings(settings).app.check_model()).unwrap();
    assert_eq!(check.constraints, None);
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn an_ollama_model_not_pulled_is_named_with_the_command_to_pull_it() {
    let server = TestServer::with_routes(vec![(
        "/v1/chat/completions",
        TestResponse::json(
            404,
            r#"{"error":{"message":"model \"llama3.2:3b\" not found, try pulling it first","type":"api_error","param":null,"code":null}}"#,
        ),
    )]);
    let mut settings = Settings::default();
    settings.llm.base_url = server.url("/v1");
    settings.llm.model = "llama3.2:3b".into();
    let error = block_on(Harness::with_settings(settings).app.check_model()).unwrap_err();
    assert!(error.to_string().contains("run `ollama pull llama3.2:3b`"), "{error}");
}
