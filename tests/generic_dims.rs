//! Code generic over a batch size `B: Dim` (and over a whole shape
//! `S: Shape`), with no other bound, instantiated with a static size, `One`
//! and `Dyn`, against a naive index-by-index computation of the same values.
//! That these functions compile at all is the point of issue 16; the values
//! show that the generic rules pick the same kernels as concrete shapes.

use proptest::prelude::*;
use shaped::shape::Shape as ShapeTrait;
use shaped::{Const, Dim, Dyn, One, Shape, Tensor, where_cond};

/// `x + row`, `row + x`, `x + x` and `x * f(x)` for a generic batch size.
fn residual<B: Dim>(
    x: &Tensor<f32, Shape![B, 3]>,
    row: &Tensor<f32, Shape![1, 3]>,
) -> Tensor<f32, Shape![B, 3]> {
    let a = x + row;
    let b = row + x;
    let c = x + x;
    &(&a + &b) + &(&c * &x.exp())
}

/// `x + d` and `d + x` for a generic `B` and a run-time `d`: one type,
/// `B::WithDyn`.
fn with_dyn<B: Dim>(
    x: &Tensor<f32, Shape![B, 3]>,
    d: &Tensor<f32, Shape![_, 3]>,
) -> Tensor<f32, (B::WithDyn, Const<3>)> {
    let a = x + d;
    let b = d + x;
    &a - &b.neg()
}

/// A batched product of two `B` tensors and `where_cond` of two `B` operands.
fn batched<B: Dim>(
    x: &Tensor<f32, Shape![B, 2, 3]>,
    w: &Tensor<f32, Shape![B, 3, 2]>,
) -> Tensor<f32, Shape![B, 2, 2]> {
    let p = x.matmul(w);
    let q = x.bmm(w);
    where_cond(&p.gt(&q.neg()), &p, &q)
}

/// `x + y` and `x += y` for a generic whole shape.
fn whole<S: ShapeTrait>(x: &Tensor<f32, S>, y: &Tensor<f32, S>) -> Tensor<f32, S> {
    let mut z = x + y;
    z += y;
    z
}

/// In-place additions that a generic `B` leaves decidable, with `B` first
/// and last: `One`, `Dyn`, a lower rank and the same shape written into it.
/// The in-place rule checks the dimensions from the last to the first, each
/// through the outcome of the one after it, so a generic size must pass
/// that chain in either position.
fn inplace<B: Dim>(
    x: &mut Tensor<f32, Shape![B, 3]>,
    t: &mut Tensor<f32, Shape![3, B]>,
    row: &Tensor<f32, Shape![1, 3]>,
    d: &Tensor<f32, Shape![_, 3]>,
    v: &Tensor<f32, Shape![B]>,
) {
    *x += row;
    *x += d;
    let x2 = x.clone();
    *x += &x2;
    *t += v;
    let t2 = t.clone();
    t.add_(&t2);
}

/// The naive `inplace`: `x = 2 (x + row + d)` and `t = 2 (t + v)` (`v`
/// along the last axis), element by element.
fn inplace_naive(x: &[f32], t: &[f32], row: &[f32], d: &[f32], v: &[f32]) -> (Vec<f32>, Vec<f32>) {
    let b = v.len();
    let xs = (0..x.len())
        .map(|i| 2.0 * (x[i] + row[i % 3] + d[i]))
        .collect();
    let ts = (0..t.len()).map(|i| 2.0 * (t[i] + v[i % b])).collect();
    (xs, ts)
}

fn values(n: usize, seed: u32) -> Vec<f32> {
    (0..n)
        .map(|i| ((i as u32 * 7 + seed * 13) % 17) as f32 / 8.0 - 1.0)
        .collect()
}

/// The naive `residual`: `(x + r) + (r + x) + (x + x) * exp(x)` per element.
fn residual_naive(x: &[f32], row: &[f32]) -> Vec<f32> {
    x.iter()
        .enumerate()
        .map(|(i, &v)| {
            let r = row[i % 3];
            ((v + r) + (r + v)) + (v + v) * v.exp()
        })
        .collect()
}

/// The naive batched product, `batch` products of (2, 3) by (3, 2).
fn batched_naive(x: &[f32], w: &[f32], batch: usize) -> Vec<f32> {
    let mut out = Vec::new();
    for b in 0..batch {
        for i in 0..2 {
            for j in 0..2 {
                let s: f32 = (0..3)
                    .map(|k| x[b * 6 + i * 3 + k] * w[b * 6 + k * 2 + j])
                    .sum();
                out.push(s);
            }
        }
    }
    out
}

fn close(a: &[f32], b: &[f32]) {
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() <= 1e-5 * (1.0 + y.abs()), "{a:?} vs {b:?}");
    }
}

proptest! {
    #[test]
    fn generic_batch_matches_naive(batch in 1usize..5, seed in 0u32..50) {
        let row = Tensor::<f32, Shape![1, 3]>::from_vec(values(3, seed + 1));
        let xs = values(batch * 3, seed);
        let want = residual_naive(&xs, &row.to_vec());

        let x = Tensor::<f32, Shape![_, 3]>::try_from_vec(xs.clone(), &[batch, 3]).unwrap();
        close(&residual::<Dyn>(&x, &row).to_vec(), &want);
        close(&with_dyn::<Dyn>(&x, &x).to_vec(), &xs.iter().map(|v| 4.0 * v).collect::<Vec<_>>());
        close(&whole(&x, &x).to_vec(), &xs.iter().map(|v| 3.0 * v).collect::<Vec<_>>());

        let xb = values(batch * 6, seed);
        let wb = values(batch * 6, seed + 3);
        let x3 = Tensor::<f32, Shape![_, 2, 3]>::try_from_vec(xb.clone(), &[batch, 2, 3]).unwrap();
        let w3 = Tensor::<f32, Shape![_, 3, 2]>::try_from_vec(wb.clone(), &[batch, 3, 2]).unwrap();
        close(&batched::<Dyn>(&x3, &w3).to_vec(), &batched_naive(&xb, &wb, batch));
    }
}

#[test]
fn generic_batch_with_static_sizes() {
    let row = Tensor::<f32, Shape![1, 3]>::from_vec(values(3, 4));
    let xs = values(12, 2);
    let x = Tensor::<f32, Shape![4, 3]>::from_vec(xs.clone());
    close(
        &residual::<Const<4>>(&x, &row).to_vec(),
        &residual_naive(&xs, &row.to_vec()),
    );
    let d = Tensor::<f32, Shape![_, 3]>::try_from_vec(xs.clone(), &[4, 3]).unwrap();
    let out: Tensor<f32, Shape![4, 3]> = with_dyn::<Const<4>>(&x, &d);
    close(
        &out.to_vec(),
        &xs.iter().map(|v| 4.0 * v).collect::<Vec<_>>(),
    );

    let x1 = Tensor::<f32, Shape![1, 3]>::from_vec(values(3, 9));
    close(
        &residual::<One>(&x1, &row).to_vec(),
        &residual_naive(&x1.to_vec(), &row.to_vec()),
    );
    // `One ⊕ Dyn` is `Dyn`: the run-time batch of `d` wins.
    let out: Tensor<f32, Shape![_, 3]> = with_dyn::<One>(&x1, &d);
    let want: Vec<f32> = (0..12)
        .map(|i| 2.0 * (x1.to_vec()[i % 3] + xs[i]))
        .collect();
    close(&out.to_vec(), &want);

    let xb = values(12, 5);
    let wb = values(12, 6);
    let x3 = Tensor::<f32, Shape![2, 2, 3]>::from_vec(xb.clone());
    let w3 = Tensor::<f32, Shape![2, 3, 2]>::from_vec(wb.clone());
    close(
        &batched::<Const<2>>(&x3, &w3).to_vec(),
        &batched_naive(&xb, &wb, 2),
    );
}

#[test]
fn generic_inplace_matches_naive() {
    fn check<B: Dim>(batch: usize, seed: u32) {
        let (xs, ts) = (values(batch * 3, seed), values(3 * batch, seed + 1));
        let (rs, ds, vs) = (
            values(3, seed + 2),
            values(batch * 3, seed + 3),
            values(batch, seed + 4),
        );
        let mut x = Tensor::<f32, Shape![B, 3]>::try_from_vec(xs.clone(), &[batch, 3]).unwrap();
        let mut t = Tensor::<f32, Shape![3, B]>::try_from_vec(ts.clone(), &[3, batch]).unwrap();
        let row = Tensor::<f32, Shape![1, 3]>::from_vec(rs.clone());
        let d = Tensor::<f32, Shape![_, 3]>::try_from_vec(ds.clone(), &[batch, 3]).unwrap();
        let v = Tensor::<f32, Shape![B]>::try_from_vec(vs.clone(), &[batch]).unwrap();
        inplace(&mut x, &mut t, &row, &d, &v);
        let (want_x, want_t) = inplace_naive(&xs, &ts, &rs, &ds, &vs);
        close(&x.to_vec(), &want_x);
        close(&t.to_vec(), &want_t);
    }
    check::<Const<4>>(4, 1);
    check::<One>(1, 2);
    check::<Dyn>(5, 3);
}

#[test]
fn two_generic_sizes_are_checked_at_run_time() {
    fn add<B: Dim, C: Dim>(
        x: &Tensor<f32, Shape![B, 3]>,
        y: &Tensor<f32, Shape![C, 3]>,
    ) -> Result<Tensor<f32, Shape![B, 3]>, shaped::ShapeError> {
        x.clone().into_dyn().try_add(y)?.try_into_shape()
    }
    let x = Tensor::<f32, Shape![2, 3]>::from_vec(values(6, 1));
    let y = Tensor::<f32, Shape![1, 3]>::from_vec(values(3, 2));
    let want: Vec<f32> = (0..6).map(|i| x.to_vec()[i] + y.to_vec()[i % 3]).collect();
    close(&add(&x, &y).unwrap().to_vec(), &want);
    let z = Tensor::<f32, Shape![4, 3]>::zeros();
    assert_eq!(
        add(&x, &z).unwrap_err().to_string(),
        "The size of tensor a (2) must match the size of tensor b (4) at non-singleton dimension 0"
    );
}
