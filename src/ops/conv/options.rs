//! The arguments of a convolution or a pooling, as PyTorch's keyword
//! arguments: `stride`, `padding` (numbers, `"same"`, `"valid"`),
//! `dilation`, `groups`, `kernel_size`. `R` is the number of spatial axes
//! (1 for `conv1d`, 2 for `conv2d`).

use crate::shape::ShapeError;

/// How a convolution pads its input: PyTorch's `padding=` argument.
///
/// ```
/// use shaped::ops::conv::Padding;
/// assert_eq!(Padding::<2>::try_from("same").unwrap(), Padding::Same);
/// let e = Padding::<2>::try_from("full").unwrap_err();
/// assert_eq!(e.to_string(), "Invalid padding string: 'full'");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Padding<const R: usize> {
    /// `padding=(p0, p1, ...)`: `p` zeros before and after each spatial
    /// axis.
    Explicit([usize; R]),
    /// `padding="same"`: the output has the input's spatial size (stride
    /// 1 only). The total padding `dilation × (kernel - 1)` is split as
    /// PyTorch splits it: the odd element goes after.
    Same,
    /// `padding="valid"`: no padding.
    Valid,
}

impl<const R: usize> TryFrom<&str> for Padding<R> {
    type Error = ShapeError;

    /// `"same"` or `"valid"`, with PyTorch's error for another string.
    fn try_from(s: &str) -> Result<Self, ShapeError> {
        match s {
            "same" => Ok(Padding::Same),
            "valid" => Ok(Padding::Valid),
            _ => Err(ShapeError::Invalid(format!(
                "Invalid padding string: '{s}'"
            ))),
        }
    }
}

/// The arguments of `conv1d` (`R = 1`) and `conv2d` (`R = 2`), with
/// PyTorch's defaults: stride 1, no padding, dilation 1, one group.
///
/// ```
/// use shaped::ops::conv::{Conv2dOptions, Padding};
/// let o = Conv2dOptions::new().stride(2).padding(1).groups(4);
/// assert_eq!(o.stride, [2, 2]);
/// assert_eq!(o.padding, Padding::Explicit([1, 1]));
/// let o = Conv2dOptions::new().strides([1, 2]).same();
/// assert_eq!((o.stride, o.padding), ([1, 2], Padding::Same));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ConvOptions<const R: usize> {
    /// The step between windows along each spatial axis.
    pub stride: [usize; R],
    /// Zeros added around the input.
    pub padding: Padding<R>,
    /// The spacing between kernel elements (1: adjacent).
    pub dilation: [usize; R],
    /// Input and output channels are split into this many groups, each
    /// convolved with its own filters (`groups = channels`: depthwise).
    pub groups: usize,
}

/// [`ConvOptions`] of `conv1d`.
pub type Conv1dOptions = ConvOptions<1>;
/// [`ConvOptions`] of `conv2d`.
pub type Conv2dOptions = ConvOptions<2>;

impl<const R: usize> Default for ConvOptions<R> {
    /// [`ConvOptions::new`].
    fn default() -> Self {
        Self::new()
    }
}

impl<const R: usize> ConvOptions<R> {
    /// PyTorch's defaults: `stride=1, padding=0, dilation=1, groups=1`.
    ///
    /// ```
    /// use shaped::ops::conv::Conv1dOptions;
    /// assert_eq!(Conv1dOptions::new().groups, 1);
    /// ```
    pub const fn new() -> Self {
        ConvOptions {
            stride: [1; R],
            padding: Padding::Explicit([0; R]),
            dilation: [1; R],
            groups: 1,
        }
    }

    /// The same stride `s` along every spatial axis.
    ///
    /// ```
    /// use shaped::ops::conv::Conv2dOptions;
    /// assert_eq!(Conv2dOptions::new().stride(3).stride, [3, 3]);
    /// ```
    pub const fn stride(self, s: usize) -> Self {
        self.strides([s; R])
    }

    /// One stride per spatial axis.
    ///
    /// ```
    /// use shaped::ops::conv::Conv2dOptions;
    /// assert_eq!(Conv2dOptions::new().strides([1, 2]).stride, [1, 2]);
    /// ```
    pub const fn strides(mut self, s: [usize; R]) -> Self {
        self.stride = s;
        self
    }

    /// `p` zeros on both sides of every spatial axis.
    ///
    /// ```
    /// use shaped::ops::conv::{Conv2dOptions, Padding};
    /// assert_eq!(Conv2dOptions::new().padding(2).padding, Padding::Explicit([2, 2]));
    /// ```
    pub const fn padding(self, p: usize) -> Self {
        self.paddings([p; R])
    }

    /// One padding per spatial axis (on both of its sides).
    ///
    /// ```
    /// use shaped::ops::conv::{Conv2dOptions, Padding};
    /// assert_eq!(Conv2dOptions::new().paddings([0, 1]).padding, Padding::Explicit([0, 1]));
    /// ```
    pub const fn paddings(mut self, p: [usize; R]) -> Self {
        self.padding = Padding::Explicit(p);
        self
    }

    /// `padding="same"`.
    ///
    /// ```
    /// use shaped::ops::conv::{Conv1dOptions, Padding};
    /// assert_eq!(Conv1dOptions::new().same().padding, Padding::Same);
    /// ```
    pub const fn same(mut self) -> Self {
        self.padding = Padding::Same;
        self
    }

    /// `padding="valid"` (no padding).
    ///
    /// ```
    /// use shaped::ops::conv::{Conv1dOptions, Padding};
    /// assert_eq!(Conv1dOptions::new().valid().padding, Padding::Valid);
    /// ```
    pub const fn valid(mut self) -> Self {
        self.padding = Padding::Valid;
        self
    }

    /// The same dilation `d` along every spatial axis.
    ///
    /// ```
    /// use shaped::ops::conv::Conv2dOptions;
    /// assert_eq!(Conv2dOptions::new().dilation(2).dilation, [2, 2]);
    /// ```
    pub const fn dilation(self, d: usize) -> Self {
        self.dilations([d; R])
    }

    /// One dilation per spatial axis.
    ///
    /// ```
    /// use shaped::ops::conv::Conv2dOptions;
    /// assert_eq!(Conv2dOptions::new().dilations([1, 3]).dilation, [1, 3]);
    /// ```
    pub const fn dilations(mut self, d: [usize; R]) -> Self {
        self.dilation = d;
        self
    }

    /// `groups=g` (`g` = the number of input channels: a depthwise
    /// convolution).
    ///
    /// ```
    /// use shaped::ops::conv::Conv2dOptions;
    /// assert_eq!(Conv2dOptions::new().groups(8).groups, 8);
    /// ```
    pub const fn groups(mut self, g: usize) -> Self {
        self.groups = g;
        self
    }
}

/// The arguments of `max_pool2d` (`R = 2`) and `avg_pool2d`: the window
/// (`kernel_size`), and PyTorch's defaults for the rest: stride = the
/// window, no padding, dilation 1 (max pooling only; average pooling
/// counts the padding zeros, `count_include_pad=True`, and takes no
/// dilation).
///
/// ```
/// use shaped::ops::conv::Pool2dOptions;
/// let o = Pool2dOptions::new(3).stride(2).padding(1);
/// assert_eq!((o.kernel, o.stride, o.padding), ([3, 3], [2, 2], [1, 1]));
/// assert_eq!(Pool2dOptions::new(2).stride, [2, 2]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PoolOptions<const R: usize> {
    /// The window's size along each spatial axis.
    pub kernel: [usize; R],
    /// The step between windows.
    pub stride: [usize; R],
    /// Padding on both sides of each spatial axis (at most half the
    /// window); max pooling pads with `-inf`, average pooling with zeros.
    pub padding: [usize; R],
    /// The spacing between window elements (max pooling).
    pub dilation: [usize; R],
    /// Whether average pooling divides by the whole window, padding zeros
    /// included (`true`, PyTorch's default), or by the input elements in
    /// the window (`count_include_pad=False`).
    pub count_include_pad: bool,
    /// Whether the output's size rounds up (`ceil_mode=True`): a last
    /// window that starts inside the input (or its left padding) and
    /// reaches past the right padding is kept, its missing elements left
    /// out of the maximum and the average.
    pub ceil_mode: bool,
}

/// [`PoolOptions`] of the 2-d poolings.
pub type Pool2dOptions = PoolOptions<2>;

impl<const R: usize> PoolOptions<R> {
    /// A square window of `k`, stride `k`, no padding, dilation 1.
    ///
    /// ```
    /// use shaped::ops::conv::Pool2dOptions;
    /// assert_eq!(Pool2dOptions::new(2).kernel, [2, 2]);
    /// ```
    pub const fn new(k: usize) -> Self {
        Self::window([k; R])
    }

    /// A window of `k[i]` along axis `i`, the stride equal to it.
    ///
    /// ```
    /// use shaped::ops::conv::Pool2dOptions;
    /// assert_eq!(Pool2dOptions::window([2, 3]).stride, [2, 3]);
    /// ```
    pub const fn window(k: [usize; R]) -> Self {
        PoolOptions {
            kernel: k,
            stride: k,
            padding: [0; R],
            dilation: [1; R],
            count_include_pad: true,
            ceil_mode: false,
        }
    }

    /// The same stride `s` along every axis.
    ///
    /// ```
    /// use shaped::ops::conv::Pool2dOptions;
    /// assert_eq!(Pool2dOptions::new(3).stride(1).stride, [1, 1]);
    /// ```
    pub const fn stride(mut self, s: usize) -> Self {
        self.stride = [s; R];
        self
    }

    /// The same padding `p` on every side.
    ///
    /// ```
    /// use shaped::ops::conv::Pool2dOptions;
    /// assert_eq!(Pool2dOptions::new(3).padding(1).padding, [1, 1]);
    /// ```
    pub const fn padding(mut self, p: usize) -> Self {
        self.padding = [p; R];
        self
    }

    /// The same dilation `d` along every axis.
    ///
    /// ```
    /// use shaped::ops::conv::Pool2dOptions;
    /// assert_eq!(Pool2dOptions::new(2).dilation(2).dilation, [2, 2]);
    /// ```
    pub const fn dilation(mut self, d: usize) -> Self {
        self.dilation = [d; R];
        self
    }

    /// With `count_include_pad` (average pooling): `false` averages each
    /// window over the input elements it covers only.
    ///
    /// ```
    /// use shaped::ops::conv::Pool2dOptions;
    /// assert!(!Pool2dOptions::new(3).padding(1).count_include_pad(false).count_include_pad);
    /// ```
    pub const fn count_include_pad(mut self, on: bool) -> Self {
        self.count_include_pad = on;
        self
    }

    /// With `ceil_mode`: the output's size rounds up, as PyTorch's
    /// `ceil_mode=True` (a window must still start inside the input or its
    /// left padding).
    ///
    /// ```
    /// use shaped::ops::conv::Pool2dOptions;
    /// assert!(Pool2dOptions::new(2).ceil_mode(true).ceil_mode);
    /// ```
    pub const fn ceil_mode(mut self, on: bool) -> Self {
        self.ceil_mode = on;
        self
    }
}

/// The arguments of `conv_transpose2d` (`R = 2`), with PyTorch's
/// defaults: stride 1, no padding, no output padding, dilation 1, one
/// group. `padding` removes that many rows and columns from each side of
/// the full output; `output_padding` adds that many at the end (to pick
/// one of the sizes a strided convolution maps to the same size).
///
/// ```
/// use shaped::ops::conv::ConvTranspose2dOptions;
/// let o = ConvTranspose2dOptions::new().stride(2).padding(1).output_padding(1);
/// assert_eq!((o.stride, o.padding, o.output_padding), ([2, 2], [1, 1], [1, 1]));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ConvTransposeOptions<const R: usize> {
    /// The step between the input's positions in the output.
    pub stride: [usize; R],
    /// Rows and columns removed from each side of the output.
    pub padding: [usize; R],
    /// Rows and columns added at the end of the output.
    pub output_padding: [usize; R],
    /// The spacing between kernel elements.
    pub dilation: [usize; R],
    /// Channel groups, as for the convolution.
    pub groups: usize,
}

/// [`ConvTransposeOptions`] of `conv_transpose2d`.
pub type ConvTranspose2dOptions = ConvTransposeOptions<2>;

impl<const R: usize> Default for ConvTransposeOptions<R> {
    /// [`ConvTransposeOptions::new`].
    fn default() -> Self {
        Self::new()
    }
}

impl<const R: usize> ConvTransposeOptions<R> {
    /// PyTorch's defaults.
    ///
    /// ```
    /// use shaped::ops::conv::ConvTranspose2dOptions;
    /// assert_eq!(ConvTranspose2dOptions::new().output_padding, [0, 0]);
    /// ```
    pub const fn new() -> Self {
        ConvTransposeOptions {
            stride: [1; R],
            padding: [0; R],
            output_padding: [0; R],
            dilation: [1; R],
            groups: 1,
        }
    }

    /// The same stride `s` along every axis.
    ///
    /// ```
    /// use shaped::ops::conv::ConvTranspose2dOptions;
    /// assert_eq!(ConvTranspose2dOptions::new().stride(2).stride, [2, 2]);
    /// ```
    pub const fn stride(mut self, s: usize) -> Self {
        self.stride = [s; R];
        self
    }

    /// The same padding `p` on every side.
    ///
    /// ```
    /// use shaped::ops::conv::ConvTranspose2dOptions;
    /// assert_eq!(ConvTranspose2dOptions::new().padding(1).padding, [1, 1]);
    /// ```
    pub const fn padding(mut self, p: usize) -> Self {
        self.padding = [p; R];
        self
    }

    /// The same output padding `p` along every axis.
    ///
    /// ```
    /// use shaped::ops::conv::ConvTranspose2dOptions;
    /// assert_eq!(ConvTranspose2dOptions::new().output_padding(1).output_padding, [1, 1]);
    /// ```
    pub const fn output_padding(mut self, p: usize) -> Self {
        self.output_padding = [p; R];
        self
    }

    /// The same dilation `d` along every axis.
    ///
    /// ```
    /// use shaped::ops::conv::ConvTranspose2dOptions;
    /// assert_eq!(ConvTranspose2dOptions::new().dilation(2).dilation, [2, 2]);
    /// ```
    pub const fn dilation(mut self, d: usize) -> Self {
        self.dilation = [d; R];
        self
    }

    /// `groups=g`.
    ///
    /// ```
    /// use shaped::ops::conv::ConvTranspose2dOptions;
    /// assert_eq!(ConvTranspose2dOptions::new().groups(2).groups, 2);
    /// ```
    pub const fn groups(mut self, g: usize) -> Self {
        self.groups = g;
        self
    }
}
