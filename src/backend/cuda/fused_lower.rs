//! The CUDA lowering of a fused expression ([`Expr`]): the tree as one C
//! expression over the kernel's leaf loads and scalar slots, from which
//! `cuda/fused.rs` generates one kernel per distinct expression. The
//! expression's nodes know nothing of this; the impls here are the CUDA
//! generator's reading of each node type. (Always compiled, with or
//! without the `cuda` feature: the source is plain text.)

use super::fused_source::{CudaGen, c_name};
use crate::backend::fused::expr::{Binary, ErasedLeaf, ErasedScalar, Expr, Ternary, Unary};
use crate::backend::op::{Map1, Map2, Map3};
use crate::device::Device;
use crate::element::Element;

/// An expression the CUDA generator writes as C.
///
/// ```
/// use shaped::backend::fused::{CudaExpr, CudaGen, Node};
/// use shaped::{Shape, Tensor};
/// let (a, b) = (Tensor::<f32, Shape![4, 8]>::ones(), Tensor::<f32, Shape![8]>::ones());
/// let e = (a.lazy() * &b).exp();
/// let mut g = CudaGen::default();
/// let expr = e.node().erased().cuda(&mut g, 0);
/// assert!(expr.contains("x0") && expr.contains("x1"));
/// ```
pub trait CudaExpr: Expr {
    /// The node's value as a CUDA C expression over the kernel's leaf
    /// loads and scalar slots, registering its operations' functions with
    /// `g`; leaves are numbered from `first`.
    fn cuda(&self, g: &mut CudaGen, first: usize) -> String;
}

impl<T: Element, D: Device> CudaExpr for ErasedLeaf<'_, T, D> {
    fn cuda(&self, g: &mut CudaGen, first: usize) -> String {
        g.leaf::<T>(first)
    }
}

impl<T: Element, D: Device> CudaExpr for ErasedScalar<T, D> {
    fn cuda(&self, g: &mut CudaGen, _: usize) -> String {
        g.scalar(self.0)
    }
}

impl<Op: Map1<A::Elem>, A: CudaExpr> CudaExpr for Unary<Op, A> {
    fn cuda(&self, g: &mut CudaGen, first: usize) -> String {
        let a = self.1.cuda(g, first);
        let t = c_name(A::Elem::NAME);
        g.call::<A::Elem>(
            &Op::DEF,
            t,
            t,
            [Some(&a), None, None],
            Some(self.0.scalar()),
        )
    }
}

impl<Op, A, B> CudaExpr for Binary<Op, A, B>
where
    Op: Map2<A::Elem>,
    A: CudaExpr,
    B: CudaExpr<Elem = A::Elem, Device = A::Device>,
{
    fn cuda(&self, g: &mut CudaGen, first: usize) -> String {
        let a = self.1.cuda(g, first);
        let b = self.2.cuda(g, first + A::LEAVES);
        let t = c_name(A::Elem::NAME);
        let out = c_name(Op::Out::NAME);
        g.call::<A::Elem>(
            &Op::DEF,
            t,
            out,
            [Some(&a), Some(&b), None],
            Some(self.0.scalar()),
        )
    }
}

impl<Op, A, B, C> CudaExpr for Ternary<Op, A, B, C>
where
    Op: Map3<A::Elem, B::Elem>,
    A: CudaExpr,
    B: CudaExpr<Device = A::Device>,
    C: CudaExpr<Elem = B::Elem, Device = A::Device>,
{
    fn cuda(&self, g: &mut CudaGen, first: usize) -> String {
        let a = self.1.cuda(g, first);
        let b = self.2.cuda(g, first + A::LEAVES);
        let c = self.3.cuda(g, first + A::LEAVES + B::LEAVES);
        let a0 = c_name(A::Elem::NAME);
        let t = c_name(B::Elem::NAME);
        g.call::<B::Elem>(
            &Op::DEF,
            a0,
            t,
            [Some(&a), Some(&b), Some(&c)],
            Some(self.0.scalar()),
        )
    }
}
