//! Procedural macros for [`shaped`](https://docs.rs/shaped).
//!
//! Only the documented entry points live here; each macro's parsing and code
//! generation sit in their own file.
//!
//! - [`Shape!`](macro@Shape): a shape type written with plain numbers.
//! - `__static_shape_impls!`: a hidden helper that stamps out the shape traits
//!   for tuples; `shaped` calls it once.
//! - `__matmul_impls!`: a hidden helper that stamps out the matrix-product
//!   shape rules for tuples; `shaped` calls it once.

use proc_macro::TokenStream;

mod matmul_impls;
mod shape_type;
mod static_impls;

/// Writes a static shape type with plain numbers.
///
/// - a number `N` becomes `Const<N>`, except `1`, which becomes `One` (the only
///   static size that stretches when broadcasting);
/// - `_` becomes `Dyn`, a size known only at run time;
/// - anything else (an identifier such as a generic parameter `B`, or a type
///   such as `Const<3>`) is kept as it is.
///
/// The result is a tuple: `Shape![5, 1, _]` is `(Const<5>, One, Dyn)`, and
/// `Shape![]` is `()`, the shape of a 0-d tensor.
///
/// # Examples
///
/// ```
/// use shaped::{Const, Dyn, One, Shape};
///
/// let _: Shape![5, 1, 4, _] = (Const::<5>, One, Const::<4>, Dyn);
/// fn batch<B: shaped::Dim>() -> Shape![B, 3] { Default::default() }
/// let _: (Dyn, Const<3>) = batch::<Dyn>();
/// ```
#[proc_macro]
#[allow(non_snake_case)]
pub fn Shape(input: TokenStream) -> TokenStream {
    shape_type::expand(input.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Stamps out the shape traits for tuples of rank 0 to the given rank: one
/// `Shape` impl per rank, one `BroadcastShape` impl per pair of ranks and one
/// `ExpandsTo` impl per pair whose first rank is not larger.
///
/// Used once, inside `shaped::shape`; not part of the public API.
#[doc(hidden)]
#[proc_macro]
pub fn __static_shape_impls(input: TokenStream) -> TokenStream {
    static_impls::expand(input.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Stamps out the shape rules of matrix products for tuples: one
/// `MatmulPair` impl per pair of ranks from 1 to the given rank, and one
/// `AddendPair` impl per (input, product) pair of ranks for fused products.
///
/// Used once, inside `shaped::ops::matmul`; not part of the public API.
#[doc(hidden)]
#[proc_macro]
pub fn __matmul_impls(input: TokenStream) -> TokenStream {
    matmul_impls::expand(input.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
