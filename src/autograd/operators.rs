//! `std::ops` for `Var`: `+ - * /` between variables (broadcasting, as the
//! methods of the same names) and unary `-`.
//!
//! ```
//! use shaped::autograd::Var;
//! use shaped::{Shape, Tensor};
//! let a = Var::param(Tensor::<f32, Shape![2, 1]>::ones());
//! let b = Var::param(Tensor::<f32, Shape![3]>::ones());
//! let c: Var<f32, Shape![2, 3]> = &(&a * &b) - &a;
//! assert_eq!((-&c).sum().backward().wrt(&b).unwrap().to_vec(), vec![-2.; 3]);
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
