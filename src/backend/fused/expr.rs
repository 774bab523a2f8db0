//! A fused expression as the backends see it: a tree of op-table
//! operations ([`Unary`], [`Binary`], [`Ternary`]) whose leaves are tensor
//! layouts ([`ErasedLeaf`]) and scalars ([`ErasedScalar`]), with no shape
//! type. [`Expr`] is what every backend reads of such a tree: its element
//! type, device, run-time sizes and tensor leaves. The nodes carry no
//! backend code; each backend lowers the tree itself (the CPU evaluator in
//! `backend/cpu/fused/lower.rs`, the CUDA generator in
//! `backend/cuda/fused_lower.rs`).
//!
//! The typed nodes of `shaped::fuse` (the [`Node`](super::Node) trait) are
//! the same operations over typed leaves; [`Node::erased`](super::Node::erased)
//! turns one into this form.
//!
//! ```
//! use shaped::backend::fused::{Expr, Node};
//! use shaped::{Shape, Tensor};
//! let a = Tensor::<f32, Shape![2, 1]>::ones();
//! let b = Tensor::<f32, Shape![3]>::ones();
//! let e = (a.lazy() + &b).exp();
//! let erased = e.node().erased();
//! assert_eq!(erased.dims().unwrap().as_slice(), &[2, 3]);
//! # fn leaves<E: Expr>(_: &E) -> usize { E::LEAVES }
//! assert_eq!(leaves(&erased), 2);
//! ```

use core::marker::PhantomData;

use crate::backend::Layout;
use crate::backend::op::{Map1, Map2, Map3};
use crate::device::Device;
use crate::element::Element;
use crate::shape::{DimVec, ShapeError, broadcast_pair};

/// Seals [`Expr`] and [`Node`](super::Node): the node types of
/// `shaped::fuse` and of this module are the only ones.
pub(crate) mod sealed {
    /// The seal.
    pub trait Sealed {}
}

/// Receives an expression's tensor leaves, in the order of their indices,
/// as the backends see tensors: a storage and a run-time [`Layout`] (no
/// shape type).
///
/// ```
/// use shaped::backend::Layout;
/// use shaped::backend::fused::{Leaves, Node};
/// use shaped::device::{Cpu, Device};
/// use shaped::{Shape, Tensor};
/// struct Sizes(Vec<Vec<usize>>);
/// impl<'a> Leaves<'a, Cpu> for Sizes {
///     fn leaf<T: shaped::element::Element>(&mut self, l: Layout<'a, <Cpu as Device>::Storage<T>>) {
///         self.0.push(l.dims().to_vec());
///     }
/// }
/// let a = Tensor::<f64, Shape![2, 1]>::ones();
/// let b = Tensor::<f64, Shape![3]>::ones();
/// let e = a.lazy() * &b + 1.0;
/// let mut n = Sizes(Vec::new());
/// e.node().visit(&mut n);
/// assert_eq!(n.0, [vec![2, 1], vec![3]]);
/// ```
pub trait Leaves<'a, D: Device> {
    /// The next leaf.
    fn leaf<T: Element>(&mut self, l: Layout<'a, D::Storage<T>>);
}

/// A fused expression with its shape types erased: what a backend
/// evaluates. Implemented by [`ErasedLeaf`], [`ErasedScalar`] and the
/// operation nodes over them; the backends' lowerings (the CPU's block
/// evaluator, the CUDA generator) are traits of their own over this one.
///
/// ```
/// use shaped::backend::fused::{Expr, Node};
/// use shaped::{Shape, Tensor};
/// let a = Tensor::<f32, Shape![4, 1]>::ones();
/// let b = Tensor::<f32, Shape![3]>::ones();
/// let e = (a.lazy() + &b).exp();
/// assert_eq!(Expr::dims(&e.node().erased()).unwrap().as_slice(), &[4, 3]);
/// ```
pub trait Expr: sealed::Sealed + Sync + Sized {
    /// The element type of the expression's value.
    type Elem: Element;
    /// The device of its tensor leaves.
    type Device: Device;
    /// The number of tensor leaves under the node (a leaf counts each
    /// time it appears).
    const LEAVES: usize;

    /// The number of operations under the node (leaves and scalars count
    /// none): the CPU evaluators inline the whole expression, so its code,
    /// and in unoptimised builds its stack frame, grows with it.
    #[doc(hidden)]
    const OPS: usize = 0;

    /// The run-time sizes of the value: the leaves' sizes broadcast
    /// together, with the eager operations' error when they do not.
    ///
    /// # Errors
    /// PyTorch's broadcast error, for the first pair (in evaluation order)
    /// whose sizes do not match.
    fn dims(&self) -> Result<DimVec, ShapeError>;

    /// Hands every tensor leaf to `v`, in index order.
    fn visit<'a, V: Leaves<'a, Self::Device>>(&'a self, v: &mut V);

    /// Whether an operation under the node calls a transcendental function
    /// ([`OpDef::transcendental`](crate::backend::op::OpDef::transcendental)):
    /// the CPU then evaluates it with its widest vectors.
    #[doc(hidden)]
    fn transcendental(&self) -> bool {
        false
    }
}

/// A tensor leaf with its shape type erased: the tensor's layout (storage,
/// sizes, strides, offset), borrowed. The form in which the backends
/// evaluate a typed leaf (`shaped::fuse::Leaf`, `Node::erased`).
///
/// ```
/// use shaped::backend::fused::{Expr, Node};
/// use shaped::{Shape, Tensor};
/// let a = Tensor::<f32, Shape![2, 3]>::ones();
/// let e = a.lazy() * 2.0f32;
/// // The erased expression: the same sizes and leaves, no shape type.
/// assert_eq!(e.node().erased().dims().unwrap().as_slice(), &[2, 3]);
/// ```
pub struct ErasedLeaf<'a, T: Element, D: Device>(pub(crate) Layout<'a, D::Storage<T>>);

impl<T: Element, D: Device> core::fmt::Debug for ErasedLeaf<'_, T, D> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "ErasedLeaf({}{:?})", T::NAME, self.0.dims())
    }
}

impl<T: Element, D: Device> Clone for ErasedLeaf<'_, T, D> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Element, D: Device> Copy for ErasedLeaf<'_, T, D> {}

/// A scalar operand with its shape type erased: 0-d at run time. The form
/// in which the backends evaluate a typed scalar (`shaped::fuse::Scalar`,
/// `Node::erased`).
///
/// ```
/// use shaped::backend::fused::{Expr, Node};
/// use shaped::fuse::lazy;
/// let e = lazy::<f64, shaped::device::Cpu, _>(0.5);
/// assert!(e.node().erased().dims().unwrap().is_empty());
/// ```
#[derive(Debug)]
pub struct ErasedScalar<T, D>(pub(crate) T, pub(crate) PhantomData<D>);

impl<T: Copy, D> Clone for ErasedScalar<T, D> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Copy, D> Copy for ErasedScalar<T, D> {}

/// A one-operand operation of the op table.
///
/// ```
/// use shaped::{Shape, Tensor};
/// let a = Tensor::<f32, Shape![2]>::from_vec(vec![-1., 2.]);
/// assert_eq!(a.lazy().relu().eval().to_vec(), [0., 2.]);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Unary<Op, A>(pub(crate) Op, pub(crate) A);

/// A two-operand operation of the op table (comparisons included).
///
/// ```
/// use shaped::{Shape, Tensor};
/// let a = Tensor::<f32, Shape![2, 1]>::from_vec(vec![1., 2.]);
/// let b = Tensor::<f32, Shape![3]>::from_vec(vec![0., 1., 2.]);
/// let c: Tensor<bool, Shape![2, 3]> = a.lazy().gt(&b).eval();
/// assert_eq!(c.to_vec(), [true, false, false, true, true, false]);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Binary<Op, A, B>(pub(crate) Op, pub(crate) A, pub(crate) B);

/// A three-operand operation of the op table (`where` included).
///
/// ```
/// use shaped::{Shape, Tensor};
/// let x = Tensor::<f32, Shape![3]>::from_vec(vec![-1., 0.5, 2.]);
/// let r = x.lazy().clamp(0.0, 1.0).eval();
/// assert_eq!(r.to_vec(), [0., 0.5, 1.]);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Ternary<Op, A, B, C>(pub(crate) Op, pub(crate) A, pub(crate) B, pub(crate) C);

impl<T: Element, D: Device> sealed::Sealed for ErasedLeaf<'_, T, D> {}
impl<T, D> sealed::Sealed for ErasedScalar<T, D> {}
impl<Op, A> sealed::Sealed for Unary<Op, A> {}
impl<Op, A, B> sealed::Sealed for Binary<Op, A, B> {}
impl<Op, A, B, C> sealed::Sealed for Ternary<Op, A, B, C> {}

impl<T: Element, D: Device> Expr for ErasedLeaf<'_, T, D> {
    type Elem = T;
    type Device = D;
    const LEAVES: usize = 1;

    fn dims(&self) -> Result<DimVec, ShapeError> {
        Ok(DimVec::from_slice(self.0.dims()))
    }

    fn visit<'a, V: Leaves<'a, D>>(&'a self, v: &mut V) {
        v.leaf(self.0)
    }
}

impl<T: Element, D: Device> Expr for ErasedScalar<T, D> {
    type Elem = T;
    type Device = D;
    const LEAVES: usize = 0;

    fn dims(&self) -> Result<DimVec, ShapeError> {
        Ok(DimVec::new())
    }

    fn visit<'a, V: Leaves<'a, D>>(&'a self, _: &mut V) {}
}

impl<Op: Map1<A::Elem>, A: Expr> Expr for Unary<Op, A> {
    type Elem = A::Elem;
    type Device = A::Device;
    const LEAVES: usize = A::LEAVES;
    const OPS: usize = 1 + A::OPS;

    fn dims(&self) -> Result<DimVec, ShapeError> {
        self.1.dims()
    }

    fn visit<'a, V: Leaves<'a, A::Device>>(&'a self, v: &mut V) {
        self.1.visit(v)
    }

    fn transcendental(&self) -> bool {
        (const { Op::DEF.transcendental() }) || self.1.transcendental()
    }
}

impl<Op, A, B> Expr for Binary<Op, A, B>
where
    Op: Map2<A::Elem>,
    A: Expr,
    B: Expr<Elem = A::Elem, Device = A::Device>,
{
    type Elem = Op::Out;
    type Device = A::Device;
    const LEAVES: usize = A::LEAVES + B::LEAVES;
    const OPS: usize = 1 + A::OPS + B::OPS;

    fn dims(&self) -> Result<DimVec, ShapeError> {
        broadcast_pair(&self.1.dims()?, &self.2.dims()?)
    }

    fn visit<'a, V: Leaves<'a, A::Device>>(&'a self, v: &mut V) {
        self.1.visit(v);
        self.2.visit(v);
    }

    fn transcendental(&self) -> bool {
        (const { Op::DEF.transcendental() }) || self.1.transcendental() || self.2.transcendental()
    }
}

impl<Op, A, B, C> Expr for Ternary<Op, A, B, C>
where
    Op: Map3<A::Elem, B::Elem>,
    A: Expr,
    B: Expr<Device = A::Device>,
    C: Expr<Elem = B::Elem, Device = A::Device>,
{
    type Elem = B::Elem;
    type Device = A::Device;
    const LEAVES: usize = A::LEAVES + B::LEAVES + C::LEAVES;
    const OPS: usize = 1 + A::OPS + B::OPS + C::OPS;

    fn dims(&self) -> Result<DimVec, ShapeError> {
        broadcast_pair(
            &broadcast_pair(&self.1.dims()?, &self.2.dims()?)?,
            &self.3.dims()?,
        )
    }

    fn visit<'a, V: Leaves<'a, A::Device>>(&'a self, v: &mut V) {
        self.1.visit(v);
        self.2.visit(v);
        self.3.visit(v);
    }

    fn transcendental(&self) -> bool {
        (const { Op::DEF.transcendental() })
            || self.1.transcendental()
            || self.2.transcendental()
            || self.3.transcendental()
    }
}
