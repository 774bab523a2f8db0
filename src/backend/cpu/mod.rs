//! The CPU backend: elementwise loops over the iteration plan
//! (`elementwise.rs`, `store.rs`), reductions, index kernels, matrix
//! products (`matmul.rs`: layouts to one batched problem for `gemm.rs`,
//! with `amx.rs` for `f32` on AMX tiles and `widened.rs` for `f16`/`bf16`
//! computed in `f32`) and buffer
//! allocation, all parallelised on one work-sharing pool (`pool.rs`);
//! `exec.rs` takes tensors' layouts to those loops (broadcast, plan,
//! guards in the one order of `locks.rs`, output allocation). The
//! factorizations (`Linalg`: faer on every matrix of a batch) are in
//! `linalg/`.
//!
//! Inner loops are chosen by the plan's inner strides: all 1 (slices, which
//! the compiler vectorises), a stride-0 input (a hoisted scalar), or general
//! strides. They run with the baseline vectors, or with the widest the
//! processor has (`isa.rs`) for an operation that calls a transcendental
//! function.

mod alloc;
#[cfg(target_arch = "x86_64")]
pub(crate) mod amx;
pub(crate) mod attention;
pub(crate) mod cache;
pub(crate) mod compiled;
mod depthwise_grads;
mod elementwise;
pub(crate) mod exec;
pub(crate) mod fill;
pub(crate) mod fused;
mod gemm;
mod gemm_crates;
pub(crate) mod index;
pub(crate) mod index_run;
pub(crate) mod isa;
pub(crate) mod linalg;
pub(crate) mod locks;
mod mat;
mod matmul;
mod pool;
mod primitives;
mod reduce;
pub(crate) mod reducers;
pub(crate) mod shells;
mod small_buffers;
mod softmax;
pub(crate) mod storage;
mod store;
pub(crate) mod table_f32;
pub(crate) mod trig_runs;
mod unit_stride_conv;
mod widened;
mod windows;
mod windows_dispatch;
mod winograd;

pub(crate) use alloc::{
    checked_len, checked_len_of, storage_overflow, try_alloc_filled_by, try_storage_len_filled_by,
    try_vec_from_fn, try_with_capacity, vec_from_fn,
};
pub(crate) use compiled::softmax_rows;
pub(crate) use elementwise::{Out, Src, map1, map2, map2_rows, map3, update1, update2, update3};
pub(crate) use isa::Narrow;
pub(crate) use reduce::{Reducer, Run, reduce};
