//! `gather`, the scatter family and `take_along_dim`: an index tensor picks,
//! for each of its elements, a position along `dim`.
//!
//! Shape rules, as current PyTorch (no broadcasting of the index: the wiki
//! left it open and PyTorch settled on none):
//! - `gather(dim, index)`: `index.dim() == self.dim()`, and
//!   `index.size(d) <= self.size(d)` for `d != dim`; the result has the
//!   index's shape (and type).
//! - `scatter_(dim, index, src)`, `scatter_add_`: `index.dim() == self.dim()
//!   == src.dim()`, `index.size(d) <= self.size(d)` for `d != dim` and
//!   `index.size(d) <= src.size(d)` for every `d`; an empty index writes
//!   nothing and is not checked. `self` keeps its shape.
//! - `take_along_dim::<K>(indices)`: equal ranks; `self` and `indices`
//!   broadcast against each other everywhere but along `K`, then gather.
//!
//! A 0-d tensor counts as 1-d of size 1, as PyTorch's `ensure_nonempty_dim`.
//! Repeated indices: `scatter_add_` adds every contribution; `scatter_`
//! keeps the last one in row-major order (PyTorch leaves it unspecified).
//!
//! ```
//! use shaped::{Shape, Tensor};
//! let t = Tensor::<f32, Shape![2, 3]>::from_vec(vec![1., 2., 3., 4., 5., 6.]);
//! let idx = Tensor::<i64, Shape![2, 1]>::from_vec(vec![2, 0]);
//! let g: Tensor<f32, Shape![2, 1]> = t.gather(1, &idx);
//! assert_eq!(g.to_vec(), vec![3., 4.]);
//! // The backward of gather: scatter_add into zeros of self's shape.
//! let mut grad = Tensor::<f32, Shape![2, 3]>::zeros();
//! grad.scatter_add_(1, &idx, &Tensor::<f32, Shape![2, 1]>::ones());
//! assert_eq!(grad.to_vec(), vec![0., 0., 1., 1., 0., 0.]);
//! ```

use crate::Tensor;
use crate::backend::Backend;
use crate::element::{Element, Numeric};
use crate::iter::{broadcast_strides, contiguous_strides};
use crate::shape::OrPanic;
use crate::shape::{
    Broadcast, BroadcastShape, Dyn, DynRank, One, SetAxis, Shape, ShapeError, broadcast_pair,
};
use crate::tensor::host;
use crate::tensor::indexing;
use crate::tensor::wrap_dim;

use super::{IndexElement, ScatterReduce};

/// `gather`'s shape checks (0-d tensors count as 1-d): the wrapped `dim`.
fn gather_checks(src: &[usize], dim: isize, index: &[usize]) -> Result<usize, ShapeError> {
    let one = |d: &[usize]| if d.is_empty() { vec![1] } else { d.to_vec() };
    let (s, ix) = (one(src), one(index));
    let dim = wrap_dim(dim, src.len())?;
    if s.len() != ix.len() {
        return Err(ShapeError::Invalid(
            "Index tensor must have the same number of dimensions as input tensor".into(),
        ));
    }
    for d in (0..s.len()).filter(|&d| d != dim) {
        if ix[d] > s[d] {
            return Err(ShapeError::Invalid(format!(
                "Size does not match at dimension {d} expected index {index:?} to be no larger than self {src:?} apart from dimension {dim}"
            )));
        }
    }
    Ok(dim)
}

/// PyTorch's `scatter_shape_check`: `Ok(None)` when the index is empty
/// (nothing to write, nothing checked), else the wrapped `dim`.
pub(super) fn scatter_checks(
    self_dims: &[usize],
    dim: isize,
    index_dims: &[usize],
    src_dims: Option<&[usize]>,
) -> Result<Option<usize>, ShapeError> {
    let dim = wrap_dim(dim, self_dims.len())?;
    if index_dims.contains(&0) {
        return Ok(None);
    }
    let nonempty = |d: &[usize]| if d.is_empty() { vec![1] } else { d.to_vec() };
    let (s, ix) = (nonempty(self_dims), nonempty(index_dims));
    if s.len() != ix.len() {
        return Err(ShapeError::Invalid(
            "Index tensor must have the same number of dimensions as self tensor".into(),
        ));
    }
    let mut wrong = (0..s.len()).any(|d| d != dim && ix[d] > s[d]);
    if let Some(src) = src_dims {
        let sr = nonempty(src);
        if !wrong && sr.len() == ix.len() {
            wrong = (0..ix.len()).any(|d| ix[d] > sr[d]);
        }
        if sr.len() != ix.len() {
            return Err(ShapeError::Invalid(
                "Index tensor must have the same number of dimensions as src tensor".into(),
            ));
        }
        if wrong {
            return Err(ShapeError::Invalid(format!(
                "Expected index {index_dims:?} to be no larger than self {self_dims:?} apart from dimension {dim} and to be no larger size than src {src:?}"
            )));
        }
    } else if wrong {
        return Err(ShapeError::Invalid(format!(
            "Expected index {index_dims:?} to be no larger than self {self_dims:?} apart from dimension {dim}"
        )));
    }
    Ok(Some(dim))
}

impl<T: Element, S: Shape, D: Backend<T>> Tensor<T, S, D> {
    /// The elements of `self` picked along `dim` by `index`, as
    /// `torch.gather(self, dim, index)`: `out[i][j][k] = self[index[i][j][k]][j][k]`
    /// for `dim = 0`, and so on. The result has the index's shape.
    ///
    /// # Errors
    /// PyTorch's: `dim` out of range; `Index tensor must have the same number
    /// of dimensions as input tensor`; `Size does not match at dimension 1
    /// expected index [2, 4] to be no larger than self [2, 3] apart from
    /// dimension 0`; `index 3 is out of bounds for dimension 1 with size 3`
    /// (negative values are out of range too).
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![2, 3]>::from_vec(vec![1, 2, 3, 4, 5, 6]);
    /// let idx = Tensor::<i64, Shape![1, 3]>::from_vec(vec![1, 0, 1]);
    /// assert_eq!(t.try_gather(0, &idx).unwrap().to_vec(), vec![4, 2, 6]);
    /// let bad = Tensor::<i64, Shape![1, 1]>::from_vec(vec![3]);
    /// assert_eq!(t.try_gather(1, &bad).err().unwrap().to_string(),
    ///     "index 3 is out of bounds for dimension 1 with size 3");
    /// ```
    pub fn try_gather<SI: Shape>(
        &self,
        dim: isize,
        index: &Tensor<impl IndexElement<Int: Sized>, SI, D>,
    ) -> Result<Tensor<T, SI, D>, D::Error> {
        let dim = gather_checks(self.dims(), dim, index.dims())?;
        indexing::gather(self, dim, index)
    }

    /// The elements of `self` picked along `dim` by `index`.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_gather`]'s error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f64, Shape![3]>::from_vec(vec![10., 20., 30.]);
    /// let idx = Tensor::<i32, Shape![4]>::from_vec(vec![2, 2, 0, 1]);
    /// assert_eq!(t.gather(-1, &idx).to_vec(), vec![30., 30., 10., 20.]);
    /// ```
    #[track_caller]
    pub fn gather<SI: Shape>(
        &self,
        dim: isize,
        index: &Tensor<impl IndexElement<Int: Sized>, SI, D>,
    ) -> Tensor<T, SI, D> {
        self.try_gather(dim, index).or_panic()
    }

    /// Writes `src[i][j][k]` into `self[index[i][j][k]][j][k]` (for `dim =
    /// 0`, and so on), as `Tensor.scatter_(dim, index, src)`. With repeated
    /// indices the last write (in row-major order of the index) wins on the
    /// CPU; on CUDA one of them, unspecified (as PyTorch).
    ///
    /// # Errors
    /// PyTorch's: `dim` out of range; the index's rank differs from `self`'s
    /// or `src`'s; `Expected index [3, 2] to be no larger than self [2, 2]
    /// apart from dimension 1 and to be no larger size than src [3, 2]`; an
    /// index value outside `0..self.size(dim)`. Nothing is written then.
    /// Also when elements of `self` share memory.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let mut t = Tensor::<i32, Shape![2, 3]>::zeros();
    /// let idx = Tensor::<i64, Shape![1, 2]>::from_vec(vec![2, 0]);
    /// let src = Tensor::<i32, Shape![2, 2]>::from_vec(vec![7, 8, 9, 9]);
    /// t.try_scatter_(1, &idx, &src).unwrap();
    /// assert_eq!(t.to_vec(), vec![8, 0, 7, 0, 0, 0]);
    /// ```
    pub fn try_scatter_(
        &mut self,
        dim: isize,
        index: &Tensor<impl IndexElement<Int: Sized>, impl Shape, D>,
        src: &Tensor<T, impl Shape, D>,
    ) -> Result<(), D::Error> {
        match scatter_checks(self.dims(), dim, index.dims(), Some(src.dims()))? {
            Some(dim) => indexing::scatter(self, dim, index, src),
            None => Ok(()),
        }
    }

    /// Writes `src` into `self` at the positions `index` gives along `dim`.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_scatter_`]'s error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let mut t = Tensor::<f32, Shape![4]>::zeros();
    /// t.scatter_(0, &Tensor::<i64, Shape![2]>::from_vec(vec![3, 1]),
    ///     &Tensor::<f32, Shape![2]>::from_vec(vec![1., 2.]));
    /// assert_eq!(t.to_vec(), vec![0., 2., 0., 1.]);
    /// ```
    #[track_caller]
    pub fn scatter_(
        &mut self,
        dim: isize,
        index: &Tensor<impl IndexElement, impl Shape, D>,
        src: &Tensor<T, impl Shape, D>,
    ) {
        self.try_scatter_(dim, index, src).or_panic()
    }

    /// A copy of `self` with `src` scattered into it, as
    /// `torch.scatter(self, dim, index, src)`.
    ///
    /// # Errors
    /// As [`Tensor::try_scatter_`].
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![3]>::zeros();
    /// let idx = Tensor::<i64, Shape![1]>::from_vec(vec![1]);
    /// let r = t.try_scatter(0, &idx, &Tensor::<i32, Shape![1]>::from_vec(vec![5])).unwrap();
    /// assert_eq!((r.to_vec(), t.to_vec()), (vec![0, 5, 0], vec![0, 0, 0]));
    /// ```
    pub fn try_scatter(
        &self,
        dim: isize,
        index: &Tensor<impl IndexElement, impl Shape, D>,
        src: &Tensor<T, impl Shape, D>,
    ) -> Result<Tensor<T, S, D>, D::Error> {
        self.try_on_copy(|out| out.try_scatter_(dim, index, src))
    }

    /// A copy of `self` with `src` scattered into it.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_scatter_`]'s error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![2]>::zeros();
    /// let r = t.scatter(0, &Tensor::<i32, Shape![1]>::from_vec(vec![0]),
    ///     &Tensor::<i32, Shape![1]>::from_vec(vec![4]));
    /// assert_eq!(r.to_vec(), vec![4, 0]);
    /// ```
    #[track_caller]
    pub fn scatter(
        &self,
        dim: isize,
        index: &Tensor<impl IndexElement, impl Shape, D>,
        src: &Tensor<T, impl Shape, D>,
    ) -> Tensor<T, S, D> {
        self.try_scatter(dim, index, src).or_panic()
    }
}

impl<T: Element, S: Shape, D: Backend<T>> Tensor<T, S, D> {
    /// Writes `value` at the positions `index` gives along `dim`, as
    /// `Tensor.scatter_(dim, index, value)`: the value, uploaded once, is
    /// seen expanded (stride 0) to the index's sizes and scattered.
    ///
    /// # Errors
    /// As [`Tensor::try_scatter_`], without the checks against `src`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let mut t = Tensor::<f32, Shape![2, 2]>::zeros();
    /// let idx = Tensor::<i64, Shape![2, 1]>::from_vec(vec![1, 0]);
    /// t.try_scatter_value_(1, &idx, 9.).unwrap();
    /// assert_eq!(t.to_vec(), vec![0., 9., 9., 0.]);
    /// ```
    pub fn try_scatter_value_(
        &mut self,
        dim: isize,
        index: &Tensor<impl IndexElement<Int: Sized>, impl Shape, D>,
        value: T,
    ) -> Result<(), D::Error> {
        let Some(dim) = scatter_checks(self.dims(), dim, index.dims(), None)? else {
            return Ok(());
        };
        let one: Tensor<T, DynRank, D> = host::from_host(self, vec![value], &[])?;
        let src = one.try_broadcast_to::<DynRank>(index.dims())?;
        indexing::scatter(self, dim, index, &src)
    }

    /// A copy of `self` with `value` written at the positions `index` gives
    /// along `dim`, as `torch.scatter(self, dim, index, value)` with a number.
    ///
    /// # Errors
    /// As [`Tensor::try_scatter_value_`].
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f32, Shape![3]>::from_vec(vec![1., 2., 3.]);
    /// let idx = Tensor::<i64, Shape![1]>::from_vec(vec![2]);
    /// let r = t.try_scatter_value(0, &idx, 9.).unwrap();
    /// assert_eq!((r.to_vec(), t.to_vec()), (vec![1., 2., 9.], vec![1., 2., 3.]));
    /// ```
    pub fn try_scatter_value(
        &self,
        dim: isize,
        index: &Tensor<impl IndexElement<Int: Sized>, impl Shape, D>,
        value: T,
    ) -> Result<Tensor<T, S, D>, D::Error> {
        self.try_on_copy(|out| out.try_scatter_value_(dim, index, value))
    }

    /// A copy of `self` with `value` written at the positions `index` gives.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_scatter_value_`]'s error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![2, 2]>::zeros();
    /// let idx = Tensor::<i64, Shape![2, 1]>::from_vec(vec![1, 0]);
    /// assert_eq!(t.scatter_value(1, &idx, 5).to_vec(), vec![0, 5, 5, 0]);
    /// ```
    #[track_caller]
    pub fn scatter_value(
        &self,
        dim: isize,
        index: &Tensor<impl IndexElement<Int: Sized>, impl Shape, D>,
        value: T,
    ) -> Tensor<T, S, D> {
        self.try_scatter_value(dim, index, value).or_panic()
    }
}

impl<T: Element, S: Shape, D: Backend<T>> Tensor<T, S, D> {
    /// The elements of `self` flattened (row-major), picked by `indices`
    /// flattened, as `torch.take_along_dim(self, indices)` without a dim.
    ///
    /// # Errors
    /// An index outside `0..self.numel()`, with PyTorch's message.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f32, Shape![2, 3]>::from_vec(vec![0., 1., 2., 3., 4., 5.]);
    /// let idx = Tensor::<i64, Shape![3]>::from_vec(vec![5, 0, 2]);
    /// assert_eq!(t.try_take_along_dim_flat(&idx).unwrap().to_vec(), vec![5., 0., 2.]);
    /// let bad = Tensor::<i64, Shape![1]>::from_vec(vec![6]);
    /// assert_eq!(t.try_take_along_dim_flat(&bad).unwrap_err().to_string(),
    ///     "index 6 is out of bounds for dimension 0 with size 6");
    /// ```
    pub fn try_take_along_dim_flat<I: IndexElement>(
        &self,
        indices: &Tensor<I, impl Shape, D>,
    ) -> Result<Tensor<T, (Dyn,), D>, D::Error>
    where
        I::Int: Sized,
        D: Backend<I>,
    {
        // As PyTorch: `self.reshape(-1).gather(0, indices.reshape(-1))`.
        let flat: Tensor<T, DynRank, D> = self.try_reshape(&[-1])?;
        let idx: Tensor<I, DynRank, D> = indices.try_reshape(&[-1])?;
        let n = idx.numel();
        gather_checks(flat.dims(), 0, idx.dims())?;
        let out: Tensor<T, DynRank, D> = indexing::gather(&flat, 0, &idx)?;
        out.try_reshape(&[n as isize])
    }

    /// The elements of `self` flattened, picked by `indices` flattened.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_take_along_dim_flat`]'s error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![2, 2]>::from_vec(vec![1, 2, 3, 4]);
    /// let idx = Tensor::<i64, Shape![2, 1]>::from_vec(vec![3, 3]);
    /// assert_eq!(t.take_along_dim_flat(&idx).to_vec(), vec![4, 4]);
    /// ```
    #[track_caller]
    pub fn take_along_dim_flat<I: IndexElement>(
        &self,
        indices: &Tensor<I, impl Shape, D>,
    ) -> Tensor<T, (Dyn,), D>
    where
        I::Int: Sized,
        D: Backend<I>,
    {
        self.try_take_along_dim_flat(indices).or_panic()
    }
}

/// `take_along_dim`'s checks, broadcasting and gather, on erased layouts:
/// the result's sizes and elements.
impl<T: Element, S: Shape, D: Backend<T>> Tensor<T, S, D> {
    /// The elements of `self` picked along axis `K` by `indices`, the two
    /// broadcast against each other everywhere but along `K`, as
    /// `torch.take_along_dim(self, indices, K)` (NumPy's
    /// `take_along_axis`). The result has `indices`' size along `K` and the
    /// broadcast size elsewhere.
    ///
    /// # Errors
    /// PyTorch's: `torch.take_along_dim(): input and indices should have the
    /// same number of dimensions, ...`; a broadcast mismatch away from `K`;
    /// an index value outside `0..self.size(K)`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![2, 3]>::from_vec(vec![1, 2, 3, 4, 5, 6]);
    /// // One row of indices, broadcast over both rows of `t`.
    /// let idx = Tensor::<i64, Shape![1, 2]>::from_vec(vec![2, 0]);
    /// let r: Tensor<i32, Shape![2, 2]> = t.try_take_along_dim::<1, _>(&idx).unwrap();
    /// assert_eq!(r.to_vec(), vec![3, 1, 6, 4]);
    /// ```
    #[allow(clippy::type_complexity)]
    pub fn try_take_along_dim<const K: usize, SI: Shape>(
        &self,
        indices: &Tensor<impl IndexElement, SI, D>,
    ) -> Result<Tensor<T, Broadcast<<S as SetAxis<K, One>>::Output, SI>, D>, D::Error>
    where
        S: SetAxis<K, One>,
        <S as SetAxis<K, One>>::Output: BroadcastShape<SI>,
    {
        take_along_dim_on(self, K as isize, indices)
    }

    /// The elements of `self` picked along axis `K` by `indices`, broadcast
    /// together elsewhere.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_take_along_dim`]'s error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f32, Shape![2, 3]>::from_vec(vec![3., 1., 2., 9., 7., 8.]);
    /// // The position of each row's maximum, as argmax(keepdim) would give it.
    /// let arg = Tensor::<i64, Shape![2, 1]>::from_vec(vec![0, 0]);
    /// let m: Tensor<f32, Shape![2, 1]> = t.take_along_dim::<1, _>(&arg);
    /// assert_eq!(m.to_vec(), vec![3., 9.]);
    /// ```
    #[track_caller]
    #[allow(clippy::type_complexity)]
    pub fn take_along_dim<const K: usize, SI: Shape>(
        &self,
        indices: &Tensor<impl IndexElement, SI, D>,
    ) -> Tensor<T, Broadcast<<S as SetAxis<K, One>>::Output, SI>, D>
    where
        S: SetAxis<K, One>,
        <S as SetAxis<K, One>>::Output: BroadcastShape<SI>,
    {
        self.try_take_along_dim::<K, SI>(indices).or_panic()
    }

    /// [`Tensor::try_take_along_dim`] with the axis given at run time (negative
    /// counts from the end), as `torch.take_along_dim(self, indices, dim)`;
    /// the result's rank is known only at run time.
    ///
    /// # Errors
    /// As [`Tensor::try_take_along_dim`], and `dim` out of range.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![2, 3]>::from_vec(vec![1, 2, 3, 4, 5, 6]);
    /// let idx = Tensor::<i64, Shape![1, 2]>::from_vec(vec![2, 0]);
    /// let r = t.try_take_along_dim_at(-1, &idx).unwrap();
    /// assert_eq!((r.dims(), r.to_vec()), (&[2, 2][..], vec![3, 1, 6, 4]));
    /// ```
    pub fn try_take_along_dim_at(
        &self,
        dim: isize,
        indices: &Tensor<impl IndexElement, impl Shape, D>,
    ) -> Result<Tensor<T, DynRank, D>, D::Error> {
        take_along_dim_on(self, dim, indices)
    }

    /// [`Tensor::take_along_dim`] with the axis given at run time.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_take_along_dim_at`]'s error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f32, Shape![2, 2]>::from_vec(vec![1., 2., 3., 4.]);
    /// let idx = Tensor::<i64, Shape![1, 2]>::from_vec(vec![1, 0]);
    /// assert_eq!(t.take_along_dim_at(0, &idx).to_vec(), vec![3., 2.]);
    /// ```
    #[track_caller]
    pub fn take_along_dim_at(
        &self,
        dim: isize,
        indices: &Tensor<impl IndexElement, impl Shape, D>,
    ) -> Tensor<T, DynRank, D> {
        self.try_take_along_dim_at(dim, indices).or_panic()
    }
}

fn take_along_dim_on<T: Element, I: IndexElement, S: Shape, SO: Shape, D: Backend<T>>(
    src: &Tensor<T, S, D>,
    k: isize,
    indices: &Tensor<I, impl Shape, D>,
) -> Result<Tensor<T, SO, D>, D::Error> {
    let (sd, id) = (src.dims(), indices.dims());
    if sd.len() != id.len() {
        return Err(ShapeError::Invalid(format!(
            "torch.take_along_dim(): input and indices should have the same number of dimensions, but got {} dimensions for input, and {} dimensions for indices",
            sd.len(),
            id.len()
        ))
        .into());
    }
    if sd.is_empty() {
        return Err(ShapeError::Invalid(format!(
            "Dimension specified as {k} but tensor has no dimensions"
        ))
        .into());
    }
    let dim = wrap_dim(k, sd.len())?;
    // The result's sizes: `self` with `indices`' size along `dim`, broadcast
    // with `indices`; `self` is read at the same sizes but its own along dim.
    let mut self_sizes = sd.to_vec();
    self_sizes[dim] = id[dim];
    let out = broadcast_pair(&self_sizes, id)?;
    let mut index_sizes = id.to_vec();
    index_sizes[dim] = sd[dim];
    let read = broadcast_pair(&index_sizes, sd)?;
    let idx_strides = broadcast_strides(id, indices.strides(), &out);
    let src_strides = broadcast_strides(sd, src.strides(), &read);
    let idx = indices.view_as::<DynRank>(out.clone(), &idx_strides, indices.offset);
    let from = src.view_as::<DynRank>(read, &src_strides, src.offset);
    let picked: Tensor<T, DynRank, D> = indexing::gather(&from, dim, &idx)?;
    Ok(picked.view_as(SO::check_dims(&out)?, &contiguous_strides(&out), 0))
}

impl<T: Numeric, S: Shape, D: Backend<T>> Tensor<T, S, D> {
    /// Adds `src[i][j][k]` into `self[index[i][j][k]][j][k]` (for `dim = 0`,
    /// and so on), as `Tensor.scatter_add_(dim, index, src)`: every
    /// contribution counts, repeated indices included. The backward of
    /// [`Tensor::gather`].
    ///
    /// # Errors
    /// As [`Tensor::try_scatter_`].
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let mut t = Tensor::<i64, Shape![3]>::zeros();
    /// let idx = Tensor::<i64, Shape![4]>::from_vec(vec![0, 2, 0, 0]);
    /// t.try_scatter_add_(0, &idx, &Tensor::<i64, Shape![4]>::from_vec(vec![1, 2, 3, 4])).unwrap();
    /// assert_eq!(t.to_vec(), vec![8, 0, 2]);
    /// ```
    pub fn try_scatter_add_(
        &mut self,
        dim: isize,
        index: &Tensor<impl IndexElement<Int: Sized>, impl Shape, D>,
        src: &Tensor<T, impl Shape, D>,
    ) -> Result<(), D::Error> {
        match scatter_checks(self.dims(), dim, index.dims(), Some(src.dims()))? {
            Some(dim) => indexing::scatter_reduce(self, dim, index, src, ScatterReduce::Sum),
            None => Ok(()),
        }
    }

    /// Adds `src` into `self` at the positions `index` gives along `dim`.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_scatter_add_`]'s error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let mut t = Tensor::<f32, Shape![2, 2]>::zeros();
    /// let idx = Tensor::<i64, Shape![1, 2]>::from_vec(vec![1, 1]);
    /// t.scatter_add_(0, &idx, &Tensor::<f32, Shape![1, 2]>::from_vec(vec![1., 2.]));
    /// assert_eq!(t.to_vec(), vec![0., 0., 1., 2.]);
    /// ```
    #[track_caller]
    pub fn scatter_add_(
        &mut self,
        dim: isize,
        index: &Tensor<impl IndexElement<Int: Sized>, impl Shape, D>,
        src: &Tensor<T, impl Shape, D>,
    ) {
        self.try_scatter_add_(dim, index, src).or_panic()
    }

    /// A copy of `self` with `src` added at the positions `index` gives, as
    /// `torch.scatter_add(self, dim, index, src)`.
    ///
    /// # Errors
    /// As [`Tensor::try_scatter_`].
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![2]>::ones();
    /// let idx = Tensor::<i64, Shape![3]>::from_vec(vec![1, 1, 1]);
    /// let r = t.try_scatter_add(0, &idx, &Tensor::<i32, Shape![3]>::ones()).unwrap();
    /// assert_eq!(r.to_vec(), vec![1, 4]);
    /// ```
    pub fn try_scatter_add(
        &self,
        dim: isize,
        index: &Tensor<impl IndexElement<Int: Sized>, impl Shape, D>,
        src: &Tensor<T, impl Shape, D>,
    ) -> Result<Tensor<T, S, D>, D::Error> {
        self.try_on_copy(|out| out.try_scatter_add_(dim, index, src))
    }

    /// A copy of `self` with `src` added at the positions `index` gives.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_scatter_add_`]'s error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f64, Shape![2]>::zeros();
    /// let r = t.scatter_add(0, &Tensor::<i32, Shape![2]>::from_vec(vec![0, 0]),
    ///     &Tensor::<f64, Shape![2]>::from_vec(vec![0.5, 0.25]));
    /// assert_eq!(r.to_vec(), vec![0.75, 0.]);
    /// ```
    #[track_caller]
    pub fn scatter_add(
        &self,
        dim: isize,
        index: &Tensor<impl IndexElement<Int: Sized>, impl Shape, D>,
        src: &Tensor<T, impl Shape, D>,
    ) -> Tensor<T, S, D> {
        self.try_scatter_add(dim, index, src).or_panic()
    }
}
