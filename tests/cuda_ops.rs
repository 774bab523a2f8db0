//! CUDA against CPU on the same random inputs: every pointwise op of the
//! table, reductions, matmul, in-place and ternary ops, including
//! broadcasting, expanded (stride-0) and transposed views, zero-size dims
//! and 0-d tensors. Without a GPU each test prints "skipped: no CUDA
//! device" and returns (or fails, when `SHAPED_REQUIRE_CUDA` is set, as
//! the GPU machine's `run.sh` sets it).
#![cfg(feature = "cuda")]

use shaped::device::{Cpu, Cuda, CudaElement, CudaError};

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
        // Rows of 8 (vectorised rows on the GPU): a column broadcast along
        // them, and a batch of rows against a matrix.
        (vec![6, 8], vec![6, 1]),
        (vec![5, 1, 8], vec![4, 8]),
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
    // Small integer powers; a negative exponent is refused on both devices
    // (`nonnegative_exponent`: NumPy's and PyTorch's scalar-form error).
    for (what, a, b) in pairs::<i32>(5, false) {
        let b = T::<i32>::try_from_vec(
            b.to_vec().iter().map(|x| x.rem_euclid(4)).collect(),
            b.dims(),
        )
        .unwrap();
        let cpu = a.try_pow(&b).unwrap();
        let gpu = a
            .to_device(&dev)
            .unwrap()
            .try_pow(&b.to_device(&dev).unwrap())
            .unwrap();
        assert_same(&format!("pow int32 {what}"), &cpu, &gpu);
    }
    let (a, b) = (
        rand::<i32>(&[3, 4], 6, false),
        T::<i32>::try_from_vec(vec![2, -1, 0, 3], &[4]).unwrap(),
    );
    assert_eq!(
        a.to_device(&dev)
            .unwrap()
            .try_pow(&b.to_device(&dev).unwrap())
            .unwrap_err()
            .to_string(),
        a.try_pow(&b).unwrap_err().to_string()
    );
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
                ceil / try_ceil, round / try_round, trunc / try_trunc, reciprocal / try_reciprocal,
                mish / try_mish, softplus / try_softplus);
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
        let c = g.contiguous();
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
    let mut x = ga.deep_copy();
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
    let mut z = ga.deep_copy();
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
    // `index!` / `try_index!` entries (integer, negative, stepped range,
    // `..`) are views on the GPU too, with the CPU's errors.
    let s = rand::<f64>(&[3, 4, 5], 42, false);
    let gs = s.to_device(&dev).unwrap();
    let typed = s.try_reshape::<Shape![3, 4, 5]>(&[3, 4, 5]).unwrap();
    let gtyped = gs.try_reshape::<Shape![3, 4, 5]>(&[3, 4, 5]).unwrap();
    let (v, gv) = (
        shaped::index!(typed, -1, .., 1..5; 2),
        shaped::index!(gtyped, -1, .., 1..5; 2),
    );
    assert_eq!(v.strides(), gv.strides(), "index!: strides");
    assert_same("index!", &v.into_dyn(), &gv.into_dyn());
    let (v, gv) = (
        shaped::try_index!(s, .., 2).unwrap(),
        shaped::try_index!(gs, .., 2).unwrap(),
    );
    assert_same("try_index!", &v.into_dyn(), &gv.into_dyn());
    let (e, ge) = (
        shaped::try_index!(s, 3).err().unwrap().to_string(),
        shaped::try_index!(gs, 3).err().unwrap().to_string(),
    );
    assert_eq!(e, ge);
    // `sum_to_size` (PyTorch's, and autograd's reduction of broadcast
    // gradients) and the static `reshape`, a copy for a permuted view.
    for to in [vec![4, 1], vec![5], vec![3, 1, 1], vec![3, 4, 5]] {
        let (cpu, gpu) = (
            s.try_sum_to_size::<DynRank>(&to).unwrap(),
            gs.try_sum_to_size::<DynRank>(&to).unwrap(),
        );
        assert_same(&format!("sum_to_size {to:?}"), &cpu, &gpu);
    }
    assert_eq!(
        s.try_sum_to_size::<DynRank>(&[2]).unwrap_err().to_string(),
        gs.try_sum_to_size::<DynRank>(&[2]).unwrap_err().to_string()
    );
    type R<D> = Tensor<f64, Shape![20, 3], D>;
    let (cpu, gpu): (R<Cpu>, R<Cuda>) = (
        typed.transpose::<0, 2>().reshape(),
        gtyped.transpose::<0, 2>().reshape(),
    );
    assert!(gpu.is_contiguous());
    assert_same("static reshape", &cpu.into_dyn(), &gpu.into_dyn());
    // `broadcast_tensors`: stride-0 views of the common shape.
    let (n, gn): (T<f64>, G<f64>) = (s.narrow(2, 0, 4).unwrap(), gs.narrow(2, 0, 4).unwrap());
    let (x, y) = shaped::try_broadcast_tensors(&c, &n).unwrap();
    let (gx, gy) = shaped::try_broadcast_tensors(&g, &gn).unwrap();
    assert_eq!((x.strides(), y.strides()), (gx.strides(), gy.strides()));
    assert_same("broadcast_tensors a", &x, &gx);
    assert_same("broadcast_tensors b", &y, &gy);
    // A reshape the strides allow is a view (dropping the size-1 dim of the
    // permuted (4, 3, 1): strides (1, 4), as PyTorch's), one they do not
    // allow a copy, on the GPU as on the CPU.
    let t: T<f64> = c.permute(&[2, 0, 1]).unwrap();
    let gt: G<f64> = g.permute(&[2, 0, 1]).unwrap();
    let (cpu, gpu) = (
        t.try_reshape(&[4, 3]).unwrap(),
        gt.try_reshape(&[4, 3]).unwrap(),
    );
    assert_eq!((cpu.strides(), gpu.strides()), (&[1, 4][..], &[1, 4][..]));
    assert_same("reshape as a view", &cpu, &gpu);
    let (cpu, gpu) = (
        t.try_reshape(&[2, 6]).unwrap(),
        gt.try_reshape(&[2, 6]).unwrap(),
    );
    assert!(cpu.is_contiguous() && gpu.is_contiguous());
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
    // entries), through `ops::pointwise` (the backend primitives) on both
    // devices.
    use shaped::ops::pointwise;
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
            let cpu: T<f64> = pointwise::ternary($op, &g, &x, &y).unwrap();
            let gpu: G<f64> = pointwise::ternary($op, &gg, &gx, &gy).unwrap();
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
            pointwise::ternary(MaximumBackward, &e, &z, &e),
            pointwise::ternary(MaximumBackward, &ge, &gz, &ge),
        ),
        (
            "minimum_backward ties",
            pointwise::ternary(MinimumBackward, &e, &z, &e),
            pointwise::ternary(MinimumBackward, &ge, &gz, &ge),
        ),
        (
            "pow_backward_exponent zero base",
            pointwise::ternary(PowBackwardExponent, &e, &z, &e),
            pointwise::ternary(PowBackwardExponent, &ge, &gz, &ge),
        ),
        (
            "pow_backward_self zero exponent",
            pointwise::ternary(PowBackwardSelf, &e, &e, &z),
            pointwise::ternary(PowBackwardSelf, &ge, &ge, &gz),
        ),
    ] {
        let (cpu, gpu): (T<f64>, G<f64>) = (cpu.unwrap(), gpu.unwrap());
        assert_same(what, &cpu, &gpu);
    }
    macro_rules! compare2 {
        ($($op:expr),*) => {$(
            let cpu: T<f64> = pointwise::binary($op, &g, &x).unwrap();
            let gpu: G<f64> = pointwise::binary($op, &gg, &gx).unwrap();
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
    // An empty tensor's `max()` (PyTorch: "Specify the reduction dim") and
    // `amax` over every dim (PyTorch: "Expected reduction dim 0 to have
    // non-zero size."), each as on the CPU.
    let cpu_empty = T::<f32>::try_zeros(&[0]).unwrap();
    let empty = cpu_empty.to_device(&dev).unwrap();
    assert_eq!(
        empty.try_max().unwrap_err().to_string(),
        cpu_empty.try_max().unwrap_err().to_string()
    );
    assert_eq!(
        empty.try_max_dims(&[], false).unwrap_err().to_string(),
        cpu_empty.try_max_dims(&[], false).unwrap_err().to_string()
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
        "mish",
        "softplus",
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
        "mish_backward",
        "softplus_backward",
        // The derivative of the piecewise-constant ops, in the fused
        // gradients of `floor`, `sign` ... (`cuda_autograd.rs`).
        "zero_backward",
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
        // Not table ops: the arg-reductions and the generators, compared
        // in `arg_reductions_match_cpu` and `constructors_on_the_device_match_cpu`.
        "argmax",
        "argmin",
        "gen",
        // The index kernels (`index_ops_match_cpu`), per index type.
        "idxi32",
        "idxi64",
        // The casts (`casts_match_cpu`), every pair, named by the source.
        "cast_f32",
        "cast_f64",
        "cast_i32",
        "cast_i64",
        "cast_u8",
        "cast_bool",
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

/// Fused chains whose plan the vectorised-rows kernel (`_v32`) takes: a
/// row and a column broadcast over a 3-d block, views whose rows start on
/// a multiple of the vector width and one that does not (offset 1: the
/// strided kernel), `f64` (two per vector), a `bool` result of `f32` leaves
/// and an `i32` chain, each against the CPU's fused evaluation, into new
/// tensors and `out=` into an existing one.
#[test]
fn fused_vectorised_rows_match_cpu() {
    let Some(dev) = device() else { return };
    let b = rand::<f32>(&[16], 2, false);
    let c = rand::<f32>(&[8, 1, 1], 3, false);
    let wide = rand::<f32>(&[8, 3, 20], 4, false);
    let (gb, gc, gw) = (
        b.to_device(&dev).unwrap(),
        c.to_device(&dev).unwrap(),
        wide.to_device(&dev).unwrap(),
    );
    let contiguous = rand::<f32>(&[8, 3, 16], 1, false);
    let layouts: Vec<(&str, T<f32>, G<f32>)> = vec![
        (
            "contiguous",
            contiguous.clone(),
            contiguous.to_device(&dev).unwrap(),
        ),
        (
            "aligned narrow",
            wide.narrow(2, 4, 16).unwrap(),
            gw.narrow(2, 4, 16).unwrap(),
        ),
        (
            "misaligned narrow",
            wide.narrow(2, 1, 16).unwrap(),
            gw.narrow(2, 1, 16).unwrap(),
        ),
    ];
    for (what, a, ga) in &layouts {
        let cpu = ((a.lazy() * &b + &c).gelu() * &b - &c).eval();
        let gpu = ((ga.lazy() * &gb + &gc).gelu() * &gb - &gc).eval();
        assert_same(&format!("rows chain {what}"), &cpu, &gpu);
        let cpu = (a.lazy() * &b).gt(&c).eval();
        let gpu = (ga.lazy() * &gb).gt(&gc).eval();
        assert_eq!(
            cpu.to_vec(),
            gpu.to_cpu().unwrap().to_vec(),
            "rows bool {what}"
        );
        let mut out = T::<f32>::try_zeros(&[8, 3, 16])
            .unwrap()
            .to_device(&dev)
            .unwrap();
        (ga.lazy() - &gc).abs().eval_into(&mut out).unwrap();
        assert_same(
            &format!("rows out= {what}"),
            &(a.lazy() - &c).abs().eval(),
            &out,
        );
    }
    // Reductions at the end of the chain: along the last dim (one pass,
    // `_rows`, when the rows are aligned), along the first (two passes) and
    // over everything.
    for (what, a, ga) in &layouts {
        let (x, gx) = (a.lazy() * &b + &c, ga.lazy() * &gb + &gc);
        assert_same(
            &format!("sum_dim<2> {what}"),
            &x.sum_dim::<2>(),
            &gx.sum_dim::<2>(),
        );
        assert_same(
            &format!("mean_dim<2> {what}"),
            &x.mean_dim::<2>(),
            &gx.mean_dim::<2>(),
        );
        assert_same(
            &format!("max keepdim {what}"),
            &x.max_dim_keepdim::<2>(),
            &gx.max_dim_keepdim::<2>(),
        );
        assert_same(
            &format!("min_dim<2> {what}"),
            &x.min_dim::<2>(),
            &gx.min_dim::<2>(),
        );
        assert_same(
            &format!("sum_dim<0> {what}"),
            &x.sum_dim::<0>(),
            &gx.sum_dim::<0>(),
        );
        let (s, gs) = (x.sum(), gx.sum());
        assert!(
            (s.item() - gs.to_cpu().unwrap().item()).abs() <= 1e-4 * s.item().abs().max(1.0),
            "sum {what}"
        );
    }
    let (x, y) = (rand::<f64>(&[5, 6], 5, false), rand::<f64>(&[6], 6, false));
    let (gx, gy) = (x.to_device(&dev).unwrap(), y.to_device(&dev).unwrap());
    assert_same(
        "rows f64",
        &(x.lazy() * &y + 1.5f64).exp().eval(),
        &(gx.lazy() * &gy + 1.5f64).exp().eval(),
    );
    let (i, j) = (
        rand::<i32>(&[4, 8], 7, false),
        rand::<i32>(&[4, 1], 8, false),
    );
    let (gi, gj) = (i.to_device(&dev).unwrap(), j.to_device(&dev).unwrap());
    assert_eq!(
        (i.lazy() * &j - 3i32).eval().to_vec(),
        (gi.lazy() * &gj - 3i32).eval().to_cpu().unwrap().to_vec(),
        "rows i32"
    );
    assert_eq!(
        (i.lazy() * &j).max_dim::<1>().to_vec(),
        (gi.lazy() * &gj).max_dim::<1>().to_cpu().unwrap().to_vec(),
        "rows i32 max"
    );
    assert_eq!(
        (i.lazy() - &j).sum_dim::<1>().to_vec(),
        (gi.lazy() - &gj).sum_dim::<1>().to_cpu().unwrap().to_vec(),
        "rows i32 sum"
    );
    assert_same(
        "rows f64 mean",
        &(x.lazy() * &y).exp().mean_dim::<1>(),
        &(gx.lazy() * &gy).exp().mean_dim::<1>(),
    );
    // Many rows (the one-pass kernel's grid-stride loop over rows) of a
    // row-and-column broadcast, as `benches`' `mulsum1`.
    let (m, v) = (
        rand::<f32>(&[70_000, 8], 9, false),
        rand::<f32>(&[8], 10, false),
    );
    let (gm, gv) = (m.to_device(&dev).unwrap(), v.to_device(&dev).unwrap());
    assert_same(
        "many rows",
        &(m.lazy() * &v).sum_dim::<1>(),
        &(gm.lazy() * &gv).sum_dim::<1>(),
    );
}

/// Layouts for the reductions: plain, long rows and columns, zero-size,
/// 0-d, transposed, expanded (stride 0) and narrowed views.
fn layouts<E: Gen>(seed: u64) -> Vec<(String, T<E>)> {
    let mut out: Vec<(String, T<E>)> = [
        vec![3usize, 70, 5],
        vec![1000, 3],
        vec![40_000],
        vec![4, 0, 3],
        vec![],
    ]
    .into_iter()
    .enumerate()
    .map(|(i, d)| (format!("{d:?}"), rand(&d, seed + i as u64, false)))
    .collect();
    let base = rand::<E>(&[5, 7], seed + 10, false);
    out.push(("transposed (7, 5)".into(), base.permute(&[1, 0]).unwrap()));
    let row = rand::<E>(&[1, 9], seed + 11, false);
    out.push(("expanded (6, 9)".into(), row.expand(&[6, 9]).unwrap()));
    let wide = rand::<E>(&[4, 10], seed + 12, false);
    out.push(("narrowed (4, 5)".into(), wide.narrow(1, 3, 5).unwrap()));
    out
}

/// The dim lists a reduction is tried over: all, each dim, and two of
/// three.
fn dim_sets(rank: usize) -> Vec<Vec<isize>> {
    let mut sets = vec![vec![]];
    sets.extend((0..rank as isize).map(|k| vec![k]));
    if rank == 3 {
        sets.push(vec![0, 2]);
    }
    sets
}

/// Equal within `tol` relative to the larger magnitude (and 1), NaN equal
/// to NaN, infinities equal.
#[track_caller]
fn assert_near<E: CudaElement + Into<f64>>(what: &str, cpu: &T<E>, gpu: &G<E>, tol: f64) {
    let back = gpu.to_cpu().unwrap();
    assert_eq!(cpu.dims(), back.dims(), "{what}: sizes");
    for (i, (x, y)) in cpu.to_vec().into_iter().zip(back.to_vec()).enumerate() {
        let (x, y): (f64, f64) = (x.into(), y.into());
        let ok = (x.is_nan() && y.is_nan())
            || x == y
            || (x - y).abs() <= tol * x.abs().max(y.abs()).max(1.0);
        assert!(ok, "{what}: element {i}: cpu {x} vs cuda {y}");
    }
}

/// Both results, or both errors with the same message.
macro_rules! both {
    ($what:expr, $cpu:expr, $gpu:expr, |$c:ident, $g:ident| $check:expr) => {
        match ($cpu, $gpu) {
            (Ok($c), Ok($g)) => $check,
            (Err(c), Err(g)) => assert_eq!(c.to_string(), g.to_string(), "{}", $what),
            (c, g) => panic!(
                "{}: cpu {:?} vs cuda {:?}",
                $what,
                c.map(|t| t.dims().to_vec()),
                g.map(|t| t.dims().to_vec())
            ),
        }
    };
}

#[test]
fn float_statistics_match_cpu() {
    let Some(dev) = device() else { return };
    macro_rules! stats {
        ($e:ty, $tol:expr) => {
            let mut cases = layouts::<$e>(20);
            let special = T::<$e>::try_from_vec(
                vec![1., <$e>::NAN, 3., <$e>::NEG_INFINITY, <$e>::NEG_INFINITY, <$e>::NEG_INFINITY, <$e>::INFINITY, 1., 0., 0., 0., -2.],
                &[4, 3],
            )
            .unwrap();
            cases.push(("special (4, 3)".into(), special));
            for (what, a) in cases {
                let g = a.to_device(&dev).unwrap();
                for dims in dim_sets(a.rank()) {
                    for keep in [false, true] {
                        let w = |op: &str| format!("{op} {} {what} over {dims:?} keepdim {keep}", <$e as Element>::NAME);
                        for c in [0usize, 1, 2] {
                            both!(w(&format!("var({c})")), a.try_var_dims(&dims, keep, c), g.try_var_dims(&dims, keep, c), |x, y| assert_near(&w("var"), &x, &y, $tol));
                            both!(w(&format!("std({c})")), a.try_std_dims(&dims, keep, c), g.try_std_dims(&dims, keep, c), |x, y| assert_near(&w("std"), &x, &y, $tol));
                        }
                        for p in [0.0, 1.0, 2.0, 3.0, 0.5, f64::INFINITY, f64::NEG_INFINITY] {
                            both!(w(&format!("norm({p})")), a.try_norm_dims(&dims, keep, p), g.try_norm_dims(&dims, keep, p), |x, y| assert_near(&w(&format!("norm({p})")), &x, &y, $tol));
                        }
                        both!(w("logsumexp"), a.try_logsumexp_dims(&dims, keep), g.try_logsumexp_dims(&dims, keep), |x, y| assert_near(&w("logsumexp"), &x, &y, $tol));
                    }
                }
            }
        };
    }
    stats!(f64, 1e-10);
    stats!(f32, 1e-4);
    // The static forms run the same primitives.
    let t = Tensor::<f64, Shape![2, 3]>::from_vec(vec![1., 2., 3., 4., 6., 8.]);
    let g = t.to_device(&dev).unwrap();
    let v: Tensor<f64, Shape![2], Cuda> = g.var_dim::<1>(1);
    assert_eq!(v.to_cpu().unwrap().to_vec(), t.var_dim::<1>(1).to_vec());
    assert_eq!(g.norm(2.0).to_cpu().unwrap().item(), t.norm(2.0).item());
    let l: Tensor<f64, Shape![1, 3], Cuda> = g.logsumexp_dim_keepdim::<0>();
    assert_near(
        "logsumexp_dim_keepdim",
        &t.logsumexp_dim_keepdim::<0>().into_dyn(),
        &l.into_dyn(),
        1e-12,
    );
}

#[test]
fn all_and_any_match_cpu() {
    let Some(dev) = device() else { return };
    macro_rules! truth {
        ($e:ty) => {
            let mut cases = layouts::<$e>(30);
            cases.push(("all zero (3, 4)".into(), T::<$e>::try_zeros(&[3, 4]).unwrap()));
            for (what, a) in cases {
                let g = a.to_device(&dev).unwrap();
                for dims in dim_sets(a.rank()) {
                    for keep in [false, true] {
                        let w = format!("{} {what} over {dims:?} keepdim {keep}", <$e as Element>::NAME);
                        both!(w, a.try_all_dims(&dims, keep), g.try_all_dims(&dims, keep), |x, y| assert_same(&format!("all {w}"), &x, &y));
                        both!(w, a.try_any_dims(&dims, keep), g.try_any_dims(&dims, keep), |x, y| assert_same(&format!("any {w}"), &x, &y));
                    }
                }
            }
        };
    }
    truth!(i32);
    truth!(u8);
    truth!(bool);
    truth!(i64);
    // Floats: zeros, NaN (nonzero, as in PyTorch) and -0.0.
    let f = T::<f32>::try_from_vec(vec![0., -0., f32::NAN, 1., 0., 0.], &[3, 2]).unwrap();
    let g = f.to_device(&dev).unwrap();
    for dims in dim_sets(2) {
        let (c, x) = (
            f.try_all_dims(&dims, false).unwrap(),
            g.try_all_dims(&dims, false).unwrap(),
        );
        assert_same("all f32", &c, &x);
        let (c, x) = (
            f.try_any_dims(&dims, true).unwrap(),
            g.try_any_dims(&dims, true).unwrap(),
        );
        assert_same("any f32", &c, &x);
    }
    assert!(!g.all().to_cpu().unwrap().item() && g.any().to_cpu().unwrap().item());
}

#[test]
fn arg_reductions_match_cpu() {
    let Some(dev) = device() else { return };
    macro_rules! args {
        ($e:ty) => {
            let mut cases = layouts::<$e>(40);
            cases.push(("long row (3, 70000)".into(), rand::<$e>(&[3, 70_000], 41, false)));
            cases.push(("(200000,)".into(), rand::<$e>(&[200_000], 42, false)));
            for (what, a) in cases {
                let g = a.to_device(&dev).unwrap();
                let w = |op: &str| format!("{op} {} {what}", <$e as Element>::NAME);
                both!(w("argmax()"), a.try_argmax_dims_all(), g.try_argmax_dims_all(), |x, y| assert_same(&w("argmax()"), &x, &y));
                both!(w("argmin()"), a.try_argmin_dims_all(), g.try_argmin_dims_all(), |x, y| assert_same(&w("argmin()"), &x, &y));
                for d in 0..a.rank() as isize {
                    for keep in [false, true] {
                        let w = |op: &str| format!("{op} {} {what} dim {d} keepdim {keep}", <$e as Element>::NAME);
                        both!(w("argmax"), a.try_argmax(d, keep), g.try_argmax(d, keep), |x, y| assert_same(&w("argmax"), &x, &y));
                        both!(w("argmin"), a.try_argmin(d, keep), g.try_argmin(d, keep), |x, y| assert_same(&w("argmin"), &x, &y));
                        match (a.try_max_with_indices(d, keep), g.try_max_with_indices(d, keep)) {
                            (Ok((cv, ci)), Ok((gv, gi))) => {
                                assert_same(&w("max values"), &cv, &gv);
                                assert_same(&w("max indices"), &ci, &gi);
                            }
                            (Err(c), Err(x)) => assert_eq!(c.to_string(), x.to_string()),
                            _ => panic!("{}: one failed", w("max_with_indices")),
                        }
                        match (a.try_min_with_indices(d, keep), g.try_min_with_indices(d, keep)) {
                            (Ok((cv, ci)), Ok((gv, gi))) => {
                                assert_same(&w("min values"), &cv, &gv);
                                assert_same(&w("min indices"), &ci, &gi);
                            }
                            (Err(c), Err(x)) => assert_eq!(c.to_string(), x.to_string()),
                            _ => panic!("{}: one failed", w("min_with_indices")),
                        }
                    }
                }
            }
        };
    }
    args!(f32);
    args!(f64);
    args!(i32);
    args!(i64);
    args!(u8);
    // NaN wins (the first one), ties go to the first index.
    let t = T::<f64>::try_from_vec(
        vec![1., 5., 5., f64::NAN, 2., f64::NAN, 5., 5., 0., 0., 9., 9.],
        &[3, 4],
    )
    .unwrap();
    let g = t.to_device(&dev).unwrap();
    for d in [0, 1] {
        assert_same(
            "argmax special",
            &t.try_argmax(d, false).unwrap(),
            &g.try_argmax(d, false).unwrap(),
        );
        assert_same(
            "argmin special",
            &t.try_argmin(d, false).unwrap(),
            &g.try_argmin(d, false).unwrap(),
        );
    }
    assert_eq!(g.argmax().to_cpu().unwrap().item(), t.argmax().item());
    let s = Tensor::<i32, Shape![2, 3]>::from_vec(vec![1, 9, 9, 7, 0, 8]);
    let gs = s.to_device(&dev).unwrap();
    let i: Tensor<i64, Shape![1, 3], Cuda> = gs.argmin_dim_keepdim::<0>();
    assert_eq!(
        i.to_cpu().unwrap().to_vec(),
        s.argmin_dim_keepdim::<0>().to_vec()
    );
    let (v, i) = gs.max_dim_with_indices::<1>();
    assert_eq!(
        (v.to_cpu().unwrap().to_vec(), i.to_cpu().unwrap().to_vec()),
        (vec![9, 8], vec![1, 2])
    );
}

/// `argmax()` / `argmin()` of a tensor of dynamic rank as a fallible call
/// (the typed forms panic on an empty tensor).
trait ArgAll<E, D: shaped::device::Device> {
    fn try_argmax_dims_all(&self) -> Result<Tensor<i64, DynRank, D>, String>;
    fn try_argmin_dims_all(&self) -> Result<Tensor<i64, DynRank, D>, String>;
}
macro_rules! arg_all {
    ($d:ty) => {
        impl<E: shaped::element::Numeric + CudaElement> ArgAll<E, $d> for Tensor<E, DynRank, $d> {
            fn try_argmax_dims_all(&self) -> Result<Tensor<i64, DynRank, $d>, String> {
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.argmax().into_dyn()))
                    .map_err(panic_text)
            }
            fn try_argmin_dims_all(&self) -> Result<Tensor<i64, DynRank, $d>, String> {
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.argmin().into_dyn()))
                    .map_err(panic_text)
            }
        }
    };
}
arg_all!(shaped::device::Cpu);
arg_all!(Cuda);

fn panic_text(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

#[test]
fn softmax_matches_cpu() {
    let Some(dev) = device() else { return };
    macro_rules! soft {
        ($e:ty, $tol:expr) => {
            let mut cases = layouts::<$e>(50);
            let special = T::<$e>::try_from_vec(
                vec![1., <$e>::NAN, 3., <$e>::NEG_INFINITY, <$e>::NEG_INFINITY, <$e>::NEG_INFINITY, <$e>::INFINITY, 1., 0., 1000., 1000., -1000.],
                &[4, 3],
            )
            .unwrap();
            cases.push(("special (4, 3)".into(), special));
            for (what, a) in cases {
                let g = a.to_device(&dev).unwrap();
                for d in -1..a.rank() as isize + 1 {
                    let w = format!("{} {what} dim {d}", <$e as Element>::NAME);
                    both!(w, a.try_softmax(d), g.try_softmax(d), |x, y| assert_near(&format!("softmax {w}"), &x, &y, $tol));
                    both!(w, a.try_log_softmax(d), g.try_log_softmax(d), |x, y| assert_near(&format!("log_softmax {w}"), &x, &y, $tol));
                }
            }
        };
    }
    soft!(f64, 1e-12);
    soft!(f32, 1e-5);
    let t = Tensor::<f32, Shape![2, 3]>::from_vec(vec![1., 2., 3., 4., 5., 6.]);
    let g: Tensor<f32, Shape![2, 3], Cuda> = t.to_device(&dev).unwrap().softmax_dim::<1>();
    assert_near(
        "softmax_dim",
        &t.softmax_dim::<1>().into_dyn(),
        &g.into_dyn(),
        1e-6,
    );
}

#[test]
fn constructors_on_the_device_match_cpu() {
    let Some(dev) = device() else { return };
    for dims in [vec![3usize, 4], vec![0, 5], vec![], vec![100_003]] {
        let w = format!("{dims:?}");
        assert_same(
            &format!("full {w}"),
            &T::<i32>::try_full(&dims, -7).unwrap(),
            &G::<i32>::try_full_on(&dev, &dims, -7).unwrap(),
        );
        assert_same(
            &format!("zeros {w}"),
            &T::<f64>::try_zeros(&dims).unwrap(),
            &G::<f64>::try_zeros_on(&dev, &dims).unwrap(),
        );
        assert_same(
            &format!("zeros bool {w}"),
            &T::<bool>::try_zeros(&dims).unwrap(),
            &G::<bool>::try_zeros_on(&dev, &dims).unwrap(),
        );
        assert_same(
            &format!("ones {w}"),
            &T::<u8>::try_ones(&dims).unwrap(),
            &G::<u8>::try_ones_on(&dev, &dims).unwrap(),
        );
        for seed in [0u64, 7, u64::MAX] {
            // Uniform draws are exact (a 53-bit integer times 2^-53, then
            // rounded to the element type on both sides).
            assert_same(
                &format!("rand f64 {w} seed {seed}"),
                &T::<f64>::try_rand(&dims, seed).unwrap(),
                &G::<f64>::try_rand_on(&dev, &dims, seed).unwrap(),
            );
            assert_same(
                &format!("rand f32 {w} seed {seed}"),
                &T::<f32>::try_rand(&dims, seed).unwrap(),
                &G::<f32>::try_rand_on(&dev, &dims, seed).unwrap(),
            );
            assert_near(
                &format!("randn f64 {w} seed {seed}"),
                &T::<f64>::try_randn(&dims, seed).unwrap(),
                &G::<f64>::try_randn_on(&dev, &dims, seed).unwrap(),
                1e-13,
            );
            assert_near(
                &format!("randn f32 {w} seed {seed}"),
                &T::<f32>::try_randn(&dims, seed).unwrap(),
                &G::<f32>::try_randn_on(&dev, &dims, seed).unwrap(),
                1e-6,
            );
        }
    }
    // Static shapes.
    let z = Tensor::<f32, Shape![2, 3], Cuda>::zeros_on(&dev);
    assert_eq!(z.to_cpu().unwrap().to_vec(), vec![0.0; 6]);
    let o = Tensor::<i64, Shape![4], Cuda>::ones_on(&dev);
    assert_eq!(o.to_cpu().unwrap().to_vec(), vec![1; 4]);
    let f = Tensor::<bool, Shape![2], Cuda>::full_on(&dev, true);
    assert_eq!(f.to_cpu().unwrap().to_vec(), vec![true; 2]);
    let r = Tensor::<f64, Shape![3, 3], Cuda>::rand_on(&dev, 5);
    assert_eq!(
        r.to_cpu().unwrap().to_vec(),
        Tensor::<f64, Shape![3, 3]>::rand(5).to_vec()
    );
    let n = Tensor::<f32, Shape![8], Cuda>::randn_on(&dev, 5);
    assert_near(
        "randn_on",
        &Tensor::<f32, Shape![8]>::randn(5).into_dyn(),
        &n.into_dyn(),
        1e-6,
    );
    // A size that does not fit the shape: the CPU's message.
    let e = Tensor::<f32, Shape![2, 3], Cuda>::try_zeros_on(&dev, &[2, 4]).unwrap_err();
    assert_eq!(
        e.to_string(),
        Tensor::<f32, Shape![2, 3]>::try_zeros(&[2, 4])
            .unwrap_err()
            .to_string()
    );
    // arange: values and errors as the CPU's.
    macro_rules! arange {
        ($e:ty: $(($s:expr, $end:expr, $st:expr)),*) => {$(
            let (c, g) = (Tensor::<$e, _>::arange($s, $end, $st), Tensor::<$e, _, Cuda>::arange_on(&dev, $s, $end, $st));
            match (c, g) {
                (Ok(c), Ok(g)) => assert_same(&format!("arange {} {:?}", <$e as Element>::NAME, ($s, $end, $st)), &c.into_dyn(), &g.into_dyn()),
                (Err(c), Err(g)) => assert_eq!(c.to_string(), g.to_string()),
                (c, g) => panic!("arange: cpu {:?} vs cuda {:?}", c.map(|t| t.to_vec()), g.map(|t| t.dims().to_vec())),
            }
        )*};
    }
    arange!(i64: (0, 10, 3), (10, -5, -2), (0, 0, 1), (0, 5, 0), (5, 0, 1));
    arange!(f64: (0.0, 1.0, 0.1), (1.0, 2.0, 0.25), (0.0, f64::INFINITY, 1.0), (-3.5, 3.5, 0.7));
    arange!(f32: (0.0, 100_000.0, 0.5), (0.0, 1.0, f32::NAN));
    arange!(u8: (0, 255, 1));
}

/// Deterministic indices in `0..n` (`n > 0`), as `I`.
fn indices<I: TryFrom<i64>>(len: usize, n: usize, seed: u64) -> Vec<I>
where
    I::Error: std::fmt::Debug,
{
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(1);
    (0..len)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            I::try_from(((s >> 33) % n as u64) as i64).unwrap()
        })
        .collect()
}

#[test]
fn index_ops_match_cpu() {
    let Some(dev) = device() else { return };
    macro_rules! gathers {
        ($e:ty, $i:ty) => {
            // (source sizes, index sizes, dim): plain, 0-d, zero-size,
            // an index smaller than the source away from dim.
            for (sd, id, dim) in [
                (vec![4usize, 5, 6], vec![4usize, 3, 6], 1isize),
                (vec![4, 5, 6], vec![2, 5, 6], 0),
                (vec![4, 5, 6], vec![4, 5, 9], -1),
                (vec![300], vec![1000], 0),
                (vec![], vec![], 0),
                (vec![3, 0], vec![3, 0], 1),
                (vec![3, 4], vec![0, 4], 0),
            ] {
                let a = rand::<$e>(&sd, 60, false);
                let wdim = if sd.is_empty() { 0 } else { dim.rem_euclid(sd.len() as isize) as usize };
                let size = if sd.is_empty() { 1 } else { sd[wdim] };
                let idx = T::<$i>::try_from_vec(indices(id.iter().product(), size.max(1), 61), &id).unwrap();
                let (ga, gi) = (a.to_device(&dev).unwrap(), idx.to_device(&dev).unwrap());
                let w = format!("gather {} {} {sd:?} by {id:?} dim {dim}", <$e as Element>::NAME, <$i as Element>::NAME);
                both!(w, a.try_gather(dim, &idx), ga.try_gather(dim, &gi), |x, y| assert_same(&w, &x, &y));
            }
            // Transposed source, expanded index.
            let a = rand::<$e>(&[6, 5], 62, false).permute::<DynRank>(&[1, 0]).unwrap();
            let idx = T::<$i>::try_from_vec(indices(6, 5, 63), &[1, 6]).unwrap().expand::<DynRank>(&[4, 6]).unwrap();
            let (ga, gi) = (a.to_device(&dev).unwrap(), idx.to_device(&dev).unwrap());
            assert_same("gather transposed/expanded", &a.try_gather(0, &idx).unwrap(), &ga.try_gather(0, &gi).unwrap());
            // index_select, every axis, with repeats.
            let a = rand::<$e>(&[3, 4, 5], 64, false);
            let ga = a.to_device(&dev).unwrap();
            for k in 0..3usize {
                let n = a.dims()[k];
                let idx = Tensor::<$i, Shape![_]>::try_from_vec(indices(7, n, 65 + k as u64), &[7]).unwrap();
                let gi = idx.to_device(&dev).unwrap();
                let (c, g) = match k {
                    0 => (a.try_index_select::<0, _>(&idx).unwrap(), ga.try_index_select::<0, _>(&gi).unwrap()),
                    1 => (a.try_index_select::<1, _>(&idx).unwrap(), ga.try_index_select::<1, _>(&gi).unwrap()),
                    _ => (a.try_index_select::<2, _>(&idx).unwrap(), ga.try_index_select::<2, _>(&gi).unwrap()),
                };
                assert_same(&format!("index_select {} axis {k}", <$e as Element>::NAME), &c, &g);
            }
            // take_along_dim: the index broadcast against the source.
            let a = rand::<$e>(&[4, 1, 5], 67, false);
            let idx = T::<$i>::try_from_vec(indices(3 * 2 * 1, 4, 68), &[3, 2, 1]).unwrap();
            let (ga, gi) = (a.to_device(&dev).unwrap(), idx.to_device(&dev).unwrap());
            for d in [0isize, -3] {
                let w = format!("take_along_dim {} dim {d}", <$e as Element>::NAME);
                both!(w, a.try_take_along_dim_at(d, &idx), ga.try_take_along_dim_at(d, &gi), |x, y| assert_same(&w, &x, &y));
            }
            assert_eq!(
                a.try_take_along_dim_at(1, &idx).unwrap_err().to_string(),
                ga.try_take_along_dim_at(1, &gi).unwrap_err().to_string()
            );
            // Out of range: the CPU's message, nothing written.
            let bad = T::<$i>::try_from_vec(vec![0 as $i, 9 as $i, -1 as $i], &[1, 3]).unwrap();
            let a = rand::<$e>(&[2, 4], 66, false);
            let (ga, gb) = (a.to_device(&dev).unwrap(), bad.to_device(&dev).unwrap());
            assert_eq!(a.try_gather(1, &bad).unwrap_err().to_string(), ga.try_gather(1, &gb).unwrap_err().to_string());
        };
    }
    macro_rules! scatters {
        ($e:ty, $i:ty, $add:expr) => {
            // Unique indices along dim (a permutation per line) for
            // `scatter_`, whose choice among repeats is unspecified on CUDA;
            // repeats for `scatter_add_`.
            let out = rand::<$e>(&[5, 6], 70, false);
            let perm: Vec<$i> = (0..4).flat_map(|r| (0..6).map(move |c| ((c + r) % 6) as $i)).collect();
            let idx = T::<$i>::try_from_vec(perm, &[4, 6]).unwrap();
            let src = rand::<$e>(&[4, 7], 71, false);
            let (gout, gi, gs) = (out.to_device(&dev).unwrap(), idx.to_device(&dev).unwrap(), src.to_device(&dev).unwrap());
            let w = format!("scatter {} {}", <$e as Element>::NAME, <$i as Element>::NAME);
            assert_same(&w, &out.try_scatter(1, &idx, &src).unwrap(), &gout.try_scatter(1, &gi, &gs).unwrap());
            // In place into a transposed view.
            let mut c = rand::<$e>(&[6, 5], 72, false).permute::<DynRank>(&[1, 0]).unwrap();
            let mut g = c.to_device(&dev).unwrap();
            c.try_scatter_(1, &idx, &src).unwrap();
            g.try_scatter_(1, &gi, &gs).unwrap();
            assert_same(&format!("{w} in place, transposed"), &c, &g);
            if $add {
                let rep = T::<$i>::try_from_vec(indices(8 * 3, 5, 73), &[8, 3]).unwrap();
                let src = rand::<$e>(&[8, 3], 74, false).expand::<DynRank>(&[8, 3]).unwrap();
                let out = rand::<$e>(&[5, 3], 75, false);
                let (gout, gr, gs) = (out.to_device(&dev).unwrap(), rep.to_device(&dev).unwrap(), src.to_device(&dev).unwrap());
                // Atomic adds come in any order: `assert_same`'s float
                // tolerance covers the rounding differences.
                assert_same(&format!("scatter_add {w}"), &out.try_scatter_add(0, &rep, &src).unwrap(), &gout.try_scatter_add(0, &gr, &gs).unwrap());
                // An empty index writes nothing and is not checked.
                let none = T::<$i>::try_zeros(&[0, 3]).unwrap();
                assert_same("scatter_add empty", &out.try_scatter_add(0, &none, &src).unwrap(), &gout.try_scatter_add(0, &none.to_device(&dev).unwrap(), &gs).unwrap());
            }
            let bad = T::<$i>::try_from_vec(vec![7 as $i], &[1, 1]).unwrap();
            let mut g = gout.deep_copy();
            let e = g.try_scatter_(0, &bad.to_device(&dev).unwrap(), &gs).unwrap_err().to_string();
            assert_eq!(e, out.clone().try_scatter_(0, &bad, &src).unwrap_err().to_string());
            assert_same("nothing written after an error", &out, &g);
        };
    }
    gathers!(f32, i64);
    gathers!(f64, i32);
    gathers!(i32, i64);
    gathers!(i64, i32);
    gathers!(u8, i64);
    scatters!(f32, i64, true);
    scatters!(f64, i32, true);
    scatters!(i32, i64, true);
    scatters!(i64, i64, true);
    scatters!(u8, i32, true);
    // bool: gather and scatter (no scatter_add).
    let b = rand::<bool>(&[4, 6], 80, false);
    let idx = T::<i64>::try_from_vec(indices(12, 6, 81), &[4, 3]).unwrap();
    assert_same(
        "gather bool",
        &b.try_gather(1, &idx).unwrap(),
        &b.to_device(&dev)
            .unwrap()
            .try_gather(1, &idx.to_device(&dev).unwrap())
            .unwrap(),
    );
}

#[test]
fn joins_and_masked_ops_match_cpu() {
    let Some(dev) = device() else { return };
    macro_rules! joins {
        ($e:ty) => {
            let a = rand::<$e>(&[3, 4], 90, false);
            let b = rand::<$e>(&[5, 4], 91, false).narrow::<DynRank>(0, 1, 2).unwrap();
            let c = rand::<$e>(&[4, 0], 92, false).permute::<DynRank>(&[1, 0]).unwrap();
            let d = rand::<$e>(&[1, 4], 93, false).expand::<DynRank>(&[3, 4]).unwrap();
            let parts = [&a, &b, &c, &d];
            let gparts: Vec<G<$e>> = parts.iter().map(|p| p.to_device(&dev).unwrap()).collect();
            let grefs: Vec<&G<$e>> = gparts.iter().collect();
            let w = format!("cat {}", <$e as Element>::NAME);
            assert_same(&w, &T::<$e>::try_cat::<0>(&parts).unwrap(), &G::<$e>::try_cat::<0>(&grefs).unwrap());
            // Errors: the CPU's.
            assert_eq!(
                T::<$e>::try_cat::<1>(&parts).unwrap_err().to_string(),
                G::<$e>::try_cat::<1>(&grefs).unwrap_err().to_string()
            );
            let e = rand::<$e>(&[3, 4], 94, false).permute::<DynRank>(&[1, 0]).unwrap();
            let f = rand::<$e>(&[4, 3], 95, false);
            for k in 0..3 {
                let (ge, gf) = (e.to_device(&dev).unwrap(), f.to_device(&dev).unwrap());
                let (c, g) = match k {
                    0 => (T::<$e>::try_stack::<0>(&[&e, &f]).unwrap(), G::<$e>::try_stack::<0>(&[&ge, &gf]).unwrap()),
                    1 => (T::<$e>::try_stack::<1>(&[&e, &f]).unwrap(), G::<$e>::try_stack::<1>(&[&ge, &gf]).unwrap()),
                    _ => (T::<$e>::try_stack::<2>(&[&e, &f]).unwrap(), G::<$e>::try_stack::<2>(&[&ge, &gf]).unwrap()),
                };
                assert_same(&format!("stack {} axis {k}", <$e as Element>::NAME), &c, &g);
            }
            // masked_fill (broadcast together), masked_fill_ (into a
            // transposed view), masked_select (broadcast, and an all-false
            // mask).
            let m = rand::<bool>(&[2, 1, 4], 96, false);
            let (ga, gm) = (a.to_device(&dev).unwrap(), m.to_device(&dev).unwrap());
            let v = <$e as Gen>::make(1, 97, true)[0];
            assert_same("masked_fill", &a.try_masked_fill(&m, v).unwrap(), &ga.try_masked_fill(&gm, v).unwrap());
            assert_same("masked_select", &a.try_masked_select(&m).unwrap().into_dyn(), &ga.try_masked_select(&gm).unwrap().into_dyn());
            let none = T::<bool>::try_zeros(&[4]).unwrap();
            assert_same("masked_select none", &a.try_masked_select(&none).unwrap().into_dyn(), &ga.try_masked_select(&none.to_device(&dev).unwrap()).unwrap().into_dyn());
            let row = rand::<bool>(&[3], 98, false);
            let mut c = rand::<$e>(&[3, 4], 99, false).permute::<DynRank>(&[1, 0]).unwrap();
            let mut g = c.to_device(&dev).unwrap();
            c.try_masked_fill_(&row, v).unwrap();
            g.try_masked_fill_(&row.to_device(&dev).unwrap(), v).unwrap();
            assert_same("masked_fill_", &c, &g);
            let wide = T::<bool>::try_zeros(&[5]).unwrap();
            assert_eq!(
                c.try_masked_fill_(&wide, v).unwrap_err().to_string(),
                g.try_masked_fill_(&wide.to_device(&dev).unwrap(), v).unwrap_err().to_string()
            );
        };
    }
    joins!(f32);
    joins!(f64);
    joins!(i32);
    joins!(i64);
    joins!(u8);
    joins!(bool);
    // Static shapes.
    let a = Tensor::<f32, Shape![2, 3]>::from_vec(vec![1., 2., 3., 4., 5., 6.]);
    let ga = a.to_device(&dev).unwrap();
    let s: Tensor<f32, Shape![_, 2, 3], Cuda> = Tensor::stack::<0>(&[&ga, &ga]);
    assert_eq!(
        s.to_cpu().unwrap().to_vec(),
        Tensor::<f32, Shape![2, 3]>::stack::<0>(&[&a, &a]).to_vec()
    );
}

/// Where the device side of [`index_reductions_and_masks_match_cpu`] runs:
/// contiguous inputs go there, the same views are taken on both sides,
/// results come back for the comparison.
trait Target {
    type D: shaped::backend::Backend<f32>
        + shaped::backend::Backend<f64>
        + shaped::backend::Backend<i32>
        + shaped::backend::Backend<i64>
        + shaped::backend::Backend<u8>
        + shaped::backend::Backend<bool>;
    fn put<E: CudaElement>(&self, t: &T<E>) -> Tensor<E, DynRank, Self::D>;
    fn back<E: CudaElement>(&self, t: &Tensor<E, DynRank, Self::D>) -> T<E>;
}

/// The GPU.
struct OnGpu(shaped::device::CudaDevice);
impl Target for OnGpu {
    type D = Cuda;
    fn put<E: CudaElement>(&self, t: &T<E>) -> G<E> {
        t.to_device(&self.0).unwrap()
    }
    fn back<E: CudaElement>(&self, t: &G<E>) -> T<E> {
        t.to_cpu().unwrap()
    }
}

#[track_caller]
fn assert_close<E: Close>(what: &str, cpu: &T<E>, dev: &T<E>) {
    assert_eq!(cpu.dims(), dev.dims(), "{what}: sizes");
    let (a, b) = (cpu.to_vec(), dev.to_vec());
    for (i, (&x, &y)) in a.iter().zip(&b).enumerate() {
        assert!(E::close(x, y), "{what}: element {i}: cpu {x} vs device {y}");
    }
}

/// `scatter_reduce` (every reduction, with and without `self`, repeated
/// indices), `index_add_` / `index_copy_`, `scatter` with a value,
/// `masked_scatter`, `masked_fill` with a 0-d tensor, `take_along_dim`
/// without a dim and `nonzero`, on `x`'s device against the CPU: plain,
/// transposed and expanded operands, zero-size dims, 0-d tensors, and the
/// CPU's error messages.
fn index_reductions_and_masks<X: Target>(x: &X) {
    use shaped::ops::index::ScatterReduce;
    type Idx<D> = Tensor<i64, Shape![_], D>;
    let reductions = [
        ScatterReduce::Sum,
        ScatterReduce::Prod,
        ScatterReduce::Mean,
        ScatterReduce::Amax,
        ScatterReduce::Amin,
    ];
    macro_rules! numeric {
        ($e:ty, $i:ty) => {
            let name = <$e as Element>::NAME;
            // (self sizes, index sizes, src sizes, dim): repeats along dim,
            // a smaller index, 0-d, zero-size index.
            for (sd, id, rd, dim) in [
                (vec![5usize, 3], vec![8usize, 3], vec![8usize, 4], 0isize),
                (vec![4, 6], vec![4, 9], vec![5, 9], -1),
                (vec![], vec![], vec![], 0),
                (vec![4, 3], vec![0, 3], vec![2, 3], 0),
            ] {
                let wdim = if sd.is_empty() { 0 } else { dim.rem_euclid(sd.len() as isize) as usize };
                let size = if sd.is_empty() { 1 } else { sd[wdim] };
                let out = rand::<$e>(&sd, 200, true);
                let idx = T::<$i>::try_from_vec(indices(id.iter().product(), size, 201), &id).unwrap();
                let src = rand::<$e>(&rd, 202, true);
                let (go, gi, gs) = (x.put(&out), x.put(&idx), x.put(&src));
                for r in reductions {
                    for include in [true, false] {
                        let w = format!("scatter_reduce {name} {r:?} self {include} {sd:?} by {id:?}");
                        let c = out.try_scatter_reduce(dim, &idx, &src, r, include).unwrap();
                        let g = go.try_scatter_reduce(dim, &gi, &gs, r, include).unwrap();
                        assert_close(&w, &c, &x.back(&g));
                    }
                }
                let v = <$e as Gen>::make(1, 203, true)[0];
                let w = format!("scatter value {name} {sd:?}");
                assert_close(&w, &out.try_scatter_value(dim, &idx, v).unwrap(), &x.back(&go.try_scatter_value(dim, &gi, v).unwrap()));
            }
            // In place into a transposed view, from an expanded source.
            let base = rand::<$e>(&[3, 5], 204, true);
            let mut c = base.permute::<DynRank>(&[1, 0]).unwrap();
            let mut g = x.put(&base).permute::<DynRank>(&[1, 0]).unwrap();
            let idx = T::<$i>::try_from_vec(indices(12, 5, 205), &[6, 2]).unwrap();
            let row = rand::<$e>(&[1, 3], 206, true);
            let src = row.expand::<DynRank>(&[6, 3]).unwrap();
            let gsrc = x.put(&row).expand::<DynRank>(&[6, 3]).unwrap();
            for r in reductions {
                c.try_scatter_reduce_(0, &idx, &src, r, false).unwrap();
                g.try_scatter_reduce_(0, &x.put(&idx), &gsrc, r, false).unwrap();
                assert_close(&format!("scatter_reduce_ {name} {r:?} transposed"), &c, &x.back(&g));
            }
            // Errors: the CPU's, nothing written.
            let bad = T::<$i>::try_from_vec(vec![0 as $i, 7 as $i], &[2, 1]).unwrap();
            let e = g.try_scatter_reduce_(0, &x.put(&bad), &gsrc, ScatterReduce::Sum, true).unwrap_err();
            assert_eq!(e.to_string(), c.try_scatter_reduce_(0, &bad, &src, ScatterReduce::Sum, true).unwrap_err().to_string());
            assert_close("nothing written", &c, &x.back(&g));

            // index_add_ with repeats, index_copy_ with distinct indices,
            // every axis, into a transposed view.
            let base = rand::<$e>(&[4, 3, 5], 210, false);
            for k in 0..3usize {
                let mut c = base.permute::<DynRank>(&[2, 1, 0]).unwrap();
                let mut g = x.put(&base).permute::<DynRank>(&[2, 1, 0]).unwrap();
                let n = c.dims()[k];
                let mut sizes = c.dims().to_vec();
                sizes[k] = 7;
                let rep = Idx::<Cpu>::try_from_vec(indices::<i64>(7, n, 211 + k as u64), &[7]).unwrap();
                let src = rand::<$e>(&sizes, 212, false);
                c.try_index_add_(k as isize, &rep, &src).unwrap();
                let grep: Idx<X::D> = x.put(&rep.clone().into_dyn()).try_into_shape().unwrap();
                g.try_index_add_(k as isize, &grep, &x.put(&src)).unwrap();
                assert_close(&format!("index_add_ {name} axis {k}"), &c, &x.back(&g));
                let perm = Idx::<Cpu>::try_from_vec((0..n as i64).rev().collect(), &[n]).unwrap();
                sizes[k] = n;
                let src = rand::<$e>(&sizes, 213, false);
                let gperm: Idx<X::D> = x.put(&perm.clone().into_dyn()).try_into_shape().unwrap();
                c.try_index_copy_(k as isize, &perm, &src).unwrap();
                g.try_index_copy_(k as isize, &gperm, &x.put(&src)).unwrap();
                assert_close(&format!("index_copy_ {name} axis {k}"), &c, &x.back(&g));
                let bad = Idx::<Cpu>::try_from_vec(vec![n as i64; n], &[n]).unwrap();
                let gbad: Idx<X::D> = x.put(&bad.clone().into_dyn()).try_into_shape().unwrap();
                assert_eq!(
                    c.try_index_copy_(k as isize, &bad, &src).unwrap_err().to_string(),
                    g.try_index_copy_(k as isize, &gbad, &x.put(&src)).unwrap_err().to_string()
                );
            }
            // Zero-size: an empty index adds nothing.
            let z = rand::<$e>(&[3, 0], 214, false);
            let none = Idx::<Cpu>::try_from_vec(vec![], &[0]).unwrap();
            let gnone: Idx<X::D> = x.put(&none.clone().into_dyn()).try_into_shape().unwrap();
            let src = rand::<$e>(&[3, 0], 215, false);
            assert_close("index_add empty", &z.try_index_add(1, &none, &src).unwrap(), &x.back(&x.put(&z).try_index_add(1, &gnone, &x.put(&src)).unwrap()));
        };
    }
    numeric!(f32, i64);
    numeric!(f64, i32);
    numeric!(i32, i64);
    numeric!(i64, i32);
    numeric!(u8, i64);

    // NaN wins amax / amin on both devices.
    let mut vals = <f32 as Gen>::make(8, 220, true);
    vals[3] = f32::NAN;
    let src = T::<f32>::try_from_vec(vals, &[8]).unwrap();
    let idx = T::<i64>::try_from_vec(vec![0, 1, 0, 1, 2, 2, 1, 0], &[8]).unwrap();
    let out = rand::<f32>(&[3], 221, true);
    for r in [ScatterReduce::Amax, ScatterReduce::Amin] {
        assert_close(
            &format!("{r:?} with NaN"),
            &out.try_scatter_reduce(0, &idx, &src, r, true).unwrap(),
            &x.back(
                &x.put(&out)
                    .try_scatter_reduce(0, &x.put(&idx), &x.put(&src), r, true)
                    .unwrap(),
            ),
        );
    }

    macro_rules! masked {
        ($e:ty) => {
            let name = <$e as Element>::NAME;
            // masked_scatter: broadcast mask, transposed self, a source of
            // another shape with more elements than needed.
            let base = rand::<$e>(&[4, 3], 230, false);
            let m = rand::<bool>(&[4], 231, false);
            let source = rand::<$e>(&[2, 7], 232, false);
            let mut c = base.permute::<DynRank>(&[1, 0]).unwrap();
            let mut g = x.put(&base).permute::<DynRank>(&[1, 0]).unwrap();
            let (gm, gsrc) = (x.put(&m), x.put(&source));
            c.try_masked_scatter_(&m, &source).unwrap();
            g.try_masked_scatter_(&gm, &gsrc).unwrap();
            assert_close(&format!("masked_scatter_ {name}"), &c, &x.back(&g));
            let m2 = rand::<bool>(&[2, 1, 3], 233, false);
            assert_close(
                &format!("masked_scatter {name} broadcast"),
                &base.try_masked_scatter(&m2, &source).unwrap(),
                &x.back(&x.put(&base).try_masked_scatter(&x.put(&m2), &gsrc).unwrap()),
            );
            let few = rand::<$e>(&[1], 234, false);
            let all = T::<bool>::try_full(&[4], true).unwrap();
            assert_eq!(
                c.try_masked_scatter_(&all, &few).unwrap_err().to_string(),
                g.try_masked_scatter_(&x.put(&all), &x.put(&few)).unwrap_err().to_string()
            );
            // masked_fill with a 0-d tensor, out of place and in place.
            let v = rand::<$e>(&[], 235, true);
            let gv = x.put(&v);
            assert_close(&format!("masked_fill_tensor {name}"), &base.try_masked_fill_tensor(&m2, &v).unwrap(), &x.back(&x.put(&base).try_masked_fill_tensor(&x.put(&m2), &gv).unwrap()));
            c.try_masked_fill_tensor_(&m, &v).unwrap();
            g.try_masked_fill_tensor_(&gm, &gv).unwrap();
            assert_close(&format!("masked_fill_tensor_ {name}"), &c, &x.back(&g));
            let v1 = rand::<$e>(&[1], 236, true);
            assert_eq!(
                c.try_masked_fill_tensor_(&m, &v1).unwrap_err().to_string(),
                g.try_masked_fill_tensor_(&gm, &x.put(&v1)).unwrap_err().to_string()
            );
            // take_along_dim without a dim, from a transposed tensor; nonzero
            // of transposed, 0-d and zero-size tensors.
            let idx = T::<i64>::try_from_vec(indices(10, 12, 237), &[2, 5]).unwrap();
            let t = base.permute::<DynRank>(&[1, 0]).unwrap();
            let gt = x.put(&base).permute::<DynRank>(&[1, 0]).unwrap();
            assert_close(
                &format!("take_along_dim flat {name}"),
                &t.try_take_along_dim_flat(&idx).unwrap().into_dyn(),
                &x.back(&gt.try_take_along_dim_flat(&x.put(&idx)).unwrap().into_dyn()),
            );
            let bad = T::<i64>::try_from_vec(vec![12], &[1]).unwrap();
            assert_eq!(
                t.try_take_along_dim_flat(&bad).unwrap_err().to_string(),
                gt.try_take_along_dim_flat(&x.put(&bad)).err().unwrap().to_string()
            );
            let sparse = T::<$e>::try_from_vec(
                <$e as Gen>::make(12, 238, true).into_iter().enumerate().map(|(i, v)| if i % 3 == 1 { <$e>::default() } else { v }).collect(),
                &[3, 4],
            )
            .unwrap();
            for (w, c, g) in [
                ("transposed", sparse.permute::<DynRank>(&[1, 0]).unwrap(), x.put(&sparse).permute::<DynRank>(&[1, 0]).unwrap()),
                ("0-d", rand::<$e>(&[], 239, true), x.put(&rand::<$e>(&[], 239, true))),
                ("zero-size", rand::<$e>(&[2, 0], 240, true), x.put(&rand::<$e>(&[2, 0], 240, true))),
            ] {
                assert_close(&format!("nonzero {name} {w}"), &c.try_nonzero().unwrap().into_dyn(), &x.back(&g.try_nonzero().unwrap().into_dyn()));
            }
        };
    }
    masked!(f32);
    masked!(f64);
    masked!(i32);
    masked!(i64);
    masked!(u8);
    masked!(bool);
}

#[test]
fn index_reductions_and_masks_match_cpu() {
    let Some(dev) = device() else { return };
    index_reductions_and_masks(&OnGpu(dev));
}

/// `to_dtype` from `F` to every CUDA type, on the GPU against the CPU.
fn casts_from<F: Gen + CudaElement>(dev: &shaped::device::CudaDevice, seed: u64) {
    fn one<F: CudaElement, U: Close + CudaElement>(what: &str, c: &T<F>, g: &G<F>) {
        assert_same(
            &format!("{what} to {}", U::NAME),
            &c.to_dtype::<U>(),
            &g.to_dtype::<U>(),
        );
    }
    let base = rand::<F>(&[3, 1, 4], seed, false);
    let gbase = base.to_device(dev).unwrap();
    let views: Vec<(&str, T<F>, G<F>)> = vec![
        ("contiguous", base.share(), gbase.share()),
        (
            "transposed",
            base.permute(&[2, 1, 0]).unwrap(),
            gbase.permute(&[2, 1, 0]).unwrap(),
        ),
        (
            "expanded",
            base.expand(&[2, 3, 5, 4]).unwrap(),
            gbase.expand(&[2, 3, 5, 4]).unwrap(),
        ),
        (
            "zero-size",
            base.narrow(2, 1, 0).unwrap(),
            gbase.narrow(2, 1, 0).unwrap(),
        ),
    ];
    for (what, c, g) in &views {
        let what = format!("{} {what}", F::NAME);
        one::<F, f32>(&what, c, g);
        one::<F, f64>(&what, c, g);
        one::<F, i32>(&what, c, g);
        one::<F, i64>(&what, c, g);
        one::<F, u8>(&what, c, g);
        one::<F, bool>(&what, c, g);
    }
}

#[test]
fn casts_match_cpu() {
    let Some(dev) = device() else { return };
    casts_from::<f32>(&dev, 70);
    casts_from::<f64>(&dev, 71);
    casts_from::<i32>(&dev, 72);
    casts_from::<i64>(&dev, 73);
    casts_from::<u8>(&dev, 74);
    casts_from::<bool>(&dev, 75);
    // Edge values: past every target's range, infinities and NaN (the
    // rules `tests/cast_table.rs` checks on the host).
    let edges = vec![
        -0.0,
        0.5,
        -3.75,
        255.5,
        300.5,
        -300.5,
        1e10,
        9.3e18,
        -9.3e18,
        1.9e19,
        1e30,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
    ];
    let c = T::<f64>::try_from_vec(edges.clone(), &[edges.len()]).unwrap();
    let g = c.to_device(&dev).unwrap();
    assert_same("edges to f32", &c.to_dtype::<f32>(), &g.to_dtype::<f32>());
    assert_same("edges to i32", &c.to_dtype::<i32>(), &g.to_dtype::<i32>());
    assert_same("edges to i64", &c.to_dtype::<i64>(), &g.to_dtype::<i64>());
    assert_same("edges to u8", &c.to_dtype::<u8>(), &g.to_dtype::<u8>());
    assert_same(
        "edges to bool",
        &c.to_dtype::<bool>(),
        &g.to_dtype::<bool>(),
    );
}

#[test]
fn dist_matches_cpu() {
    let Some(dev) = device() else { return };
    for (what, a, b) in pairs::<f64>(80, false) {
        let (ga, gb) = (a.to_device(&dev).unwrap(), b.to_device(&dev).unwrap());
        for p in [0.0, 1.0, 2.0, 3.5, f64::INFINITY] {
            let (c, g) = (a.try_dist(&b, p), ga.try_dist(&gb, p));
            match (c, g) {
                (Ok(c), Ok(g)) => {
                    assert_same(&format!("dist {what} p={p}"), &c.into_dyn(), &g.into_dyn())
                }
                (Err(c), Err(g)) => assert_eq!(c.to_string(), g.to_string()),
                (c, g) => panic!("dist {what} p={p}: cpu {c:?} vs cuda {:?}", g.map(|_| ())),
            }
        }
    }
}
