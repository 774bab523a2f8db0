//! `scaled_dot_product_attention` against a naive reference written here
//! (loops in `f64`: scores, mask, softmax, weighted sum of the values), on
//! both of its paths: the fused inference pass (no operand requires a
//! gradient: one pass per tile of query rows, `backend/cpu/attention.rs`)
//! and the composed pass that records gradients. Query counts on both
//! sides of the tile's 64 rows, queries and keys read through permuted
//! views (as `split_heads` gives them), every mask kind, rows whose keys
//! are all masked, and no keys at all.

use shaped::autograd::Var;
use shaped::nn::{
    Causal, KeyPadding, NoMask, scaled_dot_product_attention, try_scaled_dot_product_attention,
};
use shaped::{Dyn, DynRank, Tensor};

type Heads<T> = Var<T, (Dyn, Dyn, Dyn, Dyn)>;

/// Attention over `(q, k, v)` with some mask.
type Attend<'a, T> = &'a dyn Fn(&Heads<T>, &Heads<T>, &Heads<T>) -> Heads<T>;

/// The reference: `keep(b, h, i, j)` says where attention is allowed; a
/// query with no allowed key gets zeros.
fn reference(
    q: &[f64],
    k: &[f64],
    v: &[f64],
    [b, h, nq, nk, e, f]: [usize; 6],
    keep: &dyn Fn(usize, usize, usize, usize) -> bool,
) -> Vec<f64> {
    let scale = 1.0 / (e as f64).sqrt();
    let mut out = vec![0.0; b * h * nq * f];
    for bi in 0..b {
        for hi in 0..h {
            let bh = bi * h + hi;
            for i in 0..nq {
                let s: Vec<Option<f64>> = (0..nk)
                    .map(|j| {
                        keep(bi, hi, i, j).then(|| {
                            (0..e)
                                .map(|c| q[(bh * nq + i) * e + c] * k[(bh * nk + j) * e + c])
                                .sum::<f64>()
                                * scale
                        })
                    })
                    .collect();
                let m = s
                    .iter()
                    .flatten()
                    .copied()
                    .fold(f64::NEG_INFINITY, f64::max);
                if m == f64::NEG_INFINITY {
                    continue;
                }
                let w: Vec<f64> = s.iter().map(|x| x.map_or(0.0, |x| (x - m).exp())).collect();
                let total: f64 = w.iter().sum();
                for c in 0..f {
                    out[(bh * nq + i) * f + c] = (0..nk)
                        .map(|j| w[j] / total * v[(bh * nk + j) * f + c])
                        .sum();
                }
            }
        }
    }
    out
}

/// Seeded values in `[-2, 2)` (the scores stay moderate).
fn values(n: usize, seed: u64) -> Vec<f64> {
    let t = Tensor::<f64, DynRank>::try_rand(&[n], seed).unwrap();
    t.to_vec().iter().map(|x| 4.0 * x - 2.0).collect()
}

/// `(B, H, T, C)` holding `data` (row-major in that order), stored as
/// `(B, T, H, C)` and permuted, as `split_heads` leaves a projection.
fn heads(data: &[f64], [b, h, t, c]: [usize; 4]) -> Tensor<f64, (Dyn, Dyn, Dyn, Dyn)> {
    let mut stored = vec![0.0; data.len()];
    for bi in 0..b {
        for hi in 0..h {
            for ti in 0..t {
                for ci in 0..c {
                    stored[((bi * t + ti) * h + hi) * c + ci] =
                        data[((bi * h + hi) * t + ti) * c + ci];
                }
            }
        }
    }
    let s = Tensor::<f64, DynRank>::try_from_vec(stored, &[b, t, h, c]).unwrap();
    s.permute::<DynRank>(&[0, 2, 1, 3])
        .unwrap()
        .try_into_shape()
        .unwrap()
}

fn assert_close(got: &[f64], want: &[f64], tol: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= tol * (1.0 + w.abs()),
            "{what}: element {i}: {g} vs {w}"
        );
    }
}

/// Both paths, `f64` and `f32`, against the reference.
fn check(
    sizes: [usize; 6],
    mask: Attend<'_, f64>,
    mask32: Attend<'_, f32>,
    keep: &dyn Fn(usize, usize, usize, usize) -> bool,
    what: &str,
) {
    let [b, h, nq, nk, e, f] = sizes;
    let seed = (b * 1000 + nq * 10 + nk) as u64;
    let (qd, kd, vd) = (
        values(b * h * nq * e, seed),
        values(b * h * nk * e, seed + 1),
        values(b * h * nk * f, seed + 2),
    );
    let want = reference(&qd, &kd, &vd, sizes, keep);
    let (q, k, v) = (
        heads(&qd, [b, h, nq, e]),
        heads(&kd, [b, h, nk, e]),
        heads(&vd, [b, h, nk, f]),
    );
    for grad in [false, true] {
        let wrap = |t: &Tensor<f64, (Dyn, Dyn, Dyn, Dyn)>| {
            if grad {
                Var::param(t.share())
            } else {
                Var::constant(t.share())
            }
        };
        let y = mask(&wrap(&q), &wrap(&k), &wrap(&v));
        assert_eq!(y.dims(), &[b, h, nq, f], "{what}");
        let path = if grad { "composed" } else { "fused" };
        assert_close(
            &y.value().to_vec(),
            &want,
            1e-12,
            &format!("{what}, {path}, f64"),
        );
    }
    let to32 = |t: &Tensor<f64, (Dyn, Dyn, Dyn, Dyn)>| Var::constant(t.map(|x| x as f32));
    let y = mask32(&to32(&q), &to32(&k), &to32(&v));
    let got: Vec<f64> = y.value().to_vec().iter().map(|&x| f64::from(x)).collect();
    assert_close(&got, &want, 1e-5, &format!("{what}, fused, f32"));
}

#[test]
fn every_mask_on_both_paths_matches_the_reference() {
    for (nq, nk) in [(1, 1), (5, 7), (64, 64), (65, 200), (130, 33)] {
        let sizes = [2, 3, nq, nk, 8, 5];
        check(
            sizes,
            &|q, k, v| scaled_dot_product_attention(q, k, v, &NoMask),
            &|q, k, v| scaled_dot_product_attention(q, k, v, &NoMask),
            &|_, _, _, _| true,
            &format!("no mask, {nq} x {nk}"),
        );
        check(
            sizes,
            &|q, k, v| scaled_dot_product_attention(q, k, v, &Causal),
            &|q, k, v| scaled_dot_product_attention(q, k, v, &Causal),
            &|_, _, i, j| j <= i,
            &format!("causal, {nq} x {nk}"),
        );
        // Padding: batch 0 keeps its first keys, batch 1 none at all (its
        // queries get zeros).
        let kept = (nk / 2).max(1);
        let pad: Vec<bool> = (0..2 * nk).map(|i| i < kept).collect();
        let pad = Tensor::<bool, (Dyn, Dyn)>::try_from_vec(pad, &[2, nk]).unwrap();
        check(
            sizes,
            &|q, k, v| scaled_dot_product_attention(q, k, v, &KeyPadding(&pad)),
            &|q, k, v| scaled_dot_product_attention(q, k, v, &KeyPadding(&pad)),
            &|b, _, _, j| b == 0 && j < kept,
            &format!("key padding, {nq} x {nk}"),
        );
        // A boolean mask broadcast over batch and heads: (Q, K).
        let m: Vec<bool> = (0..nq * nk).map(|i| (i * 7) % 3 != 0).collect();
        let m = Tensor::<bool, (Dyn, Dyn)>::try_from_vec(m.clone(), &[nq, nk]).unwrap();
        check(
            sizes,
            &|q, k, v| scaled_dot_product_attention(q, k, v, &&m),
            &|q, k, v| scaled_dot_product_attention(q, k, v, &&m),
            &|_, _, i, j| ((i * nk + j) * 7) % 3 != 0,
            &format!("boolean mask, {nq} x {nk}"),
        );
    }
}

#[test]
fn no_keys_and_no_queries() {
    for (nq, nk) in [(3, 0), (0, 4)] {
        let sizes = [1, 2, nq, nk, 4, 3];
        let (q, k, v) = (
            Tensor::<f64, (Dyn, Dyn, Dyn, Dyn)>::try_ones(&[1, 2, nq, 4]).unwrap(),
            Tensor::<f64, (Dyn, Dyn, Dyn, Dyn)>::try_ones(&[1, 2, nk, 4]).unwrap(),
            Tensor::<f64, (Dyn, Dyn, Dyn, Dyn)>::try_ones(&[1, 2, nk, 3]).unwrap(),
        );
        let y = scaled_dot_product_attention(
            &Var::constant(q),
            &Var::constant(k),
            &Var::constant(v),
            &NoMask,
        );
        assert_eq!(y.dims(), &[1, 2, nq, 3], "{sizes:?}");
        assert!(y.value().to_vec().iter().all(|&x| x == 0.0), "{sizes:?}");
    }
}

/// The fused pass gives the composed pass's values exactly: the same
/// products, scale and softmax kernel.
#[test]
fn the_fused_pass_equals_the_composed_pass_bit_for_bit() {
    let [b, h, nq, nk, e, f] = [2, 4, 100, 77, 16, 16];
    let data = |n, s| -> Tensor<f32, (Dyn, Dyn, Dyn, Dyn)> {
        heads(&values(n, s), [b, h, n / (b * h * e), e]).map(|x| x as f32)
    };
    let (q, k, v) = (
        data(b * h * nq * e, 1),
        data(b * h * nk * e, 2),
        data(b * h * nk * f, 3),
    );
    let fused = scaled_dot_product_attention(
        &Var::constant(q.share()),
        &Var::constant(k.share()),
        &Var::constant(v.share()),
        &Causal,
    );
    let composed =
        scaled_dot_product_attention(&Var::param(q), &Var::param(k), &Var::param(v), &Causal);
    assert_eq!(fused.value().to_vec(), composed.value().to_vec());
}

/// Run-time sizes that do not fit together are the same error on both
/// paths (the fused pass hands them to the composed one): a key width, a
/// value count, a head count, a mask that does not broadcast.
#[test]
fn mismatched_sizes_are_the_same_error_on_both_paths() {
    let t = |d: &[usize]| Tensor::<f32, (Dyn, Dyn, Dyn, Dyn)>::try_zeros(d).unwrap();
    let mask = Tensor::<bool, (Dyn, Dyn)>::try_from_vec(vec![true; 6], &[2, 3]).unwrap();
    // (q, k, v sizes, with the mask)
    let cases = [
        ([1, 1, 2, 4], [1, 1, 3, 5], [1, 1, 3, 2], false),
        ([1, 1, 2, 4], [1, 1, 3, 4], [1, 1, 4, 2], false),
        ([1, 2, 2, 4], [1, 3, 3, 4], [1, 3, 3, 2], false),
        ([1, 1, 4, 4], [1, 1, 3, 4], [1, 1, 3, 2], true),
    ];
    for (qd, kd, vd, masked) in cases {
        let run = |grad: bool| {
            let wrap = |d: &[usize]| {
                if grad {
                    Var::param(t(d))
                } else {
                    Var::constant(t(d))
                }
            };
            let (q, k, v) = (wrap(&qd), wrap(&kd), wrap(&vd));
            let r = if masked {
                try_scaled_dot_product_attention(&q, &k, &v, &&mask)
            } else {
                try_scaled_dot_product_attention(&q, &k, &v, &NoMask)
            };
            r.map(|y| y.dims().to_vec()).map_err(|e| e.to_string())
        };
        let (fused, composed) = (run(false), run(true));
        assert!(composed.is_err(), "{qd:?} {kd:?} {vd:?}: {composed:?}");
        assert_eq!(fused, composed, "{qd:?} {kd:?} {vd:?}");
    }
}
