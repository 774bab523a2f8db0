//! `pinv`: the Moore-Penrose pseudo-inverse.

use super::batch::{Operand, dims_with, stack, tensor};
use super::lstsq::pinv_of;
use super::{LinalgFloat, Matrices, Transposed, expect};
use crate::{ShapeError, Tensor};

/// The pseudo-inverse `(..., n, m)` of each matrix of `a` `(..., m, n)`,
/// through the SVD; singular values at or below `eps · max(m, n) · σ_max`
/// are taken as zero (PyTorch's default `rtol`).
///
/// # Errors
/// A shape of rank < 2; no convergence of the SVD.
///
/// ```
/// use shaped::{linalg, DynRank, Tensor};
/// let a = Tensor::<f64, DynRank>::try_zeros(&[4]).unwrap();
/// assert_eq!(linalg::try_pinv(&a).unwrap_err().to_string(),
///     "linalg.pinv(Double{[4]}): expected a tensor with 2 or more dimensions of float, double, cfloat or cdouble types");
/// ```
pub fn try_pinv<T: LinalgFloat, S: Matrices>(
    a: &Tensor<T, S>,
) -> Result<Tensor<T, Transposed<S>>, ShapeError> {
    let name = "linalg.pinv";
    if a.dims().len() < 2 {
        let ty = if std::mem::size_of::<T>() == 4 {
            "Float"
        } else {
            "Double"
        };
        return Err(ShapeError::Invalid(format!(
            "{name}({ty}{{{:?}}}): expected a tensor with 2 or more dimensions of float, double, cfloat or cdouble types",
            a.dims()
        )));
    }
    let a = Operand::matrices(a.layout(), name, "A")?;
    let (m, n) = (a.rows(), a.cols());
    let ps = a.each(name, |x| pinv_of(&x))?;
    tensor(stack(&ps, m * n), &dims_with(a.batch(), &[n, m]))
}

/// The pseudo-inverse; panics where [`try_pinv`] errs.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f64, Shape![2, 3]>::from_vec(vec![2., 0., 0., 0., 0., 0.]);
/// let p: Tensor<f64, Shape![3, 2]> = linalg::pinv(&a);
/// assert_eq!(p.to_vec(), vec![0.5, 0., 0., 0., 0., 0.]);
/// ```
#[track_caller]
pub fn pinv<T: LinalgFloat, S: Matrices>(a: &Tensor<T, S>) -> Tensor<T, Transposed<S>> {
    expect(try_pinv(a))
}
