//! The cross-encoder NLI backend: a Hugging Face sequence-classification model (DeBERTa-v2/v3,
//! BERT, or RoBERTa / XLM-RoBERTa) fine-tuned on NLI, run on the CPU with candle.
//!
//! This module owns reading a model folder (`config.json`, `tokenizer.json`,
//! `model.safetensors`), working out which logit means entailment, neutral and contradiction
//! from the config's `id2label`, encoding premise / hypothesis pairs, inference in batches of
//! pairs of similar length, and the softmax. It must not download anything (Factdesk cannot
//! fetch NLI models; the user places a folder), must not block the async runtime (inference
//! runs on the blocking pool), and knows nothing of claims, evidence or verdicts: it turns
//! text pairs into probabilities.
//!
//! Two-label models (`entailment` / `not_entailment`, as trained on RTE or MNLI-binarised)
//! cannot tell neutral from contradiction: their `not_entailment` probability is reported as
//! neutral and contradiction is always 0.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert;
use candle_transformers::models::debertav2::{self, DebertaV2SeqClassificationModel};
use candle_transformers::models::xlm_roberta::{self, XLMRobertaForSequenceClassification};
use tokenizers::{Encoding, Tokenizer, TruncationParams, TruncationStrategy};

use crate::bert::BertClassifier;
use crate::nli::{Nli, NliJudgement, NliPair, NliScores};
use crate::{LlmError, TokenUsage};

/// Pairs run through the model at once unless [`CrossEncoderNli::with_batch_size`] says
/// otherwise.
pub const DEFAULT_BATCH_SIZE: usize = 16;

/// Which output of the classifier carries which NLI label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LabelIndices {
    pub entailment: usize,
    /// For two-label models, the `not_entailment` output.
    pub neutral: usize,
    /// `None` for two-label models.
    pub contradiction: Option<usize>,
    /// How many outputs the classifier has.
    pub count: usize,
}

impl LabelIndices {
    /// Reads `id2label` from a parsed `config.json`; `path` names the file in errors.
    pub fn from_config(config: &serde_json::Value, path: &Path) -> Result<LabelIndices, LlmError> {
        let bad = |message: String| model_file_error(path, message);
        let id2label =
            config.get("id2label").and_then(serde_json::Value::as_object).ok_or_else(|| {
                bad("it has no id2label object, so the label order is unknown".into())
            })?;
        let mut entailment = None;
        let mut not_entailment = None;
        let mut neutral = None;
        let mut contradiction = None;
        let mut count = 0;
        for (key, label) in id2label {
            let index: usize = key
                .trim()
                .parse()
                .map_err(|_| bad(format!("id2label has the non-numeric key '{key}'")))?;
            let label = label
                .as_str()
                .ok_or_else(|| bad(format!("id2label[{key}] is not a string")))?
                .to_lowercase();
            count = count.max(index + 1);
            let slot = if label.contains("contradict") {
                &mut contradiction
            } else if label.contains("entail") && (label.contains("not") || label.contains("non")) {
                &mut not_entailment
            } else if label.contains("entail") {
                &mut entailment
            } else if label.contains("neutral") {
                &mut neutral
            } else {
                continue;
            };
            if slot.replace(index).is_some() {
                return Err(bad(format!("id2label names the label '{label}' twice")));
            }
        }
        match (entailment, neutral, contradiction, not_entailment) {
            (Some(entailment), Some(neutral), Some(contradiction), None) => {
                Ok(LabelIndices { entailment, neutral, contradiction: Some(contradiction), count })
            }
            (Some(entailment), None, None, Some(not_entailment)) => {
                Ok(LabelIndices { entailment, neutral: not_entailment, contradiction: None, count })
            }
            _ => Err(bad(format!(
                "its id2label {} does not name the three NLI labels (entailment, neutral, \
                 contradiction) nor the pair entailment / not_entailment; is this an NLI model?",
                serde_json::Value::Object(id2label.clone())
            ))),
        }
    }

    /// NLI scores from one row of softmax probabilities.
    fn scores(&self, probabilities: &[f32]) -> NliScores {
        let at = |index: usize| probabilities.get(index).copied().map_or(0.0, f64::from);
        NliScores::normalised(
            at(self.entailment),
            at(self.neutral),
            self.contradiction.map_or(0.0, at),
        )
    }
}

/// The classification networks this backend can run.
enum Network {
    /// BERT with the Hugging Face `BertForSequenceClassification` head:
    /// `tanh(pooler.dense([CLS]))` then the `classifier` linear layer.
    Bert(Box<BertClassifier>),
    Deberta(Box<DebertaV2SeqClassificationModel>),
    Roberta(Box<XLMRobertaForSequenceClassification>),
}

impl Network {
    /// Logits `[batch, labels]` for token ids, token type ids and attention mask, all
    /// `[batch, length]` u32.
    fn logits(&self, ids: &Tensor, types: &Tensor, mask: &Tensor) -> candle_core::Result<Tensor> {
        match self {
            Network::Bert(model) => model.logits(ids, types, mask),
            Network::Deberta(model) => model.forward(ids, Some(types.clone()), Some(mask.clone())),
            Network::Roberta(model) => model.forward(ids, mask, types),
        }
    }
}

/// What the blocking workers share.
struct Engine {
    network: Network,
    tokenizer: Tokenizer,
    labels: LabelIndices,
    pad_id: u32,
    /// Whether the model has segment embeddings to tell premise from hypothesis; when not,
    /// all token type ids are 0.
    token_types: bool,
    /// A cap on the batch size the network can take (candle's DeBERTa cannot batch when
    /// `position_biased_input` is set).
    max_batch: Option<usize>,
    device: Device,
}

impl Engine {
    /// Scores in the order of `pairs`. Pairs are batched by length (shortest first), so a
    /// batch is padded only to the longest of similar pairs, not of whatever came along.
    fn classify(&self, pairs: &[NliPair], batch_size: usize) -> Result<Vec<NliScores>, LlmError> {
        let batch_size = batch_size.max(1).min(self.max_batch.unwrap_or(usize::MAX));
        let encodings = pairs
            .iter()
            .map(|pair| {
                self.tokenizer.encode((pair.premise.as_str(), pair.hypothesis.as_str()), true)
            })
            .collect::<Result<Vec<Encoding>, _>>()
            .map_err(|e| LlmError::Backend(format!("cross-encoder tokenizer: {e}")))?;
        let mut order: Vec<usize> = (0..encodings.len()).collect();
        order.sort_by_key(|&i| encodings[i].get_ids().len());
        let mut scored = Vec::with_capacity(pairs.len());
        for batch in order.chunks(batch_size) {
            let batch_encodings: Vec<&Encoding> = batch.iter().map(|&i| &encodings[i]).collect();
            scored.extend(batch.iter().copied().zip(self.classify_batch(&batch_encodings)?));
        }
        scored.sort_by_key(|&(i, _)| i);
        Ok(scored.into_iter().map(|(_, score)| score).collect())
    }

    fn classify_batch(&self, encodings: &[&Encoding]) -> Result<Vec<NliScores>, LlmError> {
        let width = encodings.iter().map(|e| e.get_ids().len()).max().unwrap_or(0);
        let rows = encodings.len();
        let mut ids = Vec::with_capacity(rows * width);
        let mut types = Vec::with_capacity(rows * width);
        let mut mask = Vec::with_capacity(rows * width);
        for encoding in encodings {
            let padding = width - encoding.get_ids().len();
            ids.extend_from_slice(encoding.get_ids());
            ids.extend(std::iter::repeat_n(self.pad_id, padding));
            if self.token_types {
                types.extend_from_slice(encoding.get_type_ids());
            } else {
                types.extend(std::iter::repeat_n(0, encoding.get_ids().len()));
            }
            types.extend(std::iter::repeat_n(0, padding));
            mask.extend_from_slice(encoding.get_attention_mask());
            mask.extend(std::iter::repeat_n(0, padding));
        }
        let probabilities = (|| {
            let shape = (rows, width);
            let ids = Tensor::from_vec(ids, shape, &self.device)?;
            let types = Tensor::from_vec(types, shape, &self.device)?;
            let mask = Tensor::from_vec(mask, shape, &self.device)?;
            let logits = self.network.logits(&ids, &types, &mask)?.to_dtype(DType::F32)?;
            candle_nn::ops::softmax_last_dim(&logits)?.to_vec2::<f32>()
        })()
        .map_err(|e| LlmError::Backend(format!("cross-encoder inference: {e}")))?;
        if let Some(row) = probabilities.iter().find(|row| row.len() != self.labels.count) {
            return Err(LlmError::Backend(format!(
                "cross-encoder gave {} outputs per pair but id2label names {}",
                row.len(),
                self.labels.count
            )));
        }
        Ok(probabilities.iter().map(|row| self.labels.scores(row)).collect())
    }
}

/// An NLI cross-encoder run in-process on the CPU. Cheap to clone; clones share the model.
#[derive(Clone)]
pub struct CrossEncoderNli {
    dir: PathBuf,
    /// What [`Nli::name`] reports instead of `cross-encoder:<dir>`.
    name: Option<String>,
    engine: Arc<Engine>,
    batch_size: usize,
}

impl std::fmt::Debug for CrossEncoderNli {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CrossEncoderNli")
            .field("dir", &self.dir)
            .field("labels", &self.engine.labels)
            .field("batch_size", &self.batch_size)
            .finish_non_exhaustive()
    }
}

impl CrossEncoderNli {
    /// Loads the model in `dir`, which must hold `config.json`, `tokenizer.json` and
    /// `model.safetensors` of a DeBERTa-v2/v3, BERT or (XLM-)RoBERTa sequence classifier.
    pub fn load(dir: &Path) -> Result<CrossEncoderNli, LlmError> {
        let config_path = dir.join("config.json");
        let tokenizer_path = dir.join("tokenizer.json");
        let weights_path = dir.join("model.safetensors");
        for path in [&config_path, &tokenizer_path, &weights_path] {
            if !path.is_file() {
                return Err(missing_file_error(dir, path));
            }
        }

        let config_text = std::fs::read_to_string(&config_path)
            .map_err(|e| model_file_error(&config_path, format!("cannot read it: {e}")))?;
        let config: serde_json::Value = serde_json::from_str(&config_text)
            .map_err(|e| model_file_error(&config_path, format!("it is not valid JSON: {e}")))?;
        let labels = LabelIndices::from_config(&config, &config_path)?;
        let model_type = config
            .get("model_type")
            .and_then(serde_json::Value::as_str)
            .ok_or_else(|| model_file_error(&config_path, "it has no model_type".into()))?
            .to_owned();

        let device = Device::Cpu;
        let tensors = candle_core::safetensors::load(&weights_path, &device).map_err(|e| {
            model_file_error(&weights_path, format!("cannot read the weights: {e}"))
        })?;
        let has = |name: &str| tensors.contains_key(name);
        let config_file = config_path.as_path();
        let parse_config = |what: &'static str| {
            move |e: serde_json::Error| {
                model_file_error(config_file, format!("not a valid {what} config: {e}"))
            }
        };
        let weights_error = |e: candle_core::Error| model_file_error(&weights_path, format!("{e}"));

        let (network, pad_id, type_vocab, max_tokens, max_batch) = match model_type.as_str() {
            "bert" => {
                let cfg: bert::Config =
                    serde_json::from_value(config.clone()).map_err(parse_config("BERT"))?;
                let prefixed = has("bert.embeddings.word_embeddings.weight");
                let vb = VarBuilder::from_tensors(tensors, DType::F32, &device);
                let encoder = if prefixed { vb.pp("bert") } else { vb.clone() };
                let model = BertClassifier::load(encoder, vb.pp("classifier"), &cfg, labels.count)
                    .map_err(weights_error)?;
                let network = Network::Bert(Box::new(model));
                (network, cfg.pad_token_id, cfg.type_vocab_size, cfg.max_position_embeddings, None)
            }
            "deberta-v2" => {
                let cfg: debertav2::Config =
                    serde_json::from_value(config.clone()).map_err(parse_config("DeBERTa-v2"))?;
                let vb = VarBuilder::from_tensors(tensors, DType::F32, &device);
                let model = DebertaV2SeqClassificationModel::load(vb.pp("deberta"), &cfg, None)
                    .map_err(weights_error)?;
                // candle adds the absolute position embeddings without broadcasting over the
                // batch, so such models run one pair at a time.
                let max_batch = cfg.position_biased_input.then_some(1);
                (
                    Network::Deberta(Box::new(model)),
                    cfg.pad_token_id.unwrap_or(0),
                    cfg.type_vocab_size,
                    cfg.max_position_embeddings,
                    max_batch,
                )
            }
            "roberta" | "xlm-roberta" => {
                let cfg: xlm_roberta::Config =
                    serde_json::from_value(config.clone()).map_err(parse_config("RoBERTa"))?;
                let vb = VarBuilder::from_tensors(tensors, DType::F32, &device);
                let model = XLMRobertaForSequenceClassification::new(labels.count, &cfg, vb)
                    .map_err(weights_error)?;
                // Position ids start after the padding id, so fewer tokens fit.
                let max_tokens =
                    cfg.max_position_embeddings.saturating_sub(cfg.pad_token_id as usize + 1);
                (
                    Network::Roberta(Box::new(model)),
                    cfg.pad_token_id as usize,
                    cfg.type_vocab_size,
                    max_tokens,
                    None,
                )
            }
            other => {
                return Err(LlmError::Unsupported {
                    backend: "the cross-encoder NLI backend".into(),
                    feature: format!(
                        "model_type '{other}' (from {}); it runs deberta-v2, bert, roberta and \
                         xlm-roberta sequence classifiers",
                        config_path.display()
                    ),
                });
            }
        };
        let pad_id = u32::try_from(pad_id).map_err(|_| {
            model_file_error(&config_path, format!("pad_token_id {pad_id} is too large"))
        })?;
        if max_tokens < 4 {
            return Err(model_file_error(
                &config_path,
                format!("max_position_embeddings leaves only {max_tokens} tokens per pair"),
            ));
        }

        let tokenizer = load_tokenizer(&tokenizer_path, max_tokens, true, model_file_error)?;
        let engine = Engine {
            network,
            tokenizer,
            labels,
            pad_id,
            token_types: type_vocab >= 2,
            max_batch,
            device,
        };
        Ok(CrossEncoderNli {
            dir: dir.to_path_buf(),
            name: None,
            engine: Arc::new(engine),
            batch_size: DEFAULT_BATCH_SIZE,
        })
    }

    /// Reports `name` as the model's name (for a built-in model, whose folder differs from
    /// machine to machine).
    pub fn with_name(mut self, name: impl Into<String>) -> CrossEncoderNli {
        self.name = Some(name.into());
        self
    }

    /// Pairs per forward pass (at least 1).
    pub fn with_batch_size(mut self, batch_size: usize) -> CrossEncoderNli {
        self.batch_size = batch_size.max(1);
        self
    }

    /// The folder the model was loaded from.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Which classifier output is which label.
    pub fn labels(&self) -> LabelIndices {
        self.engine.labels
    }

    /// The most tokens of a pair the model reads; longer pairs are cut, the longer side first.
    pub fn max_tokens(&self) -> usize {
        self.engine.tokenizer.get_truncation().map_or(0, |truncation| truncation.max_length)
    }

    /// Classifies on the calling thread. Async callers use [`Nli::classify`], which moves the
    /// work to the blocking pool.
    pub fn classify_blocking(&self, pairs: &[NliPair]) -> Result<Vec<NliScores>, LlmError> {
        self.engine.classify(pairs, self.batch_size)
    }
}

#[async_trait]
impl Nli for CrossEncoderNli {
    fn name(&self) -> String {
        match &self.name {
            Some(name) => name.clone(),
            None => format!("cross-encoder:{}", self.dir.display()),
        }
    }

    /// English only: the engine runs BERT cross-encoders, and the built-in verifier was
    /// trained on English pairs alone.
    fn reads(&self, language: &str) -> bool {
        language == "en"
    }

    async fn classify(&self, pairs: &[NliPair]) -> Result<Vec<NliJudgement>, LlmError> {
        if pairs.is_empty() {
            return Ok(Vec::new());
        }
        let engine = Arc::clone(&self.engine);
        let batch_size = self.batch_size;
        let pairs = pairs.to_vec();
        let scores = tokio::task::spawn_blocking(move || engine.classify(&pairs, batch_size))
            .await
            .map_err(|e| LlmError::Backend(format!("cross-encoder worker failed: {e}")))??;
        Ok(scores
            .into_iter()
            .map(|scores| NliJudgement { scores, usage: TokenUsage::default() })
            .collect())
    }
}

/// Reads `tokenizer.json`, drops any padding it asks for (batches are padded by the caller)
/// and truncates, longest side first, to `max_tokens` — or, with `file_limit`, to the
/// tokenizer's own `truncation.max_length` when that is smaller (a classifier fine-tuned on
/// shorter pairs than its position table holds says so there, as Factdesk's verifier does);
/// `model_file_error` words the errors.
pub(crate) fn load_tokenizer(
    path: &Path,
    max_tokens: usize,
    file_limit: bool,
    model_file_error: impl Fn(&Path, String) -> LlmError,
) -> Result<Tokenizer, LlmError> {
    let mut tokenizer = Tokenizer::from_file(path)
        .map_err(|e| model_file_error(path, format!("not a usable tokenizer: {e}")))?;
    let max_tokens = match tokenizer.get_truncation() {
        Some(own) if file_limit && own.max_length >= 4 => own.max_length.min(max_tokens),
        _ => max_tokens,
    };
    tokenizer.with_padding(None);
    tokenizer
        .with_truncation(Some(TruncationParams {
            max_length: max_tokens,
            strategy: TruncationStrategy::LongestFirst,
            ..TruncationParams::default()
        }))
        .map_err(|e| {
            model_file_error(path, format!("cannot truncate to {max_tokens} tokens: {e}"))
        })?;
    Ok(tokenizer)
}

/// What to tell a user about installing an NLI model: Factdesk has none to download.
fn install_hint(dir: &Path) -> String {
    format!(
        "Factdesk cannot download NLI models; copy a cross-encoder's config.json, tokenizer.json and \
         model.safetensors (DeBERTa-v2/v3, BERT or RoBERTa with NLI labels) into {}",
        dir.display()
    )
}

fn model_file_error(path: &Path, message: String) -> LlmError {
    let dir = path.parent().unwrap_or(path);
    LlmError::ModelFile {
        path: path.display().to_string(),
        message,
        fetch_command: install_hint(dir),
    }
}

fn missing_file_error(dir: &Path, path: &Path) -> LlmError {
    LlmError::ModelFile {
        path: path.display().to_string(),
        message: format!(
            "it does not exist; Factdesk cannot download NLI models, so place the folder of a \
             Hugging Face NLI cross-encoder (DeBERTa-v2/v3, BERT or RoBERTa sequence classifier \
             with config.json, tokenizer.json and model.safetensors) at {} yourself",
            dir.display()
        ),
        fetch_command: install_hint(dir),
    }
}
