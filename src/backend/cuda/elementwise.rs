//! Elementwise launches: the shared iteration plan (`iter::Plan`) gives the
//! coalesced sizes and per-operand strides, passed to the kernel by value as
//! a [`KLayout`]; the kernel variant is chosen here (see `source.rs`).
//!
//! Plans of rank above [`MAX_RANK`] after coalescing (more than eight
//! dimensions that no operand lets merge) are refused with an error rather
//! than materialised: every operand would need a copy at the broadcast
//! shape, which the caller can do on the CPU; no test or bench reaches it.

use cudarc::driver::{DevicePtr, DevicePtrMut, DeviceRepr, LaunchConfig, PushKernelArg};

use super::CudaError;
use super::device::{CudaDevice, CudaElement, CudaStorage};
use super::ops::OpDef;
use super::source::{MAX_OPERANDS, MAX_RANK, elementwise_source};
use crate::iter::{Plan, broadcast_strides};
use crate::shape::ShapeError;

/// The plan as the kernels read it (`ShLayout` in the CUDA prelude).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct KLayout {
    dims: [u64; MAX_RANK],
    strides: [[u64; MAX_RANK]; MAX_OPERANDS],
    offsets: [u64; MAX_OPERANDS],
    rank: i32,
    pad: i32,
}

// SAFETY: `KLayout` is `repr(C)` plain data whose fields match `ShLayout`
// in the kernel prelude (u64 arrays, then two i32), so passing it by value
// as a kernel parameter reads the same bytes.
unsafe impl DeviceRepr for KLayout {}

/// One operand of a launch: a storage and its layout in elements.
pub(crate) struct Operand<'a, T> {
    pub storage: &'a CudaStorage<T>,
    pub dims: &'a [usize],
    pub strides: &'a [usize],
    pub offset: usize,
}

impl<T> Operand<'_, T> {
    fn same_storage<U>(&self, other: &CudaStorage<U>) -> bool {
        core::ptr::eq(
            self.storage as *const CudaStorage<T> as *const u8,
            other as *const CudaStorage<U> as *const u8,
        )
    }
}

/// The coalesced plan for `n` operands (output first) over `dims`, or an
/// error when its rank exceeds [`MAX_RANK`].
fn plan_layout(dims: &[usize], ops: &[(&[usize], usize)]) -> Result<(KLayout, usize), CudaError> {
    fn build<const N: usize>(
        dims: &[usize],
        ops: &[(&[usize], usize)],
    ) -> Result<(KLayout, usize), CudaError> {
        let arr: [(&[usize], usize); N] = core::array::from_fn(|i| ops[i]);
        let plan = Plan::<N>::new(dims, arr);
        let rank = plan.dims().len();
        if rank > MAX_RANK {
            return Err(CudaError::Shape(ShapeError::Invalid(format!(
                "CUDA kernels take at most {MAX_RANK} dimensions after coalescing, this operation has {rank}; run it on the CPU"
            ))));
        }
        let mut l = KLayout {
            rank: rank as i32,
            ..Default::default()
        };
        for (d, &size) in plan.dims().iter().enumerate() {
            l.dims[d] = size as u64;
        }
        for (i, (_, off)) in arr.iter().enumerate() {
            l.offsets[i] = *off as u64;
            for (d, &s) in plan.strides(i).iter().enumerate() {
                l.strides[i][d] = s as u64;
            }
        }
        Ok((l, plan.numel()))
    }
    match ops.len() {
        2 => build::<2>(dims, ops),
        3 => build::<3>(dims, ops),
        4 => build::<4>(dims, ops),
        n => unreachable!("elementwise kernels take 1 to 3 inputs, not {}", n - 1),
    }
}

/// Whether every offset an operand of `l` reaches fits in 32 bits, and so
/// does the element count.
fn fits_u32(l: &KLayout, nops: usize, numel: usize) -> bool {
    let lim = u32::MAX as u64;
    numel as u64 <= i32::MAX as u64
        && (0..nops).all(|i| {
            let reach: u64 = (0..l.rank as usize)
                .map(|d| l.dims[d].saturating_sub(1).saturating_mul(l.strides[i][d]))
                .fold(l.offsets[i], u64::saturating_add);
            reach < lim
        })
}

/// Elements per 16-byte access for operand types of these sizes (as
/// `source.rs` computes `VEC`).
fn vec_width(sizes: &[usize]) -> u64 {
    16 / sizes.iter().copied().max().unwrap_or(1).max(1) as u64
}

const BLOCK: u32 = 256;

fn config(work: u64) -> LaunchConfig {
    let blocks = work.div_ceil(BLOCK as u64).clamp(1, 1 << 16) as u32;
    LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (BLOCK, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// Runs op `op` writing `out` (sizes `out.dims`, any strides) from `a0` and
/// `rest` (each broadcast to `out.dims`) and the scalar `s`. An input may
/// share `out`'s storage (in-place operations).
pub(crate) fn launch<T: CudaElement, A0: CudaElement, O: CudaElement>(
    dev: &CudaDevice,
    op: &OpDef,
    out: Operand<'_, O>,
    a0: Operand<'_, A0>,
    rest: &[Operand<'_, T>],
    s: T,
) -> Result<(), CudaError> {
    debug_assert_eq!(rest.len() + 1, op.arity);
    let dims = out.dims;
    let bs0 = broadcast_strides(a0.dims, a0.strides, dims);
    let bsr: Vec<_> = rest
        .iter()
        .map(|r| broadcast_strides(r.dims, r.strides, dims))
        .collect();
    let mut ops: Vec<(&[usize], usize)> = vec![(out.strides, out.offset), (&bs0, a0.offset)];
    for (r, bs) in rest.iter().zip(&bsr) {
        ops.push((bs, r.offset));
    }
    let (l, numel) = plan_layout(dims, &ops)?;
    if numel == 0 {
        return Ok(());
    }
    let nops = ops.len();
    let k = elementwise_source(op, T::NAME);
    let vec = vec_width(&[size_of::<A0>(), size_of::<T>(), size_of::<O>()]);
    let variant = if !fits_u32(&l, nops, numel) {
        "s64"
    } else if l.rank == 1 {
        let vectorisable = l.strides[0][0] == 1
            && (0..nops).all(|i| {
                let st = l.strides[i][0];
                st == 0 || (st == 1 && l.offsets[i] % vec == 0)
            });
        if vectorisable { "v32" } else { "l32" }
    } else {
        "s32"
    };
    let f = dev.function(&k, &format!("{}_{variant}", k.name))?;
    let work = if variant == "v32" {
        numel as u64 / vec
    } else {
        numel as u64
    };
    let stream = dev.stream();

    let mut og = out.storage.buf.write();
    let (po, _so) = og.device_ptr_mut(stream);
    let g0 = (!a0.same_storage(out.storage)).then(|| a0.storage.buf.read_recursive());
    let (p0, _s0) = match &g0 {
        Some(g) => {
            let (p, sync) = g.device_ptr(stream);
            (p, Some(sync))
        }
        None => (po, None),
    };
    let gr: Vec<_> = rest
        .iter()
        .map(|r| (!r.same_storage(out.storage)).then(|| r.storage.buf.read_recursive()))
        .collect();
    let mut pr = Vec::with_capacity(2);
    let mut syncs = Vec::with_capacity(2);
    for g in &gr {
        match g {
            Some(g) => {
                let (p, sync) = g.device_ptr(stream);
                pr.push(p);
                syncs.push(sync);
            }
            None => pr.push(po),
        }
    }
    let p1 = pr.first().copied().unwrap_or(p0);
    let p2 = pr.get(1).copied().unwrap_or(p0);
    let n = numel as u64;
    let mut b = stream.launch_builder(&f);
    b.arg(&l)
        .arg(&po)
        .arg(&p0)
        .arg(&p1)
        .arg(&p2)
        .arg(&s)
        .arg(&n);
    // SAFETY: the kernel's parameters are (ShLayout, OUT*, const A0*,
    // const A1*, const A2*, T, unsigned long long), matching the pushed
    // (KLayout, u64 pointers, T, u64). The plan was built from each
    // operand's own layout, whose reachable offsets lie inside its buffer
    // (the tensor invariant), and the output's sizes are the plan's; unused
    // operand pointers are valid buffers the kernel never reads (NIN). The
    // guards and sync records live until after the launch is queued, and
    // every operation runs on this one stream, so buffers outlive their use.
    unsafe { b.launch(config(work)) }?;
    drop(syncs);
    Ok(())
}
