//! The shape rules of matrix products at run time, with PyTorch's messages:
//! each rule maps the operands' sizes onto one batched GEMM problem (a
//! [`Geometry`]) or says, as PyTorch says it, why it cannot.
//!
//! `matmul` follows PyTorch's dispatch for its messages: 1-D @ 1-D is `dot`;
//! a right operand of rank 1 or 2 is `mv` or `mm` on the left operand with
//! its batch folded into the rows; a right operand of rank 3 or more is
//! `bmm` on the broadcast batch.
//!
//! ```
//! use shaped::{DynRank, Tensor};
//! let a = Tensor::<f32, DynRank>::try_zeros(&[2, 3]).unwrap();
//! let b = Tensor::<f32, DynRank>::try_zeros(&[4, 5]).unwrap();
//! assert_eq!(a.try_matmul(&b).err().unwrap().to_string(),
//!     "mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)");
//! ```

use crate::shape::{DimVec, ShapeError, broadcast_pair, checked_numel};

pub(crate) use crate::backend::geometry::{Axes, Batch, Geometry};

const VECTOR: Axes = Axes {
    batch: 0,
    outer: None,
    inner: Some(0),
};
const LEFT_MATRIX: Axes = Axes {
    batch: 0,
    outer: Some(0),
    inner: Some(1),
};
const RIGHT_MATRIX: Axes = Axes {
    batch: 0,
    outer: Some(1),
    inner: Some(0),
};
const LEFT_BATCH: Axes = Axes {
    batch: 1,
    outer: Some(1),
    inner: Some(2),
};
const RIGHT_BATCH: Axes = Axes {
    batch: 1,
    outer: Some(2),
    inner: Some(1),
};

fn invalid(msg: String) -> ShapeError {
    ShapeError::Invalid(msg)
}

/// PyTorch's `mm` message for the op `op` (`mm`, `addmm`), with the left
/// operand's rows as given.
fn mm_mismatch(op: &str, rows: usize, k1: usize, k2: usize, n: usize) -> ShapeError {
    invalid(format!(
        "{op}: mat1 and mat2 shapes cannot be multiplied ({rows}x{k1} and {k2}x{n})"
    ))
}

/// PyTorch's `mv`/`addmv` message.
fn mv_mismatch(input: usize, rows: usize, k1: usize, k2: usize) -> ShapeError {
    invalid(format!(
        "size mismatch, got input ({input}), mat ({rows}x{k1}), vec ({k2})"
    ))
}

/// PyTorch's `bmm`/`baddbmm` message.
fn bmm_mismatch(b1: usize, k1: usize, b2: usize, k2: usize) -> ShapeError {
    invalid(format!(
        "Expected size for first two dimensions of batch2 tensor to be: [{b1}, {k1}] but got: [{b2}, {k2}]."
    ))
}

/// `matmul(a, b)` with NumPy's rules (see the module doc).
pub(crate) fn matmul(a: &[usize], b: &[usize]) -> Result<Geometry, ShapeError> {
    let (ra, rb) = (a.len(), b.len());
    if ra == 0 || rb == 0 {
        return Err(invalid(format!(
            "both arguments to matmul need to be at least 1D, but they are {ra}D and {rb}D"
        )));
    }
    if ra == 1 && rb == 1 {
        return dot(a, b);
    }
    let lhs = Axes {
        batch: ra.saturating_sub(2),
        outer: (ra >= 2).then(|| ra - 2),
        inner: Some(ra - 1),
    };
    let rhs = Axes {
        batch: rb.saturating_sub(2),
        outer: (rb >= 2).then(|| rb - 1),
        inner: Some(if rb == 1 { 0 } else { rb - 2 }),
    };
    let batch = broadcast_pair(&a[..lhs.batch], &b[..rhs.batch])?;
    let (k1, k2) = (a[ra - 1], b[rhs.inner.unwrap_or(0)]);
    if k1 != k2 {
        let m = lhs.outer.map_or(1, |i| a[i]);
        // The sizes named in the message are counted with overflow checks:
        // the broadcast batch of two existing tensors can exceed `usize`
        // (`[2^40, 1]` with `[1, 2^40]`), found by the fuzzer.
        let folded_rows = checked_numel(&a[..lhs.batch])?.saturating_mul(m);
        return Err(match rb {
            1 => mv_mismatch(folded_rows, folded_rows, k1, k2),
            2 => mm_mismatch("mm", folded_rows, k1, k2, b[1]),
            _ => {
                let nb = checked_numel(&batch)?;
                bmm_mismatch(nb, k1, nb, k2)
            }
        });
    }
    let geo = Geometry::new(batch, Batch::Each, (lhs, a), (rhs, b));
    checked_numel(&geo.out)?;
    Ok(geo)
}

/// `mm(a, b)`: two matrices.
pub(crate) fn mm(a: &[usize], b: &[usize]) -> Result<Geometry, ShapeError> {
    mm_for("mm", a, b)
}

/// The rule of `mm` as the op `op` (`mm`, `addmm`) reports it: PyTorch names
/// the left operand `self` in the rank message and `mat1` in the size one.
pub(crate) fn mm_for(op: &str, a: &[usize], b: &[usize]) -> Result<Geometry, ShapeError> {
    for (dims, name) in [(a, "self"), (b, "mat2")] {
        if dims.len() != 2 {
            return Err(invalid(format!(
                "{op}: {name} must be a matrix, got {}-D tensor",
                dims.len()
            )));
        }
    }
    if a[1] != b[0] {
        return Err(mm_mismatch(op, a[0], a[1], b[0], b[1]));
    }
    Ok(Geometry::new(
        DimVec::new(),
        Batch::Each,
        (LEFT_MATRIX, a),
        (RIGHT_MATRIX, b),
    ))
}

/// `mv(a, v)`: a matrix and a vector; `input` is the size PyTorch reports for
/// the added input (`addmv`), or the rows for `mv`.
pub(crate) fn mv(
    a: &[usize],
    v: &[usize],
    input: Option<&[usize]>,
) -> Result<Geometry, ShapeError> {
    let c_rank = input.map_or(1, <[usize]>::len);
    if a.len() != 2 || v.len() != 1 || c_rank > 1 {
        return Err(invalid(format!(
            "vector + matrix @ vector expected, got {c_rank}, {}, {}",
            a.len(),
            v.len()
        )));
    }
    let c_numel = input.map_or(a[0], |c| c.iter().product());
    if a[1] != v[0] || (c_numel != a[0] && c_numel != 1) {
        let shown = input.map_or(a[0], |c| c.first().copied().unwrap_or(1));
        return Err(mv_mismatch(shown, a[0], a[1], v[0]));
    }
    Ok(Geometry::new(
        DimVec::new(),
        Batch::Each,
        (LEFT_MATRIX, a),
        (VECTOR, v),
    ))
}

/// `bmm(a, b)`, and `baddbmm`'s product: two batches of equal size.
pub(crate) fn bmm(a: &[usize], b: &[usize]) -> Result<Geometry, ShapeError> {
    if a.len() != 3 {
        return Err(invalid("batch1 must be a 3D tensor".into()));
    }
    if b.len() != 3 {
        return Err(invalid("batch2 must be a 3D tensor".into()));
    }
    if a[0] != b[0] || a[2] != b[1] {
        return Err(bmm_mismatch(a[0], a[2], b[0], b[1]));
    }
    Ok(Geometry::new(
        DimVec::from_slice(&a[..1]),
        Batch::Each,
        (LEFT_BATCH, a),
        (RIGHT_BATCH, b),
    ))
}

/// `addbmm`'s product: the sum over the batch of `a[i] @ b[i]`.
pub(crate) fn bmm_sum(a: &[usize], b: &[usize]) -> Result<Geometry, ShapeError> {
    if a.len() != 3 {
        return Err(invalid("batch1 must be a 3D tensor".into()));
    }
    if b.len() != 3 {
        return Err(invalid("batch2 must be a 3D tensor".into()));
    }
    if a[0] != b[0] {
        return Err(invalid(format!(
            "batch1 and batch2 must have same number of batches, got {} and {}",
            a[0], b[0]
        )));
    }
    if a[2] != b[1] {
        return Err(invalid(format!(
            "Incompatible matrix sizes for bmm ({}x{} and {}x{})",
            a[1], a[2], b[1], b[2]
        )));
    }
    Ok(Geometry::new(
        DimVec::from_slice(&a[..1]),
        Batch::Sum,
        (LEFT_BATCH, a),
        (RIGHT_BATCH, b),
    ))
}

/// `dot(a, b)`: two vectors of equal length.
pub(crate) fn dot(a: &[usize], b: &[usize]) -> Result<Geometry, ShapeError> {
    if a.len() != 1 || b.len() != 1 {
        return Err(invalid(format!(
            "1D tensors expected, but got {}D and {}D tensors",
            a.len(),
            b.len()
        )));
    }
    if a[0] != b[0] {
        return Err(invalid(format!(
            "inconsistent tensor size, expected tensor [{}] and src [{}] to have the same number of elements, but got {} and {} elements respectively",
            a[0], b[0], a[0], b[0]
        )));
    }
    let lhs = Axes {
        batch: 0,
        outer: None,
        inner: Some(0),
    };
    Ok(Geometry::new(
        DimVec::new(),
        Batch::Each,
        (lhs, a),
        (VECTOR, b),
    ))
}

/// `outer(a, b)` (and `addr`, named by `op`): two vectors of any lengths.
pub(crate) fn outer(a: &[usize], b: &[usize], op: &str) -> Result<Geometry, ShapeError> {
    for (v, name) in [(a, "vec1"), (b, "vec2")] {
        if v.len() != 1 {
            return Err(invalid(format!(
                "{op}: Expected 1-D argument {name}, but got {}-D",
                v.len()
            )));
        }
    }
    let lhs = Axes {
        batch: 0,
        outer: Some(0),
        inner: None,
    };
    let rhs = Axes {
        batch: 0,
        outer: Some(0),
        inner: None,
    };
    Ok(Geometry::new(
        DimVec::new(),
        Batch::Each,
        (lhs, a),
        (rhs, b),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn out(r: Result<Geometry, ShapeError>) -> Result<Vec<usize>, String> {
        r.map(|g| g.out.to_vec()).map_err(|e| e.to_string())
    }

    /// (a, b, the result's sizes or PyTorch's message).
    type Case = (
        &'static [usize],
        &'static [usize],
        Result<&'static [usize], &'static str>,
    );

    /// Cases worded as PyTorch 2.x words them.
    #[test]
    fn matmul_cases() {
        let cases: &[Case] = &[
            (&[3], &[3], Ok(&[])),
            (&[2, 3], &[3], Ok(&[2])),
            (&[3], &[3, 4], Ok(&[4])),
            (&[2, 3], &[3, 4], Ok(&[2, 4])),
            (&[2, 5, 7], &[5, 2, 7, 3], Ok(&[5, 2, 5, 3])),
            (&[7], &[5, 2, 7, 3], Ok(&[5, 2, 3])),
            (&[5, 2, 3, 7], &[7], Ok(&[5, 2, 3])),
            (&[3, 0], &[0, 4], Ok(&[3, 4])),
            (
                &[3],
                &[4],
                Err(
                    "inconsistent tensor size, expected tensor [3] and src [4] to have the same number of elements, but got 3 and 4 elements respectively",
                ),
            ),
            (
                &[2, 3],
                &[4],
                Err("size mismatch, got input (2), mat (2x3), vec (4)"),
            ),
            (
                &[3],
                &[4, 5],
                Err("mm: mat1 and mat2 shapes cannot be multiplied (1x3 and 4x5)"),
            ),
            (
                &[2, 3],
                &[4, 5],
                Err("mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"),
            ),
            (
                &[6, 2, 3],
                &[4, 5],
                Err("mm: mat1 and mat2 shapes cannot be multiplied (12x3 and 4x5)"),
            ),
            (
                &[6, 2, 3],
                &[6, 4, 5],
                Err(
                    "Expected size for first two dimensions of batch2 tensor to be: [6, 3] but got: [6, 4].",
                ),
            ),
            (
                &[2, 5, 7],
                &[3, 7, 3],
                Err(
                    "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0",
                ),
            ),
            (
                &[],
                &[3],
                Err("both arguments to matmul need to be at least 1D, but they are 0D and 1D"),
            ),
        ];
        for (a, b, want) in cases {
            let want = want.map(<[usize]>::to_vec).map_err(str::to_string);
            assert_eq!(out(matmul(a, b)), want, "{a:?} @ {b:?}");
        }
    }

    #[test]
    fn fixed_rank_messages() {
        assert_eq!(
            out(mm(&[2, 3, 4], &[4, 5])).unwrap_err(),
            "mm: self must be a matrix, got 3-D tensor"
        );
        assert_eq!(
            out(mv(&[2, 3], &[3], Some(&[3]))).unwrap_err(),
            "size mismatch, got input (3), mat (2x3), vec (3)"
        );
        assert_eq!(
            out(bmm_sum(&[2, 3, 4], &[3, 4, 5])).unwrap_err(),
            "batch1 and batch2 must have same number of batches, got 2 and 3"
        );
        assert_eq!(
            out(outer(&[2, 3], &[3], "outer")).unwrap_err(),
            "outer: Expected 1-D argument vec1, but got 2-D"
        );
        assert_eq!(out(outer(&[2], &[3], "outer")).unwrap(), vec![2, 3]);
        assert_eq!(out(bmm_sum(&[2, 3, 4], &[2, 4, 5])).unwrap(), vec![3, 5]);
    }
}
