//! MiniLM sentence embeddings with the real all-MiniLM-L6-v2 files installed by
//! `bash scripts/fetch-models.sh`. A machine without them fails these tests, on purpose.

use std::sync::OnceLock;

use factdesk_llm::LlmError;
use factdesk_llm::embeddings::{Embedder, MiniLmEmbedder, cosine, default_minilm_dir};

fn embedder() -> &'static MiniLmEmbedder {
    static EMBEDDER: OnceLock<MiniLmEmbedder> = OnceLock::new();
    EMBEDDER.get_or_init(|| {
        let dir = default_minilm_dir();
        MiniLmEmbedder::load(&dir).unwrap_or_else(|error| {
            panic!(
                "all-MiniLM-L6-v2 is not usable in {}: {error}\n\
                 run `bash scripts/fetch-models.sh` to install it",
                dir.display()
            )
        })
    })
}

fn texts(items: &[&str]) -> Vec<String> {
    items.iter().map(|text| (*text).to_owned()).collect()
}

fn norm(vector: &[f32]) -> f32 {
    vector.iter().map(|x| x * x).sum::<f32>().sqrt()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vectors_have_384_unit_length_dimensions() {
    let model = embedder();
    assert_eq!(model.dimensions(), 384);
    assert_eq!(model.name(), "minilm:all-MiniLM-L6-v2");
    let inputs = texts(&["A man is eating food.", "", "Paris is the capital of France."]);
    let vectors = model.embed(&inputs).await.unwrap();
    assert_eq!(vectors.len(), inputs.len());
    for vector in &vectors {
        assert_eq!(vector.len(), 384);
        assert!(vector.iter().all(|x| x.is_finite()));
        assert!((norm(vector) - 1.0).abs() < 1e-4, "norm {}", norm(vector));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn similar_sentences_are_closer_than_unrelated_ones() {
    let inputs = texts(&[
        "A man is eating food.",
        "A man is eating a piece of bread.",
        "The new movie is awesome.",
    ]);
    let vectors = embedder().embed(&inputs).await.unwrap();
    let related = cosine(&vectors[0], &vectors[1]);
    let unrelated = cosine(&vectors[0], &vectors[2]);
    assert!(related > unrelated + 0.3, "related {related}, unrelated {unrelated}");
    assert!(related > 0.6, "related {related}");
    assert!((cosine(&vectors[0], &vectors[0]) - 1.0).abs() < 1e-5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_equals_each_text_alone() {
    let inputs = texts(&[
        "A man is eating food.",
        "Short.",
        "The quick brown fox jumps over the lazy dog while the farmer watches from the porch.",
        "",
        "Fact-checking compares a claim with the evidence that supports or refutes it.",
    ]);
    let small_batches = embedder().clone().with_batch_size(2);
    let batched = small_batches.embed(&inputs).await.unwrap();
    let one_batch = embedder().embed(&inputs).await.unwrap();
    for (index, text) in inputs.iter().enumerate() {
        let alone = embedder().embed(std::slice::from_ref(text)).await.unwrap();
        for other in [&batched[index], &one_batch[index]] {
            let gap = alone[0].iter().zip(other).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
            assert!(gap < 1e-4, "text {index} differs by {gap} when batched");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_texts_give_no_vectors() {
    assert!(embedder().embed(&[]).await.unwrap().is_empty());
}

#[test]
fn long_texts_are_truncated_not_refused() {
    let long = "evidence ".repeat(2000);
    let vectors = embedder().embed_blocking(&[long]).unwrap();
    assert!((norm(&vectors[0]) - 1.0).abs() < 1e-4);
}

#[test]
fn a_missing_folder_says_how_to_install_the_model() {
    let root = tempfile::tempdir().unwrap();
    let error = MiniLmEmbedder::load(&root.path().join("all-MiniLM-L6-v2")).unwrap_err();
    let LlmError::ModelFile { path, fetch_command, .. } = &error else {
        panic!("expected a ModelFile error, got {error:?}");
    };
    assert!(path.ends_with("config.json"), "{path}");
    assert_eq!(fetch_command, "bash scripts/fetch-models.sh");
    assert!(error.to_string().contains("bash scripts/fetch-models.sh"), "{error}");
}

#[test]
fn cosine_handles_zero_and_opposite_vectors() {
    assert_eq!(cosine(&[0.0, 0.0], &[1.0, 0.0]), 0.0);
    assert!((cosine(&[1.0, 2.0], &[-1.0, -2.0]) + 1.0).abs() < 1e-6);
    assert!((cosine(&[3.0, 0.0], &[1.0, 0.0]) - 1.0).abs() < 1e-6);
    assert!(cosine(&[1.0, 0.0], &[0.0, 1.0]).abs() < 1e-6);
}

/// Factdesk's encoder (`bert.rs`: fused key-value projection, branch-free GELU and softmax)
/// gives the vectors candle-transformers' `BertModel` gives on the same files: each text alone
/// (no padding), mean-pooled and scaled to unit length the same way.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vectors_match_candle_transformers_bert() {
    use candle_core::{DType, Device, Tensor};
    use candle_transformers::models::bert::{BertModel, Config};

    let dir = default_minilm_dir();
    embedder();
    let config: Config =
        serde_json::from_str(&std::fs::read_to_string(dir.join("config.json")).unwrap()).unwrap();
    let weights =
        candle_core::safetensors::load(dir.join("model.safetensors"), &Device::Cpu).unwrap();
    let prefixed = weights.contains_key("bert.embeddings.word_embeddings.weight");
    let vb = candle_nn::VarBuilder::from_tensors(weights, DType::F32, &Device::Cpu);
    let reference = BertModel::load(if prefixed { vb.pp("bert") } else { vb }, &config).unwrap();
    let mut tokenizer = tokenizers::Tokenizer::from_file(dir.join("tokenizer.json")).unwrap();
    tokenizer.with_padding(None);

    let inputs = texts(&[
        "A man is eating food.",
        "Short.",
        "The Eiffel Tower was designed and built by Gustave Eiffel's company for the 1889 fair.",
        "Fact-checking compares a claim with the evidence that supports or refutes it.",
    ]);
    let got = embedder().embed(&inputs).await.unwrap();
    for (text, got) in inputs.iter().zip(&got) {
        let ids = tokenizer.encode(text.as_str(), true).unwrap().get_ids().to_vec();
        let ids = Tensor::new(ids.as_slice(), &Device::Cpu).unwrap().unsqueeze(0).unwrap();
        let types = ids.zeros_like().unwrap();
        let mask = ids.ones_like().unwrap();
        let hidden = reference.forward(&ids, &types, Some(&mask)).unwrap();
        let mean: Vec<f32> = hidden.mean(1).unwrap().squeeze(0).unwrap().to_vec1().unwrap();
        let length = norm(&mean);
        let gap = mean.iter().zip(got).map(|(a, b)| (a / length - b).abs()).fold(0.0, f32::max);
        assert!(gap < 1e-5, "{text:?}: differs from candle-transformers' BERT by {gap}");
    }
}
