//! The windows of convolutions and poolings: their geometry, and the
//! direct kernels a device may have for them ([`Windows`]). The operations
//! in [`ops::conv`](crate::ops::conv) are written once over any device
//! (views, copies, matrix products); a device with direct kernels (the
//! CPU) runs those instead, with the same results.

use crate::Tensor;
use crate::backend::Backend;
use crate::element::Numeric;
use crate::shape::DynRank;

/// The windows of a convolution or a pooling over two spatial axes:
/// window `(p, q)` reads rows `p·stride + i·dilation - before` and columns
/// likewise, for kernel offsets `(i, j)`; positions outside the input are
/// padding. A 1-d operation has a first axis of size 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// The kernel's size along each axis.
    pub kernel: [usize; 2],
    /// The step between windows.
    pub stride: [usize; 2],
    /// The spacing of a window's elements.
    pub dilation: [usize; 2],
    /// Padding before each axis.
    pub before: [usize; 2],
    /// Padding after each axis.
    pub after: [usize; 2],
    /// The input's spatial sizes.
    pub input: [usize; 2],
    /// The number of windows along each axis.
    pub output: [usize; 2],
}

impl Window {
    /// The padded input's size along axis `i`.
    ///
    /// ```
    /// use shaped::backend::Window;
    /// let w = Window { kernel: [3, 3], stride: [1, 1], dilation: [1, 1], before: [1, 0],
    ///     after: [1, 0], input: [5, 5], output: [5, 3] };
    /// assert_eq!((w.padded(0), w.padded(1)), (7, 5));
    /// ```
    pub fn padded(&self, i: usize) -> usize {
        self.input[i] + self.before[i] + self.after[i]
    }

    /// Whether the input is padded at all.
    ///
    /// ```
    /// use shaped::backend::Window;
    /// let w = Window { kernel: [2, 2], stride: [2, 2], dilation: [1, 1], before: [0, 0],
    ///     after: [0, 0], input: [4, 4], output: [2, 2] };
    /// assert!(!w.has_padding());
    /// ```
    pub fn has_padding(&self) -> bool {
        self.before != [0, 0] || self.after != [0, 0]
    }

    /// Whether no input position lies in two windows.
    ///
    /// ```
    /// use shaped::backend::Window;
    /// let w = Window { kernel: [2, 2], stride: [2, 2], dilation: [1, 1], before: [0, 0],
    ///     after: [0, 0], input: [4, 4], output: [2, 2] };
    /// assert!(w.disjoint());
    /// ```
    pub fn disjoint(&self) -> bool {
        (0..2).all(|i| {
            self.kernel[i] == 1 || self.stride[i] > self.dilation[i] * (self.kernel[i] - 1)
        })
    }

    /// The number of windows.
    ///
    /// ```
    /// use shaped::backend::Window;
    /// let w = Window { kernel: [2, 2], stride: [2, 2], dilation: [1, 1], before: [0, 0],
    ///     after: [0, 0], input: [4, 6], output: [2, 3] };
    /// assert_eq!(w.positions(), 6);
    /// ```
    pub fn positions(&self) -> usize {
        self.output[0] * self.output[1]
    }

    /// Along axis `a`, for kernel offset `k`: the windows `lo..hi` whose
    /// element lies inside the input, and that element's input position
    /// for window `lo`.
    pub(crate) fn inside(&self, a: usize, k: usize) -> (usize, usize, usize) {
        let (s, shift) = (
            self.stride[a] as i64,
            (k * self.dilation[a]) as i64 - self.before[a] as i64,
        );
        let n = self.output[a] as i64;
        // position = p·s + shift must be in 0..input.
        let lo = if shift >= 0 { 0 } else { (-shift + s - 1) / s };
        let hi = ((self.input[a] as i64 - shift + s - 1) / s).clamp(0, n);
        let lo = lo.min(hi);
        (lo as usize, hi as usize, (lo * s + shift).max(0) as usize)
    }
}

type Dyn<T, D> = Tensor<T, DynRank, D>;

/// Direct kernels for windows, where a device has them. Each returns
/// `None` when it has none (the default), and the operation is composed
/// from the device's other primitives instead.
///
/// ```
/// use shaped::backend::{Window, Windows};
/// use shaped::device::Cpu;
/// use shaped::{DynRank, Tensor};
/// // The 2x2 windows of a 3x3 plane, stride 1: 4 windows of 4 elements.
/// let x = Tensor::<f32, DynRank>::try_from_vec((0..9).map(|v| v as f32).collect(), &[1, 1, 3, 3]).unwrap();
/// let w = Window { kernel: [2, 2], stride: [1, 1], dilation: [1, 1], before: [0, 0],
///     after: [0, 0], input: [3, 3], output: [2, 2] };
/// let cols = <Cpu as Windows<f32>>::unfold(&x, &w, 0.).unwrap().unwrap();
/// assert_eq!(cols.dims(), &[1, 1, 2, 2, 2, 2]);
/// // Kernel offset (0, 0) of each window: the top-left 2x2 block.
/// assert_eq!(cols.to_vec()[..4], [0., 1., 3., 4.]);
/// ```
pub trait Windows<T: Numeric>: Backend<T> {
    /// The windows of `x` `(N, C, H, W)` as a contiguous `(N, C, kh, kw,
    /// oh, ow)` tensor (im2col), `pad` outside the input.
    fn unfold(
        _x: &Dyn<T, Self>,
        _w: &Window,
        _pad: T,
    ) -> Option<Result<Dyn<T, Self>, Self::Error>> {
        None
    }

    /// The sum of `cols` `(N, C, kh, kw, oh, ow)` back into the input
    /// positions it was read from: `(N, C, H, W)` (col2im).
    fn fold(_cols: &Dyn<T, Self>, _w: &Window) -> Option<Result<Dyn<T, Self>, Self::Error>> {
        None
    }

    /// The depthwise convolution of `x` `(N, C, H, W)` by `weight` `(O, 1,
    /// kh, kw)`, `O` a multiple of `C` (output channel `o` reads input
    /// channel `o / (O / C)`): `(N, O, oh, ow)`, no bias.
    fn depthwise(
        _x: &Dyn<T, Self>,
        _weight: &Dyn<T, Self>,
        _w: &Window,
    ) -> Option<Result<Dyn<T, Self>, Self::Error>> {
        None
    }

    /// The gradient of [`Windows::depthwise`] for its input, from the
    /// output's gradient `g`; `channels` is `C`.
    fn depthwise_grad_input(
        _g: &Dyn<T, Self>,
        _weight: &Dyn<T, Self>,
        _w: &Window,
        _channels: usize,
    ) -> Option<Result<Dyn<T, Self>, Self::Error>> {
        None
    }

    /// The gradient of [`Windows::depthwise`] for its weight `(O, 1, kh,
    /// kw)`, from `g` and the input `x`.
    fn depthwise_grad_weight(
        _g: &Dyn<T, Self>,
        _x: &Dyn<T, Self>,
        _w: &Window,
    ) -> Option<Result<Dyn<T, Self>, Self::Error>> {
        None
    }
}

#[cfg(feature = "cuda")]
impl<T: Numeric> Windows<T> for crate::device::Cuda where crate::device::Cuda: Backend<T> {}
