//! The type-level rules of batched linear algebra: a shape is a batch of
//! matrices `(..., m, n)`; square-ness and matching inner sizes are checked by
//! the trait solver where the sizes are static, and at run time where they are
//! [`Dyn`] or the rank is [`DynRank`].
//!
//! ```
//! use shaped::{Shape, linalg::{Matrices, SquareMatrices, WithTail}};
//! let _: <Shape![2, 3, 4, 4] as Matrices>::Batch = <Shape![2, 3]>::default();
//! let _: <Shape![_, 4] as SquareMatrices>::N = shaped::Const::<4>;
//! let _: <Shape![2] as WithTail>::Mat<shaped::Dyn, shaped::One> = <Shape![2, _, 1]>::default();
//! ```

use crate::shape::{Broadcast, BroadcastShape, Dim, Dyn, DynRank, EqualOutput, SameDim, Shape};

/// A shape to which matrix or vector dimensions can be appended: a batch
/// prefix. Implemented for tuples up to rank 10 and for [`DynRank`].
///
/// ```
/// use shaped::{Const, Shape, linalg::WithTail};
/// let _: <Shape![5] as WithTail>::Vec<Const<3>> = <Shape![5, 3]>::default();
/// ```
pub trait WithTail: Shape {
    /// This batch of `R` by `C` matrices.
    type Mat<R: Dim, C: Dim>: Shape;
    /// This batch of vectors of length `N`.
    type Vec<N: Dim>: Shape;
}

/// A shape `(..., m, n)`: a batch of matrices (rank at least 2, or
/// [`DynRank`], whose rank is checked at run time).
///
/// ```
/// use shaped::{Const, Shape, linalg::Matrices};
/// let _: <Shape![7, 2, 3] as Matrices>::Cols = Const::<3>;
/// ```
#[diagnostic::on_unimplemented(
    message = "linalg: expected a batch of matrices, but `{Self}` has fewer than 2 dimensions",
    label = "not a batch of matrices",
    note = "linear algebra functions take shapes `(..., m, n)`: the last two dimensions are the matrix"
)]
pub trait Matrices: Shape {
    /// The batch dimensions `...`.
    type Batch: WithTail;
    /// The number of rows `m`.
    type Rows: Dim;
    /// The number of columns `n`.
    type Cols: Dim;
}

/// A shape `(..., n)`: a batch of vectors (rank at least 1, or [`DynRank`]).
///
/// ```
/// use shaped::{Const, Shape, linalg::Vectors};
/// let _: <Shape![7, 3] as Vectors>::Len = Const::<3>;
/// ```
#[diagnostic::on_unimplemented(
    message = "linalg: expected a batch of vectors, but `{Self}` has no dimensions",
    label = "not a batch of vectors"
)]
pub trait Vectors: Shape {
    /// The batch dimensions.
    type Batch: WithTail;
    /// The length of each vector.
    type Len: Dim;
}

/// A batch of square matrices `(..., n, n)`.
///
/// Implemented when the last two dimensions are the same static size, or when
/// either is [`Dyn`] (then checked at run time).
///
/// ```
/// use shaped::{Const, Shape, linalg::SquareMatrices};
/// let _: <Shape![2, 3, 3] as SquareMatrices>::N = Const::<3>;
/// let _: <Shape![3, _] as SquareMatrices>::N = Const::<3>;
/// ```
#[diagnostic::on_unimplemented(
    message = "linalg: expected square matrices, but the last two dimensions of `{Self}` differ",
    label = "not a batch of square matrices",
    note = "this function takes shapes `(..., n, n)`; a `Dyn` size is checked at run time"
)]
pub trait SquareMatrices: Matrices {
    /// The size `n` of each matrix (static if either of the two is).
    type N: Dim;
}

/// Square when the two sizes match by [`MatchDim`]. Not recommended in
/// errors, so that a failure is reported on the whole shape with the message
/// above rather than on the two sizes, and with no list of impls.
#[diagnostic::do_not_recommend]
impl<S> SquareMatrices for S
where
    S: Matrices,
    S::Rows: SquareDim<S::Cols>,
{
    type N = <S::Rows as SquareDim<S::Cols>>::Output;
}

/// The two sizes of a square matrix: [`MatchDim`] with the square rule's
/// message, reported when a function names [`SquareMatrices::N`] in its
/// bounds (`S::N: Dim`), which makes the compiler check the rule at the call
/// through that projection and report it once, with no quote of the bounds.
///
/// ```
/// use shaped::{Const, Dyn, linalg::SquareDim};
/// let _: <Dyn as SquareDim<Const<4>>>::Output = Const::<4>;
/// ```
#[diagnostic::on_unimplemented(
    message = "linalg: expected square matrices, but the last two dimensions have sizes `{Self}` and `{Cols}`",
    label = "not a batch of square matrices",
    note = "this function takes shapes `(..., n, n)`; a `Dyn` size is checked at run time"
)]
pub trait SquareDim<Cols: Dim>: Dim {
    /// The common size.
    type Output: Dim;
}

/// Any pair with a [`SameDim`] rule, as [`MatchDim`].
#[diagnostic::do_not_recommend]
impl<A: Dim + SameDim<B>, B: Dim> SquareDim<B> for A {
    type Output = <A as SameDim<B>>::Output;
}

/// Two sizes that must be equal: the inner sizes of a product, or the rows of
/// a matrix and of its right-hand side. `Output` is the static one where
/// either is static; [`Dyn`] sizes are checked at run time.
///
/// ```
/// use shaped::{Const, Dyn, linalg::MatchDim};
/// let _: <Dyn as MatchDim<Const<4>>>::Output = Const::<4>;
/// ```
#[diagnostic::on_unimplemented(
    message = "linalg: the matrix sizes `{Self}` and `{Rhs}` must be equal",
    label = "the matrices' sizes do not match"
)]
pub trait MatchDim<Rhs: Dim>: Dim {
    /// The common size.
    type Output: Dim;
}

/// Any pair with a [`SameDim`] rule: equal, or one of them `Dyn` (checked at
/// run time); a generic `N` matches itself.
#[diagnostic::do_not_recommend]
impl<A: Dim + SameDim<B>, B: Dim> MatchDim<B> for A {
    type Output = <A as SameDim<B>>::Output;
}

/// The shape of the solution `X` of `A X = B` for a batch of square `A`
/// (`Self`) and of right-hand sides `B`: the batch dimensions broadcast.
///
/// ```
/// use shaped::{Shape, linalg::SolveOutput};
/// let _: <Shape![2, 1, 4, 4] as SolveOutput<Shape![3, 4, 5]>>::Output =
///     <Shape![2, 3, 4, 5]>::default();
/// ```
#[diagnostic::on_unimplemented(
    message = "linalg: cannot solve A X = B for A of shape `{Self}` and B of shape `{B}`",
    label = "A and B do not fit A X = B",
    note = "A must be square matrices `(..., n, n)` and B `(..., n, k)` with the same n; their batch dimensions `...` broadcast"
)]
pub trait SolveShape<B: Shape>: SquareMatrices + SolveOutput<B> {}

/// The shape of `X` in `A X = B`, computed for any batches of matrices
/// whether or not the sizes `n` match: the rule [`SolveShape`] checks them,
/// so that a mismatch is reported once, with its message.
///
/// ```
/// use shaped::{Shape, linalg::SolveOutput};
/// let _: <Shape![4, 4] as SolveOutput<Shape![4, 2]>>::Output = <Shape![4, 2]>::default();
/// ```
pub trait SolveOutput<B: Shape> {
    /// The shape of `X`.
    type Output: Shape;
}

/// `(batch, n, k)`, `n` static where any of the three sizes is.
impl<A, B> SolveOutput<B> for A
where
    A: Matrices,
    B: Matrices,
    A::Rows: EqualOutput<A::Cols>,
    <A::Rows as EqualOutput<A::Cols>>::Output: EqualOutput<B::Rows>,
    A::Batch: BroadcastShape<B::Batch>,
    Broadcast<A::Batch, B::Batch>: WithTail,
{
    type Output = <Broadcast<A::Batch, B::Batch> as WithTail>::Mat<
        <<A::Rows as EqualOutput<A::Cols>>::Output as EqualOutput<B::Rows>>::Output,
        B::Cols,
    >;
}

#[diagnostic::do_not_recommend]
impl<A, B> SolveShape<B> for A
where
    A: SquareMatrices,
    B: Matrices,
    A::N: MatchDim<B::Rows>,
    A: SolveOutput<B>,
{
}

/// The shape of the solution `x` of `A x = b` for a batch of square `A`
/// (`Self`) and of vectors `b`: the batch dimensions broadcast.
///
/// ```
/// use shaped::{Shape, linalg::SolveVecShape};
/// let _: <Shape![2, 4, 4] as SolveVecShape<Shape![4]>>::Output = <Shape![2, 4]>::default();
/// ```
#[diagnostic::on_unimplemented(
    message = "linalg: cannot solve A x = b for A of shape `{Self}` and b of shape `{B}`",
    label = "A and b do not fit A x = b",
    note = "A must be square matrices `(..., n, n)` and b vectors `(..., n)` with the same n; their batch dimensions `...` broadcast"
)]
pub trait SolveVecShape<B: Shape>: SquareMatrices {
    /// The shape of `x`.
    type Output: Shape;
}

#[diagnostic::do_not_recommend]
impl<A, B> SolveVecShape<B> for A
where
    A: SquareMatrices,
    B: Vectors,
    A::N: MatchDim<B::Len>,
    A::Batch: BroadcastShape<B::Batch>,
    Broadcast<A::Batch, B::Batch>: WithTail,
{
    type Output =
        <Broadcast<A::Batch, B::Batch> as WithTail>::Vec<<A::N as MatchDim<B::Len>>::Output>;
}

/// The shape of the least-squares solution `X` of `A X = B` for `A`
/// `(..., m, n)` (`Self`) and `B` `(..., m, k)`: `(..., n, k)`.
///
/// ```
/// use shaped::{Shape, linalg::LstsqShape};
/// let _: <Shape![1, 5, 3] as LstsqShape<Shape![2, 5, 2]>>::Output = <Shape![2, 3, 2]>::default();
/// ```
#[diagnostic::on_unimplemented(
    message = "linalg: cannot solve A X = B in least squares for A of shape `{Self}` and B of shape `{B}`",
    label = "A and B do not fit A X = B",
    note = "A must be matrices `(..., m, n)` and B `(..., m, k)` of the same rank with the same m (PyTorch refuses an unbatched A against a batched B); their batch dimensions `...` broadcast"
)]
pub trait LstsqShape<B: Shape>: Matrices {
    /// The shape of `X`.
    type Output: Shape;
}

#[diagnostic::do_not_recommend]
impl<A, B> LstsqShape<B> for A
where
    A: Matrices,
    B: Matrices,
    A::Rows: MatchDim<B::Rows>,
    A::Batch: SameRank<B::Batch>,
    A::Batch: BroadcastShape<B::Batch>,
    Broadcast<A::Batch, B::Batch>: WithTail,
{
    type Output = <Broadcast<A::Batch, B::Batch> as WithTail>::Mat<A::Cols, B::Cols>;
}

/// The shape of the solution `X` of `X A = B` for a batch of square `A`
/// (`Self`) and of `B` `(..., k, n)`: the batch dimensions broadcast.
///
/// ```
/// use shaped::{Shape, linalg::SolveRightShape};
/// let _: <Shape![2, 4, 4] as SolveRightShape<Shape![3, 1, 5, 4]>>::Output =
///     <Shape![3, 2, 5, 4]>::default();
/// ```
#[diagnostic::on_unimplemented(
    message = "linalg: cannot solve X A = B for A of shape `{Self}` and B of shape `{B}`",
    label = "A and B do not fit X A = B",
    note = "A must be square matrices `(..., n, n)` and B `(..., k, n)` with the same n; their batch dimensions `...` broadcast"
)]
pub trait SolveRightShape<B: Shape>: SquareMatrices {
    /// The shape of `X`.
    type Output: Shape;
}

#[diagnostic::do_not_recommend]
impl<A, B> SolveRightShape<B> for A
where
    A: SquareMatrices,
    B: Matrices,
    A::N: MatchDim<B::Cols>,
    A::Batch: BroadcastShape<B::Batch>,
    Broadcast<A::Batch, B::Batch>: WithTail,
{
    type Output = <Broadcast<A::Batch, B::Batch> as WithTail>::Mat<
        B::Rows,
        <A::N as MatchDim<B::Cols>>::Output,
    >;
}

/// The shape of the least-squares solution `x` of `A x = b` for `A`
/// `(..., m, n)` (`Self`) and vectors `b` `(..., m)`: `(..., n)`.
///
/// ```
/// use shaped::{Shape, linalg::LstsqVecShape};
/// let _: <Shape![2, 5, 3] as LstsqVecShape<Shape![2, 5]>>::Output = <Shape![2, 3]>::default();
/// ```
#[diagnostic::on_unimplemented(
    message = "linalg: cannot solve A x = b in least squares for A of shape `{Self}` and b of shape `{B}`",
    label = "A and b do not fit A x = b",
    note = "A must be matrices `(..., m, n)` and b vectors `(..., m)` with the same m and batch dimensions `...` of the same rank (PyTorch wants equal sizes there; a size 1 against another is refused at run time)"
)]
pub trait LstsqVecShape<B: Shape>: Matrices {
    /// The shape of `x`.
    type Output: Shape;
}

#[diagnostic::do_not_recommend]
impl<A, B> LstsqVecShape<B> for A
where
    A: Matrices,
    B: Vectors,
    A::Rows: MatchDim<B::Len>,
    A::Batch: SameRank<B::Batch>,
    A::Batch: BroadcastShape<B::Batch>,
    Broadcast<A::Batch, B::Batch>: WithTail,
{
    type Output = <Broadcast<A::Batch, B::Batch> as WithTail>::Vec<A::Cols>;
}

/// `(..., n, m)` for `(..., m, n)`: the shape of a pseudo-inverse.
pub type Transposed<S> =
    <<S as Matrices>::Batch as WithTail>::Mat<<S as Matrices>::Cols, <S as Matrices>::Rows>;
/// `(...)` for `(..., m, n)`: one value per matrix.
pub type BatchOf<S> = <S as Matrices>::Batch;
/// `(..., n)` for `(..., n, n)`: one vector of length `n` per matrix.
pub type EigvalsOf<S> = <<S as Matrices>::Batch as WithTail>::Vec<<S as SquareMatrices>::N>;
/// `(..., k)` with `k = min(m, n)` for `(..., m, n)` (dynamic: stable Rust
/// cannot compute a minimum of two const generics).
pub type SvalsOf<S> = <<S as Matrices>::Batch as WithTail>::Vec<Dyn>;

impl WithTail for DynRank {
    type Mat<R: Dim, C: Dim> = DynRank;
    type Vec<N: Dim> = DynRank;
}
impl Matrices for DynRank {
    type Batch = DynRank;
    type Rows = Dyn;
    type Cols = Dyn;
}
impl Vectors for DynRank {
    type Batch = DynRank;
    type Len = Dyn;
}

/// `WithTail` for a tuple batch of the given parameters.
macro_rules! with_tail {
    ($($b:ident),*) => {
        impl<$($b: Dim),*> WithTail for ($($b,)*) {
            type Mat<R: Dim, C: Dim> = ($($b,)* R, C);
            type Vec<N: Dim> = ($($b,)* N,);
        }
        impl<$($b: Dim,)* V: Dim> Vectors for ($($b,)* V,) {
            type Batch = ($($b,)*);
            type Len = V;
        }
        impl<$($b: Dim,)* R: Dim, C: Dim> Matrices for ($($b,)* R, C) {
            type Batch = ($($b,)*);
            type Rows = R;
            type Cols = C;
        }
    };
}

with_tail!();
with_tail!(B0);
with_tail!(B0, B1);
with_tail!(B0, B1, B2);
with_tail!(B0, B1, B2, B3);
with_tail!(B0, B1, B2, B3, B4);
with_tail!(B0, B1, B2, B3, B4, B5);
with_tail!(B0, B1, B2, B3, B4, B5, B6);
with_tail!(B0, B1, B2, B3, B4, B5, B6, B7);
with_tail!(B0, B1, B2, B3, B4, B5, B6, B7, B8);
with_tail!(B0, B1, B2, B3, B4, B5, B6, B7, B8, B9);

/// Two shapes of the same rank (PyTorch's `linalg.cross` wants it); a
/// [`DynRank`] side is checked at run time.
///
/// ```
/// use shaped::{Shape, linalg::SameRank};
/// fn same<A: SameRank<B>, B: shaped::shape::Shape>() {}
/// same::<Shape![2, 3], Shape![1, 3]>();
/// ```
#[diagnostic::on_unimplemented(
    message = "linalg.cross: inputs must have the same number of dimensions, but `{Self}` and `{B}` differ",
    label = "ranks differ"
)]
pub trait SameRank<B: Shape>: Shape {}
impl<B: Shape> SameRank<B> for DynRank {}

macro_rules! same_rank {
    ($($a:ident $b:ident),*) => {
        impl<$($a: Dim,)* $($b: Dim),*> SameRank<($($b,)*)> for ($($a,)*) {}
        impl<$($a: Dim),*> SameRank<DynRank> for ($($a,)*) {}
    };
}
same_rank!();
same_rank!(A0 B0);
same_rank!(A0 B0, A1 B1);
same_rank!(A0 B0, A1 B1, A2 B2);
same_rank!(A0 B0, A1 B1, A2 B2, A3 B3);
same_rank!(A0 B0, A1 B1, A2 B2, A3 B3, A4 B4);
same_rank!(A0 B0, A1 B1, A2 B2, A3 B3, A4 B4, A5 B5);
same_rank!(A0 B0, A1 B1, A2 B2, A3 B3, A4 B4, A5 B5, A6 B6);
same_rank!(A0 B0, A1 B1, A2 B2, A3 B3, A4 B4, A5 B5, A6 B6, A7 B7);
same_rank!(A0 B0, A1 B1, A2 B2, A3 B3, A4 B4, A5 B5, A6 B6, A7 B7, A8 B8);
same_rank!(A0 B0, A1 B1, A2 B2, A3 B3, A4 B4, A5 B5, A6 B6, A7 B7, A8 B8, A9 B9);
