//! `scatter_reduce`: each element of `src` is combined into the position of
//! `self` that `index` names along `dim`, with one of PyTorch's reductions
//! (`sum`, `prod`, `mean`, `amax`, `amin`), `self`'s own value taking part or
//! not (`include_self`). The shape rules are `scatter_add_`'s.
//!
//! Written once for every device from the backend's scatter primitives:
//! with `include_self = false` the written positions first get the
//! reduction's identity (or, for `amax` and `amin`, one of their own
//! contributions), then every contribution is combined in
//! ([`Backend::scatter_reduce`]); `mean` divides by the number of
//! contributions (plus one with `include_self`), counted by a
//! `scatter_add` of ones, rounding toward negative infinity for integers,
//! as PyTorch. Positions that nothing is scattered to keep `self`'s value.
//! Repeated indices combine in row-major order on the CPU and in an
//! unspecified order on CUDA (atomic operations), so float `sum`, `prod`
//! and `mean` results there may differ in the last bits.
//!
//! ```
//! use shaped::ops::index::ScatterReduce;
//! use shaped::{Shape, Tensor};
//! let t = Tensor::<f32, Shape![3]>::from_vec(vec![1., 2., 3.]);
//! let idx = Tensor::<i64, Shape![4]>::from_vec(vec![0, 0, 2, 2]);
//! let src = Tensor::<f32, Shape![4]>::from_vec(vec![5., 7., -1., 9.]);
//! let r = t.scatter_reduce(0, &idx, &src, ScatterReduce::Amax, false);
//! assert_eq!(r.to_vec(), vec![7., 2., 9.]);
//! ```

use crate::backend::Backend;
use crate::backend::op::table::{Add, DivFloor, Equal, Fill, Quot, Where};
use crate::element::Numeric;
use crate::shape::OrPanic;
use crate::shape::Shape;
use crate::tensor::host;
use crate::tensor::indexing;
use crate::tensor::pointwise;
use crate::{DynRank, Tensor};

use super::gather::scatter_checks;
use super::{IndexElement, ScatterReduce};

impl<T: Numeric, S: Shape, D: Backend<T>> Tensor<T, S, D> {
    /// Combines `src` into `self` at the positions `index` gives along `dim`
    /// with `reduce`, as `Tensor.scatter_reduce_(dim, index, src, reduce,
    /// include_self=include_self)`.
    ///
    /// # Errors
    /// As [`Tensor::try_scatter_`]; nothing is written then.
    ///
    /// ```
    /// use shaped::ops::index::ScatterReduce;
    /// use shaped::{Shape, Tensor};
    /// let mut t = Tensor::<i64, Shape![2]>::from_vec(vec![10, 20]);
    /// let idx = Tensor::<i64, Shape![3]>::from_vec(vec![1, 1, 1]);
    /// let src = Tensor::<i64, Shape![3]>::from_vec(vec![1, 2, 3]);
    /// t.try_scatter_reduce_(0, &idx, &src, ScatterReduce::Sum, true).unwrap();
    /// assert_eq!(t.to_vec(), vec![10, 26]);
    /// let bad = Tensor::<i64, Shape![1]>::from_vec(vec![2]);
    /// assert_eq!(t.try_scatter_reduce_(0, &bad, &src, ScatterReduce::Sum, true)
    ///     .unwrap_err().to_string(), "index 2 is out of bounds for dimension 0 with size 2");
    /// ```
    pub fn try_scatter_reduce_(
        &mut self,
        dim: isize,
        index: &Tensor<impl IndexElement<Int: Sized>, impl Shape, D>,
        src: &Tensor<T, impl Shape, D>,
        reduce: ScatterReduce,
        include_self: bool,
    ) -> Result<(), D::Error> {
        use ScatterReduce::*;
        let Some(wrapped) = scatter_checks(self.dims(), dim, index.dims(), Some(src.dims()))?
        else {
            return Ok(());
        };
        // Each pass checks every size and index before it writes, so the
        // first one to fail leaves `self` untouched.
        if !include_self {
            match reduce {
                Sum | Mean => self.try_scatter_value_(dim, index, T::zero())?,
                Prod => self.try_scatter_value_(dim, index, T::one())?,
                Amax | Amin => self.try_scatter_(dim, index, src)?,
            }
        }
        indexing::scatter_reduce(self, wrapped, index, src, reduce)?;
        if reduce == Mean {
            // The number of contributions to each element (plus one for
            // `self`'s own), 1 where there are none, divides the sums.
            let one: Tensor<T, DynRank, D> = host::from_host(self, vec![T::one()], &[])?;
            let mut counts: Tensor<T, S, D> = pointwise::unary(Fill(T::zero()), self)?;
            let ones = one.try_broadcast_to::<DynRank>(index.dims())?;
            indexing::scatter_reduce(&mut counts, wrapped, index, &ones, ScatterReduce::Sum)?;
            let zero = pointwise::unary(Fill(T::zero()), &one)?;
            let none: Tensor<bool, DynRank, D> = pointwise::compare(Equal, &counts, &zero)?;
            let extra = if include_self { one.share() } else { zero };
            let n: Tensor<T, DynRank, D> = pointwise::binary(Add, &counts, &extra)?;
            let n: Tensor<T, DynRank, D> = pointwise::select(Where, &none, &one, &n)?;
            // `n` has `self`'s sizes; dividing by 1 leaves an element as is.
            if T::IS_FLOAT {
                pointwise::binary_(Quot, self, &n)?;
            } else {
                pointwise::binary_(DivFloor, self, &n)?;
            }
        }
        Ok(())
    }

    /// Combines `src` into `self` with `reduce`, in place.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_scatter_reduce_`]'s error.
    ///
    /// ```
    /// use shaped::ops::index::ScatterReduce;
    /// use shaped::{Shape, Tensor};
    /// let mut t = Tensor::<f64, Shape![2]>::from_vec(vec![2., 3.]);
    /// let idx = Tensor::<i64, Shape![2]>::from_vec(vec![0, 0]);
    /// t.scatter_reduce_(0, &idx, &Tensor::<f64, Shape![2]>::from_vec(vec![4., 5.]), ScatterReduce::Prod, true);
    /// assert_eq!(t.to_vec(), vec![40., 3.]);
    /// ```
    #[track_caller]
    pub fn scatter_reduce_(
        &mut self,
        dim: isize,
        index: &Tensor<impl IndexElement<Int: Sized>, impl Shape, D>,
        src: &Tensor<T, impl Shape, D>,
        reduce: ScatterReduce,
        include_self: bool,
    ) {
        self.try_scatter_reduce_(dim, index, src, reduce, include_self)
            .or_panic()
    }

    /// A copy of `self` with `src` combined in, as `torch.scatter_reduce`.
    ///
    /// # Errors
    /// As [`Tensor::try_scatter_reduce_`].
    ///
    /// ```
    /// use shaped::ops::index::ScatterReduce;
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f32, Shape![2]>::from_vec(vec![1., 1.]);
    /// let idx = Tensor::<i64, Shape![2]>::from_vec(vec![1, 1]);
    /// let src = Tensor::<f32, Shape![2]>::from_vec(vec![2., 6.]);
    /// let r = t.try_scatter_reduce(0, &idx, &src, ScatterReduce::Mean, false).unwrap();
    /// assert_eq!((r.to_vec(), t.to_vec()), (vec![1., 4.], vec![1., 1.]));
    /// ```
    pub fn try_scatter_reduce(
        &self,
        dim: isize,
        index: &Tensor<impl IndexElement<Int: Sized>, impl Shape, D>,
        src: &Tensor<T, impl Shape, D>,
        reduce: ScatterReduce,
        include_self: bool,
    ) -> Result<Tensor<T, S, D>, D::Error> {
        self.try_on_copy(|out| out.try_scatter_reduce_(dim, index, src, reduce, include_self))
    }

    /// A copy of `self` with `src` combined in.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_scatter_reduce_`]'s error.
    ///
    /// ```
    /// use shaped::ops::index::ScatterReduce;
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![2]>::from_vec(vec![5, 5]);
    /// let idx = Tensor::<i64, Shape![2]>::from_vec(vec![0, 0]);
    /// let src = Tensor::<i32, Shape![2]>::from_vec(vec![7, 9]);
    /// assert_eq!(t.scatter_reduce(0, &idx, &src, ScatterReduce::Amin, true).to_vec(), vec![5, 5]);
    /// assert_eq!(t.scatter_reduce(0, &idx, &src, ScatterReduce::Amin, false).to_vec(), vec![7, 5]);
    /// ```
    #[track_caller]
    pub fn scatter_reduce(
        &self,
        dim: isize,
        index: &Tensor<impl IndexElement<Int: Sized>, impl Shape, D>,
        src: &Tensor<T, impl Shape, D>,
        reduce: ScatterReduce,
        include_self: bool,
    ) -> Tensor<T, S, D> {
        self.try_scatter_reduce(dim, index, src, reduce, include_self)
            .or_panic()
    }
}
