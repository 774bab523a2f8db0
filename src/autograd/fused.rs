//! Gradients through fused chains: a [`Lazy`] expression over [`Var`]s
//! (`x.lazy()`), evaluated with [`Lazy::eval_var`], is one node of the
//! graph whose forward pass is one pass over memory, and whose backward
//! pass gives every input's gradient in one pass too: the chain's value
//! and its adjoints are recomputed block by block, each block staying in
//! L1, from the upstream gradient and the inputs (no intermediate is stored
//! between the passes); every input's adjoint comes from the same block,
//! written out, or, for an input the chain broadcast, summed back to its
//! shape as the blocks go by. `gelu`'s or `silu`'s gradient is thus one
//! pass, and so are the gradients of `gelu(x * w + b)` with respect to
//! `x`, `w` and `b` together.
//!
//! The derivative of each op-table operation is the op table's own
//! (`tanh_backward`, ...), so the rules are the eager ones. Operations with
//! a gradient: the one-operand table ops, `+ - * /`, `where` (`select`),
//! `clamp` and `lerp`; comparisons may appear inside a `where` condition.
//!
//! On CUDA (`Var<T, S, Cuda>`), the forward pass is the chain's generated
//! kernel, and each input's gradient is one generated kernel too: the
//! adjoint written as C from the same op-table derivatives (each
//! intermediate value computed once, in registers), followed, for an input
//! the chain broadcast, by the eager sum back to its shape.
//!
//! This file is the front: the graph parents of each leaf and the erased
//! expression it hands down ([`Adjoint::grad_expr`]). The backward passes
//! themselves are the backends' (`backend/cpu/fused/adjoint.rs`,
//! `backend/cuda/fused_adjoint.rs`, through
//! [`FusedGrad`](crate::backend::fused::FusedGrad)), over the erased
//! expression, so one instance serves a chain whatever its operands'
//! static shapes; the rules of `+ - * /`, `clamp` and `lerp` are written
//! once, in `backend/fused/grads.rs`.

use std::sync::Arc;

use super::graph::{DynTensor, Grads, GraphNode};
use super::var::Var;
use crate::Tensor;
use crate::backend::fused::expr::sealed;
use crate::backend::fused::{BinaryRule, Fused, FusedGrad, Leaves, LoweredGrad, Node, TernaryRule};
use crate::backend::op::table;
use crate::backend::op::{Derivative, Map1, Map3};
use crate::device::{Cpu, Device};
use crate::element::Float;
use crate::fuse::{Binary, ErasedLeaf, ErasedScalar, IntoLazy, Lazy, Scalar, Ternary, Unary};
use crate::shape::{Broadcast3, BroadcastShape, OrPanic, Shape};

/// A [`Var`] as the leaf of a fused expression (a handle on it: the
/// expression owns what its backward pass needs).
///
/// ```
/// use shaped::autograd::Var;
/// use shaped::{Shape, Tensor};
/// let x = Var::param(Tensor::<f64, Shape![2]>::from_vec(vec![1., -2.]));
/// let y = x.lazy().square().eval_var();
/// assert_eq!(y.sum().backward().wrt(&x).unwrap().to_vec(), [2., -4.]);
/// ```
pub struct VarLeaf<T: Float, S: Shape, D: Device = Cpu>(Var<T, S, D>);

impl<T: Float, S: Shape, D: Device> Clone for VarLeaf<T, S, D> {
    fn clone(&self) -> Self {
        VarLeaf(self.0.clone())
    }
}

impl<T: Float, S: Shape, D: Device> core::fmt::Debug for VarLeaf<T, S, D> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "VarLeaf({:?})", self.0.dims())
    }
}

impl<T: Float, S: Shape, D: Device> sealed::Sealed for VarLeaf<T, S, D> {}

impl<T: Float, S: Shape, D: Device> Node for VarLeaf<T, S, D> {
    type Elem = T;
    type Shape = S;
    type Device = D;
    const LEAVES: usize = 1;

    type Erased<'s>
        = ErasedLeaf<'s, T, D>
    where
        Self: 's;

    fn erased(&self) -> ErasedLeaf<'_, T, D> {
        ErasedLeaf(self.0.value.layout())
    }

    fn visit<'a, V: Leaves<'a, D>>(&'a self, v: &mut V) {
        v.leaf(self.0.value.layout())
    }
}

impl<T: Float, S: Shape, D: Device> Var<T, S, D> {
    /// The variable as the leaf of a fused expression: evaluated with
    /// [`Lazy::eval_var`], the expression is one node of the graph, with a
    /// one-pass forward and a one-pass backward.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f32, Shape![3]>::from_vec(vec![-1., 0.5, 2.]));
    /// let w = Var::param(Tensor::<f32, Shape![1]>::from_vec(vec![2.]));
    /// let y = (x.lazy() * &w).gelu().eval_var();
    /// let eager = x.mul(&w).gelu();
    /// assert_eq!(y.value().to_vec(), eager.value().to_vec());
    /// let (g, e) = (y.sum().backward(), eager.sum().backward());
    /// assert_eq!(g.wrt(&w).unwrap().to_vec(), e.wrt(&w).unwrap().to_vec());
    /// ```
    pub fn lazy(&self) -> Lazy<VarLeaf<T, S, D>> {
        lazy_var(self)
    }
}

/// `v` as a fused expression.
fn lazy_var<T: Float, S: Shape, D: Device>(v: &Var<T, S, D>) -> Lazy<VarLeaf<T, S, D>> {
    crate::fuse::lazy(v)
}

impl<T: Float, S: Shape, D: Device> IntoLazy<T, D> for &Var<T, S, D> {
    type Node = VarLeaf<T, S, D>;
    fn into_node(self) -> VarLeaf<T, S, D> {
        VarLeaf(self.clone())
    }
}

/// A leaf's node in the graph (`None`: a scalar or plain tensor, which no
/// gradient flows to and nothing watches).
#[doc(hidden)]
pub struct Parent<T: Float, D: Device = Cpu>(Option<Arc<GraphNode<T, D>>>);

/// The gradient side of a fused node: its graph parents (one per tensor
/// leaf, `None` where no gradient flows) and its erased form as the
/// backends differentiate it ([`LoweredGrad`]: the CPU's block adjoints,
/// the generated CUDA ones, from the op table's derivatives). Implemented
/// by the node types whose operations have a gradient: the one-operand
/// table ops, `+ - * /`, `where` (its condition takes none), `clamp` and
/// `lerp`.
///
/// ```
/// use shaped::autograd::{Adjoint, Var};
/// use shaped::{Shape, Tensor};
/// fn differentiable<E: Adjoint<f64>>(_: &E) -> usize { E::LEAVES }
/// let x = Var::param(Tensor::<f64, Shape![2]>::from_vec(vec![1., -2.]));
/// assert_eq!(differentiable((x.lazy() * &x).tanh().node()), 2);
/// ```
pub trait Adjoint<T: Float>: Node + Clone + Send + 'static {
    /// The erased expression the backends differentiate: the node's
    /// [`Node::erased`] form, with the bound that says its operations have
    /// gradients.
    type Grad<'s>: LoweredGrad<T, Device = Self::Device>
    where
        Self: 's;

    /// The erased expression ([`Adjoint::Grad`]).
    ///
    /// ```
    /// use shaped::autograd::{Adjoint, Var};
    /// use shaped::backend::fused::{CudaGen, cuda_adjoint};
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f32, Shape![4]>::ones());
    /// let e = x.lazy().sigmoid();
    /// let mut g = CudaGen::default();
    /// // The adjoint of leaf 0 as the CUDA backward pass generates it.
    /// assert!(cuda_adjoint(&e.node().grad_expr(), 0, &mut g).contains("x1"));
    /// ```
    fn grad_expr(&self) -> Self::Grad<'_>;

    /// Pushes each leaf's graph node, in leaf order.
    #[doc(hidden)]
    fn parents(&self, out: &mut Vec<Parent<T, Self::Device>>);
}

impl<T: Float, S: Shape, D: Device> Adjoint<T> for VarLeaf<T, S, D>
where
    Var<T, S, D>: Sync,
{
    type Grad<'s>
        = ErasedLeaf<'s, T, D>
    where
        Self: 's;
    fn grad_expr(&self) -> ErasedLeaf<'_, T, D> {
        self.erased()
    }
    fn parents(&self, out: &mut Vec<Parent<T, D>>) {
        out.push(Parent(Some(self.0.node.clone())));
    }
}

impl<T: Float, D: Device> Adjoint<T> for Scalar<T, D> {
    type Grad<'s>
        = ErasedScalar<T, D>
    where
        Self: 's;
    fn grad_expr(&self) -> ErasedScalar<T, D> {
        self.erased()
    }
    fn parents(&self, _: &mut Vec<Parent<T, D>>) {}
}

impl<T, Op, A> Adjoint<T> for Unary<Op, A>
where
    T: Float,
    Op: Map1<T> + Derivative + Clone + Send + 'static,
    Op::Backward: Map3<T, T>,
    A: Adjoint<T> + Node<Elem = T>,
{
    type Grad<'s>
        = Unary<Op, A::Grad<'s>>
    where
        Self: 's;
    fn grad_expr(&self) -> Self::Grad<'_> {
        Unary(self.0, self.1.grad_expr())
    }
    fn parents(&self, out: &mut Vec<Parent<T, A::Device>>) {
        self.1.parents(out)
    }
}

impl<T, Op, A, B> Adjoint<T> for Binary<Op, A, B>
where
    T: Float,
    Op: BinaryRule<T> + Clone + Send + 'static,
    A: Adjoint<T> + Node<Elem = T>,
    B: Adjoint<T> + Node<Elem = T, Device = A::Device>,
    A::Shape: BroadcastShape<B::Shape>,
{
    type Grad<'s>
        = Binary<Op, A::Grad<'s>, B::Grad<'s>>
    where
        Self: 's;
    fn grad_expr(&self) -> Self::Grad<'_> {
        Binary(self.0, self.1.grad_expr(), self.2.grad_expr())
    }
    fn parents(&self, out: &mut Vec<Parent<T, A::Device>>) {
        self.1.parents(out);
        self.2.parents(out);
    }
}

impl<T, C, X, Y> Adjoint<T> for Ternary<table::Where, C, X, Y>
where
    T: Float,
    C: Node<Elem = bool> + Clone + Send + 'static,
    X: Adjoint<T> + Node<Elem = T, Device = C::Device>,
    Y: Adjoint<T> + Node<Elem = T, Device = C::Device>,
    C::Shape: Broadcast3<X::Shape, Y::Shape>,
{
    type Grad<'s>
        = Ternary<table::Where, C::Erased<'s>, X::Grad<'s>, Y::Grad<'s>>
    where
        Self: 's;
    fn grad_expr(&self) -> Self::Grad<'_> {
        Ternary(
            self.0,
            self.1.erased(),
            self.2.grad_expr(),
            self.3.grad_expr(),
        )
    }
    fn parents(&self, out: &mut Vec<Parent<T, C::Device>>) {
        out.extend((0..C::LEAVES).map(|_| Parent(None)));
        self.2.parents(out);
        self.3.parents(out);
    }
}

/// Writes the gradient side of the three-operand ops whose rule is a
/// [`TernaryRule`] (`where` has its own, above).
macro_rules! factor_ops {
    ($($Op:ident),*) => {$(
impl<T, A, B, C> Adjoint<T> for Ternary<table::$Op, A, B, C>
where
    T: Float,
    table::$Op: TernaryRule<T>,
    A: Adjoint<T> + Node<Elem = T>,
    B: Adjoint<T> + Node<Elem = T, Device = A::Device>,
    C: Adjoint<T> + Node<Elem = T, Device = A::Device>,
    A::Shape: Broadcast3<B::Shape, C::Shape>,
{
    type Grad<'s>
        = Ternary<table::$Op, A::Grad<'s>, B::Grad<'s>, C::Grad<'s>>
    where
        Self: 's;
    fn grad_expr(&self) -> Self::Grad<'_> {
        Ternary(
            self.0,
            self.1.grad_expr(),
            self.2.grad_expr(),
            self.3.grad_expr(),
        )
    }
    fn parents(&self, out: &mut Vec<Parent<T, A::Device>>) {
        self.1.parents(out);
        self.2.parents(out);
        self.3.parents(out);
    }
}
    )*};
}
factor_ops!(Clamp, Lerp);

/// The devices whose fused chains have gradients: every device whose
/// backend differentiates fused expressions ([`FusedGrad`]): the CPU for
/// every float type, CUDA (feature `cuda`) for `f32` and `f64`. A layer
/// written over it runs on either:
///
/// ```
/// use shaped::autograd::{FusedBackward, Var};
/// use shaped::device::Cpu;
/// use shaped::{Shape, Tensor};
/// fn swish<D: FusedBackward<f32>>(x: &Var<f32, Shape![3], D>, b: &Var<f32, Shape![3], D>) -> Var<f32, Shape![3], D> {
///     (x.lazy() + b).silu().eval_var()
/// }
/// let x = Var::<f32, Shape![3], Cpu>::param(Tensor::from_vec(vec![-1., 0., 2.]));
/// let b = Var::param(Tensor::<f32, Shape![3]>::zeros());
/// let y = swish(&x, &b);
/// assert_eq!(y.value().to_vec(), x.silu().value().to_vec());
/// ```
pub trait FusedBackward<T: Float>: Fused<T> {
    /// The gradient of each leaf of `e` that needs one (`needs`, in leaf
    /// order) given the upstream gradient `g`: its adjoint, summed over
    /// the axes along which the chain broadcast it.
    #[doc(hidden)]
    fn gradients<E: Adjoint<T> + Node<Elem = T, Device = Self>>(
        e: &E,
        g: &DynTensor<T, Self>,
        needs: &[bool],
    ) -> Result<Grads<T, Self>, Self::Error>;
}

/// The backend's gradients ([`FusedGrad::gradients`], over the erased
/// expression), as tensors of the leaves' sizes.
impl<T: Float, D: FusedGrad<T>> FusedBackward<T> for D {
    fn gradients<E: Adjoint<T> + Node<Elem = T, Device = D>>(
        e: &E,
        g: &DynTensor<T, D>,
        needs: &[bool],
    ) -> Result<Grads<T, D>, D::Error> {
        let outs = <D as FusedGrad<T>>::gradients(&e.grad_expr(), g.layout(), needs)?;
        outs.into_iter()
            .map(|o| o.map(|o| Ok(Tensor::from_output(o)?)).transpose())
            .collect()
    }
}

/// The `Var` an expression's value is.
type VarOf<E> = Var<<E as Node>::Elem, <E as Node>::Shape, <E as Node>::Device>;
/// A graph node of an expression's element type and device.
type GraphRef<E> = Arc<GraphNode<<E as Node>::Elem, <E as Node>::Device>>;

impl<E: Node> Lazy<E>
where
    E: Adjoint<<E as Node>::Elem>,
    <E as Node>::Elem: Float,
    E::Device: FusedBackward<E::Elem>,
{
    /// The fallible form of [`Lazy::eval_var`].
    ///
    /// # Errors
    /// As [`Lazy::try_eval`].
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{DynRank, Tensor};
    /// let x = Var::param(Tensor::<f64, DynRank>::try_ones(&[2, 3]).unwrap());
    /// let b = Var::param(Tensor::<f64, DynRank>::try_ones(&[2]).unwrap());
    /// assert!((x.lazy() + &b).try_eval_var().is_err());
    /// ```
    pub fn try_eval_var(&self) -> Result<VarOf<E>, <E::Device as Device>::Error> {
        let value = Tensor::from_output(<E::Device as Fused<E::Elem>>::eval(&self.0.erased())?)?;
        let mut parents = Vec::with_capacity(E::LEAVES);
        self.0.parents(&mut parents);
        let refs: Vec<Option<&GraphRef<E>>> = parents.iter().map(|p| p.0.as_ref()).collect();
        let e = self.0.clone();
        Ok(Var::from_op(value, &refs, move || {
            Box::new(move |g: &DynTensor<E::Elem, E::Device>, needs: &[bool]| {
                <E::Device as FusedBackward<E::Elem>>::gradients(&e, g, needs)
            })
        }))
    }

    /// The expression's value as a [`Var`]: one node of the graph, whose
    /// value is computed in one pass and whose backward pass gives every
    /// input's gradient in one pass on the CPU (summed back to the input's
    /// shape in that pass when the chain broadcast it). Gradients equal
    /// the eager ops' (the same op-table derivatives).
    ///
    /// # Panics
    /// With the message of [`Lazy::try_eval_var`]'s error.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f64, Shape![2, 3]>::from_vec(vec![1., -2., 3., -4., 5., -6.]));
    /// let w = Var::param(Tensor::<f64, Shape![3]>::from_vec(vec![0.5, -1., 2.]));
    /// let b = Var::param(Tensor::<f64, Shape![2, 1]>::from_vec(vec![0.1, -0.2]));
    /// let fused = (x.lazy() * &w + &b).silu().eval_var();
    /// let eager = x.mul(&w).add(&b).silu();
    /// let (gf, ge) = (fused.sum().backward(), eager.sum().backward());
    /// let close = |a: Vec<f64>, b: Vec<f64>| a.iter().zip(&b).all(|(x, y)| (x - y).abs() < 1e-12);
    /// assert!(close(gf.wrt(&w).unwrap().to_vec(), ge.wrt(&w).unwrap().to_vec()));
    /// assert!(close(gf.wrt(&b).unwrap().to_vec(), ge.wrt(&b).unwrap().to_vec()));
    /// assert!(close(gf.wrt(&x).unwrap().to_vec(), ge.wrt(&x).unwrap().to_vec()));
    /// ```
    #[track_caller]
    pub fn eval_var(&self) -> VarOf<E> {
        self.try_eval_var().or_panic()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Shape;

    /// Every input's gradient from the one-pass backward (`eval_each`):
    /// a transposed `x`, a row `w` and a column `b`, against
    /// index-by-index sums; small enough for Miri, which checks the pass's
    /// `unsafe` (its outputs written through raw pointers, their lengths
    /// set after).
    #[test]
    fn one_pass_gradients_of_a_transposed_and_two_broadcast_inputs() {
        let xt =
            Tensor::<f64, Shape![5, 3]>::from_vec((0..15).map(|i| i as f64 * 0.2 - 1.4).collect());
        let x = Var::param(xt.transpose::<0, 1>());
        let w = Var::param(Tensor::<f64, Shape![5]>::from_vec(vec![
            0.5, -1., 2., 0.25, -0.75,
        ]));
        let b = Var::param(Tensor::<f64, Shape![3, 1]>::from_vec(vec![0.1, -0.2, 0.3]));
        let g = (x.lazy() * &w + &b).tanh().eval_var().sum().backward();
        let (xv, wv, bv) = (x.value().to_vec(), w.value().to_vec(), b.value().to_vec());
        let (mut gx, mut gw, mut gb) = (vec![0.0; 15], vec![0.0; 5], vec![0.0; 3]);
        for i in 0..3 {
            for j in 0..5 {
                let t = (xv[i * 5 + j] * wv[j] + bv[i]).tanh();
                let d = 1.0 - t * t;
                gx[i * 5 + j] = d * wv[j];
                gw[j] += d * xv[i * 5 + j];
                gb[i] += d;
            }
        }
        let close = |a: Vec<f64>, b: &[f64]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-12);
        assert!(close(g.wrt(&x).unwrap().to_vec(), &gx));
        assert!(close(g.wrt(&w).unwrap().to_vec(), &gw));
        assert!(close(g.wrt(&b).unwrap().to_vec(), &gb));

        // No rows: the broadcast inputs' gradients are zeros.
        let x = Var::param(Tensor::<f64, crate::DynRank>::try_zeros(&[0, 5]).unwrap());
        let g = (x.lazy() * &w + 1.0).eval_var().sum().backward();
        assert_eq!(g.wrt(&w).unwrap().to_vec(), [0.0; 5]);
        assert_eq!(g.wrt(&x).unwrap().dims(), [0, 5]);
    }
}
