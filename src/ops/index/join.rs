//! Joining: `cat` lays tensors one after the other along an existing axis,
//! `stack` along a new one. No broadcasting (the broadcasting notes: `cat`
//! "no"): every size but the joined one must match.
//!
//! The axis is a const generic `K`, and the joined axis's size becomes `Dyn`
//! in the result type, since stable Rust cannot add two `Const` sizes; state
//! the size afterwards with [`Tensor::try_into_shape`], which checks it.
//! - [`Tensor::cat`] and [`Tensor::stack`] take a slice of tensors of one
//!   shape type (`Shape![_, 3]` for parts of different lengths, or
//!   [`DynRank`](crate::DynRank));
//! - [`Tensor::cat_with`] joins two tensors of different shape types, such
//!   as `Shape![2, 3]` and `Shape![4, 3]`; their other sizes must be equal
//!   ([`JoinShape`]: a `Dyn` takes the static size, checked at run time), and
//!   two different static sizes, a 1 against another size included, are a
//!   compile error.
//!
//! Unlike PyTorch, a 1-d empty tensor is not skipped when joined with
//! tensors of higher rank (a legacy special case): ranks must match.
//!
//! ```
//! use shaped::{Shape, Tensor};
//! let a = Tensor::<i32, Shape![2, 2]>::from_vec(vec![1, 2, 3, 4]);
//! let b = Tensor::<i32, Shape![1, 2]>::from_vec(vec![5, 6]);
//! let c: Tensor<i32, Shape![_, 2]> = a.cat_with::<0, _>(&b);
//! assert_eq!(c.dims(), &[3, 2]);
//! let fixed: Tensor<i32, Shape![3, 2]> = c.try_into_shape().unwrap();
//! assert_eq!(fixed.to_vec(), vec![1, 2, 3, 4, 5, 6]);
//! ```

use crate::Tensor;
use crate::backend::Backend;
use crate::device::Device;
use crate::element::Element;
use crate::shape::OrPanic;
use crate::shape::{
    CatAxis, DimVec, Dyn, DynRank, JoinShape, SetAxis, Shape, ShapeError, StackAxis, checked_numel,
};
use crate::tensor::indexing;
use crate::tensor::wrap_dim;

/// The shape of a join along axis `K`: `S` with a run-time size there.
type Joined<S, const K: usize> = <S as SetAxis<K, Dyn>>::Output;

/// The shape of `S` and `S2` joined along axis `K`.
type JoinedWith<S, S2, const K: usize> = <Joined<S, K> as JoinShape<Joined<S2, K>, K>>::Output;

/// The shape of a stack along a new axis `K`.
type Stacked<S, const K: usize> = <S as StackAxis<K>>::Output;

/// The shape of a `cat` along axis `K`.
type Catted<S, const K: usize> = <S as CatAxis<K>>::Output;

/// `cat`'s checks on the parts' sizes, in PyTorch's order: the wrapped
/// `dim` and the result's sizes.
fn cat_dims(parts: &[&[usize]], k: usize) -> Result<(usize, DimVec), ShapeError> {
    let first = parts.first().ok_or_else(|| {
        ShapeError::Invalid("torch.cat(): expected a non-empty list of Tensors".into())
    })?;
    if let Some(i) = parts.iter().position(|p| p.is_empty()) {
        return Err(ShapeError::Invalid(format!(
            "zero-dimensional tensor (at position {i}) cannot be concatenated"
        )));
    }
    let dim = wrap_dim(k as isize, first.len())?;
    let mut out = DimVec::from_slice(first);
    for (i, p) in parts.iter().enumerate().skip(1) {
        if p.len() != first.len() {
            return Err(ShapeError::Invalid(format!(
                "Tensors must have same number of dimensions: got {} and {}",
                first.len(),
                p.len()
            )));
        }
        if let Some(d) = (0..out.len()).find(|&d| d != dim && p[d] != out[d]) {
            return Err(ShapeError::Invalid(format!(
                "Sizes of tensors must match except in dimension {dim}. Expected size {} but got size {} for tensor number {i} in the list.",
                out[d], p[d]
            )));
        }
        out[dim] = out[dim]
            .checked_add(p[dim])
            .ok_or_else(|| ShapeError::TooLarge {
                shape: out.to_vec(),
            })?;
    }
    checked_numel(&out)?;
    Ok((dim, out))
}

/// A view of `t` of dynamic rank with sizes `dims` and strides `strides`.
fn dyn_view<T: Element, S: Shape, D: Device>(
    t: &Tensor<T, S, D>,
    dims: &[usize],
    strides: &[usize],
) -> Result<Tensor<T, DynRank, D>, ShapeError> {
    Ok(t.view_as(DynRank::check_dims(dims)?, strides, t.offset))
}

/// `cat` of `parts` along `k` on their device.
fn cat_on<T: Element, SO: Shape, D: Backend<T>>(
    parts: &[Tensor<T, DynRank, D>],
    k: usize,
) -> Result<Tensor<T, SO, D>, D::Error> {
    let dims: Vec<&[usize]> = parts.iter().map(|p| p.dims()).collect();
    let (dim, out) = cat_dims(&dims, k)?;
    indexing::cat(parts, dim, &out)
}

/// `stack`'s checks, then `cat` of the parts with a size-1 axis inserted
/// at `k` (a view: nothing is copied before the join).
fn stack_on<T: Element, S: Shape, SO: Shape, D: Backend<T>>(
    parts: &[&Tensor<T, S, D>],
    k: usize,
) -> Result<Tensor<T, SO, D>, D::Error> {
    let first = parts
        .first()
        .ok_or_else(|| ShapeError::Invalid("stack expects a non-empty TensorList".into()))?;
    for (i, p) in parts.iter().enumerate().skip(1) {
        if p.dims() != first.dims() {
            return Err(ShapeError::Invalid(format!(
                "stack expects each tensor to be equal size, but got {:?} at entry 0 and {:?} at entry {i}",
                first.dims(),
                p.dims()
            ))
            .into());
        }
    }
    let dim = wrap_dim(k as isize, first.rank() + 1)?;
    let views = parts
        .iter()
        .map(|p| {
            let (mut d, mut s) = (
                DimVec::from_slice(p.dims()),
                DimVec::from_slice(p.strides()),
            );
            d.insert(dim, 1);
            s.insert(dim, 0);
            dyn_view(p, &d, &s)
        })
        .collect::<Result<Vec<_>, _>>()?;
    cat_on(&views, dim)
}

impl<T: Element, S: Shape, D: Backend<T>> Tensor<T, S, D> {
    /// The tensors laid one after the other along axis `K`, as
    /// `torch.cat(tensors, K)`, into a new tensor whose size along `K` is
    /// `Dyn` (the sum of theirs).
    ///
    /// # Errors
    /// PyTorch's: an empty list (`torch.cat(): expected a non-empty list of
    /// Tensors`); a 0-d tensor; `K` out of range; `Sizes of tensors must
    /// match except in dimension 0. Expected size 3 but got size 4 for
    /// tensor number 1 in the list.`
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<f32, Shape![2, _]>::try_zeros(&[2, 1]).unwrap();
    /// let b = Tensor::<f32, Shape![2, _]>::try_full(&[2, 2], 1.).unwrap();
    /// let c = Tensor::try_cat::<1>(&[&a, &b]).unwrap();
    /// assert_eq!(c.to_vec(), vec![0., 1., 1., 0., 1., 1.]);
    /// let d = Tensor::<f32, Shape![3, _]>::try_zeros(&[3, 1]).unwrap().into_dyn();
    /// assert_eq!(Tensor::try_cat::<1>(&[&a.into_dyn(), &d]).err().unwrap().to_string(),
    ///     "Sizes of tensors must match except in dimension 1. Expected size 2 but got size 3 for tensor number 1 in the list.");
    /// ```
    pub fn try_cat<const K: usize>(
        tensors: &[&Tensor<T, S, D>],
    ) -> Result<Tensor<T, Catted<S, K>, D>, D::Error>
    where
        S: CatAxis<K>,
    {
        let views = tensors
            .iter()
            .map(|t| dyn_view(t, t.dims(), t.strides()))
            .collect::<Result<Vec<_>, _>>()?;
        cat_on(&views, K)
    }

    /// The tensors laid one after the other along axis `K`.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_cat`]'s error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<i64, Shape![2]>::from_vec(vec![1, 2]);
    /// let c: Tensor<i64, Shape![_]> = Tensor::cat::<0>(&[&a, &a, &a]);
    /// assert_eq!(c.to_vec(), vec![1, 2, 1, 2, 1, 2]);
    /// ```
    #[track_caller]
    pub fn cat<const K: usize>(tensors: &[&Tensor<T, S, D>]) -> Tensor<T, Catted<S, K>, D>
    where
        S: CatAxis<K>,
    {
        Self::try_cat::<K>(tensors).or_panic()
    }

    /// `self` then `other` along axis `K`, for two tensors of different
    /// shape types: `K` becomes `Dyn`, and the other sizes must be equal, as
    /// in `torch.cat` (no broadcasting): two different static sizes are a
    /// compile error, a `Dyn` takes the static size and is checked at run
    /// time.
    ///
    /// # Errors
    /// As [`Tensor::try_cat`]: ranks or sizes away from `K` differ at run
    /// time.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<i32, Shape![2, 1]>::from_vec(vec![1, 2]);
    /// let b = Tensor::<i32, Shape![2, 2]>::from_vec(vec![3, 4, 5, 6]);
    /// let c: Tensor<i32, Shape![2, _]> = a.try_cat_with::<1, _>(&b).unwrap();
    /// assert_eq!(c.to_vec(), vec![1, 3, 4, 2, 5, 6]);
    /// let d = Tensor::<i32, Shape![_, _]>::try_zeros(&[1, 3]).unwrap();
    /// assert!(b.try_cat_with::<0, _>(&d).is_err()); // 2 and 3, checked at run time
    /// ```
    ///
    /// Sizes away from `K` do not broadcast:
    ///
    /// ```compile_fail
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<i32, Shape![2, 1]>::zeros();
    /// let b = Tensor::<i32, Shape![5, 4]>::zeros();
    /// let _ = a.try_cat_with::<0, _>(&b); // 1 and 4 differ
    /// ```
    #[allow(clippy::type_complexity)]
    pub fn try_cat_with<const K: usize, S2>(
        &self,
        other: &Tensor<T, S2, D>,
    ) -> Result<Tensor<T, JoinedWith<S, S2, K>, D>, D::Error>
    where
        S: SetAxis<K, Dyn>,
        S2: SetAxis<K, Dyn>,
        Joined<S, K>: JoinShape<Joined<S2, K>, K>,
    {
        let views = [
            dyn_view(self, self.dims(), self.strides())?,
            dyn_view(other, other.dims(), other.strides())?,
        ];
        cat_on(&views, K)
    }

    /// `self` then `other` along axis `K`, for two tensors of different
    /// shape types.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_cat_with`]'s error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<f32, Shape![3]>::ones();
    /// let b = Tensor::<f32, Shape![2]>::zeros();
    /// assert_eq!(a.cat_with::<0, _>(&b).to_vec(), vec![1., 1., 1., 0., 0.]);
    /// ```
    #[track_caller]
    #[allow(clippy::type_complexity)]
    pub fn cat_with<const K: usize, S2>(
        &self,
        other: &Tensor<T, S2, D>,
    ) -> Tensor<T, JoinedWith<S, S2, K>, D>
    where
        S: SetAxis<K, Dyn>,
        S2: SetAxis<K, Dyn>,
        Joined<S, K>: JoinShape<Joined<S2, K>, K>,
    {
        self.try_cat_with::<K, S2>(other).or_panic()
    }

    /// The tensors, all of one size, stacked along a new axis `K`, as
    /// `torch.stack(tensors, K)`; the new axis's size (their number) is
    /// `Dyn`.
    ///
    /// # Errors
    /// PyTorch's: `stack expects a non-empty TensorList`; `stack expects
    /// each tensor to be equal size, but got [2] at entry 0 and [3] at entry
    /// 1`; for dynamic rank, `K` greater than the rank.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<i32, Shape![2]>::from_vec(vec![1, 2]);
    /// let b = Tensor::<i32, Shape![2]>::from_vec(vec![3, 4]);
    /// let s: Tensor<i32, Shape![2, _]> = Tensor::try_stack::<1>(&[&a, &b]).unwrap();
    /// assert_eq!(s.to_vec(), vec![1, 3, 2, 4]);
    /// ```
    #[allow(clippy::type_complexity)]
    pub fn try_stack<const K: usize>(
        tensors: &[&Tensor<T, S, D>],
    ) -> Result<Tensor<T, Stacked<S, K>, D>, D::Error>
    where
        S: StackAxis<K>,
    {
        stack_on(tensors, K)
    }

    /// The tensors stacked along a new axis `K`.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_stack`]'s error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<f32, Shape![2]>::ones();
    /// let s: Tensor<f32, Shape![_, 2]> = Tensor::stack::<0>(&[&a, &a, &a]);
    /// assert_eq!(s.dims(), &[3, 2]);
    /// ```
    #[track_caller]
    #[allow(clippy::type_complexity)]
    pub fn stack<const K: usize>(tensors: &[&Tensor<T, S, D>]) -> Tensor<T, Stacked<S, K>, D>
    where
        S: StackAxis<K>,
    {
        Self::try_stack::<K>(tensors).or_panic()
    }
}
