//! The embedded llama.cpp provider against the real SmolLM2-135M-Instruct model file, which
//! `bash scripts/fetch-models.sh` installs. A missing model fails these tests; it never skips
//! them.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use factdesk_llm::embedded::{EmbeddedModel, EmbeddedSettings};
use factdesk_llm::{
    ChatMessage, CompletionRequest, FinishReason, LanguageModel, LlmError, OutputConstraint,
};

const MODEL_FILE: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";

/// `$FACTDESK_MODELS_DIR`, else `${XDG_DATA_HOME:-~/.local/share}/factdesk/models`, as the
/// fetch script installs it.
fn model_path() -> PathBuf {
    let non_empty = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
    let dir = non_empty("FACTDESK_MODELS_DIR").map(PathBuf::from).unwrap_or_else(|| {
        non_empty("XDG_DATA_HOME")
            .map(PathBuf::from)
            .unwrap_or_else(|| {
                PathBuf::from(non_empty("HOME").expect("HOME is not set")).join(".local/share")
            })
            .join("factdesk/models")
    });
    let path = dir.join(MODEL_FILE);
    assert!(
        path.is_file(),
        "the test model {} is missing; run `bash scripts/fetch-models.sh` to install it",
        path.display()
    );
    path
}

/// The model, loaded once for the whole test binary.
fn model() -> Arc<EmbeddedModel> {
    static MODEL: OnceLock<Arc<EmbeddedModel>> = OnceLock::new();
    MODEL
        .get_or_init(|| {
            let model = EmbeddedModel::load(&model_path(), EmbeddedSettings::default())
                .unwrap_or_else(|error| panic!("loading the test model: {error}"));
            Arc::new(model)
        })
        .clone()
}

fn ask(question: &str) -> CompletionRequest {
    CompletionRequest::new(vec![ChatMessage::user(question)])
}

#[tokio::test(flavor = "multi_thread")]
async fn a_seeded_completion_is_reproducible() {
    let model = model();
    let info = model.info();
    assert_eq!(info.provider, "embedded");
    assert_eq!(info.model, "SmolLM2-135M-Instruct.Q4_1");
    assert!(info.location.ends_with(MODEL_FILE), "{}", info.location);

    let mut request = ask("Say hello in one word.");
    request.params.max_tokens = 8;
    request.params.temperature = 0.7;
    request.params.seed = Some(42);
    let first = model.complete(&request).await.expect("first completion");
    let second = model.complete(&request).await.expect("second completion");
    assert!(!first.text().trim().is_empty(), "empty completion: {first:?}");
    assert_eq!(first.text(), second.text());
    assert_eq!(first.choices.len(), 1);
    assert!(first.usage.prompt_tokens > 0);
    assert!((1..=8).contains(&first.usage.completion_tokens), "{:?}", first.usage);
    assert_eq!(first.model, "SmolLM2-135M-Instruct.Q4_1");
}

#[tokio::test(flavor = "multi_thread")]
async fn yes_no_probabilities_come_from_the_logits() {
    let model = model();
    let request = ask("Is the sky blue on a clear day? Answer yes or no.");
    let probabilities =
        model.answer_probabilities(&request, &["yes", "no"], 5).await.expect("probabilities");
    assert_eq!(probabilities.method, "logits");
    let yes = probabilities.get("yes");
    let no = probabilities.get("no");
    assert!((0.0..=1.0).contains(&yes), "yes = {yes}");
    assert!((0.0..=1.0).contains(&no), "no = {no}");
    assert!((yes + no - 1.0).abs() < 1e-6, "yes {yes} + no {no} != 1");
    assert!(probabilities.usage.prompt_tokens > 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn several_samples_share_one_prompt() {
    let model = model();
    let mut request = ask("Name a colour.");
    request.params.n = 3;
    request.params.max_tokens = 6;
    request.params.temperature = 0.9;
    request.params.seed = Some(7);
    let completion = model.complete(&request).await.expect("completion");
    assert_eq!(completion.choices.len(), 3);
    let single = model
        .complete(&CompletionRequest {
            params: factdesk_llm::SamplingParams { n: 1, ..request.params.clone() },
            ..request.clone()
        })
        .await
        .expect("single completion");
    assert_eq!(completion.usage.prompt_tokens, single.usage.prompt_tokens);
    let generated = completion.usage.completion_tokens;
    assert!((3..=18).contains(&generated), "{:?}", completion.usage);
    // The same seed gives the same samples again.
    let again = model.complete(&request).await.expect("repeat");
    let texts = |c: &factdesk_llm::Completion| {
        c.choices.iter().map(|choice| choice.text.clone()).collect::<Vec<_>>()
    };
    assert_eq!(texts(&completion), texts(&again));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_grammar_forces_the_answer() {
    let model = model();
    let mut request = ask("Is water wet?");
    request.params.max_tokens = 8;
    request.constraint = Some(OutputConstraint::Grammar(r#"root ::= "yes" | "no""#.into()));
    let completion = model.complete(&request).await.expect("completion");
    let text = completion.text();
    assert!(text == "yes" || text == "no", "grammar not enforced: {text:?}");
    assert_eq!(completion.choices[0].finish_reason, FinishReason::Stop);

    request.constraint = Some(OutputConstraint::JsonSchema(serde_json::json!({"type": "object"})));
    match model.complete(&request).await {
        Err(LlmError::Unsupported { feature, .. }) => {
            assert!(feature.contains("grammar"), "{feature}")
        }
        other => panic!("expected Unsupported, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn max_tokens_cuts_the_text_short() {
    let model = model();
    let mut request = ask("Write a long story about a dragon who learns to read.");
    request.params.max_tokens = 2;
    request.params.logprobs = true;
    request.params.top_logprobs = Some(3);
    let completion = model.complete(&request).await.expect("completion");
    let choice = &completion.choices[0];
    assert_eq!(choice.finish_reason, FinishReason::Length);
    assert_eq!(completion.usage.completion_tokens, 2);
    let logprobs = choice.logprobs.as_ref().expect("logprobs were asked for");
    assert_eq!(logprobs.len(), 2);
    for token in logprobs {
        assert!(token.logprob <= 0.0, "{token:?}");
        assert_eq!(token.top.len(), 3);
        assert!(token.top.windows(2).all(|pair| pair[0].1 >= pair[1].1), "{token:?}");
        // Greedy decoding picks the most likely token.
        assert!((token.top[0].1 - token.logprob).abs() < 1e-5, "{token:?}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_prompt_longer_than_the_context_is_refused() {
    let small = EmbeddedModel::load(
        &model_path(),
        EmbeddedSettings { context_tokens: 64, ..EmbeddedSettings::default() },
    )
    .expect("load");
    assert_eq!(small.context_tokens(), 64);
    let request = ask(&"The quick brown fox jumps over the lazy dog. ".repeat(40));
    match small.complete(&request).await {
        Err(LlmError::ContextOverflow { prompt_tokens, .. }) => {
            assert!(prompt_tokens > 64, "{prompt_tokens}");
        }
        other => panic!("expected ContextOverflow, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn broken_and_missing_model_files_say_how_to_fetch_them() {
    let dir = tempfile::tempdir().expect("temp dir");
    let garbage = dir.path().join("garbage.gguf");
    std::fs::write(&garbage, b"\x7fELF this is not a model at all").expect("write");
    // Right magic, impossible header: only llama.cpp can tell.
    let corrupt = dir.path().join("corrupt.gguf");
    let mut bytes = b"GGUF".to_vec();
    bytes.extend([0xff_u8; 60]);
    std::fs::write(&corrupt, bytes).expect("write");
    let missing = dir.path().join("missing.gguf");
    for path in [garbage, corrupt, missing] {
        match EmbeddedModel::load(&path, EmbeddedSettings::default()) {
            Err(error @ LlmError::ModelFile { .. }) => {
                let message = error.to_string();
                assert!(message.contains("scripts/fetch-models.sh"), "{message}");
                assert!(message.contains(&path.display().to_string()), "{message}");
            }
            other => panic!("{}: expected ModelFile, got {other:?}", path.display()),
        }
    }
}
