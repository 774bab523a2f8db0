//! Every backward rule checked by central finite differences in `f64`: for a
//! function `f` of some inputs, the loss `Σ w ⊙ f(inputs)` (random fixed
//! weights `w`, so upstream gradients differ per element) is differentiated
//! by the autograd engine and, element by element, by
//! `(L(x + h) - L(x - h)) / 2h`, which uses only the forward tensor ops.
//! Inputs have random shapes that broadcast against each other, and some are
//! expanded (stride-0) views.

use shaped::autograd::{Var, where_cond};
use shaped::{DynRank, Shape, Tensor};

mod common;

use common::Rng;
use common::grad::{D, Gen, V, check};

/// Two inputs of random shapes that broadcast together.
fn pair(rng: &mut Rng, lo: (f64, f64), hi: (f64, f64)) -> Vec<D> {
    let out = rng.dims(3);
    let (a, b) = (rng.broadcastable(&out), rng.broadcastable(&out));
    let (a, b) = if rng.below(2) == 0 {
        (out.clone(), b)
    } else {
        (a, out.clone())
    };
    vec![rng.tensor(&a, lo.0, lo.1), rng.tensor(&b, hi.0, hi.1)]
}

/// Three inputs of random shapes that broadcast together.
fn triple(rng: &mut Rng, ranges: [(f64, f64); 3]) -> Vec<D> {
    let out = rng.dims(3);
    let full = rng.below(3);
    (0..3)
        .map(|k| {
            let dims = if k == full {
                out.clone()
            } else {
                rng.broadcastable(&out)
            };
            rng.tensor(&dims, ranges[k].0, ranges[k].1)
        })
        .collect()
}

const ANY: (f64, f64) = (-2.0, 2.0);
const POS: (f64, f64) = (0.5, 2.0);
const CASES: usize = 12;

#[test]
fn binary_ops() {
    let mut rng = Rng(1);
    for _ in 0..CASES {
        let i = pair(&mut rng, ANY, ANY);
        check("add", &mut rng, &i, &|v| v[0].add(&v[1]));
        check("sub", &mut rng, &i, &|v| v[0].sub(&v[1]));
        check("mul", &mut rng, &i, &|v| v[0].mul(&v[1]));
        check("maximum", &mut rng, &i, &|v| v[0].maximum(&v[1]));
        check("minimum", &mut rng, &i, &|v| v[0].minimum(&v[1]));
        check("atan2", &mut rng, &i, &|v| v[0].atan2(&v[1]));
        check("operators", &mut rng, &i, &|v| {
            &(&(&v[0] + &v[1]) * &v[0]) - &(-&v[1])
        });
        let i = pair(&mut rng, ANY, POS);
        check("div", &mut rng, &i, &|v| v[0].div(&v[1]));
        check("div operator", &mut rng, &i, &|v| &v[0] / &v[1]);
        let i = pair(&mut rng, POS, ANY);
        check("pow", &mut rng, &i, &|v| v[0].pow(&v[1]));
    }
}

#[test]
fn ternary_ops() {
    let mut rng = Rng(2);
    for _ in 0..CASES {
        let i = triple(&mut rng, [ANY, ANY, ANY]);
        check("addcmul", &mut rng, &i, &|v| {
            v[0].addcmul(&v[1], &v[2], 0.7)
        });
        check("lerp", &mut rng, &i, &|v| v[0].lerp(&v[1], &v[2]));
        let i = triple(&mut rng, [ANY, ANY, POS]);
        check("addcdiv", &mut rng, &i, &|v| {
            v[0].addcdiv(&v[1], &v[2], -1.3)
        });
        let i = triple(&mut rng, [(-3.0, 3.0), (-2.0, 0.0), (0.0, 2.0)]);
        check("clamp_tensor", &mut rng, &i, &|v| {
            v[0].clamp_tensor(&v[1], &v[2])
        });
        // Bounds crossed (min > max): the result is max, as in PyTorch.
        let i = triple(&mut rng, [(-3.0, 3.0), (0.5, 1.0), (-1.0, 0.0)]);
        check("clamp_tensor crossed", &mut rng, &i, &|v| {
            v[0].clamp_tensor(&v[1], &v[2])
        });
        check("clamp", &mut rng, &i[..1], &|v| v[0].clamp(-1.0, 0.5));
        let i = pair(&mut rng, ANY, ANY);
        let out = shaped::broadcast_shapes(&[i[0].dims(), i[1].dims()]).unwrap();
        let c_dims = rng.broadcastable(&out);
        let cond = rng.tensor(&c_dims, -1.0, 1.0).map(|x| x > 0.0);
        check("where_cond", &mut rng, &i, &|v| {
            where_cond(&cond, &v[0], &v[1])
        });
    }
}

#[test]
fn unary_ops() {
    let mut rng = Rng(3);
    type F = fn(&V) -> V;
    let any: [(&str, F); 18] = [
        ("neg", |v| v.neg()),
        ("abs", |v| v.abs()),
        ("exp", |v| v.exp()),
        ("expm1", |v| v.expm1()),
        ("sin", |v| v.sin()),
        ("cos", |v| v.cos()),
        ("tan", |v| v.mul_scalar(0.5).tan()),
        ("tanh", |v| v.tanh()),
        ("sigmoid", |v| v.sigmoid()),
        ("relu", |v| v.relu()),
        ("gelu", |v| v.gelu()),
        ("silu", |v| v.silu()),
        ("square", |v| v.square()),
        ("floor", |v| v.floor()),
        ("ceil", |v| v.ceil()),
        ("round", |v| v.round()),
        ("trunc", |v| v.trunc()),
        ("sign", |v| v.sign()),
    ];
    let pos: [(&str, F); 5] = [
        ("log", |v| v.log()),
        ("log1p", |v| v.log1p()),
        ("sqrt", |v| v.sqrt()),
        ("rsqrt", |v| v.rsqrt()),
        ("reciprocal", |v| v.reciprocal()),
    ];
    for _ in 0..CASES {
        let dims = rng.dims(3);
        let x = [rng.tensor(&dims, ANY.0, ANY.1)];
        for (name, f) in any {
            check(name, &mut rng, &x, &|v| f(&v[0]));
        }
        check("scalar ops", &mut rng, &x, &|v| {
            v[0].mul_scalar(-3.0).add_scalar(2.0)
        });
        let x = [rng.tensor(&dims, POS.0, POS.1)];
        for (name, f) in pos {
            check(name, &mut rng, &x, &|v| f(&v[0]));
        }
    }
}

#[test]
fn views() {
    let mut rng = Rng(4);
    for _ in 0..CASES {
        let out = {
            let mut d = rng.dims(2);
            d.insert(0, 2);
            d.push(1 + rng.below(3));
            d
        };
        let small = rng.broadcastable(&out);
        let x = [rng.tensor(&small, ANY.0, ANY.1)];
        let sizes: Vec<isize> = out.iter().map(|&d| d as isize).collect();
        check("expand", &mut rng, &x, &|v| {
            v[0].expand::<DynRank>(&sizes).unwrap()
        });
        check("broadcast_to", &mut rng, &x, &|v| {
            v[0].try_broadcast_to::<DynRank>(&out).unwrap()
        });
        // broadcast_in_dim: put x's axes on increasing result axes.
        let r = small.len();
        let bdims: Vec<usize> = (out.len() - r..out.len()).collect();
        check("broadcast_in_dim", &mut rng, &x, &|v| {
            v[0].broadcast_in_dim::<DynRank>(&out, &bdims).unwrap()
        });
        let x = [rng.tensor(&out, ANY.0, ANY.1)];
        let rank = out.len();
        let mut perm: Vec<isize> = (0..rank as isize).collect();
        perm.rotate_left(1);
        check("permute", &mut rng, &x, &|v| {
            v[0].permute::<DynRank>(&perm).unwrap()
        });
        check("transpose", &mut rng, &x, &|v| v[0].transpose::<0, 1>());
        check("unsqueeze", &mut rng, &x, &|v| v[0].unsqueeze::<1>());
        check("squeeze", &mut rng, &x, &|v| {
            v[0].unsqueeze::<0>().squeeze::<0>().unwrap()
        });
        check("reshape", &mut rng, &x, &|v| {
            v[0].try_reshape::<DynRank>(&[-1]).unwrap()
        });
        let n = out[0];
        check("narrow", &mut rng, &x, &|v| {
            v[0].narrow::<DynRank>(0, 1, n - 1).unwrap()
        });
        check("narrow last", &mut rng, &x, &|v| {
            v[0].narrow::<DynRank>(-1, 0, 1).unwrap()
        });
        // A view then an op using the same input twice: gradients accumulate.
        check("reuse", &mut rng, &x, &|v| {
            v[0].transpose::<0, 1>()
                .mul(&v[0].transpose::<0, 1>())
                .add(&v[0].transpose::<0, 1>())
        });
    }
}

#[test]
fn reductions() {
    let mut rng = Rng(5);
    for _ in 0..CASES {
        let dims = {
            let mut d = rng.dims(3);
            d.push(2 + rng.below(3));
            d
        };
        let rank = dims.len();
        let x = [rng.tensor(&dims, ANY.0, ANY.1)];
        // A random list of dims (possibly empty: all), negative half the time.
        let mut list: Vec<isize> = Vec::new();
        for i in 0..rank {
            if rng.below(2) == 0 {
                list.push(if rng.below(2) == 0 {
                    i as isize
                } else {
                    i as isize - rank as isize
                });
            }
        }
        let keep = rng.below(2) == 0;
        // Distinct values, so that max/min and norm(inf) have no ties.
        let distinct = |x: &D| {
            let n = x.numel();
            let vals: Vec<f64> = (0..n)
                .map(|k| (k as f64 * 0.37).sin() * 2.0 + k as f64 * 1e-3)
                .collect();
            D::try_from_vec(vals, x.dims()).unwrap()
        };
        let xd = [distinct(&x[0])];
        check("sum", &mut rng, &x, &|v| {
            v[0].try_sum_dims(&list, keep).unwrap()
        });
        check("mean", &mut rng, &x, &|v| {
            v[0].try_mean_dims(&list, keep).unwrap()
        });
        check("prod", &mut rng, &x, &|v| {
            v[0].try_prod_dims(&list, keep).unwrap()
        });
        check("max", &mut rng, &xd, &|v| {
            v[0].try_max_dims(&list, keep).unwrap()
        });
        check("min", &mut rng, &xd, &|v| {
            v[0].try_min_dims(&list, keep).unwrap()
        });
        // With one element per group, var with correction 1 is NaN and std
        // is 0, where its gradient is NaN (as in PyTorch): check groups of 2+.
        let group: usize = if list.is_empty() {
            dims.iter().product()
        } else {
            list.iter()
                .map(|&d| dims[d.rem_euclid(rank as isize) as usize])
                .product()
        };
        for c in [0, 1] {
            if group > 1 {
                check("var", &mut rng, &x, &|v| {
                    v[0].try_var_dims(&list, keep, c).unwrap()
                });
                check("std", &mut rng, &xd, &|v| {
                    v[0].try_std_dims(&list, keep, c).unwrap()
                });
            }
        }
        for p in [1.0, 2.0, 3.0, 0.5, f64::INFINITY, f64::NEG_INFINITY, 0.0] {
            check("norm", &mut rng, &xd, &|v| {
                v[0].try_norm_dims(&list, keep, p).unwrap()
            });
        }
        check("logsumexp", &mut rng, &x, &|v| {
            v[0].try_logsumexp_dims(&list, keep).unwrap()
        });
        let d = rng.below(rank) as isize;
        check("softmax", &mut rng, &x, &|v| v[0].try_softmax(d).unwrap());
        check("log_softmax", &mut rng, &x, &|v| {
            v[0].try_log_softmax(d - rank as isize).unwrap()
        });
        let target = rng.broadcastable(&dims);
        check("sum_to", &mut rng, &x, &|v| {
            v[0].try_sum_to_size::<DynRank>(&target).unwrap()
        });
        // The whole-tensor forms.
        check("sum all", &mut rng, &x, &|v| v[0].sum().into_dyn_var());
        check(
            "prod with zeros",
            &mut rng,
            &[x[0].map(|v| if v < -1.0 { 0.0 } else { v })],
            &|v| v[0].try_prod_dims(&list, keep).unwrap(),
        );
    }
}

/// A 0-d `Var` seen with dynamic rank, for the checker.
trait IntoDynVar {
    fn into_dyn_var(self) -> V;
}
impl IntoDynVar for Var<f64, ()> {
    fn into_dyn_var(self) -> V {
        self.try_reshape::<DynRank>(&[]).unwrap()
    }
}

#[test]
fn prod_with_one_and_two_zeros() {
    let x = Var::param(Tensor::<f64, Shape![2, 3]>::from_vec(vec![
        2., 0., 3., 0., 5., 0.,
    ]));
    let g = x.prod_dim::<1>().sum().backward().wrt(&x).unwrap();
    // Row 0 has one zero: only it gets the product of the others; row 1 has two.
    assert_eq!(g.to_vec(), vec![0., 6., 0., 0., 0., 0.]);
}

#[test]
fn matmul() {
    let mut rng = Rng(6);
    for _ in 0..CASES {
        let (m, k, n) = (1 + rng.below(4), 1 + rng.below(4), 1 + rng.below(4));
        let a = rng.tensor(&[m, k], ANY.0, ANY.1);
        let b = rng.tensor(&[k, n], ANY.0, ANY.1);
        check("matmul", &mut rng, &[a, b], &|v| {
            v[0].try_matmul(&v[1]).unwrap()
        });
    }
}

/// Seed 004: A = [1, 2, 3], B = [1.], C = A + B, C.sum().backward().
#[test]
fn seed_bias_of_one() {
    let a = Var::param(Tensor::<f32, Shape![3]>::from_vec(vec![1., 2., 3.]));
    let b = Var::param(Tensor::<f32, Shape![1]>::from_vec(vec![1.]));
    let c = a.add(&b);
    let g = c.sum().backward();
    let ga: Tensor<f32, Shape![3]> = g.wrt(&a).unwrap();
    let gb: Tensor<f32, Shape![1]> = g.wrt(&b).unwrap();
    assert_eq!(ga.to_vec(), vec![1., 1., 1.]);
    assert_eq!(gb.to_vec(), vec![3.]);
}

/// Seed 004: (2, 1) + (2, 2): the (2, 1) gradient sums over dim 1 keeping it.
#[test]
fn seed_keepdim_sum() {
    let a = Var::param(Tensor::<f32, Shape![2, 1]>::from_vec(vec![1., 2.]));
    let b = Var::param(Tensor::<f32, Shape![2, 2]>::from_vec(vec![1., 2., 3., 4.]));
    let w = Var::constant(Tensor::<f32, Shape![2, 2]>::from_vec(vec![
        1., 10., 100., 1000.,
    ]));
    let g = a.add(&b).mul(&w).sum().backward();
    let ga: Tensor<f32, Shape![2, 1]> = g.wrt(&a).unwrap();
    assert_eq!(ga.to_vec(), vec![11., 1100.]);
    assert_eq!(g.wrt(&b).unwrap().to_vec(), vec![1., 10., 100., 1000.]);
}

#[test]
fn gradients_accumulate_over_uses() {
    let x = Var::param(Tensor::<f64, Shape![2]>::from_vec(vec![1., 2.]));
    // x used three times: d/dx (x*x + x) = 2x + 1.
    let g = x.mul(&x).add(&x).sum().backward();
    assert_eq!(g.wrt(&x).unwrap().to_vec(), vec![3., 5.]);
}

#[test]
fn constants_record_nothing() {
    let c = Var::constant(Tensor::<f32, Shape![2]>::ones());
    let p = Var::param(Tensor::<f32, Shape![2]>::ones());
    assert!(!c.exp().add(&c).sum().requires_grad());
    let g = c.exp().add(&p).sum().backward();
    assert!(g.wrt(&c).is_none());
    assert_eq!(g.wrt(&p).unwrap().to_vec(), vec![1., 1.]);
}

#[test]
fn deep_graphs_do_not_overflow_the_stack() {
    let x = Var::param(Tensor::<f64, Shape![1]>::from_vec(vec![0.]));
    let mut y = x.clone();
    for _ in 0..100_000 {
        y = y.add_scalar(1.0);
    }
    assert_eq!(y.value().to_vec(), vec![100_000.]);
    assert_eq!(y.sum().backward().wrt(&x).unwrap().to_vec(), vec![1.]);
    drop(y);
}

#[test]
fn errors_carry_pytorchs_messages() {
    let x = Var::param(D::try_zeros(&[2, 0]).unwrap());
    let err = |r: Result<V, shaped::ShapeError>| r.err().unwrap().to_string();
    assert_eq!(
        err(x.try_max_dims(&[1], false)),
        "max(): Expected reduction dim 1 to have non-zero size."
    );
    assert_eq!(
        err(x.try_sum_dims(&[2], false)),
        "Dimension out of range (expected to be in range of [-2, 1], but got 2)"
    );
    let y = Var::param(D::try_ones(&[3]).unwrap());
    assert_eq!(
        err(y.try_add(&Var::param(D::try_ones(&[2]).unwrap()))),
        "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0"
    );
    assert_eq!(
        y.try_backward().err().unwrap().to_string(),
        "grad can be implicitly created only for scalar outputs"
    );
}

/// Signs of zero as PyTorch: the gradient of `a - b` for a broadcast `b`
/// negates the upstream gradient before summing it, so an upstream `[0, -0]`
/// gives `+0` (torch: `((a - b) * w).sum().backward()` with `w = [0., -0.]`
/// leaves `b.grad == tensor([0.])`, sign bit clear), as does `[-0, -0]`.
#[test]
fn sub_gradient_negates_before_summing() {
    for weights in [[0.0, -0.0], [-0.0, -0.0]] {
        let a = Var::param(Tensor::<f64, Shape![2]>::from_vec(vec![1., 2.]));
        let b = Var::param(Tensor::<f64, Shape![1]>::from_vec(vec![3.]));
        let w = Var::constant(Tensor::<f64, Shape![2]>::from_vec(weights.to_vec()));
        let grads = a.sub(&b).mul(&w).sum().backward();
        let gb = grads.wrt(&b).unwrap().to_vec();
        assert_eq!(gb, vec![0.0]);
        assert!(
            gb[0].is_sign_positive(),
            "d(a - b)/db summed to -0 for w = {weights:?}"
        );
    }
}
