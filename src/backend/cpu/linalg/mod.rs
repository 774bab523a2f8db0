//! [`Linalg`] for the CPU: faer (or LAPACK's loops written out) on every
//! matrix of a batch, in parallel over the batch (`batch.rs`); the LU
//! family in `lu.rs`, the substitutions in `triangular.rs`, `eig` and its
//! gradient (host only, for every device) in `eig.rs`. The typed front
//! (`shaped::linalg`) checks the sizes and makes the results tensors.

pub(crate) mod batch;
pub(crate) mod eig;
pub(crate) mod lu;
pub(crate) mod triangular;

use faer::linalg::solvers::{DenseSolveCore, Solve};

use self::batch::{Operand, broadcast_batch, dims_with, par_batches, push_mat, stack};
pub(crate) use self::lu::plu;
use crate::backend::Linalg;
use crate::backend::Output;
use crate::backend::cpu::exec::Layout;
use crate::backend::cpu::storage::Storage;
use crate::backend::linalg::{
    Dets, Eigen, Factored, LinalgFloat, Out, Singular, Triangle, WithInfo,
};
use crate::device::Cpu;
use crate::element::Element;
use crate::shape::{DimVec, ShapeError};

/// A kernel's row-major values of sizes `dims` as a new storage.
fn fresh<T: Element>(data: Vec<T>, dims: &[usize]) -> Out<T, Cpu> {
    debug_assert_eq!(data.len(), dims.iter().product::<usize>());
    Output {
        storage: Storage::shared(data),
        dims: DimVec::from_slice(dims),
    }
}

/// The matrices of `res` stacked row-major (`numel` elements each) as a
/// new storage of sizes `dims`.
fn with_info<T: LinalgFloat>(
    res: &[(faer::Mat<T>, i32)],
    numel: usize,
    dims: &[usize],
) -> Result<Out<T, Cpu>, ShapeError> {
    let mut data = Vec::with_capacity(res.len() * numel);
    for (m, _) in res {
        push_mat(&mut data, m.as_ref());
    }
    Ok(fresh(data, dims))
}

/// The `info` values of `res`.
fn info_of<T>(res: &[(T, i32)]) -> Vec<i32> {
    res.iter().map(|r| r.1).collect()
}

/// `(X, info)` of `A X = B` for each element of the broadcast batch (`B`
/// read as vectors when `vec`): LU with partial pivoting, then the two
/// triangular solves.
#[allow(clippy::type_complexity)]
fn solve_info<T: LinalgFloat>(
    a: Layout<'_, T>,
    b: Layout<'_, T>,
    vec: bool,
) -> Result<(Vec<T>, Vec<usize>, Vec<i32>), ShapeError> {
    let name = "linalg.solve";
    let a = Operand::matrices(a, name, "A")?;
    let b = if vec {
        Operand::vectors(b, name, "B")?
    } else {
        Operand::matrices(b, name, "B")?
    };
    let n = a.rows();
    // B is "tensor a" in PyTorch's broadcast message.
    let batch = broadcast_batch(b.batch(), a.batch())?;
    let (oa, ob) = (a.offsets(&batch), b.offsets(&batch));
    let k = b.cols();
    let res = par_batches(name, &[oa.len()], |i| {
        let (lu, zero) = plu(&a.mat(oa[i]));
        let mut bm = b.mat(ob[i]);
        if zero.is_some() {
            return Ok((bm, 1));
        }
        lu.solve_in_place(&mut bm);
        Ok((bm, 0))
    })?;
    let mut data = Vec::with_capacity(res.len() * n * k);
    for (m, _) in &res {
        push_mat(&mut data, m.as_ref());
    }
    let info = info_of(&res);
    let dims = if vec {
        dims_with(&batch, &[n])
    } else {
        dims_with(&batch, &[n, k])
    };
    Ok((data, dims, info))
}

/// LAPACK's left-looking `potf2` on the lower triangle of `x`, for a matrix
/// faer found not positive-definite: the partial factor (the columns
/// before the failing one factored, the failing diagonal value in place,
/// the rest of the lower triangle as in `x`, zeros above the diagonal), as
/// PyTorch's `cholesky_ex` returns it, and `info`.
fn potf2<T: LinalgFloat>(mut x: faer::Mat<T>) -> (faer::Mat<T>, i32) {
    let n = x.nrows();
    let mut info = 0;
    for j in 0..n {
        let ajj = x[(j, j)] - (0..j).fold(T::zero(), |s, k| s + x[(j, k)] * x[(j, k)]);
        if ajj <= T::zero() || ajj.is_nan() {
            x[(j, j)] = ajj;
            info = j as i32 + 1;
            break;
        }
        let ajj = ajj.sqrt();
        x[(j, j)] = ajj;
        for i in j + 1..n {
            let s = (0..j).fold(T::zero(), |s, k| s + x[(i, k)] * x[(j, k)]);
            x[(i, j)] = (x[(i, j)] - s) / ajj;
        }
    }
    let l = faer::Mat::from_fn(n, n, |i, j| if j > i { T::zero() } else { x[(i, j)] });
    (l, info)
}

impl<T: LinalgFloat> Linalg<T> for Cpu {
    fn lu_factor(a: Layout<'_, T>) -> Result<Factored<T, Cpu>, ShapeError> {
        let ((lu, ld), (piv, pd), info) = lu::lu_factor(a)?;
        Ok((fresh(lu, &ld), fresh(piv, &pd), info))
    }

    fn inv(a: Layout<'_, T>) -> Result<WithInfo<T, Cpu>, ShapeError> {
        let name = "linalg.inv";
        let op = Operand::matrices(a, name, "A")?;
        let n = op.rows();
        let res = op.each(name, |x| {
            let (lu, zero) = plu(&x);
            Ok(match zero {
                Some(k) => (x, k as i32),
                None => (lu.inverse(), 0),
            })
        })?;
        Ok((with_info(&res, n * n, &op.dims_vec())?, info_of(&res)))
    }

    fn cholesky(a: Layout<'_, T>) -> Result<WithInfo<T, Cpu>, ShapeError> {
        let name = "linalg.cholesky";
        let op = Operand::matrices(a, name, "A")?;
        let n = op.rows();
        let res = op.each(name, |x| {
            Ok(match x.llt(faer::Side::Lower) {
                Ok(llt) => (llt.L().to_owned(), 0),
                Err(faer::linalg::solvers::LltError::NonPositivePivot { .. }) => potf2(x),
            })
        })?;
        Ok((with_info(&res, n * n, &op.dims_vec())?, info_of(&res)))
    }

    fn solve(
        a: Layout<'_, T>,
        b: Layout<'_, T>,
        vec: bool,
    ) -> Result<WithInfo<T, Cpu>, ShapeError> {
        let (data, dims, info) = solve_info(a, b, vec)?;
        Ok((fresh(data, &dims), info))
    }

    fn cholesky_solve(b: Layout<'_, T>, l: Layout<'_, T>) -> Result<Out<T, Cpu>, ShapeError> {
        let (data, dims) = triangular::cholesky_solve(b, l)?;
        Ok(fresh(data, &dims))
    }

    fn solve_triangular(
        a: Layout<'_, T>,
        b: Layout<'_, T>,
        tri: Triangle,
        left: bool,
    ) -> Result<Out<T, Cpu>, ShapeError> {
        let (data, dims) = triangular::solve_triangular(a, b, tri, left)?;
        Ok(fresh(data, &dims))
    }

    fn eigh(a: Layout<'_, T>, vectors: bool) -> Result<Eigen<T, Cpu>, ShapeError> {
        let name = if vectors {
            "linalg.eigh"
        } else {
            "linalg.eigvalsh"
        };
        let op = Operand::matrices(a, name, "A")?;
        let n = op.rows();
        let res = op.each(name, |x| {
            Ok(if vectors {
                match x.self_adjoint_eigen(faer::Side::Lower) {
                    Ok(f) => {
                        let w: Vec<T> = f.S().column_vector().iter().copied().collect();
                        (w, Some(f.U().to_owned()), 0)
                    }
                    Err(_) => (vec![T::zero(); n], Some(x), 1),
                }
            } else {
                match x.self_adjoint_eigenvalues(faer::Side::Lower) {
                    Ok(w) => (w, None, 0),
                    Err(_) => (vec![T::zero(); n], None, 1),
                }
            })
        })?;
        let batch = op.batch();
        let mut ws = Vec::with_capacity(res.len() * n);
        let mut vs = Vec::with_capacity(if vectors { res.len() * n * n } else { 0 });
        let mut info = Vec::with_capacity(res.len());
        for (w, v, i) in &res {
            ws.extend_from_slice(w);
            if let Some(v) = v {
                push_mat(&mut vs, v.as_ref());
            }
            info.push(*i);
        }
        let v = if vectors {
            Some(fresh(vs, &op.dims_vec()))
        } else {
            None
        };
        Ok((fresh(ws, &dims_with(batch, &[n])), v, info))
    }

    fn svd(a: Layout<'_, T>, vectors: bool, full: bool) -> Result<Singular<T, Cpu>, ShapeError> {
        let name = "linalg.svd";
        let op = Operand::matrices(a, name, "A")?;
        let (m, n) = (op.rows(), op.cols());
        let k = m.min(n);
        let (uc, vr) = if full { (m, n) } else { (k, k) };
        let res = op.each(name, |x| {
            if !x.as_ref().is_all_finite() {
                return Ok((None, vec![T::zero(); k], -1));
            }
            if !vectors {
                return Ok(match x.singular_values() {
                    Ok(s) => (None, s, 0),
                    Err(_) => (None, vec![T::zero(); k], 1),
                });
            }
            let f = if full { x.svd() } else { x.thin_svd() };
            Ok(match f {
                Ok(f) => {
                    let s: Vec<T> = f.S().column_vector().iter().copied().collect();
                    (Some((f.U().to_owned(), f.V().transpose().to_owned())), s, 0)
                }
                Err(_) => (None, vec![T::zero(); k], 1),
            })
        })?;
        let mut us = Vec::with_capacity(if vectors { res.len() * m * uc } else { 0 });
        let mut ss = Vec::with_capacity(res.len() * k);
        let mut vs = Vec::with_capacity(if vectors { res.len() * vr * n } else { 0 });
        let mut info = Vec::with_capacity(res.len());
        for (uv, s, i) in &res {
            ss.extend_from_slice(&s[..k]);
            if vectors {
                match uv {
                    Some((u, v)) => {
                        push_mat(&mut us, u.as_ref());
                        push_mat(&mut vs, v.as_ref());
                    }
                    None => {
                        us.extend(std::iter::repeat_n(T::zero(), m * uc));
                        vs.extend(std::iter::repeat_n(T::zero(), vr * n));
                    }
                }
            }
            info.push(*i);
        }
        let b = op.batch();
        let (u, v) = if vectors {
            (
                Some(fresh(us, &dims_with(b, &[m, uc]))),
                Some(fresh(vs, &dims_with(b, &[vr, n]))),
            )
        } else {
            (None, None)
        };
        Ok((u, fresh(ss, &dims_with(b, &[k])), v, info))
    }

    fn slogdet(a: Layout<'_, T>) -> Result<Dets<T, Cpu>, ShapeError> {
        let (res, batch) = lu::slogdet(a, "linalg.det")?;
        Ok((
            fresh(res.iter().map(|r| r.0).collect(), &batch),
            fresh(res.iter().map(|r| r.1).collect(), &batch),
            fresh(res.iter().map(|r| r.2).collect(), &batch),
        ))
    }

    fn qr(a: Layout<'_, T>, complete: bool) -> Result<(Out<T, Cpu>, Out<T, Cpu>), ShapeError> {
        let (q, qd, r, rd) = qr(a, complete)?;
        Ok((fresh(q, &qd), fresh(r, &rd)))
    }

    fn lu_solve(
        lu: Layout<'_, T>,
        piv: Layout<'_, i32>,
        piv_host: &[i32],
        b: Layout<'_, T>,
    ) -> Result<Out<T, Cpu>, ShapeError> {
        let (data, dims) = lu::lu_solve(lu, piv.dims(), piv_host, b)?;
        Ok(fresh(data, &dims))
    }

    fn info_tensor(
        _like: Layout<'_, T>,
        info: Vec<i32>,
        dims: &[usize],
    ) -> Result<Out<i32, Cpu>, ShapeError> {
        if crate::shape::checked_numel(dims)? != info.len() {
            return Err(ShapeError::Numel {
                shape: dims.to_vec(),
                numel: info.len(),
            });
        }
        Ok(fresh(info, dims))
    }
}

/// The CPU's `(Q, R)` (faer's Householder QR) of every matrix: `Q` `(m,
/// k)`, `R` `(k, n)`, `k = min(m, n)` (`m` when `complete`).
#[allow(clippy::type_complexity)]
fn qr<T: LinalgFloat>(
    a: Layout<'_, T>,
    complete: bool,
) -> Result<(Vec<T>, Vec<usize>, Vec<T>, Vec<usize>), ShapeError> {
    let name = "linalg.qr";
    let a = Operand::matrices(a, name, "A")?;
    let (m, n) = (a.rows(), a.cols());
    let k = if complete { m } else { m.min(n) };
    let res = a.each(name, |x| {
        let f = x.qr();
        if complete {
            // faer keeps R as min(m, n) by n; the complete R has m rows.
            let r = f.R();
            let full = faer::Mat::from_fn(
                m,
                n,
                |i, j| {
                    if i < r.nrows() { r[(i, j)] } else { T::zero() }
                },
            );
            Ok((f.compute_Q(), full))
        } else {
            Ok((f.compute_thin_Q(), f.thin_R().to_owned()))
        }
    })?;
    let (qs, rs): (Vec<_>, Vec<_>) = res.into_iter().unzip();
    let b = a.batch();
    Ok((
        stack(&qs, m * k),
        dims_with(b, &[m, k]),
        stack(&rs, k * n),
        dims_with(b, &[k, n]),
    ))
}
