//! The op table's pointwise operations on `f32`, compiled once in shaped.
//!
//! A generic function is compiled in the crate that uses it, at that
//! crate's optimisation level, so a user's debug build would run every
//! elementwise loop of shaped unoptimised (`compiled.rs` says what that
//! cost). This file reads the table's entries (`pointwise_entries!` in
//! `backend/op/table.rs`, the same list the ops are defined from) and
//! gives every table op, for `f32`, plain non-generic functions for its
//! CPU loops (an inherent impl on the op's type, here in the backend),
//! which rustc compiles in shaped with shaped's optimisation level
//! whatever the user's profile, gathered in a [`CpuUnary`], [`CpuBinary`]
//! or [`CpuTernary`] constant. The op traits know nothing of them: the
//! CPU backend looks an op's constant up from its description
//! ([`Pointwise::DEF`]: name, CUDA expression, arity, mode) in a constant
//! function ([`unary`], [`binary`], ...), so that a new table entry gets
//! its compiled loops with no line here, and the choice between these
//! loops and the generic ones is a constant (`backend/cpu/primitives.rs`).
//!
//! A description names one op: the CUDA backend keys its kernels by it
//! too. An op outside the table that copies a table op's description is
//! refused when it reaches these loops ([`check`]: the op's type must be
//! the one the loops rebuild), never run as the table's op.
//!
//! A few ops also have a vectorised run of their own for contiguous
//! operands (`sin`, `cos`, `tan`: `trig_runs.rs`), named in
//! `compile_f32!`'s `@one` arms below.

use core::any::TypeId;

use super::compiled::{self, CpuBinary, CpuTernary, CpuUnary, check_f32, is_f32, same_name};
use super::exec::{Fresh, Layout};
use super::trig_runs;
use crate::backend::op::table::*;
use crate::backend::op::{Map1, Map2, Map3, Mode, OpDef, Pointwise, ScalarLhs, ScalarRhs};
use crate::element::Element;
use crate::shape::ShapeError;

macro_rules! cpu_f32 {
    (@unary $Ty:ty, |$s:ident| $op:expr $(, $run:path)?) => {
        impl $Ty {
            #[inline(never)]
            fn cpu_f32_map($s: f32, a: Layout<'_, f32>) -> Result<Fresh<f32>, ShapeError> {
                cpu_f32!(@map1 $op, a $(, $run)?)
            }
            #[inline(never)]
            fn cpu_f32_update($s: f32, a: Layout<'_, f32>) -> Result<(), ShapeError> {
                cpu_f32!(@update1 $op, a $(, $run)?)
            }
            const CPU_F32: CpuUnary<f32> = CpuUnary {
                map: Self::cpu_f32_map,
                update: Self::cpu_f32_update,
                op: TypeId::of::<Self>,
            };
        }
    };
    (@binary $Ty:ty, |$s:ident| $op:expr $(, $forms:ident)?) => {
        impl $Ty {
            #[inline(never)]
            fn cpu_f32_map($s: f32, a: Layout<'_, f32>, b: Layout<'_, f32>) -> Result<Fresh<f32>, ShapeError> {
                compiled::map2($op, a, b)
            }
            #[inline(never)]
            fn cpu_f32_into($s: f32, a: Layout<'_, f32>, b: Layout<'_, f32>, o: Layout<'_, f32>) -> Result<(), ShapeError> {
                compiled::map2_into($op, a, b, o)
            }
            #[inline(never)]
            fn cpu_f32_update($s: f32, a: Layout<'_, f32>, b: Layout<'_, f32>) -> Result<(), ShapeError> {
                compiled::update2($op, a, b)
            }
            cpu_f32!(@forms $($forms)? $op);
            const CPU_F32: CpuBinary<f32, f32> = CpuBinary {
                map: Self::cpu_f32_map,
                into: Some(Self::cpu_f32_into),
                update: Some(Self::cpu_f32_update),
                rhs: cpu_f32!(@side $($forms)? CPU_F32_RHS),
                lhs: cpu_f32!(@side $($forms)? CPU_F32_LHS),
                op: TypeId::of::<Self>,
            };
        }
    };
    (@forms scalar_forms $op:expr) => {
        #[inline(never)]
        fn cpu_f32_rhs_map(s: f32, a: Layout<'_, f32>) -> Result<Fresh<f32>, ShapeError> {
            compiled::map1(ScalarRhs($op, s), a)
        }
        #[inline(never)]
        fn cpu_f32_rhs_update(s: f32, a: Layout<'_, f32>) -> Result<(), ShapeError> {
            compiled::update1(ScalarRhs($op, s), a)
        }
        #[inline(never)]
        fn cpu_f32_lhs_map(s: f32, a: Layout<'_, f32>) -> Result<Fresh<f32>, ShapeError> {
            compiled::map1(ScalarLhs($op, s), a)
        }
        #[inline(never)]
        fn cpu_f32_lhs_update(s: f32, a: Layout<'_, f32>) -> Result<(), ShapeError> {
            compiled::update1(ScalarLhs($op, s), a)
        }
        const CPU_F32_RHS: CpuUnary<f32> = CpuUnary {
            map: Self::cpu_f32_rhs_map,
            update: Self::cpu_f32_rhs_update,
            op: TypeId::of::<ScalarRhs<Self, f32>>,
        };
        const CPU_F32_LHS: CpuUnary<f32> = CpuUnary {
            map: Self::cpu_f32_lhs_map,
            update: Self::cpu_f32_lhs_update,
            op: TypeId::of::<ScalarLhs<Self, f32>>,
        };
    };
    (@forms $op:expr) => {};
    (@map1 $op:expr, $a:ident) => { compiled::map1($op, $a) };
    (@update1 $op:expr, $a:ident) => { compiled::update1($op, $a) };
    (@update1 $op:expr, $a:ident, $run:path) => {
        compiled::update1_with_run(
            $op,
            $a,
            #[inline(always)]
            |o: &mut [core::mem::MaybeUninit<f32>], x: &[f32]| $run(o, x),
        )
    };
    // The loop as an `#[inline(always)]` closure calling `$run` by its
    // path: a function item passed as a value is called through a shim
    // that is not inlined into the loop's vectors (it ran with the
    // baseline ones).
    (@map1 $op:expr, $a:ident, $run:path) => {
        compiled::map1_with_run(
            $op,
            $a,
            #[inline(always)]
            |o: &mut [core::mem::MaybeUninit<f32>], x: &[f32]| $run(o, x),
        )
    };
    (@side scalar_forms $k:ident) => { Some(&Self::$k) };
    (@side $k:ident) => { None };
    (@compare $Op:ident) => {
        impl $Op {
            #[inline(never)]
            fn cpu_f32_map(_: f32, a: Layout<'_, f32>, b: Layout<'_, f32>) -> Result<Fresh<bool>, ShapeError> {
                compiled::map2($Op, a, b)
            }
            const CPU_F32: CpuBinary<f32, bool> = CpuBinary {
                map: Self::cpu_f32_map,
                into: None,
                update: None,
                rhs: None,
                lhs: None,
                op: TypeId::of::<Self>,
            };
        }
    };
    (@ternary $Ty:ty, |$s:ident| $op:expr) => {
        impl $Ty {
            #[inline(never)]
            fn cpu_f32_map($s: f32, a: Layout<'_, f32>, b: Layout<'_, f32>, c: Layout<'_, f32>) -> Result<Fresh<f32>, ShapeError> {
                compiled::map3($op, a, b, c)
            }
            #[inline(never)]
            fn cpu_f32_update($s: f32, a: Layout<'_, f32>, b: Layout<'_, f32>, c: Layout<'_, f32>) -> Result<(), ShapeError> {
                compiled::update3($op, a, b, c)
            }
            const CPU_F32: CpuTernary<f32, f32> = CpuTernary {
                map: Self::cpu_f32_map,
                update: Some(Self::cpu_f32_update),
                op: TypeId::of::<Self>,
            };
        }
    };
    (@select $Op:ident) => {
        impl $Op {
            #[inline(never)]
            fn cpu_f32_map(_: f32, a: Layout<'_, bool>, b: Layout<'_, f32>, c: Layout<'_, f32>) -> Result<Fresh<f32>, ShapeError> {
                compiled::map3($Op, a, b, c)
            }
            const CPU_F32: CpuTernary<bool, f32> = CpuTernary {
                map: Self::cpu_f32_map,
                update: None,
                op: TypeId::of::<Self>,
            };
        }
    };
}

/// Reads the table's entries (the grammar of `pointwise_table!` in
/// `backend/op/table.rs`): each op's `f32` loops, then one lookup per kind
/// of op from a description to the op's loops.
macro_rules! compile_f32 {
    ($(
        $(#[$doc:meta])*
        $kind:ident $Op:ident $name:literal : $fam:ident => $cuda:literal, |$($arg:ident),*| $body:expr $(, grad $grad:ident)?;
    )*) => {
        $(compile_f32!(@one $kind $Op);)*

        /// The loops of the one-operand table op described by `def`.
        const fn unary_f32(def: &OpDef) -> Option<&'static CpuUnary<f32>> {
            $(compile_f32!(@find unary $kind $Op def);)*
            None
        }

        /// The loops of the two-operand table op (result `f32`) described
        /// by `def`.
        const fn binary_f32(def: &OpDef) -> Option<&'static CpuBinary<f32, f32>> {
            $(compile_f32!(@find binary $kind $Op def);)*
            None
        }

        /// The loops of the comparison described by `def`.
        const fn compare_f32(def: &OpDef) -> Option<&'static CpuBinary<f32, bool>> {
            $(compile_f32!(@find compare $kind $Op def);)*
            None
        }

        /// The loops of the three-operand table op described by `def`.
        const fn ternary_f32(def: &OpDef) -> Option<&'static CpuTernary<f32, f32>> {
            $(compile_f32!(@find ternary $kind $Op def);)*
            None
        }

        /// The loops of the selection described by `def`.
        const fn select_f32(def: &OpDef) -> Option<&'static CpuTernary<bool, f32>> {
            $(compile_f32!(@find select $kind $Op def);)*
            None
        }
    };

    // The ops with a vectorised run of their own.
    (@one unary Sin) => { cpu_f32!(@unary Sin, |_s| Sin, trig_runs::sin_run); };
    (@one unary Cos) => { cpu_f32!(@unary Cos, |_s| Cos, trig_runs::cos_run); };
    (@one unary Tan) => { cpu_f32!(@unary Tan, |_s| Tan, trig_runs::tan_run); };
    (@one unary $Op:ident) => { cpu_f32!(@unary $Op, |_s| $Op); };
    (@one unary_s $Op:ident) => { cpu_f32!(@unary $Op<f32>, |s| $Op(s)); };
    (@one binary $Op:ident) => { cpu_f32!(@binary $Op, |_s| $Op, scalar_forms); };
    (@one binary_s $Op:ident) => { cpu_f32!(@binary $Op<f32>, |s| $Op(s)); };
    (@one compare $Op:ident) => { cpu_f32!(@compare $Op); };
    (@one ternary $Op:ident) => { cpu_f32!(@ternary $Op, |_s| $Op); };
    (@one ternary_s $Op:ident) => { cpu_f32!(@ternary $Op<f32>, |s| $Op(s)); };
    (@one select $Op:ident) => { cpu_f32!(@select $Op); };

    (@find unary unary $Op:ident $def:ident) => { compile_f32!(@hit $Op, $def) };
    (@find unary unary_s $Op:ident $def:ident) => { compile_f32!(@hit $Op<f32>, $def) };
    (@find binary binary $Op:ident $def:ident) => { compile_f32!(@hit $Op, $def) };
    (@find binary binary_s $Op:ident $def:ident) => { compile_f32!(@hit $Op<f32>, $def) };
    (@find compare compare $Op:ident $def:ident) => { compile_f32!(@hit $Op, $def) };
    (@find ternary ternary $Op:ident $def:ident) => { compile_f32!(@hit $Op, $def) };
    (@find ternary ternary_s $Op:ident $def:ident) => { compile_f32!(@hit $Op<f32>, $def) };
    (@find select select $Op:ident $def:ident) => { compile_f32!(@hit $Op, $def) };
    (@find $want:ident $kind:ident $Op:ident $def:ident) => {};
    (@hit $Ty:ty, $def:ident) => {
        if same_def($def, &<$Ty as Pointwise>::DEF) {
            return Some(&<$Ty>::CPU_F32);
        }
    };
}

pointwise_entries!(compile_f32);

/// Whether `def` describes the table op `table` with tensor operands: the
/// same name, CUDA expression, arity and operand kinds.
const fn same_def(def: &OpDef, table: &OpDef) -> bool {
    matches!(def.mode, Mode::Tensors)
        && same_name(def.name, table.name)
        && same_name(def.cuda, table.cuda)
        && def.arity == table.arity
        && def.bool_out == table.bool_out
        && def.bool_first == table.bool_first
        && def.uses_scalar == table.uses_scalar
}

/// `def` with tensor operands (a scalar form's two-operand op).
const fn tensors(def: OpDef) -> OpDef {
    OpDef {
        mode: Mode::Tensors,
        ..def
    }
}

/// Re-types loops built for `f32` as loops of `T`; `None` unless `T` is
/// named as `f32` is (calls through them check the type itself first:
/// [`check`]).
macro_rules! retype_f32 {
    ($name:ident, $K:ident < $($p:ident),* >, [$($f32:ty),*]) => {
        const fn $name<T: Element>(k: Option<&'static $K<$($f32),*>>) -> Option<&'static $K<$($p),*>> {
            match k {
                // SAFETY: a reference to the same constant seen with `T` in
                // place of `f32`: its fields are function pointers, valid
                // whatever their argument types. They are
                // called only after `check::<T, _>`, when `T` is `f32`.
                Some(k) if is_f32::<T>() => {
                    Some(unsafe { &*(k as *const $K<$($f32),*> as *const $K<$($p),*>) })
                }
                _ => None,
            }
        }
    };
}
retype_f32!(retype_unary, CpuUnary<T>, [f32]);
retype_f32!(retype_binary, CpuBinary<T, T>, [f32, f32]);
retype_f32!(retype_compare, CpuBinary<T, bool>, [f32, bool]);
retype_f32!(retype_ternary, CpuTernary<T, T>, [f32, f32]);
retype_f32!(retype_select, CpuTernary<bool, T>, [bool, f32]);

/// The compiled loops of the one-operand op `Op` on `T`: a table op on
/// `f32`, or a two-operand table op with a scalar on one side
/// ([`ScalarRhs`], [`ScalarLhs`]) where it has those forms; `None`
/// otherwise.
pub(crate) const fn unary<T: Element, Op: Map1<T>>() -> Option<&'static CpuUnary<T>> {
    if !is_f32::<T>() {
        return None;
    }
    let def = Op::DEF;
    let k = match def.mode {
        Mode::Tensors => unary_f32(&def),
        Mode::ScalarRhs => match binary_f32(&tensors(def)) {
            Some(b) => b.rhs,
            None => None,
        },
        Mode::ScalarLhs => match binary_f32(&tensors(def)) {
            Some(b) => b.lhs,
            None => None,
        },
    };
    retype_unary::<T>(k)
}

/// The compiled loops of the two-operand table op `Op` on `T` (`f32`).
pub(crate) const fn binary<T: Element, Op: Map2<T, Out = T>>() -> Option<&'static CpuBinary<T, T>> {
    if !is_f32::<T>() {
        return None;
    }
    retype_binary::<T>(binary_f32(&Op::DEF))
}

/// The compiled loops of the comparison `Op` on `T` (`f32`).
pub(crate) const fn compare<T: Element, Op: Map2<T, Out = bool>>()
-> Option<&'static CpuBinary<T, bool>> {
    if !is_f32::<T>() {
        return None;
    }
    retype_compare::<T>(compare_f32(&Op::DEF))
}

/// The compiled loops of the three-operand table op `Op` on `T` (`f32`).
pub(crate) const fn ternary<T: Element, Op: Map3<T, T>>() -> Option<&'static CpuTernary<T, T>> {
    if !is_f32::<T>() {
        return None;
    }
    retype_ternary::<T>(ternary_f32(&Op::DEF))
}

/// The compiled loops of the selection `Op` on `T` (`f32`).
pub(crate) const fn select<T: Element, Op: Map3<bool, T>>() -> Option<&'static CpuTernary<bool, T>>
{
    if !is_f32::<T>() {
        return None;
    }
    retype_select::<T>(select_f32(&Op::DEF))
}

/// The compiled loops of the two-operand `Op` on `T` that have an `out=`
/// form.
pub(crate) const fn into<T: Element, Op: Map2<T, Out = T>>() -> Option<&'static CpuBinary<T, T>> {
    match binary::<T, Op>() {
        Some(k) if k.into.is_some() => Some(k),
        _ => None,
    }
}

/// The compiled loops of the two-operand `Op` on `T` that have an in-place
/// form.
pub(crate) const fn update2<T: Element, Op: Map2<T, Out = T>>() -> Option<&'static CpuBinary<T, T>>
{
    match binary::<T, Op>() {
        Some(k) if k.update.is_some() => Some(k),
        _ => None,
    }
}

/// The compiled loops of the three-operand `Op` on `T` that have an
/// in-place form.
pub(crate) const fn update3<T: Element, Op: Map3<T, T>>() -> Option<&'static CpuTernary<T, T>> {
    match ternary::<T, Op>() {
        Some(k) if k.update.is_some() => Some(k),
        _ => None,
    }
}

/// Panics unless `T` is `f32` ([`check_f32`]) and `Op` is the type whose
/// loops `op` identifies: what the lookups matched is an op's description,
/// which an op outside the table could copy, and these loops rebuild the
/// table's op (where both types are known, the comparisons fold away).
#[inline(always)]
pub(crate) fn check<T: 'static, Op: Pointwise>(op: fn() -> TypeId) {
    check_f32::<T>();
    assert!(
        TypeId::of::<Op>() == op(),
        "an operation outside the op table is described as the table's `{}` is: pointwise operation descriptions must be distinct",
        Op::DEF.name
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::Backend;
    use crate::backend::cpu::storage::Storage;
    use crate::device::Cpu;

    /// Which ops on which element types take the compiled loops: the
    /// table's ops and their scalar forms on `f32`, nothing else.
    #[test]
    fn the_tables_f32_ops_have_compiled_loops_and_others_do_not() {
        assert!(unary::<f32, Exp>().is_some());
        assert!(unary::<f32, Sin>().is_some());
        assert!(unary::<f32, Fill<f32>>().is_some());
        assert!(unary::<f32, ScalarRhs<Add, f32>>().is_some());
        assert!(unary::<f32, ScalarLhs<Add, f32>>().is_some());
        let add = binary::<f32, Add>().unwrap();
        assert!(add.into.is_some() && add.update.is_some());
        assert!(into::<f32, Add>().is_some() && update2::<f32, Add>().is_some());
        let less = compare::<f32, Less>().unwrap();
        assert!(less.into.is_none() && less.update.is_none() && less.rhs.is_none());
        let alpha = binary::<f32, AddAlpha<f32>>().unwrap();
        assert!(alpha.rhs.is_none() && alpha.update.is_some());
        assert!(update3::<f32, Addcmul<f32>>().is_some());
        assert!(select::<f32, Where>().unwrap().update.is_none());

        assert!(unary::<f64, Exp>().is_none());
        assert!(binary::<i64, Add>().is_none());
        assert!(unary::<f64, ScalarRhs<Add, f64>>().is_none());
        assert!(unary::<f32, ScalarRhs<AddAlpha<f32>, f32>>().is_none());
        assert!(select::<f64, Where>().is_none());
    }

    /// Each table op's lookup finds its own loops: the `TypeId` in the
    /// constant is the op's, so no two entries share a description.
    #[test]
    fn every_lookup_finds_the_ops_own_loops() {
        assert_eq!((unary::<f32, Exp>().unwrap().op)(), TypeId::of::<Exp>());
        assert_eq!((unary::<f32, Expm1>().unwrap().op)(), TypeId::of::<Expm1>());
        assert_eq!(
            (unary::<f32, Fill<f32>>().unwrap().op)(),
            TypeId::of::<Fill<f32>>()
        );
        assert_eq!(
            (unary::<f32, ScalarLhs<Sub, f32>>().unwrap().op)(),
            TypeId::of::<ScalarLhs<Sub, f32>>()
        );
        assert_eq!((binary::<f32, Sub>().unwrap().op)(), TypeId::of::<Sub>());
        assert_eq!(
            (compare::<f32, LessEqual>().unwrap().op)(),
            TypeId::of::<LessEqual>()
        );
        assert_eq!((ternary::<f32, Lerp>().unwrap().op)(), TypeId::of::<Lerp>());
        assert_eq!(
            (ternary::<f32, Addcdiv<f32>>().unwrap().op)(),
            TypeId::of::<Addcdiv<f32>>()
        );
        assert_eq!(
            (select::<f32, Where>().unwrap().op)(),
            TypeId::of::<Where>()
        );
        let defs = crate::backend::op::table::POINTWISE;
        for (i, a) in defs.iter().enumerate() {
            for b in &defs[i + 1..] {
                assert!(
                    !same_def(a, b),
                    "{} and {} share a description",
                    a.name,
                    b.name
                );
            }
        }
    }

    /// An op outside the table: `exp` under its own description.
    #[derive(Clone, Copy, Debug, Default)]
    struct Halve;
    impl Pointwise for Halve {
        const DEF: OpDef = OpDef {
            name: "exp",
            cuda: "a * (T)0.5",
            ..Exp::DEF
        };
    }
    impl Map1<f32> for Halve {
        fn call(&self, a: f32) -> f32 {
            a * 0.5
        }
    }

    /// An op outside the table that copies a table op's description.
    #[derive(Clone, Copy, Debug, Default)]
    struct Copycat;
    impl Pointwise for Copycat {
        const DEF: OpDef = Exp::DEF;
    }
    impl Map1<f32> for Copycat {
        fn call(&self, a: f32) -> f32 {
            a * 0.5
        }
    }

    /// `op` on `[1, 2, 4]` through the CPU backend's `unary`, on a layout
    /// (no tensor: the backend's own entry point).
    fn run<Op: Map1<f32>>(op: Op) -> Vec<f32> {
        let storage = Storage::shared(vec![1.0f32, 2.0, 4.0]);
        let a = Layout {
            storage: &storage,
            dims: &[3],
            strides: &[1],
            offset: 0,
        };
        let out = <Cpu as Backend<f32>>::unary(op, a).unwrap();
        out.storage.read().to_vec()
    }

    /// A name alone does not select the table's loops: the op runs its own
    /// function in the generic loop.
    #[test]
    fn an_op_outside_the_table_with_a_tables_name_runs_its_own_function() {
        assert!(unary::<f32, Halve>().is_none());
        assert_eq!(run(Halve), vec![0.5, 1.0, 2.0]);
    }

    /// A copied description is refused before the table's loop runs in
    /// place of the op's own function.
    #[test]
    #[should_panic(expected = "pointwise operation descriptions must be distinct")]
    fn an_op_that_copies_a_table_description_is_refused() {
        assert!(unary::<f32, Copycat>().is_some());
        run(Copycat);
    }
}
