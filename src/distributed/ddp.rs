//! [`DataParallel`]: data-parallel training over any [`Collectives`]
//! engine, as PyTorch's `DistributedDataParallel`: the same model on every
//! rank, each rank a different shard of every batch, and after the
//! backward pass every gradient replaced by its average over the ranks, so
//! that every rank takes the same optimizer step.
//!
//! # Design
//! - **Buckets.** Gradients are packed into flat buckets of about
//!   `bucket_bytes` (25 MiB by default, PyTorch's `bucket_cap_mb`), in
//!   reverse parameter order (the order backward produces them), and each
//!   bucket is averaged with one all-reduce: a model of many small
//!   parameters costs a few large collectives, not one per parameter.
//! - **Unused parameters.** Each bucket carries one flag per parameter,
//!   averaged with it: a parameter without a gradient on some rank counts
//!   as zero there (its share of the global batch did not use it); one
//!   without a gradient on every rank stays without one, so an optimizer
//!   skips it exactly as it would in one process.
//! - **No overlap with backward (yet).** `shaped`'s autograd returns the
//!   gradients when the whole backward pass is done ([`Gradients`]), so the
//!   reduction starts after it. Overlapping needs the engine to report each
//!   leaf's gradient as soon as its last use is processed (PyTorch's
//!   autograd hooks); the buckets are already laid out in that order.
//! - **Reduced gradients are views into the bucket**, which lives as long
//!   as one of them does: no copy back.

use crate::tensor::host;
use crate::tensor::indexing;
use crate::tensor::pointwise;
use core::ops::{Deref, DerefMut};

use super::single::device_error;
use super::{Collectives, DistError, OrPanicDist, ReduceOp};
use crate::autograd::{GradDevice, Gradients, Var};
use crate::backend::Backend;
use crate::backend::op::table::Fill;
use crate::element::Float;
use crate::nn::{Buffer, Parameters};
use crate::shape::{Dyn, DynRank};
use crate::{Tensor, device::Device};

/// PyTorch DDP's default bucket size, 25 MiB.
pub const DEFAULT_BUCKET_BYTES: usize = 25 << 20;

/// A model trained data-parallel over communicator `C`: a wrapper that
/// derefs to the model, and is itself [`Parameters`], so an optimizer steps
/// it as it steps the model.
///
/// Each rank builds the same model (any initial values: rank 0's are
/// broadcast), runs the forward and backward pass on its own shard of the
/// batch (see [`DistributedSampler`](super::DistributedSampler)), calls
/// [`all_reduce_gradients`](DataParallel::all_reduce_gradients), and steps
/// its optimizer. With a loss averaged over each rank's batch of `b`, the
/// step is the one a single process takes with a batch of `world · b`.
///
/// ```
/// use shaped::autograd::Var;
/// use shaped::distributed::{DataParallel, SingleProcess};
/// use shaped::nn::{Linear, Optimizer, Sgd};
/// use shaped::{Const, Shape, Tensor};
/// // `MpiComm::init()?` under `mpirun`; one process here.
/// let model = DataParallel::new(Linear::<Const<3>, Const<2>>::new(0), SingleProcess);
/// let mut model = model.bucket_bytes(1 << 20);
/// let mut opt = Sgd::new(0.1);
/// let x = Var::constant(Tensor::<f32, Shape![4, 3]>::ones());
/// let loss = model.forward(&x).square().mean();
/// let mut grads = loss.backward();
/// model.all_reduce_gradients(&mut grads);
/// opt.step(&mut model, &grads);
/// ```
pub struct DataParallel<M, C> {
    module: M,
    comm: C,
    bucket_bytes: usize,
}

impl<M, C> DataParallel<M, C> {
    /// Wraps `module`, replacing its parameters and tensor buffers (batch
    /// norm's running statistics) on every rank by rank 0's (one broadcast
    /// each), as DDP's constructor does.
    ///
    /// # Errors
    /// A rank whose model's parameters differ in number or shape from rank
    /// 0's (the error names both shapes), a timeout, the engine's error.
    ///
    /// ```
    /// use shaped::distributed::{Communicator, DataParallel, SingleProcess};
    /// use shaped::nn::Linear;
    /// use shaped::Const;
    /// let m = DataParallel::try_new(Linear::<Const<2>, Const<2>>::new(0), SingleProcess).unwrap();
    /// assert_eq!(m.comm_ref().world_size(), 1);
    /// ```
    pub fn try_new<T, D>(module: M, comm: C) -> Result<Self, DistError>
    where
        T: Float,
        D: GradDevice<T>,
        M: Parameters<T, D>,
        C: Collectives<T, D>,
    {
        broadcast_each(&comm, |f| module.visit_params(&mut |p| f(p_value(p))))?;
        broadcast_buffers(&module, &comm)?;
        Ok(DataParallel {
            module,
            comm,
            bucket_bytes: DEFAULT_BUCKET_BYTES,
        })
    }

    /// [`DataParallel::try_new`], panicking with its error.
    ///
    /// # Panics
    /// Where `try_new` returns an error, with its message.
    ///
    /// ```
    /// use shaped::distributed::{DataParallel, SingleProcess};
    /// use shaped::nn::{Linear, Parameters};
    /// use shaped::Const;
    /// let m = DataParallel::new(Linear::<Const<2>, Const<3>>::new(0), SingleProcess);
    /// assert_eq!(m.num_params(), 9);
    /// ```
    #[track_caller]
    pub fn new<T, D>(module: M, comm: C) -> Self
    where
        T: Float,
        D: GradDevice<T>,
        M: Parameters<T, D>,
        C: Collectives<T, D>,
    {
        Self::try_new(module, comm).or_panic()
    }

    /// With buckets of about `bytes` bytes of gradients (at least one
    /// parameter each; PyTorch's `bucket_cap_mb`).
    ///
    /// ```
    /// use shaped::distributed::{DataParallel, SingleProcess};
    /// use shaped::nn::Linear;
    /// use shaped::Const;
    /// let m = DataParallel::new(Linear::<Const<2>, Const<3>>::new(0), SingleProcess)
    ///     .bucket_bytes(4 << 20);
    /// ```
    pub fn bucket_bytes(self, bytes: usize) -> Self {
        DataParallel {
            bucket_bytes: bytes,
            ..self
        }
    }

    /// Replaces the model's tensor buffers (batch norm's running
    /// statistics) on every rank by rank 0's, one broadcast each: what
    /// PyTorch's DDP does before every forward pass in training
    /// (`broadcast_buffers=True`), so that statistics gathered from each
    /// rank's own batches do not drift apart. Call it before each forward
    /// pass, or before evaluating and saving; every rank must call it.
    /// Counts (`num_batches_tracked`) are the same on every rank already.
    ///
    /// # Errors
    /// A rank whose buffers differ in number or shape from rank 0's, a
    /// timeout, the engine's error.
    ///
    /// ```
    /// use shaped::distributed::{DataParallel, SingleProcess};
    /// use shaped::nn::BatchNorm1d;
    /// use shaped::Const;
    /// let m = DataParallel::new(BatchNorm1d::<Const<3>>::new(), SingleProcess);
    /// m.try_broadcast_buffers().unwrap();
    /// assert_eq!(m.running_var.to_vec(), vec![1.0; 3]);
    /// ```
    pub fn try_broadcast_buffers<T, D>(&self) -> Result<(), DistError>
    where
        T: Float,
        D: GradDevice<T>,
        M: Parameters<T, D>,
        C: Collectives<T, D>,
    {
        broadcast_buffers(&self.module, &self.comm)
    }

    /// [`DataParallel::try_broadcast_buffers`], panicking with its error.
    ///
    /// # Panics
    /// Where `try_broadcast_buffers` returns an error, with its message.
    ///
    /// ```
    /// use shaped::distributed::{DataParallel, SingleProcess};
    /// use shaped::nn::BatchNorm1d;
    /// use shaped::Const;
    /// let m = DataParallel::new(BatchNorm1d::<Const<3>>::new(), SingleProcess);
    /// m.broadcast_buffers();
    /// ```
    #[track_caller]
    pub fn broadcast_buffers<T, D>(&self)
    where
        T: Float,
        D: GradDevice<T>,
        M: Parameters<T, D>,
        C: Collectives<T, D>,
    {
        self.try_broadcast_buffers().or_panic()
    }

    /// The wrapped model.
    ///
    /// ```
    /// use shaped::distributed::{DataParallel, SingleProcess};
    /// use shaped::nn::Linear;
    /// use shaped::Const;
    /// let m = DataParallel::new(Linear::<Const<2>, Const<3>>::new(0), SingleProcess);
    /// let _inner: &Linear<Const<2>, Const<3>> = m.module();
    /// ```
    pub fn module(&self) -> &M {
        &self.module
    }

    /// The communicator.
    ///
    /// ```
    /// use shaped::distributed::{Communicator, DataParallel, SingleProcess};
    /// use shaped::nn::Linear;
    /// use shaped::Const;
    /// let m = DataParallel::new(Linear::<Const<2>, Const<3>>::new(0), SingleProcess);
    /// assert_eq!(m.comm_ref().rank(), 0);
    /// ```
    pub fn comm_ref(&self) -> &C {
        &self.comm
    }

    /// The model and the communicator, unwrapped.
    ///
    /// ```
    /// use shaped::distributed::{DataParallel, SingleProcess};
    /// use shaped::nn::Linear;
    /// use shaped::Const;
    /// let m = DataParallel::new(Linear::<Const<2>, Const<3>>::new(0), SingleProcess);
    /// let (_model, _comm) = m.into_parts();
    /// ```
    pub fn into_parts(self) -> (M, C) {
        (self.module, self.comm)
    }

    /// Replaces every gradient in `grads` of a parameter of the model by
    /// its mean over the ranks, bucket by bucket.
    ///
    /// # Errors
    /// Models that differ between ranks (a bucket's size differs: the error
    /// names both shapes), a timeout, the engine's error.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::distributed::{DataParallel, SingleProcess};
    /// use shaped::{Shape, Tensor};
    /// let m = DataParallel::new(Var::param(Tensor::<f32, Shape![2]>::ones()), SingleProcess);
    /// let mut g = m.square().sum().backward();
    /// m.try_all_reduce_gradients(&mut g).unwrap();
    /// assert_eq!(g.wrt(m.module()).unwrap().to_vec(), vec![2., 2.]);
    /// ```
    pub fn try_all_reduce_gradients<T, D>(
        &self,
        grads: &mut Gradients<T, D>,
    ) -> Result<(), DistError>
    where
        T: Float,
        D: GradDevice<T>,
        M: Parameters<T, D>,
        C: Collectives<T, D>,
    {
        let params: Vec<Var<T, DynRank, D>> = self
            .module
            .params()
            .into_iter()
            .rev()
            .filter(|p| p.value().numel() > 0)
            .collect();
        let cap = (self.bucket_bytes / core::mem::size_of::<T>()).max(1);
        let mut start = 0;
        while start < params.len() {
            let mut end = start;
            let mut numel = 0;
            while end < params.len() && (end == start || numel < cap) {
                numel += params[end].value().numel();
                end += 1;
            }
            reduce_bucket(&self.comm, &params[start..end], grads)?;
            start = end;
        }
        Ok(())
    }

    /// [`DataParallel::try_all_reduce_gradients`], panicking with its error.
    ///
    /// # Panics
    /// Where `try_all_reduce_gradients` returns an error, with its message.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::distributed::{DataParallel, SingleProcess};
    /// use shaped::{Shape, Tensor};
    /// let m = DataParallel::new(Var::param(Tensor::<f64, Shape![1]>::ones()), SingleProcess);
    /// let mut g = m.sum().backward();
    /// m.all_reduce_gradients(&mut g);
    /// assert_eq!(g.wrt(m.module()).unwrap().to_vec(), vec![1.]);
    /// ```
    #[track_caller]
    pub fn all_reduce_gradients<T, D>(&self, grads: &mut Gradients<T, D>)
    where
        T: Float,
        D: GradDevice<T>,
        M: Parameters<T, D>,
        C: Collectives<T, D>,
    {
        self.try_all_reduce_gradients(grads).or_panic()
    }
}

/// A tensor of `(Dyn,)` shape: a bucket, or a parameter's part of one.
type Flat<T, D> = Tensor<T, (Dyn,), D>;

/// `t` as one row of its elements (a view where it can be).
fn flat<T: Float, D: Backend<T>>(t: &Tensor<T, DynRank, D>) -> Result<Flat<T, D>, DistError> {
    t.try_reshape(&[-1]).map_err(device_error)
}

/// Packs the gradients of `params` (zeros for a missing one) and one
/// presence flag each into a bucket, averages it over the ranks, and puts
/// the averaged gradients (views into the bucket) back into `grads`.
fn reduce_bucket<T, D, C>(
    comm: &C,
    params: &[Var<T, DynRank, D>],
    grads: &mut Gradients<T, D>,
) -> Result<(), DistError>
where
    T: Float,
    D: GradDevice<T>,
    C: Collectives<T, D>,
{
    let mut parts = Vec::with_capacity(params.len() + 1);
    let mut flags = Vec::with_capacity(params.len());
    for p in params {
        let g = match grads.wrt(p) {
            Some(g) => g,
            None => pointwise::unary(Fill(T::zero()), p.value()).map_err(device_error)?,
        };
        flags.push(if grads.wrt(p).is_some() {
            T::one()
        } else {
            T::zero()
        });
        parts.push(flat(&g)?.into_dyn());
    }
    let like = p_value(&params[0]);
    let n = flags.len();
    parts.push(host::from_host::<T, D, DynRank, _, _>(&like, flags, &[n]).map_err(device_error)?);
    let total: usize = parts.iter().map(Tensor::numel).sum();
    let mut bucket: Flat<T, D> = indexing::cat(&parts, 0, &[total]).map_err(device_error)?;
    drop(parts);
    comm.try_all_reduce_(&mut bucket, ReduceOp::Mean)?;
    let flags_view = bucket
        .narrow::<(Dyn,)>(0, total - n, n)
        .map_err(device_error)?;
    let present = host::to_host(&flags_view).map_err(device_error)?;
    let mut offset = 0;
    for (p, flag) in params.iter().zip(present) {
        let len = p.value().numel();
        if flag > T::zero() {
            let sizes: Vec<isize> = p.dims().iter().map(|&d| d as isize).collect();
            let part = bucket
                .narrow::<(Dyn,)>(0, offset, len)
                .map_err(device_error)?;
            let g: Tensor<T, DynRank, D> = part.try_reshape(&sizes).map_err(device_error)?;
            grads.try_insert(p, g)?;
        }
        offset += len;
    }
    Ok(())
}

/// A handle on `p`'s value (the device every bucket of it lives on).
fn p_value<T: Float, D: Device>(p: &Var<T, DynRank, D>) -> Tensor<T, DynRank, D> {
    p.value().share()
}

/// Rank 0's values of every tensor that `visit` hands to its callback, on
/// every rank; after the first error the rest are skipped.
fn broadcast_each<T, D, C>(
    comm: &C,
    visit: impl FnOnce(&mut dyn FnMut(Tensor<T, DynRank, D>)),
) -> Result<(), DistError>
where
    T: Float,
    D: GradDevice<T>,
    C: Collectives<T, D>,
{
    let mut result = Ok(());
    visit(&mut |mut value| {
        if result.is_ok() {
            result = comm.try_broadcast_(&mut value, 0);
        }
    });
    result
}

/// Rank 0's tensor buffers of `module` on every rank.
fn broadcast_buffers<T, D, M, C>(module: &M, comm: &C) -> Result<(), DistError>
where
    T: Float,
    D: GradDevice<T>,
    M: Parameters<T, D>,
    C: Collectives<T, D>,
{
    broadcast_each(comm, |f| {
        module.visit_named_buffers("", &mut |_, b| {
            if let Buffer::Values(value) = b {
                f(value);
            }
        })
    })
}

impl<M, C> Deref for DataParallel<M, C> {
    type Target = M;

    fn deref(&self) -> &M {
        &self.module
    }
}

impl<M, C> DerefMut for DataParallel<M, C> {
    fn deref_mut(&mut self) -> &mut M {
        &mut self.module
    }
}

impl<T: Float, D: GradDevice<T>, M: Parameters<T, D>, C> Parameters<T, D> for DataParallel<M, C> {
    /// The model's parameters.
    fn visit_params(&self, f: &mut dyn FnMut(&Var<T, DynRank, D>)) {
        self.module.visit_params(f);
    }

    /// The model's parameters under the model's own names (a state dict
    /// saved from the wrapper loads into the bare model; PyTorch's DDP
    /// adds a `module.` prefix, which `model.module.state_dict()` drops).
    fn visit_named_params(&self, prefix: &str, f: &mut dyn FnMut(&str, &Var<T, DynRank, D>)) {
        self.module.visit_named_params(prefix, f);
    }

    /// The model's buffers under the model's own names.
    fn visit_named_buffers(&self, prefix: &str, f: &mut dyn FnMut(&str, Buffer<T, D>)) {
        self.module.visit_named_buffers(prefix, f);
    }
}
