//! Reductions at the end of a fused expression: the sum, mean, largest or
//! smallest element of its value, over every axis or one, in the same pass
//! as the expression on the CPU (`backend/cpu/fused.rs`): `(a * b).sum()`
//! reads `a` and `b` once and writes no temporary, and the denominator of
//! a softmax, `(x - m).exp().sum_dim::<1>()`, never materialises the
//! exponentials. Shapes and errors are the eager reductions'.

use super::lazy::{Fallible, Lazy};
use crate::Tensor;
use crate::backend::Backend;
use crate::backend::fused::{Fused, Node};
use crate::backend::op::Reduction;
use crate::device::Device;
use crate::element::{Float, Numeric};
use crate::ops::reduce::{axes, check_nonempty};
use crate::shape::{OrPanic, RemoveAxis, Shape};

/// `r` over the axes of `mask` (`None`: every axis) of `e`'s value, after
/// the eager reductions' check that one without identity has elements.
fn reduce<E, SO: Shape>(
    e: &E,
    r: Reduction,
    axis: Option<usize>,
    keepdim: bool,
    nonempty: Option<&str>,
) -> Fallible<E, Tensor<E::Elem, SO, E::Device>>
where
    E: Node,
    E::Elem: Numeric,
    E::Device: Fused<E::Elem> + Backend<E::Elem>,
{
    let dims = e.dims()?;
    let mask = match axis {
        Some(k) => axes::from_axis(k, dims.len())?,
        None => axes::all(dims.len()),
    };
    check_nonempty(nonempty, &dims, &mask, axis.is_none())?;
    Ok(Tensor::from_output(E::Device::reduce_fused(
        &e.erased(),
        r,
        &mask,
        keepdim,
    )?)?)
}

/// Writes the forms of each reduction: over every element, and over axis
/// `K` without and with `keepdim`, each with its fallible form.
macro_rules! fused_reductions {
    ($(
        $(#[$doc:meta])*
        $all:ident / $try_all:ident, $dim:ident / $try_dim:ident, $keep:ident / $try_keep:ident:
        $bound:ident, $R:ident, $ne:expr;
    )*) => {$(
        impl<E: Node> Lazy<E>
        where
            E::Elem: $bound,
            E::Device: Fused<E::Elem> + Backend<E::Elem>,
        {
            $(#[$doc])*
            ///
            /// # Panics
            /// With the message of the `try_` form's error.
            ///
            /// ```
            /// use shaped::{Shape, Tensor};
            /// let a = Tensor::<f64, Shape![2, 3]>::from_vec(vec![1., -2., 3., 4., 5., -6.]);
            /// let b = Tensor::<f64, Shape![3]>::from_vec(vec![0.5, 1., -1.]);
            #[doc = concat!("assert_eq!((a.lazy() * &b).", stringify!($all), "().item(), a.mul(&b).", stringify!($all), "().item());")]
            /// ```
            #[track_caller]
            pub fn $all(&self) -> Tensor<E::Elem, (), E::Device> {
                self.$try_all().or_panic()
            }

            #[doc = concat!("The fallible form of [`Lazy::", stringify!($all), "`].")]
            ///
            /// # Errors
            /// The expression's broadcast error; where the reduction needs
            /// elements, PyTorch's error for an empty value; an allocation or
            /// device error.
            ///
            /// ```
            /// use shaped::{DynRank, Tensor};
            /// let a = Tensor::<f32, DynRank>::try_ones(&[2, 3]).unwrap();
            /// let b = Tensor::<f32, DynRank>::try_ones(&[2]).unwrap();
            #[doc = concat!("assert!((a.lazy() * &b).", stringify!($try_all), "().is_err());")]
            /// ```
            pub fn $try_all(&self) -> Result<Tensor<E::Elem, (), E::Device>, <E::Device as Device>::Error> {
                reduce(&self.0, Reduction::$R, None, false, $ne)
            }

            #[doc = concat!("[`Lazy::", stringify!($all), "`] over axis `K`, which the result drops.")]
            ///
            /// # Panics
            /// With the message of the `try_` form's error.
            ///
            /// ```
            /// use shaped::{Shape, Tensor};
            /// let a = Tensor::<f64, Shape![2, 3]>::from_vec(vec![1., -2., 3., 4., 5., -6.]);
            /// let b = Tensor::<f64, Shape![2, 1]>::from_vec(vec![0.5, -1.]);
            #[doc = concat!("let r: Tensor<f64, Shape![2]> = (a.lazy() * &b).exp().", stringify!($dim), "::<1>();")]
            #[doc = concat!("assert_eq!(r.to_vec(), a.mul(&b).exp().", stringify!($dim), "::<1>().to_vec());")]
            /// ```
            #[track_caller]
            pub fn $dim<const K: usize>(&self) -> Tensor<E::Elem, <E::Shape as RemoveAxis<K>>::Output, E::Device>
            where
                E::Shape: RemoveAxis<K>,
            {
                self.$try_dim::<K>().or_panic()
            }

            #[doc = concat!("The fallible form of [`Lazy::", stringify!($dim), "`].")]
            ///
            /// # Errors
            #[doc = concat!("As [`Lazy::", stringify!($try_all), "`], and, for shapes of dynamic rank, when `K` is out of range (PyTorch's message).")]
            ///
            /// ```
            /// use shaped::{DynRank, Tensor};
            /// let a = Tensor::<f64, DynRank>::try_ones(&[2, 3]).unwrap();
            #[doc = concat!("assert_eq!((a.lazy() * 2.0).", stringify!($try_dim), "::<1>().unwrap().dims(), &[2]);")]
            #[doc = concat!("assert!((a.lazy() * 2.0).", stringify!($try_dim), "::<2>().is_err());")]
            /// ```
            pub fn $try_dim<const K: usize>(&self) -> Result<Tensor<E::Elem, <E::Shape as RemoveAxis<K>>::Output, E::Device>, <E::Device as Device>::Error>
            where
                E::Shape: RemoveAxis<K>,
            {
                reduce(&self.0, Reduction::$R, Some(K), false, $ne)
            }

            #[doc = concat!("[`Lazy::", stringify!($all), "`] over axis `K`, which the result keeps with size 1.")]
            ///
            /// # Panics
            /// With the message of the `try_` form's error.
            ///
            /// ```
            /// use shaped::{Shape, Tensor};
            /// let x = Tensor::<f32, Shape![2, 3]>::from_vec(vec![1., 2., 3., 4., 5., 6.]);
            #[doc = concat!("let r: Tensor<f32, Shape![2, 1]> = x.lazy().square().", stringify!($keep), "::<1>();")]
            #[doc = concat!("assert_eq!(r.to_vec(), x.square().", stringify!($keep), "::<1>().to_vec());")]
            /// ```
            #[track_caller]
            pub fn $keep<const K: usize>(&self) -> Tensor<E::Elem, <E::Shape as RemoveAxis<K>>::KeepDim, E::Device>
            where
                E::Shape: RemoveAxis<K>,
            {
                self.$try_keep::<K>().or_panic()
            }

            #[doc = concat!("The fallible form of [`Lazy::", stringify!($keep), "`].")]
            ///
            /// # Errors
            #[doc = concat!("As [`Lazy::", stringify!($try_dim), "`].")]
            ///
            /// ```
            /// use shaped::{DynRank, Tensor};
            /// let a = Tensor::<f64, DynRank>::try_ones(&[2, 3]).unwrap();
            #[doc = concat!("assert_eq!((a.lazy() + 1.0).", stringify!($try_keep), "::<0>().unwrap().dims(), &[1, 3]);")]
            /// ```
            pub fn $try_keep<const K: usize>(&self) -> Result<Tensor<E::Elem, <E::Shape as RemoveAxis<K>>::KeepDim, E::Device>, <E::Device as Device>::Error>
            where
                E::Shape: RemoveAxis<K>,
            {
                reduce(&self.0, Reduction::$R, Some(K), true, $ne)
            }
        }
    )*};
}

fused_reductions! {
    /// The sum of the expression's elements, in the same pass as the
    /// expression, as the eager [`Tensor::sum`].
    sum / try_sum, sum_dim / try_sum_dim, sum_dim_keepdim / try_sum_dim_keepdim: Numeric, Sum, None;
    /// The mean of the expression's elements (NaN for none), as the eager
    /// [`Tensor::mean`].
    mean / try_mean, mean_dim / try_mean_dim, mean_dim_keepdim / try_mean_dim_keepdim: Float, Mean, None;
    /// The largest element, NaN if any is NaN, as the eager
    /// [`Tensor::max`].
    max / try_max, max_dim / try_max_dim, max_dim_keepdim / try_max_dim_keepdim: Numeric, Max, Some("max");
    /// The smallest element, NaN if any is NaN, as the eager
    /// [`Tensor::min`].
    min / try_min, min_dim / try_min_dim, min_dim_keepdim / try_min_dim_keepdim: Numeric, Min, Some("min");
}
