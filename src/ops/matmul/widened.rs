//! Products of 16-bit floats (`f16`, `bf16`) computed in `f32`: the
//! operands are widened (exactly), multiplied and accumulated by the `f32`
//! GEMM, and the result rounded once to the element type, as PyTorch's CPU
//! kernels accumulate half-precision products in `f32`.

use std::marker::PhantomData;
use std::sync::Arc;

use super::rules::Geometry;
use super::run;
use crate::Tensor;
use crate::element::{CastFrom, Numeric};
use crate::ops::exec::Layout;
use crate::shape::{DimVec, Dims, DynRank, ShapeError};

/// `alpha * (a @ b)`, computed in `f32`, rounded once to `T`.
pub(crate) fn product<T: Numeric>(
    a: Layout<'_, T>,
    b: Layout<'_, T>,
    geo: &Geometry,
    alpha: T,
) -> Result<Tensor<T, DynRank>, ShapeError> {
    let (a32, b32) = (widen(&a), widen(&b));
    Ok(run::product(a32.layout(), b32.layout(), geo, f32::cast_from(alpha))?.to_dtype::<T>())
}

/// The operand's elements as a contiguous `f32` tensor of the same sizes.
fn widen<T: Numeric>(l: &Layout<'_, T>) -> Tensor<f32, DynRank> {
    let view: Tensor<T, DynRank> = Tensor {
        storage: Arc::clone(l.storage),
        offset: l.offset,
        dims: <DimVec as Dims>::from_slice(l.dims),
        strides: <DimVec as Dims>::from_slice(l.strides),
        device: PhantomData,
    };
    view.to_dtype::<f32>()
}
