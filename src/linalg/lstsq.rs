//! `lstsq`: minimum-norm least-squares solutions, through the SVD.

use faer::Mat;

use super::batch::{Operand, matmul};
use super::solve::pairwise;
use super::svd::thin;
use super::{LinalgFloat, LstsqShape, expect};
use crate::shape::Shape;
use crate::{ShapeError, Tensor};

/// The least-squares solution `X` `(..., n, k)` of `A X = B` for `A`
/// `(..., m, n)` and `B` `(..., m, k)`, batches broadcast: the `X` of least
/// norm among those minimizing `‖A X - B‖`, as NumPy's `lstsq` (LAPACK
/// `gelsd`) computes it; singular values below `eps · max(m, n) · σ_max` are
/// taken as zero, NumPy's default `rcond`. Only the solution is returned.
///
/// # Errors
/// Rows of `A` and `B` that differ, batches that do not broadcast (run time
/// for `Dyn`/`DynRank`); no convergence of the SVD.
///
/// ```
/// use shaped::{linalg, DynRank, Tensor};
/// let a = Tensor::<f64, DynRank>::try_zeros(&[3, 2]).unwrap();
/// let b = Tensor::<f64, DynRank>::try_zeros(&[4, 1]).unwrap();
/// assert_eq!(linalg::try_lstsq(&a, &b).unwrap_err().to_string(),
///     "linalg.lstsq: input.size(-2) should match other.size(-2) (3 and 4)");
/// ```
pub fn try_lstsq<T: LinalgFloat, SA: LstsqShape<SB>, SB: Shape>(
    a: &Tensor<T, SA>,
    b: &Tensor<T, SB>,
) -> Result<Tensor<T, SA::Output>, ShapeError> {
    let name = "linalg.lstsq";
    let a = Operand::matrices(a.layout(), name, "A")?;
    let b = Operand::matrices(b.layout(), name, "B")?;
    if a.rows() != b.rows() {
        return Err(ShapeError::Invalid(format!(
            "{name}: input.size(-2) should match other.size(-2) ({} and {})",
            a.rows(),
            b.rows()
        )));
    }
    let (data, dims) = pairwise(name, &a, &b, a.cols(), b.cols(), false, |am, bm| {
        let p = pinv_of(&am)?;
        Ok(matmul(p.as_ref(), bm.as_ref()))
    })?;
    super::batch::tensor(data, &dims)
}

/// `X` minimizing `‖A X - B‖`; panics where [`try_lstsq`] errs.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// // Fit y = c0 + c1 t to (0, 1), (1, 3), (2, 5).
/// let a = Tensor::<f64, Shape![3, 2]>::from_vec(vec![1., 0., 1., 1., 1., 2.]);
/// let y = Tensor::<f64, Shape![3, 1]>::from_vec(vec![1., 3., 5.]);
/// let c: Tensor<f64, Shape![2, 1]> = linalg::lstsq(&a, &y);
/// let c = c.to_vec();
/// assert!((c[0] - 1.).abs() < 1e-12 && (c[1] - 2.).abs() < 1e-12);
/// ```
#[track_caller]
pub fn lstsq<T: LinalgFloat, SA: LstsqShape<SB>, SB: Shape>(
    a: &Tensor<T, SA>,
    b: &Tensor<T, SB>,
) -> Tensor<T, SA::Output> {
    expect(try_lstsq(a, b))
}

/// The pseudo-inverse `V diag(1/σ) Uᵀ` of one matrix, dropping singular
/// values at or below `eps · max(m, n) · σ_max`.
pub(super) fn pinv_of<T: LinalgFloat>(a: &Mat<T>) -> Result<Mat<T>, String> {
    let (m, n) = (a.nrows(), a.ncols());
    let (u, s, v) = thin(a)?;
    let smax = s.first().copied().unwrap_or(T::zero());
    let cutoff = <T as num_traits::Float>::epsilon() * T::from(m.max(n)).unwrap_or(T::one()) * smax;
    let mut vs = v;
    for (j, &sj) in s.iter().enumerate() {
        let scale = if sj > cutoff {
            T::one() / sj
        } else {
            T::zero()
        };
        for i in 0..n {
            vs[(i, j)] *= scale;
        }
    }
    Ok(matmul(vs.as_ref(), u.transpose()))
}
