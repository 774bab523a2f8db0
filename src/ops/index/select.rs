//! `index_select` and its in-place inverses `index_add_` and `index_copy_`:
//! a 1-d index picks whole slices along one axis. No broadcasting (the
//! broadcasting notes: "no" for all three).
//!
//! - `index_select::<K>(index)`: the result is `self` with axis `K` replaced
//!   by the index's length, in the type too
//!   ([`SetAxis<K, D>`](crate::shape::SetAxis) for an index of shape
//!   `(D,)`).
//! - `index_add_(dim, index, source)`, `index_copy_`: `source` has `self`'s
//!   sizes except along `dim`, where it has the index's length; slice `i` of
//!   `source` is added to (copied into) slice `index[i]` of `self`. Repeated
//!   indices add up (`index_add_`) or the last one wins (`index_copy_`).
//!
//! These lower onto `gather` and `scatter` with the index seen broadcast
//! across the other axes (stride 0), so no index is ever copied.
//!
//! ```
//! use shaped::{Shape, Tensor};
//! // The broadcasting notes' example: zeros(3, 3).index_add_(0, [1, 0], x).
//! let x = Tensor::<f32, Shape![2, 3]>::from_vec(vec![1., 2., 3., 4., 5., 6.]);
//! let mut t = Tensor::<f32, Shape![3, 3]>::zeros();
//! t.index_add_(0, &Tensor::<i64, Shape![2]>::from_vec(vec![1, 0]), &x);
//! assert_eq!(t.to_vec(), vec![4., 5., 6., 1., 2., 3., 0., 0., 0.]);
//! ```

use crate::Tensor;
use crate::backend::Backend;
use crate::element::{Element, Numeric};
use crate::iter::contiguous_strides;
use crate::shape::DynRank;
use crate::shape::OrPanic;
use crate::shape::{Dim, SetAxis, Shape, ShapeError};
use crate::tensor::indexing;
use crate::tensor::wrap_dim;

use super::{IndexElement, ScatterReduce, prefix_index_error};

/// The strides that show a 1-d index (`stride`) along `dim` of a tensor of
/// rank `rank`, and nothing (stride 0) along the other axes.
fn spread(rank: usize, dim: usize, stride: usize) -> Vec<usize> {
    let mut s = vec![0; rank];
    s[dim] = stride;
    s
}

/// `index_select` of a tensor of sizes `src` along `k` by a 1-d index of
/// `n` elements, through the device's gather with the index spread across
/// the other axes (stride 0, never copied).
fn index_select_on<T: Element, I: IndexElement, S: Shape, SO: Shape, D: Backend<T>>(
    src: &Tensor<T, S, D>,
    k: usize,
    index: &Tensor<I, impl Shape, D>,
) -> Result<Tensor<T, SO, D>, D::Error> {
    let dim = wrap_dim(k as isize, src.rank())?;
    let n = index.numel();
    if src.rank() == 0 && n != 1 {
        return Err(ShapeError::Invalid(format!(
            "index_select(): Index to scalar can have only 1 value, got {n} value(s)"
        ))
        .into());
    }
    let mut out = if src.rank() == 0 {
        vec![1]
    } else {
        src.dims().to_vec()
    };
    out[dim] = n;
    let istride = index.strides().first().copied().unwrap_or(0);
    let view = index.view_as::<DynRank>(
        DynRank::check_dims(&out)?,
        &spread(out.len(), dim, istride),
        index.offset,
    );
    let picked: Tensor<T, DynRank, D> = indexing::gather(src, dim, &view)?;
    let dims = if src.rank() == 0 { Vec::new() } else { out };
    Ok(picked.view_as(SO::check_dims(&dims)?, &contiguous_strides(&dims), 0))
}

/// Which in-place index operation: their checks word errors differently,
/// as PyTorch's do.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Put {
    /// `index_add_`.
    Add,
    /// `index_copy_`.
    Copy,
}

/// The sizes of `dims` without axis `dim`, as PyTorch prints a slice shape.
fn slice_shape(dims: &[usize], dim: usize) -> String {
    let rest: Vec<String> = dims
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != dim)
        .map(|(_, d)| d.to_string())
        .collect();
    rest.join(" ")
}

/// `index_add_` / `index_copy_`'s checks (PyTorch's, in its order and
/// wording), then the scatter's operands: the wrapped `dim`, the 1-d index
/// seen spread across `source`'s sizes (stride 0 away from `dim`, never
/// copied) and `source` with a 0-d tensor seen as 1-d.
#[allow(clippy::type_complexity)]
fn index_put_operands<T: Element, I: Element, D: Backend<T>>(
    op: Put,
    out: &[usize],
    dim: isize,
    index: &Tensor<I, impl Shape, D>,
    source: &Tensor<T, impl Shape, D>,
) -> Result<(usize, Tensor<I, DynRank, D>, Tensor<T, DynRank, D>), ShapeError> {
    let dim = wrap_dim(dim, out.len())?;
    let n = index.numel();
    let (sd, od) = (source.dims(), out);
    let scalar = sd.is_empty() || od.is_empty();
    if sd.len() != od.len() && !scalar {
        return Err(ShapeError::Invalid(match op {
            Put::Add => format!(
                "source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape = {od:?} source.shape = {sd:?}"
            ),
            Put::Copy => format!(
                "index_copy_(): When source and destination are not scalars, their dimensionality must match. Source dimensionality ({}), destination dimensionality ({})",
                sd.len(),
                od.len()
            ),
        }));
    }
    let src_len = if sd.is_empty() { 1 } else { sd[dim] };
    if n != src_len {
        return Err(ShapeError::Invalid(match op {
            Put::Add => format!(
                "index_add_(): Number of indices ({n}) should be equal to source.size(dim): ({src_len}), for dim: {dim}"
            ),
            Put::Copy => format!(
                "index_copy_(): Number of indices ({n}) should be equal to source.size(dim) ({src_len})"
            ),
        }));
    }
    let (mut a, mut b) = (od.to_vec(), sd.to_vec());
    if !scalar {
        a.remove(dim);
        b.remove(dim);
    }
    if a != b {
        return Err(ShapeError::Invalid(match op {
            Put::Add => format!(
                "source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape = {od:?} source.shape = {sd:?}"
            ),
            Put::Copy => format!(
                "index_copy_(): Source/destination tensor must have same slice shapes. Destination slice shape: {} at dimension {dim} and source slice shape: {} at dimension 0.",
                slice_shape(od, dim),
                slice_shape(sd, dim)
            ),
        }));
    }
    // Both 0-d or both of one rank (checked above).
    let (dims, strides) = if sd.is_empty() {
        (vec![1], vec![0])
    } else {
        (sd.to_vec(), source.strides().to_vec())
    };
    let checked = DynRank::check_dims(&dims)?;
    let istride = index.strides().first().copied().unwrap_or(0);
    let idx = index.view_as(
        checked.clone(),
        &spread(dims.len(), dim, istride),
        index.offset,
    );
    let src = source.view_as(checked, &strides, source.offset);
    Ok((dim, idx, src))
}

impl<T: Element, S: Shape, D: Backend<T>> Tensor<T, S, D> {
    /// The slices of `self` along axis `K` that `index` picks, in its order
    /// (repeats allowed), as `torch.index_select(self, K, index)`. The
    /// result type has the index's length `N` on axis `K`.
    ///
    /// # Errors
    /// `index 5 is out of bounds for dimension 0 with size 3` (negative
    /// values too); for dynamic rank, an axis `K` the tensor does not have.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![3, 2]>::from_vec(vec![1, 2, 3, 4, 5, 6]);
    /// let idx = Tensor::<i64, Shape![4]>::from_vec(vec![2, 0, 2, 1]);
    /// let r: Tensor<i32, Shape![4, 2]> = t.try_index_select::<0, _>(&idx).unwrap();
    /// assert_eq!(r.to_vec(), vec![5, 6, 1, 2, 5, 6, 3, 4]);
    /// let bad = Tensor::<i64, Shape![1]>::from_vec(vec![-1]);
    /// assert_eq!(t.try_index_select::<0, _>(&bad).err().unwrap().to_string(),
    ///     "index -1 is out of bounds for dimension 0 with size 3");
    /// ```
    pub fn try_index_select<const K: usize, N: Dim>(
        &self,
        index: &Tensor<impl IndexElement<Int: Sized>, (N,), D>,
    ) -> Result<Tensor<T, <S as SetAxis<K, N>>::Output, D>, D::Error>
    where
        S: SetAxis<K, N>,
    {
        index_select_on(self, K, index)
    }

    /// The slices of `self` along axis `K` that `index` picks.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_index_select`]'s error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f32, Shape![2, 3]>::from_vec(vec![1., 2., 3., 4., 5., 6.]);
    /// let idx = Tensor::<i32, Shape![_]>::try_from_vec(vec![2], &[1]).unwrap();
    /// let r: Tensor<f32, Shape![2, _]> = t.index_select::<1, _>(&idx);
    /// assert_eq!(r.to_vec(), vec![3., 6.]);
    /// ```
    #[track_caller]
    pub fn index_select<const K: usize, N: Dim>(
        &self,
        index: &Tensor<impl IndexElement<Int: Sized>, (N,), D>,
    ) -> Tensor<T, <S as SetAxis<K, N>>::Output, D>
    where
        S: SetAxis<K, N>,
    {
        self.try_index_select::<K, N>(index).or_panic()
    }
}

impl<T: Element, S: Shape, D: Backend<T>> Tensor<T, S, D> {
    /// Copies slice `i` of `source` along `dim` into slice `index[i]` of
    /// `self`, as `Tensor.index_copy_(dim, index, source)`; with repeated
    /// indices the last one wins.
    ///
    /// # Errors
    /// PyTorch's: `index_copy_(): Number of indices (2) should be equal to
    /// source.size(dim) (3)`; `index_copy_(): Source/destination tensor must
    /// have same slice shapes. Destination slice shape: 2 at dimension 0 and
    /// source slice shape: 3 at dimension 0.`; ranks that differ; `index_copy_():
    /// index 5 is out of bounds for dimension 0 with size 3` (nothing is
    /// written then); elements of `self` that share memory.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let mut t = Tensor::<i32, Shape![3, 2]>::zeros();
    /// let src = Tensor::<i32, Shape![2, 2]>::from_vec(vec![1, 2, 3, 4]);
    /// t.try_index_copy_(0, &Tensor::<i64, Shape![2]>::from_vec(vec![2, 0]), &src).unwrap();
    /// assert_eq!(t.to_vec(), vec![3, 4, 0, 0, 1, 2]);
    /// ```
    pub fn try_index_copy_(
        &mut self,
        dim: isize,
        index: &Tensor<impl IndexElement<Int: Sized>, (impl Dim,), D>,
        source: &Tensor<T, impl Shape, D>,
    ) -> Result<(), D::Error> {
        let (dim, idx, src) = index_put_operands(Put::Copy, self.dims(), dim, index, source)?;
        indexing::scatter(self, dim, &idx, &src)
            .map_err(|e| prefix_index_error(e, "index_copy_(): "))
    }

    /// Copies the slices of `source` along `dim` into the slices of `self`
    /// that `index` names.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_index_copy_`]'s error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let mut t = Tensor::<f32, Shape![2, 3]>::zeros();
    /// t.index_copy_(1, &Tensor::<i64, Shape![1]>::from_vec(vec![1]),
    ///     &Tensor::<f32, Shape![2, 1]>::from_vec(vec![7., 8.]));
    /// assert_eq!(t.to_vec(), vec![0., 7., 0., 0., 8., 0.]);
    /// ```
    #[track_caller]
    pub fn index_copy_(
        &mut self,
        dim: isize,
        index: &Tensor<impl IndexElement<Int: Sized>, (impl Dim,), D>,
        source: &Tensor<T, impl Shape, D>,
    ) {
        self.try_index_copy_(dim, index, source).or_panic()
    }

    /// A copy of `self` with the slices of `source` copied in, as
    /// `torch.index_copy(self, dim, index, source)`.
    ///
    /// # Errors
    /// As [`Tensor::try_index_copy_`].
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![3]>::zeros();
    /// let r = t.try_index_copy(0, &Tensor::<i32, Shape![1]>::from_vec(vec![1]),
    ///     &Tensor::<i32, Shape![1]>::from_vec(vec![9])).unwrap();
    /// assert_eq!(r.to_vec(), vec![0, 9, 0]);
    /// ```
    pub fn try_index_copy(
        &self,
        dim: isize,
        index: &Tensor<impl IndexElement<Int: Sized>, (impl Dim,), D>,
        source: &Tensor<T, impl Shape, D>,
    ) -> Result<Tensor<T, S, D>, D::Error> {
        self.try_on_copy(|out| out.try_index_copy_(dim, index, source))
    }
}

impl<T: Numeric, S: Shape, D: Backend<T>> Tensor<T, S, D> {
    /// Adds slice `i` of `source` along `dim` into slice `index[i]` of
    /// `self`, as `Tensor.index_add_(dim, index, source)`; repeated indices
    /// add up. The backward of [`Tensor::index_select`].
    ///
    /// # Errors
    /// PyTorch's: `index_add_(): Number of indices (2) should be equal to
    /// source.size(dim): (3), for dim: 0`; `source tensor shape must match
    /// self tensor shape, excluding the specified dimension. Got self.shape =
    /// [3, 3] source.shape = [2, 4]`; `index 5 is out of bounds for dimension
    /// 0 with size 3` (PyTorch says `index out of range in self`; nothing is
    /// written then); elements of `self` that share memory.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let mut t = Tensor::<i64, Shape![2]>::zeros();
    /// let idx = Tensor::<i64, Shape![3]>::from_vec(vec![1, 1, 0]);
    /// t.try_index_add_(0, &idx, &Tensor::<i64, Shape![3]>::from_vec(vec![1, 2, 3])).unwrap();
    /// assert_eq!(t.to_vec(), vec![3, 3]);
    /// ```
    pub fn try_index_add_(
        &mut self,
        dim: isize,
        index: &Tensor<impl IndexElement<Int: Sized>, (impl Dim,), D>,
        source: &Tensor<T, impl Shape, D>,
    ) -> Result<(), D::Error> {
        let (dim, idx, src) = index_put_operands(Put::Add, self.dims(), dim, index, source)?;
        indexing::scatter_reduce(self, dim, &idx, &src, ScatterReduce::Sum)
    }

    /// Adds the slices of `source` along `dim` into the slices of `self`
    /// that `index` names.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_index_add_`]'s error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let mut t = Tensor::<f32, Shape![2, 2]>::ones();
    /// t.index_add_(1, &Tensor::<i64, Shape![1]>::from_vec(vec![0]),
    ///     &Tensor::<f32, Shape![2, 1]>::from_vec(vec![1., 2.]));
    /// assert_eq!(t.to_vec(), vec![2., 1., 3., 1.]);
    /// ```
    #[track_caller]
    pub fn index_add_(
        &mut self,
        dim: isize,
        index: &Tensor<impl IndexElement<Int: Sized>, (impl Dim,), D>,
        source: &Tensor<T, impl Shape, D>,
    ) {
        self.try_index_add_(dim, index, source).or_panic()
    }

    /// A copy of `self` with the slices of `source` added in, as
    /// `torch.index_add(self, dim, index, source)`.
    ///
    /// # Errors
    /// As [`Tensor::try_index_add_`].
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![2]>::ones();
    /// let r = t.try_index_add(0, &Tensor::<i32, Shape![2]>::from_vec(vec![0, 0]),
    ///     &Tensor::<i32, Shape![2]>::from_vec(vec![5, 5])).unwrap();
    /// assert_eq!(r.to_vec(), vec![11, 1]);
    /// ```
    pub fn try_index_add(
        &self,
        dim: isize,
        index: &Tensor<impl IndexElement<Int: Sized>, (impl Dim,), D>,
        source: &Tensor<T, impl Shape, D>,
    ) -> Result<Tensor<T, S, D>, D::Error> {
        self.try_on_copy(|out| out.try_index_add_(dim, index, source))
    }
}
