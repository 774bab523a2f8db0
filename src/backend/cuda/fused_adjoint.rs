//! The CUDA lowering of a fused chain's backward pass: each leaf's
//! adjoint as one generated kernel, written as C from the op table's
//! derivatives and `backend::fused::grads`' rules, each intermediate
//! value computed once, in registers ([`CudaAdjoint`], [`cuda_adjoint`]),
//! over an erased expression, so that chains of different static shapes
//! share their kernels. The generation is plain text, compiled with or
//! without the `cuda` feature (tests compile it for the host); the
//! launches ([`FusedGrad`](crate::backend::fused::FusedGrad) for `Cuda`)
//! need the feature.

use std::collections::HashMap;

use super::fused_lower::CudaExpr;
use super::fused_source::{CudaGen, c_name};
use crate::backend::Layout;
use crate::backend::fused::expr::{Binary, ErasedLeaf, ErasedScalar, Leaves, Ternary, Unary};
use crate::backend::fused::grads::{BinaryRule, TernaryRule};
use crate::backend::op::{Derivative, Map1, Map2, Map3, Pointwise, table};
use crate::device::Device;
use crate::element::{Element, Float};

/// An expression whose adjoints the CUDA generator writes as C.
///
/// ```
/// use shaped::backend::fused::{CudaGen, Node, cuda_adjoint};
/// use shaped::{Shape, Tensor};
/// let (a, b) = (Tensor::<f32, Shape![4]>::ones(), Tensor::<f32, Shape![4]>::ones());
/// let e = (a.lazy() * &b).tanh();
/// let mut g = CudaGen::default();
/// // The adjoint of leaf 1 (`b`), the upstream gradient being leaf 2.
/// let adj = cuda_adjoint(&e.node().erased(), 1, &mut g);
/// assert!(adj.contains("x0") && adj.contains("x2"));
/// assert_eq!(g.leaf_types().len(), 3);
/// ```
pub trait CudaAdjoint<T: Float>: CudaExpr<Elem = T> {
    /// This node's value as a C expression (a name bound in `a`'s body),
    /// each node's value bound once per generated adjoint.
    fn cuda_value(&self, a: &mut AdjointGen<'_>, first: usize) -> String;

    /// The adjoint of leaf `k` (numbered from `first`) as a C expression,
    /// given this node's adjoint `adj`, its intermediate values bound in
    /// `a`'s body.
    fn cuda_adjoint(&self, a: &mut AdjointGen<'_>, first: usize, k: usize, adj: String) -> String;
}

impl<T: Float, D: Device> CudaAdjoint<T> for ErasedLeaf<'_, T, D> {
    fn cuda_value(&self, a: &mut AdjointGen<'_>, first: usize) -> String {
        a.g.leaf::<T>(first)
    }
    fn cuda_adjoint(&self, _: &mut AdjointGen<'_>, _: usize, _: usize, adj: String) -> String {
        adj
    }
}

impl<T: Float, D: Device> CudaAdjoint<T> for ErasedScalar<T, D> {
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
}

/// A one-operand op: the op table's derivative (`Op::Backward`, of `g`,
/// `x` and `y = f(x)`) as C.
impl<T, Op, A> CudaAdjoint<T> for Unary<Op, A>
where
    T: Float,
    Op: Map1<T> + Derivative,
    Op::Backward: Map3<T, T>,
    A: CudaAdjoint<T>,
{
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
        let t = c_name(T::NAME);
        let d = a.g.call::<T>(
            &<Op::Backward as Pointwise>::DEF,
            t,
            t,
            [Some(&adj), Some(&x), Some(&y)],
            None,
        );
        let d = a.bind(t, d);
        self.1.cuda_adjoint(a, first, k, d)
    }
}

impl<T, Op, A, B> CudaAdjoint<T> for Binary<Op, A, B>
where
    T: Float,
    Op: BinaryRule<T>,
    A: CudaAdjoint<T>,
    B: CudaAdjoint<T, Device = A::Device>,
{
    fn cuda_value(&self, a: &mut AdjointGen<'_>, first: usize) -> String {
        a.memo(self, |a| {
            let x = self.1.cuda_value(a, first);
            let y = self.2.cuda_value(a, first + A::LEAVES);
            let t = c_name(T::NAME);
            let s = Map2::<T>::scalar(&self.0);
            let v =
                a.g.call::<T>(&Op::DEF, t, t, [Some(&x), Some(&y), None], Some(s));
            a.bind(t, v)
        })
    }
    fn cuda_adjoint(&self, a: &mut AdjointGen<'_>, first: usize, k: usize, adj: String) -> String {
        let second = first + A::LEAVES;
        let x = self.1.cuda_value(a, first);
        let y = self.2.cuda_value(a, second);
        let t = c_name(T::NAME);
        let form = Op::C[usize::from(k >= second)];
        let d = form
            .replace("{g}", &adj)
            .replace("{x}", &x)
            .replace("{y}", &y)
            .replace("{T}", t);
        let d = a.bind(t, d);
        if k < second {
            self.1.cuda_adjoint(a, first, k, d)
        } else {
            self.2.cuda_adjoint(a, second, k, d)
        }
    }
}

/// `where`: the upstream adjoint to the branch its condition took; the
/// condition takes no gradient.
impl<T, C, X, Y> CudaAdjoint<T> for Ternary<table::Where, C, X, Y>
where
    T: Float,
    C: CudaExpr<Elem = bool>,
    X: CudaAdjoint<T, Device = C::Device>,
    Y: CudaAdjoint<T, Device = C::Device>,
{
    fn cuda_value(&self, a: &mut AdjointGen<'_>, first: usize) -> String {
        a.memo(self, |a| {
            let (second, third) = (first + C::LEAVES, first + C::LEAVES + X::LEAVES);
            let c = condition(&self.1, a, first);
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
        let c = condition(&self.1, a, first);
        let t = c_name(T::NAME);
        if k < third {
            let d = a.bind(t, format!("({c} ? {adj} : ({t})0)"));
            self.2.cuda_adjoint(a, second, k, d)
        } else {
            let d = a.bind(t, format!("({c} ? ({t})0 : {adj})"));
            self.3.cuda_adjoint(a, third, k, d)
        }
    }
}

/// A `where` condition's value, bound once per generated adjoint (its
/// whole expression, comparisons included, is the forward one).
fn condition<C: CudaExpr<Elem = bool>>(c: &C, a: &mut AdjointGen<'_>, first: usize) -> String {
    a.memo(c, |a| {
        let v = c.cuda(a.g, first);
        a.bind(c_name(bool::NAME), v)
    })
}

/// `clamp` and `lerp`: the upstream adjoint times each operand's factor.
/// Writes the adjoints of the three-operand ops whose rule is a
/// [`TernaryRule`] (`where` has its own, above).
macro_rules! factor_ops {
    ($($Op:ident),*) => {$(
impl<T, A, B, C> CudaAdjoint<T> for Ternary<table::$Op, A, B, C>
where
    T: Float,
    table::$Op: TernaryRule<T>,
    A: CudaAdjoint<T>,
    B: CudaAdjoint<T, Device = A::Device>,
    C: CudaAdjoint<T, Device = A::Device>,
{
    fn cuda_value(&self, a: &mut AdjointGen<'_>, first: usize) -> String {
        a.memo(self, |a| {
            let (second, third) = (first + A::LEAVES, first + A::LEAVES + B::LEAVES);
            let x = self.1.cuda_value(a, first);
            let y = self.2.cuda_value(a, second);
            let z = self.3.cuda_value(a, third);
            let t = c_name(T::NAME);
            let s = Map3::<T, T>::scalar(&self.0);
            let v = a
                .g
                .call::<T>(&<table::$Op as crate::backend::op::Pointwise>::DEF, t, t, [Some(&x), Some(&y), Some(&z)], Some(s));
            a.bind(t, v)
        })
    }
    fn cuda_adjoint(&self, a: &mut AdjointGen<'_>, first: usize, k: usize, adj: String) -> String {
        let (second, third) = (first + A::LEAVES, first + A::LEAVES + B::LEAVES);
        let x = self.1.cuda_value(a, first);
        let y = self.2.cuda_value(a, second);
        let z = self.3.cuda_value(a, third);
        let t = c_name(T::NAME);
        let at = usize::from(k >= second) + usize::from(k >= third);
        let d = <table::$Op as TernaryRule<T>>::C[at]
            .replace("{x}", &x)
            .replace("{y}", &y)
            .replace("{z}", &z)
            .replace("{T}", t);
        let d = a.bind(t, format!("({adj} * {d})"));
        match at {
            0 => self.1.cuda_adjoint(a, first, k, d),
            1 => self.2.cuda_adjoint(a, second, k, d),
            _ => self.3.cuda_adjoint(a, third, k, d),
        }
    }
}
    )*};
}
factor_ops!(Clamp, Lerp);

/// The generation of one adjoint as CUDA C: statements binding each
/// intermediate value once (a chain's adjoints read their operands' values
/// at every step; as one nested expression each would be recomputed, and
/// its scalars given a slot each time), ending in the adjoint's value.
pub struct AdjointGen<'g> {
    g: &'g mut CudaGen,
    body: String,
    locals: usize,
    bound: HashMap<(usize, &'static str), String>,
}

impl core::fmt::Debug for AdjointGen<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("AdjointGen")
            .field("body", &self.body)
            .field("locals", &self.locals)
            .finish_non_exhaustive()
    }
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
    /// an address, never a type; the erased node types differ in their
    /// names, lifetimes aside).
    fn memo<N>(&mut self, node: &N, make: impl FnOnce(&mut Self) -> String) -> String {
        let key = (node as *const N as usize, core::any::type_name::<N>());
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
///
/// ```
/// use shaped::backend::fused::{CudaGen, Node, cuda_adjoint};
/// use shaped::{Shape, Tensor};
/// let a = Tensor::<f64, Shape![3]>::ones();
/// let e = a.lazy() * 2.0;
/// let mut g = CudaGen::default();
/// assert!(cuda_adjoint(&e.node().erased(), 0, &mut g).starts_with("[&]() -> double"));
/// ```
pub fn cuda_adjoint<T: Float, E: CudaAdjoint<T>>(e: &E, k: usize, g: &mut CudaGen) -> String {
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

/// One generated kernel per leaf that needs a gradient (its adjoint),
/// then, where the chain broadcast the leaf, the eager sum back to its
/// sizes.
#[cfg(feature = "cuda")]
impl<T: Float + super::CudaElement> crate::backend::fused::FusedGrad<T> for crate::device::Cuda
where
    crate::device::Cuda: crate::backend::Backend<T>,
{
    fn gradients<E: crate::backend::fused::LoweredGrad<T, Device = Self>>(
        e: &E,
        g: Layout<'_, super::CudaStorage<T>>,
        needs: &[bool],
    ) -> Result<crate::backend::fused::LeafGrads<super::CudaStorage<T>>, super::CudaError> {
        use super::fused::{Collect, Generated, Source, eval_generated};
        use crate::backend::layout::Owned;
        use crate::backend::op::Reduction;
        /// Leaf `k`'s adjoint as a kernel's expression.
        struct Of<'e, T, E>(&'e E, usize, core::marker::PhantomData<fn() -> T>);
        impl<T: Float, E: CudaAdjoint<T>> Source for Of<'_, T, E> {
            fn expr(&self, g: &mut CudaGen) -> String {
                cuda_adjoint(self.0, self.1, g)
            }
        }
        let leaves = crate::backend::fused::leaf_dims(e);
        let mut grads = Vec::with_capacity(leaves.len());
        for (k, leaf) in leaves.iter().enumerate() {
            if !needs.get(k).copied().unwrap_or(false) {
                grads.push(None);
                continue;
            }
            let mut c = Collect::default();
            e.visit(&mut c);
            c.leaf(g);
            let of = Of(e, k, core::marker::PhantomData);
            let adjoint = eval_generated::<T>(
                g.dims(),
                c,
                &Generated {
                    key: (core::any::type_name::<E>(), k + 1),
                    out: c_name(T::NAME),
                    source: &of,
                },
            )?;
            if leaf.as_slice() == g.dims() {
                grads.push(Some(adjoint));
                continue;
            }
            let mask = crate::backend::fused::summed_axes(leaf, g.dims());
            let adjoint = Owned::new(adjoint);
            let mut sum = <Self as crate::backend::Backend<T>>::reduce(
                Reduction::Sum,
                adjoint.layout(),
                &mask,
                true,
            )?;
            // Contiguous, of the leaf's element count: its sizes.
            sum.dims = leaf.clone();
            grads.push(Some(sum));
        }
        Ok(grads)
    }
}
