//! The batching machinery every linear-algebra function shares: reading the
//! matrices (or vectors) of a tensor of any strides, broadcasting the batch
//! dimensions of two operands, running one kernel per batch element in
//! parallel with rayon, and assembling the outputs.
//!
//! Erased: generic over the element type only.

use crate::backend::cpu::storage::Read;

use faer::{Mat, MatRef};
use rayon::prelude::*;

use crate::backend::cpu::exec::Layout;
use crate::backend::linalg::LinalgFloat;
use crate::shape::{ShapeError, broadcast_pair};

/// A tensor read as a batch of matrices (`core == 2`) or vectors
/// (`core == 1`).
pub(crate) struct Operand<'a, T> {
    data: Read<'a, T>,
    dims: &'a [usize],
    strides: &'a [usize],
    offset: usize,
    core: usize,
}

impl<'a, T: LinalgFloat> Operand<'a, T> {
    /// Reads `l` as a batch of matrices; `name` is the function (for
    /// messages), `arg` the argument's name.
    pub fn matrices(l: Layout<'a, T>, name: &str, arg: &str) -> Result<Self, ShapeError> {
        if l.dims.len() < 2 {
            return Err(ShapeError::Invalid(format!(
                "{name}: The input tensor {arg} must have at least 2 dimensions."
            )));
        }
        Ok(Self::new(l, 2))
    }

    /// Reads `l` as a batch of vectors.
    pub fn vectors(l: Layout<'a, T>, name: &str, arg: &str) -> Result<Self, ShapeError> {
        if l.dims.is_empty() {
            return Err(ShapeError::Invalid(format!(
                "{name}: The input tensor {arg} must have at least 1 dimension."
            )));
        }
        Ok(Self::new(l, 1))
    }

    fn new(l: Layout<'a, T>, core: usize) -> Self {
        Operand {
            data: l.storage.read(),
            dims: l.dims,
            strides: l.strides,
            offset: l.offset,
            core,
        }
    }

    /// All sizes.
    pub fn dims_vec(&self) -> Vec<usize> {
        self.dims.to_vec()
    }

    /// The batch dimensions.
    pub fn batch(&self) -> &[usize] {
        &self.dims[..self.dims.len() - self.core]
    }

    /// Rows of each matrix (the length of each vector).
    pub fn rows(&self) -> usize {
        self.dims[self.dims.len() - self.core]
    }

    /// Columns of each matrix (1 for vectors).
    pub fn cols(&self) -> usize {
        if self.core == 2 {
            self.dims[self.dims.len() - 1]
        } else {
            1
        }
    }

    /// The offset of each matrix, one per element of the batch `out`
    /// (which this operand's batch broadcasts to), row-major.
    pub fn offsets(&self, out: &[usize]) -> Vec<usize> {
        let b = self.batch();
        let bs = &self.strides[..b.len()];
        let lead = out.len() - b.len();
        let n: usize = out.iter().product();
        let mut offs = Vec::with_capacity(n);
        let mut idx = vec![0usize; out.len()];
        for _ in 0..n {
            let mut off = self.offset;
            for (k, &i) in idx.iter().enumerate().skip(lead) {
                if b[k - lead] != 1 {
                    off += i * bs[k - lead];
                }
            }
            offs.push(off);
            advance(&mut idx, out);
        }
        offs
    }

    /// `f` on a copy of each matrix of this operand's own batch, in
    /// parallel.
    pub fn each<R: Send>(
        &self,
        name: &str,
        f: impl Fn(Mat<T>) -> Result<R, String> + Sync,
    ) -> Result<Vec<R>, ShapeError> {
        let batch = self.batch().to_vec();
        let offs = self.offsets(&batch);
        par_batches(name, &batch, |i| f(self.mat(offs[i])))
    }

    /// A copy of the matrix (or the column vector) at `off`: one faer copy
    /// where its elements are contiguous (row- or column-major), else
    /// element by element.
    pub fn mat(&self, off: usize) -> Mat<T> {
        let r = self.dims.len();
        let (rows, cols) = (self.rows(), self.cols());
        let (rs, cs) = if self.core == 2 {
            (self.strides[r - 2], self.strides[r - 1])
        } else {
            (self.strides[r - 1], 0)
        };
        let d = &self.data;
        let n = rows * cols;
        if n > 0 && (cols == 1 || cs == 1) && (rows == 1 || rs == cols) {
            return MatRef::from_row_major_slice(&d[off..off + n], rows, cols).to_owned();
        }
        if n > 0 && (rows == 1 || rs == 1) && (cols == 1 || cs == rows) {
            return MatRef::from_column_major_slice(&d[off..off + n], rows, cols).to_owned();
        }
        Mat::from_fn(rows, cols, |i, j| d[off + i * rs + j * cs])
    }
}

/// For each element of the batch `out`, the row-major index of the element
/// of the batch `src` (which broadcasts to `out`) it reads.
pub(crate) fn bcast_index(src: &[usize], out: &[usize]) -> Vec<usize> {
    let lead = out.len() - src.len();
    let n: usize = out.iter().product();
    let mut strides = vec![0usize; src.len()];
    let mut acc = 1;
    for k in (0..src.len()).rev() {
        strides[k] = if src[k] == 1 { 0 } else { acc };
        acc *= src[k];
    }
    let mut res = Vec::with_capacity(n);
    let mut idx = vec![0usize; out.len()];
    for _ in 0..n {
        res.push(
            idx.iter()
                .skip(lead)
                .zip(&strides)
                .map(|(i, s)| i * s)
                .sum(),
        );
        advance(&mut idx, out);
    }
    res
}

/// The next index of a row-major walk over sizes `out` (the last
/// dimension fastest; past the end it wraps to all zeros).
fn advance(idx: &mut [usize], out: &[usize]) {
    for k in (0..out.len()).rev() {
        idx[k] += 1;
        if idx[k] < out[k] {
            break;
        }
        idx[k] = 0;
    }
}

/// The batch both operands broadcast to.
pub(crate) fn broadcast_batch(a: &[usize], b: &[usize]) -> Result<Vec<usize>, ShapeError> {
    Ok(broadcast_pair(a, b)?.to_vec())
}

/// Runs `f` on every batch element in parallel. On failure, the error of the
/// first failing batch element, worded as PyTorch words it: the message is
/// prefixed with `(Batch element i): ` when there is a batch.
pub(crate) fn par_batches<R: Send>(
    name: &str,
    batch: &[usize],
    f: impl Fn(usize) -> Result<R, String> + Sync,
) -> Result<Vec<R>, ShapeError> {
    let n: usize = batch.iter().product();
    let unbatched = batch.is_empty();
    par_batches_labelled(name, n, |i| (!unbatched).then_some(i), f)
}

/// [`par_batches`] over `n` elements, where `label(i)` is the batch element
/// an error at `i` names (`None`: no batch to name), e.g. the element of
/// one operand's own batch before broadcasting, as PyTorch's `solve` names it.
pub(crate) fn par_batches_labelled<R: Send>(
    name: &str,
    n: usize,
    label: impl Fn(usize) -> Option<usize>,
    f: impl Fn(usize) -> Result<R, String> + Sync,
) -> Result<Vec<R>, ShapeError> {
    let results: Vec<Result<R, String>> = (0..n).into_par_iter().map(&f).collect();
    let mut out = Vec::with_capacity(n);
    for (i, r) in results.into_iter().enumerate() {
        match r {
            Ok(v) => out.push(v),
            Err(msg) => {
                return Err(ShapeError::Invalid(match label(i) {
                    None => format!("{name}: {msg}"),
                    Some(k) => format!("{name}: (Batch element {k}): {msg}"),
                }));
            }
        }
    }
    Ok(out)
}

/// Appends `m` row-major to `out` (one strided copy, not an element at a
/// time).
pub(crate) fn push_mat<T: LinalgFloat>(out: &mut Vec<T>, m: MatRef<'_, T>) {
    let (r, c) = (m.nrows(), m.ncols());
    let start = out.len();
    out.resize(start + r * c, T::zero());
    write_row_major(&mut out[start..], m);
}

/// `m` written row-major into `dst` (`m.nrows() * m.ncols()` elements).
fn write_row_major<T: LinalgFloat>(dst: &mut [T], m: MatRef<'_, T>) {
    let (r, c) = (m.nrows(), m.ncols());
    faer::MatMut::from_row_major_slice_mut(dst, r, c).copy_from(m);
}

/// The matrices `mats` stacked row-major, `numel` elements each, copied in
/// parallel (each copy is of a matrix its task has just computed).
pub(crate) fn stack<T: LinalgFloat>(mats: &[Mat<T>], numel: usize) -> Vec<T> {
    let mut out = vec![T::zero(); mats.len() * numel];
    if numel > 0 {
        out.par_chunks_mut(numel)
            .zip(mats.par_iter())
            .for_each(|(dst, m)| write_row_major(dst, m.as_ref()));
    }
    out
}

/// `batch` followed by `tail`.
pub(crate) fn dims_with(batch: &[usize], tail: &[usize]) -> Vec<usize> {
    let mut d = batch.to_vec();
    d.extend_from_slice(tail);
    d
}

/// PyTorch's message for a non-square input.
pub(crate) fn check_square<T: LinalgFloat>(
    a: &Operand<'_, T>,
    name: &str,
    arg: &str,
) -> Result<usize, ShapeError> {
    if a.rows() != a.cols() {
        return Err(ShapeError::Invalid(format!(
            "{name}: {arg} must be batches of square matrices, but they are {} by {} matrices",
            a.rows(),
            a.cols()
        )));
    }
    Ok(a.rows())
}

/// PyTorch's message when `A X = B` has incompatible sizes.
pub(crate) fn incompatible(
    name: &str,
    a: &Operand<'_, impl LinalgFloat>,
    b: &Operand<'_, impl LinalgFloat>,
) -> ShapeError {
    // A vector right-hand side reads as one column, as PyTorch prints it.
    ShapeError::Invalid(format!(
        "{name}: Incompatible shapes of A and B for the equation AX = B ({}x{} and {}x{})",
        a.rows(),
        a.cols(),
        b.rows(),
        b.cols()
    ))
}

/// `lhs · rhs`, sequential (the batch is the parallel loop).
pub(crate) fn matmul<T: LinalgFloat>(lhs: MatRef<'_, T>, rhs: MatRef<'_, T>) -> Mat<T> {
    let mut out = Mat::zeros(lhs.nrows(), rhs.ncols());
    faer::linalg::matmul::matmul(
        out.as_mut(),
        faer::Accum::Replace,
        lhs,
        rhs,
        T::one(),
        faer::Par::Seq,
    );
    out
}

/// Runs `f(a_i, b_i)` for each pair of a broadcast batch, each giving a
/// matrix of `out_rows` by `out_cols`; `vec` drops the column dimension of
/// the output.
#[allow(clippy::too_many_arguments)]
pub(crate) fn pairwise<T: LinalgFloat>(
    name: &str,
    a: &Operand<'_, T>,
    b: &Operand<'_, T>,
    out_rows: usize,
    out_cols: usize,
    vec: bool,
    f: impl Fn(Mat<T>, Mat<T>) -> Result<Mat<T>, String> + Sync,
) -> Result<(Vec<T>, Vec<usize>), ShapeError> {
    let batch = broadcast_batch(a.batch(), b.batch())?;
    let (oa, ob) = (a.offsets(&batch), b.offsets(&batch));
    let mats = par_batches(name, &batch, |i| f(a.mat(oa[i]), b.mat(ob[i])))?;
    let dims = if vec {
        dims_with(&batch, &[out_rows])
    } else {
        dims_with(&batch, &[out_rows, out_cols])
    };
    Ok((stack(&mats, out_rows * out_cols), dims))
}
