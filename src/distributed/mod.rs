//! Collectives on tensors and data-parallel training over existing engines:
//! MPI (feature `mpi`: the `mpi` crate over the system MPI library, for CPU
//! tensors) and NCCL (feature `nccl`: cudarc's bindings, for CUDA tensors).
//! Nothing here moves bytes itself; every collective is the engine's own.
//!
//! | file | what |
//! |---|---|
//! | `mod.rs` | [`ReduceOp`], [`DistError`], the [`Communicator`] and [`Collectives`] traits |
//! | `check.rs` | the cross-rank agreement check every collective runs first |
//! | `single.rs` | [`SingleProcess`]: a world of one, the reference every engine must match |
//! | `mpi.rs` | `MpiComm` (feature `mpi`) |
//! | `nccl.rs` | `NcclComm` (feature `nccl`) |
//! | `ddp.rs` | [`DataParallel`]: broadcast the parameters, average the gradients in buckets |
//! | `sampler.rs` | [`DistributedSampler`]: each rank's shard of every epoch |
//!
//! A collective's result type carries its shape: [`Collectives::all_gather`]
//! of a `Tensor<f32, Shape![3, 4]>` is a `Tensor<f32, Shape![_, 3, 4]>`
//! whose leading (run-time) size is the world size, and
//! [`Collectives::reduce_scatter`] takes that stacked shape back.
//!
//! ```
//! use shaped::distributed::{Collectives, Communicator, ReduceOp, SingleProcess};
//! use shaped::{Shape, Tensor};
//! let comm = SingleProcess; // `MpiComm::init()?` under `mpirun`
//! let mut t = Tensor::<f32, Shape![2, 3]>::ones();
//! comm.all_reduce_(&mut t, ReduceOp::Sum);
//! let all: Tensor<f32, Shape![_, 2, 3]> = comm.all_gather(&t);
//! assert_eq!(all.dims(), &[comm.world_size(), 2, 3]);
//! ```
//!
//! # Design
//! - **Every rank checks that every rank called the same collective** on a
//!   tensor of the same shape and element type (and the same reduction or
//!   root) before any data moves: a small all-gather of a fixed-size header
//!   (`check.rs`). A mismatch is then an error on every rank, naming both
//!   shapes, where MPI would read past a buffer or hang. A rank that never
//!   joins (it crashed, or took another branch) is a [`DistError::Timeout`]
//!   after the communicator's timeout: the header exchange is non-blocking
//!   and polled. The data collective itself is the engine's blocking call on
//!   the tensor's own memory, so large tensors pay only one small
//!   exchange on top of the engine (`benches/README.md`).
//! - **Errors that depend on one rank's input alone are raised after the
//!   header exchange**, from data every rank has seen, so that every rank
//!   fails alike instead of one leaving and the others waiting.
//! - Panicking forms (`all_reduce_`) and `try_` forms returning
//!   [`DistError`] as everywhere in `shaped`.

mod check;
mod ddp;
#[cfg(feature = "mpi")]
mod mpi;
#[cfg(feature = "nccl")]
pub mod nccl;
mod sampler;
mod single;

use core::fmt;
use core::time::Duration;

use crate::Tensor;
use crate::device::{Cpu, Device};
use crate::element::Element;
use crate::shape::{RemoveAxis, Shape, ShapeError, StackAxis};

pub use ddp::{DEFAULT_BUCKET_BYTES, DataParallel};
#[cfg(feature = "mpi")]
pub use mpi::{MpiComm, MpiElement};
pub use sampler::DistributedSampler;
pub use single::SingleProcess;

/// The shape of an all-gather's result: `S` with a leading `Dyn` axis, one
/// entry per rank.
pub type Stacked<S> = <S as StackAxis<0>>::Output;
/// The shape of a reduce-scatter's result: `S` without its leading axis.
pub type Unstacked<S> = <S as RemoveAxis<0>>::Output;

/// How an all-reduce or a reduce-scatter combines the ranks' values, as
/// `torch.distributed.ReduceOp`.
///
/// ```
/// use shaped::distributed::ReduceOp;
/// assert_eq!(ReduceOp::Mean.to_string(), "mean");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    /// The sum over ranks.
    Sum,
    /// The sum divided by the world size (floating-point elements only).
    Mean,
    /// The largest value.
    Max,
    /// The smallest value.
    Min,
}

impl ReduceOp {
    /// A number that identifies the operation in the agreement check.
    pub(crate) fn code(self) -> u64 {
        match self {
            ReduceOp::Sum => 1,
            ReduceOp::Mean => 2,
            ReduceOp::Max => 3,
            ReduceOp::Min => 4,
        }
    }

    /// The operation whose code is `code`.
    pub(crate) fn from_code(code: u64) -> Option<Self> {
        [ReduceOp::Sum, ReduceOp::Mean, ReduceOp::Max, ReduceOp::Min]
            .into_iter()
            .find(|op| op.code() == code)
    }
}

impl fmt::Display for ReduceOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Mean => "mean",
            ReduceOp::Max => "max",
            ReduceOp::Min => "min",
        })
    }
}

/// Why a collective failed. Every rank that takes part gets the same error
/// for a disagreement between ranks.
///
/// ```
/// use shaped::distributed::DistError;
/// let e = DistError::ShapeMismatch {
///     op: "all_reduce_", rank_a: 0, shape_a: vec![2, 3], rank_b: 1, shape_b: vec![3, 2],
/// };
/// assert_eq!(e.to_string(), "all_reduce_: the tensor on rank 0 has shape [2, 3] but the \
///     tensor on rank 1 has shape [3, 2]; every rank must pass the same shape");
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum DistError {
    /// Two ranks passed tensors of different shapes.
    ShapeMismatch {
        /// The collective.
        op: &'static str,
        /// The first rank (the lowest, 0 unless it is the odd one).
        rank_a: usize,
        /// Its tensor's shape.
        shape_a: Vec<usize>,
        /// The first rank whose shape differs from `rank_a`'s.
        rank_b: usize,
        /// Its tensor's shape.
        shape_b: Vec<usize>,
    },
    /// Two ranks called different collectives, or the same one with another
    /// element type, reduction or root.
    Disagreement {
        /// The collective called by rank 0.
        op: &'static str,
        /// What differs, naming both ranks.
        message: String,
    },
    /// Not every rank joined the collective within the timeout. The
    /// communicator cannot be used after this: abort the job.
    Timeout {
        /// The collective.
        op: &'static str,
        /// How long this rank waited.
        after: Duration,
    },
    /// A call that no rank can satisfy (a root outside the world, a
    /// reduce-scatter whose leading size is not the world size, ...).
    Invalid(String),
    /// The engine's own error (MPI's error string, NCCL's status, a CUDA
    /// driver error).
    Engine(String),
}

impl fmt::Display for DistError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DistError::ShapeMismatch {
                op,
                rank_a,
                shape_a,
                rank_b,
                shape_b,
            } => write!(
                f,
                "{op}: the tensor on rank {rank_a} has shape {shape_a:?} but the tensor on rank \
                 {rank_b} has shape {shape_b:?}; every rank must pass the same shape"
            ),
            DistError::Disagreement { op, message } => write!(f, "{op}: {message}"),
            DistError::Timeout { op, after } => write!(
                f,
                "{op}: not every rank joined within {:.1} s (did a rank exit, or take another \
                 branch?); this communicator can no longer be used: abort the job",
                after.as_secs_f64()
            ),
            DistError::Invalid(m) | DistError::Engine(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for DistError {}

impl From<ShapeError> for DistError {
    fn from(e: ShapeError) -> Self {
        DistError::Invalid(e.to_string())
    }
}

/// Panics with the error's message at the caller's line.
trait OrPanicDist<R> {
    fn or_panic(self) -> R;
}

impl<R> OrPanicDist<R> for Result<R, DistError> {
    #[track_caller]
    fn or_panic(self) -> R {
        match self {
            Ok(r) => r,
            Err(e) => panic!("{e}"),
        }
    }
}

/// A group of processes (ranks) that run collectives together: its size,
/// this process's place in it, and a barrier.
///
/// ```
/// use shaped::distributed::{Communicator, SingleProcess};
/// assert_eq!((SingleProcess.rank(), SingleProcess.world_size()), (0, 1));
/// SingleProcess.barrier();
/// ```
pub trait Communicator {
    /// This process's rank, `0..world_size()`.
    fn rank(&self) -> usize;

    /// The number of ranks.
    fn world_size(&self) -> usize;

    /// Returns once every rank has called it.
    ///
    /// # Errors
    /// [`DistError::Timeout`] when a rank does not arrive in time; a
    /// disagreement when another rank is in another collective.
    fn try_barrier(&self) -> Result<(), DistError>;

    /// [`Communicator::try_barrier`], panicking with its error.
    ///
    /// # Panics
    /// Where `try_barrier` returns an error, with its message.
    ///
    /// ```
    /// use shaped::distributed::{Communicator, SingleProcess};
    /// SingleProcess.barrier();
    /// ```
    #[track_caller]
    fn barrier(&self) {
        self.try_barrier().or_panic()
    }
}

/// The collectives on tensors of `T` on device `D`, as
/// `torch.distributed`'s: every rank calls the same one, in the same order,
/// with tensors of the same shape.
///
/// ```
/// use shaped::distributed::{Collectives, ReduceOp, SingleProcess};
/// use shaped::{Shape, Tensor};
/// let mut t = Tensor::<f64, Shape![3]>::from_vec(vec![1., 2., 3.]);
/// SingleProcess.all_reduce_(&mut t, ReduceOp::Max);
/// assert_eq!(t.to_vec(), vec![1., 2., 3.]);
/// ```
pub trait Collectives<T: Element, D: Device = Cpu>: Communicator {
    /// Replaces `tensor` on every rank by the reduction over ranks, in
    /// place (`torch.distributed.all_reduce`).
    ///
    /// # Errors
    /// A shape, element type or reduction that differs between ranks
    /// (on every rank); [`ReduceOp::Mean`] of integers; a timeout; the
    /// engine's error.
    fn try_all_reduce_<S: Shape>(
        &self,
        tensor: &mut Tensor<T, S, D>,
        op: ReduceOp,
    ) -> Result<(), DistError>;

    /// Replaces `tensor` on every rank by rank `root`'s, in place
    /// (`torch.distributed.broadcast`).
    ///
    /// # Errors
    /// A shape, element type or root that differs between ranks; a root
    /// outside the world; a timeout; the engine's error.
    fn try_broadcast_<S: Shape>(
        &self,
        tensor: &mut Tensor<T, S, D>,
        root: usize,
    ) -> Result<(), DistError>;

    /// Every rank's `tensor`, stacked along a new leading axis of size
    /// `world_size()` in rank order (`torch.distributed.all_gather` into
    /// one stacked tensor).
    ///
    /// # Errors
    /// A shape or element type that differs between ranks; a timeout; the
    /// engine's error.
    fn try_all_gather<S: StackAxis<0>>(
        &self,
        tensor: &Tensor<T, S, D>,
    ) -> Result<Tensor<T, Stacked<S>, D>, DistError>;

    /// The reduction over ranks of `tensor`, whose leading axis has one
    /// entry per rank, of which this rank keeps its own:
    /// `reduce_scatter(t)[..] = op over r of t_r[rank]`
    /// (`torch.distributed.reduce_scatter_tensor`, stacked).
    ///
    /// # Errors
    /// A leading size other than `world_size()`; a shape, element type or
    /// reduction that differs between ranks; a timeout; the engine's error.
    fn try_reduce_scatter<S: RemoveAxis<0>>(
        &self,
        tensor: &Tensor<T, S, D>,
        op: ReduceOp,
    ) -> Result<Tensor<T, Unstacked<S>, D>, DistError>;

    /// [`Collectives::try_all_reduce_`], panicking with its error.
    ///
    /// # Panics
    /// Where `try_all_reduce_` returns an error, with its message.
    ///
    /// ```
    /// use shaped::distributed::{Collectives, ReduceOp, SingleProcess};
    /// use shaped::{Shape, Tensor};
    /// let mut t = Tensor::<f32, Shape![2]>::from_vec(vec![1., 2.]);
    /// SingleProcess.all_reduce_(&mut t, ReduceOp::Mean);
    /// assert_eq!(t.to_vec(), vec![1., 2.]);
    /// ```
    #[track_caller]
    fn all_reduce_<S: Shape>(&self, tensor: &mut Tensor<T, S, D>, op: ReduceOp) {
        self.try_all_reduce_(tensor, op).or_panic()
    }

    /// [`Collectives::try_broadcast_`], panicking with its error.
    ///
    /// # Panics
    /// Where `try_broadcast_` returns an error, with its message.
    ///
    /// ```
    /// use shaped::distributed::{Collectives, SingleProcess};
    /// use shaped::{Shape, Tensor};
    /// let mut t = Tensor::<i64, Shape![2]>::from_vec(vec![4, 5]);
    /// SingleProcess.broadcast_(&mut t, 0);
    /// assert_eq!(t.to_vec(), vec![4, 5]);
    /// ```
    #[track_caller]
    fn broadcast_<S: Shape>(&self, tensor: &mut Tensor<T, S, D>, root: usize) {
        self.try_broadcast_(tensor, root).or_panic()
    }

    /// [`Collectives::try_all_gather`], panicking with its error.
    ///
    /// # Panics
    /// Where `try_all_gather` returns an error, with its message.
    ///
    /// ```
    /// use shaped::distributed::{Collectives, SingleProcess};
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f32, Shape![2]>::from_vec(vec![1., 2.]);
    /// let all: Tensor<f32, Shape![_, 2]> = SingleProcess.all_gather(&t);
    /// assert_eq!(all.dims(), &[1, 2]);
    /// ```
    #[track_caller]
    fn all_gather<S: StackAxis<0>>(&self, tensor: &Tensor<T, S, D>) -> Tensor<T, Stacked<S>, D> {
        self.try_all_gather(tensor).or_panic()
    }

    /// [`Collectives::try_reduce_scatter`], panicking with its error.
    ///
    /// # Panics
    /// Where `try_reduce_scatter` returns an error, with its message.
    ///
    /// ```
    /// use shaped::distributed::{Collectives, ReduceOp, SingleProcess};
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f32, Shape![_, 2]>::try_from_vec(vec![1., 2.], &[1, 2]).unwrap();
    /// let mine: Tensor<f32, Shape![2]> = SingleProcess.reduce_scatter(&t, ReduceOp::Sum);
    /// assert_eq!(mine.to_vec(), vec![1., 2.]);
    /// ```
    #[track_caller]
    fn reduce_scatter<S: RemoveAxis<0>>(
        &self,
        tensor: &Tensor<T, S, D>,
        op: ReduceOp,
    ) -> Tensor<T, Unstacked<S>, D> {
        self.try_reduce_scatter(tensor, op).or_panic()
    }
}
