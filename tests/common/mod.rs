//! Test support: operands in every layout the kernels must handle, and a
//! naive broadcasting reference written index by index, independent of the
//! library's iteration plan.
#![allow(dead_code)]

use shaped::{DynRank, Tensor};

#[cfg(feature = "cuda")]
pub mod cuda;
pub mod grad;
pub mod host_cxx;
pub mod json_scalar;
pub mod json_tensor;
#[cfg(feature = "linalg")]
pub mod linalg_oracle;

/// How an operand's elements are laid out in memory.
#[derive(Clone, Copy, Debug)]
pub enum Layout {
    /// Row-major, no gaps.
    Contiguous,
    /// A permuted view (first and last axes swapped in memory).
    Transposed,
    /// A view narrowed out of a larger tensor (offset and gaps).
    Sliced,
    /// The first axis stretched from size 1 (stride 0).
    Expanded,
}

pub const LAYOUTS: [Layout; 4] = [
    Layout::Contiguous,
    Layout::Transposed,
    Layout::Sliced,
    Layout::Expanded,
];

/// A small deterministic generator for test values.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// Uniform in [lo, hi).
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * ((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64)
    }
}

/// A small seeded generator (SplitMix64), independent of the library's.
pub struct SplitMix(pub u64);

impl SplitMix {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (0 when `n == 0`).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }
}

/// Row-major flat index of `idx` in `dims`.
pub fn flat(idx: &[usize], dims: &[usize]) -> usize {
    idx.iter().zip(dims).fold(0, |acc, (&i, &d)| acc * d + i)
}

/// Every multi-index of `dims`, row-major.
pub fn indices(dims: &[usize]) -> Vec<Vec<usize>> {
    let n: usize = dims.iter().product();
    (0..n)
        .map(|mut k| {
            let mut idx = vec![0; dims.len()];
            for d in (0..dims.len()).rev() {
                idx[d] = k % dims[d];
                k /= dims[d];
            }
            idx
        })
        .collect()
}

/// The broadcast shape by the textbook rule: pad with 1s on the left, then
/// each size is the other where one is 1; `None` on a mismatch.
pub fn naive_broadcast(shapes: &[&[usize]]) -> Option<Vec<usize>> {
    let rank = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out = vec![1; rank];
    for s in shapes {
        let padded: Vec<usize> = std::iter::repeat_n(1, rank - s.len())
            .chain(s.iter().copied())
            .collect();
        for (o, p) in out.iter_mut().zip(padded) {
            if *o == 1 {
                *o = p;
            } else if p != 1 && p != *o {
                return None;
            }
        }
    }
    Some(out)
}

/// The element of an operand of sizes `dims` (logical values `vals`) that
/// lands at `out_idx` of a broadcast result.
pub fn pick<T: Copy>(vals: &[T], dims: &[usize], out_idx: &[usize]) -> T {
    let lead = out_idx.len() - dims.len();
    let idx: Vec<usize> = dims
        .iter()
        .enumerate()
        .map(|(i, &d)| if d == 1 { 0 } else { out_idx[lead + i] })
        .collect();
    vals[flat(&idx, dims)]
}

/// A `DynRank` tensor of sizes `dims` laid out as `layout`, with its logical
/// (row-major) values.
pub fn operand(
    dims: &[usize],
    layout: Layout,
    rng: &mut Rng,
    lo: f64,
    hi: f64,
) -> (Tensor<f64, DynRank>, Vec<f64>) {
    let n: usize = dims.iter().product();
    let rank = dims.len();
    match layout {
        Layout::Transposed if rank >= 2 => {
            // Store the (last, ..., first)-swapped tensor contiguously, then
            // view it with the axes swapped back.
            let mut sw = dims.to_vec();
            sw.swap(0, rank - 1);
            let vals: Vec<f64> = (0..n).map(|_| rng.uniform(lo, hi)).collect();
            let mut stored = vec![0.0; n];
            for idx in indices(dims) {
                let mut j = idx.clone();
                j.swap(0, rank - 1);
                stored[flat(&j, &sw)] = vals[flat(&idx, dims)];
            }
            let t = Tensor::<f64, DynRank>::try_from_vec(stored, &sw).unwrap();
            let mut perm: Vec<isize> = (0..rank as isize).collect();
            perm.swap(0, rank - 1);
            (t.permute::<DynRank>(&perm).unwrap(), vals)
        }
        Layout::Sliced if rank >= 1 => {
            let mut big = dims.to_vec();
            big[0] += 3;
            let stored: Vec<f64> = (0..big.iter().product::<usize>())
                .map(|_| rng.uniform(lo, hi))
                .collect();
            let t = Tensor::<f64, DynRank>::try_from_vec(stored.clone(), &big).unwrap();
            let v = t.narrow::<DynRank>(0, 2, dims[0]).unwrap();
            let vals = indices(dims)
                .into_iter()
                .map(|mut idx| {
                    idx[0] += 2;
                    stored[flat(&idx, &big)]
                })
                .collect();
            (v, vals)
        }
        Layout::Expanded if rank >= 1 && dims[0] != 1 => {
            let mut small = dims.to_vec();
            small[0] = 1;
            let stored: Vec<f64> = (0..small.iter().product::<usize>())
                .map(|_| rng.uniform(lo, hi))
                .collect();
            let t = Tensor::<f64, DynRank>::try_from_vec(stored.clone(), &small).unwrap();
            let sizes: Vec<isize> = dims.iter().map(|&d| d as isize).collect();
            let v = t.expand::<DynRank>(&sizes).unwrap();
            let vals = indices(dims)
                .into_iter()
                .map(|mut idx| {
                    idx[0] = 0;
                    stored[flat(&idx, &small)]
                })
                .collect();
            (v, vals)
        }
        _ => {
            let vals: Vec<f64> = (0..n).map(|_| rng.uniform(lo, hi)).collect();
            (
                Tensor::<f64, DynRank>::try_from_vec(vals.clone(), dims).unwrap(),
                vals,
            )
        }
    }
}

/// A tensor of sizes `dims` expanded (stride 0) from size 1 on the
/// even-indexed axes, its stored values drawn from `value` in order.
pub fn expanded_even(dims: &[usize], mut value: impl FnMut() -> f64) -> Tensor<f64, DynRank> {
    let small: Vec<usize> = dims
        .iter()
        .enumerate()
        .map(|(i, &d)| if i % 2 == 0 { 1 } else { d })
        .collect();
    let n = small.iter().product();
    let base =
        Tensor::<f64, DynRank>::try_from_vec((0..n).map(|_| value()).collect(), &small).unwrap();
    base.try_broadcast_to::<DynRank>(dims).unwrap()
}

/// `f` over `a` and `b` broadcast, index by index.
pub fn naive_binary<T: Copy, U: Copy, O>(
    a: (&[T], &[usize]),
    b: (&[U], &[usize]),
    f: impl Fn(T, U) -> O,
) -> Option<(Vec<usize>, Vec<O>)> {
    let out = naive_broadcast(&[a.1, b.1])?;
    let vals = indices(&out)
        .iter()
        .map(|i| f(pick(a.0, a.1, i), pick(b.0, b.1, i)))
        .collect();
    Some((out, vals))
}

/// Random dims of rank `0..=max_rank`, sizes `0..=max_size`, that broadcast
/// with `base` (sizes replaced by 1 or dropped at random).
pub fn broadcastable(base: &[usize], rng: &mut Rng) -> Vec<usize> {
    let drop = (rng.next_u64() % (base.len() as u64 + 1)) as usize;
    base[drop..]
        .iter()
        .map(|&d| {
            if rng.next_u64().is_multiple_of(3) {
                1
            } else {
                d
            }
        })
        .collect()
}

/// Asserts two float vectors are equal, NaN equal to NaN, to a tolerance.
pub fn assert_close(got: &[f64], want: &[f64], tol: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let same = (g.is_nan() && w.is_nan()) || g == w || (g - w).abs() <= tol * (1.0 + w.abs());
        assert!(same, "{what}: element {i}: got {g}, want {w}");
    }
}
