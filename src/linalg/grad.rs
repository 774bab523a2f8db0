//! Backward formulas (vector-Jacobian products) for `inv`, `det`, `solve`,
//! `cholesky`, `solve_triangular`, `matrix_power` and `matrix_exp`, as plain
//! functions on tensors, so that autograd can wire each in one line. Checked
//! against finite differences in `tests/linalg_grad.rs` and against
//! PyTorch in `tests/linalg_torch.rs`. Real matrices; the batch dimensions are those of
//! the forward output (a caller that broadcast an input sums the gradient
//! over the broadcast dimensions, as for elementwise operations).

use faer::Mat;

pub use super::grad_decomp::{
    eig_backward, householder_product_backward, lstsq_backward, lu_backward, svdvals_backward,
};

use super::tensor;
use super::{BatchOf, LinalgFloat, SquareMatrices};
use crate::backend::cpu::linalg::batch::pairwise;
use crate::backend::cpu::linalg::batch::{Operand, matmul};
use crate::backend::cpu::linalg::plu;
use crate::shape::{DynRank, Shape};
use crate::{ShapeError, Tensor};

fn inverse<T: LinalgFloat>(a: &Mat<T>) -> Result<Mat<T>, String> {
    use faer::linalg::solvers::DenseSolveCore;
    let (f, zero) = plu(a);
    match zero {
        Some(_) => Err("The matrix is singular.".into()),
        None => Ok(f.inverse()),
    }
}

/// The gradient of `inv`: for `Y = A⁻¹` and an upstream gradient `G`,
/// `∂L/∂A = -Yᵀ G Yᵀ`.
///
/// # Errors
/// Shapes that are not batches of square matrices or that differ.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let y = Tensor::<f64, Shape![1, 1]>::from_vec(vec![0.5]); // A = [[2]]
/// let g = Tensor::<f64, Shape![1, 1]>::from_vec(vec![1.]);
/// assert_eq!(linalg::grad::inv_backward(&g, &y).unwrap().to_vec(), vec![-0.25]);
/// ```
pub fn inv_backward<T: LinalgFloat, S: SquareMatrices>(
    grad: &Tensor<T, S>,
    inv_out: &Tensor<T, S>,
) -> Result<Tensor<T, S>, ShapeError> {
    let name = "inv_backward";
    let g = Operand::matrices(grad.layout(), name, "grad")?;
    let y = Operand::matrices(inv_out.layout(), name, "inv_out")?;
    same(name, &g, &y)?;
    let n = y.rows();
    let (data, dims) = pairwise(name, &g, &y, n, n, false, |gm, ym| {
        let t = matmul(ym.transpose(), gm.as_ref());
        let mut r = matmul(t.as_ref(), ym.transpose());
        neg(&mut r);
        Ok(r)
    })?;
    tensor(data, &dims)
}

/// The gradient of `det`: for `d = det(A)` and an upstream gradient `g`
/// (one per matrix), `∂L/∂A = g · adj(A)ᵀ`, the transposed adjugate, which
/// is `d · A⁻ᵀ` where `A` is invertible. At a singular `A` the adjugate is
/// still defined (PyTorch returns it too): it is computed from the SVD
/// `A = U Σ Vᵀ` as `adj(A) = det(U) det(V) · V adj(Σ) Uᵀ`, where `adj(Σ)`
/// is diagonal with the products of the other singular values. This never
/// fails on a singular matrix.
///
/// # Errors
/// Shapes that do not fit; an SVD that does not converge (non-finite input).
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f64, Shape![2, 2]>::from_vec(vec![2., 0., 0., 3.]);
/// let d = linalg::det(&a);
/// let g = Tensor::<f64, Shape![]>::from_vec(vec![1.]);
/// assert_eq!(linalg::grad::det_backward(&g, &a, &d).unwrap().to_vec(), vec![3., 0., 0., 2.]);
/// // Singular: the adjugate [[4, -2], [-2, 1]] of [[1, 2], [2, 4]], as PyTorch.
/// let s = Tensor::<f64, Shape![2, 2]>::from_vec(vec![1., 2., 2., 4.]);
/// let gs = linalg::grad::det_backward(&g, &s, &linalg::det(&s)).unwrap().to_vec();
/// let want = [4., -2., -2., 1.];
/// assert!(gs.iter().zip(want).all(|(x, y)| (x - y).abs() < 1e-12));
/// ```
pub fn det_backward<T: LinalgFloat, S: SquareMatrices>(
    grad: &Tensor<T, BatchOf<S>>,
    a: &Tensor<T, S>,
    det_out: &Tensor<T, BatchOf<S>>,
) -> Result<Tensor<T, S>, ShapeError> {
    let name = "det_backward";
    let am = Operand::matrices(a.layout(), name, "A")?;
    let n = am.rows();
    let (g, d) = (grad.to_vec(), det_out.to_vec());
    if grad.dims() != am.batch() || det_out.dims() != am.batch() || am.cols() != n {
        return Err(ShapeError::Invalid(format!(
            "{name}: grad {:?} and det {:?} must have the batch shape {:?} of square A",
            grad.dims(),
            det_out.dims(),
            am.batch()
        )));
    }
    let batch = am.batch().to_vec();
    let offs = am.offsets(&batch);
    let mats = crate::backend::cpu::linalg::batch::par_batches(name, &batch, |i| {
        let m = am.mat(offs[i]);
        let adj_t = match inverse(&m) {
            Ok(inv) => Mat::from_fn(n, n, |r, c| d[i] * inv[(c, r)]),
            Err(_) => adjugate_t(&m)?,
        };
        Ok(Mat::from_fn(n, n, |r, c| g[i] * adj_t[(r, c)]))
    })?;
    tensor(
        crate::backend::cpu::linalg::batch::stack(&mats, n * n),
        &am.dims_vec(),
    )
}

/// `adj(A)ᵀ` of a square matrix, through its SVD (valid for any `A`).
fn adjugate_t<T: LinalgFloat>(a: &Mat<T>) -> Result<Mat<T>, String> {
    let n = a.nrows();
    let (u, s, v) = super::svd::thin(a)?;
    let sign = |q: &Mat<T>| {
        let (f, _) = plu(q);
        let u = f.U();
        let mut p = if crate::backend::cpu::linalg::lu::odd(f.P().arrays().0) {
            -T::one()
        } else {
            T::one()
        };
        for k in 0..n {
            if u[(k, k)] < T::zero() {
                p = -p;
            }
        }
        p
    };
    let c = sign(&u) * sign(&v);
    // adj(Σ)_k = prod_{j != k} σ_j.
    let cof: Vec<T> = (0..n)
        .map(|k| {
            s.iter()
                .enumerate()
                .filter(|&(j, _)| j != k)
                .fold(T::one(), |p, (_, &x)| p * x)
        })
        .collect();
    // adj(A) = c · V adj(Σ) Uᵀ, so adj(A)ᵀ = c · U adj(Σ) Vᵀ.
    Ok(Mat::from_fn(n, n, |r, col| {
        (0..n).fold(T::zero(), |acc, k| acc + u[(r, k)] * cof[k] * v[(col, k)]) * c
    }))
}

/// The gradients of `solve`: for `X = A⁻¹ B` and an upstream gradient `G`
/// (shape of `X`), `∂L/∂B = A⁻ᵀ G` and `∂L/∂A = -(∂L/∂B) Xᵀ`, returned as
/// `(∂L/∂A, ∂L/∂B)` with `X`'s batch dimensions.
///
/// # Errors
/// Shapes that do not fit; a singular `A`.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f64, Shape![1, 1]>::from_vec(vec![2.]);
/// let x = Tensor::<f64, Shape![1, 1]>::from_vec(vec![3.]); // B = [[6]]
/// let g = Tensor::<f64, Shape![1, 1]>::from_vec(vec![1.]);
/// let (ga, gb) = linalg::grad::solve_backward(&g, &a, &x).unwrap();
/// assert_eq!((ga.to_vec(), gb.to_vec()), (vec![-1.5], vec![0.5]));
/// ```
#[allow(clippy::type_complexity)]
pub fn solve_backward<T: LinalgFloat, SA: SquareMatrices, SX: Shape>(
    grad: &Tensor<T, SX>,
    a: &Tensor<T, SA>,
    x: &Tensor<T, SX>,
) -> Result<(Tensor<T, DynRank>, Tensor<T, SX>), ShapeError> {
    let name = "solve_backward";
    let (am, g, n, k) = solve_operands(name, grad, a, x)?;
    let (gb, dims) = pairwise(name, &am, &g, n, k, false, |am, gm| {
        let inv = inverse(&am)?;
        Ok(matmul(inv.transpose(), gm.as_ref()))
    })?;
    let gbt: Tensor<T, SX> = tensor(gb, &dims)?;
    let gbo = Operand::matrices(gbt.layout(), name, "grad")?;
    let xo = Operand::matrices(x.layout(), name, "X")?;
    let (ga, gdims) = pairwise(name, &gbo, &xo, n, n, false, |gbm, xm| {
        let mut r = matmul(gbm.as_ref(), xm.transpose());
        neg(&mut r);
        Ok(r)
    })?;
    let ga = tensor(ga, &gdims)?;
    drop((gbo, xo));
    Ok((ga, gbt))
}

/// The gradient of `cholesky`: for `L = cholesky(A)` and an upstream
/// gradient `G`, with `Φ(M)` the lower triangle of `M` with its diagonal
/// halved, `S = L⁻ᵀ Φ(Lᵀ G) L⁻¹` and `∂L/∂A = (S + Sᵀ) / 2` (symmetric, as
/// PyTorch returns it).
///
/// # Errors
/// Shapes that differ; a zero on the diagonal of `L`.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let l = Tensor::<f64, Shape![1, 1]>::from_vec(vec![2.]); // A = [[4]], L = sqrt(A)
/// let g = Tensor::<f64, Shape![1, 1]>::from_vec(vec![1.]);
/// assert_eq!(linalg::grad::cholesky_backward(&g, &l).unwrap().to_vec(), vec![0.25]);
/// ```
pub fn cholesky_backward<T: LinalgFloat, S: SquareMatrices>(
    grad: &Tensor<T, S>,
    l: &Tensor<T, S>,
) -> Result<Tensor<T, S>, ShapeError> {
    let name = "cholesky_backward";
    let g = Operand::matrices(grad.layout(), name, "grad")?;
    let lo = Operand::matrices(l.layout(), name, "L")?;
    same(name, &g, &lo)?;
    let n = lo.rows();
    let (data, dims) = pairwise(name, &g, &lo, n, n, false, |gm, lm| {
        if (0..n).any(|k| lm[(k, k)] == T::zero()) {
            return Err("The diagonal of L has a zero.".into());
        }
        let half = T::one() / (T::one() + T::one());
        let mut phi = matmul(lm.transpose(), gm.as_ref());
        for i in 0..n {
            for j in 0..n {
                if j > i {
                    phi[(i, j)] = T::zero();
                } else if i == j {
                    phi[(i, j)] *= half;
                }
            }
        }
        // S = L⁻ᵀ Φ L⁻¹: solve Lᵀ Y = Φ, then S Lᵀ... via Sᵀ = L⁻ᵀ Yᵀ.
        let lr = lm.as_ref();
        lr.transpose().solve_upper_triangular_in_place(&mut phi);
        let mut st = phi.transpose().to_owned();
        lr.transpose().solve_upper_triangular_in_place(&mut st);
        Ok(Mat::from_fn(n, n, |i, j| half * (st[(i, j)] + st[(j, i)])))
    })?;
    tensor(data, &dims)
}

fn neg<T: LinalgFloat>(m: &mut Mat<T>) {
    for j in 0..m.ncols() {
        for i in 0..m.nrows() {
            m[(i, j)] = -m[(i, j)];
        }
    }
}

fn same<T: LinalgFloat>(
    name: &str,
    a: &Operand<'_, T>,
    b: &Operand<'_, T>,
) -> Result<(), ShapeError> {
    if a.dims_vec() != b.dims_vec() || a.rows() != a.cols() {
        return Err(ShapeError::Invalid(format!(
            "{name}: expected two batches of square matrices of the same shape, but got {:?} and {:?}",
            a.dims_vec(),
            b.dims_vec()
        )));
    }
    Ok(())
}

/// The gradients of `solve_triangular` (left): for `X = A⁻¹ B` with `A`
/// triangular as `tri` says and an upstream gradient `G` (shape of `X`),
/// `∂L/∂B = A⁻ᵀ G` and `∂L/∂A = -(∂L/∂B) Xᵀ` restricted to the triangle
/// that is read (without the diagonal for a unit triangle), returned as
/// `(∂L/∂A, ∂L/∂B)` with `X`'s batch dimensions. A zero on the diagonal
/// gives infinities and NaNs, as the forward pass does.
///
/// # Errors
/// Shapes that do not fit.
///
/// ```
/// use shaped::{linalg::{self, Triangle}, Shape, Tensor};
/// let a = Tensor::<f64, Shape![1, 1]>::from_vec(vec![2.]);
/// let x = Tensor::<f64, Shape![1, 1]>::from_vec(vec![3.]); // B = [[6]]
/// let g = Tensor::<f64, Shape![1, 1]>::from_vec(vec![1.]);
/// let tri = Triangle { upper: true, unit: false };
/// let (ga, gb) = linalg::grad::solve_triangular_backward(&g, &a, &x, tri).unwrap();
/// assert_eq!((ga.to_vec(), gb.to_vec()), (vec![-1.5], vec![0.5]));
/// ```
#[allow(clippy::type_complexity)]
pub fn solve_triangular_backward<T: LinalgFloat, SA: SquareMatrices, SX: Shape>(
    grad: &Tensor<T, SX>,
    a: &Tensor<T, SA>,
    x: &Tensor<T, SX>,
    tri: super::Triangle,
) -> Result<(Tensor<T, DynRank>, Tensor<T, SX>), ShapeError> {
    let name = "solve_triangular_backward";
    let (am, g, n, k) = solve_operands(name, grad, a, x)?;
    let flipped = super::Triangle {
        upper: !tri.upper,
        unit: tri.unit,
    };
    let (gb, dims) = pairwise(name, &am, &g, n, k, false, |am, mut gm| {
        let at = am.transpose().to_owned();
        crate::backend::cpu::linalg::triangular::solve_tri_in_place(&at, &mut gm, flipped);
        Ok(gm)
    })?;
    let gbt: Tensor<T, SX> = tensor(gb, &dims)?;
    let gbo = Operand::matrices(gbt.layout(), name, "grad")?;
    let xo = Operand::matrices(x.layout(), name, "X")?;
    let (ga, gdims) = pairwise(name, &gbo, &xo, n, n, false, |gbm, xm| {
        let r = matmul(gbm.as_ref(), xm.transpose());
        Ok(Mat::from_fn(n, n, |i, j| {
            let inside = if tri.upper { j >= i } else { j <= i };
            if inside && !(tri.unit && i == j) {
                -r[(i, j)]
            } else {
                T::zero()
            }
        }))
    })?;
    let ga = tensor(ga, &gdims)?;
    drop((gbo, xo));
    Ok((ga, gbt))
}

/// The gradient of `Aᵏ` (`k ≥ 1`, computed by repeated squaring) for the
/// upstream gradient `g`: reverse mode through the same squarings and
/// products, so `O(log k)` products and memory (the sum
/// `Σ_{i<k} (Aᵀ)ⁱ G (Aᵀ)^{k-1-i}` written out would take `O(k)`).
fn power_vjp<T: LinalgFloat>(a: &Mat<T>, g: &Mat<T>, k: u64) -> Mat<T> {
    let n = a.nrows();
    let add = |x: &Mat<T>, y: &Mat<T>| Mat::from_fn(n, n, |i, j| x[(i, j)] + y[(i, j)]);
    // bases[j] = A^(2^j); accs[t] the product before the t-th factor.
    let bits = 64 - k.leading_zeros() as usize;
    let mut bases = vec![a.clone()];
    for j in 1..bits {
        bases.push(matmul(bases[j - 1].as_ref(), bases[j - 1].as_ref()));
    }
    let mut acc = Mat::<T>::identity(n, n);
    let mut steps = Vec::new();
    for (j, base) in bases.iter().enumerate() {
        if k >> j & 1 == 1 {
            steps.push((acc.clone(), j));
            acc = matmul(acc.as_ref(), base.as_ref());
        }
    }
    // Back through acc_{t+1} = acc_t · bases[j].
    let mut g_acc = g.clone();
    let mut g_bases = vec![Mat::<T>::zeros(n, n); bases.len()];
    for (prev, j) in steps.iter().rev() {
        let gb = matmul(prev.transpose(), g_acc.as_ref());
        g_bases[*j] = add(&g_bases[*j], &gb);
        g_acc = matmul(g_acc.as_ref(), bases[*j].transpose());
    }
    // Back through bases[j] = bases[j-1]².
    for j in (1..bases.len()).rev() {
        let b = &bases[j - 1];
        let l = matmul(g_bases[j].as_ref(), b.transpose());
        let r = matmul(b.transpose(), g_bases[j].as_ref());
        g_bases[j - 1] = add(&g_bases[j - 1], &add(&l, &r));
    }
    g_bases.swap_remove(0)
}

/// The gradient of `matrix_power(A, k)`: `Σ_{i<k} (Aᵀ)ⁱ G (Aᵀ)^{k-1-i}` for
/// `k > 0` (computed through the squarings, `O(log k)` products), 0 for
/// `k = 0`, and for `k < 0` (with `B = A⁻¹` and `∂B` the same for
/// `B^{|k|}`) `-Bᵀ ∂B Bᵀ`.
///
/// # Errors
/// Shapes that differ or are not square; for `k < 0`, a singular `A`.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f64, Shape![1, 1]>::from_vec(vec![2.]);
/// let g = Tensor::<f64, Shape![1, 1]>::from_vec(vec![1.]);
/// assert_eq!(linalg::grad::matrix_power_backward(&g, &a, 3).unwrap().to_vec(), vec![12.]);
/// assert_eq!(linalg::grad::matrix_power_backward(&g, &a, -1).unwrap().to_vec(), vec![-0.25]);
/// ```
pub fn matrix_power_backward<T: LinalgFloat, S: SquareMatrices>(
    grad: &Tensor<T, S>,
    a: &Tensor<T, S>,
    k: i64,
) -> Result<Tensor<T, S>, ShapeError> {
    let name = "matrix_power_backward";
    let g = Operand::matrices(grad.layout(), name, "grad")?;
    let am = Operand::matrices(a.layout(), name, "A")?;
    same(name, &g, &am)?;
    let n = am.rows();
    let (data, dims) = pairwise(name, &g, &am, n, n, false, |gm, am| {
        Ok(match k {
            0 => Mat::zeros(n, n),
            k if k > 0 => power_vjp(&am, &gm, k as u64),
            k => {
                let b = inverse(&am)?;
                let gb = power_vjp(&b, &gm, k.unsigned_abs());
                let mut r = matmul(b.transpose(), gb.as_ref());
                r = matmul(r.as_ref(), b.transpose());
                neg(&mut r);
                r
            }
        })
    })?;
    tensor(data, &dims)
}

/// The gradient of `matrix_exp`: the upper-right block of
/// `exp([[Aᵀ, G], [0, Aᵀ]])` (the Fréchet derivative of `exp` at `Aᵀ` in
/// the direction `G`).
///
/// # Errors
/// Shapes that differ or are not square.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f64, Shape![1, 1]>::from_vec(vec![1.]);
/// let g = Tensor::<f64, Shape![1, 1]>::from_vec(vec![1.]);
/// let d = linalg::grad::matrix_exp_backward(&g, &a).unwrap().to_vec();
/// assert!((d[0] - 1f64.exp()).abs() < 1e-14);
/// ```
pub fn matrix_exp_backward<T: LinalgFloat, S: SquareMatrices>(
    grad: &Tensor<T, S>,
    a: &Tensor<T, S>,
) -> Result<Tensor<T, S>, ShapeError> {
    let name = "matrix_exp_backward";
    let g = Operand::matrices(grad.layout(), name, "grad")?;
    let am = Operand::matrices(a.layout(), name, "A")?;
    same(name, &g, &am)?;
    let n = am.rows();
    let (data, dims) = pairwise(name, &g, &am, n, n, false, |gm, am| {
        let big = Mat::from_fn(2 * n, 2 * n, |i, j| match (i < n, j < n) {
            (true, true) => am[(j, i)],
            (true, false) => gm[(i, j - n)],
            (false, true) => T::zero(),
            (false, false) => am[(j - n, i - n)],
        });
        let e = super::power::expm(&big);
        Ok(Mat::from_fn(n, n, |i, j| e[(i, j + n)]))
    })?;
    tensor(data, &dims)
}

/// `A` and `G` read as matrices, with `n` and the columns `k` of `G`,
/// checked to fit `X = A⁻¹ B`.
#[allow(clippy::type_complexity)]
fn solve_operands<'a, T: LinalgFloat, SA: Shape, SX: Shape>(
    name: &str,
    grad: &'a Tensor<T, SX>,
    a: &'a Tensor<T, SA>,
    x: &Tensor<T, SX>,
) -> Result<(Operand<'a, T>, Operand<'a, T>, usize, usize), ShapeError> {
    let am = Operand::matrices(a.layout(), name, "A")?;
    let g = Operand::matrices(grad.layout(), name, "grad")?;
    let n = am.rows();
    if g.rows() != n || grad.dims() != x.dims() {
        return Err(ShapeError::Invalid(format!(
            "{name}: grad {:?} and X {:?} must be equal and have A's n = {n} rows",
            grad.dims(),
            x.dims()
        )));
    }
    let k = g.cols();
    Ok((am, g, n, k))
}
