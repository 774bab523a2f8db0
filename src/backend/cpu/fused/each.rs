//! Several values of one fused expression in one pass: a fused backward
//! pass gives every input's adjoint from the same blocks, each written out
//! or summed back to the input's sizes as the blocks go by ([`eval_each`]).
//! Before, each input had its own pass, which recomputed the chain: three
//! passes for the three inputs of `gelu(x * w + b)`.

use core::mem::MaybeUninit;

use super::{
    Arena, Block, Collect, MAX_LEAVES, MIN_OUTER_RUN, OutPtr, Run, checked, make_block, plan,
};
use crate::backend::cpu::isa::widest;
use crate::backend::cpu::pool;
use crate::element::{Element, Float};
use crate::iter::contiguous_strides;
use crate::shape::{DimVec, ShapeError};
use num_traits::Zero;

/// Where a pass of several values (`Each`) puts each one over a block:
/// a fused backward pass puts leaf `k`'s adjoint as value `k`.
pub trait Sink<T> {
    /// Whether any of values `first..first + count` is asked for (a
    /// subtree none of whose leaves needs a gradient is not
    /// differentiated).
    fn wants(&self, first: usize, count: usize) -> bool;
    /// Value `k` over the block.
    fn put(&mut self, k: usize, v: Run<'_, T>);
}

/// Values over the same sizes, computed together block by block and
/// handed by number to a [`Sink`]: every input's adjoint of a fused chain.
pub(crate) trait Each: Sync {
    /// The values' element type.
    type Elem: Element;
    /// The number of operations in the expression ([`Expr::OPS`](crate::backend::fused::Expr::OPS)).
    const OPS: usize;
    /// The values' sizes.
    fn dims(&self) -> Result<DimVec, ShapeError>;
    /// Every tensor leaf, in index order.
    fn leaves<'a>(&'a self, c: &mut Collect<'a>);
    /// Whether the values call a transcendental function: the blocks then
    /// run with the widest vectors, as [`super::writer`]'s do.
    fn transcendental(&self) -> bool;
    /// Every value `k` the sink wants, over block `b`.
    fn write_each<K: Sink<Self::Elem>>(&self, b: &Block<'_>, k: &mut K);
}

/// Where value `k` of a pass goes.
enum Target<'a, T> {
    /// Not asked for.
    Skip,
    /// Of the pass's own sizes: written into the output, at the block's
    /// position.
    Whole(OutPtr<T>),
    /// Summed to smaller sizes, into `len` accumulators per tile from
    /// `start` in the tile's row of partial sums: `strides` are the
    /// target's contiguous strides over the pass's sizes (0 along the
    /// summed axes), `inner` the one of the innermost axis (1, or 0 where
    /// the block is summed to one accumulator).
    Summed {
        strides: &'a [usize],
        inner: usize,
        start: usize,
        len: usize,
    },
}

/// A tile's sink: the targets, the tile's partial sums, and where the
/// current block lies (its first element's linear index `w`, its length
/// `n`, and each summed target's first accumulator `o[k]`).
struct Put<'a, T> {
    targets: &'a [Target<'a, T>],
    asked: u32,
    acc: &'a mut [T],
    w: usize,
    n: usize,
    o: [usize; MAX_LEAVES],
    /// The values put over the current block.
    done: u32,
}

impl<T: Float> Put<'_, T> {
    /// Zeros for each whole value asked for but not put over the block
    /// (no path of the expression reaches it), so that every element of
    /// the outputs is written.
    #[inline(always)]
    fn finish_block(&mut self) {
        if self.done != self.asked {
            for k in 0..self.targets.len() {
                if self.done & 1 << k == 0 {
                    self.put(k, Run::Splat(T::zero()));
                }
            }
        }
        self.done = 0;
    }
}

impl<T: Float> Sink<T> for Put<'_, T> {
    #[inline(always)]
    fn wants(&self, first: usize, count: usize) -> bool {
        // Values past the targets' (the upstream gradient's leaf) are never
        // asked for.
        let span = (1u32 << count.min(MAX_LEAVES)) - 1;
        first < MAX_LEAVES && self.asked & (span << first) != 0
    }

    #[inline(always)]
    fn put(&mut self, k: usize, v: Run<'_, T>) {
        let n = self.n;
        self.done |= 1 << k;
        match self.targets.get(k) {
            None | Some(Target::Skip) => {}
            Some(Target::Whole(out)) => {
                // SAFETY: the output holds the pass's `numel` elements, and
                // the blocks of all tiles cover `0..numel` once (the plan's
                // segments of disjoint ranges), so elements `w..w + n` are
                // in bounds and this block's alone.
                let dst = unsafe {
                    core::slice::from_raw_parts_mut(out.ptr().add(self.w) as *mut MaybeUninit<T>, n)
                };
                super::write_run(dst, v);
            }
            Some(&Target::Summed {
                inner, start, len, ..
            }) => {
                let acc = &mut self.acc[start..start + len];
                let o = self.o[k];
                if inner == 1 {
                    let acc = &mut acc[o..o + n];
                    match v {
                        Run::Splat(x) => acc.iter_mut().for_each(|a| *a = *a + x),
                        Run::Slice(v) => {
                            for (a, &x) in acc.iter_mut().zip(&v[..n]) {
                                *a = *a + x;
                            }
                        }
                    }
                } else {
                    acc[o] = acc[o]
                        + match v {
                            Run::Splat(x) => x * T::from(n).expect("a block's length is a float"),
                            Run::Slice(v) => sum(&v[..n]),
                        };
                }
            }
        }
    }
}

/// The sum of a block's values, in 32 interleaved partial sums (one
/// running sum was a chain of dependent additions, as long as the block).
#[inline(always)]
fn sum<T: Float>(v: &[T]) -> T {
    const LANES: usize = 32;
    let (chunks, rest) = v.as_chunks::<LANES>();
    let mut lanes = [T::zero(); LANES];
    for ch in chunks {
        for (l, &x) in lanes.iter_mut().zip(ch) {
            *l = *l + x;
        }
    }
    let mut width = LANES;
    while width > 1 {
        width /= 2;
        for j in 0..width {
            lanes[j] = lanes[j] + lanes[j + width];
        }
    }
    rest.iter().fold(lanes[0], |a, &x| a + x)
}

/// One block of `e` into `k`, with the widest vectors when `wide`.
#[inline(always)]
fn block<E: Each, K: Sink<E::Elem>>(e: &E, wide: bool, b: &Block<'_>, k: &mut K) {
    if wide {
        widest(
            #[inline(always)]
            || e.write_each(b, k),
        )
    } else {
        e.write_each(b, k)
    }
}

/// What [`eval_each`] gives: each value asked for, summed to its target's
/// sizes, in order.
pub(crate) type Values<T> = Vec<Option<Vec<T>>>;

/// The values of `e` in one pass over its sizes, value `k` summed to sizes
/// `targets[k]` (which broadcast to `e`'s: the axes it lacks, or where it
/// has size 1, are summed; its own sizes: written as is), `None` where not
/// asked for. The pass walks the values in memory order, each tile of it
/// adding into its own partial sums, combined in tile order at the end.
///
/// `Ok(None)` where the pass's inner loops are shorter than
/// [`MIN_OUTER_RUN`] elements (a `(n, 2)` value): a block's set-up per
/// few elements costs more than a pass per value, whose reductions run
/// along the summed axes instead.
///
/// # Errors
/// The expression's broadcast error, too many leaves, or a buffer that
/// cannot be allocated.
///
/// # Panics
/// When a target does not broadcast to the values' sizes.
pub(crate) fn eval_each<E: Each>(
    e: &E,
    targets: &[Option<&[usize]>],
) -> Result<Option<Values<E::Elem>>, ShapeError>
where
    E::Elem: Float,
{
    let dims = e.dims()?;
    let mut c = Collect::default();
    e.leaves(&mut c);
    let c = checked(c)?;
    let walk = contiguous_strides(&dims);
    let plan = plan(&dims, (&walk, 0), &c.0);
    let numel = plan.numel();
    if numel >= pool::GRAIN && plan.dims().last().is_some_and(|&n| n < MIN_OUTER_RUN) {
        return Ok(None);
    }
    assert!(
        targets.len() <= MAX_LEAVES,
        "at most {MAX_LEAVES} values in one pass"
    );
    // The innermost axis of size > 1: a summed target's offset follows the
    // blocks along it (stride 1 or 0), so blocks are cut at its rows.
    let inner = dims.iter().rposition(|&d| d > 1);
    let row = inner.map_or(1, |i| dims[i]);
    let mut summed = 0;
    let mut target_strides: Vec<Option<DimVec>> = Vec::with_capacity(targets.len());
    for t in targets {
        target_strides.push(t.and_then(|t| {
            let lead = dims.len().checked_sub(t.len());
            assert!(
                lead.is_some_and(|lead| t
                    .iter()
                    .zip(&dims[lead..])
                    .all(|(&a, &d)| a == d || a == 1)),
                "a summed value's sizes {t:?} do not broadcast to {dims:?}"
            );
            // Sizes that differ from the values' only by axes of size 1
            // address the same elements: written as is.
            let sized = |d: &&usize| **d != 1;
            let whole = t.iter().filter(sized).eq(dims.iter().filter(sized));
            (!whole).then(|| crate::iter::broadcast_strides(t, &contiguous_strides(t), &dims))
        }));
    }
    let mut outputs: Values<E::Elem> = Vec::with_capacity(targets.len());
    let mut list: Vec<Target<'_, E::Elem>> = Vec::with_capacity(targets.len());
    for (t, st) in targets.iter().zip(&target_strides) {
        match (t, st) {
            (None, _) => {
                outputs.push(None);
                list.push(Target::Skip);
            }
            (Some(_), None) => {
                let (mut v, _) = super::super::try_with_capacity::<E::Elem>(&dims)?;
                list.push(Target::Whole(OutPtr(v.as_mut_ptr())));
                outputs.push(Some(v));
            }
            (Some(t), Some(st)) => {
                let len: usize = t.iter().product();
                list.push(Target::Summed {
                    strides: st,
                    inner: inner.map_or(0, |i| st[i]),
                    start: summed,
                    len,
                });
                outputs.push(None);
                summed += len;
            }
        }
    }
    debug_assert!(list.iter().all(|t| match t {
        Target::Summed { inner, .. } => *inner <= 1,
        _ => true,
    }));
    let cut = summed > 0;
    // Tiles of at least `GRAIN` elements, a few per thread, and partial
    // sums taking at most as many elements as the values.
    let tiles = if numel < pool::GRAIN {
        1
    } else {
        (numel / pool::GRAIN)
            .clamp(1, 4 * pool::threads())
            .min((numel / summed.max(1)).max(1))
    };
    let mut partials = super::super::try_vec_from_fn(&[tiles, summed], |_| E::Elem::zero())?;
    let asked = targets
        .iter()
        .enumerate()
        .fold(0u32, |m, (k, t)| if t.is_some() { m | 1 << k } else { m });
    let (guards, ptrs) = super::read_all(&c.0);
    let wide = super::light_wide() || e.transcendental();
    let parts = OutPtr(partials.as_mut_ptr());
    let list = &list[..];
    let tile = |t: usize| {
        // SAFETY: row `t` of the partial sums (`summed` of them) is this
        // tile's alone.
        let acc = unsafe { core::slice::from_raw_parts_mut(parts.ptr().add(t * summed), summed) };
        let mut put = Put {
            targets: list,
            asked,
            acc,
            w: 0,
            n: 0,
            o: [0; MAX_LEAVES],
            done: 0,
        };
        let mut arena = Arena::new();
        let (start, end) = (t * numel / tiles, (t + 1) * numel / tiles);
        plan.segments(start, end, |offs, st, len| {
            // Operand 0 is the walk in memory order: its inner stride is 1
            // and its offset the linear index.
            assert!(st[0] == 1 || len == 1, "the walk's inner stride is 1");
            let mut at = 0;
            while at < len {
                let w = offs[0] + at;
                let mut n = super::BLOCK.min(len - at);
                if cut {
                    n = n.min(row - w % row);
                }
                put.w = w;
                put.n = n;
                for (k, target) in list.iter().enumerate() {
                    if let Target::Summed { strides, .. } = target {
                        put.o[k] = dims
                            .iter()
                            .zip(&walk[..])
                            .zip(&strides[..])
                            .map(|((&d, &ws), &ts)| (w / ws) % d * ts)
                            .sum();
                    }
                }
                let b = make_block(&ptrs, &offs, &st, at, n, &mut arena);
                block(e, wide, &b, &mut put);
                put.finish_block();
                at += n;
            }
        });
    };
    super::with_stack(E::OPS, || pool::for_each_tile(tiles, &tile));
    drop(guards);
    for (out, target) in outputs.iter_mut().zip(list) {
        match target {
            Target::Skip => {}
            Target::Whole(_) => {
                let v = out.as_mut().expect("a whole value has its buffer");
                // SAFETY: the tiles wrote every element `0..numel` (see
                // `Put::put`), within the capacity `try_with_capacity` gave.
                unsafe { v.set_len(numel) };
            }
            &Target::Summed { start, len, .. } => {
                *out = Some(
                    (0..len)
                        .map(|i| {
                            (0..tiles)
                                .fold(E::Elem::zero(), |a, t| a + partials[t * summed + start + i])
                        })
                        .collect(),
                );
            }
        }
    }
    Ok(Some(outputs))
}
