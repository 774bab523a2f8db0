//! Fused pointwise chains (`shaped::fuse`) against a naive index-by-index
//! reference: random broadcastable shapes (proptest) with contiguous,
//! transposed, expanded (stride 0) and offset views, zero-size dims,
//! integer and `bool` results, `where`; run-time errors equal to the eager
//! operations' messages; `out=` with a leaf on the written storage; the
//! streaming-store path of a large existing output. The CUDA side: each
//! expression's generated value function, compiled for the host with the
//! CUDA prelude, agrees with the CPU evaluation, and so does each input's
//! generated adjoint with the CPU's fused gradient.

use std::fmt::Write as _;
use std::process::Command;

use proptest::prelude::*;
use shaped::backend::CUDA_PRELUDE;
use shaped::backend::fused::{CudaExpr, CudaGen, Expr, Leaves, Node};
use shaped::backend::{Backend, Layout};
use shaped::device::{Cpu, Device};
use shaped::element::Element;
use shaped::element::Scalar;
use shaped::{DynRank, Shape, Tensor};

/// The broadcast sizes of `shapes`, by NumPy's rule (independent of the
/// crate's own).
fn broadcast(shapes: &[&[usize]]) -> Vec<usize> {
    let rank = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    (0..rank)
        .map(|i| {
            shapes
                .iter()
                .filter_map(|s| (i + s.len()).checked_sub(rank).map(|j| s[j]))
                .fold(1, |acc, d| if d == 1 { acc } else { d })
        })
        .collect()
}

/// The element of a row-major `data` of sizes `dims` at the broadcast
/// multi-index `idx` (of the larger rank).
fn at<T: Copy>(data: &[T], dims: &[usize], idx: &[usize]) -> T {
    let skip = idx.len() - dims.len();
    let mut off = 0;
    for (k, &d) in dims.iter().enumerate() {
        off = off * d + if d == 1 { 0 } else { idx[skip + k] };
    }
    data[off]
}

/// `f` over every broadcast multi-index of the operands, row-major.
fn naive3<T: Copy, O>(
    ops: [(&[T], &[usize]); 3],
    f: impl Fn(T, T, T) -> O,
) -> (Vec<usize>, Vec<O>) {
    let dims = broadcast(&[ops[0].1, ops[1].1, ops[2].1]);
    let n: usize = dims.iter().product();
    let mut idx = vec![0; dims.len()];
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        out.push(f(
            at(ops[0].0, ops[0].1, &idx),
            at(ops[1].0, ops[1].1, &idx),
            at(ops[2].0, ops[2].1, &idx),
        ));
        for k in (0..dims.len()).rev() {
            idx[k] += 1;
            if idx[k] < dims[k] {
                break;
            }
            idx[k] = 0;
        }
    }
    (dims, out)
}

/// Three shapes that broadcast together: each a suffix of `full` with
/// some sizes set to 1.
fn shapes3() -> impl Strategy<Value = [Vec<usize>; 3]> {
    prop::collection::vec(0usize..5, 0..5).prop_flat_map(|full| {
        let one = |full: Vec<usize>| {
            let r = full.len();
            (0..=r, prop::collection::vec(any::<bool>(), r)).prop_map(move |(keep, ones)| {
                full[r - keep..]
                    .iter()
                    .zip(&ones[r - keep..])
                    .map(|(&d, &o)| if o { 1 } else { d })
                    .collect::<Vec<usize>>()
            })
        };
        (one(full.clone()), one(full.clone()), one(full)).prop_map(|(a, b, c)| [a, b, c])
    })
}

/// A tensor of sizes `dims` holding `values` (cycled), laid out as `how`
/// says: 0 contiguous, 1 the transpose of a contiguous tensor of the
/// reversed sizes (non-contiguous), 2 an expansion of its first row
/// (stride 0 on the first dim), 3 a narrowed view at an offset.
fn make(dims: &[usize], values: &[f64], how: u8) -> (Tensor<f64, DynRank>, Vec<f64>) {
    let n: usize = dims.iter().product();
    let vals: Vec<f64> = (0..n).map(|i| values[i % values.len()]).collect();
    let contiguous = Tensor::<f64, DynRank>::try_from_vec(vals.clone(), dims).unwrap();
    let t = match how {
        1 if dims.len() >= 2 => {
            let rev: Vec<usize> = dims.iter().rev().copied().collect();
            let perm: Vec<isize> = (0..dims.len() as isize).rev().collect();
            let base = Tensor::<f64, DynRank>::try_from_vec(vals.clone(), &rev).unwrap();
            let t: Tensor<f64, DynRank> = base.permute(&perm).unwrap();
            let data = t.to_vec();
            return (t, data);
        }
        2 if !dims.is_empty() && dims[0] > 1 => {
            let mut row_dims = dims.to_vec();
            row_dims[0] = 1;
            let m: usize = row_dims.iter().product();
            let row = Tensor::<f64, DynRank>::try_from_vec(vals[..m].to_vec(), &row_dims).unwrap();
            let sizes: Vec<isize> = dims.iter().map(|&d| d as isize).collect();
            let t: Tensor<f64, DynRank> = row.expand(&sizes).unwrap();
            let data = t.to_vec();
            return (t, data);
        }
        3 if !dims.is_empty() => {
            let mut big = dims.to_vec();
            big[0] += 2;
            let m: usize = big.iter().product();
            let base = Tensor::<f64, DynRank>::try_from_vec(
                (0..m).map(|i| values[i % values.len()] - 1.0).collect(),
                &big,
            )
            .unwrap();
            let t: Tensor<f64, DynRank> = base.narrow(0, 1, dims[0]).unwrap();
            let data = t.to_vec();
            return (t, data);
        }
        _ => contiguous,
    };
    (t, vals)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn chains_match_a_naive_loop(
        [sa, sb, sc] in shapes3(),
        values in prop::collection::vec(-4.0f64..4.0, 1..24),
        how in prop::array::uniform3(0u8..4),
    ) {
        let (a, da) = make(&sa, &values, how[0]);
        let (b, db) = make(&sb, &values[1..].iter().chain(&values[..1]).copied().collect::<Vec<_>>(), how[1]);
        let (c, dc) = make(&sc, &values.iter().rev().copied().collect::<Vec<_>>(), how[2]);
        let ops = [(&da[..], &sa[..]), (&db[..], &sb[..]), (&dc[..], &sc[..])];

        // relu(a * b + c)
        let got = (a.lazy() * &b + &c).relu().eval();
        let (dims, want) = naive3(ops, |x, y, z| (x * y + z).max(0.0));
        prop_assert_eq!(got.dims(), &dims[..]);
        prop_assert_eq!(got.to_vec(), want);

        // where(a > b, tanh(a - c), b * 2 - 1), a bool node in the middle
        let got = a.lazy().gt(&b).select((a.lazy() - &c).tanh(), b.lazy() * 2.0 - 1.0).eval();
        let (_, want) = naive3(ops, |x, y, z| if x > y { (x - z).tanh() } else { y * 2.0 - 1.0 });
        prop_assert_eq!(got.to_vec(), want);

        // a comparison at the root: a bool tensor
        let got = (a.lazy() * 0.5 + &b).le(&c).eval();
        let (_, want) = naive3(ops, |x, y, z| x * 0.5 + y <= z);
        prop_assert_eq!(got.to_vec(), want);

        // into an existing output of the broadcast sizes
        let mut out = Tensor::<f64, DynRank>::try_zeros(&dims).unwrap();
        (a.lazy().clamp(-1.0, &b) + &c).eval_into(&mut out).unwrap();
        let (_, want) = naive3(ops, |x, y, z| {
            let lo = x.max(-1.0);
            (if lo > y { y } else { lo }) + z
        });
        prop_assert_eq!(out.to_vec(), want);
    }
}

/// A broadcast leaf written between two evaluations (the same storage, so
/// the same address, another value): the second evaluation reads the new
/// value (a per-thread arena reused across evaluations once kept the old
/// one's broadcast lane).
#[test]
fn a_broadcast_leaf_written_between_evaluations_is_read_again() {
    let a = Tensor::<f32, Shape![4, 3000]>::ones();
    let mut c = Tensor::<f32, Shape![4, 1]>::zeros();
    for round in 1..4 {
        c.fill_(round as f32);
        let y = (a.lazy() * &c).eval();
        assert!(y.iter().all(|v| v == round as f32), "round {round}");
    }
}

#[test]
fn static_shapes_are_the_eager_shapes() {
    let a = Tensor::<f32, Shape![2, 3]>::from_vec(vec![1., -2., 3., -4., 5., -6.]);
    let b = Tensor::<f32, Shape![3]>::from_vec(vec![1., 2., 3.]);
    let c = Tensor::<f32, Shape![2, 1]>::from_vec(vec![0.5, -1.]);
    let fused: Tensor<f32, Shape![2, 3]> = ((a.lazy() * &b + &c).gelu() * &b - &c).eval();
    let eager = a.mul(&b).add(&c).gelu().mul(&b).sub(&c);
    assert_eq!(fused.to_vec(), eager.to_vec());
    // A scalar on the left, a unary minus, a 0-d result from scalars only.
    let r: Tensor<f32, Shape![2, 3]> = (2.0f32 - -a.lazy()).eval();
    assert_eq!(r.to_vec(), (&a + 2.0f32).to_vec());
    let s: Tensor<f64, Shape![]> = (shaped::fuse::lazy(3.0f64) * 2.0).eval();
    assert_eq!(s.item(), 6.0);
}

#[test]
fn integer_and_bool_chains() {
    let a = Tensor::<i32, Shape![4]>::from_vec(vec![-3, -1, 2, i32::MAX]);
    let b = Tensor::<i32, Shape![2, 1]>::from_vec(vec![2, -5]);
    let got = (a.lazy() * 3 - &b).abs().eval();
    let want: Vec<i32> = [2i32, -5]
        .iter()
        .flat_map(|&y| {
            [-3i32, -1, 2, i32::MAX].map(|x| x.wrapping_mul(3).wrapping_sub(y).wrapping_abs())
        })
        .collect();
    assert_eq!(got.to_vec(), want);
    let m = a.lazy().gt(0).logical_and(b.lazy().lt(0)).eval();
    assert_eq!(
        m.to_vec(),
        [false, false, false, false, false, false, true, true]
    );
    let u = Tensor::<u8, Shape![3]>::from_vec(vec![250, 3, 7]);
    assert_eq!((u.lazy() + 10u8).eval().to_vec(), [4, 13, 17]);
}

#[test]
fn zero_size_dims() {
    let a = Tensor::<f64, DynRank>::try_ones(&[0, 3]).unwrap();
    let b = Tensor::<f64, DynRank>::try_ones(&[3]).unwrap();
    let r = (a.lazy() * &b).exp().eval();
    assert_eq!(r.dims(), &[0, 3]);
    let mut out = Tensor::<f64, DynRank>::try_zeros(&[0, 3]).unwrap();
    (a.lazy() + &b).eval_into(&mut out).unwrap();
}

#[test]
fn run_time_errors_are_the_eager_ones() {
    let a = Tensor::<f32, DynRank>::try_ones(&[2, 3]).unwrap();
    let b = Tensor::<f32, DynRank>::try_ones(&[4]).unwrap();
    let c = Tensor::<f32, DynRank>::try_ones(&[5, 1, 1]).unwrap();
    // The first mismatch in evaluation order: `a * c` broadcasts, `+ b` not.
    let fused = (a.lazy() * &c + &b)
        .relu()
        .try_eval()
        .unwrap_err()
        .to_string();
    let eager = a.mul(&c).try_add(&b).unwrap_err().to_string();
    assert_eq!(fused, eager);
    assert_eq!(
        fused,
        "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 2"
    );
    // out= of other sizes.
    let mut out = Tensor::<f32, DynRank>::try_zeros(&[3, 3]).unwrap();
    let ones = Tensor::<f32, DynRank>::try_ones(&[3]).unwrap();
    let fused = (a.lazy() + &ones)
        .eval_into(&mut out)
        .unwrap_err()
        .to_string();
    let eager = a.add_out(&ones, &mut out).unwrap_err().to_string();
    assert_eq!(fused, eager);
    // The panicking form panics with the same message.
    let p = std::panic::catch_unwind(|| (a.lazy() * &b).eval()).unwrap_err();
    assert_eq!(
        p.downcast_ref::<String>().unwrap(),
        &a.try_mul(&b).unwrap_err().to_string()
    );
}

#[test]
fn out_on_a_leafs_storage() {
    // The written tensor is a leaf: computed first, then copied (as eager
    // `out=` does with an input that is the output).
    let mut x = Tensor::<f64, Shape![4]>::from_vec(vec![-1., 2., -3., 4.]);
    let view = x.share();
    (view.lazy() * 2.0 - 1.0).relu().eval_into(&mut x).unwrap();
    assert_eq!(x.to_vec(), [0., 3., 0., 7.]);
    // A leaf that partly overlaps the written tensor: PyTorch's error.
    let base = Tensor::<f64, DynRank>::try_zeros(&[8]).unwrap();
    let mut out: Tensor<f64, DynRank> = base.narrow(0, 0, 4).unwrap();
    let other: Tensor<f64, DynRank> = base.narrow(0, 2, 4).unwrap();
    let fused = (other.lazy() + 1.0)
        .eval_into(&mut out)
        .unwrap_err()
        .to_string();
    let eager = other.add_out(&other, &mut out).unwrap_err().to_string();
    assert_eq!(fused, eager);
    // An output whose elements overlap.
    let one = Tensor::<f64, DynRank>::try_zeros(&[1]).unwrap();
    let mut wide: Tensor<f64, DynRank> = one.expand(&[4]).unwrap();
    let src = Tensor::<f64, DynRank>::try_ones(&[4]).unwrap();
    let fused = (src.lazy() * 2.0)
        .eval_into(&mut wide)
        .unwrap_err()
        .to_string();
    assert!(
        fused.contains("more than one element of the written-to tensor"),
        "{fused}"
    );
}

#[test]
fn too_many_leaves_is_an_error() {
    let a = Tensor::<f32, Shape![2]>::ones();
    let e = a.lazy() + &a + &a + &a + &a + &a + &a + &a + &a + &a + &a + &a + &a + &a + &a;
    assert_eq!(e.eval().to_vec(), [15.0, 15.0]);
    let err = (e + &a).try_eval().unwrap_err().to_string();
    assert_eq!(
        err,
        "a fused expression reads at most 15 tensors, this one reads 16: evaluate a part of it first"
    );
}

#[test]
fn a_large_existing_output_is_streamed_and_exact() {
    // 112 MiB of f32: past the streaming threshold (96 MiB at most).
    let n = 28 << 20;
    let a = Tensor::<f32, DynRank>::try_from_vec(
        (0..n).map(|i| (i % 1000) as f32).collect(),
        &[n / 1024, 1024],
    )
    .unwrap();
    let b = Tensor::<f32, DynRank>::try_from_vec((0..1024).map(|i| i as f32).collect(), &[1024])
        .unwrap();
    let mut out = Tensor::<f32, DynRank>::try_zeros(&[n / 1024, 1024]).unwrap();
    (a.lazy() - &b).eval_into(&mut out).unwrap();
    let got = out.to_vec();
    for i in (0..n).step_by(4093).chain(n - 5..n) {
        assert_eq!(got[i], (i % 1000) as f32 - (i % 1024) as f32, "element {i}");
    }
}

/// The C++ program evaluating `sh_value` of a generated module on `rows`
/// of leaf values, printing each result.
fn host_program(g: &CudaGen, out: &str, expr: &str, rows: &[Vec<f64>]) -> String {
    let mut src = String::from(
        "#include <cmath>\n#include <cstdio>\n#include <cstring>\nusing namespace std;\n\
         #define __device__\n#define __forceinline__ inline\n#define __restrict__\n#define __align__(n) alignas(n)\n\
         static inline float __int_as_float(int x) { float f; memcpy(&f, &x, 4); return f; }\n\
         static inline double __longlong_as_double(long long x) { double d; memcpy(&d, &x, 8); return d; }\n",
    );
    src.push_str(CUDA_PRELUDE);
    src.push_str(&g.value_function(out, expr));
    src.push_str("int main() {\n  ShScalars S = {};\n");
    for (j, s) in g.scalars().iter().enumerate() {
        match s {
            Scalar::Float(v) => writeln!(src, "  S.f[{j}] = {v:e};").unwrap(),
            Scalar::Int(v) => writeln!(src, "  S.i[{j}] = {v}LL;").unwrap(),
            Scalar::UInt(v) => writeln!(src, "  S.i[{j}] = {v}LL;").unwrap(),
            Scalar::Bool(v) => writeln!(src, "  S.i[{j}] = {};", *v as i32).unwrap(),
        }
    }
    for row in rows {
        let args: Vec<String> = row
            .iter()
            .zip(g.leaf_types())
            .map(|(v, t)| format!("({t}){v:e}"))
            .chain(["S".to_string()])
            .collect();
        writeln!(
            src,
            "  printf(\"%.17g\\n\", (double)sh_value({}));",
            args.join(", ")
        )
        .unwrap();
    }
    src.push_str("  return 0;\n}\n");
    src
}

/// Compiles and runs `src` with the host C++ compiler; `None` without one.
fn run_host(src: &str, tag: &str) -> Option<Vec<f64>> {
    let compiler = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
    Command::new(&compiler).arg("--version").output().ok()?;
    let dir = std::env::temp_dir().join(format!("shaped-fused-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (file, bin) = (dir.join("value.cpp"), dir.join("value"));
    std::fs::write(&file, src).unwrap();
    let built = Command::new(&compiler)
        .args(["-std=c++17", "-O1", "-w", "-o"])
        .arg(&bin)
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        built.status.success(),
        "the generated value function does not compile for the host:\n{}\n{src}",
        String::from_utf8_lossy(&built.stderr)
    );
    let out = Command::new(&bin).output().unwrap();
    std::fs::remove_dir_all(&dir).ok();
    Some(
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| l.parse().unwrap())
            .collect(),
    )
}

/// Every leaf's elements as `f64`, in leaf order.
#[derive(Default)]
struct LeafValues(Vec<Vec<f64>>);

impl<'a> Leaves<'a, Cpu> for LeafValues {
    fn leaf<T: Element>(&mut self, l: Layout<'a, <Cpu as Device>::Storage<T>>) {
        self.0.push(
            <Cpu as Backend<T>>::to_host(l)
                .unwrap()
                .into_iter()
                .map(|x| match x.to_scalar() {
                    Scalar::Float(v) => v,
                    Scalar::Int(v) => v as f64,
                    Scalar::UInt(v) => v as f64,
                    Scalar::Bool(v) => v as u8 as f64,
                })
                .collect(),
        );
    }
}

/// The generated CUDA value function of `e`, compiled for the host, on
/// the elements of its (same-sized, contiguous) leaves, against the CPU's
/// fused evaluation: within `tol` (0 for exact) of `max(|cpu|, floor)`.
fn cuda_agrees<E: Node<Device = Cpu>>(e: &E, cpu: Vec<f64>, (tol, floor): (f64, f64), tag: &str) {
    let mut leaves = LeafValues::default();
    e.visit(&mut leaves);
    let leaves = leaves.0;
    let mut g = CudaGen::default();
    let expr = e.erased().cuda(&mut g, 0);
    assert_eq!(g.leaf_types().len(), leaves.len());
    let rows: Vec<Vec<f64>> = (0..cpu.len())
        .map(|i| leaves.iter().map(|l| l[i]).collect())
        .collect();
    let out = shaped::backend::fused::c_name(<E::Elem as Element>::NAME);
    let Some(got) = run_host(&host_program(&g, out, &expr, &rows), tag) else {
        println!("skipped: no host C++ compiler to compile the generated CUDA");
        return;
    };
    assert_eq!(got.len(), cpu.len());
    for (i, (&c, &w)) in got.iter().zip(&cpu).enumerate() {
        let ok = (c.is_nan() && w.is_nan()) || c == w || (c - w).abs() <= tol * w.abs().max(floor);
        assert!(ok, "{tag}: element {i}: CUDA {c:e}, CPU {w:e}");
    }
}

#[test]
fn generated_cuda_matches_the_cpu() {
    let xs: Vec<f64> = (0..40).map(|i| (i as f64 - 20.0) / 4.0).collect();
    let ys: Vec<f64> = (0..40).map(|i| ((i * 7) % 11) as f64 / 3.0 - 1.5).collect();
    let zs: Vec<f64> = (0..40).map(|i| ((i * 5) % 13) as f64 / 2.0 - 3.0).collect();
    let f32s = |v: &[f64]| {
        Tensor::<f32, DynRank>::try_from_vec(v.iter().map(|&x| x as f32).collect(), &[v.len()])
            .unwrap()
    };
    let (a, b, c) = (f32s(&xs), f32s(&ys), f32s(&zs));
    let back = |v: &[f32]| v.iter().map(|&x| x as f64).collect::<Vec<_>>();

    let e = (a.lazy() * &b + &c).relu();
    cuda_agrees(e.node(), back(&e.eval().to_vec()), (0.0, 0.0), "relu");
    // gelu: the host's erf against erf_f32 (within 2 ulp). Those ulps are
    // absolute, near 1, and where `1 + erf` cancels (below -1) `gelu` is
    // small: one ulp of `erf(-1.33)` is eight of `gelu(-1.875)`. So the
    // bound is relative to the values' scale (the inputs are within 5).
    let e = ((a.lazy() * &b + &c).gelu() * &b - &c) * 0.5f32;
    cuda_agrees(
        e.node(),
        back(&e.eval().to_vec()),
        (4.0 * f32::EPSILON as f64, 1.0),
        "gelu",
    );
    let e = a
        .lazy()
        .gt(&b)
        .select(a.lazy().exp(), c.lazy().clamp(-1.0f32, &b));
    cuda_agrees(
        e.node(),
        back(&e.eval().to_vec()),
        (2.0 * f32::EPSILON as f64, 0.0),
        "where",
    );
    let e = (a.lazy() - 1.0f32).le(&c);
    let cpu: Vec<f64> = e.eval().to_vec().iter().map(|&x| x as u8 as f64).collect();
    cuda_agrees(e.node(), cpu, (0.0, 0.0), "compare");

    let i = Tensor::<i64, DynRank>::try_from_vec((0..40).map(|k| k * 7 - 100).collect(), &[40])
        .unwrap();
    let e = (i.lazy() * 3 - 5).abs().maximum(&i);
    let cpu: Vec<f64> = e.eval().to_vec().iter().map(|&x| x as f64).collect();
    cuda_agrees(e.node(), cpu, (0.0, 0.0), "int64");
}

/// The generated CUDA adjoint of every leaf of `e` (a chain of `Var`s of
/// equal sizes: no broadcast, so each gradient is its adjoint), compiled
/// for the host, against the CPU's one-pass backward under the upstream
/// gradient `up`. `var_of[k]` is the input that leaf `k` reads (a repeated
/// input's gradient is the sum of its leaves' adjoints).
fn cuda_adjoints_agree<E>(
    e: &shaped::fuse::Lazy<E>,
    inputs: &[&shaped::autograd::Var<f64, DynRank>],
    var_of: &[usize],
    up: &[f64],
    tag: &str,
) where
    E: shaped::autograd::Adjoint<f64> + Node<Elem = f64, Shape = DynRank, Device = Cpu>,
{
    let upt = Tensor::<f64, DynRank>::try_from_vec(up.to_vec(), &[up.len()]).unwrap();
    let grads = e.eval_var().try_backward_with(&upt).unwrap();
    let mut leaves = LeafValues::default();
    e.node().visit(&mut leaves);
    let mut leaves = leaves.0;
    assert_eq!(leaves.len(), var_of.len());
    leaves.push(up.to_vec());
    let rows: Vec<Vec<f64>> = (0..up.len())
        .map(|i| leaves.iter().map(|l| l[i]).collect())
        .collect();
    let mut sums = vec![vec![0.0; up.len()]; inputs.len()];
    for (k, &v) in var_of.iter().enumerate() {
        let mut g = CudaGen::default();
        let expr = shaped::backend::fused::cuda_adjoint(&e.node().grad_expr(), k, &mut g);
        let Some(got) = run_host(
            &host_program(&g, "double", &expr, &rows),
            &format!("{tag}{k}"),
        ) else {
            println!("skipped: no host C++ compiler to compile the generated CUDA");
            return;
        };
        for (s, x) in sums[v].iter_mut().zip(got) {
            *s += x;
        }
    }
    for (v, x) in inputs.iter().enumerate() {
        if !var_of.contains(&v) {
            continue;
        }
        let want = grads.wrt(x).unwrap().to_vec();
        for (i, (&c, &w)) in sums[v].iter().zip(&want).enumerate() {
            assert!(
                (c - w).abs() <= 1e-12 * w.abs().max(1.0),
                "{tag}: input {v}, element {i}: CUDA {c:e}, CPU {w:e}"
            );
        }
    }
}

#[test]
fn generated_cuda_adjoints_match_the_cpu() {
    use shaped::autograd::Var;
    let var = |f: &dyn Fn(f64) -> f64| {
        Var::param(
            Tensor::<f64, DynRank>::try_from_vec((0..40).map(|i| f(i as f64)).collect(), &[40])
                .unwrap(),
        )
    };
    let x = var(&|i| (i - 20.0) / 4.0);
    let w = var(&|i| ((i as usize * 7) % 11) as f64 / 3.0 - 1.5);
    let b = var(&|i| ((i as usize * 5) % 13) as f64 / 2.0 - 3.0);
    let up: Vec<f64> = (0..40).map(|i| ((i * 3) % 7) as f64 - 2.5).collect();
    let inputs = [&x, &w, &b];
    // Leaves x, w, b, w, x, b, b; scalars in the chain.
    let e = (x.lazy() * &w + &b).gelu() * &w - x.lazy() / (b.lazy() * &b + 1.0) * 2.0;
    cuda_adjoints_agree(&e, &inputs, &[0, 1, 2, 1, 0, 2, 2], &up, "chain");
    let e = x
        .lazy()
        .gt(&w)
        .select((x.lazy() - &b).tanh(), w.lazy().sigmoid() * 3.0);
    cuda_adjoints_agree(&e, &inputs, &[0, 1, 0, 2, 1], &up, "where");
    let e = x.lazy().clamp(b.lazy() - 1.0, &w).lerp(&b, &w);
    cuda_adjoints_agree(&e, &inputs, &[0, 2, 1, 2, 1], &up, "clamp");
    let e = (x.lazy().silu() - w.lazy().exp().log1p()).square().sqrt() + x.lazy().sign();
    cuda_adjoints_agree(&e, &inputs, &[0, 1, 0], &up, "unary");
}

/// A naive reduction of `data` (row-major, sizes `dims`) over axis `k`
/// (every axis when `None`), folding with `f` from `init`.
fn naive_reduce(
    data: &[f64],
    dims: &[usize],
    k: Option<usize>,
    init: f64,
    f: impl Fn(f64, f64) -> f64,
) -> Vec<f64> {
    let Some(k) = k else {
        return vec![data.iter().fold(init, |a, &b| f(a, b))];
    };
    let outer: usize = dims[..k].iter().product();
    let inner: usize = dims[k + 1..].iter().product();
    let mut out = Vec::new();
    for o in 0..outer {
        for i in 0..inner {
            out.push((0..dims[k]).fold(init, |a, j| f(a, data[(o * dims[k] + j) * inner + i])));
        }
    }
    out
}

fn close(got: &[f64], want: &[f64]) -> bool {
    got.len() == want.len()
        && got
            .iter()
            .zip(want)
            .all(|(&g, &w)| (g.is_nan() && w.is_nan()) || (g - w).abs() <= 1e-12 * w.abs().max(1.0))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Sums, means and extremes at the end of a chain, over every axis and
    /// each single axis, against a naive fold of the naive chain.
    #[test]
    fn reductions_match_a_naive_fold(
        [sa, sb, sc] in shapes3(),
        values in prop::collection::vec(-4.0f64..4.0, 1..24),
        how in prop::array::uniform3(0u8..4),
        keepdim in any::<bool>(),
    ) {
        let (a, da) = make(&sa, &values, how[0]);
        let (b, db) = make(&sb, &values.iter().rev().copied().collect::<Vec<_>>(), how[1]);
        let (c, dc) = make(&sc, &values[1..].iter().chain(&values[..1]).copied().collect::<Vec<_>>(), how[2]);
        let ops = [(&da[..], &sa[..]), (&db[..], &sb[..]), (&dc[..], &sc[..])];
        let (dims, value) = naive3(ops, |x, y, z| (x * y - z).tanh());
        let e = (a.lazy() * &b - &c).tanh();
        let n = value.len();
        prop_assert!(close(&e.sum().to_vec(), &naive_reduce(&value, &dims, None, 0.0, |a, b| a + b)));
        prop_assert!(close(&e.mean().to_vec(), &[naive_reduce(&value, &dims, None, 0.0, |a, b| a + b)[0] / n as f64]));
        if n == 0 {
            prop_assert_eq!(e.try_max().unwrap_err().to_string(), Tensor::<f64, DynRank>::try_zeros(&dims).unwrap().try_max().unwrap_err().to_string());
        } else {
            prop_assert!(close(&e.max().to_vec(), &naive_reduce(&value, &dims, None, f64::NEG_INFINITY, f64::max)));
            prop_assert!(close(&e.min().to_vec(), &naive_reduce(&value, &dims, None, f64::INFINITY, f64::min)));
        }
        if !dims.is_empty() {
            let want = naive_reduce(&value, &dims, Some(0), 0.0, |a, b| a + b);
            let got = if keepdim { e.sum_dim_keepdim::<0>() } else { e.sum_dim::<0>() };
            prop_assert!(close(&got.to_vec(), &want));
            let mut kd = dims.clone();
            if keepdim { kd[0] = 1 } else { kd.remove(0); }
            prop_assert_eq!(got.dims(), &kd[..]);
        }
        if dims.len() >= 2 {
            let k = dims.len() - 1;
            let want = naive_reduce(&value, &dims, Some(k), 0.0, |a, b| a + b);
            let fused = match k { 1 => e.sum_dim::<1>(), 2 => e.sum_dim::<2>(), _ => e.sum_dim::<3>() };
            prop_assert!(close(&fused.to_vec(), &want));
            if dims[k] > 0 {
                let want = naive_reduce(&value, &dims, Some(k), f64::NEG_INFINITY, f64::max);
                let fused = match k { 1 => e.max_dim::<1>(), 2 => e.max_dim::<2>(), _ => e.max_dim::<3>() };
                prop_assert!(close(&fused.to_vec(), &want));
            }
        }
    }
}

#[test]
fn large_reductions_split_across_threads() {
    // One output (every thread takes a share) and a few outputs, large
    // enough to be parallel; f64 sums of integers are exact.
    let a = Tensor::<f64, DynRank>::try_from_vec(
        (0..1 << 20).map(|i| (i % 7) as f64).collect(),
        &[4, 1 << 18],
    )
    .unwrap();
    let b = Tensor::<f64, DynRank>::try_from_vec(vec![1.0, 2.0, 3.0, 4.0], &[4, 1]).unwrap();
    let e = a.lazy() * &b;
    let want: Vec<f64> = (0..4)
        .map(|r| {
            (0..1 << 18)
                .map(|j| ((r * (1 << 18) + j) % 7) as f64 * (r + 1) as f64)
                .sum()
        })
        .collect();
    assert_eq!(e.sum_dim::<1>().to_vec(), want);
    assert_eq!(e.sum().item(), want.iter().sum::<f64>());
    assert_eq!(e.max().item(), 24.0);
    let cols = e.sum_dim::<0>().to_vec();
    assert_eq!(cols.len(), 1 << 18);
    assert_eq!(
        cols[5],
        (0..4)
            .map(|r| ((r * (1 << 18) + 5) % 7) as f64 * (r + 1) as f64)
            .sum::<f64>()
    );
    // f32: a float sum of 2^22 ones is exact only if rounding does not pile
    // up (a sequential f32 sum stops at 2^24; groups keep it exact here).
    let ones = Tensor::<f32, DynRank>::try_ones(&[1 << 22]).unwrap();
    assert_eq!((ones.lazy() * 0.5f32).sum().item(), (1 << 21) as f32);
}

/// Row reductions whose leaves are large enough to be read ahead (at least
/// 256 KiB: the CPU asks for a block's cache lines before folding it):
/// contiguous rows of whole blocks and a tail, a view that starts inside
/// its buffer and ends at its end (the last block's read-ahead points past
/// it), a transposed leaf (not contiguous along the row), a broadcast row
/// and a zero-size one, in `f64` and `f32`, against naive sums. The values
/// are small integers, so every sum is exact in either order.
#[test]
fn row_reductions_of_large_leaves_match_a_naive_fold() {
    for (rows, cols) in [(40usize, 4096usize), (300, 1100), (70, 4103), (2, 1 << 17)] {
        let n = rows * cols;
        let av: Vec<f64> = (0..n).map(|i| ((i * 7919) % 23) as f64 - 11.0).collect();
        let wv: Vec<f64> = (0..cols).map(|j| (j % 5) as f64 - 2.0).collect();
        // Stored as (cols, rows), read as its transpose.
        let tv: Vec<f64> = (0..n).map(|i| ((i * 31) % 13) as f64 - 6.0).collect();
        let a = Tensor::<f64, DynRank>::try_from_vec(av.clone(), &[rows, cols]).unwrap();
        let w = Tensor::<f64, DynRank>::try_from_vec(wv.clone(), &[cols]).unwrap();
        let t = Tensor::<f64, DynRank>::try_from_vec(tv.clone(), &[cols, rows])
            .unwrap()
            .permute::<DynRank>(&[1, 0])
            .unwrap();
        let row = |f: &dyn Fn(usize, usize) -> f64| -> Vec<f64> {
            (0..rows)
                .map(|i| (0..cols).map(|j| f(i, j)).sum())
                .collect()
        };
        let want = row(&|i, j| av[i * cols + j] * wv[j]);
        assert_eq!(
            (a.lazy() * &w).sum_dim::<1>().to_vec(),
            want,
            "{rows}x{cols}"
        );
        let want = row(&|i, j| av[i * cols + j] - tv[j * rows + i]);
        assert_eq!(
            (a.lazy() - &t).sum_dim::<1>().to_vec(),
            want,
            "{rows}x{cols}"
        );
        // The last rows of the buffer: the view starts at row 1.
        let tail = a.narrow::<DynRank>(0, 1, rows - 1).unwrap();
        let want: Vec<f64> = row(&|i, j| av[i * cols + j] * av[i * cols + j])[1..].to_vec();
        assert_eq!(
            (tail.lazy() * &tail).sum_dim::<1>().to_vec(),
            want,
            "{rows}x{cols}"
        );
        let a32 = Tensor::<f32, DynRank>::try_from_vec(
            av.iter().map(|&x| x as f32).collect(),
            &[rows, cols],
        )
        .unwrap();
        let w32 =
            Tensor::<f32, DynRank>::try_from_vec(wv.iter().map(|&x| x as f32).collect(), &[cols])
                .unwrap();
        let want: Vec<f32> = row(&|i, j| av[i * cols + j] * wv[j])
            .iter()
            .map(|&x| x as f32)
            .collect();
        assert_eq!(
            (a32.lazy() * &w32).sum_dim::<1>().to_vec(),
            want,
            "{rows}x{cols}"
        );
    }
    let empty = Tensor::<f32, DynRank>::try_zeros(&[100_000, 0]).unwrap();
    assert_eq!(
        (empty.lazy() * 2.0f32).sum_dim::<1>().to_vec(),
        vec![0.0; 100_000]
    );
}

/// Reductions over the leading axis with the innermost kept (the column
/// sums of a batch, the gradient of a row-vector parameter), small and
/// large enough to be split across threads, over a contiguous, a
/// broadcast row, a broadcast column and a transposed leaf, against a
/// naive fold of the naive chain.
#[test]
fn column_reductions_match_a_naive_fold() {
    for (rows, cols) in [
        (3usize, 64usize),
        (300, 257),
        (1000, 70),
        (5, 1000),
        (2000, 3),
    ] {
        let n = rows * cols;
        let av: Vec<f64> = (0..n).map(|i| ((i * 7919) % 23) as f64 - 11.0).collect();
        let wv: Vec<f64> = (0..cols).map(|j| (j % 5) as f64 - 1.5).collect();
        let cv: Vec<f64> = (0..rows).map(|i| (i % 3) as f64 * 0.25).collect();
        // Stored as (cols, rows), read as its transpose.
        let tv: Vec<f64> = (0..n).map(|i| ((i * 31) % 13) as f64 * 0.5 - 2.0).collect();
        let a = Tensor::<f64, DynRank>::try_from_vec(av.clone(), &[rows, cols]).unwrap();
        let w = Tensor::<f64, DynRank>::try_from_vec(wv.clone(), &[cols]).unwrap();
        let c = Tensor::<f64, DynRank>::try_from_vec(cv.clone(), &[rows, 1]).unwrap();
        let t = Tensor::<f64, DynRank>::try_from_vec(tv.clone(), &[cols, rows])
            .unwrap()
            .permute::<DynRank>(&[1, 0])
            .unwrap();
        let e = ((a.lazy() * &w + &c) * &t).tanh();
        let value: Vec<f64> = (0..n)
            .map(|k| {
                let (i, j) = (k / cols, k % cols);
                ((av[k] * wv[j] + cv[i]) * tv[j * rows + i]).tanh()
            })
            .collect();
        let dims = [rows, cols];
        let sums = naive_reduce(&value, &dims, Some(0), 0.0, |a, b| a + b);
        assert!(close(&e.sum_dim::<0>().to_vec(), &sums), "{rows}x{cols}");
        let means: Vec<f64> = sums.iter().map(|s| s / rows as f64).collect();
        assert!(close(&e.mean_dim::<0>().to_vec(), &means), "{rows}x{cols}");
        let kept = e.max_dim_keepdim::<0>();
        assert_eq!(kept.dims(), &[1, cols]);
        let maxes = naive_reduce(&value, &dims, Some(0), f64::NEG_INFINITY, f64::max);
        assert!(close(&kept.to_vec(), &maxes), "{rows}x{cols}");
        let mins = naive_reduce(&value, &dims, Some(0), f64::INFINITY, f64::min);
        assert!(close(&e.min_dim::<0>().to_vec(), &mins), "{rows}x{cols}");
    }
    // Three axes, the middle one kept with the last: runs of 3 * 100.
    let (p, q, r) = (64, 3, 100);
    let xv: Vec<f64> = (0..p * q * r).map(|i| (i % 9) as f64 - 4.0).collect();
    let x = Tensor::<f64, DynRank>::try_from_vec(xv.clone(), &[p, q, r]).unwrap();
    let value: Vec<f64> = xv.iter().map(|v| v * v).collect();
    let want = naive_reduce(&value, &[p, q, r], Some(0), 0.0, |a, b| a + b);
    assert!(close(&(x.lazy() * &x).sum_dim::<0>().to_vec(), &want));
}

#[test]
fn softmax_denominator_in_one_pass() {
    let x = Tensor::<f32, Shape![3, 5]>::from_vec(
        (0..15).map(|i| (i as f32 * 0.7).sin() * 3.0).collect(),
    );
    let m = x.max_dim_keepdim::<1>();
    let fused: Tensor<f32, Shape![3]> = (x.lazy() - &m).exp().sum_dim::<1>();
    let eager = x.sub(&m).exp().sum_dim::<1>();
    for (f, e) in fused.to_vec().iter().zip(eager.to_vec()) {
        assert!((f - e).abs() <= 1e-6 * e.abs(), "{f} vs {e}");
    }
}

mod gradients {
    use super::*;
    use shaped::autograd::{Var, where_cond};

    fn closev(a: &[f64], b: &[f64]) -> bool {
        a.len() == b.len()
            && a.iter().zip(b).all(|(x, y)| {
                (x.is_nan() && y.is_nan()) || (x - y).abs() <= 1e-10 * y.abs().max(1.0)
            })
    }

    /// The value and every input's gradient of a fused chain (one graph
    /// node, one-pass backward) against the eager chain's (one node per op,
    /// the eager rules), under a random upstream gradient.
    fn check(
        fused: &Var<f64, DynRank>,
        eager: &Var<f64, DynRank>,
        inputs: &[&Var<f64, DynRank>],
        seed: &[f64],
    ) -> Result<(), TestCaseError> {
        prop_assert!(closev(&fused.value().to_vec(), &eager.value().to_vec()));
        let n = fused.value().to_vec().len();
        let w = Tensor::<f64, DynRank>::try_from_vec(
            (0..n).map(|i| seed[i % seed.len()]).collect(),
            fused.dims(),
        )
        .unwrap();
        let w = Var::constant(w);
        let (gf, ge) = (
            fused.mul(&w).sum().backward(),
            eager.mul(&w).sum().backward(),
        );
        for (i, x) in inputs.iter().enumerate() {
            let (a, b) = (gf.wrt(x).unwrap(), ge.wrt(x).unwrap());
            prop_assert_eq!(a.dims(), b.dims());
            prop_assert!(
                closev(&a.to_vec(), &b.to_vec()),
                "input {}: {:?} vs {:?}",
                i,
                a.to_vec(),
                b.to_vec()
            );
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        #[test]
        fn fused_gradients_equal_the_eager_ones(
            [sa, sb, sc] in shapes3(),
            values in prop::collection::vec(-3.0f64..3.0, 1..24),
            how in prop::array::uniform3(0u8..4),
        ) {
            let a = Var::param(make(&sa, &values, how[0]).0);
            let b = Var::param(make(&sb, &values.iter().rev().copied().collect::<Vec<_>>(), how[1]).0);
            let c = Var::param(make(&sc, &values[1..].iter().chain(&values[..1]).copied().collect::<Vec<_>>(), how[2]).0);
            let seed: Vec<f64> = values.iter().map(|v| v * 0.7 - 0.3).collect();
            let inputs = [&a, &b, &c];

            // Arithmetic, a one-operand op, a repeated leaf, division.
            let fused = ((a.lazy() * &b + &c).gelu() * &b - a.lazy() / (c.lazy() * &c + 1.0)).eval_var();
            let one = Var::constant(Tensor::<f64, DynRank>::scalar(1.0));
            let eager = a.mul(&b).add(&c).gelu().mul(&b).sub(&a.div(&c.mul(&c).add(&one)));
            check(&fused, &eager, &inputs, &seed)?;

            // `where` over a comparison of the inputs; tanh and sigmoid.
            let fused = a.lazy().gt(&b).select((a.lazy() - &c).tanh(), b.lazy().sigmoid() * 2.0).eval_var();
            let two = Var::constant(Tensor::<f64, DynRank>::scalar(2.0));
            let cond = a.value().gt(b.value());
            let eager = where_cond(&cond, &a.sub(&c).tanh(), &b.sigmoid().mul(&two));
            check(&fused, &eager, &inputs, &seed)?;

            // clamp between tensors, lerp.
            let lo = c.lazy() - 1.0;
            let fused = a.lazy().clamp(lo, &b).lerp(&c, &b).eval_var();
            let eager = a.clamp_tensor(&c.sub(&one), &b).lerp(&c, &b);
            check(&fused, &eager, &inputs, &seed)?;
        }
    }

    #[test]
    fn constants_and_no_grad_record_nothing() {
        let x = Var::constant(Tensor::<f32, Shape![3]>::from_vec(vec![1., 2., 3.]));
        let y = (x.lazy() * 2.0f32).exp().eval_var();
        assert!(!y.requires_grad());
        let p = Var::param(Tensor::<f32, Shape![3]>::ones());
        let q = {
            let _g = shaped::autograd::no_grad();
            (p.lazy() + 1.0f32).eval_var()
        };
        assert!(!q.requires_grad());
        let r = (p.lazy() * &x).silu().eval_var();
        let g = r.sum().backward();
        assert!(g.wrt(&p).is_some());
    }

    /// The gradients of `relu(x * w + b)` for a row-vector `w` and a
    /// column `b`, against index-by-index sums: `w`'s is a sum over the
    /// batch's rows (one over two axes for a 3-d `x`), large enough to be
    /// split across threads.
    #[test]
    fn broadcast_parameters_sum_their_gradients_back() {
        for dims in [vec![300usize, 257], vec![6, 40, 130]] {
            let n: usize = dims.iter().product();
            let f = *dims.last().unwrap();
            let rows = n / f;
            let xv: Vec<f64> = (0..n)
                .map(|i| ((i * 7919) % 23) as f64 * 0.25 - 2.5)
                .collect();
            let wv: Vec<f64> = (0..f).map(|j| (j % 7) as f64 * 0.5 - 1.25).collect();
            let bv: Vec<f64> = (0..rows).map(|i| (i % 5) as f64 * 0.5 - 1.0).collect();
            let mut bdims = dims.clone();
            *bdims.last_mut().unwrap() = 1;
            let x = Var::param(Tensor::<f64, DynRank>::try_from_vec(xv.clone(), &dims).unwrap());
            let w = Var::param(Tensor::<f64, DynRank>::try_from_vec(wv.clone(), &[f]).unwrap());
            let b = Var::param(Tensor::<f64, DynRank>::try_from_vec(bv.clone(), &bdims).unwrap());
            let g = (x.lazy() * &w + &b).relu().eval_var().sum().backward();
            let on = |k: usize| xv[k] * wv[k % f] + bv[k / f] > 0.0;
            let (mut gw, mut gb, mut gx) = (vec![0.0; f], vec![0.0; rows], vec![0.0; n]);
            for k in 0..n {
                if on(k) {
                    gw[k % f] += xv[k];
                    gb[k / f] += 1.0;
                    gx[k] = wv[k % f];
                }
            }
            assert!(closev(&g.wrt(&w).unwrap().to_vec(), &gw), "{dims:?}");
            assert!(closev(&g.wrt(&b).unwrap().to_vec(), &gb), "{dims:?}");
            assert!(closev(&g.wrt(&x).unwrap().to_vec(), &gx), "{dims:?}");
            assert_eq!(g.wrt(&b).unwrap().dims(), &bdims[..]);
        }
    }

    /// The gradients of `tanh(x * w + b) * 2` for inputs summed back over
    /// different axes (the middle one, the innermost and a leading one,
    /// the two outer ones), with `x` a transposed view, under an upstream
    /// gradient that varies, against index-by-index sums: the pass that
    /// gives every input's adjoint at once, split across threads. The
    /// `(n, 2)` case has inner loops too short for that pass and takes
    /// one pass per input.
    #[test]
    fn every_inputs_gradient_in_one_pass_matches_index_sums() {
        let cases: [(&[usize], &[usize], &[usize]); 4] = [
            (&[4, 64, 300], &[4, 1, 300], &[64, 1]),
            (&[4, 64, 300], &[300], &[4, 1, 1]),
            (&[3, 0, 70], &[70], &[3, 1, 1]),
            (&[40000, 2], &[2], &[40000, 1]),
        ];
        for (dims, wd, bd) in cases {
            let n: usize = dims.iter().product();
            let idx = |mut k: usize| {
                let mut ix = vec![0; dims.len()];
                for a in (0..dims.len()).rev() {
                    ix[a] = k % dims[a];
                    k /= dims[a];
                }
                ix
            };
            // The offset in a contiguous tensor of sizes `t` broadcast to `dims`.
            let off = |t: &[usize], ix: &[usize]| {
                let lead = dims.len() - t.len();
                t.iter().enumerate().fold(0, |o, (a, &d)| {
                    o * d + if d == 1 { 0 } else { ix[lead + a] }
                })
            };
            let (nw, nb) = (wd.iter().product::<usize>(), bd.iter().product::<usize>());
            let wv: Vec<f64> = (0..nw).map(|j| (j % 7) as f64 * 0.3 - 0.9).collect();
            let bv: Vec<f64> = (0..nb).map(|j| (j % 5) as f64 * 0.4 - 0.8).collect();
            let xv: Vec<f64> = (0..n)
                .map(|k| ((k * 7919) % 23) as f64 * 0.1 - 1.1)
                .collect();
            // `x` as the transpose of a tensor stored with the axes reversed.
            let rev: Vec<usize> = dims.iter().rev().copied().collect();
            let mut stored = vec![0.0; n];
            for (k, &v) in xv.iter().enumerate() {
                let ix = idx(k);
                let r = ix
                    .iter()
                    .zip(dims)
                    .fold((0, 1), |(o, m), (&i, &d)| (o + i * m, m * d));
                stored[r.0] = v;
            }
            let perm: Vec<isize> = (0..dims.len() as isize).rev().collect();
            let base = Tensor::<f64, DynRank>::try_from_vec(stored, &rev).unwrap();
            let xt: Tensor<f64, DynRank> = base.permute(&perm).unwrap();
            assert_eq!(xt.to_vec(), xv);
            let x = Var::param(xt);
            let w = Var::param(Tensor::<f64, DynRank>::try_from_vec(wv.clone(), wd).unwrap());
            let b = Var::param(Tensor::<f64, DynRank>::try_from_vec(bv.clone(), bd).unwrap());
            let gv: Vec<f64> = (0..n).map(|k| (k % 11) as f64 * 0.2 - 1.0).collect();
            let up = Var::constant(Tensor::<f64, DynRank>::try_from_vec(gv.clone(), dims).unwrap());
            let y = ((x.lazy() * &w + &b).tanh() * 2.0).eval_var();
            let g = y.mul(&up).sum().backward();
            let (mut gx, mut gw, mut gb) = (vec![0.0; n], vec![0.0; nw], vec![0.0; nb]);
            for k in 0..n {
                let ix = idx(k);
                let (wk, bk) = (off(wd, &ix), off(bd, &ix));
                let t = (xv[k] * wv[wk] + bv[bk]).tanh();
                let d = gv[k] * 2.0 * (1.0 - t * t);
                gx[k] = d * wv[wk];
                gw[wk] += d * xv[k];
                gb[bk] += d;
            }
            let close = |a: &[f64], b: &[f64]| {
                a.len() == b.len()
                    && a.iter()
                        .zip(b)
                        .all(|(x, y)| (x - y).abs() <= 1e-9 * y.abs().max(1.0))
            };
            assert!(close(&g.wrt(&x).unwrap().to_vec(), &gx), "{dims:?}: x");
            assert!(close(&g.wrt(&w).unwrap().to_vec(), &gw), "{dims:?}: w");
            assert!(close(&g.wrt(&b).unwrap().to_vec(), &gb), "{dims:?}: b");
            assert_eq!(g.wrt(&w).unwrap().dims(), wd);
            assert_eq!(g.wrt(&b).unwrap().dims(), bd);
        }
    }

    /// `(x * 1.01 + 0.1)` nested `n` times.
    macro_rules! affine_chain {
        ($e:expr;) => { $e };
        ($e:expr; $_:tt $($rest:tt)*) => { affine_chain!(($e * 1.01 + 0.1); $($rest)*) };
    }

    /// A chain of 24 operations has gradients on a thread with the
    /// default 2 MiB stack: the backward pass went through one closure per
    /// node, and 18 operations already passed the compiler's recursion
    /// limit (`reached the recursion limit while instantiating ...
    /// with_run`), with a stack that grew with the square of the depth.
    #[test]
    fn deep_chains_have_gradients() {
        let run = || {
            let n = 3 * shaped::backend::fused::BLOCK + 7;
            let x = Var::param(
                Tensor::<f64, DynRank>::try_from_vec(
                    (0..n).map(|i| (i % 17) as f64 - 8.0).collect(),
                    &[n],
                )
                .unwrap(),
            );
            let b = Var::param(Tensor::<f64, Shape![1]>::from_vec(vec![0.5]));
            let y = (affine_chain!(x.lazy() * &b; a a a a a a a a a a a a)).eval_var();
            let g = y.sum().backward();
            // d/dx = b * 1.01^12 everywhere; d/db = sum(x) * 1.01^12.
            let k = 1.01f64.powi(12);
            let gx = g.wrt(&x).unwrap().to_vec();
            assert!(gx.iter().all(|v| (v - 0.5 * k).abs() < 1e-12), "{}", gx[0]);
            let sx: f64 = (0..n).map(|i| (i % 17) as f64 - 8.0).sum();
            let gb = g.wrt(&b).unwrap().to_vec()[0];
            assert!(
                (gb - sx * k).abs() < 1e-9 * sx.abs().max(1.0),
                "{gb} vs {}",
                sx * k
            );
        };
        std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(run)
            .unwrap()
            .join()
            .unwrap();
    }
}

/// The backends evaluate an expression's erased form: the same chain of
/// operations over operands of different static shapes is one type there
/// (one evaluator instance, one CUDA kernel cache key), while the typed
/// expressions differ; the erased form keeps the sizes and the values.
#[test]
fn chains_of_different_static_shapes_share_one_erased_type() {
    fn name<N>(_: &N) -> &'static str {
        core::any::type_name::<N>()
    }
    let a = Tensor::<f32, Shape![2, 3]>::from_vec(vec![1., -2., 3., -4., 5., -6.]);
    let b = Tensor::<f32, Shape![4]>::from_vec(vec![-1., 2., -3., 4.]);
    let c = Tensor::<f32, Shape![3]>::from_vec(vec![0.5, 1., 2.]);
    let d = Tensor::<f32, DynRank>::try_from_vec(vec![1., 1., 1., 1.], &[4]).unwrap();
    let ea = (a.lazy() * &c + 1.0f32).relu();
    let eb = (b.lazy() * &d + 1.0f32).relu();
    assert_ne!(name(ea.node()), name(eb.node()));
    assert_eq!(name(&ea.node().erased()), name(&eb.node().erased()));
    assert_eq!(ea.node().erased().dims().unwrap().as_slice(), &[2, 3]);
    assert_eq!(eb.node().erased().dims().unwrap().as_slice(), &[4]);
    assert_eq!(ea.eval().to_vec(), [1.5, 0., 7., 0., 6., 0.]);
    assert_eq!(eb.eval().to_vec(), [0., 3., 0., 5.]);
}
