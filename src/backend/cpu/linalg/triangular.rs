//! Substitution on the CPU: triangular solves (`solve_triangular`) and
//! the solve from a Cholesky factor (`cholesky_solve`), one faer
//! substitution per matrix of the broadcast batch. The callers have checked
//! the sizes (PyTorch's messages are the front's).

use faer::Mat;

use super::batch::{Operand, pairwise};
use crate::backend::cpu::exec::Layout;
use crate::backend::linalg::{LinalgFloat, Triangle};
use crate::shape::ShapeError;

/// Solves `A X = B` in place for triangular `a`, reading only `tri`.
pub(crate) fn solve_tri_in_place<T: LinalgFloat>(a: &Mat<T>, x: &mut Mat<T>, tri: Triangle) {
    let a = a.as_ref();
    match (tri.upper, tri.unit) {
        (true, false) => a.solve_upper_triangular_in_place(x),
        (true, true) => a.solve_unit_upper_triangular_in_place(x),
        (false, false) => a.solve_lower_triangular_in_place(x),
        (false, true) => a.solve_unit_lower_triangular_in_place(x),
    }
}

/// `X` with `A X = B` (`left`) or `X A = B` for the triangle `tri` of
/// each square `a`, batches broadcast (`b`'s first), by substitution.
pub(crate) fn solve_triangular<T: LinalgFloat>(
    a: Layout<'_, T>,
    b: Layout<'_, T>,
    tri: Triangle,
    left: bool,
) -> Result<(Vec<T>, Vec<usize>), ShapeError> {
    let name = "linalg.solve_triangular";
    let a = Operand::matrices(a, name, "A")?;
    let b = Operand::matrices(b, name, "B")?;
    // B is "tensor a" in PyTorch's broadcast message.
    pairwise(name, &b, &a, b.rows(), b.cols(), false, |mut x, am| {
        if left {
            solve_tri_in_place(&am, &mut x, tri);
            Ok(x)
        } else {
            // X A = B  <=>  Aᵀ Xᵀ = Bᵀ, and Aᵀ has the other triangle.
            let at = am.transpose().to_owned();
            let mut xt = x.transpose().to_owned();
            let flipped = Triangle {
                upper: !tri.upper,
                unit: tri.unit,
            };
            solve_tri_in_place(&at, &mut xt, flipped);
            Ok(xt.transpose().to_owned())
        }
    })
}

/// `X` with `L Lᵀ X = B` for each lower-triangular `l` (only its lower
/// triangle read), batches broadcast (`b`'s first): two substitutions.
pub(crate) fn cholesky_solve<T: LinalgFloat>(
    b: Layout<'_, T>,
    l: Layout<'_, T>,
) -> Result<(Vec<T>, Vec<usize>), ShapeError> {
    let name = "linalg.cholesky_solve";
    let l = Operand::matrices(l, name, "L")?;
    let b = Operand::matrices(b, name, "B")?;
    let n = l.rows();
    // B is "tensor a" in PyTorch's broadcast message.
    let (data, dims) = pairwise(name, &b, &l, n, b.cols(), false, |mut x, lm| {
        let lm = lm.as_ref();
        // Only the lower triangle of L is read, as PyTorch does; a zero on
        // its diagonal gives infinities and NaNs, as PyTorch.
        lm.solve_lower_triangular_in_place(&mut x);
        lm.transpose().solve_upper_triangular_in_place(&mut x);
        Ok(x)
    })?;
    Ok((data, dims))
}
