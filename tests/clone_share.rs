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

/// Runs `f` on a thread and gives its panic message, or fails when it has
/// neither returned nor panicked within 10 s (a thread waiting forever on a
/// lock it holds itself).
fn panics_without_hanging(f: impl FnOnce() + Send + 'static) -> String {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
        let _ = tx.send(r.err().map(|p| {
            p.downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default()
        }));
    });
    match rx.recv_timeout(std::time::Duration::from_secs(10)) {
        Ok(Some(msg)) => msg,
        Ok(None) => panic!("the conflicting call returned"),
        Err(_) => panic!("the thread hung on a lock it holds itself"),
    }
}

/// A thread that holds a guard on a tensor's elements and then asks for one
/// that the guard excludes gets a panic naming the guard, not a wait on
/// itself that never ends (each of these hung before).
#[test]
fn a_guard_and_a_conflicting_call_on_one_thread_panic_instead_of_hanging() {
    let m = panics_without_hanging(|| {
        let t = Tensor::<f32, Shape![4]>::zeros();
        let _read = t.as_slice().unwrap();
        t.set([0], 1.0);
    });
    assert!(m.starts_with("already borrowed"), "{m}");
    let m = panics_without_hanging(|| {
        let mut t = Tensor::<f32, Shape![4]>::zeros();
        let view = t.share();
        let _read = view.as_slice().unwrap();
        t.add_(&Tensor::<f32, Shape![4]>::ones());
    });
    assert!(m.starts_with("already borrowed"), "{m}");
    let m = panics_without_hanging(|| {
        let t = Tensor::<f32, Shape![4]>::zeros();
        let _write = t.as_mut_slice().unwrap();
        let _ = t.sum();
    });
    assert!(m.starts_with("already mutably borrowed"), "{m}");
    let m = panics_without_hanging(|| {
        let t = Tensor::<f32, Shape![4]>::zeros();
        let _ = t.map(|x| {
            t.set([0], 1.0);
            x
        });
    });
    assert!(m.starts_with("already borrowed"), "{m}");
    // The same through the other calls that run a closure under their
    // guards: reading the tensor being written, writing one being read.
    let m = panics_without_hanging(|| {
        let mut t = Tensor::<f32, Shape![4]>::zeros();
        let view = t.share();
        let _ = t.try_map_(|x| x + view.sum().item());
    });
    assert!(m.starts_with("already mutably borrowed"), "{m}");
    let m = panics_without_hanging(|| {
        let t = Tensor::<f32, Shape![4]>::zeros();
        let u = Tensor::<f32, Shape![4]>::ones();
        let _ = t.zip_map(&u, |x, y| {
            u.set([1], 2.0);
            x + y
        });
    });
    assert!(m.starts_with("already borrowed"), "{m}");
    // An eager operation's own guards are not recorded, and a closure's
    // call that finished leaves nothing recorded behind: the same thread
    // then writes and reads freely.
    let mut t = Tensor::<f32, Shape![4]>::ones();
    let _ = t.map(|x| x * 2.0);
    t.add_(&Tensor::<f32, Shape![4]>::ones());
    let mut o = Tensor::<f32, Shape![4]>::zeros();
    t.add_out(&t.share(), &mut o).unwrap();
    assert_eq!(o.to_vec(), vec![4.0; 4]);
    // Guards that do not conflict still nest, and a dropped guard frees.
    let t = Tensor::<f32, Shape![4]>::ones();
    {
        let _a = t.as_slice().unwrap();
        let _b = t.as_slice().unwrap();
        assert_eq!(t.sum().item(), 4.0);
    }
    t.set([0], 5.0);
    assert_eq!(t.get([0]), 5.0);
}

/// A value that the backward pass reads, written in place after the forward
/// pass used it: the backward pass fails with PyTorch's message instead of
/// giving a wrong gradient (PyTorch's version counter).
#[test]
fn backward_through_a_value_written_in_place_since_is_an_error() {
    // The output of `exp`, which its gradient reads.
    let x = Var::param(Tensor::<f32, Shape![3]>::from([0., 1., 2.]));
    let y = x.exp();
    let loss = y.sum();
    y.value().share().fill_(0.0);
    let e = loss.try_backward().err().expect("an error").to_string();
    assert!(
        e.starts_with(
            "one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [3]] is at version"
        ),
        "{e}"
    );
    // An input of `mul`, which the other input's gradient reads.
    let a = Var::param(Tensor::<f64, Shape![2]>::from([1., 2.]));
    let b = Var::param(Tensor::<f64, Shape![2]>::from([3., 4.]));
    let loss = a.mul(&b).sum();
    b.value().set([0], 30.);
    let e = loss.try_backward().err().expect("an error").to_string();
    assert!(e.contains("[torch.DoubleTensor [2]]"), "{e}");
    // An input that needs no gradient (the data, `Var::constant`), which
    // the parameter's gradient reads: PyTorch watches it too.
    let w = Var::param(Tensor::<f64, Shape![2]>::from([1., 2.]));
    let x = Tensor::<f64, Shape![2]>::from([3., 4.]);
    let loss = w.mul(&Var::constant(x.share())).sum();
    x.set([1], 40.);
    let e = loss.try_backward().err().expect("an error").to_string();
    assert!(e.contains("[torch.DoubleTensor [2]] is at version"), "{e}");
    // ... reached through a view made on the graph (the view shares the
    // storage), and through a detached result.
    let x = Tensor::<f32, Shape![2, 2]>::ones();
    let w = Var::param(Tensor::<f32, Shape![4]>::ones());
    let flat: Var<f32, Shape![4]> = Var::constant(x.share()).reshape();
    let loss = w.mul(&flat).sum();
    x.share().fill_(2.0);
    let e = loss.try_backward().err().expect("an error").to_string();
    assert!(e.contains("[torch.FloatTensor [4]]"), "{e}");
    let d = w.exp().detach();
    let loss = w.mul(&d).sum();
    d.value().set([0], 0.0);
    assert!(loss.try_backward().is_err());
    // Written before the operation was recorded: the gradient is right.
    let a = Var::param(Tensor::<f64, Shape![2]>::from([1., 2.]));
    let b = Var::constant(Tensor::<f64, Shape![2]>::from([3., 4.]));
    b.value().set([0], 30.);
    let g = a.mul(&b).sum().backward();
    assert_eq!(g.wrt(&a).unwrap().to_vec(), vec![30., 4.]);
    // A parameter updated in place between steps (an optimizer's step): the
    // next forward pass records the new version.
    let w = Var::param(Tensor::<f64, Shape![2]>::from([1., 2.]));
    let _ = w.square().sum().backward();
    w.value().share().fill_(3.0);
    let g = w.square().sum().backward();
    assert_eq!(g.wrt(&w).unwrap().to_vec(), vec![6., 6.]);
}

/// A dropped result's storage is kept by its thread for the next result of
/// its size (the small-op path's allocation), but only when no handle on it
/// is left: a live view keeps its elements, and a value the autograd graph
/// watches is never handed to another result.
#[test]
fn storages_are_reused_only_when_no_handle_is_left() {
    let a = Tensor::<f32, Shape![2, 4]>::from_vec((0..8).map(|i| i as f32).collect());
    let b = Tensor::<f32, Shape![4]>::from([1., 2., 3., 4.]);
    for _ in 0..3 {
        let s = &a + &b;
        let view = s.transpose::<0, 1>();
        drop(s);
        // Of the dropped sum's size: it would take the sum's storage if
        // that had been kept.
        let p = &a * &b;
        assert_eq!(view.to_vec(), vec![1., 5., 3., 7., 5., 9., 7., 11.]);
        assert_eq!(p.to_vec(), vec![0., 2., 6., 12., 4., 10., 18., 28.]);
        let q = &a - &b;
        drop(p);
        let r = &a - &b;
        assert_eq!(q.to_vec(), r.to_vec());
        assert_eq!(r.to_vec(), vec![-1., -1., -1., -1., 3., 3., 3., 3.]);
    }
    // The graph's intermediate values (watched for writes) stay theirs
    // while results of their size come and go.
    let x = Var::param(Tensor::<f32, Shape![3]>::from([0., 1., 2.]));
    let loss = x.exp().mul(&x.exp()).sum();
    for _ in 0..4 {
        let t = &Tensor::<f32, Shape![3]>::ones() + &Tensor::<f32, Shape![3]>::zeros();
        assert_eq!(t.to_vec(), vec![1., 1., 1.]);
    }
    let g = loss.backward();
    let want: Vec<f32> = [0f32, 1., 2.]
        .iter()
        .map(|&v| 2.0 * (2.0 * v).exp())
        .collect();
    let got = g.wrt(&x).unwrap().to_vec();
    assert!(
        got.iter()
            .zip(&want)
            .all(|(g, w)| (g - w).abs() <= 1e-5 * w),
        "{got:?}"
    );
}
