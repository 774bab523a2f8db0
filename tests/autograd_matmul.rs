//! The gradients of `Var::matmul` and `Var::mm` checked by central finite
//! differences in `f64` (the loss `Σ w ⊙ (a · b)` with random fixed weights
//! `w`), for every NumPy case: dot, 1-D promotions on either side, 2-D,
//! batched with broadcast batch dimensions, and expanded (stride-0)
//! operands; plus one exact small case.

use shaped::autograd::Var;
use shaped::{DynRank, Shape, Tensor};

mod common;

use common::Rng;
use common::grad::{D, Reach, V, check_weighted, contiguous};

/// Checks the gradients of `f(a, b)` against central differences; both
/// operands need a gradient.
fn check(rng: &mut Rng, a: &D, b: &D, f: &dyn Fn(&V, &V) -> V) {
    let name = format!("{:?}·{:?}", a.dims(), b.dims());
    let weights = |dims: &[usize]| contiguous(rng, dims, -1.0, 1.0);
    let f = |v: &[V]| f(&v[0], &v[1]);
    check_weighted(
        &name,
        &[a.clone(), b.clone()],
        weights,
        &f,
        Reach::All,
        1e-6,
    );
}

/// A contiguous tensor of sizes `dims` with values in `[-1, 1)`.
fn tensor(rng: &mut Rng, dims: &[usize]) -> D {
    contiguous(rng, dims, -1.0, 1.0)
}

fn matmul(a: &V, b: &V) -> V {
    a.try_matmul(b).unwrap()
}

/// Checks `a.matmul(b)` for sizes `da`, `db`, with a few random draws.
fn case(seed: u64, da: &[usize], db: &[usize]) {
    let mut rng = Rng(seed);
    for _ in 0..3 {
        let (a, b) = (tensor(&mut rng, da), tensor(&mut rng, db));
        check(&mut rng, &a, &b, &matmul);
    }
}

#[test]
fn dot() {
    case(0x9e37_79b9, &[3], &[3]);
}

#[test]
fn matrix_vector() {
    case(0x1234_5678, &[2, 3], &[3]);
}

#[test]
fn vector_matrix() {
    case(0x0bad_cafe, &[3], &[3, 4]);
}

#[test]
fn matrix_matrix() {
    case(0xdead_beef, &[2, 3], &[3, 4]);
}

#[test]
fn batch_broadcast() {
    case(0x5eed_0001, &[2, 1, 3, 4], &[5, 4, 2]);
    case(0x5eed_0002, &[5, 3, 4], &[2, 1, 4, 2]);
    case(0x5eed_0003, &[4], &[2, 3, 4, 2]);
    case(0x5eed_0004, &[2, 3, 3, 4], &[4]);
}

#[test]
fn random_shapes() {
    let mut rng = Rng(0xfeed_f00d);
    for _ in 0..20 {
        let pick = |rng: &mut Rng, n| 1 + (rng.next_u64() % n) as usize;
        let (m, k, n) = (pick(&mut rng, 4), pick(&mut rng, 4), pick(&mut rng, 4));
        let batch: Vec<usize> = (0..rng.next_u64() % 3).map(|_| pick(&mut rng, 3)).collect();
        let side = |rng: &mut Rng, tail: [usize; 2], vector: usize| -> Vec<usize> {
            match rng.next_u64() % 4 {
                0 => vec![vector],
                1 => tail.to_vec(),
                _ => {
                    let drop = (rng.next_u64() as usize) % (batch.len() + 1);
                    let mut d: Vec<usize> = batch[drop..]
                        .iter()
                        .map(|&s| {
                            if rng.next_u64().is_multiple_of(3) {
                                1
                            } else {
                                s
                            }
                        })
                        .collect();
                    d.extend(tail);
                    d
                }
            }
        };
        let da = side(&mut rng, [m, k], k);
        let db = side(&mut rng, [k, n], k);
        let (a, b) = (tensor(&mut rng, &da), tensor(&mut rng, &db));
        check(&mut rng, &a, &b, &matmul);
    }
}

#[test]
fn expanded_operands() {
    let mut rng = Rng(0xe4a5_0001);
    // A stride-0 batch and a stride-0 row on the left, a stride-0 column on
    // the right; the gradient comes back in the base's sizes through the
    // `expand` rule, and the matmul rule sees the strided forms.
    let base_a = tensor(&mut rng, &[1, 1, 4]);
    let base_b = tensor(&mut rng, &[3, 1]);
    let f = |a: &V, b: &V| -> V {
        let a = a.try_broadcast_to::<DynRank>(&[2, 3, 4]).unwrap();
        let b = b.try_broadcast_to::<DynRank>(&[3, 5]).unwrap();
        a.permute::<DynRank>(&[0, 2, 1])
            .unwrap()
            .try_matmul(&b)
            .unwrap()
    };
    check(&mut rng, &base_a, &base_b, &f);
    // An expanded tensor as a leaf: its gradient has the expanded sizes.
    let a = tensor(&mut rng, &[3, 1]).try_broadcast_to(&[3, 4]).unwrap();
    let b = tensor(&mut rng, &[1, 4, 2])
        .try_broadcast_to(&[3, 4, 2])
        .unwrap();
    check(&mut rng, &a, &b, &matmul);
}

#[test]
fn mm_matches_finite_differences() {
    let mut rng = Rng(0x0000_0a11);
    let (a, b) = (tensor(&mut rng, &[3, 2]), tensor(&mut rng, &[2, 4]));
    check(&mut rng, &a, &b, &|a: &V, b: &V| {
        let c = a.try_mm(b).unwrap();
        c.try_broadcast_to::<DynRank>(c.dims()).unwrap()
    });
}

#[test]
fn exact_small_case() {
    // [[1, 2], [3, 4]] · [[5, 6], [7, 8]], upstream gradient [[1, 0], [0, 2]].
    let a = Var::param(Tensor::<f64, Shape![2, 2]>::from_vec(vec![1., 2., 3., 4.]));
    let b = Var::param(Tensor::<f64, Shape![2, 2]>::from_vec(vec![5., 6., 7., 8.]));
    let c: Var<f64, Shape![2, 2]> = a.matmul(&b);
    assert_eq!(c.value().to_vec(), vec![19., 22., 43., 50.]);
    let seed = Tensor::<f64, Shape![2, 2]>::from_vec(vec![1., 0., 0., 2.]);
    let g = c.try_backward_with(&seed).unwrap();
    // g · bᵀ = [[5, 7], [12, 16]]; aᵀ · g = [[1, 6], [2, 8]].
    let ga: Tensor<f64, Shape![2, 2]> = g.wrt(&a).unwrap();
    assert_eq!(ga.to_vec(), vec![5., 7., 12., 16.]);
    assert_eq!(g.wrt(&b).unwrap().to_vec(), vec![1., 6., 2., 8.]);
}

#[test]
fn typed_shapes_and_promotions() {
    let v = Var::param(Tensor::<f64, Shape![3]>::ones());
    let m = Var::param(Tensor::<f64, Shape![2, 5, 3, 4]>::ones());
    let y: Var<f64, Shape![2, 5, 4]> = v.matmul(&m);
    let g = y.sum().backward();
    let gv: Tensor<f64, Shape![3]> = g.wrt(&v).unwrap();
    assert_eq!(gv.to_vec(), vec![40.; 3]);
    let gm: Tensor<f64, Shape![2, 5, 3, 4]> = g.wrt(&m).unwrap();
    assert_eq!(gm.to_vec(), vec![1.; 120]);
}
