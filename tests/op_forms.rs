//! Every operation of the two-operand op table has all of its forms (`op`,
//! `try_op`, `op_out`, `op_`, `try_op_`), and each computes what a naive
//! index-by-index reference computes; the three-operand ops have their
//! `try_`, in-place and scalar-weight forms.
//!
//! Both run on `f64`, which the CPU backend runs through the generic loops,
//! and on `f32`, which runs through the loops compiled in shaped
//! (`backend/cpu/compiled.rs`); the `f32` results are compared with the
//! `f64` reference within `f32`'s rounding.
//!
//! The table comes from the macro that defines the operations
//! ([`shaped::ops::binary_op_table`]); the reference functions below are
//! written independently, and an operation in one list but not in the other
//! fails the test.

use shaped::element::Float;
use shaped::ops::{BinaryOpForms, binary_op_table};
use shaped::{DynRank, ShapeError, Tensor};

mod common;

use common::{Rng, broadcastable, indices, naive_binary, naive_broadcast, pick};

type D<T = f64> = Tensor<T, DynRank>;

/// The element types the forms are checked on, with the tolerance of a
/// result against the `f64` reference.
trait Val: Float {
    const TOL: f64;
    fn of(x: f64) -> Self;
    fn back(self) -> f64;
}

impl Val for f64 {
    const TOL: f64 = 0.0;
    fn of(x: f64) -> Self {
        x
    }
    fn back(self) -> f64 {
        self
    }
}

impl Val for f32 {
    const TOL: f64 = 4.0 * f32::EPSILON as f64;
    fn of(x: f64) -> Self {
        x as f32
    }
    fn back(self) -> f64 {
        self as f64
    }
}

/// `got` is `want` (exactly for `f64`, within `f32`'s rounding for `f32`).
#[track_caller]
fn same<T: Val>(got: &D<T>, want: &[f64], what: &str) {
    let got: Vec<f64> = got.to_vec().into_iter().map(T::back).collect();
    assert_eq!(got.len(), want.len(), "{what}");
    for (g, w) in got.iter().zip(want) {
        let ok = g == w || (g.is_nan() && w.is_nan()) || (g - w).abs() <= T::TOL * w.abs().max(1.0);
        assert!(ok, "{what}: {got:?} against {want:?}");
    }
}

/// PyTorch's semantics of each op on floats, written from the definitions.
fn reference(name: &str) -> Option<fn(f64, f64) -> f64> {
    Some(match name {
        "add" => |x, y| x + y,
        "sub" => |x, y| x - y,
        "mul" => |x, y| x * y,
        "div" => |x, y| x / y,
        "div_trunc" => |x, y| (x / y).trunc(),
        "div_floor" => |x, y| (x / y).floor(),
        "fmod" => |x, y| x % y,
        "remainder" => |x, y| {
            let r = x % y;
            if r != 0.0 && (r < 0.0) != (y < 0.0) {
                r + y
            } else {
                r
            }
        },
        "pow" => f64::powf,
        "atan2" => f64::atan2,
        "maximum" => f64::max,
        "minimum" => f64::min,
        _ => return None,
    })
}

/// The ops of seed 000's "pointwise two tensor operand math functions" that
/// the table has to carry.
const EXPECTED: &[&str] = &[
    "add",
    "sub",
    "mul",
    "div",
    "div_trunc",
    "div_floor",
    "fmod",
    "remainder",
    "pow",
    "atan2",
    "maximum",
    "minimum",
];

/// Integer-valued floats, so that every op (division, pow) is exact; the
/// divisor side is never 0.
fn values(rng: &mut Rng, n: usize, nonzero: bool) -> Vec<f64> {
    (0..n)
        .map(|_| {
            loop {
                let v = (rng.uniform(-4.0, 5.0)).floor();
                if !nonzero || v != 0.0 {
                    break v;
                }
            }
        })
        .collect()
}

fn tensor<T: Val>(vals: &[f64], dims: &[usize]) -> D<T> {
    D::try_from_vec(vals.iter().map(|&v| T::of(v)).collect(), dims).unwrap()
}

fn random_dims(rng: &mut Rng) -> Vec<usize> {
    let rank = (rng.next_u64() % 4) as usize;
    (0..rank)
        .map(|_| 1 + (rng.next_u64() % 3) as usize)
        .collect()
}

fn check_op<T: Val>(f: &BinaryOpForms<T>, rng: &mut Rng) {
    let name = f.name;
    let r = reference(name).unwrap_or_else(|| panic!("no reference for `{name}`"));
    for _ in 0..20 {
        let out_dims = random_dims(rng);
        let (ad, bd) = (broadcastable(&out_dims, rng), broadcastable(&out_dims, rng));
        let n = |d: &[usize]| d.iter().product::<usize>();
        let (av, bv) = (values(rng, n(&ad), false), values(rng, n(&bd), true));
        let (a, b) = (tensor(&av, &ad), tensor(&bv, &bd));
        let (dims, want) = naive_binary((&av, &ad), (&bv, &bd), r).unwrap();
        let what = format!("{name}: {ad:?} with {bd:?}");

        let got = (f.op)(&a, &b);
        assert_eq!(got.dims(), &dims[..], "{what}");
        same(&got, &want, &what);
        let got = (f.try_op)(&a, &b).unwrap();
        same(&got, &want, &format!("try_ {what}"));
        let mut out = D::try_zeros(&dims).unwrap();
        (f.out)(&a, &b, &mut out).unwrap();
        same(&out, &want, &format!("out= {what}"));

        // In place into a tensor of the broadcast shape.
        let big_vals = values(rng, n(&dims), false);
        let (_, want_) = naive_binary((&big_vals, &dims), (&bv, &bd), r).unwrap();
        let mut big = tensor(&big_vals, &dims);
        (f.inplace)(&mut big, &b);
        same(&big, &want_, &format!("in place {what}"));
        let mut big = tensor(&big_vals, &dims);
        (f.try_inplace)(&mut big, &b).unwrap();
        same(&big, &want_, &format!("try_ in place {what}"));
    }

    // Every fallible form reports PyTorch's errors.
    let (a, b) = (
        D::<T>::try_ones(&[2, 3]).unwrap(),
        D::<T>::try_ones(&[2]).unwrap(),
    );
    let mismatch = ShapeError::Mismatch { a: 3, b: 2, dim: 1 };
    assert_eq!((f.try_op)(&a, &b).unwrap_err(), mismatch, "{name}");
    let mut out = D::try_zeros(&[2, 3]).unwrap();
    assert_eq!((f.out)(&a, &b, &mut out).unwrap_err(), mismatch, "{name}");
    let mut a_ = a.clone();
    assert_eq!(
        (f.try_inplace)(&mut a_, &b).unwrap_err(),
        mismatch,
        "{name}"
    );
    let mut row = D::<T>::try_ones(&[1, 3]).unwrap();
    assert_eq!(
        (f.try_inplace)(&mut row, &a).unwrap_err(),
        ShapeError::OutputShape {
            output: vec![1, 3],
            broadcast: vec![2, 3]
        },
        "{name}"
    );
    let mut wrong = D::try_zeros(&[3, 3]).unwrap();
    assert!(
        (f.out)(&a, &a, &mut wrong).is_err(),
        "{name}: out= of other sizes"
    );
}

fn binary_forms<T: Val>() {
    let table = binary_op_table::<T>();
    let names: Vec<&str> = table.iter().map(|f| f.name).collect();
    assert_eq!(names, EXPECTED, "the op table and the seed's list");
    let mut rng = Rng(0x5EED_0F0F);
    for f in &table {
        check_op(f, &mut rng);
    }
}

#[test]
fn every_binary_op_has_every_form() {
    binary_forms::<f64>();
}

#[test]
fn every_binary_op_has_every_form_on_f32() {
    binary_forms::<f32>();
}

/// `f` over three operands broadcast together, index by index.
fn naive3(
    ops: [(&[f64], &[usize]); 3],
    f: impl Fn(f64, f64, f64) -> f64,
) -> (Vec<usize>, Vec<f64>) {
    let dims = naive_broadcast(&[ops[0].1, ops[1].1, ops[2].1]).unwrap();
    let vals = indices(&dims)
        .iter()
        .map(|i| {
            f(
                pick(ops[0].0, ops[0].1, i),
                pick(ops[1].0, ops[1].1, i),
                pick(ops[2].0, ops[2].1, i),
            )
        })
        .collect();
    (dims, vals)
}

/// torch.lerp's formula: from the nearer end.
fn lerp(s: f64, e: f64, w: f64) -> f64 {
    if w.abs() < 0.5 {
        s + w * (e - s)
    } else {
        e - (e - s) * (1.0 - w)
    }
}

#[test]
fn ternary_ops_have_try_in_place_and_scalar_weight_forms() {
    ternary_forms::<f64>();
}

#[test]
fn ternary_ops_have_try_in_place_and_scalar_weight_forms_on_f32() {
    ternary_forms::<f32>();
}

fn ternary_forms<T: Val>() {
    let mut rng = Rng(0xADDC_0001);
    for _ in 0..30 {
        let out_dims = random_dims(&mut rng);
        let ds: Vec<Vec<usize>> = (0..3).map(|_| broadcastable(&out_dims, &mut rng)).collect();
        let n = |d: &[usize]| d.iter().product::<usize>();
        let vs: Vec<Vec<f64>> = ds
            .iter()
            .enumerate()
            .map(|(i, d)| values(&mut rng, n(d), i == 2))
            .collect();
        let ts: Vec<D<T>> = vs.iter().zip(&ds).map(|(v, d)| tensor(v, d)).collect();
        let ops = [
            (&vs[0][..], &ds[0][..]),
            (&vs[1][..], &ds[1][..]),
            (&vs[2][..], &ds[2][..]),
        ];
        let (dims, mul) = naive3(ops, |s, a, b| s + 0.5 * a * b);
        let (_, div) = naive3(ops, |s, a, b| s + 0.5 * a / b);
        let (_, lrp) = naive3(ops, |s, e, w| lerp(s, e, w / 4.0));
        let w4 = ts[2].div(&D::try_full(&[], T::of(4.0)).unwrap());

        same(
            &ts[0].try_addcmul(&ts[1], &ts[2], T::of(0.5)).unwrap(),
            &mul,
            "addcmul",
        );
        same(
            &ts[0].try_addcdiv(&ts[1], &ts[2], T::of(0.5)).unwrap(),
            &div,
            "addcdiv",
        );
        same(&ts[0].try_lerp(&ts[1], &w4).unwrap(), &lrp, "lerp");
        // torch.clamp(x, min, max) = min(max(x, min), max): max wins.
        let (_, clamped) = naive3(ops, |x, lo, hi| x.max(lo).min(hi));
        same(
            &ts[0].try_clamp_tensor(&ts[1], &ts[2]).unwrap(),
            &clamped,
            "clamp",
        );

        // In place into a tensor of the broadcast shape.
        let bv = values(&mut rng, n(&dims), false);
        let ops_ = [(&bv[..], &dims[..]), ops[1], ops[2]];
        let fresh = || tensor::<T>(&bv, &dims);
        let mut t = fresh();
        t.addcmul_(&ts[1], &ts[2], T::of(0.5));
        same(&t, &naive3(ops_, |s, a, b| s + 0.5 * a * b).1, "addcmul_");
        let mut t = fresh();
        t.addcdiv_(&ts[1], &ts[2], T::of(0.5));
        same(&t, &naive3(ops_, |s, a, b| s + 0.5 * a / b).1, "addcdiv_");
        let mut t = fresh();
        t.lerp_(&ts[1], &w4);
        same(&t, &naive3(ops_, |s, e, w| lerp(s, e, w / 4.0)).1, "lerp_");

        // The scalar weight.
        for w in [0.0, 0.25, 0.5, 0.75, 1.0, -0.5, 1.5] {
            let (ld, lv) = naive_binary(ops[0], ops[1], |s, e| lerp(s, e, w)).unwrap();
            let got = ts[0].lerp_scalar(&ts[1], T::of(w));
            assert_eq!(got.dims(), &ld[..]);
            same(&got, &lv, "lerp_scalar");
            let mut t = fresh();
            t.lerp_scalar_(&ts[1], T::of(w));
            let (_, want) = naive_binary((&bv, &dims), ops[1], |s, e| lerp(s, e, w)).unwrap();
            same(&t, &want, "lerp_scalar_");
        }
    }
    // A bad shape is an error from the `try_` forms, not a panic.
    let (a, b) = (
        D::<T>::try_ones(&[2, 3]).unwrap(),
        D::<T>::try_ones(&[2]).unwrap(),
    );
    assert!(a.try_addcmul(&b, &a, T::of(1.0)).is_err());
    assert!(a.try_addcdiv(&a, &b, T::of(1.0)).is_err());
    assert!(a.try_lerp(&a, &b).is_err());
    assert!(a.try_lerp_scalar(&b, T::of(0.5)).is_err());
    assert!(a.try_clamp_tensor(&a, &b).is_err());
}
