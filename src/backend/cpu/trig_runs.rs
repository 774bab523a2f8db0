//! The `f32` sine, cosine and tangent over contiguous runs: each run in
//! chunks of [`CHUNK`] elements, every element first by the fast reduction
//! modulo π/2, which holds below `2^24`
//! (`trig::reduce_half_pi_below_2_24`, a third of the full reduction's
//! instructions), while the largest `|x|` of the chunk is tracked; a chunk
//! holding an `|x|` from `2^24` up (or an infinity or NaN) is then
//! recomputed with the full reduction (`trig::reduce_half_pi`, the table of
//! `2^e mod 2π`). Both loops are branch-free per element and vectorise.
//! Both reductions give `r` to about 2^-52 relative, so the results are
//! within 1 ulp of the exact values as [`sin_f32`]'s are (`tests/trig.rs`
//! checks the runs, through tensors, against the same reference).
//!
//! [`sin_f32`]: crate::backend::op::trig::sin_f32

use core::mem::MaybeUninit;

use crate::backend::op::trig::{
    cos_reduced, reduce_half_pi, reduce_half_pi_below_2_24, sin_reduced, tan_reduced,
};

/// Elements per chunk: the fallback recomputes at most this many.
const CHUNK: usize = 256;

/// The bits of `2^24`: an `|x|` whose bits (sign cleared) reach this, an
/// infinity or a NaN included, takes the full reduction.
const LARGE: u32 = 0x4b80_0000;

/// `o[i] = finish(a[i], reduction of a[i])` for every `i < o.len()` (`a` at
/// least as long), by chunks as the module says; non-finite `x` give NaN.
#[inline(always)]
fn run(o: &mut [MaybeUninit<f32>], a: &[f32], finish: impl Fn(f32, (f64, u64)) -> f32) {
    for (o, a) in o.chunks_mut(CHUNK).zip(a.chunks(CHUNK)) {
        let mut largest = 0u32;
        for (o, &x) in o.iter_mut().zip(a) {
            largest = largest.max(x.to_bits() & 0x7fff_ffff);
            o.write(finish(x, reduce_half_pi_below_2_24(x)));
        }
        if largest >= LARGE {
            for (o, &x) in o.iter_mut().zip(a) {
                let v = finish(x, reduce_half_pi(x));
                o.write(if x.is_finite() { v } else { f32::NAN });
            }
        }
    }
}

/// `o[i] = sin a[i]` (module docs).
#[inline(always)]
pub(crate) fn sin_run(o: &mut [MaybeUninit<f32>], a: &[f32]) {
    run(o, a, sin_reduced)
}

/// `o[i] = cos a[i]` (module docs).
#[inline(always)]
pub(crate) fn cos_run(o: &mut [MaybeUninit<f32>], a: &[f32]) {
    run(o, a, cos_reduced)
}

/// `o[i] = tan a[i]` (module docs).
#[inline(always)]
pub(crate) fn tan_run(o: &mut [MaybeUninit<f32>], a: &[f32]) {
    run(o, a, tan_reduced)
}
