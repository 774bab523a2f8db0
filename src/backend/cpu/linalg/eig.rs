//! `eig` / `eigvals` of general real matrices on the CPU, and `eig`'s
//! gradient: faer's eigensolver on each matrix, the complex results as
//! their real and imaginary parts (row-major, with their sizes); the
//! backward pass in complex algebra through the real embedding
//! `[[X, -Y], [Y, X]]` of `X + iY`. No other device has an eigensolver for
//! general matrices: the typed front (`shaped::linalg::eig`) and autograd
//! copy other devices' tensors here and back.

use faer::Mat;
use faer::linalg::solvers::Solve;

use super::batch::{Operand, check_square, dims_with, matmul, par_batches, push_mat, stack};
use super::plu;
use crate::backend::cpu::exec::Layout;
use crate::backend::linalg::LinalgFloat;
use crate::shape::ShapeError;

/// PyTorch's message for a matrix whose eigenvalues do not converge.
const NO_CONVERGENCE: &str = "The algorithm failed to converge because the input matrix is ill-conditioned or has too many repeated eigenvalues.";

/// The eigen-decomposition of a batch of real matrices, row-major.
pub(crate) struct EigParts<T> {
    /// The eigenvalues' real and imaginary parts, `(..., n)` each.
    pub vals: [Vec<T>; 2],
    /// The eigenvectors' real and imaginary parts, `(..., n, n)` each
    /// (column `j` belongs to eigenvalue `j`); `None` for `eigvals`.
    pub vecs: Option<[Vec<T>; 2]>,
    /// The sizes of the eigenvalues, `(..., n)`.
    pub vals_dims: Vec<usize>,
    /// The sizes of the eigenvectors (the input's), `(..., n, n)`.
    pub vecs_dims: Vec<usize>,
}

/// The eigenvalues, and with `vectors` the eigenvectors (each of unit norm
/// with its largest component real and positive, as LAPACK's `geev` gives
/// them), of each square matrix of `a` `(..., n, n)`, named `linalg.eig`
/// (`linalg.eigvals` without `vectors`) in errors. The caller has checked
/// that `a` is finite.
///
/// # Errors
/// A rank < 2 or non-square `a`; no convergence (PyTorch's messages).
pub(crate) fn eig<T: LinalgFloat>(
    a: Layout<'_, T>,
    vectors: bool,
) -> Result<EigParts<T>, ShapeError> {
    let name = if vectors {
        "linalg.eig"
    } else {
        "linalg.eigvals"
    };
    let op = Operand::matrices(a, name, "A")?;
    let n = check_square(&op, name, "A")?;
    let vals_dims = dims_with(op.batch(), &[n]);
    let vecs_dims = op.dims_vec();
    if !vectors {
        let res = op.each(name, |x| {
            x.eigenvalues().map_err(|_| NO_CONVERGENCE.to_string())
        })?;
        let re = res.iter().flatten().map(|z| z.re).collect();
        let im = res.iter().flatten().map(|z| z.im).collect();
        return Ok(EigParts {
            vals: [re, im],
            vecs: None,
            vals_dims,
            vecs_dims,
        });
    }
    let res = op.each(name, |x| {
        let e = faer::linalg::solvers::Eigen::new_from_real(x.as_ref())
            .map_err(|_| NO_CONVERGENCE.to_string())?;
        let vals: Vec<(T, T)> = e.S().column_vector().iter().map(|z| (z.re, z.im)).collect();
        let u = e.U();
        let mut vre = Mat::<T>::zeros(n, n);
        let mut vim = Mat::<T>::zeros(n, n);
        for j in 0..n {
            // Unit norm, and the largest component made real and positive.
            let col: Vec<(T, T)> = (0..n).map(|i| (u[(i, j)].re, u[(i, j)].im)).collect();
            let norm = col
                .iter()
                .fold(T::zero(), |s, &(r, i)| s + r * r + i * i)
                .sqrt();
            let big = col.iter().copied().fold((T::zero(), T::zero()), |b, c| {
                if c.0 * c.0 + c.1 * c.1 > b.0 * b.0 + b.1 * b.1 {
                    c
                } else {
                    b
                }
            });
            let m = (big.0 * big.0 + big.1 * big.1).sqrt();
            // Multiply by conj(big) / (|big| · norm).
            let (pr, pi) = if m > T::zero() && norm > T::zero() {
                (big.0 / (m * norm), -big.1 / (m * norm))
            } else {
                (T::one(), T::zero())
            };
            for (i, &(r, im)) in col.iter().enumerate() {
                vre[(i, j)] = r * pr - im * pi;
                vim[(i, j)] = r * pi + im * pr;
            }
        }
        Ok((vals, vre, vim))
    })?;
    let (mut lre, mut lim, mut vre, mut vim) = (vec![], vec![], vec![], vec![]);
    for (vals, r, i) in &res {
        lre.extend(vals.iter().map(|v| v.0));
        lim.extend(vals.iter().map(|v| v.1));
        push_mat(&mut vre, r.as_ref());
        push_mat(&mut vim, i.as_ref());
    }
    Ok(EigParts {
        vals: [lre, lim],
        vecs: Some([vre, vim]),
        vals_dims,
        vecs_dims,
    })
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

/// The gradient of `eig` for real matrices `A` `(..., n, n)` with
/// eigenvalues `L = vals[0] + i vals[1]` `(..., n)` and unit eigenvectors
/// `V = vecs[0] + i vecs[1]` `(..., n, n)`, and upstream gradients
/// `gL = grad_vals`, `gV = grad_vecs` (real and imaginary parts; zeros for
/// `eigvals`), as PyTorch's `linalg_eig_backward`:
/// `∂A = Re V⁻ᴴ (diag(gL) + (Vᴴ gV - Vᴴ V Re(diag(Vᴴ gV))) / E*) Vᴴ`, with
/// `E_ij = L_j - L_i` off the diagonal. Returns `∂A` row-major with its
/// sizes (`V`'s). The loss must not depend on the phase of the
/// eigenvectors (as in PyTorch, where it is checked); repeated eigenvalues
/// give infinities.
///
/// # Errors
/// Sizes that do not fit; linearly dependent eigenvectors (a singular
/// `V`).
pub(crate) fn eig_backward<T: LinalgFloat>(
    grad_vals: [Layout<'_, T>; 2],
    grad_vecs: [Layout<'_, T>; 2],
    vals: [Layout<'_, T>; 2],
    vecs: [Layout<'_, T>; 2],
) -> Result<(Vec<T>, Vec<usize>), ShapeError> {
    let name = "eig_backward";
    let vo = Operand::matrices(vecs[0], name, "V")?;
    let n = vo.rows();
    let batch = vo.batch().to_vec();
    let vd = dims_with(&batch, &[n]);
    let md = dims_with(&batch, &[n, n]);
    let fits = vo.cols() == n
        && [grad_vals[0], grad_vals[1], vals[0], vals[1]]
            .iter()
            .all(|x| x.dims == vd.as_slice())
        && [grad_vecs[0], grad_vecs[1], vecs[1]]
            .iter()
            .all(|x| x.dims == md.as_slice());
    if !fits {
        return Err(ShapeError::Invalid(format!(
            "{name}: eigenvalues and gradients of {vd:?}, eigenvectors and gradients of {md:?} expected"
        )));
    }
    // gL's and L's real and imaginary parts, each a batch of vectors.
    let lops = [grad_vals[0], grad_vals[1], vals[0], vals[1]]
        .into_iter()
        .map(|x| Operand::vectors(x, name, "L"))
        .collect::<Result<Vec<_>, _>>()?;
    let ops = [grad_vecs[0], grad_vecs[1], vecs[1]]
        .into_iter()
        .map(|x| Operand::matrices(x, name, "V"))
        .collect::<Result<Vec<_>, _>>()?;
    let offs = vo.offsets(&batch);
    let ooffs: Vec<Vec<usize>> = ops.iter().map(|o| o.offsets(&batch)).collect();
    let loffs: Vec<Vec<usize>> = lops.iter().map(|o| o.offsets(&batch)).collect();
    let mats = par_batches(name, &batch, |b| {
        let v = embed(&vo.mat(offs[b]), &ops[2].mat(ooffs[2][b]));
        let gv = embed(&ops[0].mat(ooffs[0][b]), &ops[1].mat(ooffs[1][b]));
        let [glr, gli, lr, li] = [0, 1, 2, 3].map(|k| lops[k].mat(loffs[k][b]));
        let vh = v.transpose().to_owned();
        let vhgv = matmul(vh.as_ref(), gv.as_ref());
        // V · diag(Re diag(Vᴴ gV)): column j (and j + n) scaled.
        let d: Vec<T> = (0..n).map(|j| vhgv[(j, j)]).collect();
        let vd = Mat::from_fn(2 * n, 2 * n, |i, j| v[(i, j)] * d[j % n]);
        let vhvd = matmul(vh.as_ref(), vd.as_ref());
        let w = Mat::from_fn(2 * n, 2 * n, |i, j| vhgv[(i, j)] - vhvd[(i, j)]);
        let (wr, wi) = unembed(&w);
        // Divide by conj(L_j - L_i) off the diagonal: multiply by (L_j - L_i) / |L_j - L_i|².
        let (mut cr, mut ci) = (Mat::<T>::zeros(n, n), Mat::<T>::zeros(n, n));
        for i in 0..n {
            for j in 0..n {
                if i == j {
                    cr[(i, i)] = glr[(i, 0)];
                    ci[(i, i)] = gli[(i, 0)];
                    continue;
                }
                let (er, ei) = (lr[(j, 0)] - lr[(i, 0)], li[(j, 0)] - li[(i, 0)]);
                let den = er * er + ei * ei;
                cr[(i, j)] = (wr[(i, j)] * er - wi[(i, j)] * ei) / den;
                ci[(i, j)] = (wr[(i, j)] * ei + wi[(i, j)] * er) / den;
            }
        }
        // V⁻ᴴ C Vᴴ: solve Vᴴ X = C Vᴴ.
        let mut x = matmul(embed(&cr, &ci).as_ref(), vh.as_ref());
        let (f, zero) = plu(&vh);
        if zero.is_some() {
            return Err("the eigenvectors are linearly dependent".into());
        }
        f.solve_in_place(&mut x);
        Ok(unembed(&x).0)
    })?;
    Ok((stack(&mats, n * n), md))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::cpu::storage::Storage;
    use std::sync::Arc;

    /// A row-major layout of sizes `dims` over `s`.
    fn lay<'a>(
        s: &'a Arc<Storage<f64>>,
        dims: &'a [usize],
        strides: &'a [usize],
    ) -> Layout<'a, f64> {
        Layout {
            storage: s,
            dims,
            strides,
            offset: 0,
        }
    }

    #[test]
    fn the_gradient_of_eigenvalues_of_a_diagonal_matrix_is_diagonal() {
        // A = diag(1, 2): the gradient of λ₁ + 3 λ₂ is diag(1, 3).
        let st = |v: Vec<f64>| Storage::shared(v);
        let (gl, z2, l) = (st(vec![1., 3.]), st(vec![0.; 2]), st(vec![1., 2.]));
        let (v, z4) = (st(vec![1., 0., 0., 1.]), st(vec![0.; 4]));
        let (vd, md) = ([2], [2, 2]);
        let (vs, ms) = ([1], [2, 1]);
        let (g, dims) = eig_backward(
            [lay(&gl, &vd, &vs), lay(&z2, &vd, &vs)],
            [lay(&z4, &md, &ms), lay(&z4, &md, &ms)],
            [lay(&l, &vd, &vs), lay(&z2, &vd, &vs)],
            [lay(&v, &md, &ms), lay(&z4, &md, &ms)],
        )
        .unwrap();
        assert_eq!((g, dims), (vec![1., 0., 0., 3.], vec![2, 2]));
    }
}
