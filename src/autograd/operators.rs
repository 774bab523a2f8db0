//! `std::ops` for `Var`: `+ - * /` between variables (broadcasting, as the
//! methods of the same names), with a scalar on either side (`&x * 0.125`,
//! `1.0 - &x`), and unary `-`.
//!
//! ```
//! use shaped::autograd::Var;
//! use shaped::{Shape, Tensor};
//! let a = Var::param(Tensor::<f32, Shape![2, 1]>::ones());
//! let b = Var::param(Tensor::<f32, Shape![3]>::ones());
//! let c: Var<f32, Shape![2, 3]> = &(&a * &b) - &a;
//! assert_eq!((-&c).sum().backward().wrt(&b).unwrap().to_vec(), vec![-2.; 3]);
//! let s = &(&(2.0 * &a) / 4.0) - 1.0;
//! assert_eq!(s.value().to_vec(), vec![-0.5, -0.5]);
//! ```

use core::ops::{Add, Div, Mul, Neg, Sub};

use super::Var;
use super::device::GradDevice;
use crate::element::Float;
use crate::shape::{Broadcast, BroadcastShape, Shape};

macro_rules! var_operators {
    ($($Trait:ident $method:ident),*) => {$(
        /// Broadcasting, as the method of the same name.
        ///
        /// # Panics
        /// With PyTorch's message when a run-time size does not match.
        impl<T: Float, S: Shape, S2: Shape, D: GradDevice<T>> $Trait<&Var<T, S2, D>> for &Var<T, S, D>
        where
            S: BroadcastShape<S2>,
        {
            type Output = Var<T, Broadcast<S, S2>, D>;
            #[track_caller]
            fn $method(self, rhs: &Var<T, S2, D>) -> Self::Output {
                Var::$method(self, rhs)
            }
        }
    )*};
}

var_operators!(Add add, Sub sub, Mul mul, Div div);

/// `-x`, as [`Var::neg`].
impl<T: Float, S: Shape, D: GradDevice<T>> Neg for &Var<T, S, D> {
    type Output = Var<T, S, D>;
    fn neg(self) -> Var<T, S, D> {
        Var::neg(self)
    }
}

macro_rules! scalar_var_operators {
    ($($t:ty),*) => {$(
        /// `x + c`, as [`Var::add_scalar`].
        impl<S: Shape, D: GradDevice<$t>> Add<$t> for &Var<$t, S, D> {
            type Output = Var<$t, S, D>;
            #[track_caller]
            fn add(self, c: $t) -> Var<$t, S, D> {
                self.add_scalar(c)
            }
        }
        /// `x - c`, as [`Var::add_scalar`] of `-c`.
        impl<S: Shape, D: GradDevice<$t>> Sub<$t> for &Var<$t, S, D> {
            type Output = Var<$t, S, D>;
            #[track_caller]
            fn sub(self, c: $t) -> Var<$t, S, D> {
                self.add_scalar(-c)
            }
        }
        /// `x * c`, as [`Var::mul_scalar`].
        impl<S: Shape, D: GradDevice<$t>> Mul<$t> for &Var<$t, S, D> {
            type Output = Var<$t, S, D>;
            #[track_caller]
            fn mul(self, c: $t) -> Var<$t, S, D> {
                self.mul_scalar(c)
            }
        }
        /// `x / c`, as [`Var::div_scalar`].
        impl<S: Shape, D: GradDevice<$t>> Div<$t> for &Var<$t, S, D> {
            type Output = Var<$t, S, D>;
            #[track_caller]
            fn div(self, c: $t) -> Var<$t, S, D> {
                self.div_scalar(c)
            }
        }
        /// `c + x`, as [`Var::add_scalar`].
        impl<S: Shape, D: GradDevice<$t>> Add<&Var<$t, S, D>> for $t {
            type Output = Var<$t, S, D>;
            #[track_caller]
            fn add(self, x: &Var<$t, S, D>) -> Var<$t, S, D> {
                x.add_scalar(self)
            }
        }
        /// `c - x`, as [`Var::rsub_scalar`].
        impl<S: Shape, D: GradDevice<$t>> Sub<&Var<$t, S, D>> for $t {
            type Output = Var<$t, S, D>;
            #[track_caller]
            fn sub(self, x: &Var<$t, S, D>) -> Var<$t, S, D> {
                x.rsub_scalar(self)
            }
        }
        /// `c * x`, as [`Var::mul_scalar`].
        impl<S: Shape, D: GradDevice<$t>> Mul<&Var<$t, S, D>> for $t {
            type Output = Var<$t, S, D>;
            #[track_caller]
            fn mul(self, x: &Var<$t, S, D>) -> Var<$t, S, D> {
                x.mul_scalar(self)
            }
        }
        /// `c / x`, as [`Var::rdiv_scalar`].
        impl<S: Shape, D: GradDevice<$t>> Div<&Var<$t, S, D>> for $t {
            type Output = Var<$t, S, D>;
            #[track_caller]
            fn div(self, x: &Var<$t, S, D>) -> Var<$t, S, D> {
                x.rdiv_scalar(self)
            }
        }
    )*};
}

scalar_var_operators!(f32, f64);
