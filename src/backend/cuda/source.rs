//! CUDA C for every kernel: one template per kind, instantiated per op and
//! element type. Pointwise ops come from the op table (`backend/op/table.rs`),
//! reductions from `reductions.rs`.
//!
//! - Elementwise (n-ary, broadcasting): one module per op and element type
//!   holds four kernels, chosen at launch (see `elementwise.rs`):
//!   `_s64` / `_s32` walk the iteration plan's coalesced sizes and
//!   per-operand strides (0 where broadcast) with 64- or 32-bit index math;
//!   `_l32` is the rank-1 case (one coalesced dimension, any strides, so
//!   contiguous and stride-0 operands); `_v32` additionally loads and stores
//!   16 bytes at a time when every non-broadcast operand is contiguous and
//!   aligned.
//! - Reductions: one module per reduction and element type, with a kernel
//!   reducing contiguous rows with warp shuffles (`_rows`), one reducing
//!   along a strided column (`_cols`, each thread one output) and the grid
//!   partial pass of a full reduction (`_partial`).
//! - Arg-reductions (`argmax`, `argmin`): values and `long long` indices,
//!   a block per contiguous row (`_rows`) or a thread per strided column
//!   (`_cols`).
//! - Index kernels, one module per element and index type: `_check` and
//!   `_fetch` (the first out-of-range index value, before anything is
//!   read or written), `_gather`, `_scatter`, `_scatter_add` (atomics).
//! - Casts (`to_dtype`), one module per pair of element types: the
//!   elementwise template with one input of the source type.
//! - Generators, one module per numeric type: `_arange`, and for floats
//!   `_uniform` / `_normal` (the CPU's SplitMix64 streams, element by
//!   element).
//!
//! The sources are plain strings, so `tests/cuda_kernels.rs` compiles every
//! one of them with NVRTC on a machine without a GPU, and `tests/op_table.rs`
//! compiles the prelude and every pointwise expression for the host.

use super::cast::{CAST_HELPERS, cast_expression};
use super::prelude::PRELUDE;
use super::reductions::{REDUCTIONS, ReduceDef};
use crate::backend::op::{Family, Mode, OpDef};

/// The largest rank (after coalescing) the strided kernels take; plans of
/// higher rank are materialised first.
pub const MAX_RANK: usize = 8;
/// The most operands (output included) of an elementwise kernel.
pub const MAX_OPERANDS: usize = 4;

pub(crate) use super::types::{TYPES, c_size, c_type};

/// The kernels of every elementwise and cast module, by variant suffix:
/// 64- and 32-bit strided, rank-1 linear, rank-1 vectorised, and
/// vectorised rows (rank 2 and up).
pub(crate) const ELEMENTWISE_VARIANTS: [&str; 5] = ["s64", "s32", "l32", "v32", "r32"];

/// The elementwise template: `OP` is the op's scalar function, `A0..A2` the
/// operand types, `OUT` the result type, `NIN` the operand count, `VEC` the
/// elements per 16-byte vector access.
const ELEMENTWISE: &str = r#"
template <typename IDX>
__device__ __forceinline__ void sh_strided(const ShLayout& L, OUT* o, const A0* a0, const A1* a1, const A2* a2, T s, unsigned long long n) {
    for (IDX i = (IDX)blockIdx.x * (IDX)blockDim.x + (IDX)threadIdx.x; i < (IDX)n; i += (IDX)blockDim.x * (IDX)gridDim.x) {
        IDX rem = i;
        IDX p0 = (IDX)L.offsets[0], p1 = (IDX)L.offsets[1], p2 = (IDX)L.offsets[2], p3 = (IDX)L.offsets[3];
        for (int d = L.rank - 1; d >= 0; --d) {
            IDX sz = (IDX)L.dims[d];
            IDX c = rem % sz;
            rem /= sz;
            p0 += c * (IDX)L.strides[0][d];
            p1 += c * (IDX)L.strides[1][d];
            if (NIN > 1) p2 += c * (IDX)L.strides[2][d];
            if (NIN > 2) p3 += c * (IDX)L.strides[3][d];
        }
        A0 x = a0[p1];
        A1 y = NIN > 1 ? a1[p2] : (A1)0;
        A2 z = NIN > 2 ? a2[p3] : (A2)0;
        o[p0] = sh_op(x, y, z, s);
    }
}

extern "C" __global__ void KNAME_s64(ShLayout L, OUT* o, const A0* a0, const A1* a1, const A2* a2, T s, unsigned long long n) {
    sh_strided<unsigned long long>(L, o, a0, a1, a2, s, n);
}

extern "C" __global__ void KNAME_s32(ShLayout L, OUT* o, const A0* a0, const A1* a1, const A2* a2, T s, unsigned long long n) {
    sh_strided<unsigned int>(L, o, a0, a1, a2, s, n);
}

/* Rank 1: any strides (1 for contiguous, 0 for broadcast), 32-bit. */
extern "C" __global__ void KNAME_l32(ShLayout L, OUT* o, const A0* a0, const A1* a1, const A2* a2, T s, unsigned long long n) {
    const unsigned int s0 = (unsigned int)L.strides[0][0], s1 = (unsigned int)L.strides[1][0];
    const unsigned int s2 = (unsigned int)L.strides[2][0], s3 = (unsigned int)L.strides[3][0];
    OUT* op = o + L.offsets[0];
    const A0* p1 = a0 + L.offsets[1];
    const A1* p2 = a1 + L.offsets[2];
    const A2* p3 = a2 + L.offsets[3];
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < (unsigned int)n; i += blockDim.x * gridDim.x) {
        A0 x = p1[i * s1];
        A1 y = NIN > 1 ? p2[i * s2] : (A1)0;
        A2 z = NIN > 2 ? p3[i * s3] : (A2)0;
        op[i * s0] = sh_op(x, y, z, s);
    }
}

/* Rank 1, output and every operand of stride 1 aligned to VEC elements or
   of stride 0 (broadcast scalars): 16-byte loads and stores, then a tail. */
extern "C" __global__ void KNAME_v32(ShLayout L, OUT* o, const A0* a0, const A1* a1, const A2* a2, T s, unsigned long long n) {
    OUT* op = o + L.offsets[0];
    const A0* p1 = a0 + L.offsets[1];
    const A1* p2 = a1 + L.offsets[2];
    const A2* p3 = a2 + L.offsets[3];
    const bool c1 = L.strides[1][0] != 0, c2 = L.strides[2][0] != 0, c3 = L.strides[3][0] != 0;
    const unsigned int nv = (unsigned int)(n / VEC);
    const unsigned int step = blockDim.x * gridDim.x;
    const unsigned int tid = blockIdx.x * blockDim.x + threadIdx.x;
    for (unsigned int v = tid; v < nv; v += step) {
        ShVec<A0, VEC> x;
        ShVec<A1, VEC> y;
        ShVec<A2, VEC> z;
        if (c1) x = *(const ShVec<A0, VEC>*)(p1 + (unsigned long long)v * VEC);
        else for (int k = 0; k < VEC; ++k) x.v[k] = p1[0];
        if (NIN > 1) {
            if (c2) y = *(const ShVec<A1, VEC>*)(p2 + (unsigned long long)v * VEC);
            else for (int k = 0; k < VEC; ++k) y.v[k] = p2[0];
        } else for (int k = 0; k < VEC; ++k) y.v[k] = (A1)0;
        if (NIN > 2) {
            if (c3) z = *(const ShVec<A2, VEC>*)(p3 + (unsigned long long)v * VEC);
            else for (int k = 0; k < VEC; ++k) z.v[k] = p3[0];
        } else for (int k = 0; k < VEC; ++k) z.v[k] = (A2)0;
        ShVec<OUT, VEC> r;
#pragma unroll
        for (int k = 0; k < VEC; ++k) r.v[k] = sh_op(x.v[k], y.v[k], z.v[k], s);
        *(ShVec<OUT, VEC>*)(op + (unsigned long long)v * VEC) = r;
    }
    for (unsigned int i = nv * VEC + tid; i < (unsigned int)n; i += step) {
        A0 x = p1[c1 ? i : 0];
        A1 y = NIN > 1 ? p2[c2 ? i : 0] : (A1)0;
        A2 z = NIN > 2 ? p3[c3 ? i : 0] : (A2)0;
        op[i] = sh_op(x, y, z, s);
    }
}

/* Rank >= 2 rows: the innermost size a multiple of VEC, the output of stride
   1 there and every operand of stride 1 (each row starting on a multiple of
   VEC elements) or 0 (a column, broadcast along the row): each thread takes
   VEC consecutive elements of a row, with 16-byte loads of the operands of
   stride 1, one load of those of stride 0, and one 16-byte store. */
extern "C" __global__ void KNAME_r32(ShLayout L, OUT* o, const A0* a0, const A1* a1, const A2* a2, T s, unsigned long long n) {
    const int r = L.rank - 1;
    const unsigned int per_row = (unsigned int)L.dims[r] / VEC;
    const unsigned int nv = (unsigned int)(n / VEC);
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < nv; i += blockDim.x * gridDim.x) {
        unsigned int rem = i / per_row;
        const unsigned int col = (i - rem * per_row) * VEC;
        unsigned int p[4];
        for (int k = 0; k < 4; ++k) p[k] = (unsigned int)L.offsets[k] + col * (unsigned int)L.strides[k][r];
        for (int d = r - 1; d > 0; --d) {
            const unsigned int sz = (unsigned int)L.dims[d];
            const unsigned int c = rem % sz;
            rem /= sz;
            for (int k = 0; k < 4; ++k) p[k] += c * (unsigned int)L.strides[k][d];
        }
        for (int k = 0; k < 4; ++k) p[k] += rem * (unsigned int)L.strides[k][0];
        ShVec<A0, VEC> x;
        ShVec<A1, VEC> y;
        ShVec<A2, VEC> z;
        if (L.strides[1][r] != 0) x = *(const ShVec<A0, VEC>*)(a0 + p[1]);
        else { const A0 v = a0[p[1]]; for (int k = 0; k < VEC; ++k) x.v[k] = v; }
        if (NIN > 1) {
            if (L.strides[2][r] != 0) y = *(const ShVec<A1, VEC>*)(a1 + p[2]);
            else { const A1 v = a1[p[2]]; for (int k = 0; k < VEC; ++k) y.v[k] = v; }
        } else for (int k = 0; k < VEC; ++k) y.v[k] = (A1)0;
        if (NIN > 2) {
            if (L.strides[3][r] != 0) z = *(const ShVec<A2, VEC>*)(a2 + p[3]);
            else { const A2 v = a2[p[3]]; for (int k = 0; k < VEC; ++k) z.v[k] = v; }
        } else for (int k = 0; k < VEC; ++k) z.v[k] = (A2)0;
        ShVec<OUT, VEC> res;
#pragma unroll
        for (int k = 0; k < VEC; ++k) res.v[k] = sh_op(x.v[k], y.v[k], z.v[k], s);
        *(ShVec<OUT, VEC>*)(o + p[0]) = res;
    }
}
"#;

/// Warp and block reductions of `T` by `sh_combine` (merges two
/// partials) and `sh_init` (the identity), for blocks of `blockDim.x` (a
/// multiple of 32) threads; shared memory holds one partial per warp. The
/// one copy, shared by [`REDUCE_KERNELS`] and the fused row reductions of
/// `fused_source.rs`.
pub(crate) const BLOCK_REDUCE: &str = r#"
__device__ __forceinline__ T sh_warp(T x) {
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) x = sh_combine(x, (T)__shfl_down_sync(0xffffffffu, x, d));
    return x;
}

__device__ __forceinline__ T sh_block(T x) {
    __shared__ T warps[32];
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    x = sh_warp(x);
    if (lane == 0) warps[w] = x;
    __syncthreads();
    const int nw = (blockDim.x + 31) >> 5;
    x = (threadIdx.x < nw) ? warps[lane] : sh_init();
    if (w == 0) x = sh_warp(x);
    return x;
}
"#;

/// The reduction kernels over a contiguous buffer (after
/// [`BLOCK_REDUCE`]). Rows: one block per output, each output's `r` inputs
/// contiguous from `row * r`; columns: one thread per output; partials:
/// per-block results of one long row.
const REDUCE_KERNELS: &str = r#"
/* out[row] = reduce(in[off + row * r .. off + row * r + r]) * scale; with
   16-byte loads when every row starts on a multiple of RVEC elements. */
extern "C" __global__ void KNAME_rows(T* out, const T* in, unsigned long long off, unsigned long long rows, unsigned long long r, double scale) {
    constexpr int RVEC = 16 / sizeof(T);
    const bool vectors = off % RVEC == 0 && r % RVEC == 0;
    for (unsigned long long row = blockIdx.x; row < rows; row += gridDim.x) {
        const T* p = in + off + row * r;
        T acc = sh_init();
        if (vectors) {
            const ShVec<T, RVEC>* q = (const ShVec<T, RVEC>*)p;
            for (unsigned long long k = threadIdx.x; k < r / RVEC; k += blockDim.x) {
                const ShVec<T, RVEC> v = q[k];
#pragma unroll
                for (int j = 0; j < RVEC; ++j) acc = sh_combine(acc, v.v[j]);
            }
        } else
        for (unsigned long long k = threadIdx.x; k < r; k += blockDim.x) acc = sh_combine(acc, p[k]);
        acc = sh_block(acc);
        if (threadIdx.x == 0) out[row] = sh_finish(acc, scale);
        __syncthreads();
    }
}

/* out[o * inner + i] = reduce over k of in[off + (o * r + k) * inner + i] * scale */
extern "C" __global__ void KNAME_cols(T* out, const T* in, unsigned long long off, unsigned long long outer, unsigned long long r, unsigned long long inner, double scale) {
    const unsigned long long total = outer * inner;
    for (unsigned long long j = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; j < total; j += (unsigned long long)blockDim.x * gridDim.x) {
        const unsigned long long o = j / inner, i = j % inner;
        const T* p = in + off + o * r * inner + i;
        T acc = sh_init();
        for (unsigned long long k = 0; k < r; ++k) acc = sh_combine(acc, p[k * inner]);
        out[j] = sh_finish(acc, scale);
    }
}

/* partials[block] = reduce of a grid-strided share of in[off .. off + n] */
extern "C" __global__ void KNAME_partial(T* partials, const T* in, unsigned long long off, unsigned long long n) {
    T acc = sh_init();
    for (unsigned long long k = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += (unsigned long long)blockDim.x * gridDim.x)
        acc = sh_combine(acc, in[off + k]);
    acc = sh_block(acc);
    if (threadIdx.x == 0) partials[blockIdx.x] = acc;
}
"#;

/// The arg-reduction template: `BETTER(v, b)` says `v` beats `b`. Each
/// candidate is a value and its index along the reduced span; a NaN beats
/// everything, and among equal values (or NaNs) the lower index wins.
const ARG: &str = r#"
__device__ __forceinline__ void sh_pick(T& b, long long& bi, T v, long long vi) {
    if (vi < 0) return;
    if (bi < 0) { b = v; bi = vi; return; }
    const bool bn = b != b, vn = v != v;
    if (bn) { if (vn && vi < bi) { b = v; bi = vi; } return; }
    if (vn || BETTER(v, b) || (v == b && vi < bi)) { b = v; bi = vi; }
}

/* Rows: one block of 256 threads per output, the row's r values contiguous
   from off + row * r. */
extern "C" __global__ void KNAME_rows(T* vals, long long* idx, const T* in, unsigned long long off, unsigned long long rows, unsigned long long r) {
    __shared__ T sv[256];
    __shared__ long long si[256];
    for (unsigned long long row = blockIdx.x; row < rows; row += gridDim.x) {
        const T* p = in + off + row * r;
        T b = (T)0;
        long long bi = -1;
        for (unsigned long long k = threadIdx.x; k < r; k += blockDim.x) sh_pick(b, bi, p[k], (long long)k);
        sv[threadIdx.x] = b;
        si[threadIdx.x] = bi;
        __syncthreads();
        for (unsigned int w = blockDim.x / 2; w > 0; w >>= 1) {
            if (threadIdx.x < w) {
                T x = sv[threadIdx.x];
                long long xi = si[threadIdx.x];
                sh_pick(x, xi, sv[threadIdx.x + w], si[threadIdx.x + w]);
                sv[threadIdx.x] = x;
                si[threadIdx.x] = xi;
            }
            __syncthreads();
        }
        if (threadIdx.x == 0) { vals[row] = sv[0]; idx[row] = si[0]; }
        __syncthreads();
    }
}

/* Columns: one thread per output o * inner + i, over in[off + (o * r + k) * inner + i]. */
extern "C" __global__ void KNAME_cols(T* vals, long long* idx, const T* in, unsigned long long off, unsigned long long outer, unsigned long long r, unsigned long long inner) {
    const unsigned long long total = outer * inner;
    for (unsigned long long j = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; j < total; j += (unsigned long long)blockDim.x * gridDim.x) {
        const unsigned long long o = j / inner, i = j % inner;
        const T* p = in + off + o * r * inner + i;
        T b = (T)0;
        long long bi = -1;
        for (unsigned long long k = 0; k < r; ++k) sh_pick(b, bi, p[k * inner], (long long)k);
        vals[j] = b;
        idx[j] = bi;
    }
}
"#;

/// The generators: `arange` (`start + i * step`, in `double`), and for
/// floats the CPU's SplitMix64 streams, whose `k`-th draw depends only on
/// the seed and `k`, so every element is computed independently and equals
/// the CPU's `rand` / `randn` element.
const GENERATE: &str = r#"
__device__ __forceinline__ unsigned long long sh_mix(unsigned long long z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The k-th draw (from 0) of SplitMix64 seeded with `seed`, in [0, 1). */
__device__ __forceinline__ double sh_draw(unsigned long long seed, unsigned long long k) {
    return (double)(sh_mix(seed + (k + 1ull) * 0x9E3779B97F4A7C15ull) >> 11) * (1.0 / 9007199254740992.0);
}

extern "C" __global__ void KNAME_arange(T* o, double start, double step, unsigned long long n) {
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (unsigned long long)blockDim.x * gridDim.x)
        o[i] = (T)(start + (double)i * step);
}
"#;

/// The float generators (appended to [`GENERATE`] for `float`/`double`):
/// uniform in `[0, 1)` clamped below 1 after rounding, and Box-Muller over
/// two draws per element.
const GENERATE_FLOAT: &str = r#"
extern "C" __global__ void KNAME_uniform(T* o, unsigned long long seed, T below_one, unsigned long long n) {
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (unsigned long long)blockDim.x * gridDim.x) {
        const T v = (T)sh_draw(seed, i);
        o[i] = v < below_one ? v : below_one;
    }
}

extern "C" __global__ void KNAME_normal(T* o, unsigned long long seed, unsigned long long n) {
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (unsigned long long)blockDim.x * gridDim.x) {
        const double u1 = 1.0 - sh_draw(seed, 2ull * i);
        const double u2 = sh_draw(seed, 2ull * i + 1ull);
        o[i] = (T)(sqrt(-2.0 * log(u1)) * cos(2.0 * 3.14159265358979323846 * u2));
    }
}
"#;

/// The index template (`T` the elements, `I` the index type): each
/// kernel walks the index's sizes row-major through a `ShLayout` whose
/// operands are 0: the written tensor, 1: the index, 2: the read tensor
/// (the indexed operand with stride 0 along `dim`, so that its position
/// is `p + v * step` for index value `v`).
const INDEX: &str = r#"
__device__ __forceinline__ void sh_at(const ShLayout& L, unsigned long long i, unsigned long long* p) {
    p[0] = L.offsets[0]; p[1] = L.offsets[1]; p[2] = L.offsets[2];
    for (int d = L.rank - 1; d >= 0; --d) {
        const unsigned long long c = i % L.dims[d];
        i /= L.dims[d];
        p[0] += c * L.strides[0][d];
        p[1] += c * L.strides[1][d];
        p[2] += c * L.strides[2][d];
    }
}

/* bad[0] = the first (row-major) position whose index value is outside
   [0, size), or unchanged (LLONG_MAX) when there is none. */
extern "C" __global__ void KNAME_check(ShLayout L, const I* idx, unsigned long long size, unsigned long long n, long long* bad) {
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (unsigned long long)blockDim.x * gridDim.x) {
        unsigned long long p[3];
        sh_at(L, i, p);
        const long long v = (long long)idx[p[1]];
        if (v < 0 || v >= (long long)size) atomicMin(bad, (long long)i);
    }
}

/* bad[1] = the index value at position bad[0] (one thread). */
extern "C" __global__ void KNAME_fetch(ShLayout L, const I* idx, long long* bad) {
    if (blockIdx.x == 0 && threadIdx.x == 0 && bad[0] != 0x7fffffffffffffffLL) {
        unsigned long long p[3];
        sh_at(L, (unsigned long long)bad[0], p);
        bad[1] = (long long)idx[p[1]];
    }
}

extern "C" __global__ void KNAME_gather(ShLayout L, T* out, const I* idx, const T* src, unsigned long long step, unsigned long long n) {
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (unsigned long long)blockDim.x * gridDim.x) {
        unsigned long long p[3];
        sh_at(L, i, p);
        const long long v = (long long)idx[p[1]];
        out[p[0]] = src[p[2] + (unsigned long long)v * step];
    }
}

extern "C" __global__ void KNAME_scatter(ShLayout L, T* out, const I* idx, const T* src, unsigned long long step, unsigned long long n) {
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (unsigned long long)blockDim.x * gridDim.x) {
        unsigned long long p[3];
        sh_at(L, i, p);
        const long long v = (long long)idx[p[1]];
        out[p[0] + (unsigned long long)v * step] = src[p[2]];
    }
}
"#;

/// `scatter_add` (numeric element types): atomic adds, integers wrapping
/// (`long long` through `unsigned long long`, `unsigned char` by a
/// compare-and-swap on its aligned 32-bit word).
const INDEX_ADD: &str = r#"
__device__ __forceinline__ void sh_atomic_add(float* p, float v) { atomicAdd(p, v); }
__device__ __forceinline__ void sh_atomic_add(double* p, double v) { atomicAdd(p, v); }
__device__ __forceinline__ void sh_atomic_add(int* p, int v) { atomicAdd(p, v); }
__device__ __forceinline__ void sh_atomic_add(long long* p, long long v) {
    atomicAdd((unsigned long long*)p, (unsigned long long)v);
}
__device__ __forceinline__ void sh_atomic_add(unsigned char* p, unsigned char v) {
    unsigned int* base = (unsigned int*)((unsigned long long)p & ~3ull);
    const unsigned int shift = (unsigned int)((unsigned long long)p & 3ull) * 8u;
    unsigned int old = *base, assumed;
    do {
        assumed = old;
        const unsigned int b = ((assumed >> shift) + v) & 0xffu;
        old = atomicCAS(base, assumed, (assumed & ~(0xffu << shift)) | (b << shift));
    } while (assumed != old);
}

extern "C" __global__ void KNAME_scatter_add(ShLayout L, T* out, const I* idx, const T* src, unsigned long long step, unsigned long long n) {
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (unsigned long long)blockDim.x * gridDim.x) {
        unsigned long long p[3];
        sh_at(L, i, p);
        const long long v = (long long)idx[p[1]];
        sh_atomic_add(out + p[0] + (unsigned long long)v * step, src[p[2]]);
    }
}
"#;

/// The other combining scatters of `scatter_reduce` (numeric element
/// types): `prod`, `amax`, `amin`, each a compare-and-swap loop on the
/// element's bit pattern (on its aligned 32-bit word for `unsigned char`),
/// so repeated indices combine every contribution, in an unspecified order.
/// Integer products wrap; a NaN wins `amax` and `amin`, as the CPU's.
const INDEX_COMBINE: &str = r#"
__device__ __forceinline__ float sh_cmul(float a, float b) { return a * b; }
__device__ __forceinline__ double sh_cmul(double a, double b) { return a * b; }
__device__ __forceinline__ int sh_cmul(int a, int b) { return (int)((unsigned int)a * (unsigned int)b); }
__device__ __forceinline__ long long sh_cmul(long long a, long long b) {
    return (long long)((unsigned long long)a * (unsigned long long)b);
}
__device__ __forceinline__ unsigned char sh_cmul(unsigned char a, unsigned char b) { return (unsigned char)(a * b); }

/* OP: 0 product, 1 maximum, 2 minimum (a NaN operand wins). */
template <int OP, typename U> __device__ __forceinline__ U sh_comb(U a, U b) {
    if (OP == 0) return sh_cmul(a, b);
    if (a != a) return a;
    if (b != b) return b;
    if (OP == 1) return a > b ? a : b;
    return a < b ? a : b;
}

template <int OP> __device__ __forceinline__ void sh_atomic_comb(float* p, float v) {
    unsigned int* w = (unsigned int*)p;
    unsigned int old = *w, assumed;
    do {
        assumed = old;
        old = atomicCAS(w, assumed, __float_as_uint(sh_comb<OP>(__uint_as_float(assumed), v)));
    } while (assumed != old);
}
template <int OP> __device__ __forceinline__ void sh_atomic_comb(double* p, double v) {
    unsigned long long* w = (unsigned long long*)p;
    unsigned long long old = *w, assumed;
    do {
        assumed = old;
        old = atomicCAS(w, assumed, (unsigned long long)__double_as_longlong(sh_comb<OP>(__longlong_as_double((long long)assumed), v)));
    } while (assumed != old);
}
template <int OP> __device__ __forceinline__ void sh_atomic_comb(int* p, int v) {
    int old = *p, assumed;
    do {
        assumed = old;
        old = atomicCAS(p, assumed, sh_comb<OP>(assumed, v));
    } while (assumed != old);
}
template <int OP> __device__ __forceinline__ void sh_atomic_comb(long long* p, long long v) {
    unsigned long long* w = (unsigned long long*)p;
    unsigned long long old = *w, assumed;
    do {
        assumed = old;
        old = atomicCAS(w, assumed, (unsigned long long)sh_comb<OP>((long long)assumed, v));
    } while (assumed != old);
}
template <int OP> __device__ __forceinline__ void sh_atomic_comb(unsigned char* p, unsigned char v) {
    unsigned int* base = (unsigned int*)((unsigned long long)p & ~3ull);
    const unsigned int shift = (unsigned int)((unsigned long long)p & 3ull) * 8u;
    unsigned int old = *base, assumed;
    do {
        assumed = old;
        const unsigned int b = (unsigned int)sh_comb<OP>((unsigned char)((assumed >> shift) & 0xffu), v);
        old = atomicCAS(base, assumed, (assumed & ~(0xffu << shift)) | (b << shift));
    } while (assumed != old);
}

#define SH_SCATTER_COMB(SUFFIX, OP) \
extern "C" __global__ void KNAME_scatter_##SUFFIX(ShLayout L, T* out, const I* idx, const T* src, unsigned long long step, unsigned long long n) { \
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (unsigned long long)blockDim.x * gridDim.x) { \
        unsigned long long p[3]; \
        sh_at(L, i, p); \
        const long long v = (long long)idx[p[1]]; \
        sh_atomic_comb<OP>(out + p[0] + (unsigned long long)v * step, src[p[2]]); \
    } \
}
SH_SCATTER_COMB(prod, 0)
SH_SCATTER_COMB(amax, 1)
SH_SCATTER_COMB(amin, 2)
"#;

/// The index types of the index kernels.
pub(crate) const INDEX_TYPES: &[&str] = &["int32", "int64"];

/// One kernel module's source.
#[derive(Clone, Debug)]
pub struct KernelSource {
    /// The module's name; its kernels are `name` plus a variant suffix.
    pub name: String,
    /// The CUDA C source.
    pub source: String,
    /// The kernels the module defines.
    pub kernels: Vec<String>,
}

/// A module named `name`: the prelude, `head` (typedefs and the op's
/// functions), then `template` with its kernels named `name_variant`.
fn module(name: String, head: &str, template: &str, variants: &[&str]) -> KernelSource {
    KernelSource {
        source: format!("{PRELUDE}{head}{}", template.replace("KNAME", &name)),
        kernels: variants.iter().map(|v| format!("{name}_{v}")).collect(),
        name,
    }
}

/// The module name of elementwise op `op` on element type `t`.
pub(crate) fn elementwise_name(op: &OpDef, t: &str) -> String {
    format!("sh_{}{}_{}", op.name, op.mode.suffix(), c_type(t).1)
}

/// The module name of reduction `r` on element type `t`.
pub(crate) fn reduce_name(r: &ReduceDef, t: &str) -> String {
    format!("sh_red_{}_{}", r.name, c_type(t).1)
}

/// The source of elementwise op `op` on element type `t` (the type named by
/// `Element::NAME`).
pub(crate) fn elementwise_source(op: &OpDef, t: &str) -> KernelSource {
    let (ct, _) = c_type(t);
    let name = elementwise_name(op, t);
    let a0 = if op.bool_first { "bool" } else { ct };
    let out = if op.bool_out { "bool" } else { ct };
    let widest = [a0, ct, out].into_iter().map(c_size).max().unwrap_or(1);
    let vec = 16 / widest;
    let head = format!(
        "typedef {ct} T;\ntypedef {a0} A0;\ntypedef {ct} A1;\ntypedef {ct} A2;\ntypedef {out} OUT;\n\
         #define NIN {nin}\n#define VEC {vec}\n\
         __device__ __forceinline__ OUT sh_expr(A0 a, A1 b, A2 c, T s) {{ return (OUT)({expr}); }}\n\
         __device__ __forceinline__ OUT sh_op(A0 a, A1 b, A2 c, T s) {{ return sh_expr({args}); }}\n",
        nin = op.inputs(),
        expr = op.cuda,
        args = match op.mode {
            Mode::Tensors => "a, b, c, s",
            Mode::ScalarRhs => "a, (A1)s, c, s",
            Mode::ScalarLhs => "(A0)s, (A1)a, c, s",
        },
    );
    module(name, &head, ELEMENTWISE, &ELEMENTWISE_VARIANTS)
}

/// The module name of the cast from element type `from` to `to`.
pub(crate) fn cast_name(from: &str, to: &str) -> String {
    format!("sh_cast_{}_{}", c_type(from).1, c_type(to).1)
}

/// The source of the cast from element type `from` to `to` (names as
/// `Element::NAME`): the elementwise template with one input of type
/// `from` and results of type `to`, in its four variants.
pub(crate) fn cast_source(from: &str, to: &str) -> KernelSource {
    let (cf, _) = c_type(from);
    let (ct, _) = c_type(to);
    let size = |t: &str| match t {
        "float64" | "int64" => 8,
        "float32" | "int32" => 4,
        _ => 1,
    };
    let vec = 16 / size(from).max(size(to));
    let head = format!(
        "typedef {ct} T;\ntypedef {cf} A0;\ntypedef {ct} A1;\ntypedef {ct} A2;\ntypedef {ct} OUT;\n\
         #define NIN 1\n#define VEC {vec}\n{CAST_HELPERS}\
         __device__ __forceinline__ OUT sh_op(A0 a, A1 b, A2 c, T s) {{ return {expr}; }}\n",
        expr = cast_expression(from, to),
    );
    module(
        cast_name(from, to),
        &head,
        ELEMENTWISE,
        &ELEMENTWISE_VARIANTS,
    )
}

/// The source of reduction `r` on element type `t`.
pub(crate) fn reduce_source(r: &ReduceDef, t: &str) -> KernelSource {
    let (ct, _) = c_type(t);
    let name = reduce_name(r, t);
    let template = format!("{BLOCK_REDUCE}{REDUCE_KERNELS}");
    module(
        name,
        &reduce_head(r, ct),
        &template,
        &["rows", "cols", "partial"],
    )
}

/// `T` (the C type `ct`) and reduction `r`'s identity `sh_init`, its
/// `sh_combine` and `sh_finish` (the mean's scaling by `1 / n`).
pub(crate) fn reduce_head(r: &ReduceDef, ct: &str) -> String {
    let finish = if r.mean {
        "return (T)(x * scale);"
    } else {
        "return x;"
    };
    format!(
        "typedef {ct} T;\n\
         __device__ __forceinline__ T sh_init() {{ return {init}; }}\n\
         __device__ __forceinline__ T sh_combine(T x, T y) {{ return {combine}; }}\n\
         __device__ __forceinline__ T sh_finish(T x, double scale) {{ {finish} }}\n",
        init = r.init,
        combine = r.combine,
    )
}

/// The source of `argmax` (`max`) or `argmin` on element type `t`.
pub(crate) fn arg_source(max: bool, t: &str) -> KernelSource {
    let (ct, short) = c_type(t);
    let name = format!("sh_arg{}_{short}", if max { "max" } else { "min" });
    let head = format!(
        "typedef {ct} T;\n#define BETTER(v, b) ((v) {cmp} (b))\n",
        cmp = if max { ">" } else { "<" }
    );
    module(name, &head, ARG, &["rows", "cols"])
}

/// The source of the generators on element type `t` (numeric): `arange`,
/// and for floats `uniform` and `normal`.
pub(crate) fn generate_source(t: &str) -> KernelSource {
    let (ct, short) = c_type(t);
    let name = format!("sh_gen_{short}");
    let float = Family::Float.admits(t);
    let mut body = GENERATE.to_string();
    if float {
        body.push_str(GENERATE_FLOAT);
    }
    let variants: &[&str] = if float {
        &["arange", "uniform", "normal"]
    } else {
        &["arange"]
    };
    module(name, &format!("typedef {ct} T;\n"), &body, variants)
}

/// The source of the index kernels on element type `t` with indices of
/// type `i` (`int32` or `int64`): `check`, `fetch`, `gather`, `scatter`,
/// and for numeric types `scatter_add`.
pub(crate) fn index_source(t: &str, i: &str) -> KernelSource {
    let (ct, short) = c_type(t);
    let (it, ishort) = c_type(i);
    let name = format!("sh_idx{ishort}_{short}");
    let numeric = Family::Numeric.admits(t);
    let mut body = INDEX.to_string();
    let mut variants = vec!["check", "fetch", "gather", "scatter"];
    if numeric {
        body.push_str(INDEX_ADD);
        body.push_str(INDEX_COMBINE);
        variants.extend([
            "scatter_add",
            "scatter_prod",
            "scatter_amax",
            "scatter_amin",
        ]);
    }
    module(
        name,
        &format!("typedef {ct} T;\ntypedef {it} I;\n"),
        &body,
        &variants,
    )
}

/// Every kernel module the backend can generate for the pointwise ops
/// `ops` (each in every mode it has, for each element type its family
/// admits), the reductions, the arg-reductions, the generators, the index
/// kernels and the casts between element types.
pub fn kernel_sources(ops: &[OpDef]) -> Vec<KernelSource> {
    let mut out = Vec::new();
    for (t, _, _) in TYPES {
        for op in ops.iter().filter(|o| o.family.admits(t)) {
            out.push(elementwise_source(op, t));
            if op.has_scalar_forms() {
                for mode in [Mode::ScalarRhs, Mode::ScalarLhs] {
                    out.push(elementwise_source(&OpDef { mode, ..*op }, t));
                }
            }
        }
        for r in REDUCTIONS.iter().filter(|r| r.family.admits(t)) {
            out.push(reduce_source(r, t));
        }
        if Family::Numeric.admits(t) {
            out.push(arg_source(true, t));
            out.push(arg_source(false, t));
            out.push(generate_source(t));
        }
        for i in INDEX_TYPES {
            out.push(index_source(t, i));
        }
        for (to, _, _) in TYPES.iter().filter(|(to, _, _)| to != t) {
            out.push(cast_source(t, to));
        }
    }
    out
}
