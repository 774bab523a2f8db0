//! `pinv`: the Moore-Penrose pseudo-inverse.

use super::compose::{DynTensor, LinalgDevice, bin, mat_t, scalar, select, un, view};
use super::{LinalgFloat, Matrices, Transposed, expect};
use crate::backend::op::ScalarRhs;
use crate::backend::op::table;
use crate::tensor::host;
use crate::tensor::pointwise;
use crate::{ShapeError, Tensor};

/// The pseudo-inverse `(..., n, m)` of each matrix of `a` `(..., m, n)`,
/// through the SVD; singular values at or below `eps · max(m, n) · σ_max`
/// are taken as zero (PyTorch's default `rtol`).
///
/// Composed on every device as `V diag(σ⁺) Uᵀ`: the reduced
/// [`Linalg::svd`](crate::backend::Linalg::svd) (on CUDA `gesvdjBatched`,
/// or one `gesvdj` per matrix above 32), then the cutoff from a view of
/// σ_max, a comparison, a reciprocal and a `where` for `σ⁺`, one broadcast
/// multiplication scaling `V`'s columns, and one batched GEMM with `Uᵀ` (a
/// transposed view). On the CPU the pointwise steps are extra passes over
/// `V` compared with the former per-matrix loop.
///
/// # Errors
/// A shape of rank < 2; no convergence of the SVD.
///
/// ```
/// use shaped::{linalg, DynRank, Tensor};
/// let a = Tensor::<f64, DynRank>::try_zeros(&[4]).unwrap();
/// assert_eq!(linalg::try_pinv(&a).unwrap_err().to_string(),
///     "linalg.pinv(Double{[4]}): expected a tensor with 2 or more dimensions of float, double, cfloat or cdouble types");
/// ```
pub fn try_pinv<T: LinalgFloat, S: Matrices, D: LinalgDevice<T>>(
    a: &Tensor<T, S, D>,
) -> Result<Tensor<T, Transposed<S>, D>, D::Error> {
    let name = "linalg.pinv";
    if a.dims().len() < 2 {
        let ty = if std::mem::size_of::<T>() == 4 {
            "Float"
        } else {
            "Double"
        };
        return Err(ShapeError::Invalid(format!(
            "{name}({ty}{{{:?}}}): expected a tensor with 2 or more dimensions of float, double, cfloat or cdouble types",
            a.dims()
        ))
        .into());
    }
    let r = a.rank();
    let (m, n) = (a.dims()[r - 2], a.dims()[r - 1]);
    let batch = &a.dims()[..r - 2];
    if m == 0 || n == 0 {
        let empty: DynTensor<T, D> = host::from_host(a, Vec::new(), &[batch, &[n, m]].concat())?;
        return Ok(empty.try_into_shape()?);
    }
    let (u, s, vh) = super::try_svd(&a.share().into_dyn())?;
    let (u, s, vh) = (u.into_dyn(), s.into_dyn(), vh.into_dyn());
    let k = m.min(n);
    // 1 / σ above the cutoff `rtol · σ_max` (σ_max: the first, a view), 0
    // at or below it.
    let rtol = T::epsilon() * T::from_f64(m.max(n) as f64);
    let ss = s.strides().to_vec();
    let largest = view(&s, &[batch, &[1]].concat(), &ss, 0);
    let cut = un(ScalarRhs(table::Mul, rtol), &largest)?;
    let keep: DynTensor<bool, D> = pointwise::compare(table::Greater, &s, &cut)?;
    let recip = select(&keep, &un(table::Reciprocal, &s)?, &scalar(a, T::zero())?)?;
    // V diag(1 / σ) Uᵀ: the columns of V scaled (σ's row broadcast over
    // them), times Uᵀ.
    let rs = recip.strides();
    let row = view(
        &recip,
        &[batch, &[1, k]].concat(),
        &[&rs[..r - 2], &[0, rs[r - 2]]].concat(),
        0,
    );
    let scaled = bin(table::Mul, &mat_t(&vh), &row)?;
    Ok(scaled.try_matmul(&mat_t(&u))?.try_into_shape()?)
}

/// The pseudo-inverse; panics where [`try_pinv`] errs.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f64, Shape![2, 3]>::from_vec(vec![2., 0., 0., 0., 0., 0.]);
/// let p: Tensor<f64, Shape![3, 2]> = linalg::pinv(&a);
/// assert_eq!(p.to_vec(), vec![0.5, 0., 0., 0., 0., 0.]);
/// ```
#[track_caller]
pub fn pinv<T: LinalgFloat, S: Matrices, D: LinalgDevice<T>>(
    a: &Tensor<T, S, D>,
) -> Tensor<T, Transposed<S>, D> {
    expect(try_pinv(a))
}
