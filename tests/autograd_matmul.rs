//! The gradients of `Var::matmul` and `Var::mm` checked by central finite
//! differences in `f64` (the loss `Σ w ⊙ (a · b)` with random fixed weights
//! `w`), for every NumPy case: dot, 1-D promotions on either side, 2-D,
//! batched with broadcast batch dimensions, and expanded (stride-0)
//! operands; plus one exact small case.

use shaped::autograd::Var;
use shaped::{DynRank, Shape, Tensor};

type D = Tensor<f64, DynRank>;
type V = Var<f64, DynRank>;

/// A small deterministic generator (xorshift).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn uniform(&mut self) -> f64 {
        -1.0 + 2.0 * ((self.next() >> 11) as f64 / (1u64 << 53) as f64)
    }
    fn tensor(&mut self, dims: &[usize]) -> D {
        let n = dims.iter().product();
        D::try_from_vec((0..n).map(|_| self.uniform()).collect(), dims).unwrap()
    }
}

/// Checks the gradients of `f(a, b)` against central differences.
fn check(rng: &mut Rng, a: &D, b: &D, f: &dyn Fn(&V, &V) -> V) {
    let inputs = [a.clone(), b.clone()];
    let vars: Vec<V> = inputs.iter().map(|t| Var::param(t.clone())).collect();
    let out = f(&vars[0], &vars[1]);
    let w = rng.tensor(out.dims());
    let loss = out
        .mul(&Var::constant(w.clone()))
        .try_sum_dims(&[], false)
        .unwrap();
    let grads = loss.try_backward().unwrap();
    let h = 1e-6;
    for (i, x) in inputs.iter().enumerate() {
        let g = grads.wrt(&vars[i]).expect("both operands need a gradient");
        assert_eq!(g.dims(), x.dims(), "gradient {i} has its input's sizes");
        let (analytic, base) = (g.to_vec(), x.to_vec());
        for j in 0..base.len() {
            let eval = |delta: f64| {
                let mut v = base.clone();
                v[j] += delta;
                let moved = Var::constant(D::try_from_vec(v, x.dims()).unwrap());
                let (p, q) = if i == 0 {
                    (moved, Var::constant(b.clone()))
                } else {
                    (Var::constant(a.clone()), moved)
                };
                f(&p, &q).value().mul(&w).sum().item()
            };
            let fd = (eval(h) - eval(-h)) / (2.0 * h);
            assert!(
                (analytic[j] - fd).abs() <= 1e-6 * (1.0 + fd.abs()),
                "{:?}·{:?}: input {i} element {j}: autograd {}, finite difference {fd}",
                a.dims(),
                b.dims(),
                analytic[j]
            );
        }
    }
}

fn matmul(a: &V, b: &V) -> V {
    a.try_matmul(b).unwrap()
}

/// Checks `a.matmul(b)` for sizes `da`, `db`, with a few random draws.
fn case(seed: u64, da: &[usize], db: &[usize]) {
    let mut rng = Rng(seed);
    for _ in 0..3 {
        let (a, b) = (rng.tensor(da), rng.tensor(db));
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
        let pick = |rng: &mut Rng, n| 1 + (rng.next() % n) as usize;
        let (m, k, n) = (pick(&mut rng, 4), pick(&mut rng, 4), pick(&mut rng, 4));
        let batch: Vec<usize> = (0..rng.next() % 3).map(|_| pick(&mut rng, 3)).collect();
        let side = |rng: &mut Rng, tail: [usize; 2], vector: usize| -> Vec<usize> {
            match rng.next() % 4 {
                0 => vec![vector],
                1 => tail.to_vec(),
                _ => {
                    let drop = (rng.next() as usize) % (batch.len() + 1);
                    let mut d: Vec<usize> = batch[drop..]
                        .iter()
                        .map(|&s| if rng.next() % 3 == 0 { 1 } else { s })
                        .collect();
                    d.extend(tail);
                    d
                }
            }
        };
        let da = side(&mut rng, [m, k], k);
        let db = side(&mut rng, [k, n], k);
        let (a, b) = (rng.tensor(&da), rng.tensor(&db));
        check(&mut rng, &a, &b, &matmul);
    }
}

#[test]
fn expanded_operands() {
    let mut rng = Rng(0xe4a5_0001);
    // A stride-0 batch and a stride-0 row on the left, a stride-0 column on
    // the right; the gradient comes back in the base's sizes through the
    // `expand` rule, and the matmul rule sees the strided forms.
    let base_a = rng.tensor(&[1, 1, 4]);
    let base_b = rng.tensor(&[3, 1]);
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
    let a = rng.tensor(&[3, 1]).try_broadcast_to(&[3, 4]).unwrap();
    let b = rng.tensor(&[1, 4, 2]).try_broadcast_to(&[3, 4, 2]).unwrap();
    check(&mut rng, &a, &b, &matmul);
}

#[test]
fn mm_matches_finite_differences() {
    let mut rng = Rng(0x0000_0a11);
    let (a, b) = (rng.tensor(&[3, 2]), rng.tensor(&[2, 4]));
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
