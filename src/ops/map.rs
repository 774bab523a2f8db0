//! Elementwise maps with a user function (PyTorch's `map_` / `map2_`): one,
//! two or three tensors broadcast together, out of place or in place. A user
//! closure runs on the CPU only (a GPU cannot run Rust code), so these are
//! methods of CPU tensors; the built-in operations are op-table entries
//! that every device runs (`table.rs`). `fill_` and `copy_from` are
//! table entries too, on every device.
//!
//! ```
//! use shaped::{Shape, Tensor};
//! let a = Tensor::<f32, Shape![2, 1]>::from_vec(vec![1., 2.]);
//! let b = Tensor::<f32, Shape![3]>::from_vec(vec![10., 20., 30.]);
//! let c: Tensor<f32, Shape![2, 3]> = a.zip_map(&b, |x, y| x * y);
//! assert_eq!(c.to_vec(), vec![10., 20., 30., 20., 40., 60.]);
//! ```

use crate::Tensor;
use crate::backend::Backend;
use crate::backend::cpu::Narrow;
use crate::backend::cpu::storage::record_guards;
use crate::backend::op::table;
use crate::element::Element;
use crate::ops::exec;
use crate::shape::OrPanic;
use crate::shape::{
    Broadcast, Broadcast3, BroadcastShape, ExpandsTo, Shape, ShapeError, check_inplace,
};
use crate::tensor::pointwise;

impl<T: Element, S: Shape> Tensor<T, S> {
    /// `f` applied to every element, into a new tensor of the same shape.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![3]>::from_vec(vec![1, 2, 3]);
    /// assert_eq!(t.map(|x| x * 10).to_vec(), vec![10, 20, 30]);
    /// ```
    ///
    /// # Panics
    /// When the result cannot be allocated; see [`Tensor::try_map`].
    #[track_caller]
    pub fn map<O: Element>(&self, f: impl Fn(T) -> O + Sync) -> Tensor<O, S> {
        self.try_map(f).or_panic()
    }

    /// The fallible form of [`Tensor::map`].
    ///
    /// # Errors
    /// When the result cannot be allocated (PyTorch's allocator message).
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![2]>::from_vec(vec![1, 2]);
    /// assert_eq!(t.try_map(|x| x + 1).unwrap().to_vec(), vec![2, 3]);
    /// ```
    pub fn try_map<O: Element>(
        &self,
        f: impl Fn(T) -> O + Sync,
    ) -> Result<Tensor<O, S>, ShapeError> {
        let _record = record_guards();
        Tensor::from_fresh(exec::map1(self.layout(), Narrow, f)?)
    }

    /// `f` applied to `self` and `other` broadcast together.
    ///
    /// # Errors
    /// PyTorch's broadcast error when a run-time size does not match.
    ///
    /// ```
    /// use shaped::{DynRank, Tensor};
    /// let a = Tensor::<f32, DynRank>::try_zeros(&[2, 3]).unwrap();
    /// let b = Tensor::<f32, DynRank>::try_zeros(&[4]).unwrap();
    /// assert_eq!(a.try_zip_map(&b, |x, y| x + y).unwrap_err().to_string(),
    ///     "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1");
    /// ```
    pub fn try_zip_map<U: Element, O: Element, S2: Shape>(
        &self,
        other: &Tensor<U, S2>,
        f: impl Fn(T, U) -> O + Sync,
    ) -> Result<Tensor<O, Broadcast<S, S2>>, ShapeError>
    where
        S: BroadcastShape<S2>,
    {
        let _record = record_guards();
        Tensor::from_fresh(exec::map2(self.layout(), other.layout(), Narrow, f)?)
    }

    /// `f` applied to `self` and `other` broadcast together.
    ///
    /// # Panics
    /// With PyTorch's message, when a run-time size does not match (static
    /// sizes are checked by the compiler); see [`Tensor::try_zip_map`].
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<f32, Shape![2]>::from_vec(vec![1., 2.]);
    /// let gt: Tensor<bool, Shape![2, 2]> =
    ///     a.unsqueeze::<1>().zip_map(&a, |x, y| x > y);
    /// assert_eq!(gt.to_vec(), vec![false, false, true, false]);
    /// ```
    #[track_caller]
    pub fn zip_map<U: Element, O: Element, S2: Shape>(
        &self,
        other: &Tensor<U, S2>,
        f: impl Fn(T, U) -> O + Sync,
    ) -> Tensor<O, Broadcast<S, S2>>
    where
        S: BroadcastShape<S2>,
    {
        self.try_zip_map(other, f).or_panic()
    }

    /// `f` applied to `self` and `other` broadcast together, written into
    /// `out` (PyTorch's `out=` argument; `out` is not resized, so its sizes
    /// must be the broadcast sizes).
    ///
    /// # Errors
    /// PyTorch's broadcast error, or when `out`'s sizes differ from the
    /// broadcast sizes, or elements of `out` share memory.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<f32, Shape![2, 1]>::from_vec(vec![1., 2.]);
    /// let b = Tensor::<f32, Shape![2]>::from_vec(vec![10., 20.]);
    /// let mut out = Tensor::<f32, Shape![2, 2]>::zeros();
    /// a.try_zip_map_into(&b, &mut out, |x, y| x + y).unwrap();
    /// assert_eq!(out.to_vec(), vec![11., 21., 12., 22.]);
    /// ```
    pub fn try_zip_map_into<U: Element, O: Element, S2: Shape>(
        &self,
        other: &Tensor<U, S2>,
        out: &mut Tensor<O, Broadcast<S, S2>>,
        f: impl Fn(T, U) -> O + Sync,
    ) -> Result<(), ShapeError>
    where
        S: BroadcastShape<S2>,
    {
        let _record = record_guards();
        exec::map2_into(self.layout(), other.layout(), out.layout(), Narrow, f)
    }

    /// `f` applied to `self`, `b` and `c`, all three broadcast together (seed
    /// 000: as if the operation were broken into two-operand steps).
    ///
    /// # Errors
    /// PyTorch's broadcast error when a run-time size does not match.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<f32, Shape![3, 1]>::ones();
    /// let b = Tensor::<f32, Shape![4]>::ones();
    /// let c = Tensor::<f32, Shape![2, 1, 1]>::ones();
    /// let r = a.try_zip_map3(&b, &c, |x, y, z| x + y + z).unwrap();
    /// assert_eq!(r.dims(), &[2, 3, 4]);
    /// ```
    pub fn try_zip_map3<U: Element, V: Element, O: Element, S2: Shape, S3: Shape>(
        &self,
        b: &Tensor<U, S2>,
        c: &Tensor<V, S3>,
        f: impl Fn(T, U, V) -> O + Sync,
    ) -> Result<Tensor<O, <S as Broadcast3<S2, S3>>::Output>, ShapeError>
    where
        S: Broadcast3<S2, S3>,
    {
        let _record = record_guards();
        Tensor::from_fresh(exec::map3(
            self.layout(),
            b.layout(),
            c.layout(),
            Narrow,
            f,
        )?)
    }

    /// `f` applied to every element in place.
    ///
    /// # Errors
    /// When elements of `self` share memory (an expanded view), as PyTorch.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let mut t = Tensor::<i32, Shape![3]>::from_vec(vec![1, 2, 3]);
    /// t.try_map_(|x| -x).unwrap();
    /// assert_eq!(t.to_vec(), vec![-1, -2, -3]);
    /// ```
    pub fn try_map_(&mut self, f: impl Fn(T) -> T + Sync) -> Result<(), ShapeError> {
        let _record = record_guards();
        exec::update1(self.layout(), Narrow, f)
    }

    /// `self = f(self, other)` in place, `other` broadcast to `self`'s shape,
    /// which never changes (PyTorch's in-place rule).
    ///
    /// # Errors
    /// As current PyTorch (checked by the compiler for static sizes): the
    /// broadcast error when `self` and `other` do not broadcast, "output with
    /// shape .. doesn't match the broadcast shape .." when they broadcast to
    /// another shape than `self`'s; or when elements of `self` share memory.
    ///
    /// ```
    /// use shaped::{DynRank, Tensor};
    /// let mut x = Tensor::<f32, DynRank>::try_zeros(&[1, 4]).unwrap();
    /// let y = Tensor::<f32, DynRank>::try_zeros(&[3, 4]).unwrap();
    /// assert_eq!(x.try_zip_map_(&y, |a, b| a + b).unwrap_err().to_string(),
    ///     "output with shape [1, 4] doesn't match the broadcast shape [3, 4]");
    /// ```
    pub fn try_zip_map_<U: Element, S2>(
        &mut self,
        other: &Tensor<U, S2>,
        f: impl Fn(T, U) -> T + Sync,
    ) -> Result<(), ShapeError>
    where
        S2: ExpandsTo<S>,
        S2::Expanded: Shape,
    {
        check_inplace(self.dims(), &[other.dims()])?;
        let _record = record_guards();
        exec::update2(self.layout(), other.layout(), Narrow, f)
    }

    /// `self = f(self, b, c)` in place, `b` and `c` broadcast to `self`'s
    /// shape.
    ///
    /// # Errors
    /// As [`Tensor::try_zip_map_`].
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let mut x = Tensor::<f32, Shape![2, 2]>::ones();
    /// let b = Tensor::<f32, Shape![2]>::from_vec(vec![1., 2.]);
    /// let c = Tensor::<f32, Shape![2, 1]>::from_vec(vec![10., 20.]);
    /// x.try_zip_map3_(&b, &c, |x, b, c| x + b * c).unwrap();
    /// assert_eq!(x.to_vec(), vec![11., 21., 21., 41.]);
    /// ```
    pub fn try_zip_map3_<U: Element, V: Element, S2, S3>(
        &mut self,
        b: &Tensor<U, S2>,
        c: &Tensor<V, S3>,
        f: impl Fn(T, U, V) -> T + Sync,
    ) -> Result<(), ShapeError>
    where
        S2: ExpandsTo<S>,
        S2::Expanded: Shape,
        S3: ExpandsTo<S>,
        S3::Expanded: Shape,
    {
        check_inplace(self.dims(), &[b.dims(), c.dims()])?;
        let _record = record_guards();
        exec::update3(self.layout(), b.layout(), c.layout(), Narrow, f)
    }
}

/// Writing into a tensor on any device (op-table entries, not closures).
impl<T: Element, S: Shape, D: Backend<T>> Tensor<T, S, D> {
    /// Sets every element to `value`, as PyTorch's `fill_`.
    ///
    /// # Panics
    /// When elements of `self` share memory (an expanded view).
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let mut t = Tensor::<u8, Shape![2]>::zeros();
    /// t.fill_(7);
    /// assert_eq!(t.to_vec(), vec![7, 7]);
    /// ```
    #[track_caller]
    pub fn fill_(&mut self, value: T) {
        pointwise::unary_(table::Fill(value), self).or_panic()
    }

    /// Copies `src`, broadcast to `self`'s shape, into `self`, as PyTorch's
    /// `copy_`.
    ///
    /// # Errors
    /// As [`Tensor::try_zip_map_`].
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let mut t = Tensor::<f32, Shape![2, 3]>::zeros();
    /// t.try_copy_from(&Tensor::<f32, Shape![3]>::from_vec(vec![1., 2., 3.])).unwrap();
    /// assert_eq!(t.to_vec(), vec![1., 2., 3., 1., 2., 3.]);
    /// ```
    pub fn try_copy_from<S2>(&mut self, src: &Tensor<T, S2, D>) -> Result<(), D::Error>
    where
        S2: ExpandsTo<S>,
        S2::Expanded: Shape,
    {
        pointwise::binary_(table::CopyFrom, self, src)
    }

    /// Copies `src`, broadcast to `self`'s shape, into `self`.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_copy_from`]'s error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let mut t = Tensor::<i64, Shape![2, 2]>::zeros();
    /// t.copy_from(&Tensor::<i64, Shape![2, 1]>::from_vec(vec![1, 2]));
    /// assert_eq!(t.to_vec(), vec![1, 1, 2, 2]);
    /// ```
    #[track_caller]
    pub fn copy_from<S2>(&mut self, src: &Tensor<T, S2, D>)
    where
        S2: ExpandsTo<S>,
        S2::Expanded: Shape,
    {
        self.try_copy_from(src).or_panic()
    }
}
