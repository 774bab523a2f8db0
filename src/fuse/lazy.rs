//! [`Lazy`]: a fused expression as users build it, with the eager API's
//! method names and operators, evaluated by [`Lazy::eval`],
//! [`Lazy::eval_into`] or a reduction at its end.

use core::marker::PhantomData;
use core::ops::{Add, Div, Mul, Neg, Sub};

use super::nodes::{Binary, Leaf, Scalar, Ternary, Unary};
use crate::Tensor;
use crate::backend::fused::{Fused, Node};
use crate::backend::op::table;
use crate::backend::op::{Map1, Map2, Map3};
use crate::device::Device;
use crate::element::Element;
use crate::shape::{Broadcast3, BroadcastShape, OrPanic, Shape};

/// What a fallible evaluation of `E` on its device returns.
/// The value of `E`: a tensor of its element type, shape and device.
pub(crate) type Value<E> = Tensor<<E as Node>::Elem, <E as Node>::Shape, <E as Node>::Device>;

/// What a fallible evaluation of `E` on its device returns (`Value<E>`,
/// or a reduction of it).
pub(crate) type Fallible<E, X> = Result<X, <<E as Node>::Device as Device>::Error>;

/// A fused pointwise expression: a tree of op-table operations over
/// tensors and scalars, evaluated in one pass over memory when asked
/// ([`eval`](Lazy::eval), [`eval_into`](Lazy::eval_into),
/// [`sum`](Lazy::sum)). Its shape is a type, computed by the same rules as
/// the eager operations: a static broadcast mismatch is a compile error
/// where the expression is built, a run-time one the eager operation's
/// error when it is evaluated.
///
/// Start one with [`Tensor::lazy`]; combine with operators (`+ - * /`,
/// unary `-`) and the eager methods' names. Operands are `Lazy`
/// expressions, `&Tensor`s, or scalars.
///
/// ```
/// use shaped::{Shape, Tensor};
/// let a = Tensor::<f32, Shape![2, 3]>::from_vec(vec![1., -2., 3., -4., 5., -6.]);
/// let b = Tensor::<f32, Shape![3]>::from_vec(vec![1., 2., 3.]);
/// let c = Tensor::<f32, Shape![2, 1]>::from_vec(vec![0.5, -100.]);
/// // One pass, no temporaries: the eager `a.mul(&b).add(&c).relu()`.
/// let r: Tensor<f32, Shape![2, 3]> = (a.lazy() * &b + &c).relu().eval();
/// assert_eq!(r.to_vec(), a.mul(&b).add(&c).relu().to_vec());
/// ```
#[derive(Clone, Copy, Debug)]
#[must_use = "a lazy expression does nothing until it is evaluated"]
pub struct Lazy<E>(pub(crate) E);

/// Something a fused expression takes as an operand of element type `T` on
/// device `D`: a [`Lazy`] expression, a `&Tensor`, or a scalar.
///
/// ```
/// use shaped::backend::fused::Node;
/// use shaped::fuse::{IntoLazy, lazy};
/// use shaped::{Shape, Tensor};
/// fn rank<R: IntoLazy<f64, shaped::device::Cpu>>(r: R) -> usize {
///     lazy(r).node().dims().unwrap().len()
/// }
/// let a = Tensor::<f64, Shape![2, 1]>::ones();
/// assert_eq!((rank(&a), rank(3.0), rank(a.lazy() + 1.0)), (2, 0, 2));
/// ```
pub trait IntoLazy<T: Element, D: Device> {
    /// The operand's node.
    type Node: Node<Elem = T, Device = D>;
    /// The node.
    fn into_node(self) -> Self::Node;
}

impl<E: Node> IntoLazy<E::Elem, E::Device> for Lazy<E> {
    type Node = E;
    fn into_node(self) -> E {
        self.0
    }
}

impl<'a, T: Element, S: Shape, D: Device> IntoLazy<T, D> for &'a Tensor<T, S, D> {
    type Node = Leaf<'a, T, S, D>;
    fn into_node(self) -> Self::Node {
        Leaf(self)
    }
}

macro_rules! scalar_operands {
    ($($t:ty),*) => {$(
        impl<D: Device> IntoLazy<$t, D> for $t {
            type Node = Scalar<$t, D>;
            fn into_node(self) -> Self::Node {
                Scalar(self, PhantomData)
            }
        }
    )*};
}
scalar_operands!(f32, f64, i8, i16, i32, i64, u8, u16, u32, u64, bool);

/// An operand as a [`Lazy`] expression (a tensor leaf, a scalar, or the
/// expression itself).
///
/// ```
/// use shaped::fuse::lazy;
/// use shaped::{Shape, Tensor};
/// let a = Tensor::<i32, Shape![3]>::from_vec(vec![1, 2, 3]);
/// assert_eq!((lazy(&a) * 2).eval().to_vec(), [2, 4, 6]);
/// ```
pub fn lazy<T: Element, D: Device, R: IntoLazy<T, D>>(r: R) -> Lazy<R::Node> {
    Lazy(r.into_node())
}

impl<T: Element, S: Shape, D: Device> Tensor<T, S, D> {
    /// The tensor as the leaf of a fused expression ([`Lazy`]): operations
    /// on it are recorded, and run in one pass when the expression is
    /// evaluated.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<f64, Shape![3]>::from_vec(vec![-1., 0., 2.]);
    /// let y = (x.lazy() * 3.0 - 1.0).relu().eval();
    /// assert_eq!(y.to_vec(), [0., 0., 5.]);
    /// ```
    pub fn lazy(&self) -> Lazy<Leaf<'_, T, S, D>> {
        Lazy(Leaf(self))
    }
}

impl<E: Node> Lazy<E> {
    /// The expression's root node.
    ///
    /// ```
    /// use shaped::backend::fused::Node;
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<f32, Shape![2, 1]>::ones();
    /// assert_eq!((a.lazy() + 1.0f32).node().dims().unwrap().as_slice(), &[2, 1]);
    /// ```
    pub fn node(&self) -> &E {
        &self.0
    }
}

impl<E: Node> Lazy<E>
where
    E::Device: Fused<E::Elem>,
{
    /// The fallible form of [`Lazy::eval`].
    ///
    /// # Errors
    /// The broadcast error of the first operation whose run-time sizes do
    /// not match (the eager operations' message), an allocation error, or
    /// a device error.
    ///
    /// ```
    /// use shaped::{DynRank, Tensor};
    /// let a = Tensor::<f32, DynRank>::try_ones(&[2, 3]).unwrap();
    /// let b = Tensor::<f32, DynRank>::try_ones(&[2]).unwrap();
    /// assert_eq!(
    ///     (a.lazy() * &b).exp().try_eval().unwrap_err().to_string(),
    ///     a.try_mul(&b).unwrap_err().to_string()
    /// );
    /// ```
    pub fn try_eval(&self) -> Fallible<E, Value<E>> {
        Ok(Tensor::from_output(E::Device::eval(&self.0.erased())?)?)
    }

    /// The expression's value in a new tensor, computed in one pass.
    ///
    /// # Panics
    /// With the message of [`Lazy::try_eval`]'s error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<f64, Shape![2]>::from_vec(vec![1., 4.]);
    /// assert_eq!(a.lazy().sqrt().add(1.0).eval().to_vec(), [2., 3.]);
    /// ```
    #[track_caller]
    pub fn eval(&self) -> Tensor<E::Elem, E::Shape, E::Device> {
        self.try_eval().or_panic()
    }

    /// The expression's value written into `out` (PyTorch's `out=`: `out`
    /// keeps its storage; large outputs are written with streaming stores).
    ///
    /// # Errors
    /// As [`Lazy::try_eval`]; "output with shape [..] doesn't match the
    /// broadcast shape [..]" when `out`'s run-time sizes differ; PyTorch's
    /// overlap errors.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<f32, Shape![2, 2]>::from_vec(vec![1., 2., 3., 4.]);
    /// let mut out = Tensor::<f32, Shape![2, 2]>::zeros();
    /// (a.lazy() * &a).eval_into(&mut out).unwrap();
    /// assert_eq!(out.to_vec(), [1., 4., 9., 16.]);
    /// ```
    pub fn eval_into(
        &self,
        out: &mut Tensor<E::Elem, E::Shape, E::Device>,
    ) -> Result<(), <E::Device as Device>::Error> {
        E::Device::eval_into(&self.0.erased(), out.layout())
    }
}

/// Defines one-operand methods from the list of one-operand ops
/// (`ops/unary.rs`); each doctest checks the fused value against the eager
/// method.
macro_rules! unary_methods {
    ($($(#[$doc:meta])* $name:ident / $try_name:ident / $name_:ident : $bound:ident, $Op:ident;)*) => {
        impl<E: Node> Lazy<E> {
            $(
            #[doc = concat!("`", stringify!($name), "` of every element, as the eager [`Tensor::", stringify!($name), "`].")]
            #[allow(clippy::should_implement_trait)]
            ///
            /// ```
            /// use shaped::{Shape, Tensor};
            /// let a = Tensor::<f64, Shape![4]>::from_vec(vec![0.25, 0.5, 1.5, 2.0]);
            #[doc = concat!("assert_eq!(a.lazy().", stringify!($name), "().eval().to_vec(), a.", stringify!($name), "().to_vec());")]
            /// ```
            pub fn $name(self) -> Lazy<Unary<table::$Op, E>>
            where
                table::$Op: Map1<E::Elem>,
            {
                Lazy(Unary(table::$Op, self.0))
            }
            )*
        }
    };
}

crate::ops::unary::unary_op_list!(unary_methods);

/// Defines two-operand methods from op-table entries; each doctest checks
/// the fused value against the eager method.
macro_rules! binary_methods {
    ($($name:ident $Op:ident;)*) => {
        impl<E: Node> Lazy<E> {
            $(
            #[doc = concat!("`", stringify!($name), "` of the expression and `rhs` broadcast together, as the eager [`Tensor::", stringify!($name), "`].")]
            #[allow(clippy::should_implement_trait)]
            ///
            /// ```
            /// use shaped::{Shape, Tensor};
            /// let a = Tensor::<f64, Shape![2, 1]>::from_vec(vec![-1.5, 2.0]);
            /// let b = Tensor::<f64, Shape![3]>::from_vec(vec![0.5, -3.0, 2.0]);
            #[doc = concat!("assert_eq!(a.lazy().", stringify!($name), "(&b).eval().to_vec(), a.", stringify!($name), "(&b).to_vec());")]
            /// ```
            pub fn $name<R: IntoLazy<E::Elem, E::Device>>(self, rhs: R) -> Lazy<Binary<table::$Op, E, R::Node>>
            where
                table::$Op: Map2<E::Elem>,
                E::Shape: BroadcastShape<<R::Node as Node>::Shape>,
            {
                Lazy(Binary(table::$Op, self.0, rhs.into_node()))
            }
            )*
        }
    };
}

binary_methods! {
    add Add; sub Sub; mul Mul; div Div; atan2 Atan2; maximum Maximum; minimum Minimum;
    eq Equal; ne NotEqual; lt Less; le LessEqual; gt Greater; ge GreaterEqual;
    logical_and LogicalAnd; logical_or LogicalOr; logical_xor LogicalXor;
}

impl<E: Node> Lazy<E> {
    /// Every element clamped to `[min, max]` (operands broadcast), as
    /// `torch.clamp`; NaN stays NaN.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<f32, Shape![3]>::from_vec(vec![-2., 0.5, 9.]);
    /// let lo = Tensor::<f32, Shape![3]>::from_vec(vec![0., 0., 1.]);
    /// assert_eq!(a.lazy().clamp(&lo, 1.0).eval().to_vec(), [0., 0.5, 1.]);
    /// ```
    #[allow(clippy::type_complexity)]
    pub fn clamp<L, H>(self, min: L, max: H) -> Lazy<Ternary<table::Clamp, E, L::Node, H::Node>>
    where
        L: IntoLazy<E::Elem, E::Device>,
        H: IntoLazy<E::Elem, E::Device>,
        table::Clamp: Map3<E::Elem, E::Elem>,
        E::Shape: Broadcast3<<L::Node as Node>::Shape, <H::Node as Node>::Shape>,
    {
        Lazy(Ternary(
            table::Clamp,
            self.0,
            min.into_node(),
            max.into_node(),
        ))
    }

    /// `self + weight * (end - self)`, as `torch.lerp`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<f64, Shape![2]>::from_vec(vec![0., 10.]);
    /// let b = Tensor::<f64, Shape![2]>::from_vec(vec![4., 20.]);
    /// assert_eq!(a.lazy().lerp(&b, 0.25).eval().to_vec(), a.lerp(&b, &Tensor::<f64, shaped::Shape![]>::from_vec(vec![0.25])).to_vec());
    /// ```
    #[allow(clippy::type_complexity)]
    pub fn lerp<R, W>(self, end: R, weight: W) -> Lazy<Ternary<table::Lerp, E, R::Node, W::Node>>
    where
        R: IntoLazy<E::Elem, E::Device>,
        W: IntoLazy<E::Elem, E::Device>,
        table::Lerp: Map3<E::Elem, E::Elem>,
        E::Shape: Broadcast3<<R::Node as Node>::Shape, <W::Node as Node>::Shape>,
    {
        Lazy(Ternary(
            table::Lerp,
            self.0,
            end.into_node(),
            weight.into_node(),
        ))
    }

    /// `self + value * t1 * t2`, as `torch.addcmul`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<f32, Shape![2]>::from_vec(vec![1., 2.]);
    /// let b = Tensor::<f32, Shape![2, 1]>::from_vec(vec![3., 4.]);
    /// assert_eq!(a.lazy().addcmul(&b, &a, 0.5).eval().to_vec(), a.addcmul(&b, &a, 0.5).to_vec());
    /// ```
    #[allow(clippy::type_complexity)]
    pub fn addcmul<R, Q>(
        self,
        t1: R,
        t2: Q,
        value: E::Elem,
    ) -> Lazy<Ternary<table::Addcmul<E::Elem>, E, R::Node, Q::Node>>
    where
        R: IntoLazy<E::Elem, E::Device>,
        Q: IntoLazy<E::Elem, E::Device>,
        table::Addcmul<E::Elem>: Map3<E::Elem, E::Elem>,
        E::Shape: Broadcast3<<R::Node as Node>::Shape, <Q::Node as Node>::Shape>,
    {
        Lazy(Ternary(
            table::Addcmul(value),
            self.0,
            t1.into_node(),
            t2.into_node(),
        ))
    }
}

impl<E: Node<Elem = bool>> Lazy<E> {
    /// `x` where the condition is true, else `y` (all three broadcast), as
    /// `torch.where(cond, x, y)`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<f32, Shape![4]>::from_vec(vec![-1., 2., -3., 4.]);
    /// let r = x.lazy().gt(0.0).select(&x, x.lazy() * 0.1).eval();
    /// assert_eq!(r.to_vec(), [-0.1, 2., -0.3, 4.].map(|v: f32| v));
    /// ```
    #[allow(clippy::type_complexity)]
    pub fn select<T: Element, X, Y>(
        self,
        x: X,
        y: Y,
    ) -> Lazy<Ternary<table::Where, E, X::Node, Y::Node>>
    where
        X: IntoLazy<T, E::Device>,
        Y: IntoLazy<T, E::Device>,
        table::Where: Map3<bool, T>,
        E::Shape: Broadcast3<<X::Node as Node>::Shape, <Y::Node as Node>::Shape>,
    {
        Lazy(Ternary(table::Where, self.0, x.into_node(), y.into_node()))
    }
}

macro_rules! operators {
    ($($Trait:ident $method:ident $Op:ident: $($t:ty),*;)*) => {$(
        impl<E: Node, R: IntoLazy<E::Elem, E::Device>> $Trait<R> for Lazy<E>
        where
            table::$Op: Map2<E::Elem>,
            E::Shape: BroadcastShape<<R::Node as Node>::Shape>,
        {
            type Output = Lazy<Binary<table::$Op, E, R::Node>>;
            fn $method(self, rhs: R) -> Self::Output {
                Lazy(Binary(table::$Op, self.0, rhs.into_node()))
            }
        }

        scalar_lhs!($Trait $method $Op; $($t),*);
    )*};
}

macro_rules! scalar_lhs {
    ($Trait:ident $method:ident $Op:ident; $($t:ty),*) => {$(
        impl<E: Node<Elem = $t>> $Trait<Lazy<E>> for $t
        where
            table::$Op: Map2<$t>,
            (): BroadcastShape<E::Shape>,
        {
            type Output = Lazy<Binary<table::$Op, Scalar<$t, E::Device>, E>>;
            fn $method(self, rhs: Lazy<E>) -> Self::Output {
                Lazy(Binary(table::$Op, Scalar(self, PhantomData), rhs.0))
            }
        }
    )*};
}

operators! {
    Add add Add: f32, f64, i32, i64;
    Sub sub Sub: f32, f64, i32, i64;
    Mul mul Mul: f32, f64, i32, i64;
    Div div Div: f32, f64;
}

impl<E: Node> Neg for Lazy<E>
where
    table::Neg: Map1<E::Elem>,
{
    type Output = Lazy<Unary<table::Neg, E>>;
    fn neg(self) -> Self::Output {
        Lazy(Unary(table::Neg, self.0))
    }
}
