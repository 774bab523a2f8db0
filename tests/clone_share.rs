//! The rule for copies: `Clone` copies the elements, as PyTorch's
//! `Tensor.clone()` (so `y = x.clone(); y.add_(..)` never changes `x`), and
//! `share()` is the one way to get a second handle on the same storage.

use shaped::autograd::Var;
use shaped::{Shape, Tensor};

#[test]
fn clone_copies_the_elements() {
    let x = Tensor::<f32, Shape![2, 3]>::from_vec(vec![1., 2., 3., 4., 5., 6.]);
    let mut y = x.clone();
    y.add_(&Tensor::<f32, Shape![3]>::from_vec(vec![10., 20., 30.]));
    assert_eq!(x.to_vec(), vec![1., 2., 3., 4., 5., 6.]);
    assert_eq!(y.to_vec(), vec![11., 22., 33., 14., 25., 36.]);
    // A view clones to a contiguous copy of its own elements only, which
    // can be written even where the view could not (an expanded one).
    let t = x.transpose::<0, 1>();
    let mut c = t.clone();
    assert_eq!(c.to_vec(), t.to_vec());
    assert!(c.is_contiguous());
    c.fill_(0.);
    assert_eq!(x.to_vec(), vec![1., 2., 3., 4., 5., 6.]);
    let e: Tensor<f32, Shape![4, 3]> = Tensor::<f32, Shape![3]>::ones().broadcast_to();
    let mut ec = e.clone();
    assert_eq!(ec.strides(), &[3, 1]);
    ec.mul_(&Tensor::<f32, Shape![4, 1]>::from_vec(vec![1., 2., 3., 4.]));
    assert_eq!(ec.to_vec()[9..], [4., 4., 4.]);
    assert_eq!(e.to_vec(), vec![1.; 12]);
}

#[test]
fn share_is_a_second_handle_on_the_same_storage() {
    let x = Tensor::<i64, Shape![3]>::from_vec(vec![1, 2, 3]);
    let mut s = x.share();
    s.add_(&Tensor::<i64, Shape![1]>::from_vec(vec![100]));
    assert_eq!(x.to_vec(), vec![101, 102, 103]);
    // A shared view keeps its layout.
    let m = Tensor::<i64, Shape![2, 3]>::from_vec(vec![1, 2, 3, 4, 5, 6]).transpose::<0, 1>();
    assert_eq!(m.share().strides(), m.strides());
}

#[test]
fn autograd_handles_share_as_pytorch_does() {
    // `detach` shares the value's storage, as `Tensor.detach()`.
    let v = Var::param(Tensor::<f64, Shape![2]>::from_vec(vec![1., 2.]));
    let mut d = v.detach().into_value();
    d.fill_(7.);
    assert_eq!(v.value().to_vec(), vec![7., 7.]);
    // A tensor cloned out of a `Var` is a copy.
    let mut c = v.value().clone();
    c.fill_(0.);
    assert_eq!(v.value().to_vec(), vec![7., 7.]);
}
