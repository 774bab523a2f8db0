//! Every panicking form reports the caller's file and line, not a line
//! inside the library: an operator, a method, an in-place operator and
//! method, an autograd op and its operator, and one op of each family.
//!
//! The panic hook is global, so all cases run in one test, one after the
//! other.

use std::panic::{self, AssertUnwindSafe};
use std::sync::Mutex;

use shaped::autograd::Var;
use shaped::ops::index::ScatterReduce;
use shaped::{DynRank, Shape, Tensor};

/// Where the panic in `f` was reported.
fn location_of(f: impl FnOnce()) -> (String, u32) {
    static LOCATION: Mutex<Option<(String, u32)>> = Mutex::new(None);
    let prev = panic::take_hook();
    panic::set_hook(Box::new(|info| {
        let loc = info.location().map(|l| (l.file().to_string(), l.line()));
        *LOCATION.lock().unwrap() = loc;
    }));
    let r = panic::catch_unwind(AssertUnwindSafe(f));
    panic::set_hook(prev);
    assert!(r.is_err(), "expected a panic");
    LOCATION.lock().unwrap().take().expect("a location")
}

fn z(dims: &[usize]) -> Tensor<f64, DynRank> {
    Tensor::try_zeros(dims).unwrap()
}

/// Asserts the panic was reported at `line` of this file.
fn at(got: (String, u32), line: u32, what: &str) {
    assert_eq!(got, (file!().to_string(), line), "{what}");
}

#[test]
#[rustfmt::skip]
fn panics_point_at_the_callers_line() {
    let (a, b) = (z(&[2, 3]), z(&[2]));
    let (va, vb) = (Var::param(a.clone()), Var::param(b.clone()));
    let idx = Tensor::<i64, DynRank>::try_full(&[1], 7).unwrap();

    // An operator and a method.
    at(location_of(|| drop(&a + &b)), line!(), "a + b");
    at(location_of(|| drop(a.clone() * b.clone())), line!(), "a * b by value");
    at(location_of(|| drop(a.sub(&b))), line!(), "a.sub(b)");
    at(location_of(|| drop(a.atan2(&b))), line!(), "a.atan2(b)");
    at(location_of(|| drop(a.lt(&b))), line!(), "a.lt(b)");
    // In place: an operator and a method.
    at(location_of(|| { let mut x = z(&[1, 3]); x += &a; }), line!(), "x += a");
    at(location_of(|| { let mut x = z(&[2, 3]); x /= b.clone(); }), line!(), "x /= b");
    at(location_of(|| z(&[1, 3]).add_(&a)), line!(), "x.add_(a)");
    at(location_of(|| z(&[2, 3]).lerp_(&b, &a)), line!(), "x.lerp_(b, w)");
    // Autograd: a method and an operator.
    at(location_of(|| drop(va.add(&vb))), line!(), "Var::add");
    at(location_of(|| drop(&va * &vb)), line!(), "&Var * &Var");
    at(location_of(|| drop(va.matmul(&vb))), line!(), "Var::matmul");
    at(location_of(|| drop(va.gather(0, &idx))), line!(), "Var::gather");
    // A backward rule's error (zeros of an expanded input: 8 TiB).
    let wide = Var::param(z(&[1])).expand::<DynRank>(&[1 << 40]).unwrap();
    let picked = wide.gather(0, &Tensor::<i64, DynRank>::try_zeros(&[1]).unwrap()).sum();
    at(location_of(|| drop(picked.backward())), line!(), "Var::backward");
    // Other families.
    at(location_of(|| drop(a.addcmul(&b, &a, 1.0))), line!(), "addcmul");
    at(location_of(|| drop(a.matmul(&b))), line!(), "matmul");
    at(location_of(|| drop(a.mm(&a))), line!(), "mm");
    at(location_of(|| drop(a.sum_dims(&[4], false))), line!(), "sum_dims");
    at(location_of(|| drop(a.gather(0, &idx))), line!(), "gather");
    at(location_of(|| drop(a.masked_fill(&Tensor::<bool, DynRank>::try_full(&[4], true).unwrap(), 0.))), line!(), "masked_fill");
    at(location_of(|| drop(a.scatter_reduce(0, &idx, &b, ScatterReduce::Sum, true))), line!(), "scatter_reduce");
    let d = Tensor::<f64, Shape![_, 3]>::try_zeros(&[2, 3]).unwrap();
    at(location_of(|| drop(d.broadcast_to::<Shape![5, 3]>())), line!(), "broadcast_to");
    at(location_of(|| drop(Tensor::<f64, Shape![2]>::from_vec(vec![1.]))), line!(), "from_vec");
}
