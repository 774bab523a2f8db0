//! Products of 16-bit floats (`f16`, `bf16`) computed in `f32`: the
//! operands are widened (exactly), multiplied and accumulated by the `f32`
//! GEMM, and the result rounded once to the element type, as PyTorch's CPU
//! kernels accumulate half-precision products in `f32`. The fused products
//! (`addmm`, `baddbmm`, ...) widen the destination too, so that `beta * c +
//! alpha * (a @ b)` is one `f32` expression rounded once.
//!
//! `matmul.rs` sends the two places where a product reaches the kernel, a
//! new result ([`product`]) and an existing destination ([`accumulate`]),
//! here for the types whose [`Numeric::MATMUL_IN_F32`] is set.

use super::exec::{self, Fresh, Layout};
use super::isa::Narrow;
use super::matmul::{self, fresh};
use super::storage::Storage;
use crate::backend::Output;
use crate::backend::geometry::Geometry;
use crate::backend::layout::Owned;
use crate::element::{CastFrom, Numeric};
use crate::shape::ShapeError;

/// `alpha * (a @ b)`, computed in `f32`, rounded once to `T`.
pub(super) fn product<T: Numeric>(
    a: Layout<'_, T>,
    b: Layout<'_, T>,
    geo: &Geometry,
    alpha: T,
) -> Result<Output<Storage<T>>, ShapeError> {
    let (a32, b32) = (widen(a)?, widen(b)?);
    let out = Owned::new(matmul::product(
        a32.layout(),
        b32.layout(),
        geo,
        f32::cast_from(alpha),
    )?);
    Ok(fresh(exec::map1(out.layout(), Narrow, T::cast_from)?).into_output())
}

/// `out = beta * out + alpha * (a @ b)`, computed in `f32` and rounded once
/// into `out` (whose values are not read when `beta == 0`); `out` as
/// [`matmul::accumulate`] requires.
pub(super) fn accumulate<T: Numeric>(
    out: Layout<'_, T>,
    a: Layout<'_, T>,
    b: Layout<'_, T>,
    geo: &Geometry,
    beta: T,
    alpha: T,
) -> Result<(), ShapeError> {
    let (a32, b32) = (widen(a)?, widen(b)?);
    let out32 = if beta == T::zero() {
        fresh(Fresh::from_vec(
            super::try_vec_from_fn(out.dims, |_| 0f32)?,
            out.dims,
        ))
    } else {
        widen(out)?
    };
    let (beta32, alpha32) = (f32::cast_from(beta), f32::cast_from(alpha));
    matmul::accumulate(
        out32.layout(),
        a32.layout(),
        b32.layout(),
        geo,
        beta32,
        alpha32,
    )?;
    exec::update2(out, out32.layout(), Narrow, |_, x| T::cast_from(x))
}

/// `l`'s elements as a new contiguous `f32` storage of the same sizes
/// (exact for `f16` and `bf16`).
fn widen<T: Numeric>(l: Layout<'_, T>) -> Result<Owned<Storage<f32>>, ShapeError> {
    Ok(fresh(exec::map1(l, Narrow, f32::cast_from)?))
}
