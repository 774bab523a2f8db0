//! The backward passes of `det`, `cholesky`, `solve_triangular`, `lu` and
//! `householder_product` on the operands' own device: each is PyTorch's
//! formula (`FunctionsManual.cpp`), whose per-matrix faer form is the
//! tests' oracle (`tests/common/linalg_oracle.rs`, checked against finite
//! differences in `tests/linalg_grad.rs`; `tests/linalg_vjp.rs` compares
//! these passes with it), written with [`Linalg`] primitives (inverses, triangular solves, the
//! SVD), matrix products, views, `cat` and op-table kernels, so that a CUDA
//! `Var` back-propagates on the GPU. Triangles are kept with `where` and a
//! small mask uploaded once, so an infinity outside the kept triangle does
//! not turn into NaN.

use super::LinalgFloat;
use super::compose::{
    DynTensor, add, eye, mat_t, matmul, mul, scalar, select, sub, upload, zeros, zeros_of,
};
use super::primitives;
use crate::backend::op::Reduction;
use crate::backend::op::table::Neg;
use crate::backend::{Backend, Linalg};
use crate::linalg::{LinalgDevice, Triangle};
use crate::shape::{DynRank, ShapeError};
use crate::tensor::indexing;
use crate::tensor::pointwise;
use crate::tensor::reduction;

/// The gradients of a function's two inputs.
type Pair<T, D> = (DynTensor<T, D>, DynTensor<T, D>);

/// `dims` with `extra` appended, as `isize`s (reshape sizes).
fn sizes_with(dims: &[usize], extra: &[usize]) -> Vec<isize> {
    dims.iter().chain(extra).map(|&d| d as isize).collect()
}

/// `x` `(...)` as `(..., 1, 1)`, to scale each matrix of a batch.
fn per_matrix<T: LinalgFloat, D: Backend<T>>(
    x: &DynTensor<T, D>,
) -> Result<DynTensor<T, D>, D::Error> {
    x.try_reshape(&sizes_with(x.dims(), &[1, 1]))
}

/// The last two sizes of `x`.
fn mat_dims<T: LinalgFloat, D: Backend<T>>(x: &DynTensor<T, D>) -> (usize, usize) {
    let r = x.rank();
    (x.dims()[r - 2], x.dims()[r - 1])
}

/// A `rows` by `cols` mask, `keep(i, j)` at `(i, j)`, on `like`'s device.
fn mask<T: LinalgFloat, D: Backend<T> + Backend<bool>>(
    like: &DynTensor<T, D>,
    rows: usize,
    cols: usize,
    keep: impl Fn(usize, usize) -> bool,
) -> Result<DynTensor<bool, D>, <D as crate::device::Device>::Error> {
    let data = (0..rows * cols).map(|e| keep(e / cols, e % cols)).collect();
    upload(like, data, &[rows, cols])
}

/// Each matrix of `x` where `keep(i, j)` holds, zero elsewhere (`tril`,
/// `triu` and their strict forms).
fn keep<T: LinalgFloat, D: Backend<T> + Backend<bool>>(
    x: &DynTensor<T, D>,
    keep: impl Fn(usize, usize) -> bool,
) -> Result<DynTensor<T, D>, <D as crate::device::Device>::Error> {
    let (m, n) = mat_dims(x);
    select(&mask(x, m, n, keep)?, x, &scalar(x, T::zero())?)
}

/// `-x`.
fn neg<T: LinalgFloat, D: Backend<T>>(x: &DynTensor<T, D>) -> Result<DynTensor<T, D>, D::Error> {
    pointwise::unary(Neg, x)
}

/// `x`'s matrices with columns (`dim` = -1) or rows (`dim` = -2) `start..
/// start + len`, a view.
fn part<T: LinalgFloat, D: Backend<T>>(
    x: &DynTensor<T, D>,
    dim: isize,
    start: usize,
    len: usize,
) -> Result<DynTensor<T, D>, D::Error> {
    Ok(x.narrow::<DynRank>(dim, start, len)?)
}

/// `a` and `b` side by side along `dim` (-1: columns, -2: rows).
fn join<T: LinalgFloat, D: Backend<T>>(
    a: &DynTensor<T, D>,
    b: &DynTensor<T, D>,
    dim: isize,
) -> Result<DynTensor<T, D>, D::Error> {
    let d = (a.rank() as isize + dim) as usize;
    let mut out = a.dims().to_vec();
    out[d] += b.dims()[d];
    indexing::cat(&[a.share(), b.share()], d, &out)
}

/// The gradient of `det`: `g · det(A) · A⁻ᵀ` for each invertible `A`
/// (one batched inverse), and for the singular ones (an `info` from the
/// inverse) the transposed adjugate `g · adj(A)ᵀ` through the SVD, as
/// PyTorch's. The inverse's `info`
/// is read on the host to decide whether the SVD is needed.
///
/// # Errors
/// An SVD that does not converge (a matrix with non-finite values); a
/// driver error.
pub(crate) fn det_vjp<T: LinalgFloat, D: LinalgDevice<T>>(
    g: &DynTensor<T, D>,
    a: &DynTensor<T, D>,
    det: &DynTensor<T, D>,
) -> Result<DynTensor<T, D>, D::Error> {
    if a.numel() == 0 {
        return zeros(a);
    }
    // The inverse of A itself, not of Aᵀ's view: its LU is the forward
    // pass's, so `info` flags exactly the matrices whose `det` came out 0
    // (Aᵀ's LU, pivoting differently, can miss an exact zero pivot and
    // give `0 · A⁻ᵀ` where the adjugate is not 0).
    let (inv, info) = primitives::inv(a)?;
    let invertible = mul(&mat_t(&inv), &per_matrix(&mul(g, det)?)?)?;
    if info.iter().all(|&i| i == 0) {
        return Ok(invertible);
    }
    let singular = mul(&adjugate_t(a)?, &per_matrix(g)?)?;
    let which: Vec<bool> = info.iter().map(|&i| i != 0).collect();
    let mut dims = g.dims().to_vec();
    dims.extend([1, 1]);
    select(&upload(a, which, &dims)?, &singular, &invertible)
}

/// `adj(A)ᵀ` of each square matrix of `a`, valid for any `A`: with the SVD
/// `A = U Σ Vh`, `adj(A)ᵀ = det(U) det(Vh) · U adj(Σ) Vh`, where
/// `adj(Σ)_k = Π_{j≠k} σ_j` (a product reduction over a matrix of the
/// singular values with ones on its diagonal).
fn adjugate_t<T: LinalgFloat, D: LinalgDevice<T>>(
    a: &DynTensor<T, D>,
) -> Result<DynTensor<T, D>, D::Error> {
    let n = mat_dims(a).0;
    let (u, s, vh, info) = primitives::svd(a, true, false)?;
    if info.iter().any(|&i| i != 0) {
        return Err(ShapeError::Invalid("det_backward: the SVD did not converge".into()).into());
    }
    let (u, vh) = (u.expect("asked for U"), vh.expect("asked for Vh"));
    let sign = mul(&primitives::slogdet(&u)?.0, &primitives::slogdet(&vh)?.0)?;
    let row = s.try_reshape(&sizes_with(&s.dims()[..s.rank() - 1], &[1, n]))?;
    let others = select(&mask(a, n, n, |i, j| i == j)?, &scalar(a, T::one())?, &row)?;
    let last: Vec<bool> = (0..others.rank()).map(|d| d + 1 == others.rank()).collect();
    let cof: DynTensor<T, D> = reduction::reduce(Reduction::Prod, &others, &last, true)?;
    let cof = mat_t(&cof);
    mul(&matmul(&mul(&u, &cof)?, &vh)?, &per_matrix(&sign)?)
}

/// The gradient of `cholesky` for `L = cholesky(A)`: with `Φ(M)` the lower
/// triangle of `M`, its diagonal halved, `S = L⁻ᵀ Φ(Lᵀ G) L⁻¹` (two
/// triangular solves with `L`'s transposed view) and `(S + Sᵀ) / 2`, as
/// PyTorch's. (A factor
/// from `cholesky` has no zero on its diagonal.)
///
/// # Errors
/// A driver error.
pub(crate) fn cholesky_vjp<T: LinalgFloat, D: LinalgDevice<T>>(
    g: &DynTensor<T, D>,
    l: &DynTensor<T, D>,
) -> Result<DynTensor<T, D>, D::Error> {
    if l.numel() == 0 {
        return zeros(l);
    }
    let n = mat_dims(l).0;
    let half = T::one() / (T::one() + T::one());
    let weights: Vec<T> = (0..n * n)
        .map(|e| match (e / n).cmp(&(e % n)) {
            std::cmp::Ordering::Greater => T::one(),
            std::cmp::Ordering::Equal => half,
            std::cmp::Ordering::Less => T::zero(),
        })
        .collect();
    let lt = mat_t(l);
    let phi = mul(&matmul(&lt, g)?, &upload(l, weights, &[n, n])?)?;
    let upper = Triangle {
        upper: true,
        unit: false,
    };
    // Y = L⁻ᵀ Φ, then Sᵀ = L⁻ᵀ Yᵀ.
    let y = primitives::solve_triangular(&lt, &phi, upper, true)?;
    let st = primitives::solve_triangular(&lt, &mat_t(&y), upper, true)?;
    mul(&add(&st, &mat_t(&st))?, &scalar(l, half)?)
}

/// The gradients `(∂A, ∂B)` of `solve_triangular` for `X = A⁻¹ B` (left)
/// with `A`'s triangle `tri`: `∂B = A⁻ᵀ G` (a solve with the transposed
/// view, the other triangle) and `∂A = -∂B Xᵀ` kept on the triangle that is
/// read (without the diagonal for a unit triangle), as PyTorch's.
/// `∂A` has the broadcast batch of `A` and `X`.
///
/// # Errors
/// A driver error.
pub(crate) fn solve_triangular_vjp<T: LinalgFloat, D: LinalgDevice<T>>(
    g: &DynTensor<T, D>,
    a: &DynTensor<T, D>,
    x: &DynTensor<T, D>,
    tri: Triangle,
) -> Result<Pair<T, D>, D::Error> {
    let flipped = Triangle {
        upper: !tri.upper,
        unit: tri.unit,
    };
    let gb = primitives::solve_triangular(&mat_t(a), g, flipped, true)?;
    let r = neg(&matmul(&gb, &mat_t(x))?)?;
    let ga = keep(&r, |i, j| {
        let inside = if tri.upper { j >= i } else { j <= i };
        inside && !(tri.unit && i == j)
    })?;
    Ok((ga, gb))
}

/// `X` with `X Uᵀ = M` (`M U⁻ᵀ`) for upper triangular `u`.
fn right_solve_upper_t<T: LinalgFloat, D: Linalg<T>>(
    m: &DynTensor<T, D>,
    u: &DynTensor<T, D>,
) -> Result<DynTensor<T, D>, D::Error> {
    let lower = Triangle {
        upper: false,
        unit: false,
    };
    primitives::solve_triangular(&mat_t(u), m, lower, false)
}

/// `L⁻ᵀ M` for unit lower triangular `l`.
fn left_solve_unit_lower_t<T: LinalgFloat, D: Linalg<T>>(
    l: &DynTensor<T, D>,
    m: &DynTensor<T, D>,
) -> Result<DynTensor<T, D>, D::Error> {
    let unit_upper = Triangle {
        upper: true,
        unit: true,
    };
    primitives::solve_triangular(&mat_t(l), m, unit_upper, true)
}

/// The gradient of `lu`'s `L` `(..., m, k)` and `U` `(..., k, n)` for
/// `A = P L U`, `k = min(m, n)`, as PyTorch's `linalg_lu_backward`: for
/// square `A`,
/// `P L⁻ᵀ (tril₋₁(Lᵀ ∂L) + triu(∂U Uᵀ)) U⁻ᵀ`, and PyTorch's forms for wide
/// and tall `A` (the square blocks of `L` or `U` are views, the two parts
/// of the result one `cat`). Zero pivots give infinities and NaNs.
///
/// # Errors
/// A driver error.
pub(crate) fn lu_vjp<T: LinalgFloat, D: LinalgDevice<T>>(
    gl: &DynTensor<T, D>,
    gu: &DynTensor<T, D>,
    p: &DynTensor<T, D>,
    l: &DynTensor<T, D>,
    u: &DynTensor<T, D>,
) -> Result<DynTensor<T, D>, D::Error> {
    let (m, k) = mat_dims(l);
    let n = mat_dims(u).1;
    let mut dims = p.dims().to_vec();
    *dims.last_mut().expect("P is a batch of matrices") = n;
    if m * n == 0 || p.numel() == 0 {
        return zeros_of(p, &dims);
    }
    let tril1 = |x: &DynTensor<T, D>| keep(x, |i, j| j < i);
    let triu0 = |x: &DynTensor<T, D>| keep(x, |i, j| j >= i);
    let g = if m == n {
        let x = add(
            &tril1(&matmul(&mat_t(l), gl)?)?,
            &triu0(&matmul(gu, &mat_t(u))?)?,
        )?;
        left_solve_unit_lower_t(l, &right_solve_upper_t(&x, u)?)?
    } else if m < n {
        // Wide: L (m, m), U = [U1 U2] with U1 (m, m).
        let gu_t = triu0(gu)?;
        let x = sub(&matmul(&mat_t(l), gl)?, &matmul(&gu_t, &mat_t(u))?)?;
        let x = right_solve_upper_t(&tril1(&x)?, &part(u, -1, 0, k)?)?;
        let left = add(&x, &part(&gu_t, -1, 0, k)?)?;
        left_solve_unit_lower_t(l, &join(&left, &part(gu, -1, k, n - k)?, -1)?)?
    } else {
        // Tall: L = [L1; L2] with L1 (n, n), U (n, n).
        let gl_t = tril1(gl)?;
        let x = sub(&matmul(gu, &mat_t(u))?, &matmul(&mat_t(l), &gl_t)?)?;
        let x = left_solve_unit_lower_t(&part(l, -2, 0, k)?, &triu0(&x)?)?;
        let top = add(&x, &part(&gl_t, -2, 0, k)?)?;
        right_solve_upper_t(&join(&top, &part(gl, -2, k, m - k)?, -2)?, u)?
    };
    matmul(p, &g)
}

/// The gradients `(∂A, ∂τ)` of `householder_product` for `A` `(..., m, n)`
/// and `τ` `(..., k)`, as PyTorch's: reverse mode through `Q = H₀ ⋯ H_{k-1} I` with `H_i = I - τ_i v_i v_iᵀ`
/// (`v_i` column `i` of `A` below the diagonal, 1 on it), one reflector at a
/// time; each step is a few batched matrix products over the whole batch,
/// so `O(k)` kernels rather than one per matrix.
///
/// # Errors
/// A driver error.
pub(crate) fn householder_product_vjp<T: LinalgFloat, D: LinalgDevice<T>>(
    g: &DynTensor<T, D>,
    a: &DynTensor<T, D>,
    tau: &DynTensor<T, D>,
) -> Result<Pair<T, D>, D::Error> {
    let (m, n) = mat_dims(a);
    let k = tau.dims()[tau.rank() - 1];
    if k == 0 || a.numel() == 0 {
        return Ok((zeros(a)?, zeros(tau)?));
    }
    let orig_a = a.dims();
    // One batch dimension (B, m, n), so that each reflector is one batched
    // rank-1 update (`baddbmm`).
    let b = a.numel() / (m * n);
    let flat = |x: &DynTensor<T, D>, tail: &[usize]| x.try_reshape(&sizes_with(&[b], tail));
    let (a, g, tau3) = (flat(a, &[m, n])?, flat(g, &[m, n])?, flat(tau, &[1, k])?);
    // The reflectors as the columns of V (B, m, k); each τ_i as (B, 1, 1).
    let vs = select(
        &mask(&a, m, k, |i, j| i > j)?,
        &part(&a, -1, 0, k)?,
        &eye(&a, m, k)?,
    )?;
    let v = |i: usize| part(&vs, -1, i, 1);
    let t = |i: usize| part(&tau3, -1, i, 1);
    // H X = X - τ v (vᵀ X): one product for vᵀ X, then X + (-τ v)(vᵀ X) as
    // one `baddbmm` (one pass over X rather than three).
    let apply = |x: &DynTensor<T, D>, i: usize| -> Result<DynTensor<T, D>, D::Error> {
        let vi = v(i)?;
        let w = matmul(&mat_t(&vi), x)?;
        let tv = neg(&mul(&t(i)?, &vi)?)?;
        Ok(x.try_baddbmm(&tv, &w, T::one(), T::one())?.into_dyn())
    };
    // Forward, H_{k-1} first, keeping what each reflector is applied to.
    let mut q = eye(&a, m, n)?;
    let mut before: Vec<Option<DynTensor<T, D>>> = (0..k).map(|_| None).collect();
    for i in (0..k).rev() {
        let next = apply(&q, i)?;
        before[i] = Some(std::mem::replace(&mut q, next));
    }
    let mut gy = g.share();
    let (mut cols, mut gts) = (Vec::with_capacity(k), Vec::with_capacity(k));
    for (i, x) in before.iter().enumerate() {
        let x = x.as_ref().expect("set above");
        let vi = v(i)?;
        let av = matmul(&mat_t(&gy), &vi)?;
        let bv = matmul(&mat_t(x), &vi)?;
        gts.push(neg(&matmul(&mat_t(&av), &bv)?)?);
        let gv = add(&matmul(&gy, &bv)?, &matmul(x, &av)?)?;
        let col = neg(&mul(&t(i)?, &gv)?)?;
        cols.push(keep(&col, |r, _| r > i)?);
        gy = apply(&gy, i)?;
    }
    if n > k {
        cols.push(zeros_of(&a, &[b, m, n - k])?);
    }
    let ga: DynTensor<T, D> = indexing::cat(&cols, 2, &[b, m, n])?;
    let gt: DynTensor<T, D> = indexing::cat(&gts, 2, &[b, 1, k])?;
    let ga = ga.try_reshape(&sizes_with(orig_a, &[]))?;
    let gt = gt.try_reshape(&sizes_with(tau.dims(), &[]))?;
    Ok((ga, gt))
}
