use super::support::refuses_constraint;
use super::transport::context_exceeded;

#[test]
fn prompts_longer_than_the_context_are_read_from_each_servers_words() {
    let llama_cpp_python = r#"{"error": {"message": "This model's maximum context length is 2048 tokens. However, you requested 2304 tokens (2048 in the messages, 256 in the completion). Please reduce the length of the messages or completion.", "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}}"#;
    assert_eq!(context_exceeded(llama_cpp_python), Some((2048, 2048)));
    let openai = r#"{"error": {"message": "This model's maximum context length is 8192 tokens. However, your messages resulted in 9001 tokens. Please reduce the length of the messages.", "code": "context_length_exceeded"}}"#;
    assert_eq!(context_exceeded(openai), Some((9001, 8192)));
    let llama_cpp = r#"{"error": {"code": 400, "message": "the request exceeds the available context size, try increasing it", "type": "exceed_context_size_error", "n_prompt_tokens": 5000, "n_ctx": 4096}}"#;
    assert_eq!(context_exceeded(llama_cpp), Some((5000, 4096)));
    assert_eq!(context_exceeded(r#"{"error": "context_length_exceeded"}"#), Some((0, 0)));
    assert_eq!(context_exceeded(r#"{"error": {"message": "temperature too high"}}"#), None);
}

#[test]
fn refusals_of_a_constraint_are_told_from_other_bad_requests() {
    for refusal in [
        r#"{"error": {"message": "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model."}}"#,
        r#"{"detail": [{"type": "extra_forbidden", "loc": ["body", "grammar"]}]}"#,
        r#"{"error": "Unknown field: json_schema"}"#,
        r#"{"error": {"message": "failed to parse grammar"}}"#,
        "unsupported argument",
    ] {
        assert!(refuses_constraint(refusal), "{refusal}");
    }
    for other in [
        r#"{"error": {"message": "the prompt is longer than the context window"}}"#,
        r#"{"error": {"message": "temperature must be at most 2"}}"#,
        "",
    ] {
        assert!(!refuses_constraint(other), "{other}");
    }
}

#[test]
fn another_model_is_told_from_a_version_or_tag_of_the_one_asked_for() {
    for (asked, answered) in [
        ("gpt-4o", "gpt-4o-2024-08-06"),
        ("llama3.2", "llama3.2:latest"),
        ("SmolLM2", "smollm2"),
        ("smollm2", "smollm2"),
    ] {
        assert!(super::same_model(asked, answered), "{asked} / {answered}");
    }
    for (asked, answered) in [
        ("smollm2", "qwen2.5:7b"),
        ("gpt-4o", "gpt-4o2"),
        ("gpt-4o-mini", "gpt-4o"),
        ("gpt-4o", "gpt-4o-mini"),
        ("qwen2.5", "qwen2.5-coder:7b"),
        ("", "x"),
    ] {
        assert!(!super::same_model(asked, answered), "{asked} / {answered}");
    }
    // Told once per server and pair of names.
    assert!(super::first_substitution("http://a", "gpt-4o", "gpt-4o-mini"));
    assert!(!super::first_substitution("http://a", "gpt-4o", "gpt-4o-mini"));
    assert!(super::first_substitution("http://b", "gpt-4o", "gpt-4o-mini"));
}
