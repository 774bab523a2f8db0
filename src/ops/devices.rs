//! Operators between tensors on different devices, which exist only to fail
//! with a message that says so: without them, `&cpu + &cuda` reports "no
//! implementation for `&Tensor<f32, S> + &Tensor<f32, S, Cuda>`" and the
//! reader has to spot the device in the second type. With them, the
//! operator resolves to an impl here whose bound, [`SameDevice`], cannot
//! hold, and its diagnostic names both devices and the fix.
//!
//! ```compile_fail,E0277
//! use shaped::device::Cuda;
//! use shaped::{Shape, Tensor};
//! fn add(a: &Tensor<f32, Shape![2]>, b: &Tensor<f32, Shape![2], Cuda>) {
//!     let _ = a + b; // error: tensors on different devices cannot be combined
//! }
//! ```

use crate::Tensor;
use crate::device::{Cpu, Cuda, SameDevice};
use crate::element::Element;
use crate::shape::Shape;

macro_rules! mixed {
    ($($Trait:ident $method:ident),*) => {$(
        mixed!(@one $Trait $method, Cpu, Cuda);
        mixed!(@one $Trait $method, Cuda, Cpu);
    )*};
    (@one $Trait:ident $method:ident, $D1:ident, $D2:ident) => {
        /// Refused at compile time: the operands are on different devices.
        impl<T: Element, S: Shape, S2: Shape> core::ops::$Trait<&Tensor<T, S2, $D2>> for &Tensor<T, S, $D1>
        where
            $D1: SameDevice<$D2, T>,
        {
            type Output = Tensor<T, S, $D1>;
            fn $method(self, _: &Tensor<T, S2, $D2>) -> Self::Output {
                unreachable!("`SameDevice` never holds for two different devices")
            }
        }

        /// Refused at compile time: the operands are on different devices.
        impl<T: Element, S: Shape, S2: Shape> core::ops::$Trait<Tensor<T, S2, $D2>> for Tensor<T, S, $D1>
        where
            $D1: SameDevice<$D2, T>,
        {
            type Output = Tensor<T, S, $D1>;
            fn $method(self, _: Tensor<T, S2, $D2>) -> Self::Output {
                unreachable!("`SameDevice` never holds for two different devices")
            }
        }
    };
}

mixed!(Add add, Sub sub, Mul mul, Div div, Rem rem);
