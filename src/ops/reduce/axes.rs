//! Which dimensions a reduction removes, from a compile-time axis, a list of
//! run-time dims (negative counting from the end, as PyTorch), or all of
//! them; and the result's sizes.

use smallvec::SmallVec;

use crate::shape::{DimVec, ShapeError};
use crate::tensor::wrap_dim;

/// For each dimension of the input, whether it is reduced.
pub(crate) type Mask = SmallVec<[bool; 8]>;

/// Every dimension.
pub(crate) fn all(rank: usize) -> Mask {
    smallvec::smallvec![true; rank]
}

/// The dimensions in `dims` (negative counts from the end); an empty list
/// means every dimension, as in PyTorch.
///
/// # Errors
/// PyTorch's errors for a dim out of range or named twice.
pub(crate) fn from_dims(dims: &[isize], rank: usize) -> Result<Mask, ShapeError> {
    if dims.is_empty() {
        return Ok(all(rank));
    }
    let mut mask: Mask = smallvec::smallvec![false; rank];
    for &d in dims {
        let k = wrap_dim(d, rank)?;
        if rank == 0 {
            continue;
        }
        if std::mem::replace(&mut mask[k], true) {
            return Err(ShapeError::Invalid(format!(
                "dim {k} appears multiple times in the list of dims"
            )));
        }
    }
    Ok(mask)
}

/// The one dimension `k` (a compile-time axis, checked at run time only for
/// dynamic rank).
///
/// # Errors
/// PyTorch's error when `k` is out of range.
pub(crate) fn from_axis(k: usize, rank: usize) -> Result<Mask, ShapeError> {
    from_dims(&[k as isize], rank)
}

/// The number of elements each output reduces.
pub(crate) fn reduced_count(dims: &[usize], mask: &[bool]) -> usize {
    dims.iter()
        .zip(mask)
        .filter(|&(_, &m)| m)
        .map(|(&d, _)| d)
        .product()
}

/// The result's sizes: reduced dimensions dropped, or kept as 1.
pub(crate) fn result_dims(dims: &[usize], mask: &[bool], keepdim: bool) -> DimVec {
    crate::backend::primitives::reduced_dims(dims, mask, keepdim)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dims_wrap_and_refuse_duplicates() {
        assert_eq!(
            from_dims(&[-1], 3).unwrap().as_slice(),
            &[false, false, true]
        );
        assert_eq!(from_dims(&[], 2).unwrap().as_slice(), &[true, true]);
        assert_eq!(
            from_dims(&[2], 2).unwrap_err().to_string(),
            "Dimension out of range (expected to be in range of [-2, 1], but got 2)"
        );
        assert_eq!(
            from_dims(&[1, -1], 2).unwrap_err().to_string(),
            "dim 1 appears multiple times in the list of dims"
        );
        // A 0-d tensor accepts dim 0 and -1, as PyTorch.
        assert!(from_dims(&[-1], 0).unwrap().is_empty());
    }

    #[test]
    fn result_sizes() {
        assert_eq!(
            result_dims(&[4, 3, 5], &[false, true, false], false).as_slice(),
            &[4, 5]
        );
        assert_eq!(
            result_dims(&[4, 3, 5], &[false, true, false], true).as_slice(),
            &[4, 1, 5]
        );
        assert_eq!(reduced_count(&[4, 3, 5], &[true, false, true]), 20);
    }
}
