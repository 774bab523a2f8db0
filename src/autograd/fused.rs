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

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::Arc;

use super::graph::{Dyn, Grads, Node as GraphNode};
use super::var::Var;
use crate::Tensor;
use core::mem::MaybeUninit;

use crate::backend::Layout;
use crate::backend::cpu::fused::{Collect, Each, Source, eval, eval_each, reduce, write_run};
use crate::backend::cpu::reducers::Sum;
use crate::backend::fused::expr::sealed;
use crate::backend::fused::{
    Block, CpuExpr, CudaExpr, CudaGen, Expr, Fused, Leaves, Node, Run, Scratch, Sink, c_name,
};
use crate::backend::op::table;
use crate::backend::op::{Derivative, Map1, Map3, Pointwise};
use crate::device::{Cpu, Device};
use crate::element::{Element, Float};
use crate::fuse::{Binary, ErasedLeaf, IntoLazy, Lazy, Leaf, Scalar, Ternary, Unary};
use crate::shape::{DimVec, OrPanic, Shape, ShapeError};

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

    // The value's leaf, in every respect.
    fn dims(&self) -> Result<DimVec, ShapeError> {
        Node::dims(&Leaf(&self.0.value))
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

/// The gradient rule of a fused node: its graph parents (one per tensor
/// leaf, `None` where no gradient flows) and the adjoint of one leaf, over
/// a CPU block or as CUDA C.
pub trait Adjoint<T: Float>: Node + Clone + Send + 'static {
    /// Pushes each leaf's graph node, in leaf order.
    #[doc(hidden)]
    fn parents(&self, out: &mut Vec<Parent<T, Self::Device>>);

    /// This node's value as a C expression (a name bound in `a`'s body),
    /// each node's value bound once per generated adjoint.
    #[doc(hidden)]
    fn cuda_value(&self, a: &mut AdjointGen<'_>, first: usize) -> String;

    /// The adjoint of leaf `k` (numbered from `first`) as a C expression,
    /// given this node's adjoint `adj`, its intermediate values bound in
    /// `a`'s body.
    #[doc(hidden)]
    fn cuda_adjoint(&self, a: &mut AdjointGen<'_>, first: usize, k: usize, adj: String) -> String;

    /// Puts the adjoint of each leaf of this subtree (numbered from
    /// `first`) that `sink` wants, over block `b`, given this node's
    /// adjoint `adj`: each node's step is one loop over its operands'
    /// lanes (their values recomputed in registers), with one block of
    /// scratch per node on the way down, so one pass gives every input's
    /// adjoint, and subtrees without a wanted leaf are skipped. No closure
    /// per node: the depth of a chain is bounded neither by the compiler's
    /// recursion limit nor by a stack that grew with the square of the
    /// depth.
    #[doc(hidden)]
    fn adjoints<K: Sink<T>>(&self, b: &Block<'_>, first: usize, adj: Run<'_, T>, sink: &mut K);
}

impl<T: Float, S: Shape, D: Device> Adjoint<T> for VarLeaf<T, S, D>
where
    Var<T, S, D>: Sync,
{
    fn parents(&self, out: &mut Vec<Parent<T, D>>) {
        out.push(Parent(Some(self.0.node.clone())));
    }
    fn cuda_value(&self, a: &mut AdjointGen<'_>, first: usize) -> String {
        a.g.leaf::<T>(first)
    }
    fn cuda_adjoint(&self, _: &mut AdjointGen<'_>, _: usize, _: usize, adj: String) -> String {
        adj
    }
    #[inline(always)]
    fn adjoints<K: Sink<T>>(&self, _: &Block<'_>, first: usize, adj: Run<'_, T>, sink: &mut K) {
        sink.put(first, adj)
    }
}

impl<T: Float, D: Device> Adjoint<T> for Scalar<T, D> {
    fn parents(&self, _: &mut Vec<Parent<T, D>>) {}
    fn cuda_value(&self, a: &mut AdjointGen<'_>, _: usize) -> String {
        a.memo(self, |a| {
            let v = a.g.scalar(self.0);
            a.bind(c_name(T::NAME), v)
        })
    }
    fn cuda_adjoint(&self, _: &mut AdjointGen<'_>, _: usize, _: usize, _: String) -> String {
        // A scalar has no leaf: no adjoint is ever asked of it.
        zero::<T>()
    }
    // A scalar has no leaf, so no adjoint to put.
    #[inline(always)]
    fn adjoints<K: Sink<T>>(&self, _: &Block<'_>, _: usize, _: Run<'_, T>, _: &mut K) {}
}

/// The derivative of a one-operand op: the upstream gradient times it, by
/// the op table's `*_backward` entry.
pub trait UnaryGrad<T: Float>: Map1<T> + Clone + Send + 'static {
    /// `g * f'(x)`.
    #[doc(hidden)]
    fn grad(&self, g: T, x: T) -> T;
    /// `g * f'(x)` as C, given the C expressions of `g`, `x` and `y = f(x)`.
    #[doc(hidden)]
    fn cuda_grad(cg: &mut CudaGen, g: &str, x: &str, y: &str) -> String;
}

/// Every table op with a [`Derivative`]: the table op it names, on the
/// CPU and in the generated CUDA.
impl<T: Float, Op> UnaryGrad<T> for Op
where
    Op: Map1<T> + Derivative + Clone,
    Op::Backward: Map3<T, T>,
{
    #[inline(always)]
    fn grad(&self, g: T, x: T) -> T {
        Op::Backward::default().call(g, x, self.call(x))
    }
    fn cuda_grad(cg: &mut CudaGen, g: &str, x: &str, y: &str) -> String {
        let t = c_name(T::NAME);
        cg.call::<T>(
            &<Op::Backward as Pointwise>::DEF,
            t,
            t,
            [Some(g), Some(x), Some(y)],
            None,
        )
    }
}

impl<T: Float, Op: UnaryGrad<T>, A: Adjoint<T> + Node<Elem = T>> Adjoint<T> for Unary<Op, A> {
    fn parents(&self, out: &mut Vec<Parent<T, A::Device>>) {
        self.1.parents(out)
    }
    fn cuda_value(&self, a: &mut AdjointGen<'_>, first: usize) -> String {
        a.memo(self, |a| {
            let x = self.1.cuda_value(a, first);
            let t = c_name(T::NAME);
            let v = a.g.call::<T>(
                &Op::DEF,
                t,
                t,
                [Some(&x), None, None],
                Some(self.0.scalar()),
            );
            a.bind(t, v)
        })
    }
    fn cuda_adjoint(&self, a: &mut AdjointGen<'_>, first: usize, k: usize, adj: String) -> String {
        let x = self.1.cuda_value(a, first);
        let y = self.cuda_value(a, first);
        let d = Op::cuda_grad(a.g, &adj, &x, &y);
        let d = a.bind(c_name(T::NAME), d);
        self.1.cuda_adjoint(a, first, k, d)
    }
    #[inline(always)]
    fn adjoints<K: Sink<T>>(&self, b: &Block<'_>, first: usize, adj: Run<'_, T>, sink: &mut K) {
        if !sink.wants(first, A::LEAVES) {
            return;
        }
        let mut s = b.scratch();
        let adj = step_over(
            &mut s,
            b,
            &self.1,
            first,
            adj,
            #[inline(always)]
            |g, x| self.0.grad(g, x),
        );
        self.1.adjoints(b, first, adj, sink)
    }
}

/// Writes the rule of a two-operand op: `$da` and `$db` are the adjoints
/// of the left and right operands from the adjoint `g` and the operands'
/// values `x`, `y`.
macro_rules! binary_grads {
    ($($Op:ident: |$g:ident, $x:ident, $y:ident| $da:expr, $db:expr; $ca:literal, $cb:literal;)*) => {$(
        impl<T: Float, A: Adjoint<T> + Node<Elem = T>, B: Adjoint<T> + Node<Elem = T, Device = A::Device>> Adjoint<T> for Binary<table::$Op, A, B>
        where
            A::Shape: crate::shape::BroadcastShape<B::Shape>,
            table::$Op: crate::backend::op::Map2<T, Out = T>,
        {
            fn parents(&self, out: &mut Vec<Parent<T, A::Device>>) {
                self.1.parents(out);
                self.2.parents(out);
            }
            fn cuda_value(&self, a: &mut AdjointGen<'_>, first: usize) -> String {
                a.memo(self, |a| {
                    let x = self.1.cuda_value(a, first);
                    let y = self.2.cuda_value(a, first + A::LEAVES);
                    let t = c_name(T::NAME);
                    let s = crate::backend::op::Map2::<T>::scalar(&self.0);
                    let v = a.g.call::<T>(&<table::$Op as Pointwise>::DEF, t, t, [Some(&x), Some(&y), None], Some(s));
                    a.bind(t, v)
                })
            }
            fn cuda_adjoint(&self, a: &mut AdjointGen<'_>, first: usize, k: usize, adj: String) -> String {
                let second = first + A::LEAVES;
                let x = self.1.cuda_value(a, first);
                let y = self.2.cuda_value(a, second);
                let t = c_name(T::NAME);
                let form = if k < second { $ca } else { $cb };
                let d = form.replace("{g}", &adj).replace("{x}", &x).replace("{y}", &y).replace("{T}", t);
                let d = a.bind(t, d);
                if k < second {
                    self.1.cuda_adjoint(a, first, k, d)
                } else {
                    self.2.cuda_adjoint(a, second, k, d)
                }
            }
            #[inline(always)]
            fn adjoints<K: Sink<T>>(&self, b: &Block<'_>, first: usize, adj: Run<'_, T>, sink: &mut K) {
                let second = first + A::LEAVES;
                let mut s = b.scratch();
                if sink.wants(first, A::LEAVES) {
                    let d = step_two(&mut s, b, (&self.1, first), (&self.2, second), adj, #[inline(always)] |$g, $x, $y| { let _ = (&$x, &$y); $da });
                    self.1.adjoints(b, first, d, sink);
                }
                if sink.wants(second, B::LEAVES) {
                    let d = step_two(&mut s, b, (&self.1, first), (&self.2, second), adj, #[inline(always)] |$g, $x, $y| { let _ = (&$x, &$y); $db });
                    self.2.adjoints(b, second, d, sink);
                }
            }
        }
    )*};
}

// Each rule twice: as Rust over a block, and as C (`{g}`, `{x}`, `{y}`
// the adjoint and the operands' values, `{T}` the element type).
binary_grads! {
    Add: |g, x, y| g, g; "{g}", "{g}";
    Sub: |g, x, y| g, -g; "{g}", "(-{g})";
    Mul: |g, x, y| g * y, g * x; "({g} * {y})", "({g} * {x})";
    Div: |g, x, y| g / y, -g * x / (y * y); "({g} / {y})", "(-{g} * {x} / ({y} * {y}))";
}

impl<T, C, X, Y> Adjoint<T> for Ternary<table::Where, C, X, Y>
where
    T: Float,
    C: Node<Elem = bool> + Clone + Send + 'static,
    X: Adjoint<T> + Node<Elem = T, Device = C::Device>,
    Y: Adjoint<T> + Node<Elem = T, Device = C::Device>,
    C::Shape: crate::shape::Broadcast3<X::Shape, Y::Shape>,
{
    fn parents(&self, out: &mut Vec<Parent<T, C::Device>>) {
        out.extend((0..C::LEAVES).map(|_| Parent(None)));
        self.2.parents(out);
        self.3.parents(out);
    }
    fn cuda_value(&self, a: &mut AdjointGen<'_>, first: usize) -> String {
        a.memo(self, |a| {
            let (second, third) = (first + C::LEAVES, first + C::LEAVES + X::LEAVES);
            let c = self.condition(a, first);
            let x = self.2.cuda_value(a, second);
            let y = self.3.cuda_value(a, third);
            a.bind(c_name(T::NAME), format!("({c} ? {x} : {y})"))
        })
    }
    fn cuda_adjoint(&self, a: &mut AdjointGen<'_>, first: usize, k: usize, adj: String) -> String {
        let (second, third) = (first + C::LEAVES, first + C::LEAVES + X::LEAVES);
        if k < second {
            return zero::<T>();
        }
        let c = self.condition(a, first);
        let t = c_name(T::NAME);
        if k < third {
            let d = a.bind(t, format!("({c} ? {adj} : ({t})0)"));
            self.2.cuda_adjoint(a, second, k, d)
        } else {
            let d = a.bind(t, format!("({c} ? ({t})0 : {adj})"));
            self.3.cuda_adjoint(a, third, k, d)
        }
    }
    #[inline(always)]
    fn adjoints<K: Sink<T>>(&self, b: &Block<'_>, first: usize, adj: Run<'_, T>, sink: &mut K) {
        // The condition takes no gradient.
        let (second, third) = (first + C::LEAVES, first + C::LEAVES + X::LEAVES);
        let mut s = b.scratch();
        if sink.wants(second, X::LEAVES) {
            let d = step_over(&mut s, b, &self.1, first, adj, branch(true));
            self.2.adjoints(b, second, d, sink);
        }
        if sink.wants(third, Y::LEAVES) {
            let d = step_over(&mut s, b, &self.1, first, adj, branch(false));
            self.3.adjoints(b, third, d, sink);
        }
    }
}

/// The rules of `clamp(x, lo, hi)` and `lerp(a, e, w)`: `$d0`, `$d1`, `$d2`
/// are the factors of the upstream gradient for each operand.
macro_rules! ternary_grads {
    ($($Op:ident: |$x:ident, $y:ident, $z:ident| $d0:expr, $d1:expr, $d2:expr; $c0:literal, $c1:literal, $c2:literal;)*) => {$(
        impl<T: Float, A: Adjoint<T> + Node<Elem = T>, B: Adjoint<T> + Node<Elem = T, Device = A::Device>, C: Adjoint<T> + Node<Elem = T, Device = A::Device>> Adjoint<T> for Ternary<table::$Op, A, B, C>
        where
            A::Shape: crate::shape::Broadcast3<B::Shape, C::Shape>,
            table::$Op: Map3<T, T>,
        {
            fn parents(&self, out: &mut Vec<Parent<T, A::Device>>) {
                self.1.parents(out);
                self.2.parents(out);
                self.3.parents(out);
            }
            fn cuda_value(&self, a: &mut AdjointGen<'_>, first: usize) -> String {
                a.memo(self, |a| {
                    let (second, third) = (first + A::LEAVES, first + A::LEAVES + B::LEAVES);
                    let x = self.1.cuda_value(a, first);
                    let y = self.2.cuda_value(a, second);
                    let z = self.3.cuda_value(a, third);
                    let t = c_name(T::NAME);
                    let s = Map3::<T, T>::scalar(&self.0);
                    let v = a.g.call::<T>(&<table::$Op as Pointwise>::DEF, t, t, [Some(&x), Some(&y), Some(&z)], Some(s));
                    a.bind(t, v)
                })
            }
            fn cuda_adjoint(&self, a: &mut AdjointGen<'_>, first: usize, k: usize, adj: String) -> String {
                let (second, third) = (first + A::LEAVES, first + A::LEAVES + B::LEAVES);
                let x = self.1.cuda_value(a, first);
                let y = self.2.cuda_value(a, second);
                let z = self.3.cuda_value(a, third);
                let t = c_name(T::NAME);
                let form = if k < second { $c0 } else if k < third { $c1 } else { $c2 };
                let d = form.replace("{x}", &x).replace("{y}", &y).replace("{z}", &z).replace("{T}", t);
                let d = a.bind(t, format!("({adj} * {d})"));
                if k < second {
                    self.1.cuda_adjoint(a, first, k, d)
                } else if k < third {
                    self.2.cuda_adjoint(a, second, k, d)
                } else {
                    self.3.cuda_adjoint(a, third, k, d)
                }
            }
            #[inline(always)]
            fn adjoints<K: Sink<T>>(&self, b: &Block<'_>, first: usize, adj: Run<'_, T>, sink: &mut K) {
                let (second, third) = (first + A::LEAVES, first + A::LEAVES + B::LEAVES);
                let ops = ((&self.1, first), (&self.2, second), (&self.3, third));
                let mut s = b.scratch();
                if sink.wants(first, A::LEAVES) {
                    let d = step_three(&mut s, b, ops, adj, #[inline(always)] |$x, $y, $z| { let _ = (&$x, &$y, &$z); $d0 });
                    self.1.adjoints(b, first, d, sink);
                }
                if sink.wants(second, B::LEAVES) {
                    let d = step_three(&mut s, b, ops, adj, #[inline(always)] |$x, $y, $z| { let _ = (&$x, &$y, &$z); $d1 });
                    self.2.adjoints(b, second, d, sink);
                }
                if sink.wants(third, C::LEAVES) {
                    let d = step_three(&mut s, b, ops, adj, #[inline(always)] |$x, $y, $z| { let _ = (&$x, &$y, &$z); $d2 });
                    self.3.adjoints(b, third, d, sink);
                }
            }
        }
    )*};
}

impl<C: Node<Elem = bool> + 'static, X, Y> Ternary<table::Where, C, X, Y> {
    /// The condition's value, bound once per generated adjoint (it has no
    /// gradient: its whole expression, comparisons included, is the
    /// forward one).
    fn condition(&self, a: &mut AdjointGen<'_>, first: usize) -> String {
        a.memo(&self.1, |a| {
            let c = self.1.erased().cuda(a.g, first);
            a.bind(c_name(bool::NAME), c)
        })
    }
}

/// The generation of one adjoint as CUDA C: statements binding each
/// intermediate value once (a chain's adjoints read their operands' values
/// at every step; as one nested expression each would be recomputed, and
/// its scalars given a slot each time), ending in the adjoint's value.
#[doc(hidden)]
pub struct AdjointGen<'g> {
    g: &'g mut CudaGen,
    body: String,
    locals: usize,
    bound: HashMap<(usize, TypeId), String>,
}

impl<'g> AdjointGen<'g> {
    fn new(g: &'g mut CudaGen) -> Self {
        AdjointGen {
            g,
            body: String::new(),
            locals: 0,
            bound: HashMap::new(),
        }
    }

    /// A new local of C type `ty` holding `expr`.
    fn bind(&mut self, ty: &str, expr: String) -> String {
        let v = format!("v{}", self.locals);
        self.locals += 1;
        self.body.push_str(&format!("{ty} {v} = {expr}; "));
        v
    }

    /// `node`'s value, bound by `make` the first time it is asked for (a
    /// node is its address and type: a node and its first field may share
    /// an address, never a type).
    fn memo<N: 'static>(&mut self, node: &N, make: impl FnOnce(&mut Self) -> String) -> String {
        let key = (node as *const N as usize, TypeId::of::<N>());
        if let Some(v) = self.bound.get(&key) {
            return v.clone();
        }
        let v = make(self);
        self.bound.insert(key, v.clone());
        v
    }

    /// The statements and `adj` as one C expression (a lambda called in
    /// place, reading the leaves and scalars of the value function).
    fn finish(self, t: &str, adj: &str) -> String {
        format!("[&]() -> {t} {{ {}return {adj}; }}()", self.body)
    }
}

/// The adjoint of leaf `k` of `e`, the upstream gradient being leaf
/// `E::LEAVES`, as one C expression of the leaves and the scalar slots of
/// `g` (the CUDA kernels' value, and what tests compile for the host).
#[doc(hidden)]
pub fn cuda_adjoint<T: Float, E: Adjoint<T> + Node<Elem = T>>(
    e: &E,
    k: usize,
    g: &mut CudaGen,
) -> String {
    /// Declares every leaf, read or not (a kernel takes each as a
    /// parameter).
    struct Declare<'g>(&'g mut CudaGen, usize);
    impl<'a, D: Device> Leaves<'a, D> for Declare<'_> {
        fn leaf<U: Element>(&mut self, _: Layout<'a, D::Storage<U>>) {
            self.0.leaf::<U>(self.1);
            self.1 += 1;
        }
    }
    e.visit(&mut Declare(g, 0));
    let upstream = g.leaf::<T>(E::LEAVES);
    let mut a = AdjointGen::new(g);
    let adj = e.cuda_adjoint(&mut a, 0, k, upstream);
    a.finish(c_name(T::NAME), &adj)
}

/// `0` of type `T`, in C.
fn zero<T: Element>() -> String {
    format!("(({})0)", c_name(T::NAME))
}

/// One adjoint step that reads a single operand, `child` (leaves numbered
/// from `first`): `f(g, x)` for each element of block `b`, `g` being
/// `adj`'s element and `x` the child's value there, written into `s`, the
/// child's lanes released before the caller goes down the tree. The steps
/// of the one-operand ops and of `where` (its condition).
#[inline(always)]
fn step_over<'s, T: Copy, N: Node>(
    s: &'s mut Scratch<'_, T>,
    b: &Block<'_>,
    child: &N,
    first: usize,
    adj: Run<'_, T>,
    f: impl Fn(T, N::Elem) -> T,
) -> Run<'s, T> {
    b.scoped(
        #[inline(always)]
        move |b| {
            let e = child.erased();
            let l = e.lanes(b, first);
            s.step(
                b.len(),
                adj,
                #[inline(always)]
                |g, c, j| f(g, at(&e, &l, c, j)),
            )
        },
    )
}

/// The value of the erased subtree `_e` at element `c * CHUNK + j` of the
/// block its lanes `l` were taken over ([`CpuExpr::at`], named through
/// the expression rather than its type).
#[inline(always)]
fn at<E: CpuExpr>(_e: &E, l: &E::Lanes<'_>, c: usize, j: usize) -> E::Elem {
    E::at(l, c, j)
}

/// An operand of a node: its subtree and the number of its first leaf.
type Operand<'n, N> = (&'n N, usize);

/// One adjoint step of a two-operand op: `f(g, x, y)` for each element
/// of block `b`, `g` being `adj`'s element and `x`, `y` the operands'
/// values there (each operand with the number of its first leaf), written
/// into `s`, the operands' lanes released before the caller goes down the
/// tree.
#[inline(always)]
fn step_two<'s, T: Copy, A: Node, B: Node>(
    s: &'s mut Scratch<'_, T>,
    b: &Block<'_>,
    (x, first): Operand<'_, A>,
    (y, second): Operand<'_, B>,
    adj: Run<'_, T>,
    f: impl Fn(T, A::Elem, B::Elem) -> T,
) -> Run<'s, T> {
    b.scoped(
        #[inline(always)]
        move |b| {
            let (ex, ey) = (x.erased(), y.erased());
            let (lx, ly) = (ex.lanes(b, first), ey.lanes(b, second));
            s.step(
                b.len(),
                adj,
                #[inline(always)]
                |g, c, j| f(g, at(&ex, &lx, c, j), at(&ey, &ly, c, j)),
            )
        },
    )
}

/// One adjoint step of a three-operand op whose operands' adjoints are
/// the upstream one times a factor: `g * f(x, y, z)`, as [`step_two`].
#[inline(always)]
fn step_three<'s, T: Copy + core::ops::Mul<Output = T>, A: Node, B: Node, C: Node>(
    s: &'s mut Scratch<'_, T>,
    b: &Block<'_>,
    ((x, first), (y, second), (z, third)): (Operand<'_, A>, Operand<'_, B>, Operand<'_, C>),
    adj: Run<'_, T>,
    f: impl Fn(A::Elem, B::Elem, C::Elem) -> T,
) -> Run<'s, T> {
    b.scoped(
        #[inline(always)]
        move |b| {
            let (ex, ey, ez) = (x.erased(), y.erased(), z.erased());
            let (lx, ly, lz) = (ex.lanes(b, first), ey.lanes(b, second), ez.lanes(b, third));
            s.step(
                b.len(),
                adj,
                #[inline(always)]
                |g, c, j| g * f(at(&ex, &lx, c, j), at(&ey, &ly, c, j), at(&ez, &lz, c, j)),
            )
        },
    )
}

/// The adjoint step of a `where` branch: the upstream gradient `g` where
/// the condition `c` is `taken`, 0 elsewhere.
#[inline(always)]
fn branch<T: Float>(taken: bool) -> impl Fn(T, bool) -> T {
    #[inline(always)]
    move |g, c| if c == taken { g } else { T::zero() }
}

/// 1 or 0.
fn indicator<T: Float>(c: bool) -> T {
    if c { T::one() } else { T::zero() }
}

ternary_grads! {
    // PyTorch's `clamp_backward_min_max`: x where lo <= x <= hi, lo where
    // x < lo < hi, hi where x > hi or hi < lo (the result is then hi).
    Clamp: |x, lo, hi| indicator::<T>(x >= lo && x <= hi), indicator::<T>(x < lo && lo < hi), indicator::<T>(x > hi || hi < lo);
        "(({x} >= {y} && {x} <= {z}) ? ({T})1 : ({T})0)",
        "(({x} < {y} && {y} < {z}) ? ({T})1 : ({T})0)",
        "(({x} > {z} || {z} < {y}) ? ({T})1 : ({T})0)";
    Lerp: |a, e, w| T::one() - w, w, e - a; "(({T})1 - {z})", "{z}", "({y} - {x})";
}

/// The adjoint of leaf `k` of `e` given the upstream gradient `g` (leaf
/// `E::LEAVES` of the evaluation): what the CPU evaluates, and reduces to
/// the leaf's shape, when one input's gradient is asked for, or the
/// chain's inner loops are too short for [`GradsOf`]'s pass.
struct GradOf<'e, T: Float, E> {
    all: GradsOf<'e, T, E>,
    k: usize,
}

impl<T: Float, E: Adjoint<T> + Node<Elem = T, Device = Cpu>> Source for GradOf<'_, T, E> {
    type Elem = T;
    const OPS: usize = E::OPS;
    fn dims(&self) -> Result<DimVec, ShapeError> {
        Each::dims(&self.all)
    }
    fn leaves<'a>(&'a self, c: &mut Collect<'a>) {
        Each::leaves(&self.all, c)
    }
    fn transcendental(&self) -> bool {
        Each::transcendental(&self.all)
    }
    #[inline(always)]
    fn write(&self, b: &Block<'_>, dst: &mut [MaybeUninit<T>]) {
        let mut only = Only {
            k: self.k,
            dst,
            written: false,
        };
        self.all.write_each(b, &mut only);
        if !only.written {
            // No path reaches the leaf (a `where` condition's): zero.
            write_run(only.dst, Run::Splat(T::zero()));
        }
    }
}

/// The sink of one leaf's adjoint, `k`'s, written into `dst`.
struct Only<'d, T> {
    k: usize,
    dst: &'d mut [MaybeUninit<T>],
    written: bool,
}

impl<T: Copy> Sink<T> for Only<'_, T> {
    #[inline(always)]
    fn wants(&self, first: usize, count: usize) -> bool {
        (first..first + count).contains(&self.k)
    }
    #[inline(always)]
    fn put(&mut self, k: usize, adj: Run<'_, T>) {
        if k == self.k {
            write_run(self.dst, adj);
            self.written = true;
        }
    }
}

/// Every leaf's adjoint of `e` given the upstream gradient `g` (leaf
/// `E::LEAVES` of the evaluation), in one pass.
struct GradsOf<'e, T: Float, E> {
    e: &'e E,
    g: Dyn<T>,
}

impl<T: Float, E: Adjoint<T> + Node<Elem = T, Device = Cpu>> Each for GradsOf<'_, T, E> {
    type Elem = T;
    const OPS: usize = E::OPS;
    fn dims(&self) -> Result<DimVec, ShapeError> {
        Ok(DimVec::from_slice(self.g.dims()))
    }
    fn leaves<'a>(&'a self, c: &mut Collect<'a>) {
        self.e.visit(c);
        c.leaf(self.g.layout());
    }
    fn transcendental(&self) -> bool {
        Expr::transcendental(&self.e.erased())
    }
    #[inline(always)]
    fn write_each<K: Sink<T>>(&self, b: &Block<'_>, k: &mut K) {
        let mut s = b.scratch();
        let g = b.leaf(E::LEAVES, &mut s);
        self.e.adjoints(b, 0, g, k)
    }
}

/// Every leaf's sizes, in leaf order.
#[derive(Default)]
struct LeafDims(Vec<DimVec>);

impl<'a, D: Device> Leaves<'a, D> for LeafDims {
    fn leaf<T: crate::element::Element>(&mut self, l: Layout<'a, D::Storage<T>>) {
        self.0.push(DimVec::from_slice(l.dims()));
    }
}

/// The devices whose fused chains have gradients: the CPU for every float
/// type, CUDA (feature `cuda`) for `f32` and `f64`. A layer written over
/// it runs on either:
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
        g: &Dyn<T, Self>,
        needs: &[bool],
    ) -> Result<Grads<T, Self>, Self::Error>;
}

impl<T: Float> FusedBackward<T> for Cpu {
    /// One pass for every leaf: the adjoints computed together, block by
    /// block, each written out or summed back to its leaf's sizes as the
    /// blocks go by. Where the chain's inner loops are short (a `(n, 2)`
    /// value), one pass per leaf instead, each reduced along the axes it
    /// is summed over.
    fn gradients<E: Adjoint<T> + Node<Elem = T, Device = Cpu>>(
        e: &E,
        g: &Dyn<T>,
        needs: &[bool],
    ) -> Result<Grads<T>, ShapeError> {
        let mut dims = LeafDims::default();
        e.visit(&mut dims);
        let asked = |k: usize| needs.get(k).copied().unwrap_or(false);
        if (0..dims.0.len()).filter(|&k| asked(k)).count() > 1 {
            let targets: Vec<Option<&[usize]>> = (dims.0.iter().enumerate())
                .map(|(k, d)| asked(k).then_some(d.as_slice()))
                .collect();
            let each = GradsOf { e, g: g.share() };
            if let Some(values) = eval_each(&each, &targets)? {
                return values
                    .into_iter()
                    .zip(&dims.0)
                    .map(|(v, d)| v.map(|v| Tensor::try_from_vec(v, d)).transpose())
                    .collect();
            }
        }
        let out = g.dims();
        let mut grads = Grads::new();
        for (k, leaf) in dims.0.iter().enumerate() {
            if !asked(k) {
                grads.push(None);
                continue;
            }
            let src = GradOf {
                all: GradsOf { e, g: g.share() },
                k,
            };
            if leaf.as_slice() == out {
                grads.push(Some(Tensor::from_output(eval(&src)?)?));
                continue;
            }
            // Reduced: the leading axes the leaf lacks, and those where it has
            // size 1 and the result does not.
            let lead = out.len() - leaf.len();
            let mask: Vec<bool> = (0..out.len())
                .map(|i| i < lead || (leaf[i - lead] == 1 && out[i] != 1))
                .collect();
            let (data, _) = reduce(&src, &Sum { divisor: None }, &mask)?;
            grads.push(Some(Tensor::try_from_vec(data, leaf)?));
        }
        Ok(grads)
    }
}

#[cfg(feature = "cuda")]
impl<T: Float + crate::backend::cuda::CudaElement> FusedBackward<T> for crate::device::Cuda
where
    crate::device::Cuda: crate::autograd::GradDevice<T>,
{
    /// One generated kernel per leaf (its adjoint), then, where the leaf
    /// was broadcast, the eager sum back to its sizes.
    fn gradients<E: Adjoint<T> + Node<Elem = T, Device = Self>>(
        e: &E,
        g: &Dyn<T, Self>,
        needs: &[bool],
    ) -> Result<Grads<T, Self>, crate::device::CudaError> {
        use crate::backend::cuda::fused::{Collect, Generated, Source, eval_generated};
        /// Leaf `k`'s adjoint as a kernel's expression.
        struct Of<'e, E>(&'e E, usize);
        impl<T: Float, E: Adjoint<T> + Node<Elem = T>> Source for Of<'_, E> {
            fn expr(&self, g: &mut CudaGen) -> String {
                cuda_adjoint(self.0, self.1, g)
            }
        }
        let mut dims = LeafDims::default();
        <E as Node>::visit(e, &mut dims);
        let mut grads = Grads::new();
        for (k, leaf) in dims.0.iter().enumerate() {
            if !needs.get(k).copied().unwrap_or(false) {
                grads.push(None);
                continue;
            }
            let mut c = Collect::default();
            e.visit(&mut c);
            c.leaf(g.layout());
            let of = Of(e, k);
            let adjoint = Tensor::from_output(eval_generated::<T>(
                g.dims(),
                c,
                &Generated {
                    key: (core::any::type_name::<E>(), k + 1),
                    out: c_name(T::NAME),
                    source: &of,
                },
            )?)?;
            grads.push(Some(super::device::sum_to_like::<T, Self, crate::DynRank>(
                adjoint, leaf,
            )?));
        }
        Ok(grads)
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
            Box::new(move |g: &Dyn<E::Elem, E::Device>, needs: &[bool]| {
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
