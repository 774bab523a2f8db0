//! The direct window kernels of a backend ([`Windows`]), run on tensors of
//! run-time rank: each function passes its operands' layouts down and
//! wraps the new storage as a tensor, or returns `None` when the device has
//! no such kernel. The convolutions, poolings and their gradients call
//! these before composing the operation from views and products.

use crate::Tensor;
use crate::backend::{Output, Window, Windows};
use crate::device::Device;
use crate::element::Numeric;
use crate::shape::DynRank;

type DynTensor<T, D> = Tensor<T, DynRank, D>;

/// What a direct kernel hands back: `None` when the device has none.
type Direct<T, D> = Option<Result<Output<<D as Device>::Storage<T>>, <D as Device>::Error>>;

/// A direct kernel's result as a tensor.
fn wrap<T: Numeric, D: Windows<T>>(o: Direct<T, D>) -> Option<Result<DynTensor<T, D>, D::Error>> {
    o.map(|r| Ok(Tensor::from_output(r?)?))
}

/// [`Windows::unfold`]: the windows of `x` `(N, C, H, W)` as `(N, C, kh,
/// kw, oh, ow)`, `pad` outside the input.
pub(crate) fn unfold<T: Numeric, D: Windows<T>>(
    x: &DynTensor<T, D>,
    w: &Window,
    pad: T,
) -> Option<Result<DynTensor<T, D>, D::Error>> {
    wrap::<T, D>(D::unfold(x.layout(), w, pad))
}

/// [`Windows::fold`]: `cols` `(N, C, kh, kw, oh, ow)` summed back into
/// `(N, C, H, W)`.
pub(crate) fn fold<T: Numeric, D: Windows<T>>(
    cols: &DynTensor<T, D>,
    w: &Window,
) -> Option<Result<DynTensor<T, D>, D::Error>> {
    wrap::<T, D>(D::fold(cols.layout(), w))
}

/// [`Windows::depthwise`]: `x` `(N, C, H, W)` by `weight` `(O, 1, kh, kw)`.
pub(crate) fn depthwise<T: Numeric, D: Windows<T>>(
    x: &DynTensor<T, D>,
    weight: &DynTensor<T, D>,
    w: &Window,
) -> Option<Result<DynTensor<T, D>, D::Error>> {
    wrap::<T, D>(D::depthwise(x.layout(), weight.layout(), w))
}

/// [`Windows::depthwise_grad_input`]: the input's gradient from the
/// output's gradient `g`; `channels` is `C`.
pub(crate) fn depthwise_grad_input<T: Numeric, D: Windows<T>>(
    g: &DynTensor<T, D>,
    weight: &DynTensor<T, D>,
    w: &Window,
    channels: usize,
) -> Option<Result<DynTensor<T, D>, D::Error>> {
    wrap::<T, D>(D::depthwise_grad_input(
        g.layout(),
        weight.layout(),
        w,
        channels,
    ))
}

/// [`Windows::depthwise_grad_weight`]: the weight's gradient from `g` and
/// the input `x`.
pub(crate) fn depthwise_grad_weight<T: Numeric, D: Windows<T>>(
    g: &DynTensor<T, D>,
    x: &DynTensor<T, D>,
    w: &Window,
) -> Option<Result<DynTensor<T, D>, D::Error>> {
    wrap::<T, D>(D::depthwise_grad_weight(g.layout(), x.layout(), w))
}

/// [`Windows::depthwise_grads`]: both gradients, `(input's, weight's)`,
/// from `g`, the input `x` and `weight`; `channels` is `C`.
#[allow(clippy::type_complexity)]
pub(crate) fn depthwise_grads<T: Numeric, D: Windows<T>>(
    g: &DynTensor<T, D>,
    x: &DynTensor<T, D>,
    weight: &DynTensor<T, D>,
    w: &Window,
    channels: usize,
) -> Option<Result<(DynTensor<T, D>, DynTensor<T, D>), D::Error>> {
    let both = D::depthwise_grads(g.layout(), x.layout(), weight.layout(), w, channels);
    both.map(|r| {
        let (gx, gw) = r?;
        Ok((Tensor::from_output(gx)?, Tensor::from_output(gw)?))
    })
}

/// [`Windows::conv_unit_stride`]: `x` `(N, C, H, W)` by `weight` `(O, C /
/// groups, kh, kw)`, stride 1.
pub(crate) fn conv_unit_stride<T: Numeric, D: Windows<T>>(
    x: &DynTensor<T, D>,
    weight: &DynTensor<T, D>,
    w: &Window,
    groups: usize,
) -> Option<Result<DynTensor<T, D>, D::Error>> {
    wrap::<T, D>(D::conv_unit_stride(x.layout(), weight.layout(), w, groups))
}

/// [`Windows::conv_unit_stride_grad_input`]: the input's gradient from the
/// output's gradient `g`; `channels` is `C`.
pub(crate) fn conv_unit_stride_grad_input<T: Numeric, D: Windows<T>>(
    g: &DynTensor<T, D>,
    weight: &DynTensor<T, D>,
    w: &Window,
    groups: usize,
    channels: usize,
) -> Option<Result<DynTensor<T, D>, D::Error>> {
    wrap::<T, D>(D::conv_unit_stride_grad_input(
        g.layout(),
        weight.layout(),
        w,
        groups,
        channels,
    ))
}

/// [`Windows::conv_unit_stride_grad_weight`]: the weight's gradient from
/// `g` and the input `x`.
pub(crate) fn conv_unit_stride_grad_weight<T: Numeric, D: Windows<T>>(
    g: &DynTensor<T, D>,
    x: &DynTensor<T, D>,
    w: &Window,
    groups: usize,
) -> Option<Result<DynTensor<T, D>, D::Error>> {
    wrap::<T, D>(D::conv_unit_stride_grad_weight(
        g.layout(),
        x.layout(),
        w,
        groups,
    ))
}
