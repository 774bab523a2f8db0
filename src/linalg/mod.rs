//! Batched linear algebra with NumPy/PyTorch batching: one-operand functions
//! work on every matrix of a `(..., m, n)` tensor; two-operand functions
//! broadcast their batch dimensions `...` (as PyTorch's "LAPACK functions"
//! do), while the matrix dimensions must match.
//!
//! Where the sizes are static, square-ness and matching sizes are checked at
//! compile time ([`SquareMatrices`], [`SolveShape`], ...); [`Dyn`](crate::Dyn)
//! sizes and [`DynRank`](crate::DynRank) shapes are checked at run time with
//! PyTorch's messages. Each function `f` has a `try_f` returning the error
//! and an `f` panicking with the same message.
//!
//! **Singular input.** One policy everywhere: a function that cannot produce
//! its result (`inv`, `solve`, `solve_vec`, `lu_solve` on an exactly singular
//! matrix, `cholesky`/`cholesky_solve` on a matrix that is not positive
//! definite) returns an error naming the first failing batch element, worded
//! as PyTorch words it. Functions with a well-defined answer do not fail:
//! `det` of a singular matrix is 0, `slogdet` gives sign 0 and `-inf`,
//! `lu_factor` returns the factorization with its zero pivot, `lstsq` and
//! `pinv` give the minimum-norm solution.
//!
//! Computation is on the CPU through [`faer`], one batch element per rayon
//! task; `f32` and `f64`.
//!
//! | file | functions |
//! |---|---|
//! | `shape.rs` | the type-level rules |
//! | `batch.rs` | reading, broadcasting and running batches |
//! | `inv.rs`, `det.rs`, `cholesky.rs`, `qr.rs`, `svd.rs`, `eigh.rs`, `lu.rs`, `solve.rs`, `lstsq.rs`, `norm.rs`, `pinv.rs` | one family each |
//! | `grad.rs` | backward formulas for inv, det, solve, cholesky |
//!
//! ```
//! use shaped::{linalg, Shape, Tensor};
//! let a = Tensor::<f64, Shape![2, 2, 2]>::from_vec(vec![2., 0., 0., 4., 1., 2., 3., 4.]);
//! let want = [0.5, 0., 0., 0.25, -2., 1., 1.5, -0.5];
//! assert!(linalg::inv(&a).to_vec().iter().zip(want).all(|(x, y)| (x - y).abs() < 1e-12));
//! let d = linalg::det(&a).to_vec();
//! assert!((d[0] - 8.).abs() < 1e-12 && (d[1] + 2.).abs() < 1e-12);
//! ```
//!
//! A non-square static shape does not compile:
//!
//! ```compile_fail
//! use shaped::{linalg, Shape, Tensor};
//! let a = Tensor::<f64, Shape![2, 3]>::zeros();
//! let _ = linalg::inv(&a); // linalg: expected square matrices, ...
//! ```

mod batch;
mod cholesky;
mod det;
mod eigh;
pub mod grad;
mod inv;
mod lstsq;
mod lu;
mod norm;
mod pinv;
mod qr;
mod shape;
mod solve;
mod svd;

pub use cholesky::{cholesky, cholesky_solve, try_cholesky, try_cholesky_solve};
pub use det::{det, slogdet, try_det, try_slogdet};
pub use eigh::{eigh, eigvalsh, try_eigh, try_eigvalsh};
pub use inv::{inv, try_inv};
pub use lstsq::{lstsq, try_lstsq};
pub use lu::{lu_factor, lu_solve, try_lu_factor, try_lu_solve};
pub use norm::{MatrixNorm, matrix_norm, try_matrix_norm};
pub use pinv::{pinv, try_pinv};
pub use qr::{qr, qr_complete, try_qr, try_qr_complete};
pub use shape::{
    BatchOf, EigvalsOf, LstsqShape, MatchDim, Matrices, SolveOutput, SolveShape, SolveVecShape,
    SquareMatrices, SvalsOf, Transposed, Vectors, WithTail,
};
pub use solve::{solve, solve_vec, try_solve, try_solve_vec};
pub use svd::{svd, svd_full, svdvals, try_svd, try_svd_full, try_svdvals};

/// An element type linear algebra works on: `f32` or `f64`.
///
/// ```
/// fn takes<T: shaped::linalg::LinalgFloat>() {}
/// takes::<f32>();
/// takes::<f64>();
/// ```
pub trait LinalgFloat: crate::element::Float + faer::traits::RealField + sealed::Sealed {}
impl LinalgFloat for f32 {}
impl LinalgFloat for f64 {}

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// Unwraps a `try_` result, panicking with its message at the caller.
#[track_caller]
fn expect<R>(r: Result<R, crate::ShapeError>) -> R {
    match r {
        Ok(v) => v,
        Err(e) => panic!("{e}"),
    }
}

/// LU with partial pivoting, and the 1-based index of its first zero pivot
/// (LAPACK's `info`), if any.
fn lu<T: LinalgFloat>(m: &faer::Mat<T>) -> (faer::linalg::solvers::PartialPivLu<T>, Option<usize>) {
    let lu = m.partial_piv_lu();
    let u = lu.U();
    let zero = (0..u.nrows().min(u.ncols())).find(|&i| u[(i, i)] == T::zero());
    (lu, zero.map(|i| i + 1))
}
