//! One-operand pointwise operations, one line of the table each, with an
//! out-of-place form `op()` and an in-place form `op_()`.
//!
//! ```
//! use shaped::{Shape, Tensor};
//! let mut t = Tensor::<f32, Shape![3]>::from_vec(vec![-1., 0., 2.]);
//! assert_eq!(t.relu().to_vec(), vec![0., 0., 2.]);
//! t.square_();
//! assert_eq!(t.to_vec(), vec![1., 0., 4.]);
//! ```

use crate::Tensor;
use crate::element::{Float, Numeric, Signed};
use crate::ops::scalar;
use crate::shape::OrPanic;
use crate::shape::Shape;

macro_rules! unary_ops {
    ($(
        $(#[$doc:meta])*
        $name:ident / $name_:ident : $bound:ident, |$x:ident| $body:expr;
    )*) => {$(
        impl<T: $bound, S: Shape> Tensor<T, S> {
            $(#[$doc])*
            pub fn $name(&self) -> Tensor<T, S> {
                self.map(|$x: T| $body)
            }

            #[doc = concat!("[`Tensor::", stringify!($name), "`] in place.")]
            ///
            /// # Panics
            /// When elements of `self` share memory (an expanded view), as
            /// PyTorch refuses.
            ///
            /// ```
            /// use shaped::{Shape, Tensor};
            /// let mut t = Tensor::<f64, Shape![2]>::from_vec(vec![0.5, 2.0]);
            #[doc = concat!("let want = t.", stringify!($name), "().to_vec();")]
            #[doc = concat!("t.", stringify!($name_), "();")]
            /// assert_eq!(t.to_vec(), want);
            /// ```
            #[track_caller]
            pub fn $name_(&mut self) {
                self.try_map_(|$x: T| $body).or_panic()
            }
        }
    )*};
}

unary_ops! {
    /// `-x`, as `torch.neg`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// assert_eq!(Tensor::<i32, Shape![2]>::from_vec(vec![1, -2]).neg().to_vec(), vec![-1, 2]);
    /// ```
    neg / neg_: Signed, |x| -x;
    /// `|x|`, as `torch.abs`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// assert_eq!(Tensor::<i64, Shape![2]>::from_vec(vec![1, -2]).abs().to_vec(), vec![1, 2]);
    /// ```
    abs / abs_: Signed, |x| x.abs();
    /// `-1`, `0` or `1`, as `torch.sign`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// assert_eq!(Tensor::<f32, Shape![3]>::from_vec(vec![-3., 0., 2.]).sign().to_vec(), vec![-1., 0., 1.]);
    /// ```
    sign / sign_: Numeric, |x| scalar::sign(x);
    /// `x * x`, as `torch.square`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// assert_eq!(Tensor::<u8, Shape![2]>::from_vec(vec![3, 4]).square().to_vec(), vec![9, 16]);
    /// ```
    square / square_: Numeric, |x| x.wmul(x);
    /// `max(x, 0)`, as `torch.relu` (NaN stays NaN).
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// assert_eq!(Tensor::<i32, Shape![2]>::from_vec(vec![-1, 3]).relu().to_vec(), vec![0, 3]);
    /// ```
    relu / relu_: Numeric, |x| if x < T::zero() { T::zero() } else { x };
    /// `e^x`, as `torch.exp`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// assert_eq!(Tensor::<f64, Shape![1]>::zeros().exp().to_vec(), vec![1.0]);
    /// ```
    exp / exp_: Float, |x| x.exp();
    /// The natural logarithm, as `torch.log`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// assert_eq!(Tensor::<f64, Shape![1]>::ones().log().to_vec(), vec![0.0]);
    /// ```
    log / log_: Float, |x| x.ln();
    /// `ln(1 + x)`, accurate near 0, as `torch.log1p`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// assert_eq!(Tensor::<f64, Shape![1]>::from_vec(vec![1e-20]).log1p().to_vec(), vec![1e-20]);
    /// ```
    log1p / log1p_: Float, |x| x.ln_1p();
    /// `e^x - 1`, accurate near 0, as `torch.expm1`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// assert_eq!(Tensor::<f64, Shape![1]>::from_vec(vec![1e-20]).expm1().to_vec(), vec![1e-20]);
    /// ```
    expm1 / expm1_: Float, |x| x.exp_m1();
    /// `√x`, as `torch.sqrt` (NaN below 0).
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// assert_eq!(Tensor::<f32, Shape![1]>::from_vec(vec![9.]).sqrt().to_vec(), vec![3.]);
    /// ```
    sqrt / sqrt_: Float, |x| x.sqrt();
    /// `1 / √x`, as `torch.rsqrt`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// assert_eq!(Tensor::<f32, Shape![1]>::from_vec(vec![4.]).rsqrt().to_vec(), vec![0.5]);
    /// ```
    rsqrt / rsqrt_: Float, |x| x.sqrt().recip();
    /// `sin x`, as `torch.sin`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// assert_eq!(Tensor::<f64, Shape![1]>::zeros().sin().to_vec(), vec![0.0]);
    /// ```
    sin / sin_: Float, |x| x.sin();
    /// `cos x`, as `torch.cos`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// assert_eq!(Tensor::<f64, Shape![1]>::zeros().cos().to_vec(), vec![1.0]);
    /// ```
    cos / cos_: Float, |x| x.cos();
    /// `tan x`, as `torch.tan`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// assert_eq!(Tensor::<f64, Shape![1]>::zeros().tan().to_vec(), vec![0.0]);
    /// ```
    tan / tan_: Float, |x| x.tan();
    /// `tanh x`, as `torch.tanh`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// assert_eq!(Tensor::<f64, Shape![1]>::zeros().tanh().to_vec(), vec![0.0]);
    /// ```
    tanh / tanh_: Float, |x| x.tanh();
    /// `1 / (1 + e^-x)`, as `torch.sigmoid`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// assert_eq!(Tensor::<f32, Shape![1]>::zeros().sigmoid().to_vec(), vec![0.5]);
    /// ```
    sigmoid / sigmoid_: Float, |x| scalar::sigmoid(x);
    /// `x Φ(x)` with the exact normal CDF, as `torch.nn.functional.gelu`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let g = Tensor::<f64, Shape![1]>::ones().gelu().to_vec()[0];
    /// assert!((g - 0.8413447460685429).abs() < 1e-15);
    /// ```
    gelu / gelu_: Float, |x| scalar::gelu(x);
    /// `x σ(x)`, as `torch.nn.functional.silu`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// assert_eq!(Tensor::<f32, Shape![1]>::zeros().silu().to_vec(), vec![0.]);
    /// ```
    silu / silu_: Float, |x| x * scalar::sigmoid(x);
    /// Rounds down, as `torch.floor`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// assert_eq!(Tensor::<f32, Shape![2]>::from_vec(vec![-1.5, 1.5]).floor().to_vec(), vec![-2., 1.]);
    /// ```
    floor / floor_: Float, |x| x.floor();
    /// Rounds up, as `torch.ceil`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// assert_eq!(Tensor::<f32, Shape![2]>::from_vec(vec![-1.5, 1.5]).ceil().to_vec(), vec![-1., 2.]);
    /// ```
    ceil / ceil_: Float, |x| x.ceil();
    /// Rounds half to even, as `torch.round`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// assert_eq!(Tensor::<f32, Shape![3]>::from_vec(vec![0.5, 1.5, 2.5]).round().to_vec(), vec![0., 2., 2.]);
    /// ```
    round / round_: Float, |x| scalar::round_half_even(x);
    /// Rounds toward zero, as `torch.trunc`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// assert_eq!(Tensor::<f32, Shape![2]>::from_vec(vec![-1.5, 1.5]).trunc().to_vec(), vec![-1., 1.]);
    /// ```
    trunc / trunc_: Float, |x| x.trunc();
    /// `1 / x`, as `torch.reciprocal`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// assert_eq!(Tensor::<f32, Shape![1]>::from_vec(vec![4.]).reciprocal().to_vec(), vec![0.25]);
    /// ```
    reciprocal / reciprocal_: Float, |x| x.recip();
}
