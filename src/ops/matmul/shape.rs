//! The shape rules of matrix products at the type level.
//!
//! Three per-dimension rules state when two sizes must be equal, each with
//! its own message so that an error says which rule broke:
//! [`ContractsWith`] (the inner sizes of a product), [`SameBatch`] (the batch
//! sizes of `bmm` and its fused kin) and [`FitsProduct`] (the input of an
//! in-place fused product). Batch dimensions of `matmul` broadcast through
//! [`BroadcastDim`](crate::BroadcastDim), as pointwise operations do, and the
//! added input of a fused product broadcasts to the product through
//! [`AddendDim`].
//!
//! Shape-level rules ([`MatmulShape`], [`AddendShape`]) are generated for
//! every pair of tuple ranks by `shaped_macros::__matmul_impls!` and hidden
//! behind one blanket impl each, as [`BroadcastShape`](crate::BroadcastShape)
//! is, so that an error names the two sizes and no list of other impls.
//!
//! ```
//! use shaped::{Shape, ops::matmul::Matmul};
//! // NumPy's matmul example: (2,5,7) @ (5,2,7,3) -> (5,2,5,3).
//! let _: Matmul<Shape![2, 5, 7], Shape![5, 2, 7, 3]> = <Shape![5, 2, 5, 3]>::default();
//! // 1-D operands are promoted, and the promoted 1 removed again.
//! let _: Matmul<Shape![7], Shape![4, 7, 3]> = <Shape![4, 3]>::default();
//! let _: Matmul<Shape![4, 7], Shape![7]> = <Shape![4]>::default();
//! let _: Matmul<Shape![7], Shape![7]> = ();
//! ```

use crate::shape::{BroadcastDim, Dim, DimExpandsTo, Dyn, DynRank, EqualOutput, SameDim, Shape};

/// Declares a rule "these two sizes are equal" over [`SameDim`]: the static
/// size wins over `Dyn` (checked at run time), as nalgebra's `DimEq` picks
/// its representative. One blanket impl, left out of error reports, so that a
/// mismatch is reported with this rule's own message.
macro_rules! equal_sizes {
    (
        $(#[$doc:meta])*
        $name:ident: $message:literal, $label:literal, $note:literal
    ) => {
        $(#[$doc])*
        #[diagnostic::on_unimplemented(message = $message, label = $label, note = $note)]
        pub trait $name<Rhs: Dim>: EqualOutput<Rhs> {
            /// The size both have: the static one where the other is `Dyn`.
            type Output: Dim;
        }

        /// Any pair with a [`SameDim`] rule.
        #[diagnostic::do_not_recommend]
        impl<A: SameDim<B> + EqualOutput<B>, B: Dim> $name<B> for A {
            type Output = <A as SameDim<B>>::Output;
        }
    };
}

equal_sizes! {
    /// The inner (contracted) sizes of a product agree: the last dimension of
    /// the left operand and the second-to-last of the right one (the only one
    /// of a vector).
    ///
    /// ```
    /// use shaped::{Const, Dyn, ops::matmul::ContractsWith};
    /// let _: <Const<3> as ContractsWith<Dyn>>::Output = Const::<3>;
    /// fn check<A: ContractsWith<B>, B: shaped::Dim>() {}
    /// check::<Const<7>, Const<7>>();
    /// ```
    ContractsWith:
        "matrix shapes cannot be multiplied: the left operand has `{Self}` columns but the right operand has `{Rhs}` rows",
        "the inner sizes of this product differ",
        "`a @ b` contracts the last dimension of `a` with the second-to-last dimension of `b` (the only one of a 1-D `b`): these two sizes must be equal"
}

equal_sizes! {
    /// The batch sizes of `bmm`, `baddbmm` and `addbmm` agree (these do not
    /// broadcast the batch dimension; `matmul` does).
    ///
    /// ```
    /// use shaped::{Const, Dyn, ops::matmul::SameBatch};
    /// let _: <Dyn as SameBatch<Const<8>>>::Output = Const::<8>;
    /// ```
    SameBatch:
        "batch mismatch: the left batch has size `{Self}` but the right batch has size `{Rhs}`",
        "the batch sizes of this batched product differ",
        "`bmm`, `baddbmm` and `addbmm` need the same number of matrices on both sides and do not broadcast it; `matmul` broadcasts batch dimensions"
}

equal_sizes! {
    /// A dimension of the input of an in-place fused product (`addmm_`, ...)
    /// equals the product's: the input is written in place and keeps its
    /// shape.
    ///
    /// ```
    /// use shaped::{Const, Dyn, ops::matmul::FitsProduct};
    /// fn check<A: FitsProduct<B>, B: shaped::Dim>() {}
    /// check::<Const<4>, Dyn>();
    /// ```
    FitsProduct:
        "in-place shape mismatch: the input has a dimension of size `{Self}` where the product has size `{Rhs}`",
        "the in-place input cannot hold this product",
        "an in-place fused product (`addmm_`, `addmv_`, `addr_`, `baddbmm_`, `addbmm_`) writes the product into its input, which must already have the product's shape"
}

/// A dimension of the added input of a fused product (`addmm`, ...)
/// broadcasts to the product's size `Target`: it is 1 or equal to it.
///
/// ```
/// use shaped::{Const, One, ops::matmul::AddendDim};
/// fn check<A: AddendDim<B>, B: shaped::Dim>() {}
/// check::<One, Const<7>>();
/// ```
#[diagnostic::on_unimplemented(
    message = "shape mismatch: the added input has a dimension of size `{Self}`, which cannot broadcast to the product's size `{Target}`",
    label = "this input does not broadcast to the shape of the product",
    note = "the input of `addmm`, `addmv`, `addr`, `baddbmm` and `addbmm` broadcasts to the shape of the product: each of its sizes must be 1 (`One`) or the product's size"
)]
pub trait AddendDim<Target: Dim> {}

/// Any pair with a [`DimExpandsTo`] rule: `One` or the same size (a `Dyn`
/// checked at run time).
#[diagnostic::do_not_recommend]
impl<A: DimExpandsTo<B>, B: Dim> AddendDim<B> for A {}

/// [`BroadcastDim`] for the batch dimensions of `matmul`, at dimension `DIM`
/// of the broadcast batch (counted from the left): the bound the `matmul`
/// rule states, so that a mismatch says it is the batch.
///
/// ```
/// use shaped::{Const, One, ops::matmul::BatchBroadcastsAt};
/// let _: <One as BatchBroadcastsAt<Const<4>, 0>>::Output = Const::<4>;
/// ```
#[diagnostic::on_unimplemented(
    message = "matmul batch mismatch: the batch size `{Self}` of the left operand must match the batch size `{Rhs}` of the right operand at batch dimension {DIM}",
    label = "the batch dimensions of these operands do not broadcast",
    note = "`matmul` broadcasts the batch dimensions (all but the last two): two batch sizes must be equal or one of them 1 (`One`); for fixed sizes, `.unsqueeze::<K>()` adds a size-1 batch axis; for two generic sizes that are equal, say so with `B: EqualDim<C>`, or check them at run time with `.into_dyn()` on one operand"
)]
pub trait BatchBroadcastsAt<Rhs: Dim, const DIM: usize> {
    /// The broadcast batch size.
    type Output: Dim;
}

/// Any pair with a [`BroadcastDim`] rule.
#[diagnostic::do_not_recommend]
impl<A: BroadcastDim<B>, B: Dim, const DIM: usize> BatchBroadcastsAt<B, DIM> for A {
    type Output = <A as BroadcastDim<B>>::Output;
}

/// A **type operator** giving the shape of `matmul(Self, Rhs)` with NumPy's
/// rules: 1-D operands are promoted to matrices (a 1 prepended on the left,
/// appended on the right) and the promoted 1 is removed from the result; the
/// contracted sizes must agree ([`ContractsWith`]); the batch dimensions
/// (all but the last two) broadcast ([`BroadcastDim`](crate::BroadcastDim)).
///
/// A [`DynRank`] operand gives `DynRank`; a 0-d operand has no rule.
///
/// ```
/// use shaped::{DynRank, Shape, ops::matmul::MatmulShape};
/// let _: <Shape![3, 1, 4, 5] as MatmulShape<Shape![2, 5, _]>>::Output =
///     <Shape![3, 2, 4, _]>::default();
/// let _: <DynRank as MatmulShape<Shape![5]>>::Output = DynRank;
/// ```
#[diagnostic::on_unimplemented(
    message = "`matmul` has no rule for the shapes `{Self}` and `{Rhs}`",
    label = "these shapes cannot be multiplied",
    note = "both operands need at least 1 dimension; static shapes multiply at compile time up to rank 12, use `DynRank` beyond"
)]
pub trait MatmulShape<Rhs: Shape> {
    /// The shape of the product.
    type Output: Shape;
}

/// `A @ B`, for every pair of shapes with a rule.
impl<A: Shape + MatmulPair<B>, B: Shape> MatmulShape<B> for A {
    type Output = <A as MatmulPair<B>>::Output;
}

/// The matmul rule for one pair of shapes, generated for every pair of tuple
/// ranks from 1 to 12; hidden behind [`MatmulShape`] so that errors list no
/// other impls.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`matmul` has no rule for the shapes `{Self}` and `{Rhs}`",
    label = "these shapes cannot be multiplied",
    note = "both operands need at least 1 dimension; static shapes multiply at compile time up to rank 12, use `DynRank` beyond"
)]
pub trait MatmulPair<Rhs> {
    /// The shape of the product.
    type Output: Shape;
}

/// `DynRank @ S = DynRank`, checked at run time
impl<S: Shape> MatmulPair<S> for DynRank {
    type Output = DynRank;
}

/// Short name for the shape of `matmul(A, B)`.
///
/// ```
/// use shaped::{Shape, ops::matmul::Matmul};
/// let _: Matmul<Shape![2, 5, 7], Shape![7, 3]> = <Shape![2, 5, 3]>::default();
/// ```
pub type Matmul<A, B> = <A as MatmulShape<B>>::Output;

/// The length of `A` by the length of `B`: the shape of `outer` and `addr`.
pub(super) type OuterOut<A, B> = (<A as VectorShape>::Len, <B as VectorShape>::Len);
/// Rows of `A` by columns of `B`: the shape of `mm` and `addmm`.
pub(super) type MatrixOut<A, B> = (<A as MatrixShape>::Rows, <B as MatrixShape>::Cols);

/// `S` and `Self` are the shapes of `torch.mm`'s operands (`self` and
/// `mat2`): both matrices, with contracted sizes that agree
/// ([`ContractsWith`]); `Output` is the product's shape.
///
/// The bound sits on the method's own parameter (`mat2`'s shape), so that a
/// 3-D `self` is reported by [`MatrixShape`]'s message ("expected a matrix
/// (2 dimensions), found a tensor of shape ...") instead of as a method whose
/// bounds are not met.
///
/// ```
/// use shaped::{Shape, ops::matmul::MmWith};
/// let _: <Shape![3, 4] as MmWith<Shape![2, 3]>>::Output = (shaped::Const::<2>, shaped::Const::<4>);
/// ```
pub trait MmWith<S: Shape>: Shape {
    /// The product's shape: `self`'s rows by `mat2`'s columns.
    type Output: Shape;
}

/// Two matrices whose inner sizes agree
impl<S: MatrixShape, S2: MatrixShape> MmWith<S> for S2
where
    S::Cols: ContractsWith<S2::Rows>,
{
    type Output = (S::Rows, S2::Cols);
}
/// Rows of a batch `A` by columns of a batch `B`: the shape of `addbmm`.
pub(super) type BatchMatrixOut<A, B> = (<A as BatchShape>::Rows, <B as BatchShape>::Cols);
/// The batch of `A` and `B`, rows of `A` by columns of `B`: the shape of
/// `bmm` and `baddbmm`.
pub(crate) type BatchOut<A, B> = (
    <<A as BatchShape>::Batch as EqualOutput<<B as BatchShape>::Batch>>::Output,
    <A as BatchShape>::Rows,
    <B as BatchShape>::Cols,
);

/// The added input of a fused product broadcasts to the product's shape
/// `Product`: trailing dimensions aligned, no more dimensions than the
/// product, each aligned pair [`AddendDim`]. A [`DynRank`] input is checked
/// at run time.
///
/// ```
/// use shaped::{DynRank, Shape, ops::matmul::AddendShape};
/// fn check<C: AddendShape<P>, P: shaped::shape::Shape>() {}
/// check::<Shape![3], Shape![4, 3]>();
/// check::<Shape![4, 1], Shape![4, 3]>();
/// check::<DynRank, Shape![4, 3]>();
/// ```
#[diagnostic::on_unimplemented(
    message = "the added input of shape `{Self}` cannot broadcast to the product's shape `{Product}`",
    label = "it has more dimensions than the product",
    note = "the input of a fused product broadcasts to the product's shape, so it has at most as many dimensions"
)]
pub trait AddendShape<Product: Shape>: Shape {}

/// `C → P` for every pair of shapes with a rule.
impl<C: Shape + AddendPair<P>, P: Shape> AddendShape<P> for C {}

/// The addend rule for one pair of shapes, generated for products of rank 1
/// to 3; hidden behind [`AddendShape`].
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "the added input of shape `{Self}` cannot broadcast to the product's shape `{Product}`",
    label = "it has more dimensions than the product",
    note = "the input of a fused product broadcasts to the product's shape, so it has at most as many dimensions"
)]
pub trait AddendPair<Product> {}

/// `DynRank → P`, checked at run time
impl<P: Shape> AddendPair<P> for DynRank {}

/// A shape that can be a vector: `(N,)`, or [`DynRank`] (its rank checked at
/// run time).
///
/// ```
/// use shaped::{Const, Dyn, DynRank, Shape, ops::matmul::VectorShape};
/// let _: <Shape![5] as VectorShape>::Len = Const::<5>;
/// let _: <DynRank as VectorShape>::Len = Dyn;
/// ```
#[diagnostic::on_unimplemented(
    message = "expected a vector (1 dimension), found a tensor of shape `{Self}`",
    label = "not 1-D",
    note = "`mv`, `dot`, `outer` and their fused forms take vectors where PyTorch does; `matmul` takes any rank"
)]
pub trait VectorShape: Shape {
    /// The length.
    type Len: Dim;
}

/// `(N,)` has length `N`
#[diagnostic::do_not_recommend]
impl<N: Dim> VectorShape for (N,) {
    type Len = N;
}

/// `DynRank` has a run-time length, and its rank is checked at run time
#[diagnostic::do_not_recommend]
impl VectorShape for DynRank {
    type Len = Dyn;
}

/// A shape that can be a matrix: `(R, C)`, or [`DynRank`] (its rank checked
/// at run time).
///
/// ```
/// use shaped::{Const, Dyn, Shape, ops::matmul::MatrixShape};
/// let _: <Shape![2, _] as MatrixShape>::Cols = Dyn;
/// let _: <Shape![2, _] as MatrixShape>::Rows = Const::<2>;
/// ```
#[diagnostic::on_unimplemented(
    message = "expected a matrix (2 dimensions), found a tensor of shape `{Self}`",
    label = "not 2-D",
    note = "`mm`, `mv`, `addmm` and `addmv` take matrices where PyTorch does; `matmul` takes any rank"
)]
pub trait MatrixShape: Shape {
    /// The number of rows.
    type Rows: Dim;
    /// The number of columns.
    type Cols: Dim;
}

/// `(R, C)` has `R` rows and `C` columns
#[diagnostic::do_not_recommend]
impl<R: Dim, C: Dim> MatrixShape for (R, C) {
    type Rows = R;
    type Cols = C;
}

/// `DynRank` has run-time sizes, and its rank is checked at run time
#[diagnostic::do_not_recommend]
impl MatrixShape for DynRank {
    type Rows = Dyn;
    type Cols = Dyn;
}

/// A shape that can be a batch of matrices: `(B, R, C)`, or [`DynRank`]
/// (its rank checked at run time).
///
/// ```
/// use shaped::{Const, Shape, ops::matmul::BatchShape};
/// let _: <Shape![8, 2, 3] as BatchShape>::Batch = Const::<8>;
/// ```
#[diagnostic::on_unimplemented(
    message = "expected a batch of matrices (3 dimensions), found a tensor of shape `{Self}`",
    label = "not 3-D",
    note = "`bmm`, `baddbmm` and `addbmm` take 3-D batches where PyTorch does; `matmul` broadcasts any number of batch dimensions"
)]
pub trait BatchShape: Shape {
    /// The number of matrices.
    type Batch: Dim;
    /// The number of rows of each.
    type Rows: Dim;
    /// The number of columns of each.
    type Cols: Dim;
}

/// `(B, R, C)` is `B` matrices of `R` rows and `C` columns
#[diagnostic::do_not_recommend]
impl<B: Dim, R: Dim, C: Dim> BatchShape for (B, R, C) {
    type Batch = B;
    type Rows = R;
    type Cols = C;
}

/// `DynRank` has run-time sizes, and its rank is checked at run time
#[diagnostic::do_not_recommend]
impl BatchShape for DynRank {
    type Batch = Dyn;
    type Rows = Dyn;
    type Cols = Dyn;
}

shaped_macros::__matmul_impls!(12);
