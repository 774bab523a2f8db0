//! Batch normalisation's training pass as one recorded operation, so that
//! its value and its gradient each take a few passes over the input
//! instead of the dozen of its composition from pointwise ops and
//! reductions. With `M` values per channel, `μ` and `σ²` (biased) the
//! batch statistics, `r = 1/√(σ² + eps)`, `a = w·r`:
//!
//! - value: `y = x·a + (b - μ·a)` (one pass after the statistics);
//! - gradients, with `Σg` and `Σg·x` over each channel:
//!   `∂b = Σg`, `∂w = r·(Σg·x - μ·Σg)`,
//!   `∂x = a·g + k₁·x + k₀` where `k₁ = -a·r·∂w / M` and
//!   `k₀ = -a·Σg / M - k₁·μ` (two passes).

use smallvec::smallvec;

use super::Var;
use super::device::{GradDevice, scalar_like};
use super::graph::DynTensor;
use crate::element::Float;
use crate::shape::{DimVec, DynRank};

/// What one batch-norm training pass gives besides its value: the batch
/// mean and the biased variance, one per channel, in the input's rank
/// with size 1 but on axis 1 (`keepdim`).
pub(crate) struct BatchStats<T: Float, D: GradDevice<T>> {
    pub(crate) mean: DynTensor<T, D>,
    pub(crate) var: DynTensor<T, D>,
}

/// The normalised value and the batch's statistics.
pub(crate) type Normed<T, D> = (Var<T, DynRank, D>, BatchStats<T, D>);

/// `t · v` for a scalar `v`.
fn scaled<T: Float, D: GradDevice<T>>(
    t: &DynTensor<T, D>,
    v: T,
) -> Result<DynTensor<T, D>, D::Error> {
    t.try_mul(&scalar_like(t, v)?)
}

impl<T: Float, D: GradDevice<T>> Var<T, DynRank, D> {
    /// Batch normalisation of this `(N, C, ...)` value with its batch's
    /// statistics over every axis but 1, scaled by `weight` and shifted by
    /// `bias` (both `(C,)`), and the statistics.
    pub(crate) fn batch_norm_train(
        &self,
        weight: &Var<T, DynRank, D>,
        bias: &Var<T, DynRank, D>,
        eps: T,
    ) -> Result<Normed<T, D>, D::Error> {
        let x = self.value.share();
        let rank = x.rank();
        let axes: Vec<isize> = (0..rank as isize).filter(|&a| a != 1).collect();
        let mut per: Vec<isize> = vec![1; rank];
        per[1] = -1;
        let count = x.numel() / x.dims()[1].max(1);
        let mean = x.try_mean_dims(&axes, true)?;
        let var = x.try_var_dims(&axes, true, 0)?;
        let invstd = var.try_add(&scalar_like(&var, eps)?)?.try_rsqrt()?;
        let w: DynTensor<T, D> = weight.value.try_reshape(&per)?;
        let b: DynTensor<T, D> = bias.value.try_reshape(&per)?;
        let a = w.try_mul(&invstd)?;
        let shift = b.try_sub(&mean.try_mul(&a)?)?;
        let y = shift.try_addcmul(&x, &a, T::one())?;
        let stats = BatchStats {
            mean: mean.share(),
            var,
        };
        let (wdims, bdims) = (
            DimVec::from_slice(weight.dims()),
            DimVec::from_slice(bias.dims()),
        );
        let node = Var::from_op(
            y,
            &[Some(&self.node), Some(&weight.node), Some(&bias.node)],
            move || {
                Box::new(move |g, needs| {
                    let sum_g = g.try_sum_dims(&axes, true)?;
                    let sum_gx = g.try_mul(&x)?.try_sum_dims(&axes, true)?;
                    let gw = invstd.try_mul(&sum_gx.try_sub(&mean.try_mul(&sum_g)?)?)?;
                    let gx = if needs[0] {
                        let m = T::from_f64(1.0 / count.max(1) as f64);
                        let k1 = scaled(&a.try_mul(&invstd)?.try_mul(&gw)?, -m)?;
                        let k0 = scaled(&a.try_mul(&sum_g)?, -m)?.try_sub(&k1.try_mul(&mean)?)?;
                        Some(
                            k0.try_addcmul(&x, &k1, T::one())?
                                .try_addcmul(g, &a, T::one())?,
                        )
                    } else {
                        None
                    };
                    let as_dims =
                        |t: &DynTensor<T, D>, d: &DimVec| -> Result<DynTensor<T, D>, D::Error> {
                            let s: Vec<isize> = d.iter().map(|&v| v as isize).collect();
                            t.try_reshape(&s)
                        };
                    Ok(smallvec![
                        gx,
                        needs[1].then(|| as_dims(&gw, &wdims)).transpose()?,
                        needs[2].then(|| as_dims(&sum_g, &bdims)).transpose()?,
                    ])
                })
            },
        );
        Ok((node, stats))
    }
}
