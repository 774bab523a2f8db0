//! Test oracles for the linear-algebra gradients: PyTorch's backward
//! formulas (`FunctionsManual.cpp`) for `inv`, `det`, `solve`, `cholesky`,
//! `solve_triangular`, `matrix_power`, `matrix_exp`, `svdvals`, `lstsq`,
//! `householder_product`, `lu` and `eig`, written out per matrix with faer
//! in `f64`, one matrix per rayon task. The library computes these
//! gradients otherwise: autograd's formulas over the device
//! (`src/autograd/linalg*.rs`, `src/linalg/vjp.rs`), `eig`'s on the host
//! (`src/backend/cpu/linalg/eig.rs`). `tests/linalg_grad.rs` checks the
//! oracles against finite differences, `tests/linalg_vjp.rs` checks
//! autograd against them, `benches/linalg_grad.rs` times them.
//!
//! Each takes the upstream gradient first; the batch dimensions are those
//! of the forward output (a caller that broadcast an input sums the
//! gradient over the broadcast dimensions). Errors are messages.
//!
//! Self-contained (only `shaped`, `faer` and `rayon`), so that the bench can
//! include it by path; each includer uses a part of it.
#![allow(dead_code)]

use faer::Mat;
use faer::linalg::solvers::{DenseSolveCore, Solve};
use rayon::prelude::*;
use shaped::linalg::Triangle;
use shaped::{DynRank, Tensor};

/// The tensors the oracles take and return.
pub type D = Tensor<f64, DynRank>;

type R<T> = Result<T, String>;

// ---- Batching: tensors as batches of faer matrices and back. ----

/// The batch sizes of `t` read as matrices (`core == 2`) or vectors
/// (`core == 1`), or the message for a rank below `core`.
fn batch_of<'a>(t: &'a D, core: usize, name: &str, arg: &str) -> R<&'a [usize]> {
    let d = t.dims();
    if d.len() < core {
        return Err(format!(
            "{name}: The input tensor {arg} must have at least {core} dimension(s)."
        ));
    }
    Ok(&d[..d.len() - core])
}

/// The matrices of `t` `(..., r, c)` (`core == 2`), or its vectors
/// `(..., r)` as columns (`core == 1`), in the batch's row-major order.
fn mats(t: &D, core: usize, name: &str, arg: &str) -> R<Vec<Mat<f64>>> {
    let count: usize = batch_of(t, core, name, arg)?.iter().product();
    let d = t.dims();
    let (r, c) = if core == 2 {
        (d[d.len() - 2], d[d.len() - 1])
    } else {
        (d[d.len() - 1], 1)
    };
    let v = t.to_vec();
    Ok((0..count)
        .map(|b| Mat::from_fn(r, c, |i, j| v[b * r * c + i * c + j]))
        .collect())
}

/// Rows and columns of the matrices of `t` (rank ≥ 2).
fn shape2(t: &D) -> (usize, usize) {
    let d = t.dims();
    (d[d.len() - 2], d[d.len() - 1])
}

/// `dims` followed by `tail`.
fn with(dims: &[usize], tail: &[usize]) -> Vec<usize> {
    dims.iter().chain(tail).copied().collect()
}

/// The batch both `a` and `b` broadcast to (NumPy's rule).
fn broadcast(a: &[usize], b: &[usize]) -> R<Vec<usize>> {
    let r = a.len().max(b.len());
    (0..r)
        .map(|k| {
            let x = if k + a.len() >= r {
                a[k + a.len() - r]
            } else {
                1
            };
            let y = if k + b.len() >= r {
                b[k + b.len() - r]
            } else {
                1
            };
            match (x, y) {
                (x, y) if x == y || y == 1 => Ok(x),
                (1, y) => Ok(y),
                _ => Err(format!("batches {a:?} and {b:?} do not broadcast")),
            }
        })
        .collect()
}

/// For each element of the batch `out`, the row-major index of the element
/// of the batch `src` (which broadcasts to `out`) it reads.
fn index_in(src: &[usize], out: &[usize]) -> Vec<usize> {
    let lead = out.len() - src.len();
    let n: usize = out.iter().product();
    (0..n)
        .map(|mut flat| {
            let (mut at, mut stride) = (0, 1);
            for k in (0..out.len()).rev() {
                let i = flat % out[k];
                flat /= out[k];
                if k >= lead {
                    let s = src[k - lead];
                    if s != 1 {
                        at += i * stride;
                    }
                    stride *= s;
                }
            }
            at
        })
        .collect()
}

/// `f` on each of `n` batch elements, one rayon task each; the first
/// error, named.
fn each<T: Send>(name: &str, n: usize, f: impl Fn(usize) -> R<T> + Sync) -> R<Vec<T>> {
    (0..n)
        .into_par_iter()
        .map(&f)
        .collect::<R<Vec<T>>>()
        .map_err(|e| format!("{name}: {e}"))
}

/// The matrices `ms` stacked row-major as a tensor of sizes `dims`.
fn stack(ms: &[Mat<f64>], dims: &[usize]) -> D {
    let mut v = Vec::with_capacity(dims.iter().product());
    for m in ms {
        for i in 0..m.nrows() {
            for j in 0..m.ncols() {
                v.push(m[(i, j)]);
            }
        }
    }
    D::try_from_vec(v, dims).unwrap()
}

/// `f(a_i, b_i)` for each pair of the broadcast batch of the matrices of
/// `a` and `b`, each an `rows` by `cols` matrix.
fn pairwise(
    name: &str,
    (a, an): (&D, &str),
    (b, bn): (&D, &str),
    (rows, cols): (usize, usize),
    f: impl Fn(&Mat<f64>, &Mat<f64>) -> R<Mat<f64>> + Sync,
) -> R<D> {
    let batch = broadcast(batch_of(a, 2, name, an)?, batch_of(b, 2, name, bn)?)?;
    let (am, bm) = (mats(a, 2, name, an)?, mats(b, 2, name, bn)?);
    let (ia, ib) = (
        index_in(batch_of(a, 2, name, an)?, &batch),
        index_in(batch_of(b, 2, name, bn)?, &batch),
    );
    let out = each(name, ia.len(), |i| f(&am[ia[i]], &bm[ib[i]]))?;
    Ok(stack(&out, &with(&batch, &[rows, cols])))
}

// ---- Per-matrix algebra. ----

/// `x · y`, sequential (the batch is the parallel loop).
fn mm(x: &Mat<f64>, y: &Mat<f64>) -> Mat<f64> {
    let mut out = Mat::zeros(x.nrows(), y.ncols());
    faer::linalg::matmul::matmul(
        out.as_mut(),
        faer::Accum::Replace,
        x.as_ref(),
        y.as_ref(),
        1.0,
        faer::Par::Seq,
    );
    out
}

/// `xᵀ`.
fn tr(x: &Mat<f64>) -> Mat<f64> {
    x.transpose().to_owned()
}

/// `f` elementwise on `x` and `y`.
fn zip(x: &Mat<f64>, y: &Mat<f64>, f: impl Fn(f64, f64) -> f64) -> Mat<f64> {
    Mat::from_fn(x.nrows(), x.ncols(), |i, j| f(x[(i, j)], y[(i, j)]))
}

/// `-x`.
fn neg(x: &Mat<f64>) -> Mat<f64> {
    Mat::from_fn(x.nrows(), x.ncols(), |i, j| -x[(i, j)])
}

/// LU with partial pivoting, and whether a pivot is exactly zero.
fn plu(m: &Mat<f64>) -> (faer::linalg::solvers::PartialPivLu<f64>, bool) {
    let lu = m.partial_piv_lu();
    let u = lu.U();
    let zero = (0..u.nrows().min(u.ncols())).any(|i| u[(i, i)] == 0.0);
    (lu, zero)
}

/// `m⁻¹`, or an error for an exactly singular `m`.
fn inverse(m: &Mat<f64>) -> R<Mat<f64>> {
    match plu(m) {
        (_, true) => Err("The matrix is singular.".into()),
        (f, false) => Ok(f.inverse()),
    }
}

/// The parity of a permutation: `true` when odd.
fn odd(perm: &[usize]) -> bool {
    let mut seen = vec![false; perm.len()];
    let mut odd = false;
    for start in 0..perm.len() {
        let (mut len, mut i) = (0, start);
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

/// `(U, S, V)` of one matrix, reduced, `S` descending.
fn thin_svd(x: &Mat<f64>) -> R<(Mat<f64>, Vec<f64>, Mat<f64>)> {
    let f = x
        .thin_svd()
        .map_err(|_| "the SVD did not converge".to_string())?;
    let s = f.S().column_vector().iter().copied().collect();
    Ok((f.U().to_owned(), s, f.V().to_owned()))
}

/// The pseudo-inverse `V diag(1/σ) Uᵀ` of one matrix, dropping singular
/// values at or below `eps · max(m, n) · σ_max`.
fn pinv(a: &Mat<f64>) -> R<Mat<f64>> {
    let (m, n) = (a.nrows(), a.ncols());
    let (u, s, mut v) = thin_svd(a)?;
    let cutoff = f64::EPSILON * m.max(n) as f64 * s.first().copied().unwrap_or(0.0);
    for (j, &sj) in s.iter().enumerate() {
        let scale = if sj > cutoff { 1.0 / sj } else { 0.0 };
        for i in 0..n {
            v[(i, j)] *= scale;
        }
    }
    Ok(mm(&v, &tr(&u)))
}

/// Solves `A X = B` in place for triangular `a`, reading only `tri`.
fn solve_tri_in_place(a: &Mat<f64>, x: &mut Mat<f64>, tri: Triangle) {
    let a = a.as_ref();
    match (tri.upper, tri.unit) {
        (true, false) => a.solve_upper_triangular_in_place(x),
        (true, true) => a.solve_unit_upper_triangular_in_place(x),
        (false, false) => a.solve_lower_triangular_in_place(x),
        (false, true) => a.solve_unit_lower_triangular_in_place(x),
    }
}

/// The part of `x` on and above diagonal `k` (`triu(x, k)`).
fn triu(x: &Mat<f64>, k: isize) -> Mat<f64> {
    Mat::from_fn(x.nrows(), x.ncols(), |i, j| {
        if j as isize - i as isize >= k {
            x[(i, j)]
        } else {
            0.0
        }
    })
}

/// The part of `x` on and below diagonal `k` (`tril(x, k)`).
fn tril(x: &Mat<f64>, k: isize) -> Mat<f64> {
    Mat::from_fn(x.nrows(), x.ncols(), |i, j| {
        if j as isize - i as isize <= k {
            x[(i, j)]
        } else {
            0.0
        }
    })
}

/// `X` with `X Uᵀ = M` for upper triangular `U` (`M U⁻ᵀ`).
fn right_solve_upper_t(m: &Mat<f64>, u: &Mat<f64>) -> Mat<f64> {
    let mut xt = tr(m);
    let upper = Triangle {
        upper: true,
        unit: false,
    };
    solve_tri_in_place(u, &mut xt, upper);
    tr(&xt)
}

/// `L⁻ᵀ M` for unit lower triangular `L`.
fn left_solve_unit_lower_t(l: &Mat<f64>, m: &Mat<f64>) -> Mat<f64> {
    let mut x = m.clone();
    let unit_upper = Triangle {
        upper: true,
        unit: true,
    };
    solve_tri_in_place(&tr(l), &mut x, unit_upper);
    x
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

/// `exp(m)` of one matrix: Padé 13 with scaling and squaring.
fn expm(m: &Mat<f64>) -> Mat<f64> {
    let n = m.nrows();
    if n == 0 {
        return m.clone();
    }
    let norm1 = (0..n)
        .map(|j| (0..n).map(|i| m[(i, j)].abs()).sum::<f64>())
        .fold(0.0, f64::max);
    let ratio = norm1 / THETA13;
    let s = if ratio > 1.0 {
        ratio.log2().ceil().min(1000.0) as i32
    } else {
        0
    };
    let scale = 0.5f64.powi(s);
    let a = Mat::from_fn(n, n, |i, j| m[(i, j)] * scale);
    let a2 = mm(&a, &a);
    let a4 = mm(&a2, &a2);
    let a6 = mm(&a4, &a2);
    let id = Mat::<f64>::identity(n, n);
    let lin = |w: [f64; 4], ms: [&Mat<f64>; 4]| {
        Mat::from_fn(n, n, |i, j| {
            (0..4).fold(0.0, |acc, k| acc + w[k] * ms[k][(i, j)])
        })
    };
    let zero = Mat::<f64>::zeros(n, n);
    let u_in = mm(&a6, &lin([B[13], B[11], B[9], 0.], [&a6, &a4, &a2, &zero]));
    let u_sum = lin([1., B[7], B[5], B[3]], [&u_in, &a6, &a4, &a2]);
    let u_sum = zip(&u_sum, &id, |x, e| x + B[1] * e);
    let u = mm(&a, &u_sum);
    let v_in = mm(&a6, &lin([B[12], B[10], B[8], 0.], [&a6, &a4, &a2, &zero]));
    let v = lin([1., B[6], B[4], B[2]], [&v_in, &a6, &a4, &a2]);
    let v = zip(&v, &id, |x, e| x + B[0] * e);
    let mut r = zip(&v, &u, |x, y| x + y);
    plu(&zip(&v, &u, |x, y| x - y)).0.solve_in_place(&mut r);
    for _ in 0..s {
        r = mm(&r, &r);
    }
    r
}

/// The real `2n` by `2n` matrix `[[X, -Y], [Y, X]]` of the complex `X + iY`:
/// products, transposes (conjugate transposes) and inverses of complex
/// matrices are those of their embeddings.
fn embed(re: &Mat<f64>, im: &Mat<f64>) -> Mat<f64> {
    let (r, c) = (re.nrows(), re.ncols());
    Mat::from_fn(2 * r, 2 * c, |i, j| match (i < r, j < c) {
        (true, true) => re[(i, j)],
        (true, false) => -im[(i, j - c)],
        (false, true) => im[(i - r, j)],
        (false, false) => re[(i - r, j - c)],
    })
}

/// The real and imaginary parts of an embedded complex matrix.
fn unembed(e: &Mat<f64>) -> (Mat<f64>, Mat<f64>) {
    let (r, c) = (e.nrows() / 2, e.ncols() / 2);
    (
        Mat::from_fn(r, c, |i, j| e[(i, j)]),
        Mat::from_fn(r, c, |i, j| e[(i + r, j)]),
    )
}

// ---- Shape checks shared by the oracles. ----

/// `a` and `b` batches of square matrices of the same sizes.
fn same(name: &str, a: &D, b: &D) -> R<()> {
    let sq = a.dims().len() >= 2 && {
        let (r, c) = shape2(a);
        r == c
    };
    if a.dims() != b.dims() || !sq {
        return Err(format!(
            "{name}: expected two batches of square matrices of the same shape, but got {:?} and {:?}",
            a.dims(),
            b.dims()
        ));
    }
    Ok(())
}

/// `n` (A's rows) and the columns `k` of `grad`, checked to fit
/// `X = A⁻¹ B`.
fn solve_sizes(name: &str, grad: &D, a: &D, x: &D) -> R<(usize, usize)> {
    batch_of(a, 2, name, "A")?;
    batch_of(grad, 2, name, "grad")?;
    let n = shape2(a).0;
    if shape2(grad).0 != n || grad.dims() != x.dims() {
        return Err(format!(
            "{name}: grad {:?} and X {:?} must be equal and have A's n = {n} rows",
            grad.dims(),
            x.dims()
        ));
    }
    Ok((n, shape2(grad).1))
}

// ---- The formulas. ----

/// The gradient of `inv`: for `Y = A⁻¹` and an upstream gradient `G`,
/// `-Yᵀ G Yᵀ`.
pub fn inv_backward(grad: &D, inv_out: &D) -> R<D> {
    let name = "inv_backward";
    same(name, grad, inv_out)?;
    let n = shape2(inv_out).0;
    pairwise(
        name,
        (grad, "grad"),
        (inv_out, "inv_out"),
        (n, n),
        |g, y| Ok(neg(&mm(&mm(&tr(y), g), &tr(y)))),
    )
}

/// `adj(A)ᵀ` of a square matrix, through its SVD `A = U Σ Vᵀ` (valid for
/// any `A`): `det(U) det(V) · U adj(Σ) Vᵀ`, `adj(Σ)` diagonal with the
/// products of the other singular values.
fn adjugate_t(a: &Mat<f64>) -> R<Mat<f64>> {
    let n = a.nrows();
    let (u, s, v) = thin_svd(a)?;
    let sign = |q: &Mat<f64>| {
        let (f, _) = plu(q);
        let u = f.U();
        let mut p = if odd(f.P().arrays().0) { -1.0 } else { 1.0 };
        for k in 0..n {
            if u[(k, k)] < 0.0 {
                p = -p;
            }
        }
        p
    };
    let c = sign(&u) * sign(&v);
    let cof: Vec<f64> = (0..n)
        .map(|k| {
            s.iter()
                .enumerate()
                .filter(|&(j, _)| j != k)
                .fold(1.0, |p, (_, &x)| p * x)
        })
        .collect();
    Ok(Mat::from_fn(n, n, |r, col| {
        (0..n).fold(0.0, |acc, k| acc + u[(r, k)] * cof[k] * v[(col, k)]) * c
    }))
}

/// The gradient of `det`: for `d = det(A)` and an upstream gradient `g`
/// (one per matrix), `g · adj(A)ᵀ`, the transposed adjugate: `d · A⁻ᵀ`
/// where `A` is invertible, through the SVD where it is singular (as
/// PyTorch, defined there too).
pub fn det_backward(grad: &D, a: &D, det_out: &D) -> R<D> {
    let name = "det_backward";
    let batch = batch_of(a, 2, name, "A")?;
    let (n, c) = shape2(a);
    if grad.dims() != batch || det_out.dims() != batch || c != n {
        return Err(format!(
            "{name}: grad {:?} and det {:?} must have the batch shape {batch:?} of square A",
            grad.dims(),
            det_out.dims(),
        ));
    }
    let (g, d, am) = (grad.to_vec(), det_out.to_vec(), mats(a, 2, name, "A")?);
    let out = each(name, am.len(), |i| {
        let adj_t = match inverse(&am[i]) {
            Ok(inv) => Mat::from_fn(n, n, |r, c| d[i] * inv[(c, r)]),
            Err(_) => adjugate_t(&am[i])?,
        };
        Ok(Mat::from_fn(n, n, |r, c| g[i] * adj_t[(r, c)]))
    })?;
    Ok(stack(&out, a.dims()))
}

/// The gradients of `solve`: for `X = A⁻¹ B` and an upstream gradient `G`
/// (`X`'s sizes), `∂B = A⁻ᵀ G` and `∂A = -∂B Xᵀ`, as `(∂A, ∂B)` with `X`'s
/// batch.
pub fn solve_backward(grad: &D, a: &D, x: &D) -> R<(D, D)> {
    let name = "solve_backward";
    let (n, k) = solve_sizes(name, grad, a, x)?;
    let gb = pairwise(name, (a, "A"), (grad, "grad"), (n, k), |a, g| {
        Ok(mm(&tr(&inverse(a)?), g))
    })?;
    let ga = pairwise(name, (&gb, "grad"), (x, "X"), (n, n), |gb, x| {
        Ok(neg(&mm(gb, &tr(x))))
    })?;
    Ok((ga, gb))
}

/// The gradient of `cholesky`: for `L = cholesky(A)` and an upstream
/// gradient `G`, with `Φ(M)` the lower triangle of `M` with its diagonal
/// halved, `S = L⁻ᵀ Φ(Lᵀ G) L⁻¹` and `∂A = (S + Sᵀ) / 2`.
pub fn cholesky_backward(grad: &D, l: &D) -> R<D> {
    let name = "cholesky_backward";
    same(name, grad, l)?;
    let n = shape2(l).0;
    pairwise(name, (grad, "grad"), (l, "L"), (n, n), |g, l| {
        if (0..n).any(|k| l[(k, k)] == 0.0) {
            return Err("The diagonal of L has a zero.".into());
        }
        let mut phi = mm(&tr(l), g);
        for i in 0..n {
            for j in 0..n {
                if j > i {
                    phi[(i, j)] = 0.0;
                } else if i == j {
                    phi[(i, j)] *= 0.5;
                }
            }
        }
        // S = L⁻ᵀ Φ L⁻¹: Y = L⁻ᵀ Φ, then Sᵀ = L⁻ᵀ Yᵀ.
        let lt = l.transpose();
        lt.solve_upper_triangular_in_place(&mut phi);
        let mut st = tr(&phi);
        lt.solve_upper_triangular_in_place(&mut st);
        Ok(Mat::from_fn(n, n, |i, j| 0.5 * (st[(i, j)] + st[(j, i)])))
    })
}

/// The gradients of `solve_triangular` (left): for `X = A⁻¹ B` with `A`
/// triangular as `tri` says and an upstream gradient `G`, `∂B = A⁻ᵀ G`
/// and `∂A = -∂B Xᵀ` restricted to the triangle that is read (without the
/// diagonal for a unit triangle), as `(∂A, ∂B)` with `X`'s batch.
pub fn solve_triangular_backward(grad: &D, a: &D, x: &D, tri: Triangle) -> R<(D, D)> {
    let name = "solve_triangular_backward";
    let (n, k) = solve_sizes(name, grad, a, x)?;
    let flipped = Triangle {
        upper: !tri.upper,
        unit: tri.unit,
    };
    let gb = pairwise(name, (a, "A"), (grad, "grad"), (n, k), |a, g| {
        let mut g = g.clone();
        solve_tri_in_place(&tr(a), &mut g, flipped);
        Ok(g)
    })?;
    let ga = pairwise(name, (&gb, "grad"), (x, "X"), (n, n), |gb, x| {
        let r = mm(gb, &tr(x));
        Ok(Mat::from_fn(n, n, |i, j| {
            let inside = if tri.upper { j >= i } else { j <= i };
            if inside && !(tri.unit && i == j) {
                -r[(i, j)]
            } else {
                0.0
            }
        }))
    })?;
    Ok((ga, gb))
}

/// The gradient of `Aᵏ` (`k ≥ 1`, computed by repeated squaring) for the
/// upstream gradient `g`: reverse mode through the same squarings and
/// products (`O(log k)` products).
fn power_vjp(a: &Mat<f64>, g: &Mat<f64>, k: u64) -> Mat<f64> {
    let n = a.nrows();
    let add = |x: &Mat<f64>, y: &Mat<f64>| zip(x, y, |s, t| s + t);
    // bases[j] = A^(2^j); steps: the product before each factor.
    let bits = 64 - k.leading_zeros() as usize;
    let mut bases = vec![a.clone()];
    for j in 1..bits {
        bases.push(mm(&bases[j - 1], &bases[j - 1]));
    }
    let mut acc = Mat::<f64>::identity(n, n);
    let mut steps = Vec::new();
    for (j, base) in bases.iter().enumerate() {
        if k >> j & 1 == 1 {
            steps.push((acc.clone(), j));
            acc = mm(&acc, base);
        }
    }
    // Back through acc_{t+1} = acc_t · bases[j].
    let mut g_acc = g.clone();
    let mut g_bases = vec![Mat::<f64>::zeros(n, n); bases.len()];
    for (prev, j) in steps.iter().rev() {
        g_bases[*j] = add(&g_bases[*j], &mm(&tr(prev), &g_acc));
        g_acc = mm(&g_acc, &tr(&bases[*j]));
    }
    // Back through bases[j] = bases[j-1]².
    for j in (1..bases.len()).rev() {
        let b = &bases[j - 1];
        let both = add(&mm(&g_bases[j], &tr(b)), &mm(&tr(b), &g_bases[j]));
        g_bases[j - 1] = add(&g_bases[j - 1], &both);
    }
    g_bases.swap_remove(0)
}

/// The gradient of `matrix_power(A, k)`: `Σ_{i<k} (Aᵀ)ⁱ G (Aᵀ)^{k-1-i}`
/// for `k > 0`, 0 for `k = 0`, and for `k < 0` (with `B = A⁻¹` and `∂B`
/// that of `B^{|k|}`) `-Bᵀ ∂B Bᵀ`.
pub fn matrix_power_backward(grad: &D, a: &D, k: i64) -> R<D> {
    let name = "matrix_power_backward";
    same(name, grad, a)?;
    let n = shape2(a).0;
    pairwise(name, (grad, "grad"), (a, "A"), (n, n), |g, a| {
        Ok(match k {
            0 => Mat::zeros(n, n),
            k if k > 0 => power_vjp(a, g, k as u64),
            k => {
                let b = inverse(a)?;
                let gb = power_vjp(&b, g, k.unsigned_abs());
                neg(&mm(&mm(&tr(&b), &gb), &tr(&b)))
            }
        })
    })
}

/// The gradient of `matrix_exp`: the upper-right block of
/// `exp([[Aᵀ, G], [0, Aᵀ]])` (the Fréchet derivative of `exp` at `Aᵀ` in
/// the direction `G`).
pub fn matrix_exp_backward(grad: &D, a: &D) -> R<D> {
    let name = "matrix_exp_backward";
    same(name, grad, a)?;
    let n = shape2(a).0;
    pairwise(name, (grad, "grad"), (a, "A"), (n, n), |g, a| {
        let big = Mat::from_fn(2 * n, 2 * n, |i, j| match (i < n, j < n) {
            (true, true) => a[(j, i)],
            (true, false) => g[(i, j - n)],
            (false, true) => 0.0,
            (false, false) => a[(j - n, i - n)],
        });
        let e = expm(&big);
        Ok(Mat::from_fn(n, n, |i, j| e[(i, j + n)]))
    })
}

/// The gradient of `svdvals`: for `A = U Σ Vᵀ` (thin) and an upstream
/// gradient `g` `(..., k)` on the singular values, `U diag(g) Vᵀ`.
pub fn svdvals_backward(grad: &D, a: &D) -> R<D> {
    let name = "svdvals_backward";
    let batch = batch_of(a, 2, name, "A")?;
    let (m, n) = shape2(a);
    let k = m.min(n);
    if grad.dims() != with(batch, &[k]).as_slice() {
        return Err(format!(
            "{name}: grad {:?} must be A's batch and min(m, n)",
            grad.dims()
        ));
    }
    let (g, am) = (grad.to_vec(), mats(a, 2, name, "A")?);
    let out = each(name, am.len(), |i| {
        if k == 0 {
            return Ok(Mat::zeros(m, n));
        }
        let (u, _, v) = thin_svd(&am[i])?;
        let gi = &g[i * k..(i + 1) * k];
        Ok(Mat::from_fn(m, n, |r, c| {
            (0..k).fold(0.0, |acc, j| acc + u[(r, j)] * gi[j] * v[(c, j)])
        }))
    })?;
    Ok(stack(&out, a.dims()))
}

/// PyTorch's `pinv_backward`: the gradient with respect to `A` of
/// `P = pinv(A)` for an upstream gradient `g` on `P`.
fn pinv_vjp(a: &Mat<f64>, p: &Mat<f64>, g: &Mat<f64>) -> Mat<f64> {
    let (m, n) = (a.nrows(), a.ncols());
    let (ph, gh) = (tr(p), tr(g));
    let sub = |x: &Mat<f64>, y: &Mat<f64>| zip(x, y, |s, t| s - t);
    let add = |x: &Mat<f64>, y: &Mat<f64>| zip(x, y, |s, t| s + t);
    if m <= n {
        let k = mm(&gh, p);
        let kph = mm(&k, &ph);
        let t1 = tr(&mm(p, &k));
        let t3 = mm(&mm(a, p), &kph);
        let t4 = mm(&mm(&ph, p), &sub(&gh, &mm(&k, a)));
        add(&sub(&sub(&kph, &t1), &t3), &t4)
    } else {
        let k = mm(p, &gh);
        let phk = mm(&ph, &k);
        let t1 = tr(&mm(&k, p));
        let t2 = mm(&mm(&sub(&gh, &mm(a, &k)), p), &ph);
        let t4 = mm(&mm(&phk, p), a);
        sub(&add(&sub(&t2, &t1), &phk), &t4)
    }
}

/// The gradients of `lstsq`'s solution, as PyTorch's: those of
/// `X = pinv(A) B`, so `∂B = pinv(A)ᵀ G` and `∂A` the gradient of `pinv`
/// at `G Bᵀ`. `grad` `(..., n, k)` has the solution's batch, which `A`
/// `(..., m, n)` and `B` `(..., m, k)` broadcast to; so do the results,
/// `(∂A, ∂B)`.
pub fn lstsq_backward(grad: &D, a: &D, b: &D) -> R<(D, D)> {
    let name = "lstsq_backward";
    let (ab, bb, batch) = (
        batch_of(a, 2, name, "A")?,
        batch_of(b, 2, name, "B")?,
        batch_of(grad, 2, name, "grad")?,
    );
    let ((m, n), (bm, k), (gr, gc)) = (shape2(a), shape2(b), shape2(grad));
    if bm != m
        || gr != n
        || gc != k
        || ab.len() > batch.len()
        || bb.len() > batch.len()
        || broadcast(&broadcast(ab, bb)?, batch)? != batch
    {
        return Err(format!(
            "{name}: grad {:?}, A {:?} and B {:?} do not fit X = pinv(A) B",
            grad.dims(),
            a.dims(),
            b.dims()
        ));
    }
    let (am, bms, gm) = (
        mats(a, 2, name, "A")?,
        mats(b, 2, name, "B")?,
        mats(grad, 2, name, "grad")?,
    );
    let (ia, ib) = (index_in(ab, batch), index_in(bb, batch));
    let res = each(name, gm.len(), |i| {
        let (am, bm, gm) = (&am[ia[i]], &bms[ib[i]], &gm[i]);
        let p = pinv(am)?;
        Ok((pinv_vjp(am, &p, &mm(gm, &tr(bm))), mm(&tr(&p), gm)))
    })?;
    let (gas, gbs): (Vec<_>, Vec<_>) = res.into_iter().unzip();
    Ok((
        stack(&gas, &with(batch, &[m, n])),
        stack(&gbs, &with(batch, &[m, k])),
    ))
}

/// The gradient of `householder_product(A, tau)` for an upstream gradient
/// `G` `(..., m, n)`: reverse mode through the reflectors
/// `Hᵢ = I - τᵢ vᵢ vᵢᵀ` (for `Y = H X`: `∂X = H ∂Y`,
/// `∂τ = -(vᵀ ∂Y)(Xᵀ v)` and `∂v = -τ (∂Y Xᵀ v + X ∂Yᵀ v)`, of which the
/// entries below the diagonal are `A`'s), as `(∂A, ∂tau)`.
pub fn householder_product_backward(grad: &D, a: &D, tau: &D) -> R<(D, D)> {
    let name = "householder_product_backward";
    let batch = batch_of(a, 2, name, "input")?;
    let tb = batch_of(tau, 1, name, "tau")?;
    let (m, n) = shape2(a);
    let k = tau.dims()[tau.dims().len() - 1];
    if grad.dims() != a.dims() || tb != batch || k > n || n > m {
        return Err(format!(
            "{name}: grad {:?}, input {:?} and tau {:?} do not fit",
            grad.dims(),
            a.dims(),
            tau.dims()
        ));
    }
    let (am, tm, gm) = (
        mats(a, 2, name, "input")?,
        mats(tau, 1, name, "tau")?,
        mats(grad, 2, name, "grad")?,
    );
    let res = each(name, am.len(), |b| {
        let (am, tm) = (&am[b], &tm[b]);
        let v = |i: usize| -> Vec<f64> {
            (0..m)
                .map(|r| match r.cmp(&i) {
                    std::cmp::Ordering::Less => 0.0,
                    std::cmp::Ordering::Equal => 1.0,
                    std::cmp::Ordering::Greater => am[(r, i)],
                })
                .collect()
        };
        // Y = H X: Y = X - τ v (vᵀ X).
        let apply = |x: &Mat<f64>, v: &[f64], t: f64| {
            let dots: Vec<f64> = (0..n)
                .map(|c| (0..m).fold(0.0, |s, r| s + v[r] * x[(r, c)]))
                .collect();
            Mat::from_fn(m, n, |r, c| x[(r, c)] - t * v[r] * dots[c])
        };
        // Forward, H_{k-1} first, keeping what each reflector is applied to.
        let mut q = Mat::from_fn(m, n, |i, j| if i == j { 1.0 } else { 0.0 });
        let mut before = vec![Mat::<f64>::zeros(0, 0); k];
        for i in (0..k).rev() {
            let next = apply(&q, &v(i), tm[(i, 0)]);
            before[i] = std::mem::replace(&mut q, next);
        }
        let mut gy = gm[b].clone();
        let mut ga = Mat::<f64>::zeros(m, n);
        let mut gt = Mat::<f64>::zeros(k, 1);
        for (i, x) in before.iter().enumerate() {
            let (vi, t) = (v(i), tm[(i, 0)]);
            let av: Vec<f64> = (0..n)
                .map(|c| (0..m).fold(0.0, |s, r| s + gy[(r, c)] * vi[r]))
                .collect();
            let bv: Vec<f64> = (0..n)
                .map(|c| (0..m).fold(0.0, |s, r| s + x[(r, c)] * vi[r]))
                .collect();
            gt[(i, 0)] = -(0..n).fold(0.0, |s, c| s + av[c] * bv[c]);
            for r in i + 1..m {
                let gv = (0..n).fold(0.0, |s, c| s + gy[(r, c)] * bv[c] + x[(r, c)] * av[c]);
                ga[(r, i)] = -t * gv;
            }
            gy = apply(&gy, &vi, t);
        }
        Ok((ga, gt))
    })?;
    let (gas, gts): (Vec<_>, Vec<_>) = res.into_iter().unzip();
    Ok((stack(&gas, a.dims()), stack(&gts, tau.dims())))
}

/// The gradient of `lu`'s `L` and `U` for `A = P L U` `(..., m, n)`,
/// `k = min(m, n)`, as PyTorch's `linalg_lu_backward`: for square `A`,
/// `P L⁻ᵀ (tril₋₁(Lᵀ ∂L) + triu(∂U Uᵀ)) U⁻ᵀ`, with PyTorch's forms for
/// wide and tall `A`. `P` has no gradient.
pub fn lu_backward(grad_l: &D, grad_u: &D, p: &D, l: &D, u: &D) -> R<D> {
    let name = "lu_backward";
    let batch = batch_of(l, 2, name, "L")?;
    batch_of(u, 2, name, "U")?;
    let ((m, k), (uk, n)) = (shape2(l), shape2(u));
    if grad_l.dims() != l.dims()
        || grad_u.dims() != u.dims()
        || uk != k
        || k != m.min(n)
        || p.dims() != with(batch, &[m, m]).as_slice()
        || batch_of(u, 2, name, "U")? != batch
    {
        return Err(format!(
            "{name}: P {:?}, L {:?}, U {:?} and the gradients {:?}, {:?} do not fit",
            p.dims(),
            l.dims(),
            u.dims(),
            grad_l.dims(),
            grad_u.dims()
        ));
    }
    let [pm, lm, um, glm, gum] = [
        (p, "P"),
        (l, "L"),
        (u, "U"),
        (grad_l, "grad_L"),
        (grad_u, "grad_U"),
    ]
    .map(|(t, arg)| mats(t, 2, name, arg));
    let (pm, lm, um, glm, gum) = (pm?, lm?, um?, glm?, gum?);
    let out = each(name, lm.len(), |i| {
        let (lm, um, gl, gu) = (&lm[i], &um[i], &glm[i], &gum[i]);
        let g = if m == n {
            let x = zip(
                &tril(&mm(&tr(lm), gl), -1),
                &triu(&mm(gu, &tr(um)), 0),
                |s, t| s + t,
            );
            left_solve_unit_lower_t(lm, &right_solve_upper_t(&x, um))
        } else if m < n {
            // Wide: L (m, m), U = [U1 U2] with U1 (m, m).
            let u1 = Mat::from_fn(k, k, |r, c| um[(r, c)]);
            let x = zip(&mm(&tr(lm), gl), &mm(&triu(gu, 0), &tr(um)), |s, t| s - t);
            let x = right_solve_upper_t(&tril(&x, -1), &u1);
            let gu_t = triu(gu, 0);
            let x = Mat::from_fn(m, n, |r, c| {
                if c < k {
                    x[(r, c)] + gu_t[(r, c)]
                } else {
                    gu[(r, c)]
                }
            });
            left_solve_unit_lower_t(lm, &x)
        } else {
            // Tall: L = [L1; L2] with L1 (n, n), U (n, n).
            let l1 = Mat::from_fn(k, k, |r, c| lm[(r, c)]);
            let x = zip(&mm(gu, &tr(um)), &mm(&tr(lm), &tril(gl, -1)), |s, t| s - t);
            let x = left_solve_unit_lower_t(&l1, &triu(&x, 0));
            let gl_t = tril(gl, -1);
            let x = Mat::from_fn(m, n, |r, c| {
                if r < k {
                    x[(r, c)] + gl_t[(r, c)]
                } else {
                    gl[(r, c)]
                }
            });
            right_solve_upper_t(&x, um)
        };
        Ok(mm(&pm[i], &g))
    })?;
    Ok(stack(&out, &with(batch, &[m, n])))
}

/// The gradient of `eig` for a real `A` `(..., n, n)` with eigenvalues
/// `L = lre + i lim` `(..., n)` and unit eigenvectors `V = vre + i vim`,
/// and upstream gradients `gL`, `gV` (real and imaginary parts; zeros for
/// `eigvals`), as PyTorch's `linalg_eig_backward`:
/// `∂A = Re V⁻ᴴ (diag(gL) + (Vᴴ gV - Vᴴ V Re(diag(Vᴴ gV))) / E*) Vᴴ`, with
/// `E_ij = L_j - L_i` off the diagonal.
pub fn eig_backward(grad_vals: [&D; 2], grad_vecs: [&D; 2], vals: [&D; 2], vecs: [&D; 2]) -> R<D> {
    let name = "eig_backward";
    let batch = batch_of(vecs[0], 2, name, "V")?;
    let (n, c) = shape2(vecs[0]);
    let (vd, md) = (with(batch, &[n]), with(batch, &[n, n]));
    let fits = c == n
        && [grad_vals[0], grad_vals[1], vals[0], vals[1]]
            .iter()
            .all(|x| x.dims() == vd.as_slice())
        && [grad_vecs[0], grad_vecs[1], vecs[1]]
            .iter()
            .all(|x| x.dims() == md.as_slice());
    if !fits {
        return Err(format!(
            "{name}: eigenvalues and gradients of {vd:?}, eigenvectors and gradients of {md:?} expected"
        ));
    }
    let [glr, gli, lr, li] = [grad_vals[0], grad_vals[1], vals[0], vals[1]].map(|x| x.to_vec());
    let [vr, vi, gvr, gvi] =
        [vecs[0], vecs[1], grad_vecs[0], grad_vecs[1]].map(|x| mats(x, 2, name, "V"));
    let (vr, vi, gvr, gvi) = (vr?, vi?, gvr?, gvi?);
    let out = each(name, vr.len(), |b| {
        let v = embed(&vr[b], &vi[b]);
        let gv = embed(&gvr[b], &gvi[b]);
        let vh = tr(&v);
        let vhgv = mm(&vh, &gv);
        // V · diag(Re diag(Vᴴ gV)): column j (and j + n) scaled.
        let d: Vec<f64> = (0..n).map(|j| vhgv[(j, j)]).collect();
        let vdm = Mat::from_fn(2 * n, 2 * n, |i, j| v[(i, j)] * d[j % n]);
        let (wr, wi) = unembed(&zip(&vhgv, &mm(&vh, &vdm), |s, t| s - t));
        let at = |x: &[f64], i: usize| x[b * n + i];
        // Divide by conj(L_j - L_i) off the diagonal.
        let (mut cr, mut ci) = (Mat::<f64>::zeros(n, n), Mat::<f64>::zeros(n, n));
        for i in 0..n {
            for j in 0..n {
                if i == j {
                    cr[(i, i)] = at(&glr, i);
                    ci[(i, i)] = at(&gli, i);
                    continue;
                }
                let (er, ei) = (at(&lr, j) - at(&lr, i), at(&li, j) - at(&li, i));
                let den = er * er + ei * ei;
                cr[(i, j)] = (wr[(i, j)] * er - wi[(i, j)] * ei) / den;
                ci[(i, j)] = (wr[(i, j)] * ei + wi[(i, j)] * er) / den;
            }
        }
        // V⁻ᴴ C Vᴴ: solve Vᴴ X = C Vᴴ.
        let mut x = mm(&embed(&cr, &ci), &vh);
        let (f, zero) = plu(&vh);
        if zero {
            return Err("the eigenvectors are linearly dependent".into());
        }
        f.solve_in_place(&mut x);
        Ok(unembed(&x).0)
    })?;
    Ok(stack(&out, &md))
}
