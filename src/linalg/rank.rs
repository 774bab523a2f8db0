//! `matrix_rank` and `cond`, through the singular values (and, for `cond`
//! in norms other than 2, the inverse).

use super::batch::{Operand, check_square, par_batches, tensor};
use super::norm::MatrixNorm;
use super::svd::thin;
use super::{BatchOf, LinalgFloat, Matrices, expect, plu};
use crate::{ShapeError, Tensor};

/// The tolerances of [`matrix_rank`]: singular values at or below
/// `max(atol, rtol · σ_max)` count as zero. PyTorch's defaults: with neither
/// given, `rtol = eps · max(m, n)`; with only `atol` (> 0), `rtol = 0`.
///
/// ```
/// let t = shaped::linalg::RankTol::default();
/// assert_eq!((t.atol, t.rtol), (None, None));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RankTol {
    /// The absolute tolerance.
    pub atol: Option<f64>,
    /// The tolerance relative to the largest singular value.
    pub rtol: Option<f64>,
}

/// The numerical rank of each matrix of `a` `(..., m, n)`: the number of
/// singular values above the tolerance `tol`, as PyTorch's
/// `linalg.matrix_rank(A, atol=, rtol=)`.
///
/// # Errors
/// A shape of rank < 2 (PyTorch's message); no convergence of the SVD.
///
/// ```
/// use shaped::{linalg::{self, RankTol}, DynRank, Tensor};
/// let a = Tensor::<f64, DynRank>::try_zeros(&[3]).unwrap();
/// assert_eq!(linalg::try_matrix_rank(&a, RankTol::default()).unwrap_err().to_string(),
///     "torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions.");
/// ```
pub fn try_matrix_rank<T: LinalgFloat, S: Matrices>(
    a: &Tensor<T, S>,
    tol: RankTol,
) -> Result<Tensor<i64, BatchOf<S>>, ShapeError> {
    let name = "torch.linalg.matrix_rank";
    let a = Operand::matrices(a.layout(), name, "input")?;
    let (m, n) = (a.rows(), a.cols());
    let atol = tol.atol.unwrap_or(0.0);
    let rtol = match (tol.atol, tol.rtol) {
        (_, Some(r)) => r,
        (Some(at), None) if at > 0.0 => 0.0,
        _ => {
            num_traits::ToPrimitive::to_f64(&<T as num_traits::Float>::epsilon()).unwrap_or(0.0)
                * m.max(n) as f64
        }
    };
    let ranks = a.each(name, |x| {
        let s = if m == 0 || n == 0 {
            Vec::new()
        } else {
            thin(&x)?.1
        };
        let f = |v: &T| num_traits::ToPrimitive::to_f64(v).unwrap_or(f64::NAN);
        let smax = s.first().map_or(0.0, f);
        let cut = atol.max(rtol * smax);
        Ok(s.iter().filter(|v| f(v) > cut).count() as i64)
    })?;
    tensor(ranks, a.batch())
}

/// The rank of each matrix; panics where [`try_matrix_rank`] errs.
///
/// ```
/// use shaped::{linalg::{self, RankTol}, Shape, Tensor};
/// let a = Tensor::<f64, Shape![2, 2, 3]>::from_vec(vec![1., 2., 3., 2., 4., 6., 1., 0., 0., 0., 1., 0.]);
/// let r: Tensor<i64, Shape![2]> = linalg::matrix_rank(&a, RankTol::default());
/// assert_eq!(r.to_vec(), vec![1, 2]);
/// ```
#[track_caller]
pub fn matrix_rank<T: LinalgFloat, S: Matrices>(
    a: &Tensor<T, S>,
    tol: RankTol,
) -> Tensor<i64, BatchOf<S>> {
    expect(try_matrix_rank(a, tol))
}

/// PyTorch's spelling of a norm in `cond`'s messages.
fn ord_text(p: MatrixNorm) -> &'static str {
    match p {
        MatrixNorm::Fro => "fro",
        MatrixNorm::Nuc => "nuc",
        MatrixNorm::One => "1",
        MatrixNorm::NegOne => "-1",
        MatrixNorm::Inf => "inf",
        MatrixNorm::NegInf => "-inf",
        MatrixNorm::Two => "2",
        MatrixNorm::NegTwo => "-2",
    }
}

/// The condition number of each matrix of `a` in the norm `p`, as
/// PyTorch's `linalg.cond(A, p)`: for `None` or `Two`, `σ_max / σ_min` (any
/// `m` by `n`); for `NegTwo`, `σ_min / σ_max`; for the other norms
/// `‖A‖ ‖A⁻¹‖` of square matrices, `inf` where `A` is singular.
///
/// # Errors
/// A shape of rank < 2; a non-square matrix for a norm other than ±2;
/// PyTorch's messages.
///
/// ```
/// use shaped::{linalg::{self, MatrixNorm}, DynRank, Tensor};
/// let a = Tensor::<f64, DynRank>::try_zeros(&[2, 3]).unwrap();
/// assert_eq!(linalg::try_cond(&a, Some(MatrixNorm::One)).unwrap_err().to_string(),
///     "linalg.cond(ord=1): A must be batches of square matrices, but they are 2 by 3 matrices");
/// let s = Tensor::<f64, DynRank>::try_from_vec(vec![1., 2., 2., 4.], &[2, 2]).unwrap();
/// assert_eq!(linalg::try_cond(&s, Some(MatrixNorm::Fro)).unwrap().to_vec(), vec![f64::INFINITY]);
/// ```
pub fn try_cond<T: LinalgFloat, S: Matrices>(
    a: &Tensor<T, S>,
    p: Option<MatrixNorm>,
) -> Result<Tensor<T, BatchOf<S>>, ShapeError> {
    if a.dims().len() < 2 {
        return Err(ShapeError::Invalid(
            "linalg.cond: The input tensor must have at least 2 dimensions.".into(),
        ));
    }
    let p = p.unwrap_or(MatrixNorm::Two);
    let name = format!("linalg.cond(ord={})", ord_text(p));
    if matches!(p, MatrixNorm::Two | MatrixNorm::NegTwo) {
        let op = Operand::matrices(a.layout(), &name, "A")?;
        let (m, n) = (op.rows(), op.cols());
        let vals = op.each("linalg.cond", |x| {
            let s = if m == 0 || n == 0 {
                Vec::new()
            } else {
                thin(&x)?.1
            };
            let (hi, lo) = (
                s.first().copied().unwrap_or(T::zero()),
                s.last().copied().unwrap_or(T::zero()),
            );
            Ok(if p == MatrixNorm::Two {
                hi / lo
            } else {
                lo / hi
            })
        })?;
        return tensor(vals, op.batch());
    }
    let op = Operand::matrices(a.layout(), &name, "A")?;
    check_square(&op, &name, "A")?;
    let batch = op.batch().to_vec();
    let offs = op.offsets(&batch);
    let vals = par_batches("linalg.cond", &batch, |i| {
        use faer::linalg::solvers::DenseSolveCore;
        let x = op.mat(offs[i]);
        if x.nrows() == 0 {
            return Ok(T::zero());
        }
        let (f, zero) = plu(&x);
        if zero.is_some() {
            return Ok(T::infinity());
        }
        let inv = f.inverse();
        Ok(super::norm::norm_of(&x, p)? * super::norm::norm_of(&inv, p)?)
    })?;
    tensor(vals, &batch)
}

/// The condition number; panics where [`try_cond`] errs.
///
/// ```
/// use shaped::{linalg::{self, MatrixNorm}, Shape, Tensor};
/// let a = Tensor::<f64, Shape![2, 2]>::from_vec(vec![2., 0., 0., 0.5]);
/// assert_eq!(linalg::cond(&a, None).item(), 4.);
/// assert_eq!(linalg::cond(&a, Some(MatrixNorm::Inf)).item(), 4.);
/// ```
#[track_caller]
pub fn cond<T: LinalgFloat, S: Matrices>(
    a: &Tensor<T, S>,
    p: Option<MatrixNorm>,
) -> Tensor<T, BatchOf<S>> {
    expect(try_cond(a, p))
}
