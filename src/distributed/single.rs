//! [`SingleProcess`]: the world of one process. Every collective is the
//! identity (a copy for the gathering ones), which is what every engine
//! gives with one rank; code written over [`Collectives`] runs unchanged
//! without `mpirun`, and doc examples run without MPI.

use super::check::{self, Call, Op};
use super::{Collectives, Communicator, DistError, ReduceOp, Stacked, Unstacked};
use crate::Tensor;
use crate::backend::Backend;
use crate::element::Element;
use crate::shape::{RemoveAxis, Shape, StackAxis};

/// A communicator of one rank (rank 0 of a world of 1): the collectives
/// without a launcher, as `torch.distributed` with `world_size=1`.
///
/// ```
/// use shaped::distributed::{Collectives, Communicator, ReduceOp, SingleProcess};
/// use shaped::{Shape, Tensor};
/// let all: Tensor<i32, Shape![_, 2]> =
///     SingleProcess.all_gather(&Tensor::<i32, Shape![2]>::from_vec(vec![1, 2]));
/// assert_eq!(all.to_vec(), vec![1, 2]);
/// assert_eq!(SingleProcess.world_size(), 1);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct SingleProcess;

/// A device error as a [`DistError`].
pub(crate) fn device_error(e: impl core::fmt::Display) -> DistError {
    DistError::Invalid(e.to_string())
}

/// Whether `T` is a floating-point type (the only ones [`ReduceOp::Mean`]
/// takes).
pub(crate) fn is_float<T: Element>() -> bool {
    matches!(T::NAME, "float32" | "float64" | "float16" | "bfloat16")
}

/// The error of [`ReduceOp::Mean`] on integers, the same on every rank.
pub(crate) fn check_mean<T: Element>(op: Op, reduce: ReduceOp) -> Result<(), DistError> {
    if reduce == ReduceOp::Mean && !is_float::<T>() {
        return Err(DistError::Invalid(format!(
            "{}: a mean needs floating-point elements, got {}",
            op.name(),
            T::NAME
        )));
    }
    Ok(())
}

/// The error of a root outside the world.
pub(crate) fn check_root(root: usize, world: usize) -> Result<(), DistError> {
    if root >= world {
        return Err(DistError::Invalid(format!(
            "broadcast_: root {root} is not a rank of a world of {world}"
        )));
    }
    Ok(())
}

/// The error of a reduce-scatter whose leading size is not the world size.
pub(crate) fn check_leading(dims: &[usize], world: usize) -> Result<(), DistError> {
    if dims.first() != Some(&world) {
        return Err(DistError::Invalid(format!(
            "reduce_scatter: the input's leading axis must have one entry per rank ({world}), \
             got a tensor of shape {dims:?}"
        )));
    }
    Ok(())
}

/// Runs the agreement check on one rank's own header: with one rank it
/// always agrees, but the same call site keeps the checks of the engines.
fn agree_alone(call: Call<'_>) -> Result<(), DistError> {
    check::agree(&check::header(&call))
}

impl Communicator for SingleProcess {
    fn rank(&self) -> usize {
        0
    }

    fn world_size(&self) -> usize {
        1
    }

    fn try_barrier(&self) -> Result<(), DistError> {
        Ok(())
    }
}

impl<T: Element, D: Backend<T>> Collectives<T, D> for SingleProcess {
    fn try_all_reduce_<S: Shape>(
        &self,
        tensor: &mut Tensor<T, S, D>,
        op: ReduceOp,
    ) -> Result<(), DistError> {
        let call = Call {
            op: Op::AllReduce,
            dtype: T::NAME,
            extra: op.code(),
            dims: tensor.dims(),
        };
        agree_alone(call)?;
        check_mean::<T>(Op::AllReduce, op)
    }

    fn try_broadcast_<S: Shape>(
        &self,
        tensor: &mut Tensor<T, S, D>,
        root: usize,
    ) -> Result<(), DistError> {
        let call = Call {
            op: Op::Broadcast,
            dtype: T::NAME,
            extra: root as u64,
            dims: tensor.dims(),
        };
        agree_alone(call)?;
        check_root(root, 1)
    }

    fn try_all_gather<S: StackAxis<0>>(
        &self,
        tensor: &Tensor<T, S, D>,
    ) -> Result<Tensor<T, Stacked<S>, D>, DistError> {
        let mut sizes = vec![1isize];
        sizes.extend(tensor.dims().iter().map(|&d| d as isize));
        let copy = tensor.try_deep_copy().map_err(device_error)?;
        copy.try_reshape(&sizes).map_err(device_error)
    }

    fn try_reduce_scatter<S: RemoveAxis<0>>(
        &self,
        tensor: &Tensor<T, S, D>,
        op: ReduceOp,
    ) -> Result<Tensor<T, Unstacked<S>, D>, DistError> {
        check_leading(tensor.dims(), 1)?;
        check_mean::<T>(Op::ReduceScatter, op)?;
        let sizes: Vec<isize> = tensor.dims()[1..].iter().map(|&d| d as isize).collect();
        let copy = tensor.try_deep_copy().map_err(device_error)?;
        copy.try_reshape(&sizes).map_err(device_error)
    }
}
