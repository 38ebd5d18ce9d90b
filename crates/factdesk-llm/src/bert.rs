//! BERT with a sequence-classification head (Hugging Face's `BertForSequenceClassification`
//! weights), written for inference in f32 on a small CPU.
//!
//! The arithmetic is BERT's; the order of work is chosen for two cores:
//! - keys and values come from one projection, and the scale `1/√head size` is folded into the
//!   query weights when loading;
//! - the padding mask is added and the attention softmax taken in one pass over the scores, in
//!   place, rows in parallel (no intermediate tensors);
//! - the exact (erf) GELU runs over the intermediate activations in place, in parallel;
//! - both with the branch-free `exp` and `erf` of `vector_math`, which the compiler vectorises;
//! - for the classifier, the last layer is computed for the `[CLS]` token only, the one it
//!   reads (its keys and values still come from every token).
//!
//! It knows nothing of NLI or similarity: it turns token ids into logits (`BertClassifier`, the
//! cross-encoder's) or hidden states (`BertEncoder`, MiniLM's sentence embeddings, which read
//! every token of the last layer). The cross-encoder's and the embeddings' tests hold it to
//! candle-transformers' `BertModel` on the same weights.

use candle_core::backend::BackendStorage;
use candle_core::{CpuStorage, DType, InplaceOp1, InplaceOp2, Layout, Module, Result, Tensor};
use candle_nn::{Embedding, LayerNorm, Linear, VarBuilder};
use candle_transformers::models::bert::{Config, HiddenAct};
use rayon::prelude::*;

/// One encoder layer's weights.
struct Layer {
    /// The query projection, pre-scaled by `1/√head size`.
    query: Linear,
    /// Keys and values in one projection: `[2 × hidden, hidden]`.
    key_value: Linear,
    attention_output: Linear,
    attention_norm: LayerNorm,
    intermediate: Linear,
    output: Linear,
    output_norm: LayerNorm,
}

/// BERT's embeddings and encoder layers: token ids in, hidden states out.
pub(crate) struct BertEncoder {
    word_embeddings: Embedding,
    position_embeddings: Embedding,
    token_type_embeddings: Embedding,
    embeddings_norm: LayerNorm,
    layers: Vec<Layer>,
    heads: usize,
    head_size: usize,
    activation: HiddenAct,
}

/// A BERT encoder with its pooler and classifier.
pub(crate) struct BertClassifier {
    encoder: BertEncoder,
    pooler: Linear,
    classifier: Linear,
}

impl BertClassifier {
    /// Loads from a var builder rooted at the encoder (`embeddings.*`, `encoder.*`,
    /// `pooler.*`) and one rooted at the classifier's weights.
    pub(crate) fn load(
        encoder: VarBuilder,
        classifier: VarBuilder,
        config: &Config,
        labels: usize,
    ) -> Result<BertClassifier> {
        let hidden = config.hidden_size;
        Ok(BertClassifier {
            pooler: candle_nn::linear(hidden, hidden, encoder.pp("pooler.dense"))?,
            encoder: BertEncoder::load(encoder, config)?,
            classifier: candle_nn::linear(hidden, labels, classifier)?,
        })
    }

    /// Logits `[batch, labels]` for token ids, token type ids and attention mask (1 for a
    /// token, 0 for padding), all `[batch, length]` u32.
    pub(crate) fn logits(&self, ids: &Tensor, types: &Tensor, mask: &Tensor) -> Result<Tensor> {
        let first = self.encoder.hidden_states(ids, types, mask, true)?.squeeze(1)?;
        self.classifier.forward(&self.pooler.forward(&first)?.tanh()?)
    }
}

impl BertEncoder {
    /// Loads from a var builder rooted at the encoder (`embeddings.*`, `encoder.*`).
    pub(crate) fn load(encoder: VarBuilder, config: &Config) -> Result<BertEncoder> {
        let hidden = config.hidden_size;
        if config.num_attention_heads == 0 || !hidden.is_multiple_of(config.num_attention_heads) {
            candle_core::bail!(
                "hidden_size {hidden} is not a multiple of num_attention_heads {}",
                config.num_attention_heads
            );
        }
        let head_size = hidden / config.num_attention_heads;
        let norm = |vb: VarBuilder| candle_nn::layer_norm(hidden, config.layer_norm_eps, vb);
        let embeddings = encoder.pp("embeddings");
        let scale = 1.0 / (head_size as f64).sqrt();
        let layers = (0..config.num_hidden_layers)
            .map(|index| {
                let vb = encoder.pp(format!("encoder.layer.{index}"));
                let own = vb.pp("attention.self");
                let weight = |name: &str| own.get((hidden, hidden), &format!("{name}.weight"));
                let bias = |name: &str| own.get(hidden, &format!("{name}.bias"));
                let query =
                    Linear::new((weight("query")? * scale)?, Some((bias("query")? * scale)?));
                let key_value = Linear::new(
                    Tensor::cat(&[weight("key")?, weight("value")?], 0)?,
                    Some(Tensor::cat(&[bias("key")?, bias("value")?], 0)?),
                );
                Ok(Layer {
                    query,
                    key_value,
                    attention_output: candle_nn::linear(
                        hidden,
                        hidden,
                        vb.pp("attention.output.dense"),
                    )?,
                    attention_norm: norm(vb.pp("attention.output.LayerNorm"))?,
                    intermediate: candle_nn::linear(
                        hidden,
                        config.intermediate_size,
                        vb.pp("intermediate.dense"),
                    )?,
                    output: candle_nn::linear(
                        config.intermediate_size,
                        hidden,
                        vb.pp("output.dense"),
                    )?,
                    output_norm: norm(vb.pp("output.LayerNorm"))?,
                })
            })
            .collect::<Result<Vec<Layer>>>()?;
        Ok(BertEncoder {
            word_embeddings: candle_nn::embedding(
                config.vocab_size,
                hidden,
                embeddings.pp("word_embeddings"),
            )?,
            position_embeddings: candle_nn::embedding(
                config.max_position_embeddings,
                hidden,
                embeddings.pp("position_embeddings"),
            )?,
            token_type_embeddings: candle_nn::embedding(
                config.type_vocab_size,
                hidden,
                embeddings.pp("token_type_embeddings"),
            )?,
            embeddings_norm: norm(embeddings.pp("LayerNorm"))?,
            layers,
            heads: config.num_attention_heads,
            head_size,
            activation: config.hidden_act,
        })
    }

    /// The last layer's hidden states `[batch, length, size]` for token ids, token type ids
    /// and attention mask (1 for a token, 0 for padding), all `[batch, length]` u32; with
    /// `first_only`, the last layer is computed for the first token (`[CLS]`) alone and the
    /// result is `[batch, 1, size]`.
    pub(crate) fn hidden_states(
        &self,
        ids: &Tensor,
        types: &Tensor,
        mask: &Tensor,
        first_only: bool,
    ) -> Result<Tensor> {
        let (batch, length) = ids.dims2()?;
        let positions = Tensor::arange(0u32, length as u32, ids.device())?;
        let embedded = self
            .word_embeddings
            .forward(ids)?
            .add(&self.token_type_embeddings.forward(types)?)?
            .broadcast_add(&self.position_embeddings.forward(&positions)?)?;
        let mut hidden = self.embeddings_norm.forward(&embedded)?;
        // Padding gets the lowest score before the softmax, as in Hugging Face's BERT.
        let mask = mask
            .to_dtype(DType::F32)?
            .affine(-1.0, 1.0)?
            .affine(f64::from(f32::MIN), 0.0)?
            .reshape((batch, 1, 1, length))?;
        for (index, layer) in self.layers.iter().enumerate() {
            let last = index + 1 == self.layers.len();
            hidden = self.layer(layer, &hidden, &mask, first_only && last)?;
        }
        Ok(hidden)
    }

    /// One encoder layer over `hidden` `[batch, length, size]`; with `first_only`, its output
    /// for the first token alone (`[batch, 1, size]`).
    fn layer(
        &self,
        layer: &Layer,
        hidden: &Tensor,
        mask: &Tensor,
        first_only: bool,
    ) -> Result<Tensor> {
        let (batch, length, size) = hidden.dims3()?;
        let queries_in =
            if first_only { hidden.narrow(1, 0, 1)?.contiguous()? } else { hidden.clone() };
        let query_length = queries_in.dim(1)?;
        let query = layer
            .query
            .forward(&queries_in)?
            .reshape((batch, query_length, self.heads, self.head_size))?
            .transpose(1, 2)?
            .contiguous()?;
        let key_value = layer
            .key_value
            .forward(hidden)?
            .reshape((batch, length, 2, self.heads, self.head_size))?
            .permute((2, 0, 3, 1, 4))?
            .contiguous()?;
        let (key, value) = (key_value.get(0)?, key_value.get(1)?);
        let weights = query.matmul(&key.t()?)?;
        weights.inplace_op2(mask, &MaskedSoftmax)?;
        let context =
            weights.matmul(&value)?.transpose(1, 2)?.reshape((batch, query_length, size))?;
        let attended = layer
            .attention_norm
            .forward(&layer.attention_output.forward(&context)?.add(&queries_in)?)?;
        let inner = layer.intermediate.forward(&attended)?;
        let inner = match self.activation {
            HiddenAct::Gelu => {
                let inner = inner.contiguous()?;
                inner.inplace_op1(&ParallelGeluErf)?;
                inner
            }
            HiddenAct::GeluApproximate => inner.gelu()?,
            HiddenAct::Relu => inner.relu()?,
        };
        layer.output_norm.forward(&layer.output.forward(&inner)?.add(&attended)?)
    }
}

/// The exact GELU, `x · (1 + erf(x / √2)) / 2`, in place, over chunks of the tensor in
/// parallel.
struct ParallelGeluErf;

/// Values per parallel task: small enough to share the work, large enough to be worth it.
const GELU_CHUNK: usize = 16 * 1024;

impl InplaceOp1 for ParallelGeluErf {
    fn name(&self) -> &'static str {
        "parallel-gelu-erf"
    }

    fn cpu_fwd(&self, storage: &mut CpuStorage, layout: &Layout) -> Result<()> {
        let dtype = storage.dtype();
        let CpuStorage::F32(values) = storage else {
            candle_core::bail!("parallel-gelu-erf takes f32, not {dtype:?}");
        };
        let Some((start, end)) = layout.contiguous_offsets() else {
            candle_core::bail!("parallel-gelu-erf takes a contiguous tensor");
        };
        values[start..end].par_chunks_mut(GELU_CHUNK).for_each(crate::vector_math::gelu_erf);
        Ok(())
    }
}

/// Attention weights from scores `[batch, heads, queries, keys]`, in place: the softmax over
/// keys of the scores plus the additive padding mask `[batch, 1, 1, keys]`, rows in parallel.
struct MaskedSoftmax;

impl InplaceOp2 for MaskedSoftmax {
    fn name(&self) -> &'static str {
        "masked-softmax"
    }

    fn cpu_fwd(
        &self,
        scores: &mut CpuStorage,
        scores_layout: &Layout,
        mask: &CpuStorage,
        mask_layout: &Layout,
    ) -> Result<()> {
        let (dtype, mask_dtype) = (scores.dtype(), mask.dtype());
        let (CpuStorage::F32(scores), CpuStorage::F32(mask)) = (scores, mask) else {
            candle_core::bail!("masked-softmax takes f32, not {dtype:?} and {mask_dtype:?}");
        };
        let (Some((start, end)), Some((mask_start, mask_end))) =
            (scores_layout.contiguous_offsets(), mask_layout.contiguous_offsets())
        else {
            candle_core::bail!("masked-softmax takes contiguous tensors");
        };
        let (batch, heads, queries, keys) = scores_layout.shape().dims4()?;
        if mask_layout.shape().dims4()? != (batch, 1, 1, keys) {
            candle_core::bail!(
                "masked-softmax: a mask of shape {:?} for scores of shape {:?}",
                mask_layout.shape(),
                scores_layout.shape()
            );
        }
        let mask = &mask[mask_start..mask_end];
        let rows_per_item = heads * queries;
        let arch = pulp::Arch::new();
        scores[start..end].par_chunks_mut(keys.max(1)).enumerate().for_each(|(row, scores)| {
            let item = row / rows_per_item.max(1);
            crate::vector_math::masked_softmax(arch, scores, &mask[item * keys..(item + 1) * keys]);
        });
        Ok(())
    }
}
