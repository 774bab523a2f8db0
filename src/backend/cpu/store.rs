//! The inner loops of the elementwise kernels over contiguous runs
//! (`zip1`/`zip2`/`zip3`), and [`Tile`], which repeats a short broadcast
//! row so that those loops run over many rows at once.
//!
//! Short runs (under [`SHORT`] elements) go in chunks of 8 elements, which
//! the compiler turns into a few vector instructions even when a run is only
//! 8 or 16 elements long (a broadcast row of a small tensor), where the loop
//! vectoriser's wider unrolled body would never be entered. Long runs use
//! the plain loop, whose unrolled vector body is faster there (measured:
//! chunks of 8 on long runs cost up to 30% on the large broadcast cases).
//!
//! Non-temporal (streaming) stores for large outputs were tried here and
//! measured no faster on the project machine (a KVM guest: 256 MiB of
//! `o = a + 1` took 60-65 ms single-threaded with plain, 128-bit and
//! 512-bit streaming stores alike), so outputs are written with plain
//! stores.

use core::mem::MaybeUninit;

/// Elements per chunk of the `zip*` loops on short runs.
const LANES: usize = 8;

/// Runs shorter than this take the chunked loop.
pub(crate) const SHORT: usize = 64;

/// `o[i] = f(a[i])` for every `i < o.len()`; `a` is at least as long as `o`.
#[inline(always)]
pub(crate) fn zip1<A: Copy, O>(o: &mut [MaybeUninit<O>], a: &[A], f: &impl Fn(A) -> O) {
    let a = &a[..o.len()];
    if o.len() >= SHORT {
        for (o, &x) in o.iter_mut().zip(a) {
            o.write(f(x));
        }
        return;
    }
    let mut oc = o.chunks_exact_mut(LANES);
    let mut ac = a.chunks_exact(LANES);
    for (o, a) in (&mut oc).zip(&mut ac) {
        for k in 0..LANES {
            o[k].write(f(a[k]));
        }
    }
    for (o, &x) in oc.into_remainder().iter_mut().zip(ac.remainder()) {
        o.write(f(x));
    }
}

/// `o[i] = f(a[i], b[i])` for every `i < o.len()`; `a` and `b` are at least
/// as long as `o`.
#[inline(always)]
pub(crate) fn zip2<A: Copy, B: Copy, O>(
    o: &mut [MaybeUninit<O>],
    a: &[A],
    b: &[B],
    f: &impl Fn(A, B) -> O,
) {
    let n = o.len();
    let (a, b) = (&a[..n], &b[..n]);
    if n >= SHORT {
        for ((o, &x), &y) in o.iter_mut().zip(a).zip(b) {
            o.write(f(x, y));
        }
        return;
    }
    let mut oc = o.chunks_exact_mut(LANES);
    let mut ac = a.chunks_exact(LANES);
    let mut bc = b.chunks_exact(LANES);
    for ((o, a), b) in (&mut oc).zip(&mut ac).zip(&mut bc) {
        for k in 0..LANES {
            o[k].write(f(a[k], b[k]));
        }
    }
    let rest = oc.into_remainder().iter_mut().zip(ac.remainder());
    for ((o, &x), &y) in rest.zip(bc.remainder()) {
        o.write(f(x, y));
    }
}

/// `o[i] = f(a[i], b[i], c[i])` for every `i < o.len()`.
#[inline(always)]
pub(crate) fn zip3<A: Copy, B: Copy, C: Copy, O>(
    o: &mut [MaybeUninit<O>],
    a: &[A],
    b: &[B],
    c: &[C],
    f: &impl Fn(A, B, C) -> O,
) {
    let n = o.len();
    let (a, b, c) = (&a[..n], &b[..n], &c[..n]);
    if n >= SHORT {
        for (((o, &x), &y), &z) in o.iter_mut().zip(a).zip(b).zip(c) {
            o.write(f(x, y, z));
        }
        return;
    }
    let mut oc = o.chunks_exact_mut(LANES);
    let mut ac = a.chunks_exact(LANES);
    let mut bc = b.chunks_exact(LANES);
    let mut cc = c.chunks_exact(LANES);
    for (((o, a), b), c) in (&mut oc).zip(&mut ac).zip(&mut bc).zip(&mut cc) {
        for k in 0..LANES {
            o[k].write(f(a[k], b[k], c[k]));
        }
    }
    let rest = oc.into_remainder().iter_mut().zip(ac.remainder());
    for (((o, &x), &y), &z) in rest.zip(bc.remainder()).zip(cc.remainder()) {
        o.write(f(x, y, z));
    }
}

/// A 64-byte-aligned block of bytes on the stack.
#[repr(C, align(64))]
struct Block<const N: usize>([MaybeUninit<u8>; N]);

/// Bytes of a [`Tile`].
const TILE_BYTES: usize = 512;

/// A short broadcast row repeated end to end, so that an inner loop over a
/// `(rows, 8)` result runs over many rows at once instead of paying a loop's
/// set-up per 8 elements.
pub(crate) struct Tile(Block<TILE_BYTES>);

impl Tile {
    /// An empty tile.
    pub(crate) fn new() -> Self {
        Tile(Block([MaybeUninit::uninit(); TILE_BYTES]))
    }

    /// Whether a row of `row_len` elements of `T`, used by `rows` rows, is
    /// worth tiling (at least two copies fit and are used).
    pub(crate) fn fits<T>(row_len: usize, rows: usize) -> bool {
        rows > 1 && row_len > 0 && 2 * row_len * size_of::<T>() <= TILE_BYTES
    }

    /// Fills the tile with copies of `row` (as many whole copies as fit, at
    /// most `rows`) and returns the tile's elements: a row whose length is a
    /// multiple of `row_len`, so that element `i` of it is `row[i % row_len]`.
    ///
    /// # Safety
    /// `row` points to `row_len` readable elements, and `Tile::fits::<T>(row_len, rows)`.
    pub(crate) unsafe fn repeat<T: Copy>(
        &mut self,
        row: *const T,
        row_len: usize,
        rows: usize,
    ) -> &[T] {
        let copies = (TILE_BYTES / size_of::<T>() / row_len).min(rows);
        let n = copies * row_len;
        let buf = self.0.0.as_mut_ptr() as *mut T;
        // SAFETY: `n` elements fit in the tile by the choice of `copies`;
        // the tile is aligned to 64 bytes, which covers `T`; `row` has
        // `row_len` readable elements (the caller's contract). The tile is
        // filled by doubling: each copy reads the `have` elements already
        // written and writes the next ones, which do not overlap them.
        unsafe {
            core::ptr::copy_nonoverlapping(row, buf, row_len);
            let mut have = row_len;
            while have < n {
                let more = have.min(n - have);
                core::ptr::copy_nonoverlapping(buf, buf.add(have), more);
                have += more;
            }
            core::slice::from_raw_parts(buf, copies * row_len)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiles_repeat_the_row() {
        let row = [1u8, 2, 3];
        assert!(Tile::fits::<u8>(3, 2) && !Tile::fits::<u8>(3, 1) && !Tile::fits::<f64>(40, 9));
        let mut tile = Tile::new();
        // SAFETY: `row` has 3 elements; `fits` holds.
        let t = unsafe { tile.repeat(row.as_ptr(), 3, 1000) };
        assert_eq!(t.len(), 510);
        assert!(t.iter().enumerate().all(|(i, &x)| x == row[i % 3]));
        // SAFETY: as above.
        let t = unsafe { tile.repeat(row.as_ptr(), 3, 4) };
        assert_eq!(t, &[1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3]);
    }

    #[test]
    fn zips_handle_remainders() {
        for n in (0..20).chain([63, 64, 65, 200]) {
            let a: Vec<f64> = (0..n).map(|i| i as f64).collect();
            let b: Vec<f64> = (0..n).map(|i| 2.0 * i as f64).collect();
            let mut o = vec![MaybeUninit::<f64>::uninit(); n];
            zip3(&mut o, &a, &b, &a, &|x, y, z| x + y * z);
            for (i, o) in o.iter().enumerate() {
                // SAFETY: `zip3` wrote every element.
                let got = unsafe { o.assume_init() };
                assert_eq!(got, i as f64 + 2.0 * (i * i) as f64);
            }
        }
    }
}
