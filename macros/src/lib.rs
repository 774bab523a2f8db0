//! Procedural macros for [`shaped`](https://docs.rs/shaped).
//!
//! Only the documented entry points live here; each macro's parsing and code
//! generation sit in their own file.
//!
//! - [`Shape!`](macro@Shape): a shape type written with plain numbers.
//! - [`tensor!`](macro@tensor): a tensor literal whose static shape is read
//!   off its brackets.
//! - `__static_shape_impls!`: a hidden helper that stamps out the shape traits
//!   for tuples; `shaped` calls it once.
//! - `__matmul_impls!`: a hidden helper that stamps out the matrix-product
//!   shape rules for tuples; `shaped` calls it once.
//! - [`Parameters`](derive@Parameters): lists a model's parameters for an
//!   optimizer.

use proc_macro::TokenStream;

mod common;
mod matmul_impls;
mod parameters;
mod shape_type;
mod split_impls;
mod static_impls;
mod tensor_literal;

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

/// A CPU tensor written as nested rows, with its static shape read off the
/// brackets: `tensor![[1., 2., 3.], [4., 5., 6.]]` is a
/// `Tensor<f64, Shape![2, 3]>`.
///
/// - **Rows.** A bracket group `[...]` standing alone as an entry is a row, one
///   more dimension; anything else is an element, any expression. The outer
///   brackets of `tensor![...]` are the outermost row. Rows at the same depth
///   must have the same length, and every element must sit at the same depth;
///   a ragged or mixed literal is a compile error on the row or element that
///   breaks it. Rows nest to any depth up to the highest static rank, 12
///   ([`MAX_STATIC_RANK`]).
/// - **Sizes.** Each size is static: `Const<N>`, or `One` for size 1 (so
///   `tensor![[1., 2.]]` has shape `(One, Const<2>)`, `Shape![1, 2]`). An empty
///   row is a size 0: `tensor![[], []]` has shape `Shape![2, 0]` and
///   `tensor![]` has shape `Shape![0]` (these need a type annotation for the
///   element type).
/// - **Scalars.** A single element with no comma is a 0-d tensor, shape `()`:
///   `tensor!(3.0)`. A macro cannot tell `tensor!(x)` from `tensor![x]`, so a
///   1-d tensor of one element is written with a trailing comma,
///   `tensor![x,]`, as a one-element tuple is.
/// - **Repeat.** `tensor![value; 3, 4]` is a tensor of static shape
///   `Shape![3, 4]` filled with `value`, as `vec![value; n]` is (it calls
///   `Tensor::full`). Sizes are integer literals.
/// - **Element type.** Inferred as for an array literal: from a suffix
///   (`1i64`), a type annotation on the result, or the element expressions;
///   floating-point literals nothing constrains are `f64`, integer ones `i32`.
///
/// The expansion is one `Tensor::<_, Shape>::from_vec(vec![...])` holding the
/// elements row-major, in the order they are written, so it compiles in time
/// linear in the number of elements.
///
/// [`MAX_STATIC_RANK`]: https://docs.rs/shaped/latest/shaped/shape/constant.MAX_STATIC_RANK.html
///
/// # Examples
///
/// ```
/// use shaped::{tensor, One, Shape, Tensor};
///
/// // Unconstrained floats are `f64`; the shape is in the type.
/// let a: Tensor<f64, Shape![2, 3]> = tensor![[1., 2., 3.], [4., 5., 6.]];
/// assert_eq!(a.dims(), &[2, 3]);
/// assert_eq!(a.to_vec(), vec![1., 2., 3., 4., 5., 6.]);
///
/// // Elements are expressions; a type annotation picks the element type.
/// let x = 0.5;
/// let b: Tensor<f32, _> = tensor![[x, x * 2.0], [-x, 1.0 + x]];
/// assert_eq!(b.to_vec(), vec![0.5f32, 1.0, -0.5, 1.5]);
///
/// // Size 1 is `One`, the dimension that broadcasts.
/// let row: Tensor<i64, (One, shaped::Const<2>)> = tensor![[1i64, 2]];
/// assert_eq!(row.dims(), &[1, 2]);
///
/// // A scalar, a one-element vector, and a repeat.
/// assert_eq!(tensor!(3.0).item(), 3.0);
/// let v: Tensor<i32, Shape![1]> = tensor![7,];
/// assert_eq!(v.to_vec(), vec![7]);
/// let z: Tensor<u8, Shape![3, 4]> = tensor![9; 3, 4];
/// assert_eq!(z.to_vec(), vec![9; 12]);
///
/// // Empty dimensions.
/// let e: Tensor<f32, Shape![2, 0]> = tensor![[], []];
/// assert_eq!(e.dims(), &[2, 0]);
/// ```
///
/// A ragged literal does not compile:
///
/// ```compile_fail
/// let t = shaped::tensor![[1., 2.], [3.]];
/// // error: this row has 1 element, but the first row has 2; ...
/// ```
#[proc_macro]
pub fn tensor(input: TokenStream) -> TokenStream {
    tensor_literal::expand(input.into())
        .unwrap_or_else(tensor_literal::errors)
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

/// Stamps out `SplitsInto<H, E> for C` wherever `C = H x E`, for up to the
/// given number of heads and head widths that are multiples of 8 up to the
/// given width.
///
/// Used once, inside `shaped::shape`; not part of the public API.
#[doc(hidden)]
#[proc_macro]
pub fn __split_impls(input: TokenStream) -> TokenStream {
    split_impls::expand(input.into())
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

/// Derives `shaped::nn::Parameters` for a struct: its parameters are those of
/// its fields, in declaration order; a field marked `#[param(skip)]` is left
/// out. In a state dict a parameter is named by the path of fields to it
/// (`encoder.layer.0.query.weight`, as PyTorch names them); a field marked
/// `#[param(rename = "name")]` is called `name` there (for a checkpoint
/// whose names are not Rust identifiers, `LayerNorm` or `self`). The impl is
/// generic over the element type, with a bound `Field: Parameters<T>` per
/// field.
///
/// # Examples
///
/// ```
/// use shaped::nn::{Linear, Parameters};
/// use shaped::Const;
///
/// #[derive(Parameters)]
/// struct Mlp {
///     a: Linear<Const<4>, Const<8>>,
///     b: Linear<Const<8>, Const<2>>,
///     #[param(skip)]
///     steps: usize,
/// }
/// let m = Mlp { a: Linear::new(0), b: Linear::new(1), steps: 0 };
/// assert_eq!(m.num_params(), 4 * 8 + 8 + 8 * 2 + 2);
///
/// #[derive(Parameters)]
/// struct Block {
///     #[param(rename = "LayerNorm")]
///     norm: shaped::nn::LayerNorm<Const<8>>,
/// }
/// let names: Vec<String> = Block { norm: Default::default() }
///     .named_params().into_iter().map(|(n, _)| n).collect();
/// assert_eq!(names, ["LayerNorm.weight", "LayerNorm.bias"]);
/// ```
#[proc_macro_derive(Parameters, attributes(param))]
pub fn derive_parameters(input: TokenStream) -> TokenStream {
    parameters::expand(input.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
