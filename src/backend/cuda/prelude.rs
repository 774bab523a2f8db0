//! The CUDA C every generated module starts with (`kernels/prelude.cu`):
//! the plan layout and the scalar helpers with PyTorch's semantics that the
//! op table's expressions call. Plain text, compiled in every build, so
//! that `tests/op_table.rs` can compile it (with every pointwise
//! expression) for the host, where `__device__` and `__forceinline__` mean
//! nothing, on a machine without the CUDA toolkit.

/// Definitions every module starts with: the plan layout and the scalar
/// helpers with PyTorch's semantics (integers wrap, `fmod` takes the
/// dividend's sign, `maximum` propagates NaN, ...).
pub const PRELUDE: &str = include_str!("kernels/prelude.cu");
