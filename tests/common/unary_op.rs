//! One checker for a one-operand op added through the op table: the eager
//! method, its in-place form, the fused chain, and the gradients of the
//! eager and the fused variable, on a contiguous and a strided input,
//! against reference values the caller gives (PyTorch's, or naive loops).

use shaped::autograd::Var;
use shaped::element::Float;
use shaped::{DynRank, Tensor};

/// A one-dimensional variable.
type V<T> = Var<T, DynRank>;

/// The op's forms, each as a function (closures without captures).
pub struct UnaryOp<T: Float> {
    /// `x.op()`.
    pub eager: fn(&Tensor<T, DynRank>) -> Tensor<T, DynRank>,
    /// `x.lazy().op().eval()`.
    pub fused: fn(&Tensor<T, DynRank>) -> Tensor<T, DynRank>,
    /// `x.op_()`.
    pub in_place: fn(&mut Tensor<T, DynRank>),
    /// `v.op()` on a variable.
    pub var: fn(&V<T>) -> V<T>,
    /// `(v.lazy().op() * g).eval_var()`.
    pub fused_var: fn(&V<T>, &V<T>) -> V<T>,
}

/// `got` within `rel` of `want` (relative, or absolute below 1).
pub fn close<T: Float>(what: &str, got: &[T], want: &[f64], rel: f64) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let g = g.to_f64();
        assert!(
            (g - w).abs() <= rel * w.abs().max(1.0),
            "{what}: element {i}: {g} vs the reference's {w}"
        );
    }
}

/// `v` as a one-dimensional tensor of `T`.
pub fn tensor<T: Float>(v: &[f64]) -> Tensor<T, DynRank> {
    Tensor::try_from_vec(v.iter().map(|&x| T::from_f64(x)).collect(), &[v.len()]).unwrap()
}

/// The same values as a strided view: every other element of a buffer
/// twice as long.
pub fn strided<T: Float>(v: &[f64]) -> Tensor<T, DynRank> {
    let spread: Vec<f64> = v.iter().flat_map(|&x| [x, f64::NAN]).collect();
    let t = tensor::<T>(&spread)
        .try_reshape::<DynRank>(&[v.len() as isize, 2])
        .unwrap();
    t.narrow::<DynRank>(1, 0, 1)
        .unwrap()
        .try_reshape::<DynRank>(&[v.len() as isize])
        .unwrap()
}

/// Every form of `op` on `x` gives `want`, and the gradient of
/// `Σ upstream · op(x)` is `grad`, within `rel`.
pub fn check<T: Float>(
    what: &str,
    op: &UnaryOp<T>,
    x: &[f64],
    upstream: &[f64],
    want: &[f64],
    grad: &[f64],
    rel: f64,
) {
    for (layout, x) in [("contiguous", tensor::<T>(x)), ("strided", strided::<T>(x))] {
        let what = |s: &str| format!("{what} {s}, {layout}");
        close(&what("eager"), &(op.eager)(&x).to_vec(), want, rel);
        close(&what("fused"), &(op.fused)(&x).to_vec(), want, rel);
        let mut inplace = x.try_deep_copy().unwrap();
        (op.in_place)(&mut inplace);
        close(&what("in place"), &inplace.to_vec(), want, rel);

        let g = Var::constant(tensor::<T>(upstream));
        let v = Var::param(x.share());
        let eager = (op.var)(&v).mul(&g).sum().backward();
        close(
            &what("eager gradient"),
            &eager.wrt(&v).unwrap().to_vec(),
            grad,
            rel,
        );
        let fused = (op.fused_var)(&v, &g).sum().backward();
        close(
            &what("fused gradient"),
            &fused.wrt(&v).unwrap().to_vec(),
            grad,
            rel,
        );
    }
}
