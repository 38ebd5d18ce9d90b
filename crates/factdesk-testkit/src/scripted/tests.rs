use super::*;

fn chat(template: Option<&str>, prompt: &str) -> RecordedRequest {
    let body = serde_json::json!({"messages": [{"role": "user", "content": prompt}], "n": 2});
    RecordedRequest {
        method: "POST".into(),
        path: "/v1/chat/completions".into(),
        headers: template
            .map(|t| vec![(TEMPLATE_HEADER.to_owned(), format!("{t}@1"))])
            .unwrap_or_default(),
        body: body.to_string().into_bytes(),
    }
}

fn answer(model: &ScriptedModel, request: &RecordedRequest) -> (u16, String) {
    let response = model.respond(request).unwrap();
    (response.status, String::from_utf8_lossy(&response.body).into_owned())
}

#[test]
fn each_template_gets_its_script_with_the_claim_and_document() {
    let model = ScriptedModel::new().on_urls(|asked| format!("url for {}", asked.claim));
    let urls = chat(
        Some("llm_cite/url_controlled"),
        "Sentence: an example\nURL: x\n\nSentence: Okra grows.\nURL:",
    );
    assert!(answer(&model, &urls).1.contains("url for Okra grows."));
    let nli = chat(
        Some(NLI_TEMPLATE),
        "Read. It is quoted between lines that read <<<DATA-1>>>.\n\n<<<DATA-1>>>\n\
         Okra is a plant that grows in warm places.\n<<<DATA-1>>>\n\nClaim: Okra grows.\n\n\
         True or False?",
    );
    assert!(answer(&model, &nli).1.contains("\"True\""));
    let asked = asked(&nli).unwrap().unwrap();
    assert_eq!(asked.document, "Okra is a plant that grows in warm places.");
    assert_eq!(asked.n, 2);
    let no_template = chat(None, "Say hi");
    assert!(answer(&model, &no_template).1.contains("\"OK\""));
    let unknown = chat(Some("sgss/label"), "?");
    let (status, body) = answer(&model, &unknown);
    assert_eq!(status, 500);
    assert!(body.contains("sgss/label"), "{body}");
    // RARR's gate reads the statement and the quoted evidence.
    let gate = chat(
        Some(RARR_AGREEMENT_TEMPLATE),
        "Statement: An example.\nTherefore: agrees\n\nStatement: Okra grows in 1899.\n\
         Search: When?\nEvidence:\n<<<DATA-2>>>\nOkra grows, since 1889.\n<<<DATA-2>>>\n\
         Reasoning:",
    );
    let asked_gate = super::asked(&gate).unwrap().unwrap();
    assert_eq!(asked_gate.claim, "Okra grows in 1899.");
    assert_eq!(asked_gate.document, "Okra grows, since 1889.");
    assert!(answer(&model, &gate).1.contains("Therefore: disagrees"));
}

#[test]
fn constraints_are_ignored_refused_or_answered_in_shape_as_the_mode_says() {
    let constrained = |field: &str, value: serde_json::Value| {
        let mut request = chat(Some(RARR_QUERIES_TEMPLATE), "Statement: Okra grows.");
        let mut body: serde_json::Value = serde_json::from_slice(&request.body).unwrap();
        body[field] = value;
        request.body = body.to_string().into_bytes();
        request
    };
    let schema = constrained(
        "response_format",
        serde_json::json!({"type": "json_schema", "json_schema": {"name": "o", "schema": {}}}),
    );
    let grammar = constrained("grammar", "root ::= \"x\"".into());
    let object = constrained("response_format", serde_json::json!({"type": "json_object"}));
    let model = ScriptedModel::new()
        .on_shaped(RARR_QUERIES_TEMPLATE, |_| r#"{"searches": ["okra"]}"#.to_owned());

    // Ignored: the plain script answers, whatever the request carries.
    for request in [&schema, &grammar, &object] {
        let (status, body) = answer(&model, request);
        assert_eq!(status, 200);
        assert!(body.contains(" Okra grows."), "{body}");
    }
    // Strict: a 400 naming the field.
    let strict = model.clone().constraints(ConstraintMode::Strict);
    for (request, field) in [(&schema, "response_format"), (&grammar, "grammar")] {
        let (status, body) = answer(&strict, request);
        assert_eq!(status, 400);
        assert!(body.contains(&format!("unknown field `{field}`")), "{body}");
    }
    assert_eq!(answer(&strict, &chat(Some(RARR_QUERIES_TEMPLATE), "Statement: x")).0, 200);
    // A JSON Schema server: the shaped script answers a schema; a grammar is refused.
    let json = model.constraints(ConstraintMode::JsonSchema);
    let (status, body) = answer(&json, &schema);
    assert_eq!(status, 200);
    assert!(body.contains(r#"{\"searches\": [\"okra\"]}"#), "{body}");
    assert_eq!(answer(&json, &grammar).0, 400);
    assert_eq!(answer(&json, &object).0, 400);
    // Without a schema, or for a template with no shaped script, the plain script answers.
    let plain = chat(Some(RARR_QUERIES_TEMPLATE), "Statement: Okra grows.");
    assert!(answer(&json, &plain).1.contains(" Okra grows."));
    let mut nli = schema.clone();
    nli.headers = vec![(TEMPLATE_HEADER.to_owned(), format!("{NLI_TEMPLATE}@3"))];
    assert_eq!(answer(&json, &nli).0, 200);
    // llama.cpp's server: a grammar is answered by the grammar script, a schema by the
    // shaped one.
    let llama = json
        .on_grammar(RARR_QUERIES_TEMPLATE, |_| "okra".to_owned())
        .constraints(ConstraintMode::Grammar);
    let (status, body) = answer(&llama, &grammar);
    assert_eq!(status, 200);
    assert!(body.contains("\"content\":\"okra\""), "{body}");
    assert!(answer(&llama, &schema).1.contains(r#"{\"searches\": [\"okra\"]}"#));
    assert!(answer(&llama, &plain).1.contains(" Okra grows."));
}

#[test]
fn samples_fill_the_choices_in_turn_and_a_reply_stands_in_for_the_script() {
    let model = ScriptedModel::new()
        .on_samples(P_TRUE_TEMPLATE, |_| vec!["True".to_owned(), "False".to_owned()])
        .replying(NLI_TEMPLATE, |asked| {
            asked.claim.contains("long").then(|| context_exceeded(3000, 2048))
        });
    // Three choices asked for: the two samples, then the first again.
    let mut sampled = chat(Some(P_TRUE_TEMPLATE), "Claim: Okra grows.");
    sampled.body =
        serde_json::json!({"messages": [{"role": "user", "content": "Claim: x"}], "n": 3})
            .to_string()
            .into_bytes();
    let (status, body) = answer(&model, &sampled);
    assert_eq!(status, 200);
    let body: serde_json::Value = serde_json::from_str(&body).unwrap();
    let texts: Vec<&str> = body["choices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["message"]["content"].as_str().unwrap())
        .collect();
    assert_eq!(texts, ["True", "False", "True"]);
    // The reply answers where it gives a response, the script everywhere else.
    let long = chat(Some(NLI_TEMPLATE), "<<<D>>>\nx\n<<<D>>>\nClaim: a long claim\n");
    let (status, body) = answer(&model, &long);
    assert_eq!(status, 400);
    assert!(body.contains("\"n_ctx\":2048"), "{body}");
    let short = chat(Some(NLI_TEMPLATE), "<<<D>>>\nx\n<<<D>>>\nClaim: x\n");
    assert_eq!(answer(&model, &short).0, 200);
}

#[test]
fn a_distribution_gives_its_log_probabilities_or_reproducible_draws() {
    let request = |body: serde_json::Value| {
        let mut request = chat(Some(CIBER_PROBE_TEMPLATE), "Claim: x\nQuestion: Is it so?");
        request.body = body.to_string().into_bytes();
        request
    };
    let messages =
        serde_json::json!([{"role": "user", "content": "Claim: x\nQuestion: Is it so?"}]);
    let choices = |model: &ScriptedModel, body: serde_json::Value| {
        let (status, text) = answer(model, &request(body));
        assert_eq!(status, 200, "{text}");
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        value["choices"].as_array().unwrap().clone()
    };
    let model = ScriptedModel::new().on_distribution(CIBER_PROBE_TEMPLATE, |_| {
        vec![("Yes".to_owned(), 0.75), ("No".to_owned(), 0.25), ("Not sure".to_owned(), 0.0)]
    });
    // Log-probabilities: one choice, the likeliest first word, every possible answer's first
    // word with its log-probability.
    let given = choices(&model, serde_json::json!({"messages": messages, "logprobs": true}));
    assert_eq!(given.len(), 1);
    assert_eq!(given[0]["message"]["content"], "Yes");
    let top = given[0]["logprobs"]["content"][0]["top_logprobs"].as_array().unwrap().clone();
    assert_eq!(top.len(), 2);
    assert!((top[1]["logprob"].as_f64().unwrap() - 0.25f64.ln()).abs() < 1e-9);
    // Draws: n of them, in proportion, the same for the same seed.
    let sampled = serde_json::json!({"messages": messages, "n": 400, "seed": 7});
    let drawn = choices(&model, sampled.clone());
    assert_eq!(drawn.len(), 400);
    let yes = drawn.iter().filter(|c| c["message"]["content"] == "Yes").count();
    assert!((260..=340).contains(&yes), "{yes} of 400");
    assert!(drawn.iter().all(|c| c["message"]["content"] != "Not sure"));
    assert_eq!(choices(&model, sampled), drawn);
    // A server without log-probabilities draws even when they are asked for.
    let plain = model.without_logprobs();
    let given = choices(&plain, serde_json::json!({"messages": messages, "logprobs": true}));
    assert_eq!(given.len(), 1);
    assert!(given[0].get("logprobs").is_none(), "{}", given[0]);
}
