//! What a backend sees of a tensor: its storage and a run-time layout
//! (sizes, strides, offset), never a shape type; and what a backend hands
//! back: a new storage and its sizes. The typed `Tensor<T, S, D>` erases its
//! shape to call down (`Tensor::layout`) and checks the result's sizes
//! against its shape type on the way up (`Tensor::from_output`), so a
//! backend primitive is compiled once per element type and operation, not
//! once per shape.

use std::sync::Arc;

use crate::iter::contiguous_strides;
use crate::shape::DimVec;

/// A tensor as a backend primitive reads or writes it: the storage `St` it
/// lives in (shared with its views), its sizes, its strides in elements
/// and the offset of its first element.
///
/// Backends receive layouts from the typed tensors; users reach a backend
/// through the tensor methods, so they never build one.
///
/// ```
/// use shaped::backend::Backend;
/// use shaped::{Shape, Tensor};
/// // A primitive is called through the tensor API, which passes the
/// // operands' layouts down: here `Backend::binary` with the op `Add`.
/// let a = Tensor::<f32, Shape![2, 1]>::from_vec(vec![1., 2.]);
/// let b = Tensor::<f32, Shape![3]>::from_vec(vec![10., 20., 30.]);
/// let c: Tensor<f32, Shape![2, 3]> = &a + &b;
/// assert_eq!(c.to_vec(), vec![11., 21., 31., 12., 22., 32.]);
/// ```
#[derive(Debug)]
pub struct Layout<'a, St> {
    pub(crate) storage: &'a Arc<St>,
    pub(crate) dims: &'a [usize],
    pub(crate) strides: &'a [usize],
    pub(crate) offset: usize,
}

impl<St> Clone for Layout<'_, St> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<St> Copy for Layout<'_, St> {}

impl<St> Layout<'_, St> {
    /// The sizes.
    ///
    /// ```
    /// use shaped::backend::Layout;
    /// fn rank<St>(l: Layout<'_, St>) -> usize {
    ///     l.dims().len()
    /// }
    /// ```
    pub fn dims(&self) -> &[usize] {
        self.dims
    }

    /// The strides, in elements.
    ///
    /// ```
    /// use shaped::backend::Layout;
    /// fn contiguous_row<St>(l: Layout<'_, St>) -> bool {
    ///     l.strides().last().is_none_or(|&s| s == 1)
    /// }
    /// ```
    pub fn strides(&self) -> &[usize] {
        self.strides
    }

    /// The number of elements.
    pub(crate) fn numel(&self) -> usize {
        self.dims.iter().product()
    }

    /// Whether the elements lie in row-major order without gaps from the
    /// offset on (strides of size-1 dimensions do not count; a layout
    /// without elements is contiguous), as PyTorch's `is_contiguous`.
    pub(crate) fn is_contiguous(&self) -> bool {
        if self.numel() == 0 {
            return true;
        }
        let mut expected = 1;
        self.dims.iter().zip(self.strides).rev().all(|(&d, &s)| {
            let ok = d == 1 || s == expected;
            expected *= d;
            ok
        })
    }
}

/// A backend primitive's result: a new, contiguous storage `St` (shared
/// with no other tensor, behind the `Arc` the tensor keeps) and its sizes,
/// which the typed tensor checks against its shape type.
///
/// ```
/// use shaped::backend::Output;
/// fn numel<St>(o: &Output<St>) -> usize {
///     o.dims().iter().product()
/// }
/// ```
#[derive(Debug)]
pub struct Output<St> {
    pub(crate) storage: Arc<St>,
    pub(crate) dims: DimVec,
}

impl<St> Output<St> {
    /// The sizes.
    ///
    /// ```
    /// use shaped::backend::Output;
    /// fn rank<St>(o: &Output<St>) -> usize {
    ///     o.dims().len()
    /// }
    /// ```
    pub fn dims(&self) -> &[usize] {
        &self.dims
    }
}

/// A new storage seen whole (row-major strides, offset 0): an intermediate
/// of a primitive composed of other primitives, or a kernel's output that
/// the next step reads.
#[derive(Debug)]
pub(crate) struct Owned<St> {
    out: Output<St>,
    strides: DimVec,
}

impl<St> Owned<St> {
    /// `out` with its row-major strides.
    pub(crate) fn new(out: Output<St>) -> Self {
        let strides = contiguous_strides(&out.dims);
        Owned { out, strides }
    }

    /// Its layout.
    pub(crate) fn layout(&self) -> Layout<'_, St> {
        Layout {
            storage: &self.out.storage,
            dims: &self.out.dims,
            strides: &self.strides,
            offset: 0,
        }
    }

    /// The same elements with sizes `dims` (as many elements).
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    pub(crate) fn reshaped(self, dims: &[usize]) -> Self {
        debug_assert_eq!(
            dims.iter().product::<usize>(),
            self.out.dims.iter().product::<usize>()
        );
        Owned::new(Output {
            storage: self.out.storage,
            dims: DimVec::from_slice(dims),
        })
    }

    /// The storage and its sizes, as a primitive returns them.
    pub(crate) fn into_output(self) -> Output<St> {
        self.out
    }
}

/// A layout read as it is when contiguous, or its contiguous copy.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) enum Dense<'a, St> {
    /// The layout itself, contiguous.
    Borrowed(Layout<'a, St>),
    /// A copy.
    Copied(Owned<St>),
}

#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
impl<St> Dense<'_, St> {
    /// Its layout (contiguous, from its offset on).
    pub(crate) fn layout(&self) -> Layout<'_, St> {
        match self {
            Dense::Borrowed(l) => *l,
            Dense::Copied(o) => o.layout(),
        }
    }
}

/// A storage's version: it changes whenever a write may have changed the
/// elements (every in-place operation takes the storage's write guard, which
/// bumps it), as PyTorch's `tensor._version`. Autograd compares it with the
/// version it recorded to refuse a gradient through a value modified after
/// the forward pass used it.
#[doc(hidden)]
pub trait Versioned {
    /// The number of writes so far.
    fn version(&self) -> u64;
}
