//! Gradient checks by central finite differences in `f64`, shared by the
//! autograd tests: random sizes and tensors (some expanded, stride-0 views),
//! and the comparison of the engine's gradients of the loss `Σ w ⊙ f(inputs)`
//! (random fixed weights `w`, so upstream gradients differ per element)
//! with `(L(x + h) - L(x - h)) / 2h`, which uses only the forward tensor ops.

use shaped::autograd::Var;
use shaped::{DynRank, Tensor};

use super::Rng;

pub type D = Tensor<f64, DynRank>;
pub type V = Var<f64, DynRank>;

/// Random sizes and tensors for the checks.
pub trait Gen {
    /// A number below `n`.
    fn below(&mut self, n: usize) -> usize;
    /// Sizes of rank `0..=max_rank`, each 1 to 4.
    fn dims(&mut self, max_rank: usize) -> Vec<usize>;
    /// Sizes that broadcast to `out`: some leading dims dropped, some 1.
    fn broadcastable(&mut self, out: &[usize]) -> Vec<usize>;
    /// A tensor of sizes `dims` with values in `[lo, hi)`; sometimes an
    /// expanded view (stride 0 on the even axes).
    fn tensor(&mut self, dims: &[usize], lo: f64, hi: f64) -> D;
}

impl Gen for Rng {
    fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    fn dims(&mut self, max_rank: usize) -> Vec<usize> {
        let rank = self.below(max_rank + 1);
        (0..rank).map(|_| 1 + self.below(4)).collect()
    }
    fn broadcastable(&mut self, out: &[usize]) -> Vec<usize> {
        super::broadcastable(out, self)
    }
    fn tensor(&mut self, dims: &[usize], lo: f64, hi: f64) -> D {
        if !dims.is_empty() && self.below(3) == 0 {
            return super::expanded_even(dims, || self.uniform(lo, hi));
        }
        contiguous(self, dims, lo, hi)
    }
}

/// A contiguous tensor of sizes `dims` with values in `[lo, hi)`.
pub fn contiguous(rng: &mut Rng, dims: &[usize], lo: f64, hi: f64) -> D {
    let n = dims.iter().product();
    D::try_from_vec((0..n).map(|_| rng.uniform(lo, hi)).collect(), dims).unwrap()
}

/// The loss `Σ w ⊙ out` as a number.
pub fn weighted(out: &D, w: &D) -> f64 {
    out.mul(w).sum().item()
}

/// Checks the gradients of `f` at `inputs` against central differences,
/// with random weights drawn by `rng.tensor(.., -1, 1)`; an input the loss
/// does not reach must have a zero gradient.
pub fn check(name: &str, rng: &mut Rng, inputs: &[D], f: &dyn Fn(&[V]) -> V) {
    let weights = |dims: &[usize]| rng.tensor(dims, -1.0, 1.0).contiguous();
    check_weighted(name, inputs, weights, f, Reach::Some, 1e-5);
}

/// Whether every input must receive a gradient.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Reach {
    /// Each input needs one (a missing gradient fails the check).
    All,
    /// A missing gradient stands for zeros.
    Some,
}

/// Checks the gradients of `Σ w ⊙ f(inputs)` at `inputs` against central
/// differences (step `1e-6`), each to `tol` relative to `1 + |fd|`; `w` is
/// `weights` of the output's sizes.
pub fn check_weighted(
    name: &str,
    inputs: &[D],
    weights: impl FnOnce(&[usize]) -> D,
    f: &dyn Fn(&[V]) -> V,
    reach: Reach,
    tol: f64,
) {
    let vars: Vec<V> = inputs.iter().map(|t| Var::param(t.clone())).collect();
    let out = f(&vars);
    let w = weights(out.dims());
    let loss = out
        .mul(&Var::constant(w.clone()))
        .try_sum_dims(&[], false)
        .unwrap();
    let grads = loss.try_backward().unwrap();
    let h = 1e-6;
    for (i, x) in inputs.iter().enumerate() {
        let base = x.to_vec();
        let analytic = match grads.wrt(&vars[i]) {
            Some(g) => {
                assert_eq!(
                    g.dims(),
                    x.dims(),
                    "{name}: gradient {i} has its input's sizes"
                );
                g.to_vec()
            }
            None => {
                assert!(reach == Reach::Some, "{name}: input {i} needs a gradient");
                vec![0.0; base.len()]
            }
        };
        for j in 0..base.len() {
            let eval = |delta: f64| {
                let mut v = base.clone();
                v[j] += delta;
                let consts: Vec<V> = inputs
                    .iter()
                    .enumerate()
                    .map(|(k, t)| {
                        Var::constant(if k == i {
                            D::try_from_vec(v.clone(), x.dims()).unwrap()
                        } else {
                            t.clone()
                        })
                    })
                    .collect();
                weighted(f(&consts).value(), &w)
            };
            let fd = (eval(h) - eval(-h)) / (2.0 * h);
            let a = analytic[j];
            assert!(
                (a - fd).abs() <= tol * (1.0 + fd.abs()),
                "{name}: input {i} {:?} element {j}: autograd {a}, finite difference {fd}",
                x.dims()
            );
        }
    }
}
