//! `f32` products on the AMX path (on machines that have it) against an
//! `f64` product written here: its error beside the vector path's, operands
//! whose values send the product to the vector path (NaN, infinities, tiny
//! and huge magnitudes), strided and broadcast operands, and the fused
//! products' `alpha` and `beta`. On machines without AMX every product runs
//! on the vector path and the same assertions hold (a line says so).

use std::sync::Mutex;

use shaped::ops::matmul::{amx_active, set_amx};
use shaped::{DynRank, Tensor};

mod common;

use common::SplitMix;

/// The tests switch the AMX path on and off for the whole process.
static SWITCH: Mutex<()> = Mutex::new(());

fn lock() -> std::sync::MutexGuard<'static, ()> {
    let guard = SWITCH.lock().unwrap_or_else(|e| e.into_inner());
    set_amx(true);
    if !amx_active() {
        println!("no AMX here: these products run on the vector path");
    }
    guard
}

fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut rng = SplitMix(seed);
    (0..n)
        .map(|_| ((rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0)
        .collect()
}

fn tensor(data: Vec<f32>, dims: &[usize]) -> Tensor<f32, DynRank> {
    Tensor::try_from_vec(data, dims).unwrap()
}

/// `a @ b` for row-major `m x k` and `k x n`, in `f64`, with the sum of
/// the products' magnitudes per element.
fn reference(a: &[f32], b: &[f32], (m, n, k): (usize, usize, usize)) -> (Vec<f64>, Vec<f64>) {
    let mut out = vec![0.0; m * n];
    let mut mag = vec![0.0; m * n];
    for i in 0..m {
        for t in 0..k {
            let x = a[i * k + t] as f64;
            for j in 0..n {
                let p = x * b[t * n + j] as f64;
                out[i * n + j] += p;
                mag[i * n + j] += p.abs();
            }
        }
    }
    (out, mag)
}

/// Root-mean-square and largest error relative to the magnitudes.
fn errors(got: &[f32], want: &[f64], mag: &[f64]) -> (f64, f64) {
    let (mut sq, mut max) = (0.0, 0.0f64);
    for ((&g, &w), &s) in got.iter().zip(want).zip(mag) {
        let e = (g as f64 - w).abs() / s.max(f64::MIN_POSITIVE);
        sq += e * e;
        max = max.max(e);
    }
    ((sq / got.len() as f64).sqrt(), max)
}

#[test]
fn as_accurate_as_the_vector_path() {
    let _g = lock();
    for (i, &(m, n, k)) in [(512, 512, 512), (384, 640, 1100), (600, 450, 70)]
        .iter()
        .enumerate()
    {
        let (a, b) = (values(m * k, 2 * i as u64), values(k * n, 2 * i as u64 + 1));
        let (ta, tb) = (tensor(a.clone(), &[m, k]), tensor(b.clone(), &[k, n]));
        let (want, mag) = reference(&a, &b, (m, n, k));
        let fast = ta.matmul(&tb).to_vec();
        set_amx(false);
        let vector = ta.matmul(&tb).to_vec();
        set_amx(true);
        let (fast_rms, fast_max) = errors(&fast, &want, &mag);
        let (vec_rms, vec_max) = errors(&vector, &want, &mag);
        println!(
            "({m}, {n}, {k}): error rms {fast_rms:.2e} max {fast_max:.2e} (default path), \
             rms {vec_rms:.2e} max {vec_max:.2e} (vector path)"
        );
        assert!(
            fast_rms <= 1.5 * vec_rms + 1e-12,
            "rms {fast_rms:e} vs {vec_rms:e}"
        );
        assert!(
            fast_max <= 2.0 * vec_max + 1e-12,
            "max {fast_max:e} vs {vec_max:e}"
        );
        assert!(fast_max < 1e-5, "max {fast_max:e}");
    }
}

#[test]
fn special_values_follow_ieee_arithmetic() {
    let _g = lock();
    let (m, n, k) = (400, 400, 96);
    for (what, v) in [
        ("NaN", f32::NAN),
        ("infinity", f32::INFINITY),
        ("tiny", 3e-30),
        ("huge", -2e30),
    ] {
        let mut a = values(m * k, 11);
        let b = values(k * n, 12);
        a[5 * k + 7] = v;
        let got = tensor(a.clone(), &[m, k])
            .matmul(&tensor(b.clone(), &[k, n]))
            .to_vec();
        let (want, mag) = reference(&a, &b, (m, n, k));
        for idx in 0..m * n {
            let (g, w) = (got[idx], want[idx] as f32);
            if w.is_nan() || w.is_infinite() {
                assert!(
                    g.is_nan() == w.is_nan() && (w.is_nan() || g == w),
                    "{what}: element {idx} is {g}, want {w}"
                );
            } else {
                let bound = 1e-5 * mag[idx] + f32::MIN_POSITIVE as f64;
                assert!(
                    (g as f64 - want[idx]).abs() <= bound,
                    "{what}: element {idx} is {g}, want {w}"
                );
            }
        }
        // Row 5 holds the special value: NaN and infinity reach every
        // element of it (0 * inf is NaN where `b` has a zero; none here).
        if v.is_nan() || v.is_infinite() {
            assert!((0..n).all(|j| !got[5 * n + j].is_finite()), "{what}");
        }
    }
}

#[test]
fn transposed_sliced_and_broadcast_operands() {
    let _g = lock();
    let (m, n, k) = (400, 520, 260);
    let (a, b) = (values(m * k, 21), values(k * n, 22));
    let (want, mag) = reference(&a, &b, (m, n, k));
    // `a` stored transposed and viewed back; `b` narrowed out of a wider
    // matrix (its rows have gaps).
    let mut at = vec![0.0; m * k];
    for i in 0..m {
        for t in 0..k {
            at[t * m + i] = a[i * k + t];
        }
    }
    let ta = tensor(at, &[k, m]).permute::<DynRank>(&[1, 0]).unwrap();
    let wide = n + 9;
    let mut bw = vec![f32::NAN; k * wide];
    for t in 0..k {
        bw[t * wide + 4..t * wide + 4 + n].copy_from_slice(&b[t * n..(t + 1) * n]);
    }
    let tb = tensor(bw, &[k, wide]).narrow::<DynRank>(1, 4, n).unwrap();
    let got = ta.matmul(&tb).to_vec();
    let (rms, max) = errors(&got, &want, &mag);
    assert!(max < 1e-5, "rms {rms:e} max {max:e}");
    // A batch of 3 on the left, broadcast against the one right matrix.
    let a3: Vec<f32> = [
        a.clone(),
        a.iter().map(|x| -x).collect(),
        a.iter().map(|x| 2.0 * x).collect(),
    ]
    .concat();
    let got = tensor(a3, &[3, m, k])
        .matmul(&tensor(b.clone(), &[k, n]))
        .to_vec();
    for (s, scale) in [1.0f64, -1.0, 2.0].into_iter().enumerate() {
        let part = &got[s * m * n..(s + 1) * m * n];
        let w: Vec<f64> = want.iter().map(|x| scale * x).collect();
        let mg: Vec<f64> = mag.iter().map(|x| scale.abs() * x).collect();
        assert!(errors(part, &w, &mg).1 < 1e-5, "batch entry {s}");
    }
}

#[test]
fn fused_products_scale_and_ignore_as_pytorch() {
    let _g = lock();
    let (m, n, k) = (400, 640, 300);
    let (a, b, c) = (values(m * k, 31), values(k * n, 32), values(m * n, 33));
    let (prod, mag) = reference(&a, &b, (m, n, k));
    let (ta, tb) = (tensor(a, &[m, k]), tensor(b, &[k, n]));
    let got = tensor(c.clone(), &[m, n])
        .addmm(&ta, &tb, 0.5, -2.0)
        .to_vec();
    for idx in 0..m * n {
        let want = 0.5 * c[idx] as f64 - 2.0 * prod[idx];
        let bound = 1e-5 * (2.0 * mag[idx] + c[idx].abs() as f64);
        assert!(
            (got[idx] as f64 - want).abs() <= bound,
            "addmm element {idx}"
        );
    }
    // beta = 0: the input's values are ignored, NaN included.
    let nan = tensor(vec![f32::NAN; m * n], &[m, n]);
    let got = nan.addmm(&ta, &tb, 0.0, 1.0).to_vec();
    assert!(errors(&got, &prod, &mag).1 < 1e-5);
    // In place: c = 1 * c + 1 * a @ b.
    let mut inplace = tensor(c.clone(), &[m, n]);
    inplace.addmm_(&ta, &tb, 1.0, 1.0);
    let got = inplace.to_vec();
    for idx in 0..m * n {
        let want = c[idx] as f64 + prod[idx];
        let bound = 1e-5 * (mag[idx] + c[idx].abs() as f64);
        assert!(
            (got[idx] as f64 - want).abs() <= bound,
            "addmm_ element {idx}"
        );
    }
}

/// `x @ y` for each of `batch` pairs of row-major matrices.
fn batched_reference(
    x: &[f32],
    y: &[f32],
    batch: usize,
    (m, n, k): (usize, usize, usize),
) -> (Vec<f64>, Vec<f64>) {
    let (mut out, mut mag) = (Vec::new(), Vec::new());
    for s in 0..batch {
        let (o, g) = reference(
            &x[s * m * k..(s + 1) * m * k],
            &y[s * k * n..(s + 1) * k * n],
            (m, n, k),
        );
        out.extend(o);
        mag.extend(g);
    }
    (out, mag)
}

#[test]
fn batches_of_distinct_products_and_their_sum() {
    let _g = lock();
    let (batch, m, n, k) = (3, 480, 520, 200);
    let (x, y) = (values(batch * m * k, 41), values(batch * k * n, 42));
    let (tx, ty) = (
        tensor(x.clone(), &[batch, m, k]),
        tensor(y.clone(), &[batch, k, n]),
    );
    let (want, mag) = batched_reference(&x, &y, batch, (m, n, k));
    // bmm: one product per entry, the entries spread over the threads.
    let got = tx.bmm(&ty).to_vec();
    assert!(errors(&got, &want, &mag).1 < 1e-5, "bmm");
    // addbmm: the entries' products summed into one matrix, plus beta * c.
    let c = values(m * n, 43);
    let got = tensor(c.clone(), &[m, n])
        .addbmm(&tx, &ty, 0.25, 1.0)
        .to_vec();
    for i in 0..m * n {
        let sum: f64 = (0..batch).map(|s| want[s * m * n + i]).sum();
        let scale: f64 = (0..batch).map(|s| mag[s * m * n + i]).sum::<f64>() + c[i].abs() as f64;
        let w = 0.25 * c[i] as f64 + sum;
        assert!(
            (got[i] as f64 - w).abs() <= 1e-5 * scale,
            "addbmm element {i}"
        );
    }
}
