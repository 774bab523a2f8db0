//! `one_hot`: class indices to rows of zeros with a one at the class.

use crate::Tensor;
use crate::element::Float;
use crate::ops::index::IndexElement;
use crate::shape::OrPanic;
use crate::shape::{Dim, FixedDim, ShapeError};

/// Class indices `(B,)` as one-hot rows `(B, C)` of floats, as
/// `F.one_hot(indices, C).float()`, the class count `C` a static dimension.
///
/// # Errors
/// PyTorch's messages: `Class values must be non-negative.` and `Class
/// values must be smaller than num_classes.`
///
/// ```
/// use shaped::nn::try_one_hot;
/// use shaped::{Const, Shape, Tensor};
/// let labels = Tensor::<i64, Shape![3]>::from_vec(vec![2, 0, 1]);
/// let y: Tensor<f32, Shape![3, 3]> = try_one_hot::<f32, Const<3>, _, _>(&labels).unwrap();
/// assert_eq!(y.to_vec(), vec![0., 0., 1., 1., 0., 0., 0., 1., 0.]);
/// let bad = Tensor::<i64, Shape![1]>::from_vec(vec![3]);
/// assert_eq!(try_one_hot::<f32, Const<3>, _, _>(&bad).unwrap_err().to_string(),
///     "Class values must be smaller than num_classes.");
/// ```
pub fn try_one_hot<T: Float, C: FixedDim, B: Dim, I: IndexElement>(
    indices: &Tensor<I, (B,)>,
) -> Result<Tensor<T, (B, C)>, ShapeError> {
    let labels: Vec<i64> = indices.to_vec().into_iter().map(Into::into).collect();
    let mut data = vec![T::zero(); labels.len() * C::N];
    for (row, &class) in labels.iter().enumerate() {
        if class < 0 {
            return Err(ShapeError::Invalid(
                "Class values must be non-negative.".into(),
            ));
        }
        if class as usize >= C::N {
            return Err(ShapeError::Invalid(
                "Class values must be smaller than num_classes.".into(),
            ));
        }
        data[row * C::N + class as usize] = T::one();
    }
    Tensor::try_from_vec(data, &[labels.len(), C::N])
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
pub fn one_hot<T: Float, C: FixedDim, B: Dim, I: IndexElement>(
    indices: &Tensor<I, (B,)>,
) -> Tensor<T, (B, C)> {
    try_one_hot(indices).or_panic()
}
