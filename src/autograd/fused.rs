//! Gradients through fused chains: a [`Lazy`] expression over [`Var`]s
//! (`x.lazy()`), evaluated with [`Lazy::eval_var`], is one node of the
//! graph whose forward pass is one pass over memory, and whose backward
//! pass gives each input's gradient in one pass too: the chain's value and
//! its adjoints are recomputed block by block, each block staying in L1,
//! from the upstream gradient and the inputs (no intermediate is stored
//! between the passes), and an input broadcast in the chain has its
//! gradient summed back to its shape in the same pass (the fused
//! reduction). `gelu`'s or `silu`'s gradient is thus one pass, and so is
//! the gradient of `gelu(x * w + b)` with respect to each of `x`, `w`, `b`.
//!
//! The derivative of each op-table operation is the op table's own
//! (`tanh_backward`, ...), so the rules are the eager ones. Operations with
//! a gradient: the one-operand table ops, `+ - * /`, `where` (`select`),
//! `clamp` and `lerp`; comparisons may appear inside a `where` condition.

use std::sync::Arc;

use super::graph::{Dyn, Grads, Node as GraphNode};
use super::var::Var;
use crate::Tensor;
use crate::backend::cpu::fused::{Collect, Source, eval, reduce};
use crate::backend::cpu::reducers::Sum;
use crate::backend::fused::{BLOCK, Block, CudaGen, Leaves, Node, Run, Scratch, sealed};
use crate::backend::op::{Map1, Map3};
use crate::device::Cpu;
use crate::element::Float;
use crate::fuse::{Binary, IntoLazy, Lazy, Leaf, Scalar, Ternary, Unary};
use crate::ops::table;
use crate::shape::{DimVec, DynRank, OrPanic, Shape, ShapeError};

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
pub struct VarLeaf<T: Float, S: Shape>(Var<T, S>);

impl<T: Float, S: Shape> Clone for VarLeaf<T, S> {
    fn clone(&self) -> Self {
        VarLeaf(self.0.clone())
    }
}

impl<T: Float, S: Shape> core::fmt::Debug for VarLeaf<T, S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "VarLeaf({:?})", self.0.dims())
    }
}

impl<T: Float, S: Shape> sealed::Sealed for VarLeaf<T, S> {}

impl<T: Float, S: Shape> Node for VarLeaf<T, S> {
    type Elem = T;
    type Shape = S;
    type Device = Cpu;
    const LEAVES: usize = 1;

    // The value's leaf, in every respect.
    fn dims(&self) -> Result<DimVec, ShapeError> {
        Node::dims(&Leaf(&self.0.value))
    }

    fn visit<'a, V: Leaves<'a, Cpu>>(&'a self, v: &mut V) {
        v.leaf(&self.0.value)
    }

    #[inline(always)]
    fn with_run<R>(&self, b: &Block<'_>, first: usize, f: impl FnOnce(Run<'_, T>) -> R) -> R {
        Node::with_run(&Leaf(&self.0.value), b, first, f)
    }

    type Lanes<'s>
        = &'s [T; BLOCK]
    where
        Self: 's;

    #[inline(always)]
    fn lanes<'s>(&'s self, b: &'s Block<'_>, first: usize) -> &'s [T; BLOCK] {
        b.lane(first)
    }

    #[inline(always)]
    fn at(l: &&[T; BLOCK], i: usize) -> T {
        l[i]
    }

    fn cuda(&self, g: &mut CudaGen, first: usize) -> String {
        Leaf(&self.0.value).cuda(g, first)
    }
}

impl<T: Float, S: Shape> Var<T, S> {
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
    pub fn lazy(&self) -> Lazy<VarLeaf<T, S>> {
        lazy_var(self)
    }
}

/// `v` as a fused expression.
fn lazy_var<T: Float, S: Shape>(v: &Var<T, S>) -> Lazy<VarLeaf<T, S>> {
    crate::fuse::lazy(v)
}

impl<T: Float, S: Shape> IntoLazy<T, Cpu> for &Var<T, S> {
    type Node = VarLeaf<T, S>;
    fn into_node(self) -> VarLeaf<T, S> {
        VarLeaf(self.clone())
    }
}

/// A leaf's node in the graph (`None`: no gradient flows to it).
#[doc(hidden)]
pub struct Parent<T: Float>(Option<Arc<GraphNode<T>>>);

/// The gradient rule of a fused node: its graph parents (one per tensor
/// leaf, `None` where no gradient flows) and the adjoint of one leaf.
pub trait Adjoint<T: Float>: Node<Device = Cpu> + Clone + Send + 'static {
    /// Pushes each leaf's graph node, in leaf order.
    #[doc(hidden)]
    fn parents(&self, out: &mut Vec<Parent<T>>);

    /// Calls `f` with the adjoint of leaf `k` (numbered from `first`; in
    /// this subtree) over block `b`, given this node's adjoint `adj`.
    #[doc(hidden)]
    fn adjoint<R>(
        &self,
        b: &Block<'_>,
        first: usize,
        k: usize,
        adj: Run<'_, T>,
        f: impl FnOnce(Run<'_, T>) -> R,
    ) -> R;
}

impl<T: Float, S: Shape> Adjoint<T> for VarLeaf<T, S> {
    fn parents(&self, out: &mut Vec<Parent<T>>) {
        out.push(Parent(self.0.node.clone()));
    }
    fn adjoint<R>(
        &self,
        _: &Block<'_>,
        _: usize,
        _: usize,
        adj: Run<'_, T>,
        f: impl FnOnce(Run<'_, T>) -> R,
    ) -> R {
        f(adj)
    }
}

impl<T: Float> Adjoint<T> for Scalar<T, Cpu> {
    fn parents(&self, _: &mut Vec<Parent<T>>) {}
    fn adjoint<R>(
        &self,
        _: &Block<'_>,
        _: usize,
        _: usize,
        _: Run<'_, T>,
        f: impl FnOnce(Run<'_, T>) -> R,
    ) -> R {
        // A scalar has no leaf: no adjoint is ever asked of it.
        f(Run::Splat(T::zero()))
    }
}

/// The derivative of a one-operand op: the upstream gradient times it, by
/// the op table's `*_backward` entry.
pub trait UnaryGrad<T: Float>: Map1<T> + Clone + Send + 'static {
    /// `g * f'(x)`.
    #[doc(hidden)]
    fn grad(&self, g: T, x: T) -> T;
}

macro_rules! unary_grads {
    ($($Op:ident => $Back:ident;)*) => {$(
        impl<T: Float> UnaryGrad<T> for table::$Op {
            #[inline(always)]
            fn grad(&self, g: T, x: T) -> T {
                table::$Back.call(g, x, self.call(x))
            }
        }
    )*};
}

unary_grads! {
    Neg => NegBackward; Abs => AbsBackward; Exp => ExpBackward; Log => LogBackward;
    Log1p => Log1pBackward; Expm1 => Expm1Backward; Sqrt => SqrtBackward;
    Rsqrt => RsqrtBackward; Sin => SinBackward; Cos => CosBackward; Tan => TanBackward;
    Tanh => TanhBackward; Sigmoid => SigmoidBackward; Relu => ReluBackward;
    Gelu => GeluBackward; Silu => SiluBackward; Square => SquareBackward;
    Reciprocal => ReciprocalBackward;
}

macro_rules! zero_grads {
    ($($Op:ident),*) => {$(
        impl<T: Float> UnaryGrad<T> for table::$Op {
            #[inline(always)]
            fn grad(&self, _: T, _: T) -> T {
                T::zero()
            }
        }
    )*};
}

// Piecewise constant: zero gradient, as PyTorch gives.
zero_grads!(Sign, Floor, Ceil, Round, Trunc);

impl<T: Float, Op: UnaryGrad<T>, A: Adjoint<T> + Node<Elem = T>> Adjoint<T> for Unary<Op, A> {
    fn parents(&self, out: &mut Vec<Parent<T>>) {
        self.1.parents(out)
    }
    #[inline(always)]
    fn adjoint<R>(
        &self,
        b: &Block<'_>,
        first: usize,
        k: usize,
        adj: Run<'_, T>,
        f: impl FnOnce(Run<'_, T>) -> R,
    ) -> R {
        self.1.with_run(b, first, |x| {
            let mut s = Scratch::default();
            let adj = s.map2(b.len(), adj, x, |g, x| self.0.grad(g, x));
            self.1.adjoint(b, first, k, adj, f)
        })
    }
}

/// Writes the rule of a two-operand op: `$da` and `$db` are the adjoints
/// of the left and right operands from the adjoint `g` and the operands'
/// values `x`, `y`.
macro_rules! binary_grads {
    ($($Op:ident: |$g:ident, $x:ident, $y:ident| $da:expr, $db:expr;)*) => {$(
        impl<T: Float, A: Adjoint<T> + Node<Elem = T>, B: Adjoint<T> + Node<Elem = T, Device = Cpu>> Adjoint<T> for Binary<table::$Op, A, B>
        where
            A::Shape: crate::shape::BroadcastShape<B::Shape>,
            table::$Op: crate::backend::op::Map2<T, Out = T>,
        {
            fn parents(&self, out: &mut Vec<Parent<T>>) {
                self.1.parents(out);
                self.2.parents(out);
            }
            #[inline(always)]
            fn adjoint<R>(&self, b: &Block<'_>, first: usize, k: usize, adj: Run<'_, T>, f: impl FnOnce(Run<'_, T>) -> R) -> R {
                let second = first + A::LEAVES;
                self.1.with_run(b, first, |xs| {
                    self.2.with_run(b, second, |ys| {
                        let mut s = Scratch::default();
                        if k < second {
                            let adj = s.map3(b.len(), adj, xs, ys, |$g, $x, $y| { let _ = (&$x, &$y); $da });
                            self.1.adjoint(b, first, k, adj, f)
                        } else {
                            let adj = s.map3(b.len(), adj, xs, ys, |$g, $x, $y| { let _ = (&$x, &$y); $db });
                            self.2.adjoint(b, second, k, adj, f)
                        }
                    })
                })
            }
        }
    )*};
}

binary_grads! {
    Add: |g, x, y| g, g;
    Sub: |g, x, y| g, -g;
    Mul: |g, x, y| g * y, g * x;
    Div: |g, x, y| g / y, -g * x / (y * y);
}

impl<T, C, X, Y> Adjoint<T> for Ternary<table::Where, C, X, Y>
where
    T: Float,
    C: Node<Elem = bool, Device = Cpu> + Clone + Send + 'static,
    X: Adjoint<T> + Node<Elem = T>,
    Y: Adjoint<T> + Node<Elem = T>,
    C::Shape: crate::shape::Broadcast3<X::Shape, Y::Shape>,
{
    fn parents(&self, out: &mut Vec<Parent<T>>) {
        out.extend((0..C::LEAVES).map(|_| Parent(None)));
        self.2.parents(out);
        self.3.parents(out);
    }
    #[inline(always)]
    fn adjoint<R>(
        &self,
        b: &Block<'_>,
        first: usize,
        k: usize,
        adj: Run<'_, T>,
        f: impl FnOnce(Run<'_, T>) -> R,
    ) -> R {
        let (second, third) = (first + C::LEAVES, first + C::LEAVES + X::LEAVES);
        if k < second {
            return f(Run::Splat(T::zero()));
        }
        self.1.with_run(b, first, |c| {
            let mut s = Scratch::default();
            let taken = k < third;
            let adj = s.map2(
                b.len(),
                c,
                adj,
                |c, g| if c == taken { g } else { T::zero() },
            );
            if taken {
                self.2.adjoint(b, second, k, adj, f)
            } else {
                self.3.adjoint(b, third, k, adj, f)
            }
        })
    }
}

/// The rules of `clamp(x, lo, hi)` and `lerp(a, e, w)`: `$d0`, `$d1`, `$d2`
/// are the factors of the upstream gradient for each operand.
macro_rules! ternary_grads {
    ($($Op:ident: |$x:ident, $y:ident, $z:ident| $d0:expr, $d1:expr, $d2:expr;)*) => {$(
        impl<T: Float, A: Adjoint<T> + Node<Elem = T>, B: Adjoint<T> + Node<Elem = T>, C: Adjoint<T> + Node<Elem = T>> Adjoint<T> for Ternary<table::$Op, A, B, C>
        where
            A::Shape: crate::shape::Broadcast3<B::Shape, C::Shape>,
            table::$Op: Map3<T, T>,
        {
            fn parents(&self, out: &mut Vec<Parent<T>>) {
                self.1.parents(out);
                self.2.parents(out);
                self.3.parents(out);
            }
            #[inline(always)]
            fn adjoint<R>(&self, b: &Block<'_>, first: usize, k: usize, adj: Run<'_, T>, f: impl FnOnce(Run<'_, T>) -> R) -> R {
                let (second, third) = (first + A::LEAVES, first + A::LEAVES + B::LEAVES);
                self.1.with_run(b, first, |xs| {
                    self.2.with_run(b, second, |ys| {
                        self.3.with_run(b, third, |zs| {
                            let (mut s, mut t) = (Scratch::default(), Scratch::default());
                            let n = b.len();
                            if k < second {
                                let d = s.map3(n, xs, ys, zs, |$x, $y, $z| { let _ = (&$x, &$y, &$z); $d0 });
                                let adj = t.map2(n, adj, d, |g, d| g * d);
                                self.1.adjoint(b, first, k, adj, f)
                            } else if k < third {
                                let d = s.map3(n, xs, ys, zs, |$x, $y, $z| { let _ = (&$x, &$y, &$z); $d1 });
                                let adj = t.map2(n, adj, d, |g, d| g * d);
                                self.2.adjoint(b, second, k, adj, f)
                            } else {
                                let d = s.map3(n, xs, ys, zs, |$x, $y, $z| { let _ = (&$x, &$y, &$z); $d2 });
                                let adj = t.map2(n, adj, d, |g, d| g * d);
                                self.3.adjoint(b, third, k, adj, f)
                            }
                        })
                    })
                })
            }
        }
    )*};
}

/// 1 or 0.
fn indicator<T: Float>(c: bool) -> T {
    if c { T::one() } else { T::zero() }
}

ternary_grads! {
    // PyTorch's `clamp_backward_min_max`: x where lo <= x <= hi, lo where
    // x < lo < hi, hi where x > hi or hi < lo (the result is then hi).
    Clamp: |x, lo, hi| indicator::<T>(x >= lo && x <= hi), indicator::<T>(x < lo && lo < hi), indicator::<T>(x > hi || hi < lo);
    Lerp: |a, e, w| T::one() - w, w, e - a;
}

/// The adjoint of leaf `k` of `e` given the upstream gradient `g` (leaf
/// `E::LEAVES` of the evaluation): what the CPU evaluates, and reduces to
/// the leaf's shape, for one input's gradient.
struct GradOf<'e, T: Float, E> {
    e: &'e E,
    g: Dyn<T>,
    k: usize,
}

impl<T: Float, E: Adjoint<T> + Node<Elem = T>> Source for GradOf<'_, T, E> {
    type Elem = T;
    fn dims(&self) -> Result<DimVec, ShapeError> {
        Ok(DimVec::from_slice(self.g.dims()))
    }
    fn leaves<'a>(&'a self, c: &mut Collect<'a>) {
        self.e.visit(c);
        c.leaf(&self.g);
    }
    #[inline(always)]
    fn with_run<R>(&self, b: &Block<'_>, f: impl FnOnce(Run<'_, T>) -> R) -> R {
        let mut s = Scratch::default();
        let g = b.leaf(E::LEAVES, &mut s);
        self.e.adjoint(b, 0, self.k, g, f)
    }
}

/// Every leaf's sizes, in leaf order.
#[derive(Default)]
struct LeafDims(Vec<DimVec>);

impl<'a> Leaves<'a, Cpu> for LeafDims {
    fn leaf<T: crate::element::Element, S: Shape>(&mut self, t: &'a Tensor<T, S>) {
        self.0.push(DimVec::from_slice(t.dims()));
    }
}

/// The gradient of each leaf that needs one: its adjoint, summed over the
/// axes along which the chain broadcast it, in one pass per leaf.
fn gradients<T: Float, E: Adjoint<T> + Node<Elem = T>>(
    e: &E,
    g: &Dyn<T>,
    needs: &[bool],
) -> Result<Grads<T>, ShapeError> {
    let mut dims = LeafDims::default();
    e.visit(&mut dims);
    let out = g.dims();
    let mut grads = Grads::new();
    for (k, leaf) in dims.0.iter().enumerate() {
        if !needs.get(k).copied().unwrap_or(false) {
            grads.push(None);
            continue;
        }
        let src = GradOf { e, g: g.share(), k };
        if leaf.as_slice() == out {
            grads.push(Some(eval::<_, DynRank>(&src)?));
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

impl<E: Node> Lazy<E>
where
    E: Adjoint<<E as Node>::Elem>,
    <E as Node>::Elem: Float,
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
    pub fn try_eval_var(&self) -> Result<Var<E::Elem, E::Shape>, ShapeError> {
        let value: Tensor<E::Elem, E::Shape> = eval(&self.0)?;
        let mut parents = Vec::with_capacity(E::LEAVES);
        self.0.parents(&mut parents);
        let refs: Vec<Option<&Arc<GraphNode<E::Elem>>>> =
            parents.iter().map(|p| p.0.as_ref()).collect();
        let e = self.0.clone();
        Ok(Var::from_op(value, &refs, move || {
            Box::new(move |g: &Dyn<E::Elem>, needs: &[bool]| gradients(&e, g, needs))
        }))
    }

    /// The expression's value as a [`Var`]: one node of the graph, whose
    /// value is computed in one pass and whose backward pass gives each
    /// input's gradient in one pass (summed back to the input's shape in
    /// that pass when the chain broadcast it). Gradients equal the eager
    /// ops' (the same op-table derivatives).
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
    pub fn eval_var(&self) -> Var<E::Elem, E::Shape> {
        self.try_eval_var().or_panic()
    }
}
