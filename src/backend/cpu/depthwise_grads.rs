//! Both gradients of a stride-1 depthwise convolution in one pass
//! ([`Windows::depthwise_grads`](crate::backend::Windows::depthwise_grads)):
//! channel by channel, each plane of the output's gradient is read once,
//! through its layout, and serves the input's gradient (the forward
//! kernel on it with the taps turned) and the weight's (its products
//! with the input plane), where the two separate kernels of `windows.rs`
//! read it once each from a contiguous copy. A `sum`'s gradient (expanded
//! ones, stride 0 on every axis) is read where it lies and never copied.

use core::mem::MaybeUninit;

use super::exec::{Layout, with_elements};
use super::primitives::whole;
use super::storage::Storage;
use super::windows::{
    Out, Plane4, ReadAhead, TapTotals, fill_padded, flipped, padded_sums, planes, runs, turned,
};
use crate::backend::Output;
use crate::backend::windows::Window;
use crate::element::Numeric;
use crate::shape::ShapeError;

/// The input's and the weight's gradients, new storages with their sizes.
type Pair<T> = Result<(Output<Storage<T>>, Output<Storage<T>>), ShapeError>;

/// The gradients of a depthwise convolution of `x` `(N, C, H, W)` by
/// `weight` `(C, 1, kh, kw)` (one filter per channel, stride 1, kernels of
/// 9, 25 or 49 taps, no side padded past the dilated kernel) from the output's
/// gradient `g`, `(N, C, oh, ow)` of any layout: `(input's, weight's)`.
/// `None` for any other convolution, an empty one, or taps that are not
/// all finite: the separate kernels handle those.
///
/// Each value is the separate kernels' (the same sums in the same order).
/// A weight's sum that is not finite (an infinite or NaN input or
/// gradient, whose products with the padding the separate kernel leaves
/// out) has the weight's gradient recomputed by that kernel.
pub(super) fn depthwise_grads<T: Numeric>(
    g: Layout<'_, T>,
    x: Layout<'_, T>,
    weight: Layout<'_, T>,
    w: &Window,
    c: usize,
) -> Option<Pair<T>> {
    let [kh, kw] = w.kernel;
    let channel: Channel<T> = match kh * kw {
        9 => channel::<T, 9>,
        25 => channel::<T, 25>,
        49 => channel::<T, 49>,
        _ => return None,
    };
    let turned = turned(w)?;
    let numel = |d: &[usize]| d.iter().product::<usize>();
    if g.dims[1] != c || weight.dims[0] != c || numel(g.dims) == 0 || numel(x.dims) == 0 {
        return None;
    }
    let taps = match with_elements(weight, |t| t.to_vec()) {
        Ok(t) => t,
        Err(e) => return Some(Err(e)),
    };
    if !taps.iter().all(|&t| Numeric::to_f64(t).is_finite()) {
        return None;
    }
    Some(both(g, x, &flipped(&taps, kh * kw), w, &turned, channel))
}

/// The gradients of one channel: `(operands, channel, input's gradient,
/// weight's gradient)`; `false` when a weight's sum was not finite.
type Channel<T> = fn(&Operands<'_, T>, usize, Out<T>, &mut [T]) -> bool;

/// What every channel reads: the gradient and the input, the turned taps,
/// the forward's window and the gradient's ([`turned`]).
struct Operands<'a, T> {
    g: Plane4<'a, T>,
    x: Plane4<'a, T>,
    flipped: &'a [T],
    w: &'a Window,
    turned: &'a Window,
    n: usize,
    c: usize,
}

/// [`depthwise_grads`] once applicable, with the turned taps and window.
fn both<T: Numeric>(
    g: Layout<'_, T>,
    x: Layout<'_, T>,
    flipped: &[T],
    w: &Window,
    turned: &Window,
    channel: Channel<T>,
) -> Pair<T> {
    let (gs, xs) = (g.storage.read(), x.storage.read());
    let (n, c) = (x.dims[0], x.dims[1]);
    let k = w.kernel[0] * w.kernel[1];
    let ops = Operands {
        g: Plane4::of(&gs, &g),
        x: Plane4::of(&xs, &x),
        flipped,
        w,
        turned,
        n,
        c,
    };
    let [oh, ow] = w.output;
    let [h, wd] = w.input;
    let mut weights = vec![T::zero(); c * k];
    let mut finite = vec![true; c];
    let (wout, fout) = (Out(weights.as_mut_ptr()), Out(finite.as_mut_ptr()));
    // SAFETY: the buffer has `n·c·h·wd` elements; channel `ch` writes the
    // planes `b·c + ch` (every element of each, `padded_sums`' contract)
    // and `weights[ch·k..][..k]` and `finite[ch]`, and each channel is
    // handed to one tile once, so no two writes alias; `weights` and
    // `finite` outlive the pool call.
    let gx = unsafe {
        super::try_alloc_filled_by(&[n, c, h, wd], |o: *mut T| {
            let out = Out(o);
            planes(c, n * (h * wd + oh * ow) * k, &|ch| {
                let wk = core::slice::from_raw_parts_mut(wout.ptr().add(ch * k), k);
                *fout.ptr().add(ch) = channel(&ops, ch, out, wk);
            });
        })
    }?;
    let gx = whole(gx, &[n, c, h, wd]);
    drop((gs, xs));
    if finite.iter().all(|&f| f) {
        return Ok((gx, whole(weights, &[c, 1, w.kernel[0], w.kernel[1]])));
    }
    Ok((gx, super::windows::depthwise_grad_weight(g, x, w)?))
}

/// Channel `ch`'s planes of the input's gradient (into `gx`, every element
/// of each) and its `K` taps' weight gradients (into `wk`), batch element
/// by batch element: the gradient's plane padded once by the turned
/// window, then the forward kernel on it ([`padded_sums`]), then its rows
/// (from that padded copy, in cache) with the padded input plane into the
/// taps' sums ([`TapTotals`]). `false` when a weight's sum is not finite
/// (`wk` unwritten).
fn channel<T: Numeric, const K: usize>(
    ops: &Operands<'_, T>,
    ch: usize,
    gx: Out<T>,
    wk: &mut [T],
) -> bool {
    let (w, turned) = (ops.w, ops.turned);
    let [oh, ow] = w.output;
    let [h, wd] = w.input;
    let (tpw, [top, left]) = (turned.padded(1), turned.before);
    let gw = runs(ow);
    let taps = &ops.flipped[ch * K..][..K];
    let (mut gpad, mut xpad) = (Vec::new(), Vec::new());
    // The gradient's rows padded with zeros to whole runs of `LANES`
    // (`runs`); the zeros past each row are never overwritten.
    let mut grows = vec![T::zero(); oh * gw];
    let mut sums = TapTotals::<K>::new(w);
    for b in 0..ops.n {
        let p = b * ops.c + ch;
        fill_padded(&mut gpad, &ops.g, ops.g.base(p), turned);
        // While this plane's input gradient computes from the L1-resident
        // copy, the input plane read next comes into the cache.
        let ahead = ReadAhead::plane(&ops.x, ops.x.base(p), h, h);
        // SAFETY: plane `p` of the `n·c·h·wd` output, written by this
        // channel only (see `both`).
        let plane: &mut [MaybeUninit<T>] = unsafe {
            core::slice::from_raw_parts_mut(gx.ptr().add(p * h * wd) as *mut MaybeUninit<T>, h * wd)
        };
        padded_sums::<T, K>(&gpad, taps, turned, plane, &ahead);
        for (r, d) in grows.chunks_exact_mut(gw).enumerate() {
            d[..ow].copy_from_slice(&gpad[(top + r) * tpw + left..][..ow]);
        }
        fill_padded(&mut xpad, &ops.x, ops.x.base(p), w);
        sums.add(&grows, &xpad, w);
    }
    sums.write(wk)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::depthwise_grads;
    use crate::backend::Layout;
    use crate::backend::cpu::storage::Storage;
    use crate::backend::windows::Window;

    /// Naive loops: the input's and the weight's gradients of a depthwise
    /// 3x3 convolution, padding 1, of `x` `(n, c, h, w)` by `taps` for the
    /// row-major output gradient `g` (same sizes as `x`).
    fn naive(x: &[f64], taps: &[f64], g: &[f64], [n, c, h, w]: [usize; 4]) -> (Vec<f64>, Vec<f64>) {
        let (mut gx, mut gw) = (vec![0.0; x.len()], vec![0.0; c * 9]);
        for p in 0..n * c {
            for (r, q) in (0..h).flat_map(|r| (0..w).map(move |q| (r, q))) {
                for (i, j) in (0..3).flat_map(|i| (0..3).map(move |j| (i, j))) {
                    let (y, z) = (r + i, q + j);
                    if (1..=h).contains(&y) && (1..=w).contains(&z) {
                        let xi = (p * h + y - 1) * w + z - 1;
                        let (gi, t) = ((p * h + r) * w + q, (p % c) * 9 + i * 3 + j);
                        gx[xi] += g[gi] * taps[t];
                        gw[t] += g[gi] * x[xi];
                    }
                }
            }
        }
        (gx, gw)
    }

    /// The layout of `storage` with sizes `dims` and strides `strides`.
    fn lay<'a>(
        storage: &'a Arc<Storage<f64>>,
        dims: &'a [usize],
        strides: &'a [usize],
    ) -> Layout<'a, Storage<f64>> {
        Layout {
            storage,
            dims,
            strides,
            offset: 0,
        }
    }

    /// `len` small integers: sums of their products are exact.
    fn ints(len: usize, step: usize, m: usize) -> Vec<f64> {
        (0..len)
            .map(|i| ((i * step) % m) as f64 - (m / 2) as f64)
            .collect()
    }

    /// Both gradients in one pass, rows of 17 (a chunk of 16 and one moved
    /// back), for a contiguous output gradient and an expanded one (stride
    /// 0 on every axis), against naive loops; small enough for Miri
    /// (`scripts/miri.sh`).
    #[test]
    fn both_gradients_match_naive_loops() {
        let dims = [2usize, 2, 3, 17];
        let len = dims.iter().product::<usize>();
        let w = Window {
            kernel: [3, 3],
            stride: [1, 1],
            dilation: [1, 1],
            before: [1, 1],
            after: [1, 1],
            input: [3, 17],
            output: [3, 17],
        };
        let (xv, tv, gv) = (ints(len, 7919, 17), ints(18, 31, 7), ints(len, 104_729, 13));
        let (xs, ts) = (Storage::shared(xv.clone()), Storage::shared(tv.clone()));
        let (gs, one) = (Storage::shared(gv.clone()), Storage::shared(vec![1.0]));
        let x = lay(&xs, &dims, &[102, 51, 17, 1]);
        let taps = lay(&ts, &[2, 1, 3, 3], &[9, 9, 3, 1]);
        for (g, want) in [
            (
                lay(&gs, &dims, &[102, 51, 17, 1]),
                naive(&xv, &tv, &gv, dims),
            ),
            (
                lay(&one, &dims, &[0, 0, 0, 0]),
                naive(&xv, &tv, &vec![1.0; len], dims),
            ),
        ] {
            let (gx, gw) = depthwise_grads(g, x, taps, &w, 2)
                .expect("one filter per channel, stride 1, 3x3")
                .unwrap();
            assert_eq!(&gx.dims[..], &dims[..]);
            assert_eq!(&gw.dims[..], &[2, 1, 3, 3][..]);
            assert_eq!(gx.storage.read().to_vec(), want.0);
            assert_eq!(gw.storage.read().to_vec(), want.1);
        }
    }
}
