//! Backward formulas (vector-Jacobian products) of the decompositions and
//! of the functions computed through them: `svdvals` (so the spectral and
//! nuclear norms and `cond`), `lu`, `eig` / `eigvals`,
//! `householder_product` and `lstsq`, as PyTorch defines them
//! (`FunctionsManual.cpp`). Re-exported by [`super::grad`]; each works on
//! [`DynRank`] tensors, the batch dimensions those of the forward output.
//! Checked against finite differences in `tests/linalg_grad_decomp.rs` and
//! against PyTorch's gradients in `tests/linalg_torch.rs`.

use faer::Mat;

use super::LinalgFloat;
use super::Triangle;
use super::tensor;
use crate::backend::cpu::linalg::batch::{Operand, dims_with, matmul, par_batches, stack};
use crate::backend::cpu::linalg::plu;
use crate::backend::cpu::linalg::triangular::solve_tri_in_place;
use crate::shape::DynRank;
use crate::{ShapeError, Tensor};

type D<T> = Tensor<T, DynRank>;

fn invalid(name: &str, what: String) -> ShapeError {
    ShapeError::Invalid(format!("{name}: {what}"))
}

fn mm<T: LinalgFloat>(x: &Mat<T>, y: &Mat<T>) -> Mat<T> {
    matmul(x.as_ref(), y.as_ref())
}

fn tr<T: LinalgFloat>(x: &Mat<T>) -> Mat<T> {
    x.transpose().to_owned()
}

fn zip<T: LinalgFloat>(x: &Mat<T>, y: &Mat<T>, f: impl Fn(T, T) -> T) -> Mat<T> {
    Mat::from_fn(x.nrows(), x.ncols(), |i, j| f(x[(i, j)], y[(i, j)]))
}

/// The part of `x` on and above diagonal `k` (`triu(x, k)`).
fn triu<T: LinalgFloat>(x: &Mat<T>, k: isize) -> Mat<T> {
    Mat::from_fn(x.nrows(), x.ncols(), |i, j| {
        if j as isize - i as isize >= k {
            x[(i, j)]
        } else {
            T::zero()
        }
    })
}

/// The part of `x` on and below diagonal `k` (`tril(x, k)`).
fn tril<T: LinalgFloat>(x: &Mat<T>, k: isize) -> Mat<T> {
    Mat::from_fn(x.nrows(), x.ncols(), |i, j| {
        if j as isize - i as isize <= k {
            x[(i, j)]
        } else {
            T::zero()
        }
    })
}

/// `X` with `X Uᵀ = M` for upper triangular `U` (`M U⁻ᵀ`).
fn right_solve_upper_t<T: LinalgFloat>(m: &Mat<T>, u: &Mat<T>) -> Mat<T> {
    let mut xt = tr(m);
    let upper = Triangle {
        upper: true,
        unit: false,
    };
    solve_tri_in_place(u, &mut xt, upper);
    tr(&xt)
}

/// `L⁻ᵀ M` for unit lower triangular `L`.
fn left_solve_unit_lower_t<T: LinalgFloat>(l: &Mat<T>, m: &Mat<T>) -> Mat<T> {
    let mut x = m.clone();
    let unit_upper = Triangle {
        upper: true,
        unit: true,
    };
    solve_tri_in_place(&tr(l), &mut x, unit_upper);
    x
}

/// The gradient of `svdvals`: for `A = U Σ Vᵀ` (thin) and an upstream
/// gradient `g` `(..., k)` on the singular values, `U diag(g) Vᵀ`.
///
/// # Errors
/// A `grad` of other sizes than `(..., min(m, n))`; an SVD that does not
/// converge.
///
/// ```
/// use shaped::{linalg, DynRank, Tensor};
/// let a = Tensor::<f64, DynRank>::try_from_vec(vec![3., 0., 0., -2.], &[2, 2]).unwrap();
/// let g = Tensor::<f64, DynRank>::try_from_vec(vec![1., 1.], &[2]).unwrap();
/// let d = linalg::grad::svdvals_backward(&g, &a).unwrap().to_vec();
/// let want = [1., 0., 0., -1.]; // the sign of each singular value's direction
/// assert!(d.iter().zip(want).all(|(x, y)| (x - y).abs() < 1e-12));
/// ```
pub fn svdvals_backward<T: LinalgFloat>(grad: &D<T>, a: &D<T>) -> Result<D<T>, ShapeError> {
    let name = "svdvals_backward";
    let am = Operand::matrices(a.layout(), name, "A")?;
    let (m, n) = (am.rows(), am.cols());
    let k = m.min(n);
    let batch = am.batch().to_vec();
    if grad.dims() != dims_with(&batch, &[k]).as_slice() {
        return Err(invalid(
            name,
            format!("grad {:?} must be A's batch and min(m, n)", grad.dims()),
        ));
    }
    let g = grad.to_vec();
    let offs = am.offsets(&batch);
    let mats = par_batches(name, &batch, |i| {
        if k == 0 {
            return Ok(Mat::zeros(m, n));
        }
        let (u, _, v) = super::svd::thin(&am.mat(offs[i]))?;
        let gi = &g[i * k..(i + 1) * k];
        Ok(Mat::from_fn(m, n, |r, c| {
            (0..k).fold(T::zero(), |acc, j| acc + u[(r, j)] * gi[j] * v[(c, j)])
        }))
    })?;
    tensor(stack(&mats, m * n), &am.dims_vec())
}

/// PyTorch's `pinv_backward`: the gradient with respect to `A` of `P =
/// pinv(A)` for an upstream gradient `g` on `P` (real matrices).
fn pinv_vjp<T: LinalgFloat>(a: &Mat<T>, p: &Mat<T>, g: &Mat<T>) -> Mat<T> {
    let (m, n) = (a.nrows(), a.ncols());
    let (ph, gh) = (tr(p), tr(g));
    let sub = |x: &Mat<T>, y: &Mat<T>| zip(x, y, |s, t| s - t);
    let add = |x: &Mat<T>, y: &Mat<T>| zip(x, y, |s, t| s + t);
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
/// `X = pinv(A) B`, so `∂L/∂B = pinv(A)ᵀ G` and `∂L/∂A` is the gradient of
/// `pinv` at `G Bᵀ`. `grad` `(..., n, k)` has the solution's batch, which
/// `A` `(..., m, n)` and `B` `(..., m, k)` broadcast to; the results have
/// it too, `(∂L/∂A, ∂L/∂B)`.
///
/// # Errors
/// Sizes that do not fit; an SVD that does not converge.
///
/// ```
/// use shaped::{linalg, DynRank, Tensor};
/// let t = |v: Vec<f64>, d: &[usize]| Tensor::<f64, DynRank>::try_from_vec(v, d).unwrap();
/// // x = b / 2 for A = [[2]]: ∂x/∂b = 1/2, ∂x/∂a = -b / 4.
/// let (ga, gb) = linalg::grad::lstsq_backward(&t(vec![1.], &[1, 1]), &t(vec![2.], &[1, 1]),
///     &t(vec![6.], &[1, 1])).unwrap();
/// assert!((gb.to_vec()[0] - 0.5).abs() < 1e-12 && (ga.to_vec()[0] + 1.5).abs() < 1e-12);
/// ```
#[allow(clippy::type_complexity)]
pub fn lstsq_backward<T: LinalgFloat>(
    grad: &D<T>,
    a: &D<T>,
    b: &D<T>,
) -> Result<(D<T>, D<T>), ShapeError> {
    let name = "lstsq_backward";
    let ao = Operand::matrices(a.layout(), name, "A")?;
    let bo = Operand::matrices(b.layout(), name, "B")?;
    let go = Operand::matrices(grad.layout(), name, "grad")?;
    let (m, n, k) = (ao.rows(), ao.cols(), bo.cols());
    let batch = go.batch().to_vec();
    if bo.rows() != m
        || go.rows() != n
        || go.cols() != k
        || ao.batch().len() > batch.len()
        || bo.batch().len() > batch.len()
    {
        return Err(invalid(
            name,
            format!(
                "grad {:?}, A {:?} and B {:?} do not fit X = pinv(A) B",
                grad.dims(),
                a.dims(),
                b.dims()
            ),
        ));
    }
    let (oa, ob, og) = (ao.offsets(&batch), bo.offsets(&batch), go.offsets(&batch));
    let res = par_batches(name, &batch, |i| {
        let (am, bm, gm) = (ao.mat(oa[i]), bo.mat(ob[i]), go.mat(og[i]));
        let p = super::lstsq::pinv_of(&am)?;
        let ga = pinv_vjp(&am, &p, &mm(&gm, &tr(&bm)));
        let gb = mm(&tr(&p), &gm);
        Ok((ga, gb))
    })?;
    let (gas, gbs): (Vec<Mat<T>>, Vec<Mat<T>>) = res.into_iter().unzip();
    Ok((
        tensor(stack(&gas, m * n), &dims_with(&batch, &[m, n]))?,
        tensor(stack(&gbs, m * k), &dims_with(&batch, &[m, k]))?,
    ))
}

/// The gradient of `householder_product(A, tau)` for an upstream gradient
/// `G` `(..., m, n)`: reverse mode through the reflectors `Hᵢ = I - τᵢ vᵢ
/// vᵢᵀ` (for `Y = H X`: `∂X = H ∂Y`, `∂τ = -(vᵀ ∂Y)(Xᵀ v)` and
/// `∂v = -τ (∂Y Xᵀ v + X ∂Yᵀ v)`, of which the entries below the diagonal
/// are `A`'s). Returns `(∂L/∂A, ∂L/∂tau)`.
///
/// # Errors
/// Sizes that do not fit.
///
/// ```
/// use shaped::{linalg, DynRank, Tensor};
/// let t = |v: Vec<f64>, d: &[usize]| Tensor::<f64, DynRank>::try_from_vec(v, d).unwrap();
/// // One reflector with v = (1, a), a = 0: Σ H = 2 - τ (1 + a)², so
/// // ∂/∂τ = -1 and ∂/∂a = -2τ.
/// let (ga, gt) = linalg::grad::householder_product_backward(&t(vec![1.; 4], &[2, 2]),
///     &t(vec![5., 5., 0., 5.], &[2, 2]), &t(vec![0.5], &[1])).unwrap();
/// assert_eq!(gt.to_vec(), vec![-1.]);
/// assert_eq!(ga.to_vec(), vec![0., 0., -1., 0.]);
/// ```
#[allow(clippy::type_complexity)]
pub fn householder_product_backward<T: LinalgFloat>(
    grad: &D<T>,
    a: &D<T>,
    tau: &D<T>,
) -> Result<(D<T>, D<T>), ShapeError> {
    let name = "householder_product_backward";
    let ao = Operand::matrices(a.layout(), name, "input")?;
    let to = Operand::vectors(tau.layout(), name, "tau")?;
    let (m, n, k) = (ao.rows(), ao.cols(), to.rows());
    let batch = ao.batch().to_vec();
    if grad.dims() != a.dims() || to.batch() != batch.as_slice() || k > n || n > m {
        return Err(invalid(
            name,
            format!(
                "grad {:?}, input {:?} and tau {:?} do not fit",
                grad.dims(),
                a.dims(),
                tau.dims()
            ),
        ));
    }
    let go = Operand::matrices(grad.layout(), name, "grad")?;
    let (oa, ot, og) = (ao.offsets(&batch), to.offsets(&batch), go.offsets(&batch));
    let res = par_batches(name, &batch, |b| {
        let (am, tm) = (ao.mat(oa[b]), to.mat(ot[b]));
        let v = |i: usize| -> Vec<T> {
            (0..m)
                .map(|r| match r.cmp(&i) {
                    std::cmp::Ordering::Less => T::zero(),
                    std::cmp::Ordering::Equal => T::one(),
                    std::cmp::Ordering::Greater => am[(r, i)],
                })
                .collect()
        };
        // Y = H X: Y = X - τ v (vᵀ X).
        let apply = |x: &Mat<T>, v: &[T], t: T| {
            let dots: Vec<T> = (0..n)
                .map(|c| (0..m).fold(T::zero(), |s, r| s + v[r] * x[(r, c)]))
                .collect();
            Mat::from_fn(m, n, |r, c| x[(r, c)] - t * v[r] * dots[c])
        };
        // Forward, H_{k-1} first, keeping what each reflector is applied to.
        let mut q = Mat::from_fn(m, n, |i, j| if i == j { T::one() } else { T::zero() });
        let mut before = vec![Mat::<T>::zeros(0, 0); k];
        for i in (0..k).rev() {
            let next = apply(&q, &v(i), tm[(i, 0)]);
            before[i] = std::mem::replace(&mut q, next);
        }
        let mut gy = go.mat(og[b]);
        let mut ga = Mat::<T>::zeros(m, n);
        let mut gt = Mat::<T>::zeros(k, 1);
        for (i, x) in before.iter().enumerate() {
            let (vi, t) = (v(i), tm[(i, 0)]);
            let av: Vec<T> = (0..n)
                .map(|c| (0..m).fold(T::zero(), |s, r| s + gy[(r, c)] * vi[r]))
                .collect();
            let bv: Vec<T> = (0..n)
                .map(|c| (0..m).fold(T::zero(), |s, r| s + x[(r, c)] * vi[r]))
                .collect();
            gt[(i, 0)] = -(0..n).fold(T::zero(), |s, c| s + av[c] * bv[c]);
            for r in i + 1..m {
                let gv = (0..n).fold(T::zero(), |s, c| s + gy[(r, c)] * bv[c] + x[(r, c)] * av[c]);
                ga[(r, i)] = -t * gv;
            }
            gy = apply(&gy, &vi, t);
        }
        Ok((ga, gt))
    })?;
    let (gas, gts): (Vec<Mat<T>>, Vec<Mat<T>>) = res.into_iter().unzip();
    Ok((
        tensor(stack(&gas, m * n), a.dims())?,
        tensor(stack(&gts, k), tau.dims())?,
    ))
}

/// The gradient of `lu`'s `L` and `U` for `A = P L U` `(..., m, n)`, `k =
/// min(m, n)`, as PyTorch's `linalg_lu_backward`; for square `A`, `P L⁻ᵀ
/// (tril₋₁(Lᵀ ∂L) + triu(∂U Uᵀ)) U⁻ᵀ`, with PyTorch's forms for wide and
/// tall `A`. `P` has no gradient. Zero pivots give infinities and NaNs.
///
/// # Errors
/// Sizes that do not fit.
///
/// ```
/// use shaped::{linalg, DynRank, Tensor};
/// let a = Tensor::<f64, DynRank>::try_from_vec(vec![2., 1., 4., 3.], &[2, 2]).unwrap();
/// let (p, l, u) = linalg::lu(&a);
/// let z = Tensor::<f64, DynRank>::try_zeros(&[2, 2]).unwrap();
/// // L and U unused: no gradient.
/// assert_eq!(linalg::grad::lu_backward(&z, &z, &p, &l, &u).unwrap().to_vec(), vec![0.; 4]);
/// ```
pub fn lu_backward<T: LinalgFloat>(
    grad_l: &D<T>,
    grad_u: &D<T>,
    p: &D<T>,
    l: &D<T>,
    u: &D<T>,
) -> Result<D<T>, ShapeError> {
    let name = "lu_backward";
    let po = Operand::matrices(p.layout(), name, "P")?;
    let lo = Operand::matrices(l.layout(), name, "L")?;
    let uo = Operand::matrices(u.layout(), name, "U")?;
    let (m, k, n) = (lo.rows(), lo.cols(), uo.cols());
    let batch = lo.batch().to_vec();
    if grad_l.dims() != l.dims()
        || grad_u.dims() != u.dims()
        || uo.rows() != k
        || k != m.min(n)
        || p.dims() != dims_with(&batch, &[m, m]).as_slice()
        || uo.batch() != batch.as_slice()
    {
        return Err(invalid(
            name,
            format!(
                "P {:?}, L {:?}, U {:?} and the gradients {:?}, {:?} do not fit",
                p.dims(),
                l.dims(),
                u.dims(),
                grad_l.dims(),
                grad_u.dims()
            ),
        ));
    }
    let glo = Operand::matrices(grad_l.layout(), name, "grad_L")?;
    let guo = Operand::matrices(grad_u.layout(), name, "grad_U")?;
    let offs: Vec<Vec<usize>> = [&po, &lo, &uo, &glo, &guo]
        .iter()
        .map(|o| o.offsets(&batch))
        .collect();
    let mats = par_batches(name, &batch, |i| {
        let (pm, lm, um) = (po.mat(offs[0][i]), lo.mat(offs[1][i]), uo.mat(offs[2][i]));
        let (gl, gu) = (glo.mat(offs[3][i]), guo.mat(offs[4][i]));
        let g = if m == n {
            let x = zip(
                &tril(&mm(&tr(&lm), &gl), -1),
                &triu(&mm(&gu, &tr(&um)), 0),
                |s, t| s + t,
            );
            left_solve_unit_lower_t(&lm, &right_solve_upper_t(&x, &um))
        } else if m < n {
            // Wide: L (m, m), U = [U1 U2] with U1 (m, m).
            let u1 = Mat::from_fn(k, k, |r, c| um[(r, c)]);
            let x = zip(&mm(&tr(&lm), &gl), &mm(&triu(&gu, 0), &tr(&um)), |s, t| {
                s - t
            });
            let x = right_solve_upper_t(&tril(&x, -1), &u1);
            let gu_t = triu(&gu, 0);
            let x = Mat::from_fn(m, n, |r, c| {
                if c < k {
                    x[(r, c)] + gu_t[(r, c)]
                } else {
                    gu[(r, c)]
                }
            });
            left_solve_unit_lower_t(&lm, &x)
        } else {
            // Tall: L = [L1; L2] with L1 (n, n), U (n, n).
            let l1 = Mat::from_fn(k, k, |r, c| lm[(r, c)]);
            let x = zip(&mm(&gu, &tr(&um)), &mm(&tr(&lm), &tril(&gl, -1)), |s, t| {
                s - t
            });
            let x = left_solve_unit_lower_t(&l1, &triu(&x, 0));
            let gl_t = tril(&gl, -1);
            let x = Mat::from_fn(m, n, |r, c| {
                if r < k {
                    x[(r, c)] + gl_t[(r, c)]
                } else {
                    gl[(r, c)]
                }
            });
            right_solve_upper_t(&x, &um)
        };
        Ok(mm(&pm, &g))
    })?;
    tensor(stack(&mats, m * n), &dims_with(&batch, &[m, n]))
}

/// The real `2n` by `2n` matrix `[[X, -Y], [Y, X]]` of the complex `X + iY`:
/// products, transposes (conjugate transposes) and inverses of complex
/// matrices are those of their embeddings.
fn embed<T: LinalgFloat>(re: &Mat<T>, im: &Mat<T>) -> Mat<T> {
    let (r, c) = (re.nrows(), re.ncols());
    Mat::from_fn(2 * r, 2 * c, |i, j| match (i < r, j < c) {
        (true, true) => re[(i, j)],
        (true, false) => -im[(i, j - c)],
        (false, true) => im[(i - r, j)],
        (false, false) => re[(i - r, j - c)],
    })
}

/// The real and imaginary parts of an embedded complex matrix.
fn unembed<T: LinalgFloat>(e: &Mat<T>) -> (Mat<T>, Mat<T>) {
    let (r, c) = (e.nrows() / 2, e.ncols() / 2);
    (
        Mat::from_fn(r, c, |i, j| e[(i, j)]),
        Mat::from_fn(r, c, |i, j| e[(i + r, j)]),
    )
}

/// The gradient of `eig` for a real `A` `(..., n, n)` with eigenvalues
/// `L = lre + i lim` `(..., n)` and unit eigenvectors `V = vre + i vim`,
/// and upstream gradients `gL`, `gV` (real and imaginary parts; zeros for
/// `eigvals`), as PyTorch's `linalg_eig_backward`:
/// `∂A = Re V⁻ᴴ (diag(gL) + (Vᴴ gV - Vᴴ V Re(diag(Vᴴ gV))) / E*) Vᴴ`, with
/// `E_ij = L_j - L_i` off the diagonal. The loss must not depend on the
/// phase of the eigenvectors (as in PyTorch, where it is checked); a
/// defective `V` gives an error, repeated eigenvalues infinities.
///
/// # Errors
/// Sizes that do not fit; a singular `V`.
///
/// ```
/// use shaped::{linalg, DynRank, Tensor};
/// let t = |v: Vec<f64>, d: &[usize]| Tensor::<f64, DynRank>::try_from_vec(v, d).unwrap();
/// // A = diag(1, 2): the gradient of λ₁ + 3 λ₂ is diag(1, 3).
/// let (l, z2) = (t(vec![1., 2.], &[2]), t(vec![0.; 2], &[2]));
/// let (v, z4) = (t(vec![1., 0., 0., 1.], &[2, 2]), t(vec![0.; 4], &[2, 2]));
/// let g = linalg::grad::eig_backward([&t(vec![1., 3.], &[2]), &z2], [&z4, &z4], [&l, &z2], [&v, &z4]).unwrap();
/// assert_eq!(g.to_vec(), vec![1., 0., 0., 3.]);
/// ```
pub fn eig_backward<T: LinalgFloat>(
    grad_vals: [&D<T>; 2],
    grad_vecs: [&D<T>; 2],
    vals: [&D<T>; 2],
    vecs: [&D<T>; 2],
) -> Result<D<T>, ShapeError> {
    let name = "eig_backward";
    let vo = Operand::matrices(vecs[0].layout(), name, "V")?;
    let n = vo.rows();
    let batch = vo.batch().to_vec();
    let vd = dims_with(&batch, &[n]);
    let md = dims_with(&batch, &[n, n]);
    let fits = vo.cols() == n
        && [grad_vals[0], grad_vals[1], vals[0], vals[1]]
            .iter()
            .all(|x| x.dims() == vd.as_slice())
        && [grad_vecs[0], grad_vecs[1], vecs[1]]
            .iter()
            .all(|x| x.dims() == md.as_slice());
    if !fits {
        return Err(invalid(
            name,
            format!(
                "eigenvalues and gradients of {vd:?}, eigenvectors and gradients of {md:?} expected"
            ),
        ));
    }
    let flat = |x: &D<T>| x.to_vec();
    let (glr, gli, lr, li) = (
        flat(grad_vals[0]),
        flat(grad_vals[1]),
        flat(vals[0]),
        flat(vals[1]),
    );
    let ops = [grad_vecs[0], grad_vecs[1], vecs[1]]
        .iter()
        .map(|x| Operand::matrices(x.layout(), name, "V"))
        .collect::<Result<Vec<_>, _>>()?;
    let offs = vo.offsets(&batch);
    let ooffs: Vec<Vec<usize>> = ops.iter().map(|o| o.offsets(&batch)).collect();
    let mats = par_batches(name, &batch, |b| {
        let v = embed(&vo.mat(offs[b]), &ops[2].mat(ooffs[2][b]));
        let gv = embed(&ops[0].mat(ooffs[0][b]), &ops[1].mat(ooffs[1][b]));
        let vh = tr(&v);
        let vhgv = mm(&vh, &gv);
        // V · diag(Re diag(Vᴴ gV)): column j (and j + n) scaled.
        let d: Vec<T> = (0..n).map(|j| vhgv[(j, j)]).collect();
        let vd = Mat::from_fn(2 * n, 2 * n, |i, j| v[(i, j)] * d[j % n]);
        let w = zip(&vhgv, &mm(&vh, &vd), |s, t| s - t);
        let (wr, wi) = unembed(&w);
        let at = |x: &[T], i: usize| x[b * n + i];
        // Divide by conj(L_j - L_i) off the diagonal: multiply by (L_j - L_i) / |L_j - L_i|².
        let (mut cr, mut ci) = (Mat::<T>::zeros(n, n), Mat::<T>::zeros(n, n));
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
        let rhs = mm(&embed(&cr, &ci), &vh);
        let (f, zero) = plu(&vh);
        if zero.is_some() {
            return Err("the eigenvectors are linearly dependent".into());
        }
        use faer::linalg::solvers::Solve;
        let mut x = rhs;
        f.solve_in_place(&mut x);
        Ok(unembed(&x).0)
    })?;
    tensor(stack(&mats, n * n), &md)
}
