//! The LU family on the CPU: LAPACK's `getf2` (the packed factors and
//! pivots PyTorch's `lu_factor` returns), the solve from those factors, and
//! the determinant through faer's partially pivoted LU.

use faer::Mat;
use faer::linalg::solvers::PartialPivLu;

use super::batch::{
    Operand, bcast_index, broadcast_batch, check_square, dims_with, incompatible, par_batches,
    push_mat, stack,
};
use crate::backend::cpu::exec::Layout;
use crate::backend::linalg::{LinalgFloat, det_from_lu};
use crate::shape::ShapeError;

/// LU with partial pivoting, and the 1-based index of its first zero pivot
/// (LAPACK's `info`), if any.
pub(crate) fn plu<T: LinalgFloat>(m: &faer::Mat<T>) -> (PartialPivLu<T>, Option<usize>) {
    let lu = m.partial_piv_lu();
    let u = lu.U();
    let zero = (0..u.nrows().min(u.ncols())).find(|&i| u[(i, i)] == T::zero());
    (lu, zero.map(|i| i + 1))
}

/// LAPACK's `getf2` on a copy: LU with partial pivoting of an `m` by `n`
/// matrix, packed; the 1-based pivots (the first largest magnitude in the
/// column, as `idamax` picks it); and `info`, the 1-based index of the first
/// zero pivot or 0. A zero column is skipped, as LAPACK does.
pub(crate) fn getf2<T: LinalgFloat>(mut a: Mat<T>) -> (Mat<T>, Vec<i32>, i32) {
    let (m, n) = (a.nrows(), a.ncols());
    let k = m.min(n);
    let mut piv = Vec::with_capacity(k);
    let mut info = 0;
    for j in 0..k {
        let mut p = j;
        let mut best = a[(j, j)].abs();
        for i in j + 1..m {
            let v = a[(i, j)].abs();
            if v > best {
                best = v;
                p = i;
            }
        }
        piv.push(p as i32 + 1);
        if a[(p, j)] != T::zero() {
            if p != j {
                for c in 0..n {
                    let t = a[(j, c)];
                    a[(j, c)] = a[(p, c)];
                    a[(p, c)] = t;
                }
            }
            let d = a[(j, j)];
            for i in j + 1..m {
                a[(i, j)] /= d;
            }
        } else if info == 0 {
            info = j as i32 + 1;
        }
        for c in j + 1..n {
            let u = a[(j, c)];
            for i in j + 1..m {
                let l = a[(i, j)];
                a[(i, c)] -= l * u;
            }
        }
    }
    (a, piv, info)
}

/// `(LU, pivots, info)` of every matrix of `a` `(..., m, n)`, by
/// [`getf2`]: the packed factors `(..., m, n)` and the pivots `(..., k)`,
/// `k = min(m, n)`, row-major with their sizes.
#[allow(clippy::type_complexity)]
pub(crate) fn lu_factor<T: LinalgFloat>(
    a: Layout<'_, T>,
) -> Result<((Vec<T>, Vec<usize>), (Vec<i32>, Vec<usize>), Vec<i32>), ShapeError> {
    let name = "linalg.lu_factor";
    let a = Operand::matrices(a, name, "A")?;
    let k = a.rows().min(a.cols());
    let res = a.each(name, |x| Ok(getf2(x)))?;
    let mut lu = Vec::with_capacity(res.len() * a.rows() * a.cols());
    let mut piv = Vec::with_capacity(res.len() * k);
    let mut info = Vec::with_capacity(res.len());
    for (m, p, i) in &res {
        push_mat(&mut lu, m.as_ref());
        piv.extend_from_slice(p);
        info.push(*i);
    }
    Ok(((lu, a.dims_vec()), (piv, dims_with(a.batch(), &[k])), info))
}

/// `X` with `A X = B` from `A`'s packed LU factors `lu` and its 1-based
/// pivots `piv` (of sizes `pdims`), batches broadcast (`b`'s first): the
/// row swaps, then the two triangular solves.
pub(crate) fn lu_solve<T: LinalgFloat>(
    lu: Layout<'_, T>,
    pdims: &[usize],
    piv: &[i32],
    b: Layout<'_, T>,
) -> Result<(Vec<T>, Vec<usize>), ShapeError> {
    let name = "linalg.lu_solve";
    let a = Operand::matrices(lu, name, "LU")?;
    let b = Operand::matrices(b, name, "B")?;
    let n = check_square(&a, name, "LU")?;
    if b.rows() != n {
        return Err(incompatible(name, &a, &b));
    }
    let want = dims_with(a.batch(), &[n]);
    if pdims != want.as_slice() {
        return Err(ShapeError::Invalid(format!(
            "{name}: Expected pivots of shape {want:?} (LU's batch and n), but got {pdims:?}"
        )));
    }
    if piv.iter().any(|&p| p < 1 || p as usize > n) {
        return Err(ShapeError::Invalid(format!(
            "{name}: pivots must be between 1 and {n}"
        )));
    }
    // B is "tensor a" in PyTorch's broadcast message.
    let batch = broadcast_batch(b.batch(), a.batch())?;
    let (oa, ob) = (a.offsets(&batch), b.offsets(&batch));
    let pi = bcast_index(a.batch(), &batch);
    let k = b.cols();
    let mats = par_batches(name, &batch, |i| {
        let lu = a.mat(oa[i]);
        let mut x = b.mat(ob[i]);
        for (r, &p) in piv[pi[i] * n..(pi[i] + 1) * n].iter().enumerate() {
            let p = p as usize - 1;
            if p != r {
                for c in 0..k {
                    let t = x[(r, c)];
                    x[(r, c)] = x[(p, c)];
                    x[(p, c)] = t;
                }
            }
        }
        let lu = lu.as_ref();
        lu.solve_unit_lower_triangular_in_place(&mut x);
        lu.solve_upper_triangular_in_place(&mut x);
        Ok(x)
    })?;
    Ok((stack(&mats, n * k), dims_with(&batch, &[n, k])))
}

/// The parity of a permutation: `true` when odd.
pub(crate) fn odd(perm: &[usize]) -> bool {
    let mut seen = vec![false; perm.len()];
    let mut odd = false;
    for start in 0..perm.len() {
        let mut len = 0;
        let mut i = start;
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

#[allow(clippy::type_complexity)]
/// `(sign, log|det|, det)` of every square matrix of `a` through faer's
/// LU, and the batch.
pub(crate) fn slogdet<T: LinalgFloat>(
    a: Layout<'_, T>,
    name: &str,
) -> Result<(Vec<(T, T, T)>, Vec<usize>), ShapeError> {
    let a = Operand::matrices(a, name, "A")?;
    let n = check_square(&a, name, "A")?;
    let batch = a.batch().to_vec();
    let offs = a.offsets(&batch);
    let res = par_batches(name, &batch, |i| {
        let (lu, _) = plu(&a.mat(offs[i]));
        let u = lu.U();
        Ok(det_from_lu(
            (0..n).map(|k| u[(k, k)]),
            odd(lu.P().arrays().0),
        ))
    })?;
    Ok((res, batch))
}
