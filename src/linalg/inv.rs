//! `inv`: the inverse of every square matrix of a batch.

use faer::linalg::solvers::DenseSolveCore;

use super::batch::{Operand, check_square, par_batches, stack, tensor};
use super::{LinalgFloat, SquareMatrices, expect, plu};
use crate::ops::exec::Layout;
use crate::{ShapeError, Tensor};

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
pub fn try_inv<T: LinalgFloat, S: SquareMatrices>(
    a: &Tensor<T, S>,
) -> Result<Tensor<T, S>, ShapeError>
where
    S::N: crate::Dim,
{
    let (data, dims) = inv_core(a.layout())?;
    tensor(data, &dims)
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
pub fn inv<T: LinalgFloat, S: SquareMatrices>(a: &Tensor<T, S>) -> Tensor<T, S>
where
    S::N: crate::Dim,
{
    expect(try_inv(a))
}

fn inv_core<T: LinalgFloat>(a: Layout<'_, T>) -> Result<(Vec<T>, Vec<usize>), ShapeError> {
    let name = "linalg.inv";
    let a = Operand::matrices(a, name, "A")?;
    let n = check_square(&a, name, "A")?;
    let batch = a.batch().to_vec();
    let offs = a.offsets(&batch);
    let mats = par_batches(name, &batch, |i| {
        let (lu, zero) = plu(&a.mat(offs[i]));
        match zero {
            Some(k) => Err(format!(
                "The diagonal element {k} is zero, the inversion could not be completed because the input matrix is singular."
            )),
            None => Ok(lu.inverse()),
        }
    })?;
    Ok((stack(&mats, n * n), a.dims_vec()))
}
