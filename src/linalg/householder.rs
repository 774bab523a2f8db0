//! `householder_product`: the first columns of a product of Householder
//! reflectors, as LAPACK's `orgqr` forms `Q` from `geqrf`'s output.

use faer::Mat;

use super::batch::{Operand, par_batches, stack, tensor};
use super::{LinalgFloat, Matrices, expect};
use crate::shape::Shape;
use crate::{ShapeError, Tensor};

/// The first `n` columns of `H₁ H₂ ⋯ H_k` for each matrix `A` `(..., m, n)`
/// and scalars `tau` `(..., k)`, where `Hᵢ = I - τᵢ vᵢ vᵢᵀ` and `vᵢ` is
/// column `i` of `A` below the diagonal with a 1 on it (zeros above), as
/// PyTorch's `linalg.householder_product` (LAPACK's `orgqr`). Requires
/// `m ≥ n ≥ k` and `tau`'s batch equal to `A`'s.
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
pub fn try_householder_product<T: LinalgFloat, S: Matrices, ST: Shape>(
    a: &Tensor<T, S>,
    tau: &Tensor<T, ST>,
) -> Result<Tensor<T, S>, ShapeError> {
    let name = "torch.linalg.householder_product";
    let fail = |msg: String| Err(ShapeError::Invalid(format!("{name}: {msg}")));
    let (ad, td) = (a.dims(), tau.dims());
    if ad.len() < 2 {
        return fail("input must have at least 2 dimensions.".into());
    }
    if td.is_empty() {
        return Err(ShapeError::Invalid(
            "Dimension specified as -1 but tensor has no dimensions".into(),
        ));
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
    let ao = Operand::matrices(a.layout(), name, "input")?;
    let to = Operand::vectors(tau.layout(), name, "tau")?;
    let batch = ao.batch().to_vec();
    let (oa, ot) = (ao.offsets(&batch), to.offsets(&batch));
    let mats = par_batches(name, &batch, |b| {
        let (v, t) = (ao.mat(oa[b]), to.mat(ot[b]));
        let mut q = Mat::from_fn(m, n, |i, j| if i == j { T::one() } else { T::zero() });
        for i in (0..k).rev() {
            // q = (I - τ v vᵀ) q, v = (0, .., 0, 1, A[i+1.., i]).
            let vi = |r: usize| match r.cmp(&i) {
                std::cmp::Ordering::Less => T::zero(),
                std::cmp::Ordering::Equal => T::one(),
                std::cmp::Ordering::Greater => v[(r, i)],
            };
            for c in 0..n {
                let dot = (i..m).fold(T::zero(), |s, r| s + vi(r) * q[(r, c)]);
                let f = t[(i, 0)] * dot;
                for r in i..m {
                    q[(r, c)] -= f * vi(r);
                }
            }
        }
        Ok(q)
    })?;
    tensor(stack(&mats, m * n), ad)
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
pub fn householder_product<T: LinalgFloat, S: Matrices, ST: Shape>(
    a: &Tensor<T, S>,
    tau: &Tensor<T, ST>,
) -> Tensor<T, S> {
    expect(try_householder_product(a, tau))
}
