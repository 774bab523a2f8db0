//! `f32` and `f64` products through the `gemm` project's per-type crates,
//! `gemm-f32` and `gemm-f64`, called as the umbrella `gemm` crate calls them.
//! Depending on those two rather than on `gemm` keeps its complex-number
//! kernels (`gemm-c32`, `gemm-c64`, which `shaped` never calls) out of a
//! build without default features; with them, `faer` brings `gemm` anyway.
//! Each crate picks its kernel (AVX-512 with its `x86-v4` feature, FMA,
//! scalar) at run time by CPU feature detection.

use core::any::Any;

pub(super) use gemm_common::Parallelism;

/// Rows up to which a product with a `k`-contiguous right operand is not
/// transposed (see [`gemm`]).
const THIN_ROWS: usize = 64;

/// `dst = alpha * dst + beta * lhs @ rhs` for `f32` or `f64`: the `gemm`
/// crate's `gemm`, with its arguments in its order (column stride before
/// row stride) and without its conjugation flags, which real types ignore;
/// `dst` is read only when `read_dst` is set.
///
/// # Safety
/// As for `gemm::gemm`: every address `ptr + i * rs + j * cs` for indices
/// below the sizes (`m x n` for `dst`, `m x k` for `lhs`, `k x n` for `rhs`)
/// is in bounds of its buffer, `dst`'s are pairwise distinct and overlap
/// neither operand, and `dst` is initialised where it is read. The strides
/// are not negative.
///
/// # Panics
/// When `T` is neither `f32` nor `f64` (callers dispatch on the type first).
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn gemm<T: 'static>(
    m: usize,
    n: usize,
    k: usize,
    dst: *mut T,
    dst_cs: isize,
    dst_rs: isize,
    read_dst: bool,
    lhs: *const T,
    lhs_cs: isize,
    lhs_rs: isize,
    rhs: *const T,
    rhs_cs: isize,
    rhs_rs: isize,
    alpha: T,
    beta: T,
    parallelism: Parallelism,
) {
    debug_assert!(
        [dst_cs, dst_rs, lhs_cs, lhs_rs, rhs_cs, rhs_rs]
            .iter()
            .all(|&s| s >= 0)
    );
    // As the umbrella crate: the kernels prefer a column-major destination,
    // so a row-major product is computed as its transpose,
    // `dst^T = rhs^T @ lhs^T`; except a thin one (few rows) whose right
    // operand is `k`-contiguous, `x @ w.T` with `w` of `nn.Linear`'s
    // layout, for which the transpose would copy (pack) all of `w` into the
    // kernel's panels on every call, while as it is the crate packs only
    // the few rows of `x` and reads `w` in place.
    let transpose = dst_cs < dst_rs && !(m <= THIN_ROWS && rhs_rs == 1 && n > m);
    let (m, n, dst_cs, dst_rs, lhs, lhs_cs, lhs_rs, rhs, rhs_cs, rhs_rs) = if transpose {
        (
            n, m, dst_rs, dst_cs, rhs, rhs_rs, rhs_cs, lhs, lhs_rs, lhs_cs,
        )
    } else {
        (
            m, n, dst_cs, dst_rs, lhs, lhs_cs, lhs_rs, rhs, rhs_cs, rhs_rs,
        )
    };
    let call = Call {
        sizes: (m, n, k),
        dst: (dst, dst_cs, dst_rs, read_dst),
        lhs: (lhs, lhs_cs, lhs_rs),
        rhs: (rhs, rhs_cs, rhs_rs),
        alpha,
        beta,
        parallelism,
    };
    // SAFETY: forwarded; `call_as` calls a kernel only for its own type.
    let done = unsafe {
        call_as(&call, gemm_f32::gemm::f32::get_gemm_fn)
            || call_as(&call, gemm_f64::gemm::f64::get_gemm_fn)
    };
    assert!(done, "gemm_crates::gemm: only f32 and f64 have kernels");
}

/// A kernel of the per-type crates, for elements `U` (their `GemmTy`).
type Kernel<U> = unsafe fn(
    usize,
    usize,
    usize,
    *mut U,
    isize,
    isize,
    bool,
    *const U,
    isize,
    isize,
    *const U,
    isize,
    isize,
    U,
    U,
    bool,
    bool,
    bool,
    Parallelism,
);

/// The arguments of one call, the layouts as (pointer, column stride, row
/// stride).
struct Call<T> {
    sizes: (usize, usize, usize),
    dst: (*mut T, isize, isize, bool),
    lhs: (*const T, isize, isize),
    rhs: (*const T, isize, isize),
    alpha: T,
    beta: T,
    parallelism: Parallelism,
}

/// Runs `c` through the kernel `kernel` gives when `T` is `U`; returns
/// whether it did.
///
/// # Safety
/// `gemm`'s contract for `c`.
unsafe fn call_as<T: 'static, U: Copy + 'static>(c: &Call<T>, kernel: fn() -> Kernel<U>) -> bool {
    let (alpha, beta): (&dyn Any, &dyn Any) = (&c.alpha, &c.beta);
    let (Some(&a), Some(&b)) = (alpha.downcast_ref::<U>(), beta.downcast_ref::<U>()) else {
        return false;
    };
    let (m, n, k) = c.sizes;
    let (dst, dst_cs, dst_rs, read_dst) = c.dst;
    let (lhs, lhs_cs, lhs_rs) = c.lhs;
    let (rhs, rhs_cs, rhs_rs) = c.rhs;
    // SAFETY: `T` is `U` (the downcast succeeded), so the casts keep the
    // pointers' types; the layouts are the caller's, which is the kernel's
    // contract. Real types have nothing to conjugate.
    unsafe {
        kernel()(
            m,
            n,
            k,
            dst.cast(),
            dst_cs,
            dst_rs,
            read_dst,
            lhs.cast(),
            lhs_cs,
            lhs_rs,
            rhs.cast(),
            rhs_cs,
            rhs_rs,
            a,
            b,
            false,
            false,
            false,
            c.parallelism,
        );
    }
    true
}
