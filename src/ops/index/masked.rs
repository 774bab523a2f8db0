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
//! `masked_select` and `nonzero` produce data-dependent sizes and are not
//! hot loops; they are written in safe code over `to_vec`.
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
use crate::element::Element;
use crate::shape::{
    Broadcast, BroadcastShape, Dyn, DynRank, ExpandsTo, Shape, ShapeError, broadcast_pair,
    checked_numel,
};

impl<T: Element, S: Shape> Tensor<T, S> {
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
        mask: &Tensor<bool, SM>,
        value: T,
    ) -> Result<(), ShapeError>
    where
        SM: ExpandsTo<S>,
    {
        self.try_zip_map_(mask, move |x, m| if m { value } else { x })
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
    pub fn masked_fill_<SM>(&mut self, mask: &Tensor<bool, SM>, value: T)
    where
        SM: ExpandsTo<S>,
    {
        self.try_masked_fill_(mask, value)
            .unwrap_or_else(|e| panic!("{e}"))
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
        mask: &Tensor<bool, SM>,
        value: T,
    ) -> Result<Tensor<T, Broadcast<S, SM>>, ShapeError>
    where
        S: BroadcastShape<SM>,
    {
        broadcast_pair(mask.dims(), self.dims())?;
        self.try_zip_map(mask, move |x, m| if m { value } else { x })
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
        mask: &Tensor<bool, SM>,
        value: T,
    ) -> Tensor<T, Broadcast<S, SM>>
    where
        S: BroadcastShape<SM>,
    {
        self.try_masked_fill(mask, value)
            .unwrap_or_else(|e| panic!("{e}"))
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
        mask: &Tensor<bool, SM>,
    ) -> Result<Tensor<T, (Dyn,)>, ShapeError>
    where
        S: BroadcastShape<SM>,
    {
        let dims = broadcast_pair(mask.dims(), self.dims())?;
        checked_numel(&dims)?;
        let values = self.try_broadcast_to::<DynRank>(&dims)?.to_vec();
        let keep = mask.try_broadcast_to::<DynRank>(&dims)?.to_vec();
        let picked: Vec<T> = values
            .into_iter()
            .zip(keep)
            .filter_map(|(v, m)| m.then_some(v))
            .collect();
        let n = picked.len();
        Tensor::try_from_vec(picked, &[n])
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
    pub fn masked_select<SM: Shape>(&self, mask: &Tensor<bool, SM>) -> Tensor<T, (Dyn,)>
    where
        S: BroadcastShape<SM>,
    {
        self.try_masked_select(mask)
            .unwrap_or_else(|e| panic!("{e}"))
    }

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
    pub fn nonzero(&self) -> Tensor<i64, (Dyn, Dyn)> {
        let rank = self.rank();
        let mut coords = vec![0usize; rank];
        let mut rows = Vec::new();
        let mut n = 0;
        for x in self.to_vec() {
            if x != T::default() {
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
        Tensor::try_from_vec(rows, &[n, rank]).expect("n rows of rank coordinates fit (Dyn, Dyn)")
    }
}
