//! Views: new sizes, strides and offset over the same storage, never a copy
//! (NumPy: broadcasting expands "without making copies of the data"). An
//! expanded dimension has stride 0. `reshape` is a view whenever the strides
//! allow one and copies only otherwise, as PyTorch's does.
//!
//! Where the result's sizes follow from the input's type (`unsqueeze`,
//! `transpose`, `squeeze`, `broadcast_to` a fixed shape) the result type is
//! computed; where they depend on run-time arguments (`narrow`, `permute`,
//! `reshape`), the caller states the result shape and it is checked.
//!
//! ```
//! use shaped::{Shape, Tensor};
//! let b = Tensor::<f32, Shape![3]>::from_vec(vec![1., 2., 3.]);
//! let e: Tensor<f32, Shape![2, 3]> = b.broadcast_to();
//! assert_eq!(e.strides(), &[0, 1]);
//! assert_eq!(e.to_vec(), vec![1., 2., 3., 1., 2., 3.]);
//! ```

use crate::backend::Backend;
use crate::device::Device;
use crate::element::Element;
use crate::iter::contiguous_strides;
use crate::shape::OrPanic;
use crate::shape::{
    Broadcast, Broadcast3, BroadcastShape, DimVec, ExpandsTo, FixedShape, InsertAxis, RemoveAxis,
    Shape, ShapeError, SwapAxes, check_expand, const_message::SameNumel,
};
use crate::tensor::pointwise;

use super::Tensor;

/// Wraps a possibly negative dimension index as PyTorch does.
pub(crate) fn wrap_dim(dim: isize, rank: usize) -> Result<usize, ShapeError> {
    let r = rank.max(1) as isize;
    if dim < -r || dim >= r {
        return Err(ShapeError::DimOutOfRange { dim, rank });
    }
    Ok(if dim < 0 {
        (dim + r) as usize
    } else {
        dim as usize
    })
}

impl<T: Element, S: Shape, D: Device> Tensor<T, S, D> {
    /// A view with sizes `sizes`, as PyTorch's `expand`: each dimension of
    /// size 1 may stretch (stride 0), new leading dimensions may be added,
    /// and `-1` keeps a size.
    ///
    /// # Errors
    /// PyTorch's expand errors, found as PyTorch finds them, from the last
    /// dimension (a size mismatch comes before a `-1` in a new leading
    /// dimension); a size below -1; a mismatch with `S2`.
    ///
    /// ```
    /// use shaped::{DynRank, Shape, Tensor};
    /// let t = Tensor::<f32, Shape![3, 1]>::from_vec(vec![1., 2., 3.]);
    /// let e = t.expand::<Shape![2, 3, 4]>(&[2, -1, 4]).unwrap();
    /// assert_eq!(e.strides(), &[0, 1, 0]);
    /// let err = t.expand::<DynRank>(&[3, 5, 4]).unwrap_err();
    /// assert_eq!(err.to_string(),
    ///     "The expanded size of the tensor (5) must match the existing size (3) at non-singleton dimension 1.  Target sizes: [3, 5, 4].  Tensor sizes: [3, 1]");
    /// ```
    pub fn expand<S2: Shape>(&self, sizes: &[isize]) -> Result<Tensor<T, S2, D>, ShapeError>
    where
        S: ExpandsTo<S2>,
    {
        let (rank, lead) = (sizes.len(), sizes.len().saturating_sub(self.rank()));
        if self.rank() > rank {
            return Err(ShapeError::Invalid(format!(
                "expand: the number of sizes provided ({rank}) must be greater or equal to the number of dimensions in the tensor ({})",
                self.rank()
            )));
        }
        if let Some(&s) = sizes.iter().find(|&&s| s < -1) {
            return Err(ShapeError::Invalid(format!(
                "Trying to create tensor with negative dimension {s}: {sizes:?}"
            )));
        }
        let target: DimVec = sizes
            .iter()
            .enumerate()
            .map(|(i, &s)| match s {
                -1 if i >= lead => self.dims()[i - lead],
                -1 => 1, // a new leading dimension: reported below
                s => s as usize,
            })
            .collect();
        // PyTorch walks from the last dimension, so a mismatch in an existing
        // dimension is reported before a -1 in a new leading one.
        check_expand(self.dims(), &target).map_err(|e| match e {
            // PyTorch reports the target sizes as given, -1s included.
            ShapeError::Expand {
                target: _,
                expanded,
                existing,
                dim,
                tensor,
            } => ShapeError::Expand {
                expanded,
                existing,
                dim,
                target: sizes.to_vec(),
                tensor,
            },
            e => e,
        })?;
        if let Some(i) = sizes[..lead].iter().rposition(|&s| s == -1) {
            return Err(ShapeError::Invalid(format!(
                "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension {i}"
            )));
        }
        self.try_broadcast_to(&target)
    }

    /// A view broadcast to sizes `dims` (stride 0 where stretched).
    ///
    /// # Errors
    /// PyTorch's expand error when `self` does not broadcast to `dims`
    /// without changing it, or `dims` do not fit `S2`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f32, Shape![_]>::try_zeros(&[4]).unwrap();
    /// let e = t.try_broadcast_to::<Shape![_, 4]>(&[3, 4]).unwrap();
    /// assert_eq!(e.dims(), &[3, 4]);
    /// ```
    pub fn try_broadcast_to<S2: Shape>(
        &self,
        dims: &[usize],
    ) -> Result<Tensor<T, S2, D>, ShapeError>
    where
        S: ExpandsTo<S2>,
    {
        check_expand(self.dims(), dims)?;
        let d = S2::check_dims(dims)?;
        let strides = crate::iter::broadcast_strides(self.dims(), self.strides(), dims);
        Ok(self.view_as(d, &strides, self.offset))
    }

    /// A view broadcast to the fixed shape `S2`, which the compiler checks
    /// `S` expands to.
    ///
    /// # Panics
    /// Only when a `Dyn` size of `self` turns out not to fit; see
    /// [`Tensor::try_broadcast_to`].
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f32, Shape![1, 3]>::ones();
    /// let e: Tensor<f32, Shape![5, 2, 3]> = t.broadcast_to();
    /// assert_eq!(e.strides(), &[0, 0, 1]);
    /// ```
    #[track_caller]
    pub fn broadcast_to<S2: FixedShape>(
        &self,
    ) -> Tensor<T, <S as crate::shape::BroadcastTo<S2>>::Output, D>
    where
        S: crate::shape::BroadcastTo<S2, Output = S2>,
    {
        let dims = S2::static_sizes().expect("a fixed shape has static sizes");
        self.try_broadcast_to(dims.as_ref()).or_panic()
    }

    /// A view with a dimension of size 1 inserted before axis `K`.
    ///
    /// # Panics
    /// For [`DynRank`](crate::DynRank) tensors, when `K > rank` (static
    /// shapes check `K` at compile time).
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f32, Shape![3]>::zeros();
    /// let u: Tensor<f32, Shape![3, 1]> = t.unsqueeze::<1>();
    /// assert_eq!(u.dims(), &[3, 1]);
    /// ```
    #[track_caller]
    pub fn unsqueeze<const K: usize>(&self) -> Tensor<T, S::Output, D>
    where
        S: InsertAxis<K>,
    {
        assert!(
            K <= self.rank(),
            "{}",
            ShapeError::DimOutOfRange {
                dim: K as isize,
                rank: self.rank() + 1
            }
        );
        let (mut dims, mut strides) = (
            DimVec::from_slice(self.dims()),
            DimVec::from_slice(self.strides()),
        );
        let stride = if K < self.rank() {
            strides[K] * dims[K]
        } else {
            1
        };
        dims.insert(K, 1);
        strides.insert(K, stride);
        let d =
            <S::Output as Shape>::check_dims(&dims).expect("inserting a 1 keeps the shape valid");
        self.view_as(d, &strides, self.offset)
    }

    /// A view without axis `K`, which must have size 1 (`One` statically).
    ///
    /// Unlike PyTorch, where `squeeze(dim)` of a larger dimension silently
    /// does nothing, squeezing a dimension of another static size is a
    /// compile error, and of another run-time size an error.
    ///
    /// # Errors
    /// When the size at `K` is not 1 (possible only for `Dyn` sizes and
    /// dynamic rank), or `K` is out of range for a dynamic rank. As in
    /// PyTorch, squeezing dimension 0 of a 0-d tensor gives it back.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f32, Shape![3, 1]>::zeros();
    /// let s: Tensor<f32, Shape![3]> = t.squeeze::<1>().unwrap();
    /// assert_eq!(s.dims(), &[3]);
    /// ```
    pub fn squeeze<const K: usize>(
        &self,
    ) -> Result<Tensor<T, <S as crate::shape::SqueezeAxis<K>>::Squeezed, D>, ShapeError>
    where
        S: crate::shape::SqueezeAxis<K, Squeezed = <S as RemoveAxis<K>>::Output>,
    {
        let k = wrap_dim(K as isize, self.rank())?;
        if self.rank() == 0 {
            // Dimension 0 of a 0-d tensor: PyTorch gives the tensor back.
            let d = <S::Output as Shape>::check_dims(&[])?;
            return Ok(self.view_as(d, &[], self.offset));
        }
        if self.dims()[k] != 1 {
            return Err(ShapeError::Invalid(format!(
                "squeeze: dimension {k} has size {}, not 1",
                self.dims()[k]
            )));
        }
        let (mut dims, mut strides) = (
            DimVec::from_slice(self.dims()),
            DimVec::from_slice(self.strides()),
        );
        dims.remove(k);
        strides.remove(k);
        let d = <S::Output as Shape>::check_dims(&dims)?;
        Ok(self.view_as(d, &strides, self.offset))
    }

    /// A view with axes `I` and `J` swapped.
    ///
    /// # Panics
    /// For [`DynRank`](crate::DynRank) tensors, when an axis is out of range.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f32, Shape![2, 3, 4]>::zeros();
    /// let u: Tensor<f32, Shape![4, 3, 2]> = t.transpose::<0, 2>();
    /// assert_eq!(u.strides(), &[1, 4, 12]);
    /// ```
    #[track_caller]
    pub fn transpose<const I: usize, const J: usize>(&self) -> Tensor<T, S::Output, D>
    where
        S: SwapAxes<I, J>,
    {
        for axis in [I, J] {
            assert!(
                axis < self.rank(),
                "{}",
                ShapeError::DimOutOfRange {
                    dim: axis as isize,
                    rank: self.rank()
                }
            );
        }
        let (mut dims, mut strides) = (
            DimVec::from_slice(self.dims()),
            DimVec::from_slice(self.strides()),
        );
        dims.swap(I, J);
        strides.swap(I, J);
        let d =
            <S::Output as Shape>::check_dims(&dims).expect("swapping axes keeps the shape valid");
        self.view_as(d, &strides, self.offset)
    }

    /// A view with the axes reordered: axis `i` of the result is axis
    /// `perm[i]` of `self`. The caller states the result shape `S2`.
    ///
    /// # Errors
    /// When `perm` is not a permutation of `0..rank` (negative indices count
    /// from the end), or the result does not fit `S2`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f32, Shape![2, 3, 4]>::zeros();
    /// let p = t.permute::<Shape![4, 2, 3]>(&[2, 0, 1]).unwrap();
    /// assert_eq!(p.strides(), &[1, 12, 4]);
    /// ```
    pub fn permute<S2: Shape>(&self, perm: &[isize]) -> Result<Tensor<T, S2, D>, ShapeError> {
        let rank = self.rank();
        if perm.len() != rank {
            return Err(ShapeError::Invalid(format!(
                "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = {rank} is not equal to len(dims) = {}",
                perm.len()
            )));
        }
        let mut seen = vec![false; rank];
        let (mut dims, mut strides) = (DimVec::new(), DimVec::new());
        for &p in perm {
            let p = wrap_dim(p, rank)?;
            if std::mem::replace(&mut seen[p], true) {
                return Err(ShapeError::Invalid(
                    "permute(): duplicate dims are not allowed.".into(),
                ));
            }
            dims.push(self.dims()[p]);
            strides.push(self.strides()[p]);
        }
        let d = S2::check_dims(&dims)?;
        Ok(self.view_as(d, &strides, self.offset))
    }

    /// A view of `len` elements of axis `dim` starting at `start`, as
    /// PyTorch's `narrow`. The caller states the result shape `S2`.
    ///
    /// # Errors
    /// When the tensor is 0-d, `dim` is out of range, `start` exceeds the
    /// size, `start + len` exceeds the size, or the result does not fit `S2`
    /// (checked in this order, with PyTorch's messages).
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![2, 4]>::from_vec((0..8).collect());
    /// let n = t.narrow::<Shape![2, 2]>(1, 1, 2).unwrap();
    /// assert_eq!(n.to_vec(), vec![1, 2, 5, 6]);
    /// assert_eq!(t.narrow::<Shape![2, _]>(1, 3, 2).unwrap_err().to_string(),
    ///     "start (3) + length (2) exceeds dimension size (4).");
    /// ```
    pub fn narrow<S2: Shape>(
        &self,
        dim: isize,
        start: usize,
        len: usize,
    ) -> Result<Tensor<T, S2, D>, ShapeError> {
        if self.rank() == 0 {
            return Err(ShapeError::Invalid(
                "narrow() cannot be applied to a 0-dim tensor.".into(),
            ));
        }
        let d = wrap_dim(dim, self.rank())?;
        let size = self.dims()[d];
        if start > size {
            return Err(ShapeError::Invalid(format!(
                "start out of range (expected to be in range of [{}, {size}], but got {start})",
                -(size as isize)
            )));
        }
        if len > size - start {
            return Err(ShapeError::Invalid(format!(
                "start ({start}) + length ({len}) exceeds dimension size ({size})."
            )));
        }
        let mut dims = DimVec::from_slice(self.dims());
        dims[d] = len;
        let checked = S2::check_dims(&dims)?;
        let offset = if len == 0 {
            self.offset
        } else {
            self.offset + start * self.strides()[d]
        };
        Ok(self.view_as(checked, self.strides(), offset))
    }

    /// `self` seen in a result of sizes `out_dims`, axis `i` of `self` going
    /// to axis `bdims[i]` of the result: JAX's `broadcast_in_dim`.
    /// Each size of `self` must be 1 or equal to its result size; other
    /// result axes are new. A view with stride 0 where broadcast.
    ///
    /// # Errors
    /// When `bdims` is not strictly increasing, has the wrong length, points
    /// outside the result, or a size does not fit.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f32, Shape![3]>::from_vec(vec![1., 2., 3.]);
    /// // Put the 3 on axis 0 of a (3, 2) result: a column, unlike broadcast_to.
    /// let b = t.broadcast_in_dim::<Shape![3, 2]>(&[3, 2], &[0]).unwrap();
    /// assert_eq!(b.to_vec(), vec![1., 1., 2., 2., 3., 3.]);
    /// ```
    pub fn broadcast_in_dim<S2: Shape>(
        &self,
        out_dims: &[usize],
        bdims: &[usize],
    ) -> Result<Tensor<T, S2, D>, ShapeError> {
        if bdims.len() != self.rank() {
            return Err(ShapeError::Invalid(format!(
                "broadcast_in_dim: {} broadcast dimensions given for a tensor of rank {}",
                bdims.len(),
                self.rank()
            )));
        }
        let mut strides: DimVec = smallvec::smallvec![0; out_dims.len()];
        let mut prev: Option<usize> = None;
        for (i, &bd) in bdims.iter().enumerate() {
            if bd >= out_dims.len() || prev.is_some_and(|p| bd <= p) {
                return Err(ShapeError::Invalid(format!(
                    "broadcast_in_dim: broadcast dimensions {bdims:?} must be strictly increasing and below the result rank {}",
                    out_dims.len()
                )));
            }
            prev = Some(bd);
            let (size, target) = (self.dims()[i], out_dims[bd]);
            if size != target && size != 1 {
                return Err(ShapeError::Expand {
                    expanded: target,
                    existing: size,
                    dim: bd,
                    target: out_dims.iter().map(|&d| d as isize).collect(),
                    tensor: self.dims().to_vec(),
                });
            }
            strides[bd] = if size == target { self.strides()[i] } else { 0 };
        }
        let d = S2::check_dims(out_dims)?;
        Ok(self.view_as(d, &strides, self.offset))
    }
}

impl<T: Element, S: Shape, D: Backend<T>> Tensor<T, S, D> {
    /// The same elements with sizes `sizes` (one may be `-1`, inferred), as
    /// PyTorch's `reshape`: a view when the strides allow, else a contiguous
    /// copy on the tensor's device (the backend's `copy`: on CUDA, a copy
    /// on the GPU). One definition for every device.
    ///
    /// # Errors
    /// When the element counts differ, more than one size is `-1`, or the
    /// sizes do not fit `S2`.
    ///
    /// ```
    /// use shaped::{DynRank, Shape, Tensor};
    /// let t = Tensor::<i32, Shape![2, 3]>::from_vec((0..6).collect());
    /// let r = t.try_reshape::<Shape![3, _]>(&[3, -1]).unwrap();
    /// assert_eq!(r.dims(), &[3, 2]);
    /// assert_eq!(t.try_reshape::<DynRank>(&[4, 2]).unwrap_err().to_string(),
    ///     "shape '[4, 2]' is invalid for input of size 6");
    /// ```
    pub fn try_reshape<S2: Shape>(&self, sizes: &[isize]) -> Result<Tensor<T, S2, D>, D::Error> {
        let dims = infer_size(sizes, self.numel())?;
        let checked = S2::check_dims(&dims)?;
        Ok(match view_strides(self.dims(), self.strides(), &dims) {
            Some(strides) => self.view_as(checked, &strides, self.offset),
            None => {
                let c = pointwise::copy(self)?;
                c.view_as(checked, &contiguous_strides(&dims), c.offset)
            }
        })
    }
}

impl<T: Element, S: FixedShape, D: Backend<T>> Tensor<T, S, D> {
    /// The same elements with the fixed shape `S2`, on the same device (a
    /// view when the strides allow, else a contiguous copy); that both shapes
    /// have the same number of elements is checked when the program is built.
    ///
    /// That check is a `const` assertion, evaluated when the function is
    /// instantiated: `cargo build` (and `cargo test`) report it, `cargo check`
    /// and rust-analyzer do not. Stable Rust cannot compare the products of
    /// two shapes' sizes in the trait solver (that needs
    /// `generic_const_exprs`), so no bound can move it to `cargo check`.
    /// A table giving each `Const<N>` its typenum number would let the trait
    /// solver multiply and compare, but rustc checks such impls against each
    /// other, in time growing with the square of their count: 1.2 s of
    /// `cargo check` for sizes up to 1024, 15 s up to 4096, 58 s up to 8192
    /// (`scripts/typenum_table_cost.sh`, an Intel Xeon), about an hour for
    /// 65536; a size outside the table could not be reshaped at all, and
    /// the error names typenum's bits, not the counts. A minimal
    /// reproduction of the limit, with no library code:
    ///
    /// ```compile_fail,E0080
    /// trait Numel { const N: usize; }
    /// struct A; impl Numel for A { const N: usize = 6; }
    /// struct B; impl Numel for B { const N: usize = 8; }
    /// fn reshape<S: Numel, S2: Numel>() { const { assert!(S::N == S2::N) } }
    /// fn main() { reshape::<A, B>(); } // `cargo check` passes; `cargo build` fails
    /// ```
    ///
    /// The build-time error's first line names both element counts:
    /// `reshape: shape '[4, 2]' (8 elements) is invalid for input of size 6
    /// (shape [2, 3])`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![2, 3]>::from_vec((0..6).collect());
    /// let r: Tensor<i32, Shape![3, 2]> = t.reshape();
    /// assert_eq!(r.to_vec(), (0..6).collect::<Vec<_>>());
    /// ```
    ///
    /// # Panics
    /// Only when a copy is needed and the device fails it (out of memory).
    #[track_caller]
    pub fn reshape<S2: FixedShape>(&self) -> Tensor<T, S2, D> {
        let () = SameNumel::<S, S2>::CHECK;
        let dims = S2::static_sizes().expect("a fixed shape has static sizes");
        let sizes: Vec<isize> = dims.as_ref().iter().map(|&d| d as isize).collect();
        self.try_reshape(&sizes).or_panic()
    }
}

/// Sizes with one `-1` inferred from `numel`, as PyTorch's `infer_size`.
pub(crate) fn infer_size(sizes: &[isize], numel: usize) -> Result<DimVec, ShapeError> {
    let mut infer = None;
    let mut known = 1usize;
    for (i, &s) in sizes.iter().enumerate() {
        match s {
            -1 if infer.is_none() => infer = Some(i),
            -1 => {
                return Err(ShapeError::Invalid(
                    "only one dimension can be inferred".into(),
                ));
            }
            s if s >= 0 => known = known.saturating_mul(s as usize),
            s => return Err(ShapeError::Invalid(format!("invalid shape dimension {s}"))),
        }
    }
    let shown = || sizes.iter().map(|&s| s as usize).collect::<Vec<_>>();
    let mut dims: DimVec = sizes.iter().map(|&s| s.max(0) as usize).collect();
    if let Some(i) = infer {
        if known == 0 && numel == 0 {
            return Err(ShapeError::Invalid(format!(
                "cannot reshape tensor of 0 elements into shape {sizes:?} because the unspecified dimension size -1 can be any value and is ambiguous"
            )));
        }
        if known == 0 || !numel.is_multiple_of(known) {
            let shape: Vec<isize> = sizes.to_vec();
            return Err(ShapeError::Invalid(format!(
                "shape '{shape:?}' is invalid for input of size {numel}"
            )));
        }
        dims[i] = numel / known;
    } else if known != numel {
        return Err(ShapeError::Numel {
            shape: shown(),
            numel,
        });
    }
    Ok(dims)
}

/// Strides that let `new` sizes view a tensor of `old` sizes and strides
/// without a copy, or `None` when no view exists (PyTorch's
/// `computeStride`): each run of old dimensions that is contiguous in memory
/// ("chunk") must split into whole new dimensions.
pub(crate) fn view_strides(old: &[usize], old_strides: &[usize], new: &[usize]) -> Option<DimVec> {
    let mut strides: DimVec = smallvec::smallvec![0; new.len()];
    if old.iter().product::<usize>() == 0 || old.is_empty() {
        return Some(contiguous_strides(new));
    }
    let mut view_d = new.len() as isize - 1;
    let mut chunk_base = *old_strides.last()?;
    let (mut tensor_numel, mut view_numel) = (1usize, 1usize);
    for d in (0..old.len()).rev() {
        tensor_numel *= old[d];
        let chunk_ends =
            d == 0 || (old[d - 1] != 1 && old_strides[d - 1] != tensor_numel * chunk_base);
        if chunk_ends {
            while view_d >= 0 && (view_numel < tensor_numel || new[view_d as usize] == 1) {
                strides[view_d as usize] = view_numel * chunk_base;
                view_numel *= new[view_d as usize];
                view_d -= 1;
            }
            if view_numel != tensor_numel {
                return None;
            }
            if d > 0 {
                chunk_base = old_strides[d - 1];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    (view_d == -1).then_some(strides)
}

/// `a` and `b` as views of their common broadcast shape (stride 0 where
/// stretched), as `torch.broadcast_tensors(a, b)`, on their device.
///
/// # Errors
/// PyTorch's broadcast error when a run-time size does not match.
///
/// ```
/// use shaped::{try_broadcast_tensors, Shape, Tensor};
/// let a = Tensor::<f32, Shape![3, 1]>::zeros();
/// let b = Tensor::<i64, Shape![4]>::zeros();
/// let (x, y) = try_broadcast_tensors(&a, &b).unwrap();
/// let _: (Tensor<f32, Shape![3, 4]>, Tensor<i64, Shape![3, 4]>) = (x.clone(), y.clone());
/// assert_eq!((x.strides(), y.strides()), (&[1, 0][..], &[0, 1][..]));
/// ```
#[allow(clippy::type_complexity)]
pub fn try_broadcast_tensors<T: Element, U: Element, SA, SB: Shape, D: Device>(
    a: &Tensor<T, SA, D>,
    b: &Tensor<U, SB, D>,
) -> Result<
    (
        Tensor<T, Broadcast<SA, SB>, D>,
        Tensor<U, Broadcast<SA, SB>, D>,
    ),
    ShapeError,
>
where
    SA: BroadcastShape<SB>,
{
    let dims = crate::shape::broadcast_pair(a.dims(), b.dims())?;
    Ok((a.stretched_to(&dims)?, b.stretched_to(&dims)?))
}

/// `a`, `b` and `c` as views of their common broadcast shape, as
/// `torch.broadcast_tensors(a, b, c)`.
///
/// # Errors
/// PyTorch's broadcast error when a run-time size does not match.
///
/// ```
/// use shaped::{try_broadcast_tensors3, Shape, Tensor};
/// let a = Tensor::<f32, Shape![3, 1]>::zeros();
/// let b = Tensor::<f32, Shape![4]>::zeros();
/// let c = Tensor::<bool, Shape![2, 1, 1]>::zeros();
/// let (x, y, z) = try_broadcast_tensors3(&a, &b, &c).unwrap();
/// assert_eq!((x.dims(), y.dims(), z.dims()), (&[2, 3, 4][..], &[2, 3, 4][..], &[2, 3, 4][..]));
/// ```
#[allow(clippy::type_complexity)]
pub fn try_broadcast_tensors3<
    T: Element,
    U: Element,
    V: Element,
    SA,
    SB: Shape,
    SC: Shape,
    D: Device,
>(
    a: &Tensor<T, SA, D>,
    b: &Tensor<U, SB, D>,
    c: &Tensor<V, SC, D>,
) -> Result<
    (
        Tensor<T, <SA as Broadcast3<SB, SC>>::Output, D>,
        Tensor<U, <SA as Broadcast3<SB, SC>>::Output, D>,
        Tensor<V, <SA as Broadcast3<SB, SC>>::Output, D>,
    ),
    ShapeError,
>
where
    SA: Broadcast3<SB, SC>,
{
    let ab = crate::shape::broadcast_pair(a.dims(), b.dims())?;
    let dims = crate::shape::broadcast_pair(&ab, c.dims())?;
    Ok((
        a.stretched_to(&dims)?,
        b.stretched_to(&dims)?,
        c.stretched_to(&dims)?,
    ))
}

impl<T: Element, S: Shape, D: Device> Tensor<T, S, D> {
    /// A view broadcast to `dims`, which the caller has computed as a
    /// broadcast shape that `self` takes part in.
    fn stretched_to<S2: Shape>(&self, dims: &[usize]) -> Result<Tensor<T, S2, D>, ShapeError> {
        check_expand(self.dims(), dims)?;
        let d = S2::check_dims(dims)?;
        let strides = crate::iter::broadcast_strides(self.dims(), self.strides(), dims);
        Ok(self.view_as(d, &strides, self.offset))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn view_strides_follow_pytorch() {
        // Contiguous: always a view.
        assert_eq!(
            view_strides(&[2, 3], &[3, 1], &[3, 2]).unwrap().as_slice(),
            &[2, 1]
        );
        // Transposed (3, 2) of a (2, 3): flattening needs a copy.
        assert!(view_strides(&[3, 2], &[1, 3], &[6]).is_none());
        // Splitting a transposed dimension is a view.
        assert_eq!(
            view_strides(&[4, 2], &[1, 4], &[2, 2, 2])
                .unwrap()
                .as_slice(),
            &[2, 1, 4]
        );
        // Size-1 dimensions go anywhere.
        assert_eq!(
            view_strides(&[3], &[2], &[1, 3, 1]).unwrap().as_slice(),
            &[6, 2, 2]
        );
    }

    #[test]
    fn infer_one_size() {
        assert_eq!(infer_size(&[-1, 4], 12).unwrap().as_slice(), &[3, 4]);
        assert!(infer_size(&[-1, -1], 12).is_err());
        assert!(infer_size(&[-1, 5], 12).is_err());
    }
}
