//! [`MpiComm`] (feature `mpi`): the collectives on CPU tensors over the
//! system MPI library, through the `mpi` crate (rsmpi).
//!
//! The data collectives are MPI's own calls on the tensors' own memory
//! (a contiguous tensor is never copied; the all-reduce is in place with
//! `MPI_IN_PLACE`). Before each, the agreement check (`check.rs`) runs as an
//! `MPI_Iallgather` of a 128-byte header polled against the communicator's
//! timeout, so a rank that never arrives is an error, not a hang.
//!
//! # Design
//! - **`MPI_IN_PLACE` is not in rsmpi's bindings** (it is a macro in
//!   `mpi.h`). Its value is part of each implementation's ABI: `(void *) 1`
//!   in Open MPI, `(void *) -1` in MPICH and its derivatives (Intel MPI,
//!   MVAPICH, Cray MPICH). The library names itself at run time
//!   (`MPI_Get_library_version`); with an unknown library the all-reduce
//!   sends from a copy instead.
//! - **One thread.** MPI is initialized with `MPI_THREAD_SINGLE`, so
//!   `MpiComm` is neither `Send` nor `Sync`: every call comes from the
//!   thread that made it.

use core::cell::Cell;
use core::ffi::{c_int, c_void};
use core::marker::PhantomData;
use core::time::Duration;
use std::time::Instant;

use ::mpi::collective::SystemOperation;
use ::mpi::datatype::Equivalence;
use ::mpi::environment::Universe;
use ::mpi::ffi;
use ::mpi::raw::AsRaw;
use ::mpi::topology::SimpleCommunicator;
use ::mpi::traits::{Communicator as _, CommunicatorCollectives as _, Root as _};

use super::check::{self, Call, HEADER_LEN, Op};
use super::single::{check_leading, check_mean, check_root};
use super::{Collectives, Communicator, DistError, ReduceOp, Stacked, Unstacked};
use crate::Tensor;
use crate::device::Cpu;
use crate::element::Element;
use crate::shape::{RemoveAxis, Shape, StackAxis};

/// The most elements one MPI call moves (its counts are `int`); larger
/// buffers go in chunks.
const MAX_COUNT: usize = 1 << 30;

/// The default timeout when `SHAPED_DIST_TIMEOUT` (seconds) is not set.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

mod sealed {
    pub trait Sealed {}
}

/// An element type MPI carries and reduces natively: `f32`, `f64`, and the
/// signed and unsigned integers of 8 to 64 bits. (`f16` and `bf16` have no
/// MPI datatype with reductions; cast to `f32`.)
///
/// ```
/// fn takes<T: shaped::distributed::MpiElement>() {}
/// takes::<f32>();
/// takes::<u8>();
/// ```
pub trait MpiElement: Element + Equivalence + sealed::Sealed {
    /// Divides every element by `n` (a mean's last step; floats only).
    #[doc(hidden)]
    fn div_by(xs: &mut [Self], n: usize);
}

macro_rules! float_elements {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl MpiElement for $t {
            fn div_by(xs: &mut [Self], n: usize) {
                let n = n as $t;
                xs.iter_mut().for_each(|x| *x /= n);
            }
        }
    )*};
}

macro_rules! integer_elements {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl MpiElement for $t {
            fn div_by(_: &mut [Self], _: usize) {
                unreachable!("a mean of integers is refused before any data moves")
            }
        }
    )*};
}

float_elements!(f32, f64);
integer_elements!(i8, i16, i32, i64, u8, u16, u32, u64);

/// A communicator over all the processes `mpirun` (or `srun`) started:
/// `MPI_COMM_WORLD`. Make one per process, at the start of `main`; MPI is
/// finalized when it is dropped.
///
/// Started without a launcher, Open MPI makes a world of one process, so
/// the same program runs alone too.
///
/// ```no_run
/// use shaped::distributed::{Collectives, Communicator, MpiComm, ReduceOp};
/// use shaped::{Shape, Tensor};
/// let comm = MpiComm::init().unwrap();
/// let mut t = Tensor::<f32, Shape![3]>::full(comm.rank() as f32);
/// comm.all_reduce_(&mut t, ReduceOp::Sum); // 0 + 1 + ... on every rank
/// ```
pub struct MpiComm {
    world: SimpleCommunicator,
    rank: usize,
    size: usize,
    timeout: Cell<Duration>,
    /// Set after a timeout: a header exchange is still pending, so no later
    /// collective can be matched.
    broken: Cell<bool>,
    /// `MPI_IN_PLACE` of this library, when known.
    in_place: Option<usize>,
    /// Finalizes MPI when dropped, after `world`.
    _universe: Universe,
    /// Neither `Send` nor `Sync`: MPI was initialized for one thread.
    _one_thread: PhantomData<*const ()>,
}

/// `MPI_IN_PLACE` of the library that names itself `version`.
fn in_place_of(version: &str) -> Option<usize> {
    if version.contains("Open MPI") {
        Some(1)
    } else if ["MPICH", "Intel(R) MPI", "MVAPICH"]
        .iter()
        .any(|n| version.contains(n))
    {
        Some(usize::MAX)
    } else {
        None
    }
}

/// An MPI return code as a result.
fn checked(call: &str, rc: c_int) -> Result<(), DistError> {
    if rc == 0 {
        Ok(())
    } else {
        Err(DistError::Engine(format!(
            "{call} failed with MPI error code {rc}"
        )))
    }
}

impl MpiComm {
    /// Initializes MPI and returns the world communicator.
    ///
    /// # Errors
    /// When MPI is already initialized in this process.
    ///
    /// ```no_run
    /// use shaped::distributed::{Communicator, MpiComm};
    /// let comm = MpiComm::init().unwrap();
    /// println!("rank {} of {}", comm.rank(), comm.world_size());
    /// ```
    pub fn init() -> Result<Self, DistError> {
        let universe = ::mpi::initialize().ok_or_else(|| {
            DistError::Engine("MPI is already initialized in this process".into())
        })?;
        let world = universe.world();
        let timeout = std::env::var("SHAPED_DIST_TIMEOUT")
            .ok()
            .and_then(|s| s.parse::<f64>().ok())
            .map_or(DEFAULT_TIMEOUT, Duration::from_secs_f64);
        let version = ::mpi::environment::library_version().unwrap_or_default();
        Ok(MpiComm {
            rank: world.rank() as usize,
            size: world.size() as usize,
            world,
            timeout: Cell::new(timeout),
            broken: Cell::new(false),
            in_place: in_place_of(&version),
            _universe: universe,
            _one_thread: PhantomData,
        })
    }

    /// How long a collective waits for every rank to join before it fails
    /// with [`DistError::Timeout`]: `SHAPED_DIST_TIMEOUT` seconds, or 600.
    ///
    /// ```no_run
    /// use shaped::distributed::MpiComm;
    /// let comm = MpiComm::init().unwrap();
    /// comm.set_timeout(std::time::Duration::from_secs(60));
    /// assert_eq!(comm.timeout().as_secs(), 60);
    /// ```
    pub fn timeout(&self) -> Duration {
        self.timeout.get()
    }

    /// Sets the timeout of [`MpiComm::timeout`].
    ///
    /// ```no_run
    /// use shaped::distributed::MpiComm;
    /// MpiComm::init().unwrap().set_timeout(std::time::Duration::from_secs(5));
    /// ```
    pub fn set_timeout(&self, timeout: Duration) {
        self.timeout.set(timeout);
    }

    /// Ends every process of the job with exit code `code` (`MPI_Abort`):
    /// what to do after a [`DistError::Timeout`].
    ///
    /// ```no_run
    /// use shaped::distributed::MpiComm;
    /// MpiComm::init().unwrap().abort(1);
    /// ```
    pub fn abort(&self, code: i32) -> ! {
        self.world.abort(code)
    }

    /// The rsmpi communicator, for what `shaped` does not wrap (point to
    /// point messages, sub-communicators).
    ///
    /// ```no_run
    /// use shaped::distributed::MpiComm;
    /// use mpi::traits::Communicator;
    /// let comm = MpiComm::init().unwrap();
    /// assert!(comm.mpi_world().size() >= 1);
    /// ```
    pub fn mpi_world(&self) -> &SimpleCommunicator {
        &self.world
    }

    /// The agreement check: every rank's header, compared on every rank.
    fn agree(&self, call: Call<'_>) -> Result<(), DistError> {
        let op = call.op.name();
        if self.broken.get() {
            return Err(DistError::Engine(format!(
                "{op}: an earlier collective timed out on this rank; abort the job"
            )));
        }
        let mine = Box::new(check::header(&call));
        let mut all = vec![0u64; HEADER_LEN * self.size].into_boxed_slice();
        let dt = u64::equivalent_datatype().as_raw();
        let mut request = core::mem::MaybeUninit::<ffi::MPI_Request>::uninit();
        // SAFETY: `mine` holds HEADER_LEN u64s and `all` HEADER_LEN per
        // rank, as the counts and datatype say; both stay alive (and
        // unmoved, being boxed) until the request completes below, or are
        // leaked if it never does.
        let rc = unsafe {
            ffi::MPI_Iallgather(
                mine.as_ptr().cast(),
                HEADER_LEN as c_int,
                dt,
                all.as_mut_ptr().cast(),
                HEADER_LEN as c_int,
                dt,
                self.world.as_raw(),
                request.as_mut_ptr(),
            )
        };
        checked("MPI_Iallgather", rc)?;
        // SAFETY: MPI_Iallgather succeeded, so it wrote the request.
        let mut request = unsafe { request.assume_init() };
        let start = Instant::now();
        let mut polls = 0u32;
        loop {
            let mut done: c_int = 0;
            // SAFETY: `request` is the live request made above; the status
            // is ignored.
            let rc = unsafe { ffi::MPI_Test(&mut request, &mut done, ffi::RSMPI_STATUS_IGNORE) };
            checked("MPI_Test", rc)?;
            if done != 0 {
                break;
            }
            let waited = start.elapsed();
            if waited > self.timeout.get() {
                // The exchange may still complete later, writing into
                // these buffers: they must outlive it.
                Box::leak(mine);
                Box::leak(all);
                self.broken.set(true);
                return Err(DistError::Timeout { op, after: waited });
            }
            polls += 1;
            if polls < 1000 {
                core::hint::spin_loop();
            } else if polls < 20_000 {
                std::thread::yield_now();
            } else {
                std::thread::sleep(Duration::from_micros(200));
            }
        }
        check::agree(&all)
    }

    /// `MPI_Allreduce` of `buf` in place (from a copy when `MPI_IN_PLACE`
    /// is unknown).
    fn all_reduce_slice<T: MpiElement>(
        &self,
        buf: &mut [T],
        op: ReduceOp,
    ) -> Result<(), DistError> {
        let mpi_op = match op {
            ReduceOp::Sum | ReduceOp::Mean => SystemOperation::sum(),
            ReduceOp::Max => SystemOperation::max(),
            ReduceOp::Min => SystemOperation::min(),
        };
        let dt = T::equivalent_datatype().as_raw();
        for chunk in buf.chunks_mut(MAX_COUNT) {
            let copy;
            let send: *const c_void = match self.in_place {
                Some(marker) => marker as *const c_void,
                None => {
                    copy = chunk.to_vec();
                    copy.as_ptr().cast()
                }
            };
            // SAFETY: `chunk` holds `chunk.len()` (< 2^31) elements of the
            // datatype `dt`; `send` is MPI_IN_PLACE of this library or a copy
            // of `chunk`, alive for the call.
            let rc = unsafe {
                ffi::MPI_Allreduce(
                    send,
                    chunk.as_mut_ptr().cast(),
                    chunk.len() as c_int,
                    dt,
                    mpi_op.as_raw(),
                    self.world.as_raw(),
                )
            };
            checked("MPI_Allreduce", rc)?;
        }
        if op == ReduceOp::Mean {
            T::div_by(buf, self.size);
        }
        Ok(())
    }

    /// Runs `f` on the elements of `tensor`, in place: on its own memory
    /// when contiguous, else on a contiguous copy written back after.
    fn in_place<T: Element, S: Shape>(
        tensor: &mut Tensor<T, S>,
        f: impl FnOnce(&mut [T]) -> Result<(), DistError>,
    ) -> Result<(), DistError> {
        if let Some(mut slice) = tensor.as_mut_slice() {
            return f(&mut slice);
        }
        let copy = tensor.deep_copy();
        f(&mut copy.as_mut_slice().expect("a copy is contiguous"))?;
        let mut dst = tensor.share().into_dyn();
        dst.try_copy_from(&copy.into_dyn())?;
        Ok(())
    }
}

impl Communicator for MpiComm {
    fn rank(&self) -> usize {
        self.rank
    }

    fn world_size(&self) -> usize {
        self.size
    }

    /// The agreement check is itself a barrier: an all-gather completes
    /// only once every rank has joined.
    fn try_barrier(&self) -> Result<(), DistError> {
        self.agree(Call {
            op: Op::Barrier,
            dtype: "",
            extra: 0,
            dims: &[],
        })
    }
}

impl<T: MpiElement> Collectives<T, Cpu> for MpiComm {
    fn try_all_reduce_<S: Shape>(
        &self,
        tensor: &mut Tensor<T, S>,
        op: ReduceOp,
    ) -> Result<(), DistError> {
        self.agree(Call {
            op: Op::AllReduce,
            dtype: T::NAME,
            extra: op.code(),
            dims: tensor.dims(),
        })?;
        check_mean::<T>(Op::AllReduce, op)?;
        Self::in_place(tensor, |buf| self.all_reduce_slice(buf, op))
    }

    fn try_broadcast_<S: Shape>(
        &self,
        tensor: &mut Tensor<T, S>,
        root: usize,
    ) -> Result<(), DistError> {
        self.agree(Call {
            op: Op::Broadcast,
            dtype: T::NAME,
            extra: root as u64,
            dims: tensor.dims(),
        })?;
        check_root(root, self.size)?;
        let root = self.world.process_at_rank(root as i32);
        Self::in_place(tensor, |buf| {
            buf.chunks_mut(MAX_COUNT)
                .for_each(|c| root.broadcast_into(c));
            Ok(())
        })
    }

    fn try_all_gather<S: StackAxis<0>>(
        &self,
        tensor: &Tensor<T, S>,
    ) -> Result<Tensor<T, Stacked<S>>, DistError> {
        self.agree(Call {
            op: Op::AllGather,
            dtype: T::NAME,
            extra: 0,
            dims: tensor.dims(),
        })?;
        let n = tensor.numel();
        check_count("all_gather", n * self.size)?;
        let mut out = vec![T::default(); n * self.size];
        // (No call without elements: an empty slice's dangling pointer can
        // be Open MPI's MPI_IN_PLACE, 0x1.)
        if n > 0 {
            let src = tensor.contiguous();
            let send = src.as_slice().expect("contiguous");
            self.world.all_gather_into(&send[..], &mut out[..]);
        }
        let mut dims = vec![self.size];
        dims.extend_from_slice(tensor.dims());
        Ok(Tensor::try_from_vec(out, &dims)?)
    }

    fn try_reduce_scatter<S: RemoveAxis<0>>(
        &self,
        tensor: &Tensor<T, S>,
        op: ReduceOp,
    ) -> Result<Tensor<T, Unstacked<S>>, DistError> {
        self.agree(Call {
            op: Op::ReduceScatter,
            dtype: T::NAME,
            extra: op.code(),
            dims: tensor.dims(),
        })?;
        check_leading(tensor.dims(), self.size)?;
        check_mean::<T>(Op::ReduceScatter, op)?;
        check_count("reduce_scatter", tensor.numel())?;
        let mpi_op = match op {
            ReduceOp::Sum | ReduceOp::Mean => SystemOperation::sum(),
            ReduceOp::Max => SystemOperation::max(),
            ReduceOp::Min => SystemOperation::min(),
        };
        let mut out = vec![T::default(); tensor.numel() / self.size];
        if !out.is_empty() {
            let src = tensor.contiguous();
            let send = src.as_slice().expect("contiguous");
            self.world
                .reduce_scatter_block_into(&send[..], &mut out[..], mpi_op);
        }
        if op == ReduceOp::Mean {
            T::div_by(&mut out, self.size);
        }
        Ok(Tensor::try_from_vec(out, &tensor.dims()[1..])?)
    }
}

/// The error of a collective too large for one MPI call (the same on every
/// rank: the sizes agreed).
fn check_count(op: &str, n: usize) -> Result<(), DistError> {
    if n > MAX_COUNT {
        return Err(DistError::Invalid(format!(
            "{op}: {n} elements exceed the {MAX_COUNT} one MPI call takes"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::in_place_of;

    #[test]
    fn in_place_markers() {
        assert_eq!(in_place_of("Open MPI v4.1.4, package: Debian"), Some(1));
        assert_eq!(in_place_of("MPICH Version: 4.0"), Some(usize::MAX));
        assert_eq!(in_place_of("Some MPI"), None);
    }
}
