//! The reductions whose result is one value per output: each is one entry of
//! the table below (its name, the element family it needs, and the backend
//! primitive that runs it: a [`Reduction`], a [`Statistic`] or `all`/`any`),
//! and the macro writes its five forms, generic over the device (see the
//! naming table in `mod.rs`).

use super::axes;
use crate::Tensor;
use crate::backend::Backend;
use crate::backend::op::{Reduction, Statistic};
use crate::device::Device;
use crate::element::{Element, Float, Numeric};
use crate::shape::OrPanic;
use crate::shape::{DynRank, RemoveAxis, Shape};
use crate::tensor::reduction;

/// `r` over the dims in `mask` (`None`: every dim) on any device, after
/// PyTorch's check that a reduction without identity has elements.
fn reduce_on<T: Numeric, S: Shape, SO: Shape, D: Backend<T>>(
    t: &Tensor<T, S, D>,
    r: Reduction,
    mask: Option<&[bool]>,
    keepdim: bool,
    nonempty: Option<&str>,
) -> Result<Tensor<T, SO, D>, D::Error> {
    let every = axes::all(t.rank());
    let m = mask.unwrap_or(&every);
    super::check_nonempty(nonempty, t.dims(), m, mask.is_none())?;
    reduction::reduce(r, t, m, keepdim)
}

/// `s` over the dims in `mask` (`None`: every dim) on any device.
fn statistic_on<T: Float, S: Shape, SO: Shape, D: Backend<T>>(
    t: &Tensor<T, S, D>,
    s: Statistic,
    mask: Option<&[bool]>,
    keepdim: bool,
) -> Result<Tensor<T, SO, D>, D::Error> {
    let every = axes::all(t.rank());
    reduction::statistic(s, t, mask.unwrap_or(&every), keepdim)
}

/// `all` (or `any`) over the dims in `mask` (`None`: every dim) on any
/// device.
fn truth_on<T: Element, S: Shape, SO: Shape, D: Backend<T>>(
    t: &Tensor<T, S, D>,
    all: bool,
    mask: Option<&[bool]>,
    keepdim: bool,
) -> Result<Tensor<bool, SO, D>, D::Error> {
    let every = axes::all(t.rank());
    reduction::truth(all, t, mask.unwrap_or(&every), keepdim)
}

/// Writes the five forms of each reduction, generic over the device. A
/// reduction routed `[Sum]` runs through [`Backend::reduce`], one routed
/// `(stat ..)` through [`Backend::statistic`], `(truth ..)` through
/// [`Backend::truth`].
macro_rules! reductions {
    ($(
        $(#[$doc:meta])*
        $all:ident / $try_all:ident, $dim:ident, $keep:ident, $dims:ident, $try_dims:ident:
        $bound:ident -> $out:ty, nonempty $ne:expr, ($($arg:ident: $argty:ty = $ex:literal),*),
        $route:tt;
    )*) => {$(
        reductions!(@forms [D: Backend<T>] D [$(#[$doc])*] $all $try_all $dim $keep $dims $try_dims $bound $out, $ne, ($($arg: $argty = $ex),*), $route);
    )*};

    (@run $t:ident, $mask:expr, $keep:expr, $ne:expr, [$R:ident]) => {
        reduce_on($t, Reduction::$R, $mask, $keep, $ne)
    };
    (@run $t:ident, $mask:expr, $keep:expr, $ne:expr, (stat $s:expr)) => {
        statistic_on($t, $s, $mask, $keep)
    };
    (@run $t:ident, $mask:expr, $keep:expr, $ne:expr, (truth $all:literal)) => {
        truth_on($t, $all, $mask, $keep)
    };

    (@forms [$($gen:tt)*] $D:ident [$(#[$doc:meta])*] $all:ident $try_all:ident $dim:ident $keep:ident $dims:ident $try_dims:ident $bound:ident $out:ty, $ne:expr, ($($arg:ident: $argty:ty = $ex:literal),*), $route:tt) => {
        impl<T: $bound, S: Shape, $($gen)*> Tensor<T, S, $D> {
            $(#[$doc])*
            #[track_caller]
            pub fn $all(&self $(, $arg: $argty)*) -> Tensor<$out, (), $D> {
                self.$try_all($($arg),*).or_panic()
            }

            #[doc = concat!("The fallible form of [`Tensor::", stringify!($all), "`].")]
            ///
            /// # Errors
            /// Where the reduction needs elements, PyTorch's error for an
            /// empty tensor; an allocation or driver error.
            ///
            /// ```
            /// use shaped::{Shape, Tensor};
            /// let t = Tensor::<f64, Shape![2]>::from_vec(vec![1., 3.]);
            #[doc = concat!("assert_eq!(t.", stringify!($try_all), "(", $(stringify!($ex),)* ").unwrap().item(), t.", stringify!($all), "(", $(stringify!($ex),)* ").item());")]
            /// ```
            pub fn $try_all(&self $(, $arg: $argty)*) -> Result<Tensor<$out, (), $D>, <$D as Device>::Error> {
                reductions!(@run self, None, false, $ne, $route)
            }

            #[doc = concat!("[`Tensor::", stringify!($all), "`] over axis `K`, which the result drops.")]
            ///
            /// # Panics
            /// For [`DynRank`] tensors, when `K` is out of range (static
            /// shapes check it at compile time); where the reduction needs
            /// elements, when axis `K` has size 0.
            ///
            /// ```
            /// use shaped::{Shape, Tensor};
            /// let t = Tensor::<f64, Shape![2, 3]>::from_vec(vec![1., -2., 3., 4., 5., -6.]);
            #[doc = concat!("let r: Tensor<_, Shape![2]> = t.", stringify!($dim), "::<1>(", $(stringify!($ex),)* ");")]
            /// // Each output reduces one row.
            /// let row = t.narrow::<Shape![1, 3]>(0, 1, 1).unwrap();
            #[doc = concat!("assert_eq!(r.to_vec()[1], row.", stringify!($all), "(", $(stringify!($ex),)* ").item());")]
            /// ```
            #[track_caller]
            pub fn $dim<const K: usize>(&self $(, $arg: $argty)*) -> Tensor<$out, <S as RemoveAxis<K>>::Output, $D>
            where
                S: RemoveAxis<K>,
            {
                let reduced = axes::from_axis(K, self.rank()).map_err(<$D as Device>::Error::from);
                reduced.and_then(|m| reductions!(@run self, Some(&m), false, $ne, $route)).or_panic()
            }

            #[doc = concat!("[`Tensor::", stringify!($all), "`] over axis `K`, which the result keeps with size 1.")]
            ///
            /// # Panics
            /// As the form without `keepdim`.
            ///
            /// ```
            /// use shaped::{Shape, Tensor};
            /// let t = Tensor::<f64, Shape![2, 3]>::from_vec(vec![1., -2., 3., 4., 5., -6.]);
            #[doc = concat!("let r: Tensor<_, Shape![1, 3]> = t.", stringify!($keep), "::<0>(", $(stringify!($ex),)* ");")]
            #[doc = concat!("assert_eq!(r.to_vec(), t.", stringify!($dim), "::<0>(", $(stringify!($ex),)* ").to_vec());")]
            /// ```
            #[track_caller]
            pub fn $keep<const K: usize>(&self $(, $arg: $argty)*) -> Tensor<$out, <S as RemoveAxis<K>>::KeepDim, $D>
            where
                S: RemoveAxis<K>,
            {
                let reduced = axes::from_axis(K, self.rank()).map_err(<$D as Device>::Error::from);
                reduced.and_then(|m| reductions!(@run self, Some(&m), true, $ne, $route)).or_panic()
            }

            #[doc = concat!("[`Tensor::", stringify!($all), "`] over the run-time dims `dims` (negative counts from the end; empty means all), into a tensor of dynamic rank.")]
            ///
            /// # Errors
            /// PyTorch's errors for a dim out of range or given twice, and,
            /// where the reduction needs elements, a reduced size of 0.
            ///
            /// ```
            /// use shaped::{DynRank, Tensor};
            /// let t = Tensor::<f64, DynRank>::try_from_vec(vec![1., -2., 3., 4., 5., -6.], &[2, 3]).unwrap();
            #[doc = concat!("let r = t.", stringify!($try_dims), "(&[-1], false", $(", ", stringify!($ex),)* ").unwrap();")]
            #[doc = concat!("assert_eq!(r.to_vec(), t.", stringify!($dim), "::<1>(", $(stringify!($ex),)* ").to_vec());")]
            #[doc = concat!("let e = t.", stringify!($try_dims), "(&[2], false", $(", ", stringify!($ex),)* ").unwrap_err();")]
            /// assert_eq!(e.to_string(), "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
            /// ```
            pub fn $try_dims(&self, dims: &[isize], keepdim: bool $(, $arg: $argty)*) -> Result<Tensor<$out, DynRank, $D>, <$D as Device>::Error> {
                let m = axes::from_dims(dims, self.rank())?;
                reductions!(@run self, Some(&m), keepdim, $ne, $route)
            }

            #[doc = concat!("[`Tensor::", stringify!($try_dims), "`], panicking on error.")]
            ///
            /// # Panics
            /// With the message of the `try_` form's error.
            ///
            /// ```
            /// use shaped::{Shape, Tensor};
            /// let t = Tensor::<f64, Shape![2, 3, 2]>::from_vec((0..12).map(f64::from).collect());
            #[doc = concat!("let r = t.", stringify!($dims), "(&[0, 2], true", $(", ", stringify!($ex),)* ");")]
            /// assert_eq!(r.dims(), &[1, 3, 1]);
            /// ```
            #[track_caller]
            pub fn $dims(&self, dims: &[isize], keepdim: bool $(, $arg: $argty)*) -> Tensor<$out, DynRank, $D> {
                self.$try_dims(dims, keepdim $(, $arg)*).or_panic()
            }
        }
    };
}

reductions! {
    /// The sum of all elements, as `torch.sum` (pairwise, so `f32` sums
    /// stay accurate).
    ///
    /// Integer sums are kept in the element's type and wrap on overflow,
    /// as every integer operation of this crate wraps: a reduction's element
    /// type is its input's, so the result type does not depend on the
    /// operation. PyTorch instead accumulates `int32` (and `uint8`) sums in
    /// `int64` and returns `int64`; for PyTorch's value, widen first:
    /// `t.map(|x| x as i64).sum()`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![2, 2]>::from_vec(vec![1, 2, 3, 4]);
    /// assert_eq!(t.sum().item(), 10);
    /// let big = Tensor::<i32, Shape![2]>::from_vec(vec![i32::MAX, 1]);
    /// assert_eq!(big.sum().item(), i32::MIN);
    /// assert_eq!(big.map(|x| x as i64).sum().item(), 2_147_483_648); // torch.sum's int64
    /// ```
    sum / try_sum, sum_dim, sum_dim_keepdim, sum_dims, try_sum_dims:
    Numeric -> T, nonempty None, (), [Sum];

    /// The mean of all elements, as `torch.mean` (NaN when there are none).
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f32, Shape![4]>::from_vec(vec![1., 2., 3., 6.]);
    /// assert_eq!(t.mean().item(), 3.0);
    /// ```
    mean / try_mean, mean_dim, mean_dim_keepdim, mean_dims, try_mean_dims:
    Float -> T, nonempty None, (), [Mean];

    /// The product of all elements, as `torch.prod`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i64, Shape![3]>::from_vec(vec![2, 3, 4]);
    /// assert_eq!(t.prod().item(), 24);
    /// ```
    prod / try_prod, prod_dim, prod_dim_keepdim, prod_dims, try_prod_dims:
    Numeric -> T, nonempty None, (), [Prod];

    /// The largest element, NaN if any is NaN, as `torch.max(t)` and
    /// `torch.amax` (which, unlike `torch.max(t, dim)`, takes several dims;
    /// for the indices see [`Tensor::max_dim_with_indices`]).
    ///
    /// # Panics
    /// When the tensor is empty, with PyTorch's message.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f32, Shape![3]>::from_vec(vec![1., 7., -2.]);
    /// assert_eq!(t.max().item(), 7.0);
    /// ```
    max / try_max, max_dim, max_dim_keepdim, max_dims, try_max_dims:
    Numeric -> T, nonempty Some("max"), (), [Max];

    /// The smallest element, NaN if any is NaN, as `torch.min(t)` and
    /// `torch.amin`.
    ///
    /// # Panics
    /// When the tensor is empty, with PyTorch's message.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![3]>::from_vec(vec![1, 7, -2]);
    /// assert_eq!(t.min().item(), -2);
    /// ```
    min / try_min, min_dim, min_dim_keepdim, min_dims, try_min_dims:
    Numeric -> T, nonempty Some("min"), (), [Min];

    /// The variance, `Σ (x - mean)² / (N - correction)`, as `torch.var`
    /// (PyTorch's default `correction` is 1, Bessel's correction; 0 gives the
    /// population variance). Welford's algorithm in `f64` on the CPU; two
    /// passes (mean, then squared deviations) in the element type on CUDA.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f64, Shape![4]>::from_vec(vec![1., 2., 3., 4.]);
    /// assert_eq!(t.var(1).item(), 5.0 / 3.0);
    /// assert_eq!(t.var(0).item(), 1.25);
    /// ```
    var / try_var, var_dim, var_dim_keepdim, var_dims, try_var_dims:
    Float -> T, nonempty None, (correction: usize = 1), (stat Statistic::Variance { correction, sqrt: false });

    /// The standard deviation, the square root of [`Tensor::var`], as
    /// `torch.std` (PyTorch's default `correction` is 1).
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f64, Shape![2]>::from_vec(vec![1., 3.]);
    /// assert_eq!(t.std(1).item(), 2.0f64.sqrt());
    /// ```
    std / try_std, std_dim, std_dim_keepdim, std_dims, try_std_dims:
    Float -> T, nonempty None, (correction: usize = 1), (stat Statistic::Variance { correction, sqrt: true });

    /// The `p`-norm `(Σ |x|^p)^(1/p)`, as `torch.linalg.vector_norm`:
    /// `p = 0` counts nonzero elements, `p = ∞` takes the largest `|x|` and
    /// `p = -∞` the smallest.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f32, Shape![2]>::from_vec(vec![3., -4.]);
    /// assert_eq!(t.norm(2.0).item(), 5.0);
    /// assert_eq!(t.norm(1.0).item(), 7.0);
    /// assert_eq!(t.norm(f64::INFINITY).item(), 4.0);
    /// ```
    norm / try_norm, norm_dim, norm_dim_keepdim, norm_dims, try_norm_dims:
    Float -> T, nonempty None, (p: f64 = 2.0), (stat Statistic::Norm(p));

    /// `log Σ exp x`, computed without overflow, as `torch.logsumexp`
    /// (`-∞` when there are no elements).
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f64, Shape![2]>::from_vec(vec![1000., 1000.]);
    /// assert_eq!(t.logsumexp().item(), 1000.0 + 2f64.ln());
    /// ```
    logsumexp / try_logsumexp, logsumexp_dim, logsumexp_dim_keepdim, logsumexp_dims, try_logsumexp_dims:
    Float -> T, nonempty None, (), (stat Statistic::LogSumExp);

    /// Whether every element is nonzero (`true`), as `torch.all`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![3]>::from_vec(vec![1, 0, 2]);
    /// assert!(!t.all().item());
    /// ```
    all / try_all, all_dim, all_dim_keepdim, all_dims, try_all_dims:
    Element -> bool, nonempty None, (), (truth true);

    /// Whether some element is nonzero (`true`), as `torch.any`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<bool, Shape![3]>::from_vec(vec![false, true, false]);
    /// assert!(t.any().item());
    /// ```
    any / try_any, any_dim, any_dim_keepdim, any_dims, try_any_dims:
    Element -> bool, nonempty None, (), (truth false);
}
