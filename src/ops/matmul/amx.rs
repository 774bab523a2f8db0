//! The switch for `f32` products on Intel AMX tiles.
//!
//! On processors with AMX (Xeon since Sapphire Rapids), large `f32`
//! products run on the tile unit: each operand is split into three `bf16`
//! parts and the six significant cross products are summed in `f32`, which
//! keeps the result as accurate as an `f32` GEMM on the vector units (the
//! error against an `f64` reference is measured beside the AVX-512 path's
//! in `tests/matmul_amx.rs`), at about twice its speed on large products.
//! Products whose operands hold NaN, infinities, or magnitudes outside
//! `[2^-40, 2^40]` (other than zero) take the vector path, which follows
//! IEEE arithmetic element by element. Other types, small products, and
//! other machines never use the tiles.
//!
//! Each thread that runs such a product keeps its buffer of packed operands
//! (6 bytes an element of both operands) for the next one, up to 64 MiB;
//! larger buffers are freed after the product.
//!
//! The path is on by default where the machine has it. Turn it off for the
//! whole process with the environment variable `SHAPED_AMX=0`, or at run
//! time with [`set_amx`].

/// Whether `f32` products may run on AMX tiles: the processor has AMX, the
/// operating system granted the tile state, `SHAPED_AMX` is not `0`, and
/// [`set_amx`] did not turn it off.
///
/// ```
/// use shaped::ops::matmul::{amx_active, set_amx};
/// set_amx(false);
/// assert!(!amx_active());
/// set_amx(true); // back to the default: on where the machine has AMX
/// ```
pub fn amx_active() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        crate::backend::cpu::amx::enabled()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Turns the AMX path for `f32` products on (the default, where the
/// machine has it) or off, for every later product in the process.
///
/// With it off, every `f32` product runs on the vector units, rounding as
/// the `gemm` crate's AVX-512 kernels do; on machines without AMX this
/// changes nothing.
///
/// ```
/// use shaped::{DynRank, Tensor};
/// use shaped::ops::matmul::set_amx;
/// let a = Tensor::<f32, DynRank>::try_rand(&[128, 128], 1).unwrap();
/// set_amx(false);
/// let vector_path = a.matmul(&a);
/// set_amx(true);
/// let default_path = a.matmul(&a);
/// let close = vector_path.to_vec().iter().zip(default_path.to_vec())
///     .all(|(x, y)| (x - y).abs() <= 1e-4 * x.abs().max(1.0));
/// assert!(close);
/// ```
pub fn set_amx(on: bool) {
    #[cfg(target_arch = "x86_64")]
    crate::backend::cpu::amx::set_enabled(on);
    #[cfg(not(target_arch = "x86_64"))]
    let _ = on;
}
