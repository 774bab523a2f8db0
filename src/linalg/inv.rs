//! `inv`: the inverse of every square matrix of a batch, on any device
//! ([`Linalg::inv`]: faer on the CPU, cuBLAS's batched LU and inverse on
//! CUDA).

use super::generic::{check_batch_info, check_square_dims};
use super::primitives;
use super::{LinalgFloat, SquareMatrices, expect};
use crate::Tensor;
use crate::backend::Linalg;

/// The inverse of each matrix of `a` `(..., n, n)`.
///
/// # Errors
/// A non-square or rank < 2 shape (run time for `Dyn`/`DynRank`); an exactly
/// singular matrix, with PyTorch's message naming the batch element and the
/// zero diagonal element of its LU factorization.
///
/// ```
/// use shaped::{linalg, DynRank, Tensor};
/// let a = Tensor::<f64, DynRank>::try_from_vec(vec![1., 2., 2., 4.], &[1, 2, 2]).unwrap();
/// assert_eq!(linalg::try_inv(&a).unwrap_err().to_string(),
///     "linalg.inv: (Batch element 0): The diagonal element 2 is zero, the inversion could not be completed because the input matrix is singular.");
/// ```
pub fn try_inv<T: LinalgFloat, S: SquareMatrices, D: Linalg<T>>(
    a: &Tensor<T, S, D>,
) -> Result<Tensor<T, S, D>, D::Error>
where
    S::N: crate::Dim,
{
    let name = "linalg.inv";
    check_square_dims(a.dims(), name, "A")?;
    let (x, info) = primitives::inv(&a.share().into_dyn())?;
    check_batch_info(name, a.rank() - 2, &info, |k| {
        format!(
            "The diagonal element {k} is zero, the inversion could not be completed because the input matrix is singular."
        )
    })?;
    Ok(x.try_into_shape()?)
}

/// The inverse of each matrix of `a` `(..., n, n)`; panics where
/// [`try_inv`] errs.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f32, Shape![2, 2]>::from_vec(vec![4., 7., 2., 6.]);
/// let i = linalg::inv(&a).to_vec();
/// let want = [0.6, -0.7, -0.2, 0.4];
/// assert!(i.iter().zip(want).all(|(x, y)| (x - y).abs() < 1e-6));
/// ```
#[track_caller]
pub fn inv<T: LinalgFloat, S: SquareMatrices, D: Linalg<T>>(a: &Tensor<T, S, D>) -> Tensor<T, S, D>
where
    S::N: crate::Dim,
{
    expect(try_inv(a))
}
