//! Autograd on CUDA against autograd on the CPU: the same computation,
//! recorded on `Var<_, _, Cuda>` and on `Var<_, _, Cpu>` from the same
//! inputs, must give the same value and the same gradient for every
//! parameter (in the parameter's own sizes). Covers the pointwise rules
//! (binary with broadcasting, the op table's unary ops, the three-operand
//! ops, `where`), the reductions with dims and keepdim, `sum_to`, the
//! matmul family with batch broadcasting and 1-D operands, the views, and
//! zero-size dims; some parameters are transposed or expanded views.
//! Without a GPU each test prints "skipped: no CUDA device" and returns
//! (or fails, when `SHAPED_REQUIRE_CUDA` is set).
#![cfg(feature = "cuda")]

use shaped::autograd::{GradDevice, Var, where_cond};
use shaped::backend::Backend;
use shaped::device::{Cpu, Cuda};
use shaped::ops::host;

mod common;
use common::cuda::{device, unit_values};
use shaped::{DynRank, Tensor};

type H = Tensor<f64, DynRank>;
type On<D> = Tensor<f64, DynRank, D>;
/// A computation on parameters, giving one result.
type Model<D> = dyn Fn(&[Var<f64, DynRank, D>]) -> Var<f64, DynRank, D>;

/// Deterministic values in `[lo, hi)`, rounded to multiples of `step`
/// when `step > 0` (so that ties occur for `max`, `min`, `maximum`).
fn values(n: usize, seed: u64, lo: f64, hi: f64, step: f64) -> Vec<f64> {
    unit_values(n, seed)
        .into_iter()
        .map(|u| {
            let v = lo + u * (hi - lo);
            if step > 0.0 {
                (v / step).round() * step
            } else {
                v
            }
        })
        .collect()
}

fn rand(dims: &[usize], seed: u64, lo: f64, hi: f64) -> H {
    H::try_from_vec(values(dims.iter().product(), seed, lo, hi, 0.0), dims).unwrap()
}

fn stepped(dims: &[usize], seed: u64) -> H {
    H::try_from_vec(values(dims.iter().product(), seed, -2.0, 2.0, 0.5), dims).unwrap()
}

/// What one run gives: the value's sizes and elements, then each
/// parameter's gradient (sizes and elements, `None` when it got none).
type Outcome = Vec<Option<(Vec<usize>, Vec<f64>)>>;

fn host<D: GradDevice<f64>>(t: &On<D>) -> (Vec<usize>, Vec<f64>) {
    (t.dims().to_vec(), host::to_host(t).unwrap())
}

/// Runs `f` on parameters made from `inputs` (put on the device by `put`),
/// weights the result with fixed values so that every element has its own
/// upstream gradient, and back-propagates from the weighted sum.
fn run<D: GradDevice<f64>>(inputs: &[H], put: &dyn Fn(&H) -> On<D>, f: &Model<D>) -> Outcome {
    let params: Vec<Var<f64, DynRank, D>> = inputs.iter().map(|h| Var::param(put(h))).collect();
    let out = f(&params);
    let w = Var::constant(put(&rand(out.dims(), 99, -1.5, 1.5)));
    let grads = out.mul(&w).sum().try_backward().unwrap();
    let mut r = vec![Some(host(out.value()))];
    r.extend(params.iter().map(|p| grads.wrt(p).map(|g| host(&g))));
    r
}

#[track_caller]
fn assert_same(what: &str, cpu: &Outcome, gpu: &Outcome, tol: f64) {
    assert_eq!(cpu.len(), gpu.len());
    for (k, (c, g)) in cpu.iter().zip(gpu).enumerate() {
        let part = if k == 0 {
            "value".to_string()
        } else {
            format!("gradient {}", k - 1)
        };
        let (Some((cd, cv)), Some((gd, gv))) = (c, g) else {
            assert_eq!(
                c.is_some(),
                g.is_some(),
                "{what}: {part}: present on one device only"
            );
            continue;
        };
        assert_eq!(cd, gd, "{what}: {part}: sizes");
        for (i, (&x, &y)) in cv.iter().zip(gv).enumerate() {
            let ok =
                (x.is_nan() && y.is_nan()) || x == y || (x - y).abs() <= tol * x.abs().max(1.0);
            assert!(ok, "{what}: {part}: element {i}: cpu {x} vs cuda {y}");
        }
    }
}

/// Runs the body on the CPU and on the GPU with the same inputs and
/// compares the outcomes.
macro_rules! check {
    ($dev:expr, $what:expr, $inputs:expr, |$v:ident| $body:expr) => {{
        let inputs: Vec<H> = $inputs;
        let cpu = run::<Cpu>(&inputs, &|h: &H| h.share(), &|$v: &[Var<
            f64,
            DynRank,
            Cpu,
        >]| $body);
        let gpu = run::<Cuda>(
            &inputs,
            &|h: &H| h.to_device($dev).unwrap(),
            &|$v: &[Var<f64, DynRank, Cuda>]| $body,
        );
        assert_same($what, &cpu, &gpu, 1e-10);
    }};
}

/// Operand pairs: broadcasting both ways, equal sizes, a 0-d operand and
/// zero-size dims.
fn pairs(seed: u64, lo: f64, hi: f64) -> Vec<(String, Vec<H>)> {
    [
        (vec![3usize, 1, 4], vec![5usize, 4]),
        (vec![4, 5], vec![4, 5]),
        (vec![], vec![2, 3]),
        (vec![2, 0, 3], vec![3]),
    ]
    .into_iter()
    .enumerate()
    .map(|(i, (a, b))| {
        let s = seed + 10 * i as u64;
        (
            format!("{a:?} with {b:?}"),
            vec![rand(&a, s, lo, hi), rand(&b, s + 1, lo, hi)],
        )
    })
    .collect()
}

#[test]
fn binary_rules_match_cpu() {
    let Some(dev) = device() else { return };
    let dev = &dev;
    for (what, inputs) in pairs(1, -3.0, 3.0) {
        check!(dev, &format!("add {what}"), inputs.clone(), |v| v[0]
            .add(&v[1]));
        check!(dev, &format!("sub {what}"), inputs.clone(), |v| v[0]
            .sub(&v[1]));
        check!(dev, &format!("mul {what}"), inputs.clone(), |v| v[0]
            .mul(&v[1]));
        check!(dev, &format!("atan2 {what}"), inputs.clone(), |v| v[0]
            .atan2(&v[1]));
    }
    for (what, inputs) in pairs(2, 0.5, 2.0) {
        check!(dev, &format!("div {what}"), inputs.clone(), |v| v[0]
            .div(&v[1]));
        check!(dev, &format!("pow {what}"), inputs.clone(), |v| v[0]
            .pow(&v[1]));
    }
    // Ties split the gradient: values on a grid of 0.5 tie often.
    let ties = vec![stepped(&[3, 1, 4], 3), stepped(&[5, 4], 4)];
    check!(dev, "maximum with ties", ties.clone(), |v| v[0]
        .maximum(&v[1]));
    check!(dev, "minimum with ties", ties, |v| v[0].minimum(&v[1]));
    // A zero base: the exponent's gradient is 0 there, as PyTorch.
    let zero_base = vec![
        H::try_from_vec(vec![0., 1.5, 0., 2.], &[4]).unwrap(),
        H::try_from_vec(vec![2., 0., 0., 1.5], &[4]).unwrap(),
    ];
    check!(dev, "pow at zero", zero_base, |v| v[0].pow(&v[1]));
    // Operators, and a value used twice (gradients accumulate).
    check!(dev, "operators", vec![rand(&[2, 3], 5, 0.5, 2.0)], |v| {
        let x = &v[0];
        &(&(x * x) - &(x / x)) + &(-x)
    });
}

#[test]
fn views_as_parameters_match_cpu() {
    let Some(dev) = device() else { return };
    let dev = &dev;
    // A transposed parameter (stride order reversed) and an expanded one
    // (stride 0): their gradients come back in their own sizes.
    let inputs = vec![rand(&[4, 3], 6, -2.0, 2.0), rand(&[1, 3], 7, -2.0, 2.0)];
    check!(dev, "transposed and expanded", inputs, |v| {
        let t = v[0].permute::<DynRank>(&[1, 0]).unwrap();
        let e = v[1].expand::<DynRank>(&[4, 3]).unwrap();
        let p = e.permute::<DynRank>(&[1, 0]).unwrap();
        t.mul(&p).tanh()
    });
}

#[test]
fn unary_rules_match_cpu() {
    let Some(dev) = device() else { return };
    let dev = &dev;
    let any = || vec![rand(&[3, 4], 8, -2.0, 2.0)];
    let positive = || vec![rand(&[3, 4], 9, 0.25, 3.0)];
    check!(dev, "neg", any(), |v| v[0].neg());
    check!(dev, "abs", any(), |v| v[0].abs());
    check!(dev, "exp", any(), |v| v[0].exp());
    check!(dev, "log", positive(), |v| v[0].log());
    check!(dev, "log1p", positive(), |v| v[0].log1p());
    check!(dev, "expm1", any(), |v| v[0].expm1());
    check!(dev, "sqrt", positive(), |v| v[0].sqrt());
    check!(dev, "rsqrt", positive(), |v| v[0].rsqrt());
    check!(dev, "sin", any(), |v| v[0].sin());
    check!(dev, "cos", any(), |v| v[0].cos());
    check!(dev, "tan", any(), |v| v[0].mul_scalar(0.5).tan());
    check!(dev, "tanh", any(), |v| v[0].tanh());
    check!(dev, "sigmoid", any(), |v| v[0].sigmoid());
    check!(dev, "relu", any(), |v| v[0].relu());
    check!(dev, "gelu", any(), |v| v[0].gelu());
    check!(dev, "silu", any(), |v| v[0].silu());
    check!(dev, "mish", any(), |v| v[0].mish());
    check!(dev, "softplus", any(), |v| v[0].softplus());
    check!(dev, "square", any(), |v| v[0].square());
    check!(dev, "reciprocal", positive(), |v| v[0].reciprocal());
    check!(dev, "add_scalar", any(), |v| v[0].add_scalar(2.0).square());
    // Piecewise constant: zero gradients, made on the device.
    check!(dev, "floor", any(), |v| v[0].floor());
    check!(dev, "ceil", any(), |v| v[0].ceil());
    check!(dev, "round", any(), |v| v[0].round());
    check!(dev, "trunc", any(), |v| v[0].trunc());
    check!(dev, "sign", any(), |v| v[0].sign());
}

#[test]
fn ternary_rules_and_where_match_cpu() {
    let Some(dev) = device() else { return };
    let dev = &dev;
    let three = |lo: f64, hi: f64| {
        vec![
            rand(&[2, 1, 3], 10, lo, hi),
            rand(&[4, 1], 11, lo, hi),
            rand(&[3], 12, lo, hi),
        ]
    };
    check!(dev, "addcmul", three(-2.0, 2.0), |v| v[0]
        .addcmul(&v[1], &v[2], 1.5));
    check!(dev, "addcdiv", three(0.5, 2.0), |v| v[0]
        .addcdiv(&v[1], &v[2], -1.3));
    check!(dev, "lerp", three(-2.0, 2.0), |v| v[0].lerp(&v[1], &v[2]));
    check!(dev, "clamp_tensor", three(-2.0, 2.0), |v| v[0]
        .clamp_tensor(&v[1], &v[2]));
    check!(dev, "clamp", vec![rand(&[3, 4], 13, -2.0, 2.0)], |v| v[0]
        .clamp(-0.5, 1.0));
    // `where` with a condition made on the device from the inputs.
    let inputs = vec![
        rand(&[3, 4], 14, -2.0, 2.0),
        rand(&[4], 15, -2.0, 2.0),
        rand(&[3, 1], 16, -1.0, 1.0),
    ];
    check!(dev, "where", inputs, |v| {
        let c = v[2].value();
        let cond = c.try_gt(&c.try_neg().unwrap()).unwrap();
        where_cond(&cond, &v[0], &v[1])
    });
}

/// Fused chains of `Var`s (`Lazy::eval_var`): the chain's kernel forward,
/// one generated adjoint kernel per input backward, summed back to each
/// input's sizes where the chain broadcast it; against the CPU's one-pass
/// fused backward. Broadcast inputs, a repeated input, scalars, `where`
/// over a comparison, `clamp` between an expression and a scalar, `lerp`,
/// and zero-size dims.
#[test]
fn fused_chain_gradients_match_cpu() {
    let Some(dev) = device() else { return };
    let dev = &dev;
    let three = |a: &[usize], b: &[usize], c: &[usize]| {
        vec![
            rand(a, 30, -2.0, 2.0),
            rand(b, 31, -2.0, 2.0),
            rand(c, 32, -2.0, 2.0),
        ]
    };
    for (a, b, c) in [
        (&[2usize, 1, 3][..], &[4usize, 1][..], &[3usize][..]),
        (&[3, 4][..], &[3, 4][..], &[][..]),
        (&[2, 0, 3][..], &[3][..], &[1, 3][..]),
    ] {
        check!(dev, "fused gelu chain", three(a, b, c), |v| {
            ((v[0].lazy() * &v[1] + &v[2]).gelu() * &v[1]
                - v[0].lazy() / (v[2].lazy() * &v[2] + 1.0))
                .eval_var()
        });
        check!(dev, "fused where", three(a, b, c), |v| {
            v[0].lazy()
                .gt(&v[1])
                .select(
                    (v[0].lazy() - &v[2]).tanh(),
                    v[1].lazy().clamp(v[2].lazy() - 1.0, 2.0),
                )
                .eval_var()
        });
        check!(dev, "fused mish", three(a, b, c), |v| {
            ((v[0].lazy() * &v[1]).mish() + &v[2]).eval_var()
        });
        check!(dev, "fused softplus", three(a, b, c), |v| {
            ((v[0].lazy() * &v[1]).softplus() - &v[2]).eval_var()
        });
        check!(dev, "fused floor", three(a, b, c), |v| {
            ((v[0].lazy() * &v[1]).floor() * &v[2]).eval_var()
        });
        check!(dev, "fused lerp", three(a, b, c), |v| {
            (v[0].lazy().lerp(&v[1], &v[2]).silu() * 3.0).eval_var()
        });
    }
}

#[test]
fn reduction_rules_match_cpu() {
    let Some(dev) = device() else { return };
    let dev = &dev;
    for dims in [vec![3usize, 4, 5], vec![2, 0, 3]] {
        let x = || vec![stepped(&dims, 17)];
        let d = format!("{dims:?}");
        check!(dev, &format!("sum {d}"), x(), |v| v[0]
            .sum_dims(&[1], false));
        check!(dev, &format!("sum keepdim {d}"), x(), |v| v[0]
            .sum_dims(&[0, 2], true));
        check!(dev, &format!("mean {d}"), x(), |v| v[0]
            .mean_dims(&[-1], true));
        check!(dev, &format!("prod {d}"), x(), |v| v[0]
            .prod_dims(&[2], false));
        check!(dev, &format!("sum_to {d}"), x(), |v| {
            let to = [1, v[0].dims()[2]];
            v[0].try_sum_to_size::<DynRank>(&to).unwrap()
        });
        if !dims.contains(&0) {
            // Values on a grid of 0.5: ties and zeros occur.
            check!(dev, &format!("max ties {d}"), x(), |v| v[0]
                .max_dims(&[1], false));
            check!(dev, &format!("min ties {d}"), x(), |v| v[0]
                .min_dims(&[0, 2], true));
            check!(dev, &format!("all-dims {d}"), x(), |v| {
                let s = v[0]
                    .sum()
                    .add(&v[0].mean())
                    .add(&v[0].max())
                    .add(&v[0].min());
                s.try_reshape::<DynRank>(&[1]).unwrap()
            });
        }
    }
    // Products with no, one and two zeros in a row.
    let z = H::try_from_vec(vec![2., 3., 4., 2., 0., 4., 0., 3., 0.], &[3, 3]).unwrap();
    check!(dev, "prod with zeros", vec![z], |v| v[0]
        .prod_dims(&[1], true));
}

#[test]
fn statistic_and_softmax_rules_match_cpu() {
    let Some(dev) = device() else { return };
    let dev = &dev;
    for dims in [vec![3usize, 4, 5], vec![2, 0, 3]] {
        let x = || vec![stepped(&dims, 21)];
        let d = format!("{dims:?}");
        check!(dev, &format!("var {d}"), x(), |v| v[0].var_dims(
            &[1],
            false,
            1
        ));
        check!(dev, &format!("var correction 0 keepdim {d}"), x(), |v| v[0]
            .var_dims(&[0, 2], true, 0));
        check!(dev, &format!("std {d}"), x(), |v| v[0].std_dims(
            &[-1],
            true,
            1
        ));
        // The closures are not `move`: one check per `p`.
        macro_rules! norms {
            ($($p:expr),*) => {$(
                check!(dev, &format!("norm {} {d}", $p), x(), |v| v[0]
                    .norm_dims(&[2], false, $p));
            )*};
        }
        norms!(2.0, 1.0, 3.5, 0.0, f64::INFINITY, f64::NEG_INFINITY);
        check!(dev, &format!("logsumexp {d}"), x(), |v| v[0]
            .logsumexp_dims(&[0, 1], true));
        check!(dev, &format!("softmax {d}"), x(), |v| v[0]
            .try_softmax(1)
            .unwrap());
        check!(dev, &format!("log_softmax {d}"), x(), |v| v[0]
            .try_log_softmax(-1)
            .unwrap());
    }
    // A transposed parameter; a zero row (norms at 0) and ties in |x|
    // (the inf-norm shares its gradient).
    let z = H::try_from_vec(vec![0., 0., 0., 1.5, -2., 2., 0.5, 0., -1.], &[3, 3]).unwrap();
    macro_rules! zero_norms {
        ($($p:expr),*) => {$(
            check!(dev, &format!("norm {} zeros and ties", $p), vec![z.clone()], |v| v[0]
                .permute::<DynRank>(&[1, 0])
                .unwrap()
                .norm_dims(&[0], true, $p));
        )*};
    }
    zero_norms!(2.0, 1.0, 3.0, f64::INFINITY, f64::NEG_INFINITY);
    check!(
        dev,
        "std over one element (dof 0)",
        vec![rand(&[4, 1], 22, -1.0, 1.0)],
        |v| v[0].std_dims(&[1], false, 1)
    );
    check!(
        dev,
        "softmax of a 0-d value",
        vec![rand(&[], 23, -1.0, 1.0)],
        |v| v[0].try_softmax(0).unwrap()
    );
}

/// An `i64` tensor of sizes `dims` holding `data`, on `like`'s device.
fn ints<D: GradDevice<f64> + Backend<i64>>(
    like: &On<D>,
    data: &[i64],
    dims: &[usize],
) -> Tensor<i64, DynRank, D> {
    host::from_host(like, data.to_vec(), dims).unwrap()
}

/// A mask of sizes `dims` (element `i` holds when `keep(i)`), on `like`'s
/// device.
fn mask<D: GradDevice<f64>>(
    like: &On<D>,
    dims: &[usize],
    keep: fn(usize) -> bool,
) -> Tensor<bool, DynRank, D> {
    let n = dims.iter().product();
    host::from_host(like, (0..n).map(keep).collect(), dims).unwrap()
}

#[test]
fn index_rules_match_cpu() {
    let Some(dev) = device() else { return };
    let dev = &dev;
    let x = || vec![rand(&[3, 4], 60, -2.0, 2.0)];
    // Repeated indices: their gradients add up.
    check!(dev, "gather with repeats", x(), |v| {
        let idx = ints(
            v[0].value(),
            &[3, 3, 0, 1, 2, 2, 2, 0, 1, 1, 0, 3, 3, 3, 3],
            &[3, 5],
        );
        v[0].try_gather(1, &idx).unwrap()
    });
    check!(dev, "gather from a transposed value", x(), |v| {
        let idx = ints(v[0].value(), &[2, 0, 2, 1, 1, 1], &[2, 3]);
        v[0].permute::<DynRank>(&[1, 0])
            .unwrap()
            .try_gather(0, &idx)
            .unwrap()
    });
    check!(dev, "gather by an empty index", x(), |v| {
        let idx = ints(v[0].value(), &[], &[0, 4]);
        v[0].try_gather(0, &idx).unwrap()
    });
    check!(dev, "index_select with repeats", x(), |v| {
        let idx: Tensor<i64, shaped::Shape![_], _> = ints(v[0].value(), &[3, 0, 3, 1, 3], &[5])
            .try_into_shape()
            .unwrap();
        v[0].try_index_select::<1, _, _>(&idx).unwrap()
    });
    check!(
        dev,
        "take_along_dim broadcast",
        vec![rand(&[3, 1, 4], 61, -2.0, 2.0)],
        |v| {
            let idx = ints(v[0].value(), &[0, 3, 3, 1, 2, 0], &[1, 2, 3]);
            v[0].try_take_along_dim_at(2, &idx).unwrap()
        }
    );
    check!(dev, "take_along_dim flat", x(), |v| {
        let idx = ints(v[0].value(), &[11, 0, 11, 5], &[2, 2]);
        v[0].try_take_along_dim_flat(&idx)
            .unwrap()
            .try_reshape::<DynRank>(&[-1])
            .unwrap()
    });
    check!(dev, "masked_fill broadcast", x(), |v| {
        let m = mask(v[0].value(), &[2, 1, 4], |i| i % 3 == 0);
        v[0].try_masked_fill(&m, 0.5).unwrap()
    });
    let two = || vec![rand(&[3, 4], 62, -2.0, 2.0), rand(&[2, 5], 63, -2.0, 2.0)];
    check!(
        dev,
        "masked_scatter (source larger than needed)",
        two(),
        |v| {
            let m = mask(v[0].value(), &[4], |i| i != 1);
            v[0].try_masked_scatter(&m, &v[1]).unwrap()
        }
    );
    let with_value = || vec![rand(&[3, 4], 64, -2.0, 2.0), rand(&[], 65, -2.0, 2.0)];
    check!(dev, "masked_fill with a 0-d value", with_value(), |v| {
        let m = mask(v[0].value(), &[3, 1], |i| i != 0);
        v[0].try_masked_fill_tensor(&m, &v[1]).unwrap()
    });
    let parts = || {
        vec![
            rand(&[2, 4], 66, -2.0, 2.0),
            rand(&[0, 4], 67, -2.0, 2.0),
            rand(&[3, 4], 68, -2.0, 2.0),
        ]
    };
    check!(dev, "cat", parts(), |v| Var::try_cat::<0>(&[
        &v[0], &v[1], &v[2]
    ])
    .unwrap());
    check!(dev, "select", x(), |v| v[0].try_select::<1>(-2).unwrap());
    check!(dev, "slice with a step", x(), |v| v[0]
        .try_slice_step::<1>(1.., 2)
        .unwrap());
}

/// An `f64` tensor of sizes `dims` holding `data`, on `like`'s device.
fn floats<D: GradDevice<f64>>(like: &On<D>, data: &[f64], dims: &[usize]) -> On<D> {
    host::from_host(like, data.to_vec(), dims).unwrap()
}

#[test]
fn logistic_loss_matches_cpu() {
    let Some(dev) = device() else { return };
    let dev = &dev;
    // Large logits of both signs (the stable form), a zero logit (where the
    // gradient is exactly σ(0) - y), a transposed parameter.
    let logits = H::try_from_vec(vec![0., 40., -40., 1.5, -0.25, 3., 0.5, -7.], &[2, 4]).unwrap();
    const Y: [f64; 8] = [1., 0., 1., 0.5, 0., 1., 1., 0.];
    check!(dev, "logistic loss", vec![logits.clone()], |v| {
        let t = floats(v[0].value(), &Y, &[2, 4]);
        v[0].try_logistic_loss(&t).unwrap()
    });
    check!(dev, "logistic loss transposed", vec![logits], |v| {
        let t = floats(v[0].value(), &Y, &[4, 2]);
        v[0].permute::<DynRank>(&[1, 0])
            .unwrap()
            .try_logistic_loss(&t)
            .unwrap()
    });
}

/// Four optimizer steps on a small model (parameters made by `put`), then
/// the parameters' values.
fn optimize<D: GradDevice<f64>, O: shaped::nn::Optimizer<f64, D>>(
    put: &dyn Fn(&H) -> On<D>,
    mut opt: O,
) -> Vec<(Vec<usize>, Vec<f64>)> {
    let mut params = vec![
        Var::param(put(&rand(&[4, 3], 70, -1.0, 1.0))),
        Var::param(put(&rand(&[3], 71, -0.5, 0.5))),
    ];
    let x = Var::constant(put(&rand(&[5, 4], 72, -1.0, 1.0)));
    for _ in 0..4 {
        let loss = x.matmul(&params[0]).add(&params[1]).tanh().square().mean();
        let grads = loss.try_backward().unwrap();
        opt.step(&mut params, &grads);
    }
    params.iter().map(|p| host(p.value())).collect()
}

#[test]
fn optimizer_steps_match_cpu() {
    use shaped::nn::{Adam, Sgd};
    let Some(dev) = device() else { return };
    let dev = &dev;
    macro_rules! same_steps {
        ($what:expr, $opt:expr) => {{
            let cpu = optimize::<Cpu, _>(&|h: &H| h.share(), $opt);
            let gpu = optimize::<Cuda, _>(&|h: &H| h.to_device(dev).unwrap(), $opt);
            let wrap =
                |r: Vec<(Vec<usize>, Vec<f64>)>| r.into_iter().map(Some).collect::<Outcome>();
            assert_same($what, &wrap(cpu), &wrap(gpu), 1e-10);
        }};
    }
    same_steps!("sgd", Sgd::new(0.1));
    same_steps!(
        "sgd momentum",
        Sgd::new(0.1)
            .momentum(0.9)
            .dampening(0.2)
            .weight_decay(0.05)
    );
    same_steps!(
        "sgd nesterov",
        Sgd::new(0.05).momentum(0.8).nesterov().weight_decay(0.01)
    );
    same_steps!("adam", Adam::new(0.01));
    same_steps!(
        "adam betas",
        Adam::new(0.02).weight_decay(0.1).betas(0.5, 0.9).eps(1e-3)
    );
    same_steps!(
        "adamw",
        Adam::adamw(0.05).weight_decay(0.3).betas(0.8, 0.95)
    );
}

#[test]
fn losses_match_cpu() {
    use shaped::Shape;
    use shaped::nn::{
        Mean, NoReduction, Sum, binary_cross_entropy_with_logits, cross_entropy,
        cross_entropy_probs, mse, nll,
    };
    let Some(dev) = device() else { return };
    let dev = &dev;
    let two = || vec![rand(&[4, 3], 80, -2.0, 2.0), rand(&[4, 3], 81, -2.0, 2.0)];
    check!(dev, "mse", two(), |v| mse(&v[0], &v[1], Mean)
        .try_reshape::<DynRank>(&[1])
        .unwrap());
    check!(dev, "cross_entropy", two(), |v| {
        let logits = v[0].try_reshape::<Shape![_, _]>(&[4, 3]).unwrap();
        let t = ints(v[0].value(), &[2, 0, 1, 2], &[4]);
        cross_entropy(&logits, &t.try_into_shape::<Shape![_]>().unwrap(), Sum)
            .try_reshape::<DynRank>(&[1])
            .unwrap()
    });
    check!(dev, "nll unreduced", two(), |v| {
        let lp = v[0].try_reshape::<Shape![_, _]>(&[4, 3]).unwrap();
        let t = ints(v[0].value(), &[1, 1, 0, 2], &[4]);
        nll(&lp, &t.try_into_shape::<Shape![_]>().unwrap(), NoReduction)
            .try_reshape::<DynRank>(&[-1])
            .unwrap()
    });
    check!(dev, "cross_entropy with probabilities", two(), |v| {
        let logits = v[0].try_reshape::<Shape![_, _]>(&[4, 3]).unwrap();
        let p = v[1].try_softmax(1).unwrap().value().share();
        cross_entropy_probs(&logits, &p.try_into_shape::<Shape![_, _]>().unwrap(), Mean)
            .try_reshape::<DynRank>(&[1])
            .unwrap()
    });
    check!(dev, "binary_cross_entropy_with_logits", two(), |v| {
        let y = v[1].sigmoid().value().share();
        binary_cross_entropy_with_logits(&v[0], &y, Mean)
            .try_reshape::<DynRank>(&[1])
            .unwrap()
    });
}

#[test]
fn linear_layer_matches_cpu() {
    use shaped::Shape;
    use shaped::nn::Linear;
    let Some(dev) = device() else { return };
    let dev = &dev;
    let inputs = vec![
        rand(&[5, 4], 90, -1.0, 1.0),
        rand(&[3, 4], 91, -0.5, 0.5),
        rand(&[3], 92, -0.1, 0.1),
    ];
    check!(dev, "linear", inputs.clone(), |v| {
        let layer = Linear {
            weight: v[1].try_reshape::<Shape![_, _]>(&[3, 4]).unwrap(),
            bias: Some(v[2].try_reshape::<Shape![_]>(&[3]).unwrap()),
        };
        let x = v[0].try_reshape::<Shape![_, _]>(&[5, 4]).unwrap();
        layer
            .forward(&x)
            .tanh()
            .try_reshape::<DynRank>(&[-1])
            .unwrap()
    });
    check!(dev, "linear without bias", inputs, |v| {
        let layer = Linear {
            weight: v[1].try_reshape::<Shape![_, _]>(&[3, 4]).unwrap(),
            bias: None,
        };
        let x = v[0].try_reshape::<Shape![_, _]>(&[5, 4]).unwrap();
        layer.forward(&x).try_reshape::<DynRank>(&[-1]).unwrap()
    });
}

#[test]
fn matmul_rules_match_cpu() {
    let Some(dev) = device() else { return };
    let dev = &dev;
    let cases: Vec<(Vec<usize>, Vec<usize>)> = vec![
        (vec![2, 1, 3, 4], vec![5, 4, 2]),
        (vec![4], vec![3, 4, 2]),
        (vec![2, 3, 4], vec![4]),
        (vec![4], vec![4]),
        (vec![3, 4], vec![4, 5]),
        (vec![2, 0], vec![0, 3]),
        (vec![0, 4], vec![4, 3]),
    ];
    for (i, (a, b)) in cases.into_iter().enumerate() {
        let s = 20 + 2 * i as u64;
        let inputs = vec![rand(&a, s, -1.0, 1.0), rand(&b, s + 1, -1.0, 1.0)];
        check!(dev, &format!("matmul {a:?} @ {b:?}"), inputs, |v| v[0]
            .matmul(&v[1]));
    }
    // A transposed right operand, and `mm`.
    let inputs = vec![rand(&[3, 4], 40, -1.0, 1.0), rand(&[5, 4], 41, -1.0, 1.0)];
    check!(dev, "matmul transposed", inputs, |v| {
        v[0].matmul(&v[1].permute::<DynRank>(&[1, 0]).unwrap())
    });
}

#[test]
fn view_rules_match_cpu() {
    let Some(dev) = device() else { return };
    let dev = &dev;
    let x = || vec![rand(&[2, 3, 4], 50, -2.0, 2.0)];
    check!(dev, "reshape of a transposed view", x(), |v| {
        v[0].permute::<DynRank>(&[2, 0, 1])
            .unwrap()
            .try_reshape::<DynRank>(&[4, -1])
            .unwrap()
    });
    check!(dev, "expand", vec![rand(&[3, 1], 51, -2.0, 2.0)], |v| {
        v[0].expand::<DynRank>(&[2, 3, 5]).unwrap()
    });
    check!(dev, "broadcast_to", vec![rand(&[4], 52, -2.0, 2.0)], |v| {
        v[0].try_broadcast_to::<DynRank>(&[3, 4]).unwrap()
    });
    check!(
        dev,
        "broadcast_in_dim",
        vec![rand(&[3, 1], 53, -2.0, 2.0)],
        |v| {
            v[0].broadcast_in_dim::<DynRank>(&[2, 3, 4], &[1, 2])
                .unwrap()
        }
    );
    check!(dev, "narrow", x(), |v| v[0]
        .narrow::<DynRank>(2, 1, 2)
        .unwrap());
    check!(dev, "narrow to nothing", x(), |v| v[0]
        .narrow::<DynRank>(1, 1, 0)
        .unwrap());
    check!(dev, "transpose", x(), |v| {
        v[0].permute::<DynRank>(&[0, 2, 1]).unwrap().sin()
    });
}

#[test]
fn a_training_step_matches_cpu() {
    let Some(dev) = device() else { return };
    let dev = &dev;
    // A two-layer perceptron's loss and the gradients of its parameters.
    let inputs = vec![
        rand(&[8, 5], 60, -1.0, 1.0),
        rand(&[5, 16], 61, -0.5, 0.5),
        rand(&[16], 62, -0.1, 0.1),
        rand(&[16, 3], 63, -0.5, 0.5),
        rand(&[3], 64, -0.1, 0.1),
        rand(&[8, 3], 65, -1.0, 1.0),
    ];
    check!(dev, "mlp", inputs, |v| {
        let h = v[0].matmul(&v[1]).add(&v[2]).relu();
        let y = h.matmul(&v[3]).add(&v[4]).tanh();
        y.sub(&v[5])
            .square()
            .mean()
            .try_reshape::<DynRank>(&[1])
            .unwrap()
    });
}

#[test]
fn nn_layers_match_cpu() {
    use shaped::nn::{Embedding, Gelu, LayerNorm, Relu, Sigmoid, Silu, Tanh};
    use shaped::{Const, Shape};
    let Some(dev) = device() else { return };
    let dev = &dev;
    // LayerNorm over the last axis of a rank-3 input; its scale and shift
    // are parameters, so their gradients (summed over the rows) compare too.
    let inputs = vec![
        rand(&[2, 3, 5], 110, -2.0, 2.0),
        rand(&[5], 111, 0.5, 1.5),
        rand(&[5], 112, -0.5, 0.5),
    ];
    check!(dev, "layer_norm", inputs, |v| {
        let ln: LayerNorm<Const<5>, f64, _> = LayerNorm {
            weight: v[1].try_reshape::<Shape![5]>(&[5]).unwrap(),
            bias: v[2].try_reshape::<Shape![5]>(&[5]).unwrap(),
            eps: 1e-5,
        };
        ln.forward(&v[0])
    });
    // A lookup with repeated rows: their gradients add up.
    check!(dev, "embedding", vec![rand(&[4, 3], 113, -1.0, 1.0)], |v| {
        let e = Embedding {
            weight: v[0].try_reshape::<Shape![_, _]>(&[4, 3]).unwrap(),
        };
        let ids = ints(v[0].value(), &[3, 0, 3, 3, 1], &[5])
            .try_reshape::<Shape![_]>(&[5])
            .unwrap();
        e.forward(&ids).try_reshape::<DynRank>(&[-1]).unwrap()
    });
    // The activation layers, chained on a transposed view.
    check!(
        dev,
        "activation layers",
        vec![rand(&[3, 4], 114, -3.0, 3.0)],
        |v| {
            let x = v[0].permute::<DynRank>(&[1, 0]).unwrap();
            let h = Relu.forward(&Gelu.forward(&x)).add(&Silu.forward(&x));
            Tanh.forward(&Sigmoid.forward(&h).mul(&x))
        }
    );
}

#[test]
fn dropout_masks_and_scales_on_cuda() {
    use shaped::nn::Dropout;
    let Some(dev) = device() else { return };
    // The GPU draws its own mask, so this checks what any mask must satisfy:
    // each element is dropped (value and gradient 0) or kept (value
    // `x / (1 - p)`, gradient `1 / (1 - p)`), about `1 - p` of them kept.
    let p = 0.25;
    let n = 4000;
    let x = rand(&[n / 40, 40], 115, 0.5, 1.5);
    let d = Dropout::new(p, 11);
    let xv = Var::param(x.to_device(&dev).unwrap());
    let y = d.forward(&xv);
    let g = y.sum().try_backward().unwrap().wrt(&xv).unwrap();
    let (y, g) = (host(y.value()).1, host(&g).1);
    let scale = 1.0 / (1.0 - p);
    let mut kept = 0;
    for ((&yi, &gi), &xi) in y.iter().zip(&g).zip(&x.to_vec()) {
        if gi == 0.0 {
            assert_eq!(yi, 0.0);
        } else {
            assert_eq!(gi, scale);
            assert!((yi - xi * scale).abs() < 1e-12, "{yi} vs {xi} * {scale}");
            kept += 1;
        }
    }
    let frac = kept as f64 / n as f64;
    assert!((frac - 0.75).abs() < 0.03, "kept {frac} of the elements");
    // A new mask each call; the same seed replays the same masks.
    let again = host(d.forward(&xv).value()).1;
    assert_ne!(again, y);
    let replay = host(Dropout::new(p, 11).forward(&xv).value()).1;
    assert_eq!(replay, y);
}

#[test]
fn one_hot_and_accuracy_match_cpu() {
    use shaped::nn::{accuracy, correct, one_hot, try_one_hot};
    use shaped::{Const, Shape};
    let Some(dev) = device() else { return };
    let labels = Tensor::<i64, Shape![5]>::from_vec(vec![2, 0, 1, 2, 2]);
    let g = labels.to_device(&dev).unwrap();
    let c: Tensor<f64, Shape![5, 3]> = one_hot(&labels);
    let d: Tensor<f64, Shape![5, 3], Cuda> = one_hot(&g);
    assert_eq!(c.to_vec(), d.to_cpu().unwrap().to_vec());
    let logits = rand(&[5, 3], 120, -1.0, 1.0)
        .try_reshape::<Shape![5, 3]>(&[5, 3])
        .unwrap();
    let gl = logits.to_device(&dev).unwrap();
    assert_eq!(correct(&logits, &labels), correct(&gl, &g));
    assert_eq!(accuracy(&logits, &labels), accuracy(&gl, &g));
    let bad = Tensor::<i64, Shape![1]>::from_vec(vec![3])
        .to_device(&dev)
        .unwrap();
    assert_eq!(
        try_one_hot::<f64, Const<3>, _, _, _>(&bad)
            .unwrap_err()
            .to_string(),
        "Class values must be smaller than num_classes."
    );
}

/// An `(N, C, H, W)` view of a parameter, and back.
fn nchw<D: GradDevice<f64>>(
    v: &Var<f64, DynRank, D>,
) -> Var<f64, (shaped::Dyn, shaped::Dyn, shaped::Dyn, shaped::Dyn), D> {
    v.try_into_shape().unwrap()
}

#[test]
fn convolutions_poolings_and_norms_match_cpu() {
    use shaped::nn::{BatchNorm, GroupNorm};
    use shaped::ops::conv::{Conv2dOptions, Pool2dOptions};
    let Some(dev) = device() else { return };
    let dev = &dev;
    // Dense, strided, with a bias; grouped and dilated; depthwise (two
    // filters per channel), "same". (The bodies capture nothing: each
    // states its options.)
    type V4 = (shaped::Dyn, shaped::Dyn, shaped::Dyn, shaped::Dyn);
    let inputs = |x: &[usize], w: &[usize], seed: u64| {
        vec![
            rand(x, seed, -1.0, 1.0),
            rand(w, seed + 1, -1.0, 1.0),
            rand(&[w[0]], seed + 2, -1.0, 1.0),
        ]
    };
    check!(
        dev,
        "conv2d",
        inputs(&[2, 4, 7, 6], &[6, 4, 3, 3], 200),
        |v| {
            let bias: Var<f64, (shaped::Dyn,), _> = v[2].try_into_shape().unwrap();
            let opts = Conv2dOptions::new().stride(2).padding(1);
            let y: Var<f64, V4, _> = nchw(&v[0])
                .try_conv2d(&nchw(&v[1]), Some(&bias), &opts)
                .unwrap();
            y.into_dyn()
        }
    );
    check!(
        dev,
        "grouped conv2d",
        inputs(&[2, 4, 7, 6], &[6, 2, 3, 2], 210),
        |v| {
            let opts = Conv2dOptions::new().dilation(2).groups(2);
            let y: Var<f64, V4, _> = nchw(&v[0]).try_conv2d(&nchw(&v[1]), None, &opts).unwrap();
            y.into_dyn()
        }
    );
    check!(
        dev,
        "conv_transpose2d",
        inputs(&[2, 4, 3, 3], &[4, 3, 3, 3], 240),
        |v| {
            let opts = shaped::ops::conv::ConvTranspose2dOptions::new()
                .stride(2)
                .padding(1)
                .output_padding(1)
                .groups(2);
            let y: Var<f64, V4, _> = nchw(&v[0])
                .try_conv_transpose2d(&nchw(&v[1]), None::<&Var<f64, (shaped::Dyn,), _>>, &opts)
                .unwrap();
            y.into_dyn()
        }
    );
    check!(
        dev,
        "depthwise conv2d",
        inputs(&[1, 3, 5, 5], &[6, 1, 3, 3], 220),
        |v| {
            let opts = Conv2dOptions::new().same().groups(3);
            let y: Var<f64, V4, _> = nchw(&v[0]).try_conv2d(&nchw(&v[1]), None, &opts).unwrap();
            y.into_dyn()
        }
    );
    check!(dev, "max_pool2d", vec![stepped(&[2, 3, 7, 6], 230)], |v| {
        let y: Var<f64, (shaped::Dyn, shaped::Dyn, shaped::Dyn, shaped::Dyn), _> = nchw(&v[0])
            .try_max_pool2d(&Pool2dOptions::new(3).stride(2).padding(1))
            .unwrap();
        y.into_dyn()
    });
    check!(
        dev,
        "avg_pool2d and adaptive_avg_pool2d",
        vec![rand(&[2, 3, 7, 6], 231, -1.0, 1.0)],
        |v| {
            let a: Var<f64, (shaped::Dyn, shaped::Dyn, shaped::Dyn, shaped::Dyn), _> = nchw(&v[0])
                .try_avg_pool2d(&Pool2dOptions::new(3).stride(2).padding(1))
                .unwrap();
            let b: Var<f64, (shaped::Dyn, shaped::Dyn, shaped::Dyn, shaped::Dyn), _> =
                nchw(&v[0]).try_adaptive_avg_pool2d([4, 4]).unwrap();
            a.try_add(&b).unwrap().into_dyn()
        }
    );
    check!(
        dev,
        "batch norm and group norm",
        vec![
            rand(&[3, 4, 5, 5], 232, -1.0, 1.0),
            rand(&[4], 233, 0.5, 1.5),
            rand(&[4], 234, -1.0, 1.0)
        ],
        |v| {
            let (w, b) = (
                v[1].value().try_into_shape::<(shaped::Dyn,)>().unwrap(),
                v[2].value().try_into_shape::<(shaped::Dyn,)>().unwrap(),
            );
            let bn = BatchNorm::from_tensors(w.share(), b.share());
            let gn = GroupNorm::from_tensors(2, w, b);
            bn.try_forward(&v[0])
                .unwrap()
                .try_add(&gn.try_forward(&v[0]).unwrap())
                .unwrap()
        }
    );
}
