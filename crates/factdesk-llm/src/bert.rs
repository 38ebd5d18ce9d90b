//! BERT with a sequence-classification head (Hugging Face's `BertForSequenceClassification`
//! weights), written for inference in f32 on a small CPU.
//!
//! The arithmetic is BERT's; the order of work is chosen for two cores:
//! - keys and values come from one projection, and the scale `1/√head size` is folded into the
//!   query weights when loading;
//! - the padding mask is added and the attention softmax taken in one pass over the scores, in
//!   place, rows in parallel (no intermediate tensors);
//! - each encoder projection's bias is added into its product in place, with the residual
//!   where one follows and with the exact (erf) GELU over the intermediate activations, rows in
//!   parallel (no tensor for the sum: every new tensor is memory to fault in and clear; the
//!   approximate GELU and ReLU, which no model Factdesk ships uses, and the pooler and the
//!   classifier keep candle's operations);
//! - both with the branch-free `exp` and `erf` of `vector_math`, which the compiler vectorises;
//! - for the classifier, the last layer is computed for the `[CLS]` token only, the one it
//!   reads (its keys and values still come from every token).
//!
//! It knows nothing of NLI or similarity: it turns token ids into logits (`BertClassifier`, the
//! cross-encoder's) or hidden states (`BertEncoder`, MiniLM's sentence embeddings, which read
//! every token of the last layer). The cross-encoder's and the embeddings' tests hold it to
//! candle-transformers' `BertModel` on the same weights.

use candle_core::backend::BackendStorage;
use candle_core::{CpuStorage, DType, InplaceOp2, InplaceOp3, Layout, Module, Result, Tensor};
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
        let query = project(&layer.query, &queries_in, After::Bias)?
            .reshape((batch, query_length, self.heads, self.head_size))?
            .transpose(1, 2)?
            .contiguous()?;
        let key_value = project(&layer.key_value, hidden, After::Bias)?
            .reshape((batch, length, 2, self.heads, self.head_size))?
            .permute((2, 0, 3, 1, 4))?
            .contiguous()?;
        let (key, value) = (key_value.get(0)?, key_value.get(1)?);
        let weights = query.matmul(&key.t()?)?;
        weights.inplace_op2(mask, &MaskedSoftmax)?;
        let context =
            weights.matmul(&value)?.transpose(1, 2)?.reshape((batch, query_length, size))?;
        let attended = layer.attention_norm.forward(&project(
            &layer.attention_output,
            &context,
            After::Residual(&queries_in),
        )?)?;
        let inner = match self.activation {
            HiddenAct::Gelu => project(&layer.intermediate, &attended, After::GeluErf)?,
            HiddenAct::GeluApproximate => layer.intermediate.forward(&attended)?.gelu()?,
            HiddenAct::Relu => layer.intermediate.forward(&attended)?.relu()?,
        };
        layer.output_norm.forward(&project(&layer.output, &inner, After::Residual(&attended))?)
    }
}

/// What [`project`] adds to a product besides the bias.
enum After<'t> {
    /// The bias alone.
    Bias,
    /// The bias and a residual of the product's shape.
    Residual(&'t Tensor),
    /// The bias, then the exact GELU.
    GeluErf,
}

/// `linear` applied to `x` `[batch, length, in]`: the product `x · weightᵀ`, then its bias (and
/// what `after` says) added in place.
fn project(linear: &Linear, x: &Tensor, after: After) -> Result<Tensor> {
    let (batch, length, size) = x.dims3()?;
    let product = x.reshape((batch * length, size))?.matmul(&linear.weight().t()?)?.reshape((
        batch,
        length,
        (),
    ))?;
    let Some(bias) = linear.bias() else {
        candle_core::bail!("a BERT projection without a bias");
    };
    match after {
        After::Bias => product.inplace_op2(bias, &AddBias { gelu: false })?,
        After::GeluErf => product.inplace_op2(bias, &AddBias { gelu: true })?,
        After::Residual(residual) => {
            product.inplace_op3(bias, &residual.contiguous()?, &AddBiasResidual)?
        }
    }
    Ok(product)
}

/// Values per parallel task: small enough to share the work, large enough to be worth it.
const CHUNK: usize = 16 * 1024;

/// How many values a chunk of whole rows of `size` holds: about [`CHUNK`].
fn chunk_len(size: usize) -> usize {
    let size = size.max(1);
    (CHUNK / size).max(1) * size
}

/// The values of rows of `size`, in chunks of [`chunk_len`] for tasks in parallel.
fn row_chunks(values: &mut [f32], size: usize) -> rayon::slice::ChunksMut<'_, f32> {
    values.par_chunks_mut(chunk_len(size))
}

/// The f32 values of a contiguous tensor's storage, or an error naming `op`.
fn contiguous<'s>(op: &str, storage: &'s CpuStorage, layout: &Layout) -> Result<&'s [f32]> {
    let dtype = storage.dtype();
    let CpuStorage::F32(values) = storage else {
        candle_core::bail!("{op} takes f32, not {dtype:?}");
    };
    let Some((start, end)) = layout.contiguous_offsets() else {
        candle_core::bail!("{op} takes contiguous tensors");
    };
    Ok(&values[start..end])
}

/// The f32 values of a contiguous tensor's storage, to change in place, or an error naming `op`.
fn contiguous_mut<'s>(
    op: &str,
    storage: &'s mut CpuStorage,
    layout: &Layout,
) -> Result<&'s mut [f32]> {
    let dtype = storage.dtype();
    let CpuStorage::F32(values) = storage else {
        candle_core::bail!("{op} takes f32, not {dtype:?}");
    };
    let Some((start, end)) = layout.contiguous_offsets() else {
        candle_core::bail!("{op} takes contiguous tensors");
    };
    Ok(&mut values[start..end])
}

/// The values of a bias `[size]` for the rows of a tensor laid out as `rows`, or an error naming
/// `op` when the tensor's rows are not of that size.
fn bias_of_rows<'s>(
    op: &str,
    bias: &'s CpuStorage,
    bias_layout: &Layout,
    rows: &Layout,
) -> Result<&'s [f32]> {
    let bias = contiguous(op, bias, bias_layout)?;
    if rows.shape().dims().last() != Some(&bias.len()) {
        candle_core::bail!("{op}: a bias of {} for rows of {:?}", bias.len(), rows.shape());
    }
    Ok(bias)
}

/// Adds a bias `[size]` to every row of a `[.., size]` tensor in place, rows in parallel; with
/// `gelu`, then the exact GELU, `x · (1 + erf(x / √2)) / 2`.
struct AddBias {
    gelu: bool,
}

impl InplaceOp2 for AddBias {
    fn name(&self) -> &'static str {
        if self.gelu { "add-bias-gelu-erf" } else { "add-bias" }
    }

    fn cpu_fwd(
        &self,
        values: &mut CpuStorage,
        layout: &Layout,
        bias: &CpuStorage,
        bias_layout: &Layout,
    ) -> Result<()> {
        let bias = bias_of_rows(self.name(), bias, bias_layout, layout)?;
        let size = bias.len();
        let values = contiguous_mut(self.name(), values, layout)?;
        row_chunks(values, size).for_each(|chunk| {
            for row in chunk.chunks_exact_mut(size) {
                row.iter_mut().zip(bias).for_each(|(value, bias)| *value += bias);
            }
            if self.gelu {
                crate::vector_math::gelu_erf(chunk);
            }
        });
        Ok(())
    }
}

/// Adds a bias `[size]` to every row of a `[.., size]` tensor and a residual of its shape, in
/// place, rows in parallel.
struct AddBiasResidual;

impl InplaceOp3 for AddBiasResidual {
    fn name(&self) -> &'static str {
        "add-bias-residual"
    }

    fn cpu_fwd(
        &self,
        values: &mut CpuStorage,
        layout: &Layout,
        bias: &CpuStorage,
        bias_layout: &Layout,
        residual: &CpuStorage,
        residual_layout: &Layout,
    ) -> Result<()> {
        if residual_layout.shape() != layout.shape() {
            candle_core::bail!(
                "add-bias-residual: a residual of shape {:?} for {:?}",
                residual_layout.shape(),
                layout.shape()
            );
        }
        let bias = bias_of_rows(self.name(), bias, bias_layout, layout)?;
        let residual = contiguous(self.name(), residual, residual_layout)?;
        let size = bias.len();
        let values = contiguous_mut(self.name(), values, layout)?;
        let residuals = residual.par_chunks(chunk_len(size));
        row_chunks(values, size).zip(residuals).for_each(|(chunk, residual)| {
            for (row, residual) in chunk.chunks_exact_mut(size).zip(residual.chunks_exact(size)) {
                for ((value, bias), residual) in row.iter_mut().zip(bias).zip(residual) {
                    *value = *value + bias + residual;
                }
            }
        });
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
        let (batch, heads, queries, keys) = scores_layout.shape().dims4()?;
        if mask_layout.shape().dims4()? != (batch, 1, 1, keys) {
            candle_core::bail!(
                "masked-softmax: a mask of shape {:?} for scores of shape {:?}",
                mask_layout.shape(),
                scores_layout.shape()
            );
        }
        let mask = contiguous(self.name(), mask, mask_layout)?;
        let scores = contiguous_mut(self.name(), scores, scores_layout)?;
        let rows_per_item = heads * queries;
        let arch = pulp::Arch::new();
        scores.par_chunks_mut(keys.max(1)).enumerate().for_each(|(row, scores)| {
            let item = row / rows_per_item.max(1);
            crate::vector_math::masked_softmax(arch, scores, &mask[item * keys..(item + 1) * keys]);
        });
        Ok(())
    }
}
