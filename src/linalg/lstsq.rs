//! `lstsq` and `lstsq_vec`: minimum-norm least-squares solutions with
//! PyTorch's residuals, rank and singular values, through the SVD.

use super::primitives;
use crate::tensor::host;
use crate::tensor::pointwise;
use crate::tensor::reduction;

use super::compose::{DynTensor, add, dy, mat_t, matmul, mul, sub, upload};
use super::generic::check_info;
use super::solve::is_vector_rhs;
use super::{LinalgFloat, LstsqRhs, LstsqVecShape, expect};
use crate::backend::cpu::linalg::batch::{bcast_index, broadcast_batch, dims_with};
use crate::backend::op::Reduction;
use crate::backend::{Backend, Gemm, Linalg};
use crate::device::Cpu;
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
pub struct Lstsq<T: LinalgFloat, S: Shape, D: Backend<T> + Backend<i64> = Cpu> {
    /// `X` `(..., n, k)` (`(..., n)` for vector right-hand sides).
    pub solution: Tensor<T, S, D>,
    /// The squared residuals `‖A x - b‖²` of each column, `(..., k)`
    /// (`(..., 1)` for vectors, as PyTorch): computed when `m > n`, every
    /// matrix of `A` has full rank and the driver is not `Gelsy`.
    pub residuals: Tensor<T, DynRank, D>,
    /// The effective rank of each matrix of `A` `(...)`: all drivers but
    /// `Gels`.
    pub rank: Tensor<i64, DynRank, D>,
    /// The singular values of each matrix of `A` `(..., min(m, n))`:
    /// `Gelsd` and `Gelss`.
    pub singular_values: Tensor<T, DynRank, D>,
}

// By hand, not derived: a derive would ask `D: Clone`, where what matters
// is whether the device's tensors are (a CUDA tensor is not `Clone`).
impl<T: LinalgFloat, S: Shape, D: Backend<T> + Backend<i64>> Clone for Lstsq<T, S, D>
where
    Tensor<T, S, D>: Clone,
    Tensor<T, DynRank, D>: Clone,
    Tensor<i64, DynRank, D>: Clone,
{
    fn clone(&self) -> Self {
        Lstsq {
            solution: self.solution.clone(),
            residuals: self.residuals.clone(),
            rank: self.rank.clone(),
            singular_values: self.singular_values.clone(),
        }
    }
}

impl<T: LinalgFloat, S: Shape, D: Backend<T> + Backend<i64>> core::fmt::Debug for Lstsq<T, S, D>
where
    Tensor<T, S, D>: core::fmt::Debug,
    Tensor<T, DynRank, D>: core::fmt::Debug,
    Tensor<i64, DynRank, D>: core::fmt::Debug,
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Lstsq")
            .field("solution", &self.solution)
            .field("residuals", &self.residuals)
            .field("rank", &self.rank)
            .field("singular_values", &self.singular_values)
            .finish()
    }
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
pub fn try_lstsq<
    T: LinalgFloat,
    SA: Shape,
    SB: LstsqRhs<SA>,
    D: Linalg<T> + Gemm<T> + Backend<i64>,
>(
    a: &Tensor<T, SA, D>,
    b: &Tensor<T, SB, D>,
) -> Result<Lstsq<T, SB::Output, D>, D::Error>
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
/// One body for every device: [`Linalg::svd`] of `A`'s own batch, the
/// singular values read back to the host for the cut-off and the rank (so
/// the call synchronizes), then `pinv(A) = V diag(1/σ) Uᵀ` and `pinv(A) B`
/// (a pointwise kernel and two batched products), and for the residuals a
/// product, two pointwise kernels and a column sum. On CUDA PyTorch takes
/// only `Gels` ("torch.linalg.lstsq: `driver` other than `gels` is not
/// supported on CUDA"); here every driver runs there, through the SVD,
/// with the CPU's results. On the CPU, forming `pinv(A)` before applying
/// it costs one extra pass per matrix compared with a per-matrix solve.
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
pub fn try_lstsq_with<
    T: LinalgFloat,
    SA: Shape,
    SB: LstsqRhs<SA>,
    D: Linalg<T> + Gemm<T> + Backend<i64>,
>(
    a: &Tensor<T, SA, D>,
    b: &Tensor<T, SB, D>,
    rcond: Option<f64>,
    driver: LstsqDriver,
) -> Result<Lstsq<T, SB::Output, D>, D::Error>
where
    SB::Output: Shape,
{
    let vec = SB::RANK.is_none() && is_vector_rhs(a.dims(), b.dims());
    lstsq_core(&dy(a), &dy(b), vec, rcond, driver)
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
pub fn lstsq<T: LinalgFloat, SA: Shape, SB: LstsqRhs<SA>, D: Linalg<T> + Gemm<T> + Backend<i64>>(
    a: &Tensor<T, SA, D>,
    b: &Tensor<T, SB, D>,
) -> Lstsq<T, SB::Output, D>
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
pub fn try_lstsq_vec<
    T: LinalgFloat,
    SA: LstsqVecShape<SB>,
    SB: Shape,
    D: Linalg<T> + Gemm<T> + Backend<i64>,
>(
    a: &Tensor<T, SA, D>,
    b: &Tensor<T, SB, D>,
    rcond: Option<f64>,
    driver: LstsqDriver,
) -> Result<Lstsq<T, SA::Output, D>, D::Error> {
    lstsq_core(&dy(a), &dy(b), true, rcond, driver)
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
pub fn lstsq_vec<
    T: LinalgFloat,
    SA: LstsqVecShape<SB>,
    SB: Shape,
    D: Linalg<T> + Gemm<T> + Backend<i64>,
>(
    a: &Tensor<T, SA, D>,
    b: &Tensor<T, SB, D>,
) -> Lstsq<T, SA::Output, D> {
    expect(try_lstsq_vec(a, b, None, LstsqDriver::default()))
}

/// The shared body: PyTorch's size checks, then the minimum-norm solution
/// through [`Linalg::svd`] of `A`'s own batch: the singular values are read
/// back to the host for the cut-off and the rank, then
/// `X = V diag(1/σ) Uᵀ B` (one pointwise kernel and two batched products,
/// `B`'s batch broadcast), and, where asked for, the residuals
/// `Σ (A X - B)²` (a product, two pointwise kernels and a column sum).
fn lstsq_core<T: LinalgFloat, S: Shape, D: Linalg<T> + Gemm<T> + Backend<i64>>(
    a: &DynTensor<T, D>,
    b: &DynTensor<T, D>,
    vec: bool,
    rcond: Option<f64>,
    driver: LstsqDriver,
) -> Result<Lstsq<T, S, D>, D::Error> {
    let name = "torch.linalg.lstsq";
    let fail = |msg: String| -> Result<Lstsq<T, S, D>, D::Error> {
        Err(ShapeError::Invalid(format!("{name}: {msg}")).into())
    };
    let (ad, bd) = (a.dims(), b.dims());
    if ad.len() < 2 {
        return fail("input must have at least 2 dimensions.".into());
    }
    if bd.is_empty() {
        return fail("other must have at least 1 dimension.".into());
    }
    let diff = ad.len() as isize - bd.len() as isize;
    if !(0..=1).contains(&diff) {
        return fail("input.dim() must be greater or equal to other.dim() and (input.dim() - other.dim()) <= 1".into());
    }
    let core = if vec { 1 } else { 2 };
    if bd.len() < core {
        return fail("The input tensor B must have at least 2 dimensions.".into());
    }
    let (m, n) = (ad[ad.len() - 2], ad[ad.len() - 1]);
    let brows = bd[bd.len() - core];
    let kk = if vec { 1 } else { bd[bd.len() - 1] };
    let (abatch, bbatch) = (&ad[..ad.len() - 2], &bd[..bd.len() - core]);
    if m != brows {
        return fail(format!(
            "input.size(-2) should match other.size({})",
            if vec { -1 } else { -2 }
        ));
    }
    if vec && !bbatch.is_empty() && bbatch != abatch {
        // Only the typed vector form gets here: PyTorch reads such a B as
        // a matrix, and it has no vector form with a broadcast batch.
        return fail(format!(
            "a vector right-hand side must have the sizes of input without the last, {:?}, but got {:?}",
            &ad[..ad.len() - 1],
            bd
        ));
    }
    let batch = lstsq_batch(abatch, bd, core)?;
    let k = m.min(n);
    let Pinv {
        pinv,
        s,
        ranks,
        info,
    } = pinv_parts(a, rcond)?;
    let own = bcast_index(abatch, &batch);
    check_info(
        name,
        &own.iter().map(|&i| info[i]).collect::<Vec<_>>(),
        |i| (!batch.is_empty()).then_some(i),
        |_| NO_CONVERGENCE.into(),
    )?;
    let rank_of = |i: usize| ranks.get(own[i]).copied().unwrap_or(0);
    // X = pinv(A) B, B's vectors as one column.
    let bm: DynTensor<T, D> = if vec {
        b.try_reshape(&col(bd))?
    } else {
        b.share()
    };
    // PyTorch's batch can exceed both operands' (see `lstsq_batch`).
    let bm: DynTensor<T, D> = bm.try_broadcast_to(&dims_with(&batch, &[m, kk]))?;
    let x = matmul(&pinv, &bm)?;
    let empty = || upload::<T, _, D>(a, Vec::new(), &[0]);
    let full_rank = (0..own.len()).all(|i| rank_of(i) == k);
    let residuals = if m > n && full_rank && driver != LstsqDriver::Gelsy {
        let d = sub(&matmul(a, &x)?, &bm)?;
        let mut mask = vec![false; d.rank()];
        mask[d.rank() - 2] = true;
        reduction::reduce(Reduction::Sum, &mul(&d, &d)?, &mask, false)?
    } else {
        empty()?
    };
    let rank = if driver == LstsqDriver::Gels {
        upload(a, Vec::new(), &[0])?
    } else {
        upload(
            a,
            (0..own.len()).map(|i| rank_of(i) as i64).collect(),
            &batch,
        )?
    };
    let singular_values = if matches!(driver, LstsqDriver::Gelsd | LstsqDriver::Gelss) {
        let all = dims_with(&batch, &[k]);
        if s.dims() == all.as_slice() {
            s
        } else {
            pointwise::copy(&s.try_broadcast_to::<DynRank>(&all)?)?
        }
    } else {
        empty()?
    };
    let sol = if vec {
        dims_with(&batch, &[n])
    } else {
        dims_with(&batch, &[n, kk])
    };
    let sol: Vec<isize> = sol.iter().map(|&d| d as isize).collect();
    Ok(Lstsq {
        solution: x.try_reshape(&sol)?,
        residuals,
        rank,
        singular_values,
    })
}

/// The pseudo-inverse of each matrix of `a` `(..., m, n)` with what it
/// was made from.
struct Pinv<T: LinalgFloat, D: Linalg<T>> {
    /// `V diag(1/σ) Uᵀ` `(..., n, m)`, singular values at or below the
    /// cut-off dropped.
    pinv: DynTensor<T, D>,
    /// The singular values `(..., min(m, n))`.
    s: DynTensor<T, D>,
    /// The number of singular values above the cut-off, per matrix.
    ranks: Vec<usize>,
    /// [`Linalg::svd`]'s `info` per matrix (the values are unspecified
    /// where it is not 0).
    info: Vec<i32>,
}

/// [`Pinv`] of `a` through [`Linalg::svd`]: the singular values are read
/// back to the host for the cut-off `rcond · σ_max` (default
/// `eps · max(m, n)`), then one pointwise kernel scales `V`'s columns by
/// `1/σ` and one batched product gives `V diag(1/σ) Uᵀ`.
fn pinv_parts<T: LinalgFloat, D: Linalg<T> + Gemm<T>>(
    a: &DynTensor<T, D>,
    rcond: Option<f64>,
) -> Result<Pinv<T, D>, D::Error> {
    let ad = a.dims();
    let (m, n) = (ad[ad.len() - 2], ad[ad.len() - 1]);
    let abatch = &ad[..ad.len() - 2];
    let k = m.min(n);
    let (u, s, vh, info) = primitives::svd(a, true, false)?;
    let (u, vh) = (u.expect("U asked for"), vh.expect("Vh asked for"));
    let sv = host::to_host(&s)?;
    let rcond = match rcond {
        Some(r) => T::from(r).unwrap_or(T::zero()),
        None => <T as num_traits::Float>::epsilon() * T::from(m.max(n)).unwrap_or(T::one()),
    };
    let count: usize = abatch.iter().product();
    let mut inv = Vec::with_capacity(count * k);
    let mut ranks = Vec::with_capacity(count);
    for i in 0..count {
        let si = &sv[i * k..(i + 1) * k];
        let cutoff = rcond * si.first().copied().unwrap_or(T::zero());
        inv.extend(
            si.iter()
                .map(|&x| if x > cutoff { T::one() / x } else { T::zero() }),
        );
        ranks.push(si.iter().filter(|&&x| x > cutoff).count());
    }
    let pinv = matmul(
        &mul(&mat_t(&vh), &upload(a, inv, &dims_with(abatch, &[1, k]))?)?,
        &mat_t(&u),
    )?;
    Ok(Pinv {
        pinv,
        s,
        ranks,
        info,
    })
}

/// The gradients of `lstsq`'s solution `X = pinv(A) B` (PyTorch's rule:
/// `∂B = pinv(A)ᵀ G`, `∂A` the gradient of `pinv` at `G Bᵀ`) for the
/// upstream gradient `g` `(..., n, k)`, on `a`'s device: `pinv` as
/// [`Pinv`], then about a dozen batched products and pointwise kernels.
/// Both come back in the broadcast batch of `g`, `(∂A, ∂B)`.
///
/// # Errors
/// An SVD that does not converge (PyTorch's gradient is then NaN: the
/// caller fills it); a driver error.
#[allow(clippy::type_complexity)]
pub(crate) fn lstsq_vjp<T: LinalgFloat, D: Linalg<T> + Gemm<T>>(
    g: &DynTensor<T, D>,
    a: &DynTensor<T, D>,
    b: &DynTensor<T, D>,
) -> Result<(DynTensor<T, D>, DynTensor<T, D>), D::Error> {
    let p = pinv_parts(a, None)?;
    if p.info.iter().any(|&i| i != 0) {
        return Err(ShapeError::Invalid(format!("lstsq_backward: {NO_CONVERGENCE}")).into());
    }
    let p = p.pinv;
    let gb = matmul(&mat_t(&p), g)?;
    let ga = pinv_vjp(a, &p, &matmul(g, &mat_t(b))?)?;
    Ok((ga, gb))
}

/// PyTorch's `pinv_backward`: the gradient with respect to `A` of
/// `P = pinv(A)` for an upstream gradient `gp` on `P`, batched and
/// broadcast, on `a`'s device.
fn pinv_vjp<T: LinalgFloat, D: Gemm<T>>(
    a: &DynTensor<T, D>,
    p: &DynTensor<T, D>,
    gp: &DynTensor<T, D>,
) -> Result<DynTensor<T, D>, D::Error> {
    let ad = a.dims();
    let (m, n) = (ad[ad.len() - 2], ad[ad.len() - 1]);
    let (ph, gh) = (mat_t(p), mat_t(gp));
    if m <= n {
        let k = matmul(&gh, p)?;
        let kph = matmul(&k, &ph)?;
        let t1 = mat_t(&matmul(p, &k)?);
        let t3 = matmul(&matmul(a, p)?, &kph)?;
        let t4 = matmul(&matmul(&ph, p)?, &sub(&gh, &matmul(&k, a)?)?)?;
        add(&sub(&sub(&kph, &t1)?, &t3)?, &t4)
    } else {
        let k = matmul(p, &gh)?;
        let phk = matmul(&ph, &k)?;
        let t1 = mat_t(&matmul(&k, p)?);
        let t2 = matmul(&matmul(&sub(&gh, &matmul(a, &k)?)?, p)?, &ph)?;
        let t4 = matmul(&matmul(&phk, p)?, a)?;
        sub(&add(&sub(&t2, &t1)?, &phk)?, &t4)
    }
}

/// `dims` with a trailing 1 (a batch of vectors as one-column matrices),
/// as `reshape`'s sizes.
fn col(dims: &[usize]) -> Vec<isize> {
    dims.iter().map(|&d| d as isize).chain([1]).collect()
}

const NO_CONVERGENCE: &str = "The algorithm failed to converge because the input matrix is ill-conditioned or has too many repeated singular values.";

/// The batch of the solution, as PyTorch computes it: the two batches
/// broadcast, where for a matrix `B` of one dimension fewer than `A`,
/// PyTorch first broadcasts `A`'s batch against as many leading sizes of
/// `B` (which include its rows), and refuses a result that this first
/// batch does not already cover ("output with shape ... doesn't match the
/// broadcast shape ..."), with its messages. `core` is 1 for vectors `B`,
/// 2 for matrices.
fn lstsq_batch(abatch: &[usize], bd: &[usize], core: usize) -> Result<Vec<usize>, ShapeError> {
    let bbatch = &bd[..bd.len() - core];
    if core == 1 || bd.len() == abatch.len() + 2 {
        return broadcast_batch(abatch, bbatch);
    }
    let first = broadcast_batch(abatch, &bd[..abatch.len()])?;
    let batch = broadcast_batch(abatch, bbatch)?;
    let all = broadcast_batch(&first, &batch)?;
    if all != first {
        let tail = [bd[bd.len() - 2], bd[bd.len() - 1]];
        return Err(ShapeError::Invalid(format!(
            "output with shape {:?} doesn't match the broadcast shape {:?}",
            dims_with(&first, &tail),
            dims_with(&all, &tail)
        )));
    }
    Ok(all)
}
