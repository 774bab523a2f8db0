//! The broadcasting rule at run time: trailing dimensions align, and two sizes
//! combine when they are equal or one of them is 1 (a missing dimension counts
//! as 1).
//!
//! This is the one run-time implementation of the rule; the static traits in
//! `broadcast.rs` and `expand.rs` agree with it, and every operation on shapes
//! with `Dyn` dimensions or dynamic rank calls it.
//!
//! ```
//! use shaped::broadcast_shapes;
//!
//! assert_eq!(broadcast_shapes(&[&[5, 1, 4, 1], &[3, 1, 1]]).unwrap(), vec![5, 3, 4, 1]);
//! assert_eq!(broadcast_shapes(&[&[1], &[3, 1, 7]]).unwrap(), vec![3, 1, 7]);
//! assert_eq!(broadcast_shapes(&[&[4, 1], &[4]]).unwrap(), vec![4, 4]);
//! ```

use smallvec::SmallVec;

use super::ShapeError;

/// Sizes of a shape at run time, inline up to rank 8.
pub type DimVec = SmallVec<[usize; 8]>;

/// Computes the shape that all of `shapes` broadcast to.
///
/// Shapes are folded left to right, so a mismatch names the shape broadcast so
/// far as "tensor a" and the next one as "tensor b", and the dimension is
/// counted in the result, as in PyTorch's `infer_size`. A 0-d shape (`&[]`)
/// broadcasts with anything, as a scalar does in NumPy and current PyTorch.
///
/// # Errors
/// [`ShapeError::Mismatch`] when two sizes at the same aligned position are
/// neither equal nor 1 (size 0 combines only with 0 and 1), and
/// [`ShapeError::TooLarge`] when the result's number of elements exceeds
/// `isize::MAX`.
///
/// ```
/// use shaped::broadcast_shapes;
///
/// assert_eq!(broadcast_shapes(&[&[2, 3, 4, 5, 1, 1, 1], &[4, 1, 6, 7, 8]]).unwrap(),
///            vec![2, 3, 4, 5, 6, 7, 8]);
/// assert_eq!(broadcast_shapes(&[&[0], &[1]]).unwrap(), vec![0]);
/// assert!(broadcast_shapes(&[&[0], &[3]]).is_err());
/// ```
pub fn broadcast_shapes(shapes: &[&[usize]]) -> Result<Vec<usize>, ShapeError> {
    let mut out = DimVec::new();
    for shape in shapes {
        out = broadcast_pair(&out, shape)?;
    }
    checked_numel(&out)?;
    Ok(out.into_vec())
}

/// Broadcasts two shapes (see [`broadcast_shapes`]), without the element-count
/// check.
pub(crate) fn broadcast_pair(a: &[usize], b: &[usize]) -> Result<DimVec, ShapeError> {
    let rank = a.len().max(b.len());
    let mut out: DimVec = smallvec::smallvec![0; rank];
    // Last dimension first, so the error names the trailing-most mismatch, as
    // PyTorch's `infer_size` does.
    for dim in (0..rank).rev() {
        let size_a = aligned(a, dim, rank);
        let size_b = aligned(b, dim, rank);
        out[dim] = match (size_a, size_b) {
            (x, y) if x == y || y == 1 => x,
            (1, y) => y,
            (x, y) => return Err(ShapeError::Mismatch { a: x, b: y, dim }),
        };
    }
    Ok(out)
}

/// Checks that `src` expands to `target` without changing `target`: the rule
/// of `expand` and `broadcast_to`.
///
/// # Errors
/// [`ShapeError::Expand`] at the trailing-most size of `src` that is neither
/// 1 nor the target's size; [`ShapeError::OutputShape`] (or
/// [`ShapeError::Mismatch`]) when `src` has more dimensions than `target`.
///
/// ```
/// use shaped::shape::check_expand;
///
/// assert!(check_expand(&[3, 1, 1], &[5, 3, 4, 1]).is_ok());
/// assert_eq!(
///     check_expand(&[3, 1, 7], &[1, 3, 1]).unwrap_err().to_string(),
///     "The expanded size of the tensor (1) must match the existing size (7) at non-singleton dimension 2.  Target sizes: [1, 3, 1].  Tensor sizes: [3, 1, 7]"
/// );
/// ```
pub fn check_expand(src: &[usize], target: &[usize]) -> Result<(), ShapeError> {
    if src.len() > target.len() {
        let broadcast = broadcast_pair(target, src)?;
        return Err(ShapeError::OutputShape {
            output: target.to_vec(),
            broadcast: broadcast.into_vec(),
        });
    }
    let rank = target.len();
    for dim in (0..rank).rev() {
        let existing = aligned(src, dim, rank);
        let expanded = target[dim];
        if existing != expanded && existing != 1 {
            return Err(ShapeError::Expand {
                expanded,
                existing,
                dim,
                target: target.iter().map(|&d| d as isize).collect(),
                tensor: src.to_vec(),
            });
        }
    }
    Ok(())
}

/// Checks an in-place operation `output.op_(operands...)` as current PyTorch
/// does: `output` and the operands broadcast together (folded left to right,
/// `output` first), and the result must be `output`'s own shape.
///
/// # Errors
/// [`ShapeError::Mismatch`] when the shapes do not broadcast;
/// [`ShapeError::OutputShape`] when they broadcast to another shape.
///
/// ```
/// use shaped::shape::check_inplace;
///
/// assert!(check_inplace(&[5, 3, 4, 1], &[&[3, 1, 1]]).is_ok());
/// assert_eq!(
///     check_inplace(&[1, 4], &[&[3, 4]]).unwrap_err().to_string(),
///     "output with shape [1, 4] doesn't match the broadcast shape [3, 4]"
/// );
/// assert_eq!(
///     check_inplace(&[2, 1, 5], &[&[3]]).unwrap_err().to_string(),
///     "The size of tensor a (5) must match the size of tensor b (3) at non-singleton dimension 2"
/// );
/// ```
pub fn check_inplace(output: &[usize], operands: &[&[usize]]) -> Result<(), ShapeError> {
    let mut shape = DimVec::from_slice(output);
    for operand in operands {
        shape = broadcast_pair(&shape, operand)?;
    }
    if shape.as_slice() != output {
        return Err(ShapeError::OutputShape {
            output: output.to_vec(),
            broadcast: shape.into_vec(),
        });
    }
    Ok(())
}

/// The number of elements of `dims`, or [`ShapeError::TooLarge`] (PyTorch's
/// "numel: integer multiplication overflow") when the product of its nonzero
/// sizes exceeds `isize::MAX`, PyTorch's limit (sizes are `int64_t` there).
///
/// Every run-time size enters a tensor through this check (constructors,
/// `expand` and `broadcast_to`, `reshape`, a shape's `check_dims`), so a
/// size, a count of elements and every offset computed from them fit in
/// `isize`: index arithmetic on them needs no wider type. Requiring the
/// nonzero sizes to fit (and not only the product, which a zero makes 0)
/// keeps every stride computed from these sizes exact.
///
/// ```
/// use shaped::shape::checked_numel;
/// assert_eq!(checked_numel(&[2, 3, 4]).unwrap(), 24);
/// assert_eq!(checked_numel(&[]).unwrap(), 1);
/// assert_eq!(checked_numel(&[5, 0]).unwrap(), 0);
/// assert_eq!(checked_numel(&[1 << 62, 1]).unwrap(), 1 << 62);
/// assert_eq!(checked_numel(&[1 << 62, 2]).unwrap_err().to_string(),
///     "numel: integer multiplication overflow");
/// assert!(checked_numel(&[1 << 62, 2, 0]).is_err());
/// ```
pub fn checked_numel(dims: &[usize]) -> Result<usize, ShapeError> {
    let mut nonzero: usize = 1;
    let mut has_zero = false;
    for &d in dims {
        if d == 0 {
            has_zero = true;
        } else {
            nonzero = nonzero
                .checked_mul(d)
                .filter(|&n| n <= isize::MAX as usize)
                .ok_or_else(|| ShapeError::TooLarge {
                    shape: dims.to_vec(),
                })?;
        }
    }
    Ok(if has_zero { 0 } else { nonzero })
}

/// Checks run-time `dims` against a static shape's rank and fixed sizes.
pub(crate) fn check_static(
    rank: Option<usize>,
    static_dims: &[Option<usize>],
    dims: &[usize],
) -> Result<(), ShapeError> {
    if let Some(expected) = rank {
        if dims.len() != expected {
            return Err(ShapeError::Rank {
                expected,
                found: dims.to_vec(),
            });
        }
        for (dim, (want, &got)) in static_dims.iter().zip(dims).enumerate() {
            if let Some(expected) = *want
                && expected != got
            {
                return Err(ShapeError::StaticSize {
                    dim,
                    expected,
                    found: dims.to_vec(),
                });
            }
        }
    }
    checked_numel(dims).map(|_| ())
}

/// Size of `shape` at position `dim` of a result of rank `rank`, trailing
/// dimensions aligned; 1 where `shape` has no such dimension.
fn aligned(shape: &[usize], dim: usize, rank: usize) -> usize {
    (dim + shape.len())
        .checked_sub(rank)
        .map_or(1, |i| shape[i])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (a, b, expected result or `None` for an error).
    type Case = (&'static [usize], &'static [usize], Option<&'static [usize]>);

    /// Cases from seeds 000-002.
    const CASES: &[Case] = &[
        (&[5, 7, 3], &[5, 7, 3], Some(&[5, 7, 3])),
        (&[5, 1, 4, 1], &[3, 1, 1], Some(&[5, 3, 4, 1])),
        (&[1], &[3, 1, 7], Some(&[3, 1, 7])),
        (&[4, 1], &[4], Some(&[4, 4])),
        (&[2, 3], &[3], Some(&[2, 3])),
        (
            &[2, 3, 4, 5, 1, 1, 1],
            &[4, 1, 6, 7, 8],
            Some(&[2, 3, 4, 5, 6, 7, 8]),
        ),
        (&[5, 2, 4, 1], &[3, 1, 1], None),
        (&[0], &[2, 2], None),
        (&[2, 3], &[2, 4], None),
        (&[], &[2, 2], Some(&[2, 2])),
        (&[0], &[1], Some(&[0])),
        (&[], &[], Some(&[])),
    ];

    #[test]
    fn seed_cases() {
        for (a, b, want) in CASES {
            let got = broadcast_shapes(&[a, b]).ok();
            assert_eq!(got.as_deref(), *want, "{a:?} with {b:?}");
            let swapped = broadcast_shapes(&[b, a]).ok();
            assert_eq!(swapped.as_deref(), *want, "{b:?} with {a:?}");
        }
    }

    #[test]
    fn mismatch_names_the_trailing_most_dimension() {
        let e = broadcast_shapes(&[&[2, 5], &[3, 6]]).unwrap_err();
        assert_eq!(e, ShapeError::Mismatch { a: 5, b: 6, dim: 1 });
    }

    #[test]
    fn overflow_is_an_error() {
        let big = usize::MAX / 2 + 1;
        assert!(matches!(
            broadcast_shapes(&[&[big, 1], &[1, 2]]),
            Err(ShapeError::TooLarge { .. })
        ));
    }
}
