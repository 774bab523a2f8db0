//! The CPU's lowering of a fused chain's backward pass: the chain's value
//! and its adjoints recomputed block by block from the upstream gradient
//! and the inputs (no intermediate is stored between the passes), each
//! block staying in L1. Every leaf's adjoint comes from the same block,
//! written out, or, for a leaf the chain broadcast, summed back to its
//! sizes as the blocks go by ([`gradients`]). The rules are the op table's
//! derivatives and `backend::fused::grads`'; this file is how the CPU runs
//! them over an erased expression ([`CpuAdjoint`]), so one instance serves
//! a chain whatever its operands' static shapes.

use core::mem::MaybeUninit;

use super::lower::CpuExpr;
use super::{Block, Collect, Each, Run, Scratch, Sink, Source, eval, eval_each, reduce, write_run};
use crate::backend::Layout;
use crate::backend::cpu::primitives::whole;
use crate::backend::cpu::reducers::Sum;
use crate::backend::cpu::storage::Storage;
use crate::backend::fused::expr::{Binary, ErasedLeaf, ErasedScalar, Expr, Ternary, Unary};
use crate::backend::fused::grads::{BinaryRule, TernaryRule};
use crate::backend::fused::{LeafGrads, LoweredGrad, leaf_dims, summed_axes};
use crate::backend::op::{Derivative, Map1, Map3, table};
use crate::device::{Cpu, Device};
use crate::element::Float;
use crate::shape::{DimVec, ShapeError};

/// An expression whose adjoints the CPU computes over a block.
///
/// ```
/// use shaped::backend::fused::{CpuAdjoint, Node};
/// use shaped::{Shape, Tensor};
/// let a = Tensor::<f32, Shape![3]>::ones();
/// let e = (a.lazy() * 2.0f32).tanh();
/// # fn lowered<E: CpuAdjoint<f32>>(_: &E) -> bool { true }
/// assert!(lowered(&e.node().erased()));
/// ```
#[doc(hidden)]
pub trait CpuAdjoint<T: Float>: CpuExpr<Elem = T> {
    /// Puts the adjoint of each leaf of this subtree (numbered from
    /// `first`) that `sink` wants, over block `b`, given this node's
    /// adjoint `adj`: each node's step is one loop over its operands'
    /// lanes (their values recomputed in registers), with one block of
    /// scratch per node on the way down, so one pass gives every input's
    /// adjoint, and subtrees without a wanted leaf are skipped. No closure
    /// per node: the depth of a chain is bounded neither by the compiler's
    /// recursion limit nor by a stack that grew with the square of the
    /// depth.
    fn adjoints<K: Sink<T>>(&self, b: &Block<'_>, first: usize, adj: Run<'_, T>, sink: &mut K);
}

impl<T: Float, D: Device> CpuAdjoint<T> for ErasedLeaf<'_, T, D> {
    #[inline(always)]
    fn adjoints<K: Sink<T>>(&self, _: &Block<'_>, first: usize, adj: Run<'_, T>, sink: &mut K) {
        sink.put(first, adj)
    }
}

impl<T: Float, D: Device> CpuAdjoint<T> for ErasedScalar<T, D> {
    // A scalar has no leaf, so no adjoint to put.
    #[inline(always)]
    fn adjoints<K: Sink<T>>(&self, _: &Block<'_>, _: usize, _: Run<'_, T>, _: &mut K) {}
}

/// A one-operand op: the upstream adjoint times the op table's derivative
/// (`Op::Backward`, of `g`, `x` and `y = f(x)`).
impl<T, Op, A> CpuAdjoint<T> for Unary<Op, A>
where
    T: Float,
    Op: Map1<T> + Derivative,
    Op::Backward: Map3<T, T>,
    A: CpuAdjoint<T>,
{
    #[inline(always)]
    fn adjoints<K: Sink<T>>(&self, b: &Block<'_>, first: usize, adj: Run<'_, T>, sink: &mut K) {
        if !sink.wants(first, A::LEAVES) {
            return;
        }
        let mut s = b.scratch();
        let back = Op::Backward::default();
        let adj = step_over(
            &mut s,
            b,
            &self.1,
            first,
            adj,
            #[inline(always)]
            |g, x| back.call(g, x, self.0.call(x)),
        );
        self.1.adjoints(b, first, adj, sink)
    }
}

impl<T, Op, A, B> CpuAdjoint<T> for Binary<Op, A, B>
where
    T: Float,
    Op: BinaryRule<T>,
    A: CpuAdjoint<T>,
    B: CpuAdjoint<T, Device = A::Device>,
{
    #[inline(always)]
    fn adjoints<K: Sink<T>>(&self, b: &Block<'_>, first: usize, adj: Run<'_, T>, sink: &mut K) {
        let second = first + A::LEAVES;
        let mut s = b.scratch();
        if sink.wants(first, A::LEAVES) {
            let d = step_two(&mut s, b, (&self.1, first), (&self.2, second), adj, Op::da);
            self.1.adjoints(b, first, d, sink);
        }
        if sink.wants(second, B::LEAVES) {
            let d = step_two(&mut s, b, (&self.1, first), (&self.2, second), adj, Op::db);
            self.2.adjoints(b, second, d, sink);
        }
    }
}

/// `where`: the upstream adjoint to the branch its condition took, zero to
/// the other; the condition takes no gradient.
impl<T, C, X, Y> CpuAdjoint<T> for Ternary<table::Where, C, X, Y>
where
    T: Float,
    C: CpuExpr<Elem = bool>,
    X: CpuAdjoint<T, Device = C::Device>,
    Y: CpuAdjoint<T, Device = C::Device>,
{
    #[inline(always)]
    fn adjoints<K: Sink<T>>(&self, b: &Block<'_>, first: usize, adj: Run<'_, T>, sink: &mut K) {
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

/// `clamp` and `lerp`: the upstream adjoint times each operand's factor.
/// Writes the adjoints of the three-operand ops whose rule is a
/// [`TernaryRule`] (`where` has its own, above).
macro_rules! factor_ops {
    ($($Op:ident),*) => {$(
impl<T, A, B, C> CpuAdjoint<T> for Ternary<table::$Op, A, B, C>
where
    T: Float,
    table::$Op: TernaryRule<T>,
    A: CpuAdjoint<T>,
    B: CpuAdjoint<T, Device = A::Device>,
    C: CpuAdjoint<T, Device = A::Device>,
{
    #[inline(always)]
    fn adjoints<K: Sink<T>>(&self, b: &Block<'_>, first: usize, adj: Run<'_, T>, sink: &mut K) {
        let (second, third) = (first + A::LEAVES, first + A::LEAVES + B::LEAVES);
        let ops = ((&self.1, first), (&self.2, second), (&self.3, third));
        let mut s = b.scratch();
        if sink.wants(first, A::LEAVES) {
            let d = step_three(&mut s, b, ops, adj, <table::$Op as TernaryRule<T>>::d0);
            self.1.adjoints(b, first, d, sink);
        }
        if sink.wants(second, B::LEAVES) {
            let d = step_three(&mut s, b, ops, adj, <table::$Op as TernaryRule<T>>::d1);
            self.2.adjoints(b, second, d, sink);
        }
        if sink.wants(third, C::LEAVES) {
            let d = step_three(&mut s, b, ops, adj, <table::$Op as TernaryRule<T>>::d2);
            self.3.adjoints(b, third, d, sink);
        }
    }
}
    )*};
}
factor_ops!(Clamp, Lerp);

/// One adjoint step that reads a single operand, `child` (leaves numbered
/// from `first`): `f(g, x)` for each element of block `b`, `g` being
/// `adj`'s element and `x` the child's value there, written into `s`, the
/// child's lanes released before the caller goes down the tree. The steps
/// of the one-operand ops and of `where` (its condition).
#[inline(always)]
fn step_over<'s, T: Copy, N: CpuExpr>(
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
            let l = child.lanes(b, first);
            s.step(
                b.len(),
                adj,
                #[inline(always)]
                |g, c, j| f(g, N::at(&l, c, j)),
            )
        },
    )
}

/// An operand of a node: its subtree and the number of its first leaf.
type Operand<'n, N> = (&'n N, usize);

/// One adjoint step of a two-operand op: `f(g, x, y)` for each element
/// of block `b`, `g` being `adj`'s element and `x`, `y` the operands'
/// values there (each operand with the number of its first leaf), written
/// into `s`, the operands' lanes released before the caller goes down the
/// tree.
#[inline(always)]
fn step_two<'s, T: Copy, A: CpuExpr, B: CpuExpr>(
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
            let (lx, ly) = (x.lanes(b, first), y.lanes(b, second));
            s.step(
                b.len(),
                adj,
                #[inline(always)]
                |g, c, j| f(g, A::at(&lx, c, j), B::at(&ly, c, j)),
            )
        },
    )
}

/// One adjoint step of a three-operand op whose operands' adjoints are
/// the upstream one times a factor: `g * f(x, y, z)`, as [`step_two`].
#[inline(always)]
fn step_three<'s, T: Copy + core::ops::Mul<Output = T>, A: CpuExpr, B: CpuExpr, C: CpuExpr>(
    s: &'s mut Scratch<'_, T>,
    b: &Block<'_>,
    ((x, first), (y, second), (z, third)): (Operand<'_, A>, Operand<'_, B>, Operand<'_, C>),
    adj: Run<'_, T>,
    f: impl Fn(A::Elem, B::Elem, C::Elem) -> T,
) -> Run<'s, T> {
    b.scoped(
        #[inline(always)]
        move |b| {
            let (lx, ly, lz) = (x.lanes(b, first), y.lanes(b, second), z.lanes(b, third));
            s.step(
                b.len(),
                adj,
                #[inline(always)]
                |g, c, j| g * f(A::at(&lx, c, j), B::at(&ly, c, j), C::at(&lz, c, j)),
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

/// The adjoint of leaf `k` of `e` given the upstream gradient `g` (leaf
/// `E::LEAVES` of the evaluation): what the CPU evaluates, and reduces to
/// the leaf's shape, when one input's gradient is asked for, or the
/// chain's inner loops are too short for [`GradsOf`]'s pass.
struct GradOf<'e, T, E> {
    all: GradsOf<'e, T, E>,
    k: usize,
}

impl<T: Float, E: CpuAdjoint<T, Device = Cpu>> Source for GradOf<'_, T, E> {
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
struct GradsOf<'e, T, E> {
    e: &'e E,
    g: Layout<'e, Storage<T>>,
}

impl<T: Float, E: CpuAdjoint<T, Device = Cpu>> Each for GradsOf<'_, T, E> {
    type Elem = T;
    const OPS: usize = E::OPS;
    fn dims(&self) -> Result<DimVec, ShapeError> {
        Ok(DimVec::from_slice(self.g.dims()))
    }
    fn leaves<'a>(&'a self, c: &mut Collect<'a>) {
        self.e.visit(c);
        crate::backend::fused::Leaves::leaf(c, self.g);
    }
    fn transcendental(&self) -> bool {
        Expr::transcendental(self.e)
    }
    #[inline(always)]
    fn write_each<K: Sink<T>>(&self, b: &Block<'_>, k: &mut K) {
        let mut s = b.scratch();
        let g = b.leaf(E::LEAVES, &mut s);
        self.e.adjoints(b, 0, g, k)
    }
}

/// The gradient of each leaf of `e` that needs one (`needs`, in leaf
/// order) given the upstream gradient `g` (of `e`'s sizes): its adjoint,
/// summed over the axes along which the chain broadcast it, with the
/// leaf's sizes.
///
/// One pass for every leaf: the adjoints computed together, block by
/// block, each written out or summed back to its leaf's sizes as the
/// blocks go by. Where the chain's inner loops are short (a `(n, 2)`
/// value), one pass per leaf instead, each reduced along the axes it is
/// summed over.
pub(crate) fn gradients<T: Float, E: LoweredGrad<T, Device = Cpu>>(
    e: &E,
    g: Layout<'_, Storage<T>>,
    needs: &[bool],
) -> Result<LeafGrads<Storage<T>>, ShapeError> {
    let dims = leaf_dims(e);
    let asked = |k: usize| needs.get(k).copied().unwrap_or(false);
    if (0..dims.len()).filter(|&k| asked(k)).count() > 1 {
        let targets: Vec<Option<&[usize]>> = (dims.iter().enumerate())
            .map(|(k, d)| asked(k).then_some(d.as_slice()))
            .collect();
        let each = GradsOf { e, g };
        if let Some(values) = eval_each(&each, &targets)? {
            return Ok(values
                .into_iter()
                .zip(&dims)
                .map(|(v, d)| v.map(|v| whole(v, d)))
                .collect());
        }
    }
    let out = g.dims();
    let mut grads = Vec::with_capacity(dims.len());
    for (k, leaf) in dims.iter().enumerate() {
        if !asked(k) {
            grads.push(None);
            continue;
        }
        let src = GradOf {
            all: GradsOf { e, g },
            k,
        };
        if leaf.as_slice() == out {
            grads.push(Some(eval(&src)?));
            continue;
        }
        let mask = summed_axes(leaf, out);
        let (data, _) = reduce(&src, &Sum { divisor: None }, &mask)?;
        grads.push(Some(whole(data, leaf)));
    }
    Ok(grads)
}

impl<T: Float> crate::backend::fused::FusedGrad<T> for Cpu {
    fn gradients<E: LoweredGrad<T, Device = Cpu>>(
        e: &E,
        g: Layout<'_, Storage<T>>,
        needs: &[bool],
    ) -> Result<LeafGrads<Storage<T>>, ShapeError> {
        gradients(e, g, needs)
    }
}
