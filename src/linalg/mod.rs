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
//! **Singular input.** As PyTorch: a function that cannot produce its
//! result raises, naming the first failing element of the input's own batch
//! (`inv`, `solve`, `solve_vec` on an exactly singular matrix, `lu_factor`
//! on a zero pivot, `cholesky` on a matrix that is not positive definite);
//! its `*_ex` form (`inv_ex`, `solve_ex`, `lu_factor_ex`, `cholesky_ex`)
//! returns LAPACK's `info` instead. Functions that PyTorch lets run into a
//! division by zero give infinities and NaNs (`lu_solve`,
//! `cholesky_solve`, `solve_triangular`); functions with a well-defined
//! answer do not fail (`det` of a singular matrix is 0, `slogdet` gives
//! sign 0 and `-inf`, `lu` factors it, `lstsq` and `pinv` give the
//! minimum-norm solution, `cond` is `inf`).
//!
//! **Complex results.** `eig` and `eigvals` return [`ComplexTensor`]s (real
//! and imaginary parts as two real tensors); see `eig.rs` for why there is
//! no complex element type.
//!
//! **Devices.** `f32` and `f64`. The factorizations are the primitives of
//! [`Linalg`](crate::backend::Linalg), which each device implements, and
//! these functions are written once over it, generic over the device `D`:
//! `inv`, `det`, `slogdet`, `solve`, `solve_vec`, `lu_factor`,
//! `lu_factor_ex`, `lu_solve`, `cholesky`, `cholesky_solve`,
//! `solve_triangular(_right)`, `qr`, `qr_complete`, `eigh`, `eigvalsh`,
//! `svd`, `svd_full`, `svd_with`, `svdvals` (their
//! size checks and PyTorch's error for a nonzero LAPACK `info` are shared).
//! On the CPU they run [`faer`] (or LAPACK's loops written out), one batch
//! element per rayon task (`backend/cpu/linalg/`, which also holds the
//! batching machinery and the host-only kernels of `eig`, `eigvals` and
//! `eig`'s gradient); on CUDA cuBLAS's and cuSOLVER's batched routines
//! (`backend/cuda/linalg.rs` lists which call each makes, and the few that
//! loop over the batch: rectangular LU, `orgqr` for `Q`, and `syevj` /
//! `gesvdj` above 32 x 32, one cuSOLVER call per matrix). The other
//! functions are composed, once for every device ([`LinalgDevice`]), from
//! those primitives and the tensor operations (reductions, comparisons,
//! `where`, matrix products, views, op-table kernels): `pinv`,
//! `matrix_rank`, `cond`, `matrix_norm`, `norm`, `vector_norm(_dims)`,
//! `cross`, `multi_dot`, `inv_ex`, `cholesky_ex`, `solve_ex`, `lstsq`,
//! `householder_product`, `matrix_power` and `matrix_exp`; each says in its
//! docs what runs. `eig` and `eigvals` run on the host (copying CUDA tensors
//! there and back, as PyTorch does); `lu` unpacks `lu_factor` on the device.
//!
//! ```
//! use shaped::backend::Linalg;
//! use shaped::{linalg, DynRank, Tensor};
//! // One definition for every device.
//! fn solved<D: Linalg<f64>>(a: &Tensor<f64, DynRank, D>, b: &Tensor<f64, DynRank, D>) -> Tensor<f64, DynRank, D> {
//!     linalg::solve(a, b)
//! }
//! let a = Tensor::<f64, DynRank>::try_from_vec(vec![2., 0., 0., 4.], &[2, 2]).unwrap();
//! let b = Tensor::<f64, DynRank>::try_from_vec(vec![2., 4.], &[2, 1]).unwrap();
//! assert_eq!(solved(&a, &b).to_vec(), vec![1., 1.]);
//! ```
//!
//! | file | functions |
//! |---|---|
//! | `shape.rs` | the type-level rules |
//! | `generic.rs` | the device-generic size checks and `info` errors |
//! | `compose.rs` | [`LinalgDevice`] and the views and reductions the composed functions share |
//! | `primitives.rs` | the typed front of [`Linalg`](crate::backend::Linalg): tensors' layouts down, the results' sizes checked on the way up |
//! | `inv.rs`, `det.rs`, `cholesky.rs`, `qr.rs`, `svd.rs`, `eigh.rs`, `eig.rs`, `lu.rs`, `solve.rs`, `triangular.rs`, `lstsq.rs`, `norm.rs`, `pinv.rs` | one family each |
//! | `power.rs` | `matrix_power`, `matrix_exp` |
//! | `vector.rs` | `vector_norm`, `cross` |
//! | `rank.rs` | `matrix_rank`, `cond` |
//! | `multi_dot.rs`, `householder.rs` | one function each |
//! | `ex.rs` | `inv_ex`, `cholesky_ex`, `solve_ex` |
//! | `vjp.rs` | the device-generic backward passes of det, cholesky, solve_triangular, lu, householder_product (PyTorch's formulas, on any device) |
//!
//! The gradients are [`autograd::linalg`](crate::autograd::linalg)'s: the
//! backward passes of `power.rs` (`matrix_power`, `matrix_exp`),
//! `lstsq.rs` and `vjp.rs`, and autograd's own compositions, all over the
//! device; `eig`'s is a CPU kernel (`backend/cpu/linalg/eig.rs`). The
//! per-matrix faer formulas the tests check them against are test oracles
//! (`tests/common/linalg_oracle.rs`), not part of the library.
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

mod cholesky;
pub(crate) mod compose;
mod det;
mod eig;
mod eigh;
mod ex;
mod generic;
mod householder;
mod inv;
mod lstsq;
mod lu;
mod multi_dot;
mod norm;
mod pinv;
mod power;
mod primitives;
mod qr;
mod rank;
mod rhs;
mod shape;
mod solve;
mod svd;
mod triangular;
pub(crate) mod vector;
pub(crate) mod vjp;

pub use cholesky::{cholesky, cholesky_solve, try_cholesky, try_cholesky_solve};
pub use compose::LinalgDevice;
pub use det::{det, slogdet, try_det, try_slogdet};
pub use eig::{ComplexTensor, eig, eigvals, try_eig, try_eigvals};
pub use eigh::{eigh, eigvalsh, try_eigh, try_eigvalsh};
pub use ex::{cholesky_ex, inv_ex, solve_ex, try_cholesky_ex, try_inv_ex, try_solve_ex};
pub use householder::{householder_product, try_householder_product};
pub use inv::{inv, try_inv};
pub(crate) use lstsq::lstsq_vjp;
pub use lstsq::{Lstsq, LstsqDriver, lstsq, lstsq_vec, try_lstsq, try_lstsq_vec, try_lstsq_with};
pub use lu::{
    PLU, PivotsOf, lu, lu_factor, lu_factor_ex, lu_solve, try_lu, try_lu_factor, try_lu_factor_ex,
    try_lu_solve,
};
pub use multi_dot::{multi_dot, try_multi_dot};
pub(crate) use norm::matrix_ord;
pub use norm::{MatrixNorm, NormOrd, matrix_norm, norm, try_matrix_norm, try_norm};
pub use pinv::{pinv, try_pinv};
pub use power::{matrix_exp, matrix_power, try_matrix_exp, try_matrix_power};
pub(crate) use power::{matrix_exp_vjp, matrix_power_vjp};
pub use qr::{qr, qr_complete, try_qr, try_qr_complete};
pub use rank::{RankTol, cond, matrix_rank, try_cond, try_matrix_rank};
pub use rhs::{LstsqRhs, SolveRhs};
pub use shape::{
    BatchOf, EigvalsOf, LstsqShape, LstsqVecShape, MatchDim, Matrices, SameRank, SolveOutput,
    SolveRightShape, SolveShape, SolveVecShape, SquareDim, SquareMatrices, SvalsOf, Transposed,
    Vectors, WithTail,
};
pub(crate) use solve::is_vector_rhs;
pub use solve::{solve, solve_vec, try_solve, try_solve_vec};
pub use svd::{svd, svd_full, svdvals, try_svd, try_svd_full, try_svd_with, try_svdvals};
pub use triangular::{
    Triangle, solve_triangular, solve_triangular_right, try_solve_triangular,
    try_solve_triangular_right,
};
pub(crate) use vector::cross_dyn;
pub use vector::{
    CrossRhs, CrossShape, Three, cross, try_cross, try_vector_norm, try_vector_norm_dims,
    vector_norm, vector_norm_dims,
};

pub use crate::backend::linalg::LinalgFloat;

/// Unwraps a `try_` result, panicking with its message at the caller.
/// A fresh CPU tensor of sizes `dims` over `data`, checked against `S`.
pub(crate) fn tensor<E: crate::element::Element, S: crate::shape::Shape>(
    data: Vec<E>,
    dims: &[usize],
) -> Result<crate::Tensor<E, S>, crate::ShapeError> {
    debug_assert_eq!(data.len(), dims.iter().product::<usize>());
    Ok(crate::Tensor::from_parts(data, S::check_dims(dims)?))
}

#[track_caller]
fn expect<R, E: core::fmt::Display>(r: Result<R, E>) -> R {
    match r {
        Ok(v) => v,
        Err(e) => panic!("{e}"),
    }
}
