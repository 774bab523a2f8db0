//! The CPU's pointwise loops, and their instances compiled once in shaped.
//!
//! A generic function is compiled in the crate that uses it, with that
//! crate's optimisation level: a user's debug build ran every elementwise
//! loop of shaped unoptimised (a GPT training step 27x slower than in
//! release, most of it in these loops and the polynomial of `tanh`/`exp`).
//! So each table op has, for `f32`, a set of plain function pointers to
//! its CPU loops ([`CpuUnary`], [`CpuBinary`], [`CpuTernary`]), defined in
//! `table_f32.rs` from the table's entries as non-generic functions,
//! which rustc compiles in shaped, with shaped's optimisation level,
//! whatever the user's profile. The CPU backend calls them when its
//! lookup finds them and the generic loop otherwise (other element types,
//! ops defined outside the table); the choice is a constant, so the
//! branch not taken is not compiled. For that the test must be a `bool`
//! constant (`if const { table_f32::unary::<T, Op>().is_some() }`): rustc
//! drops a dead branch before instantiating what it calls only when the
//! branch's condition is itself a constant, not a `match` on a constant
//! `Option` (which instantiated every generic loop of every `f32` op the
//! user's crate calls a second time, in that crate: 21% of the LLVM IR of
//! the GPT training example, 3 s of its 22 s release rebuild). The
//! compiled functions are `#[inline(never)]` so that no caller inlines one
//! and instantiates the generic loop it calls.
//!
//! The functions below are the loops' one definition, called by both: the
//! compiled functions (with `f32` and an output of rank known at run
//! time) and the generic fallback. The reductions and statistics take
//! their operation as a value, so they need no table: [`reduce`] and
//! [`statistic`] call their `f32` instance, compiled here, when `T` is
//! `f32`.

use core::any::TypeId;
use core::mem::ManuallyDrop;

use super::exec::{self, Fresh, Layout};
use super::isa::WidthOf;
use super::reducers::{Extreme, LogSumExp, Moments, Norm, NormKind, Prod, Sum};
use super::store::WithRun;
use crate::backend::op::{Map1, Map2, Map3, Reduction, Statistic};
use crate::element::{Element, Float, Numeric};
use crate::shape::ShapeError;

/// `op(s, a)` into a new tensor.
type Map1Fn<T> = fn(T, Layout<'_, T>) -> Result<Fresh<T>, ShapeError>;
/// `a = op(s, a)`.
type Update1Fn<T> = fn(T, Layout<'_, T>) -> Result<(), ShapeError>;
/// `op(s, a, b)` into a new tensor.
type Map2Fn<T, O> = fn(T, Layout<'_, T>, Layout<'_, T>) -> Result<Fresh<O>, ShapeError>;
/// `out = op(s, a, b)`.
type IntoFn<T, O> = fn(T, Layout<'_, T>, Layout<'_, T>, Layout<'_, O>) -> Result<(), ShapeError>;
/// `a = op(s, a, b)`.
type Update2Fn<T, O> = fn(T, Layout<'_, O>, Layout<'_, T>) -> Result<(), ShapeError>;
/// `op(s, a, b, c)` into a new tensor.
type Map3Fn<A, T> =
    fn(T, Layout<'_, A>, Layout<'_, T>, Layout<'_, T>) -> Result<Fresh<T>, ShapeError>;
/// `a = op(s, a, b, c)`.
type Update3Fn<A, T> = fn(T, Layout<'_, A>, Layout<'_, T>, Layout<'_, T>) -> Result<(), ShapeError>;

/// A one-operand op's CPU loops on `T`, compiled in shaped. The first
/// argument of each is the op's scalar parameter (`Map1::scalar`), from
/// which the function rebuilds the op.
pub(crate) struct CpuUnary<T: Element> {
    pub(crate) map: Map1Fn<T>,
    pub(crate) update: Update1Fn<T>,
    /// The op's type (the one the functions rebuild).
    pub(crate) op: fn() -> TypeId,
}

/// A two-operand op's CPU loops on `T` with result `O`, compiled in shaped.
/// `into` and `update` are for ops whose result is `T`; `rhs` and `lhs` are
/// the op with a scalar on one side (`ScalarRhs`, `ScalarLhs`), for the ops
/// that have those forms.
pub(crate) struct CpuBinary<T: Element, O: Element> {
    pub(crate) map: Map2Fn<T, O>,
    pub(crate) into: Option<IntoFn<T, O>>,
    pub(crate) update: Option<Update2Fn<T, O>>,
    pub(crate) rhs: Option<&'static CpuUnary<T>>,
    pub(crate) lhs: Option<&'static CpuUnary<T>>,
    /// The op's type (the one the functions rebuild).
    pub(crate) op: fn() -> TypeId,
}

/// A three-operand op's CPU loops (first operand `A`: `T`, or `bool` for
/// `where`), compiled in shaped; `update` for ops whose first operand is
/// the result's type.
pub(crate) struct CpuTernary<A: Element, T: Element> {
    pub(crate) map: Map3Fn<A, T>,
    pub(crate) update: Option<Update3Fn<A, T>>,
    /// The op's type (the one the functions rebuild).
    pub(crate) op: fn() -> TypeId,
}

/// Whether two names are the same, in a constant.
pub(crate) const fn same_name(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether `T` is `f32`, in a constant.
pub(crate) const fn is_f32<T: Element>() -> bool {
    same_name(T::NAME, f32::NAME)
}

/// Whether `T` is `f32` and `D` the CPU, in a constant: the test before a
/// generic layer's code calls its `(f32, Cpu)` instance compiled in shaped
/// (`Adam`'s update), so that the generic body is not compiled in the
/// user's crate for that pair. Where the names match, the caller still
/// checks the types themselves (`Any::downcast`), so a foreign type that
/// shares a name panics, never reinterprets.
pub(crate) const fn is_f32_cpu<T: Element, D: crate::device::Device>() -> bool {
    is_f32::<T>() && same_name(D::NAME, <crate::device::Cpu as crate::device::Device>::NAME)
}

/// Panics unless `T` is `f32`. The constants above choose by the element
/// type's name, which a type outside shaped could share with `f32`; every
/// call through them checks this first, so that such a type gets this
/// panic and never an `f32` function (where `T` is known, the comparison
/// is folded away).
#[inline(always)]
pub(crate) fn check_f32<T: 'static>() {
    assert!(
        TypeId::of::<T>() == TypeId::of::<f32>(),
        "an element type other than `f32` is named `float32`: element names must be distinct"
    );
}

/// The elements of the reduction `r` of `a` over the axes of `mask`.
pub(crate) fn reduce<T: Numeric>(
    r: Reduction,
    a: Layout<'_, T>,
    mask: &[bool],
) -> Result<Vec<T>, ShapeError> {
    if const { is_f32::<T>() } {
        check_f32::<T>();
        // SAFETY: `T` is `f32` (checked just above), so both casts are
        // between a type and itself.
        unsafe { same_vec(reduce_f32(r, same_layout(a), mask)) }
    } else {
        reduce_loops(r, a, mask)
    }
}

fn reduce_f32(r: Reduction, a: Layout<'_, f32>, mask: &[bool]) -> Result<Vec<f32>, ShapeError> {
    reduce_loops(r, a, mask)
}

fn reduce_loops<T: Numeric>(
    r: Reduction,
    a: Layout<'_, T>,
    mask: &[bool],
) -> Result<Vec<T>, ShapeError> {
    match r {
        Reduction::Sum => exec::reduce_vec(a, mask, &Sum { divisor: None }),
        Reduction::Mean => {
            let n = crate::backend::primitives::reduced_count(a.dims, mask);
            let divisor = Some(T::from_f64(n as f64));
            exec::reduce_vec(a, mask, &Sum { divisor })
        }
        Reduction::Prod => exec::reduce_vec(a, mask, &Prod),
        Reduction::Max => exec::reduce_vec(a, mask, &Extreme::<true>),
        Reduction::Min => exec::reduce_vec(a, mask, &Extreme::<false>),
    }
}

/// The elements of the statistic `s` of `a` over the axes of `mask`.
///
/// The same dispatch as [`reduce`], written again on purpose: a helper
/// taking the `f32` and the generic function as arguments would name the
/// generic one for `f32` too, and rustc would then compile it in the
/// user's crate, which is what this file avoids.
pub(crate) fn statistic<T: Float>(
    s: Statistic,
    a: Layout<'_, T>,
    mask: &[bool],
) -> Result<Vec<T>, ShapeError> {
    if const { is_f32::<T>() } {
        check_f32::<T>();
        // SAFETY: as in `reduce`.
        unsafe { same_vec(statistic_f32(s, same_layout(a), mask)) }
    } else {
        statistic_loops(s, a, mask)
    }
}

fn statistic_f32(s: Statistic, a: Layout<'_, f32>, mask: &[bool]) -> Result<Vec<f32>, ShapeError> {
    statistic_loops(s, a, mask)
}

fn statistic_loops<T: Float>(
    s: Statistic,
    a: Layout<'_, T>,
    mask: &[bool],
) -> Result<Vec<T>, ShapeError> {
    match s {
        Statistic::Variance { correction, sqrt } => {
            let correction = correction as f64;
            exec::reduce_vec(a, mask, &Moments { correction, sqrt })
        }
        Statistic::Norm(p) => exec::reduce_vec(a, mask, &Norm(NormKind::of(p))),
        Statistic::LogSumExp => exec::reduce_vec(a, mask, &LogSumExp),
    }
}

/// `softmax` (`log_softmax` when `log`) of each row of `n` elements of
/// `x` into `out`, as [`softmax::rows`](super::softmax::rows), through its
/// `f32` instance compiled here when `T` is `f32`: the rows' `exp`
/// polynomial compiled at a user's debug level was most of a debug GPT
/// forward pass.
pub(crate) fn softmax_rows<T: Float>(
    x: &[T],
    n: usize,
    log: bool,
    out: &mut [core::mem::MaybeUninit<T>],
) {
    if const { is_f32::<T>() } {
        check_f32::<T>();
        // SAFETY: `T` is `f32` (checked just above): both slices are seen
        // as what they are.
        unsafe {
            softmax_rows_f32(
                core::slice::from_raw_parts(x.as_ptr().cast(), x.len()),
                n,
                log,
                core::slice::from_raw_parts_mut(out.as_mut_ptr().cast(), out.len()),
            )
        }
    } else {
        super::softmax::rows(x, n, log, out)
    }
}

#[inline(never)]
fn softmax_rows_f32(x: &[f32], n: usize, log: bool, out: &mut [core::mem::MaybeUninit<f32>]) {
    super::softmax::rows(x, n, log, out)
}

/// `l` as a layout of `U`.
///
/// # Safety
/// `T` and `U` are the same type.
unsafe fn same_layout<'a, T, U>(l: Layout<'a, T>) -> Layout<'a, U> {
    let l = ManuallyDrop::new(l);
    // SAFETY: the same type (the contract), read once from a value that is
    // not dropped.
    unsafe { core::mem::transmute_copy(&*l) }
}

/// `v` as a vector of `U`.
///
/// # Safety
/// `T` and `U` are the same type.
unsafe fn same_vec<T, U>(v: Result<Vec<T>, ShapeError>) -> Result<Vec<U>, ShapeError> {
    let mut v = ManuallyDrop::new(v?);
    // SAFETY: the vector's own buffer, length and capacity, of the same
    // element type (the contract); `v` is not dropped.
    Ok(unsafe { Vec::from_raw_parts(v.as_mut_ptr().cast::<U>(), v.len(), v.capacity()) })
}

/// `op` on every element of `a`.
pub(crate) fn map1<T: Element, Op: Map1<T>>(
    op: Op,
    a: Layout<'_, T>,
) -> Result<Fresh<T>, ShapeError> {
    exec::map1(
        a,
        WidthOf::<Op>::NEW,
        #[inline(always)]
        move |x| op.call(x),
    )
}

/// [`map1`] on `f32` with the op's own loop `run` over contiguous runs
/// (`store::WithRun`).
pub(crate) fn map1_with_run<Op: Map1<f32>>(
    op: Op,
    a: Layout<'_, f32>,
    run: impl Fn(&mut [core::mem::MaybeUninit<f32>], &[f32]) + Sync,
) -> Result<Fresh<f32>, ShapeError> {
    exec::map1(
        a,
        WidthOf::<Op>::NEW,
        WithRun {
            f: move |x| op.call(x),
            run,
        },
    )
}

/// [`update1`] on `f32` with the op's own loop `run` over contiguous runs
/// (each chunk copied aside first: `store::Kernel1InPlace`).
pub(crate) fn update1_with_run<Op: Map1<f32>>(
    op: Op,
    a: Layout<'_, f32>,
    run: impl Fn(&mut [core::mem::MaybeUninit<f32>], &[f32]) + Sync,
) -> Result<(), ShapeError> {
    exec::update1(
        a,
        WidthOf::<Op>::NEW,
        WithRun {
            f: move |x| op.call(x),
            run,
        },
    )
}

/// `op` on every element of `a`, in place.
pub(crate) fn update1<T: Element, Op: Map1<T>>(op: Op, a: Layout<'_, T>) -> Result<(), ShapeError> {
    exec::update1(
        a,
        WidthOf::<Op>::NEW,
        #[inline(always)]
        move |x| op.call(x),
    )
}

/// `op` on `a` and `b` broadcast together.
pub(crate) fn map2<T: Element, Op: Map2<T>>(
    op: Op,
    a: Layout<'_, T>,
    b: Layout<'_, T>,
) -> Result<Fresh<Op::Out>, ShapeError> {
    exec::map2(
        a,
        b,
        WidthOf::<Op>::NEW,
        #[inline(always)]
        move |x, y| op.call(x, y),
    )
}

/// `op` on `a` and `b` broadcast together, into `out`.
pub(crate) fn map2_into<T: Element, Op: Map2<T>>(
    op: Op,
    a: Layout<'_, T>,
    b: Layout<'_, T>,
    out: Layout<'_, Op::Out>,
) -> Result<(), ShapeError> {
    exec::map2_into(
        a,
        b,
        out,
        WidthOf::<Op>::NEW,
        #[inline(always)]
        move |x, y| op.call(x, y),
    )
}

/// `a = op(a, b)`.
pub(crate) fn update2<T: Element, Op: Map2<T, Out = T>>(
    op: Op,
    a: Layout<'_, T>,
    b: Layout<'_, T>,
) -> Result<(), ShapeError> {
    exec::update2(
        a,
        b,
        WidthOf::<Op>::NEW,
        #[inline(always)]
        move |x, y| op.call(x, y),
    )
}

/// `op` on `a`, `b` and `c` broadcast together.
pub(crate) fn map3<A: Element, T: Element, Op: Map3<A, T>>(
    op: Op,
    a: Layout<'_, A>,
    b: Layout<'_, T>,
    c: Layout<'_, T>,
) -> Result<Fresh<T>, ShapeError> {
    exec::map3(
        a,
        b,
        c,
        WidthOf::<Op>::NEW,
        #[inline(always)]
        move |x, y, z| op.call(x, y, z),
    )
}

/// `a = op(a, b, c)`.
pub(crate) fn update3<T: Element, Op: Map3<T, T>>(
    op: Op,
    a: Layout<'_, T>,
    b: Layout<'_, T>,
    c: Layout<'_, T>,
) -> Result<(), ShapeError> {
    exec::update3(
        a,
        b,
        c,
        WidthOf::<Op>::NEW,
        #[inline(always)]
        move |x, y, z| op.call(x, y, z),
    )
}
