//! The layout of a (batched) matrix product, as the shape rules of
//! `ops/matmul/rules.rs` compute it and every backend's GEMM consumes it:
//! the batch sizes, `m`, `n`, `k`, which axes of each operand hold the
//! rows, columns and batch, and the result's sizes.

use crate::shape::{DimVec, ShapeError};

/// Where one operand's dimensions go in a batched product.
///
/// ```
/// use shaped::backend::geometry::Axes;
/// // A (batch, rows, k) left operand.
/// let lhs = Axes { batch: 1, outer: Some(1), inner: Some(2) };
/// assert_eq!(lhs.inner, Some(2));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Axes {
    /// How many leading dimensions are batch dimensions.
    pub batch: usize,
    /// The axis of the outer size (rows on the left, columns on the right),
    /// or `None` where a vector was promoted (size 1).
    pub outer: Option<usize>,
    /// The axis of the contracted size, or `None` for an outer product
    /// (size 1).
    pub inner: Option<usize>,
}

/// Whether the batch of products is kept or summed (`addbmm`).
///
/// ```
/// use shaped::backend::geometry::Batch;
/// assert_ne!(Batch::Each, Batch::Sum);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Batch {
    /// One result matrix per batch entry.
    Each,
    /// One result matrix: the sum over the batch.
    Sum,
}

/// A product laid out as a batch of `m x k` by `k x n` matrix products.
///
/// ```
/// use shaped::backend::geometry::{Batch, Geometry};
/// fn describe(g: &Geometry) -> String {
///     let each = if g.mode == Batch::Each { "each" } else { "summed" };
///     format!("{:?} x ({}x{} @ {}x{}), {each}", g.batch, g.m, g.k, g.k, g.n)
/// }
/// let _ = describe;
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// The batch sizes (broadcast, for `matmul`).
    pub batch: DimVec,
    /// Whether results are kept per batch entry or summed.
    pub mode: Batch,
    /// Rows of each product.
    pub m: usize,
    /// Columns of each product.
    pub n: usize,
    /// The contracted size.
    pub k: usize,
    /// The left operand's axes.
    pub lhs: Axes,
    /// The right operand's axes.
    pub rhs: Axes,
    /// The result's sizes.
    pub out: DimVec,
}

impl Geometry {
    pub(crate) fn new(
        batch: DimVec,
        mode: Batch,
        lhs: (Axes, &[usize]),
        rhs: (Axes, &[usize]),
    ) -> Self {
        let size = |dims: &[usize], axis: Option<usize>| axis.map_or(1, |i| dims[i]);
        let ((lhs, a), (rhs, b)) = (lhs, rhs);
        let (m, k, n) = (size(a, lhs.outer), size(a, lhs.inner), size(b, rhs.outer));
        let mut out = if mode == Batch::Each {
            batch.clone()
        } else {
            DimVec::new()
        };
        out.extend(lhs.outer.map(|_| m));
        out.extend(rhs.outer.map(|_| n));
        Geometry {
            batch,
            mode,
            m,
            n,
            k,
            lhs,
            rhs,
            out,
        }
    }
}

impl Geometry {
    /// The in-place rule of the fused products (`addmm_` ...): the input
    /// already has the product's sizes, with PyTorch's message for
    /// structured in-place kernels.
    pub(crate) fn check_inplace(&self, input: &[usize]) -> Result<(), ShapeError> {
        if input != self.out.as_slice() {
            return Err(ShapeError::Invalid(format!(
                "Bad in-place call: input tensor size {input:?} and output tensor size {:?} should match",
                self.out
            )));
        }
        Ok(())
    }
}
