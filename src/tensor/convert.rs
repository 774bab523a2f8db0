//! Conversions into tensors from (nested) arrays and `Vec`s.
//!
//! - **Arrays**: a static shape of rank 1 to 3 is built infallibly from a
//!   nested array of its sizes, whatever its mix of [`Const`] and [`One`]
//!   (`From<[[T; 3]; 2]>` for `Shape![2, 3]`, `From<[[T; 3]; 1]>` for
//!   `Shape![1, 3]`). Rank 4 and up: [`Tensor::from_vec`] or the
//!   [`tensor!`](crate::tensor!) literal.
//! - **`Vec`s**: `From<Vec<T>>` for the shapes every length fits
//!   ([`VecShape`]: the 1-d `Shape![_]` and [`DynRank`], a 1-d tensor); `TryFrom<Vec<T>>` for every
//!   other shape of static rank, whose sizes the length must fit: checked at
//!   run time, with one dynamic (`_`) size inferred as `reshape(-1)` infers.
//!
//! ```
//! use shaped::{DynRank, Shape, Tensor};
//! let row = Tensor::<f32, Shape![1, 3]>::from([[1., 2., 3.]]);
//! let col = Tensor::<f32, Shape![3, 1]>::from([[1.], [2.], [3.]]);
//! assert_eq!(row.to_vec(), col.to_vec());
//! let d: Tensor<f32, DynRank> = vec![1., 2., 3.].into();
//! assert_eq!(d.dims(), &[3]);
//! let s: Tensor<f32, Shape![1, 3]> = vec![1., 2., 3.].try_into().unwrap();
//! assert_eq!(s, row);
//! assert!(Tensor::<f32, Shape![2, 2]>::try_from(vec![1., 2., 3.]).is_err());
//! ```
//!
//! # Design: why static shapes get `TryFrom<Vec<T>>`, not `From`
//! A `Vec`'s length is a run-time fact, and `From` must not fail (std's
//! contract for it); the infallible routes for a static shape are the arrays
//! above and the panicking [`Tensor::from_vec`]. A type cannot have both: for
//! every `From`, `core` implements `TryFrom` (`impl<T, U: Into<T>> TryFrom<U>
//! for T`), so a `From<Vec<T>>` for `Shape![_]` rules out one generic
//! `TryFrom<Vec<T>>` for all `Tensor<T, S>`, and rustc's coherence check
//! does not see that a marker-trait bound excludes `Shape![_]` from it
//! (E0119 on stable). Hence the `TryFrom` impls are written per rank, rank 1
//! per kind of size (`Const<N>`, `One`), which leaves `(Dyn,)` and
//! [`DynRank`] to `From`: one impl over [`VecShape`], so that `vec.into()` to
//! a static shape is one short error (the bound's message) instead of
//! rustc's list of every `From` impl.
//! Code generic over `S: Shape` uses [`Tensor::try_from_vec`] with the sizes.

use crate::element::Element;
use crate::shape::{Const, Dim, Dyn, DynRank, One, Shape, ShapeError};

use super::Tensor;

/// The nested array type of the sizes `$l`: `nested!(T; 2, 3)` is
/// `[[T; 3]; 2]`.
macro_rules! nested {
    ($t:ty; $l:tt) => { [$t; $l] };
    ($t:ty; $l:tt, $($rest:tt),+) => { [nested!($t; $($rest),+); $l] };
}

/// The elements of a nested array as one slice, row-major.
macro_rules! flat {
    ($a:expr; $l:tt) => { &$a[..] };
    ($a:expr; $l:tt, $($rest:tt),+) => { flat!($a.as_flattened(); $($rest),+) };
}

/// `From<nested array>` for each listed shape: its const parameters, its
/// dimensions, and the array lengths.
macro_rules! from_nested_array {
    ($([$($g:ident),*] ($($d:ty),+) [$($l:tt),+])*) => {$(
        impl<T: Element, $(const $g: usize),*> From<nested!(T; $($l),+)>
            for Tensor<T, ($($d,)+)>
        {
            #[doc = concat!(
                "A tensor of the nested array `", stringify!(nested!(T; $($l),+)),
                "`, row-major (see the module's example)."
            )]
            fn from(a: nested!(T; $($l),+)) -> Self {
                Tensor::from_vec(flat!(a; $($l),+).to_vec())
            }
        }
    )*};
}

from_nested_array! {
    [N] (Const<N>) [N]
    [] (One) [1]
    [M, N] (Const<M>, Const<N>) [M, N]
    [N] (One, Const<N>) [1, N]
    [M] (Const<M>, One) [M, 1]
    [] (One, One) [1, 1]
    [L, M, N] (Const<L>, Const<M>, Const<N>) [L, M, N]
    [M, N] (One, Const<M>, Const<N>) [1, M, N]
    [L, N] (Const<L>, One, Const<N>) [L, 1, N]
    [L, M] (Const<L>, Const<M>, One) [L, M, 1]
    [N] (One, One, Const<N>) [1, 1, N]
    [M] (One, Const<M>, One) [1, M, 1]
    [L] (Const<L>, One, One) [L, 1, 1]
    [] (One, One, One) [1, 1, 1]
}

/// The shapes a `Vec` of any length fits, `Shape![_]` and [`DynRank`]:
/// those `From<Vec<T>>` converts to. A static shape is not one (a `Vec`'s
/// length is a run-time fact and `From` must not fail): `vec.into()` to it
/// is one error that says so and names `try_into` and `from_vec`.
///
/// ```
/// use shaped::tensor::VecShape;
/// use shaped::{DynRank, Shape};
/// fn fits<S: VecShape>() {}
/// fits::<Shape![_]>();
/// fits::<DynRank>();
/// ```
#[diagnostic::on_unimplemented(
    message = "a `Vec`'s length is known only at run time, so it converts to no static shape `{Self}`",
    label = "`From<Vec<_>>` needs a shape every length fits (`Shape![_]`, `DynRank`)",
    note = "check the length at run time with `.try_into()` or `Tensor::try_from_vec`, or use `Tensor::from_vec` (panics on a wrong length)"
)]
pub trait VecShape: Shape {}
#[diagnostic::do_not_recommend]
impl VecShape for (Dyn,) {}
#[diagnostic::do_not_recommend]
impl VecShape for DynRank {}

impl<T: Element, S: VecShape> From<Vec<T>> for Tensor<T, S> {
    /// A 1-d tensor of the elements (any length fits).
    ///
    /// ```
    /// use shaped::{DynRank, Shape, Tensor};
    /// let t: Tensor<u8, Shape![_]> = vec![1, 2, 3].into();
    /// assert_eq!(t.dims(), &[3]);
    /// let d = Tensor::<u8, DynRank>::from(vec![1, 2, 3]);
    /// assert_eq!(d.dims(), &[3]);
    /// ```
    fn from(data: Vec<T>) -> Self {
        let n = data.len();
        let d = S::check_dims(&[n]).expect("a 1-d shape of any length");
        Tensor::from_parts(data, d)
    }
}

/// `TryFrom<Vec<T>>` for a shape of static rank, by [`checked_from_vec`].
macro_rules! try_from_vec {
    ($([$($g:tt)*] $s:ty;)*) => {$(
        impl<T: Element, $($g)*> TryFrom<Vec<T>> for Tensor<T, $s> {
            type Error = ShapeError;

            /// The elements, row-major: the length must fit the static
            /// sizes, and one dynamic (`_`) size is inferred from it (see
            /// the module's examples).
            ///
            /// # Errors
            /// When the length does not fit the shape (PyTorch's "shape
            /// '[2, 2]' is invalid for input of size 3"), or the shape has
            /// more than one dynamic size to infer.
            fn try_from(data: Vec<T>) -> Result<Self, ShapeError> {
                checked_from_vec(data)
            }
        }
    )*};
}

try_from_vec! {
    [] ();
    [const N: usize] (Const<N>,);
    [] (One,);
    [A: Dim, B: Dim] (A, B);
    [A: Dim, B: Dim, C: Dim] (A, B, C);
    [A: Dim, B: Dim, C: Dim, E: Dim] (A, B, C, E);
    [A: Dim, B: Dim, C: Dim, E: Dim, F: Dim] (A, B, C, E, F);
    [A: Dim, B: Dim, C: Dim, E: Dim, F: Dim, G: Dim] (A, B, C, E, F, G);
    [A: Dim, B: Dim, C: Dim, E: Dim, F: Dim, G: Dim, H: Dim] (A, B, C, E, F, G, H);
    [A: Dim, B: Dim, C: Dim, E: Dim, F: Dim, G: Dim, H: Dim, I: Dim] (A, B, C, E, F, G, H, I);
    [A: Dim, B: Dim, C: Dim, E: Dim, F: Dim, G: Dim, H: Dim, I: Dim, J: Dim]
        (A, B, C, E, F, G, H, I, J);
    [A: Dim, B: Dim, C: Dim, E: Dim, F: Dim, G: Dim, H: Dim, I: Dim, J: Dim, K: Dim]
        (A, B, C, E, F, G, H, I, J, K);
    [A: Dim, B: Dim, C: Dim, E: Dim, F: Dim, G: Dim, H: Dim, I: Dim, J: Dim, K: Dim, L: Dim]
        (A, B, C, E, F, G, H, I, J, K, L);
    [A: Dim, B: Dim, C: Dim, E: Dim, F: Dim, G: Dim, H: Dim, I: Dim, J: Dim, K: Dim, L: Dim,
        M: Dim] (A, B, C, E, F, G, H, I, J, K, L, M);
}

/// A tensor of shape `S` (static rank) over `data`: static sizes as they
/// are, one dynamic size inferred from the length.
fn checked_from_vec<T: Element, S: Shape>(data: Vec<T>) -> Result<Tensor<T, S>, ShapeError> {
    let dims = inferred_dims::<S>(data.len())?;
    Tensor::try_from_vec(data, &dims)
}

/// The sizes of `S` for `n` elements: static sizes as they are, one dynamic
/// size inferred (a size that does not divide is left for the caller's
/// element-count check to report).
fn inferred_dims<S: Shape>(n: usize) -> Result<Vec<usize>, ShapeError> {
    let fixed: usize = S::STATIC_DIMS.iter().flatten().product();
    let dynamic = S::STATIC_DIMS.iter().filter(|d| d.is_none()).count();
    if dynamic > 1 || (dynamic == 1 && fixed == 0) {
        return Err(ShapeError::Invalid(format!(
            "cannot infer the sizes of a shape with {dynamic} dynamic dimensions from {n} elements"
        )));
    }
    let inferred = n.checked_div(fixed).unwrap_or(0);
    Ok(S::STATIC_DIMS
        .iter()
        .map(|d| d.unwrap_or(inferred))
        .collect())
}
