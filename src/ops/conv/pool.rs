//! `max_pool2d`, `avg_pool2d` and `adaptive_avg_pool2d` on `(N, C, H, W)`
//! tensors, as `torch.nn.functional` computes them: a reduction over
//! each window's elements ([`unfold`]), or for the adaptive form, products
//! with averaging matrices along each spatial axis.

use super::convolution::result_type;
use super::options::PoolOptions;
use super::unfold::{full_on, unfold};
use super::window::Window;
use crate::Tensor;
use crate::backend::op::table::Fill;
use crate::backend::{Backend, Gemm, Windows};
use crate::element::Float;
use crate::shape::{Dim, DynRank, OrPanic, ShapeError};
use crate::tensor::host;
use crate::tensor::pointwise;

type DynTensor<T, D> = Tensor<T, DynRank, D>;

/// The windows of `x` `(N, C, H, W)` as `(N, C, kh·kw, oh, ow)`, padded
/// with `pad`.
pub(crate) fn pool_windows<T: Float, D: Windows<T>>(
    x: &DynTensor<T, D>,
    w: &Window,
    pad: T,
) -> Result<DynTensor<T, D>, D::Error> {
    let d = x.dims();
    let (k, o) = (w.kernel, w.output);
    unfold(x, w, pad)?.try_reshape(&[
        d[0] as isize,
        d[1] as isize,
        (k[0] * k[1]) as isize,
        o[0] as isize,
        o[1] as isize,
    ])
}

/// How many input elements (not padding) each window of `w` covers, as
/// `(1, 1, oh, ow)`, on `like`'s device: the divisor of an average that
/// leaves the padding out (`count_include_pad=False`).
fn window_counts<T: Float, D: Gemm<T> + Windows<T>>(
    like: &DynTensor<T, D>,
    w: &Window,
) -> Result<DynTensor<T, D>, D::Error> {
    // One plane `(1, 1, H, W)` of ones on `like`'s device (a sum is one
    // even for an empty batch).
    let plane: DynTensor<T, D> = like.try_sum_dims(&[0, 1], true)?;
    let ones = pointwise::unary(Fill(T::one()), &plane)?;
    pool_windows(&ones, w, T::zero())?.try_sum_dims(&[2], false)
}

/// What `avg_pool2d` divides each window's sum by, as PyTorch: the window's
/// size where it lies inside the input and its padding (the whole window,
/// `None`: a mean, unless a `ceil_mode` window reaches past the padding),
/// or with `count_include_pad=False` the input elements it covers; as
/// `(1, 1, oh, ow)` on `like`'s device.
pub(crate) fn avg_divisor<T: Float, D: Gemm<T> + Windows<T>>(
    like: &DynTensor<T, D>,
    w: &Window,
    count_include_pad: bool,
) -> Result<Option<DynTensor<T, D>>, D::Error> {
    if !count_include_pad {
        return window_counts(like, w).map(Some);
    }
    if w.after == w.before {
        return Ok(None);
    }
    // The input with its symmetric padding as a plane of ones, and the
    // same windows over it: only the ceil_mode reach is padding there.
    let p = w.before;
    let plane = full_on(
        like,
        &[1, 1, w.input[0] + 2 * p[0], w.input[1] + 2 * p[1]],
        T::one(),
    )?;
    let over = Window {
        before: [0, 0],
        after: [0, 1].map(|i| w.after[i] - p[i]),
        input: [0, 1].map(|i| w.input[i] + 2 * p[i]),
        ..*w
    };
    pool_windows(&plane, &over, T::zero())?
        .try_sum_dims(&[2], false)
        .map(Some)
}

/// The matrix `(out, len)` whose row `i` averages the positions
/// `floor(i·len/out) .. ceil((i+1)·len/out)`, as PyTorch's adaptive
/// pooling windows, on the device of `like`.
pub(crate) fn averaging<T: Float, D: Backend<T>>(
    like: &DynTensor<T, D>,
    out: usize,
    len: usize,
) -> Result<DynTensor<T, D>, D::Error> {
    let mut m = vec![T::zero(); out * len];
    for i in 0..out {
        let (start, end) = (i * len / out, ((i + 1) * len).div_ceil(out));
        let share = T::from_f64(1.0 / (end - start) as f64);
        m[i * len + start..i * len + end].fill(share);
    }
    host::from_host(like, m, &[out, len])
}

/// PyTorch's check that adaptive pooling has something to average.
pub(crate) fn check_adaptive(dims: &[usize]) -> Result<(), ShapeError> {
    match (1..dims.len()).find(|&i| dims[i] == 0) {
        Some(i) => Err(ShapeError::Invalid(format!(
            "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch \
             dimensions, but input has sizes {dims:?} with dimension {i} being empty"
        ))),
        None => Ok(()),
    }
}

impl<T: Float, N: Dim, C: Dim, H: Dim, W: Dim, D: Gemm<T> + Windows<T>> Tensor<T, (N, C, H, W), D> {
    /// The 4-d sizes of a pooling's output.
    fn pooled(&self, w: &Window) -> [usize; 4] {
        [self.dims()[0], self.dims()[1], w.output[0], w.output[1]]
    }

    /// The largest element of each window, as
    /// `torch.nn.functional.max_pool2d` (padding counts as `-inf`; NaN
    /// wins). The output's spatial sizes `(HO, WO)` are stated by the
    /// result type and checked at run time.
    ///
    /// # Errors
    /// PyTorch's errors for a zero kernel, stride or dilation, padding
    /// over half the window, or an output that would be empty; an error
    /// naming both when the output does not fit `(HO, WO)`.
    ///
    /// ```
    /// use shaped::ops::conv::Pool2dOptions;
    /// use shaped::{Const, Shape, Tensor};
    /// let x = Tensor::<f32, Shape![1, 1, 4, 4]>::from_vec((0..16).map(|v| v as f32).collect());
    /// let y: Tensor<f32, Shape![1, 1, 2, 2]> = x.try_max_pool2d(&Pool2dOptions::new(2)).unwrap();
    /// assert_eq!(y.to_vec(), vec![5., 7., 13., 15.]);
    /// let e = x.try_max_pool2d::<Const<2>, Const<2>>(&Pool2dOptions::new(3).padding(2));
    /// assert_eq!(e.unwrap_err().to_string(), "pad should be at most half of effective kernel \
    ///     size, but got pad=2, kernel_size=3 and dilation=1");
    /// ```
    #[allow(clippy::type_complexity)] // the result's shape, spelled out for readers
    pub fn try_max_pool2d<HO: Dim, WO: Dim>(
        &self,
        opts: &PoolOptions<2>,
    ) -> Result<Tensor<T, (N, C, HO, WO), D>, D::Error> {
        let d = self.dims();
        let w = Window::pool(d[1], [d[2], d[3]], opts, true)?;
        result_type::<(N, C, HO, WO)>("max_pool2d", &self.pooled(&w))?;
        let win = pool_windows(&self.share().into_dyn(), &w, T::neg_infinity())?;
        win.try_max_dims(&[2], false)?
            .try_into_shape()
            .map_err(Into::into)
    }

    /// [`Tensor::try_max_pool2d`], panicking on error.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_max_pool2d`]'s error.
    ///
    /// ```
    /// use shaped::ops::conv::Pool2dOptions;
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<f32, Shape![1, 1, 3, 3]>::from_vec((0..9).map(|v| v as f32).collect());
    /// let y: Tensor<f32, Shape![1, 1, 2, 2]> = x.max_pool2d(&Pool2dOptions::new(2).stride(1));
    /// assert_eq!(y.to_vec(), vec![4., 5., 7., 8.]);
    /// ```
    #[track_caller]
    pub fn max_pool2d<HO: Dim, WO: Dim>(
        &self,
        opts: &PoolOptions<2>,
    ) -> Tensor<T, (N, C, HO, WO), D> {
        self.try_max_pool2d(opts).or_panic()
    }

    /// The mean of each window, as `torch.nn.functional.avg_pool2d`: the
    /// padding zeros count unless the options say
    /// [`count_include_pad(false)`](PoolOptions::count_include_pad), which
    /// averages over the input elements of each window only; output sizes
    /// stated by the result type, checked at run time.
    ///
    /// # Errors
    /// As [`Tensor::try_max_pool2d`]; a dilation other than 1.
    ///
    /// ```
    /// use shaped::ops::conv::Pool2dOptions;
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<f64, Shape![1, 1, 2, 4]>::from_vec(vec![1., 2., 3., 4., 5., 6., 7., 8.]);
    /// let y: Tensor<f64, Shape![1, 1, 1, 2]> = x.try_avg_pool2d(&Pool2dOptions::new(2)).unwrap();
    /// assert_eq!(y.to_vec(), vec![3.5, 5.5]);
    /// ```
    #[allow(clippy::type_complexity)] // the result's shape, spelled out for readers
    pub fn try_avg_pool2d<HO: Dim, WO: Dim>(
        &self,
        opts: &PoolOptions<2>,
    ) -> Result<Tensor<T, (N, C, HO, WO), D>, D::Error> {
        let d = self.dims();
        let w = Window::pool(d[1], [d[2], d[3]], opts, false)?;
        result_type::<(N, C, HO, WO)>("avg_pool2d", &self.pooled(&w))?;
        let x = self.share().into_dyn();
        let win = pool_windows(&x, &w, T::zero())?;
        let y = match avg_divisor(&x, &w, opts.count_include_pad)? {
            None => win.try_mean_dims(&[2], false)?,
            Some(divisor) => win.try_sum_dims(&[2], false)?.try_div(&divisor)?,
        };
        y.try_into_shape().map_err(Into::into)
    }

    /// [`Tensor::try_avg_pool2d`], panicking on error.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_avg_pool2d`]'s error.
    ///
    /// ```
    /// use shaped::ops::conv::Pool2dOptions;
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<f32, Shape![1, 1, 2, 2]>::ones();
    /// let o = Pool2dOptions::new(3).stride(1).padding(1);
    /// let y: Tensor<f32, Shape![1, 1, 2, 2]> = x.avg_pool2d(&o);
    /// assert_eq!(y.to_vec(), vec![4. / 9.; 4]);
    /// let y: Tensor<f32, Shape![1, 1, 2, 2]> = x.avg_pool2d(&o.count_include_pad(false));
    /// assert_eq!(y.to_vec(), vec![1.; 4]);
    /// // ceil_mode keeps a last window that reaches past the input.
    /// let x = Tensor::<f32, Shape![1, 1, 1, 3]>::from_vec(vec![1., 2., 4.]);
    /// let y: Tensor<f32, Shape![1, 1, 1, 2]> =
    ///     x.avg_pool2d(&Pool2dOptions::window([1, 2]).ceil_mode(true));
    /// assert_eq!(y.to_vec(), vec![1.5, 4.]);
    /// ```
    #[track_caller]
    pub fn avg_pool2d<HO: Dim, WO: Dim>(
        &self,
        opts: &PoolOptions<2>,
    ) -> Tensor<T, (N, C, HO, WO), D> {
        self.try_avg_pool2d(opts).or_panic()
    }

    /// The mean over `out[0] × out[1]` windows that tile the input as
    /// evenly as possible (window `i` covers `floor(i·H/oh) ..
    /// ceil((i+1)·H/oh)`), as `torch.nn.functional.adaptive_avg_pool2d`.
    ///
    /// # Errors
    /// PyTorch's error for an input with an empty channel or spatial
    /// axis; an error when `out` does not fit `(HO, WO)`.
    ///
    /// ```
    /// use shaped::{Dyn, One, Shape, Tensor};
    /// let x = Tensor::<f64, Shape![1, 1, 1, 5]>::from_vec(vec![1., 2., 3., 4., 5.]);
    /// let y: Tensor<f64, (One, One, One, Dyn)> = x.try_adaptive_avg_pool2d([1, 3]).unwrap();
    /// assert_eq!(y.to_vec(), vec![1.5, 3., 4.5]); // windows 0..2, 1..4, 3..5
    /// ```
    #[allow(clippy::type_complexity)] // the result's shape, spelled out for readers
    pub fn try_adaptive_avg_pool2d<HO: Dim, WO: Dim>(
        &self,
        out: [usize; 2],
    ) -> Result<Tensor<T, (N, C, HO, WO), D>, D::Error> {
        let d = self.dims();
        check_adaptive(d)?;
        result_type::<(N, C, HO, WO)>("adaptive_avg_pool2d", &[d[0], d[1], out[0], out[1]])?;
        let x = self.share().into_dyn();
        let rows = averaging(&x, out[0], d[2])?;
        let cols = averaging(&x, out[1], d[3])?.transpose::<0, 1>();
        let y: DynTensor<T, D> = rows.try_matmul(&x.try_matmul(&cols)?)?;
        y.try_into_shape().map_err(Into::into)
    }

    /// [`Tensor::try_adaptive_avg_pool2d`] to the static output size
    /// `(HO, WO)` (`(One, One)`: global average pooling).
    ///
    /// # Panics
    /// With the message of [`Tensor::try_adaptive_avg_pool2d`]'s error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<f32, Shape![2, 3, 4, 4]>::ones();
    /// let y: Tensor<f32, Shape![2, 3, 1, 1]> = x.adaptive_avg_pool2d();
    /// assert_eq!(y.to_vec(), vec![1.; 6]);
    /// ```
    #[track_caller]
    pub fn adaptive_avg_pool2d<HO: crate::shape::FixedDim, WO: crate::shape::FixedDim>(
        &self,
    ) -> Tensor<T, (N, C, HO, WO), D> {
        self.try_adaptive_avg_pool2d([HO::N, WO::N]).or_panic()
    }
}
