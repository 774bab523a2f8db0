//! `householder_product`: the first columns of a product of Householder
//! reflectors, as LAPACK's `orgqr` forms `Q` from `geqrf`'s output.

use super::compose::{DynTensor, dy, eye, mat_t, matmul, mul, sub, upload};
use super::{LinalgFloat, Matrices, expect};
use crate::backend::op::table::Where;
use crate::backend::{Backend, Gemm};
use crate::shape::{DynRank, Shape};
use crate::tensor::pointwise;
use crate::{ShapeError, Tensor};

/// The first `n` columns of `H₁ H₂ ⋯ H_k` for each matrix `A` `(..., m, n)`
/// and scalars `tau` `(..., k)`, where `Hᵢ = I - τᵢ vᵢ vᵢᵀ` and `vᵢ` is
/// column `i` of `A` below the diagonal with a 1 on it (zeros above), as
/// PyTorch's `linalg.householder_product` (LAPACK's `orgqr`). Requires
/// `m ≥ n ≥ k` and `tau`'s batch equal to `A`'s.
///
/// One body for every device: the reflectors `V` (one `where` kernel over
/// `A`), then for `i = k-1, ..., 0` the update `Q -= (τᵢ vᵢ) (vᵢᵀ Q)`: a
/// pointwise kernel, two batched products (cuBLAS on CUDA) and a
/// subtraction. Each update passes over all `m` rows of `Q` (LAPACK's
/// `orgqr` only over rows `i..m`), so the CPU does about twice the work of a
/// per-matrix loop there.
///
/// # Errors
/// The sizes above, with PyTorch's messages.
///
/// ```
/// use shaped::{linalg, DynRank, Tensor};
/// let a = Tensor::<f64, DynRank>::try_zeros(&[3, 2]).unwrap();
/// let tau = Tensor::<f64, DynRank>::try_zeros(&[3]).unwrap();
/// assert_eq!(linalg::try_householder_product(&a, &tau).unwrap_err().to_string(),
///     "torch.linalg.householder_product: input.shape[-1] must be greater than or equal to tau.shape[-1]");
/// ```
pub fn try_householder_product<T: LinalgFloat, S: Matrices, ST: Shape, D>(
    a: &Tensor<T, S, D>,
    tau: &Tensor<T, ST, D>,
) -> Result<Tensor<T, S, D>, D::Error>
where
    D: Gemm<T> + Backend<bool>,
{
    let name = "torch.linalg.householder_product";
    let fail = |msg: String| Err(ShapeError::Invalid(format!("{name}: {msg}")).into());
    let (ad, td) = (a.dims(), tau.dims());
    if ad.len() < 2 {
        return fail("input must have at least 2 dimensions.".into());
    }
    if td.is_empty() {
        return Err(ShapeError::Invalid(
            "Dimension specified as -1 but tensor has no dimensions".into(),
        )
        .into());
    }
    let (m, n) = (ad[ad.len() - 2], ad[ad.len() - 1]);
    let k = td[td.len() - 1];
    if m < n {
        return fail("input.shape[-2] must be greater than or equal to input.shape[-1]".into());
    }
    if n < k {
        return fail("input.shape[-1] must be greater than or equal to tau.shape[-1]".into());
    }
    if ad.len() - td.len() != 1 {
        return fail(format!(
            "Expected tau to have one dimension less than input, but got tau.ndim equal to {} and input.ndim is equal to {}",
            td.len(),
            ad.len()
        ));
    }
    if td[..td.len() - 1] != ad[..ad.len() - 2] {
        return fail(format!(
            "Expected batch dimensions of tau to be equal to input.shape[:-2], but got {:?}",
            &td[..td.len() - 1]
        ));
    }
    let (x, t) = (dy(a), dy(tau));
    // Q starts as the first n columns of the m x m identity.
    let id = eye::<T, _, D>(&x, m, n)?;
    let mut q: DynTensor<T, D> = pointwise::copy(&id.try_broadcast_to::<DynRank>(ad)?)?;
    if k == 0 || x.numel() == 0 {
        return Ok(q.try_into_shape()?);
    }
    // vᵢ is column i of V: A below the diagonal, 1 on it, 0 above.
    let below = (0..m * n).map(|i| i / n > i % n).collect();
    let v: DynTensor<T, D> =
        pointwise::select(Where, &upload::<bool, _, D>(&x, below, &[m, n])?, &x, &id)?;
    let mut one = td[..td.len() - 1]
        .iter()
        .map(|&d| d as isize)
        .collect::<Vec<_>>();
    one.extend([1, 1]);
    for i in (0..k).rev() {
        let vi: DynTensor<T, D> = v.narrow(-1, i, 1)?;
        let ti: DynTensor<T, D> = t.narrow::<DynRank>(-1, i, 1)?.try_reshape(&one)?;
        let w = matmul(&mat_t(&vi), &q)?;
        q = sub(&q, &matmul(&mul(&vi, &ti)?, &w)?)?;
    }
    Ok(q.try_into_shape()?)
}

/// The product of reflectors; panics where [`try_householder_product`]
/// errs.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// // One reflector with v = (1, 1), τ = 1: I - v vᵀ = [[0, -1], [-1, 0]].
/// let a = Tensor::<f64, Shape![2, 2]>::from_vec(vec![7., 7., 1., 7.]);
/// let tau = Tensor::<f64, Shape![1]>::from_vec(vec![1.]);
/// assert_eq!(linalg::householder_product(&a, &tau).to_vec(), vec![0., -1., -1., 0.]);
/// ```
#[track_caller]
pub fn householder_product<T: LinalgFloat, S: Matrices, ST: Shape, D>(
    a: &Tensor<T, S, D>,
    tau: &Tensor<T, ST, D>,
) -> Tensor<T, S, D>
where
    D: Gemm<T> + Backend<bool>,
{
    expect(try_householder_product(a, tau))
}
