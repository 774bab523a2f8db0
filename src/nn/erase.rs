//! A `Var` seen with its shape type erased (`DynRank`) and restored: layers
//! that work on "the last axis" of any shape compute on the erased view and
//! give the result back in the input's shape type. Both are views (no copy),
//! on any device.

use crate::autograd::{GradDevice, Var};
use crate::element::Float;
use crate::shape::{DynRank, Shape};

/// `x` as a `DynRank` value (a view; gradients flow through it).
pub(crate) fn erased<T: Float, S: Shape, D: GradDevice<T>>(x: &Var<T, S, D>) -> Var<T, DynRank, D> {
    restored(x, x.dims())
}

/// `y` given the shape type `S`, for sizes `dims` that `y` already has.
pub(crate) fn restored<T: Float, S: Shape, S2: Shape, D: GradDevice<T>>(
    y: &Var<T, S2, D>,
    dims: &[usize],
) -> Var<T, S, D> {
    let sizes: Vec<isize> = dims.iter().map(|&d| d as isize).collect();
    y.try_reshape(&sizes)
        .expect("the value's own sizes fit its shape")
}
