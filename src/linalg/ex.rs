//! The `*_ex` forms, as PyTorch's: `inv_ex`, `cholesky_ex` and `solve_ex`
//! return their result together with LAPACK's `info` instead of an error on
//! a singular or non-positive-definite matrix (`lu_factor_ex` is with
//! `lu_factor`).

use super::compose::{DynTensor, LinalgDevice, view};
use super::generic::{check_matrices, check_square_dims};
use super::primitives;
use super::solve::is_vector_rhs;
use super::{BatchOf, LinalgFloat, Matrices, SolveRhs, SquareMatrices, expect};
use crate::backend::cpu::linalg::batch::{broadcast_batch, dims_with};
use crate::shape::Shape;
use crate::tensor::host;
use crate::{ShapeError, Tensor};

/// `(inverse, info)` for each matrix of `a` `(..., n, n)`, as PyTorch's
/// `linalg.inv_ex`: `info` `(...)` is 0, or the 1-based index of the first
/// zero pivot of the LU factorization, where the "inverse" holds infinities
/// and NaNs.
///
/// On every device [`Linalg::inv`](crate::backend::Linalg::inv) (cuBLAS
/// `getrfBatched` + `getriBatched` on CUDA); when some matrix is singular,
/// also [`Linalg::lu_factor`](crate::backend::Linalg::lu_factor), its pivots
/// read back (`n` per matrix) and
/// [`Linalg::lu_solve`](crate::backend::Linalg::lu_solve) against the
/// identity, for PyTorch's infinities and NaNs: the batch is factored twice
/// then, on the CPU as well.
///
/// # Errors
/// A non-square or rank < 2 shape.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f64, Shape![2, 2, 2]>::from_vec(vec![1., 2., 2., 4., 2., 0., 0., 4.]);
/// let (inv, info) = linalg::try_inv_ex(&a).unwrap();
/// assert_eq!(info.to_vec(), vec![2, 0]);
/// let inf = f64::INFINITY;
/// assert_eq!(inv.to_vec(), vec![-inf, inf, inf, -inf, 0.5, 0., 0., 0.25]);
/// ```
#[allow(clippy::type_complexity)]
pub fn try_inv_ex<T: LinalgFloat, S: SquareMatrices, D: LinalgDevice<T>>(
    a: &Tensor<T, S, D>,
) -> Result<(Tensor<T, S, D>, Tensor<i32, BatchOf<S>, D>), D::Error>
where
    S::N: crate::Dim,
{
    let name = "linalg.inv_ex";
    let n = check_square_dims(a.dims(), name, "A")?;
    let ad = a.share().into_dyn();
    let (mut x, mut info) = primitives::inv(&ad)?;
    if info.iter().any(|&k| k != 0) {
        // The device leaves a singular matrix's inverse unspecified; solve
        // `P L U X = I` instead, which runs into PyTorch's infinities and NaNs.
        let (lu, piv, lu_info) = primitives::lu_factor(&ad)?;
        let piv_host = host::to_host(&piv)?;
        let eye = (0..n * n)
            .map(|i| if i / n == i % n { T::one() } else { T::zero() })
            .collect();
        let eye: DynTensor<T, D> = host::from_host(a, eye, &[n, n])?;
        x = primitives::lu_solve(&lu, &piv, &piv_host, &eye)?;
        info = lu_info;
    }
    let info = primitives::info_tensor(&x, info, batch_of(a.dims()))?;
    Ok((x.try_into_shape()?, info.try_into_shape()?))
}

/// `(inverse, info)`; panics where [`try_inv_ex`] errs (shapes only).
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f64, Shape![2, 2]>::from_vec(vec![2., 0., 0., 4.]);
/// let (inv, info) = linalg::inv_ex(&a);
/// assert_eq!((inv.to_vec(), info.item()), (vec![0.5, 0., 0., 0.25], 0));
/// ```
#[track_caller]
#[allow(clippy::type_complexity)]
pub fn inv_ex<T: LinalgFloat, S: SquareMatrices, D: LinalgDevice<T>>(
    a: &Tensor<T, S, D>,
) -> (Tensor<T, S, D>, Tensor<i32, BatchOf<S>, D>)
where
    S::N: crate::Dim,
{
    expect(try_inv_ex(a))
}

/// `(L, info)` for each matrix of `a` `(..., n, n)`, as PyTorch's
/// `linalg.cholesky_ex`: `info` `(...)` is 0, or the order of the first
/// leading minor that is not positive-definite; then `L` is LAPACK's
/// partial result (the columns before it factored, the failing diagonal
/// value in place, the rest of the lower triangle as in `a`).
///
/// On every device [`Linalg::cholesky`](crate::backend::Linalg::cholesky)
/// (cuSOLVER `potrfBatched` on CUDA) and its `info` as a tensor on the
/// device. Where `info != 0`, `L` is LAPACK's partial result on the CPU, as
/// PyTorch's; on CUDA whatever `potrfBatched` left (lower triangle; not
/// promised to match).
///
/// # Errors
/// A non-square or rank < 2 shape.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f64, Shape![2, 2]>::from_vec(vec![1., 2., 2., 1.]);
/// let (l, info) = linalg::try_cholesky_ex(&a).unwrap();
/// assert_eq!((l.to_vec(), info.item()), (vec![1., 0., 2., -3.], 2));
/// ```
#[allow(clippy::type_complexity)]
pub fn try_cholesky_ex<T: LinalgFloat, S: SquareMatrices, D: LinalgDevice<T>>(
    a: &Tensor<T, S, D>,
) -> Result<(Tensor<T, S, D>, Tensor<i32, BatchOf<S>, D>), D::Error>
where
    S::N: crate::Dim,
{
    let name = "linalg.cholesky_ex";
    check_square_dims(a.dims(), name, "A")?;
    let (l, info) = primitives::cholesky(&a.share().into_dyn())?;
    let info = primitives::info_tensor(&l, info, batch_of(a.dims()))?;
    Ok((l.try_into_shape()?, info.try_into_shape()?))
}

/// `(L, info)`; panics where [`try_cholesky_ex`] errs (shapes only).
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f64, Shape![2, 2]>::from_vec(vec![4., 2., 2., 5.]);
/// let (l, info) = linalg::cholesky_ex(&a);
/// assert_eq!((l.to_vec(), info.item()), (vec![2., 0., 1., 2.], 0));
/// ```
#[track_caller]
#[allow(clippy::type_complexity)]
pub fn cholesky_ex<T: LinalgFloat, S: SquareMatrices, D: LinalgDevice<T>>(
    a: &Tensor<T, S, D>,
) -> (Tensor<T, S, D>, Tensor<i32, BatchOf<S>, D>)
where
    S::N: crate::Dim,
{
    expect(try_cholesky_ex(a))
}

/// `(X, info)` for `A X = B`, batches broadcast, as PyTorch's
/// `linalg.solve_ex`: `info` has `A`'s batch `(...)`, 0 or the 1-based
/// index of the first zero pivot of `A`'s LU factorization, where `X` holds
/// infinities and NaNs.
///
/// `B` is read as [`try_solve`](super::try_solve) reads it: where its rank
/// is dynamic ([`DynRank`](crate::DynRank)), PyTorch's rule makes it a batch
/// of vectors `(..., n)` when it is 1-d or its sizes are `A`'s without the
/// last (`X` then has `B`'s rank); where the types give the rank, `B` is a
/// batch of matrices.
///
/// On every device [`Linalg::lu_factor`](crate::backend::Linalg::lu_factor),
/// its pivots read back (`n` per matrix) and
/// [`Linalg::lu_solve`](crate::backend::Linalg::lu_solve) (cuBLAS
/// `getrfBatched` and `getrsBatched` on CUDA; the CPU as before).
///
/// # Errors
/// Shapes as for [`try_solve`](super::try_solve).
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f64, Shape![2, 2, 2]>::from_vec(vec![1., 2., 2., 4., 2., 0., 0., 4.]);
/// let b = Tensor::<f64, Shape![3, 1, 2, 1]>::from_vec(vec![2., 4., 2., 4., 2., 4.]);
/// let (x, info): (Tensor<f64, Shape![3, 2, 2, 1]>, _) = linalg::try_solve_ex(&a, &b).unwrap();
/// assert_eq!(info.to_vec(), vec![2, 0]);
/// assert_eq!(x.to_vec()[2..4], [1., 1.]);
/// // A dynamic-rank B that is 1-d is a vector, as in PyTorch.
/// use shaped::DynRank;
/// let a = Tensor::<f64, DynRank>::try_from_vec(vec![2., 0., 0., 4.], &[2, 2]).unwrap();
/// let b = Tensor::<f64, DynRank>::try_from_vec(vec![2., 4.], &[2]).unwrap();
/// let (x, info) = linalg::try_solve_ex(&a, &b).unwrap();
/// assert_eq!((x.dims(), x.to_vec(), info.to_vec()), (&[2][..], vec![1., 1.], vec![0]));
/// ```
#[allow(clippy::type_complexity)]
pub fn try_solve_ex<T: LinalgFloat, SA, SB, D: LinalgDevice<T>>(
    a: &Tensor<T, SA, D>,
    b: &Tensor<T, SB, D>,
) -> Result<(Tensor<T, SB::Output, D>, Tensor<i32, BatchOf<SA>, D>), D::Error>
where
    SA: Matrices,
    SB: SolveRhs<SA>,
    SB::Output: Shape,
{
    let name = "linalg.solve";
    let n = check_square_dims(a.dims(), name, "A")?;
    // PyTorch's vector-or-matrix rule where B's rank is dynamic, as `solve`;
    // a vector is solved as a one-column matrix (a view with a column of
    // stride 0).
    let vec = SB::RANK.is_none() && is_vector_rhs(a.dims(), b.dims());
    let b = if vec {
        let bd = dims_with(b.dims(), &[1]);
        view(b, &bd, &dims_with(b.strides(), &[0]), 0)
    } else {
        b.share().into_dyn()
    };
    check_matrices(b.dims(), name, "B")?;
    let bd = b.dims();
    let (br, bc) = (bd[bd.len() - 2], bd[bd.len() - 1]);
    if br != n {
        return Err(ShapeError::Invalid(format!(
            "{name}: Incompatible shapes of A and B for the equation AX = B ({n}x{n} and {br}x{bc})"
        ))
        .into());
    }
    // B is "tensor a" in PyTorch's broadcast message.
    let abatch = batch_of(a.dims());
    broadcast_batch(&bd[..bd.len() - 2], abatch)?;
    let (lu, piv, info) = primitives::lu_factor(&a.share().into_dyn())?;
    let piv_host = host::to_host(&piv)?;
    let x = primitives::lu_solve(&lu, &piv, &piv_host, &b)?;
    let x = if vec {
        let r = x.rank();
        view(&x, &x.dims()[..r - 1], &x.strides()[..r - 1], 0)
    } else {
        x
    };
    let info = primitives::info_tensor(&lu, info, abatch)?;
    Ok((x.try_into_shape()?, info.try_into_shape()?))
}

/// `(X, info)`; panics where [`try_solve_ex`] errs (shapes only).
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f64, Shape![2, 2]>::from_vec(vec![2., 0., 0., 4.]);
/// let b = Tensor::<f64, Shape![2, 1]>::from_vec(vec![2., 4.]);
/// let (x, info) = linalg::solve_ex(&a, &b);
/// assert_eq!((x.to_vec(), info.item()), (vec![1., 1.], 0));
/// ```
#[track_caller]
#[allow(clippy::type_complexity)]
pub fn solve_ex<T: LinalgFloat, SA, SB, D: LinalgDevice<T>>(
    a: &Tensor<T, SA, D>,
    b: &Tensor<T, SB, D>,
) -> (Tensor<T, SB::Output, D>, Tensor<i32, BatchOf<SA>, D>)
where
    SA: Matrices,
    SB: SolveRhs<SA>,
    SB::Output: Shape,
{
    expect(try_solve_ex(a, b))
}

/// The batch dimensions of `dims` `(..., m, n)` (checked to be matrices).
fn batch_of(dims: &[usize]) -> &[usize] {
    &dims[..dims.len() - 2]
}
