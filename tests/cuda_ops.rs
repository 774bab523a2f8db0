//! CUDA against CPU on the same random inputs: every pointwise op of the
//! table, reductions, matmul, in-place and ternary ops, including
//! broadcasting, expanded (stride-0) and transposed views, zero-size dims
//! and 0-d tensors. Without a GPU each test prints "skipped: no CUDA
//! device" and returns (or fails, when `SHAPED_REQUIRE_CUDA` is set, as
//! the GPU machine's `run.sh` sets it).
#![cfg(feature = "cuda")]

use shaped::device::{Cuda, CudaElement, CudaError};

mod common;
use common::cuda::{device, unit_values};
use shaped::element::Element;
use shaped::{DynRank, Shape, Tensor};

type T<E> = Tensor<E, DynRank>;
type G<E> = Tensor<E, DynRank, Cuda>;

/// Deterministic values in `[-4, 4)`, never 0 when `nonzero`.
fn values(n: usize, seed: u64, nonzero: bool) -> Vec<f64> {
    unit_values(n, seed)
        .into_iter()
        .map(|u| {
            let v = u * 8.0 - 4.0;
            if nonzero && v.abs() < 0.5 { 1.5 } else { v }
        })
        .collect()
}

trait Gen: Element {
    fn make(n: usize, seed: u64, nonzero: bool) -> Vec<Self>;
}
impl Gen for f32 {
    fn make(n: usize, seed: u64, nz: bool) -> Vec<Self> {
        values(n, seed, nz).into_iter().map(|v| v as f32).collect()
    }
}
impl Gen for f64 {
    fn make(n: usize, seed: u64, nz: bool) -> Vec<Self> {
        values(n, seed, nz)
    }
}
impl Gen for i32 {
    fn make(n: usize, seed: u64, nz: bool) -> Vec<Self> {
        values(n, seed, nz)
            .into_iter()
            .map(|v| {
                if nz && v.trunc() == 0.0 {
                    1
                } else {
                    v.trunc() as i32
                }
            })
            .collect()
    }
}
impl Gen for i64 {
    fn make(n: usize, seed: u64, nz: bool) -> Vec<Self> {
        values(n, seed, nz)
            .into_iter()
            .map(|v| {
                if nz && v.trunc() == 0.0 {
                    -3
                } else {
                    v.trunc() as i64 * 1000
                }
            })
            .collect()
    }
}
impl Gen for u8 {
    fn make(n: usize, seed: u64, nz: bool) -> Vec<Self> {
        values(n, seed, nz)
            .into_iter()
            .map(|v| ((v + 4.0) * 30.0) as u8 + nz as u8)
            .collect()
    }
}
impl Gen for bool {
    fn make(n: usize, seed: u64, _: bool) -> Vec<Self> {
        values(n, seed, false)
            .into_iter()
            .map(|v| v > 0.0)
            .collect()
    }
}

fn rand<E: Gen>(dims: &[usize], seed: u64, nonzero: bool) -> T<E> {
    T::<E>::try_from_vec(E::make(dims.iter().product(), seed, nonzero), dims).unwrap()
}

/// Equal elementwise: exactly for integers and bools, within `tol` (relative,
/// NaN equal to NaN) for floats.
trait Close: Element {
    fn close(a: Self, b: Self) -> bool;
}
impl Close for f32 {
    fn close(a: f32, b: f32) -> bool {
        (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= 2e-5 * a.abs().max(1.0)
    }
}
impl Close for f64 {
    fn close(a: f64, b: f64) -> bool {
        (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= 1e-12 * a.abs().max(1.0)
    }
}
macro_rules! exact { ($($t:ty),*) => {$(impl Close for $t { fn close(a: $t, b: $t) -> bool { a == b } })*}; }
exact!(i32, i64, u8, bool);

#[track_caller]
fn assert_same<E: Close + CudaElement>(what: &str, cpu: &T<E>, gpu: &Tensor<E, DynRank, Cuda>) {
    let back = gpu.to_cpu().unwrap();
    assert_eq!(cpu.dims(), back.dims(), "{what}: sizes");
    let (a, b) = (cpu.to_vec(), back.to_vec());
    for (i, (&x, &y)) in a.iter().zip(&b).enumerate() {
        assert!(E::close(x, y), "{what}: element {i}: cpu {x} vs cuda {y}");
    }
}

/// Pairs of operand layouts: plain broadcasting, zero-size, 0-d, a
/// transposed view and an expanded (stride-0) view on the left.
fn pairs<E: Gen>(seed: u64, nonzero_rhs: bool) -> Vec<(String, T<E>, T<E>)> {
    let mut out = Vec::new();
    for (i, (a, b)) in [
        (vec![4usize, 5], vec![5usize]),
        (vec![3, 1, 4], vec![2, 1]),
        (vec![257, 33], vec![257, 33]),
        (vec![2, 0, 3], vec![3]),
        (vec![], vec![2, 3]),
        (vec![6], vec![]),
        (vec![1000], vec![1000]),
    ]
    .into_iter()
    .enumerate()
    {
        let s = seed + i as u64 * 7;
        out.push((
            format!("{a:?} with {b:?}"),
            rand(&a, s, false),
            rand(&b, s + 1, nonzero_rhs),
        ));
    }
    let base = rand::<E>(&[5, 7], seed + 100, false);
    let t: T<E> = base.permute(&[1, 0]).unwrap();
    out.push((
        "transposed (7, 5) with (5,)".into(),
        t,
        rand(&[5], seed + 101, nonzero_rhs),
    ));
    let row = rand::<E>(&[1, 9], seed + 102, false);
    let e: T<E> = row.expand(&[6, 9]).unwrap();
    out.push((
        "expanded (6, 9) with (6, 1)".into(),
        e,
        rand(&[6, 1], seed + 103, nonzero_rhs),
    ));
    let wide = rand::<E>(&[4, 10], seed + 104, false);
    let n: T<E> = wide.narrow(1, 3, 5).unwrap();
    out.push((
        "narrowed (4, 5) with (4, 5)".into(),
        n,
        rand(&[4, 5], seed + 105, nonzero_rhs),
    ));
    out
}

macro_rules! binary_cases {
    ($dev:expr, $e:ty, nonzero $nz:literal, [$($op:ident / $try_op:ident),*]) => {$(
        for (what, a, b) in pairs::<$e>(11, $nz) {
            let (ga, gb) = (a.to_device(&$dev).unwrap(), b.to_device(&$dev).unwrap());
            let cpu = a.$try_op(&b).unwrap();
            let gpu = ga.$try_op(&gb).unwrap();
            assert_same(&format!("{} {} {}", stringify!($op), <$e as Element>::NAME, what), &cpu, &gpu);
        }
    )*};
}

#[test]
fn binary_ops_match_cpu() {
    let Some(dev) = device() else { return };
    macro_rules! numeric_binaries {
        ($($e:ty),*) => {$(
            binary_cases!(dev, $e, nonzero false, [add / try_add, sub / try_sub, mul / try_mul, maximum / try_maximum, minimum / try_minimum]);
            binary_cases!(dev, $e, nonzero true, [div_trunc / try_div_trunc, div_floor / try_div_floor, fmod / try_fmod, remainder / try_remainder]);
        )*};
    }
    numeric_binaries!(f32, f64, i32, i64, u8);
    binary_cases!(dev, f32, nonzero false, [div / try_div, atan2 / try_atan2, pow / try_pow]);
    binary_cases!(dev, f64, nonzero false, [div / try_div, atan2 / try_atan2, pow / try_pow]);
    // Small integer powers (exponents may be negative: PyTorch's rules).
    for (what, a, b) in pairs::<i32>(5, false) {
        let b =
            T::<i32>::try_from_vec(b.to_vec().iter().map(|x| x % 4).collect(), b.dims()).unwrap();
        let cpu = a.try_pow(&b).unwrap();
        let gpu = a
            .to_device(&dev)
            .unwrap()
            .try_pow(&b.to_device(&dev).unwrap())
            .unwrap();
        assert_same(&format!("pow int32 {what}"), &cpu, &gpu);
    }
    // alpha forms.
    let (a, b) = (rand::<f32>(&[3, 4], 1, false), rand::<f32>(&[4], 2, false));
    let (ga, gb) = (a.to_device(&dev).unwrap(), b.to_device(&dev).unwrap());
    assert_same(
        "add_alpha",
        &a.try_add_alpha(&b, 2.5).unwrap(),
        &ga.try_add_alpha(&gb, 2.5).unwrap(),
    );
    assert_same(
        "sub_alpha",
        &a.try_sub_alpha(&b, 2.5).unwrap(),
        &ga.try_sub_alpha(&gb, 2.5).unwrap(),
    );
}

#[test]
fn comparisons_and_logical_ops_match_cpu() {
    let Some(dev) = device() else { return };
    macro_rules! preds {
        ($($e:ty),*) => {$(
            binary_cases!(dev, $e, nonzero false, [eq / try_eq, ne / try_ne, lt / try_lt, le / try_le, gt / try_gt, ge / try_ge,
                logical_and / try_logical_and, logical_or / try_logical_or, logical_xor / try_logical_xor]);
        )*};
    }
    preds!(f32, f64, i32, i64, u8, bool);
}

#[test]
fn unary_ops_match_cpu() {
    let Some(dev) = device() else { return };
    macro_rules! unary {
        ($e:ty: $($op:ident / $try_op:ident),*) => {$(
            for dims in [vec![3usize, 70], vec![0, 2], vec![], vec![1025]] {
                let a = rand::<$e>(&dims, 3, false);
                let cpu = a.$op();
                let gpu = a.to_device(&dev).unwrap().$try_op().unwrap();
                assert_same(&format!("{} {} {dims:?}", stringify!($op), <$e as Element>::NAME), &cpu, &gpu);
            }
        )*};
    }
    macro_rules! floats {
        ($($e:ty),*) => {$(
            unary!($e: neg / try_neg, abs / try_abs, sign / try_sign, square / try_square, relu / try_relu,
                exp / try_exp, log / try_log, log1p / try_log1p, expm1 / try_expm1, sqrt / try_sqrt,
                rsqrt / try_rsqrt, sin / try_sin, cos / try_cos, tan / try_tan, tanh / try_tanh,
                sigmoid / try_sigmoid, gelu / try_gelu, silu / try_silu, floor / try_floor,
                ceil / try_ceil, round / try_round, trunc / try_trunc, reciprocal / try_reciprocal);
        )*};
    }
    floats!(f32, f64);
    unary!(i32: neg / try_neg, abs / try_abs, sign / try_sign, square / try_square, relu / try_relu);
    unary!(i64: neg / try_neg, abs / try_abs, sign / try_sign, square / try_square, relu / try_relu);
    unary!(u8: sign / try_sign, square / try_square, relu / try_relu);
}

#[test]
fn transfers_keep_values_and_layouts() {
    let Some(dev) = device() else { return };
    let a = rand::<f32>(&[3, 4, 5], 1, false);
    let cases: Vec<(&str, T<f32>)> = vec![
        ("contiguous", a.clone()),
        ("transposed", a.permute(&[2, 0, 1]).unwrap()),
        (
            "expanded",
            rand::<f32>(&[4, 1], 2, false).expand(&[3, 4, 6]).unwrap(),
        ),
        ("narrowed", a.narrow(2, 1, 3).unwrap()),
        ("zero-size", rand::<f32>(&[3, 0, 2], 3, false)),
        ("0-d", rand::<f32>(&[], 4, false)),
    ];
    for (what, t) in cases {
        let g = t.to_device(&dev).unwrap();
        assert_eq!(g.dims(), t.dims(), "{what}");
        if t.numel() > 0 {
            assert_eq!(g.strides(), t.strides(), "{what}");
        }
        assert_eq!(g.to_cpu().unwrap().to_vec(), t.to_vec(), "{what}");
        let c = g.contiguous().unwrap();
        assert!(c.is_contiguous());
        assert_eq!(
            c.to_cpu().unwrap().to_vec(),
            t.to_vec(),
            "{what} contiguous"
        );
    }
    for (what, t) in [
        ("i64", rand::<i64>(&[7, 3], 5, false)),
        (
            "i64 transposed",
            rand::<i64>(&[7, 3], 6, false).permute(&[1, 0]).unwrap(),
        ),
    ] {
        assert_eq!(
            t.to_device(&dev).unwrap().to_cpu().unwrap().to_vec(),
            t.to_vec(),
            "{what}"
        );
    }
    let b = rand::<bool>(&[33], 7, false);
    assert_eq!(
        b.to_device(&dev).unwrap().to_cpu().unwrap().to_vec(),
        b.to_vec()
    );
    let u: T<u8> = rand::<u8>(&[4, 9], 8, false).permute(&[1, 0]).unwrap();
    assert_eq!(
        u.to_device(&dev).unwrap().to_cpu().unwrap().to_vec(),
        u.to_vec()
    );
}

#[test]
fn static_shapes_and_operators() {
    let Some(dev) = device() else { return };
    let a = Tensor::<f32, Shape![5, 1, 4, 1]>::try_from_vec(f32::make(20, 1, false), &[5, 1, 4, 1])
        .unwrap();
    let b =
        Tensor::<f32, Shape![3, 1, 1]>::try_from_vec(f32::make(3, 2, false), &[3, 1, 1]).unwrap();
    let (ga, gb) = (a.to_device(&dev).unwrap(), b.to_device(&dev).unwrap());
    let c: Tensor<f32, Shape![5, 3, 4, 1], Cuda> = &ga + &gb;
    assert_eq!(c.to_cpu().unwrap().to_vec(), (&a + &b).to_vec());
    let d = &ga * 3.0;
    assert_eq!(d.to_cpu().unwrap().to_vec(), (&a * 3.0).to_vec());
    let n = -&ga;
    assert_eq!(n.to_cpu().unwrap().to_vec(), (-&a).to_vec());
    let mut x = ga.deep_copy().unwrap();
    let mut y = a.deep_copy();
    x += &gb.sum_dim_keepdim::<0>();
    y += &b.sum_dim_keepdim::<0>();
    assert_eq!(x.to_cpu().unwrap().to_vec(), y.to_vec());
    let i = Tensor::<i32, Shape![4]>::from_vec(vec![7, -7, 9, -9]);
    let j = Tensor::<i32, Shape![1]>::from_vec(vec![2]);
    let (gi, gj) = (i.to_device(&dev).unwrap(), j.to_device(&dev).unwrap());
    assert_eq!((&gi / &gj).to_cpu().unwrap().to_vec(), (&i / &j).to_vec());
    assert_eq!((&gi % &gj).to_cpu().unwrap().to_vec(), (&i % &j).to_vec());
    // Scalars on either side (the `_rs` / `_ls` kernels), float `/` true
    // division, integer `/` truncating.
    assert_eq!((&gi / 2).to_cpu().unwrap().to_vec(), (&i / 2).to_vec());
    assert_eq!((20 / &gi).to_cpu().unwrap().to_vec(), (20 / &i).to_vec());
    assert_eq!((&gi % 4).to_cpu().unwrap().to_vec(), (&i % 4).to_vec());
    assert_eq!((30 % &gi).to_cpu().unwrap().to_vec(), (30 % &i).to_vec());
    assert_eq!((1.5 - &ga).to_cpu().unwrap().to_vec(), (1.5 - &a).to_vec());
    assert_eq!((&ga / 4.0).to_cpu().unwrap().to_vec(), (&a / 4.0).to_vec());
    assert_eq!((2.0 / &ga).to_cpu().unwrap().to_vec(), (2.0 / &a).to_vec());
    let mut z = ga.deep_copy().unwrap();
    let mut w = a.deep_copy();
    z -= 0.25;
    w -= 0.25;
    assert_eq!(z.to_cpu().unwrap().to_vec(), w.to_vec());
    assert_eq!(
        ga.try_clamp_min(0.5).unwrap().to_cpu().unwrap().to_vec(),
        a.try_clamp_min(0.5).unwrap().to_vec()
    );
    assert_eq!(
        gi.try_clamp_max(3).unwrap().to_cpu().unwrap().to_vec(),
        i.try_clamp_max(3).unwrap().to_vec()
    );
}

#[test]
fn inplace_ops_match_cpu() {
    let Some(dev) = device() else { return };
    let a = rand::<f64>(&[4, 6], 1, false);
    let b = rand::<f64>(&[6], 2, true);
    macro_rules! inplace {
        ($($op:ident / $try_op:ident),*) => {$(
            let mut cpu = a.deep_copy();
            cpu.$try_op(&b).unwrap();
            let mut gpu = a.to_device(&dev).unwrap();
            gpu.$try_op(&b.to_device(&dev).unwrap()).unwrap();
            assert_same(stringify!($op), &cpu, &gpu);
        )*};
    }
    inplace!(
        add_ / try_add_,
        sub_ / try_sub_,
        mul_ / try_mul_,
        div_ / try_div_,
        fmod_ / try_fmod_,
        remainder_ / try_remainder_,
        pow_ / try_pow_
    );
    // In place into a transposed view writes through its strides.
    let mut cpu = a.permute(&[1, 0]).unwrap().deep_copy();
    let mut gpu = a.to_device(&dev).unwrap();
    let mut gt: Tensor<f64, DynRank, Cuda> = gpu_transpose(&mut gpu);
    gt.exp_();
    cpu.exp_();
    assert_same("exp_ on a transposed view", &cpu, &gt);
    // Unary in place.
    let mut c = a.deep_copy();
    let mut g = a.to_device(&dev).unwrap();
    c.tanh_();
    g.tanh_();
    assert_same("tanh_", &c, &g);
    // fill_ and copy_from (a broadcast source).
    c.fill_(2.5);
    g.fill_(2.5);
    assert_same("fill_", &c, &g);
    c.try_copy_from(&b).unwrap();
    g.try_copy_from(&b.to_device(&dev).unwrap()).unwrap();
    assert_same("copy_from", &c, &g);
    // Refusals, with the CPU's messages.
    let mut small = rand::<f64>(&[1, 6], 3, false).to_device(&dev).unwrap();
    let err = small.try_add_(&a.to_device(&dev).unwrap()).unwrap_err();
    let cpu_err = rand::<f64>(&[1, 6], 3, false).try_add_(&a).unwrap_err();
    assert_eq!(err.to_string(), cpu_err.to_string());
    let expanded: T<f64> = rand::<f64>(&[1, 6], 3, false).expand(&[4, 6]).unwrap();
    let mut expanded = expanded.to_device(&dev).unwrap();
    assert!(expanded.try_add_(&b.to_device(&dev).unwrap()).is_err());
}

/// The transposed view of a CUDA tensor (a view on the GPU: no copy).
fn gpu_transpose(g: &mut Tensor<f64, DynRank, Cuda>) -> Tensor<f64, DynRank, Cuda> {
    g.permute(&[1, 0]).unwrap()
}

#[test]
fn views_on_the_gpu_match_cpu() {
    let Some(dev) = device() else { return };
    let c = rand::<f64>(&[3, 1, 4], 41, false);
    let g = c.to_device(&dev).unwrap();
    // Views share the GPU storage and have the CPU view's layout.
    let cases: Vec<(&str, T<f64>, G<f64>)> = vec![
        (
            "permute",
            c.permute(&[2, 0, 1]).unwrap(),
            g.permute(&[2, 0, 1]).unwrap(),
        ),
        (
            "expand",
            c.expand(&[2, 3, 5, 4]).unwrap(),
            g.expand(&[2, 3, 5, 4]).unwrap(),
        ),
        (
            "narrow",
            c.narrow(2, 1, 2).unwrap(),
            g.narrow(2, 1, 2).unwrap(),
        ),
        (
            "squeeze",
            c.squeeze::<1>().unwrap(),
            g.squeeze::<1>().unwrap(),
        ),
        (
            "broadcast_in_dim",
            c.broadcast_in_dim(&[3, 2, 4], &[0, 1, 2]).unwrap(),
            g.broadcast_in_dim(&[3, 2, 4], &[0, 1, 2]).unwrap(),
        ),
        (
            "reshape as a view",
            c.try_reshape(&[12]).unwrap(),
            g.try_reshape(&[12]).unwrap(),
        ),
    ];
    for (what, cpu, gpu) in &cases {
        assert_eq!(cpu.strides(), gpu.strides(), "{what}: strides");
        assert_same(what, cpu, gpu);
    }
    // A reshape the strides do not allow copies, on the GPU.
    let t: T<f64> = c.permute(&[2, 0, 1]).unwrap();
    let gt: G<f64> = g.permute(&[2, 0, 1]).unwrap();
    let (cpu, gpu) = (
        t.try_reshape(&[4, 3]).unwrap(),
        gt.try_reshape(&[4, 3]).unwrap(),
    );
    assert!(gpu.is_contiguous());
    assert_same("reshape as a copy", &cpu, &gpu);
    // Ops read views in place: a permuted (4, 3, 1) and a narrowed (1, 1, 4).
    let sum = gt.try_add(&g.narrow::<DynRank>(0, 0, 1).unwrap()).unwrap();
    let want = t.try_add(&c.narrow::<DynRank>(0, 0, 1).unwrap()).unwrap();
    assert_same("add of views", &want, &sum);
}

#[test]
fn ternary_ops_match_cpu() {
    let Some(dev) = device() else { return };
    let (s, t1, t2) = (
        rand::<f32>(&[3, 1], 1, false),
        rand::<f32>(&[4], 2, false),
        rand::<f32>(&[2, 1, 1], 3, true),
    );
    let (gs, g1, g2) = (
        s.to_device(&dev).unwrap(),
        t1.to_device(&dev).unwrap(),
        t2.to_device(&dev).unwrap(),
    );
    assert_same(
        "addcmul",
        &s.addcmul(&t1, &t2, 0.5),
        &gs.try_addcmul(&g1, &g2, 0.5).unwrap(),
    );
    assert_same(
        "addcdiv",
        &s.addcdiv(&t1, &t2, 0.5),
        &gs.try_addcdiv(&g1, &g2, 0.5).unwrap(),
    );
    let w = rand::<f32>(&[4], 4, false).sigmoid();
    assert_same(
        "lerp",
        &s.lerp(&t1, &w),
        &gs.try_lerp(&g1, &w.to_device(&dev).unwrap()).unwrap(),
    );
    assert_same(
        "clamp_tensor",
        &s.clamp_tensor(&t1, &t2),
        &gs.try_clamp_tensor(&g1, &g2).unwrap(),
    );
    assert_same(
        "clamp",
        &s.clamp(-1.0, 1.0),
        &gs.try_clamp(-1.0, 1.0).unwrap(),
    );
    let cond = rand::<bool>(&[2, 3, 1], 5, false);
    let cpu = shaped::try_where_cond(&cond, &s, &t1).unwrap();
    let gpu = shaped::try_where_cond(&cond.to_device(&dev).unwrap(), &gs, &g1).unwrap();
    assert_same("where", &cpu, &gpu);
    let mut c = rand::<f32>(&[2, 3, 4], 6, false);
    let mut g = c.to_device(&dev).unwrap();
    c.try_addcmul_(&t1, &s, 2.0).unwrap();
    g.try_addcmul_(&g1, &gs, 2.0).unwrap();
    assert_same("addcmul_", &c, &g);
}

#[test]
fn reductions_match_cpu() {
    let Some(dev) = device() else { return };
    macro_rules! red {
        ($e:ty: $($try_dims:ident),*) => {$(
            for (dims, seed) in [(vec![3usize, 70, 5], 1u64), (vec![1000, 3], 2), (vec![200_000], 3), (vec![4, 0, 3], 4), (vec![], 5)] {
                let a = rand::<$e>(&dims, seed, false);
                let g = a.to_device(&dev).unwrap();
                let mut reductions: Vec<Vec<isize>> = vec![vec![]];
                for k in 0..dims.len() as isize {
                    reductions.push(vec![k]);
                }
                if dims.len() == 3 {
                    reductions.push(vec![0, 2]);
                }
                for rd in reductions {
                    for keep in [false, true] {
                        match (a.$try_dims(&rd, keep), g.$try_dims(&rd, keep)) {
                            (Ok(c), Ok(x)) => assert_same(&format!("{} {} {dims:?} over {rd:?} keepdim {keep}", stringify!($try_dims), <$e as Element>::NAME), &c, &x),
                            (Err(c), Err(x)) => assert_eq!(c.to_string(), x.to_string()),
                            (c, x) => panic!("{} {dims:?} {rd:?}: cpu {:?} vs cuda {:?}", stringify!($try_dims), c.map(|t| t.to_vec()), x.map(|t| t.dims().to_vec())),
                        }
                    }
                }
            }
        )*};
    }
    red!(f64: try_sum_dims, try_mean_dims, try_prod_dims, try_max_dims, try_min_dims);
    red!(i64: try_sum_dims, try_max_dims, try_min_dims);
    red!(i32: try_sum_dims, try_max_dims, try_min_dims);
    // f32 sums accumulate in another order: compare with a looser bound.
    let a = rand::<f32>(&[1 << 20], 9, false);
    let (c, g) = (
        a.sum().item(),
        a.to_device(&dev).unwrap().sum().to_cpu().unwrap().item(),
    );
    assert!(
        (c - g).abs() <= 1e-3 * c.abs().max(1.0) + 0.5,
        "sum f32: {c} vs {g}"
    );
    let t = Tensor::<f32, Shape![2, 3]>::from_vec(vec![1., 2., 3., 4., 5., 6.]);
    let gt = t.to_device(&dev).unwrap();
    let r: Tensor<f32, Shape![2], Cuda> = gt.sum_dim::<1>();
    assert_eq!(r.to_cpu().unwrap().to_vec(), vec![6., 15.]);
    let r: Tensor<f32, Shape![1, 3], Cuda> = gt.max_dim_keepdim::<0>();
    assert_eq!(r.to_cpu().unwrap().to_vec(), vec![4., 5., 6.]);
}

#[test]
fn backward_ops_match_cpu() {
    // The derivatives autograd applies (the op table's `*_backward`
    // entries), through the backend trait on both devices.
    use shaped::backend::Backend;
    use shaped::device::Cpu;
    use shaped::ops::table::*;
    let Some(dev) = device() else { return };
    let g = rand::<f64>(&[3, 70], 1, false);
    let x = rand::<f64>(&[3, 70], 2, true);
    let y = x.tanh();
    let (gg, gx, gy) = (
        g.to_device(&dev).unwrap(),
        x.to_device(&dev).unwrap(),
        y.to_device(&dev).unwrap(),
    );
    macro_rules! compare {
        ($($op:expr),*) => {$(
            let cpu: T<f64> = Cpu::ternary($op, &g, &x, &y).unwrap();
            let gpu: G<f64> = Cuda::ternary($op, &gg, &gx, &gy).unwrap();
            assert_same(stringify!($op), &cpu, &gpu);
        )*};
    }
    compare!(
        NegBackward,
        AbsBackward,
        ExpBackward,
        LogBackward,
        Log1pBackward,
        Expm1Backward,
        SqrtBackward,
        RsqrtBackward,
        SinBackward,
        CosBackward,
        TanBackward,
        TanhBackward,
        SigmoidBackward,
        ReluBackward,
        GeluBackward,
        SiluBackward,
        SquareBackward,
        ReciprocalBackward,
        // The two- and three-operand ops' derivatives (`g`, then the
        // operands).
        DivBackwardOther,
        PowBackwardSelf,
        PowBackwardExponent,
        MaximumBackward,
        MinimumBackward,
        Atan2BackwardSelf,
        Atan2BackwardOther,
        LerpBackwardWeight,
        AddcdivBackwardTensor2(-1.3)
    );
    // Ties (and a zero base for `pow`).
    let z = T::<f64>::try_from_vec(vec![0.0, 0.0, 2.0, -1.5], &[4]).unwrap();
    let e = T::<f64>::try_from_vec(vec![0.0, 1.5, 2.0, -1.5], &[4]).unwrap();
    let (gz, ge) = (z.to_device(&dev).unwrap(), e.to_device(&dev).unwrap());
    for (what, cpu, gpu) in [
        (
            "maximum_backward ties",
            Cpu::ternary(MaximumBackward, &e, &z, &e),
            Cuda::ternary(MaximumBackward, &ge, &gz, &ge),
        ),
        (
            "minimum_backward ties",
            Cpu::ternary(MinimumBackward, &e, &z, &e),
            Cuda::ternary(MinimumBackward, &ge, &gz, &ge),
        ),
        (
            "pow_backward_exponent zero base",
            Cpu::ternary(PowBackwardExponent, &e, &z, &e),
            Cuda::ternary(PowBackwardExponent, &ge, &gz, &ge),
        ),
        (
            "pow_backward_self zero exponent",
            Cpu::ternary(PowBackwardSelf, &e, &e, &z),
            Cuda::ternary(PowBackwardSelf, &ge, &ge, &gz),
        ),
    ] {
        let (cpu, gpu): (T<f64>, G<f64>) = (cpu.unwrap(), gpu.unwrap());
        assert_same(what, &cpu, &gpu);
    }
    macro_rules! compare2 {
        ($($op:expr),*) => {$(
            let cpu: T<f64> = Cpu::binary($op, &g, &x).unwrap();
            let gpu: G<f64> = Cuda::binary($op, &gg, &gx).unwrap();
            assert_same(stringify!($op), &cpu, &gpu);
        )*};
    }
    compare2!(
        AddcmulBackward(1.5),
        AddcdivBackwardTensor1(-1.3),
        LerpBackwardSelf
    );
}

#[test]
fn fused_blas_matches_cpu() {
    let Some(dev) = device() else { return };
    let g = |t: &T<f64>| t.to_device(&dev).unwrap();
    let (m1, m2) = (
        rand::<f64>(&[5, 3], 1, false),
        rand::<f64>(&[3, 4], 2, false),
    );
    let (b1, b2) = (
        rand::<f64>(&[6, 5, 3], 3, false),
        rand::<f64>(&[6, 3, 4], 4, false),
    );
    let (v3, v5) = (rand::<f64>(&[3], 5, false), rand::<f64>(&[5], 6, false));
    let row = rand::<f64>(&[4], 7, false);
    let full = rand::<f64>(&[5, 4], 8, false);
    for (beta, alpha) in [(0.5, 2.0), (0.0, 1.5), (1.0, 1.0)] {
        let what = format!("beta {beta} alpha {alpha}");
        // The added term broadcasts (a row), or has the product's shape.
        for c in [&row, &full] {
            assert_same(
                &format!("addmm {what}"),
                &c.try_addmm(&m1, &m2, beta, alpha).unwrap().into_dyn(),
                &g(c)
                    .try_addmm(&g(&m1), &g(&m2), beta, alpha)
                    .unwrap()
                    .into_dyn(),
            );
        }
        assert_same(
            &format!("addmv {what}"),
            &v5.try_addmv(&m1, &v3, beta, alpha).unwrap().into_dyn(),
            &g(&v5)
                .try_addmv(&g(&m1), &g(&v3), beta, alpha)
                .unwrap()
                .into_dyn(),
        );
        assert_same(
            &format!("addr {what}"),
            &full.try_addr(&v5, &row, beta, alpha).unwrap().into_dyn(),
            &g(&full)
                .try_addr(&g(&v5), &g(&row), beta, alpha)
                .unwrap()
                .into_dyn(),
        );
        assert_same(
            &format!("baddbmm {what}"),
            &row.try_baddbmm(&b1, &b2, beta, alpha).unwrap().into_dyn(),
            &g(&row)
                .try_baddbmm(&g(&b1), &g(&b2), beta, alpha)
                .unwrap()
                .into_dyn(),
        );
        assert_same(
            &format!("addbmm {what}"),
            &full.try_addbmm(&b1, &b2, beta, alpha).unwrap().into_dyn(),
            &g(&full)
                .try_addbmm(&g(&b1), &g(&b2), beta, alpha)
                .unwrap()
                .into_dyn(),
        );
        let (mut cpu, mut gpu) = (full.deep_copy(), g(&full));
        cpu.try_addmm_(&m1, &m2, beta, alpha).unwrap();
        gpu.try_addmm_(&g(&m1), &g(&m2), beta, alpha).unwrap();
        assert_same(&format!("addmm_ {what}"), &cpu, &gpu);
    }
    // A zero-size contracted dimension: beta * c.
    let (e1, e2) = (
        rand::<f64>(&[5, 0], 9, false),
        rand::<f64>(&[0, 4], 10, false),
    );
    assert_same(
        "addmm with k = 0",
        &row.try_addmm(&e1, &e2, 0.5, 2.0).unwrap().into_dyn(),
        &g(&row)
            .try_addmm(&g(&e1), &g(&e2), 0.5, 2.0)
            .unwrap()
            .into_dyn(),
    );
}

#[test]
fn matmul_matches_cpu() {
    let Some(dev) = device() else { return };
    let cases: Vec<(&str, T<f64>, T<f64>)> = vec![
        ("mm", rand(&[5, 3], 1, false), rand(&[3, 4], 2, false)),
        (
            "matrix @ vector",
            rand(&[7, 3], 3, false),
            rand(&[3], 4, false),
        ),
        (
            "vector @ matrix",
            rand(&[3], 5, false),
            rand(&[3, 6], 6, false),
        ),
        (
            "broadcast batch",
            rand(&[2, 1, 5, 3], 7, false),
            rand(&[4, 3, 2], 8, false),
        ),
        (
            "batch @ matrix",
            rand(&[16, 32, 24], 9, false),
            rand(&[24, 8], 10, false),
        ),
        (
            "transposed lhs",
            rand::<f64>(&[3, 5], 11, false).permute(&[1, 0]).unwrap(),
            rand(&[3, 4], 12, false),
        ),
        (
            "transposed batch",
            rand::<f64>(&[2, 4, 3], 13, false)
                .permute(&[0, 2, 1])
                .unwrap(),
            rand(&[2, 4, 6], 14, false),
        ),
        ("zero k", rand(&[3, 0], 15, false), rand(&[0, 2], 16, false)),
        (
            "zero batch",
            rand(&[0, 3, 2], 17, false),
            rand(&[2, 5], 18, false),
        ),
        (
            "expanded rhs",
            rand(&[3, 4, 5], 19, false),
            rand::<f64>(&[1, 5, 2], 20, false)
                .expand(&[3, 5, 2])
                .unwrap(),
        ),
    ];
    for (what, a, b) in cases {
        let cpu = a.try_matmul(&b).unwrap();
        let gpu = a
            .to_device(&dev)
            .unwrap()
            .try_matmul(&b.to_device(&dev).unwrap())
            .unwrap();
        assert_same(what, &cpu, &gpu);
    }
    let (a, b) = (
        rand::<f32>(&[16, 64, 64], 21, false),
        rand::<f32>(&[64, 64], 22, false),
    );
    let cpu = a.try_matmul(&b).unwrap();
    let gpu = a
        .to_device(&dev)
        .unwrap()
        .try_matmul(&b.to_device(&dev).unwrap())
        .unwrap()
        .to_cpu()
        .unwrap();
    for (x, y) in cpu.to_vec().iter().zip(gpu.to_vec()) {
        assert!(
            (x - y).abs() <= 1e-3 * x.abs().max(1.0),
            "f32 batched: {x} vs {y}"
        );
    }
    let m = Tensor::<f64, Shape![2, 3]>::from_vec(vec![1., 2., 3., 4., 5., 6.]);
    let n = Tensor::<f64, Shape![3, 2]>::from_vec(vec![1., 0., 0., 1., 1., 1.]);
    let gm: Tensor<f64, Shape![2, 2], Cuda> =
        m.to_device(&dev).unwrap().mm(&n.to_device(&dev).unwrap());
    assert_eq!(gm.to_cpu().unwrap().to_vec(), m.mm(&n).to_vec());
    let bad = rand::<f64>(&[2, 3], 1, false)
        .to_device(&dev)
        .unwrap()
        .try_matmul(&rand::<f64>(&[4, 5], 2, false).to_device(&dev).unwrap());
    assert_eq!(
        bad.unwrap_err().to_string(),
        "mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"
    );
}

#[test]
fn errors_match_cpu() {
    let Some(dev) = device() else { return };
    let (a, b) = (
        rand::<f32>(&[5, 2, 4, 1], 1, false),
        rand::<f32>(&[3, 1, 1], 2, false),
    );
    let cpu = a.try_add(&b).unwrap_err().to_string();
    let gpu = a
        .to_device(&dev)
        .unwrap()
        .try_add(&b.to_device(&dev).unwrap())
        .unwrap_err();
    assert!(matches!(gpu, CudaError::Shape(_)));
    assert_eq!(gpu.to_string(), cpu);
    let i = rand::<i32>(&[4], 3, false).to_device(&dev).unwrap();
    let z = T::<i32>::try_zeros(&[1]).unwrap().to_device(&dev).unwrap();
    assert_eq!(
        i.try_div_trunc(&z).unwrap_err().to_string(),
        "ZeroDivisionError"
    );
    assert_eq!(
        i.try_remainder(&z).unwrap_err().to_string(),
        "ZeroDivisionError"
    );
    let empty = T::<f32>::try_zeros(&[0]).unwrap().to_device(&dev).unwrap();
    assert_eq!(
        empty.try_max().unwrap_err().to_string(),
        T::<f32>::try_zeros(&[0])
            .unwrap()
            .try_max_dims(&[], false)
            .unwrap_err()
            .to_string()
    );
}

#[test]
fn every_table_op_is_exercised() {
    // The op names the tests above call, against the kernels generated from
    // the op table (scalar-operand kernels `_rs` / `_ls` count as their op):
    // a new table entry must get a comparison here.
    let tested = [
        "copy",
        "fill",
        "copy_from",
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
        "quot",
        "clamp_min",
        "clamp_max",
        "add_alpha",
        "sub_alpha",
        "eq",
        "ne",
        "lt",
        "le",
        "gt",
        "ge",
        "logical_and",
        "logical_or",
        "logical_xor",
        "neg",
        "abs",
        "sign",
        "square",
        "relu",
        "exp",
        "log",
        "log1p",
        "expm1",
        "sqrt",
        "rsqrt",
        "sin",
        "cos",
        "tan",
        "tanh",
        "sigmoid",
        "gelu",
        "silu",
        "floor",
        "ceil",
        "round",
        "trunc",
        "reciprocal",
        "neg_backward",
        "abs_backward",
        "exp_backward",
        "log_backward",
        "log1p_backward",
        "expm1_backward",
        "sqrt_backward",
        "rsqrt_backward",
        "sin_backward",
        "cos_backward",
        "tan_backward",
        "tanh_backward",
        "sigmoid_backward",
        "relu_backward",
        "gelu_backward",
        "silu_backward",
        "square_backward",
        "reciprocal_backward",
        "div_backward_other",
        "pow_backward_self",
        "pow_backward_exponent",
        "maximum_backward",
        "minimum_backward",
        "atan2_backward_self",
        "atan2_backward_other",
        "addcmul_backward",
        "addcdiv_backward_tensor1",
        "addcdiv_backward_tensor2",
        "lerp_backward_self",
        "lerp_backward_weight",
        "addcmul",
        "addcdiv",
        "lerp",
        "lerp_scalar",
        "clamp",
        "where",
    ];
    let names: std::collections::BTreeSet<String> =
        shaped::device::cuda_kernels::all_kernel_sources()
            .into_iter()
            .filter(|k| !k.name.starts_with("sh_red_"))
            .map(|k| {
                let op = k.name.trim_start_matches("sh_").rsplit_once('_').unwrap().0;
                op.trim_end_matches("_rs")
                    .trim_end_matches("_ls")
                    .to_string()
            })
            .collect();
    let tested: std::collections::BTreeSet<String> = tested.iter().map(|s| s.to_string()).collect();
    assert_eq!(names, tested);
}

/// Fused chains (one generated kernel each) against the CPU's fused
/// evaluation, over every layout pair of [`pairs`] with a third operand
/// broadcast along the first: new outputs, `out=` into an existing
/// (transposed) tensor, a `bool` result, `where`, and the same expression
/// with other scalars (one compiled module, scalars as arguments).
#[test]
fn fused_chains_match_cpu() {
    let Some(dev) = device() else { return };
    for (what, a, b) in pairs::<f32>(41, false) {
        let (ga, gb) = (a.to_device(&dev).unwrap(), b.to_device(&dev).unwrap());
        for s in [0.5f32, -2.0] {
            let cpu = ((a.lazy() * &b + s).gelu() * &b - &a).try_eval();
            let gpu = ((ga.lazy() * &gb + s).gelu() * &gb - &ga).try_eval();
            match (cpu, gpu) {
                (Ok(c), Ok(g)) => assert_same(&format!("fused gelu chain {what}"), &c, &g),
                (Err(c), Err(g)) => assert_eq!(c.to_string(), g.to_string(), "{what}"),
                (c, g) => panic!(
                    "{what}: cpu {:?} vs cuda {:?}",
                    c.map(|_| ()),
                    g.map(|_| ())
                ),
            }
        }
        let Ok(cpu) = a
            .lazy()
            .gt(&b)
            .select(a.lazy().exp(), b.lazy().clamp(-1.0f32, 1.0f32))
            .try_eval()
        else {
            continue;
        };
        let gpu = ga
            .lazy()
            .gt(&gb)
            .select(ga.lazy().exp(), gb.lazy().clamp(-1.0f32, 1.0f32))
            .eval();
        assert_same(&format!("fused where {what}"), &cpu, &gpu);
        let cpu = (a.lazy() - &b).le(0.0f32).eval();
        let gpu = (ga.lazy() - &gb).le(0.0f32).eval();
        let back = gpu.to_cpu().unwrap();
        assert_eq!(cpu.to_vec(), back.to_vec(), "fused compare {what}");
        // out= into a transposed view of the broadcast sizes.
        let dims = cpu.dims().to_vec();
        if dims.len() == 2 {
            let mut rev = dims.clone();
            rev.reverse();
            let z = T::<f32>::try_zeros(&rev).unwrap().to_device(&dev).unwrap();
            let mut out: G<f32> = z.permute(&[1, 0]).unwrap();
            (ga.lazy() * 2.0f32 + &gb)
                .relu()
                .eval_into(&mut out)
                .unwrap();
            let want = (a.lazy() * 2.0f32 + &b).relu().eval();
            assert_same(&format!("fused out= {what}"), &want, &out);
        }
    }
}
