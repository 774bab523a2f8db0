//! Classification accuracy from logits and class indices, through `argmax`.

use crate::Tensor;
use crate::backend::Backend;
use crate::element::Float;
use crate::ops::index::IndexElement;
use crate::shape::Dim;
use crate::tensor::host;

/// The number of rows of `logits` `(B, C)` whose largest entry (the first
/// one, on ties, as `argmax`) is at the class in `labels` `(B,)`.
///
/// # Panics
/// When `labels` has not one entry per row (`Dyn` sizes).
///
/// ```
/// use shaped::nn::correct;
/// use shaped::{Shape, Tensor};
/// let logits = Tensor::<f32, Shape![3, 2]>::from_vec(vec![0., 1., 5., 2., 3., 3.]);
/// let labels = Tensor::<i64, Shape![3]>::from_vec(vec![1, 1, 0]);
/// assert_eq!(correct(&logits, &labels), 2);
/// ```
#[track_caller]
pub fn correct<T: Float, B: Dim, C: Dim, I: IndexElement, D>(
    logits: &Tensor<T, (B, C), D>,
    labels: &Tensor<I, (B,), D>,
) -> usize
where
    D: Backend<T> + Backend<I> + Backend<i64>,
{
    let predicted =
        host::to_host(&logits.argmax_dim::<1>()).expect("a read-back of the predicted classes");
    let labels = host::to_host(labels).expect("a read-back of the labels");
    assert_eq!(
        predicted.len(),
        labels.len(),
        "one label per row of logits: {} rows, {} labels",
        predicted.len(),
        labels.len()
    );
    predicted
        .iter()
        .zip(labels)
        .filter(|&(&p, l)| p == l.into())
        .count()
}

/// The fraction of rows of `logits` `(B, C)` classified as `labels` `(B,)`
/// says (see [`correct`]); `0` for an empty batch.
///
/// # Panics
/// When `labels` has not one entry per row (`Dyn` sizes).
///
/// ```
/// use shaped::nn::accuracy;
/// use shaped::{Shape, Tensor};
/// let logits = Tensor::<f32, Shape![2, 2]>::from_vec(vec![0., 1., 5., 2.]);
/// let labels = Tensor::<i64, Shape![2]>::from_vec(vec![1, 1]);
/// assert_eq!(accuracy(&logits, &labels), 0.5);
/// ```
#[track_caller]
pub fn accuracy<T: Float, B: Dim, C: Dim, I: IndexElement, D>(
    logits: &Tensor<T, (B, C), D>,
    labels: &Tensor<I, (B,), D>,
) -> f64
where
    D: Backend<T> + Backend<I> + Backend<i64>,
{
    let rows = logits.dims()[0];
    if rows == 0 {
        return 0.0;
    }
    correct(logits, labels) as f64 / rows as f64
}
