//! The model's own `tokenizer.json` through Hugging Face's `tokenizers`
//! crate, set up as sentence-transformers runs it: truncation at 128
//! tokens, padding to the longest sentence of the batch.

use shaped::{Dyn, Tensor};
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

/// The longest input, in tokens (sentence-transformers' setting for this
/// model, and its `tokenizer.json`'s).
pub const MAX_TOKENS: usize = 128;

/// A tokenized batch: ids `(B, T)` and the attention mask `(B, T)` (true
/// for real tokens).
pub struct Batch {
    pub ids: Tensor<i64, (Dyn, Dyn)>,
    pub mask: Tensor<bool, (Dyn, Dyn)>,
}

/// Reads `tokenizer.json` from `model_dir`.
pub fn load(
    model_dir: &std::path::Path,
) -> Result<Tokenizer, Box<dyn std::error::Error + Send + Sync>> {
    let mut tok = Tokenizer::from_file(model_dir.join("tokenizer.json"))?;
    tok.with_truncation(Some(TruncationParams {
        max_length: MAX_TOKENS,
        ..Default::default()
    }))?;
    tok.with_padding(Some(PaddingParams {
        strategy: PaddingStrategy::BatchLongest,
        ..Default::default()
    }));
    Ok(tok)
}

/// Tokenizes `sentences` as one padded batch.
pub fn batch(
    tok: &Tokenizer,
    sentences: &[&str],
) -> Result<Batch, Box<dyn std::error::Error + Send + Sync>> {
    let enc = tok.encode_batch(sentences.to_vec(), true)?;
    let t = enc.iter().map(|e| e.get_ids().len()).max().unwrap_or(0);
    let b = enc.len();
    let ids: Vec<i64> = enc
        .iter()
        .flat_map(|e| e.get_ids().iter().map(|&i| i as i64))
        .collect();
    let mask: Vec<bool> = enc
        .iter()
        .flat_map(|e| e.get_attention_mask().iter().map(|&m| m != 0))
        .collect();
    Ok(Batch {
        ids: Tensor::try_from_vec(ids, &[b, t])?,
        mask: Tensor::try_from_vec(mask, &[b, t])?,
    })
}
