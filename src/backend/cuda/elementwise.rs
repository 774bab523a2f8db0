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
use super::source::{KernelSource, MAX_OPERANDS, MAX_RANK, TYPES, cast_source, elementwise_source};
use crate::backend::op::OpDef;
use crate::element::Element;
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

impl KLayout {
    /// The layout of up to [`MAX_OPERANDS`] operands over `dims` as given
    /// (no reordering or coalescing, so that a kernel's linear position is
    /// the row-major position in `dims`), or an error above [`MAX_RANK`].
    pub(crate) fn direct(dims: &[usize], ops: &[(&[usize], usize)]) -> Result<Self, CudaError> {
        if dims.len() > MAX_RANK {
            return Err(CudaError::Shape(ShapeError::Invalid(format!(
                "CUDA index kernels take at most {MAX_RANK} dimensions, this operation has {}; run it on the CPU",
                dims.len()
            ))));
        }
        let mut l = KLayout {
            rank: dims.len() as i32,
            ..Default::default()
        };
        for (d, &size) in dims.iter().enumerate() {
            l.dims[d] = size as u64;
        }
        for (i, (strides, off)) in ops.iter().enumerate() {
            l.offsets[i] = *off as u64;
            for (d, &st) in strides.iter().enumerate() {
                l.strides[i][d] = st as u64;
            }
        }
        Ok(l)
    }
}

/// One operand of a launch: a storage and its layout in elements.
pub(crate) struct Operand<'a, T> {
    pub storage: &'a CudaStorage<T>,
    pub dims: &'a [usize],
    pub strides: &'a [usize],
    pub offset: usize,
}

impl<T> Clone for Operand<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Operand<'_, T> {}

/// A backend layout as the kernels read it.
impl<'a, T> From<crate::backend::Layout<'a, CudaStorage<T>>> for Operand<'a, T> {
    fn from(l: crate::backend::Layout<'a, CudaStorage<T>>) -> Self {
        Operand {
            storage: l.storage,
            dims: l.dims,
            strides: l.strides,
            offset: l.offset,
        }
    }
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

/// The kernel variant for a plan: 64-bit strided when an index may not fit
/// in 32 bits; at rank 1 the vectorised one when the output and every
/// non-broadcast operand are contiguous and aligned to `vec` elements, else
/// the linear one; above, vectorised rows when [`rows_vectorise`] holds,
/// otherwise 32-bit strided.
fn choose_variant(l: &KLayout, nops: usize, numel: usize, vec: u64) -> &'static str {
    if !fits_u32(l, nops, numel) {
        "s64"
    } else if l.rank == 1 {
        let vectorisable = l.strides[0][0] == 1
            && (0..nops).all(|i| {
                let st = l.strides[i][0];
                st == 0 || (st == 1 && l.offsets[i].is_multiple_of(vec))
            });
        if vectorisable { "v32" } else { "l32" }
    } else if rows_vectorise(
        &l.dims[..l.rank as usize],
        &l.strides[..nops],
        &l.offsets,
        vec,
    ) {
        "r32"
    } else {
        "s32"
    }
}

/// Whether a plan of sizes `dims` (its rank their count) and per-operand
/// `strides` and `offsets` (the output first) can run as vectorised rows
/// (`_r32` here, `_v32` of the fused kernels): the innermost size a
/// multiple of `vec`, the output of stride 1 there and every operand of
/// stride 1 or 0; each operand of stride 1 starting every row on a
/// multiple of `vec` elements (its offset and outer strides such
/// multiples), so that its vector accesses are aligned to their size
/// (buffers start 256-byte aligned).
pub(crate) fn rows_vectorise(
    dims: &[u64],
    strides: &[[u64; MAX_RANK]],
    offsets: &[u64],
    vec: u64,
) -> bool {
    let Some(r) = dims.len().checked_sub(1) else {
        return false;
    };
    dims[r].is_multiple_of(vec)
        && strides[0][r] == 1
        && strides.iter().zip(offsets).all(|(st, &off)| match st[r] {
            0 => true,
            1 => off.is_multiple_of(vec) && st[..r].iter().all(|s| s.is_multiple_of(vec)),
            _ => false,
        })
}

const BLOCK: u32 = 256;

pub(crate) fn config(work: u64) -> LaunchConfig {
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
    debug_assert_eq!(rest.len() + 1, op.inputs());
    let key = elementwise_key(op, T::NAME);
    run(
        dev,
        key,
        || elementwise_source(op, T::NAME),
        out,
        a0,
        rest,
        s,
    )
}

/// The kernel-table key of op `op` on element type `t`: every part of its
/// module's name (`elementwise_name`), so no two modules share a key.
pub(crate) fn elementwise_key(
    op: &OpDef,
    t: &'static str,
) -> (&'static str, &'static str, &'static str) {
    (op.name, op.mode.suffix(), t)
}

/// Writes `out` (any strides) with the elements of `a` (broadcast to
/// `out.dims`) converted to `U` by `CastFrom`'s rules: the generated cast
/// from `F` to `U`. `a` must not share `out`'s storage.
pub(crate) fn launch_cast<F: Element, U: CudaElement>(
    dev: &CudaDevice,
    out: Operand<'_, U>,
    a: Operand<'_, F>,
) -> Result<(), CudaError> {
    // The kernel table's keys are static names: one per target type.
    let name = TYPES
        .iter()
        .zip(CAST_NAMES)
        .find(|((t, _, _), _)| *t == U::NAME)
        .map(|(_, n)| n)
        .ok_or_else(|| {
            CudaError::Shape(ShapeError::Invalid(format!("no CUDA type {}", U::NAME)))
        })?;
    let make = || cast_source(F::NAME, U::NAME);
    run(dev, (name, "", F::NAME), make, out, a, &[], U::default())
}

/// Kernel-table names of the casts, in the order of `TYPES` (the target).
const CAST_NAMES: [&str; 6] = [
    "cast_f32",
    "cast_f64",
    "cast_i32",
    "cast_i64",
    "cast_u8",
    "cast_bool",
];

/// The launch shared by every elementwise module: the kernel `key.0` in
/// mode `key.1` on `key.2` in the variant the plan calls for (compiled from `make` on
/// first use), over `out`, `a0` and `rest`, with scalar `s`.
fn run<T: CudaElement, A0, O>(
    dev: &CudaDevice,
    key: (&'static str, &'static str, &'static str),
    make: impl FnOnce() -> KernelSource,
    out: Operand<'_, O>,
    a0: Operand<'_, A0>,
    rest: &[Operand<'_, T>],
    s: T,
) -> Result<(), CudaError> {
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
    let vec = vec_width(&[size_of::<A0>(), size_of::<T>(), size_of::<O>()]);
    let variant = choose_variant(&l, nops, numel, vec);
    let f = dev.kernel((key.0, key.1, key.2, variant), make)?;
    let work = if variant == "v32" || variant == "r32" {
        numel as u64 / vec
    } else {
        numel as u64
    };
    let stream = dev.stream();

    let mut og = out.storage.write();
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

#[cfg(test)]
mod tests {
    use super::*;

    fn variant(dims: &[usize], ops: &[(&[usize], usize)], vec: u64) -> &'static str {
        let (l, n) = plan_layout(dims, ops).unwrap();
        choose_variant(&l, ops.len(), n, vec)
    }

    #[test]
    fn variants_follow_the_layouts() {
        // out, a, b all contiguous (4096, 4096): one coalesced dim, float4.
        let c: &[usize] = &[4096, 1];
        assert_eq!(variant(&[4096, 4096], &[(c, 0), (c, 0), (c, 0)], 4), "v32");
        // b a scalar broadcast (stride 0 everywhere): still vectorised.
        assert_eq!(
            variant(&[4096, 4096], &[(c, 0), (c, 0), (&[0, 0], 0)], 4),
            "v32"
        );
        // a misaligned offset: the linear kernel.
        assert_eq!(variant(&[4096, 4096], &[(c, 0), (c, 1), (c, 0)], 4), "l32");
        // a row vector broadcast over rows, a column, a row and a column
        // (the outer sum), a batch: rank 2 and 3, vectorised rows.
        assert_eq!(
            variant(&[4096, 4096], &[(c, 0), (c, 0), (&[0, 1], 0)], 4),
            "r32"
        );
        assert_eq!(
            variant(&[4096, 4096], &[(c, 0), (&[1, 0], 0), (&[0, 1], 0)], 4),
            "r32"
        );
        assert_eq!(
            variant(
                &[256, 256, 1024],
                &[
                    (&[256 * 1024, 1024, 1], 0),
                    (&[1024, 0, 1], 0),
                    (&[0, 1024, 1], 0)
                ],
                4
            ),
            "r32"
        );
        // rows of 4094 (not a multiple of 4), or starting off the grid.
        let odd: &[usize] = &[4094, 1];
        assert_eq!(
            variant(&[64, 4094], &[(odd, 0), (odd, 0), (&[0, 1], 0)], 4),
            "s32"
        );
        assert_eq!(
            variant(&[64, 4096], &[(c, 0), (&[4097, 1], 1), (&[0, 1], 0)], 4),
            "s32"
        );
        assert_eq!(
            variant(&[64, 4096], &[(c, 0), (&[4098, 1], 0), (&[0, 1], 0)], 2),
            "r32"
        );
        // a transposed input.
        assert_eq!(
            variant(&[64, 32], &[(&[32, 1], 0), (&[1, 64], 0)], 4),
            "s32"
        );
        // more elements than 32-bit indexing reaches.
        let big: &[usize] = &[1 << 20, 1];
        assert_eq!(
            variant(&[1 << 12, 1 << 20], &[(big, 0), (big, 0)], 4),
            "s64"
        );
    }

    #[test]
    fn layouts_carry_coalesced_dims_and_strides() {
        let (l, n) = plan_layout(
            &[5, 3, 4, 1],
            &[(&[12, 4, 1, 1], 0), (&[4, 0, 1, 1], 7), (&[0, 1, 0, 0], 0)],
        )
        .unwrap();
        assert_eq!(n, 60);
        assert_eq!(l.rank, 3);
        assert_eq!(&l.dims[..3], &[5, 3, 4]);
        assert_eq!(&l.strides[1][..3], &[4, 0, 1]);
        assert_eq!(l.offsets[1], 7);
        // Rank above MAX_RANK after coalescing is refused.
        let dims = [2usize; 10];
        let alt: Vec<usize> = (0..10)
            .map(|i| if i % 2 == 0 { 1 << (9 - i) } else { 0 })
            .collect();
        let out = crate::iter::contiguous_strides(&dims);
        assert!(plan_layout(&dims, &[(&out, 0), (&alt, 0)]).is_err());
    }

    #[test]
    fn distinct_modules_have_distinct_kernel_keys() {
        // The kernel table is keyed by `elementwise_key`, the modules by
        // `elementwise_name`: two modules under one key would hand one's
        // kernel to the other's launches (on the GPU, `x * 3.0` ran the
        // kernel of `x * y` when the tensor form was compiled first).
        use crate::backend::op::Mode;
        let mut seen = std::collections::HashMap::new();
        for (t, _, _) in TYPES {
            for op in crate::backend::op::table::POINTWISE
                .iter()
                .filter(|o| o.family.admits(t))
            {
                let modes: &[Mode] = if op.has_scalar_forms() {
                    &[Mode::Tensors, Mode::ScalarRhs, Mode::ScalarLhs]
                } else {
                    &[Mode::Tensors]
                };
                for &mode in modes {
                    let op = OpDef { mode, ..*op };
                    let name = crate::backend::cuda::source::elementwise_name(&op, t);
                    if let Some(other) = seen.insert(elementwise_key(&op, t), name.clone()) {
                        assert_eq!(other, name, "two modules share a kernel key");
                    }
                }
            }
        }
        assert!(seen.len() > 100, "{} keys", seen.len());
    }

    #[test]
    fn vector_width_is_sixteen_bytes_of_the_widest_type() {
        assert_eq!(vec_width(&[4, 4, 4]), 4);
        assert_eq!(vec_width(&[4, 4, 1]), 4);
        assert_eq!(vec_width(&[8, 8, 8]), 2);
        assert_eq!(vec_width(&[1, 1, 1]), 16);
    }
}
