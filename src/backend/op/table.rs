//! The op table: every built-in pointwise operation, defined once, with
//! its Rust scalar function, its CUDA C expression and its derivative.
//! Users reach it as `shaped::ops::table`, whose page (`ops/table.rs`)
//! says how the backends use it; it lives beside the op traits it
//! implements, so that the backends name it without reaching up into the
//! tensor layer.

use super::scalar;
use crate::backend::op::{Derivative, Family, Map1, Map2, Map3, Mode, OpDef, Pointwise};
#[allow(unused_imports)]
use crate::element::{Element, Float, Numeric, Signed};

/// Defines the table: one type per operation, its [`Pointwise`] description
/// and its `Map1`/`Map2`/`Map3` implementation, then [`POINTWISE`].
macro_rules! pointwise_table {
    ($(
        $(#[$doc:meta])*
        $kind:ident $Op:ident $name:literal : $fam:ident => $cuda:literal, |$($arg:ident),*| $body:expr $(, grad $grad:ident)?;
    )*) => {
        $($(pointwise_table!(@grad $Op $grad);)?)*
        $(pointwise_table!(@one $kind [
            $(#[$doc])*
            ///
            /// ```
            /// use shaped::backend::op::Pointwise;
            #[doc = concat!("let def = <shaped::ops::table::", stringify!($Op), " as Pointwise>::DEF;")]
            #[doc = concat!("assert_eq!((def.name, def.cuda), (", stringify!($name), ", ", stringify!($cuda), "));")]
            /// ```
        ] $Op $name $fam $cuda |$($arg),*| $body);)*

        /// Every built-in pointwise operation's description, in table order
        /// (the CUDA backend's kernel list is generated from it).
        pub const POINTWISE: &[OpDef] = &[$(<$Op as Pointwise>::DEF),*];

        /// The Rust side of the op named `name` on one element of type `ty`
        /// (`Element::NAME`; one of the types the CUDA backend stores), its
        /// operands `a`, `b`, `c` and scalar parameter `s` given as `f64`
        /// (`bool` as 0 or 1) and its result returned so; `None` when the
        /// op does not take `ty`. For `tests/op_table.rs`, which compares it
        /// with the op's CUDA expression compiled for the host.
        #[doc(hidden)]
        pub fn reference(name: &str, ty: &str, args: [f64; 4]) -> Option<f64> {
            $(if name == $name {
                return pointwise_table!(@ref $kind $Op $fam ty args);
            })*
            None
        }
    };

    // A derivative that is zero wherever it exists.
    (@grad $Op:ident ZeroBackward) => {
        impl Derivative for $Op {
            type Backward = ZeroBackward;
            const ZERO: bool = true;
        }
    };
    (@grad $Op:ident $Back:ident) => {
        impl Derivative for $Op {
            type Backward = $Back;
        }
    };

    (@ref unary $Op:ident $fam:ident $ty:ident $args:ident) => {
        for_family!($fam, $ty, T => back(<$Op as Map1<T>>::call(&$Op, el::<T>($args[0]))))
    };
    (@ref unary_s $Op:ident $fam:ident $ty:ident $args:ident) => {
        for_family!($fam, $ty, T => back(<$Op<T> as Map1<T>>::call(&$Op(el::<T>($args[3])), el::<T>($args[0]))))
    };
    (@ref binary $Op:ident $fam:ident $ty:ident $args:ident) => {
        for_family!($fam, $ty, T => back(<$Op as Map2<T>>::call(&$Op, el::<T>($args[0]), el::<T>($args[1]))))
    };
    (@ref compare $Op:ident $fam:ident $ty:ident $args:ident) => {
        for_family!($fam, $ty, T => back(<$Op as Map2<T>>::call(&$Op, el::<T>($args[0]), el::<T>($args[1]))))
    };
    (@ref binary_s $Op:ident $fam:ident $ty:ident $args:ident) => {
        for_family!($fam, $ty, T => back(<$Op<T> as Map2<T>>::call(&$Op(el::<T>($args[3])), el::<T>($args[0]), el::<T>($args[1]))))
    };
    (@ref ternary $Op:ident $fam:ident $ty:ident $args:ident) => {
        for_family!($fam, $ty, T => back(<$Op as Map3<T, T>>::call(&$Op, el::<T>($args[0]), el::<T>($args[1]), el::<T>($args[2]))))
    };
    (@ref ternary_s $Op:ident $fam:ident $ty:ident $args:ident) => {
        for_family!($fam, $ty, T => back(<$Op<T> as Map3<T, T>>::call(&$Op(el::<T>($args[3])), el::<T>($args[0]), el::<T>($args[1]), el::<T>($args[2]))))
    };
    (@ref select $Op:ident $fam:ident $ty:ident $args:ident) => {
        for_family!($fam, $ty, T => back(<$Op as Map3<bool, T>>::call(&$Op, el::<bool>($args[0]), el::<T>($args[1]), el::<T>($args[2]))))
    };

    (@def $name:literal $arity:literal $fam:ident $cuda:literal $bool_out:literal $bool_first:literal $uses_s:literal) => {
        OpDef {
            name: $name,
            arity: $arity,
            family: Family::$fam,
            bool_out: $bool_out,
            bool_first: $bool_first,
            uses_scalar: $uses_s,
            cuda: $cuda,
            mode: Mode::Tensors,
        }
    };

    (@one unary [$($doc:tt)*] $Op:ident $name:literal $fam:ident $cuda:literal |$a:ident| $body:expr) => {
        $($doc)*
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $Op;
        impl Pointwise for $Op {
            const DEF: OpDef = pointwise_table!(@def $name 1 $fam $cuda false false false);
        }
        impl<T: $fam> Map1<T> for $Op {
            #[inline(always)]
            fn call(&self, $a: T) -> T {
                $body
            }
        }
    };

    (@one unary_s [$($doc:tt)*] $Op:ident $name:literal $fam:ident $cuda:literal |$a:ident, $s:ident| $body:expr) => {
        $($doc)*
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $Op<T = f64>(pub T);
        impl<T: Element> Pointwise for $Op<T> {
            const DEF: OpDef = pointwise_table!(@def $name 1 $fam $cuda false false true);
        }
        impl<T: $fam> Map1<T> for $Op<T> {
            #[inline(always)]
            fn call(&self, $a: T) -> T {
                let $s = self.0;
                $body
            }
            fn scalar(&self) -> T {
                self.0
            }
        }
    };

    (@one binary [$($doc:tt)*] $Op:ident $name:literal $fam:ident $cuda:literal |$a:ident, $b:ident| $body:expr) => {
        $($doc)*
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $Op;
        impl Pointwise for $Op {
            const DEF: OpDef = pointwise_table!(@def $name 2 $fam $cuda false false false);
        }
        impl<T: $fam> Map2<T> for $Op {
            type Out = T;
            #[inline(always)]
            fn call(&self, $a: T, $b: T) -> T {
                $body
            }
        }
    };

    (@one compare [$($doc:tt)*] $Op:ident $name:literal $fam:ident $cuda:literal |$a:ident, $b:ident| $body:expr) => {
        $($doc)*
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $Op;
        impl Pointwise for $Op {
            const DEF: OpDef = pointwise_table!(@def $name 2 $fam $cuda true false false);
        }
        impl<T: $fam> Map2<T> for $Op {
            type Out = bool;
            #[inline(always)]
            fn call(&self, $a: T, $b: T) -> bool {
                $body
            }
        }
    };

    (@one binary_s [$($doc:tt)*] $Op:ident $name:literal $fam:ident $cuda:literal |$a:ident, $b:ident, $s:ident| $body:expr) => {
        $($doc)*
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $Op<T = f64>(pub T);
        impl<T: Element> Pointwise for $Op<T> {
            const DEF: OpDef = pointwise_table!(@def $name 2 $fam $cuda false false true);
        }
        impl<T: $fam> Map2<T> for $Op<T> {
            type Out = T;
            #[inline(always)]
            fn call(&self, $a: T, $b: T) -> T {
                let $s = self.0;
                $body
            }
            fn scalar(&self) -> T {
                self.0
            }
        }
    };

    (@one ternary [$($doc:tt)*] $Op:ident $name:literal $fam:ident $cuda:literal |$a:ident, $b:ident, $c:ident| $body:expr) => {
        $($doc)*
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $Op;
        impl Pointwise for $Op {
            const DEF: OpDef = pointwise_table!(@def $name 3 $fam $cuda false false false);
        }
        impl<T: $fam> Map3<T, T> for $Op {
            #[inline(always)]
            fn call(&self, $a: T, $b: T, $c: T) -> T {
                $body
            }
        }
    };

    (@one ternary_s [$($doc:tt)*] $Op:ident $name:literal $fam:ident $cuda:literal |$a:ident, $b:ident, $c:ident, $s:ident| $body:expr) => {
        $($doc)*
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $Op<T = f64>(pub T);
        impl<T: Element> Pointwise for $Op<T> {
            const DEF: OpDef = pointwise_table!(@def $name 3 $fam $cuda false false true);
        }
        impl<T: $fam> Map3<T, T> for $Op<T> {
            #[inline(always)]
            fn call(&self, $a: T, $b: T, $c: T) -> T {
                let $s = self.0;
                $body
            }
            fn scalar(&self) -> T {
                self.0
            }
        }
    };

    (@one select [$($doc:tt)*] $Op:ident $name:literal $fam:ident $cuda:literal |$a:ident, $b:ident, $c:ident| $body:expr) => {
        $($doc)*
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $Op;
        impl Pointwise for $Op {
            const DEF: OpDef = pointwise_table!(@def $name 3 $fam $cuda false true false);
        }
        impl<T: $fam> Map3<bool, T> for $Op {
            #[inline(always)]
            fn call(&self, $a: bool, $b: T, $c: T) -> T {
                $body
            }
        }
    };
}

/// Evaluates `$e` with `$T` bound to the element type named `$ty`, for
/// each type of the family that the CUDA backend stores.
macro_rules! for_family {
    (@types [$($name:literal $t:ty),*] $ty:ident, $T:ident => $e:expr) => {
        match $ty {
            $($name => {
                type $T = $t;
                Some($e)
            })*
            _ => None,
        }
    };
    (Float, $ty:ident, $T:ident => $e:expr) => {
        for_family!(@types ["float32" f32, "float64" f64] $ty, $T => $e)
    };
    (Signed, $ty:ident, $T:ident => $e:expr) => {
        for_family!(@types ["float32" f32, "float64" f64, "int32" i32, "int64" i64] $ty, $T => $e)
    };
    (Numeric, $ty:ident, $T:ident => $e:expr) => {
        for_family!(@types ["float32" f32, "float64" f64, "int32" i32, "int64" i64, "uint8" u8] $ty, $T => $e)
    };
    (Element, $ty:ident, $T:ident => $e:expr) => {
        for_family!(@types ["float32" f32, "float64" f64, "int32" i32, "int64" i64, "uint8" u8, "bool" bool] $ty, $T => $e)
    };
}

/// An element type the CUDA backend stores, read from and written to the
/// `f64` of [`reference`].
trait HostValue: Copy {
    fn from_f64(x: f64) -> Self;
    fn to_f64(self) -> f64;
}

macro_rules! host_value {
    ($($t:ty),*) => {$(
        impl HostValue for $t {
            fn from_f64(x: f64) -> Self {
                x as $t
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
        }
    )*};
}
host_value!(f32, f64, i32, i64, u8);

impl HostValue for bool {
    fn from_f64(x: f64) -> Self {
        x != 0.0
    }
    fn to_f64(self) -> f64 {
        if self { 1.0 } else { 0.0 }
    }
}

fn el<T: HostValue>(x: f64) -> T {
    T::from_f64(x)
}

fn back<T: HostValue>(x: T) -> f64 {
    x.to_f64()
}

/// `-x` for floats (so `-0.0` stays signed), `0 - x` wrapping for integers
/// (`-MIN` is `MIN`, as PyTorch).
#[inline(always)]
fn neg<T: Signed>(x: T) -> T {
    if T::IS_FLOAT { -x } else { T::zero().wsub(x) }
}

/// `|x|`: `abs(-0.0)` is `0.0`; `abs(MIN)` wraps to `MIN`, as PyTorch.
#[inline(always)]
fn abs<T: Signed>(x: T) -> T {
    if T::IS_FLOAT {
        x.abs()
    } else if x < T::zero() {
        T::zero().wsub(x)
    } else {
        x
    }
}

/// Rust's `/` with the crate's integer rule: true division for floats,
/// truncating division for integers (`MIN / -1` wraps to `MIN`).
#[inline(always)]
fn quot<T: Numeric>(x: T, y: T) -> T {
    if T::IS_FLOAT {
        x / y
    } else {
        scalar::div_trunc(x, y)
    }
}

/// `1/√(2π)`.
const FRAC_1_SQRT_2PI: f64 = 0.398_942_280_401_432_7;

/// The exact GELU's gradient, `g (Φ(x) + x φ(x))`.
#[inline(always)]
fn gelu_backward<T: Float>(g: T, x: T) -> T {
    let cdf = T::from_f64(0.5) * (T::one() + scalar::erf(x * T::FRAC_1_SQRT_2()));
    let pdf = T::from_f64(FRAC_1_SQRT_2PI) * scalar::exp(-x * x * T::from_f64(0.5));
    g * (cdf + x * pdf)
}

/// SiLU's gradient, `g σ(x) (1 + x (1 - σ(x)))`.
#[inline(always)]
fn silu_backward<T: Float>(g: T, x: T) -> T {
    let s = scalar::sigmoid(x);
    g * s * (T::one() + x * (T::one() - s))
}

/// PyTorch's lerp: from the nearer end, so that `weight = 1` gives `end`
/// exactly.
#[inline(always)]
fn lerp<T: Float>(start: T, end: T, w: T) -> T {
    let half = T::from_f64(0.5);
    if w.abs() < half {
        start + w * (end - start)
    } else {
        end - (end - start) * (T::one() - w)
    }
}

/// The table's entries, handed to the macro `$m`: this file defines the
/// ops from them (`pointwise_table`), and each backend that compiles
/// instances of them reads the same list (the CPU's `f32` loops,
/// `backend/cpu/table_f32.rs`), so that a new entry reaches every reader.
macro_rules! pointwise_entries {
    ($m:ident) => {
        $m! {
            /// The identity: copies, materialised views and broadcasts.
            unary Identity "copy": Element => "a", |a| a;

            /// The scalar parameter, whatever the element: `fill_`.
            unary_s Fill "fill": Element => "s", |_a, s| s;

            /// `-x`, as `torch.neg` (integers wrap).
            unary Neg "neg": Signed => "sh_neg(a)", |a| neg(a), grad NegBackward;
            /// `|x|`, as `torch.abs`.
            unary Abs "abs": Signed => "sh_abs(a)", |a| abs(a), grad AbsBackward;
            /// -1, 0 or 1, as `torch.sign` (NaN gives 0).
            unary Sign "sign": Numeric => "(a > (T)0 ? (T)1 : (a < (T)0 ? (T)-1 : (T)0))", |a| scalar::sign(a), grad ZeroBackward;
            /// `x * x`, as `torch.square`.
            unary Square "square": Numeric => "sh_wmul(a, a)", |a| a.wmul(a), grad SquareBackward;
            /// `max(x, 0)`, as `torch.relu` (NaN stays NaN).
            unary Relu "relu": Numeric => "(a < (T)0 ? (T)0 : a)", |a| if a < T::zero() { T::zero() } else { a }, grad ReluBackward;
            /// `e^x`, as `torch.exp`.
            unary Exp "exp": Float => "exp(a)", |a| scalar::exp(a), grad ExpBackward;
            /// `ln x`, as `torch.log`.
            unary Log "log": Float => "log(a)", |a| scalar::log(a), grad LogBackward;
            /// `ln(1 + x)`, as `torch.log1p`.
            unary Log1p "log1p": Float => "log1p(a)", |a| scalar::log1p(a), grad Log1pBackward;
            /// `e^x - 1`, as `torch.expm1`.
            unary Expm1 "expm1": Float => "expm1(a)", |a| scalar::expm1(a), grad Expm1Backward;
            /// `√x`, as `torch.sqrt`.
            unary Sqrt "sqrt": Float => "sqrt(a)", |a| a.sqrt(), grad SqrtBackward;
            /// `1 / √x`, as `torch.rsqrt`.
            unary Rsqrt "rsqrt": Float => "(T)1 / sqrt(a)", |a| a.sqrt().recip(), grad RsqrtBackward;
            /// `sin x`, as `torch.sin`.
            unary Sin "sin": Float => "sin(a)", |a| scalar::sin(a), grad SinBackward;
            /// `cos x`, as `torch.cos`.
            unary Cos "cos": Float => "cos(a)", |a| scalar::cos(a), grad CosBackward;
            /// `tan x`, as `torch.tan`.
            unary Tan "tan": Float => "tan(a)", |a| scalar::tan(a), grad TanBackward;
            /// `tanh x`, as `torch.tanh`.
            unary Tanh "tanh": Float => "tanh(a)", |a| scalar::tanh(a), grad TanhBackward;
            /// `1 / (1 + e^-x)`, as `torch.sigmoid`.
            unary Sigmoid "sigmoid": Float => "(T)1 / ((T)1 + exp(-a))", |a| scalar::sigmoid(a), grad SigmoidBackward;
            /// The exact GELU, `x Φ(x)`, as `torch.nn.functional.gelu`.
            unary Gelu "gelu": Float => "a * (T)0.5 * ((T)1 + erf(a * (T)0.70710678118654752440))", |a| scalar::gelu(a), grad GeluBackward;
            /// `x σ(x)`, as `torch.nn.functional.silu`.
            unary Silu "silu": Float => "a * ((T)1 / ((T)1 + exp(-a)))", |a| a * scalar::sigmoid(a), grad SiluBackward;
            /// Rounds down, as `torch.floor`.
            unary Floor "floor": Float => "floor(a)", |a| a.floor(), grad ZeroBackward;
            /// Rounds up, as `torch.ceil`.
            unary Ceil "ceil": Float => "ceil(a)", |a| a.ceil(), grad ZeroBackward;
            /// Rounds half to even, as `torch.round`.
            unary Round "round": Float => "rint(a)", |a| scalar::round_half_even(a), grad ZeroBackward;
            /// Rounds toward zero, as `torch.trunc`.
            unary Trunc "trunc": Float => "trunc(a)", |a| a.trunc(), grad ZeroBackward;
            /// `1 / x`, as `torch.reciprocal`.
            unary Reciprocal "reciprocal": Float => "(T)1 / a", |a| a.recip(), grad ReciprocalBackward;
            /// `x tanh(softplus(x))`, as `torch.nn.functional.mish`.
            unary Mish "mish": Float => "a * tanh(log1p(exp(a)))", |a| a * scalar::tanh(scalar::log1p(scalar::exp(a))), grad MishBackward;
            /// `ln(1 + e^x)`, and `x` itself above 20, as
            /// `torch.nn.functional.softplus` with its defaults (`beta = 1`,
            /// `threshold = 20`).
            unary Softplus "softplus": Float => "(a > (T)20 ? a : log1p(exp(a)))", |a| if a > T::from_f64(20.0) { a } else { scalar::log1p(scalar::exp(a)) }, grad SoftplusBackward;

            /// `a + b`, as `torch.add` (integers wrap).
            binary Add "add": Numeric => "sh_wadd(a, b)", |a, b| a.wadd(b);
            /// `a - b`, as `torch.sub`.
            binary Sub "sub": Numeric => "sh_wsub(a, b)", |a, b| a.wsub(b);
            /// `a * b`, as `torch.mul`.
            binary Mul "mul": Numeric => "sh_wmul(a, b)", |a, b| a.wmul(b);
            /// True division, as `torch.div` on floats.
            binary Div "div": Float => "a / b", |a, b| a / b;
            /// Rust's `/`: true division for floats, truncating for integers (the
            /// `/` operator).
            binary Quot "quot": Numeric => "sh_quot(a, b)", |a, b| quot(a, b);
            /// Division rounded toward zero, as `torch.div(.., rounding_mode="trunc")`.
            binary DivTrunc "div_trunc": Numeric => "sh_div_trunc(a, b)", |a, b| scalar::div_trunc(a, b);
            /// Division rounded toward negative infinity, as `torch.div(.., rounding_mode="floor")`.
            binary DivFloor "div_floor": Numeric => "sh_div_floor(a, b)", |a, b| scalar::div_floor(a, b);
            /// The remainder with the dividend's sign, as `torch.fmod`.
            binary Fmod "fmod": Numeric => "sh_fmod(a, b)", |a, b| scalar::fmod(a, b);
            /// The remainder with the divisor's sign, as `torch.remainder`.
            binary Remainder "remainder": Numeric => "sh_remainder(a, b)", |a, b| scalar::remainder(a, b);
            /// `a ^ b`, as `torch.pow` (integers by repeated squaring, wrapping).
            binary Pow "pow": Numeric => "sh_pow(a, b)", |a, b| scalar::pow(a, b);
            /// The four-quadrant arctangent of `a / b`, as `torch.atan2`.
            binary Atan2 "atan2": Float => "atan2(a, b)", |a, b| scalar::atan2(a, b);
            /// The larger, NaN if either is NaN, as `torch.maximum`.
            binary Maximum "maximum": Numeric => "sh_maximum(a, b)", |a, b| scalar::maximum(a, b);
            /// The smaller, NaN if either is NaN, as `torch.minimum`.
            binary Minimum "minimum": Numeric => "sh_minimum(a, b)", |a, b| scalar::minimum(a, b);
            /// `max(a, b)` keeping a NaN `a`, as `torch.clamp_min`.
            binary ClampMin "clamp_min": Numeric => "(a < b ? b : a)", |a, b| if a < b { b } else { a };
            /// `min(a, b)` keeping a NaN `a`, as `torch.clamp_max`.
            binary ClampMax "clamp_max": Numeric => "(a > b ? b : a)", |a, b| if a > b { b } else { a };

            /// The right operand, broadcast to the left's sizes: `copy_`.
            binary CopyFrom "copy_from": Element => "b", |_a, b| b;

            /// `a + s * b`, as `torch.add(a, b, alpha=s)`.
            binary_s AddAlpha "add_alpha": Numeric => "sh_wadd(a, sh_wmul(s, b))", |a, b, s| a.wadd(s.wmul(b));
            /// `a - s * b`, as `torch.sub(a, b, alpha=s)`.
            binary_s SubAlpha "sub_alpha": Numeric => "sh_wsub(a, sh_wmul(s, b))", |a, b, s| a.wsub(s.wmul(b));
            /// `lerp(a, b, s)` with a scalar weight, as `torch.lerp(a, b, s)`.
            binary_s LerpScalar "lerp_scalar": Float => "sh_lerp(a, b, s)", |a, b, s| lerp(a, b, s);

            /// `a == b`, as `torch.eq`.
            compare Equal "eq": Element => "a == b", |a, b| a == b;
            /// `a != b`, as `torch.ne`.
            compare NotEqual "ne": Element => "a != b", |a, b| a != b;
            /// `a < b`, as `torch.lt`.
            compare Less "lt": Element => "a < b", |a, b| a < b;
            /// `a <= b`, as `torch.le`.
            compare LessEqual "le": Element => "a <= b", |a, b| a <= b;
            /// `a > b`, as `torch.gt`.
            compare Greater "gt": Element => "a > b", |a, b| a > b;
            /// `a >= b`, as `torch.ge`.
            compare GreaterEqual "ge": Element => "a >= b", |a, b| a >= b;
            /// Both nonzero, as `torch.logical_and`.
            compare LogicalAnd "logical_and": Element => "(a != (T)0) && (b != (T)0)", |a, b| a != T::default() && b != T::default();
            /// Either nonzero, as `torch.logical_or`.
            compare LogicalOr "logical_or": Element => "(a != (T)0) || (b != (T)0)", |a, b| a != T::default() || b != T::default();
            /// Exactly one nonzero, as `torch.logical_xor`.
            compare LogicalXor "logical_xor": Element => "(a != (T)0) != (b != (T)0)", |a, b| (a != T::default()) != (b != T::default());

            /// `a + s * b * c`, as `torch.addcmul`.
            ternary_s Addcmul "addcmul": Numeric => "sh_wadd(a, sh_wmul(s, sh_wmul(b, c)))", |a, b, c, s| a.wadd(s.wmul(b.wmul(c)));
            /// `a + s * b / c`, as `torch.addcdiv` (PyTorch's CPU kernel's order).
            ternary_s Addcdiv "addcdiv": Float => "a + s * b / c", |a, b, c, s| a + s * b / c;
            /// `lerp(a, b, c)`, as `torch.lerp` with a tensor weight.
            ternary Lerp "lerp": Float => "sh_lerp(a, b, c)", |a, b, c| lerp(a, b, c);
            /// `min(max(a, b), c)`, as `torch.clamp` with tensor bounds.
            ternary Clamp "clamp": Numeric => "sh_clamp(a, b, c)", |a, b, c| scalar::clamp(a, b, c);
            // The derivatives of the one-operand ops, as PyTorch's `*_backward`
            // kernels: the upstream gradient `a`, the input `b`, the result `c`.

            /// `0`: the gradient of the ops that are piecewise constant (rounding,
            /// `sign`), zero wherever it exists, as PyTorch gives.
            ternary ZeroBackward "zero_backward": Float => "(T)0", |_g, _x, _y| T::zero();
            /// `-g`: the gradient of `neg`.
            ternary NegBackward "neg_backward": Float => "-a", |g, _x, _y| -g;
            /// `g sign(x)`: the gradient of `abs` (0 at 0, as PyTorch's `sgn`).
            ternary AbsBackward "abs_backward": Float => "a * (b > (T)0 ? (T)1 : (b < (T)0 ? (T)-1 : (T)0))", |g, x, _y| g * scalar::sign(x);
            /// `g y`: the gradient of `exp`.
            ternary ExpBackward "exp_backward": Float => "a * c", |g, _x, y| g * y;
            /// `g / x`: the gradient of `log`.
            ternary LogBackward "log_backward": Float => "a / b", |g, x, _y| g / x;
            /// `g / (1 + x)`: the gradient of `log1p`.
            ternary Log1pBackward "log1p_backward": Float => "a / ((T)1 + b)", |g, x, _y| g / (T::one() + x);
            /// `g (y + 1)`: the gradient of `expm1`.
            ternary Expm1Backward "expm1_backward": Float => "a * (c + (T)1)", |g, _x, y| g * (y + T::one());
            /// `g / 2y`: the gradient of `sqrt`.
            ternary SqrtBackward "sqrt_backward": Float => "a / (c + c)", |g, _x, y| g / (y + y);
            /// `-g y³ / 2`: the gradient of `rsqrt`.
            ternary RsqrtBackward "rsqrt_backward": Float => "-a * c * c * c * (T)0.5", |g, _x, y| -g * y * y * y * T::from_f64(0.5);
            /// `g cos x`: the gradient of `sin`.
            ternary SinBackward "sin_backward": Float => "a * cos(b)", |g, x, _y| g * scalar::cos(x);
            /// `-g sin x`: the gradient of `cos`.
            ternary CosBackward "cos_backward": Float => "-a * sin(b)", |g, x, _y| -g * scalar::sin(x);
            /// `g (1 + y²)`: the gradient of `tan`.
            ternary TanBackward "tan_backward": Float => "a * ((T)1 + c * c)", |g, _x, y| g * (T::one() + y * y);
            /// `g (1 - y²)`: the gradient of `tanh`.
            ternary TanhBackward "tanh_backward": Float => "a * ((T)1 - c * c)", |g, _x, y| g * (T::one() - y * y);
            /// `g y (1 - y)`: the gradient of `sigmoid`.
            ternary SigmoidBackward "sigmoid_backward": Float => "a * c * ((T)1 - c)", |g, _x, y| g * y * (T::one() - y);
            /// `g` where `y > 0`, else 0: the gradient of `relu`.
            ternary ReluBackward "relu_backward": Float => "(c > (T)0 ? a : (T)0)", |g, _x, y| if y > T::zero() { g } else { T::zero() };
            /// `g (Φ(x) + x φ(x))`: the gradient of the exact GELU.
            ternary GeluBackward "gelu_backward": Float => "a * ((T)0.5 * ((T)1 + erf(b * (T)0.70710678118654752440)) + b * ((T)0.398942280401432677940 * exp(-b * b * (T)0.5)))", |g, x, _y| gelu_backward(g, x);
            /// `g σ(x) (1 + x (1 - σ(x)))`: the gradient of `silu`.
            ternary SiluBackward "silu_backward": Float => "a * ((T)1 / ((T)1 + exp(-b))) * ((T)1 + b * ((T)1 - (T)1 / ((T)1 + exp(-b))))", |g, x, _y| silu_backward(g, x);
            /// `2 g x`: the gradient of `square`.
            ternary SquareBackward "square_backward": Float => "a * (b + b)", |g, x, _y| g * (x + x);
            /// `-g y²`: the gradient of `reciprocal`.
            ternary ReciprocalBackward "reciprocal_backward": Float => "-a * c * c", |g, _x, y| -g * y * y;
            /// `g (t + x σ(x) (1 - t²))` with `t = tanh(softplus(x))`: the
            /// gradient of `mish`, as PyTorch's `mish_backward`.
            ternary MishBackward "mish_backward": Float => "a * (tanh(log1p(exp(b))) + b * ((T)1 / ((T)1 + exp(-b))) * ((T)1 - tanh(log1p(exp(b))) * tanh(log1p(exp(b)))))", |g, x, _y| {
                let t = scalar::tanh(scalar::log1p(scalar::exp(x)));
                g * (t + x * scalar::sigmoid(x) * (T::one() - t * t))
            };
            /// `g σ(x)`, and `g` above 20: the gradient of `softplus`, as
            /// PyTorch's `softplus_backward`.
            ternary SoftplusBackward "softplus_backward": Float => "(b > (T)20 ? a : a / ((T)1 + exp(-b)))", |g, x, _y| if x > T::from_f64(20.0) { g } else { g * scalar::sigmoid(x) };
            // The derivatives of the two- and three-operand ops with respect to
            // one operand: the upstream gradient `a`, then the operands it needs.
            /// `-g x / y²`: the gradient of `x / y` with respect to `y`.
            ternary DivBackwardOther "div_backward_other": Float => "-a * b / (c * c)", |g, x, y| -g * x / (y * y);
            /// `g y x^(y-1)`, 0 where `y` is 0: the gradient of `x ^ y` with respect to `x`.
            ternary PowBackwardSelf "pow_backward_self": Float => "(c == (T)0 ? (T)0 : a * c * pow(b, c - (T)1))", |g, x, y| if y == T::zero() { T::zero() } else { g * y * scalar::pow(x, y - T::one()) };
            /// `g x^y ln x`, 0 where `x` is 0 and `y >= 0` (as PyTorch): the gradient of `x ^ y` with respect to `y`.
            ternary PowBackwardExponent "pow_backward_exponent": Float => "((b == (T)0 && c >= (T)0) ? (T)0 : a * pow(b, c) * log(b))", |g, x, y| if x == T::zero() && y >= T::zero() { T::zero() } else { g * scalar::pow(x, y) * scalar::log(x) };
            /// `g` where `x > y`, `g / 2` where they tie, else 0: the gradient of `maximum(x, y)` with respect to `x` (and, operands swapped, to `y`).
            ternary MaximumBackward "maximum_backward": Float => "(b == c ? a * (T)0.5 : (b > c ? a : (T)0))", |g, x, y| if x == y { g * T::from_f64(0.5) } else if x > y { g } else { T::zero() };
            /// `g` unless `x > y`, `g / 2` where they tie: the gradient of `minimum(x, y)` with respect to `x` (and, operands swapped, to `y`).
            ternary MinimumBackward "minimum_backward": Float => "(b == c ? a * (T)0.5 : (b > c ? (T)0 : a))", |g, x, y| if x == y { g * T::from_f64(0.5) } else if x > y { T::zero() } else { g };
            /// `g y / (x² + y²)`: the gradient of `atan2(x, y)` with respect to `x`.
            ternary Atan2BackwardSelf "atan2_backward_self": Float => "a * c / (b * b + c * c)", |g, x, y| g * y / (x * x + y * y);
            /// `-g x / (x² + y²)`: the gradient of `atan2(x, y)` with respect to `y`.
            ternary Atan2BackwardOther "atan2_backward_other": Float => "-a * b / (b * b + c * c)", |g, x, y| -g * x / (x * x + y * y);
            /// `g s y`: the gradient of `addcmul(_, x, y, s)` with respect to `x` (and, with `x`, to `y`).
            binary_s AddcmulBackward "addcmul_backward": Float => "a * s * b", |g, y, s| g * s * y;
            /// `g s / y`: the gradient of `addcdiv(_, x, y, s)` with respect to `x`.
            binary_s AddcdivBackwardTensor1 "addcdiv_backward_tensor1": Float => "a * s / b", |g, y, s| g * s / y;
            /// `-g s x / y²`: the gradient of `addcdiv(_, x, y, s)` with respect to `y`.
            ternary_s AddcdivBackwardTensor2 "addcdiv_backward_tensor2": Float => "-a * s * b / (c * c)", |g, x, y, s| -g * s * x / (y * y);
            /// `g (1 - w)`: the gradient of `lerp(start, end, w)` with respect to `start`.
            binary LerpBackwardSelf "lerp_backward_self": Float => "a * ((T)1 - b)", |g, w| g * (T::one() - w);
            /// `g (end - start)`: the gradient of `lerp(start, end, w)` with respect to `w`.
            ternary LerpBackwardWeight "lerp_backward_weight": Float => "a * (c - b)", |g, x, e| g * (e - x);

            /// `b` where `a` holds, else `c`, as `torch.where(a, b, c)`.
            select Where "where": Element => "(a ? b : c)", |a, b, c| if a { b } else { c };
        }
    };
}
pub(crate) use pointwise_entries;

pointwise_entries!(pointwise_table);
