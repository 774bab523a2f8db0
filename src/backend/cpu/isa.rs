//! The vector extensions the CPU loops are compiled for, chosen once at
//! run time. The loops are plain loops over slices, which the compiler
//! vectorises for the target it is given: SSE2 by default on x86-64 (four
//! `f32` lanes). [`widest`] compiles a loop again for AVX2 (eight) and
//! AVX-512 (sixteen), so that the compute-heavy ones (`gelu`'s `erf`,
//! `exp`, `tanh`), fused or eager, run up to four times as fast where the
//! processor has them; memory-bound eager loops keep the baseline vectors
//! (memory-bound fused expressions: [`light_wide_default`]).

use crate::backend::op::Pointwise;

/// The vector extensions a loop can be compiled for. Results are the same
/// on every path: Rust never contracts `a * b + c` into a fused
/// multiply-add, and an explicit one (`mul_add`) is exactly rounded on
/// each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Isa {
    Base,
    #[cfg(target_arch = "x86_64")]
    Avx2,
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

/// The widest extension this processor has (`SHAPED_ISA=base|avx2`
/// narrows it, for comparisons).
fn isa() -> Isa {
    use std::sync::OnceLock;
    static ISA: OnceLock<Isa> = OnceLock::new();
    *ISA.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            let cap = std::env::var("SHAPED_ISA").unwrap_or_default();
            let avx2 = cap != "base" && has!("avx2") && has!("fma");
            // Every feature `in_avx512` compiles for.
            if avx2
                && cap != "avx2"
                && has!("avx512f")
                && has!("avx512bw")
                && has!("avx512dq")
                && has!("avx512vl")
            {
                return Isa::Avx512;
            }
            if avx2 {
                return Isa::Avx2;
            }
        }
        Isa::Base
    })
}

/// Whether memory-bound fused expressions run with the widest vectors by
/// default: where those are AVX2, yes (on an AMD EPYC, Zen 3, the chains
/// of `bench_fused_vectors` ran 2-5% faster with them than with SSE2 at
/// three operations and 15-20% at five or six; a lone fused add 3-7%
/// slower); where they are AVX-512, no (SSE2 was 4-9% faster on the Intel
/// Xeons; `benches/README.md`).
pub(crate) fn light_wide_default() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        isa() == Isa::Avx2
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Whether a fused reduction folds a block chunk by chunk, in memory order
/// (accumulators loaded and stored at every step), rather than accumulator
/// by accumulator, each on a register over the block's chunks (eight
/// reads 512 bytes apart). Where the widest vectors are AVX-512 (32
/// registers), the register order: it brought `(a * b).sum_dim::<1>()`
/// on 4096x4096 `f32` to Inductor's speed on the Intel Xeons, whose L3
/// holds the operands. Elsewhere (AVX2's 16 registers cannot hold the
/// 128 accumulators), memory order: on an AMD EPYC (Zen 3), reading from
/// DRAM, the same sum took 4.4-5.0 ms in register order and 2.95-3.0 ms
/// in memory order (interleaved; `benches/README.md`).
pub(crate) fn fold_in_memory_order() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        isa() != Isa::Avx512
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        true
    }
}

/// Whether a fused reduction asks for each block's cache lines one block
/// before it folds them (`fused::prefetch_block`). Where the widest
/// vectors are AVX-512, yes: on an AMD EPYC Zen 5 `(a * b).sum_dim::<1>()`
/// of 4096x4096 `f32` from DRAM went 1.94-2.14 → 1.44-1.74 ms with it.
/// Elsewhere, no: on an AMD EPYC Zen 3 (AVX2) the same sum was slower with
/// it, 3.71 ms against 2.95 ms without (medians of 8 interleaved runs;
/// 2.85 against 2.49 in 6 more), its hardware prefetchers already ahead
/// of the two streams; into L2 only (`T1`) or only a block's first four
/// lines were slower than none as well (`benches/README.md`).
pub(crate) fn read_ahead_blocks() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        isa() == Isa::Avx512
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `f()` compiled for AVX-512 (an `#[inline(always)]` closure is inlined
/// into it, and so gets its target features).
///
/// # Safety
/// The processor has AVX-512 F, BW, DQ and VL.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")]
unsafe fn in_avx512<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// `f()` compiled for AVX2, as [`in_avx512`].
///
/// # Safety
/// The processor has AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn in_avx2<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// `f()` with the widest vectors the processor has (`f` an
/// `#[inline(always)]` closure, and every closure it calls too, or those
/// are compiled without the features): the blocks of a compute-bound fused
/// expression, written, folded or differentiated, and the eager loops of
/// a transcendental operation.
#[inline(always)]
pub(crate) fn widest<R>(f: impl FnOnce() -> R) -> R {
    match isa() {
        // SAFETY: `isa` returns `Avx512` only where the processor has it.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => unsafe { in_avx512(f) },
        // SAFETY: as above, for AVX2 and FMA.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { in_avx2(f) },
        Isa::Base => f(),
    }
}

/// The vectors an elementwise loop runs with: the baseline ones for a
/// memory-bound operation (`add`, `relu`: the widest were no faster there,
/// and slower on the fused chains, `benches/README.md`), the widest for a
/// compute-bound one, which calls a transcendental function (`gelu`'s
/// `erf`, `exp`, `tanh`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Vectors {
    Baseline,
    Widest,
}

/// The vectors of a loop as a type: a loop generic over it is compiled for
/// those vectors only (the choice is a constant, so rustc does not compile
/// the other branch). With the run-time [`Vectors`], every loop was
/// compiled three times (baseline, AVX2, AVX-512), whichever it ran with.
pub(crate) trait Width: Copy + Send + Sync {
    /// Whether the loop runs with the widest vectors ([`widest`]).
    const WIDE: bool;

    /// `f()` with these vectors (`f` as for [`widest`]).
    #[inline(always)]
    fn run<R>(self, f: impl FnOnce() -> R) -> R {
        if Self::WIDE { widest(f) } else { f() }
    }
}

/// The baseline vectors ([`Vectors::Baseline`] as a type).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Narrow;

impl Width for Narrow {
    const WIDE: bool = false;
}

/// The widest vectors ([`Vectors::Widest`] as a type).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Wide;

impl Width for Wide {
    const WIDE: bool = true;
}

/// The vectors of the op-table operation `Op`: the widest where its
/// expression calls a transcendental function, as a type.
pub(crate) struct WidthOf<Op>(core::marker::PhantomData<fn() -> Op>);

impl<Op> WidthOf<Op> {
    pub(crate) const NEW: Self = WidthOf(core::marker::PhantomData);
}

impl<Op> Clone for WidthOf<Op> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<Op> Copy for WidthOf<Op> {}

impl<Op: Pointwise> Width for WidthOf<Op> {
    const WIDE: bool = Op::DEF.transcendental();
}

impl Vectors {
    /// `f()` with these vectors (`f` as for [`widest`]).
    #[inline(always)]
    pub(crate) fn run<R>(self, f: impl FnOnce() -> R) -> R {
        match self {
            Vectors::Widest => widest(f),
            Vectors::Baseline => f(),
        }
    }
}
