//! Masked operations: a `bool` tensor says where.
//!
//! - `masked_fill_` (in place): the mask broadcasts to `self`'s shape, which
//!   never changes: `SM: ExpandsTo<S>` for static shapes, PyTorch's expand
//!   error at run time.
//! - `masked_fill` (out of place): `self` and the mask broadcast together
//!   (the broadcasting notes: "yes, for consistency with masked_copy"), and
//!   the result has the broadcast shape.
//! - `masked_select`: `self` and the mask broadcast together; the result is
//!   1-d, of a length known only at run time (`(Dyn,)`), in row-major order
//!   of the broadcast shape.
//! - `nonzero`: the coordinates of the nonzero elements, one row each, as a
//!   `(Dyn, Dyn)` tensor of `i64` (PyTorch's `(n, ndim)`).
//!
//! `masked_fill`, `masked_fill_` and `masked_select` run on every device
//! (backend primitives); the others on the CPU. `masked_select` and
//! `nonzero` produce data-dependent sizes: on the CPU they are written in
//! safe code over `to_vec`; on CUDA `masked_select` reads the mask on the
//! host and gathers the values on the device.
//!
//! ```
//! use shaped::{Shape, Tensor};
//! let t = Tensor::<f32, Shape![2, 2]>::from_vec(vec![1., -2., -3., 4.]);
//! let neg = t.map(|x| x < 0.);
//! assert_eq!(t.masked_fill(&neg, 0.).to_vec(), vec![1., 0., 0., 4.]);
//! assert_eq!(t.masked_select(&neg).to_vec(), vec![-2., -3.]);
//! assert_eq!(neg.nonzero().to_vec(), vec![0, 1, 1, 0]);
//! ```

use crate::Tensor;
use crate::backend::Backend;
use crate::backend::op::table::{CopyFrom, NotEqual, Where};
use crate::element::Element;
use crate::iter::contiguous_strides;
use crate::shape::OrPanic;
use crate::tensor::host;
use crate::tensor::indexing;
use crate::tensor::pointwise;

use crate::shape::{
    Broadcast, BroadcastShape, Dyn, DynRank, ExpandsTo, Shape, ShapeError, broadcast_pair,
    checked_numel,
};

impl<T: Element, S: Shape, D: Backend<T>> Tensor<T, S, D> {
    /// Sets the elements of `self` where `mask` holds to `value`, as
    /// `Tensor.masked_fill_(mask, value)`; the mask broadcasts to `self`'s
    /// shape.
    ///
    /// # Errors
    /// As PyTorch's in-place operations (a compile error for static shapes):
    /// the broadcast error naming `self` then the mask, or "output with shape
    /// .. doesn't match the broadcast shape .."; elements of `self` that
    /// share memory.
    ///
    /// ```
    /// use shaped::{DynRank, Tensor};
    /// let mut t = Tensor::<i32, DynRank>::try_zeros(&[2, 3]).unwrap();
    /// let m = Tensor::<bool, DynRank>::try_from_vec(vec![true, false, true], &[3]).unwrap();
    /// t.try_masked_fill_(&m, 7).unwrap();
    /// assert_eq!(t.to_vec(), vec![7, 0, 7, 7, 0, 7]);
    /// let wide = Tensor::<bool, DynRank>::try_full(&[4], true).unwrap();
    /// assert_eq!(t.try_masked_fill_(&wide, 1).err().unwrap().to_string(),
    ///     "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1");
    /// ```
    pub fn try_masked_fill_<SM>(
        &mut self,
        mask: &Tensor<bool, SM, D>,
        value: T,
    ) -> Result<(), D::Error>
    where
        SM: ExpandsTo<S>,
        SM::Expanded: Shape,
    {
        indexing::masked_fill_(self, mask, value)
    }

    /// Sets the elements of `self` where `mask` holds to `value`.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_masked_fill_`]'s error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let mut t = Tensor::<f32, Shape![2, 2]>::zeros();
    /// t.masked_fill_(&Tensor::<bool, Shape![2, 1]>::from_vec(vec![false, true]), 1.);
    /// assert_eq!(t.to_vec(), vec![0., 0., 1., 1.]);
    /// ```
    #[track_caller]
    pub fn masked_fill_<SM>(&mut self, mask: &Tensor<bool, SM, D>, value: T)
    where
        SM: ExpandsTo<S>,
        SM::Expanded: Shape,
    {
        self.try_masked_fill_(mask, value).or_panic()
    }

    /// `self` with the elements where `mask` holds set to `value`, the two
    /// broadcast together, as `torch.masked_fill(self, mask, value)`.
    ///
    /// # Errors
    /// PyTorch's broadcast error when a run-time size does not match, naming
    /// the mask as tensor a and `self` as tensor b (PyTorch's order).
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![3]>::from_vec(vec![1, 2, 3]);
    /// let m = Tensor::<bool, Shape![2, 1]>::from_vec(vec![true, false]);
    /// let r: Tensor<i32, Shape![2, 3]> = t.try_masked_fill(&m, 0).unwrap();
    /// assert_eq!(r.to_vec(), vec![0, 0, 0, 1, 2, 3]);
    /// ```
    pub fn try_masked_fill<SM: Shape>(
        &self,
        mask: &Tensor<bool, SM, D>,
        value: T,
    ) -> Result<Tensor<T, Broadcast<S, SM>, D>, D::Error>
    where
        S: BroadcastShape<SM>,
    {
        broadcast_pair(mask.dims(), self.dims())?;
        indexing::masked_fill(self, mask, value)
    }

    /// `self` with the elements where `mask` holds set to `value`.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_masked_fill`]'s error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f64, Shape![2]>::from_vec(vec![1., 2.]);
    /// let m = t.map(|x| x > 1.5);
    /// assert_eq!(t.masked_fill(&m, -1.).to_vec(), vec![1., -1.]);
    /// ```
    #[track_caller]
    pub fn masked_fill<SM: Shape>(
        &self,
        mask: &Tensor<bool, SM, D>,
        value: T,
    ) -> Tensor<T, Broadcast<S, SM>, D>
    where
        S: BroadcastShape<SM>,
    {
        self.try_masked_fill(mask, value).or_panic()
    }

    /// The elements of `self` where `mask` holds, the two broadcast
    /// together, in row-major order of the broadcast shape, as
    /// `torch.masked_select(self, mask)`.
    ///
    /// # Errors
    /// PyTorch's broadcast error when a run-time size does not match.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![2, 2]>::from_vec(vec![1, 2, 3, 4]);
    /// let m = Tensor::<bool, Shape![2]>::from_vec(vec![false, true]);
    /// assert_eq!(t.try_masked_select(&m).unwrap().to_vec(), vec![2, 4]);
    /// ```
    pub fn try_masked_select<SM: Shape>(
        &self,
        mask: &Tensor<bool, SM, D>,
    ) -> Result<Tensor<T, (Dyn,), D>, D::Error>
    where
        S: BroadcastShape<SM>,
    {
        let dims = broadcast_pair(mask.dims(), self.dims())?;
        checked_numel(&dims)?;
        indexing::masked_select(self, mask, &dims)
    }

    /// The elements of `self` where `mask` holds, broadcast together.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_masked_select`]'s error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f32, Shape![3]>::from_vec(vec![0.5, 1.5, 2.5]);
    /// assert_eq!(t.masked_select(&t.map(|x| x > 1.)).dims(), &[2]);
    /// ```
    #[track_caller]
    pub fn masked_select<SM: Shape>(&self, mask: &Tensor<bool, SM, D>) -> Tensor<T, (Dyn,), D>
    where
        S: BroadcastShape<SM>,
    {
        self.try_masked_select(mask).or_panic()
    }
}

impl<T: Element, S: Shape, D: Backend<T> + Backend<bool> + Backend<i64>> Tensor<T, S, D> {
    /// Copies the elements of `source`, in row-major order, into the
    /// positions of `self` where `mask` holds (row-major too), as
    /// `Tensor.masked_scatter_(mask, source)`; the mask expands to `self`'s
    /// shape, `source` may have any shape and must have at least as many
    /// elements as the mask has `true`s.
    ///
    /// # Errors
    /// PyTorch's expand error when the mask does not expand to `self`'s
    /// shape; `Number of elements of source < number of ones in mask`;
    /// elements of `self` that share memory. Nothing is written then.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let mut t = Tensor::<i32, Shape![2, 2]>::zeros();
    /// let m = Tensor::<bool, Shape![2]>::from_vec(vec![false, true]);
    /// t.try_masked_scatter_(&m, &Tensor::<i32, Shape![3]>::from_vec(vec![7, 8, 9])).unwrap();
    /// assert_eq!(t.to_vec(), vec![0, 7, 0, 8]);
    /// let few = Tensor::<i32, Shape![1]>::from_vec(vec![1]);
    /// assert_eq!(t.try_masked_scatter_(&m, &few).unwrap_err().to_string(),
    ///     "Number of elements of source < number of ones in mask");
    /// ```
    pub fn try_masked_scatter_<SM>(
        &mut self,
        mask: &Tensor<bool, SM, D>,
        source: &Tensor<T, impl Shape, D>,
    ) -> Result<(), D::Error>
    where
        SM: ExpandsTo<S>,
        SM::Expanded: Shape,
    {
        let mask = mask.try_broadcast_to::<DynRank>(self.dims())?;
        // The mask is read on the host (the positions depend on its values,
        // and PyTorch synchronises too); `pos[i]` is the element of
        // `source` that position `i` takes (0, read but not kept, where the
        // mask does not hold).
        let keep = host::to_host(&mask)?;
        let mut count = 0usize;
        let pos: Vec<i64> = keep
            .iter()
            .map(|&m| {
                count += usize::from(m);
                if m { count as i64 - 1 } else { 0 }
            })
            .collect();
        if count > source.numel() {
            return Err(ShapeError::Invalid(
                "Number of elements of source < number of ones in mask".into(),
            )
            .into());
        }
        if count == 0 {
            // Nothing taken from `source`; the in-place write still refuses
            // a `self` whose elements share memory, as PyTorch.
            let same = pointwise::copy(self)?;
            return pointwise::binary_(CopyFrom, self, &same);
        }
        let n = pos.len();
        let idx: Tensor<i64, DynRank, D> = host::from_host(self, pos, &[n])?;
        let flat: Tensor<T, DynRank, D> = source.try_reshape(&[-1])?;
        let picked: Tensor<T, DynRank, D> = indexing::gather(&flat, 0, &idx)?;
        let picked: Tensor<T, DynRank, D> = picked.view_as(
            DynRank::check_dims(self.dims())?,
            &contiguous_strides(self.dims()),
            picked.offset,
        );
        let filled: Tensor<T, DynRank, D> = pointwise::select(Where, &mask, &picked, self)?;
        // Same sizes: the shape rule was checked by the mask's broadcast.
        pointwise::binary_(CopyFrom, self, &filled)
    }

    /// Copies `source` into the positions of `self` where `mask` holds.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_masked_scatter_`]'s error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let mut t = Tensor::<f32, Shape![3]>::zeros();
    /// let m = Tensor::<bool, Shape![3]>::from_vec(vec![true, false, true]);
    /// t.masked_scatter_(&m, &Tensor::<f32, Shape![2]>::from_vec(vec![1., 2.]));
    /// assert_eq!(t.to_vec(), vec![1., 0., 2.]);
    /// ```
    #[track_caller]
    pub fn masked_scatter_<SM>(
        &mut self,
        mask: &Tensor<bool, SM, D>,
        source: &Tensor<T, impl Shape, D>,
    ) where
        SM: ExpandsTo<S>,
        SM::Expanded: Shape,
    {
        self.try_masked_scatter_(mask, source).or_panic()
    }

    /// `self` and `mask` broadcast together, with the elements of `source`
    /// copied in row-major order where the mask holds, as
    /// `torch.masked_scatter(self, mask, source)`.
    ///
    /// # Errors
    /// PyTorch's broadcast error naming the mask as tensor a; too few
    /// elements in `source`, as [`Tensor::try_masked_scatter_`].
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i64, Shape![3]>::from_vec(vec![1, 2, 3]);
    /// let m = Tensor::<bool, Shape![2, 1]>::from_vec(vec![true, false]);
    /// let src = Tensor::<i64, Shape![4]>::from_vec(vec![7, 8, 9, 10]);
    /// let r: Tensor<i64, Shape![2, 3]> = t.try_masked_scatter(&m, &src).unwrap();
    /// assert_eq!(r.to_vec(), vec![7, 8, 9, 1, 2, 3]);
    /// ```
    pub fn try_masked_scatter<SM: Shape>(
        &self,
        mask: &Tensor<bool, SM, D>,
        source: &Tensor<T, impl Shape, D>,
    ) -> Result<Tensor<T, Broadcast<S, SM>, D>, D::Error>
    where
        S: BroadcastShape<SM>,
    {
        let dims = broadcast_pair(mask.dims(), self.dims())?;
        let mut out = pointwise::copy(&self.try_broadcast_to::<DynRank>(&dims)?)?;
        out.try_masked_scatter_(mask, source)?;
        Ok(out.try_into_shape()?)
    }

    /// `self` and `mask` broadcast together, `source` copied where the mask
    /// holds.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_masked_scatter`]'s error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f64, Shape![2]>::zeros();
    /// let m = Tensor::<bool, Shape![2]>::from_vec(vec![true, true]);
    /// let r = t.masked_scatter(&m, &Tensor::<f64, Shape![2, 2]>::from_vec(vec![1., 2., 3., 4.]));
    /// assert_eq!(r.to_vec(), vec![1., 2.]);
    /// ```
    #[track_caller]
    pub fn masked_scatter<SM: Shape>(
        &self,
        mask: &Tensor<bool, SM, D>,
        source: &Tensor<T, impl Shape, D>,
    ) -> Tensor<T, Broadcast<S, SM>, D>
    where
        S: BroadcastShape<SM>,
    {
        self.try_masked_scatter(mask, source).or_panic()
    }
}

impl<T: Element, S: Shape, D: Backend<T>> Tensor<T, S, D> {
    /// [`Tensor::try_masked_fill`] with the value given as a 0-d tensor, as
    /// `torch.masked_fill(self, mask, value)` with a tensor value.
    ///
    /// # Errors
    /// As [`Tensor::try_masked_fill`]; a `value` of another rank than 0
    /// (possible for [`DynRank`]), with PyTorch's message.
    ///
    /// ```
    /// use shaped::{DynRank, Shape, Tensor};
    /// let t = Tensor::<f32, Shape![3]>::from_vec(vec![1., 2., 3.]);
    /// let m = Tensor::<bool, Shape![3]>::from_vec(vec![true, false, true]);
    /// let v = Tensor::<f32, Shape![]>::full(-1.);
    /// assert_eq!(t.try_masked_fill_tensor(&m, &v).unwrap().to_vec(), vec![-1., 2., -1.]);
    /// let row = Tensor::<f32, DynRank>::try_full(&[1], -1.).unwrap();
    /// assert_eq!(t.try_masked_fill_tensor(&m, &row).unwrap_err().to_string(),
    ///     "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 dimension(s).");
    /// ```
    pub fn try_masked_fill_tensor<SM: Shape>(
        &self,
        mask: &Tensor<bool, SM, D>,
        value: &Tensor<T, impl Shape, D>,
    ) -> Result<Tensor<T, Broadcast<S, SM>, D>, D::Error>
    where
        S: BroadcastShape<SM>,
    {
        self.try_masked_fill(mask, scalar_value(value)?)
    }

    /// `self` with the elements where `mask` holds set to a 0-d tensor's
    /// value.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_masked_fill_tensor`]'s error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![2]>::from_vec(vec![1, 2]);
    /// let m = Tensor::<bool, Shape![2]>::from_vec(vec![false, true]);
    /// assert_eq!(t.masked_fill_tensor(&m, &Tensor::<i32, Shape![]>::full(9)).to_vec(), vec![1, 9]);
    /// ```
    #[track_caller]
    pub fn masked_fill_tensor<SM: Shape>(
        &self,
        mask: &Tensor<bool, SM, D>,
        value: &Tensor<T, impl Shape, D>,
    ) -> Tensor<T, Broadcast<S, SM>, D>
    where
        S: BroadcastShape<SM>,
    {
        self.try_masked_fill_tensor(mask, value).or_panic()
    }

    /// [`Tensor::try_masked_fill_`] with the value given as a 0-d tensor, as
    /// `Tensor.masked_fill_(mask, value)` with a tensor value.
    ///
    /// # Errors
    /// As [`Tensor::try_masked_fill_`] and [`Tensor::try_masked_fill_tensor`].
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let mut t = Tensor::<f64, Shape![2, 2]>::zeros();
    /// let m = Tensor::<bool, Shape![2]>::from_vec(vec![true, false]);
    /// t.try_masked_fill_tensor_(&m, &Tensor::<f64, Shape![]>::full(4.)).unwrap();
    /// assert_eq!(t.to_vec(), vec![4., 0., 4., 0.]);
    /// ```
    pub fn try_masked_fill_tensor_<SM>(
        &mut self,
        mask: &Tensor<bool, SM, D>,
        value: &Tensor<T, impl Shape, D>,
    ) -> Result<(), D::Error>
    where
        SM: ExpandsTo<S>,
        SM::Expanded: Shape,
    {
        let v = scalar_value(value)?;
        self.try_masked_fill_(mask, v)
    }

    /// Sets the elements of `self` where `mask` holds to a 0-d tensor's value.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_masked_fill_tensor_`]'s error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let mut t = Tensor::<u8, Shape![2]>::zeros();
    /// t.masked_fill_tensor_(&Tensor::<bool, Shape![2]>::from_vec(vec![true, false]), &Tensor::<u8, Shape![]>::full(3));
    /// assert_eq!(t.to_vec(), vec![3, 0]);
    /// ```
    #[track_caller]
    pub fn masked_fill_tensor_<SM>(
        &mut self,
        mask: &Tensor<bool, SM, D>,
        value: &Tensor<T, impl Shape, D>,
    ) where
        SM: ExpandsTo<S>,
        SM::Expanded: Shape,
    {
        self.try_masked_fill_tensor_(mask, value).or_panic()
    }
}

impl<T: Element, S: Shape, D: Backend<T> + Backend<bool> + Backend<i64>> Tensor<T, S, D> {
    /// The coordinates of the elements that are not zero (not
    /// `T::default()`: `false` for `bool`; NaN counts as nonzero), one row
    /// each in row-major order, as `torch.nonzero(self)`: an `(n, rank)`
    /// tensor of `i64`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![2, 3]>::from_vec(vec![0, 5, 0, 7, 0, 0]);
    /// let nz = t.nonzero();
    /// assert_eq!(nz.dims(), &[2, 2]);
    /// assert_eq!(nz.to_vec(), vec![0, 1, 1, 0]);
    /// ```
    #[track_caller]
    pub fn nonzero(&self) -> Tensor<i64, (Dyn, Dyn), D> {
        self.try_nonzero().or_panic()
    }

    /// The coordinates of the nonzero elements of `self`, one row each in
    /// row-major order, as `torch.nonzero(self)`: the comparison runs on
    /// the device, the mask is read on the host (the result's length
    /// depends on it; PyTorch synchronises too) and the coordinates are
    /// uploaded.
    ///
    /// # Errors
    /// An allocation or driver error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f32, Shape![3]>::from_vec(vec![0., 2., 3.]);
    /// assert_eq!(t.try_nonzero().unwrap().to_vec(), vec![1, 2]);
    /// ```
    pub fn try_nonzero(&self) -> Result<Tensor<i64, (Dyn, Dyn), D>, D::Error> {
        let zero: Tensor<T, DynRank, D> = host::from_host(self, vec![T::default()], &[])?;
        let nz: Tensor<bool, DynRank, D> = pointwise::compare(NotEqual, self, &zero)?;
        let rank = self.rank();
        let mut coords = vec![0usize; rank];
        let mut rows = Vec::new();
        let mut n = 0;
        for x in host::to_host(&nz)? {
            if x {
                rows.extend(coords.iter().map(|&c| c as i64));
                n += 1;
            }
            for d in (0..rank).rev() {
                coords[d] += 1;
                if coords[d] < self.dims()[d] {
                    break;
                }
                coords[d] = 0;
            }
        }
        host::from_host(self, rows, &[n, rank])
    }
}

/// The one element of a 0-d `value` tensor (read on the host), or
/// PyTorch's error for another rank.
fn scalar_value<T: Element, D: Backend<T>>(
    value: &Tensor<T, impl Shape, D>,
) -> Result<T, D::Error> {
    if value.rank() != 0 {
        return Err(ShapeError::Invalid(format!(
            "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with {} dimension(s).",
            value.rank()
        ))
        .into());
    }
    Ok(host::to_host(value)?[0])
}
