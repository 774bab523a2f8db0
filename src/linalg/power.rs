//! `matrix_power` (integer powers, negative through the inverse) and
//! `matrix_exp` (scaling and squaring with a degree-13 Padé approximant),
//! each one body for every device: matrix products, op-table pointwise
//! kernels and the `Linalg` primitives `inv` and `solve`.

use super::primitives;
use crate::tensor::host;
use crate::tensor::indexing;
use crate::tensor::pointwise;
use crate::tensor::reduction;

use super::compose::{DynTensor, add, axpy, dy, eye, mat_t, matmul, mul, sub, upload, zeros};
use super::generic::check_square_dims;
use super::{LinalgFloat, SquareMatrices, expect};
use crate::Tensor;
use crate::backend::op::Reduction;
use crate::backend::op::table::{Abs, Neg, Where};
use crate::backend::{Backend, Gemm, Linalg};
use crate::shape::DynRank;

/// `Aⁿ` for each matrix of `a` `(..., n, n)`, as PyTorch's
/// `linalg.matrix_power`: the identity for `n = 0`, repeated squaring for
/// `n > 0`, and powers of the inverse for `n < 0`. The shape is kept, so a
/// static `(.., n, n)` stays static.
///
/// On every device the same steps: [`try_inv`](super::try_inv) for `n < 0`,
/// then about `2 log2(|n|)` batched matrix products (cuBLAS's
/// strided-batched GEMM on CUDA); `n = 0` uploads one `n x n` identity.
///
/// # Errors
/// A non-square or rank < 2 shape; for `n < 0`, a singular matrix (the
/// message of [`try_inv`](super::try_inv)).
///
/// ```
/// use shaped::{linalg, DynRank, Tensor};
/// let a = Tensor::<f64, DynRank>::try_zeros(&[2, 3]).unwrap();
/// assert_eq!(linalg::try_matrix_power(&a, 2).unwrap_err().to_string(),
///     "linalg.matrix_power: A must be batches of square matrices, but they are 2 by 3 matrices");
/// assert_eq!(linalg::try_matrix_power(&a, -1).unwrap_err().to_string(),
///     "linalg.matrix_power: A must be batches of square matrices, but they are 2 by 3 matrices");
/// let s = Tensor::<f64, DynRank>::try_zeros(&[2, 2]).unwrap();
/// assert_eq!(linalg::try_matrix_power(&s, -1).unwrap_err().to_string(),
///     "linalg.inv: The diagonal element 1 is zero, the inversion could not be completed because the input matrix is singular.");
/// ```
pub fn try_matrix_power<T: LinalgFloat, S: SquareMatrices, D: Linalg<T> + Gemm<T>>(
    a: &Tensor<T, S, D>,
    n: i64,
) -> Result<Tensor<T, S, D>, D::Error>
where
    S::N: crate::Dim,
{
    let k = check_square_dims(a.dims(), "linalg.matrix_power", "A")?;
    if n == 0 || a.numel() == 0 {
        let id = eye::<T, _, D>(a, k, k)?.try_broadcast_to::<DynRank>(a.dims())?;
        return Ok(pointwise::copy(&id)?.try_into_shape()?);
    }
    let base = if n < 0 {
        dy(&super::try_inv(a)?)
    } else {
        dy(a)
    };
    let (mut base, mut e) = (base, n.unsigned_abs());
    let mut acc: Option<DynTensor<T, D>> = None;
    while e > 0 {
        if e & 1 == 1 {
            acc = Some(match acc {
                None => base.share(),
                Some(x) => matmul(&x, &base)?,
            });
        }
        e >>= 1;
        if e > 0 {
            base = matmul(&base, &base)?;
        }
    }
    let acc = acc.expect("n != 0 sets a factor");
    // `A¹` is `A` itself: a copy, as PyTorch's clone.
    let acc = if n == 1 { pointwise::copy(&acc)? } else { acc };
    Ok(acc.try_into_shape()?)
}

/// `Aⁿ` of each matrix; panics where [`try_matrix_power`] errs.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f64, Shape![2, 2, 2]>::from_vec(vec![1., 1., 0., 1., 2., 0., 0., 0.5]);
/// let p: Tensor<f64, Shape![2, 2, 2]> = linalg::matrix_power(&a, 3);
/// assert_eq!(p.to_vec(), vec![1., 3., 0., 1., 8., 0., 0., 0.125]);
/// assert_eq!(linalg::matrix_power(&a, -2).to_vec(), vec![1., -2., 0., 1., 0.25, 0., 0., 4.]);
/// ```
#[track_caller]
pub fn matrix_power<T: LinalgFloat, S: SquareMatrices, D: Linalg<T> + Gemm<T>>(
    a: &Tensor<T, S, D>,
    n: i64,
) -> Tensor<T, S, D>
where
    S::N: crate::Dim,
{
    expect(try_matrix_power(a, n))
}

/// The Padé 13 coefficients (Higham 2005, as SciPy's `expm`).
const B: [f64; 14] = [
    64764752532480000.,
    32382376266240000.,
    7771770303897600.,
    1187353796428800.,
    129060195264000.,
    10559470521600.,
    670442572800.,
    33522128640.,
    1323241920.,
    40840800.,
    960960.,
    16380.,
    182.,
    1.,
];

/// The 1-norm up to which Padé 13 is accurate without scaling.
const THETA13: f64 = 5.371920351148152;

/// How many squarings a matrix of 1-norm `norm1` needs: the `s` with
/// `norm1 / 2^s <= θ13` (at most 1000; 0 for a NaN norm).
fn squarings<T: LinalgFloat>(norm1: T) -> i32 {
    let ratio = num_traits::ToPrimitive::to_f64(&norm1).unwrap_or(f64::NAN) / THETA13;
    if ratio > 1.0 {
        ratio.log2().ceil().min(1000.0) as i32
    } else {
        0
    }
}

/// The matrix exponential `exp(A) = Σ Aᵏ / k!` of each matrix of `a`
/// `(..., n, n)`, as PyTorch's `linalg.matrix_exp`: scaling and squaring
/// with the degree-13 Padé approximant (Higham 2005, as SciPy's `expm`).
///
/// One body for every device: the 1-norm of each matrix (an `abs` and a
/// column-sum kernel) is read back to the host to pick its scaling `2^-s`
/// (so the call synchronizes with the device), then 6 batched matrix
/// products, about 12 pointwise kernels, one batched [`Linalg::solve`] for
/// `(V - U)⁻¹ (V + U)`, and `max(s)` squarings over the batch (a `where`
/// kernel keeps the matrices that need fewer). On the CPU this makes more
/// passes over memory than a per-matrix loop would (each step is its own
/// kernel over the batch).
///
/// # Errors
/// A non-square or rank < 2 shape.
///
/// ```
/// use shaped::{linalg, DynRank, Tensor};
/// let a = Tensor::<f64, DynRank>::try_zeros(&[3]).unwrap();
/// assert_eq!(linalg::try_matrix_exp(&a).unwrap_err().to_string(),
///     "linalg.matrix_exp: The input tensor A must have at least 2 dimensions.");
/// ```
pub fn try_matrix_exp<T: LinalgFloat, S: SquareMatrices, D>(
    a: &Tensor<T, S, D>,
) -> Result<Tensor<T, S, D>, D::Error>
where
    S::N: crate::Dim,
    D: Linalg<T> + Gemm<T> + Backend<bool>,
{
    let n = check_square_dims(a.dims(), "linalg.matrix_exp", "A")?;
    let x = dy(a);
    if x.numel() == 0 {
        return Ok(pointwise::copy(&x)?.try_into_shape()?);
    }
    let rank = x.rank();
    let batch = &x.dims()[..rank - 2];
    // The 1-norm of each matrix (the largest column sum of |A|), on the host.
    let mut mask = vec![false; rank];
    mask[rank - 2] = true;
    let cols: DynTensor<T, D> =
        reduction::reduce(Reduction::Sum, &pointwise::unary(Abs, &x)?, &mask, false)?;
    let cols = host::to_host(&cols)?;
    let s: Vec<i32> = cols
        .chunks(n)
        .map(|c| squarings(c.iter().fold(T::zero(), |a, &b| if b > a { b } else { a })))
        .collect();
    let mut ones = batch.to_vec();
    ones.extend([1, 1]);
    let scale = s.iter().map(|&k| c::<T>(0.5f64.powi(k))).collect();
    let a1 = mul(&x, &upload(&x, scale, &ones)?)?;
    let a2 = matmul(&a1, &a1)?;
    let a4 = matmul(&a2, &a2)?;
    let a6 = matmul(&a4, &a2)?;
    let id = eye::<T, _, D>(&x, n, n)?;
    // w0 m0 + w1 m1 + w2 m2 (+ 0), summed in this order, as the CPU did.
    let lin = |start: &DynTensor<T, D>, w: [f64; 3]| -> Result<DynTensor<T, D>, D::Error> {
        let mut acc = start.share();
        for (wk, m) in w.into_iter().zip([&a6, &a4, &a2]) {
            acc = axpy(&acc, c(wk), m)?;
        }
        Ok(acc)
    };
    let zero = zeros(&a6)?;
    let u_in = matmul(&a6, &lin(&zero, [B[13], B[11], B[9]])?)?;
    let u_sum = axpy(&lin(&u_in, [B[7], B[5], B[3]])?, c(B[1]), &id)?;
    let u = matmul(&a1, &u_sum)?;
    let v_in = matmul(&a6, &lin(&zero, [B[12], B[10], B[8]])?)?;
    let v = axpy(&lin(&v_in, [B[6], B[4], B[2]])?, c(B[0]), &id)?;
    let (p, q) = (add(&v, &u)?, sub(&v, &u)?);
    let (mut r, info) = primitives::solve(&q, &p, false)?;
    if info.iter().any(|&i| i != 0) {
        // A singular denominator: NaN, as the LU solve gives there.
        let bad = info.iter().map(|&i| i != 0).collect();
        let nan = upload(&x, vec![T::nan()], &[])?;
        r = pointwise::select(Where, &upload::<bool, _, D>(&x, bad, &ones)?, &nan, &r)?;
    }
    let most = s.iter().copied().max().unwrap_or(0);
    for step in 0..most {
        let rr = matmul(&r, &r)?;
        r = if s.iter().all(|&k| k > step) {
            rr
        } else {
            let more = s.iter().map(|&k| k > step).collect();
            pointwise::select(Where, &upload::<bool, _, D>(&x, more, &ones)?, &rr, &r)?
        };
    }
    Ok(r.try_into_shape()?)
}

/// `exp(A)` of each matrix; panics where [`try_matrix_exp`] errs.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// // exp of [[0, t], [-t, 0]] is the rotation by t.
/// let a = Tensor::<f64, Shape![2, 2]>::from_vec(vec![0., 1., -1., 0.]);
/// let e = linalg::matrix_exp(&a).to_vec();
/// let want = [1f64.cos(), 1f64.sin(), -1f64.sin(), 1f64.cos()];
/// assert!(e.iter().zip(want).all(|(x, y)| (x - y).abs() < 1e-14));
/// ```
#[track_caller]
pub fn matrix_exp<T: LinalgFloat, S: SquareMatrices, D>(a: &Tensor<T, S, D>) -> Tensor<T, S, D>
where
    S::N: crate::Dim,
    D: Linalg<T> + Gemm<T> + Backend<bool>,
{
    expect(try_matrix_exp(a))
}

/// `x` as `T`.
fn c<T: LinalgFloat>(x: f64) -> T {
    T::from(x).unwrap_or(T::zero())
}

/// The gradient of `matrix_power(A, k)` for the upstream gradient `g`, on
/// `a`'s device: `Σ_{i<k} (Aᵀ)ⁱ G (Aᵀ)^{k-1-i}` for `k > 0`, reverse mode
/// through the same squarings and products (`O(log k)` batched products),
/// 0 for `k = 0`, and `-Bᵀ ∂B Bᵀ` through `B = A⁻¹` for `k < 0`.
///
/// # Errors
/// For `k < 0`, a singular `A`; a driver error.
pub(crate) fn matrix_power_vjp<T: LinalgFloat, D: Linalg<T> + Gemm<T>>(
    g: &DynTensor<T, D>,
    a: &DynTensor<T, D>,
    k: i64,
) -> Result<DynTensor<T, D>, D::Error> {
    if k == 0 || g.numel() == 0 {
        return zeros(g);
    }
    if k > 0 {
        return power_vjp(a, g, k.unsigned_abs());
    }
    let b = super::try_inv(a)?;
    let gb = power_vjp(&b, g, k.unsigned_abs())?;
    let bt = mat_t(&b);
    pointwise::unary(Neg, &matmul(&matmul(&bt, &gb)?, &bt)?)
}

/// The gradient of `Aᵏ` (`k ≥ 1`, computed by repeated squaring): reverse
/// mode through the squarings `bases[j] = A^(2^j)` and the products that
/// gather the set bits of `k`.
fn power_vjp<T: LinalgFloat, D: Gemm<T>>(
    a: &DynTensor<T, D>,
    g: &DynTensor<T, D>,
    k: u64,
) -> Result<DynTensor<T, D>, D::Error> {
    let bits = 64 - k.leading_zeros() as usize;
    let mut bases = vec![a.share()];
    for j in 1..bits {
        bases.push(matmul(&bases[j - 1], &bases[j - 1])?);
    }
    // The product before each factor (`None`: the identity).
    let mut acc: Option<DynTensor<T, D>> = None;
    let mut steps = Vec::new();
    for (j, base) in bases.iter().enumerate() {
        if k >> j & 1 == 1 {
            steps.push((acc.as_ref().map(DynTensor::share), j));
            acc = Some(match acc {
                None => base.share(),
                Some(x) => matmul(&x, base)?,
            });
        }
    }
    let plus = |x: Option<DynTensor<T, D>>, y: DynTensor<T, D>| match x {
        None => Ok(y),
        Some(x) => add(&x, &y),
    };
    // Back through acc_{t+1} = acc_t · bases[j].
    let mut g_acc = g.share();
    let mut g_bases: Vec<Option<DynTensor<T, D>>> = (0..bits).map(|_| None).collect();
    for (prev, j) in steps.iter().rev() {
        let gb = match prev {
            None => g_acc.share(),
            Some(p) => matmul(&mat_t(p), &g_acc)?,
        };
        g_bases[*j] = Some(plus(g_bases[*j].take(), gb)?);
        if prev.is_some() {
            g_acc = matmul(&g_acc, &mat_t(&bases[*j]))?;
        }
    }
    // Back through bases[j] = bases[j-1]².
    for j in (1..bits).rev() {
        if let Some(gj) = g_bases[j].take() {
            let bt = mat_t(&bases[j - 1]);
            let both = add(&matmul(&gj, &bt)?, &matmul(&bt, &gj)?)?;
            g_bases[j - 1] = Some(plus(g_bases[j - 1].take(), both)?);
        }
    }
    Ok(g_bases.swap_remove(0).expect("k >= 1 reaches A"))
}

/// The gradient of `matrix_exp` for the upstream gradient `g`, on `a`'s
/// device: the upper-right block of `exp([[Aᵀ, G], [0, Aᵀ]])` (the Fréchet
/// derivative of `exp` at `Aᵀ` in the direction `G`), through two `cat`
/// kernels, [`try_matrix_exp`] of the `2n x 2n` matrices and a copy of the
/// block.
///
/// # Errors
/// A driver error.
pub(crate) fn matrix_exp_vjp<T: LinalgFloat, D: Linalg<T> + Gemm<T> + Backend<bool>>(
    g: &DynTensor<T, D>,
    a: &DynTensor<T, D>,
) -> Result<DynTensor<T, D>, D::Error> {
    let r = a.rank();
    let n = a.dims()[r - 1];
    if g.numel() == 0 {
        return zeros(g);
    }
    let at = mat_t(a);
    let mut wide = a.dims().to_vec();
    wide[r - 1] = 2 * n;
    let top: DynTensor<T, D> = indexing::cat(&[at.share(), g.share()], r - 1, &wide)?;
    let bottom: DynTensor<T, D> = indexing::cat(&[zeros(a)?, at], r - 1, &wide)?;
    let mut big = wide;
    big[r - 2] = 2 * n;
    let big: DynTensor<T, D> = indexing::cat(&[top, bottom], r - 2, &big)?;
    let e = try_matrix_exp(&big)?;
    let block: DynTensor<T, D> = e.narrow::<DynRank>(-2, 0, n)?.narrow(-1, n, n)?;
    pointwise::copy(&block)
}
