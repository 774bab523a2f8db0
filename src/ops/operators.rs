//! `std::ops` for tensors: `+ - * / %` between tensors (broadcasting, on
//! owned values and references) and with scalars on either side, unary `-`,
//! and the compound assignments `+= -= *= /= %=` (in place: the right-hand
//! side broadcasts to the left-hand side's shape), on every device: each
//! operator runs an op-table entry (`table.rs`).
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
use crate::tensor::host;
use crate::tensor::pointwise;
use core::ops::{
    Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Rem, RemAssign, Sub, SubAssign,
};

use crate::Tensor;
use crate::backend::Backend;
use crate::backend::op::table;
use crate::backend::op::{Map2, ScalarLhs, ScalarRhs};
use crate::device::{Device, SameDevice};
use crate::element::{Element, Numeric, Signed};
use crate::ops::operand::SameElement;
use crate::shape::{Broadcast, BroadcastShape, ExpandsTo, Shape, ShapeError};

/// The op-table entry behind each operator, and whether a zero integer
/// right-hand side is an error.
trait OperatorOp<T: Numeric>: Map2<T, Out = T> + Default {
    const DIVIDES: bool = false;
}

impl<T: Numeric> OperatorOp<T> for table::Add {}
impl<T: Numeric> OperatorOp<T> for table::Sub {}
impl<T: Numeric> OperatorOp<T> for table::Mul {}
impl<T: Numeric> OperatorOp<T> for table::Quot {
    const DIVIDES: bool = true;
}
impl<T: Numeric> OperatorOp<T> for table::Fmod {
    const DIVIDES: bool = true;
}

/// Integer division by zero: the panic Rust gives for integers.
fn check_divisor<T: Numeric, Op: OperatorOp<T>, S: Shape, D: Backend<T>>(
    rhs: &Tensor<T, S, D>,
) -> Result<(), D::Error> {
    if Op::DIVIDES && !T::IS_FLOAT && host::to_host(rhs)?.contains(&T::zero()) {
        return Err(ShapeError::Invalid("ZeroDivisionError".into()).into());
    }
    Ok(())
}

#[track_caller]
fn tensor_op<T: Numeric, Op: OperatorOp<T>, S, S2: Shape, D: Backend<T>>(
    a: &Tensor<T, S, D>,
    b: &Tensor<T, S2, D>,
) -> Tensor<T, Broadcast<S, S2>, D>
where
    S: BroadcastShape<S2>,
{
    check_divisor::<T, Op, S2, D>(b)
        .and_then(|()| pointwise::binary(Op::default(), a, b))
        .or_panic()
}

#[track_caller]
fn assign_op<T: Numeric, Op: OperatorOp<T>, S: Shape, S2, D: Backend<T>>(
    a: &mut Tensor<T, S, D>,
    b: &Tensor<T, S2, D>,
) where
    S2: ExpandsTo<S>,
{
    check_divisor::<T, Op, S2, D>(b)
        .and_then(|()| pointwise::binary_(Op::default(), a, b))
        .or_panic()
}

#[track_caller]
fn check_scalar_divisor<T: Numeric, Op: OperatorOp<T>>(s: T) {
    if Op::DIVIDES && !T::IS_FLOAT && s == T::zero() {
        panic!("ZeroDivisionError");
    }
}

macro_rules! tensor_operators {
    ($($Trait:ident $method:ident [$Op:path] $AssignTrait:ident $assign:ident),*) => {$(
        tensor_operators!(@binary $Trait $method [$Op], &Tensor<T, S, D>, &Tensor<U, S2, D2>);
        tensor_operators!(@binary $Trait $method [$Op], Tensor<T, S, D>, Tensor<U, S2, D2>);
        tensor_operators!(@binary $Trait $method [$Op], Tensor<T, S, D>, &Tensor<U, S2, D2>);
        tensor_operators!(@binary $Trait $method [$Op], &Tensor<T, S, D>, Tensor<U, S2, D2>);
        tensor_operators!(@assign $AssignTrait $assign [$Op], &Tensor<U, S2, D2>);
        tensor_operators!(@assign $AssignTrait $assign [$Op], Tensor<U, S2, D2>);
    )*};
    // One impl per operand form, over every right operand: a right operand
    // of another element type or on another device reaches this impl and
    // fails its `SameElement` / `SameDevice` bound, whose message names both.
    (@binary $Trait:ident $method:ident [$Op:path], $Lhs:ty, $Rhs:ty) => {
        /// Broadcasting, as the matching `torch` function.
        ///
        /// # Panics
        /// With PyTorch's message when a run-time size does not match.
        impl<T: Numeric, U: Element, S: Shape, S2: Shape, D: Backend<T>, D2: Device> $Trait<$Rhs> for $Lhs
        where
            T: SameElement<U>,
            D: SameDevice<D2, U>,
            S: BroadcastShape<S2>,
        {
            type Output = Tensor<T, Broadcast<S, S2>, D>;
            #[track_caller]
            fn $method(self, rhs: $Rhs) -> Self::Output {
                // `&self` / `&rhs` coerce to a reference for either form.
                let (a, b): (&Tensor<T, S, D>, &Tensor<U, S2, D2>) = (&self, &rhs);
                tensor_op::<T, $Op, S, S2, D>(a, T::same_element(D::same_device(b)))
            }
        }
    };
    (@assign $AssignTrait:ident $assign:ident [$Op:path], $Rhs:ty) => {
        /// In place: `rhs` broadcasts to `self`'s shape, which never changes.
        impl<T: Numeric, U: Element, S: Shape, S2: Shape, D: Backend<T>, D2: Device> $AssignTrait<$Rhs> for Tensor<T, S, D>
        where
            T: SameElement<U>,
            D: SameDevice<D2, U>,
            S2: ExpandsTo<S>,
        {
            #[track_caller]
            fn $assign(&mut self, rhs: $Rhs) {
                let b: &Tensor<U, S2, D2> = &rhs;
                assign_op::<T, $Op, S, S2, D>(self, T::same_element(D::same_device(b)))
            }
        }
    };
}

tensor_operators!(
    Add add [table::Add] AddAssign add_assign,
    Sub sub [table::Sub] SubAssign sub_assign,
    Mul mul [table::Mul] MulAssign mul_assign,
    Div div [table::Quot] DivAssign div_assign,
    Rem rem [table::Fmod] RemAssign rem_assign
);

macro_rules! scalar_operators {
    ($($t:ty),*) => {$(
        scalar_operators!(@one $t, Add add [table::Add] AddAssign add_assign);
        scalar_operators!(@one $t, Sub sub [table::Sub] SubAssign sub_assign);
        scalar_operators!(@one $t, Mul mul [table::Mul] MulAssign mul_assign);
        scalar_operators!(@one $t, Div div [table::Quot] DivAssign div_assign);
        scalar_operators!(@one $t, Rem rem [table::Fmod] RemAssign rem_assign);
    )*};
    (@one $t:ty, $Trait:ident $method:ident [$Op:path] $AssignTrait:ident $assign:ident) => {
        /// With a scalar, applied to every element.
        impl<S: Shape, D: Backend<$t>> $Trait<$t> for &Tensor<$t, S, D> {
            type Output = Tensor<$t, S, D>;
            #[track_caller]
            fn $method(self, rhs: $t) -> Tensor<$t, S, D> {
                check_scalar_divisor::<$t, $Op>(rhs);
                pointwise::unary(ScalarRhs($Op, rhs), self).or_panic()
            }
        }
        /// With a scalar, applied to every element.
        impl<S: Shape, D: Backend<$t>> $Trait<$t> for Tensor<$t, S, D> {
            type Output = Tensor<$t, S, D>;
            #[track_caller]
            fn $method(self, rhs: $t) -> Tensor<$t, S, D> {
                <&Self as $Trait<$t>>::$method(&self, rhs)
            }
        }
        /// A scalar on the left, applied to every element.
        impl<S: Shape, D: Backend<$t>> $Trait<&Tensor<$t, S, D>> for $t {
            type Output = Tensor<$t, S, D>;
            #[track_caller]
            fn $method(self, rhs: &Tensor<$t, S, D>) -> Tensor<$t, S, D> {
                check_divisor::<$t, $Op, S, D>(rhs)
                    .and_then(|()| pointwise::unary(ScalarLhs($Op, self), rhs))
                    .or_panic()
            }
        }
        /// A scalar on the left, applied to every element.
        impl<S: Shape, D: Backend<$t>> $Trait<Tensor<$t, S, D>> for $t {
            type Output = Tensor<$t, S, D>;
            #[track_caller]
            fn $method(self, rhs: Tensor<$t, S, D>) -> Tensor<$t, S, D> {
                self.$method(&rhs)
            }
        }
        /// With a scalar, in place.
        impl<S: Shape, D: Backend<$t>> $AssignTrait<$t> for Tensor<$t, S, D> {
            #[track_caller]
            fn $assign(&mut self, rhs: $t) {
                check_scalar_divisor::<$t, $Op>(rhs);
                pointwise::unary_(ScalarRhs($Op, rhs), self).or_panic()
            }
        }
    };
}

scalar_operators!(f32, f64, i32, i64, u8);

/// `-x` for every element.
impl<T: Signed, S: Shape, D: Backend<T>> Neg for &Tensor<T, S, D> {
    type Output = Tensor<T, S, D>;
    #[track_caller]
    fn neg(self) -> Tensor<T, S, D> {
        Tensor::neg(self)
    }
}

/// `-x` for every element.
impl<T: Signed, S: Shape, D: Backend<T>> Neg for Tensor<T, S, D> {
    type Output = Tensor<T, S, D>;
    #[track_caller]
    fn neg(self) -> Tensor<T, S, D> {
        Tensor::neg(&self)
    }
}
