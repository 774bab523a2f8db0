//! `solve` (matrix right-hand sides) and `solve_vec` (vector right-hand
//! sides): `A X = B` for every pair of a broadcast batch.

use super::primitives;

use super::generic::{check_info, check_matrices, check_square_dims};
use super::{LinalgFloat, SolveRhs, SolveVecShape, expect};
use crate::backend::Linalg;
use crate::backend::cpu::linalg::batch::{bcast_index, broadcast_batch};
use crate::shape::{DynRank, Shape};
use crate::{ShapeError, Tensor};

/// The solution `X` of `A X = B` for each matrix `A` `(..., n, n)` and
/// right-hand sides `B` `(..., n, k)`; the batch dimensions broadcast.
///
/// Where `B`'s rank is dynamic ([`DynRank`](crate::DynRank)), PyTorch's rule
/// decides whether `B` is a batch of vectors `(..., n)`: when `B` is 1-d, or
/// its sizes are `A`'s without the last (the result then has `B`'s rank).
/// Where the types give the rank, they decide: [`solve_vec`] for vectors.
///
/// # Errors
/// Non-square `A`, rows of `B` other than `n`, batches that do not broadcast
/// (run time for `Dyn`/`DynRank`); an exactly singular `A`, named by its
/// element in `A`'s own batch (none when `A` is one matrix), as PyTorch.
///
/// ```
/// use shaped::{linalg, DynRank, Tensor};
/// let a = Tensor::<f64, DynRank>::try_zeros(&[3, 3]).unwrap();
/// let b = Tensor::<f64, DynRank>::try_zeros(&[4, 2]).unwrap();
/// assert_eq!(linalg::try_solve(&a, &b).unwrap_err().to_string(),
///     "linalg.solve: Incompatible shapes of A and B for the equation AX = B (3x3 and 4x2)");
/// // A 1-d B is a vector.
/// let a = Tensor::<f64, DynRank>::try_from_vec(vec![2., 0., 0., 4.], &[2, 2]).unwrap();
/// let b = Tensor::<f64, DynRank>::try_from_vec(vec![2., 4.], &[2]).unwrap();
/// let x = linalg::try_solve(&a, &b).unwrap();
/// assert_eq!((x.dims(), x.to_vec()), (&[2][..], vec![1., 1.]));
/// // Singular A (2, 1, 2, 2) broadcast against B (3, 2, 1): A's element 1, not the 4th.
/// let a = Tensor::<f64, DynRank>::try_from_vec(vec![1., 0., 0., 1., 0., 0., 0., 0.], &[2, 1, 2, 2]).unwrap();
/// let b = Tensor::<f64, DynRank>::try_zeros(&[3, 2, 1]).unwrap();
/// assert_eq!(linalg::try_solve(&a, &b).unwrap_err().to_string(),
///     "torch.linalg.solve: (Batch element 1): The solver failed because the input matrix is singular.");
/// ```
pub fn try_solve<T: LinalgFloat, SA, SB, D: Linalg<T>>(
    a: &Tensor<T, SA, D>,
    b: &Tensor<T, SB, D>,
) -> Result<Tensor<T, SB::Output, D>, D::Error>
where
    SA: Shape,
    SB: SolveRhs<SA>,
    SB::Output: Shape,
{
    // With a dynamic-rank B, PyTorch's rule decides whether B is a batch of
    // vectors; otherwise the types have decided (see `solve_vec`).
    let vec = SB::RANK.is_none() && is_vector_rhs(a.dims(), b.dims());
    Ok(solve_on(a, b, vec)?.try_into_shape()?)
}

/// `X` with `A X = B`, batches broadcast; panics where [`try_solve`] errs.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f64, Shape![2, 1, 2, 2]>::from_vec(vec![2., 0., 0., 4., 1., 0., 0., 1.]);
/// let b = Tensor::<f64, Shape![3, 2, 1]>::from_vec(vec![2., 4., 4., 8., 6., 12.]);
/// let x: Tensor<f64, Shape![2, 3, 2, 1]> = linalg::solve(&a, &b);
/// assert_eq!(x.to_vec()[..6], [1., 1., 2., 2., 3., 3.]);
/// ```
#[track_caller]
pub fn solve<T: LinalgFloat, SA, SB, D: Linalg<T>>(
    a: &Tensor<T, SA, D>,
    b: &Tensor<T, SB, D>,
) -> Tensor<T, SB::Output, D>
where
    SA: Shape,
    SB: SolveRhs<SA>,
    SB::Output: Shape,
{
    expect(try_solve(a, b))
}

/// The solution `x` of `A x = b` for each matrix `A` `(..., n, n)` and
/// vector `b` `(..., n)`; the batch dimensions broadcast. (NumPy guesses
/// whether `b` is a vector from its rank; here the function says it.)
///
/// # Errors
/// As [`try_solve`].
///
/// ```
/// use shaped::{linalg, DynRank, Tensor};
/// let a = Tensor::<f64, DynRank>::try_zeros(&[3, 3]).unwrap();
/// let b = Tensor::<f64, DynRank>::try_zeros(&[4]).unwrap();
/// assert_eq!(linalg::try_solve_vec(&a, &b).unwrap_err().to_string(),
///     "linalg.solve: Incompatible shapes of A and B for the equation AX = B (3x3 and 4x1)");
/// ```
pub fn try_solve_vec<T: LinalgFloat, SA, SB, D: Linalg<T>>(
    a: &Tensor<T, SA, D>,
    b: &Tensor<T, SB, D>,
) -> Result<Tensor<T, SA::Output, D>, D::Error>
where
    SA: SolveVecShape<SB>,
    SB: Shape,
{
    Ok(solve_on(a, b, true)?.try_into_shape()?)
}

/// `x` with `A x = b`, batches broadcast; panics where [`try_solve_vec`]
/// errs.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f32, Shape![2, 2]>::from_vec(vec![2., 0., 0., 4.]);
/// let b = Tensor::<f32, Shape![3, 2]>::from_vec(vec![2., 4., 4., 8., 6., 12.]);
/// let x: Tensor<f32, Shape![3, 2]> = linalg::solve_vec(&a, &b);
/// assert_eq!(x.to_vec(), vec![1., 1., 2., 2., 3., 3.]);
/// ```
#[track_caller]
pub fn solve_vec<T: LinalgFloat, SA, SB, D: Linalg<T>>(
    a: &Tensor<T, SA, D>,
    b: &Tensor<T, SB, D>,
) -> Tensor<T, SA::Output, D>
where
    SA: SolveVecShape<SB>,
    SB: Shape,
{
    expect(try_solve_vec(a, b))
}

/// PyTorch's rule for reading `B` as a batch of vectors in `solve(A, B)`:
/// `B` is 1-d, or `B`'s sizes are `A`'s without the last one.
pub(crate) fn is_vector_rhs(a: &[usize], b: &[usize]) -> bool {
    b.len() == 1 || (!a.is_empty() && b == &a[..a.len() - 1])
}

/// `X` with `A X = B` on `a`'s device, `B` read as vectors when `vec`:
/// PyTorch's size checks, then [`Linalg::solve`], then its error for the
/// first singular `A`, named by its element in `A`'s own batch.
fn solve_on<T: LinalgFloat, SA: Shape, SB: Shape, D: Linalg<T>>(
    a: &Tensor<T, SA, D>,
    b: &Tensor<T, SB, D>,
    vec: bool,
) -> Result<Tensor<T, DynRank, D>, D::Error> {
    let name = "linalg.solve";
    check_matrices(a.dims(), name, "A")?;
    let (ad, bd) = (a.dims(), b.dims());
    let (brows, bcols, core) = if vec {
        if bd.is_empty() {
            return Err(ShapeError::Invalid(format!(
                "{name}: The input tensor B must have at least 1 dimension."
            ))
            .into());
        }
        (bd[bd.len() - 1], 1, 1)
    } else {
        check_matrices(bd, name, "B")?;
        (bd[bd.len() - 2], bd[bd.len() - 1], 2)
    };
    let n = check_square_dims(ad, name, "A")?;
    if brows != n {
        return Err(ShapeError::Invalid(format!(
            "{name}: Incompatible shapes of A and B for the equation AX = B ({n}x{n} and {brows}x{bcols})"
        ))
        .into());
    }
    let abatch = &ad[..ad.len() - 2];
    // B is "tensor a" in PyTorch's broadcast message.
    let batch = broadcast_batch(&bd[..bd.len() - core], abatch)?;
    let (x, info) = primitives::solve(&a.share().into_dyn(), &b.share().into_dyn(), vec)?;
    let own = bcast_index(abatch, &batch);
    check_info(
        "torch.linalg.solve",
        &info,
        |i| (!abatch.is_empty()).then(|| own[i]),
        |_| "The solver failed because the input matrix is singular.".into(),
    )?;
    Ok(x)
}
