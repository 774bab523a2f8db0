//! `conv1d` and `conv2d` on tensors (NCL / NCHW, PyTorch's layout): the
//! checks with PyTorch's messages, and the product of the weight with the
//! input's windows ([`unfold`]) through the device's GEMM, one per group
//! and batch element (a broadcast batch of products).

use super::options::{ConvOptions, ConvTransposeOptions};
use super::unfold::{fold, unfold};
use super::window::Window;
use crate::Tensor;
use crate::backend::{Gemm, Windows};
use crate::element::Float;
use crate::shape::{Dim, DynRank, OrPanic, Shape, ShapeError};

type DynTensor<T, D> = Tensor<T, DynRank, D>;

/// A convolution's geometry, checked: its windows, the group count and
/// the channels per group.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ConvPlan {
    pub(crate) window: Window,
    pub(crate) groups: usize,
    pub(crate) batch: usize,
    /// Input channels per group.
    pub(crate) group_in: usize,
    pub(crate) out_channels: usize,
}

impl ConvPlan {
    /// Output channels per group.
    pub(crate) fn group_out(&self) -> usize {
        self.out_channels / self.groups
    }

    /// Whether each group is one of the input's `channels` channels (a
    /// depthwise convolution, any channel multiplier).
    pub(crate) fn is_depthwise(&self, channels: usize) -> bool {
        self.group_in == 1 && self.groups == channels
    }

    /// The length of one window's elements: `group_in × kh × kw`.
    pub(crate) fn window_len(&self) -> usize {
        self.group_in * self.window.kernel[0] * self.window.kernel[1]
    }

    /// The windows as the product's right operand, `(N, groups,
    /// window_len, oh·ow)`.
    pub(crate) fn grouped_windows(&self) -> [isize; 4] {
        [
            self.batch,
            self.groups,
            self.window_len(),
            self.window.positions(),
        ]
        .map(|v| v as isize)
    }

    /// The weight as the product's left operand, `(groups, O / groups,
    /// window_len)`.
    pub(crate) fn grouped_filters(&self) -> [isize; 3] {
        [self.groups, self.group_out(), self.window_len()].map(|v| v as isize)
    }

    /// A convolution's output, `(N, O, oh, ow)`.
    pub(crate) fn output4(&self) -> [isize; 4] {
        let [oh, ow] = self.window.output;
        [self.batch, self.out_channels, oh, ow].map(|v| v as isize)
    }

    /// A transposed convolution's input as the product's right operand,
    /// `(N, groups, C / groups, H·W)`.
    pub(crate) fn grouped_input(&self) -> [isize; 4] {
        [
            self.batch,
            self.groups,
            self.group_in,
            self.window.positions(),
        ]
        .map(|v| v as isize)
    }

    /// A transposed convolution's weight `(C, O / groups, kh, kw)` as
    /// `(groups, C / groups, O / groups · kh · kw)` (transposed for the
    /// product).
    pub(crate) fn grouped_patches(&self) -> [isize; 3] {
        let [kh, kw] = self.window.kernel;
        [self.groups, self.group_in, self.group_out() * kh * kw].map(|v| v as isize)
    }

    /// The product's result as patches, `(N, O, kh, kw, H, W)`: the
    /// windows that col2im adds into the output.
    pub(crate) fn patches(&self) -> [isize; 6] {
        let ([kh, kw], [h, w]) = (self.window.kernel, self.window.output);
        [self.batch, self.out_channels, kh, kw, h, w].map(|v| v as isize)
    }

    /// A transposed convolution's output sizes `(N, O, HO, WO)`.
    pub(crate) fn transposed_output_dims(&self) -> Vec<usize> {
        vec![
            self.batch,
            self.out_channels,
            self.window.input[0],
            self.window.input[1],
        ]
    }

    /// The output's sizes with `R` spatial axes.
    pub(crate) fn output_dims<const R: usize>(&self) -> Vec<usize> {
        let mut d = vec![self.batch, self.out_channels];
        d.extend_from_slice(&self.window.output[2 - R..]);
        d
    }
}

fn sizes(d: &[usize]) -> String {
    let s: Vec<String> = d.iter().map(usize::to_string).collect();
    format!("[{}]", s.join(", "))
}

/// Sizes with a size-1 axis inserted before the last for a 1-d operation
/// (`(N, C, L)` → `(N, C, 1, L)`).
pub(crate) fn as_2d<const R: usize>(d: &[usize]) -> Vec<usize> {
    let mut v = d.to_vec();
    if R == 1 {
        v.insert(v.len() - 1, 1);
    }
    v
}

/// PyTorch's checks that `groups` (not 0) splits the weight's first axis.
fn check_groups(w: &[usize], g: usize) -> Result<(), ShapeError> {
    if w[0] < g {
        return Err(ShapeError::Invalid(format!(
            "Given groups={g}, expected weight to be at least {g} at dimension 0, but got weight \
             of size {} instead",
            sizes(w)
        )));
    }
    if !w[0].is_multiple_of(g) {
        // PyTorch prints these sizes in two pairs of brackets.
        return Err(ShapeError::Invalid(format!(
            "Given groups={g}, expected weight to be divisible by {g} at dimension 0, but got \
             weight of size [{}] instead",
            sizes(w)
        )));
    }
    Ok(())
}

/// Checks a convolution of input sizes `x` by weight sizes `w` (and bias
/// sizes `bias`), `R` spatial axes, in PyTorch's order and words.
pub(crate) fn plan<const R: usize>(
    x: &[usize],
    w: &[usize],
    bias: Option<&[usize]>,
    opts: &ConvOptions<R>,
) -> Result<ConvPlan, ShapeError> {
    let g = opts.groups;
    if g > 0 {
        check_groups(w, g)?;
        if x[1] != w[1] * g {
            return Err(ShapeError::Invalid(format!(
                "Given groups={g}, weight of size {}, expected input{} to have {} channels, but \
                 got {} channels instead",
                sizes(w),
                sizes(x),
                w[1] * g,
                x[1]
            )));
        }
    }
    if let Some(b) = bias
        && (b.len() != 1 || b[0] != w[0])
    {
        return Err(ShapeError::Invalid(format!(
            "Given weight of size {}, expected bias to be 1-dimensional with {} elements, but got \
             bias of size {} instead",
            sizes(w),
            w[0],
            sizes(b)
        )));
    }
    let (x2, w2) = (as_2d::<R>(x), as_2d::<R>(w));
    let window = Window::conv([x2[2], x2[3]], [w2[2], w2[3]], opts)?;
    Ok(ConvPlan {
        window,
        groups: g,
        batch: x[0],
        group_in: w[1],
        out_channels: w[0],
    })
}

/// Checks a transposed convolution of input sizes `x` `(N, C, H, W)` by
/// weight sizes `w` `(C, O / groups, kh, kw)` (and bias sizes `bias`), in
/// PyTorch's order and words. The plan's window maps the output (its
/// `input`) to `x`'s positions (its `output`).
pub(crate) fn plan_transposed(
    x: &[usize],
    w: &[usize],
    bias: Option<&[usize]>,
    opts: &ConvTransposeOptions<2>,
) -> Result<ConvPlan, ShapeError> {
    let g = opts.groups;
    if g > 0 {
        check_groups(w, g)?;
        if x[1] != w[0] {
            return Err(ShapeError::Invalid(format!(
                "Given transposed=1, weight of size {}, expected input{} to have {} channels, but \
                 got {} channels instead",
                sizes(w),
                sizes(x),
                w[0],
                x[1]
            )));
        }
    }
    if let Some(b) = bias
        && (b.len() != 1 || b[0] != w[1] * g)
    {
        return Err(ShapeError::Invalid(format!(
            "Given transposed=1, weight of size {}, expected bias to be 1-dimensional with {} \
             elements, but got bias of size {} instead",
            sizes(w),
            w[1] * g,
            sizes(b)
        )));
    }
    let window = Window::transposed([x[2], x[3]], [w[2], w[3]], opts)?;
    Ok(ConvPlan {
        window,
        groups: g,
        batch: x[0],
        group_in: w[0] / g,
        out_channels: w[1] * g,
    })
}

/// The transposed convolution of `x` `(N, C, H, W)` by `w` `(C, O /
/// groups, kh, kw)` plus `bias`, planned by `p`: each input position's
/// channels times the weight give a `kh × kw` patch per output channel
/// (one product per group), and the patches are added into the output
/// where the convolution's windows lie (col2im).
pub(crate) fn conv_transpose2d_erased<T: Float, D: Gemm<T> + Windows<T>>(
    x: &DynTensor<T, D>,
    w: &DynTensor<T, D>,
    bias: Option<&DynTensor<T, D>>,
    p: &ConvPlan,
) -> Result<DynTensor<T, D>, D::Error> {
    let xm: DynTensor<T, D> = x.try_reshape(&p.grouped_input())?;
    let wm: DynTensor<T, D> = w
        .try_reshape::<DynRank>(&p.grouped_patches())?
        .permute(&[0, 2, 1])?;
    let cols: DynTensor<T, D> = wm.try_matmul(&xm)?.try_reshape(&p.patches())?;
    add_bias(fold(&cols, &p.window)?, bias)
}

/// The convolution of `x` `(N, C, H, W)` by `w` `(O, C / groups, kh, kw)`
/// plus `bias` `(O,)`, planned by `p`: `(N, O, oh, ow)`.
pub(crate) fn conv2d_erased<T: Float, D: Gemm<T> + Windows<T>>(
    x: &DynTensor<T, D>,
    w: &DynTensor<T, D>,
    bias: Option<&DynTensor<T, D>>,
    p: &ConvPlan,
) -> Result<DynTensor<T, D>, D::Error> {
    if p.is_depthwise(x.dims()[1])
        && let Some(y) = crate::tensor::windows::depthwise(x, w, &p.window)
    {
        return add_bias(y?, bias);
    }
    if let Some(y) = crate::tensor::windows::conv_unit_stride(x, w, &p.window, p.groups) {
        return add_bias(y?, bias);
    }
    let cols: DynTensor<T, D> =
        unfold(x, &p.window, T::zero())?.try_reshape(&p.grouped_windows())?;
    let wm: DynTensor<T, D> = w.try_reshape(&p.grouped_filters())?;
    let y: DynTensor<T, D> = wm.try_matmul(&cols)?.try_reshape(&p.output4())?;
    add_bias(y, bias)
}

/// `y` `(N, O, oh, ow)` plus `bias` `(O,)` at every position.
fn add_bias<T: Float, D: Gemm<T>>(
    y: DynTensor<T, D>,
    bias: Option<&DynTensor<T, D>>,
) -> Result<DynTensor<T, D>, D::Error> {
    match bias {
        Some(b) => y.try_add(&b.try_reshape::<DynRank>(&[-1, 1, 1])?),
        None => Ok(y),
    }
}

/// The error when an operation's result sizes `dims` do not fit the
/// result type `S` the caller stated.
pub(crate) fn result_type<S: Shape>(op: &str, dims: &[usize]) -> Result<(), ShapeError> {
    S::check_dims(dims).map(|_| ()).map_err(|_| {
        let stated: Vec<String> = S::STATIC_DIMS
            .iter()
            .map(|d| d.map_or("_".into(), |n| n.to_string()))
            .collect();
        ShapeError::Invalid(format!(
            "{op}: the output has sizes {}, which do not fit the result type Shape![{}]",
            sizes(dims),
            stated.join(", ")
        ))
    })
}

impl<T: Float, N: Dim, C: Dim, H: Dim, W: Dim, D: Gemm<T> + Windows<T>> Tensor<T, (N, C, H, W), D> {
    /// The 2-d convolution (cross-correlation, as every deep-learning
    /// library computes it) of this `(N, C, H, W)` input by `weight`
    /// `(O, C / groups, kh, kw)`, plus `bias` `(O,)`, as
    /// `torch.nn.functional.conv2d`. The output's spatial sizes `(HO, WO)`
    /// are stated by the result type (`Dyn` to take whatever they are) and
    /// checked at run time: `(H + 2·padding - dilation·(kh - 1) - 1) /
    /// stride + 1`.
    ///
    /// # Errors
    /// PyTorch's errors for a channel count that does not match the weight
    /// and groups, a bias of the wrong size, a kernel larger than the
    /// padded input, a zero stride or dilation; an error naming both when
    /// the output does not fit `(HO, WO)`.
    ///
    /// ```
    /// use shaped::ops::conv::Conv2dOptions;
    /// use shaped::{Const, Shape, Tensor};
    /// let x = Tensor::<f32, Shape![1, 1, 3, 3]>::from_vec((1..=9).map(|v| v as f32).collect());
    /// let w = Tensor::<f32, Shape![1, 1, 2, 2]>::ones();
    /// let y: Tensor<f32, Shape![1, 1, 2, 2]> = x.try_conv2d(&w, None, &Conv2dOptions::new()).unwrap();
    /// assert_eq!(y.to_vec(), vec![12., 16., 24., 28.]);
    /// // A stated output size that the arguments do not give:
    /// let e = x.try_conv2d::<_, _, _, _, Const<3>, Const<3>>(&w, None, &Conv2dOptions::new());
    /// assert_eq!(e.unwrap_err().to_string(), "conv2d: the output has sizes [1, 1, 2, 2], \
    ///     which do not fit the result type Shape![1, 1, 3, 3]");
    /// ```
    #[allow(clippy::type_complexity)]
    pub fn try_conv2d<O: Dim, CG: Dim, KH: Dim, KW: Dim, HO: Dim, WO: Dim>(
        &self,
        weight: &Tensor<T, (O, CG, KH, KW), D>,
        bias: Option<&Tensor<T, (O,), D>>,
        opts: &ConvOptions<2>,
    ) -> Result<Tensor<T, (N, O, HO, WO), D>, D::Error> {
        let p = plan(self.dims(), weight.dims(), bias.map(|b| b.dims()), opts)?;
        result_type::<(N, O, HO, WO)>("conv2d", &p.output_dims::<2>())?;
        let b = bias.map(|b| b.share().into_dyn());
        let y = conv2d_erased(
            &self.share().into_dyn(),
            &weight.share().into_dyn(),
            b.as_ref(),
            &p,
        )?;
        Ok(y.try_into_shape()?)
    }

    /// [`Tensor::try_conv2d`], panicking on error.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_conv2d`]'s error.
    ///
    /// ```
    /// use shaped::ops::conv::Conv2dOptions;
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<f32, Shape![2, 3, 8, 8]>::ones();
    /// let w = Tensor::<f32, Shape![4, 3, 3, 3]>::ones();
    /// let y: Tensor<f32, Shape![2, 4, 4, 4]> = x.conv2d(&w, None, &Conv2dOptions::new().stride(2).padding(1));
    /// assert_eq!(y.to_vec()[5], 27.); // an inner window: 3 channels × 3 × 3
    /// ```
    #[track_caller]
    pub fn conv2d<O: Dim, CG: Dim, KH: Dim, KW: Dim, HO: Dim, WO: Dim>(
        &self,
        weight: &Tensor<T, (O, CG, KH, KW), D>,
        bias: Option<&Tensor<T, (O,), D>>,
        opts: &ConvOptions<2>,
    ) -> Tensor<T, (N, O, HO, WO), D> {
        self.try_conv2d(weight, bias, opts).or_panic()
    }
}

impl<T: Float, N: Dim, C: Dim, H: Dim, W: Dim, D: Gemm<T> + Windows<T>> Tensor<T, (N, C, H, W), D> {
    /// The transposed 2-d convolution of this `(N, C, H, W)` input by
    /// `weight` `(C, O / groups, kh, kw)` plus `bias` `(O,)`, as
    /// `torch.nn.functional.conv_transpose2d` (the gradient of `conv2d`
    /// for its input, an upsampling layer). The output's spatial sizes
    /// `(HO, WO)` are stated by the result type and checked at run time:
    /// `(H - 1)·stride - 2·padding + dilation·(kh - 1) + output_padding + 1`.
    ///
    /// # Errors
    /// PyTorch's errors for a channel count other than the weight's first
    /// size, a bias of the wrong size, an output padding not smaller than
    /// the stride or the dilation, an empty output, a zero stride,
    /// dilation or group count; an error naming both when the output does
    /// not fit `(HO, WO)`.
    ///
    /// ```
    /// use shaped::ops::conv::ConvTranspose2dOptions;
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<f32, Shape![1, 1, 2, 2]>::from_vec(vec![1., 2., 3., 4.]);
    /// let w = Tensor::<f32, Shape![1, 1, 2, 2]>::ones();
    /// // Stride 2: each input element becomes a 2x2 block of the output.
    /// let o = ConvTranspose2dOptions::new().stride(2);
    /// let y: Tensor<f32, Shape![1, 1, 4, 4]> = x.try_conv_transpose2d(&w, None, &o).unwrap();
    /// assert_eq!(y.to_vec()[..8], [1., 1., 2., 2., 1., 1., 2., 2.]);
    /// ```
    #[allow(clippy::type_complexity)]
    pub fn try_conv_transpose2d<O: Dim, OG: Dim, KH: Dim, KW: Dim, HO: Dim, WO: Dim>(
        &self,
        weight: &Tensor<T, (C, OG, KH, KW), D>,
        bias: Option<&Tensor<T, (O,), D>>,
        opts: &ConvTransposeOptions<2>,
    ) -> Result<Tensor<T, (N, O, HO, WO), D>, D::Error> {
        let p = plan_transposed(self.dims(), weight.dims(), bias.map(|b| b.dims()), opts)?;
        result_type::<(N, O, HO, WO)>("conv_transpose2d", &p.transposed_output_dims())?;
        let b = bias.map(|b| b.share().into_dyn());
        let y = conv_transpose2d_erased(
            &self.share().into_dyn(),
            &weight.share().into_dyn(),
            b.as_ref(),
            &p,
        )?;
        Ok(y.try_into_shape()?)
    }

    /// [`Tensor::try_conv_transpose2d`], panicking on error.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_conv_transpose2d`]'s error.
    ///
    /// ```
    /// use shaped::ops::conv::ConvTranspose2dOptions;
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<f32, Shape![2, 8, 7, 7]>::ones();
    /// let w = Tensor::<f32, Shape![8, 4, 3, 3]>::ones();
    /// let o = ConvTranspose2dOptions::new().stride(2).padding(1).output_padding(1);
    /// let y: Tensor<f32, Shape![2, 4, 14, 14]> = x.conv_transpose2d(&w, None, &o);
    /// assert_eq!(y.dims(), &[2, 4, 14, 14]);
    /// ```
    #[track_caller]
    pub fn conv_transpose2d<O: Dim, OG: Dim, KH: Dim, KW: Dim, HO: Dim, WO: Dim>(
        &self,
        weight: &Tensor<T, (C, OG, KH, KW), D>,
        bias: Option<&Tensor<T, (O,), D>>,
        opts: &ConvTransposeOptions<2>,
    ) -> Tensor<T, (N, O, HO, WO), D> {
        self.try_conv_transpose2d(weight, bias, opts).or_panic()
    }
}

impl<T: Float, N: Dim, C: Dim, L: Dim, D: Gemm<T> + Windows<T>> Tensor<T, (N, C, L), D> {
    /// The 1-d convolution of this `(N, C, L)` input by `weight`
    /// `(O, C / groups, k)`, plus `bias` `(O,)`, as
    /// `torch.nn.functional.conv1d`; the output length `LO` is stated by
    /// the result type and checked at run time.
    ///
    /// # Errors
    /// As [`Tensor::try_conv2d`], with PyTorch's 1-d wording.
    ///
    /// ```
    /// use shaped::ops::conv::Conv1dOptions;
    /// use shaped::{Dyn, Shape, Tensor};
    /// let x = Tensor::<f64, Shape![1, 1, 4]>::from_vec(vec![1., 2., 3., 4.]);
    /// let w = Tensor::<f64, Shape![1, 1, 2]>::from_vec(vec![1., -1.]);
    /// let y: Tensor<f64, Shape![1, 1, 3]> = x.try_conv1d(&w, None, &Conv1dOptions::new()).unwrap();
    /// assert_eq!(y.to_vec(), vec![-1., -1., -1.]);
    /// let short = Tensor::<f64, Shape![1, 1, 1]>::zeros();
    /// let e = short.try_conv1d::<_, _, _, Dyn>(&w, None, &Conv1dOptions::new()).unwrap_err();
    /// assert_eq!(e.to_string(), "Calculated padded input size per channel: (1). Kernel size: (2). \
    ///     Kernel size can't be greater than actual input size");
    /// ```
    #[allow(clippy::type_complexity)]
    pub fn try_conv1d<O: Dim, CG: Dim, K: Dim, LO: Dim>(
        &self,
        weight: &Tensor<T, (O, CG, K), D>,
        bias: Option<&Tensor<T, (O,), D>>,
        opts: &ConvOptions<1>,
    ) -> Result<Tensor<T, (N, O, LO), D>, D::Error> {
        let p = plan(self.dims(), weight.dims(), bias.map(|b| b.dims()), opts)?;
        result_type::<(N, O, LO)>("conv1d", &p.output_dims::<1>())?;
        let as4 =
            |d: &[usize]| -> Vec<isize> { as_2d::<1>(d).iter().map(|&v| v as isize).collect() };
        let x: DynTensor<T, D> = self.try_reshape(&as4(self.dims()))?;
        let w: DynTensor<T, D> = weight.try_reshape(&as4(weight.dims()))?;
        let b = bias.map(|b| b.share().into_dyn());
        let y = conv2d_erased(&x, &w, b.as_ref(), &p)?;
        let out: Vec<isize> = p.output_dims::<1>().iter().map(|&v| v as isize).collect();
        y.try_reshape(&out)
    }

    /// [`Tensor::try_conv1d`], panicking on error.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_conv1d`]'s error.
    ///
    /// ```
    /// use shaped::ops::conv::Conv1dOptions;
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<f32, Shape![1, 2, 5]>::ones();
    /// let w = Tensor::<f32, Shape![3, 2, 3]>::ones();
    /// let y: Tensor<f32, Shape![1, 3, 5]> = x.conv1d(&w, None, &Conv1dOptions::new().same());
    /// assert_eq!(y.to_vec()[..5], [4., 6., 6., 6., 4.]);
    /// ```
    #[track_caller]
    pub fn conv1d<O: Dim, CG: Dim, K: Dim, LO: Dim>(
        &self,
        weight: &Tensor<T, (O, CG, K), D>,
        bias: Option<&Tensor<T, (O,), D>>,
        opts: &ConvOptions<1>,
    ) -> Tensor<T, (N, O, LO), D> {
        self.try_conv1d(weight, bias, opts).or_panic()
    }
}
