//! The CPU's lowering of a fused expression ([`Expr`]): the whole tree as
//! one scalar function of an element's position in a block ([`CpuExpr::at`]),
//! over the block's [`Lane`]s, so that the loop over a block keeps every
//! intermediate value in registers and the compiler vectorises the whole
//! chain. The expression's nodes know nothing of this; the impls here are
//! the CPU's reading of each node type.

use core::mem::MaybeUninit;

use super::{Block, Lane, fill_chunked};
use crate::backend::fused::expr::{Binary, ErasedLeaf, ErasedScalar, Expr, Ternary, Unary};
use crate::backend::op::{Map1, Map2, Map3};
use crate::device::Device;
use crate::element::Element;

/// An expression the CPU evaluates block by block.
///
/// ```
/// use shaped::backend::fused::{CpuExpr, Node};
/// use shaped::{Shape, Tensor};
/// let a = Tensor::<f32, Shape![3]>::from_vec(vec![1., 2., 3.]);
/// let e = a.lazy() * 2.0f32;
/// # fn lowered<E: CpuExpr>(_: &E) -> bool { true }
/// assert!(lowered(&e.node().erased()));
/// ```
#[doc(hidden)]
pub trait CpuExpr: Expr {
    /// What [`CpuExpr::at`] reads over a block: each leaf's elements as a
    /// [`Lane`] (the block's, then padding; a broadcast leaf's value
    /// repeated over one [`CHUNK`](super::CHUNK); a strided leaf's
    /// gathered), each operation's scalar parameter.
    type Lanes<'s>: Copy
    where
        Self: 's;

    /// The node's lanes over block `b`, leaves numbered from `first`.
    fn lanes<'s>(&'s self, b: &'s Block<'_>, first: usize) -> Self::Lanes<'s>;

    /// The node's value at element `c * CHUNK + j` of the block (element
    /// `j` of chunk `c`).
    fn at(l: &Self::Lanes<'_>, c: usize, j: usize) -> Self::Elem;

    /// Writes the expression's value over block `b` into `dst`
    /// (`b.len()` elements), one element at a time through
    /// [`CpuExpr::at`].
    #[inline(always)]
    fn write(&self, b: &Block<'_>, dst: &mut [MaybeUninit<Self::Elem>]) {
        let n = b.len();
        let l = self.lanes(b, 0);
        fill_chunked(&mut dst[..n], |c, j| Self::at(&l, c, j));
    }
}

impl<T: Element, D: Device> CpuExpr for ErasedLeaf<'_, T, D> {
    type Lanes<'s>
        = Lane<'s, T>
    where
        Self: 's;

    #[inline(always)]
    fn lanes<'s>(&'s self, b: &'s Block<'_>, first: usize) -> Lane<'s, T> {
        b.lane(first)
    }

    #[inline(always)]
    fn at(l: &Lane<'_, T>, c: usize, j: usize) -> T {
        l.at(c, j)
    }
}

impl<T: Element, D: Device> CpuExpr for ErasedScalar<T, D> {
    type Lanes<'s>
        = T
    where
        Self: 's;

    #[inline(always)]
    fn lanes<'s>(&'s self, _: &'s Block<'_>, _: usize) -> T {
        self.0
    }

    #[inline(always)]
    fn at(l: &T, _: usize, _: usize) -> T {
        *l
    }
}

impl<Op: Map1<A::Elem>, A: CpuExpr> CpuExpr for Unary<Op, A> {
    type Lanes<'s>
        = (Op, A::Lanes<'s>)
    where
        Self: 's;

    #[inline(always)]
    fn lanes<'s>(&'s self, b: &'s Block<'_>, first: usize) -> Self::Lanes<'s> {
        (self.0, self.1.lanes(b, first))
    }

    #[inline(always)]
    fn at(l: &Self::Lanes<'_>, c: usize, j: usize) -> A::Elem {
        l.0.call(A::at(&l.1, c, j))
    }
}

impl<Op, A, B> CpuExpr for Binary<Op, A, B>
where
    Op: Map2<A::Elem>,
    A: CpuExpr,
    B: CpuExpr<Elem = A::Elem, Device = A::Device>,
{
    type Lanes<'s>
        = (Op, A::Lanes<'s>, B::Lanes<'s>)
    where
        Self: 's;

    #[inline(always)]
    fn lanes<'s>(&'s self, b: &'s Block<'_>, first: usize) -> Self::Lanes<'s> {
        (
            self.0,
            self.1.lanes(b, first),
            self.2.lanes(b, first + A::LEAVES),
        )
    }

    #[inline(always)]
    fn at(l: &Self::Lanes<'_>, c: usize, j: usize) -> Op::Out {
        l.0.call(A::at(&l.1, c, j), B::at(&l.2, c, j))
    }
}

impl<Op, A, B, C> CpuExpr for Ternary<Op, A, B, C>
where
    Op: Map3<A::Elem, B::Elem>,
    A: CpuExpr,
    B: CpuExpr<Device = A::Device>,
    C: CpuExpr<Elem = B::Elem, Device = A::Device>,
{
    type Lanes<'s>
        = (Op, A::Lanes<'s>, B::Lanes<'s>, C::Lanes<'s>)
    where
        Self: 's;

    #[inline(always)]
    fn lanes<'s>(&'s self, b: &'s Block<'_>, first: usize) -> Self::Lanes<'s> {
        let (second, third) = (first + A::LEAVES, first + A::LEAVES + B::LEAVES);
        (
            self.0,
            self.1.lanes(b, first),
            self.2.lanes(b, second),
            self.3.lanes(b, third),
        )
    }

    #[inline(always)]
    fn at(l: &Self::Lanes<'_>, c: usize, j: usize) -> B::Elem {
        l.0.call(A::at(&l.1, c, j), B::at(&l.2, c, j), C::at(&l.3, c, j))
    }
}
