//! Matrix products against a naive triple loop written here, independently
//! of the crate: random shapes (seeded), broadcast and expanded batches,
//! transposed and sliced operands, zero sizes, every 1-D promotion, the
//! fused products and their in-place forms, integer types, and PyTorch's
//! error messages.

use shaped::{DynRank, Shape, Tensor};

mod common;

use common::SplitMix as Rng;

/// NumPy's matmul on row-major buffers, by definition: promote 1-D
/// operands, broadcast the batch, sum over the contracted index.
fn reference<T: Copy + Default>(
    a: &[T],
    ad: &[usize],
    b: &[T],
    bd: &[usize],
    mul_add: impl Fn(T, T, T) -> T,
) -> (Vec<T>, Vec<usize>) {
    let mut pa = ad.to_vec();
    let mut pb = bd.to_vec();
    if ad.len() == 1 {
        pa.insert(0, 1);
    }
    if bd.len() == 1 {
        pb.push(1);
    }
    let (n, k) = (pa[pa.len() - 2], pa[pa.len() - 1]);
    let (k2, p) = (pb[pb.len() - 2], pb[pb.len() - 1]);
    assert_eq!(k, k2, "reference: contracted sizes");
    let (ba, bb) = (&pa[..pa.len() - 2], &pb[..pb.len() - 2]);
    let r = ba.len().max(bb.len());
    let at = |s: &[usize], i: usize| (i + s.len()).checked_sub(r).map_or(1, |j| s[j]);
    let batch: Vec<usize> = (0..r)
        .map(|i| {
            let (x, y) = (at(ba, i), at(bb, i));
            assert!(x == y || x == 1 || y == 1, "reference: batch");
            if x == 1 { y } else { x }
        })
        .collect();
    let nb: usize = batch.iter().product();
    let mut out = vec![T::default(); nb * n * p];
    for bi in 0..nb {
        // The batch multi-index, and each operand's matrix index in it.
        let (mut rem, mut ia, mut ib, mut sa, mut sb) = (bi, 0, 0, 1, 1);
        for d in (0..r).rev() {
            let idx = rem % batch[d];
            rem /= batch[d];
            let (x, y) = (at(ba, d), at(bb, d));
            ia += if x == 1 { 0 } else { idx * sa };
            ib += if y == 1 { 0 } else { idx * sb };
            sa *= x;
            sb *= y;
        }
        for i in 0..n {
            for j in 0..p {
                let mut acc = T::default();
                for t in 0..k {
                    acc = mul_add(acc, a[ia * n * k + i * k + t], b[ib * k * p + t * p + j]);
                }
                out[bi * n * p + i * p + j] = acc;
            }
        }
    }
    let mut dims = batch;
    if ad.len() > 1 {
        dims.push(n);
    }
    if bd.len() > 1 {
        dims.push(p);
    }
    (out, dims)
}

fn fma(acc: f64, x: f64, y: f64) -> f64 {
    acc + x * y
}

fn assert_close(got: &[f64], want: &[f64], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= 1e-9 * (1.0 + w.abs()),
            "{what}: element {i}: {g} vs {w}"
        );
    }
}

fn assert_close_f32(got: &[f32], want: &[f64], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let g = f64::from(*g);
        assert!(
            (g - w).abs() <= 1e-4 * (1.0 + w.abs()),
            "{what}: element {i}: {g} vs {w}"
        );
    }
}

fn rand_dyn(dims: &[usize], seed: u64) -> Tensor<f64, DynRank> {
    Tensor::try_randn(dims, seed).unwrap()
}

/// Shapes of rank 1-4 whose batches broadcast: sizes drawn from 0..=5, some
/// batch sizes set to 1 on one side.
fn random_pair(rng: &mut Rng) -> (Vec<usize>, Vec<usize>) {
    let (ra, rb) = (1 + rng.below(4), 1 + rng.below(4));
    let (n, k, p) = (rng.below(6), rng.below(6), rng.below(6));
    let batch: Vec<usize> = (0..4).map(|_| 1 + rng.below(4)).collect();
    let mut side = |rank: usize, last2: [usize; 2]| -> Vec<usize> {
        let lead = rank.saturating_sub(2);
        let mut d: Vec<usize> = batch[4 - lead..]
            .iter()
            .map(|&s| if rng.below(3) == 0 { 1 } else { s })
            .collect();
        d.extend_from_slice(&last2[2 - rank.min(2)..]);
        d
    };
    let a = side(ra, [n, k]);
    let b = if rb == 1 { vec![k] } else { side(rb, [k, p]) };
    (a, b)
}

#[test]
fn random_shapes_match_the_reference() {
    let mut rng = Rng(1);
    for case in 0..400 {
        let (ad, bd) = random_pair(&mut rng);
        let (a, b) = (rand_dyn(&ad, case), rand_dyn(&bd, case + 10_000));
        let (want, dims) = reference(&a.to_vec(), &ad, &b.to_vec(), &bd, fma);
        let got = a.matmul(&b);
        assert_eq!(got.dims(), &dims[..], "{ad:?} @ {bd:?}");
        assert_close(&got.to_vec(), &want, &format!("{ad:?} @ {bd:?}"));
        // f32 takes the same path with the other kernel.
        let (a32, b32) = (a.map(|x| x as f32), b.map(|x| x as f32));
        assert_close_f32(
            &a32.matmul(&b32).to_vec(),
            &want,
            &format!("f32 {ad:?} @ {bd:?}"),
        );
    }
}

#[test]
fn integer_matmul_is_exact_and_wraps() {
    let mut rng = Rng(2);
    for _ in 0..200 {
        let (ad, bd) = random_pair(&mut rng);
        let fill = |dims: &[usize], rng: &mut Rng| -> Vec<i64> {
            (0..dims.iter().product::<usize>())
                .map(|_| rng.below(200) as i64 - 100)
                .collect()
        };
        let (va, vb) = (fill(&ad, &mut rng), fill(&bd, &mut rng));
        let (want, dims) = reference(&va, &ad, &vb, &bd, |acc, x, y| acc + x * y);
        let a = Tensor::<i64, DynRank>::try_from_vec(va.clone(), &ad).unwrap();
        let b = Tensor::<i64, DynRank>::try_from_vec(vb.clone(), &bd).unwrap();
        let got = a.matmul(&b);
        assert_eq!(
            (got.dims(), got.to_vec()),
            (&dims[..], want),
            "{ad:?} @ {bd:?}"
        );
        let a32 = a.map(|x| x as i32);
        let b32 = b.map(|x| x as i32);
        let want32: Vec<i32> = got.to_vec().iter().map(|&x| x as i32).collect();
        assert_eq!(a32.matmul(&b32).to_vec(), want32);
    }
    // u8 wraps as PyTorch's integer kernels do: 16 * 16 * 2 = 512 = 0 mod 256.
    let a = Tensor::<u8, Shape![1, 2]>::from_vec(vec![16, 16]);
    let b = Tensor::<u8, Shape![2, 1]>::from_vec(vec![16, 16]);
    assert_eq!(a.matmul(&b).to_vec(), vec![0]);
    let c = Tensor::<u8, Shape![2, 3]>::from_vec(vec![1, 2, 3, 4, 5, 6]);
    let d = Tensor::<u8, Shape![3, 2]>::from_vec(vec![1, 0, 0, 1, 1, 1]);
    assert_eq!(c.mm(&d).to_vec(), vec![4, 5, 10, 11]);
}

#[test]
fn large_integer_products_split_across_threads() {
    let (m, k, n) = (150, 70, 90);
    let va: Vec<i32> = (0..m * k).map(|i| (i % 13) as i32 - 6).collect();
    let vb: Vec<i32> = (0..k * n).map(|i| (i % 7) as i32 - 3).collect();
    let (want, _) = reference(&va, &[m, k], &vb, &[k, n], |acc, x, y| acc + x * y);
    let a = Tensor::<i32, DynRank>::try_from_vec(va, &[m, k]).unwrap();
    let b = Tensor::<i32, DynRank>::try_from_vec(vb, &[k, n]).unwrap();
    assert_eq!(a.matmul(&b).to_vec(), want);
}

#[test]
fn the_seed_example_has_its_exact_type() {
    let a = Tensor::<f64, Shape![2, 5, 7]>::randn(1);
    let b = Tensor::<f64, Shape![5, 2, 7, 3]>::randn(2);
    let c: Tensor<f64, Shape![5, 2, 5, 3]> = a.matmul(&b);
    let (want, dims) = reference(&a.to_vec(), &[2, 5, 7], &b.to_vec(), &[5, 2, 7, 3], fma);
    assert_eq!(dims, vec![5, 2, 5, 3]);
    assert_close(&c.to_vec(), &want, "seed example");
}

#[test]
fn every_one_d_promotion() {
    let v = Tensor::<f64, Shape![4]>::randn(3);
    let m = Tensor::<f64, Shape![4, 3]>::randn(4);
    let mt = Tensor::<f64, Shape![3, 4]>::randn(5);
    let s = Tensor::<f64, Shape![2, 4, 3]>::randn(6);
    let st = Tensor::<f64, Shape![2, 3, 4]>::randn(7);
    let dot: Tensor<f64, Shape![]> = v.matmul(&v);
    let row: Tensor<f64, Shape![3]> = v.matmul(&m);
    let col: Tensor<f64, Shape![3]> = mt.matmul(&v);
    let rows: Tensor<f64, Shape![2, 3]> = v.matmul(&s);
    let cols: Tensor<f64, Shape![2, 3]> = st.matmul(&v);
    let check = |got: Vec<f64>, a: &Tensor<f64, DynRank>, b: &Tensor<f64, DynRank>| {
        let (want, _) = reference(&a.to_vec(), a.dims(), &b.to_vec(), b.dims(), fma);
        assert_close(&got, &want, &format!("{:?} @ {:?}", a.dims(), b.dims()));
    };
    let d = |t: &Tensor<f64, DynRank>| t.clone();
    let (vd, md, mtd, sd, std_) = (
        v.clone().into_dyn(),
        m.clone().into_dyn(),
        mt.clone().into_dyn(),
        s.clone().into_dyn(),
        st.clone().into_dyn(),
    );
    check(dot.to_vec(), &d(&vd), &d(&vd));
    check(row.to_vec(), &vd, &md);
    check(col.to_vec(), &mtd, &vd);
    check(rows.to_vec(), &vd, &sd);
    check(cols.to_vec(), &std_, &vd);
    // The same through the BLAS names.
    assert_close(&v.dot(&v).to_vec(), &dot.to_vec(), "dot");
    assert_close(&mt.mv(&v).to_vec(), &col.to_vec(), "mv");
    // Dynamic shapes give the same sizes at run time.
    assert_eq!(vd.matmul(&vd).dims(), &[] as &[usize]);
    assert_eq!(vd.matmul(&sd).dims(), &[2, 3]);
    assert_eq!(std_.matmul(&vd).dims(), &[2, 3]);
}

#[test]
fn expanded_batches_are_iterated_in_place() {
    let mut rng = Rng(3);
    for case in 0..60 {
        let (b, m, k, n) = (
            2 + rng.below(4),
            1 + rng.below(9),
            rng.below(9),
            1 + rng.below(9),
        );
        let a = rand_dyn(&[1, m, k], case);
        let w = rand_dyn(&[k, n], case + 1);
        let ea = a.expand::<DynRank>(&[b as isize, -1, -1]).unwrap();
        assert_eq!(ea.strides()[0], 0);
        // An expanded right operand too, with a broadcast batch of its own.
        let ew = w
            .expand::<DynRank>(&[3, 1, k as isize, n as isize])
            .unwrap();
        let got = ea.matmul(&ew);
        let (want, dims) = reference(&ea.to_vec(), &[b, m, k], &ew.to_vec(), &[3, 1, k, n], fma);
        assert_eq!(got.dims(), &dims[..]);
        assert_close(&got.to_vec(), &want, "expanded");
        // Rows expanded inside the matrix (stride 0 within it).
        let col = rand_dyn(&[m, 1], case + 2);
        let wide = col.expand::<DynRank>(&[m as isize, k as isize]).unwrap();
        let (want, _) = reference(&wide.to_vec(), &[m, k], &w.to_vec(), &[k, n], fma);
        assert_close(&wide.matmul(&w).to_vec(), &want, "stride-0 columns");
    }
}

#[test]
fn transposed_and_sliced_operands() {
    let a = Tensor::<f64, Shape![6, 5]>::randn(8);
    let b = Tensor::<f64, Shape![7, 6]>::randn(9);
    // (5, 6) @ (6, 7): both transposed views.
    let at = a.transpose::<0, 1>();
    let bt = b.transpose::<0, 1>();
    let c: Tensor<f64, Shape![5, 7]> = at.matmul(&bt);
    let (want, _) = reference(&at.to_vec(), &[5, 6], &bt.to_vec(), &[6, 7], fma);
    assert_close(&c.to_vec(), &want, "transposed");
    // Slices: a (6, 3) window of columns and a (3, 4) block.
    let an = a.narrow::<Shape![6, 3]>(1, 1, 3).unwrap();
    let bn = b
        .narrow::<Shape![3, 6]>(0, 2, 3)
        .unwrap()
        .narrow::<Shape![3, 4]>(1, 1, 4)
        .unwrap();
    let c = an.mm(&bn);
    let (want, _) = reference(&an.to_vec(), &[6, 3], &bn.to_vec(), &[3, 4], fma);
    assert_close(&c.to_vec(), &want, "sliced");
    // A transposed batch (the batch axis not outermost in memory).
    let s = rand_dyn(&[4, 3, 5], 10);
    let sp = s.permute::<DynRank>(&[1, 0, 2]).unwrap();
    let w = rand_dyn(&[3, 5, 2], 11);
    let got = sp.matmul(&w);
    let (want, _) = reference(&sp.to_vec(), &[3, 4, 5], &w.to_vec(), &[3, 5, 2], fma);
    assert_close(&got.to_vec(), &want, "permuted batch");
    // Large enough for the parallel paths, folded and not.
    for (ad, bd) in [
        (vec![16, 70, 33], vec![33, 40]),
        (vec![8, 64, 64], vec![8, 64, 64]),
        (vec![2, 130, 70], vec![70, 90]),
        (vec![1, 70, 50], vec![50, 400]),
    ] {
        let (x, y) = (rand_dyn(&ad, 12), rand_dyn(&bd, 13));
        let xt = x.permute::<DynRank>(&[0, 2, 1]).unwrap().contiguous();
        let xtt = xt.permute::<DynRank>(&[0, 2, 1]).unwrap();
        let (want, _) = reference(&x.to_vec(), &ad, &y.to_vec(), &bd, fma);
        assert_close(&x.matmul(&y).to_vec(), &want, "large");
        assert_close(&xtt.matmul(&y).to_vec(), &want, "large, column-major batch");
    }
}

/// `x @ w.T` with `w` in `nn.Linear`'s layout (`(out, in)`, so the right
/// operand is contiguous along the contracted axis): few rows run without
/// transposing the product (the weight is read in place, not packed), more
/// rows as the transpose. Rows on both sides of that limit (64), a
/// destination written in place with `beta`, a sliced `x`, `f64` and `f32`.
#[test]
fn thin_products_with_a_linear_weight() {
    for (m, k, n) in [
        (1, 384, 1536),
        (5, 33, 100),
        (16, 384, 384),
        (63, 70, 129),
        (64, 40, 300),
        (65, 40, 300),
        (16, 8, 3),
    ] {
        let x = rand_dyn(&[m, k], (m * 7 + n) as u64);
        let w = rand_dyn(&[n, k], (k * 3 + n) as u64);
        let wt = w.permute::<DynRank>(&[1, 0]).unwrap();
        let (want, _) = reference(&x.to_vec(), &[m, k], &wt.to_vec(), &[k, n], fma);
        let what = format!("({m}, {k}) @ ({n}, {k}).T");
        assert_close(&x.matmul(&wt).to_vec(), &want, &what);
        let (x32, wt32) = (x.map(|v| v as f32), wt.map(|v| v as f32));
        assert_close_f32(&x32.matmul(&wt32).to_vec(), &want, &format!("f32 {what}"));
        // addmm: 0.5 * c + 2 * x @ w.T, into a row-major `c`.
        let c = rand_dyn(&[m, n], 5);
        let fused = c.addmm(&x, &wt, 0.5, 2.0);
        assert_close(
            &fused.to_vec(),
            &axpby(&c.to_vec(), &want, 0.5, 2.0),
            &format!("addmm {what}"),
        );
    }
    // A sliced `x` (a window of its columns) against a weight.
    let x = rand_dyn(&[32, 48], 21);
    let xs = x.narrow::<DynRank>(1, 8, 40).unwrap();
    let w = rand_dyn(&[200, 40], 22);
    let wt = w.permute::<DynRank>(&[1, 0]).unwrap();
    let (want, _) = reference(&xs.to_vec(), &[32, 40], &wt.to_vec(), &[40, 200], fma);
    assert_close(&xs.matmul(&wt).to_vec(), &want, "sliced x @ w.T");
}

#[test]
fn zero_sizes() {
    // K = 0: zeros, even in a fresh buffer.
    let a = Tensor::<f32, DynRank>::try_zeros(&[3, 0]).unwrap();
    let b = Tensor::<f32, DynRank>::try_zeros(&[0, 4]).unwrap();
    let c = a.matmul(&b);
    assert_eq!((c.dims(), c.to_vec()), (&[3, 4][..], vec![0.0; 12]));
    let ai = Tensor::<i32, DynRank>::try_zeros(&[2, 0]).unwrap();
    let bi = Tensor::<i32, DynRank>::try_zeros(&[0, 2]).unwrap();
    assert_eq!(ai.matmul(&bi).to_vec(), vec![0; 4]);
    // n or p = 0: empty.
    let e = Tensor::<f32, DynRank>::try_zeros(&[0, 5]).unwrap();
    let f = Tensor::<f32, DynRank>::try_zeros(&[5, 3]).unwrap();
    assert_eq!(e.matmul(&f).dims(), &[0, 3]);
    let g = Tensor::<f32, DynRank>::try_zeros(&[5, 0]).unwrap();
    assert_eq!(f.transpose_dyn().matmul(&g).dims(), &[3, 0]);
    // An empty batch.
    let h = Tensor::<f32, DynRank>::try_zeros(&[0, 2, 5]).unwrap();
    assert_eq!(h.matmul(&f).dims(), &[0, 2, 3]);
    // addbmm over an empty batch: beta * C.
    let c = Tensor::<f64, Shape![2, 2]>::full(3.0);
    let x = Tensor::<f64, DynRank>::try_zeros(&[0, 2, 4]).unwrap();
    let y = Tensor::<f64, DynRank>::try_zeros(&[0, 4, 2]).unwrap();
    assert_eq!(c.addbmm(&x, &y, 2.0, 1.0).to_vec(), vec![6.0; 4]);
    assert_eq!(c.addbmm(&x, &y, 0.0, 1.0).to_vec(), vec![0.0; 4]);
}

/// `transpose::<0, 1>` for a 2-D dynamic tensor.
trait TransposeDyn {
    fn transpose_dyn(&self) -> Self;
}

impl TransposeDyn for Tensor<f32, DynRank> {
    fn transpose_dyn(&self) -> Self {
        self.permute(&[1, 0]).unwrap()
    }
}

/// `beta * c + alpha * p`, element by element, with `beta == 0` ignoring `c`.
fn axpby(c: &[f64], p: &[f64], beta: f64, alpha: f64) -> Vec<f64> {
    c.iter()
        .zip(p)
        .map(|(&c, &p)| {
            if beta == 0.0 {
                alpha * p
            } else {
                beta * c + alpha * p
            }
        })
        .collect()
}

/// `c`'s elements broadcast to `dims` (c's own sizes `cd`), by definition.
fn broadcast(c: &[f64], cd: &[usize], dims: &[usize]) -> Vec<f64> {
    let n: usize = dims.iter().product();
    (0..n)
        .map(|flat| {
            let (mut rem, mut idx, mut stride) = (flat, 0, 1);
            for d in (0..dims.len()).rev() {
                let i = rem % dims[d];
                rem /= dims[d];
                if let Some(j) = (d + cd.len()).checked_sub(dims.len()) {
                    if cd[j] != 1 {
                        idx += i * stride;
                    }
                    stride *= cd[j];
                }
            }
            c[idx]
        })
        .collect()
}

#[test]
fn fused_products_with_beta_and_alpha() {
    let (beta, alpha) = (0.5, -2.0);
    // addmm, C broadcast from (1, p), (p,), (n, 1) and ().
    let a = Tensor::<f64, Shape![4, 3]>::randn(20);
    let b = Tensor::<f64, Shape![3, 5]>::randn(21);
    let (p, _) = reference(&a.to_vec(), &[4, 3], &b.to_vec(), &[3, 5], fma);
    for cd in [vec![4, 5], vec![1, 5], vec![5], vec![4, 1], vec![]] {
        let c = rand_dyn(&cd, 22);
        let got: Tensor<f64, Shape![4, 5]> = c.addmm(&a, &b, beta, alpha);
        let want = axpby(&broadcast(&c.to_vec(), &cd, &[4, 5]), &p, beta, alpha);
        assert_close(&got.to_vec(), &want, &format!("addmm with C {cd:?}"));
    }
    // addmv.
    let v = Tensor::<f64, Shape![3]>::randn(23);
    let (pv, _) = reference(&a.to_vec(), &[4, 3], &v.to_vec(), &[3], fma);
    let c = Tensor::<f64, Shape![4]>::randn(24);
    let got: Tensor<f64, Shape![4]> = c.addmv(&a, &v, beta, alpha);
    assert_close(
        &got.to_vec(),
        &axpby(&c.to_vec(), &pv, beta, alpha),
        "addmv",
    );
    let c1 = Tensor::<f64, Shape![1]>::full(2.0);
    assert_close(
        &c1.addmv(&a, &v, beta, alpha).to_vec(),
        &axpby(&[2.0; 4], &pv, beta, alpha),
        "addmv, C of one element",
    );
    // addr.
    let u = Tensor::<f64, Shape![4]>::randn(25);
    let (po, _) = reference(&u.to_vec(), &[4, 1], &v.to_vec(), &[1, 3], fma);
    let c = Tensor::<f64, Shape![4, 1]>::randn(26);
    let got: Tensor<f64, Shape![4, 3]> = c.addr(&u, &v, beta, alpha);
    let want = axpby(&broadcast(&c.to_vec(), &[4, 1], &[4, 3]), &po, beta, alpha);
    assert_close(&got.to_vec(), &want, "addr");
    assert_close(&u.outer(&v).to_vec(), &po, "outer");
    // baddbmm and addbmm.
    let x = Tensor::<f64, Shape![3, 4, 2]>::randn(27);
    let y = Tensor::<f64, Shape![3, 2, 5]>::randn(28);
    let (pb, _) = reference(&x.to_vec(), &[3, 4, 2], &y.to_vec(), &[3, 2, 5], fma);
    let c = Tensor::<f64, Shape![4, 5]>::randn(29);
    let got: Tensor<f64, Shape![3, 4, 5]> = c.baddbmm(&x, &y, beta, alpha);
    let want = axpby(
        &broadcast(&c.to_vec(), &[4, 5], &[3, 4, 5]),
        &pb,
        beta,
        alpha,
    );
    assert_close(&got.to_vec(), &want, "baddbmm");
    assert_close(&x.bmm(&y).to_vec(), &pb, "bmm");
    let summed: Vec<f64> = (0..20)
        .map(|i| (0..3).map(|j| pb[j * 20 + i]).sum())
        .collect();
    let got: Tensor<f64, Shape![4, 5]> = c.addbmm(&x, &y, beta, alpha);
    assert_close(
        &got.to_vec(),
        &axpby(&c.to_vec(), &summed, beta, alpha),
        "addbmm",
    );
    // f32 and integers take the same rules.
    let ci = Tensor::<i64, Shape![2]>::from_vec(vec![1, 2]);
    let ai = Tensor::<i64, Shape![2, 2]>::from_vec(vec![1, 2, 3, 4]);
    let bi = Tensor::<i64, Shape![2, 2]>::from_vec(vec![5, 6, 7, 8]);
    assert_eq!(ci.addmm(&ai, &bi, 3, 2).to_vec(), vec![41, 50, 89, 106]);
}

#[test]
fn beta_zero_ignores_nan_in_the_input() {
    let a = Tensor::<f32, Shape![2, 3]>::ones();
    let b = Tensor::<f32, Shape![3, 2]>::ones();
    let c = Tensor::<f32, Shape![2, 2]>::full(f32::NAN);
    assert_eq!(c.addmm(&a, &b, 0.0, 1.0).to_vec(), vec![3.0; 4]);
    assert!(
        c.addmm(&a, &b, 1.0, 1.0)
            .to_vec()
            .iter()
            .all(|x| x.is_nan())
    );
    let mut d = c.deep_copy();
    d.addmm_(&a, &b, 0.0, 2.0);
    assert_eq!(d.to_vec(), vec![6.0; 4]);
    let v = Tensor::<f64, Shape![3]>::ones();
    let m = Tensor::<f64, Shape![2, 3]>::ones();
    let mut y = Tensor::<f64, Shape![2]>::full(f64::INFINITY);
    y.addmv_(&m, &v, 0.0, 1.0);
    assert_eq!(y.to_vec(), vec![3.0; 2]);
    let x = Tensor::<f64, Shape![2, 2, 3]>::ones();
    let z = Tensor::<f64, Shape![2, 3, 2]>::ones();
    let mut s = Tensor::<f64, Shape![2, 2]>::full(f64::NAN);
    s.addbmm_(&x, &z, 0.0, 1.0);
    assert_eq!(s.to_vec(), vec![6.0; 4]);
    let mut t = Tensor::<f64, Shape![2, 2, 2]>::full(f64::NAN);
    t.baddbmm_(&x, &z, 0.0, 1.0);
    assert_eq!(t.to_vec(), vec![3.0; 8]);
    let mut r = Tensor::<f64, Shape![3, 3]>::full(f64::NAN);
    r.addr_(&v, &v, 0.0, 1.0);
    assert_eq!(r.to_vec(), vec![1.0; 9]);
}

#[test]
fn in_place_forms_write_into_their_input() {
    let (beta, alpha) = (2.0, 0.5);
    let a = Tensor::<f64, Shape![3, 4]>::randn(30);
    let b = Tensor::<f64, Shape![4, 2]>::randn(31);
    let (p, _) = reference(&a.to_vec(), &[3, 4], &b.to_vec(), &[4, 2], fma);
    // Into a transposed view: the elements land where the view says.
    let base = Tensor::<f64, Shape![2, 3]>::randn(32);
    let mut c = base.transpose::<0, 1>();
    let before = c.to_vec();
    c.addmm_(&a, &b, beta, alpha);
    assert_close(
        &c.to_vec(),
        &axpby(&before, &p, beta, alpha),
        "addmm_ into a view",
    );
    assert_close(
        &base.transpose::<0, 1>().to_vec(),
        &c.to_vec(),
        "the view's storage was written",
    );
    // An operand sharing the input's storage is read before it is written.
    let mut s = Tensor::<f64, Shape![3, 3]>::randn(33);
    let s0 = s.to_vec();
    let (sq, _) = reference(&s0, &[3, 3], &s0, &[3, 3], fma);
    let alias = s.share();
    s.addmm_(&alias, &alias, 1.0, 1.0);
    assert_close(&s.to_vec(), &axpby(&s0, &sq, 1.0, 1.0), "aliased addmm_");
    // Dynamic shapes are checked at run time, with PyTorch's message.
    let mut d = Tensor::<f64, DynRank>::try_zeros(&[3, 3]).unwrap();
    let err = d.try_addmm_(&a, &b, 1.0, 1.0).err().unwrap();
    assert_eq!(
        err.to_string(),
        "Bad in-place call: input tensor size [3, 3] and output tensor size [3, 2] should match"
    );
    // An expanded input cannot be written in place.
    let one = Tensor::<f64, Shape![1, 2]>::zeros();
    let mut e = one.try_broadcast_to::<DynRank>(&[3, 2]).unwrap();
    assert!(e.try_addmm_(&a, &b, 1.0, 1.0).is_err());
    // Large enough to be cut into tiles across threads, into a transposed
    // view (the destination's columns contiguous).
    let x = rand_dyn(&[70, 50], 37);
    let y = rand_dyn(&[50, 300], 38);
    let (p, _) = reference(&x.to_vec(), &[70, 50], &y.to_vec(), &[50, 300], fma);
    let base = rand_dyn(&[300, 70], 39);
    let mut c = base.permute::<DynRank>(&[1, 0]).unwrap();
    let before = c.to_vec();
    c.addmm_(&x, &y, -1.0, 2.0);
    assert_close(&c.to_vec(), &axpby(&before, &p, -1.0, 2.0), "tiled addmm_");
    // baddbmm_ and addr_ against their out-of-place forms.
    let x = Tensor::<f32, Shape![2, 3, 4]>::randn(34);
    let y = Tensor::<f32, Shape![2, 4, 5]>::randn(35);
    let mut t = Tensor::<f32, Shape![2, 3, 5]>::randn(36);
    let want = t.baddbmm(&x, &y, 0.5, 3.0).to_vec();
    t.baddbmm_(&x, &y, 0.5, 3.0);
    assert_eq!(t.to_vec(), want);
    let u = Tensor::<i32, Shape![3]>::from_vec(vec![1, 2, 3]);
    let mut o = Tensor::<i32, Shape![3, 3]>::ones();
    o.addr_(&u, &u, 2, 1);
    assert_eq!(o.to_vec(), vec![3, 4, 5, 4, 6, 8, 5, 8, 11]);
}

#[test]
fn run_time_errors_have_pytorch_wording() {
    let z = |dims: &[usize]| Tensor::<f32, DynRank>::try_zeros(dims).unwrap();
    let msg = |r: Result<Tensor<f32, DynRank>, shaped::ShapeError>| r.err().unwrap().to_string();
    assert_eq!(
        msg(z(&[2, 3]).try_matmul(&z(&[4, 5]))),
        "mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"
    );
    assert_eq!(
        msg(z(&[2, 3]).try_matmul(&z(&[4]))),
        "size mismatch, got input (2), mat (2x3), vec (4)"
    );
    assert_eq!(
        msg(z(&[2, 5, 7]).try_matmul(&z(&[3, 7, 3]))),
        "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"
    );
    assert_eq!(
        msg(z(&[]).try_matmul(&z(&[3]))),
        "both arguments to matmul need to be at least 1D, but they are 0D and 1D"
    );
    let e = z(&[2, 3, 4]).try_mm(&z(&[4, 5])).err().unwrap();
    assert_eq!(e.to_string(), "mm: self must be a matrix, got 3-D tensor");
    let e = z(&[3]).try_dot(&z(&[3, 1])).err().unwrap();
    assert_eq!(
        e.to_string(),
        "1D tensors expected, but got 1D and 2D tensors"
    );
    let e = z(&[2, 2]).try_bmm(&z(&[2, 2, 2])).err().unwrap();
    assert_eq!(e.to_string(), "batch1 must be a 3D tensor");
    let e = z(&[2, 2])
        .try_addmm(&z(&[2, 2, 2]), &z(&[2, 2]), 1.0, 1.0)
        .err()
        .unwrap();
    assert_eq!(
        e.to_string(),
        "addmm: self must be a matrix, got 3-D tensor"
    );
    let e = z(&[2, 2])
        .try_addmv(&z(&[2, 3]), &z(&[3]), 1.0, 1.0)
        .err()
        .unwrap();
    assert_eq!(
        e.to_string(),
        "vector + matrix @ vector expected, got 2, 2, 1"
    );
    let e = z(&[3, 3])
        .try_addr(&z(&[2]), &z(&[3]), 1.0, 1.0)
        .err()
        .unwrap();
    assert_eq!(
        e.to_string(),
        "The expanded size of the tensor (2) must match the existing size (3) at non-singleton dimension 0.  Target sizes: [2, 3].  Tensor sizes: [3, 3]"
    );
    let e = z(&[2, 2])
        .try_addbmm(&z(&[2, 2, 3]), &z(&[2, 4, 2]), 1.0, 1.0)
        .err()
        .unwrap();
    assert_eq!(
        e.to_string(),
        "Incompatible matrix sizes for bmm (2x3 and 4x2)"
    );
    // Static sizes with a `Dyn` on one side are still checked.
    let s = Tensor::<f32, Shape![2, 3]>::zeros();
    let d = Tensor::<f32, Shape![_, 4]>::try_zeros(&[5, 4]).unwrap();
    assert!(s.try_mm(&d).is_err());
}

#[test]
#[should_panic(expected = "mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)")]
fn the_panicking_form_panics_with_the_message() {
    let a = Tensor::<f32, Shape![2, _]>::try_zeros(&[2, 3]).unwrap();
    let b = Tensor::<f32, Shape![_, 5]>::try_zeros(&[4, 5]).unwrap();
    let _ = a.mm(&b);
}
