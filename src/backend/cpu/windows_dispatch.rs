//! Which CPU kernel runs each window operation of convolutions and
//! poolings ([`Windows`]): im2col, col2im and the depthwise kernels of
//! `windows.rs` (both gradients in one pass: `depthwise_grads.rs`), and
//! the stride-1 convolution of `unit_stride_conv.rs` (one matrix product
//! per tap). The kernel files share the plane helpers of `windows.rs`;
//! this impl is the only place that names them all.

use super::depthwise_grads::depthwise_grads;
use super::exec::Layout;
use super::storage::Storage;
use super::unit_stride_conv;
use super::windows::{col2im, depthwise, depthwise_grad_input, depthwise_grad_weight, im2col};
use crate::backend::Output;
use crate::backend::windows::{Window, Windows};
use crate::device::Cpu;
use crate::element::Numeric;
use crate::shape::ShapeError;

/// A kernel's result: a new storage and its sizes.
type Fresh<T> = Result<Output<Storage<T>>, ShapeError>;

impl<T: Numeric> Windows<T> for Cpu {
    fn unfold(x: Layout<'_, T>, w: &Window, pad: T) -> Option<Fresh<T>> {
        Some(im2col(x, w, pad))
    }

    fn fold(cols: Layout<'_, T>, w: &Window) -> Option<Fresh<T>> {
        Some(col2im(cols, w))
    }

    fn depthwise(x: Layout<'_, T>, weight: Layout<'_, T>, w: &Window) -> Option<Fresh<T>> {
        Some(depthwise(x, weight, w))
    }

    fn depthwise_grad_input(
        g: Layout<'_, T>,
        weight: Layout<'_, T>,
        w: &Window,
        channels: usize,
    ) -> Option<Fresh<T>> {
        Some(depthwise_grad_input(g, weight, w, channels))
    }

    fn depthwise_grad_weight(g: Layout<'_, T>, x: Layout<'_, T>, w: &Window) -> Option<Fresh<T>> {
        Some(depthwise_grad_weight(g, x, w))
    }

    fn depthwise_grads(
        g: Layout<'_, T>,
        x: Layout<'_, T>,
        weight: Layout<'_, T>,
        w: &Window,
        channels: usize,
    ) -> Option<Result<(Output<Storage<T>>, Output<Storage<T>>), ShapeError>> {
        depthwise_grads(g, x, weight, w, channels)
    }

    fn conv_unit_stride(
        x: Layout<'_, T>,
        weight: Layout<'_, T>,
        w: &Window,
        groups: usize,
    ) -> Option<Fresh<T>> {
        unit_stride_conv::forward(x, weight, w, groups)
    }

    fn conv_unit_stride_grad_input(
        g: Layout<'_, T>,
        weight: Layout<'_, T>,
        w: &Window,
        groups: usize,
        channels: usize,
    ) -> Option<Fresh<T>> {
        unit_stride_conv::grad_input(g, weight, w, groups, channels)
    }

    fn conv_unit_stride_grad_weight(
        g: Layout<'_, T>,
        x: Layout<'_, T>,
        w: &Window,
        groups: usize,
    ) -> Option<Fresh<T>> {
        unit_stride_conv::grad_weight(g, x, w, groups)
    }
}
