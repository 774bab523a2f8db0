//! Each batched and fused product's whole static rule as one trait bound on
//! the shape of its last operand ([`ProductRule`]), so that a mismatch is
//! reported once, at the call, without a quote of the method's bounds.
//!
//! A method bounds `SB: ProductRule<Op, SA, S>` and names the projection in
//! a second, always true bound (`SB::Product: Shape`). `SB` is inferred from
//! an argument, so rustc checks the rule when it normalizes the projection at
//! the call: the error carries the failing per-dimension rule's message
//! ([`ContractsWith`], [`SameBatch`], [`FitsProduct`], [`AddendDim`](super::AddendDim)
//! through [`AddendShape`]) and ends with one "required for ... `ProductRule`"
//! note instead of the method's signature.
//!
//! ```
//! use shaped::{Shape, ops::matmul::{ProductRule, product_op::Addmm}};
//! // addmm: (2, 4) @ (4, 5) plus an input (5,) broadcast to (2, 5).
//! let _: <Shape![4, 5] as ProductRule<Addmm, Shape![2, 4], Shape![5]>>::Product =
//!     <Shape![2, 5]>::default();
//! ```

use super::shape::{
    AddendShape, BatchMatrixOut, BatchOut, BatchShape, ContractsWith, FitsProduct, MatrixOut,
    MatrixShape, OuterOut, SameBatch, VectorShape,
};
use crate::shape::Shape;

/// The static rule of product `Op` with `Self` the shape of its last
/// operand, `SA` of the one before it and `S` of `self` (`()` for `bmm`,
/// which has no input): `Product` is the product's shape.
///
/// ```
/// use shaped::{Shape, ops::matmul::{ProductRule, product_op::Bmm}};
/// let _: <Shape![4, 3, 5] as ProductRule<Bmm, Shape![4, 2, 3], ()>>::Product =
///     <Shape![4, 2, 5]>::default();
/// ```
pub trait ProductRule<Op, SA, S>: Shape {
    /// The shape of the product.
    type Product: Shape;
}

/// The products, as markers of [`ProductRule`]; a trailing `InPlace` is the
/// in-place form (`addmm_`), whose input must have the product's shape.
pub mod product_op {
    /// `bmm`.
    ///
    /// ```
    /// let _ = shaped::ops::matmul::product_op::Bmm;
    /// ```
    pub struct Bmm;
    /// `addmm`.
    ///
    /// ```
    /// let _ = shaped::ops::matmul::product_op::Addmm;
    /// ```
    pub struct Addmm;
    /// `addmm_`.
    ///
    /// ```
    /// let _ = shaped::ops::matmul::product_op::AddmmInPlace;
    /// ```
    pub struct AddmmInPlace;
    /// `addmv`.
    ///
    /// ```
    /// let _ = shaped::ops::matmul::product_op::Addmv;
    /// ```
    pub struct Addmv;
    /// `addmv_`.
    ///
    /// ```
    /// let _ = shaped::ops::matmul::product_op::AddmvInPlace;
    /// ```
    pub struct AddmvInPlace;
    /// `addr`.
    ///
    /// ```
    /// let _ = shaped::ops::matmul::product_op::Addr;
    /// ```
    pub struct Addr;
    /// `addr_`.
    ///
    /// ```
    /// let _ = shaped::ops::matmul::product_op::AddrInPlace;
    /// ```
    pub struct AddrInPlace;
    /// `baddbmm`.
    ///
    /// ```
    /// let _ = shaped::ops::matmul::product_op::Baddbmm;
    /// ```
    pub struct Baddbmm;
    /// `baddbmm_`.
    ///
    /// ```
    /// let _ = shaped::ops::matmul::product_op::BaddbmmInPlace;
    /// ```
    pub struct BaddbmmInPlace;
    /// `addbmm`.
    ///
    /// ```
    /// let _ = shaped::ops::matmul::product_op::Addbmm;
    /// ```
    pub struct Addbmm;
    /// `addbmm_`.
    ///
    /// ```
    /// let _ = shaped::ops::matmul::product_op::AddbmmInPlace;
    /// ```
    pub struct AddbmmInPlace;
}

use product_op::{
    Addbmm, AddbmmInPlace, Addmm, AddmmInPlace, Addmv, AddmvInPlace, Addr, AddrInPlace, Baddbmm,
    BaddbmmInPlace, Bmm,
};

/// `bmm`: equal batches, inner sizes equal
impl<SA: BatchShape, SB: BatchShape> ProductRule<Bmm, SA, ()> for SB
where
    SA::Batch: SameBatch<SB::Batch>,
    SA::Cols: ContractsWith<SB::Rows>,
{
    type Product = BatchOut<SA, SB>;
}

/// `addmm`: inner sizes equal, the input broadcasts to the product
impl<SA: MatrixShape, SB: MatrixShape, S: Shape> ProductRule<Addmm, SA, S> for SB
where
    SA::Cols: ContractsWith<SB::Rows>,
    S: AddendShape<MatrixOut<SA, SB>>,
{
    type Product = MatrixOut<SA, SB>;
}

/// `addmm_`: inner sizes equal, the input has the product's shape
impl<SA: MatrixShape, SB: MatrixShape, S: MatrixShape> ProductRule<AddmmInPlace, SA, S> for SB
where
    SA::Cols: ContractsWith<SB::Rows>,
    S::Rows: FitsProduct<SA::Rows>,
    S::Cols: FitsProduct<SB::Cols>,
{
    type Product = MatrixOut<SA, SB>;
}

/// `addmv`: the matrix's columns are the vector's length, the input
/// broadcasts to the product
impl<SA: MatrixShape, SV: VectorShape, S: Shape> ProductRule<Addmv, SA, S> for SV
where
    SA::Cols: ContractsWith<SV::Len>,
    S: AddendShape<(SA::Rows,)>,
{
    type Product = (SA::Rows,);
}

/// `addmv_`: the matrix's columns are the vector's length, the input has the
/// product's length
impl<SA: MatrixShape, SV: VectorShape, S: VectorShape> ProductRule<AddmvInPlace, SA, S> for SV
where
    SA::Cols: ContractsWith<SV::Len>,
    S::Len: FitsProduct<SA::Rows>,
{
    type Product = (SA::Rows,);
}

/// `addr`: the input broadcasts to the outer product
impl<S1: VectorShape, S2: VectorShape, S: Shape> ProductRule<Addr, S1, S> for S2
where
    S: AddendShape<OuterOut<S1, S2>>,
{
    type Product = OuterOut<S1, S2>;
}

/// `addr_`: the input has the outer product's shape
impl<S1: VectorShape, S2: VectorShape, S: MatrixShape> ProductRule<AddrInPlace, S1, S> for S2
where
    S::Rows: FitsProduct<S1::Len>,
    S::Cols: FitsProduct<S2::Len>,
{
    type Product = OuterOut<S1, S2>;
}

/// `baddbmm`: `bmm`'s rule, the input broadcasts to the product
impl<SA: BatchShape, SB: BatchShape, S: Shape> ProductRule<Baddbmm, SA, S> for SB
where
    SA::Batch: SameBatch<SB::Batch>,
    SA::Cols: ContractsWith<SB::Rows>,
    S: AddendShape<BatchOut<SA, SB>>,
{
    type Product = BatchOut<SA, SB>;
}

/// `baddbmm_`: `bmm`'s rule, the input has the product's shape
impl<SA: BatchShape, SB: BatchShape, S: BatchShape> ProductRule<BaddbmmInPlace, SA, S> for SB
where
    SA::Batch: SameBatch<SB::Batch>,
    SA::Cols: ContractsWith<SB::Rows>,
    S::Batch: FitsProduct<SA::Batch>,
    S::Rows: FitsProduct<SA::Rows>,
    S::Cols: FitsProduct<SB::Cols>,
{
    type Product = BatchOut<SA, SB>;
}

/// `addbmm`: `bmm`'s rule, the input broadcasts to the sum of the products
impl<SA: BatchShape, SB: BatchShape, S: Shape> ProductRule<Addbmm, SA, S> for SB
where
    SA::Batch: SameBatch<SB::Batch>,
    SA::Cols: ContractsWith<SB::Rows>,
    S: AddendShape<BatchMatrixOut<SA, SB>>,
{
    type Product = BatchMatrixOut<SA, SB>;
}

/// `addbmm_`: `bmm`'s rule, the input has the shape of the sum of the
/// products
impl<SA: BatchShape, SB: BatchShape, S: MatrixShape> ProductRule<AddbmmInPlace, SA, S> for SB
where
    SA::Batch: SameBatch<SB::Batch>,
    SA::Cols: ContractsWith<SB::Rows>,
    S::Rows: FitsProduct<SA::Rows>,
    S::Cols: FitsProduct<SB::Cols>,
{
    type Product = BatchMatrixOut<SA, SB>;
}
