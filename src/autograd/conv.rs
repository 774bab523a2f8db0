//! Gradients of the convolutions and poolings of
//! [`ops::conv`](crate::ops::conv). Each is built from one recorded
//! operation, the input's windows laid out as data (im2col, whose gradient
//! adds each window's gradient back into the input's positions: col2im),
//! and operations that already have gradients: the matrix product with
//! the weight (so the weight's gradient is `g · colsᵀ` summed over the
//! batch, the input's `wᵀ · g` folded back; a transposed convolution is
//! the same pieces the other way round), the bias broadcast,
//! `take_along_dim` at each window's first largest element (max pooling:
//! the gradient goes to that element alone, as PyTorch's), a mean, or
//! products with averaging matrices (adaptive pooling).

use smallvec::smallvec;

use super::Var;
use super::device::GradDevice;
use crate::element::Float;
use crate::ops::conv::{
    ConvOptions, ConvPlan, ConvTransposeOptions, PoolOptions, Window, as_2d, averaging,
    avg_divisor, check_adaptive, fold, plan, plan_transposed, result_type, unfold,
};
use crate::shape::{Dim, DynRank, FixedDim, OrPanic, ShapeError};
use crate::tensor::windows as direct;

type DynVar<T, D> = Var<T, DynRank, D>;

fn isize_dims(d: &[usize]) -> Vec<isize> {
    d.iter().map(|&v| v as isize).collect()
}

impl<T: Float, D: GradDevice<T>> Var<T, DynRank, D> {
    /// The windows of this `(N, C, H, W)` value as `(N, C, kh, kw, oh,
    /// ow)`, padded with `pad`; the gradient is folded back (col2im).
    fn windows(&self, w: &Window, pad: T) -> Result<DynVar<T, D>, D::Error> {
        let value = unfold(&self.value.share().into_dyn(), w, pad)?;
        let w = *w;
        Ok(Var::from_op(value, &[Some(&self.node)], move || {
            Box::new(move |g, _| Ok(smallvec![Some(fold(g, &w)?)]))
        }))
    }

    /// This `(N, C, kh, kw, oh, ow)` value's windows added back into the
    /// positions they come from (col2im): `(N, C, H, W)`; the gradient is
    /// the windows of the output's gradient (im2col).
    fn unwindows(&self, w: &Window) -> Result<DynVar<T, D>, D::Error> {
        let value = fold(&self.value.share().into_dyn(), w)?;
        let w = *w;
        Ok(Var::from_op(value, &[Some(&self.node)], move || {
            Box::new(move |g, _| Ok(smallvec![Some(unfold(g, &w, T::zero())?)]))
        }))
    }

    /// `x` `(N, C, H, W)` convolved by `w` `(O, C / groups, kh, kw)` plus
    /// `bias`, planned by `p`: the windows times the weight, per group.
    fn conv2d_planned(
        &self,
        w: &DynVar<T, D>,
        bias: Option<&DynVar<T, D>>,
        p: &ConvPlan,
    ) -> Result<DynVar<T, D>, D::Error> {
        let channels = self.dims()[1];
        if p.is_depthwise(channels)
            && let Some(y) = self.depthwise(w, &p.window, channels)
        {
            return y?.with_bias(bias);
        }
        if let Some(y) = self.conv_unit_stride(w, &p.window, p.groups, channels) {
            return y?.with_bias(bias);
        }
        let cols: DynVar<T, D> = self
            .windows(&p.window, T::zero())?
            .try_reshape(&p.grouped_windows())?;
        let wm: DynVar<T, D> = w.try_reshape(&p.grouped_filters())?;
        wm.try_matmul(&cols)?
            .try_reshape::<DynRank>(&p.output4())?
            .with_bias(bias)
    }

    /// This `(N, O, ...)` value plus `bias` `(O,)` at every position.
    fn with_bias(self, bias: Option<&DynVar<T, D>>) -> Result<DynVar<T, D>, D::Error> {
        match bias {
            Some(b) => self.try_add(&b.try_reshape::<DynRank>(&[-1, 1, 1])?),
            None => Ok(self),
        }
    }
}

/// A direct kernel's result on tensors of run-time rank: `None` when the
/// device has none.
type DirectDyn<T, D> = Option<Result<DynTensor<T, D>, <D as crate::device::Device>::Error>>;
type DynTensor<T, D> = crate::Tensor<T, DynRank, D>;
/// Two results of one direct kernel on tensors of run-time rank: `None`
/// when the device has none.
type DirectPair<T, D> =
    Option<Result<(DynTensor<T, D>, DynTensor<T, D>), <D as crate::device::Device>::Error>>;

impl<T: Float, D: GradDevice<T>> Var<T, DynRank, D> {
    /// The depthwise convolution of this `(N, C, H, W)` value by `w` on a
    /// device with a direct kernel for it ([`Windows::depthwise`](crate::backend::Windows::depthwise)), or
    /// `None`; its gradients are the device's direct kernels too.
    fn depthwise(
        &self,
        w: &DynVar<T, D>,
        win: &Window,
        channels: usize,
    ) -> Option<Result<DynVar<T, D>, D::Error>> {
        let win = *win;
        self.direct_conv(
            w,
            "a depthwise convolution kernel",
            |x, wt| direct::depthwise(x, wt, &win),
            move |g, wt| direct::depthwise_grad_input(g, wt, &win, channels),
            move |g, x| direct::depthwise_grad_weight(g, x, &win),
            move |g, x, wt| direct::depthwise_grads(g, x, wt, &win, channels),
        )
    }

    /// The convolution of stride 1 of this `(N, C, H, W)` value by `w` on
    /// a device with a direct kernel for it
    /// ([`Windows::conv_unit_stride`](crate::backend::Windows::conv_unit_stride)),
    /// or `None`; its gradients are the device's direct kernels too.
    fn conv_unit_stride(
        &self,
        w: &DynVar<T, D>,
        win: &Window,
        groups: usize,
        channels: usize,
    ) -> Option<Result<DynVar<T, D>, D::Error>> {
        let win = *win;
        self.direct_conv(
            w,
            "a convolution kernel of stride 1",
            |x, wt| direct::conv_unit_stride(x, wt, &win, groups),
            move |g, wt| direct::conv_unit_stride_grad_input(g, wt, &win, groups, channels),
            move |g, x| direct::conv_unit_stride_grad_weight(g, x, &win, groups),
            |_, _, _| None,
        )
    }

    /// A convolution of this value by `w` that the device runs by direct
    /// kernels: `forward(x, w)`, `None` where it has none; the gradients
    /// `grad_input(g, w)` and `grad_weight(g, x)` (`kernel` names the
    /// kernel in the error where the device lacks a gradient), and
    /// `grads(g, x, w)`, both at once where the device has that kernel
    /// for this convolution (`None` otherwise), run first when both are
    /// needed.
    fn direct_conv(
        &self,
        w: &DynVar<T, D>,
        kernel: &'static str,
        forward: impl FnOnce(&DynTensor<T, D>, &DynTensor<T, D>) -> DirectDyn<T, D>,
        grad_input: impl Fn(&DynTensor<T, D>, &DynTensor<T, D>) -> DirectDyn<T, D>
        + Send
        + Sync
        + 'static,
        grad_weight: impl Fn(&DynTensor<T, D>, &DynTensor<T, D>) -> DirectDyn<T, D>
        + Send
        + Sync
        + 'static,
        grads: impl Fn(&DynTensor<T, D>, &DynTensor<T, D>, &DynTensor<T, D>) -> DirectPair<T, D>
        + Send
        + Sync
        + 'static,
    ) -> Option<Result<DynVar<T, D>, D::Error>> {
        let (x, wt) = (self.value.share().into_dyn(), w.value.share().into_dyn());
        let value = match forward(&x, &wt)? {
            Ok(v) => v,
            Err(e) => return Some(Err(e)),
        };
        Some(Ok(Var::from_op(
            value,
            &[Some(&self.node), Some(&w.node)],
            move || {
                Box::new(move |g, needs| {
                    let missing = || {
                        D::Error::from(ShapeError::Invalid(format!(
                            "this device has {kernel} but not its gradient"
                        )))
                    };
                    // One kernel for both, reading `g` once in its own
                    // layout, where the device has it.
                    if needs[0]
                        && needs[1]
                        && let Some(both) = grads(g, &x, &wt)
                    {
                        let (gx, gw) = both?;
                        return Ok(smallvec![Some(gx), Some(gw)]);
                    }
                    // Both gradients read all of `g`: a strided or expanded
                    // `g` (a `sum`'s gradient) is made contiguous once for
                    // the two, not once in each.
                    let whole;
                    let g = match needs[0] && needs[1] && !g.is_contiguous() {
                        true => {
                            whole = g.try_contiguous()?;
                            &whole
                        }
                        false => g,
                    };
                    let gx = match needs[0] {
                        true => Some(grad_input(g, &wt).ok_or_else(missing)??),
                        false => None,
                    };
                    let gw = match needs[1] {
                        true => Some(grad_weight(g, &x).ok_or_else(missing)??),
                        false => None,
                    };
                    Ok(smallvec![gx, gw])
                })
            },
        )))
    }
}

impl<T: Float, N: Dim, C: Dim, H: Dim, W: Dim, D: GradDevice<T>> Var<T, (N, C, H, W), D> {
    /// The 2-d convolution of this `(N, C, H, W)` value by `weight`
    /// `(O, C / groups, kh, kw)` plus `bias` `(O,)`, as
    /// [`Tensor::try_conv2d`](crate::Tensor::try_conv2d), with gradients
    /// for the input, the weight and the bias. The output's spatial sizes
    /// `(HO, WO)` are stated by the result type.
    ///
    /// # Errors
    /// As [`Tensor::try_conv2d`](crate::Tensor::try_conv2d).
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::ops::conv::Conv2dOptions;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f64, Shape![1, 1, 3, 3]>::ones());
    /// let w = Var::param(Tensor::<f64, Shape![1, 1, 2, 2]>::ones());
    /// let y: Var<f64, Shape![1, 1, 2, 2]> = x.try_conv2d(&w, None, &Conv2dOptions::new()).unwrap();
    /// let g = y.sum().backward();
    /// // The centre is in all four windows, the corners in one.
    /// assert_eq!(g.wrt(&x).unwrap().to_vec(), vec![1., 2., 1., 2., 4., 2., 1., 2., 1.]);
    /// assert_eq!(g.wrt(&w).unwrap().to_vec(), vec![4.; 4]);
    /// ```
    #[allow(clippy::type_complexity)]
    pub fn try_conv2d<O: Dim, CG: Dim, KH: Dim, KW: Dim, HO: Dim, WO: Dim>(
        &self,
        weight: &Var<T, (O, CG, KH, KW), D>,
        bias: Option<&Var<T, (O,), D>>,
        opts: &ConvOptions<2>,
    ) -> Result<Var<T, (N, O, HO, WO), D>, D::Error> {
        let p = plan(self.dims(), weight.dims(), bias.map(|b| b.dims()), opts)?;
        result_type::<(N, O, HO, WO)>("conv2d", &p.output_dims::<2>())?;
        let b = bias.map(Var::into_dyn);
        let y = self
            .into_dyn()
            .conv2d_planned(&weight.into_dyn(), b.as_ref(), &p)?;
        Ok(y.try_into_shape()?)
    }

    /// [`Var::try_conv2d`], panicking on error.
    ///
    /// # Panics
    /// With the message of [`Var::try_conv2d`]'s error.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::ops::conv::Conv2dOptions;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::constant(Tensor::<f32, Shape![2, 3, 8, 8]>::ones());
    /// let w = Var::param(Tensor::<f32, Shape![4, 3, 3, 3]>::ones());
    /// let b = Var::param(Tensor::<f32, Shape![4]>::zeros());
    /// let y: Var<f32, Shape![2, 4, 8, 8]> = x.conv2d(&w, Some(&b), &Conv2dOptions::new().same());
    /// assert_eq!(y.sum().backward().wrt(&b).unwrap().to_vec(), vec![128.; 4]);
    /// ```
    #[track_caller]
    pub fn conv2d<O: Dim, CG: Dim, KH: Dim, KW: Dim, HO: Dim, WO: Dim>(
        &self,
        weight: &Var<T, (O, CG, KH, KW), D>,
        bias: Option<&Var<T, (O,), D>>,
        opts: &ConvOptions<2>,
    ) -> Var<T, (N, O, HO, WO), D> {
        self.try_conv2d(weight, bias, opts).or_panic()
    }

    /// The checked windows of a pooling and its output's sizes.
    fn pool_window<HO: Dim, WO: Dim>(
        &self,
        op: &str,
        opts: &PoolOptions<2>,
        dilated: bool,
    ) -> Result<Window, D::Error> {
        let d = self.dims();
        let w = Window::pool(d[1], [d[2], d[3]], opts, dilated)?;
        result_type::<(N, C, HO, WO)>(op, &[d[0], d[1], w.output[0], w.output[1]])?;
        Ok(w)
    }

    /// `max_pool2d`, as [`Tensor::try_max_pool2d`](crate::Tensor::try_max_pool2d);
    /// the gradient goes to the first largest element of each window.
    ///
    /// # Errors
    /// As [`Tensor::try_max_pool2d`](crate::Tensor::try_max_pool2d).
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::ops::conv::Pool2dOptions;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f32, Shape![1, 1, 2, 2]>::from_vec(vec![1., 3., 3., 2.]));
    /// let y: Var<f32, Shape![1, 1, 1, 1]> = x.try_max_pool2d(&Pool2dOptions::new(2)).unwrap();
    /// assert_eq!(y.sum().backward().wrt(&x).unwrap().to_vec(), vec![0., 1., 0., 0.]);
    /// ```
    #[allow(clippy::type_complexity)] // the result's shape, spelled out for readers
    pub fn try_max_pool2d<HO: Dim, WO: Dim>(
        &self,
        opts: &PoolOptions<2>,
    ) -> Result<Var<T, (N, C, HO, WO), D>, D::Error> {
        let w = self.pool_window::<HO, WO>("max_pool2d", opts, true)?;
        let d = self.dims();
        let kk = (w.kernel[0] * w.kernel[1]) as isize;
        let [oh, ow] = w.output.map(|v| v as isize);
        let (n, c) = (d[0] as isize, d[1] as isize);
        let win: DynVar<T, D> = self
            .into_dyn()
            .windows(&w, T::neg_infinity())?
            .try_reshape(&[n, c, kk, oh, ow])?;
        let (_, at) = win.value.try_max_with_indices(2, true)?;
        let y = win.try_take_along_dim_at(2, &at)?;
        y.try_reshape(&[n, c, oh, ow])
    }

    /// [`Var::try_max_pool2d`], panicking on error.
    ///
    /// # Panics
    /// With the message of [`Var::try_max_pool2d`]'s error.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::ops::conv::Pool2dOptions;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f32, Shape![1, 1, 4, 4]>::ones());
    /// let y: Var<f32, Shape![1, 1, 2, 2]> = x.max_pool2d(&Pool2dOptions::new(2));
    /// assert_eq!(y.sum().backward().wrt(&x).unwrap().to_vec().iter().sum::<f32>(), 4.);
    /// ```
    #[track_caller]
    pub fn max_pool2d<HO: Dim, WO: Dim>(&self, opts: &PoolOptions<2>) -> Var<T, (N, C, HO, WO), D> {
        self.try_max_pool2d(opts).or_panic()
    }

    /// `avg_pool2d`, as [`Tensor::try_avg_pool2d`](crate::Tensor::try_avg_pool2d).
    ///
    /// # Errors
    /// As [`Tensor::try_avg_pool2d`](crate::Tensor::try_avg_pool2d).
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::ops::conv::Pool2dOptions;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f64, Shape![1, 1, 2, 2]>::ones());
    /// let y: Var<f64, Shape![1, 1, 1, 1]> = x.try_avg_pool2d(&Pool2dOptions::new(2)).unwrap();
    /// assert_eq!(y.sum().backward().wrt(&x).unwrap().to_vec(), vec![0.25; 4]);
    /// ```
    #[allow(clippy::type_complexity)] // the result's shape, spelled out for readers
    pub fn try_avg_pool2d<HO: Dim, WO: Dim>(
        &self,
        opts: &PoolOptions<2>,
    ) -> Result<Var<T, (N, C, HO, WO), D>, D::Error> {
        let w = self.pool_window::<HO, WO>("avg_pool2d", opts, false)?;
        let d = self.dims();
        let kk = (w.kernel[0] * w.kernel[1]) as isize;
        let [oh, ow] = w.output.map(|v| v as isize);
        let win: DynVar<T, D> = self.into_dyn().windows(&w, T::zero())?.try_reshape(&[
            d[0] as isize,
            d[1] as isize,
            kk,
            oh,
            ow,
        ])?;
        let divisor = avg_divisor(&self.value.share().into_dyn(), &w, opts.count_include_pad)?;
        let y = match divisor {
            None => win.try_mean_dims(&[2], false)?,
            Some(d) => win.try_sum_dims(&[2], false)?.try_div(&Var::constant(d))?,
        };
        y.try_into_shape().map_err(Into::into)
    }

    /// [`Var::try_avg_pool2d`], panicking on error.
    ///
    /// # Panics
    /// With the message of [`Var::try_avg_pool2d`]'s error.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::ops::conv::Pool2dOptions;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f32, Shape![1, 2, 4, 4]>::ones());
    /// let y: Var<f32, Shape![1, 2, 2, 2]> = x.avg_pool2d(&Pool2dOptions::new(2));
    /// assert_eq!(y.value().to_vec(), vec![1.; 8]);
    /// ```
    #[track_caller]
    pub fn avg_pool2d<HO: Dim, WO: Dim>(&self, opts: &PoolOptions<2>) -> Var<T, (N, C, HO, WO), D> {
        self.try_avg_pool2d(opts).or_panic()
    }

    /// `adaptive_avg_pool2d` to `out`, as
    /// [`Tensor::try_adaptive_avg_pool2d`](crate::Tensor::try_adaptive_avg_pool2d).
    ///
    /// # Errors
    /// As [`Tensor::try_adaptive_avg_pool2d`](crate::Tensor::try_adaptive_avg_pool2d).
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Dyn, One, Shape, Tensor};
    /// let x = Var::param(Tensor::<f64, Shape![1, 1, 1, 3]>::from_vec(vec![1., 2., 3.]));
    /// let y: Var<f64, (_, _, One, Dyn)> = x.try_adaptive_avg_pool2d([1, 2]).unwrap();
    /// assert_eq!(y.value().to_vec(), vec![1.5, 2.5]);
    /// assert_eq!(y.sum().backward().wrt(&x).unwrap().to_vec(), vec![0.5, 1., 0.5]);
    /// ```
    #[allow(clippy::type_complexity)] // the result's shape, spelled out for readers
    pub fn try_adaptive_avg_pool2d<HO: Dim, WO: Dim>(
        &self,
        out: [usize; 2],
    ) -> Result<Var<T, (N, C, HO, WO), D>, D::Error> {
        let d = self.dims();
        check_adaptive(d)?;
        result_type::<(N, C, HO, WO)>("adaptive_avg_pool2d", &[d[0], d[1], out[0], out[1]])?;
        let like = self.value.share().into_dyn();
        let rows = Var::constant(averaging(&like, out[0], d[2])?);
        let cols = Var::constant(averaging(&like, out[1], d[3])?.transpose::<0, 1>());
        let y: DynVar<T, D> = rows.try_matmul(&self.into_dyn().try_matmul(&cols)?)?;
        Ok(y.try_into_shape()?)
    }

    /// [`Var::try_adaptive_avg_pool2d`] to the static size `(HO, WO)`
    /// (`(One, One)`: global average pooling).
    ///
    /// # Panics
    /// With the message of [`Var::try_adaptive_avg_pool2d`]'s error.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f32, Shape![2, 3, 4, 4]>::ones());
    /// let y: Var<f32, Shape![2, 3, 1, 1]> = x.adaptive_avg_pool2d();
    /// assert_eq!(y.sum().backward().wrt(&x).unwrap().to_vec(), vec![1. / 16.; 96]);
    /// ```
    #[track_caller]
    pub fn adaptive_avg_pool2d<HO: FixedDim, WO: FixedDim>(&self) -> Var<T, (N, C, HO, WO), D> {
        self.try_adaptive_avg_pool2d([HO::N, WO::N]).or_panic()
    }
}

impl<T: Float, N: Dim, C: Dim, H: Dim, W: Dim, D: GradDevice<T>> Var<T, (N, C, H, W), D> {
    /// The transposed 2-d convolution of this `(N, C, H, W)` value by
    /// `weight` `(C, O / groups, kh, kw)` plus `bias` `(O,)`, as
    /// [`Tensor::try_conv_transpose2d`](crate::Tensor::try_conv_transpose2d),
    /// with gradients for the input, the weight and the bias.
    ///
    /// # Errors
    /// As [`Tensor::try_conv_transpose2d`](crate::Tensor::try_conv_transpose2d).
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::ops::conv::ConvTranspose2dOptions;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f64, Shape![1, 1, 2, 2]>::ones());
    /// let w = Var::param(Tensor::<f64, Shape![1, 1, 2, 2]>::ones());
    /// let o = ConvTranspose2dOptions::new();
    /// let y: Var<f64, Shape![1, 1, 3, 3]> = x.try_conv_transpose2d(&w, None, &o).unwrap();
    /// assert_eq!(y.value().to_vec(), vec![1., 2., 1., 2., 4., 2., 1., 2., 1.]);
    /// let g = y.sum().backward();
    /// assert_eq!(g.wrt(&x).unwrap().to_vec(), vec![4.; 4]);
    /// ```
    #[allow(clippy::type_complexity)]
    pub fn try_conv_transpose2d<O: Dim, OG: Dim, KH: Dim, KW: Dim, HO: Dim, WO: Dim>(
        &self,
        weight: &Var<T, (C, OG, KH, KW), D>,
        bias: Option<&Var<T, (O,), D>>,
        opts: &ConvTransposeOptions<2>,
    ) -> Result<Var<T, (N, O, HO, WO), D>, D::Error> {
        let p = plan_transposed(self.dims(), weight.dims(), bias.map(|b| b.dims()), opts)?;
        result_type::<(N, O, HO, WO)>("conv_transpose2d", &p.transposed_output_dims())?;
        let xm: DynVar<T, D> = self.try_reshape(&p.grouped_input())?;
        let wm: DynVar<T, D> = weight
            .try_reshape::<DynRank>(&p.grouped_patches())?
            .permute(&[0, 2, 1])?;
        let cols: DynVar<T, D> = wm.try_matmul(&xm)?.try_reshape(&p.patches())?;
        let b = bias.map(Var::into_dyn);
        let y = cols.unwindows(&p.window)?.with_bias(b.as_ref())?;
        Ok(y.try_into_shape()?)
    }

    /// [`Var::try_conv_transpose2d`], panicking on error.
    ///
    /// # Panics
    /// With the message of [`Var::try_conv_transpose2d`]'s error.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::ops::conv::ConvTranspose2dOptions;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f32, Shape![2, 8, 7, 7]>::ones());
    /// let w = Var::param(Tensor::<f32, Shape![8, 4, 3, 3]>::ones());
    /// let o = ConvTranspose2dOptions::new().stride(2).padding(1).output_padding(1);
    /// let y: Var<f32, Shape![2, 4, 14, 14]> = x.conv_transpose2d(&w, None, &o);
    /// assert_eq!(y.sum().backward().wrt(&w).unwrap().dims(), &[8, 4, 3, 3]);
    /// ```
    #[track_caller]
    pub fn conv_transpose2d<O: Dim, OG: Dim, KH: Dim, KW: Dim, HO: Dim, WO: Dim>(
        &self,
        weight: &Var<T, (C, OG, KH, KW), D>,
        bias: Option<&Var<T, (O,), D>>,
        opts: &ConvTransposeOptions<2>,
    ) -> Var<T, (N, O, HO, WO), D> {
        self.try_conv_transpose2d(weight, bias, opts).or_panic()
    }
}

impl<T: Float, N: Dim, C: Dim, L: Dim, D: GradDevice<T>> Var<T, (N, C, L), D> {
    /// The 1-d convolution of this `(N, C, L)` value by `weight`
    /// `(O, C / groups, k)` plus `bias`, as
    /// [`Tensor::try_conv1d`](crate::Tensor::try_conv1d), with gradients.
    ///
    /// # Errors
    /// As [`Tensor::try_conv1d`](crate::Tensor::try_conv1d).
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::ops::conv::Conv1dOptions;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f64, Shape![1, 1, 3]>::from_vec(vec![1., 2., 3.]));
    /// let w = Var::param(Tensor::<f64, Shape![1, 1, 2]>::from_vec(vec![1., -1.]));
    /// let y: Var<f64, Shape![1, 1, 2]> = x.try_conv1d(&w, None, &Conv1dOptions::new()).unwrap();
    /// let g = y.sum().backward();
    /// assert_eq!(g.wrt(&x).unwrap().to_vec(), vec![1., 0., -1.]);
    /// assert_eq!(g.wrt(&w).unwrap().to_vec(), vec![3., 5.]);
    /// ```
    #[allow(clippy::type_complexity)]
    pub fn try_conv1d<O: Dim, CG: Dim, K: Dim, LO: Dim>(
        &self,
        weight: &Var<T, (O, CG, K), D>,
        bias: Option<&Var<T, (O,), D>>,
        opts: &ConvOptions<1>,
    ) -> Result<Var<T, (N, O, LO), D>, D::Error> {
        let p = plan(self.dims(), weight.dims(), bias.map(|b| b.dims()), opts)?;
        let out = p.output_dims::<1>();
        result_type::<(N, O, LO)>("conv1d", &out)?;
        let x: DynVar<T, D> = self.try_reshape(&isize_dims(&as_2d::<1>(self.dims())))?;
        let w: DynVar<T, D> = weight.try_reshape(&isize_dims(&as_2d::<1>(weight.dims())))?;
        let b = bias.map(Var::into_dyn);
        x.conv2d_planned(&w, b.as_ref(), &p)?
            .try_reshape(&isize_dims(&out))
    }

    /// [`Var::try_conv1d`], panicking on error.
    ///
    /// # Panics
    /// With the message of [`Var::try_conv1d`]'s error.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::ops::conv::Conv1dOptions;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f32, Shape![2, 4, 16]>::ones());
    /// let w = Var::param(Tensor::<f32, Shape![4, 1, 3]>::ones());
    /// // Depthwise: one filter per channel.
    /// let y: Var<f32, Shape![2, 4, 16]> = x.conv1d(&w, None, &Conv1dOptions::new().same().groups(4));
    /// assert_eq!(y.value().to_vec()[..3], [2., 3., 3.]);
    /// ```
    #[track_caller]
    pub fn conv1d<O: Dim, CG: Dim, K: Dim, LO: Dim>(
        &self,
        weight: &Var<T, (O, CG, K), D>,
        bias: Option<&Var<T, (O,), D>>,
        opts: &ConvOptions<1>,
    ) -> Var<T, (N, O, LO), D> {
        self.try_conv1d(weight, bias, opts).or_panic()
    }
}
