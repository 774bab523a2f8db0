//! Fuzzes the dynamic shape API: run-time shapes, broadcasting, views
//! (reshape, expand, permute, narrow, select, step), and the ops that check
//! shapes at run time (binary ops, in place, matmul, reductions, gather,
//! index_select, cat). Every `try_` call must return `Ok` or `Err`: a panic,
//! an abort or (under the fuzzer's AddressSanitizer) an out-of-bounds access
//! is a finding. Where cheap, results are also checked: `broadcast_shapes`
//! against a naive rule, element counts of views, `to_vec` lengths.
//!
//! The input is read as a program: a start shape, then one operation per
//! byte, each with its arguments from the following bytes. Sizes are small
//! (0..=5) or, rarely, huge, so size overflows and requests no machine can
//! allocate are exercised too; work that would be large but possible (more
//! than `WORK` elements) is skipped, to keep the fuzzer fast.

#![no_main]

use libfuzzer_sys::fuzz_target;
use shaped::{DynRank, Tensor, broadcast_shapes};

type T = Tensor<f32, DynRank>;
type I = Tensor<i64, DynRank>;

/// Element counts above this are only viewed, never computed on.
const WORK: usize = 1 << 12;

/// Requests at least this large fail on every machine (the byte count passes
/// 2^47, the x86-64 user address space) and are tried.
const HUGE: usize = 1 << 45;

struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn u8(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }

    fn done(&self) -> bool {
        self.0.is_empty()
    }

    fn size(&mut self) -> usize {
        match self.u8() {
            b @ 0..=239 => (b % 6) as usize,
            240..=247 => 1 << 20,
            248..=251 => HUGE,
            252 => isize::MAX as usize,
            253 => usize::MAX,
            _ => (1usize << 62) + 1,
        }
    }

    fn isize(&mut self) -> isize {
        match self.u8() {
            b @ 0..=247 => (b % 12) as isize - 6,
            248..=251 => isize::MAX,
            _ => isize::MIN,
        }
    }

    fn dims(&mut self) -> Vec<usize> {
        let rank = (self.u8() % 5) as usize;
        (0..rank).map(|_| self.size()).collect()
    }

    fn sizes(&mut self) -> Vec<isize> {
        let rank = (self.u8() % 5) as usize;
        (0..rank)
            .map(|_| match self.u8() % 8 {
                7 => -1,
                6 => self.isize(),
                _ => self.size() as isize,
            })
            .collect()
    }
}

/// The product of the sizes other than 0, if it is at most `isize::MAX`
/// (PyTorch's limit, which every size entering a tensor is held to).
fn nonzero_numel(dims: &[usize]) -> Option<usize> {
    dims.iter()
        .filter(|&&d| d != 0)
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .filter(|&n| n <= isize::MAX as usize)
}

fn numel(dims: &[usize]) -> Option<usize> {
    dims.iter().try_fold(1usize, |n, &d| n.checked_mul(d))
}

/// A tensor of sizes `dims` when small (values 0, 1, 2, ...), else none.
/// Sizes with no elements can still be refused: `[0, 2^62, 5]`, whose
/// other sizes overflow (PyTorch: "Stride calculation overflowed").
fn small(dims: &[usize]) -> Option<T> {
    let n = numel(dims).filter(|&n| n <= WORK)?;
    T::try_from_vec((0..n).map(|i| i as f32).collect(), dims).ok()
}

/// NumPy's broadcasting rule, written out.
fn naive_broadcast(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let rank = a.len().max(b.len());
    let get = |s: &[usize], d: usize| {
        if d + s.len() >= rank {
            s[d + s.len() - rank]
        } else {
            1
        }
    };
    (0..rank)
        .map(|d| match (get(a, d), get(b, d)) {
            (x, y) if x == y || y == 1 => Some(x),
            (1, y) => Some(y),
            _ => None,
        })
        .collect()
}

/// Checks what can be checked of a tensor: its element count, and its
/// elements' count when small enough to read.
fn check(t: &T) {
    let n = numel(t.dims()).expect("a tensor's element count fits in usize");
    assert!(
        nonzero_numel(t.dims()).is_some(),
        "sizes past isize::MAX entered"
    );
    assert_eq!(t.numel(), n);
    if n <= WORK {
        assert_eq!(t.to_vec().len(), n);
    }
}

fn workable(t: &T) -> bool {
    t.numel() <= WORK
}

/// One operation read from `b`, applied to `t`: the tensor it gives, if any.
fn step(t: &T, b: &mut Bytes<'_>) -> Option<T> {
    match b.u8() % 16 {
        0 => {
            let (x, y) = (b.dims(), b.dims());
            let got = broadcast_shapes(&[&x, &y]);
            match naive_broadcast(&x, &y) {
                // A size overflow is refused even beside a 0 (as PyTorch's
                // stride calculation refuses it).
                Some(want) if nonzero_numel(&want).is_some() => assert_eq!(got.unwrap(), want),
                Some(_) => assert!(got.is_err()),
                None => assert!(got.is_err()),
            }
            None
        }
        1 => {
            let sizes = b.sizes();
            t.try_reshape::<DynRank>(&sizes).ok().inspect(|r| {
                assert_eq!(r.numel(), t.numel());
            })
        }
        2 => {
            let sizes = b.sizes();
            t.expand::<DynRank>(&sizes).ok()
        }
        3 => {
            let dims = b.dims();
            t.try_broadcast_to::<DynRank>(&dims).ok()
        }
        4 => {
            let perm = b.sizes();
            t.permute::<DynRank>(&perm).ok()
        }
        5 => {
            let (dim, start, len) = (b.isize(), b.size(), b.size());
            t.narrow::<DynRank>(dim, start, len).ok()
        }
        6 => {
            let i = b.isize();
            match b.u8() % 3 {
                0 => t.try_select::<0>(i),
                1 => t.try_select::<1>(i),
                _ => t.try_select::<2>(i),
            }
            .ok()
        }
        7 => {
            let (lo, hi, step) = (b.isize(), b.isize(), b.size());
            match b.u8() % 2 {
                0 => t.try_slice_step::<0>(lo..hi, step),
                _ => t.try_slice_step::<1>(lo..hi, step),
            }
            .ok()
        }
        8 if workable(&t) => {
            let other = small(&b.dims())?;
            let r = t.try_add(&other);
            match naive_broadcast(t.dims(), other.dims()) {
                Some(want) if nonzero_numel(&want).is_some() => {
                    assert_eq!(r.as_ref().unwrap().dims(), &want[..])
                }
                _ => assert!(r.is_err()),
            }
            r.ok()
        }
        9 if workable(&t) => {
            let other = small(&b.dims())?;
            // In place: `t` may share its storage with earlier views.
            let mut w = t.clone();
            let _ = w.try_mul_(&other);
            None
        }
        10 if workable(&t) => {
            let other = small(&b.dims())?;
            // Each result size is a size of an operand, and so is the inner
            // one: the product of both operands' nonzero sizes bounds the
            // work. `[2^20, 0] @ [0, 2^20]` has 0 elements in, 2^40 out:
            // large but possible, skipped (an overflowing product is not:
            // the result's count overflows too, an error to check).
            let both: Vec<usize> = t.dims().iter().chain(other.dims()).copied().collect();
            if nonzero_numel(&both).is_some_and(|n| n > WORK * WORK) {
                return None;
            }
            t.try_matmul(&other).ok()
        }
        11 if workable(&t) => {
            let dims: Vec<isize> = (0..b.u8() % 3).map(|_| b.isize()).collect();
            t.try_sum_dims(&dims, b.u8() % 2 == 0).ok()
        }
        12 if workable(&t) => {
            let dims = b.dims();
            match numel(&dims) {
                Some(n) if n <= WORK => {
                    let vals: Vec<i64> = (0..n).map(|_| b.isize() as i64).collect();
                    let index = I::try_from_vec(vals, &dims).ok()?;
                    t.try_gather(b.isize(), &index).ok()
                }
                Some(n) if n < HUGE => None,
                _ => {
                    // One index value expanded (stride 0) to sizes no
                    // machine can gather into: an error, never an abort.
                    let one = I::try_from_vec(vec![0], &vec![1; dims.len()]).ok()?;
                    let index = one.try_broadcast_to::<DynRank>(&dims).ok()?;
                    assert!(t.try_gather(b.isize(), &index).is_err());
                    None
                }
            }
        }
        13 if workable(&t) => {
            let len = b.size().min(8);
            let vals: Vec<i64> = (0..len).map(|_| b.isize() as i64).collect();
            let index = Tensor::<i64, (shaped::Dyn,)>::try_from_vec(vals, &[len]).unwrap();
            match b.u8() % 2 {
                0 => t.try_index_select::<0, _>(&index),
                _ => t.try_index_select::<1, _>(&index),
            }
            .ok()
        }
        14 if workable(&t) => {
            let other = small(&b.dims())?;
            T::try_cat::<0>(&[&t, &other]).ok()
        }
        15 => {
            let dims = b.dims();
            // Allocate only what is small or what no machine can hold.
            match numel(&dims) {
                Some(n) if n <= WORK => T::try_zeros(&dims).ok(),
                Some(n) if n < HUGE => None,
                _ => {
                    assert!(T::try_zeros(&dims).is_err());
                    None
                }
            }
        }
        _ => None,
    }
}

fuzz_target!(|data: &[u8]| {
    let mut b = Bytes(data);
    let start = b.dims();
    let mut t = match small(&start) {
        Some(t) => t,
        None => {
            // Only sizes every machine refuses are allocated.
            if numel(&start).is_none_or(|n| n >= HUGE) {
                assert!(T::try_zeros(&start).is_err());
            }
            T::try_zeros(&[2, 3]).unwrap()
        }
    };
    let mut steps = 0;
    while !b.done() && steps < 32 {
        steps += 1;
        if let Some(n) = step(&t, &mut b) {
            check(&n);
            t = n;
        }
    }
});
