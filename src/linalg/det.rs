//! `det` and `slogdet` of every square matrix of a batch, through LU.

use super::batch::{Operand, check_square, par_batches, tensor};
use super::{BatchOf, LinalgFloat, SquareMatrices, expect, plu};
use crate::ops::exec::Layout;
use crate::{ShapeError, Tensor};

/// The determinant of each matrix of `a` `(..., n, n)`, shape `(...)`. A
/// singular matrix has determinant 0 (not an error).
///
/// # Errors
/// A non-square or rank < 2 shape (checked at run time for `Dyn`/`DynRank`).
///
/// ```
/// use shaped::{linalg, DynRank, Tensor};
/// let a = Tensor::<f64, DynRank>::try_from_vec(vec![1., 2., 3., 4., 5., 6.], &[2, 3]).unwrap();
/// assert_eq!(linalg::try_det(&a).unwrap_err().to_string(),
///     "linalg.det: A must be batches of square matrices, but they are 2 by 3 matrices");
/// ```
pub fn try_det<T: LinalgFloat, S: SquareMatrices>(
    a: &Tensor<T, S>,
) -> Result<Tensor<T, BatchOf<S>>, ShapeError>
where
    S::N: crate::Dim,
{
    let (res, batch) = slogdet_core(a.layout(), "linalg.det")?;
    tensor(res.into_iter().map(|r| r.2).collect(), &batch)
}

/// The determinant of each matrix of `a`; panics where [`try_det`] errs.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f64, Shape![2, 2, 2]>::from_vec(vec![1., 2., 3., 4., 1., 2., 2., 4.]);
/// let d: Tensor<f64, Shape![2]> = linalg::det(&a);
/// assert!((d.to_vec()[0] + 2.0).abs() < 1e-12);
/// assert_eq!(d.to_vec()[1], 0.0);
/// ```
#[track_caller]
pub fn det<T: LinalgFloat, S: SquareMatrices>(a: &Tensor<T, S>) -> Tensor<T, BatchOf<S>>
where
    S::N: crate::Dim,
{
    expect(try_det(a))
}

/// The sign and the natural log of the absolute value of the determinant of
/// each matrix of `a` `(..., n, n)`. A singular matrix gives sign 0 and
/// log `-inf`, as PyTorch.
///
/// # Errors
/// As [`try_det`].
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f64, Shape![2, 2]>::from_vec(vec![0., 2., 3., 0.]);
/// let (sign, logabs) = linalg::try_slogdet(&a).unwrap();
/// assert_eq!(sign.item(), -1.0);
/// assert!((logabs.item() - 6f64.ln()).abs() < 1e-12);
/// ```
#[allow(clippy::type_complexity)]
pub fn try_slogdet<T: LinalgFloat, S: SquareMatrices>(
    a: &Tensor<T, S>,
) -> Result<(Tensor<T, BatchOf<S>>, Tensor<T, BatchOf<S>>), ShapeError>
where
    S::N: crate::Dim,
{
    let (res, batch) = slogdet_core(a.layout(), "linalg.slogdet")?;
    let sign = res.iter().map(|r| r.0).collect();
    let logabs = res.iter().map(|r| r.1).collect();
    Ok((tensor(sign, &batch)?, tensor(logabs, &batch)?))
}

/// `(sign, logabsdet)` of each matrix of `a`; panics where [`try_slogdet`]
/// errs.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f32, Shape![2, 2]>::from_vec(vec![1., 2., 2., 4.]);
/// let (sign, logabs) = linalg::slogdet(&a);
/// assert_eq!((sign.item(), logabs.item()), (0.0, f32::NEG_INFINITY));
/// ```
#[track_caller]
#[allow(clippy::type_complexity)]
pub fn slogdet<T: LinalgFloat, S: SquareMatrices>(
    a: &Tensor<T, S>,
) -> (Tensor<T, BatchOf<S>>, Tensor<T, BatchOf<S>>)
where
    S::N: crate::Dim,
{
    expect(try_slogdet(a))
}

/// The parity of a permutation: `true` when odd.
pub(crate) fn odd(perm: &[usize]) -> bool {
    let mut seen = vec![false; perm.len()];
    let mut odd = false;
    for start in 0..perm.len() {
        let mut len = 0;
        let mut i = start;
        while !seen[i] {
            seen[i] = true;
            i = perm[i];
            len += 1;
        }
        if len > 0 && len % 2 == 0 {
            odd = !odd;
        }
    }
    odd
}

#[allow(clippy::type_complexity)]
fn slogdet_core<T: LinalgFloat>(
    a: Layout<'_, T>,
    name: &str,
) -> Result<(Vec<(T, T, T)>, Vec<usize>), ShapeError> {
    let a = Operand::matrices(a, name, "A")?;
    let n = check_square(&a, name, "A")?;
    let batch = a.batch().to_vec();
    let offs = a.offsets(&batch);
    let res = par_batches(name, &batch, |i| {
        let (lu, zero) = plu(&a.mat(offs[i]));
        if zero.is_some() {
            return Ok((T::zero(), T::neg_infinity(), T::zero()));
        }
        let u = lu.U();
        let mut sign = if odd(lu.P().arrays().0) {
            -T::one()
        } else {
            T::one()
        };
        let mut logabs = T::zero();
        let mut det = sign;
        for k in 0..n {
            let d = u[(k, k)];
            det *= d;
            if d < T::zero() {
                sign = -sign;
            }
            logabs += d.abs().ln();
        }
        Ok((sign, logabs, det))
    })?;
    Ok((res, batch))
}
