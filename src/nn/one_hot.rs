//! `one_hot`: class indices to rows of zeros with a one at the class.

use crate::Tensor;
use crate::backend::Backend;
use crate::element::Float;
use crate::ops::index::IndexElement;
use crate::shape::OrPanic;
use crate::shape::{Dim, FixedDim, ShapeError};
use crate::tensor::host;

/// Class indices `(B,)` as one-hot rows `(B, C)` of floats, as
/// `F.one_hot(indices, C).float()`, the class count `C` a static dimension,
/// on the indices' device (the rows are built on the host from the labels,
/// which are read back to be checked, then uploaded).
///
/// # Errors
/// PyTorch's messages: `Class values must be non-negative.` and `Class
/// values must be smaller than num_classes.`
///
/// ```
/// use shaped::nn::try_one_hot;
/// use shaped::{Const, Shape, Tensor};
/// let labels = Tensor::<i64, Shape![3]>::from_vec(vec![2, 0, 1]);
/// let y: Tensor<f32, Shape![3, 3]> = try_one_hot::<f32, Const<3>, _, _, _>(&labels).unwrap();
/// assert_eq!(y.to_vec(), vec![0., 0., 1., 1., 0., 0., 0., 1., 0.]);
/// let bad = Tensor::<i64, Shape![1]>::from_vec(vec![3]);
/// assert_eq!(try_one_hot::<f32, Const<3>, _, _, _>(&bad).unwrap_err().to_string(),
///     "Class values must be smaller than num_classes.");
/// ```
pub fn try_one_hot<T: Float, C: FixedDim, B: Dim, I: IndexElement, D>(
    indices: &Tensor<I, (B,), D>,
) -> Result<Tensor<T, (B, C), D>, D::Error>
where
    D: Backend<T> + Backend<I>,
{
    let labels: Vec<i64> = host::to_host(indices)?
        .into_iter()
        .map(Into::into)
        .collect();
    let mut data = vec![T::zero(); labels.len() * C::N];
    for (row, &class) in labels.iter().enumerate() {
        if class < 0 {
            return Err(ShapeError::Invalid("Class values must be non-negative.".into()).into());
        }
        if class as usize >= C::N {
            return Err(ShapeError::Invalid(
                "Class values must be smaller than num_classes.".into(),
            )
            .into());
        }
        data[row * C::N + class as usize] = T::one();
    }
    host::from_host(indices, data, &[labels.len(), C::N])
}

/// [`try_one_hot`], panicking on error.
///
/// # Panics
/// When an index is negative or not below `C`.
///
/// ```
/// use shaped::nn::one_hot;
/// use shaped::{Const, Shape, Tensor};
/// let labels = Tensor::<i64, Shape![2]>::from_vec(vec![1, 0]);
/// let y: Tensor<f64, Shape![2, 2]> = one_hot(&labels);
/// assert_eq!(y.to_vec(), vec![0., 1., 1., 0.]);
/// ```
#[track_caller]
pub fn one_hot<T: Float, C: FixedDim, B: Dim, I: IndexElement, D>(
    indices: &Tensor<I, (B,), D>,
) -> Tensor<T, (B, C), D>
where
    D: Backend<T> + Backend<I>,
{
    try_one_hot(indices).or_panic()
}
