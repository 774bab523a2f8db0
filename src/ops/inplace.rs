//! In-place two-operand operations: `self` keeps its shape and `other`
//! broadcasts to it (PyTorch's in-place rule): a compile error for static
//! shapes, PyTorch's expand error at run time for dynamic ones. Writing into
//! a tensor whose elements share memory (an expanded view) is refused, as
//! PyTorch refuses it.
//!
//! ```
//! use shaped::{Shape, Tensor};
//! let mut x = Tensor::<f32, Shape![5, 3, 4, 1]>::zeros();
//! let y = Tensor::<f32, Shape![3, 1, 1]>::ones();
//! x.add_(&y);
//! assert_eq!(x.dims(), &[5, 3, 4, 1]);
//! ```

use crate::Tensor;
use crate::element::{Float, Numeric};
use crate::ops::scalar;
use crate::shape::{ExpandsTo, Shape, ShapeError};

macro_rules! inplace_ops {
    ($(
        $(#[$doc:meta])*
        $name:ident / $try_name:ident : $bound:ident, $zero_check:literal, |$x:ident, $y:ident| $body:expr;
    )*) => {$(
        impl<T: $bound, S: Shape> Tensor<T, S> {
            $(#[$doc])*
            ///
            /// # Panics
            /// With the message of the `try_` form's error.
            #[track_caller]
            pub fn $name<S2>(&mut self, other: &Tensor<T, S2>)
            where
                S2: ExpandsTo<S>,
            {
                self.$try_name(other).unwrap_or_else(|e| panic!("{e}"))
            }

            #[doc = concat!("The fallible form of [`Tensor::", stringify!($name), "`].")]
            ///
            /// # Errors
            /// PyTorch's expand error when `other` does not broadcast to
            /// `self`'s shape, or when elements of `self` share memory.
            ///
            /// ```
            /// use shaped::{DynRank, Tensor};
            /// let mut a = Tensor::<f64, DynRank>::try_ones(&[2, 3]).unwrap();
            /// let b = Tensor::<f64, DynRank>::try_ones(&[2]).unwrap();
            #[doc = concat!("assert!(a.", stringify!($try_name), "(&b).is_err());")]
            /// ```
            pub fn $try_name<S2>(&mut self, other: &Tensor<T, S2>) -> Result<(), ShapeError>
            where
                S2: ExpandsTo<S>,
            {
                if $zero_check && !T::IS_FLOAT && other.to_vec().contains(&T::zero()) {
                    return Err(ShapeError::Invalid("ZeroDivisionError".into()));
                }
                self.try_zip_map_(other, |$x: T, $y: T| $body)
            }
        }
    )*};
}

inplace_ops! {
    /// `self += other`, as `Tensor.add_`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let mut a = Tensor::<i32, Shape![2, 2]>::zeros();
    /// a.add_(&Tensor::<i32, Shape![2]>::from_vec(vec![1, 2]));
    /// assert_eq!(a.to_vec(), vec![1, 2, 1, 2]);
    /// ```
    add_ / try_add_: Numeric, false, |x, y| x.wadd(y);
    /// `self -= other`, as `Tensor.sub_`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let mut a = Tensor::<i32, Shape![2]>::zeros();
    /// a.sub_(&Tensor::<i32, Shape![1]>::from_vec(vec![1]));
    /// assert_eq!(a.to_vec(), vec![-1, -1]);
    /// ```
    sub_ / try_sub_: Numeric, false, |x, y| x.wsub(y);
    /// `self *= other`, as `Tensor.mul_`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let mut a = Tensor::<f32, Shape![2]>::from_vec(vec![1., 2.]);
    /// a.mul_(&Tensor::<f32, Shape![1]>::from_vec(vec![3.]));
    /// assert_eq!(a.to_vec(), vec![3., 6.]);
    /// ```
    mul_ / try_mul_: Numeric, false, |x, y| x.wmul(y);
    /// `self /= other` (true division), as `Tensor.div_`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let mut a = Tensor::<f32, Shape![2]>::from_vec(vec![1., 2.]);
    /// a.div_(&Tensor::<f32, Shape![1]>::from_vec(vec![2.]));
    /// assert_eq!(a.to_vec(), vec![0.5, 1.]);
    /// ```
    div_ / try_div_: Float, false, |x, y| x / y;
    /// `self = fmod(self, other)`, as `Tensor.fmod_`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let mut a = Tensor::<i32, Shape![2]>::from_vec(vec![-3, 3]);
    /// a.fmod_(&Tensor::<i32, Shape![1]>::from_vec(vec![2]));
    /// assert_eq!(a.to_vec(), vec![-1, 1]);
    /// ```
    fmod_ / try_fmod_: Numeric, true, |x, y| scalar::fmod(x, y);
    /// `self = remainder(self, other)`, as `Tensor.remainder_`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let mut a = Tensor::<i32, Shape![2]>::from_vec(vec![-3, 3]);
    /// a.remainder_(&Tensor::<i32, Shape![1]>::from_vec(vec![2]));
    /// assert_eq!(a.to_vec(), vec![1, 1]);
    /// ```
    remainder_ / try_remainder_: Numeric, true, |x, y| scalar::remainder(x, y);
    /// `self = self ^ other`, as `Tensor.pow_`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let mut a = Tensor::<f64, Shape![2]>::from_vec(vec![2., 3.]);
    /// a.pow_(&Tensor::<f64, Shape![1]>::from_vec(vec![2.]));
    /// assert_eq!(a.to_vec(), vec![4., 9.]);
    /// ```
    pow_ / try_pow_: Numeric, false, |x, y| x.pow_elem(y);
}
