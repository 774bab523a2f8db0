//! `lstsq` and `lstsq_vec`: minimum-norm least-squares solutions with
//! PyTorch's residuals, rank and singular values, through the SVD.

use faer::Mat;

use super::batch::{Operand, broadcast_batch, dims_with, matmul, par_batches, stack, tensor};
use super::solve::is_vector_rhs;
use super::svd::thin;
use super::{LinalgFloat, LstsqRhs, LstsqVecShape, expect};
use crate::ops::exec::Layout;
use crate::shape::{DynRank, Shape};
use crate::{ShapeError, Tensor};

/// The LAPACK driver PyTorch's `linalg.lstsq` names: it decides which of
/// [`Lstsq`]'s parts are computed (the solution always is).
///
/// ```
/// assert_eq!(shaped::linalg::LstsqDriver::default(), shaped::linalg::LstsqDriver::Gelsy);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum LstsqDriver {
    /// QR, for full-rank `A`: residuals, no rank, no singular values.
    Gels,
    /// Pivoted QR (PyTorch's CPU default): rank, no residuals, no singular
    /// values.
    #[default]
    Gelsy,
    /// SVD (divide and conquer): residuals, rank and singular values.
    Gelsd,
    /// SVD: residuals, rank and singular values.
    Gelss,
}

/// What [`lstsq`] returns, PyTorch's `(solution, residuals, rank,
/// singular_values)`. A part the driver does not compute is an empty tensor
/// of shape `(0)`, as PyTorch's.
#[derive(Clone, Debug)]
pub struct Lstsq<T: LinalgFloat, S: Shape> {
    /// `X` `(..., n, k)` (`(..., n)` for vector right-hand sides).
    pub solution: Tensor<T, S>,
    /// The squared residuals `‖A x - b‖²` of each column, `(..., k)`
    /// (`(..., 1)` for vectors, as PyTorch): computed when `m > n`, every
    /// matrix of `A` has full rank and the driver is not `Gelsy`.
    pub residuals: Tensor<T, DynRank>,
    /// The effective rank of each matrix of `A` `(...)`: all drivers but
    /// `Gels`.
    pub rank: Tensor<i64, DynRank>,
    /// The singular values of each matrix of `A` `(..., min(m, n))`:
    /// `Gelsd` and `Gelss`.
    pub singular_values: Tensor<T, DynRank>,
}

/// The least-squares solution `X` `(..., n, k)` of `A X = B` for `A`
/// `(..., m, n)` and `B` `(..., m, k)`, batches broadcast, with the driver
/// [`LstsqDriver::Gelsy`] (PyTorch's CPU default): see [`try_lstsq_with`].
///
/// Where `B`'s rank is dynamic ([`DynRank`]), PyTorch's rule reads `B` as a
/// batch of vectors `(..., m)` when it is 1-d or its sizes are `A`'s without
/// the last; where the types give the ranks, [`lstsq_vec`] takes vectors.
/// As PyTorch, `B` has at most `A`'s rank and at least one less: an
/// unbatched `A` does not broadcast against a batched `B` (a compile error
/// where the ranks are static).
///
/// # Errors
/// As [`try_lstsq_with`].
///
/// ```
/// use shaped::{linalg, DynRank, Tensor};
/// let a = Tensor::<f64, DynRank>::try_zeros(&[3, 2]).unwrap();
/// let b = Tensor::<f64, DynRank>::try_zeros(&[4, 1]).unwrap();
/// assert_eq!(linalg::try_lstsq(&a, &b).unwrap_err().to_string(),
///     "torch.linalg.lstsq: input.size(-2) should match other.size(-2)");
/// let batched = Tensor::<f64, DynRank>::try_zeros(&[4, 3, 1]).unwrap();
/// assert_eq!(linalg::try_lstsq(&a, &batched).unwrap_err().to_string(),
///     "torch.linalg.lstsq: input.dim() must be greater or equal to other.dim() and (input.dim() - other.dim()) <= 1");
/// let v = Tensor::<f64, DynRank>::try_from_vec(vec![1., 2., 3.], &[3]).unwrap();
/// assert_eq!(linalg::try_lstsq(&a, &v).unwrap().solution.dims(), &[2]);
/// ```
pub fn try_lstsq<T: LinalgFloat, SA: Shape, SB: LstsqRhs<SA>>(
    a: &Tensor<T, SA>,
    b: &Tensor<T, SB>,
) -> Result<Lstsq<T, SB::Output>, ShapeError>
where
    SB::Output: Shape,
{
    try_lstsq_with(a, b, None, LstsqDriver::default())
}

/// [`try_lstsq`] with a cut-off and a driver: singular values at or below
/// `rcond · σ_max` count as zero (default `eps · max(m, n)`, PyTorch's).
/// Every driver gives the minimum-norm solution, computed through the SVD
/// (so `Gels` and `Gelsy` agree with LAPACK's where `A` has full rank, and
/// are well defined where it has not); the rank is the number of singular
/// values above the cut-off.
///
/// # Errors
/// A rank < 2 `A` or rank < 1 `B`; a `B` of higher rank than `A` or of
/// two or more below; rows of `A` and `B` that differ; batches that do not
/// broadcast (run time for `Dyn`/`DynRank`; for a matrix `B` one dimension
/// shorter than `A`, PyTorch's own broadcast of `A`'s batch against `B`'s
/// leading sizes); no convergence of the SVD. PyTorch's messages.
///
/// ```
/// use shaped::{linalg::{self, LstsqDriver}, Shape, Tensor};
/// // Fit y = c0 + c1 t to (0, 1), (1, 3), (2, 6).
/// let a = Tensor::<f64, Shape![3, 2]>::from_vec(vec![1., 0., 1., 1., 1., 2.]);
/// let y = Tensor::<f64, Shape![3, 1]>::from_vec(vec![1., 3., 6.]);
/// let r = linalg::try_lstsq_with(&a, &y, None, LstsqDriver::Gelsd).unwrap();
/// let c = r.solution.to_vec();
/// assert!((c[0] - 5. / 6.).abs() < 1e-12 && (c[1] - 2.5).abs() < 1e-12);
/// assert!((r.residuals.to_vec()[0] - 1. / 6.).abs() < 1e-12);
/// assert_eq!(r.rank.to_vec(), vec![2]);
/// assert_eq!(r.singular_values.dims(), &[2]);
/// ```
pub fn try_lstsq_with<T: LinalgFloat, SA: Shape, SB: LstsqRhs<SA>>(
    a: &Tensor<T, SA>,
    b: &Tensor<T, SB>,
    rcond: Option<f64>,
    driver: LstsqDriver,
) -> Result<Lstsq<T, SB::Output>, ShapeError>
where
    SB::Output: Shape,
{
    let vec = SB::RANK.is_none() && is_vector_rhs(a.dims(), b.dims());
    lstsq_core(a.layout(), b.layout(), vec, rcond, driver)
}

/// The least-squares solution with its residuals, rank and singular values;
/// panics where [`try_lstsq`] errs.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// // Fit y = c0 + c1 t to (0, 1), (1, 3), (2, 5).
/// let a = Tensor::<f64, Shape![3, 2]>::from_vec(vec![1., 0., 1., 1., 1., 2.]);
/// let y = Tensor::<f64, Shape![3, 1]>::from_vec(vec![1., 3., 5.]);
/// let r = linalg::lstsq(&a, &y);
/// let c: Tensor<f64, Shape![2, 1]> = r.solution;
/// let c = c.to_vec();
/// assert!((c[0] - 1.).abs() < 1e-12 && (c[1] - 2.).abs() < 1e-12);
/// assert_eq!((r.rank.to_vec(), r.residuals.dims()), (vec![2], &[0][..]));
/// ```
#[track_caller]
pub fn lstsq<T: LinalgFloat, SA: Shape, SB: LstsqRhs<SA>>(
    a: &Tensor<T, SA>,
    b: &Tensor<T, SB>,
) -> Lstsq<T, SB::Output>
where
    SB::Output: Shape,
{
    expect(try_lstsq(a, b))
}

/// The least-squares solution `x` `(..., n)` of `A x = b` for `A`
/// `(..., m, n)` and vectors `b` `(..., m)` with `A`'s batch (PyTorch reads
/// a right-hand side as vectors only when its sizes are `A`'s without the
/// last, so vector batches do not broadcast); otherwise as
/// [`try_lstsq_with`].
///
/// # Errors
/// As [`try_lstsq_with`]; a batch of `b` other than `A`'s (a rank that
/// differs is a compile error where the ranks are static).
///
/// ```
/// use shaped::{linalg::{self, LstsqDriver}, Shape, Tensor};
/// let a = Tensor::<f64, Shape![3, 1]>::from_vec(vec![1., 1., 1.]);
/// let b = Tensor::<f64, Shape![3]>::from_vec(vec![1., 2., 6.]);
/// let r = linalg::try_lstsq_vec(&a, &b, None, LstsqDriver::Gels).unwrap();
/// let x: Tensor<f64, Shape![1]> = r.solution;
/// assert!((x.to_vec()[0] - 3.).abs() < 1e-12);
/// assert_eq!(r.residuals.dims(), &[1]);
/// ```
pub fn try_lstsq_vec<T: LinalgFloat, SA: LstsqVecShape<SB>, SB: Shape>(
    a: &Tensor<T, SA>,
    b: &Tensor<T, SB>,
    rcond: Option<f64>,
    driver: LstsqDriver,
) -> Result<Lstsq<T, SA::Output>, ShapeError> {
    lstsq_core(a.layout(), b.layout(), true, rcond, driver)
}

/// [`try_lstsq_vec`] with the default cut-off and driver, panicking on
/// error.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f64, Shape![2, 3, 1]>::from_vec(vec![1., 1., 1., 1., 0., 0.]);
/// let b = Tensor::<f64, Shape![2, 3]>::from_vec(vec![3., 3., 3., 3., 3., 3.]);
/// let x: Tensor<f64, Shape![2, 1]> = linalg::lstsq_vec(&a, &b).solution;
/// assert!((x.to_vec()[0] - 3.).abs() < 1e-12);
/// ```
#[track_caller]
pub fn lstsq_vec<T: LinalgFloat, SA: LstsqVecShape<SB>, SB: Shape>(
    a: &Tensor<T, SA>,
    b: &Tensor<T, SB>,
) -> Lstsq<T, SA::Output> {
    expect(try_lstsq_vec(a, b, None, LstsqDriver::default()))
}

fn lstsq_core<T: LinalgFloat, S: Shape>(
    a: Layout<'_, T>,
    b: Layout<'_, T>,
    vec: bool,
    rcond: Option<f64>,
    driver: LstsqDriver,
) -> Result<Lstsq<T, S>, ShapeError> {
    let name = "torch.linalg.lstsq";
    if a.dims.len() < 2 {
        return Err(ShapeError::Invalid(format!(
            "{name}: input must have at least 2 dimensions."
        )));
    }
    if b.dims.is_empty() {
        return Err(ShapeError::Invalid(format!(
            "{name}: other must have at least 1 dimension."
        )));
    }
    let diff = a.dims.len() as isize - b.dims.len() as isize;
    if !(0..=1).contains(&diff) {
        return Err(ShapeError::Invalid(format!(
            "{name}: input.dim() must be greater or equal to other.dim() and (input.dim() - other.dim()) <= 1"
        )));
    }
    let a = Operand::matrices(a, name, "A")?;
    let b = if vec {
        Operand::vectors(b, name, "B")?
    } else {
        Operand::matrices(b, name, "B")?
    };
    if a.rows() != b.rows() {
        return Err(ShapeError::Invalid(format!(
            "{name}: input.size(-2) should match other.size({})",
            if vec { -1 } else { -2 }
        )));
    }
    if vec && !b.batch().is_empty() && b.batch() != a.batch() {
        // Only the typed vector form gets here: PyTorch reads such a B as
        // a matrix, and it has no vector form with a broadcast batch.
        return Err(ShapeError::Invalid(format!(
            "{name}: a vector right-hand side must have the sizes of input without the last, {:?}, but got {:?}",
            &a.dims_vec()[..a.dims_vec().len() - 1],
            b.dims_vec()
        )));
    }
    let (m, n, k) = (a.rows(), a.cols(), b.cols());
    let batch = lstsq_batch(&a, &b, vec)?;
    let (oa, ob) = (a.offsets(&batch), b.offsets(&batch));
    let res = par_batches(name, &batch, |i| {
        let (am, bm) = (a.mat(oa[i]), b.mat(ob[i]));
        let (p, s, rank) = pinv_rank(&am, rcond)?;
        let x = matmul(p.as_ref(), bm.as_ref());
        let r = matmul(am.as_ref(), x.as_ref());
        let res: Vec<T> = (0..k)
            .map(|c| (0..m).fold(T::zero(), |acc, i| acc + (r[(i, c)] - bm[(i, c)]).powi(2)))
            .collect();
        Ok((x, s, rank, res))
    })?;
    let sol_dims = if vec {
        dims_with(&batch, &[n])
    } else {
        dims_with(&batch, &[n, k])
    };
    let xs: Vec<Mat<T>> = res.iter().map(|r| r.0.clone()).collect();
    let empty = || tensor::<T, DynRank>(Vec::new(), &[0]);
    let full_rank = res.iter().all(|r| r.2 == m.min(n));
    let residuals = if m > n && full_rank && driver != LstsqDriver::Gelsy {
        tensor(
            res.iter().flat_map(|r| r.3.iter().copied()).collect(),
            &dims_with(&batch, &[k]),
        )?
    } else {
        empty()?
    };
    let rank = if driver == LstsqDriver::Gels {
        tensor(Vec::new(), &[0])?
    } else {
        tensor(res.iter().map(|r| r.2 as i64).collect(), &batch)?
    };
    let singular_values = if matches!(driver, LstsqDriver::Gelsd | LstsqDriver::Gelss) {
        tensor(
            res.iter().flat_map(|r| r.1.iter().copied()).collect(),
            &dims_with(&batch, &[m.min(n)]),
        )?
    } else {
        empty()?
    };
    Ok(Lstsq {
        solution: tensor(stack(&xs, n * k), &sol_dims)?,
        residuals,
        rank,
        singular_values,
    })
}

/// The batch of the solution, as PyTorch computes it: the two batches
/// broadcast, where for a matrix `B` of one dimension fewer than `A`,
/// PyTorch first broadcasts `A`'s batch against as many leading sizes of
/// `B` (which include its rows), and refuses a result that this first
/// batch does not already cover ("output with shape ... doesn't match the
/// broadcast shape ..."), with its messages.
fn lstsq_batch<T: LinalgFloat>(
    a: &Operand<'_, T>,
    b: &Operand<'_, T>,
    vec: bool,
) -> Result<Vec<usize>, ShapeError> {
    if vec || b.dims_vec().len() == a.dims_vec().len() {
        return broadcast_batch(a.batch(), b.batch());
    }
    let bd = b.dims_vec();
    let first = broadcast_batch(a.batch(), &bd[..a.batch().len()])?;
    let batch = broadcast_batch(a.batch(), b.batch())?;
    let all = broadcast_batch(&first, &batch)?;
    if all != first {
        let tail = [b.rows(), b.cols()];
        return Err(ShapeError::Invalid(format!(
            "output with shape {:?} doesn't match the broadcast shape {:?}",
            dims_with(&first, &tail),
            dims_with(&all, &tail)
        )));
    }
    Ok(all)
}

/// The pseudo-inverse `V diag(1/σ) Uᵀ` of one matrix, dropping singular
/// values at or below `eps · max(m, n) · σ_max`.
pub(super) fn pinv_of<T: LinalgFloat>(a: &Mat<T>) -> Result<Mat<T>, String> {
    Ok(pinv_rank(a, None)?.0)
}

/// The pseudo-inverse, the singular values and the rank of one matrix,
/// singular values at or below `rcond · σ_max` counting as zero (default
/// `eps · max(m, n)`).
#[allow(clippy::type_complexity)]
fn pinv_rank<T: LinalgFloat>(
    a: &Mat<T>,
    rcond: Option<f64>,
) -> Result<(Mat<T>, Vec<T>, usize), String> {
    let (m, n) = (a.nrows(), a.ncols());
    let (u, s, v) = thin(a)?;
    let smax = s.first().copied().unwrap_or(T::zero());
    let rcond = match rcond {
        Some(r) => T::from(r).unwrap_or(T::zero()),
        None => <T as num_traits::Float>::epsilon() * T::from(m.max(n)).unwrap_or(T::one()),
    };
    let cutoff = rcond * smax;
    let mut vs = v;
    let mut rank = 0;
    for (j, &sj) in s.iter().enumerate() {
        let scale = if sj > cutoff {
            rank += 1;
            T::one() / sj
        } else {
            T::zero()
        };
        for i in 0..n {
            vs[(i, j)] *= scale;
        }
    }
    Ok((matmul(vs.as_ref(), u.transpose()), s, rank))
}
