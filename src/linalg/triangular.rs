//! `solve_triangular`: `A X = B` or `X A = B` for triangular `A`, by
//! substitution.

use super::primitives;

use super::generic::{check_matrices, check_square_dims};
use super::{LinalgFloat, SolveRhs, SolveRightShape, expect};
use crate::backend::Linalg;
use crate::backend::cpu::linalg::batch::broadcast_batch;
use crate::shape::Shape;
use crate::{ShapeError, Tensor};

pub use crate::backend::linalg::Triangle;

/// The solution `X` of `A X = B` for triangular matrices `A` `(..., n, n)`
/// (only the triangle `tri` names is read) and `B` `(..., n, k)`, batches
/// broadcast: PyTorch's `linalg.solve_triangular(A, B, upper=..., left=True,
/// unitriangular=...)`. Static sizes are checked at compile time. A zero on
/// the diagonal gives infinities and NaNs, as PyTorch.
///
/// # Errors
/// Non-square `A`, rows of `B` other than `n`, batches that do not broadcast
/// (run time for `Dyn`/`DynRank`), with PyTorch's messages.
///
/// ```
/// use shaped::{linalg::{self, Triangle}, DynRank, Tensor};
/// let a = Tensor::<f64, DynRank>::try_zeros(&[3, 3]).unwrap();
/// let b = Tensor::<f64, DynRank>::try_zeros(&[4, 1]).unwrap();
/// let up = Triangle { upper: true, unit: false };
/// assert_eq!(linalg::try_solve_triangular(&a, &b, up).unwrap_err().to_string(),
///     "linalg.solve_triangular: Incompatible shapes of A and B for the equation AX = B (3x3 and 4x1)");
/// ```
pub fn try_solve_triangular<T: LinalgFloat, SA: Shape, SB: SolveRhs<SA>, D: Linalg<T>>(
    a: &Tensor<T, SA, D>,
    b: &Tensor<T, SB, D>,
    tri: Triangle,
) -> Result<Tensor<T, SB::Output, D>, D::Error>
where
    SB::Output: Shape,
{
    Ok(triangular_on(a, b, tri, true)?.try_into_shape()?)
}

/// `X` with `A X = B` for triangular `A`; panics where
/// [`try_solve_triangular`] errs.
///
/// ```
/// use shaped::{linalg::{self, Triangle}, Shape, Tensor};
/// let a = Tensor::<f64, Shape![2, 2]>::from_vec(vec![2., 1., 9., 4.]); // 9 is not read
/// let b = Tensor::<f64, Shape![3, 2, 1]>::from_vec(vec![4., 8., 1., 4., 0., 0.]);
/// let x: Tensor<f64, Shape![3, 2, 1]> =
///     linalg::solve_triangular(&a, &b, Triangle { upper: true, unit: false });
/// assert_eq!(x.to_vec(), vec![1., 2., 0., 1., 0., 0.]);
/// ```
#[track_caller]
pub fn solve_triangular<T: LinalgFloat, SA: Shape, SB: SolveRhs<SA>, D: Linalg<T>>(
    a: &Tensor<T, SA, D>,
    b: &Tensor<T, SB, D>,
    tri: Triangle,
) -> Tensor<T, SB::Output, D>
where
    SB::Output: Shape,
{
    expect(try_solve_triangular(a, b, tri))
}

/// The solution `X` of `X A = B` for triangular `A` `(..., n, n)` and `B`
/// `(..., k, n)`: PyTorch's `solve_triangular(..., left=False)`.
///
/// # Errors
/// As [`try_solve_triangular`], the equation written `XA = B`.
///
/// ```
/// use shaped::{linalg::{self, Triangle}, DynRank, Tensor};
/// let a = Tensor::<f64, DynRank>::try_zeros(&[3, 3]).unwrap();
/// let b = Tensor::<f64, DynRank>::try_zeros(&[1, 4]).unwrap();
/// let lo = Triangle { upper: false, unit: false };
/// assert_eq!(linalg::try_solve_triangular_right(&a, &b, lo).unwrap_err().to_string(),
///     "linalg.solve_triangular: Incompatible shapes of A and B for the equation XA = B (3x3 and 1x4)");
/// ```
pub fn try_solve_triangular_right<
    T: LinalgFloat,
    SA: SolveRightShape<SB>,
    SB: Shape,
    D: Linalg<T>,
>(
    a: &Tensor<T, SA, D>,
    b: &Tensor<T, SB, D>,
    tri: Triangle,
) -> Result<Tensor<T, SA::Output, D>, D::Error> {
    Ok(triangular_on(a, b, tri, false)?.try_into_shape()?)
}

/// `X` with `X A = B`; panics where [`try_solve_triangular_right`] errs.
///
/// ```
/// use shaped::{linalg::{self, Triangle}, Shape, Tensor};
/// let a = Tensor::<f64, Shape![2, 2]>::from_vec(vec![2., 0., 1., 4.]);
/// let b = Tensor::<f64, Shape![1, 2]>::from_vec(vec![3., 4.]);
/// let x: Tensor<f64, Shape![1, 2]> =
///     linalg::solve_triangular_right(&a, &b, Triangle { upper: false, unit: false });
/// assert_eq!(x.to_vec(), vec![1., 1.]);
/// ```
#[track_caller]
pub fn solve_triangular_right<T: LinalgFloat, SA: SolveRightShape<SB>, SB: Shape, D: Linalg<T>>(
    a: &Tensor<T, SA, D>,
    b: &Tensor<T, SB, D>,
    tri: Triangle,
) -> Tensor<T, SA::Output, D> {
    expect(try_solve_triangular_right(a, b, tri))
}

/// `X` with `A X = B` (`left`) or `X A = B` on `a`'s device: the size
/// checks, then [`Linalg::solve_triangular`].
fn triangular_on<T: LinalgFloat, SA: Shape, SB: Shape, D: Linalg<T>>(
    a: &Tensor<T, SA, D>,
    b: &Tensor<T, SB, D>,
    tri: Triangle,
    left: bool,
) -> Result<Tensor<T, crate::DynRank, D>, D::Error> {
    check_triangular(a.dims(), b.dims(), left)?;
    primitives::solve_triangular(&a.share().into_dyn(), &b.share().into_dyn(), tri, left)
}

/// `solve_triangular`'s size checks, with PyTorch's messages, and the batch
/// broadcast (`B`'s first, as PyTorch names it).
fn check_triangular(a: &[usize], b: &[usize], left: bool) -> Result<(), ShapeError> {
    let name = "linalg.solve_triangular";
    check_matrices(a, name, "A")?;
    check_matrices(b, name, "B")?;
    let n = check_square_dims(a, name, "A")?;
    let (br, bc) = (b[b.len() - 2], b[b.len() - 1]);
    let (fits, eq) = if left {
        (br == n, "AX = B")
    } else {
        (bc == n, "XA = B")
    };
    if !fits {
        return Err(ShapeError::Invalid(format!(
            "{name}: Incompatible shapes of A and B for the equation {eq} ({n}x{n} and {br}x{bc})"
        )));
    }
    broadcast_batch(&b[..b.len() - 2], &a[..a.len() - 2])?;
    Ok(())
}
