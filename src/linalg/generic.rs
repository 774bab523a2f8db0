//! The device-generic pieces of the public functions: size checks on the
//! dimensions alone (PyTorch's messages, the same the CPU kernels give) and
//! the error a nonzero LAPACK `info` becomes.

use crate::shape::ShapeError;

/// PyTorch's message when `dims` has fewer than 2 dimensions.
pub(crate) fn check_matrices(dims: &[usize], name: &str, arg: &str) -> Result<(), ShapeError> {
    if dims.len() < 2 {
        return Err(ShapeError::Invalid(format!(
            "{name}: The input tensor {arg} must have at least 2 dimensions."
        )));
    }
    Ok(())
}

/// The order `n` of the square matrices `dims` (`(..., n, n)`), or
/// PyTorch's message for a rank below 2 or non-square matrices.
pub(crate) fn check_square_dims(
    dims: &[usize],
    name: &str,
    arg: &str,
) -> Result<usize, ShapeError> {
    check_matrices(dims, name, arg)?;
    let (r, c) = (dims[dims.len() - 2], dims[dims.len() - 1]);
    if r != c {
        return Err(ShapeError::Invalid(format!(
            "{name}: {arg} must be batches of square matrices, but they are {r} by {c} matrices"
        )));
    }
    Ok(r)
}

/// PyTorch's error for the first nonzero `info` (`msg(info)`), naming the
/// batch element `label(i)` gives (`None`: unbatched, no element named).
pub(crate) fn check_info(
    name: &str,
    info: &[i32],
    label: impl Fn(usize) -> Option<usize>,
    msg: impl Fn(i32) -> String,
) -> Result<(), ShapeError> {
    match info.iter().position(|&k| k != 0) {
        None => Ok(()),
        Some(i) => Err(ShapeError::Invalid(match label(i) {
            None => format!("{name}: {}", msg(info[i])),
            Some(k) => format!("{name}: (Batch element {k}): {}", msg(info[i])),
        })),
    }
}

/// [`check_info`] for an operand's own batch `batch` (no label when it is
/// empty).
pub(crate) fn check_batch_info(
    name: &str,
    batch_rank: usize,
    info: &[i32],
    msg: impl Fn(i32) -> String,
) -> Result<(), ShapeError> {
    check_info(name, info, |i| (batch_rank > 0).then_some(i), msg)
}
