//! Sentence embeddings: the [`Embedder`] trait and its in-process backend,
//! [`MiniLmEmbedder`] (sentence-transformers' all-MiniLM-L6-v2 run on the CPU with candle,
//! through the crate's own BERT encoder in `bert.rs`).
//!
//! This module owns turning texts into unit-length vectors: loading the model folder,
//! tokenising (truncated to the 256 tokens the model was trained on), batched inference with
//! padding, mean pooling over the real tokens and L2 normalisation, plus [`cosine`]. It must
//! not download anything (`bash scripts/fetch-models.sh` installs the files), must not block
//! the async runtime (inference runs on the blocking pool), and stores nothing: indexing and
//! caching vectors belong to the callers.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert;
use tokenizers::Tokenizer;

use crate::LlmError;
use crate::bert::BertEncoder;

/// A sentence embedding model. Implementations must be cheap to share (`Arc<dyn Embedder>`).
#[async_trait]
pub trait Embedder: Send + Sync {
    /// A short name for reports and for telling vectors of different models apart.
    fn name(&self) -> String;

    /// The length of every vector.
    fn dimensions(&self) -> usize;

    /// One vector per text, in order. An empty slice gives an empty answer.
    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, LlmError>;
}

/// The folder name of all-MiniLM-L6-v2 inside the models directory.
pub const MINILM_FOLDER: &str = "all-MiniLM-L6-v2";

/// The command that installs the embedding model.
pub const FETCH_MODELS_COMMAND: &str = "bash scripts/fetch-models.sh";

/// all-MiniLM-L6-v2 was trained on at most this many tokens; longer texts are truncated.
pub const MINILM_MAX_TOKENS: usize = 256;

/// Texts per forward pass unless [`MiniLmEmbedder::with_batch_size`] says otherwise.
pub const DEFAULT_BATCH_SIZE: usize = 32;

/// Where Factdesk keeps model files: `$FACTDESK_MODELS_DIR`; else the user's folder,
/// `$XDG_DATA_HOME/factdesk/models` or `~/.local/share/factdesk/models` (where
/// `scripts/fetch-models.sh` puts them), when it exists; else the folder an installed package
/// brings beside the program (`<program's folder>/../lib/factdesk/models`, i.e.
/// `/usr/lib/factdesk/models` for `/usr/bin/factdesk`), when that exists; else the user's
/// folder, whose absence the messages about a missing model then name. One model is looked
/// for file by file: [`model_path`].
pub fn models_dir() -> PathBuf {
    if let Some(dir) = configured_models_dir() {
        return dir;
    }
    let users = users_models_dir();
    if users.is_dir() {
        return users;
    }
    packaged_models_dir().filter(|dir| dir.is_dir()).unwrap_or(users)
}

/// Where the model file or folder `name` is: under `$FACTDESK_MODELS_DIR` when it is set;
/// else in the user's folder when it is there, else in the package's folder when it is there
/// (a user's own models do not hide the ones the package brings), else where the user's
/// folder would have it.
pub fn model_path(name: &str) -> PathBuf {
    if let Some(dir) = configured_models_dir() {
        return dir.join(name);
    }
    let users = users_models_dir().join(name);
    if users.exists() {
        return users;
    }
    packaged_models_dir().map(|dir| dir.join(name)).filter(|path| path.exists()).unwrap_or(users)
}

fn configured_models_dir() -> Option<PathBuf> {
    std::env::var_os("FACTDESK_MODELS_DIR").filter(|value| !value.is_empty()).map(PathBuf::from)
}

/// `$XDG_DATA_HOME/factdesk/models`, else `~/.local/share/factdesk/models`.
fn users_models_dir() -> PathBuf {
    let set = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
    let data = set("XDG_DATA_HOME").map(PathBuf::from).unwrap_or_else(|| {
        let home = set("HOME").map(PathBuf::from).unwrap_or_default();
        home.join(".local").join("share")
    });
    data.join("factdesk").join("models")
}

/// The models folder an installed package puts beside the program:
/// `<program's folder>/../lib/factdesk/models`.
pub fn packaged_models_dir() -> Option<PathBuf> {
    let program = std::env::current_exe().ok()?;
    Some(program.parent()?.parent()?.join("lib").join("factdesk").join("models"))
}

/// Where `scripts/fetch-models.sh` installs all-MiniLM-L6-v2.
pub fn default_minilm_dir() -> PathBuf {
    model_path(MINILM_FOLDER)
}

/// The cosine similarity of two vectors; 0 when either is all zeros. Vectors of different
/// lengths are compared over the shorter one.
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let (mut dot, mut norm_a, mut norm_b) = (0.0f64, 0.0f64, 0.0f64);
    for (&x, &y) in a.iter().zip(b) {
        let (x, y) = (f64::from(x), f64::from(y));
        dot += x * y;
        norm_a += x * x;
        norm_b += y * y;
    }
    if norm_a == 0.0 || norm_b == 0.0 {
        return 0.0;
    }
    (dot / (norm_a.sqrt() * norm_b.sqrt())) as f32
}

/// What the blocking workers share.
struct Encoder {
    model: BertEncoder,
    tokenizer: Tokenizer,
    pad_id: u32,
    device: Device,
}

impl Encoder {
    fn embed(&self, texts: &[String], batch_size: usize) -> Result<Vec<Vec<f32>>, LlmError> {
        let encodings = texts
            .iter()
            .map(|text| self.tokenizer.encode(text.as_str(), true))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| LlmError::Backend(format!("MiniLM tokenizer: {e}")))?;
        // Batching texts of similar length wastes less work on padding; the vectors go back
        // to their places afterwards.
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&index| encodings[index].get_ids().len());
        let mut vectors = vec![Vec::new(); texts.len()];
        for chunk in order.chunks(batch_size.max(1)) {
            let batch: Vec<&tokenizers::Encoding> =
                chunk.iter().map(|&index| &encodings[index]).collect();
            let embedded = self
                .embed_batch(&batch)
                .map_err(|e| LlmError::Backend(format!("MiniLM inference: {e}")))?;
            for (&index, vector) in chunk.iter().zip(embedded) {
                vectors[index] = vector;
            }
        }
        Ok(vectors)
    }

    fn embed_batch(&self, batch: &[&tokenizers::Encoding]) -> candle_core::Result<Vec<Vec<f32>>> {
        let width = batch.iter().map(|e| e.get_ids().len()).max().unwrap_or(0);
        let mut ids = Vec::with_capacity(batch.len() * width);
        let mut mask = Vec::with_capacity(batch.len() * width);
        for encoding in batch {
            let padding = width - encoding.get_ids().len();
            ids.extend_from_slice(encoding.get_ids());
            ids.extend(std::iter::repeat_n(self.pad_id, padding));
            mask.extend_from_slice(encoding.get_attention_mask());
            mask.extend(std::iter::repeat_n(0u32, padding));
        }
        let shape = (batch.len(), width);
        let ids = Tensor::from_vec(ids, shape, &self.device)?;
        let mask = Tensor::from_vec(mask, shape, &self.device)?;
        let types = ids.zeros_like()?;
        let hidden = self.model.hidden_states(&ids, &types, &mask, false)?; // [batch, width, hidden]

        // Mean over the real tokens only: padded positions weigh 0.
        let weights = mask.to_dtype(DType::F32)?.unsqueeze(2)?; // [batch, width, 1]
        let summed = hidden.broadcast_mul(&weights)?.sum(1)?; // [batch, hidden]
        let counts = weights.sum(1)?.clamp(1e-9f32, f32::MAX)?; // [batch, 1]
        let mean = summed.broadcast_div(&counts)?;

        let norms = mean.sqr()?.sum_keepdim(1)?.sqrt()?.clamp(1e-12f32, f32::MAX)?;
        mean.broadcast_div(&norms)?.to_vec2::<f32>()
    }
}

/// all-MiniLM-L6-v2 sentence embeddings (384 dimensions, unit length) computed in-process on
/// the CPU. Cheap to clone; clones share the model.
#[derive(Clone)]
pub struct MiniLmEmbedder {
    dir: PathBuf,
    encoder: Arc<Encoder>,
    dimensions: usize,
    batch_size: usize,
}

impl std::fmt::Debug for MiniLmEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MiniLmEmbedder")
            .field("dir", &self.dir)
            .field("dimensions", &self.dimensions)
            .field("batch_size", &self.batch_size)
            .finish_non_exhaustive()
    }
}

impl MiniLmEmbedder {
    /// Loads the model from [`default_minilm_dir`].
    pub fn load_default() -> Result<MiniLmEmbedder, LlmError> {
        MiniLmEmbedder::load(&default_minilm_dir())
    }

    /// Loads the model from `dir`, which must hold `config.json`, `tokenizer.json` and
    /// `model.safetensors` (weights named with or without the `bert.` prefix).
    pub fn load(dir: &Path) -> Result<MiniLmEmbedder, LlmError> {
        let config_path = dir.join("config.json");
        let tokenizer_path = dir.join("tokenizer.json");
        let weights_path = dir.join("model.safetensors");
        for path in [&config_path, &tokenizer_path, &weights_path] {
            if !path.is_file() {
                return Err(model_file_error(path, "it does not exist".into()));
            }
        }

        let config_text = std::fs::read_to_string(&config_path)
            .map_err(|e| model_file_error(&config_path, format!("cannot read it: {e}")))?;
        let config: bert::Config = serde_json::from_str(&config_text)
            .map_err(|e| model_file_error(&config_path, format!("not a BERT config: {e}")))?;

        let device = Device::Cpu;
        let tensors = candle_core::safetensors::load(&weights_path, &device).map_err(|e| {
            model_file_error(&weights_path, format!("cannot read the weights: {e}"))
        })?;
        let prefixed = tensors.contains_key("bert.embeddings.word_embeddings.weight");
        let vb = VarBuilder::from_tensors(tensors, DType::F32, &device);
        let vb = if prefixed { vb.pp("bert") } else { vb };
        let model = BertEncoder::load(vb, &config)
            .map_err(|e| model_file_error(&weights_path, format!("not the expected model: {e}")))?;

        // The shipped tokenizer pads every text to 128 tokens and truncates there; batches
        // are padded here instead, and the model takes up to 256 tokens.
        let max_tokens = MINILM_MAX_TOKENS.min(config.max_position_embeddings);
        let tokenizer = crate::cross_encoder::load_tokenizer(
            &tokenizer_path,
            max_tokens,
            false,
            model_file_error,
        )?;
        let pad_id = u32::try_from(config.pad_token_id).map_err(|_| {
            model_file_error(
                &config_path,
                format!("pad_token_id {} is too large", config.pad_token_id),
            )
        })?;

        let encoder = Encoder { model, tokenizer, pad_id, device };
        Ok(MiniLmEmbedder {
            dir: dir.to_path_buf(),
            encoder: Arc::new(encoder),
            dimensions: config.hidden_size,
            batch_size: DEFAULT_BATCH_SIZE,
        })
    }

    /// Texts per forward pass (at least 1).
    pub fn with_batch_size(mut self, batch_size: usize) -> MiniLmEmbedder {
        self.batch_size = batch_size.max(1);
        self
    }

    /// The folder the model was loaded from.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Embeds on the calling thread. Async callers use [`Embedder::embed`], which moves the
    /// work to the blocking pool.
    pub fn embed_blocking(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, LlmError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        self.encoder.embed(texts, self.batch_size)
    }
}

#[async_trait]
impl Embedder for MiniLmEmbedder {
    fn name(&self) -> String {
        let folder = self.dir.file_name().map(|name| name.to_string_lossy().into_owned());
        format!("minilm:{}", folder.as_deref().unwrap_or(MINILM_FOLDER))
    }

    fn dimensions(&self) -> usize {
        self.dimensions
    }

    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, LlmError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let encoder = Arc::clone(&self.encoder);
        let batch_size = self.batch_size;
        let texts = texts.to_vec();
        tokio::task::spawn_blocking(move || encoder.embed(&texts, batch_size))
            .await
            .map_err(|e| LlmError::Backend(format!("MiniLM worker failed: {e}")))?
    }
}

fn model_file_error(path: &Path, message: String) -> LlmError {
    LlmError::ModelFile {
        path: path.display().to_string(),
        message,
        fetch_command: FETCH_MODELS_COMMAND.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_package_s_models_are_beside_the_program() {
        let program = std::env::current_exe().unwrap();
        let packaged = packaged_models_dir().unwrap();
        assert!(packaged.ends_with("lib/factdesk/models"), "{}", packaged.display());
        // For /usr/bin/factdesk: /usr/lib/factdesk/models.
        assert_eq!(
            packaged.parent().and_then(Path::parent).and_then(Path::parent),
            program.parent().and_then(Path::parent)
        );
    }
}
