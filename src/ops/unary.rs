//! One-operand pointwise operations on every device, one line each naming
//! its op-table entry (`table.rs`), with an out-of-place form `op()`, its
//! fallible form `try_op()` and an in-place form `op_()`.
//!
//! ```
//! use shaped::{Shape, Tensor};
//! let mut t = Tensor::<f32, Shape![3]>::from_vec(vec![-1., 0., 2.]);
//! assert_eq!(t.relu().to_vec(), vec![0., 0., 2.]);
//! t.square_();
//! assert_eq!(t.to_vec(), vec![1., 0., 4.]);
//! ```

use crate::Tensor;
use crate::backend::Backend;
use crate::backend::op::table;
use crate::element::{Float, Numeric, Signed};
use crate::shape::OrPanic;
use crate::shape::Shape;
use crate::tensor::pointwise;

macro_rules! unary_ops {
    ($(
        $(#[$doc:meta])*
        $name:ident / $try_name:ident / $name_:ident : $bound:ident, $Op:ident;
    )*) => {$(
        impl<T: $bound, S: Shape, D: Backend<T>> Tensor<T, S, D> {
            $(#[$doc])*
            ///
            /// # Panics
            /// When the result cannot be allocated, or on a driver error.
            #[track_caller]
            pub fn $name(&self) -> Tensor<T, S, D> {
                self.$try_name().or_panic()
            }

            #[doc = concat!("The fallible form of [`Tensor::", stringify!($name), "`].")]
            ///
            /// # Errors
            /// When the result cannot be allocated, or a driver error.
            ///
            /// ```
            /// use shaped::{Shape, Tensor};
            /// let t = Tensor::<f32, Shape![2]>::from_vec(vec![0.5, 2.0]);
            #[doc = concat!("assert_eq!(t.", stringify!($try_name), "().unwrap().to_vec(), t.", stringify!($name), "().to_vec());")]
            /// ```
            pub fn $try_name(&self) -> Result<Tensor<T, S, D>, D::Error> {
                pointwise::unary(table::$Op, self)
            }

            #[doc = concat!("[`Tensor::", stringify!($name), "`] in place.")]
            ///
            /// # Panics
            /// When elements of `self` share memory (an expanded view), as
            /// PyTorch refuses, or on a driver error.
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
                pointwise::unary_(table::$Op, self).or_panic()
            }
        }
    )*};
}

/// Calls macro `$m` on the list of one-operand methods: each with its
/// doc, its three names (`op`, `try_op`, `op_`), the element types it takes
/// and its op-table entry. The tensor methods (here), the lazy methods
/// (`fuse/lazy.rs`) and the variables' methods with their gradients
/// (`autograd/unary.rs`, from the entry's [`Derivative`]) are generated from
/// it: a new differentiable op is its table entry (with its derivative) and
/// one line here.
///
/// [`Derivative`]: crate::backend::op::Derivative
macro_rules! unary_op_list {
    ($m:ident) => {
        $m! {
        /// `-x`, as `torch.neg`.
        ///
        /// ```
        /// use shaped::{Shape, Tensor};
        /// assert_eq!(Tensor::<i32, Shape![2]>::from_vec(vec![1, -2]).neg().to_vec(), vec![-1, 2]);
        /// ```
        neg / try_neg / neg_: Signed, Neg;
        /// `|x|`, as `torch.abs`.
        ///
        /// ```
        /// use shaped::{Shape, Tensor};
        /// assert_eq!(Tensor::<i64, Shape![2]>::from_vec(vec![1, -2]).abs().to_vec(), vec![1, 2]);
        /// ```
        abs / try_abs / abs_: Signed, Abs;
        /// `-1`, `0` or `1`, as `torch.sign`.
        ///
        /// ```
        /// use shaped::{Shape, Tensor};
        /// assert_eq!(Tensor::<f32, Shape![3]>::from_vec(vec![-3., 0., 2.]).sign().to_vec(), vec![-1., 0., 1.]);
        /// ```
        sign / try_sign / sign_: Numeric, Sign;
        /// `x * x`, as `torch.square`.
        ///
        /// ```
        /// use shaped::{Shape, Tensor};
        /// assert_eq!(Tensor::<u8, Shape![2]>::from_vec(vec![3, 4]).square().to_vec(), vec![9, 16]);
        /// ```
        square / try_square / square_: Numeric, Square;
        /// `max(x, 0)`, as `torch.relu` (NaN stays NaN).
        ///
        /// ```
        /// use shaped::{Shape, Tensor};
        /// assert_eq!(Tensor::<i32, Shape![2]>::from_vec(vec![-1, 3]).relu().to_vec(), vec![0, 3]);
        /// ```
        relu / try_relu / relu_: Numeric, Relu;
        /// `e^x`, as `torch.exp`.
        ///
        /// ```
        /// use shaped::{Shape, Tensor};
        /// assert_eq!(Tensor::<f64, Shape![1]>::zeros().exp().to_vec(), vec![1.0]);
        /// ```
        exp / try_exp / exp_: Float, Exp;
        /// The natural logarithm, as `torch.log`.
        ///
        /// ```
        /// use shaped::{Shape, Tensor};
        /// assert_eq!(Tensor::<f64, Shape![1]>::ones().log().to_vec(), vec![0.0]);
        /// ```
        log / try_log / log_: Float, Log;
        /// `ln(1 + x)`, accurate near 0, as `torch.log1p`.
        ///
        /// ```
        /// use shaped::{Shape, Tensor};
        /// assert_eq!(Tensor::<f64, Shape![1]>::from_vec(vec![1e-20]).log1p().to_vec(), vec![1e-20]);
        /// ```
        log1p / try_log1p / log1p_: Float, Log1p;
        /// `e^x - 1`, accurate near 0, as `torch.expm1`.
        ///
        /// ```
        /// use shaped::{Shape, Tensor};
        /// assert_eq!(Tensor::<f64, Shape![1]>::from_vec(vec![1e-20]).expm1().to_vec(), vec![1e-20]);
        /// ```
        expm1 / try_expm1 / expm1_: Float, Expm1;
        /// `√x`, as `torch.sqrt` (NaN below 0).
        ///
        /// ```
        /// use shaped::{Shape, Tensor};
        /// assert_eq!(Tensor::<f32, Shape![1]>::from_vec(vec![9.]).sqrt().to_vec(), vec![3.]);
        /// ```
        sqrt / try_sqrt / sqrt_: Float, Sqrt;
        /// `1 / √x`, as `torch.rsqrt`.
        ///
        /// ```
        /// use shaped::{Shape, Tensor};
        /// assert_eq!(Tensor::<f32, Shape![1]>::from_vec(vec![4.]).rsqrt().to_vec(), vec![0.5]);
        /// ```
        rsqrt / try_rsqrt / rsqrt_: Float, Rsqrt;
        /// `sin x`, as `torch.sin`.
        ///
        /// ```
        /// use shaped::{Shape, Tensor};
        /// assert_eq!(Tensor::<f64, Shape![1]>::zeros().sin().to_vec(), vec![0.0]);
        /// ```
        sin / try_sin / sin_: Float, Sin;
        /// `cos x`, as `torch.cos`.
        ///
        /// ```
        /// use shaped::{Shape, Tensor};
        /// assert_eq!(Tensor::<f64, Shape![1]>::zeros().cos().to_vec(), vec![1.0]);
        /// ```
        cos / try_cos / cos_: Float, Cos;
        /// `tan x`, as `torch.tan`.
        ///
        /// ```
        /// use shaped::{Shape, Tensor};
        /// assert_eq!(Tensor::<f64, Shape![1]>::zeros().tan().to_vec(), vec![0.0]);
        /// ```
        tan / try_tan / tan_: Float, Tan;
        /// `tanh x`, as `torch.tanh`.
        ///
        /// ```
        /// use shaped::{Shape, Tensor};
        /// assert_eq!(Tensor::<f64, Shape![1]>::zeros().tanh().to_vec(), vec![0.0]);
        /// ```
        tanh / try_tanh / tanh_: Float, Tanh;
        /// `1 / (1 + e^-x)`, as `torch.sigmoid`.
        ///
        /// ```
        /// use shaped::{Shape, Tensor};
        /// assert_eq!(Tensor::<f32, Shape![1]>::zeros().sigmoid().to_vec(), vec![0.5]);
        /// ```
        sigmoid / try_sigmoid / sigmoid_: Float, Sigmoid;
        /// `x Φ(x)` with the exact normal CDF, as `torch.nn.functional.gelu`.
        ///
        /// ```
        /// use shaped::{Shape, Tensor};
        /// let g = Tensor::<f64, Shape![1]>::ones().gelu().to_vec()[0];
        /// assert!((g - 0.8413447460685429).abs() < 1e-15);
        /// ```
        gelu / try_gelu / gelu_: Float, Gelu;
        /// `x σ(x)`, as `torch.nn.functional.silu`.
        ///
        /// ```
        /// use shaped::{Shape, Tensor};
        /// assert_eq!(Tensor::<f32, Shape![1]>::zeros().silu().to_vec(), vec![0.]);
        /// ```
        silu / try_silu / silu_: Float, Silu;
        /// Rounds down, as `torch.floor`.
        ///
        /// ```
        /// use shaped::{Shape, Tensor};
        /// assert_eq!(Tensor::<f32, Shape![2]>::from_vec(vec![-1.5, 1.5]).floor().to_vec(), vec![-2., 1.]);
        /// ```
        floor / try_floor / floor_: Float, Floor;
        /// Rounds up, as `torch.ceil`.
        ///
        /// ```
        /// use shaped::{Shape, Tensor};
        /// assert_eq!(Tensor::<f32, Shape![2]>::from_vec(vec![-1.5, 1.5]).ceil().to_vec(), vec![-1., 2.]);
        /// ```
        ceil / try_ceil / ceil_: Float, Ceil;
        /// Rounds half to even, as `torch.round`.
        ///
        /// ```
        /// use shaped::{Shape, Tensor};
        /// assert_eq!(Tensor::<f32, Shape![3]>::from_vec(vec![0.5, 1.5, 2.5]).round().to_vec(), vec![0., 2., 2.]);
        /// ```
        round / try_round / round_: Float, Round;
        /// Rounds toward zero, as `torch.trunc`.
        ///
        /// ```
        /// use shaped::{Shape, Tensor};
        /// assert_eq!(Tensor::<f32, Shape![2]>::from_vec(vec![-1.5, 1.5]).trunc().to_vec(), vec![-1., 1.]);
        /// ```
        trunc / try_trunc / trunc_: Float, Trunc;
        /// `1 / x`, as `torch.reciprocal`.
        ///
        /// ```
        /// use shaped::{Shape, Tensor};
        /// assert_eq!(Tensor::<f32, Shape![1]>::from_vec(vec![4.]).reciprocal().to_vec(), vec![0.25]);
        /// ```
        reciprocal / try_reciprocal / reciprocal_: Float, Reciprocal;
        /// `x tanh(softplus(x))`, as `torch.nn.functional.mish`.
        ///
        /// ```
        /// use shaped::{Shape, Tensor};
        /// let m = Tensor::<f64, Shape![2]>::from_vec(vec![0., 1.]).mish().to_vec();
        /// assert_eq!(m[0], 0.);
        /// assert!((m[1] - 0.8650983882673103).abs() < 1e-15);
        /// ```
        mish / try_mish / mish_: Float, Mish;
        /// `ln(1 + e^x)`, and `x` itself above 20, as
        /// `torch.nn.functional.softplus` with its defaults.
        ///
        /// ```
        /// use shaped::{Shape, Tensor};
        /// let s = Tensor::<f64, Shape![3]>::from_vec(vec![0., 1., 30.]).softplus().to_vec();
        /// assert!((s[0] - 2f64.ln()).abs() < 1e-15 && (s[1] - 1.3132616875182228).abs() < 1e-15);
        /// assert_eq!(s[2], 30.);
        /// ```
        softplus / try_softplus / softplus_: Float, Softplus;
            }
    };
}
pub(crate) use unary_op_list;

unary_op_list!(unary_ops);
