//! The windows of convolutions and poolings: their geometry, and the
//! direct kernels a device may have for them ([`Windows`]). The operations
//! in `shaped::ops::conv` are written once over any device
//! (views, copies, matrix products); a device with direct kernels (the
//! CPU) runs those instead, with the same results.

use crate::backend::{Backend, Layout, Output};
use crate::device::Device;
use crate::element::Numeric;

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
    /// for window `lo` (0 when no window's is: a tap that only ever meets
    /// the padding, whose position would lie past the input's end).
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
        let first = if lo < hi {
            (lo * s + shift) as usize
        } else {
            0
        };
        (lo as usize, hi as usize, first)
    }

    /// For kernel row offset `i`: each output row whose element lies inside
    /// the input, with that element's input row (`inside(0, i)` walked).
    pub(crate) fn inside_rows(&self, i: usize) -> impl Iterator<Item = (usize, usize)> {
        let ((lo, hi, first), step) = (self.inside(0, i), self.stride[0]);
        (lo..hi).map(move |r| (r, first + (r - lo) * step))
    }
}

/// A layout of this device's storage of `T`.
type Lay<'a, T, D> = Layout<'a, <D as Device>::Storage<T>>;

/// A direct kernel's result: `None` when the device has none.
type Direct<T, D> = Option<Result<Output<<D as Device>::Storage<T>>, <D as Device>::Error>>;

/// Two results of one direct kernel: `None` when the device has none.
type DirectPair<T, D> = Option<
    Result<
        (
            Output<<D as Device>::Storage<T>>,
            Output<<D as Device>::Storage<T>>,
        ),
        <D as Device>::Error,
    >,
>;

/// Direct kernels for windows, where a device has them. Each reads its
/// operands' layouts (any strides) and returns a new contiguous storage,
/// or `None` when the device has no such kernel (the default): the
/// operation is then composed from the device's other primitives (views,
/// copies, matrix products), with the same results.
///
/// The convolutions and poolings of `shaped::ops::conv` call
/// these; on the CPU, a convolution's windows are laid out by
/// [`Windows::unfold`] and a depthwise convolution is
/// [`Windows::depthwise`]:
///
/// ```
/// use shaped::ops::conv::Conv2dOptions;
/// use shaped::{Shape, Tensor};
/// // Two channels, each convolved by its own 2x2 kernel (groups = 2).
/// let x = Tensor::<f32, Shape![1, 2, 3, 3]>::from_vec((0..18).map(|v| v as f32).collect());
/// let w = Tensor::<f32, Shape![2, 1, 2, 2]>::from_vec(vec![1., 0., 0., 0., 0., 0., 0., 1.]);
/// let y: Tensor<f32, Shape![1, 2, 2, 2]> = x.conv2d(&w, None, &Conv2dOptions::new().groups(2));
/// // Channel 0 keeps each window's top-left element, channel 1 its bottom-right.
/// assert_eq!(y.to_vec(), vec![0., 1., 3., 4., 13., 14., 16., 17.]);
/// ```
pub trait Windows<T: Numeric>: Backend<T> {
    /// The windows of `x` `(N, C, H, W)` as a contiguous `(N, C, kh, kw,
    /// oh, ow)` storage (im2col), `pad` outside the input.
    fn unfold(_x: Lay<'_, T, Self>, _w: &Window, _pad: T) -> Direct<T, Self> {
        None
    }

    /// The sum of `cols` `(N, C, kh, kw, oh, ow)` back into the input
    /// positions it was read from: `(N, C, H, W)` (col2im).
    fn fold(_cols: Lay<'_, T, Self>, _w: &Window) -> Direct<T, Self> {
        None
    }

    /// The depthwise convolution of `x` `(N, C, H, W)` by `weight` `(O, 1,
    /// kh, kw)`, `O` a multiple of `C` (output channel `o` reads input
    /// channel `o / (O / C)`): `(N, O, oh, ow)`, no bias.
    fn depthwise(_x: Lay<'_, T, Self>, _weight: Lay<'_, T, Self>, _w: &Window) -> Direct<T, Self> {
        None
    }

    /// The gradient of [`Windows::depthwise`] for its input, from the
    /// output's gradient `g`; `channels` is `C`.
    fn depthwise_grad_input(
        _g: Lay<'_, T, Self>,
        _weight: Lay<'_, T, Self>,
        _w: &Window,
        _channels: usize,
    ) -> Direct<T, Self> {
        None
    }

    /// The gradient of [`Windows::depthwise`] for its weight `(O, 1, kh,
    /// kw)`, from `g` and the input `x`.
    fn depthwise_grad_weight(
        _g: Lay<'_, T, Self>,
        _x: Lay<'_, T, Self>,
        _w: &Window,
    ) -> Direct<T, Self> {
        None
    }

    /// Both gradients of [`Windows::depthwise`] at once, `(input's,
    /// weight's)`, from the output's gradient `g` (any layout), the input
    /// `x` and `weight`; `channels` is `C`. `None` where the device has no
    /// such kernel or leaves this convolution to the two above (on the
    /// CPU: other than one filter per channel, stride 1 and kernels of
    /// 9, 25 or 49 taps (3x3, 5x5, 7x7), a side padded past the dilated
    /// kernel, or taps that are not all finite). Each value is the one the
    /// two separate kernels give.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::ops::conv::Conv2dOptions;
    /// use shaped::{Shape, Tensor};
    /// // Depthwise 3x3, padding 1: both gradients from one read of `g`.
    /// let x = Var::param(Tensor::<f32, Shape![1, 2, 3, 3]>::ones());
    /// let w = Var::param(Tensor::<f32, Shape![2, 1, 3, 3]>::ones());
    /// let opts = Conv2dOptions::new().padding(1).groups(2);
    /// let y: Var<f32, Shape![1, 2, 3, 3]> = x.conv2d(&w, None, &opts);
    /// let g = y.sum().backward();
    /// // The centre input is in all nine windows; a corner tap sees 2x2 inputs.
    /// assert_eq!(g.wrt(&x).unwrap().to_vec()[4], 9.);
    /// assert_eq!(g.wrt(&w).unwrap().to_vec()[0], 4.);
    /// ```
    fn depthwise_grads(
        _g: Lay<'_, T, Self>,
        _x: Lay<'_, T, Self>,
        _weight: Lay<'_, T, Self>,
        _w: &Window,
        _channels: usize,
    ) -> DirectPair<T, Self> {
        None
    }

    /// The convolution of stride 1 of `x` `(N, C, H, W)` by `weight` `(O,
    /// C / groups, kh, kw)`: `(N, O, oh, ow)`, no bias; `None` where the
    /// device has no such kernel or leaves this window to the composed
    /// operation (on the CPU: fewer than 16 channels per group, or a side
    /// padded by more than the dilated kernel's reach). Where it returns a
    /// value, its two gradients below return values for the same window.
    ///
    /// ```
    /// use shaped::ops::conv::Conv2dOptions;
    /// use shaped::{Shape, Tensor};
    /// // 16 channels, stride 1: on the CPU, nine products over the padded input.
    /// let x = Tensor::<f32, Shape![1, 16, 4, 4]>::ones();
    /// let w = Tensor::<f32, Shape![2, 16, 3, 3]>::ones();
    /// let y: Tensor<f32, Shape![1, 2, 4, 4]> = x.conv2d(&w, None, &Conv2dOptions::new().padding(1));
    /// // A corner window holds 2x2 inputs of each channel, an inner one 3x3.
    /// assert_eq!((y.to_vec()[0], y.to_vec()[5]), (64., 144.));
    /// ```
    fn conv_unit_stride(
        _x: Lay<'_, T, Self>,
        _weight: Lay<'_, T, Self>,
        _w: &Window,
        _groups: usize,
    ) -> Direct<T, Self> {
        None
    }

    /// The gradient of [`Windows::conv_unit_stride`] for its input `(N,
    /// channels, H, W)`, from the output's gradient `g`.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::ops::conv::Conv2dOptions;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f64, Shape![1, 16, 3, 3]>::ones());
    /// let w = Var::param(Tensor::<f64, Shape![1, 16, 3, 3]>::ones());
    /// let y: Var<f64, Shape![1, 1, 3, 3]> = x.conv2d(&w, None, &Conv2dOptions::new().padding(1));
    /// let g = y.sum().backward();
    /// // An input element is in 4 windows at a corner, 6 on an edge, 9 inside.
    /// assert_eq!(g.wrt(&x).unwrap().to_vec()[..5], [4., 6., 4., 6., 9.]);
    /// ```
    fn conv_unit_stride_grad_input(
        _g: Lay<'_, T, Self>,
        _weight: Lay<'_, T, Self>,
        _w: &Window,
        _groups: usize,
        _channels: usize,
    ) -> Direct<T, Self> {
        None
    }

    /// The gradient of [`Windows::conv_unit_stride`] for its weight `(O, C
    /// / groups, kh, kw)`, from `g` and the input `x`.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::ops::conv::Conv2dOptions;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f64, Shape![1, 16, 3, 3]>::ones());
    /// let w = Var::param(Tensor::<f64, Shape![1, 16, 3, 3]>::ones());
    /// let y: Var<f64, Shape![1, 1, 3, 3]> = x.conv2d(&w, None, &Conv2dOptions::new().padding(1));
    /// let g = y.sum().backward();
    /// // A corner tap meets the input in 4 windows, an edge tap in 6, the centre in 9.
    /// assert_eq!(g.wrt(&w).unwrap().to_vec()[..5], [4., 6., 4., 6., 9.]);
    /// ```
    fn conv_unit_stride_grad_weight(
        _g: Lay<'_, T, Self>,
        _x: Lay<'_, T, Self>,
        _w: &Window,
        _groups: usize,
    ) -> Direct<T, Self> {
        None
    }
}

#[cfg(feature = "cuda")]
impl<T: Numeric> Windows<T> for crate::device::Cuda where crate::device::Cuda: Backend<T> {}
