//! Every pointwise operation against a naive index-by-index reference, on
//! random broadcastable shapes (rank 0..=4, sizes 0..=4, so zero-size and 0-d
//! tensors are included) and on contiguous, transposed, sliced and expanded
//! operands.

mod common;

use common::{
    LAYOUTS, Layout, Rng, assert_close, broadcastable, indices, naive_binary, naive_broadcast,
    operand, pick,
};
use shaped::{DynRank, Shape, ShapeError, Tensor, try_where_cond};

type T = Tensor<f64, DynRank>;
type BinOp = fn(&T, &T) -> Result<T, ShapeError>;

fn random_dims(rng: &mut Rng) -> Vec<usize> {
    let rank = (rng.next_u64() % 5) as usize;
    (0..rank).map(|_| (rng.next_u64() % 5) as usize).collect()
}

fn layout(rng: &mut Rng) -> Layout {
    LAYOUTS[(rng.next_u64() % 4) as usize]
}

/// Runs `op` and `reference` over many random operand pairs.
fn check_binary(name: &str, op: BinOp, reference: fn(f64, f64) -> f64, (lo, hi): (f64, f64)) {
    let mut rng = Rng(0x9E37_79B9 ^ (name.len() as u64 * 7919));
    for case in 0..300 {
        let base = random_dims(&mut rng);
        let other = broadcastable(&base, &mut rng);
        let (da, db) = if case % 2 == 0 {
            (base, other)
        } else {
            (other, base)
        };
        let (a, va) = operand(&da, layout(&mut rng), &mut rng, lo, hi);
        let (b, vb) = operand(&db, layout(&mut rng), &mut rng, lo, hi);
        let (dims, want) =
            naive_binary((&va, &da), (&vb, &db), reference).expect("broadcastable by construction");
        let got = op(&a, &b).unwrap_or_else(|e| panic!("{name} {da:?} {db:?}: {e}"));
        assert_eq!(got.dims(), dims.as_slice(), "{name} {da:?} {db:?}");
        assert_close(
            &got.to_vec(),
            &want,
            1e-12,
            &format!("{name} {da:?} {db:?}"),
        );
    }
}

#[test]
fn two_operand_math_matches_the_reference() {
    check_binary("add", |a, b| a.try_add(b), |x, y| x + y, (-3.0, 3.0));
    check_binary("sub", |a, b| a.try_sub(b), |x, y| x - y, (-3.0, 3.0));
    check_binary("mul", |a, b| a.try_mul(b), |x, y| x * y, (-3.0, 3.0));
    check_binary("div", |a, b| a.try_div(b), |x, y| x / y, (-3.0, 3.0));
    check_binary(
        "div_trunc",
        |a, b| a.try_div_trunc(b),
        |x, y| (x / y).trunc(),
        (-3.0, 3.0),
    );
    check_binary(
        "div_floor",
        |a, b| a.try_div_floor(b),
        |x, y| (x / y).floor(),
        (-3.0, 3.0),
    );
    check_binary("fmod", |a, b| a.try_fmod(b), |x, y| x % y, (-3.0, 3.0));
    check_binary(
        "remainder",
        |a, b| a.try_remainder(b),
        |x, y| x - y * (x / y).floor(),
        (-3.0, 3.0),
    );
    check_binary("pow", |a, b| a.try_pow(b), f64::powf, (0.5, 2.0));
    check_binary("atan2", |a, b| a.try_atan2(b), f64::atan2, (-3.0, 3.0));
    check_binary("maximum", |a, b| a.try_maximum(b), f64::max, (-3.0, 3.0));
    check_binary("minimum", |a, b| a.try_minimum(b), f64::min, (-3.0, 3.0));
    check_binary(
        "add_alpha",
        |a, b| a.try_add_alpha(b, 2.5),
        |x, y| x + 2.5 * y,
        (-3.0, 3.0),
    );
    check_binary(
        "sub_alpha",
        |a, b| a.try_sub_alpha(b, 2.5),
        |x, y| x - 2.5 * y,
        (-3.0, 3.0),
    );
}

#[test]
fn comparisons_and_logic_match_the_reference() {
    type Pred = fn(&T, &T) -> Result<Tensor<bool, DynRank>, ShapeError>;
    type Case = (&'static str, Pred, fn(f64, f64) -> bool);
    let cases: [Case; 9] = [
        ("eq", |a, b| a.try_eq(b), |x, y| x == y),
        ("ne", |a, b| a.try_ne(b), |x, y| x != y),
        ("lt", |a, b| a.try_lt(b), |x, y| x < y),
        ("le", |a, b| a.try_le(b), |x, y| x <= y),
        ("gt", |a, b| a.try_gt(b), |x, y| x > y),
        ("ge", |a, b| a.try_ge(b), |x, y| x >= y),
        (
            "logical_and",
            |a, b| a.try_logical_and(b),
            |x, y| x != 0.0 && y != 0.0,
        ),
        (
            "logical_or",
            |a, b| a.try_logical_or(b),
            |x, y| x != 0.0 || y != 0.0,
        ),
        (
            "logical_xor",
            |a, b| a.try_logical_xor(b),
            |x, y| (x != 0.0) != (y != 0.0),
        ),
    ];
    let mut rng = Rng(42);
    for (name, op, reference) in cases {
        for _ in 0..100 {
            let da = random_dims(&mut rng);
            let db = broadcastable(&da, &mut rng);
            // Few distinct values, so equal elements and zeros occur.
            let (a, va) = operand(&da, layout(&mut rng), &mut rng, -1.0, 2.0);
            let (b, vb) = operand(&db, layout(&mut rng), &mut rng, -1.0, 2.0);
            let (a, b) = (a.map(f64::floor), b.map(f64::floor));
            let (va, vb): (Vec<f64>, Vec<f64>) = (
                va.iter().map(|v| v.floor()).collect(),
                vb.iter().map(|v| v.floor()).collect(),
            );
            let (dims, want) = naive_binary((&va, &da), (&vb, &db), reference).unwrap();
            let got = op(&a, &b).unwrap();
            assert_eq!(got.dims(), dims.as_slice());
            assert_eq!(got.to_vec(), want, "{name} {da:?} {db:?}");
        }
    }
}

#[test]
fn mismatched_shapes_give_pytorchs_error() {
    let mut rng = Rng(7);
    for _ in 0..300 {
        let (da, db) = (random_dims(&mut rng), random_dims(&mut rng));
        let (a, _) = operand(&da, Layout::Contiguous, &mut rng, 0.0, 1.0);
        let (b, _) = operand(&db, Layout::Contiguous, &mut rng, 0.0, 1.0);
        let got = a.try_add(&b);
        match naive_broadcast(&[&da, &db]) {
            Some(dims) => assert_eq!(got.unwrap().dims(), dims.as_slice()),
            None => {
                let msg = got.unwrap_err().to_string();
                assert!(msg.starts_with("The size of tensor a ("), "{msg}");
                assert!(msg.contains("must match the size of tensor b"), "{msg}");
            }
        }
    }
}

#[test]
fn three_operand_ops_broadcast_all_together() {
    let mut rng = Rng(3);
    for case in 0..200 {
        let base = random_dims(&mut rng);
        let mut dims = [
            base.clone(),
            broadcastable(&base, &mut rng),
            broadcastable(&base, &mut rng),
        ];
        dims.rotate_left(case % 3);
        let [da, db, dc] = &dims;
        let (a, va) = operand(da, layout(&mut rng), &mut rng, -2.0, 2.0);
        let (b, vb) = operand(db, layout(&mut rng), &mut rng, -2.0, 2.0);
        let (c, vc) = operand(dc, layout(&mut rng), &mut rng, 0.5, 2.0);
        let out = naive_broadcast(&[da, db, dc]).unwrap();
        let at = |i: &Vec<usize>| (pick(&va, da, i), pick(&vb, db, i), pick(&vc, dc, i));
        let reference = |f: &dyn Fn(f64, f64, f64) -> f64| {
            indices(&out)
                .iter()
                .map(|i| {
                    let (x, y, z) = at(i);
                    f(x, y, z)
                })
                .collect::<Vec<_>>()
        };
        let what = format!("{da:?} {db:?} {dc:?}");
        let r = a.addcmul(&b, &c, 0.5);
        assert_eq!(r.dims(), out.as_slice());
        assert_close(
            &r.to_vec(),
            &reference(&|x, y, z| x + 0.5 * y * z),
            1e-12,
            &format!("addcmul {what}"),
        );
        assert_close(
            &a.addcdiv(&b, &c, 0.5).to_vec(),
            &reference(&|x, y, z| x + 0.5 * y / z),
            1e-12,
            &format!("addcdiv {what}"),
        );
        assert_close(
            &a.lerp(&b, &c).to_vec(),
            &reference(&|x, y, w| x + w * (y - x)),
            1e-12,
            &format!("lerp {what}"),
        );
        let lo = b.map(|v| v - 1.0);
        assert_close(
            &a.clamp_tensor(&lo, &c).to_vec(),
            &reference(&|x, y, z| x.max(y - 1.0).min(z)),
            0.0,
            &format!("clamp {what}"),
        );
        let cond = b.map(|v| v > 0.0);
        let w = try_where_cond(&cond, &a, &c).unwrap();
        assert_eq!(w.dims(), naive_broadcast(&[db, da, dc]).unwrap().as_slice());
        assert_close(
            &w.to_vec(),
            &reference(&|x, y, z| if y > 0.0 { x } else { z }),
            0.0,
            &format!("where {what}"),
        );
    }
}

#[test]
fn unary_ops_match_std() {
    type Un = fn(&T) -> T;
    type Case = (&'static str, Un, fn(f64) -> f64, (f64, f64));
    let cases: [Case; 23] = [
        ("neg", |a| a.neg(), |x| -x, (-3.0, 3.0)),
        ("abs", |a| a.abs(), f64::abs, (-3.0, 3.0)),
        ("exp", |a| a.exp(), f64::exp, (-3.0, 3.0)),
        ("log", |a| a.log(), f64::ln, (0.1, 3.0)),
        ("log1p", |a| a.log1p(), f64::ln_1p, (-0.5, 3.0)),
        ("expm1", |a| a.expm1(), f64::exp_m1, (-3.0, 3.0)),
        ("sqrt", |a| a.sqrt(), f64::sqrt, (0.0, 3.0)),
        ("rsqrt", |a| a.rsqrt(), |x| 1.0 / x.sqrt(), (0.1, 3.0)),
        ("sin", |a| a.sin(), f64::sin, (-3.0, 3.0)),
        ("cos", |a| a.cos(), f64::cos, (-3.0, 3.0)),
        ("tan", |a| a.tan(), f64::tan, (-1.0, 1.0)),
        ("tanh", |a| a.tanh(), f64::tanh, (-3.0, 3.0)),
        (
            "sigmoid",
            |a| a.sigmoid(),
            |x| 1.0 / (1.0 + (-x).exp()),
            (-5.0, 5.0),
        ),
        ("relu", |a| a.relu(), |x| x.max(0.0), (-3.0, 3.0)),
        (
            "silu",
            |a| a.silu(),
            |x| x / (1.0 + (-x).exp()),
            (-5.0, 5.0),
        ),
        ("floor", |a| a.floor(), f64::floor, (-3.0, 3.0)),
        ("ceil", |a| a.ceil(), f64::ceil, (-3.0, 3.0)),
        ("round", |a| a.round(), f64::round_ties_even, (-4.0, 4.0)),
        ("trunc", |a| a.trunc(), f64::trunc, (-3.0, 3.0)),
        (
            "sign",
            |a| a.sign(),
            |x| {
                if x > 0.0 {
                    1.0
                } else if x < 0.0 {
                    -1.0
                } else {
                    0.0
                }
            },
            (-3.0, 3.0),
        ),
        ("reciprocal", |a| a.reciprocal(), f64::recip, (0.1, 3.0)),
        ("square", |a| a.square(), |x| x * x, (-3.0, 3.0)),
        (
            "gelu",
            |a| a.gelu(),
            |x| 0.5 * x * (1.0 + erf_series(x / std::f64::consts::SQRT_2)),
            (-3.0, 3.0),
        ),
    ];
    let mut rng = Rng(11);
    for (name, op, reference, (lo, hi)) in cases {
        for _ in 0..40 {
            let dims = random_dims(&mut rng);
            let (a, va) = operand(&dims, layout(&mut rng), &mut rng, lo, hi);
            let got = op(&a);
            assert_eq!(got.dims(), dims.as_slice());
            let want: Vec<f64> = va.iter().map(|&x| reference(x)).collect();
            assert_close(&got.to_vec(), &want, 1e-13, &format!("{name} {dims:?}"));
        }
    }
}

/// erf by its Maclaurin series, an independent reference for |x| <= 3.
fn erf_series(x: f64) -> f64 {
    let (mut term, mut sum, mut n) = (x, x, 0.0);
    while term.abs() > 1e-17 * sum.abs().max(1e-300) {
        n += 1.0;
        term *= -x * x / n;
        sum += term / (2.0 * n + 1.0);
        if n > 200.0 {
            break;
        }
    }
    2.0 / std::f64::consts::PI.sqrt() * sum
}

#[test]
fn in_place_ops_keep_the_shape_and_match_the_reference() {
    let mut rng = Rng(5);
    for _ in 0..200 {
        let dx = random_dims(&mut rng);
        let db = broadcastable(&dx, &mut rng);
        // Destinations may be transposed or sliced views, never expanded.
        let lx =
            [Layout::Contiguous, Layout::Transposed, Layout::Sliced][(rng.next_u64() % 3) as usize];
        let (mut x, vx) = operand(&dx, lx, &mut rng, -2.0, 2.0);
        let (b, vb) = operand(&db, layout(&mut rng), &mut rng, 0.5, 2.0);
        let (_, want) = naive_binary((&vx, &dx), (&vb, &db), |p, q| p * q + q).unwrap();
        x.try_mul_(&b).unwrap();
        x.try_add_(&b).unwrap();
        assert_eq!(x.dims(), dx.as_slice());
        assert_close(
            &x.to_vec(),
            &want,
            1e-12,
            &format!("in place {dx:?} {db:?}"),
        );
        let mut y = Tensor::<f64, DynRank>::try_zeros(&dx).unwrap();
        y.try_copy_from(&b).unwrap();
        let (_, want) = naive_binary((&vx, &dx), (&vb, &db), |_, q| q).unwrap();
        assert_eq!(y.to_vec(), want);
    }
}

#[test]
fn in_place_errors_follow_pytorch() {
    let mut x = Tensor::<f32, DynRank>::try_zeros(&[1, 3, 1]).unwrap();
    let y = Tensor::<f32, DynRank>::try_zeros(&[3, 1, 7]).unwrap();
    assert_eq!(
        x.try_add_(&y).unwrap_err().to_string(),
        "output with shape [1, 3, 1] doesn't match the broadcast shape [3, 3, 7]"
    );
    let mut x = Tensor::<f32, DynRank>::try_zeros(&[3]).unwrap();
    let y = Tensor::<f32, DynRank>::try_zeros(&[1, 3]).unwrap();
    assert_eq!(
        x.try_add_(&y).unwrap_err().to_string(),
        "output with shape [3] doesn't match the broadcast shape [1, 3]"
    );
    // Writing into an expanded view is refused, as PyTorch refuses it.
    let base = Tensor::<f32, Shape![1, 3]>::zeros();
    let mut e = base.expand::<DynRank>(&[4, 3]).unwrap();
    let err = e
        .try_add_(&Tensor::<f32, DynRank>::try_ones(&[3]).unwrap())
        .unwrap_err();
    assert!(err.to_string().starts_with("unsupported operation: more than one element of the written-to tensor refers to a single memory location"));
    assert_eq!(base.to_vec(), vec![0.0; 3], "nothing was written");
}

#[test]
fn in_place_reads_of_the_written_storage_see_the_old_values() {
    // x (2, 2) += x[0] (1, 2): a partial overlap, refused as PyTorch refuses
    // it (issue 20), before anything is written.
    let mut x = Tensor::<i32, Shape![2, 2]>::from_vec(vec![1, 2, 10, 20]);
    let row = x.narrow::<Shape![1, 2]>(0, 0, 1).unwrap();
    assert_eq!(
        x.try_add_(&row).unwrap_err().to_string(),
        "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location. Please clone() the tensor before performing the operation."
    );
    assert_eq!(x.to_vec(), vec![1, 2, 10, 20]);
    // x[1] += x[0]: disjoint rows of one buffer; the right-hand side is read
    // as it was.
    let mut second = x.narrow::<Shape![1, 2]>(0, 1, 1).unwrap();
    second += &row;
    assert_eq!(x.to_vec(), vec![1, 2, 11, 22]);
    let mut y = Tensor::<f32, Shape![3]>::from_vec(vec![1., 2., 3.]);
    let same = y.share();
    y *= &same;
    assert_eq!(y.to_vec(), vec![1., 4., 9.]);
}

#[test]
fn fmod_remainder_and_rounding_division_follow_pytorch_docs() {
    // torch.fmod / torch.remainder documentation examples.
    let a = Tensor::<f32, Shape![6]>::from_vec(vec![-3., -2., -1., 1., 2., 3.]);
    let two = Tensor::<f32, Shape![]>::full(2.);
    assert_eq!(a.fmod(&two).to_vec(), vec![-1., -0., -1., 1., 0., 1.]);
    assert_eq!(a.remainder(&two).to_vec(), vec![1., 0., 1., 1., 0., 1.]);
    let b = Tensor::<f32, Shape![5]>::from_vec(vec![1., 2., 3., 4., 5.]);
    let m = Tensor::<f32, Shape![]>::full(-1.5);
    assert_eq!(b.fmod(&m).to_vec(), vec![1.0, 0.5, 0.0, 1.0, 0.5]);
    assert_eq!(b.remainder(&m).to_vec(), vec![-0.5, -1.0, 0.0, -0.5, -1.0]);
    // Integers: fmod has the dividend's sign, remainder the divisor's.
    let i = Tensor::<i64, Shape![4]>::from_vec(vec![-7, -6, 6, 7]);
    let d = Tensor::<i64, Shape![2, 1]>::from_vec(vec![3, -3]);
    assert_eq!(i.fmod(&d).to_vec(), vec![-1, 0, 0, 1, -1, 0, 0, 1]);
    assert_eq!(i.remainder(&d).to_vec(), vec![2, 0, 0, 1, -1, 0, 0, -2]);
    assert_eq!(i.div_floor(&d).to_vec(), vec![-3, -2, 2, 2, 2, 2, -2, -3]);
    assert_eq!(i.div_trunc(&d).to_vec(), vec![-2, -2, 2, 2, 2, 2, -2, -2]);
    // torch.div(x, 2, rounding_mode=...) on floats, and IEEE division by 0.
    let x = Tensor::<f64, Shape![4]>::from_vec(vec![-7., 7., -0.5, 0.5]);
    let t = Tensor::<f64, Shape![]>::full(2.);
    assert_eq!(x.div_floor(&t).to_vec(), vec![-4., 3., -1., 0.]);
    assert_eq!(x.div_trunc(&t).to_vec(), vec![-3., 3., -0., 0.]);
    let z = Tensor::<f64, Shape![]>::full(0.);
    assert_eq!(
        x.div_floor(&z).to_vec(),
        vec![
            f64::NEG_INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::INFINITY
        ]
    );
    // Integer division by zero is an error, never a wrong value.
    let zero = Tensor::<i64, Shape![]>::full(0);
    for r in [
        i.try_div_floor(&zero),
        i.try_div_trunc(&zero),
        i.try_fmod(&zero),
        i.try_remainder(&zero),
    ] {
        assert_eq!(r.unwrap_err().to_string(), "ZeroDivisionError");
    }
    // pow: integers by squaring; a negative integer exponent is an error
    // (NumPy, and PyTorch's scalar-exponent form; issue 20); atan2's quadrants.
    let base = Tensor::<i32, Shape![4]>::from_vec(vec![2, -1, 1, 3]);
    assert_eq!(
        base.try_pow(&Tensor::<i32, Shape![]>::full(-1))
            .unwrap_err()
            .to_string(),
        "Integers to negative integer powers are not allowed."
    );
    assert_eq!(
        base.pow(&Tensor::<i32, Shape![]>::full(3)).to_vec(),
        vec![8, -1, 1, 27]
    );
    let y = Tensor::<f64, Shape![4]>::from_vec(vec![1., 1., -1., -1.]);
    let xq = Tensor::<f64, Shape![4]>::from_vec(vec![1., -1., -1., 1.]);
    let q = std::f64::consts::FRAC_PI_4;
    assert_eq!(y.atan2(&xq).to_vec(), vec![q, 3. * q, -3. * q, -q]);
    // maximum/minimum propagate NaN.
    let n = Tensor::<f32, Shape![2]>::from_vec(vec![f32::NAN, 1.]);
    let o = Tensor::<f32, Shape![]>::full(0.);
    assert!(n.maximum(&o).to_vec()[0].is_nan() && n.minimum(&o).to_vec()[0].is_nan());
}

#[test]
fn operators_on_values_references_and_scalars() {
    let a = Tensor::<f32, Shape![2, 1]>::from_vec(vec![1., 2.]);
    let b = Tensor::<f32, Shape![3]>::from_vec(vec![10., 20., 30.]);
    let want = vec![11., 21., 31., 12., 22., 32.];
    assert_eq!((&a + &b).to_vec(), want);
    assert_eq!((a.clone() + b.clone()).to_vec(), want);
    assert_eq!((&a + b.clone()).to_vec(), want);
    assert_eq!((a.clone() + &b).to_vec(), want);
    assert_eq!((&b - &a).to_vec(), vec![9., 19., 29., 8., 18., 28.]);
    assert_eq!((&b / 10.0).to_vec(), vec![1., 2., 3.]);
    assert_eq!((60.0 / &b).to_vec(), vec![6., 3., 2.]);
    assert_eq!((2.0 * &a).to_vec(), vec![2., 4.]);
    assert_eq!((&b % 7.0).to_vec(), vec![3., 6., 2.]);
    assert_eq!((-&a).to_vec(), vec![-1., -2.]);
    let mut c = Tensor::<i32, Shape![2, 3]>::zeros();
    c += Tensor::<i32, Shape![3]>::from_vec(vec![7, 8, 9]);
    c -= 1;
    c *= 2;
    c /= Tensor::<i32, Shape![2, 1]>::from_vec(vec![1, 4]);
    assert_eq!(c.to_vec(), vec![12, 14, 16, 3, 3, 4]);
    c %= 5;
    assert_eq!(c.to_vec(), vec![2, 4, 1, 3, 3, 4]);
    // Integers wrap on overflow, as PyTorch's do.
    let big = Tensor::<u8, Shape![1]>::from_vec(vec![250]);
    assert_eq!((&big + 10u8).to_vec(), vec![4]);
}

#[test]
#[should_panic(
    expected = "The size of tensor a (4) must match the size of tensor b (5) at non-singleton dimension 1"
)]
fn operators_panic_with_pytorchs_message_on_run_time_mismatch() {
    let a = Tensor::<f32, Shape![2, _]>::try_zeros(&[2, 4]).unwrap();
    let b = Tensor::<f32, Shape![_]>::try_zeros(&[5]).unwrap();
    let _ = &a + &b;
}

#[test]
#[should_panic(expected = "ZeroDivisionError")]
fn integer_division_by_zero_panics() {
    let a = Tensor::<i32, Shape![2]>::from_vec(vec![1, 2]);
    let _ = &a / 0;
}

#[test]
fn zero_size_and_zero_dim_tensors() {
    let e = Tensor::<f32, DynRank>::try_zeros(&[3, 0]).unwrap();
    let r = Tensor::<f32, DynRank>::try_ones(&[1, 1]).unwrap();
    assert_eq!(e.try_add(&r).unwrap().dims(), &[3, 0]);
    let bad = Tensor::<f32, DynRank>::try_zeros(&[3]).unwrap();
    assert!(
        Tensor::<f32, DynRank>::try_zeros(&[0])
            .unwrap()
            .try_add(&bad)
            .is_err()
    );
    let s = Tensor::<f32, Shape![]>::full(2.);
    let m = Tensor::<f32, Shape![2, 2]>::ones();
    let p: Tensor<f32, Shape![2, 2]> = &s * &m;
    assert_eq!(p.to_vec(), vec![2.; 4]);
    let ss: Tensor<f32, Shape![]> = &s + &s;
    assert_eq!(ss.item(), 4.);
}

#[test]
fn large_operands_take_the_parallel_path() {
    // Above the plan's parallel grain, with a broadcast operand.
    let a = Tensor::<f32, Shape![512, 300]>::rand(1);
    let b = Tensor::<f32, Shape![300]>::rand(2);
    let c = &a * &b;
    let (va, vb, vc) = (a.to_vec(), b.to_vec(), c.to_vec());
    for i in 0..512 {
        for j in 0..300 {
            assert_eq!(vc[i * 300 + j], va[i * 300 + j] * vb[j]);
        }
    }
    let t = a.transpose::<0, 1>();
    let d = &t + &t;
    let vd = d.to_vec();
    for j in 0..300 {
        for i in 0..512 {
            assert_eq!(vd[j * 512 + i], 2.0 * va[i * 300 + j]);
        }
    }
}

#[test]
fn out_forms_write_into_any_layout() {
    let mut rng = Rng(17);
    for _ in 0..200 {
        let da = random_dims(&mut rng);
        let db = broadcastable(&da, &mut rng);
        let (a, va) = operand(&da, layout(&mut rng), &mut rng, -2.0, 2.0);
        let (b, vb) = operand(&db, layout(&mut rng), &mut rng, -2.0, 2.0);
        let (dims, want) = naive_binary((&va, &da), (&vb, &db), |x, y| x * y).unwrap();
        let lo =
            [Layout::Contiguous, Layout::Transposed, Layout::Sliced][(rng.next_u64() % 3) as usize];
        let (mut out, _) = operand(&dims, lo, &mut rng, 0.0, 1.0);
        a.mul_out(&b, &mut out).unwrap();
        assert_close(&out.to_vec(), &want, 0.0, &format!("mul_out {da:?} {db:?}"));
        // The output may not be broadcast by the operation.
        if !dims.is_empty() && dims.iter().product::<usize>() > 1 {
            let mut small = Tensor::<f64, DynRank>::try_zeros(&dims[1..]).unwrap();
            assert!(a.mul_out(&b, &mut small).is_err());
        }
    }
    // Writing the result into one of the inputs reads the old values first.
    let mut x = Tensor::<f32, Shape![2, 2]>::from_vec(vec![1., 2., 3., 4.]);
    let y = x.share();
    let row = Tensor::<f32, Shape![2]>::from_vec(vec![10., 20.]);
    y.add_out(&row, &mut x).unwrap();
    assert_eq!(x.to_vec(), vec![11., 22., 13., 24.]);
}

#[test]
fn row_broadcasts_of_every_row_length_match_the_reference() {
    // The row fast path (contiguous operands, one a suffix of the other):
    // short rows are tiled, long rows are not; the row on either side; sizes
    // above the parallel grain, whose chunks start mid-row; operands that
    // start at an offset (a narrowed contiguous view); `out=` forms too.
    let mut rng = Rng(99);
    for (rows, row) in [
        (8, 8),
        (3, 1),
        (1, 5),
        (20000, 3),
        (700, 7),
        (40, 1000),
        (9, 65),
    ] {
        for lead in [0usize, 1] {
            let n = rows * row;
            let base: Vec<f64> = (0..n + lead).map(|_| rng.uniform(-2.0, 2.0)).collect();
            let full = Tensor::<f64, DynRank>::try_from_vec(base.clone(), &[n + lead])
                .unwrap()
                .narrow::<DynRank>(0, lead, n)
                .unwrap()
                .try_reshape::<DynRank>(&[rows as isize, row as isize])
                .unwrap();
            let vr: Vec<f64> = (0..row).map(|_| rng.uniform(-2.0, 2.0)).collect();
            let r = Tensor::<f64, DynRank>::try_from_vec(vr.clone(), &[row]).unwrap();
            let vf = &base[lead..];
            let want_fr: Vec<f64> = (0..n).map(|i| vf[i] - vr[i % row]).collect();
            let want_rf: Vec<f64> = (0..n).map(|i| vr[i % row] - vf[i]).collect();
            assert_eq!(full.try_sub(&r).unwrap().to_vec(), want_fr, "{rows}x{row}");
            assert_eq!(r.try_sub(&full).unwrap().to_vec(), want_rf, "{rows}x{row}");
            let mut out = Tensor::<f64, DynRank>::try_zeros(&[rows, row]).unwrap();
            r.sub_out(&full, &mut out).unwrap();
            assert_eq!(out.to_vec(), want_rf, "sub_out {rows}x{row}");
        }
    }
}

/// The `f32` operations that call a transcendental function run with the
/// widest vectors the processor has (AVX-512 or AVX2 and FMA), eager or
/// fused, and their polynomials with fused multiply-adds: each result is
/// still its scalar function's, called one element at a time, bit for
/// bit, on contiguous, transposed and expanded operands, in the vector
/// loops and their tails, at the special values too.
#[test]
fn f32_transcendental_ops_equal_their_scalar_function_bit_for_bit() {
    use shaped::ops::scalar;
    type F = Tensor<f32, DynRank>;
    let (rows, cols) = (37, 301);
    let mut vals: Vec<f32> = (0..rows * cols)
        .map(|i| ((i * 7919) % 2400) as f32 / 200.0 - 6.0)
        .collect();
    let special = [
        0.0,
        -0.0,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        88.8,
        -104.5,
        -90.0,
        1e-30,
        f32::MIN_POSITIVE,
    ];
    vals[..special.len()].copy_from_slice(&special);
    let a = F::try_from_vec(vals, &[rows, cols]).unwrap();
    let t = F::try_from_vec(a.to_vec(), &[cols, rows])
        .unwrap()
        .permute::<DynRank>(&[1, 0])
        .unwrap();
    let column = F::try_from_vec(a.to_vec()[..rows].to_vec(), &[rows, 1]).unwrap();
    let expanded = column
        .expand::<DynRank>(&[rows as isize, cols as isize])
        .unwrap();
    type Case = (&'static str, fn(&F) -> F, fn(f32) -> f32);
    let cases: [Case; 6] = [
        ("gelu", |a| a.gelu(), scalar::gelu),
        ("exp", |a| a.exp(), scalar::exp),
        ("tanh", |a| a.tanh(), scalar::tanh),
        ("sigmoid", |a| a.sigmoid(), scalar::sigmoid),
        ("silu", |a| a.silu(), |x| x * scalar::sigmoid(x)),
        ("fused gelu", |a| a.lazy().gelu().eval(), scalar::gelu),
    ];
    let bits = |v: Vec<f32>| -> Vec<u32> { v.into_iter().map(f32::to_bits).collect() };
    for (name, op, f) in cases {
        for (layout, x) in [
            ("contiguous", &a),
            ("transposed", &t),
            ("expanded", &expanded),
        ] {
            let want: Vec<u32> = bits(x.to_vec().into_iter().map(f).collect());
            assert_eq!(bits(op(x).to_vec()), want, "{name}, {layout}");
        }
    }
}
