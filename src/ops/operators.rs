//! `std::ops` for tensors: `+ - * / %` between tensors (broadcasting, on
//! owned values and references) and with scalars on either side, unary `-`,
//! and the compound assignments `+= -= *= /= %=` (in place: the right-hand
//! side broadcasts to the left-hand side's shape).
//!
//! `/` is true division for floats and truncating division for integers,
//! like Rust's own `/`; `%` is `fmod` (the dividend's sign), like Rust's `%`.
//! Integer division by zero panics, as in Rust.
//!
//! ```
//! use shaped::{Shape, Tensor};
//! let a = Tensor::<f32, Shape![4, 1]>::ones();
//! let b = Tensor::<f32, Shape![4]>::from_vec(vec![1., 2., 3., 4.]);
//! let c: Tensor<f32, Shape![4, 4]> = &a + &b * 2.0;
//! assert_eq!(c.to_vec()[..4], [3., 5., 7., 9.]);
//! let mut d = c;
//! d -= &b;
//! assert_eq!(d.to_vec()[..4], [2., 3., 4., 5.]);
//! ```

use crate::shape::OrPanic;
use core::ops::{
    Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Rem, RemAssign, Sub, SubAssign,
};

use crate::Tensor;
use crate::element::{Numeric, Signed};
use crate::shape::{Broadcast, BroadcastShape, ExpandsTo, Shape, ShapeError};

/// The scalar function behind each operator.
trait ScalarOp<T> {
    fn apply(x: T, y: T) -> T;
    /// Whether a zero right-hand side is an error for integers.
    const DIVIDES: bool = false;
}

struct AddOp;
struct SubOp;
struct MulOp;
struct DivOp;
struct RemOp;

impl<T: Numeric> ScalarOp<T> for AddOp {
    #[inline(always)]
    fn apply(x: T, y: T) -> T {
        x.wadd(y)
    }
}
impl<T: Numeric> ScalarOp<T> for SubOp {
    #[inline(always)]
    fn apply(x: T, y: T) -> T {
        x.wsub(y)
    }
}
impl<T: Numeric> ScalarOp<T> for MulOp {
    #[inline(always)]
    fn apply(x: T, y: T) -> T {
        x.wmul(y)
    }
}
impl<T: Numeric> ScalarOp<T> for DivOp {
    const DIVIDES: bool = true;
    #[inline(always)]
    fn apply(x: T, y: T) -> T {
        x / y
    }
}
impl<T: Numeric> ScalarOp<T> for RemOp {
    const DIVIDES: bool = true;
    #[inline(always)]
    fn apply(x: T, y: T) -> T {
        x % y
    }
}

/// Integer division by zero: the panic Rust gives for integers.
fn check_divisor<T: Numeric, Op: ScalarOp<T>, S: Shape>(
    rhs: &Tensor<T, S>,
) -> Result<(), ShapeError> {
    if Op::DIVIDES && !T::IS_FLOAT && rhs.to_vec().contains(&T::zero()) {
        return Err(ShapeError::Invalid("ZeroDivisionError".into()));
    }
    Ok(())
}

#[track_caller]
fn tensor_op<T: Numeric, Op: ScalarOp<T>, S, S2: Shape>(
    a: &Tensor<T, S>,
    b: &Tensor<T, S2>,
) -> Tensor<T, Broadcast<S, S2>>
where
    S: BroadcastShape<S2>,
{
    check_divisor::<T, Op, S2>(b)
        .and_then(|()| a.try_zip_map(b, Op::apply))
        .or_panic()
}

#[track_caller]
fn assign_op<T: Numeric, Op: ScalarOp<T>, S: Shape, S2>(a: &mut Tensor<T, S>, b: &Tensor<T, S2>)
where
    S2: ExpandsTo<S>,
{
    check_divisor::<T, Op, S2>(b)
        .and_then(|()| a.try_zip_map_(b, Op::apply))
        .or_panic()
}

#[track_caller]
fn check_scalar_divisor<T: Numeric, Op: ScalarOp<T>>(s: T) {
    if Op::DIVIDES && !T::IS_FLOAT && s == T::zero() {
        panic!("ZeroDivisionError");
    }
}

macro_rules! tensor_operators {
    ($($Trait:ident $method:ident $Op:ident $AssignTrait:ident $assign:ident),*) => {$(
        /// Broadcasting, as the matching `torch` function.
        ///
        /// # Panics
        /// With PyTorch's message when a run-time size does not match.
        impl<T: Numeric, S: Shape, S2: Shape> $Trait<&Tensor<T, S2>> for &Tensor<T, S>
        where
            S: BroadcastShape<S2>,
        {
            type Output = Tensor<T, Broadcast<S, S2>>;
            #[track_caller]
            fn $method(self, rhs: &Tensor<T, S2>) -> Self::Output {
                tensor_op::<T, $Op, S, S2>(self, rhs)
            }
        }

        /// Broadcasting, as the matching `torch` function.
        impl<T: Numeric, S: Shape, S2: Shape> $Trait<Tensor<T, S2>> for Tensor<T, S>
        where
            S: BroadcastShape<S2>,
        {
            type Output = Tensor<T, Broadcast<S, S2>>;
            #[track_caller]
            fn $method(self, rhs: Tensor<T, S2>) -> Self::Output {
                tensor_op::<T, $Op, S, S2>(&self, &rhs)
            }
        }

        /// Broadcasting, as the matching `torch` function.
        impl<T: Numeric, S: Shape, S2: Shape> $Trait<&Tensor<T, S2>> for Tensor<T, S>
        where
            S: BroadcastShape<S2>,
        {
            type Output = Tensor<T, Broadcast<S, S2>>;
            #[track_caller]
            fn $method(self, rhs: &Tensor<T, S2>) -> Self::Output {
                tensor_op::<T, $Op, S, S2>(&self, rhs)
            }
        }

        /// Broadcasting, as the matching `torch` function.
        impl<T: Numeric, S: Shape, S2: Shape> $Trait<Tensor<T, S2>> for &Tensor<T, S>
        where
            S: BroadcastShape<S2>,
        {
            type Output = Tensor<T, Broadcast<S, S2>>;
            #[track_caller]
            fn $method(self, rhs: Tensor<T, S2>) -> Self::Output {
                tensor_op::<T, $Op, S, S2>(self, &rhs)
            }
        }

        /// In place: `rhs` broadcasts to `self`'s shape, which never changes.
        impl<T: Numeric, S: Shape, S2: Shape> $AssignTrait<&Tensor<T, S2>> for Tensor<T, S>
        where
            S2: ExpandsTo<S>,
        {
            #[track_caller]
            fn $assign(&mut self, rhs: &Tensor<T, S2>) {
                assign_op::<T, $Op, S, S2>(self, rhs)
            }
        }

        /// In place: `rhs` broadcasts to `self`'s shape, which never changes.
        impl<T: Numeric, S: Shape, S2: Shape> $AssignTrait<Tensor<T, S2>> for Tensor<T, S>
        where
            S2: ExpandsTo<S>,
        {
            #[track_caller]
            fn $assign(&mut self, rhs: Tensor<T, S2>) {
                assign_op::<T, $Op, S, S2>(self, &rhs)
            }
        }
    )*};
}

tensor_operators!(
    Add add AddOp AddAssign add_assign,
    Sub sub SubOp SubAssign sub_assign,
    Mul mul MulOp MulAssign mul_assign,
    Div div DivOp DivAssign div_assign,
    Rem rem RemOp RemAssign rem_assign
);

macro_rules! scalar_operators {
    ($($t:ty),*) => {$(
        scalar_operators!(@one $t, Add add AddOp AddAssign add_assign);
        scalar_operators!(@one $t, Sub sub SubOp SubAssign sub_assign);
        scalar_operators!(@one $t, Mul mul MulOp MulAssign mul_assign);
        scalar_operators!(@one $t, Div div DivOp DivAssign div_assign);
        scalar_operators!(@one $t, Rem rem RemOp RemAssign rem_assign);
    )*};
    (@one $t:ty, $Trait:ident $method:ident $Op:ident $AssignTrait:ident $assign:ident) => {
        /// With a scalar, applied to every element.
        impl<S: Shape> $Trait<$t> for &Tensor<$t, S> {
            type Output = Tensor<$t, S>;
            #[track_caller]
            fn $method(self, rhs: $t) -> Tensor<$t, S> {
                check_scalar_divisor::<$t, $Op>(rhs);
                self.map(move |x| <$Op as ScalarOp<$t>>::apply(x, rhs))
            }
        }
        /// With a scalar, applied to every element.
        impl<S: Shape> $Trait<$t> for Tensor<$t, S> {
            type Output = Tensor<$t, S>;
            #[track_caller]
            fn $method(self, rhs: $t) -> Tensor<$t, S> {
                <&Self as $Trait<$t>>::$method(&self, rhs)
            }
        }
        /// A scalar on the left, applied to every element.
        impl<S: Shape> $Trait<&Tensor<$t, S>> for $t {
            type Output = Tensor<$t, S>;
            #[track_caller]
            fn $method(self, rhs: &Tensor<$t, S>) -> Tensor<$t, S> {
                if <$Op as ScalarOp<$t>>::DIVIDES && !<$t as Numeric>::IS_FLOAT && rhs.to_vec().contains(&<$t as num_traits::Zero>::zero()) {
                    panic!("ZeroDivisionError");
                }
                rhs.map(move |y| <$Op as ScalarOp<$t>>::apply(self, y))
            }
        }
        /// A scalar on the left, applied to every element.
        impl<S: Shape> $Trait<Tensor<$t, S>> for $t {
            type Output = Tensor<$t, S>;
            #[track_caller]
            fn $method(self, rhs: Tensor<$t, S>) -> Tensor<$t, S> {
                self.$method(&rhs)
            }
        }
        /// With a scalar, in place.
        impl<S: Shape> $AssignTrait<$t> for Tensor<$t, S> {
            #[track_caller]
            fn $assign(&mut self, rhs: $t) {
                check_scalar_divisor::<$t, $Op>(rhs);
                self.try_map_(move |x| <$Op as ScalarOp<$t>>::apply(x, rhs)).or_panic()
            }
        }
    };
}

scalar_operators!(f32, f64, i32, i64, u8);

/// `-x` for every element.
impl<T: Signed, S: Shape> Neg for &Tensor<T, S> {
    type Output = Tensor<T, S>;
    fn neg(self) -> Tensor<T, S> {
        self.map(|x| -x)
    }
}

/// `-x` for every element.
impl<T: Signed, S: Shape> Neg for Tensor<T, S> {
    type Output = Tensor<T, S>;
    fn neg(self) -> Tensor<T, S> {
        self.map(|x| -x)
    }
}
