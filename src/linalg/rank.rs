//! `matrix_rank` and `cond`, through the singular values (and, for `cond`
//! in norms other than 2, the inverse).

use super::compose::{DynTensor, LinalgDevice, bin, scalar, select, un, view};
use super::generic::{check_matrices, check_square_dims};
use super::norm::{MatrixNorm, norm_of, svdvals_dyn};
use super::primitives;
use super::{BatchOf, LinalgFloat, Matrices, expect};
use crate::backend::op::table;
use crate::backend::op::{Reduction, ScalarRhs};
use crate::tensor::host;
use crate::tensor::pointwise;
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
/// Composed on every device: the singular values
/// ([`Linalg::svd`](crate::backend::Linalg::svd) without vectors), then the
/// tolerance from each matrix's largest (two scalar kernels on a view), a
/// comparison, a `where` into `i64` ones and zeros, and a sum: four small
/// kernels after the SVD on CUDA, and more passes than the CPU's former
/// per-matrix count.
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
pub fn try_matrix_rank<T: LinalgFloat, S: Matrices, D: LinalgDevice<T>>(
    a: &Tensor<T, S, D>,
    tol: RankTol,
) -> Result<Tensor<i64, BatchOf<S>, D>, D::Error> {
    let name = "torch.linalg.matrix_rank";
    check_matrices(a.dims(), name, "input")?;
    let r = a.rank();
    let (m, n) = (a.dims()[r - 2], a.dims()[r - 1]);
    let batch = &a.dims()[..r - 2];
    let atol = tol.atol.unwrap_or(0.0);
    let rtol = match (tol.atol, tol.rtol) {
        (_, Some(r)) => r,
        (Some(at), None) if at > 0.0 => 0.0,
        _ => {
            num_traits::ToPrimitive::to_f64(&<T as num_traits::Float>::epsilon()).unwrap_or(0.0)
                * m.max(n) as f64
        }
    };
    if m == 0 || n == 0 {
        let zeros = vec![0; batch.iter().product()];
        return host::from_host(a, zeros, batch);
    }
    // The singular values (descending), the tolerance from the first of
    // each matrix's (a view), and the count of those above it.
    let s = svdvals_dyn(a)?;
    let largest = first_last(&s).0;
    let scaled = un(ScalarRhs(table::Mul, T::from_f64(rtol)), &largest)?;
    let cut = un(ScalarRhs(table::Maximum, T::from_f64(atol)), &scaled)?;
    let cut = view(
        &cut,
        &[batch, &[1]].concat(),
        &[cut.strides(), &[0]].concat(),
        0,
    );
    let above: DynTensor<bool, D> = pointwise::compare(table::Greater, &s, &cut)?;
    let (one, zero) = (scalar(a, 1i64)?, scalar(a, 0i64)?);
    let counted: DynTensor<i64, D> = pointwise::select(table::Where, &above, &one, &zero)?;
    let mask: Vec<bool> = (0..r - 1).map(|d| d == r - 2).collect();
    crate::tensor::reduction::reduce(Reduction::Sum, &counted, &mask, false)
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
pub fn matrix_rank<T: LinalgFloat, S: Matrices, D: LinalgDevice<T>>(
    a: &Tensor<T, S, D>,
    tol: RankTol,
) -> Tensor<i64, BatchOf<S>, D> {
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
/// `‖A‖ ‖A⁻¹‖` of square matrices, `inf` where `A` is singular. Empty
/// matrices give 0 in every norm (PyTorch checks squareness only for `Fro`
/// and `Nuc` then).
///
/// Composed on every device: for `None` / `±Two` the singular values, then
/// one division of two views (σ_max, σ_min) of them; for the other norms
/// [`Linalg::inv`](crate::backend::Linalg::inv) (cuBLAS `getrfBatched` +
/// `getriBatched` on CUDA), the two matrix norms as in
/// [`try_matrix_norm`](super::try_matrix_norm), a multiplication, and where
/// a matrix is singular its `inf` written through a mask uploaded from the
/// host `info`. On the CPU the two norms are more passes than the former
/// per-matrix loop.
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
pub fn try_cond<T: LinalgFloat, S: Matrices, D: LinalgDevice<T>>(
    a: &Tensor<T, S, D>,
    p: Option<MatrixNorm>,
) -> Result<Tensor<T, BatchOf<S>, D>, D::Error> {
    if a.dims().len() < 2 {
        return Err(ShapeError::Invalid(
            "linalg.cond: The input tensor must have at least 2 dimensions.".into(),
        )
        .into());
    }
    let p = p.unwrap_or(MatrixNorm::Two);
    let name = format!("linalg.cond(ord={})", ord_text(p));
    let r = a.rank();
    let (m, n) = (a.dims()[r - 2], a.dims()[r - 1]);
    let batch = &a.dims()[..r - 2];
    let count = batch.iter().product();
    // Empty matrices have condition number 0 in every norm, as PyTorch
    // (which checks squareness only for `fro` and `nuc` then).
    let zeros = || host::from_host(a, vec![T::zero(); count], batch);
    if matches!(p, MatrixNorm::Fro | MatrixNorm::Nuc) {
        check_square_dims(a.dims(), &name, "A")?;
    }
    if m == 0 || n == 0 {
        return zeros();
    }
    if matches!(p, MatrixNorm::Two | MatrixNorm::NegTwo) {
        let (hi, lo) = first_last(&svdvals_dyn(a)?);
        let (num, den) = if p == MatrixNorm::Two {
            (hi, lo)
        } else {
            (lo, hi)
        };
        return Ok(bin(table::Div, &num, &den)?.try_into_shape()?);
    }
    check_square_dims(a.dims(), &name, "A")?;
    // `‖A‖ ‖A⁻¹‖`, `inf` where `A` is singular (its inverse's values, which
    // the device leaves unspecified there, replaced by zeros first).
    let (inv, info) = primitives::inv(&a.share().into_dyn())?;
    let singular: Vec<bool> = info.iter().map(|&k| k != 0).collect();
    let inv = if singular.contains(&true) {
        let dims = [batch, &[1, 1]].concat();
        let mask: DynTensor<bool, D> = host::from_host(a, singular.clone(), &dims)?;
        select(&mask, &scalar(a, T::zero())?, &inv)?
    } else {
        inv
    };
    let prod = bin(table::Mul, &norm_of(a, p)?, &norm_of(&inv, p)?)?;
    let out = if singular.contains(&true) {
        let mask: DynTensor<bool, D> = host::from_host(a, singular, batch)?;
        select(&mask, &scalar(a, T::infinity())?, &prod)?
    } else {
        prod
    };
    Ok(out.try_into_shape()?)
}

/// Views `(...)` of the first and the last element of the last dimension
/// of `s` `(..., k)`, `k > 0`.
fn first_last<T: LinalgFloat, D: LinalgDevice<T>>(
    s: &DynTensor<T, D>,
) -> (DynTensor<T, D>, DynTensor<T, D>) {
    let r = s.rank();
    let (dims, strides) = (&s.dims()[..r - 1], &s.strides()[..r - 1]);
    let last = (s.dims()[r - 1] - 1) * s.strides()[r - 1];
    (view(s, dims, strides, 0), view(s, dims, strides, last))
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
pub fn cond<T: LinalgFloat, S: Matrices, D: LinalgDevice<T>>(
    a: &Tensor<T, S, D>,
    p: Option<MatrixNorm>,
) -> Tensor<T, BatchOf<S>, D> {
    expect(try_cond(a, p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DynRank;

    /// PyTorch 2.x: `torch.linalg.cond(torch.zeros(shape), p)` is 0 for
    /// empty matrices in every norm; `fro` and `nuc` still want them square.
    #[test]
    fn cond_of_empty_matrices_is_zero_as_pytorch() {
        use MatrixNorm::*;
        for dims in [&[2, 0, 3][..], &[0, 0], &[3, 0]] {
            let a = Tensor::<f64, DynRank>::try_zeros(dims).unwrap();
            let count: usize = dims[..dims.len() - 2].iter().product();
            for p in [
                None,
                Some(Two),
                Some(NegTwo),
                Some(One),
                Some(NegOne),
                Some(Inf),
                Some(NegInf),
            ] {
                let c = try_cond(&a, p).unwrap();
                assert_eq!(c.to_vec(), vec![0.; count], "{dims:?} {p:?}");
            }
            for p in [Fro, Nuc] {
                let r = try_cond(&a, Some(p));
                if dims[dims.len() - 1] == dims[dims.len() - 2] {
                    assert_eq!(r.unwrap().to_vec(), vec![0.; count]);
                } else {
                    let (m, n) = (dims[dims.len() - 2], dims[dims.len() - 1]);
                    assert_eq!(
                        r.unwrap_err().to_string(),
                        format!(
                            "linalg.cond(ord={}): A must be batches of square matrices, but they are {m} by {n} matrices",
                            ord_text(p)
                        )
                    );
                }
            }
        }
    }

    /// PyTorch 2.x raises the SVD's error for a NaN input of `cond`,
    /// `matrix_rank`, `pinv` and the spectral / nuclear norms.
    #[test]
    fn nan_input_gives_the_svd_error_as_pytorch() {
        let a = Tensor::<f64, DynRank>::try_from_vec(vec![f64::NAN, 1., 1., 1.], &[2, 2]).unwrap();
        let want = "linalg.svd: The algorithm failed to converge because the input matrix contained non-finite values.";
        assert_eq!(try_cond(&a, None).unwrap_err().to_string(), want);
        let r = try_matrix_rank(&a, RankTol::default());
        assert_eq!(r.unwrap_err().to_string(), want);
        assert_eq!(super::super::try_pinv(&a).unwrap_err().to_string(), want);
        for ord in [MatrixNorm::Two, MatrixNorm::Nuc] {
            let r = super::super::try_matrix_norm(&a, ord);
            assert_eq!(r.unwrap_err().to_string(), want);
        }
    }
}
