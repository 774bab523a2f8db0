//! The typed nodes of a fused expression: tensor leaves, scalars, and
//! op-table operations of one, two or three operands. Each implements
//! [`Node`]: its shape is the eager operation's (`Broadcast<A, B>`, ...),
//! so a static broadcast mismatch fails where the node is built. The
//! operation nodes ([`Unary`], [`Binary`], [`Ternary`]) are the backend's
//! expression types (`backend::fused::expr`), over typed children here and
//! over erased ones there; [`ErasedLeaf`] and [`ErasedScalar`] are the
//! leaves of an expression's erased form (`Node::erased`), the one the
//! backends lower and evaluate. Nothing here is backend code; each node's
//! run-time sizes are its erased form's (`Node::dims`).

use core::marker::PhantomData;

use crate::Tensor;
use crate::backend::fused::expr::sealed;
pub use crate::backend::fused::expr::{Binary, ErasedLeaf, ErasedScalar, Ternary, Unary};
use crate::backend::fused::{Leaves, Node};
use crate::backend::op::{Map1, Map2, Map3};
use crate::device::Device;
use crate::element::Element;
use crate::shape::{Broadcast, Broadcast3, BroadcastShape, Shape};

/// A tensor leaf: the tensor, borrowed until the expression is evaluated.
///
/// ```
/// use shaped::{Shape, Tensor};
/// let a = Tensor::<i32, Shape![2]>::from_vec(vec![1, 2]);
/// assert_eq!(a.lazy().eval().to_vec(), [1, 2]);
/// ```
pub struct Leaf<'a, T: Element, S: Shape, D: Device>(pub(crate) &'a Tensor<T, S, D>);

impl<T: Element, S: Shape, D: Device> core::fmt::Debug for Leaf<'_, T, S, D> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Leaf({}{:?})", T::NAME, self.0.dims())
    }
}

impl<T: Element, S: Shape, D: Device> Clone for Leaf<'_, T, S, D> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Element, S: Shape, D: Device> Copy for Leaf<'_, T, S, D> {}

/// A scalar operand: a 0-d value broadcast to every element.
///
/// ```
/// use shaped::{Shape, Tensor};
/// let a = Tensor::<f64, Shape![2]>::from_vec(vec![1., 2.]);
/// assert_eq!((a.lazy() + 0.5).eval().to_vec(), [1.5, 2.5]);
/// ```
#[derive(Debug)]
pub struct Scalar<T, D>(pub(crate) T, pub(crate) PhantomData<D>);

impl<T: Copy, D> Clone for Scalar<T, D> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Copy, D> Copy for Scalar<T, D> {}

impl<T: Element, S: Shape, D: Device> sealed::Sealed for Leaf<'_, T, S, D> {}
impl<T, D> sealed::Sealed for Scalar<T, D> {}

impl<T: Element, S: Shape, D: Device> Node for Leaf<'_, T, S, D> {
    type Elem = T;
    type Shape = S;
    type Device = D;
    const LEAVES: usize = 1;

    type Erased<'s>
        = ErasedLeaf<'s, T, D>
    where
        Self: 's;

    fn erased(&self) -> ErasedLeaf<'_, T, D> {
        ErasedLeaf(self.0.layout())
    }

    fn visit<'a, V: Leaves<'a, D>>(&'a self, v: &mut V) {
        v.leaf(self.0.layout())
    }
}

impl<T: Element, D: Device> Node for Scalar<T, D> {
    type Elem = T;
    type Shape = ();
    type Device = D;
    const LEAVES: usize = 0;

    type Erased<'s>
        = ErasedScalar<T, D>
    where
        Self: 's;

    fn erased(&self) -> ErasedScalar<T, D> {
        ErasedScalar(self.0, PhantomData)
    }

    fn visit<'a, V: Leaves<'a, D>>(&'a self, _: &mut V) {}
}

impl<Op: Map1<A::Elem>, A: Node> Node for Unary<Op, A> {
    type Elem = A::Elem;
    type Shape = A::Shape;
    type Device = A::Device;
    const LEAVES: usize = A::LEAVES;
    const OPS: usize = 1 + A::OPS;

    type Erased<'s>
        = Unary<Op, A::Erased<'s>>
    where
        Self: 's;

    fn erased(&self) -> Self::Erased<'_> {
        Unary(self.0, self.1.erased())
    }

    fn visit<'a, V: Leaves<'a, A::Device>>(&'a self, v: &mut V) {
        self.1.visit(v)
    }
}

impl<Op, A, B> Node for Binary<Op, A, B>
where
    Op: Map2<A::Elem>,
    A: Node,
    B: Node<Elem = A::Elem, Device = A::Device>,
    A::Shape: BroadcastShape<B::Shape>,
{
    type Elem = Op::Out;
    type Shape = Broadcast<A::Shape, B::Shape>;
    type Device = A::Device;
    const LEAVES: usize = A::LEAVES + B::LEAVES;
    const OPS: usize = 1 + A::OPS + B::OPS;

    type Erased<'s>
        = Binary<Op, A::Erased<'s>, B::Erased<'s>>
    where
        Self: 's;

    fn erased(&self) -> Self::Erased<'_> {
        Binary(self.0, self.1.erased(), self.2.erased())
    }

    fn visit<'a, V: Leaves<'a, A::Device>>(&'a self, v: &mut V) {
        self.1.visit(v);
        self.2.visit(v);
    }
}

impl<Op, A, B, C> Node for Ternary<Op, A, B, C>
where
    Op: Map3<A::Elem, B::Elem>,
    A: Node,
    B: Node<Device = A::Device>,
    C: Node<Elem = B::Elem, Device = A::Device>,
    A::Shape: Broadcast3<B::Shape, C::Shape>,
{
    type Elem = B::Elem;
    type Shape = <A::Shape as Broadcast3<B::Shape, C::Shape>>::Output;
    type Device = A::Device;
    const LEAVES: usize = A::LEAVES + B::LEAVES + C::LEAVES;
    const OPS: usize = 1 + A::OPS + B::OPS + C::OPS;

    type Erased<'s>
        = Ternary<Op, A::Erased<'s>, B::Erased<'s>, C::Erased<'s>>
    where
        Self: 's;

    fn erased(&self) -> Self::Erased<'_> {
        Ternary(self.0, self.1.erased(), self.2.erased(), self.3.erased())
    }

    fn visit<'a, V: Leaves<'a, A::Device>>(&'a self, v: &mut V) {
        self.1.visit(v);
        self.2.visit(v);
        self.3.visit(v);
    }
}
