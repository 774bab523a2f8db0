//! Convolutions of stride 1 with at least 16 input channels per group,
//! which the CPU runs as one matrix product per tap over the zero-padded
//! input (`backend/cpu/unit_stride_conv.rs`), against naive loops in f64:
//! values and the gradients of input and weight, for square and
//! non-square kernels, padding on one side or both ("same" with an even
//! kernel), dilation, groups, a transposed input, an input and a weight
//! expanded along a stride-0 axis, an empty batch, and the
//! non-finite inputs and taps for which the kernel reads the window
//! matrix instead (a zero of the padding times an infinity would be NaN).
//! 3x3 taps with 16 or more filters go by Winograd's F(2x2, 3x3)
//! (`backend/cpu/winograd.rs`) where every value is finite: odd output
//! sizes, padding 0 and 2, and random values in f64 within 1e-12.

use shaped::autograd::Var;
use shaped::element::Float;
use shaped::ops::conv::{ConvOptions, Padding};
use shaped::{Dyn, Tensor};

type T4<T> = Tensor<T, (Dyn, Dyn, Dyn, Dyn)>;

/// A convolution's sizes: input `(n, c, h, w)`, `o` filters of `k`, padding
/// `(before, after)` per axis, dilation, groups.
#[derive(Clone, Copy, Debug)]
struct Geometry {
    input: [usize; 4],
    o: usize,
    k: [usize; 2],
    pad: [(usize, usize); 2],
    dilation: [usize; 2],
    groups: usize,
}

impl Geometry {
    fn output(&self) -> [usize; 4] {
        let [n, _, h, w] = self.input;
        let size = |a: usize, len: usize| {
            len + self.pad[a].0 + self.pad[a].1 - self.dilation[a] * (self.k[a] - 1)
        };
        [n, self.o, size(0, h), size(1, w)]
    }

    fn weight(&self) -> [usize; 4] {
        [self.o, self.input[1] / self.groups, self.k[0], self.k[1]]
    }

    fn options(&self) -> ConvOptions<2> {
        let symmetric = self.pad[0].0 == self.pad[0].1 && self.pad[1].0 == self.pad[1].1;
        ConvOptions {
            stride: [1, 1],
            padding: if symmetric {
                Padding::Explicit([self.pad[0].0, self.pad[1].0])
            } else {
                Padding::Same
            },
            dilation: self.dilation,
            groups: self.groups,
        }
    }

    /// The output, and the gradients of input and weight for the output
    /// gradient `g`, by loops over every product.
    fn naive(&self, x: &[f64], w: &[f64], g: &[f64]) -> [Vec<f64>; 3] {
        let [n, c, h, wd] = self.input;
        let [_, o, oh, ow] = self.output();
        let [_, cg, kh, kw] = self.weight();
        let og = o / self.groups;
        let (mut y, mut gx, mut gw) = (
            vec![0.0; n * o * oh * ow],
            vec![0.0; x.len()],
            vec![0.0; w.len()],
        );
        for b in 0..n {
            for oc in 0..o {
                for r in 0..oh {
                    for col in 0..ow {
                        let yi = ((b * o + oc) * oh + r) * ow + col;
                        for ci in 0..cg {
                            let ch = (oc / og) * cg + ci;
                            for i in 0..kh {
                                for j in 0..kw {
                                    let ih = (r + i * self.dilation[0]) as isize
                                        - self.pad[0].0 as isize;
                                    let iw = (col + j * self.dilation[1]) as isize
                                        - self.pad[1].0 as isize;
                                    if ih < 0 || iw < 0 || ih >= h as isize || iw >= wd as isize {
                                        continue;
                                    }
                                    let xi = ((b * c + ch) * h + ih as usize) * wd + iw as usize;
                                    let wi = ((oc * cg + ci) * kh + i) * kw + j;
                                    y[yi] += x[xi] * w[wi];
                                    gx[xi] += g[yi] * w[wi];
                                    gw[wi] += g[yi] * x[xi];
                                }
                            }
                        }
                    }
                }
            }
        }
        [y, gx, gw]
    }
}

/// Small integers, so that every sum is exact in f32 and f64 whatever
/// its order.
fn integers(len: usize, seed: usize, lo: i64) -> Vec<f64> {
    (0..len)
        .map(|i| ((i * 7 + seed * 13 + (i * i) % 11) % 5) as f64 + lo as f64)
        .collect()
}

fn tensor<T: Float>(v: &[f64], dims: [usize; 4], transposed: bool) -> T4<T> {
    let t = T4::<T>::try_from_vec(v.iter().map(|&e| T::from_f64(e)).collect(), &dims).unwrap();
    // The same values, with the last two axes swapped in memory.
    if transposed {
        t.transpose::<2, 3>().contiguous().transpose::<2, 3>()
    } else {
        t
    }
}

fn as_f64<T: Float>(t: &T4<T>) -> Vec<f64> {
    t.to_vec()
        .iter()
        .map(|&v| shaped::element::Numeric::to_f64(v))
        .collect()
}

/// Whether `got` is `want` within `tol` of `want`'s largest magnitude
/// (0: exactly, NaN equal to NaN), element by element.
fn close(got: &[f64], want: &[f64], tol: f64, what: &str, geo: &Geometry) {
    assert_eq!(got.len(), want.len(), "{what} {geo:?}");
    let scale = want.iter().fold(0f64, |m, v| m.max(v.abs()));
    for (i, (a, b)) in got.iter().zip(want).enumerate() {
        assert!(
            a == b || (a.is_nan() && b.is_nan()) || (a - b).abs() <= tol * scale,
            "{what} {geo:?}: element {i} is {a}, the loops give {b}"
        );
    }
}

/// The output of `geo` on `x` and `w` and the gradients of input and
/// weight for the output gradient `g` (`Var::conv2d`), with the output of
/// `Tensor::conv2d`.
fn run<T: Float>(geo: &Geometry, x: T4<T>, w: T4<T>, g: &[f64]) -> [Vec<f64>; 4] {
    let (xv, wv) = (Var::param(x), Var::param(w));
    let yv: Var<T, (Dyn, Dyn, Dyn, Dyn)> = xv.try_conv2d(&wv, None, &geo.options()).unwrap();
    let plain: T4<T> = xv
        .value()
        .try_conv2d(wv.value(), None, &geo.options())
        .unwrap();
    let seed = Var::constant(tensor::<T>(g, geo.output(), false));
    let grads = yv.try_mul(&seed).unwrap().sum().backward();
    [
        as_f64(yv.value()),
        as_f64(&plain),
        as_f64(&grads.wrt(&xv).unwrap()),
        as_f64(&grads.wrt(&wv).unwrap()),
    ]
}

/// [`run`]'s values against the loops' `want` (output, input gradient,
/// weight gradient) within `tol`; the outputs only where `values`.
fn compare(got: [Vec<f64>; 4], want: [Vec<f64>; 3], tol: f64, values: bool, geo: &Geometry) {
    let [y, plain, gx, gw] = got;
    let [wy, wgx, wgw] = want;
    if values {
        close(&y, &wy, tol, "output", geo);
        close(&plain, &wy, tol, "Tensor::conv2d", geo);
    }
    close(&gx, &wgx, tol, "input gradient", geo);
    close(&gw, &wgw, tol, "weight gradient", geo);
}

/// Runs `geo` on `x` and `w` in `T` (the input transposed in memory or
/// not) and checks the gradients against the loops, exactly, and the
/// output too where `values`.
fn check<T: Float>(geo: &Geometry, x: &[f64], w: &[f64], transposed: bool, values: bool) {
    let g = integers(geo.output().iter().product(), 5, 1);
    let got = run(
        geo,
        tensor::<T>(x, geo.input, transposed),
        tensor::<T>(w, geo.weight(), false),
        &g,
    );
    compare(got, geo.naive(x, w, &g), 0.0, values, geo);
}

fn geometries() -> Vec<Geometry> {
    let g = |input, o, k, pad, dilation, groups| Geometry {
        input,
        o,
        k,
        pad,
        dilation,
        groups,
    };
    vec![
        g([2, 16, 7, 9], 5, [3, 3], [(1, 1), (1, 1)], [1, 1], 1),
        g([1, 17, 6, 5], 3, [3, 3], [(0, 0), (0, 0)], [1, 1], 1),
        g([2, 16, 5, 11], 4, [1, 1], [(0, 0), (0, 0)], [1, 1], 1),
        g([1, 18, 8, 6], 2, [5, 3], [(2, 2), (1, 1)], [1, 1], 1),
        g([1, 16, 9, 9], 3, [3, 3], [(2, 2), (2, 2)], [2, 2], 1),
        g([2, 32, 6, 7], 6, [3, 3], [(1, 1), (1, 1)], [1, 1], 2),
        // "same" with an even kernel: padding 0 before, 1 after.
        g([1, 16, 5, 6], 2, [2, 2], [(0, 1), (0, 1)], [1, 1], 1),
        // Wide rows and one output channel.
        g([1, 16, 3, 70], 1, [3, 3], [(1, 1), (1, 1)], [1, 1], 1),
        // 64 output channels (products of 36 and 28 of them) over 648
        // positions of rows of 72: a tile of 512 ends inside a row.
        g([1, 16, 9, 70], 64, [3, 3], [(1, 1), (1, 1)], [1, 1], 1),
        // 3x3 taps with at least 16 filters and 16 channels go by
        // Winograd's F(2x2, 3x3) (`backend/cpu/winograd.rs`), forward and
        // for the input's gradient: odd output sizes (a last block half
        // outside), padding 0 or 2 on an axis, an output of 2x3, and
        // blocks of 64 that end inside a block row.
        g([2, 16, 9, 11], 16, [3, 3], [(1, 1), (1, 1)], [1, 1], 1),
        g([1, 20, 8, 7], 24, [3, 3], [(0, 0), (2, 2)], [1, 1], 1),
        g([1, 16, 2, 3], 17, [3, 3], [(1, 1), (1, 1)], [1, 1], 1),
        g([1, 16, 4, 1], 16, [3, 3], [(0, 0), (1, 1)], [1, 1], 1),
        g([2, 16, 30, 19], 16, [3, 3], [(1, 1), (1, 1)], [1, 1], 1),
    ]
}

#[test]
fn unit_stride_convolutions_match_naive_loops() {
    for geo in geometries() {
        let x = integers(geo.input.iter().product(), 1, -2);
        let w = integers(geo.weight().iter().product(), 2, -2);
        for transposed in [false, true] {
            check::<f64>(&geo, &x, &w, transposed, true);
            check::<f32>(&geo, &x, &w, transposed, true);
        }
    }
}

#[test]
fn unit_stride_convolutions_of_random_values_match_naive_loops() {
    // Groups (one product per tap), and Winograd's F(2x2, 3x3).
    for geo in [geometries()[5], geometries()[9], geometries()[13]] {
        random_values_match(&geo);
    }
}

fn random_values_match(geo: &Geometry) {
    let geo = *geo;
    let values = |len: usize, seed: u64| -> Vec<f64> {
        let mut s = seed;
        (0..len)
            .map(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (s >> 11) as f64 / (1u64 << 53) as f64 - 0.5
            })
            .collect()
    };
    let x = values(geo.input.iter().product(), 1);
    let w = values(geo.weight().iter().product(), 2);
    let g = values(geo.output().iter().product(), 3);
    let got = run(
        &geo,
        tensor::<f64>(&x, geo.input, false),
        tensor::<f64>(&w, geo.weight(), false),
        &g,
    );
    compare(got, geo.naive(&x, &w, &g), 1e-12, true, &geo);
    // In f32, within issue 41's bar of 1e-5 of the largest magnitude (the
    // inputs rounded to f32 first, so that only the arithmetic differs).
    let round = |v: &[f64]| -> Vec<f64> { v.iter().map(|&e| e as f32 as f64).collect() };
    let (x, w, g) = (round(&x), round(&w), round(&g));
    let got = run(
        &geo,
        tensor::<f32>(&x, geo.input, false),
        tensor::<f32>(&w, geo.weight(), false),
        &g,
    );
    compare(got, geo.naive(&x, &w, &g), 1e-5, true, &geo);
}

#[test]
fn non_finite_inputs_and_taps_give_the_loops_values() {
    // The last goes by Winograd's transforms where every value is finite
    // (they subtract inputs, and `inf - inf` is NaN where the sums give
    // `inf`).
    for geo in [geometries()[0], geometries()[5], geometries()[9]] {
        let mut x = integers(geo.input.iter().product(), 1, 1);
        let mut w = integers(geo.weight().iter().product(), 2, 1);
        // An infinite input element at the start of a row, and an infinite
        // corner tap: the loops never multiply either by a padded zero.
        x[geo.input[3]] = f64::INFINITY;
        w[0] = f64::NEG_INFINITY;
        check::<f64>(&geo, &x, &integers(w.len(), 2, 1), false, true);
        check::<f32>(&geo, &x, &integers(w.len(), 2, 1), true, true);
        // The output's border windows multiply the padding by the tap,
        // NaN as in PyTorch's window matrix: only the gradients are
        // compared.
        check::<f64>(&geo, &integers(x.len(), 1, 1), &w, false, false);
        check::<f32>(&geo, &integers(x.len(), 1, 1), &w, false, false);
    }
}

#[test]
fn an_empty_batch_gives_empty_values_and_zero_weight_gradients() {
    let geo = Geometry {
        input: [0, 16, 5, 5],
        // 16 filters: Winograd's F(2x2, 3x3), with no blocks to run.
        o: 16,
        k: [3, 3],
        pad: [(1, 1), (1, 1)],
        dilation: [1, 1],
        groups: 1,
    };
    let w = integers(geo.weight().iter().product(), 2, -2);
    check::<f32>(&geo, &[], &w, false, true);
}

#[test]
fn an_expanded_input_and_weight_are_read_through_their_zero_strides() {
    // 4 filters: products per tap; 16: Winograd's transforms.
    for o in [4, 16] {
        expanded(o);
    }
}

fn expanded(o: usize) {
    let geo = Geometry {
        input: [3, 16, 6, 7],
        o,
        k: [3, 3],
        pad: [(1, 1), (1, 1)],
        dilation: [1, 1],
        groups: 1,
    };
    // One sample repeated along the batch, one filter along the outputs:
    // both of stride 0 there.
    let sample = integers(16 * 6 * 7, 1, -2);
    let filter = integers(16 * 9, 2, -2);
    let x: T4<f64> = tensor::<f64>(&sample, [1, 16, 6, 7], false)
        .expand(&[3, 16, 6, 7])
        .unwrap();
    let w: T4<f64> = tensor::<f64>(&filter, [1, 16, 3, 3], false)
        .expand(&[o as isize, 16, 3, 3])
        .unwrap();
    let xs: Vec<f64> = (0..3).flat_map(|_| sample.clone()).collect();
    let ws: Vec<f64> = (0..o).flat_map(|_| filter.clone()).collect();
    let g = integers(geo.output().iter().product(), 5, 1);
    compare(
        run(&geo, x, w, &g),
        geo.naive(&xs, &ws, &g),
        0.0,
        true,
        &geo,
    );
}
