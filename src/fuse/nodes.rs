//! The nodes of a fused expression: tensor leaves, scalars, and op-table
//! operations of one, two or three operands. Each implements
//! [`Node`]: its shape is the eager operation's (`Broadcast<A, B>`, ...),
//! so a static broadcast mismatch fails where the node is built, and its
//! CPU and CUDA evaluations call the op's two sides from the op table.
//! [`ErasedLeaf`] and [`ErasedScalar`] are the leaves of an expression's
//! erased form (`Node::erased`), the one the backends evaluate: the same
//! tree with every shape `DynRank`.

use core::marker::PhantomData;

use crate::Tensor;
use crate::backend::Layout;
use crate::backend::cuda::fused_source::c_name;
use crate::backend::fused::{Block, CudaGen, Lane, Leaves, Node, sealed};
use crate::backend::op::{Map1, Map2, Map3};
use crate::device::Device;
use crate::element::Element;
use crate::shape::{
    Broadcast, Broadcast3, BroadcastShape, DimVec, DynRank, Shape, ShapeError, broadcast_pair,
};

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

/// A tensor leaf with its shape type erased: the tensor's layout (storage,
/// sizes, strides, offset), borrowed. The form in which the backends
/// evaluate a [`Leaf`] (`Node::erased`).
///
/// ```
/// use shaped::backend::fused::Node;
/// use shaped::{Shape, Tensor};
/// let a = Tensor::<f32, Shape![2, 3]>::ones();
/// let e = a.lazy() * 2.0f32;
/// // The erased expression: the same sizes and leaves, shape `DynRank`.
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

/// A scalar operand with its shape type erased: shape `DynRank`, 0-d at
/// run time. The form in which the backends evaluate a [`Scalar`]
/// (`Node::erased`).
///
/// ```
/// use shaped::backend::fused::Node;
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

impl<T: Element, S: Shape, D: Device> sealed::Sealed for Leaf<'_, T, S, D> {}
impl<T, D> sealed::Sealed for Scalar<T, D> {}
impl<T: Element, D: Device> sealed::Sealed for ErasedLeaf<'_, T, D> {}
impl<T, D> sealed::Sealed for ErasedScalar<T, D> {}
impl<Op, A> sealed::Sealed for Unary<Op, A> {}
impl<Op, A, B> sealed::Sealed for Binary<Op, A, B> {}
impl<Op, A, B, C> sealed::Sealed for Ternary<Op, A, B, C> {}

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

    fn dims(&self) -> Result<DimVec, ShapeError> {
        Ok(DimVec::from_slice(self.0.dims()))
    }

    fn visit<'a, V: Leaves<'a, D>>(&'a self, v: &mut V) {
        v.leaf(self.0.layout())
    }

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

    fn cuda(&self, g: &mut CudaGen, first: usize) -> String {
        g.leaf::<T>(first)
    }
}

/// A tensor leaf's layout as a node: the [`Leaf`]'s evaluation, without
/// its shape type.
impl<T: Element, D: Device> Node for ErasedLeaf<'_, T, D> {
    type Elem = T;
    type Shape = DynRank;
    type Device = D;
    const LEAVES: usize = 1;

    type Erased<'s>
        = Self
    where
        Self: 's;

    fn erased(&self) -> Self {
        *self
    }

    fn dims(&self) -> Result<DimVec, ShapeError> {
        Ok(DimVec::from_slice(self.0.dims()))
    }

    fn visit<'a, V: Leaves<'a, D>>(&'a self, v: &mut V) {
        v.leaf(self.0)
    }

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

    fn cuda(&self, g: &mut CudaGen, first: usize) -> String {
        g.leaf::<T>(first)
    }
}

/// Writes the [`Node`] impl of a scalar type of shape `$shape`, whose
/// erased form is `$erased`.
macro_rules! scalar_node {
    ($ty:ident, $shape:ty, $erased:ident) => {
        impl<T: Element, D: Device> Node for $ty<T, D> {
            type Elem = T;
            type Shape = $shape;
            type Device = D;
            const LEAVES: usize = 0;

            type Erased<'s>
                = $erased<T, D>
            where
                Self: 's;

            fn erased(&self) -> $erased<T, D> {
                $erased(self.0, PhantomData)
            }

            fn dims(&self) -> Result<DimVec, ShapeError> {
                Ok(DimVec::new())
            }

            fn visit<'a, V: Leaves<'a, D>>(&'a self, _: &mut V) {}

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

            fn cuda(&self, g: &mut CudaGen, _: usize) -> String {
                g.scalar(self.0)
            }
        }
    };
}
scalar_node!(Scalar, (), ErasedScalar);
scalar_node!(ErasedScalar, DynRank, ErasedScalar);

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

    fn dims(&self) -> Result<DimVec, ShapeError> {
        self.1.dims()
    }

    fn visit<'a, V: Leaves<'a, A::Device>>(&'a self, v: &mut V) {
        self.1.visit(v)
    }

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

    fn transcendental(&self) -> bool {
        (const { Op::DEF.transcendental() }) || self.1.transcendental()
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

    fn dims(&self) -> Result<DimVec, ShapeError> {
        broadcast_pair(&self.1.dims()?, &self.2.dims()?)
    }

    fn visit<'a, V: Leaves<'a, A::Device>>(&'a self, v: &mut V) {
        self.1.visit(v);
        self.2.visit(v);
    }

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

    fn transcendental(&self) -> bool {
        (const { Op::DEF.transcendental() }) || self.1.transcendental() || self.2.transcendental()
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

    fn transcendental(&self) -> bool {
        (const { Op::DEF.transcendental() })
            || self.1.transcendental()
            || self.2.transcendental()
            || self.3.transcendental()
    }
}
