//! The cross-encoder NLI backend on tiny random models this test writes itself (no NLI model
//! can be downloaded here): DeBERTa-v2, BERT (with and without the `bert.` prefix) and
//! XLM-RoBERTa. Random weights say nothing about language, so the tests check the plumbing:
//! probabilities, batching, label order and errors.

use std::path::Path;

use candle_core::{DType, Device};
use candle_nn::{VarBuilder, VarMap};
use candle_transformers::models::{bert, debertav2, xlm_roberta};
use factdesk_llm::LlmError;
use factdesk_llm::cross_encoder::CrossEncoderNli;
use factdesk_llm::nli::{Nli, NliPair, NliScores};
use serde_json::{Value, json};

const WORDS: &[&str] = &[
    "a", "man", "is", "eating", "food", "the", "cat", "sleeps", "on", "mat", "dog", "runs", "not",
    "sun", "shines", "today", "it", "rains", "in", "city", ".", ",",
];

/// A WordLevel tokenizer with BERT-style pair encoding: `[CLS] A [SEP] B [SEP]`, type ids 0
/// then 1. It asks for fixed padding to 32, which the backend must switch off.
fn tokenizer_json() -> Value {
    let specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"];
    let mut vocab = serde_json::Map::new();
    for (id, token) in specials.iter().chain(WORDS).enumerate() {
        vocab.insert((*token).to_owned(), json!(id));
    }
    let added: Vec<Value> = specials
        .iter()
        .enumerate()
        .map(|(id, token)| {
            json!({"id": id, "content": token, "single_word": false, "lstrip": false,
                   "rstrip": false, "normalized": false, "special": true})
        })
        .collect();
    json!({
        "version": "1.0",
        "truncation": null,
        "padding": {"strategy": {"Fixed": 32}, "direction": "Right", "pad_to_multiple_of": null,
                    "pad_id": 0, "pad_type_id": 0, "pad_token": "[PAD]"},
        "added_tokens": added,
        "normalizer": {"type": "Lowercase"},
        "pre_tokenizer": {"type": "Whitespace"},
        "post_processor": {"type": "BertProcessing", "sep": ["[SEP]", 3], "cls": ["[CLS]", 2]},
        "decoder": null,
        "model": {"type": "WordLevel", "vocab": vocab, "unk_token": "[UNK]"}
    })
}

fn vocab_size() -> usize {
    WORDS.len() + 4
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Arch {
    Deberta,
    /// DeBERTa with absolute position embeddings added to the input (DeBERTa-v2 style).
    DebertaAbsolute,
    Bert,
    /// BERT weights saved without the `bert.` prefix.
    BertBare,
    Roberta,
}

/// The config of a tiny model of `arch`, without `id2label`.
fn base_config(arch: Arch) -> Value {
    let common = json!({
        "vocab_size": vocab_size(),
        "hidden_size": 16,
        "num_hidden_layers": 2,
        "num_attention_heads": 2,
        "intermediate_size": 32,
        "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1,
        "attention_probs_dropout_prob": 0.1,
        "max_position_embeddings": 64,
        "initializer_range": 0.02,
        "pad_token_id": 0,
    });
    let extra = match arch {
        Arch::Deberta | Arch::DebertaAbsolute => {
            let absolute = arch == Arch::DebertaAbsolute;
            json!({
                "model_type": "deberta-v2",
                "type_vocab_size": if absolute { 2 } else { 0 },
                "layer_norm_eps": 1e-7,
                "relative_attention": true,
                "max_relative_positions": -1,
                "position_biased_input": absolute,
                "pos_att_type": ["p2c", "c2p"],
                "position_buckets": 16,
                "share_att_key": true,
                "norm_rel_ebd": "layer_norm",
                "pooler_dropout": 0,
                "pooler_hidden_act": "gelu",
                "pooler_hidden_size": 16,
            })
        }
        Arch::Bert | Arch::BertBare => json!({
            "model_type": "bert",
            "type_vocab_size": 2,
            "layer_norm_eps": 1e-12,
            "position_embedding_type": "absolute",
        }),
        Arch::Roberta => json!({
            "model_type": "xlm-roberta",
            "type_vocab_size": 1,
            "layer_norm_eps": 1e-5,
            "position_embedding_type": "absolute",
        }),
    };
    let mut config = common;
    let fields = config.as_object_mut().unwrap();
    fields.extend(extra.as_object().unwrap().clone());
    config
}

fn with_labels(mut config: Value, labels: &[&str]) -> Value {
    let id2label: serde_json::Map<String, Value> =
        labels.iter().enumerate().map(|(i, l)| (i.to_string(), json!(l))).collect();
    let label2id: serde_json::Map<String, Value> =
        labels.iter().enumerate().map(|(i, l)| ((*l).to_owned(), json!(i))).collect();
    config["id2label"] = Value::Object(id2label);
    config["label2id"] = Value::Object(label2id);
    config
}

/// Random weights for `config` in the Hugging Face layout of `arch`.
fn random_weights(arch: Arch, config: &Value, path: &Path) {
    let varmap = VarMap::new();
    let vb = VarBuilder::from_varmap(&varmap, DType::F32, &Device::Cpu);
    let labels = config["id2label"].as_object().unwrap().len();
    match arch {
        Arch::Deberta | Arch::DebertaAbsolute => {
            let cfg: debertav2::Config = serde_json::from_value(config.clone()).unwrap();
            debertav2::DebertaV2SeqClassificationModel::load(vb.pp("deberta"), &cfg, None).unwrap();
        }
        Arch::Bert | Arch::BertBare => {
            let cfg: bert::Config = serde_json::from_value(config.clone()).unwrap();
            let prefix = if arch == Arch::Bert { "bert." } else { "" };
            let encoder_vb = if arch == Arch::Bert { vb.pp("bert") } else { vb.clone() };
            bert::BertModel::load(encoder_vb, &cfg).unwrap();
            candle_nn::linear(16, 16, vb.pp(format!("{prefix}pooler.dense"))).unwrap();
            candle_nn::linear(16, labels, vb.pp("classifier")).unwrap();
        }
        Arch::Roberta => {
            let cfg: xlm_roberta::Config = serde_json::from_value(config.clone()).unwrap();
            xlm_roberta::XLMRobertaForSequenceClassification::new(labels, &cfg, vb).unwrap();
        }
    }
    varmap.save(path).unwrap();
}

/// Writes config, tokenizer and (unless `weights` gives a file to copy) fresh random weights.
fn write_model(dir: &Path, config: &Value, arch: Arch, weights: Option<&Path>) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("config.json"), serde_json::to_string_pretty(config).unwrap()).unwrap();
    std::fs::write(dir.join("tokenizer.json"), tokenizer_json().to_string()).unwrap();
    match weights {
        Some(source) => {
            std::fs::copy(source, dir.join("model.safetensors")).unwrap();
        }
        None => random_weights(arch, config, &dir.join("model.safetensors")),
    }
}

fn pairs() -> Vec<NliPair> {
    let pair = |premise: &str, hypothesis: &str| NliPair {
        premise: premise.to_owned(),
        hypothesis: hypothesis.to_owned(),
    };
    vec![
        pair("A man is eating food.", "A man is eating."),
        pair("The cat sleeps on the mat.", "The dog runs."),
        pair("It rains in the city today, the sun is not shining.", "The sun shines."),
        pair("A dog", "A cat sleeps on a mat in the city today."),
        pair("", "The sun shines today."),
        pair("Unknown words zebra xylophone.", "A man."),
    ]
}

async fn classify(model: &CrossEncoderNli, pairs: &[NliPair]) -> Vec<NliScores> {
    model.classify(pairs).await.unwrap().into_iter().map(|j| j.scores).collect()
}

fn assert_close(a: &NliScores, b: &NliScores, tolerance: f64) {
    let gaps = [
        (a.entailment - b.entailment).abs(),
        (a.neutral - b.neutral).abs(),
        (a.contradiction - b.contradiction).abs(),
    ];
    assert!(gaps.iter().all(|gap| *gap <= tolerance), "{a:?} differs from {b:?}");
}

/// Everything the brief asks of one architecture.
async fn check_architecture(arch: Arch) {
    let root = tempfile::tempdir().unwrap();
    let order_a = ["entailment", "neutral", "contradiction"];
    let order_b = ["CONTRADICTION", "Neutral", "Entailment"];
    let dir_a = root.path().join("a");
    let dir_b = root.path().join("b");
    write_model(&dir_a, &with_labels(base_config(arch), &order_a), arch, None);
    write_model(
        &dir_b,
        &with_labels(base_config(arch), &order_b),
        arch,
        Some(&dir_a.join("model.safetensors")),
    );

    let model_a = CrossEncoderNli::load(&dir_a).unwrap();
    let model_b = CrossEncoderNli::load(&dir_b).unwrap();
    assert_eq!(model_a.labels().entailment, 0);
    assert_eq!(model_a.labels().contradiction, Some(2));
    assert_eq!(model_b.labels().entailment, 2);
    assert_eq!(model_b.labels().contradiction, Some(0));
    assert!(model_a.name().starts_with("cross-encoder:"), "{}", model_a.name());

    let pairs = pairs();
    let judgements = model_a.clone().with_batch_size(4).classify(&pairs).await.unwrap();
    assert_eq!(judgements.len(), pairs.len());
    let batched: Vec<NliScores> = judgements.iter().map(|j| j.scores).collect();
    for (judgement, scores) in judgements.iter().zip(&batched) {
        assert_eq!(judgement.usage, Default::default());
        let parts = [scores.entailment, scores.neutral, scores.contradiction];
        assert!(parts.iter().all(|p| p.is_finite() && *p >= 0.0), "{arch:?}: {scores:?}");
        let total: f64 = parts.iter().sum();
        assert!((total - 1.0).abs() < 1e-5, "{arch:?}: {scores:?} sums to {total}");
    }

    // A batch (with padding) gives what each pair gives alone.
    for (pair, in_batch) in pairs.iter().zip(&batched) {
        let alone = classify(&model_a, std::slice::from_ref(pair)).await;
        assert_close(&alone[0], in_batch, 1e-4);
    }
    let one_batch = classify(&model_a.clone().with_batch_size(64), &pairs).await;
    for (a, b) in one_batch.iter().zip(&batched) {
        assert_close(a, b, 1e-4);
    }

    // The same logits read through permuted label names.
    let permuted = classify(&model_b, &pairs).await;
    let mut distinct = false;
    for (a, b) in batched.iter().zip(&permuted) {
        assert!((a.entailment - b.contradiction).abs() < 1e-6, "{arch:?}: {a:?} vs {b:?}");
        assert!((a.contradiction - b.entailment).abs() < 1e-6, "{arch:?}: {a:?} vs {b:?}");
        assert!((a.neutral - b.neutral).abs() < 1e-6, "{arch:?}: {a:?} vs {b:?}");
        distinct |= (a.entailment - a.contradiction).abs() > 1e-4;
    }
    assert!(distinct, "{arch:?}: random weights gave identical label scores: {batched:?}");

    assert!(model_a.classify(&[]).await.unwrap().is_empty());

    // A folder without weights names the missing file.
    let dir_c = root.path().join("c");
    std::fs::create_dir_all(&dir_c).unwrap();
    std::fs::copy(dir_a.join("config.json"), dir_c.join("config.json")).unwrap();
    std::fs::copy(dir_a.join("tokenizer.json"), dir_c.join("tokenizer.json")).unwrap();
    let weights = dir_c.join("model.safetensors");
    match CrossEncoderNli::load(&dir_c) {
        Err(error @ LlmError::ModelFile { .. }) => {
            let LlmError::ModelFile { path, .. } = &error else { unreachable!() };
            assert_eq!(path, &weights.display().to_string());
            let text = error.to_string();
            assert!(text.contains(&weights.display().to_string()), "{text}");
            assert!(text.contains("place"), "the message should say to place a model: {text}");
        }
        other => panic!("{arch:?}: expected a ModelFile error, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deberta_v2_classifies_batches_and_reads_the_label_order() {
    check_architecture(Arch::Deberta).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deberta_v2_with_absolute_positions_classifies_batches() {
    check_architecture(Arch::DebertaAbsolute).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bert_classifies_batches_and_reads_the_label_order() {
    check_architecture(Arch::Bert).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bert_weights_without_prefix_load() {
    check_architecture(Arch::BertBare).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn xlm_roberta_classifies_batches_and_reads_the_label_order() {
    check_architecture(Arch::Roberta).await;
}

#[tokio::test]
async fn two_label_models_report_not_entailment_as_neutral() {
    let root = tempfile::tempdir().unwrap();
    let config = with_labels(base_config(Arch::Bert), &["not_entailment", "entailment"]);
    write_model(root.path(), &config, Arch::Bert, None);
    let model = CrossEncoderNli::load(root.path()).unwrap();
    let labels = model.labels();
    assert_eq!((labels.entailment, labels.neutral, labels.contradiction), (1, 0, None));
    for scores in classify(&model, &pairs()).await {
        assert_eq!(scores.contradiction, 0.0);
        assert!((scores.entailment + scores.neutral - 1.0).abs() < 1e-5, "{scores:?}");
    }
}

#[test]
fn a_config_without_nli_labels_is_refused_naming_the_file() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("weights");
    write_model(
        &dir,
        &with_labels(base_config(Arch::Bert), &["LABEL_0", "LABEL_1", "LABEL_2"]),
        Arch::Bert,
        None,
    );
    let error = CrossEncoderNli::load(&dir).unwrap_err();
    let config = dir.join("config.json").display().to_string();
    assert!(matches!(&error, LlmError::ModelFile { path, .. } if *path == config), "{error:?}");
    assert!(error.to_string().contains("id2label"), "{error}");

    // No id2label at all.
    std::fs::write(dir.join("config.json"), base_config(Arch::Bert).to_string()).unwrap();
    let error = CrossEncoderNli::load(&dir).unwrap_err();
    assert!(matches!(&error, LlmError::ModelFile { path, .. } if *path == config), "{error:?}");
}

#[test]
fn an_unknown_architecture_is_unsupported() {
    let root = tempfile::tempdir().unwrap();
    let labels = ["entailment", "neutral", "contradiction"];
    write_model(root.path(), &with_labels(base_config(Arch::Bert), &labels), Arch::Bert, None);
    let mut config = with_labels(base_config(Arch::Bert), &labels);
    config["model_type"] = json!("electra");
    std::fs::write(root.path().join("config.json"), config.to_string()).unwrap();
    let error = CrossEncoderNli::load(root.path()).unwrap_err();
    assert!(matches!(error, LlmError::Unsupported { .. }), "{error:?}");
    assert!(error.to_string().contains("electra"), "{error}");
}

#[test]
fn an_empty_folder_names_the_first_missing_file() {
    let root = tempfile::tempdir().unwrap();
    let error = CrossEncoderNli::load(root.path()).unwrap_err();
    let expected = root.path().join("config.json").display().to_string();
    assert!(matches!(&error, LlmError::ModelFile { path, .. } if *path == expected), "{error:?}");
}

#[test]
fn a_tokenizer_limit_below_the_positions_is_kept() {
    let root = tempfile::tempdir().unwrap();
    let labels = ["entailment", "neutral", "contradiction"];
    let dir = root.path().join("bert");
    write_model(&dir, &with_labels(base_config(Arch::Bert), &labels), Arch::Bert, None);
    assert_eq!(CrossEncoderNli::load(&dir).unwrap().max_tokens(), 64, "no limit: the positions");
    let truncation = |max_length: usize| {
        let mut tokenizer = tokenizer_json();
        tokenizer["truncation"] = json!({"max_length": max_length,
                                         "strategy": "OnlyFirst", "stride": 0});
        std::fs::write(dir.join("tokenizer.json"), tokenizer.to_string()).unwrap();
        CrossEncoderNli::load(&dir).unwrap()
    };
    let model = truncation(16);
    assert_eq!(model.max_tokens(), 16, "fine-tuned on 16 tokens: reads 16");
    // Longest side first even so: a claim longer than the limit is cut, not refused.
    let long = "the cat sleeps on the mat . ".repeat(10);
    let scores =
        model.classify_blocking(&[NliPair { premise: "a dog".into(), hypothesis: long }]).unwrap();
    assert_eq!(scores.len(), 1);
    assert_eq!(truncation(500).max_tokens(), 64, "never past the positions");
}

#[test]
fn long_pairs_are_truncated_to_the_model_positions() {
    let root = tempfile::tempdir().unwrap();
    let labels = ["entailment", "neutral", "contradiction"];
    for (name, arch) in
        [("bert", Arch::Bert), ("roberta", Arch::Roberta), ("deberta", Arch::DebertaAbsolute)]
    {
        let dir = root.path().join(name);
        write_model(&dir, &with_labels(base_config(arch), &labels), arch, None);
        let model = CrossEncoderNli::load(&dir).unwrap();
        // 64 positions; this pair has about 300 tokens.
        let long = "the cat sleeps on the mat . ".repeat(40);
        let pair = NliPair { premise: long.clone(), hypothesis: long };
        let scores = model.classify_blocking(&[pair]).unwrap();
        let total = scores[0].entailment + scores[0].neutral + scores[0].contradiction;
        assert!((total - 1.0).abs() < 1e-5, "{arch:?}: {scores:?}");
    }
}

/// P(label) for each pair alone, by candle-transformers' `BertModel` with the Hugging Face
/// pooler and classifier: the reference the backend's own BERT must agree with.
fn reference_bert_probabilities(dir: &Path, pairs: &[NliPair]) -> Vec<Vec<f32>> {
    use candle_core::{Module, Tensor};
    let config: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("config.json")).unwrap()).unwrap();
    let cfg: bert::Config = serde_json::from_value(config.clone()).unwrap();
    let labels = config["id2label"].as_object().unwrap().len();
    let device = Device::Cpu;
    let tensors = candle_core::safetensors::load(dir.join("model.safetensors"), &device).unwrap();
    let prefixed = tensors.contains_key("bert.embeddings.word_embeddings.weight");
    let vb = VarBuilder::from_tensors(tensors, DType::F32, &device);
    let encoder_vb = if prefixed { vb.pp("bert") } else { vb.clone() };
    let prefix = if prefixed { "bert." } else { "" };
    let encoder = bert::BertModel::load(encoder_vb, &cfg).unwrap();
    let size = cfg.hidden_size;
    let pooler = candle_nn::linear(size, size, vb.pp(format!("{prefix}pooler.dense"))).unwrap();
    let classifier = candle_nn::linear(size, labels, vb.pp("classifier")).unwrap();
    // A model without segment embeddings is given type 0 throughout, as the backend does.
    let types = |ids: &[u32]| -> Vec<u32> {
        if cfg.type_vocab_size < 2 { vec![0; ids.len()] } else { ids.to_vec() }
    };
    let mut tokenizer = tokenizers::Tokenizer::from_file(dir.join("tokenizer.json")).unwrap();
    tokenizer.with_padding(None);
    pairs
        .iter()
        .map(|pair| {
            let encoding =
                tokenizer.encode((pair.premise.as_str(), pair.hypothesis.as_str()), true).unwrap();
            let row = |values: &[u32]| Tensor::new(values, &device).unwrap().unsqueeze(0).unwrap();
            let hidden = encoder
                .forward(
                    &row(encoding.get_ids()),
                    &row(&types(encoding.get_type_ids())),
                    Some(&row(encoding.get_attention_mask())),
                )
                .unwrap();
            let first = hidden.narrow(1, 0, 1).unwrap().squeeze(1).unwrap();
            let pooled = pooler.forward(&first).unwrap().tanh().unwrap();
            let logits = classifier.forward(&pooled).unwrap();
            candle_nn::ops::softmax_last_dim(&logits).unwrap().to_vec2::<f32>().unwrap().remove(0)
        })
        .collect()
}

/// The backend's BERT (one key-value projection, the last layer for `[CLS]` only, batches
/// padded or of one pair) gives candle-transformers' probabilities, on random models of every
/// activation candle's BERT reads (one without segment embeddings) and on the shipped verifier.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bert_agrees_with_candle_transformers() {
    let root = tempfile::tempdir().unwrap();
    let labels = ["entailment", "neutral", "contradiction"];
    let mut dirs = Vec::new();
    for (activation, segments) in [("gelu", 2), ("geluapproximate", 2), ("relu", 1)] {
        let mut config = with_labels(base_config(Arch::Bert), &labels);
        config["hidden_act"] = json!(activation);
        config["type_vocab_size"] = json!(segments);
        let dir = root.path().join(activation);
        write_model(&dir, &config, Arch::Bert, None);
        dirs.push(dir);
    }
    dirs.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/models/factdesk-verifier"));
    let mut pairs = pairs();
    pairs.push(NliPair {
        premise: "Okra is a flowering plant in the mallow family. It is valued for its edible \
                  green seed pods and grown in warm climates around the world."
            .into(),
        hypothesis: "Okra belongs to the mallow family.".into(),
    });
    for (dir, batch) in dirs.iter().flat_map(|dir| [(dir, 1), (dir, 8)]) {
        let expected = reference_bert_probabilities(dir, &pairs);
        let model = CrossEncoderNli::load(dir).unwrap();
        let labels = model.labels();
        let got = classify(&model.with_batch_size(batch), &pairs).await;
        let (mut lowest, mut highest) = (f64::MAX, f64::MIN);
        for ((pair, expected), got) in pairs.iter().zip(&expected).zip(&got) {
            let entailment = f64::from(expected[labels.entailment]);
            (lowest, highest) = (lowest.min(entailment), highest.max(entailment));
            assert!(
                (got.entailment - entailment).abs() < 1e-4,
                "{} in batches of {batch}: {pair:?}: P(entailment) {} where candle-transformers \
                 gives {entailment}",
                dir.display(),
                got.entailment
            );
        }
        assert!(highest - lowest > 1e-3, "{}: every pair scored alike", dir.display());
    }
}
