//! Windows as data (im2col) and back (col2im), on any device, from views
//! and copies: the input (padded into a fresh buffer when the windows
//! reach past it) is seen through one strided view of sizes
//! `(N, C, kh, kw, oh, ow)`, whose copy lays every window's elements
//! out for a matrix product; the way back adds each kernel offset's
//! `(N, C, oh, ow)` slice into a strided view of zeros (one copy when the
//! windows do not overlap). A device with direct kernels
//! ([`Windows`]) runs those instead.

use super::window::Window;
use crate::Tensor;
use crate::backend::{Backend, Windows};
use crate::element::Numeric;
use crate::shape::{DimVec, DynRank};
use crate::tensor::host;
use crate::tensor::pointwise;
use crate::tensor::windows as direct;

type DynTensor<T, D> = Tensor<T, DynRank, D>;

/// A contiguous tensor of sizes `dims` filled with `value`, on the device
/// of `like`.
pub(crate) fn full_on<T: Numeric, D: Backend<T>>(
    like: &DynTensor<T, D>,
    dims: &[usize],
    value: T,
) -> Result<DynTensor<T, D>, D::Error> {
    let one: DynTensor<T, D> = host::from_host(like, vec![value], &[])?;
    pointwise::copy(&one.try_broadcast_to::<DynRank>(dims)?)
}

/// Contiguous strides of `(n, c, h, w)`.
fn strides4(c: usize, h: usize, w: usize) -> [usize; 4] {
    [c * h * w, h * w, w, 1]
}

/// The windows of `x` `(N, C, H, W)` (any strides) as a contiguous
/// `(N, C, kh, kw, oh, ow)` tensor: element `[n, c, i, j, p, q]` is the
/// input at row `p·stride + i·dilation - before` and column
/// `q·stride + j·dilation - before`, or `pad` outside the input.
pub(crate) fn unfold<T: Numeric, D: Windows<T>>(
    x: &DynTensor<T, D>,
    w: &Window,
    pad: T,
) -> Result<DynTensor<T, D>, D::Error> {
    if let Some(y) = direct::unfold(x, w, pad) {
        return y;
    }
    let (n, c) = (x.dims()[0], x.dims()[1]);
    let (src, st) = if w.has_padding() {
        let (hp, wp) = (w.padded(0), w.padded(1));
        let xp = full_on(x, &[n, c, hp, wp], pad)?;
        let st = strides4(c, hp, wp);
        let mut inner: DynTensor<T, D> = xp.view_as(
            DimVec::from_slice(x.dims()),
            &st,
            xp.offset + w.before[0] * wp + w.before[1],
        );
        inner.try_copy_from(x)?;
        (xp, st)
    } else {
        let s = x.strides();
        (x.share(), [s[0], s[1], s[2], s[3]])
    };
    let (k, o, s, d) = (w.kernel, w.output, w.stride, w.dilation);
    let view: DynTensor<T, D> = src.view_as(
        DimVec::from_slice(&[n, c, k[0], k[1], o[0], o[1]]),
        &[
            st[0],
            st[1],
            d[0] * st[2],
            d[1] * st[3],
            s[0] * st[2],
            s[1] * st[3],
        ],
        src.offset,
    );
    view.try_contiguous()
}

/// The inverse arrangement of [`unfold`]: `cols` `(N, C, kh, kw, oh, ow)`
/// (any strides) summed back into the input positions each element was
/// read from, giving `(N, C, H, W)` (padding positions dropped). The
/// gradient of [`unfold`], and PyTorch's `fold` (col2im).
pub(crate) fn fold<T: Numeric, D: Windows<T>>(
    cols: &DynTensor<T, D>,
    w: &Window,
) -> Result<DynTensor<T, D>, D::Error> {
    if let Some(y) = direct::fold(cols, w) {
        return y;
    }
    let (n, c) = (cols.dims()[0], cols.dims()[1]);
    let (hp, wp) = (w.padded(0), w.padded(1));
    let st = strides4(c, hp, wp);
    let grad = full_on(cols, &[n, c, hp, wp], T::zero())?;
    let (k, o, s, d) = (w.kernel, w.output, w.stride, w.dilation);
    if w.disjoint() {
        let mut view: DynTensor<T, D> = grad.view_as(
            DimVec::from_slice(&[n, c, k[0], k[1], o[0], o[1]]),
            &[st[0], st[1], d[0] * wp, d[1], s[0] * wp, s[1]],
            grad.offset,
        );
        view.try_copy_from(cols)?;
    } else {
        let cs = cols.strides();
        let slice = DimVec::from_slice(&[n, c, o[0], o[1]]);
        for i in 0..k[0] {
            for j in 0..k[1] {
                let mut into: DynTensor<T, D> = grad.view_as(
                    slice.clone(),
                    &[st[0], st[1], s[0] * wp, s[1]],
                    grad.offset + i * d[0] * wp + j * d[1],
                );
                let part: DynTensor<T, D> = cols.view_as(
                    slice.clone(),
                    &[cs[0], cs[1], cs[4], cs[5]],
                    cols.offset + i * cs[2] + j * cs[3],
                );
                into.try_add_(&part)?;
            }
        }
    }
    if !w.has_padding() {
        return Ok(grad);
    }
    let inner: DynTensor<T, D> = grad.view_as(
        DimVec::from_slice(&[n, c, w.input[0], w.input[1]]),
        &st,
        grad.offset + w.before[0] * wp + w.before[1],
    );
    inner.try_contiguous()
}
