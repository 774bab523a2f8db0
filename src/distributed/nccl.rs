//! [`NcclComm`] (feature `nccl`): the collectives on CUDA tensors through
//! NCCL (cudarc's bindings, `libnccl` loaded at run time), enqueued on the
//! stream every `shaped` operation on that GPU runs on, so they are ordered
//! with the kernels before and after them without a host synchronisation.
//!
//! One process per GPU, as PyTorch DDP and llm.c run. The NCCL unique id
//! that joins the processes travels over MPI ([`NcclComm::from_mpi`],
//! under `mpirun` or `srun`) or, without MPI, through `torchrun`'s
//! environment ([`NcclComm::from_env`]: `RANK`, `WORLD_SIZE`,
//! `MASTER_ADDR`, `MASTER_PORT`): rank 0 serves the 128-byte id on
//! `MASTER_PORT + 1` (or `SHAPED_NCCL_PORT`), since torchrun's own store
//! holds `MASTER_PORT`.
//!
//! # Design
//! - The agreement check is an NCCL all-gather of each rank's header on
//!   the GPU, read back on the host: every rank sees every header before
//!   the data collective is enqueued. NCCL has no timeout of its own; a
//!   rank that never joins blocks the read back (set `NCCL_TIMEOUT`-style
//!   watchdogs at the launcher).
//! - A non-contiguous tensor is reduced through a contiguous copy, written
//!   back after.
//! - Without a GPU or `libnccl`, every constructor returns an error (no
//!   cudarc panic): the GPU tests print "skipped: no CUDA device".

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cudarc::nccl::safe::{Comm, Id, NcclType, ReduceOp as NcclOp};

use super::check::{self, Call, HEADER_LEN, Op};
use super::single::{check_leading, check_mean, check_root};
use super::{Collectives, Communicator, DistError, ReduceOp, Stacked, Unstacked};
use crate::Tensor;
use crate::backend::cuda::{CudaDevice, CudaElement, CudaStorage};
use crate::device::Cuda;
use crate::shape::{RemoveAxis, Shape, StackAxis};

/// How long [`NcclComm::from_env`] waits for rank 0's id.
const RENDEZVOUS_TIMEOUT: Duration = Duration::from_secs(300);

mod sealed {
    pub trait Sealed {}
}

/// An element type both `shaped`'s CUDA backend and NCCL carry: `f32`,
/// `f64`, `i32`, `i64`, `u8`.
///
/// ```
/// fn takes<T: shaped::distributed::nccl::NcclElement>() {}
/// takes::<f32>();
/// ```
pub trait NcclElement: CudaElement + NcclType + sealed::Sealed {}

macro_rules! nccl_elements {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl NcclElement for $t {}
    )*};
}
nccl_elements!(f32, f64, i32, i64, u8);

/// A driver or NCCL error as a [`DistError`].
fn engine(e: impl core::fmt::Debug) -> DistError {
    DistError::Engine(format!("NCCL: {e:?}"))
}

/// Whether `libnccl` loads (cudarc panics on a missing library).
fn nccl_present() -> bool {
    // SAFETY: `is_culib_present` only tries to `dlopen` the library's
    // candidate names and drops what it opened.
    unsafe { cudarc::nccl::sys::is_culib_present() }
}

/// A communicator of one GPU per process, over NCCL.
///
/// ```
/// use shaped::device::Cuda;
/// use shaped::distributed::nccl::NcclComm;
/// match Cuda::device(0) {
///     Ok(dev) => {
///         // One rank: the id needs no transport.
///         let comm = NcclComm::single(&dev).unwrap();
///         let _ = comm;
///     }
///     Err(e) => println!("skipped: {e}"),
/// }
/// ```
pub struct NcclComm {
    comm: Comm,
    dev: CudaDevice,
    rank: usize,
    size: usize,
}

impl NcclComm {
    /// Joins rank `rank` of `size` on `dev` with the id `id`.
    fn join(
        dev: &CudaDevice,
        rank: usize,
        size: usize,
        id: [core::ffi::c_char; 128],
    ) -> Result<Self, DistError> {
        let comm =
            Comm::from_rank(dev.stream().clone(), rank, size, Id::uninit(id)).map_err(engine)?;
        Ok(NcclComm {
            comm,
            dev: dev.clone(),
            rank,
            size,
        })
    }

    /// A new unique id (rank 0's part of every constructor).
    fn new_id() -> Result<[core::ffi::c_char; 128], DistError> {
        if !nccl_present() {
            return Err(DistError::Engine(
                "NCCL: libnccl.so.2 cannot be loaded (install NCCL, or add its lib folder to \
                 LD_LIBRARY_PATH)"
                    .into(),
            ));
        }
        Ok(*Id::new().map_err(engine)?.internal())
    }

    /// A world of one rank on `dev` (for tests and single-GPU runs of
    /// distributed code).
    ///
    /// # Errors
    /// When `libnccl` cannot be loaded, or NCCL's error.
    ///
    /// ```
    /// use shaped::device::Cuda;
    /// use shaped::distributed::nccl::NcclComm;
    /// if let Ok(dev) = Cuda::device(0) {
    ///     assert!(NcclComm::single(&dev).is_ok());
    /// }
    /// ```
    pub fn single(dev: &CudaDevice) -> Result<Self, DistError> {
        Self::join(dev, 0, 1, Self::new_id()?)
    }

    /// The NCCL communicator of the MPI world `mpi`: rank 0 makes the id
    /// and broadcasts it over MPI (as llm.c does); each rank uses `dev`.
    ///
    /// # Errors
    /// When `libnccl` cannot be loaded (on any rank, reported on every
    /// rank), or NCCL's error.
    ///
    /// ```no_run
    /// use shaped::device::Cuda;
    /// use shaped::distributed::{Communicator, MpiComm};
    /// use shaped::distributed::nccl::NcclComm;
    /// let mpi = MpiComm::init().unwrap();
    /// let dev = Cuda::device(mpi.rank() % 8).unwrap();
    /// let nccl = NcclComm::from_mpi(&mpi, &dev).unwrap();
    /// ```
    #[cfg(feature = "mpi")]
    pub fn from_mpi(mpi: &super::MpiComm, dev: &CudaDevice) -> Result<Self, DistError> {
        use super::Collectives as _;
        // Byte 0 of the broadcast says whether rank 0 has an id.
        let mut msg = vec![0u8; 129];
        let mut made = Ok(());
        if mpi.rank() == 0 {
            match Self::new_id() {
                Ok(id) => {
                    msg[0] = 1;
                    for (m, &c) in msg[1..].iter_mut().zip(id.iter()) {
                        *m = c as u8;
                    }
                }
                Err(e) => made = Err(e),
            }
        }
        let mut t = Tensor::<u8, (crate::shape::Dyn,)>::try_from_vec(msg, &[129])?;
        mpi.try_broadcast_(&mut t, 0)?;
        made?;
        let msg = t.to_vec();
        if msg[0] != 1 {
            return Err(DistError::Engine(
                "NCCL: rank 0 could not make a unique id".into(),
            ));
        }
        let mut id = [0 as core::ffi::c_char; 128];
        for (c, &m) in id.iter_mut().zip(&msg[1..]) {
            *c = m as core::ffi::c_char;
        }
        Self::join(dev, mpi.rank(), mpi.world_size(), id)
    }

    /// The NCCL communicator of a `torchrun` (or any launcher that sets
    /// `RANK`, `WORLD_SIZE`, `MASTER_ADDR` and `MASTER_PORT`): rank 0 serves
    /// the id over TCP on `MASTER_PORT + 1` (`SHAPED_NCCL_PORT` overrides),
    /// the others fetch it.
    ///
    /// # Errors
    /// A variable missing or not a number, rank 0 unreachable within 300 s,
    /// `libnccl` missing, NCCL's error.
    ///
    /// ```no_run
    /// use shaped::device::Cuda;
    /// use shaped::distributed::nccl::NcclComm;
    /// let local: usize = std::env::var("LOCAL_RANK").unwrap().parse().unwrap();
    /// let comm = NcclComm::from_env(&Cuda::device(local).unwrap()).unwrap();
    /// ```
    pub fn from_env(dev: &CudaDevice) -> Result<Self, DistError> {
        let var = |name: &str| {
            std::env::var(name).map_err(|_| DistError::Invalid(format!("{name} is not set")))
        };
        let num = |name: &str| -> Result<usize, DistError> {
            var(name)?
                .parse()
                .map_err(|_| DistError::Invalid(format!("{name} is not a number")))
        };
        let (rank, size) = (num("RANK")?, num("WORLD_SIZE")?);
        let port = match std::env::var("SHAPED_NCCL_PORT") {
            Ok(p) => p
                .parse()
                .map_err(|_| DistError::Invalid("SHAPED_NCCL_PORT is not a number".into()))?,
            Err(_) => num("MASTER_PORT")? + 1,
        };
        let addr = format!("{}:{port}", var("MASTER_ADDR")?);
        let id = if rank == 0 {
            let id = Self::new_id()?;
            serve_id(&addr, &id, size - 1)?;
            id
        } else {
            fetch_id(&addr)?
        };
        Self::join(dev, rank, size, id)
    }

    /// The agreement check over NCCL: every rank's header, gathered on the
    /// GPU and read back.
    fn agree(&self, call: Call<'_>) -> Result<(), DistError> {
        let stream = self.dev.stream();
        let mine = stream.clone_htod(&check::header(&call)).map_err(engine)?;
        let mut all = stream
            .alloc_zeros::<u64>(HEADER_LEN * self.size)
            .map_err(engine)?;
        self.comm.all_gather(&mine, &mut all).map_err(engine)?;
        let all = stream.clone_dtoh(&all).map_err(engine)?;
        check::agree(&all[..HEADER_LEN * self.size])
    }

    /// Runs `f` on the elements of `tensor` (a contiguous copy when it is
    /// not contiguous, written back after).
    fn in_place<T: NcclElement, S: Shape>(
        tensor: &mut Tensor<T, S, Cuda>,
        f: impl FnOnce(&mut cudarc::driver::CudaViewMut<'_, T>) -> Result<(), DistError>,
    ) -> Result<(), DistError>
    where
        Cuda: crate::backend::Backend<T>,
    {
        if tensor.is_contiguous() {
            let (off, n) = (tensor.offset, tensor.numel());
            let mut buf = tensor.storage.write();
            return f(&mut buf.slice_mut(off..off + n));
        }
        let copy = tensor.try_deep_copy().map_err(engine)?;
        {
            let mut buf = copy.storage.write();
            let n = copy.numel();
            f(&mut buf.slice_mut(0..n))?;
        }
        let mut dst = tensor.share().into_dyn();
        dst.try_copy_from(&copy.into_dyn()).map_err(engine)
    }

    /// A new tensor of `dims` on this GPU whose elements `f` writes.
    fn fresh<T: NcclElement, SO: Shape>(
        &self,
        dims: &[usize],
        f: impl FnOnce(&mut cudarc::driver::CudaSlice<T>) -> Result<(), DistError>,
    ) -> Result<Tensor<T, SO, Cuda>, DistError> {
        let d = SO::check_dims(dims)?;
        let n: usize = dims.iter().product();
        let mut buf = self.dev.alloc_zeros::<T>(n).map_err(engine)?;
        f(&mut buf)?;
        Ok(Tensor::from_cuda_parts(
            Arc::new(CudaStorage::new(buf, self.dev.clone())),
            d,
        ))
    }
}

/// Rank 0's side of [`NcclComm::from_env`]: sends `id` to `peers` ranks.
fn serve_id(addr: &str, id: &[core::ffi::c_char; 128], peers: usize) -> Result<(), DistError> {
    let io = |e: std::io::Error| DistError::Engine(format!("NCCL id rendezvous on {addr}: {e}"));
    let listener = TcpListener::bind(addr).map_err(io)?;
    let bytes: Vec<u8> = id.iter().map(|&c| c as u8).collect();
    for _ in 0..peers {
        let (mut s, _) = listener.accept().map_err(io)?;
        s.write_all(&bytes).map_err(io)?;
    }
    Ok(())
}

/// The other ranks' side of [`NcclComm::from_env`].
fn fetch_id(addr: &str) -> Result<[core::ffi::c_char; 128], DistError> {
    let start = Instant::now();
    loop {
        match TcpStream::connect(addr) {
            Ok(mut s) => {
                let mut bytes = [0u8; 128];
                s.read_exact(&mut bytes)
                    .map_err(|e| DistError::Engine(format!("NCCL id rendezvous on {addr}: {e}")))?;
                return Ok(bytes.map(|b| b as core::ffi::c_char));
            }
            Err(e) if start.elapsed() > RENDEZVOUS_TIMEOUT => {
                return Err(DistError::Timeout {
                    op: "NcclComm::from_env",
                    after: start.elapsed(),
                })
                .map_err(|t| DistError::Engine(format!("{t} ({addr}: {e})")));
            }
            Err(_) => std::thread::sleep(Duration::from_millis(200)),
        }
    }
}

/// NCCL's reduction for `op` (a mean is NCCL's `Avg`).
fn nccl_op(op: ReduceOp) -> NcclOp {
    match op {
        ReduceOp::Sum => NcclOp::Sum,
        ReduceOp::Mean => NcclOp::Avg,
        ReduceOp::Max => NcclOp::Max,
        ReduceOp::Min => NcclOp::Min,
    }
}

impl Communicator for NcclComm {
    fn rank(&self) -> usize {
        self.rank
    }

    fn world_size(&self) -> usize {
        self.size
    }

    /// An all-gather of headers, then a wait for the stream: every rank
    /// has arrived and every earlier operation on this GPU is done.
    fn try_barrier(&self) -> Result<(), DistError> {
        self.agree(Call {
            op: Op::Barrier,
            dtype: "",
            extra: 0,
            dims: &[],
        })
    }
}

impl<T: NcclElement> Collectives<T, Cuda> for NcclComm
where
    Cuda: crate::backend::Backend<T>,
{
    fn try_all_reduce_<S: Shape>(
        &self,
        tensor: &mut Tensor<T, S, Cuda>,
        op: ReduceOp,
    ) -> Result<(), DistError> {
        self.agree(Call {
            op: Op::AllReduce,
            dtype: T::NAME,
            extra: op.code(),
            dims: tensor.dims(),
        })?;
        check_mean::<T>(Op::AllReduce, op)?;
        if tensor.numel() == 0 {
            return Ok(());
        }
        Self::in_place(tensor, |buf| {
            self.comm
                .all_reduce_in_place(buf, &nccl_op(op))
                .map(drop)
                .map_err(engine)
        })
    }

    fn try_broadcast_<S: Shape>(
        &self,
        tensor: &mut Tensor<T, S, Cuda>,
        root: usize,
    ) -> Result<(), DistError> {
        self.agree(Call {
            op: Op::Broadcast,
            dtype: T::NAME,
            extra: root as u64,
            dims: tensor.dims(),
        })?;
        check_root(root, self.size)?;
        if tensor.numel() == 0 {
            return Ok(());
        }
        Self::in_place(tensor, |buf| {
            self.comm
                .broadcast_in_place(buf, root as i32)
                .map(drop)
                .map_err(engine)
        })
    }

    fn try_all_gather<S: StackAxis<0>>(
        &self,
        tensor: &Tensor<T, S, Cuda>,
    ) -> Result<Tensor<T, Stacked<S>, Cuda>, DistError> {
        self.agree(Call {
            op: Op::AllGather,
            dtype: T::NAME,
            extra: 0,
            dims: tensor.dims(),
        })?;
        let mut dims = vec![self.size];
        dims.extend_from_slice(tensor.dims());
        let src = tensor.try_contiguous().map_err(engine)?;
        let n = src.numel();
        self.fresh(&dims, |out| {
            if n == 0 {
                return Ok(());
            }
            let buf = src.storage.buf.read();
            let view = buf.slice(src.offset..src.offset + n);
            self.comm.all_gather(&view, out).map(drop).map_err(engine)
        })
    }

    fn try_reduce_scatter<S: RemoveAxis<0>>(
        &self,
        tensor: &Tensor<T, S, Cuda>,
        op: ReduceOp,
    ) -> Result<Tensor<T, Unstacked<S>, Cuda>, DistError> {
        self.agree(Call {
            op: Op::ReduceScatter,
            dtype: T::NAME,
            extra: op.code(),
            dims: tensor.dims(),
        })?;
        check_leading(tensor.dims(), self.size)?;
        check_mean::<T>(Op::ReduceScatter, op)?;
        let src = tensor.try_contiguous().map_err(engine)?;
        let n = src.numel();
        self.fresh(&tensor.dims()[1..], |out| {
            if n == 0 {
                return Ok(());
            }
            let buf = src.storage.buf.read();
            let view = buf.slice(src.offset..src.offset + n);
            self.comm
                .reduce_scatter(&view, out, &nccl_op(op))
                .map(drop)
                .map_err(engine)
        })
    }
}
