//! Gradients of reductions. The upstream gradient has the reduced sizes; it
//! is first seen with the reduced dims kept as 1 (a view), then broadcast back
//! over the input (stride 0, no copy) and combined with the input where the
//! derivative needs it:
//!
//! | op | gradient of `x` |
//! |---|---|
//! | `sum` | `g`, expanded |
//! | `mean` | `g / n`, expanded |
//! | `prod` | `g · Π_{j≠i} x_j` (zeros handled as PyTorch does) |
//! | `max`, `min` | `g / count` on the elements equal to the result |
//! | `var` | `g · 2(x - mean) / (n - correction)` |
//! | `std` | `g · (x - mean) / ((n - correction) std)` |
//! | `norm` | PyTorch's `norm_backward` for each `p` |
//! | `logsumexp` | `g · exp(x - lse)` |
//! | `softmax` | `y (g - Σ g y)` |
//! | `log_softmax` | `g - exp(y) Σ g` |
//! | `sum_to` | `g`, expanded |

use crate::shape::OrPanic;
use crate::tensor::pointwise;
use crate::tensor::reduction;
use smallvec::smallvec;

use super::Var;
use super::device::{
    GradDevice, combine, compare, reshape_to, scalar_like, select, sum_keepdim, sum_to_like,
    zeros_like,
};
use super::graph::DynTensor;
use crate::Tensor;
use crate::backend::op::table::{self, Fill};
use crate::backend::op::{Map1, Map2, Reduction, ScalarRhs, Statistic};
use crate::device::Device;
use crate::element::Float;
use crate::ops::reduce::Mask;
use crate::ops::reduce::reducers::NormKind;
use crate::shape::{DimVec, DynRank, ExpandsTo, FixedShape, RemoveAxis, Shape};

/// `x` reduced by `r` over `mask`, with the reduced dims kept as 1, on any
/// device (through the tensor's own reduction, so with PyTorch's error
/// for `max` or `min` over no elements).
fn forward_keepdim<T: Float, D: GradDevice<T>>(
    r: Reduction,
    x: &DynTensor<T, D>,
    mask: &[bool],
) -> Result<DynTensor<T, D>, D::Error> {
    let dims: Vec<isize> = (0..mask.len())
        .filter(|&i| mask[i])
        .map(|i| i as isize)
        .collect();
    match r {
        Reduction::Sum => x.try_sum_dims(&dims, true),
        Reduction::Mean => x.try_mean_dims(&dims, true),
        Reduction::Prod => x.try_prod_dims(&dims, true),
        Reduction::Max => x.try_max_dims(&dims, true),
        Reduction::Min => x.try_min_dims(&dims, true),
    }
}

/// The gradient of `x` for `y = r(x)` (keepdim sizes for `y` and `g`),
/// written with op-table operations and device reductions, so it runs on
/// any device; an error only when a buffer cannot be allocated.
fn device_grad<T: Float, D: GradDevice<T>>(
    r: Reduction,
    x: &DynTensor<T, D>,
    y: &DynTensor<T, D>,
    g: &DynTensor<T, D>,
    mask: &[bool],
) -> Result<DynTensor<T, D>, D::Error> {
    let n = crate::ops::reduce::reduced_count(x.dims(), mask);
    let expand = |t: DynTensor<T, D>| -> Result<DynTensor<T, D>, D::Error> {
        Ok(t.try_broadcast_to::<DynRank>(x.dims())?)
    };
    match r {
        Reduction::Sum => expand(g.share()),
        Reduction::Mean => {
            let nf = T::from_f64(n as f64);
            expand(pointwise::unary(ScalarRhs(table::Div, nf), g)?)
        }
        // An empty input has an empty gradient.
        _ if x.numel() == 0 => pointwise::unary(Fill(T::zero()), x),
        Reduction::Prod => {
            // The product of the nonzero elements and the number of zeros:
            // `p / x` where no element is 0, `p` at the only 0, else 0.
            let (zero, one) = (scalar_like(x, T::zero())?, scalar_like(x, T::one())?);
            let is_zero = compare(table::Equal, x, &zero)?;
            let nonzero =
                reduction::reduce(Reduction::Prod, &select(&is_zero, &one, x)?, mask, true)?;
            let zeros = sum_keepdim(&select(&is_zero, &one, &zero)?, mask)?;
            let only_zero = combine(
                table::LogicalAnd,
                &compare(table::Equal, &zeros, &one)?,
                &is_zero,
            )?;
            let others = select(
                &compare(table::Equal, &zeros, &zero)?,
                &nonzero.try_div(x)?,
                &select(&only_zero, &nonzero, &zero)?,
            )?;
            others.try_mul(g)
        }
        Reduction::Max | Reduction::Min => {
            // Ties share the gradient evenly, as PyTorch's amax/amin.
            let (zero, one) = (scalar_like(x, T::zero())?, scalar_like(x, T::one())?);
            let hit = compare(table::Equal, x, y)?;
            let count = sum_keepdim(&select(&hit, &one, &zero)?, mask)?;
            select(&hit, &g.try_div(&count)?, &zero)
        }
    }
}

/// `x` reduced by the float statistic `s` over `mask`, with the reduced
/// dims kept as 1, on any device.
fn statistic_keepdim<T: Float, D: GradDevice<T>>(
    s: Statistic,
    x: &DynTensor<T, D>,
    mask: &[bool],
) -> Result<DynTensor<T, D>, D::Error> {
    reduction::statistic(s, x, mask, true)
}

/// `op(a, b)` at the broadcast of the two (an op-table operation).
fn bin<T: Float, D: GradDevice<T>, Op: Map2<T, Out = T>>(
    op: Op,
    a: &DynTensor<T, D>,
    b: &DynTensor<T, D>,
) -> Result<DynTensor<T, D>, D::Error> {
    pointwise::binary(op, a, b)
}

/// `op` on every element of `a` (an op-table operation).
fn un<T: Float, D: GradDevice<T>, Op: Map1<T>>(
    op: Op,
    a: &DynTensor<T, D>,
) -> Result<DynTensor<T, D>, D::Error> {
    pointwise::unary(op, a)
}

/// `v` where `a == 0`, else `b` (`a` broadcast to `b`'s sizes).
fn zero_where_zero<T: Float, D: GradDevice<T>>(
    a: &DynTensor<T, D>,
    b: &DynTensor<T, D>,
) -> Result<DynTensor<T, D>, D::Error> {
    if b.numel() == 0 {
        return Ok(b.share());
    }
    let zero = scalar_like(b, T::zero())?;
    select(&compare(table::Equal, a, &zero)?, &zero, b)
}

/// The gradient of `x` for `y = s(x)` (keepdim sizes for `y` and `g`),
/// written with op-table operations and device reductions, so it runs on
/// any device; an error only when a buffer cannot be allocated.
fn statistic_grad<T: Float, D: GradDevice<T>>(
    s: Statistic,
    x: &DynTensor<T, D>,
    y: &DynTensor<T, D>,
    g: &DynTensor<T, D>,
    mask: &[bool],
) -> Result<DynTensor<T, D>, D::Error> {
    let n = crate::ops::reduce::reduced_count(x.dims(), mask);
    match s {
        Statistic::Variance { correction, sqrt } => {
            let mean = reduction::reduce(Reduction::Mean, x, mask, true)?;
            let centred = bin(table::Sub, x, &mean)?;
            let dof = (n as f64 - correction as f64).max(0.0);
            if sqrt {
                // `g / (dof · std) · (x - mean)`.
                let scale = bin(
                    table::Div,
                    g,
                    &un(ScalarRhs(table::Mul, T::from_f64(dof)), y)?,
                )?;
                bin(table::Mul, &scale, &centred)
            } else {
                // `g · 2 / dof · (x - mean)`.
                let k = T::from_f64(2.0 / dof);
                bin(table::Mul, &un(ScalarRhs(table::Mul, k), g)?, &centred)
            }
        }
        Statistic::Norm(p) => norm_grad(NormKind::of(p), x, y, g, mask),
        Statistic::LogSumExp => bin(table::Mul, g, &un(table::Exp, &bin(table::Sub, x, y)?)?),
    }
}

/// PyTorch's `norm_backward`.
fn norm_grad<T: Float, D: GradDevice<T>>(
    kind: NormKind,
    x: &DynTensor<T, D>,
    y: &DynTensor<T, D>,
    g: &DynTensor<T, D>,
    mask: &[bool],
) -> Result<DynTensor<T, D>, D::Error> {
    match kind {
        NormKind::Zero => zeros_like(x),
        NormKind::One => bin(table::Mul, g, &un(table::Sign, x)?),
        // `g · x / n`, 0 where the norm is 0.
        NormKind::Two => zero_where_zero(y, &bin(table::Div, &bin(table::Mul, g, x)?, y)?),
        NormKind::Inf | NormKind::NegInf => {
            // The elements whose magnitude is the norm share `g` evenly.
            if x.numel() == 0 {
                return zeros_like(x);
            }
            let (zero, one) = (scalar_like(x, T::zero())?, scalar_like(x, T::one())?);
            let hit = compare(table::Equal, &un(table::Abs, x)?, y)?;
            let count = sum_keepdim(&select(&hit, &one, &zero)?, mask)?;
            let share = bin(table::Div, g, &count)?;
            select(&hit, &bin(table::Mul, &share, &un(table::Sign, x)?)?, &zero)
        }
        NormKind::P(p) => {
            // `g / n^(p-1) · sign(x) · |x|^(p-1)`, 0 where the norm or the
            // element is 0.
            let pm1 = T::from_f64(p - 1.0);
            let scale =
                zero_where_zero(y, &bin(table::Div, g, &un(ScalarRhs(table::Pow, pm1), y)?)?)?;
            let signed = bin(table::Mul, &scale, &un(table::Sign, x)?)?;
            let powed = un(ScalarRhs(table::Pow, pm1), &un(table::Abs, x)?)?;
            zero_where_zero(x, &bin(table::Mul, &signed, &powed)?)
        }
    }
}

/// A reduction `op` of `x` over a mask, with the reduced dims kept as 1.
type Forward<Op, T, D> =
    fn(Op, &DynTensor<T, D>, &[bool]) -> Result<DynTensor<T, D>, <D as Device>::Error>;

/// The gradient of the input `x` of a reduction `op` from `x`, the result
/// `y`, the upstream gradient `g` (both with the reduced dims kept) and the
/// mask of reduced dims.
type Backward<Op, T, D> = fn(
    Op,
    &DynTensor<T, D>,
    &DynTensor<T, D>,
    &DynTensor<T, D>,
    &[bool],
) -> Result<DynTensor<T, D>, <D as Device>::Error>;

impl<T: Float, S: Shape, D: GradDevice<T>> Var<T, S, D> {
    /// A reduction over `mask` (`None`: all dims) recorded: `forward`
    /// computes it with the reduced dims kept, `grad` (called with `op`)
    /// is its backward rule.
    fn record_reduction<SO: Shape, Op: Copy + Send + Sync + 'static>(
        &self,
        op: Op,
        mask: Option<&[bool]>,
        keepdim: bool,
        forward: Forward<Op, T, D>,
        grad: Backward<Op, T, D>,
    ) -> Result<Var<T, SO, D>, D::Error> {
        let all = crate::ops::reduce::all_mask(self.value.rank());
        let mask: Mask = Mask::from_slice(mask.unwrap_or(&all));
        let x = self.erased();
        let y = forward(op, &x, &mask)?;
        let out_dims = crate::ops::reduce::result_dims(x.dims(), &mask, keepdim);
        let value: Tensor<T, SO, D> = reshape_to(&y, &out_dims)?;
        Ok(Var::from_op(value, &[Some(&self.node)], move || {
            let keep: DimVec = y.dims().into();
            Box::new(move |g: &DynTensor<T, D>, _: &[bool]| {
                let g = reshape_to(g, &keep)?;
                Ok(smallvec![Some(grad(op, &x, &y, &g, &mask)?)])
            })
        }))
    }

    /// `r` over `mask` (`None`: all dims), recorded; runs on any device.
    fn reduce<SO: Shape>(
        &self,
        r: Reduction,
        mask: Option<&[bool]>,
        keepdim: bool,
    ) -> Result<Var<T, SO, D>, D::Error> {
        self.record_reduction(r, mask, keepdim, forward_keepdim, device_grad)
    }
}

impl<T: Float, S: Shape, D: GradDevice<T>> Var<T, S, D> {
    /// The float statistic `s` over `mask` (`None`: all dims), recorded;
    /// runs on any device.
    fn statistic<SO: Shape>(
        &self,
        s: Statistic,
        mask: Option<&[bool]>,
        keepdim: bool,
    ) -> Result<Var<T, SO, D>, D::Error> {
        self.record_reduction(s, mask, keepdim, statistic_keepdim, statistic_grad)
    }
}

macro_rules! reduction_vars {
    ($(
        $(#[$doc:meta])*
        $all:ident, $dim:ident, $keep:ident, $dims:ident, $try_dims:ident,
        ($($arg:ident: $argty:ty = $ex:literal),*) => $reduce:ident($op:expr) on [$($gen:tt)*] $D:ident;
    )*) => {$(
        impl<T: Float, S: Shape, $($gen)*> Var<T, S, $D> {
            $(#[$doc])*
            #[track_caller]
            pub fn $all(&self $(, $arg: $argty)*) -> Var<T, (), $D> {
                self.$reduce($op, None, false).or_panic()
            }

            #[doc = concat!("[`Var::", stringify!($all), "`] over axis `K`, which the result drops.")]
            ///
            /// # Panics
            /// For [`DynRank`] values, when `K` is out of range.
            ///
            /// ```
            /// use shaped::autograd::Var;
            /// use shaped::{Shape, Tensor};
            /// let x = Var::param(Tensor::<f64, Shape![2, 3]>::from_vec(vec![1., -2., 3., 4., 5., -6.]));
            #[doc = concat!("let r: Var<f64, Shape![2]> = x.", stringify!($dim), "::<1>(", $(stringify!($ex),)* ");")]
            #[doc = concat!("assert_eq!(r.value().to_vec(), x.value().", stringify!($dim), "::<1>(", $(stringify!($ex),)* ").to_vec());")]
            /// assert_eq!(r.sum().backward().wrt(&x).unwrap().dims(), &[2, 3]);
            /// ```
            #[track_caller]
            pub fn $dim<const K: usize>(&self $(, $arg: $argty)*) -> Var<T, <S as RemoveAxis<K>>::Output, $D>
            where
                S: RemoveAxis<K>,
            {
                let m = crate::ops::reduce::axis_mask(K, self.value.rank()).or_panic();
                self.$reduce($op, Some(&m), false).or_panic()
            }

            #[doc = concat!("[`Var::", stringify!($all), "`] over axis `K`, kept with size 1.")]
            ///
            /// # Panics
            /// For [`DynRank`] values, when `K` is out of range.
            ///
            /// ```
            /// use shaped::autograd::Var;
            /// use shaped::{Shape, Tensor};
            /// let x = Var::param(Tensor::<f64, Shape![2, 3]>::from_vec(vec![1., -2., 3., 4., 5., -6.]));
            #[doc = concat!("let r: Var<f64, Shape![1, 3]> = x.", stringify!($keep), "::<0>(", $(stringify!($ex),)* ");")]
            /// assert_eq!(r.sum().backward().wrt(&x).unwrap().dims(), &[2, 3]);
            /// ```
            #[track_caller]
            pub fn $keep<const K: usize>(&self $(, $arg: $argty)*) -> Var<T, <S as RemoveAxis<K>>::KeepDim, $D>
            where
                S: RemoveAxis<K>,
            {
                let m = crate::ops::reduce::axis_mask(K, self.value.rank()).or_panic();
                self.$reduce($op, Some(&m), true).or_panic()
            }

            #[doc = concat!("[`Var::", stringify!($all), "`] over the run-time dims `dims` (negative from the end; empty means all).")]
            ///
            /// # Errors
            /// PyTorch's errors for a dim out of range or given twice.
            ///
            /// ```
            /// use shaped::autograd::Var;
            /// use shaped::{DynRank, Tensor};
            /// let x = Var::param(Tensor::<f64, DynRank>::try_from_vec(vec![1., -2., 3., 4., 5., -6.], &[2, 3]).unwrap());
            #[doc = concat!("let r = x.", stringify!($try_dims), "(&[0, 1], false", $(", ", stringify!($ex),)* ").unwrap();")]
            /// assert_eq!(r.try_backward().unwrap().wrt(&x).unwrap().dims(), &[2, 3]);
            #[doc = concat!("assert!(x.", stringify!($try_dims), "(&[2], false", $(", ", stringify!($ex),)* ").is_err());")]
            /// ```
            pub fn $try_dims(&self, dims: &[isize], keepdim: bool $(, $arg: $argty)*) -> Result<Var<T, DynRank, $D>, <$D as Device>::Error> {
                let m = crate::ops::reduce::dims_mask(dims, self.value.rank())?;
                self.$reduce($op, Some(&m), keepdim)
            }

            #[doc = concat!("[`Var::", stringify!($try_dims), "`], panicking on error.")]
            ///
            /// # Panics
            /// With the message of the `try_` form's error.
            ///
            /// ```
            /// use shaped::autograd::Var;
            /// use shaped::{Shape, Tensor};
            /// let x = Var::param(Tensor::<f64, Shape![2, 3]>::from_vec(vec![1., -2., 3., 4., 5., -6.]));
            #[doc = concat!("assert_eq!(x.", stringify!($dims), "(&[-1], true", $(", ", stringify!($ex),)* ").dims(), &[2, 1]);")]
            /// ```
            #[track_caller]
            pub fn $dims(&self, dims: &[isize], keepdim: bool $(, $arg: $argty)*) -> Var<T, DynRank, $D> {
                self.$try_dims(dims, keepdim $(, $arg)*).or_panic()
            }
        }
    )*};
}

reduction_vars! {
    /// The sum of all elements; its gradient is the upstream gradient
    /// expanded over the input (no copy).
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f32, Shape![2, 2]>::ones());
    /// let g = x.sum().backward().wrt(&x).unwrap();
    /// assert_eq!(g.strides(), &[0, 0]); // an expanded 1
    /// assert_eq!(g.to_vec(), vec![1.; 4]);
    /// ```
    sum, sum_dim, sum_dim_keepdim, sum_dims, try_sum_dims, () => reduce(Reduction::Sum) on [D: GradDevice<T>] D;
    /// The mean of all elements.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f32, Shape![4]>::ones());
    /// assert_eq!(x.mean().backward().wrt(&x).unwrap().to_vec(), vec![0.25; 4]);
    /// ```
    mean, mean_dim, mean_dim_keepdim, mean_dims, try_mean_dims, () => reduce(Reduction::Mean) on [D: GradDevice<T>] D;
    /// The product of all elements; the gradient of each is the product of
    /// the others (exact with zeros).
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f64, Shape![3]>::from_vec(vec![2., 0., 4.]));
    /// assert_eq!(x.prod().backward().wrt(&x).unwrap().to_vec(), vec![0., 8., 0.]);
    /// ```
    prod, prod_dim, prod_dim_keepdim, prod_dims, try_prod_dims, () => reduce(Reduction::Prod) on [D: GradDevice<T>] D;
    /// The largest element (`torch.amax`); ties share the gradient evenly.
    ///
    /// # Panics
    /// When the value is empty.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f32, Shape![3]>::from_vec(vec![5., 1., 5.]));
    /// assert_eq!(x.max().backward().wrt(&x).unwrap().to_vec(), vec![0.5, 0., 0.5]);
    /// ```
    max, max_dim, max_dim_keepdim, max_dims, try_max_dims, () => reduce(Reduction::Max) on [D: GradDevice<T>] D;
    /// The smallest element (`torch.amin`); ties share the gradient evenly.
    ///
    /// # Panics
    /// When the value is empty.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f32, Shape![3]>::from_vec(vec![5., 1., 5.]));
    /// assert_eq!(x.min().backward().wrt(&x).unwrap().to_vec(), vec![0., 1., 0.]);
    /// ```
    min, min_dim, min_dim_keepdim, min_dims, try_min_dims, () => reduce(Reduction::Min) on [D: GradDevice<T>] D;
    /// The variance with `correction` (PyTorch's default 1).
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f64, Shape![2]>::from_vec(vec![1., 3.]));
    /// assert_eq!(x.var(1).backward().wrt(&x).unwrap().to_vec(), vec![-2., 2.]);
    /// ```
    var, var_dim, var_dim_keepdim, var_dims, try_var_dims, (correction: usize = 1) => statistic(Statistic::Variance { correction, sqrt: false }) on [D: GradDevice<T>] D;
    /// The standard deviation with `correction` (PyTorch's default 1).
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f64, Shape![2]>::from_vec(vec![1., 3.]));
    /// let g = x.std(0).backward().wrt(&x).unwrap();
    /// assert_eq!(g.to_vec(), vec![-0.5, 0.5]);
    /// ```
    std, std_dim, std_dim_keepdim, std_dims, try_std_dims, (correction: usize = 1) => statistic(Statistic::Variance { correction, sqrt: true }) on [D: GradDevice<T>] D;
    /// The `p`-norm.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f64, Shape![2]>::from_vec(vec![3., 4.]));
    /// assert_eq!(x.norm(2.0).backward().wrt(&x).unwrap().to_vec(), vec![0.6, 0.8]);
    /// ```
    norm, norm_dim, norm_dim_keepdim, norm_dims, try_norm_dims, (p: f64 = 2.0) => statistic(Statistic::Norm(p)) on [D: GradDevice<T>] D;
    /// `log Σ exp x`; its gradient is the softmax.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f64, Shape![2]>::from_vec(vec![1., 1.]));
    /// let g = x.logsumexp().backward().wrt(&x).unwrap().to_vec();
    /// assert!(g.iter().all(|v| (v - 0.5).abs() < 1e-15));
    /// ```
    logsumexp, logsumexp_dim, logsumexp_dim_keepdim, logsumexp_dims, try_logsumexp_dims, () => statistic(Statistic::LogSumExp) on [D: GradDevice<T>] D;
}

/// `softmax` or `log_softmax`.
#[derive(Clone, Copy)]
enum Normalize {
    Softmax,
    LogSoftmax,
}

impl<T: Float, S: Shape, D: GradDevice<T>> Var<T, S, D> {
    /// `softmax` or `log_softmax` along `dim`, recorded.
    fn normalize(&self, dim: isize, op: Normalize) -> Result<Var<T, S, D>, D::Error> {
        let value = match op {
            Normalize::Softmax => self.value.try_softmax(dim)?,
            Normalize::LogSoftmax => self.value.try_log_softmax(dim)?,
        };
        let y = value.share().into_dyn();
        let mask = crate::ops::reduce::dims_mask(&[dim], self.value.rank())?;
        Ok(Var::from_op(value, &[Some(&self.node)], move || {
            Box::new(move |g: &DynTensor<T, D>, _: &[bool]| {
                let grad = match op {
                    // `y (g - Σ g y)`.
                    Normalize::Softmax => {
                        let gy = sum_keepdim(&bin(table::Mul, g, &y)?, &mask)?;
                        bin(table::Mul, &y, &bin(table::Sub, g, &gy)?)
                    }
                    // `g - exp(y) Σ g`.
                    Normalize::LogSoftmax => {
                        let gs = sum_keepdim(g, &mask)?;
                        bin(table::Sub, g, &bin(table::Mul, &un(table::Exp, &y)?, &gs)?)
                    }
                };
                Ok(smallvec![Some(grad?)])
            })
        }))
    }

    /// `softmax` along the run-time dim `dim`, as [`Tensor::try_softmax`].
    ///
    /// # Errors
    /// PyTorch's error when `dim` is out of range.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f64, Shape![2]>::from_vec(vec![0., 0.]));
    /// let w = Var::constant(Tensor::<f64, Shape![2]>::from_vec(vec![1., 0.]));
    /// let g = x.try_softmax(0).unwrap().mul(&w).sum().backward();
    /// assert_eq!(g.wrt(&x).unwrap().to_vec(), vec![0.25, -0.25]);
    /// ```
    pub fn try_softmax(&self, dim: isize) -> Result<Var<T, S, D>, D::Error> {
        self.normalize(dim, Normalize::Softmax)
    }

    /// `softmax` along axis `K`.
    ///
    /// # Panics
    /// For [`DynRank`] values, when `K` is out of range.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f32, Shape![2, 2]>::ones());
    /// assert_eq!(x.softmax_dim::<1>().value().to_vec(), vec![0.5; 4]);
    /// ```
    #[track_caller]
    pub fn softmax_dim<const K: usize>(&self) -> Var<T, S, D>
    where
        S: RemoveAxis<K>,
    {
        self.normalize(K as isize, Normalize::Softmax).or_panic()
    }

    /// `log_softmax` along the run-time dim `dim`, as
    /// [`Tensor::try_log_softmax`].
    ///
    /// # Errors
    /// PyTorch's error when `dim` is out of range.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f64, Shape![2]>::from_vec(vec![0., 0.]));
    /// let w = Var::constant(Tensor::<f64, Shape![2]>::from_vec(vec![1., 0.]));
    /// let g = x.try_log_softmax(-1).unwrap().mul(&w).sum().backward();
    /// assert_eq!(g.wrt(&x).unwrap().to_vec(), vec![0.5, -0.5]);
    /// ```
    pub fn try_log_softmax(&self, dim: isize) -> Result<Var<T, S, D>, D::Error> {
        self.normalize(dim, Normalize::LogSoftmax)
    }

    /// `log_softmax` along axis `K`.
    ///
    /// # Panics
    /// For [`DynRank`] values, when `K` is out of range.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f64, Shape![1, 2]>::ones());
    /// assert_eq!(x.log_softmax_dim::<1>().value().to_vec(), vec![-(2f64.ln()); 2]);
    /// ```
    #[track_caller]
    pub fn log_softmax_dim<const K: usize>(&self) -> Var<T, S, D>
    where
        S: RemoveAxis<K>,
    {
        self.normalize(K as isize, Normalize::LogSoftmax).or_panic()
    }
}

impl<T: Float, S: Shape, D: GradDevice<T>> Var<T, S, D> {
    /// Sums to sizes `dims`, which broadcast to this value's, as
    /// [`Tensor::try_sum_to_size`]; the gradient is expanded back.
    ///
    /// # Errors
    /// As [`Tensor::try_sum_to_size`].
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{DynRank, Tensor};
    /// let x = Var::param(Tensor::<f32, DynRank>::try_ones(&[2, 3]).unwrap());
    /// let s = x.try_sum_to_size::<DynRank>(&[3]).unwrap();
    /// assert_eq!(s.value().to_vec(), vec![2.; 3]);
    /// ```
    pub fn try_sum_to_size<S2>(&self, dims: &[usize]) -> Result<Var<T, S2, D>, D::Error>
    where
        S2: Shape + ExpandsTo<S>,
    {
        let value = sum_to_like(self.value.share().into_dyn(), dims)?;
        let from = DimVec::from_slice(self.dims());
        Ok(Var::from_op(value, &[Some(&self.node)], move || {
            Box::new(move |g: &DynTensor<T, D>, _: &[bool]| {
                Ok(smallvec![Some(g.try_broadcast_to::<DynRank>(&from)?)])
            })
        }))
    }

    /// Sums to the fixed shape `S2`, which the compiler checks broadcasts to
    /// `S`, as [`Tensor::sum_to`].
    ///
    /// # Panics
    /// Only when a `Dyn` size of `self` turns out not to fit `S2`.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f32, Shape![2, 3]>::ones());
    /// let s: Var<f32, Shape![1, 3]> = x.sum_to();
    /// assert_eq!(s.sum().backward().wrt(&x).unwrap().to_vec(), vec![1.; 6]);
    /// ```
    #[track_caller]
    pub fn sum_to<S2>(&self) -> Var<T, S2, D>
    where
        S2: FixedShape + ExpandsTo<S>,
    {
        let dims = S2::static_sizes().expect("a fixed shape has static sizes");
        self.try_sum_to_size(dims.as_ref()).or_panic()
    }
}
