//! Differential random test of the dynamic API against a naive
//! index-by-index reference written here.
//!
//! The reference is a storage (`Vec<i64>`) and, for each view, the list of
//! storage positions of its elements in row-major order (`Ref`): a view op
//! maps each index of the new view to an index of the old one, element by
//! element, with no strides. Every tensor is compared with its reference
//! after each step: random views (permute, narrow, step, select, expand,
//! reshape), broadcast binary ops, in-place ops whose operands alias the
//! written storage, matmul, gather and reductions over run-time dims.
//!
//! Cases per property: `PROPTEST_CASES` (default 600, 3600 in all
//! over the properties); `scripts/differential.sh` runs them for minutes.

mod common;

use common::{flat, indices, pick};
use proptest::prelude::*;
use shaped::{DynRank, Tensor};

type T = Tensor<i64, DynRank>;

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(600)
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: cases(),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// A view in the reference: its sizes and the storage position of each
/// element, row-major.
#[derive(Clone, Debug)]
struct Ref {
    dims: Vec<usize>,
    pos: Vec<usize>,
}

impl Ref {
    fn whole(dims: &[usize]) -> Ref {
        Ref {
            dims: dims.to_vec(),
            pos: (0..dims.iter().product()).collect(),
        }
    }

    /// The view of sizes `dims` whose element at `idx` is this view's
    /// element at `old(idx)`.
    fn remap(&self, dims: Vec<usize>, old: impl Fn(&[usize]) -> Vec<usize>) -> Ref {
        let pos = indices(&dims)
            .iter()
            .map(|i| self.pos[flat(&old(i), &self.dims)])
            .collect();
        Ref { dims, pos }
    }

    fn values(&self, storage: &[i64]) -> Vec<i64> {
        self.pos.iter().map(|&p| storage[p]).collect()
    }
}

/// One random view step, read against the current sizes.
#[derive(Clone, Debug)]
struct Step {
    kind: u8,
    a: usize,
    b: usize,
    c: usize,
}

fn step() -> impl Strategy<Value = Step> {
    (0u8..6, 0usize..64, 0usize..64, 0usize..64).prop_map(|(kind, a, b, c)| Step { kind, a, b, c })
}

/// Applies `s` to the tensor and to its reference; `None` where the step
/// does not apply to these sizes. `write` leaves out the steps whose result
/// may not be written (expand) or may be a copy (reshape).
fn apply(t: &T, r: &Ref, s: &Step, write: bool) -> Option<(T, Ref)> {
    let rank = r.dims.len();
    let kind = if write { s.kind % 4 } else { s.kind };
    match kind {
        // permute
        0 if rank > 0 => {
            let mut perm: Vec<usize> = (0..rank).collect();
            let mut seed = s.a * 7 + s.b;
            for i in (1..rank).rev() {
                perm.swap(i, seed % (i + 1));
                seed /= i + 1;
            }
            let dims: Vec<usize> = perm.iter().map(|&p| r.dims[p]).collect();
            let view = r.remap(dims, |idx| {
                let mut old = vec![0; rank];
                for (i, &p) in perm.iter().enumerate() {
                    old[p] = idx[i];
                }
                old
            });
            let p: Vec<isize> = perm.iter().map(|&x| x as isize).collect();
            Some((t.permute::<DynRank>(&p).unwrap(), view))
        }
        // narrow
        1 if rank > 0 => {
            let d = s.a % rank;
            let size = r.dims[d];
            let start = s.b % (size + 1);
            let len = s.c % (size - start + 1);
            let mut dims = r.dims.clone();
            dims[d] = len;
            let view = r.remap(dims, |idx| {
                let mut old = idx.to_vec();
                old[d] += start;
                old
            });
            Some((t.narrow::<DynRank>(d as isize, start, len).unwrap(), view))
        }
        // step
        2 if rank > 0 => {
            let d = s.a % rank;
            let size = r.dims[d];
            let start = s.b % (size + 1);
            let stride = 1 + s.c % 3;
            let len = (size - start).div_ceil(stride);
            let mut dims = r.dims.clone();
            dims[d] = len;
            let view = r.remap(dims, |idx| {
                let mut old = idx.to_vec();
                old[d] = start + idx[d] * stride;
                old
            });
            let range = start as isize..size as isize;
            let out = match d {
                0 => t.try_slice_step::<0>(range, stride),
                1 => t.try_slice_step::<1>(range, stride),
                2 => t.try_slice_step::<2>(range, stride),
                _ => t.try_slice_step::<3>(range, stride),
            };
            Some((out.unwrap(), view))
        }
        // select
        3 if rank > 0 && r.dims[s.a % rank] > 0 => {
            let d = s.a % rank;
            let i = s.b % r.dims[d];
            let mut dims = r.dims.clone();
            dims.remove(d);
            let view = r.remap(dims, |idx| {
                let mut old = idx.to_vec();
                old.insert(d, i);
                old
            });
            let out = match d {
                0 => t.try_select::<0>(i as isize),
                1 => t.try_select::<1>(i as isize),
                2 => t.try_select::<2>(i as isize),
                _ => t.try_select::<3>(i as isize),
            };
            Some((out.unwrap(), view))
        }
        // expand: size-1 dims stretch, maybe a new leading dim
        4 => {
            let lead = usize::from(rank < 4 && s.a.is_multiple_of(2));
            let mut dims: Vec<usize> = vec![s.b % 3; lead];
            for (i, &d) in r.dims.iter().enumerate() {
                dims.push(if d == 1 { (s.c >> i) % 3 + 1 } else { d });
            }
            let view = r.remap(dims.clone(), |idx| {
                idx[lead..]
                    .iter()
                    .zip(&r.dims)
                    .map(|(&i, &d)| if d == 1 { 0 } else { i })
                    .collect()
            });
            Some((t.try_broadcast_to::<DynRank>(&dims).unwrap(), view))
        }
        // reshape: the same elements in row-major order, regrouped
        5 => {
            let n: usize = r.dims.iter().product();
            let dims = match s.a % 3 {
                0 => vec![n],
                1 if n > 0 && n.is_multiple_of(2) => vec![2, n / 2],
                _ => vec![1, n, 1],
            };
            let sizes: Vec<isize> = dims.iter().map(|&d| d as isize).collect();
            let view = Ref {
                dims,
                pos: r.pos.clone(),
            };
            Some((t.try_reshape::<DynRank>(&sizes).unwrap(), view))
        }
        _ => None,
    }
}

/// A storage of `n` small values (some negative) and its tensor.
fn base(dims: &[usize], seed: i64) -> (T, Vec<i64>) {
    let n: usize = dims.iter().product();
    let data: Vec<i64> = (0..n as i64).map(|i| (i * 7 + seed) % 11 - 5).collect();
    (T::try_from_vec(data.clone(), dims).unwrap(), data)
}

fn dims_strategy(max_rank: usize) -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(0usize..4, 0..=max_rank)
}

/// A random view chain over a fresh base: the tensor, its reference and the
/// base's storage.
fn chain(dims: &[usize], seed: i64, steps: &[Step], write: bool) -> (T, Ref, Vec<i64>) {
    let (t0, data) = base(dims, seed);
    let (mut t, mut r) = (t0, Ref::whole(dims));
    for s in steps {
        if let Some((t2, r2)) = apply(&t, &r, s, write) {
            t = t2;
            r = r2;
        }
    }
    (t, r, data)
}

/// Broadcasts `a` and `b` as NumPy does, or the PyTorch message.
fn broadcast(a: &[usize], b: &[usize]) -> Result<Vec<usize>, String> {
    let rank = a.len().max(b.len());
    let mut out = vec![0; rank];
    for d in (0..rank).rev() {
        let x = if d + a.len() >= rank {
            a[d + a.len() - rank]
        } else {
            1
        };
        let y = if d + b.len() >= rank {
            b[d + b.len() - rank]
        } else {
            1
        };
        out[d] = if x == y || y == 1 {
            x
        } else if x == 1 {
            y
        } else {
            return Err(format!(
                "The size of tensor a ({x}) must match the size of tensor b ({y}) at non-singleton dimension {d}"
            ));
        };
    }
    Ok(out)
}

fn binary_ref(op: u8, x: i64, y: i64) -> i64 {
    match op % 3 {
        0 => x.wrapping_add(y),
        1 => x.wrapping_sub(y),
        _ => x.wrapping_mul(y),
    }
}

fn binary(op: u8, a: &T, b: &T) -> Result<T, String> {
    match op % 3 {
        0 => a.try_add(b),
        1 => a.try_sub(b),
        _ => a.try_mul(b),
    }
    .map_err(|e| e.to_string())
}

proptest! {
    #![proptest_config(config())]

    /// Random view chains read the elements the reference picks.
    #[test]
    fn views(dims in dims_strategy(4), seed in 0i64..100,
             steps in prop::collection::vec(step(), 0..6)) {
        let (t, r, data) = chain(&dims, seed, &steps, false);
        prop_assert_eq!(t.dims(), &r.dims[..]);
        prop_assert_eq!(t.to_vec(), r.values(&data));
        prop_assert_eq!(t.contiguous().to_vec(), r.values(&data));
    }

    /// Broadcast binary ops on random views, including mismatches.
    #[test]
    fn broadcast_binary(da in dims_strategy(3), db in dims_strategy(3), op in 0u8..3,
                        sa in prop::collection::vec(step(), 0..4),
                        sb in prop::collection::vec(step(), 0..4)) {
        let (a, ra, xa) = chain(&da, 1, &sa, false);
        let (b, rb, xb) = chain(&db, 2, &sb, false);
        match (broadcast(&ra.dims, &rb.dims), binary(op, &a, &b)) {
            (Ok(out), Ok(got)) => {
                prop_assert_eq!(got.dims(), &out[..]);
                let (va, vb) = (ra.values(&xa), rb.values(&xb));
                let want: Vec<i64> = indices(&out)
                    .iter()
                    .map(|i| {
                        binary_ref(op, pick(&va, &ra.dims, i), pick(&vb, &rb.dims, i))
                    })
                    .collect();
                prop_assert_eq!(got.to_vec(), want);
            }
            (Err(want), Err(got)) => prop_assert_eq!(got, want),
            (want, got) => prop_assert!(false, "reference {:?}, got {:?}", want, got.map(|t| t.to_vec())),
        }
    }

    /// In place, with the operand a view of the written storage: either
    /// PyTorch's partial-overlap error on views that share memory (nothing
    /// written), or the result of reading every operand before writing.
    #[test]
    fn in_place_aliasing(n in 1usize..5, m in 1usize..5, op in 0u8..2,
                         sx in prop::collection::vec(step(), 0..4),
                         sy in prop::collection::vec(step(), 0..4)) {
        let dims = [n, m];
        let (b0, data) = base(&dims, 3);
        let r0 = Ref::whole(&dims);
        let (mut x, mut rx) = (b0.share(), r0.clone());
        for s in &sx {
            if let Some((t, r)) = apply(&x, &rx, s, true) { x = t; rx = r; }
        }
        let (mut y, mut ry) = (b0.share(), r0);
        for s in &sy {
            if let Some((t, r)) = apply(&y, &ry, s, true) { y = t; ry = r; }
        }
        let Ok(out) = broadcast(&ry.dims, &rx.dims) else { return Ok(()) };
        if out != rx.dims {
            return Ok(());
        }
        let result = if op == 0 { x.try_add_(&y) } else { x.try_sub_(&y) };
        match result {
            Ok(()) => {
                let (vx, vy) = (rx.values(&data), ry.values(&data));
                let mut want = data.clone();
                for (k, i) in indices(&rx.dims).iter().enumerate() {
                    let yv = pick(&vy, &ry.dims, i);
                    want[rx.pos[k]] = binary_ref(op, vx[k], yv);
                }
                prop_assert_eq!(b0.to_vec(), want);
            }
            Err(e) => {
                // Only views that share memory without being the same view
                // (PyTorch compares strides too, which differ for the same
                // elements only through dims of size 1).
                let shared = rx.pos.iter().any(|p| ry.pos.contains(p));
                let same = rx.pos == ry.pos && rx.dims == ry.dims && !rx.dims.contains(&1);
                prop_assert!(shared && !same, "{} for disjoint or equal views", e);
                prop_assert!(e.to_string().starts_with("unsupported operation: some elements"));
                prop_assert_eq!(b0.to_vec(), data);
            }
        }
    }

    /// Batched matmul with broadcast batch and transposed operands.
    #[test]
    fn matmul(m in 0usize..4, k in 0usize..4, n in 0usize..4, batch in 0usize..3,
              ba in 0usize..3, bb in 0usize..3, ta in any::<bool>(), tb in any::<bool>()) {
        let lead = |b: usize| match (batch, b) { (0, _) => vec![], (_, 0) => vec![1], _ => vec![batch] };
        let operand = |lead: Vec<usize>, r: usize, c: usize, t: bool, seed: i64| {
            let mut dims = lead.clone();
            dims.extend(if t { [c, r] } else { [r, c] });
            let (x, data) = base(&dims, seed);
            let rank = dims.len();
            let rr = Ref::whole(&dims);
            if t {
                let mut perm: Vec<isize> = (0..rank as isize).collect();
                perm.swap(rank - 1, rank - 2);
                let mut d2 = lead.clone();
                d2.extend([r, c]);
                let view = rr.remap(d2, |idx| {
                    let mut old = idx.to_vec();
                    old.swap(rank - 1, rank - 2);
                    old
                });
                (x.permute::<DynRank>(&perm).unwrap(), view.values(&data))
            } else {
                (x, data)
            }
        };
        let (la, lb) = (lead(ba), lead(bb));
        let (a, va) = operand(la.clone(), m, k, ta, 4);
        let (b, vb) = operand(lb.clone(), k, n, tb, 5);
        let got = a.try_matmul(&b).unwrap();
        let nb = la.first().copied().unwrap_or(1).max(lb.first().copied().unwrap_or(1));
        let out_batch = if batch == 0 { vec![] } else { vec![nb] };
        let mut want_dims = out_batch.clone();
        want_dims.extend([m, n]);
        prop_assert_eq!(got.dims(), &want_dims[..]);
        let mut want = Vec::new();
        for bi in 0..nb.max(usize::from(batch == 0)) {
            let pick = |l: &[usize]| if l.first() == Some(&1) { 0 } else { bi };
            let (pa, pb) = (pick(&la), pick(&lb));
            for i in 0..m {
                for j in 0..n {
                    let s = (0..k).fold(0i64, |s, p| {
                        s.wrapping_add(va[pa * m * k + i * k + p].wrapping_mul(vb[pb * k * n + p * n + j]))
                    });
                    want.push(s);
                }
            }
        }
        if batch > 0 && nb == 0 { want.clear(); }
        prop_assert_eq!(got.to_vec(), want);
    }

    /// `gather` along a run-time dim of a random view.
    #[test]
    fn gather(dims in dims_strategy(3), steps in prop::collection::vec(step(), 0..4),
              dim in 0usize..3, shrink in prop::collection::vec(0usize..3, 5), seed in 0usize..1000) {
        let (t, r, data) = chain(&dims, 6, &steps, false);
        let rank = r.dims.len();
        prop_assume!(rank > 0);
        let d = dim % rank;
        let size = r.dims[d];
        let idims: Vec<usize> = (0..rank)
            .map(|i| if i == d { if size == 0 { 0 } else { shrink[i] + 1 } } else { r.dims[i].saturating_sub(shrink[i] % 2) })
            .collect();
        let n: usize = idims.iter().product();
        let ivals: Vec<i64> = (0..n).map(|i| ((i * 31 + seed) % size.max(1)) as i64).collect();
        let index = T::try_from_vec(ivals.clone(), &idims).unwrap();
        let got = t.try_gather(d as isize, &index).unwrap();
        let values = r.values(&data);
        let want: Vec<i64> = indices(&idims)
            .iter()
            .zip(&ivals)
            .map(|(i, &v)| {
                let mut src = i.clone();
                src[d] = v as usize;
                values[flat(&src, &r.dims)]
            })
            .collect();
        prop_assert_eq!(got.dims(), &idims[..]);
        prop_assert_eq!(got.to_vec(), want);
    }

    /// `sum`, `prod` and `max` over run-time dims (negative ones too) of a
    /// random view, with and without `keepdim`.
    #[test]
    fn reductions(dims in dims_strategy(4), steps in prop::collection::vec(step(), 0..4),
                  pick in prop::collection::vec(any::<bool>(), 4), neg in any::<bool>(),
                  keepdim in any::<bool>(), which in 0u8..3) {
        let (t, r, data) = chain(&dims, 8, &steps, false);
        let rank = r.dims.len();
        let mask: Vec<bool> = (0..rank).map(|i| pick[i]).collect();
        let axes: Vec<isize> = (0..rank)
            .filter(|&i| mask[i])
            .map(|i| if neg { i as isize - rank as isize } else { i as isize })
            .collect();
        let got = match which {
            0 => t.try_sum_dims(&axes, keepdim),
            1 => t.try_prod_dims(&axes, keepdim),
            _ => t.try_max_dims(&axes, keepdim),
        };
        // No axes: PyTorch reduces over all of them.
        let mask: Vec<bool> = if axes.is_empty() { vec![true; rank] } else { mask };
        let values = r.values(&data);
        let kept: Vec<usize> = (0..rank).map(|i| if mask[i] { 1 } else { r.dims[i] }).collect();
        let empty_max = which == 2 && (0..rank).any(|i| mask[i] && r.dims[i] == 0);
        if empty_max {
            prop_assert!(got.is_err());
            return Ok(());
        }
        let got = got.unwrap();
        let mut acc: Vec<Option<i64>> = vec![None; kept.iter().product()];
        for (k, i) in indices(&r.dims).iter().enumerate() {
            let o: Vec<usize> = (0..rank).map(|d| if mask[d] { 0 } else { i[d] }).collect();
            let slot = &mut acc[flat(&o, &kept)];
            let v = values[k];
            *slot = Some(match (*slot, which) {
                (None, _) => v,
                (Some(a), 0) => a.wrapping_add(v),
                (Some(a), 1) => a.wrapping_mul(v),
                (Some(a), _) => a.max(v),
            });
        }
        let empty = if which == 1 { 1 } else { 0 };
        let want: Vec<i64> = acc.into_iter().map(|a| a.unwrap_or(empty)).collect();
        let want_dims: Vec<usize> = if keepdim {
            kept
        } else {
            (0..rank).filter(|&i| !mask[i]).map(|i| r.dims[i]).collect()
        };
        prop_assert_eq!(got.dims(), &want_dims[..]);
        prop_assert_eq!(got.to_vec(), want);
    }
}
