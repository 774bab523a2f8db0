//! The fixed batch the MiniLM benchmarks (examples/bench_bert.rs,
//! examples/bench_finetune.rs) run on, the same as benches/compare_bert.py's
//! `token_ids`: `[CLS] words [SEP]` rows, no padding.

use shaped::{Dyn, Tensor};

/// A `(B, T)` tensor of element `E`.
type Rows<E> = Tensor<E, (Dyn, Dyn)>;

/// Token ids `(B, T)` and an all-true mask `(B, T)`.
pub fn ids_and_mask(b: usize, t: usize) -> (Rows<i64>, Rows<bool>) {
    let ids: Vec<i64> = (0..b * t)
        .map(|i| match i % t {
            0 => 101,
            j if j == t - 1 => 102,
            j => 1000 + ((i * 7919 + j * 104729) % 28000) as i64,
        })
        .collect();
    (
        Tensor::try_from_vec(ids, &[b, t]).expect("(B, T) ids"),
        Tensor::try_from_vec(vec![true; b * t], &[b, t]).expect("(B, T) mask"),
    )
}
