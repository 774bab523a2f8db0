//! Reductions checked against a naive reference: for each output, the
//! elements it reduces are gathered from the row-major values (`to_vec`,
//! which does not use the reduction code) and reduced by a plain loop in
//! `f64`. Inputs are contiguous, permuted, expanded (stride 0) and narrowed
//! (offset and gaps) views of random shapes, small and large enough to run
//! in parallel.

use shaped::{DynRank, Shape, Tensor};

mod common;

use common::{Layout, Rng, assert_close};

/// A number below `n`.
fn below(rng: &mut Rng, n: usize) -> usize {
    (rng.next_u64() % n as u64) as usize
}

/// A value in [-5, 5] on a grid of 1/200, so that zeros and ties occur.
fn value(rng: &mut Rng) -> f64 {
    (rng.next_u64() % 2001) as f64 / 200.0 - 5.0
}

/// For each output (row-major over the kept dims), the elements it reduces,
/// in row-major order, with their index within the reduced dims.
fn groups(values: &[f64], dims: &[usize], mask: &[bool]) -> Vec<Vec<f64>> {
    let kept: Vec<usize> = (0..dims.len()).filter(|&i| !mask[i]).collect();
    let n_out: usize = kept.iter().map(|&i| dims[i]).product();
    let mut out = vec![Vec::new(); n_out];
    for (lin, &v) in values.iter().enumerate() {
        // Multi-index of `lin`.
        let mut idx = vec![0; dims.len()];
        let mut rem = lin;
        for d in (0..dims.len()).rev() {
            idx[d] = rem % dims[d];
            rem /= dims[d];
        }
        let mut o = 0;
        for &k in &kept {
            o = o * dims[k] + idx[k];
        }
        out[o].push(v);
    }
    out
}

/// A random tensor of sizes `dims`, as a contiguous, permuted, expanded or
/// narrowed view (kinds 0 to 3), with its row-major values.
fn random_view(rng: &mut Rng, dims: &[usize], kind: usize) -> (Tensor<f64, DynRank>, Vec<f64>) {
    let rank = dims.len();
    if kind == 3 {
        // Narrowed out of a larger tensor: an offset and gaps.
        return common::operand(dims, Layout::Sliced, rng, -5.0, 5.0);
    }
    let t = match kind {
        // Permuted: build the reversed tensor and reverse its axes.
        1 if rank > 1 => {
            let rev: Vec<usize> = dims.iter().rev().copied().collect();
            let n = rev.iter().product();
            let base =
                Tensor::<f64, DynRank>::try_from_vec((0..n).map(|_| value(rng)).collect(), &rev)
                    .unwrap();
            let perm: Vec<isize> = (0..rank as isize).rev().collect();
            base.permute::<DynRank>(&perm).unwrap()
        }
        // Expanded: size 1 where the dim is even-indexed, stretched by stride 0.
        2 => common::expanded_even(dims, || value(rng)),
        _ => {
            let n = dims.iter().product();
            Tensor::<f64, DynRank>::try_from_vec((0..n).map(|_| value(rng)).collect(), dims)
                .unwrap()
        }
    };
    let v = t.to_vec();
    (t, v)
}

fn naive_var(g: &[f64], correction: f64) -> f64 {
    let n = g.len() as f64;
    let mean = g.iter().sum::<f64>() / n;
    g.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - correction).max(0.0)
}

fn naive_norm(g: &[f64], p: f64) -> f64 {
    if p == 0.0 {
        g.iter().filter(|&&x| x != 0.0).count() as f64
    } else if p == f64::INFINITY {
        g.iter().fold(0.0, |m, x| m.max(x.abs()))
    } else if p == f64::NEG_INFINITY {
        g.iter().fold(f64::INFINITY, |m, x| m.min(x.abs()))
    } else {
        g.iter().map(|x| x.abs().powf(p)).sum::<f64>().powf(1.0 / p)
    }
}

fn naive_lse(g: &[f64]) -> f64 {
    g.iter().map(|x| x.exp()).sum::<f64>().ln()
}

/// The first index of the largest (or smallest) element.
fn naive_arg(g: &[f64], max: bool) -> usize {
    let mut best = 0;
    for (i, &x) in g.iter().enumerate() {
        if (max && x > g[best]) || (!max && x < g[best]) {
            best = i;
        }
    }
    best
}

/// Every reduction over one random case.
fn check_case(rng: &mut Rng, dims: &[usize], kind: usize) {
    let (t, values) = random_view(rng, dims, kind);
    let rank = dims.len();
    let mask: Vec<bool> = (0..rank).map(|_| below(rng, 2) == 1).collect();
    let list: Vec<isize> = (0..rank)
        .filter(|&i| mask[i])
        .map(|i| {
            if below(rng, 2) == 0 {
                i as isize
            } else {
                i as isize - rank as isize
            }
        })
        .collect();
    // An empty list reduces everything.
    let full_mask: Vec<bool> = if list.is_empty() {
        vec![true; rank]
    } else {
        mask.clone()
    };
    let gs = groups(&values, dims, &full_mask);
    let keepdim = below(rng, 2) == 1;
    let want_dims: Vec<usize> = (0..rank)
        .filter_map(|i| match (full_mask[i], keepdim) {
            (false, _) => Some(dims[i]),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect();
    let what = format!("dims {dims:?} kind {kind} list {list:?} keepdim {keepdim}");
    let check = |got: Tensor<f64, DynRank>, f: &dyn Fn(&[f64]) -> f64, name: &str| {
        assert_eq!(got.dims(), want_dims.as_slice(), "{name} {what}");
        let want: Vec<f64> = gs.iter().map(|g| f(g)).collect();
        assert_close(&got.to_vec(), &want, 1e-10, &format!("{name} {what}"));
    };
    check(
        t.try_sum_dims(&list, keepdim).unwrap(),
        &|g| g.iter().sum(),
        "sum",
    );
    check(
        t.try_mean_dims(&list, keepdim).unwrap(),
        &|g| g.iter().sum::<f64>() / g.len() as f64,
        "mean",
    );
    // Products of thousands of terms overflow in an order-dependent way.
    if gs.iter().all(|g| g.len() <= 64) {
        check(
            t.try_prod_dims(&list, keepdim).unwrap(),
            &|g| g.iter().product(),
            "prod",
        );
    }
    check(
        t.try_max_dims(&list, keepdim).unwrap(),
        &|g| g.iter().cloned().fold(f64::NEG_INFINITY, f64::max),
        "max",
    );
    check(
        t.try_min_dims(&list, keepdim).unwrap(),
        &|g| g.iter().cloned().fold(f64::INFINITY, f64::min),
        "min",
    );
    for c in [0usize, 1] {
        check(
            t.try_var_dims(&list, keepdim, c).unwrap(),
            &|g| naive_var(g, c as f64),
            "var",
        );
        check(
            t.try_std_dims(&list, keepdim, c).unwrap(),
            &|g| naive_var(g, c as f64).sqrt(),
            "std",
        );
    }
    for p in [0.0, 1.0, 2.0, 3.0, 0.5, f64::INFINITY, f64::NEG_INFINITY] {
        check(
            t.try_norm_dims(&list, keepdim, p).unwrap(),
            &|g| naive_norm(g, p),
            "norm",
        );
    }
    check(
        t.try_logsumexp_dims(&list, keepdim).unwrap(),
        &naive_lse,
        "logsumexp",
    );
    // `f32` runs the reductions compiled in shaped (`backend/cpu/
    // compiled.rs`), `f64` the generic ones: the same values, within
    // `f32`'s rounding, on the same view (a strided `f32` view of it too).
    let t32: Tensor<f32, DynRank> = t.to_dtype();
    let t32_strided = if rank >= 2 {
        let mut order: Vec<isize> = (0..rank as isize).collect();
        order.swap(0, rank - 1);
        let back = t32.permute::<DynRank>(&order).unwrap().contiguous();
        back.permute::<DynRank>(&order).unwrap()
    } else {
        t32.clone()
    };
    for (layout, x) in [("contiguous", &t32), ("strided", &t32_strided)] {
        let check32 = |got: Tensor<f32, DynRank>, f: &dyn Fn(&[f64]) -> f64, name: &str| {
            let what = format!("f32 {layout} {name} {what}");
            assert_eq!(got.dims(), want_dims.as_slice(), "{what}");
            let got: Vec<f64> = got.to_vec().into_iter().map(f64::from).collect();
            let want: Vec<f64> = gs.iter().map(|g| f(g)).collect();
            assert_close(&got, &want, 1e-4, &what);
        };
        let sum = |g: &[f64]| g.iter().sum::<f64>();
        check32(x.try_sum_dims(&list, keepdim).unwrap(), &sum, "sum");
        let mean = |g: &[f64]| g.iter().sum::<f64>() / g.len() as f64;
        check32(x.try_mean_dims(&list, keepdim).unwrap(), &mean, "mean");
        let max = |g: &[f64]| g.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        check32(x.try_max_dims(&list, keepdim).unwrap(), &max, "max");
        let var = |g: &[f64]| naive_var(g, 1.0);
        check32(x.try_var_dims(&list, keepdim, 1).unwrap(), &var, "var");
        let norm = |g: &[f64]| naive_norm(g, 2.0);
        check32(x.try_norm_dims(&list, keepdim, 2.0).unwrap(), &norm, "norm");
        check32(
            x.try_logsumexp_dims(&list, keepdim).unwrap(),
            &naive_lse,
            "logsumexp",
        );
    }
    let as_f64 = |b: Tensor<bool, DynRank>| {
        Tensor::<f64, DynRank>::try_from_vec(
            b.to_vec().iter().map(|&x| x as u8 as f64).collect(),
            b.dims(),
        )
        .unwrap()
    };
    check(
        as_f64(t.try_all_dims(&list, keepdim).unwrap()),
        &|g| g.iter().all(|&x| x != 0.0) as u8 as f64,
        "all",
    );
    let pos = t.map(|x| x > 0.0);
    check(
        as_f64(pos.try_any_dims(&list, keepdim).unwrap()),
        &|g| g.iter().any(|&x| x > 0.0) as u8 as f64,
        "any",
    );
}

#[test]
fn random_shapes_match_the_naive_reference() {
    let mut rng = Rng(0x5eed);
    for case in 0..300 {
        let rank = 1 + below(&mut rng, 4);
        let dims: Vec<usize> = (0..rank).map(|_| 1 + below(&mut rng, 5)).collect();
        check_case(&mut rng, &dims, case % 4);
    }
}

#[test]
fn large_shapes_run_in_parallel_and_match() {
    let mut rng = Rng(77);
    for dims in [
        vec![300, 257],
        vec![3, 40_000],
        vec![40_000, 3],
        vec![2, 70, 513],
        vec![70_001],
        vec![9, 1, 4001],
    ] {
        for kind in 0..4 {
            check_case(&mut rng, &dims, kind);
        }
    }
}

/// Index reductions along one dim, against the first-occurrence reference.
#[test]
fn indices_follow_the_first_extreme() {
    let mut rng = Rng(99);
    for case in 0..120 {
        let rank = 1 + below(&mut rng, 3);
        let dims: Vec<usize> = (0..rank).map(|_| 1 + below(&mut rng, 5)).collect();
        let (mut t, _) = random_view(&mut rng, &dims, case % 4);
        // Round to few values, so that ties happen, in place: the view keeps
        // its layout (a permuted view is visited in memory order, and the
        // first tie in index order must still win). An expanded view is
        // left as it is: its stride-0 repeats are ties already.
        if case % 4 != 2 {
            t.round_();
        }
        let values = t.to_vec();
        let d = below(&mut rng, rank);
        let mut mask = vec![false; rank];
        mask[d] = true;
        let gs = groups(&values, &dims, &mask);
        for max in [true, false] {
            let (v, i) = if max {
                t.try_max_with_indices(d as isize, false).unwrap()
            } else {
                t.try_min_with_indices(d as isize, false).unwrap()
            };
            let want_i: Vec<i64> = gs.iter().map(|g| naive_arg(g, max) as i64).collect();
            let want_v: Vec<f64> = gs.iter().map(|g| g[naive_arg(g, max)]).collect();
            assert_eq!(i.to_vec(), want_i, "dims {dims:?} d {d} max {max}");
            assert_eq!(v.to_vec(), want_v);
            let a = if max {
                t.try_argmax(d as isize - rank as isize, true).unwrap()
            } else {
                t.try_argmin(d as isize, true).unwrap()
            };
            assert_eq!(a.to_vec(), want_i);
        }
        assert_eq!(
            t.argmax().item(),
            naive_arg(&values, true) as i64,
            "dims {dims:?}"
        );
        assert_eq!(
            t.argmin().item(),
            naive_arg(&values, false) as i64,
            "dims {dims:?}"
        );
    }
}

#[test]
fn static_result_types_are_exact() {
    let t = Tensor::<f32, Shape![4, 3, 5]>::rand(1);
    let a: Tensor<f32, Shape![4, 5]> = t.sum_dim::<1>();
    let b: Tensor<f32, Shape![4, 1, 5]> = t.sum_dim_keepdim::<1>();
    let c: Tensor<f32, Shape![3]> = t.sum_dim::<2>().sum_dim::<0>();
    let d: Tensor<i64, Shape![4, 3]> = t.argmax_dim::<2>();
    let e: Tensor<bool, Shape![]> = t.all();
    let (v, i) = t.max_dim_with_indices::<0>();
    let v: Tensor<f32, Shape![3, 5]> = v;
    let i: Tensor<i64, Shape![3, 5]> = i;
    assert_eq!(a.to_vec(), b.to_vec());
    assert_eq!(
        (c.dims(), d.dims(), e.dims(), v.dims(), i.dims()),
        (&[3][..], &[4, 3][..], &[][..], &[3, 5][..], &[3, 5][..])
    );
    let s: Tensor<f32, Shape![4, 3, 5]> = t.softmax_dim::<1>();
    let ones = s.sum_dim::<1>().to_vec();
    assert!(ones.iter().all(|&x| (x - 1.0).abs() < 1e-6));
}

#[test]
fn dynamic_rank_axes_are_checked_at_run_time() {
    let t = Tensor::<f32, DynRank>::try_zeros(&[2, 3]).unwrap();
    let msg = |r: Result<Tensor<f32, DynRank>, shaped::ShapeError>| r.err().unwrap().to_string();
    assert_eq!(
        msg(t.try_sum_dims(&[2], false)),
        "Dimension out of range (expected to be in range of [-2, 1], but got 2)"
    );
    assert_eq!(
        msg(t.try_sum_dims(&[-3], false)),
        "Dimension out of range (expected to be in range of [-2, 1], but got -3)"
    );
    assert_eq!(
        msg(t.try_mean_dims(&[0, -2], false)),
        "dim 0 appears multiple times in the list of dims"
    );
    assert_eq!(
        msg(t.try_softmax(2)),
        "Dimension out of range (expected to be in range of [-2, 1], but got 2)"
    );
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| t.sum_dim::<2>()))
        .err()
        .unwrap();
    assert_eq!(
        r.downcast_ref::<String>().unwrap(),
        "Dimension out of range (expected to be in range of [-2, 1], but got 2)"
    );
    assert_eq!(t.sum_dim::<1>().dims(), &[2]);
}

#[test]
fn empty_reductions_follow_pytorch() {
    let t = Tensor::<f32, DynRank>::try_zeros(&[3, 0]).unwrap();
    assert_eq!(t.try_sum_dims(&[1], false).unwrap().to_vec(), vec![0.0; 3]);
    assert_eq!(t.try_prod_dims(&[1], false).unwrap().to_vec(), vec![1.0; 3]);
    assert!(
        t.try_mean_dims(&[1], false)
            .unwrap()
            .to_vec()
            .iter()
            .all(|x| x.is_nan())
    );
    assert_eq!(
        t.try_logsumexp_dims(&[1], false).unwrap().to_vec(),
        vec![f32::NEG_INFINITY; 3]
    );
    assert_eq!(t.try_all_dims(&[1], false).unwrap().to_vec(), vec![true; 3]);
    assert_eq!(
        t.try_max_dims(&[1], false).err().unwrap().to_string(),
        "max(): Expected reduction dim 1 to have non-zero size."
    );
    assert_eq!(t.try_max_dims(&[0], false).unwrap().dims(), &[0]);
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| t.max()))
        .err()
        .unwrap();
    assert_eq!(
        r.downcast_ref::<String>().unwrap(),
        "max(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument."
    );
}

#[test]
fn nan_and_infinities() {
    let t = Tensor::<f64, Shape![4]>::from_vec(vec![1., f64::NAN, 3., f64::NAN]);
    assert!(t.max().item().is_nan());
    let (v, i) = t.max_dim_with_indices::<0>();
    assert!(v.item().is_nan());
    assert_eq!(i.item(), 1);
    let inf = Tensor::<f64, Shape![3]>::from_vec(vec![f64::INFINITY, 1., f64::INFINITY]);
    assert_eq!(inf.logsumexp().item(), f64::INFINITY);
    let neg = Tensor::<f64, Shape![2]>::from_vec(vec![f64::NEG_INFINITY, f64::NEG_INFINITY]);
    assert_eq!(neg.logsumexp().item(), f64::NEG_INFINITY);
    assert_eq!(neg.max().item(), f64::NEG_INFINITY);
    let big = Tensor::<f32, Shape![3]>::from_vec(vec![10_000., 10_000., 0.]);
    let p = big.softmax(0).to_vec();
    assert_eq!(p, vec![0.5, 0.5, 0.0]);
}

/// 10^7 copies of 0.1f32 sum within 1e-4 relative of the f64 sum, along
/// a contiguous run, across rows (outer loop) and over a stride-0 view.
#[test]
fn f32_sums_are_pairwise() {
    let n = 10_000_000usize;
    let exact = 0.1f32 as f64 * n as f64;
    let rel = |got: f32, want: f64| ((got as f64 - want) / want).abs();
    let t = Tensor::<f32, DynRank>::try_full(&[n], 0.1).unwrap();
    assert!(
        rel(t.sum().item(), exact) < 1e-4,
        "contiguous: {}",
        t.sum().item()
    );
    let rows = Tensor::<f32, DynRank>::try_full(&[n / 1000, 1000], 0.1).unwrap();
    let cols = rows.try_sum_dims(&[0], false).unwrap().to_vec();
    let col_exact = 0.1f32 as f64 * (n / 1000) as f64;
    assert!(
        cols.iter().all(|&c| rel(c, col_exact) < 1e-4),
        "outer: {}",
        cols[0]
    );
    let per_row = rows.try_sum_dims(&[1], false).unwrap().to_vec();
    assert!(
        per_row
            .iter()
            .all(|&c| rel(c, 1000.0 * 0.1f32 as f64) < 1e-4)
    );
    let expanded = Tensor::<f32, DynRank>::scalar(0.1)
        .try_broadcast_to::<DynRank>(&[n])
        .unwrap();
    assert!(
        rel(expanded.sum().item(), exact) < 1e-4,
        "stride 0: {}",
        expanded.sum().item()
    );
    let naive: f32 = (0..n).map(|_| 0.1f32).sum();
    assert!(
        rel(naive, exact) > 1e-3,
        "a naive f32 loop drifts ({naive}), so the test can tell"
    );
}

#[test]
fn sum_to_reduces_broadcast_dims() {
    // seed 004: A=[1,2,3] and B=[1.] broadcast; the gradient of B sums A's dims.
    let g = Tensor::<f32, Shape![3]>::ones();
    let b: Tensor<f32, Shape![1]> = g.sum_to();
    assert_eq!(b.to_vec(), vec![3.0]);
    // (2,1) + (2,2): sum over dim 1 keeping it.
    let up = Tensor::<f64, Shape![2, 2]>::from_vec(vec![1., 2., 3., 4.]);
    assert_eq!(up.sum_to::<Shape![2, 1]>().to_vec(), vec![3., 7.]);
    assert_eq!(up.sum_to::<Shape![1, 2]>().to_vec(), vec![4., 6.]);
    assert_eq!(up.sum_to::<Shape![2]>().to_vec(), vec![4., 6.]);
    assert_eq!(up.sum_to::<Shape![]>().item(), 10.0);
    // Nothing to sum: a view of the same storage.
    let same: Tensor<f64, Shape![2, 2]> = up.sum_to();
    assert_eq!(same.to_vec(), up.to_vec());
    // Random shapes against the naive reference.
    let mut rng = Rng(5);
    for _ in 0..100 {
        let rank = 1 + below(&mut rng, 4);
        let dims: Vec<usize> = (0..rank).map(|_| 1 + below(&mut rng, 4)).collect();
        let kind = below(&mut rng, 4);
        let (t, values) = random_view(&mut rng, &dims, kind);
        let lead = below(&mut rng, rank + 1);
        let target: Vec<usize> = dims[lead..]
            .iter()
            .map(|&d| if below(&mut rng, 2) == 0 { 1 } else { d })
            .collect();
        let mask: Vec<bool> = (0..rank)
            .map(|i| i < lead || (target[i - lead] == 1 && dims[i] != 1))
            .collect();
        let want: Vec<f64> = groups(&values, &dims, &mask)
            .iter()
            .map(|g| g.iter().sum())
            .collect();
        let got = t.try_sum_to_size::<DynRank>(&target).unwrap();
        assert_eq!(got.dims(), target.as_slice());
        assert_close(&got.to_vec(), &want, 1e-12, "sum_to");
    }
}

/// `softmax` and `log_softmax` of `f32` rows (the last, contiguous axis:
/// the rows' kernel compiled inside shaped for `f32`) against loops in
/// `f64`: rows of one element, short rows, rows of several hundred
/// elements spread over the pool's tiles, and a row with `-inf`.
#[test]
fn f32_softmax_rows_match_f64_loops() {
    for (rows, n) in [(3, 1), (5, 7), (300, 257)] {
        let x: Vec<f32> = (0..rows * n)
            .map(|i| ((i * 37 % 101) as f32 - 50.0) * 0.173)
            .map(|v| if v > 8.6 { f32::NEG_INFINITY } else { v })
            .collect();
        let t = Tensor::<f32, DynRank>::try_from_vec(x.clone(), &[rows, n]).unwrap();
        let s = t.try_softmax(1).unwrap().to_vec();
        let l = t.try_log_softmax(1).unwrap().to_vec();
        for r in 0..rows {
            let row: Vec<f64> = x[r * n..(r + 1) * n]
                .iter()
                .map(|&v| f64::from(v))
                .collect();
            let m = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let z: f64 = row.iter().map(|v| (v - m).exp()).sum();
            for (j, v) in row.iter().enumerate() {
                let (want_s, want_l) = ((v - m).exp() / z, v - m - z.ln());
                let (got_s, got_l) = (f64::from(s[r * n + j]), f64::from(l[r * n + j]));
                assert!(
                    (got_s - want_s).abs() <= 1e-6 * (1.0 + want_s),
                    "softmax [{r}, {j}]: {got_s} vs {want_s}"
                );
                if want_l.is_finite() {
                    assert!(
                        (got_l - want_l).abs() <= 1e-5 * (1.0 + want_l.abs()),
                        "log_softmax [{r}, {j}]: {got_l} vs {want_l}"
                    );
                } else {
                    assert_eq!(got_l, want_l, "log_softmax [{r}, {j}]");
                }
            }
        }
    }
}

/// A variance over runs longer than the two-pass blocks of the CPU's
/// `Moments` (1,024 elements), of values far from zero (where one pass of
/// sums of squares would cancel), as a batch norm's statistics take it:
/// over every axis but the channels.
#[test]
fn variance_of_long_runs_far_from_zero_is_the_two_pass_value() {
    let dims = [3usize, 2, 1500];
    let values: Vec<f64> = (0..dims.iter().product::<usize>())
        .map(|i| 1.0e4 + ((i * 37) % 101) as f64 / 16.0)
        .collect();
    let x = Tensor::<f32, DynRank>::try_from_vec(values.iter().map(|&v| v as f32).collect(), &dims)
        .unwrap();
    let got = x.try_var_dims(&[0, 2], false, 1).unwrap().to_vec();
    for (c, &g) in got.iter().enumerate() {
        let group: Vec<f64> = (0..dims[0])
            .flat_map(|b| (0..dims[2]).map(move |k| (b * dims[1] + c) * dims[2] + k))
            .map(|i| values[i] as f32 as f64)
            .collect();
        let want = naive_var(&group, 1.0);
        assert!(
            (g as f64 - want).abs() <= 1e-6 * want,
            "channel {c}: {g}, want {want}"
        );
    }
}
