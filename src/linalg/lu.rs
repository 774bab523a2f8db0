//! `lu_factor` and `lu_factor_ex` (LU with partial pivoting, packed as
//! LAPACK packs it), `lu` (the unpacked `P`, `L`, `U`) and `lu_solve`.

use super::primitives;
use crate::tensor::host;

use super::compose::{LinalgDevice, add, eye, scalar, select, upload};
use super::generic::{check_batch_info, check_matrices, check_square_dims};
use super::{BatchOf, LinalgFloat, Matrices, SolveRhs, WithTail, expect};
use crate::backend::Linalg;
use crate::backend::cpu::linalg::batch::{broadcast_batch, dims_with};
use crate::device::Cpu;
use crate::shape::{Dyn, Shape};
use crate::{ShapeError, Tensor};

/// `(..., k)` with `k = min(m, n)` for `(..., m, n)`: the pivots of an LU
/// factorization (dynamic, as stable Rust cannot compute a minimum of two
/// const generics).
pub type PivotsOf<S> = <<S as Matrices>::Batch as WithTail>::Vec<Dyn>;

/// The packed LU factorization of each matrix of `a` `(..., m, n)`, as
/// LAPACK's `getrf` and PyTorch's `linalg.lu_factor` return it: `LU`
/// `(..., m, n)` holds `U` on and above the diagonal and the unit-lower `L`
/// below it, and `pivots` `(..., k)`, `k = min(m, n)`, says that row `i` was
/// swapped with row `pivots[i] - 1` (1-based), in order. Rectangular
/// matrices are factored too.
///
/// On CUDA: one cuBLAS `getrfBatched` for square matrices; rectangular
/// ones loop over the batch, one cuSOLVER `getrf` per matrix.
///
/// # Errors
/// A shape of rank < 2; a matrix with a zero on the diagonal of `U`
/// (PyTorch's message, naming the first such `U[i,i]`, 1-based, and the
/// batch element). [`try_lu_factor_ex`] factors it without failing.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f64, Shape![2, 2]>::from_vec(vec![1., 2., 3., 4.]);
/// let (lu, piv) = linalg::try_lu_factor(&a).unwrap();
/// assert_eq!(piv.to_vec(), vec![2, 2]);
/// let v = lu.to_vec();
/// assert_eq!(v[..3], [3., 4., 1. / 3.]);
/// assert!((v[3] - 2. / 3.).abs() < 1e-12);
/// let s = Tensor::<f64, Shape![2, 2]>::from_vec(vec![1., 2., 2., 4.]);
/// assert_eq!(linalg::try_lu_factor(&s).unwrap_err().to_string(),
///     "torch.linalg.lu_factor: U[2,2] is zero and using it on lu_solve would result in a division by zero. If you still want to perform the factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)");
/// ```
#[allow(clippy::type_complexity)]
pub fn try_lu_factor<T: LinalgFloat, S: Matrices, D: Linalg<T>>(
    a: &Tensor<T, S, D>,
) -> Result<(Tensor<T, S, D>, Tensor<i32, PivotsOf<S>, D>), D::Error> {
    check_lu_rank(a.dims())?;
    let (lu, piv, info) = primitives::lu_factor(&a.share().into_dyn())?;
    check_batch_info("torch.linalg.lu_factor", a.rank() - 2, &info, |k| {
        format!(
            "U[{k},{k}] is zero and using it on lu_solve would result in a division by zero. If you still want to perform the factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)"
        )
    })?;
    Ok((lu.try_into_shape()?, piv.try_into_shape()?))
}

/// `(LU, pivots)` of each matrix of `a`; panics where [`try_lu_factor`]
/// errs.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f32, Shape![3, 2, 2]>::from_vec(vec![1., 0., 0., 1., 0., 1., 1., 0., 2., 1., 4., 3.]);
/// let (_lu, piv) = linalg::lu_factor(&a);
/// assert_eq!(piv.to_vec(), vec![1, 2, 2, 2, 2, 2]);
/// ```
#[track_caller]
#[allow(clippy::type_complexity)]
pub fn lu_factor<T: LinalgFloat, S: Matrices, D: Linalg<T>>(
    a: &Tensor<T, S, D>,
) -> (Tensor<T, S, D>, Tensor<i32, PivotsOf<S>, D>) {
    expect(try_lu_factor(a))
}

/// `(LU, pivots, info)`: [`try_lu_factor`] without the error on a zero
/// pivot, as PyTorch's `linalg.lu_factor_ex`. `info` `(...)` is 0 where the
/// factorization has no zero on `U`'s diagonal, else the 1-based index of
/// the first zero (LAPACK's `info`).
///
/// # Errors
/// A shape of rank < 2.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f64, Shape![2, 2, 2]>::from_vec(vec![1., 2., 2., 4., 1., 0., 0., 1.]);
/// let (lu, piv, info) = linalg::try_lu_factor_ex(&a).unwrap();
/// assert_eq!(info.to_vec(), vec![2, 0]);
/// assert_eq!(piv.to_vec(), vec![2, 2, 1, 2]);
/// assert_eq!(lu.to_vec(), vec![2., 4., 0.5, 0., 1., 0., 0., 1.]);
/// ```
#[allow(clippy::type_complexity)]
pub fn try_lu_factor_ex<T: LinalgFloat, S: Matrices, D: Linalg<T>>(
    a: &Tensor<T, S, D>,
) -> Result<
    (
        Tensor<T, S, D>,
        Tensor<i32, PivotsOf<S>, D>,
        Tensor<i32, BatchOf<S>, D>,
    ),
    D::Error,
> {
    check_lu_rank(a.dims())?;
    let a = a.share().into_dyn();
    let (lu, piv, info) = primitives::lu_factor(&a)?;
    let info = primitives::info_tensor(&a, info, &a.dims()[..a.rank() - 2])?;
    Ok((
        lu.try_into_shape()?,
        piv.try_into_shape()?,
        info.try_into_shape()?,
    ))
}

/// `(LU, pivots, info)`; panics where [`try_lu_factor_ex`] errs (only on a
/// rank < 2 shape).
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f64, Shape![2, 3]>::from_vec(vec![0., 0., 1., 0., 0., 2.]);
/// let (_, piv, info) = linalg::lu_factor_ex(&a);
/// assert_eq!((piv.to_vec(), info.item()), (vec![1, 2], 1));
/// ```
#[track_caller]
#[allow(clippy::type_complexity)]
pub fn lu_factor_ex<T: LinalgFloat, S: Matrices, D: Linalg<T>>(
    a: &Tensor<T, S, D>,
) -> (
    Tensor<T, S, D>,
    Tensor<i32, PivotsOf<S>, D>,
    Tensor<i32, BatchOf<S>, D>,
) {
    expect(try_lu_factor_ex(a))
}

/// `P`, `L`, `U` of [`lu`]: `(..., m, m)`, `(..., m, k)`, `(..., k, n)`.
pub type PLU<T, S, D = Cpu> = (
    Tensor<
        T,
        <<S as Matrices>::Batch as WithTail>::Mat<<S as Matrices>::Rows, <S as Matrices>::Rows>,
        D,
    >,
    Tensor<T, <<S as Matrices>::Batch as WithTail>::Mat<<S as Matrices>::Rows, Dyn>, D>,
    Tensor<T, <<S as Matrices>::Batch as WithTail>::Mat<Dyn, <S as Matrices>::Cols>, D>,
);

/// The LU factorization with partial pivoting `A = P L U` of each matrix of
/// `a` `(..., m, n)`, unpacked, as PyTorch's `linalg.lu`: `P` `(..., m, m)` a
/// permutation matrix, `L` `(..., m, k)` unit lower triangular, `U`
/// `(..., k, n)` upper triangular, `k = min(m, n)`. Singular matrices are
/// factored too.
///
/// One body for every device: [`Linalg::lu_factor`] (cuBLAS/cuSOLVER on
/// CUDA), then `L` and `U` as masked views of the packed factor (op-table
/// `where` and `add` kernels) and `P` built on the host from the pivots (a
/// read-back of `(..., k)` integers and an upload of `P`).
///
/// # Errors
/// A shape of rank < 2.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f64, Shape![2, 2]>::from_vec(vec![1., 2., 3., 4.]);
/// let (p, l, u) = linalg::try_lu(&a).unwrap();
/// assert_eq!(p.to_vec(), vec![0., 1., 1., 0.]);
/// assert_eq!(l.to_vec()[..3], [1., 0., 1. / 3.]);
/// assert_eq!(u.to_vec()[..3], [3., 4., 0.]);
/// ```
pub fn try_lu<T: LinalgFloat, S: Matrices, D: LinalgDevice<T>>(
    a: &Tensor<T, S, D>,
) -> Result<PLU<T, S, D>, D::Error> {
    check_matrices(a.dims(), "linalg.lu", "A")?;
    let dims = a.dims();
    let r = dims.len();
    let (batch, m, n) = (&dims[..r - 2], dims[r - 2], dims[r - 1]);
    let k = m.min(n);
    let (lu, piv, _) = primitives::lu_factor(&a.share().into_dyn())?;
    // (P A) row i is A's row rows[i], so A = Pᵀ (L U): P[rows[c], c] = 1.
    let pivots = host::to_host(&piv)?;
    let count: usize = batch.iter().product();
    let mut p = vec![T::zero(); count * m * m];
    for (b, mat) in p.chunks_mut((m * m).max(1)).take(count).enumerate() {
        let mut rows: Vec<usize> = (0..m).collect();
        for (i, &q) in pivots[b * k..(b + 1) * k].iter().enumerate() {
            rows.swap(i, q as usize - 1);
        }
        for (c, &row) in rows.iter().enumerate() {
            mat[row * m + c] = T::one();
        }
    }
    let p = upload(a, p, &dims_with(batch, &[m, m]))?;
    let zero = scalar(a, T::zero())?;
    let below = upload(
        a,
        (0..m * k).map(|i| i / k > i % k).collect::<Vec<bool>>(),
        &[m, k],
    )?;
    let above = upload(
        a,
        (0..k * n).map(|i| i / n <= i % n).collect::<Vec<bool>>(),
        &[k, n],
    )?;
    let l = select(&below, &lu.narrow(r as isize - 1, 0, k)?, &zero)?;
    let l = add(&l, &eye(a, m, k)?)?;
    let u = select(&above, &lu.narrow(r as isize - 2, 0, k)?, &zero)?;
    Ok((
        p.try_into_shape()?,
        l.try_into_shape()?,
        u.try_into_shape()?,
    ))
}

/// `(P, L, U)` with `A = P L U`; panics where [`try_lu`] errs.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f64, Shape![3, 2]>::from_vec(vec![1., 2., 3., 4., 5., 6.]);
/// let (p, l, u) = linalg::lu(&a);
/// assert_eq!((p.dims(), l.dims(), u.dims()), (&[3, 3][..], &[3, 2][..], &[2, 2][..]));
/// ```
#[track_caller]
pub fn lu<T: LinalgFloat, S: Matrices, D: LinalgDevice<T>>(a: &Tensor<T, S, D>) -> PLU<T, S, D> {
    expect(try_lu(a))
}

/// The solution `X` of `A X = B` from the factorization `(LU, pivots)` of
/// [`lu_factor`] of a square `A`; `LU` `(..., n, n)` and `B` `(..., n, k)`
/// broadcast their batches, and `pivots` has `LU`'s batch and length `n`.
/// A zero on `U`'s diagonal gives infinities and NaNs, as PyTorch.
///
/// # Errors
/// Shapes as for [`try_solve`](super::try_solve), pivots of the wrong shape
/// or out of range.
///
/// ```
/// use shaped::{linalg, DynRank, Tensor};
/// let lu = Tensor::<f64, DynRank>::try_from_vec(vec![1., 2., 0., 0.], &[2, 2]).unwrap();
/// let piv = Tensor::<i32, DynRank>::try_from_vec(vec![1, 2], &[2]).unwrap();
/// let b = Tensor::<f64, DynRank>::try_from_vec(vec![1., 1.], &[2, 1]).unwrap();
/// assert_eq!(linalg::try_lu_solve(&lu, &piv, &b).unwrap().to_vec(), vec![f64::NEG_INFINITY, f64::INFINITY]);
/// ```
pub fn try_lu_solve<T: LinalgFloat, SA, SP: Shape, SB, D: Linalg<T>>(
    lu: &Tensor<T, SA, D>,
    pivots: &Tensor<i32, SP, D>,
    b: &Tensor<T, SB, D>,
) -> Result<Tensor<T, SB::Output, D>, D::Error>
where
    SA: Shape,
    SB: SolveRhs<SA>,
    SB::Output: Shape,
{
    let name = "linalg.lu_solve";
    let (ld, bd, pd) = (lu.dims(), b.dims(), pivots.dims());
    check_matrices(ld, name, "LU")?;
    check_matrices(bd, name, "B")?;
    let n = check_square_dims(ld, name, "LU")?;
    let (br, bc) = (bd[bd.len() - 2], bd[bd.len() - 1]);
    if br != n {
        return Err(ShapeError::Invalid(format!(
            "{name}: Incompatible shapes of A and B for the equation AX = B ({n}x{n} and {br}x{bc})"
        ))
        .into());
    }
    let want = dims_with(&ld[..ld.len() - 2], &[n]);
    if pd != want.as_slice() {
        return Err(ShapeError::Invalid(format!(
            "{name}: Expected pivots of shape {want:?} (LU's batch and n), but got {pd:?}"
        ))
        .into());
    }
    let piv_host = host::to_host(pivots)?;
    if piv_host.iter().any(|&p| p < 1 || p as usize > n) {
        return Err(
            ShapeError::Invalid(format!("{name}: pivots must be between 1 and {n}")).into(),
        );
    }
    // B is "tensor a" in PyTorch's broadcast message.
    broadcast_batch(&bd[..bd.len() - 2], &ld[..ld.len() - 2])?;
    let piv = pivots.share().into_dyn();
    let x = primitives::lu_solve(
        &lu.share().into_dyn(),
        &piv,
        &piv_host,
        &b.share().into_dyn(),
    )?;
    Ok(x.try_into_shape()?)
}

/// `X` with `A X = B` from `lu_factor(A)`; panics where [`try_lu_solve`]
/// errs.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f64, Shape![2, 2]>::from_vec(vec![1., 2., 3., 4.]);
/// let b = Tensor::<f64, Shape![2, 1]>::from_vec(vec![5., 11.]);
/// let (lu, piv) = linalg::lu_factor(&a);
/// let x = linalg::lu_solve(&lu, &piv, &b).to_vec();
/// assert!((x[0] - 1.).abs() < 1e-12 && (x[1] - 2.).abs() < 1e-12);
/// ```
#[track_caller]
pub fn lu_solve<T: LinalgFloat, SA, SP: Shape, SB, D: Linalg<T>>(
    lu: &Tensor<T, SA, D>,
    pivots: &Tensor<i32, SP, D>,
    b: &Tensor<T, SB, D>,
) -> Tensor<T, SB::Output, D>
where
    SA: Shape,
    SB: SolveRhs<SA>,
    SB::Output: Shape,
{
    expect(try_lu_solve(lu, pivots, b))
}

/// PyTorch's message for `lu_factor` of a tensor of rank below 2.
fn check_lu_rank(dims: &[usize]) -> Result<(), ShapeError> {
    if dims.len() < 2 {
        return Err(ShapeError::Invalid(format!(
            "torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: {dims:?} instead"
        )));
    }
    Ok(())
}
