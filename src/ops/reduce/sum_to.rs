//! `sum_to`: the reduction that undoes broadcasting, as PyTorch's
//! `sum_to_size` and autograd's `reduce_grad` (seeds 003 and 004). A tensor
//! of sizes `a` is summed to sizes `b` that broadcast to `a`: leading
//! dimensions `b` lacks are summed away, and dimensions where `b` has 1 (and
//! `a` does not) are summed keeping size 1. The gradient of a broadcast input
//! is the upstream gradient summed to the input's sizes.
//!
//! Statically the target must expand to the tensor's shape (`Target:
//! ExpandsTo<S>`), so a target that does not broadcast is a compile error.

use super::axes::Mask;
use crate::Tensor;
use crate::backend::Backend;
use crate::backend::op::Reduction;
use crate::element::Numeric;
use crate::iter::contiguous_strides;
use crate::shape::OrPanic;
use crate::shape::{DynRank, ExpandsTo, FixedShape, Shape, ShapeError, check_expand};
use crate::tensor::reduction;

/// The dimensions of a tensor of sizes `from` that summing to `to` reduces,
/// or `None` when `to` does not broadcast to `from`.
pub(crate) fn sum_to_mask(from: &[usize], to: &[usize]) -> Option<Mask> {
    check_expand(to, from).ok()?;
    let lead = from.len() - to.len();
    Some(
        from.iter()
            .enumerate()
            .map(|(i, &f)| i < lead || (to[i - lead] == 1 && f != 1))
            .collect(),
    )
}

/// `t` summed to sizes `dims` on its device, for any result shape type
/// (the checks of `ExpandsTo` happen at run time here): the one body behind
/// [`Tensor::try_sum_to_size`] and autograd's reduction of broadcast
/// gradients.
pub(crate) fn sum_to_dims<T: Numeric, S: Shape, S2: Shape, D: Backend<T>>(
    t: &Tensor<T, S, D>,
    dims: &[usize],
) -> Result<Tensor<T, S2, D>, D::Error> {
    let mask = sum_to_mask(t.dims(), dims).ok_or_else(|| {
        ShapeError::Invalid(format!(
            "size {{{dims:?}}} is not expandable to size {{{:?}}}.",
            t.dims()
        ))
    })?;
    let checked = S2::check_dims(dims)?;
    if !mask.iter().any(|&m| m) {
        return Ok(t.view_as(checked, t.strides(), t.offset));
    }
    let summed: Tensor<T, DynRank, D> = reduction::reduce(Reduction::Sum, t, &mask, true)?;
    Ok(summed.view_as(checked, &contiguous_strides(dims), summed.offset))
}

impl<T: Numeric, S: Shape, D: Backend<T>> Tensor<T, S, D> {
    /// Sums to sizes `dims`, which must broadcast to this tensor's sizes, as
    /// PyTorch's `sum_to_size`. When nothing is summed the result is a view.
    ///
    /// # Errors
    /// PyTorch's error when `dims` does not broadcast to this tensor's
    /// sizes, or `dims` does not fit `S2`.
    ///
    /// ```
    /// use shaped::{DynRank, Tensor};
    /// let g = Tensor::<f32, DynRank>::try_ones(&[2, 3, 4]).unwrap();
    /// let b = g.try_sum_to_size::<DynRank>(&[3, 1]).unwrap();
    /// assert_eq!(b.dims(), &[3, 1]);
    /// assert_eq!(b.to_vec(), vec![8.0; 3]);
    /// assert_eq!(g.try_sum_to_size::<DynRank>(&[5]).unwrap_err().to_string(),
    ///     "size {[5]} is not expandable to size {[2, 3, 4]}.");
    /// ```
    pub fn try_sum_to_size<S2>(&self, dims: &[usize]) -> Result<Tensor<T, S2, D>, D::Error>
    where
        S2: Shape + ExpandsTo<S>,
    {
        sum_to_dims(self, dims)
    }

    /// [`Tensor::try_sum_to_size`], panicking on error.
    ///
    /// # Panics
    /// With the message of the `try_` form's error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let g = Tensor::<f32, Shape![_, 3]>::try_ones(&[4, 3]).unwrap();
    /// let b: Tensor<f32, Shape![_]> = g.sum_to_size(&[3]);
    /// assert_eq!(b.to_vec(), vec![4.0; 3]);
    /// ```
    #[track_caller]
    pub fn sum_to_size<S2>(&self, dims: &[usize]) -> Tensor<T, S2, D>
    where
        S2: Shape + ExpandsTo<S>,
    {
        self.try_sum_to_size(dims).or_panic()
    }

    /// Sums to the fixed shape `S2`, which the compiler checks broadcasts to
    /// `S`: the gradient of a `S2` input broadcast into `S`.
    ///
    /// # Panics
    /// Only when a `Dyn` size of `self` turns out not to fit `S2`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// // (2, 1) + (2, 2) broadcasts, so the gradient of the
    /// // (2, 1) input sums over dim 1 keeping it.
    /// let upstream = Tensor::<f32, Shape![2, 2]>::from_vec(vec![1., 2., 3., 4.]);
    /// let g: Tensor<f32, Shape![2, 1]> = upstream.sum_to();
    /// assert_eq!(g.to_vec(), vec![3., 7.]);
    /// let b: Tensor<f32, Shape![1, 4096]> = Tensor::<f32, Shape![4096, 4096]>::ones().sum_to();
    /// assert_eq!(b.to_vec()[0], 4096.0);
    /// ```
    #[track_caller]
    pub fn sum_to<S2>(&self) -> Tensor<T, <S as crate::shape::SumTo<S2>>::Output, D>
    where
        S2: FixedShape + ExpandsTo<S>,
        S: crate::shape::SumTo<S2, Output = S2>,
    {
        let dims = S2::static_sizes().expect("a fixed shape has static sizes");
        self.sum_to_size(dims.as_ref())
    }
}
