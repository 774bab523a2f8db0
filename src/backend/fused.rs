//! What a fused pointwise chain is to a backend. An expression (built by
//! `shaped::fuse`) is a tree of op-table operations whose leaves are
//! tensors and scalars. Its typed nodes implement [`Node`]: the static
//! result shape (checked where the expression is built), the run-time
//! broadcast sizes (with the eager ops' messages), the tensor leaves in a
//! fixed order ([`Node::visit`]), and the erased form ([`Node::erased`]):
//! the same tree with each tensor leaf as its layout and no shape type
//! ([`Expr`], module `expr`), which is what the backends are handed, so
//! that one evaluator serves a chain of operations whatever the static
//! shapes of its operands.
//!
//! No node carries backend code. Each backend lowers an [`Expr`] itself:
//! - the CPU ([`CpuExpr`], `backend/cpu/fused/lower.rs`): the tree's value
//!   over a block of at most [`BLOCK`] elements of one inner loop of the
//!   iteration plan, as one scalar function of an element's position whose
//!   intermediates stay in registers (memory is read once and written
//!   once);
//! - CUDA ([`CudaExpr`], `backend/cuda/fused_lower.rs`): the tree as one
//!   C expression, from which the CUDA backend generates one kernel per
//!   distinct expression.
//!
//! [`Fused`] is the device side: evaluating a tree into a new storage or an
//! existing one.
//!
//! ```
//! use shaped::{Shape, Tensor};
//! let a = Tensor::<f32, Shape![2, 3]>::from_vec(vec![-1., 2., -3., 4., -5., 6.]);
//! let b = Tensor::<f32, Shape![3]>::from_vec(vec![1., 10., 100.]);
//! let r: Tensor<f32, Shape![2, 3]> = (a.lazy() * &b + 1.0).relu().eval();
//! assert_eq!(r.to_vec(), [0., 21., 0., 5., 0., 601.]);
//! ```

pub(crate) mod expr;
pub(crate) mod grads;

pub use super::cpu::fused::{MAX_LEAVES, set_light_wide};
// The CPU evaluation's block machinery, named by autograd's fused
// adjoints.
#[doc(hidden)]
pub use super::cpu::fused::{
    BLOCK, Block, CHUNK, CpuAdjoint, CpuExpr, Lane, Run, Scratch, Sink, fill_chunked,
};
pub use super::cuda::fused_adjoint::{AdjointGen, CudaAdjoint, cuda_adjoint};
pub use super::cuda::fused_lower::CudaExpr;
pub use super::cuda::fused_source::{CudaGen, FUSED_KERNELS, c_name};
use crate::backend::layout::Owned;
use crate::backend::op::Reduction;
use crate::backend::{Backend, Layout, Output};
use crate::device::Device;
use crate::element::{Element, Float, Numeric};
use crate::shape::{DimVec, Shape, ShapeError};
use expr::sealed;
pub use expr::{Expr, Leaves};
pub use grads::{BinaryRule, TernaryRule};

/// The iteration plan of a fused evaluation over `dims`: operand 0 the
/// output (strides, offset), then each leaf (its sizes, strides and
/// offset) broadcast to `dims`; operands past the leaves have all strides 0
/// and are never read.
pub(crate) fn plan<'l>(
    dims: &[usize],
    out: (&[usize], usize),
    leaves: impl ExactSizeIterator<Item = (&'l [usize], &'l [usize], usize)>,
) -> crate::iter::Plan<{ MAX_LEAVES + 1 }> {
    let zeros = DimVec::from_elem(0, dims.len());
    let leaves: Vec<(DimVec, usize)> = leaves
        .map(|(d, s, o)| (crate::iter::broadcast_strides(d, s, dims), o))
        .collect();
    let ops: [(&[usize], usize); MAX_LEAVES + 1] = core::array::from_fn(|k| match k {
        0 => out,
        k if k <= leaves.len() => (&leaves[k - 1].0[..], leaves[k - 1].1),
        _ => (&zeros[..], 0),
    });
    crate::iter::Plan::new(dims, ops)
}

/// Every tensor leaf's sizes, in leaf order.
pub(crate) fn leaf_dims<E: Expr>(e: &E) -> Vec<DimVec> {
    struct Dims(Vec<DimVec>);
    impl<'a, D: Device> Leaves<'a, D> for Dims {
        fn leaf<T: Element>(&mut self, l: Layout<'a, D::Storage<T>>) {
            self.0.push(DimVec::from_slice(l.dims()));
        }
    }
    let mut d = Dims(Vec::with_capacity(E::LEAVES));
    e.visit(&mut d);
    d.0
}

/// The axes of `out` along which an adjoint of sizes `out` is summed back
/// to a leaf of sizes `leaf` that broadcast to it: the leading axes the
/// leaf lacks, and those where it has size 1 and `out` does not.
pub(crate) fn summed_axes(leaf: &[usize], out: &[usize]) -> Vec<bool> {
    let lead = out.len() - leaf.len();
    (0..out.len())
        .map(|i| i < lead || (leaf[i - lead] == 1 && out[i] != 1))
        .collect()
}

/// The order in which an evaluation into an existing output takes its
/// guards (`cpu/locks.rs`: by storage address, the written storage among
/// them): `(address, leaf index)` pairs sorted, the output as index
/// `usize::MAX`.
pub(crate) fn lock_order(leaves: impl Iterator<Item = usize>, out: usize) -> Vec<(usize, usize)> {
    let mut order: Vec<(usize, usize)> = leaves.enumerate().map(|(k, a)| (a, k)).collect();
    order.push((out, usize::MAX));
    order.sort_unstable();
    order
}

/// An erased expression that every backend lowers: the CPU's block
/// evaluator ([`CpuExpr`]) and the CUDA generator ([`CudaExpr`]), each
/// written over [`Expr`] in its own backend's files. Every [`Expr`] of the
/// op table's nodes is one; [`Fused`] evaluates it.
///
/// ```
/// use shaped::backend::fused::{Lowered, Node};
/// use shaped::{Shape, Tensor};
/// let a = Tensor::<f32, Shape![2]>::ones();
/// let e = a.lazy().exp();
/// # fn lowered<E: Lowered>(_: &E) -> usize { E::LEAVES }
/// assert_eq!(lowered(&e.node().erased()), 1);
/// ```
pub trait Lowered: CpuExpr + CudaExpr {}

impl<E: CpuExpr + CudaExpr> Lowered for E {}

/// An erased expression whose backward pass every backend lowers: the
/// CPU's block adjoints ([`CpuAdjoint`]) and the generated CUDA adjoints
/// ([`CudaAdjoint`]), from the op table's derivatives and the rules of
/// [`BinaryRule`] and [`TernaryRule`]. [`FusedGrad`] runs it.
///
/// ```
/// use shaped::backend::fused::{LoweredGrad, Node};
/// use shaped::{Shape, Tensor};
/// let (a, b) = (Tensor::<f64, Shape![2]>::ones(), Tensor::<f64, Shape![2]>::ones());
/// let e = (a.lazy() / &b).exp();
/// # fn lowered<E: LoweredGrad<f64>>(_: &E) -> usize { E::LEAVES }
/// assert_eq!(lowered(&e.node().erased()), 2);
/// ```
pub trait LoweredGrad<T: Float>: Lowered<Elem = T> + CpuAdjoint<T> + CudaAdjoint<T> {}

impl<T: Float, E: Lowered<Elem = T> + CpuAdjoint<T> + CudaAdjoint<T>> LoweredGrad<T> for E {}

/// A node of a typed fused expression: an op-table operation over child
/// nodes, a tensor leaf or a scalar, with the static shape of its value.
/// Implemented by the node types of `shaped::fuse` (and autograd's
/// variable leaves). A node holds no backend code: the backends evaluate
/// its erased form ([`Node::erased`], an [`Expr`]).
///
/// ```
/// use shaped::backend::fused::Node;
/// use shaped::{Shape, Tensor};
/// let a = Tensor::<f32, Shape![4, 1]>::ones();
/// let b = Tensor::<f32, Shape![3]>::ones();
/// let e = (a.lazy() + &b).exp();
/// assert_eq!(e.node().dims().unwrap().as_slice(), &[4, 3]);
/// # fn leaves<N: Node>(_: &N) -> usize { N::LEAVES }
/// assert_eq!(leaves(e.node()), 2);
/// ```
pub trait Node: sealed::Sealed + Sync + Sized {
    /// The element type of the node's value.
    type Elem: Element;
    /// The static shape of the node's value.
    type Shape: Shape;
    /// The device of its tensor leaves.
    type Device: Device;
    /// The number of tensor leaves under the node (a leaf counts each
    /// time it appears).
    const LEAVES: usize;

    /// The number of operations under the node ([`Expr::OPS`]).
    #[doc(hidden)]
    const OPS: usize = 0;

    /// The same expression with its shape types erased: each tensor leaf
    /// as its layout (`shaped::fuse::ErasedLeaf`), each
    /// scalar as a `shaped::fuse::ErasedScalar`. The
    /// backends evaluate this form, so one instance of an evaluator serves
    /// every expression of the same operations and element types, whatever
    /// its operands' static shapes (the types have checked those where the
    /// expression was built).
    type Erased<'s>: Lowered<Elem = Self::Elem, Device = Self::Device>
    where
        Self: 's;

    /// The expression with its shape types erased ([`Node::Erased`]): the
    /// same operations over the same storages, borrowed.
    ///
    /// ```
    /// use shaped::backend::fused::{Expr, Node};
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<f32, Shape![2, 1]>::ones();
    /// let b = Tensor::<f32, Shape![3]>::ones();
    /// let e = (a.lazy() + &b).exp();
    /// let erased = e.node().erased();
    /// // The same sizes and leaves; only the shape types are gone.
    /// assert_eq!(Expr::dims(&erased).unwrap(), e.node().dims().unwrap());
    /// # fn leaves<E: Expr>(_: &E) -> usize { E::LEAVES }
    /// assert_eq!(leaves(&erased), 2);
    /// ```
    fn erased(&self) -> Self::Erased<'_>;

    /// The run-time sizes of the value: the leaves' sizes broadcast
    /// together, with the eager operations' error when they do not.
    ///
    /// # Errors
    /// PyTorch's broadcast error, for the first pair (in evaluation order)
    /// whose sizes do not match.
    fn dims(&self) -> Result<DimVec, ShapeError> {
        Expr::dims(&self.erased())
    }

    /// Hands every tensor leaf to `v`, in index order.
    fn visit<'a, V: Leaves<'a, Self::Device>>(&'a self, v: &mut V);
}

/// Evaluating a fused expression whose value has elements `T` on a device:
/// one pass over memory on the CPU, one generated kernel on CUDA (for the
/// element types CUDA stores). As every backend primitive, it sees storages
/// and layouts and returns a new storage and its sizes ([`Output`]): the
/// typed front (`Lazy::eval` and the reductions of `shaped::fuse::Lazy`)
/// checks them against the expression's shape type.
///
/// ```
/// use shaped::backend::fused::{Fused, Node};
/// use shaped::device::Cpu;
/// use shaped::{Shape, Tensor};
/// let a = Tensor::<f64, Shape![3]>::from_vec(vec![1., 2., 3.]);
/// let e = a.lazy() * 2.0;
/// let o = Cpu::eval(&e.node().erased()).unwrap();
/// assert_eq!(o.dims(), [3]);
/// assert_eq!(e.eval().to_vec(), [2., 4., 6.]);
/// ```
pub trait Fused<T: Element>: Device {
    /// The expression's value in a new contiguous storage.
    ///
    /// # Errors
    /// The broadcast error of [`Node::dims`], an allocation error, or a
    /// device error.
    fn eval<E: Lowered<Device = Self, Elem = T>>(
        e: &E,
    ) -> Result<Output<Self::Storage<T>>, Self::Error>;

    /// The expression's value written into `out`, whose sizes must be the
    /// broadcast sizes (PyTorch's `out=`: `out` is not resized). A leaf may
    /// be a view of `out`'s storage: the value is then computed first and
    /// copied.
    ///
    /// # Errors
    /// As [`Fused::eval`]; "output with shape [..] doesn't match the
    /// broadcast shape [..]" when `out`'s sizes differ; PyTorch's overlap
    /// errors when `out`'s elements share memory.
    fn eval_into<E: Lowered<Device = Self, Elem = T>>(
        e: &E,
        out: Layout<'_, Self::Storage<T>>,
    ) -> Result<(), Self::Error>;

    /// Reduction `r` over the axes in `mask` of the expression's value,
    /// keeping them with size 1 when `keepdim`, as [`Backend::reduce`]. On
    /// the CPU sums, means and extremes run in the same pass as the
    /// expression; on CUDA every reduction over the trailing axes does,
    /// when the rows are aligned for 16-byte loads (one block per output
    /// row). Otherwise (and for the CPU's products) the value is evaluated
    /// first, then reduced: two passes.
    ///
    /// # Errors
    /// As [`Fused::eval`] and [`Backend::reduce`].
    fn reduce_fused<E: Lowered<Device = Self, Elem = T>>(
        e: &E,
        r: Reduction,
        mask: &[bool],
        keepdim: bool,
    ) -> Result<Output<Self::Storage<T>>, Self::Error>
    where
        T: Numeric,
        Self: Backend<T>,
    {
        let value = Owned::new(Self::eval(e)?);
        <Self as Backend<T>>::reduce(r, value.layout(), mask, keepdim)
    }
}

/// The backward pass of a fused expression on a device: the gradient of
/// each tensor leaf that needs one, given the upstream gradient. As every
/// backend primitive, it sees the erased expression, layouts and storages;
/// `shaped::autograd` (the front) wraps the results as tensors of the
/// leaves' sizes.
///
/// ```
/// use shaped::autograd::Var;
/// use shaped::backend::fused::FusedGrad;
/// use shaped::device::Cpu;
/// use shaped::{Shape, Tensor};
/// fn differentiates<D: FusedGrad<f64>>() {}
/// differentiates::<Cpu>();
/// // What runs under a fused chain's backward pass (`eval_var`):
/// let x = Var::constant(Tensor::<f64, Shape![2, 2]>::from_vec(vec![1., 2., 3., 4.]));
/// let w = Var::param(Tensor::<f64, Shape![2]>::from_vec(vec![10., 100.]));
/// let g = (x.lazy() * &w).eval_var().sum().backward();
/// // d/dw of sum(x * w): the column sums of x, with w's sizes.
/// assert_eq!(g.wrt(&w).unwrap().to_vec(), [4., 6.]);
/// ```
pub trait FusedGrad<T: Float>: Fused<T> + Backend<T> {
    /// For each leaf of `e` (in leaf order) that `needs` asks for, its
    /// adjoint given the upstream gradient `g` (of `e`'s sizes), summed
    /// over the axes along which the chain broadcast the leaf: an output
    /// of the leaf's sizes. `None` for the others.
    ///
    /// # Errors
    /// An allocation or device error; a `g` whose sizes are not `e`'s is
    /// the caller's mistake, reported as PyTorch's expand error.
    fn gradients<E: LoweredGrad<T, Device = Self>>(
        e: &E,
        g: Layout<'_, Self::Storage<T>>,
        needs: &[bool],
    ) -> Result<LeafGrads<Self::Storage<T>>, Self::Error>;
}

/// What [`FusedGrad::gradients`] returns: per leaf, in leaf order, its
/// gradient (a storage of its sizes) or `None` where none was asked for.
///
/// ```
/// use shaped::backend::fused::LeafGrads;
/// use shaped::device::{Cpu, Device};
/// let none: LeafGrads<<Cpu as Device>::Storage<f32>> = vec![None, None];
/// assert!(none.iter().all(Option::is_none));
/// ```
pub type LeafGrads<S> = Vec<Option<Output<S>>>;
