//! The OpenAI-compatible provider against a loopback server that plays each fault.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use factdesk_llm::openai::{OpenAiCompatible, OpenAiSettings, Support};
use factdesk_llm::{
    ChatMessage, CompletionRequest, ConstraintKind, ConstraintOutcome, FinishReason, LanguageModel,
    LlmError, OutputConstraint,
};
use factdesk_testkit::{TestResponse, TestServer};

const GOOD: &str = r#"{
  "id": "x", "object": "chat.completion", "model": "served-model",
  "choices": [
    {"index": 0, "message": {"role": "assistant", "content": "Yes"}, "finish_reason": "stop",
     "logprobs": {"content": [{"token": "Yes", "logprob": -0.1,
        "top_logprobs": [{"token": "Yes", "logprob": -0.1}, {"token": "No", "logprob": -2.4}]}]}}
  ],
  "usage": {"prompt_tokens": 12, "completion_tokens": 1, "total_tokens": 13}
}"#;

fn provider(server: &TestServer, tweak: impl FnOnce(&mut OpenAiSettings)) -> OpenAiCompatible {
    let mut settings = OpenAiSettings::new(&server.url("/v1"), "test-model");
    settings.initial_backoff = Duration::from_millis(10);
    settings.max_retries = 2;
    settings.request_timeout = Duration::from_secs(2);
    tweak(&mut settings);
    OpenAiCompatible::new(settings).unwrap()
}

fn request() -> CompletionRequest {
    let mut request = CompletionRequest::new(vec![
        ChatMessage::system("Be brief."),
        ChatMessage::user("Is water wet?"),
    ]);
    request.params.seed = Some(7);
    request.params.logprobs = true;
    request.params.top_logprobs = Some(5);
    request
}

#[tokio::test]
async fn a_completion_with_usage_and_logprobs() {
    let server =
        TestServer::with_routes(vec![("/v1/chat/completions", TestResponse::json(200, GOOD))]);
    let model = provider(&server, |s| s.api_key = Some("secret".into()));
    let completion = model.complete(&request()).await.unwrap();
    assert_eq!(completion.text(), "Yes");
    assert_eq!(completion.model, "served-model");
    assert_eq!((completion.usage.prompt_tokens, completion.usage.completion_tokens), (12, 1));
    assert_eq!(completion.choices[0].finish_reason, FinishReason::Stop);
    let logprobs = completion.choices[0].logprobs.as_ref().unwrap();
    assert_eq!(logprobs[0].top.len(), 2);

    let sent = &server.requests()[0];
    assert_eq!(sent.header("authorization"), Some("Bearer secret"));
    let body: serde_json::Value = serde_json::from_slice(&sent.body).unwrap();
    assert_eq!(body["model"], "test-model");
    assert_eq!(body["seed"], 7);
    assert_eq!(body["top_logprobs"], 5);
    assert_eq!(body["messages"][1]["content"], "Is water wet?");
    assert_eq!(body["messages"][0]["role"], "system");
    // No template, no template header; a template's request names it.
    assert_eq!(sent.header(factdesk_llm::openai::TEMPLATE_HEADER), None);
    let mut templated = request();
    templated.template =
        Some(factdesk_llm::TemplateRef { id: "nli/true_false".into(), version: 1 });
    model.complete(&templated).await.unwrap();
    let sent = server.requests().pop().unwrap();
    assert_eq!(sent.header(factdesk_llm::openai::TEMPLATE_HEADER), Some("nli/true_false@1"));
    // The testkit's scripted model reads the same header.
    assert_eq!(factdesk_llm::openai::TEMPLATE_HEADER, factdesk_testkit::scripted::TEMPLATE_HEADER);

    let probabilities = model.answer_probabilities(&request(), &["yes", "no"], 5).await.unwrap();
    assert_eq!(probabilities.method, "logprobs");
    let expected_yes = (-0.1f64).exp() / ((-0.1f64).exp() + (-2.4f64).exp());
    assert!((probabilities.get("yes") - expected_yes).abs() < 1e-6);
}

#[tokio::test]
async fn server_errors_and_rate_limits_are_retried_then_reported() {
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = calls.clone();
    let server = TestServer::start(move |_| match counter.fetch_add(1, Ordering::SeqCst) {
        0 => TestResponse::text(500, "oops"),
        1 => TestResponse::text(429, "slow down").with_header("Retry-After", "0"),
        _ => TestResponse::json(200, GOOD),
    });
    assert_eq!(provider(&server, |_| {}).complete(&request()).await.unwrap().text(), "Yes");
    assert_eq!(calls.load(Ordering::SeqCst), 3);

    let always_busy =
        TestServer::with_routes(vec![("/v1/chat/completions", TestResponse::text(503, "busy"))]);
    let error = provider(&always_busy, |_| {}).complete(&request()).await.unwrap_err();
    assert_eq!(
        error,
        LlmError::Overloaded { endpoint: always_busy.url("/v1"), status: 503, attempts: 3 }
    );
    assert_eq!(always_busy.requests().len(), 3, "retries are bounded");
}

#[tokio::test]
async fn bad_keys_and_unknown_models_fail_at_once() {
    let server = TestServer::with_routes(vec![(
        "/v1/chat/completions",
        TestResponse::json(401, r#"{"error":"bad key"}"#),
    )]);
    let error = provider(&server, |_| {}).complete(&request()).await.unwrap_err();
    assert!(matches!(error, LlmError::Unauthorized { status: 401, .. }), "{error:?}");
    assert!(error.to_string().contains("FACTDESK_LLM_API_KEY"));
    assert_eq!(server.requests().len(), 1);

    let server = TestServer::with_routes(vec![(
        "/v1/chat/completions",
        TestResponse::json(
            404,
            r#"{"error":{"message":"model 'test-model' not found","code":"model_not_found"}}"#,
        ),
    )]);
    let error = provider(&server, |_| {}).complete(&request()).await.unwrap_err();
    assert!(
        matches!(error, LlmError::ModelNotFound { ref model, .. } if model == "test-model"),
        "{error:?}"
    );

    let server = TestServer::with_routes(vec![]);
    let error = provider(&server, |_| {}).complete(&request()).await.unwrap_err();
    assert!(matches!(error, LlmError::Server { status: 404, .. }), "{error:?}");
}

/// A server answering as Ollama's OpenAI-compatible API does: the models it has pulled, named
/// with their tags, answer; any other is a 404 asking for it to be pulled.
fn ollama_server() -> TestServer {
    TestServer::start(|request| {
        let body = sent_body(request);
        let model = body["model"].as_str().unwrap_or_default().to_owned();
        if model != "llama3.2:3b" {
            let message = format!("model \"{model}\" not found, try pulling it first");
            let error = serde_json::json!({"error": {"message": message, "type": "api_error",
                "param": null, "code": null}});
            return TestResponse::json(404, &error.to_string());
        }
        TestResponse::json(200, &GOOD.replace("served-model", "llama3.2:3b"))
    })
}

#[tokio::test]
async fn ollama_model_names_with_tags_answer_and_a_model_not_pulled_says_to_pull_it() {
    let server = ollama_server();
    let tagged = |model: &str| {
        let mut settings = OpenAiSettings::new(&server.url("/v1"), model);
        settings.max_retries = 0;
        OpenAiCompatible::new(settings).unwrap()
    };
    let completion = tagged("llama3.2:3b").complete(&request()).await.unwrap();
    assert_eq!(completion.model, "llama3.2:3b");
    assert_eq!(sent_body(&server.requests()[0])["model"], "llama3.2:3b");

    let error = tagged("qwen2.5:7b").complete(&request()).await.unwrap_err();
    assert_eq!(
        error,
        LlmError::ModelNotPulled { endpoint: server.url("/v1"), model: "qwen2.5:7b".into() }
    );
    assert!(error.to_string().contains("run `ollama pull qwen2.5:7b`"), "{error}");
    assert_eq!(server.requests().len(), 2, "not retried");
}

#[tokio::test]
async fn unreadable_answers_are_typed_errors() {
    for (body, expect_empty) in [
        ("this is not json", false),
        (&GOOD[..GOOD.len() / 2], false),
        (r#"{"choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 0}}"#, true),
    ] {
        let server =
            TestServer::with_routes(vec![("/v1/chat/completions", TestResponse::json(200, body))]);
        let error = provider(&server, |_| {}).complete(&request()).await.unwrap_err();
        if expect_empty {
            assert!(matches!(error, LlmError::EmptyChoices { .. }), "{error:?}");
        } else {
            assert!(matches!(error, LlmError::InvalidResponse { .. }), "{body}: {error:?}");
        }
    }
}

#[tokio::test]
async fn a_server_that_is_down_or_slow() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut settings = OpenAiSettings::new(&format!("http://127.0.0.1:{port}/v1"), "m");
    settings.initial_backoff = Duration::from_millis(5);
    settings.max_retries = 1;
    let error = OpenAiCompatible::new(settings).unwrap().complete(&request()).await.unwrap_err();
    assert!(matches!(error, LlmError::Unreachable { .. }), "{error:?}");
    assert!(error.to_string().contains("is it running"));

    let server = TestServer::with_routes(vec![(
        "/v1/chat/completions",
        TestResponse::json(200, GOOD).with_delay(Duration::from_secs(3)),
    )]);
    let model = provider(&server, |s| {
        s.request_timeout = Duration::from_millis(300);
        s.max_retries = 1;
    });
    let error = model.complete(&request()).await.unwrap_err();
    assert!(matches!(error, LlmError::Timeout { .. }), "{error:?}");
    assert_eq!(server.requests().len(), 2);

    // However many retries are allowed, one call ends at its deadline.
    let server = TestServer::with_routes(vec![(
        "/v1/chat/completions",
        TestResponse::json(200, GOOD).with_delay(Duration::from_secs(3)),
    )]);
    let model = provider(&server, |s| {
        s.request_timeout = Duration::from_millis(300);
        s.max_retries = 50;
        s.call_deadline = Duration::from_secs(1);
    });
    let started = Instant::now();
    let error = model.complete(&request()).await.unwrap_err();
    assert!(matches!(error, LlmError::DeadlineExceeded { seconds: 1, .. }), "{error:?}");
    assert!(error.to_string().contains("llm.call_deadline_secs"), "{error}");
    assert!(started.elapsed() < Duration::from_secs(10), "50 retries were not all waited for");
    assert!(server.requests().len() < 50);
}

#[tokio::test]
async fn concurrency_is_bounded() {
    let server = TestServer::with_routes(vec![(
        "/v1/chat/completions",
        TestResponse::json(200, GOOD).with_delay(Duration::from_millis(200)),
    )]);
    let model = Arc::new(provider(&server, |s| s.max_concurrency = 2));
    let started = Instant::now();
    let tasks: Vec<_> = (0..6)
        .map(|_| {
            let model = model.clone();
            tokio::spawn(async move { model.complete(&request()).await })
        })
        .collect();
    for task in tasks {
        task.await.unwrap().unwrap();
    }
    // Six 200 ms answers, two at a time, cannot take less than three rounds.
    assert!(started.elapsed() >= Duration::from_millis(590), "{:?}", started.elapsed());
}

#[tokio::test]
async fn lists_the_served_models() {
    let server = TestServer::with_routes(vec![(
        "/v1/models",
        TestResponse::json(200, r#"{"object":"list","data":[{"id":"llama3"},{"id":"qwen2"}]}"#),
    )]);
    assert_eq!(provider(&server, |_| {}).list_models().await.unwrap(), ["llama3", "qwen2"]);
}

fn shaped() -> CompletionRequest {
    let mut request = CompletionRequest::new(vec![ChatMessage::user("List the searches.")]);
    request.params.stop = vec!["\n\n".into(), "\nContext:".into()];
    request.constraint = Some(OutputConstraint::JsonSchema(serde_json::json!({
        "type": "object",
        "properties": {"searches": {"type": "array", "items": {"type": "string"}}},
        "required": ["searches"],
    })));
    request
}

fn sent_body(request: &factdesk_testkit::RecordedRequest) -> serde_json::Value {
    serde_json::from_slice(&request.body).unwrap()
}

/// A server that refuses `response_format` as strict servers refuse a field they do not know.
fn refusing_server() -> TestServer {
    TestServer::start(|request| {
        if sent_body(request).get("response_format").is_some() {
            return TestResponse::json(
                400,
                r#"{"error": {"message": "Unrecognized request argument supplied: response_format",
                    "type": "invalid_request_error", "param": "response_format"}}"#,
            );
        }
        TestResponse::json(200, GOOD)
    })
}

#[tokio::test]
async fn a_refused_constraint_is_retried_without_it_and_not_sent_again() {
    let server = refusing_server();
    let model = provider(&server, |_| {});
    assert!(model.may_accept(ConstraintKind::JsonSchema));
    assert!(model.may_accept(ConstraintKind::Grammar), "not tried yet");
    assert_eq!(model.support().json_schema, Support::NotTried);

    let completion = model.complete(&shaped()).await.unwrap();
    assert_eq!(completion.text(), "Yes");
    assert_eq!(completion.constraint, Some(ConstraintOutcome::Refused));
    let sent = server.requests();
    assert_eq!(
        sent.len(),
        3,
        "the refused request, the schema in llama-cpp-python's form, then none"
    );
    let (first, second, third) = (sent_body(&sent[0]), sent_body(&sent[1]), sent_body(&sent[2]));
    assert_eq!(first["response_format"]["type"], "json_schema");
    assert_eq!(first["response_format"]["json_schema"]["schema"]["required"][0], "searches");
    assert_eq!(second["response_format"]["type"], "json_object");
    assert_eq!(second["response_format"]["schema"]["required"][0], "searches");
    // With a schema, a stop of whitespace alone would cut the JSON at its first line break.
    assert_eq!(first["stop"], serde_json::json!(["\nContext:"]));
    assert!(third.get("response_format").is_none());
    assert_eq!(third["stop"], serde_json::json!(["\n\n", "\nContext:"]));
    assert_eq!(first["messages"], third["messages"]);

    // The refusal is remembered: the next request goes without the constraint, once.
    assert!(!model.may_accept(ConstraintKind::JsonSchema));
    assert!(model.refuses(ConstraintKind::JsonSchema));
    let again = model.complete(&shaped()).await.unwrap();
    assert_eq!(again.constraint, Some(ConstraintOutcome::Withheld));
    assert_eq!(server.requests().len(), 4);
    assert!(sent_body(&server.requests()[3]).get("response_format").is_none());
    // A request without a constraint notes none.
    assert_eq!(model.complete(&request()).await.unwrap().constraint, None);
    // Clones share what the server refused, and the settings read it.
    assert!(model.clone().refuses(ConstraintKind::JsonSchema));
    let support = factdesk_llm::openai::support(&server.url("/v1/"), "test-model");
    assert_eq!((support.json_schema, support.grammar), (Support::Refused, Support::NotTried));
    assert!(factdesk_llm::openai::known_support().contains(&support));
}

fn with_grammar() -> CompletionRequest {
    let mut request = CompletionRequest::new(vec![ChatMessage::user("Name a page.")]);
    request.constraint = Some(OutputConstraint::Grammar("root ::= \"Yes\"".into()));
    request
}

#[tokio::test]
async fn a_grammar_goes_as_llama_cpps_field_and_a_strict_server_refusing_it_is_remembered() {
    // llama.cpp's server takes `grammar`.
    let server =
        TestServer::with_routes(vec![("/v1/chat/completions", TestResponse::json(200, GOOD))]);
    let model = provider(&server, |_| {});
    let completion = model.complete(&with_grammar()).await.unwrap();
    assert_eq!(completion.constraint, Some(ConstraintOutcome::Accepted));
    let body = sent_body(&server.requests()[0]);
    assert_eq!(body["grammar"], "root ::= \"Yes\"");
    assert!(body.get("response_format").is_none());
    assert_eq!(model.support().grammar, Support::Accepted);
    assert!(model.may_accept(ConstraintKind::Grammar));

    // A strict server refuses the unknown field: the request goes again without it, the
    // refusal is kept for grammars only, and the next grammar is withheld.
    let server = TestServer::start(|request| {
        if sent_body(request).get("grammar").is_some() {
            return factdesk_testkit::scripted::refusal("grammar");
        }
        TestResponse::json(200, GOOD)
    });
    let model = provider(&server, |_| {});
    let completion = model.complete(&with_grammar()).await.unwrap();
    assert_eq!(completion.constraint, Some(ConstraintOutcome::Refused));
    assert_eq!(server.requests().len(), 2, "the grammar, then none (no other form of it)");
    assert!(sent_body(&server.requests()[1]).get("grammar").is_none());
    assert!(!model.may_accept(ConstraintKind::Grammar));
    assert!(model.may_accept(ConstraintKind::JsonSchema), "a schema is still offered");
    let support = model.support();
    assert_eq!((support.grammar, support.json_schema), (Support::Refused, Support::NotTried));
    let again = model.complete(&with_grammar()).await.unwrap();
    assert_eq!(again.constraint, Some(ConstraintOutcome::Withheld));
    assert_eq!(server.requests().len(), 3);
    // The caller then chooses the schema.
    let chosen = OutputConstraint::for_model(
        &model,
        serde_json::json!({"type": "object"}),
        Some("root ::= \"x\"".into()),
    );
    assert!(matches!(chosen, Some(OutputConstraint::JsonSchema(_))), "{chosen:?}");
}

#[tokio::test]
async fn a_grammar_taken_but_not_applied_is_not_offered_again() {
    let server =
        TestServer::with_routes(vec![("/v1/chat/completions", TestResponse::json(200, GOOD))]);
    let model = provider(&server, |_| {});
    model.complete(&with_grammar()).await.unwrap();
    assert!(model.may_accept(ConstraintKind::Grammar));
    // The caller found the answer outside the grammar (a lenient server ignored the field).
    model.constraint_ignored(ConstraintKind::Grammar);
    assert!(!model.may_accept(ConstraintKind::Grammar));
    assert!(model.may_accept(ConstraintKind::JsonSchema));
    // A later answer taken without objection does not undo it.
    model.complete(&with_grammar()).await.unwrap();
    assert_eq!(model.support().grammar, Support::Ignored);
    // For every provider of the same server and model.
    assert!(!provider(&server, |_| {}).may_accept(ConstraintKind::Grammar));
}

/// A server that takes a schema only in llama-cpp-python's form, and answers OpenAI's with a
/// validation error reported as its own failure (500), as llama-cpp-python's server 0.3.36 does.
fn json_object_server() -> TestServer {
    TestServer::start(|request| match sent_body(request)["response_format"]["type"].as_str() {
        Some("json_schema") => TestResponse::json(
            500,
            r#"{"error": {"message": "1 validation error:\n  {'type': 'literal_error', 'loc':
                ('body', 'response_format', 'type'), 'msg': \"Input should be 'text' or
                'json_object'\"}", "type": "internal_server_error"}}"#,
        ),
        _ => TestResponse::json(200, GOOD),
    })
}

#[tokio::test]
async fn a_schema_refused_in_openais_form_goes_in_llama_cpp_pythons() {
    let server = json_object_server();
    let model = provider(&server, |_| {});
    let completion = model.complete(&shaped()).await.unwrap();
    assert_eq!(completion.constraint, Some(ConstraintOutcome::Accepted));
    let sent = server.requests();
    assert_eq!(sent.len(), 2, "the validation error is not retried as a server failure");
    let second = sent_body(&sent[1]);
    assert_eq!(second["response_format"]["type"], "json_object");
    assert_eq!(second["response_format"]["schema"]["required"][0], "searches");
    // The form that was taken is kept: the next shaped request goes in it at once.
    assert!(model.may_accept(ConstraintKind::JsonSchema));
    assert_eq!(
        model.complete(&shaped()).await.unwrap().constraint,
        Some(ConstraintOutcome::Accepted)
    );
    assert_eq!(server.requests().len(), 3);
    assert_eq!(sent_body(&server.requests()[2])["response_format"]["type"], "json_object");
    // Another provider of the same server and model (a run makes one per check) knows it too.
    let another = provider(&server, |_| {});
    assert_eq!(
        another.complete(&shaped()).await.unwrap().constraint,
        Some(ConstraintOutcome::Accepted)
    );
    assert_eq!(server.requests().len(), 4);
}

#[tokio::test]
async fn requests_sent_together_each_ask_again_in_llama_cpp_pythons_form() {
    // RARR works on a passage's sentences at the same time: every first request went in
    // OpenAI's form before the first refusal came back. Against llama-cpp-python's server
    // each of them is asked again in its form; none is taken for a refusal of schemas.
    let server =
        TestServer::start(|request| match sent_body(request)["response_format"]["type"].as_str() {
            Some("json_schema") => TestResponse::json(
                500,
                r#"{"error": {"message": "1 validation error: {'type': 'literal_error', 'loc':
                ('body', 'response_format', 'type')}"}}"#,
            )
            .with_delay(Duration::from_millis(50)),
            _ => TestResponse::json(200, GOOD),
        });
    let model = Arc::new(provider(&server, |s| s.max_concurrency = 1));
    let tasks: Vec<_> = (0..4)
        .map(|_| {
            let model = model.clone();
            tokio::spawn(async move { model.complete(&shaped()).await })
        })
        .collect();
    for task in tasks {
        let completion = task.await.unwrap().unwrap();
        assert_eq!(completion.constraint, Some(ConstraintOutcome::Accepted));
    }
    assert!(model.may_accept(ConstraintKind::JsonSchema));
    assert_eq!(model.support().schema_form, "json_object");
    let forms: Vec<String> = server
        .requests()
        .iter()
        .map(|request| sent_body(request)["response_format"]["type"].as_str().unwrap().to_owned())
        .collect();
    assert!(forms.iter().all(|form| form == "json_schema" || form == "json_object"), "{forms:?}");
    assert_eq!(forms.iter().filter(|form| *form == "json_object").count(), 4, "{forms:?}");
}

#[tokio::test]
async fn an_accepted_constraint_is_noted_and_other_bad_requests_are_not_refusals() {
    let server =
        TestServer::with_routes(vec![("/v1/chat/completions", TestResponse::json(200, GOOD))]);
    let model = provider(&server, |_| {});
    let completion = model.complete(&shaped()).await.unwrap();
    assert_eq!(completion.constraint, Some(ConstraintOutcome::Accepted));
    assert_eq!(server.requests().len(), 1);
    assert!(model.may_accept(ConstraintKind::JsonSchema));

    // A 400 that is about something else is the caller's error, retried with nothing removed.
    let server = TestServer::with_routes(vec![(
        "/v1/chat/completions",
        TestResponse::json(400, r#"{"error": {"message": "the prompt is too long"}}"#),
    )]);
    let model = provider(&server, |_| {});
    let error = model.complete(&shaped()).await.unwrap_err();
    assert!(matches!(error, LlmError::Server { status: 400, .. }), "{error:?}");
    assert_eq!(server.requests().len(), 1);
    assert!(model.may_accept(ConstraintKind::JsonSchema));

    // A refusal whose retry fails too was not about the constraint: nothing is remembered.
    let server = TestServer::with_routes(vec![(
        "/v1/chat/completions",
        TestResponse::json(422, r#"{"detail": "unsupported value for n"}"#),
    )]);
    let model = provider(&server, |_| {});
    assert!(model.complete(&shaped()).await.is_err());
    assert_eq!(server.requests().len(), 3, "OpenAI's form, llama-cpp-python's, none");
    assert!(model.may_accept(ConstraintKind::JsonSchema));
}

#[tokio::test]
async fn shaped_answers_switched_off_ask_no_server_for_a_shape() {
    let server =
        TestServer::with_routes(vec![("/v1/chat/completions", TestResponse::json(200, GOOD))]);
    let model = provider(&server, |settings| settings.shaped_answers = false);
    assert!(!model.may_accept(ConstraintKind::JsonSchema));
    assert!(!model.may_accept(ConstraintKind::Grammar));
}

#[tokio::test]
async fn the_audit_record_keeps_what_became_of_the_constraint_and_replays_it() {
    use factdesk_llm::{AuditedModel, CacheMode, CallRecord, CallStore};
    use std::sync::Mutex;

    #[derive(Default)]
    struct Memory(Mutex<Vec<CallRecord>>);
    impl CallStore for Memory {
        fn find(&self, key: &str) -> Result<Option<(i64, CallRecord)>, String> {
            let records = self.0.lock().unwrap();
            let found = records.iter().enumerate().rev().find(|(_, r)| r.request_key == key);
            Ok(found.map(|(i, r)| (i as i64 + 1, r.clone())))
        }
        fn save(&self, record: &CallRecord) -> Result<i64, String> {
            let mut records = self.0.lock().unwrap();
            records.push(record.clone());
            Ok(records.len() as i64)
        }
    }

    let server = refusing_server();
    let store = Arc::new(Memory::default());
    let inner = Arc::new(provider(&server, |_| {}));
    let audited = AuditedModel::new(inner, store.clone(), CacheMode::ReadWrite, None);
    assert!(audited.may_accept(ConstraintKind::JsonSchema));
    audited.complete(&shaped()).await.unwrap();
    assert!(!audited.may_accept(ConstraintKind::JsonSchema), "the wrapper asks the provider");
    {
        let records = store.0.lock().unwrap();
        // The record holds the constraint asked for and, with the answer, that it was refused.
        assert_eq!(records[0].constraint, shaped().constraint);
        assert_eq!(records[0].response["constraint"], "refused");
    }
    let replayed = audited.complete(&shaped()).await.unwrap();
    assert!(replayed.replayed);
    assert_eq!(replayed.constraint, Some(ConstraintOutcome::Refused));
    assert_eq!(server.requests().len(), 3, "the replay calls no model");
}

/// A server that answers as another model than the one asked for (a proxy that routes
/// elsewhere, a model loaded in place of another): each answer is read and kept under the
/// name the server gave, the audit record of each call keeps both names, and the next calls
/// go on as before.
#[tokio::test]
async fn an_answer_by_another_model_is_kept_under_its_name_beside_the_one_asked_for() {
    use factdesk_llm::{AuditedModel, CacheMode, CallRecord, CallStore};
    use std::sync::Mutex;

    #[derive(Default)]
    struct Memory(Mutex<Vec<CallRecord>>);
    impl CallStore for Memory {
        fn find(&self, _: &str) -> Result<Option<(i64, CallRecord)>, String> {
            Ok(None)
        }
        fn save(&self, record: &CallRecord) -> Result<i64, String> {
            let mut records = self.0.lock().unwrap();
            records.push(record.clone());
            Ok(records.len() as i64)
        }
    }

    let server = TestServer::with_routes(vec![(
        "/v1/chat/completions",
        factdesk_testkit::scripted::completion("Yes", "stop", "qwen2.5:7b"),
    )]);
    let store = Arc::new(Memory::default());
    let inner = Arc::new(provider(&server, |_| {}));
    let audited = AuditedModel::new(inner, store.clone(), CacheMode::Off, None);
    for _ in 0..2 {
        let completion = audited.complete(&request()).await.unwrap();
        assert_eq!((completion.text(), completion.model.as_str()), ("Yes", "qwen2.5:7b"));
    }
    let records = store.0.lock().unwrap();
    assert_eq!(records.len(), 2);
    for record in records.iter() {
        assert_eq!(record.model, "test-model");
        assert_eq!(record.response["model"], "qwen2.5:7b");
    }
    assert!(!factdesk_llm::openai::same_model("test-model", "qwen2.5:7b"));
}

#[tokio::test]
async fn the_scripted_server_accepts_refuses_or_ignores_a_schema() {
    use factdesk_testkit::scripted::{ConstraintMode, RARR_QUERIES_TEMPLATE, ScriptedModel};
    let mut asked = shaped();
    asked.messages = vec![ChatMessage::user("Statement: Okra grows.")];
    asked.template =
        Some(factdesk_llm::TemplateRef { id: RARR_QUERIES_TEMPLATE.into(), version: 1 });
    let served = |mode| {
        ScriptedModel::new()
            .on_shaped(RARR_QUERIES_TEMPLATE, |_| r#"{"searches": ["Does okra grow?"]}"#.into())
            .constraints(mode)
            .serve()
    };
    // Accepted: the answer is in shape.
    let server = served(ConstraintMode::JsonSchema);
    let completion = provider(&server, |_| {}).complete(&asked).await.unwrap();
    assert_eq!(completion.constraint, Some(ConstraintOutcome::Accepted));
    assert_eq!(completion.text(), r#"{"searches": ["Does okra grow?"]}"#);
    // Refused: asked again without the schema, answered in free text, the refusal noted.
    let server = served(ConstraintMode::Strict);
    let model = provider(&server, |_| {});
    let completion = model.complete(&asked).await.unwrap();
    assert_eq!(completion.constraint, Some(ConstraintOutcome::Refused));
    assert_eq!(completion.text(), " Okra grows.");
    assert_eq!(server.requests().len(), 3, "OpenAI's form, llama-cpp-python's, none");
    assert!(!model.may_accept(ConstraintKind::JsonSchema));
    // Ignored: the server takes the field and answers as if it were not there; the provider
    // cannot tell, and the caller reads the free text.
    let server = served(ConstraintMode::Ignore);
    let completion = provider(&server, |_| {}).complete(&asked).await.unwrap();
    assert_eq!(completion.constraint, Some(ConstraintOutcome::Accepted));
    assert_eq!(completion.text(), " Okra grows.");
}
