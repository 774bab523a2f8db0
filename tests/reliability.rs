//! Reliability (issue 20): empty views never reach out-of-bounds pointer
//! arithmetic, operations on each other's operands never deadlock, `try_`
//! forms return an error (never abort) for requests too large to allocate,
//! a backward rule's error comes back from `try_backward`,
//! integer edge cases do not panic, and PyTorch's errors for the smaller
//! divergences.
//!
//! Expected values come from PyTorch 2.x and NumPy (stated beside each
//! case), or from a naive element-by-element computation in the test.
//! The empty-view and aliasing cases also run under Miri (`scripts/miri.sh`);
//! the allocation cases do not (Miri stops at a request larger than its
//! memory), nor the deadlock cases (slow under Miri, and threads it runs
//! one at a time cannot show a lock-order cycle reliably).

use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use shaped::{DynRank, ShapeError, Tensor};

type T32 = Tensor<f32, DynRank>;
type I32 = Tensor<i32, DynRank>;

fn t32(data: Vec<f32>, dims: &[usize]) -> T32 {
    T32::try_from_vec(data, dims).unwrap()
}

fn msg<X>(r: Result<X, ShapeError>) -> String {
    match r {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

/// The message of a panic in `f`.
fn panic_msg(f: impl FnOnce()) -> String {
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_err();
    match err.downcast_ref::<String>() {
        Some(s) => s.clone(),
        None => err.downcast_ref::<&str>().unwrap().to_string(),
    }
}

// ---------------------------------------------------------------- empty views

/// `try_zeros(&[0, 4, 3]).try_select::<1>(3)` was a `[0, 3]` view at offset 9
/// over 0 elements: every kernel then offset its pointer past the buffer.
fn empty_selected() -> T32 {
    T32::try_zeros(&[0, 4, 3])
        .unwrap()
        .try_select::<1>(3)
        .unwrap()
}

#[test]
fn an_empty_view_has_offset_zero() {
    let e = empty_selected();
    assert_eq!(e.dims(), &[0, 3]);
    assert_eq!(e.offset(), 0);
    let n = T32::try_zeros(&[2, 4])
        .unwrap()
        .narrow::<DynRank>(1, 4, 0)
        .unwrap();
    assert_eq!((n.dims(), n.offset()), (&[2, 0][..], 0));
    let s = T32::try_zeros(&[3, 0, 2])
        .unwrap()
        .try_select::<0>(2)
        .unwrap();
    assert_eq!((s.dims(), s.offset()), (&[0, 2][..], 0));
}

#[test]
fn empty_views_through_elementwise_kernels() {
    let e = empty_selected();
    let r = e.try_reshape::<DynRank>(&[0, 3]).unwrap();
    let row = t32(vec![1., 2., 3.], &[3]);
    // The row fast path (contiguous full operand, trailing row).
    let sum = r.try_add(&row).unwrap();
    assert_eq!(sum.dims(), &[0, 3]);
    assert!(sum.to_vec().is_empty());
    let sum = row.try_add(&r).unwrap();
    assert_eq!(sum.dims(), &[0, 3]);
    // `out=` through the row fast path and the general path.
    let mut out = T32::try_zeros(&[0, 3]).unwrap();
    r.add_out(&row, &mut out).unwrap();
    let p = e.permute::<DynRank>(&[1, 0]).unwrap();
    let mut out_t = T32::try_zeros(&[3, 0]).unwrap();
    p.add_out(&p, &mut out_t).unwrap();
    // In place, on an empty view of a non-empty buffer.
    let mut v = T32::try_ones(&[2, 4])
        .unwrap()
        .narrow::<DynRank>(1, 4, 0)
        .unwrap();
    v.try_add_(&t32(vec![5.], &[1])).unwrap();
    v.try_addcmul_(&v.share(), &v.share(), 2.0).unwrap();
    // Unary, ternary, copies.
    assert!(e.map(|x| x + 1.0).to_vec().is_empty());
    assert!(e.try_contiguous().unwrap().to_vec().is_empty());
    assert!(p.deep_copy().to_vec().is_empty());
    let three = e.addcmul(&row, &row, 1.0);
    assert_eq!(three.dims(), &[0, 3]);
}

#[test]
fn empty_views_through_matmul() {
    let e = empty_selected(); // [0, 3]
    let p = e.permute::<DynRank>(&[1, 0]).unwrap(); // [3, 0]
    let b = t32(vec![1.; 15], &[3, 5]);
    assert_eq!(e.try_matmul(&b).unwrap().dims(), &[0, 5]);
    // k = 0: the product is zeros.
    let z = T32::try_zeros(&[0, 4]).unwrap();
    let prod = p.try_matmul(&z).unwrap();
    assert_eq!((prod.dims(), prod.to_vec()), (&[3, 4][..], vec![0.0; 12]));
    // Batched, with an empty contraction: batch strides over a buffer of
    // no elements.
    let a = T32::try_zeros(&[2, 3, 0]).unwrap();
    let b = T32::try_zeros(&[2, 0, 4]).unwrap();
    let prod = a.try_matmul(&b).unwrap();
    assert_eq!(
        (prod.dims(), prod.to_vec()),
        (&[2, 3, 4][..], vec![0.0; 24])
    );
    // Batched, with no rows.
    let a = T32::try_zeros(&[2, 0, 3]).unwrap();
    let b = t32(vec![1.; 24], &[2, 3, 4]);
    assert_eq!(a.try_matmul(&b).unwrap().dims(), &[2, 0, 4]);
    // In place into an empty destination.
    let mut c = T32::try_zeros(&[0, 5]).unwrap();
    c.try_addmm_(&e, &t32(vec![1.; 15], &[3, 5]), 1.0, 1.0)
        .unwrap();
}

#[test]
fn empty_views_through_reductions_and_index_ops() {
    let e = empty_selected();
    assert_eq!(e.sum().item(), 0.0);
    assert_eq!(e.try_sum_dims(&[0], false).unwrap().to_vec(), vec![0.0; 3]);
    assert_eq!(e.try_sum_dims(&[1], false).unwrap().dims(), &[0]);
    assert_eq!(e.try_softmax(1).unwrap().dims(), &[0, 3]);
    let idx = Tensor::<i64, DynRank>::try_zeros(&[0, 2]).unwrap();
    assert_eq!(e.try_gather(1, &idx).unwrap().dims(), &[0, 2]);
    let stepped = t32((0..12).map(|x| x as f32).collect(), &[4, 3])
        .try_slice_step::<0>(4..4, 2)
        .unwrap();
    assert_eq!((stepped.dims(), stepped.offset()), (&[0, 3][..], 0));
    assert!(stepped.to_vec().is_empty());
}

// -------------------------------------------------------------- aliasing

#[test]
fn in_place_operations_on_their_own_storage() {
    let base: Vec<f32> = (0..9).map(|x| x as f32).collect();
    // Full overlap: `a += a`.
    let mut a = t32(base.clone(), &[3, 3]);
    let same = a.share();
    a.try_add_(&same).unwrap();
    assert_eq!(a.to_vec(), base.iter().map(|x| 2.0 * x).collect::<Vec<_>>());
    // `out=` into an operand's own storage.
    let a = t32(base.clone(), &[3, 3]);
    let mut out = a.share();
    a.mul_out(&a, &mut out).unwrap();
    assert_eq!(a.to_vec(), base.iter().map(|x| x * x).collect::<Vec<_>>());
    // `addcmul_` reading itself twice.
    let mut a = t32(base.clone(), &[3, 3]);
    let same = a.share();
    a.try_addcmul_(&same, &same, 1.0).unwrap();
    let want: Vec<f32> = base.iter().map(|x| x + x * x).collect();
    assert_eq!(a.to_vec(), want);
    // `c = c @ c` in place: the product reads the old `c`.
    let mut c = t32(base.clone(), &[3, 3]);
    let same = c.share();
    c.try_addmm_(&same, &same, 0.0, 1.0).unwrap();
    let mut want = vec![0.0; 9];
    for i in 0..3 {
        for j in 0..3 {
            want[i * 3 + j] = (0..3).map(|k| base[i * 3 + k] * base[k * 3 + j]).sum();
        }
    }
    assert_eq!(c.to_vec(), want);
    // Non-dense operands on the written storage are read from a copy
    // (PyTorch: `b[:, :2].add_(b[:, 1:])` is [[1, 3], [7, 9], [13, 15]]).
    let b = t32(base.clone(), &[3, 3]);
    let mut left = b.narrow::<DynRank>(1, 0, 2).unwrap();
    let right = b.narrow::<DynRank>(1, 1, 2).unwrap();
    left.try_add_(&right).unwrap();
    assert_eq!(left.to_vec(), vec![1., 3., 7., 9., 13., 15.]);
}

/// PyTorch's `assert_no_partial_overlap`.
const PARTIAL: &str = "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location. Please clone() the tensor before performing the operation.";

#[test]
fn partial_overlap_is_refused_as_pytorch_refuses_it() {
    let base: Vec<f32> = (0..9).map(|x| x as f32).collect();
    let mut a = t32(base.clone(), &[3, 3]);
    let t = a.permute::<DynRank>(&[1, 0]).unwrap();
    assert_eq!(msg(a.try_add_(&t)), PARTIAL);
    let row = a.try_select::<0>(0).unwrap();
    assert_eq!(msg(a.try_add_(&row)), PARTIAL);
    let mut top = a.narrow::<DynRank>(0, 0, 2).unwrap();
    let bottom = a.narrow::<DynRank>(0, 1, 2).unwrap();
    assert_eq!(msg(top.try_add_(&bottom)), PARTIAL);
    assert_eq!(msg(a.try_addcmul_(&t, &a.share(), 1.0)), PARTIAL);
    let mut out = a.permute::<DynRank>(&[1, 0]).unwrap();
    assert_eq!(msg(a.add_out(&a, &mut out)), PARTIAL);
    // Refused before anything is written.
    assert_eq!(a.to_vec(), base);
    // Disjoint rows of one buffer are fine (PyTorch: [3, 5, 7]).
    let mut r0 = a.try_select::<0>(0).unwrap();
    r0.try_add_(&a.try_select::<0>(1).unwrap()).unwrap();
    assert_eq!(r0.to_vec(), vec![3., 5., 7.]);
    // An expanded (not dense) input is read from a copy (PyTorch:
    // `b.add_(b[0].expand(3, 3))`).
    let mut b = t32(base.clone(), &[3, 3]);
    let e = b
        .try_select::<0>(0)
        .unwrap()
        .try_broadcast_to::<DynRank>(&[3, 3])
        .unwrap();
    b.try_add_(&e).unwrap();
    assert_eq!(b.to_vec(), vec![0., 2., 4., 3., 5., 7., 6., 8., 10.]);
}

// -------------------------------------------------------------- lock order

/// Runs `f` and `g` on two threads, each `rounds` times, and fails unless
/// both finish within a deadline (a lock-order cycle hangs them forever).
fn both_finish(rounds: usize, f: impl Fn() + Send + 'static, g: impl Fn() + Send + 'static) {
    let (tx, rx) = mpsc::channel();
    let tx2 = tx.clone();
    thread::spawn(move || {
        for _ in 0..rounds {
            f();
        }
        tx.send(()).unwrap();
    });
    thread::spawn(move || {
        for _ in 0..rounds {
            g();
        }
        tx2.send(()).unwrap();
    });
    for _ in 0..2 {
        rx.recv_timeout(Duration::from_secs(60))
            .expect("deadlock: two threads writing each other's operands did not finish");
    }
}

const ROUNDS: usize = 3000;

#[test]
#[cfg_attr(miri, ignore)]
fn add_out_into_each_others_operands() {
    // Contiguous: the row fast path.
    let a = T32::try_zeros(&[8, 8]).unwrap();
    let b = T32::try_zeros(&[8, 8]).unwrap();
    let (a1, b1, b2, a2) = (a.share(), b.share(), b.share(), a.share());
    both_finish(
        ROUNDS,
        move || a1.add_out(&a1, &mut b1.share()).unwrap(),
        move || b2.add_out(&b2, &mut a2.share()).unwrap(),
    );
    // Transposed inputs: the general path.
    let at = a.permute::<DynRank>(&[1, 0]).unwrap();
    let bt = b.permute::<DynRank>(&[1, 0]).unwrap();
    let (a1, b1) = (at.share(), b.share());
    let (b2, a2) = (bt.share(), a.share());
    both_finish(
        ROUNDS,
        move || a1.add_out(&a1, &mut b1.share()).unwrap(),
        move || b2.add_out(&b2, &mut a2.share()).unwrap(),
    );
}

#[test]
#[cfg_attr(miri, ignore)]
fn addcmul_against_add_on_each_others_operands() {
    let m = T32::try_zeros(&[32, 32]).unwrap();
    let lo = T32::try_zeros(&[32, 32]).unwrap();
    let hi = T32::try_zeros(&[32, 32]).unwrap();
    let (m1, lo1, hi1) = (m.share(), lo.share(), hi.share());
    let (m2, lo2) = (m.share(), lo.share());
    both_finish(
        ROUNDS,
        move || m1.share().try_addcmul_(&lo1, &hi1, 1.0).unwrap(),
        move || lo2.share().try_add_(&m2).unwrap(),
    );
    // Two-operand in place both ways.
    let (x1, y1, x2, y2) = (m.share(), lo.share(), m.share(), lo.share());
    both_finish(
        ROUNDS,
        move || x1.share().try_sub_(&y1).unwrap(),
        move || y2.share().try_sub_(&x2).unwrap(),
    );
}

#[test]
#[cfg_attr(miri, ignore)]
fn addmm_into_each_others_operands() {
    let a = T32::try_zeros(&[4, 4]).unwrap();
    let b = T32::try_zeros(&[4, 4]).unwrap();
    let c = T32::try_zeros(&[4, 4]).unwrap();
    let (a1, b1, c1) = (a.share(), b.share(), c.share());
    let (a2, b2, c2) = (a.share(), b.share(), c.share());
    both_finish(
        ROUNDS,
        move || c1.share().try_addmm_(&a1, &b1, 1.0, 1.0).unwrap(),
        move || a2.share().try_addmm_(&c2, &b2, 1.0, 1.0).unwrap(),
    );
}

// -------------------------------------------------------------- allocation

#[test]
#[cfg_attr(miri, ignore)]
fn too_large_requests_are_errors() {
    // PyTorch: torch.empty(1 << 62) (float32).
    assert_eq!(
        msg(T32::try_zeros(&[1 << 62])),
        "Storage size calculation overflowed with sizes=[4611686018427387904]"
    );
    // PyTorch: torch.zeros(1 << 61, 4, dtype=torch.float64).
    assert_eq!(
        msg(Tensor::<f64, DynRank>::try_zeros(&[1 << 61, 4])),
        "Storage size calculation overflowed with sizes=[2305843009213693952, 4]"
    );
    // PyTorch: torch.zeros(2**40, 2**30): an element count past isize::MAX
    // is the allocation's error too.
    assert_eq!(
        msg(Tensor::<f64, DynRank>::try_zeros(&[1 << 40, 1 << 30])),
        "Storage size calculation overflowed with sizes=[1099511627776, 1073741824]"
    );
    // PyTorch: torch.zeros(1 << 40): 4 TiB.
    let oom = "DefaultCPUAllocator: can't allocate memory: you tried to allocate 4398046511104 bytes. Error code 12 (Cannot allocate memory)";
    assert_eq!(msg(T32::try_zeros(&[1 << 40])), oom);
    assert_eq!(msg(T32::try_rand(&[1 << 40], 1)), oom);
    // 256 TiB: more than any x86-64 address space.
    assert!(
        msg(Tensor::<f64, DynRank>::try_full(&[1 << 45], 1.0))
            .contains("you tried to allocate 281474976710656 bytes")
    );
    // torch.ones(1).expand(1 << 40).contiguous()
    let wide = T32::try_ones(&[1])
        .unwrap()
        .try_broadcast_to::<DynRank>(&[1 << 40])
        .unwrap();
    assert_eq!(msg(wide.try_contiguous()), oom);
    assert_eq!(msg(wide.try_add(&wide)), oom);
    assert_eq!(panic_msg(|| drop(wide.contiguous())), oom);
    // `cat` of two expanded views: 8 TiB.
    assert_eq!(
        msg(T32::try_cat::<0>(&[&wide, &wide])),
        "DefaultCPUAllocator: can't allocate memory: you tried to allocate 8796093022208 bytes. Error code 12 (Cannot allocate memory)"
    );
    // A product of two expanded vectors: 4 TiB of result.
    let col = T32::try_ones(&[1, 1])
        .unwrap()
        .try_broadcast_to::<DynRank>(&[1 << 20, 1])
        .unwrap();
    let row = T32::try_ones(&[1, 1])
        .unwrap()
        .try_broadcast_to::<DynRank>(&[1, 1 << 20])
        .unwrap();
    assert_eq!(msg(col.try_matmul(&row)), oom);
    // A reduction keeping 2^40 outputs.
    let cube = T32::try_ones(&[1, 1, 1])
        .unwrap()
        .try_broadcast_to::<DynRank>(&[1 << 20, 1 << 20, 2])
        .unwrap();
    assert_eq!(msg(cube.try_sum_dims(&[2], false)), oom);
    // torch.arange(0, 1e12, dtype=torch.float64): 8e12 bytes.
    assert_eq!(
        msg(Tensor::<f64, _>::arange(0.0, 1e12, 1.0)),
        "DefaultCPUAllocator: can't allocate memory: you tried to allocate 8000000000000 bytes. Error code 12 (Cannot allocate memory)"
    );
    assert_eq!(
        msg(Tensor::<f32, _>::try_linspace(0.0, 1.0, usize::MAX)),
        format!(
            "Storage size calculation overflowed with sizes=[{}]",
            usize::MAX
        )
    );
    assert_eq!(
        panic_msg(|| drop(Tensor::<f64, _>::linspace(0.0, 1.0, 1 << 61))),
        "Storage size calculation overflowed with sizes=[2305843009213693952]"
    );
}

/// Every `try_` index op whose result (or copy) is too large to allocate,
/// because an operand is an expanded view, returns PyTorch's error instead of
/// aborting. The PyTorch calls are beside each case, on
/// `W = torch.zeros(1).expand(2**40)` and `I = torch.zeros(1, dtype=long)`.
#[test]
#[cfg_attr(miri, ignore)]
fn index_ops_too_large_to_allocate_are_errors() {
    let oom = "DefaultCPUAllocator: can't allocate memory: you tried to allocate 4398046511104 bytes. Error code 12 (Cannot allocate memory)";
    let n = 1usize << 40;
    let three = t32(vec![1.0, 2.0, 3.0], &[3]);
    let zero = Tensor::<i64, DynRank>::try_zeros(&[1]).unwrap();
    let wide_index = zero.try_broadcast_to::<DynRank>(&[n]).unwrap();
    let wide_index_1d = zero.try_broadcast_to::<(shaped::Dyn,)>(&[n]).unwrap();
    let one_index = zero.try_broadcast_to::<(shaped::Dyn,)>(&[1]).unwrap();
    let wide = T32::try_zeros(&[1])
        .unwrap()
        .try_broadcast_to::<DynRank>(&[n])
        .unwrap();
    let one = T32::try_ones(&[1]).unwrap();
    let no = Tensor::<bool, DynRank>::try_from_vec(vec![false], &[]).unwrap();
    // torch.zeros(3).gather(0, I.expand(2**40))
    assert_eq!(msg(three.try_gather(0, &wide_index)), oom);
    // torch.zeros(3).index_select(0, I.expand(2**40))
    assert_eq!(msg(three.try_index_select::<0, _>(&wide_index_1d)), oom);
    // torch.zeros(3).take_along_dim(I.expand(2**40), 0) and with dim=None
    assert_eq!(msg(three.try_take_along_dim_at(0, &wide_index)), oom);
    assert_eq!(msg(three.try_take_along_dim_flat(&wide_index)), oom);
    // W.scatter(0, I, torch.ones(1)), W.scatter(0, I, 2.0),
    // W.scatter_add(0, I, torch.ones(1)), W.scatter_reduce(0, I, .., 'sum')
    assert_eq!(msg(wide.try_scatter(0, &zero, &one)), oom);
    assert_eq!(msg(wide.try_scatter_value(0, &zero, 2.0)), oom);
    assert_eq!(msg(wide.try_scatter_add(0, &zero, &one)), oom);
    assert_eq!(
        msg(wide.try_scatter_reduce(0, &zero, &one, shaped::ops::index::ScatterReduce::Sum, true)),
        oom
    );
    // W.index_add(0, I, torch.ones(1)), W.index_copy(0, I, torch.ones(1))
    assert_eq!(msg(wide.try_index_add(0, &one_index, &one)), oom);
    assert_eq!(msg(wide.try_index_copy(0, &one_index, &one)), oom);
    // W.masked_fill(torch.tensor(False), 1.), W.masked_scatter(..)
    assert_eq!(msg(wide.try_masked_fill(&no, 1.0)), oom);
    let one_0d = T32::try_from_vec(vec![1.0], &[]).unwrap();
    assert_eq!(msg(wide.try_masked_fill_tensor(&no, &one_0d)), oom);
    assert_eq!(msg(wide.try_masked_scatter(&no, &one)), oom);
    // W.masked_select(torch.tensor(False)): PyTorch allocates 8 TiB of
    // int64 positions on the way, this crate 4 TiB of values.
    assert!(msg(wide.try_masked_select(&no)).contains("you tried to allocate"));
    // W.split(1): 2^40 parts do not fit in memory; torch.zeros(0).chunk(2**62):
    // nor in the address space.
    assert_eq!(msg(wide.try_split::<0>(1)), "std::bad_alloc");
    let empty = T32::try_zeros(&[0]).unwrap();
    assert_eq!(
        msg(empty.try_chunk::<0>(1 << 62)),
        "cannot create std::vector larger than max_size()"
    );
    // The panicking forms panic with the same message.
    assert_eq!(panic_msg(|| drop(three.gather(0, &wide_index))), oom);
}

// -------------------------------------------------------------- autograd

/// A backward rule that cannot form its gradient returns its error, and
/// `try_backward` passes it on. PyTorch:
/// `x = torch.ones(1, requires_grad=True)`;
/// `x.expand(2**40).gather(0, torch.zeros(1, dtype=torch.long)).sum().backward()`
/// raises "... you tried to allocate 4398046511104 bytes ..." (the zeros the
/// gradient is scattered into have the expanded input's sizes), and so do
/// `index_select`, `take_along_dim`, `w[5]`, `narrow` and `w[:1]` there.
#[test]
#[cfg_attr(miri, ignore)]
fn a_backward_rule_that_cannot_allocate_is_an_error() {
    use shaped::autograd::Var;
    let oom = "DefaultCPUAllocator: can't allocate memory: you tried to allocate 4398046511104 bytes. Error code 12 (Cannot allocate memory)";
    let x = Var::param(T32::try_ones(&[1]).unwrap());
    let wide = x.expand::<DynRank>(&[1 << 40]).unwrap();
    let zero = Tensor::<i64, DynRank>::try_zeros(&[1]).unwrap();
    let one_index = zero.try_broadcast_to::<(shaped::Dyn,)>(&[1]).unwrap();
    // The 0-d loss's seed, 1, as `backward()` makes it.
    let one = Tensor::<f32, ()>::full(1.0);
    // gather, index_select, take_along_dim, select, narrow and slice all
    // build their gradient in zeros of the input's sizes.
    let picked = [
        wide.try_gather(0, &zero).unwrap().sum(),
        wide.try_index_select::<0, _, _>(&one_index).unwrap().sum(),
        wide.try_take_along_dim_at(0, &zero).unwrap().sum(),
        wide.try_select::<0>(5).unwrap().sum(),
        wide.narrow::<DynRank>(0, 7, 1).unwrap().sum(),
        wide.try_slice::<0>(..1).unwrap().sum(),
    ];
    for p in picked {
        assert_eq!(p.value().to_vec(), vec![1.0]);
        assert_eq!(msg(p.try_backward_with(&one)), oom);
    }
    // A 1-element DynRank loss, and the 0-d `backward`'s panic.
    let p = wide.try_gather(0, &zero).unwrap();
    assert_eq!(msg(p.try_backward()), oom);
    assert_eq!(panic_msg(|| drop(p.sum().backward())), oom);
    // The same graph over a small input still differentiates.
    let small = x.expand::<DynRank>(&[4]).unwrap();
    let g = small.try_gather(0, &zero).unwrap().try_backward().unwrap();
    assert_eq!(g.wrt(&x).unwrap().to_vec(), vec![1.0]);
}

// -------------------------------------------------------------- integers

#[test]
fn integer_min_by_minus_one_wraps() {
    // NumPy: int32 MIN // -1 = MIN, fmod and remainder 0.
    let a = I32::try_from_vec(vec![i32::MIN, i32::MIN, 7, -7], &[4]).unwrap();
    let b = I32::try_from_vec(vec![-1, 1, -1, -1], &[4]).unwrap();
    assert_eq!(
        a.try_div_trunc(&b).unwrap().to_vec(),
        vec![i32::MIN, i32::MIN, -7, 7]
    );
    assert_eq!(
        a.try_div_floor(&b).unwrap().to_vec(),
        vec![i32::MIN, i32::MIN, -7, 7]
    );
    assert_eq!(a.try_fmod(&b).unwrap().to_vec(), vec![0, 0, 0, 0]);
    assert_eq!(a.try_remainder(&b).unwrap().to_vec(), vec![0, 0, 0, 0]);
    let a = Tensor::<i64, DynRank>::try_from_vec(vec![i64::MIN], &[1]).unwrap();
    let m1 = Tensor::<i64, DynRank>::try_from_vec(vec![-1], &[1]).unwrap();
    assert_eq!(a.try_div_floor(&m1).unwrap().to_vec(), vec![i64::MIN]);
    let mut r = a.deep_copy();
    r.try_remainder_(&m1).unwrap();
    assert_eq!(r.to_vec(), vec![0]);
}

#[test]
fn integer_pow_with_a_negative_exponent_is_an_error() {
    // PyTorch: torch.tensor([2]).pow(-1); NumPy: same words.
    let words = "Integers to negative integer powers are not allowed.";
    let a = I32::try_from_vec(vec![2, 1, -1], &[3]).unwrap();
    let e = I32::try_from_vec(vec![-1], &[1]).unwrap();
    assert_eq!(msg(a.try_pow(&e)), words);
    let mut b = a.deep_copy();
    assert_eq!(msg(b.try_pow_(&e)), words);
    assert_eq!(b.to_vec(), vec![2, 1, -1]);
    assert_eq!(panic_msg(|| drop(a.pow(&e))), words);
    // Floats are IEEE: 2^-1 = 0.5 (within an ulp: Miri perturbs `powf`).
    let f = t32(vec![2.0], &[1])
        .try_pow(&t32(vec![-1.0], &[1]))
        .unwrap();
    assert!((f.to_vec()[0] - 0.5).abs() < 1e-6);
    // Non-negative exponents still wrap (2^31 in int32 is MIN).
    let p = a
        .try_pow(&I32::try_from_vec(vec![31], &[1]).unwrap())
        .unwrap();
    assert_eq!(p.to_vec(), vec![i32::MIN, 1, -1]);
}

#[test]
fn integer_sums_wrap_in_their_type_and_widen_on_request() {
    // PyTorch: torch.tensor([2**31 - 1, 1], dtype=torch.int32).sum() is
    // tensor(2147483648) (int64); here the sum stays int32 (documented on
    // `Tensor::sum`), and widening first gives PyTorch's value.
    let a = I32::try_from_vec(vec![i32::MAX, 1, i32::MAX, 1], &[2, 2]).unwrap();
    assert_eq!(a.sum().item(), 0);
    assert_eq!(
        a.try_sum_dims(&[1], false).unwrap().to_vec(),
        vec![i32::MIN; 2]
    );
    let wide = a.map(|x| x as i64);
    assert_eq!(wide.sum().item(), 4_294_967_296);
    assert_eq!(
        wide.try_sum_dims(&[1], false).unwrap().to_vec(),
        vec![2_147_483_648; 2]
    );
}

// -------------------------------------------------------------- divergences

#[test]
fn arange_and_linspace_errors_are_pytorchs() {
    let f = |s: f64, e: f64, st: f64| msg(Tensor::<f64, _>::arange(s, e, st));
    assert_eq!(f(0.0, f64::INFINITY, 1.0), "unsupported range: 0 -> inf");
    assert_eq!(
        f(0.5, f64::NEG_INFINITY, -1.0),
        "unsupported range: 0.5 -> -inf"
    );
    assert_eq!(f(f64::NAN, 5.0, 1.0), "unsupported range: nan -> 5");
    assert_eq!(f(1e20, f64::NAN, 1.0), "unsupported range: 1e+20 -> nan");
    assert_eq!(f(0.0, 1.0, f64::NAN), "step must be finite but got nan");
    assert_eq!(
        f(0.0, 10.0, f64::NEG_INFINITY),
        "step must be finite but got -inf"
    );
    assert_eq!(f(f64::NAN, 10.0, 0.0), "step must be nonzero");
    assert_eq!(f(0.0, 1e30, 1.0), "invalid size, possible overflow?");
    assert_eq!(
        f(0.0, 10.0, -1.0),
        "upper bound and lower bound inconsistent with step sign"
    );
    assert_eq!(
        Tensor::<f64, _>::arange(0.0, 1.0, 0.25).unwrap().to_vec(),
        vec![0.0, 0.25, 0.5, 0.75]
    );
    assert_eq!(Tensor::<i64, _>::arange(5, 5, 1).unwrap().dims(), &[0]);
}

#[test]
fn argmax_of_nothing_names_argmax() {
    let e = T32::try_zeros(&[2, 0]).unwrap();
    // PyTorch: torch.zeros(2, 0).argmax(1)
    assert_eq!(
        msg(e.try_argmax(1, false)),
        "argmax(): Expected reduction dim 1 to have non-zero size."
    );
    assert_eq!(
        msg(e.try_argmin(-1, true)),
        "argmin(): Expected reduction dim 1 to have non-zero size."
    );
    // PyTorch: torch.zeros(2, 0).argmax()
    assert_eq!(
        panic_msg(|| drop(e.argmax())),
        "argmax(): Expected reduction dim to be specified for input.numel() == 0."
    );
    // `max` keeps its own name and hint.
    assert_eq!(
        msg(e.try_max_with_indices(1, false)),
        "max(): Expected reduction dim 1 to have non-zero size."
    );
}

#[test]
fn softmax_with_infinities_is_pytorchs() {
    // PyTorch: torch.softmax(torch.tensor([inf, 1.]), 0) and log_softmax:
    // tensor([nan, nan]) both.
    let x = t32(vec![f32::INFINITY, 1.0], &[2]);
    assert!(
        x.try_softmax(0)
            .unwrap()
            .to_vec()
            .iter()
            .all(|v| v.is_nan())
    );
    assert!(
        x.try_log_softmax(0)
            .unwrap()
            .to_vec()
            .iter()
            .all(|v| v.is_nan())
    );
    // A -inf among finite values is an exact 0 (PyTorch: [0., 1.]).
    let y = t32(vec![f32::NEG_INFINITY, 1.0], &[2]);
    assert_eq!(y.try_softmax(0).unwrap().to_vec(), vec![0.0, 1.0]);
}

/// Found by the fuzzer: the batch of two operands broadcasts to more elements
/// than `usize` holds, and the sizes are mismatched; the message's sizes were
/// multiplied without a check. Stride-0 views, so nothing is allocated.
#[test]
fn matmul_mismatch_with_an_overflowing_broadcast_batch_is_an_error() {
    let big = 1usize << 40;
    let a = T32::try_ones(&[1, 1, 2, 3])
        .unwrap()
        .try_broadcast_to::<DynRank>(&[big, 1, 2, 3])
        .unwrap();
    let b = T32::try_ones(&[1, 1, 4, 5])
        .unwrap()
        .try_broadcast_to::<DynRank>(&[1, big, 4, 5])
        .unwrap();
    assert!(matches!(a.try_matmul(&b), Err(ShapeError::TooLarge { .. })));
}

/// Found by the fuzzer: a negative index on an expanded dimension of more
/// than `isize::MAX` elements wrapped while being counted from the end. Such
/// a size no longer enters a tensor (PyTorch's sizes are `int64_t`), and the
/// largest one that does is counted from the end without overflow.
#[test]
fn select_from_the_end_of_a_huge_expanded_dimension() {
    let seven = T32::try_from_vec(vec![7.0], &[1]).unwrap();
    // PyTorch: torch.zeros(1).expand(3, 2**62).
    assert_eq!(
        msg(seven.try_broadcast_to::<DynRank>(&[1usize << 63])),
        "numel: integer multiplication overflow"
    );
    assert_eq!(
        msg(seven.expand::<DynRank>(&[3, 1 << 62])),
        "numel: integer multiplication overflow"
    );
    let huge = isize::MAX as usize;
    let t = seven.try_broadcast_to::<DynRank>(&[huge]).unwrap();
    assert_eq!(t.try_select::<0>(-1).unwrap().to_vec(), vec![7.0]);
    // PyTorch: torch.zeros(1).expand(2**62).select(0, -2**62) is the first.
    assert_eq!(t.try_select::<0>(-isize::MAX).unwrap().to_vec(), vec![7.0]);
    // PyTorch: t[-2**63] on torch.zeros(1).expand(2**63 - 1).
    assert_eq!(
        msg(t.try_select::<0>(isize::MIN)),
        format!(
            "index {} is out of bounds for dimension 0 with size {huge}",
            isize::MIN
        )
    );
    let small = T32::try_from_vec(vec![1.0, 2.0], &[2]).unwrap();
    assert!(small.try_select::<0>(isize::MIN).is_err());
}

/// Found by the fuzzer: slicing and narrowing an expanded dimension of more
/// than `isize::MAX` elements (bounds counted from the end, and the size
/// named in narrow's message) overflowed; the largest size that enters a
/// tensor, `isize::MAX`, does not.
#[test]
fn slice_and_narrow_a_huge_expanded_dimension() {
    let huge = isize::MAX as usize;
    let t = T32::try_from_vec(vec![7.0], &[1])
        .unwrap()
        .try_broadcast_to::<DynRank>(&[huge])
        .unwrap();
    let tail = t.try_slice_step::<0>(-3.., 1).unwrap();
    assert_eq!(tail.dims(), &[3]);
    assert_eq!(tail.to_vec(), vec![7.0; 3]);
    // Python: len(range(2**63 - 1)[-2**63:-1:2**62]) == 2.
    let every = t.try_slice_step::<0>(isize::MIN..-1, 1usize << 62).unwrap();
    assert_eq!(every.dims(), &[2]);
    let all = t.try_slice_step::<0>(..=isize::MAX, 1).unwrap();
    assert_eq!(all.dims(), &[huge]);
    let e = t.narrow::<DynRank>(0, huge, 1).unwrap_err().to_string();
    assert_eq!(
        e,
        format!("start ({huge}) + length (1) exceeds dimension size ({huge}).")
    );
    let e = t
        .narrow::<DynRank>(0, usize::MAX, 0)
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        format!(
            "start out of range (expected to be in range of [-{huge}, {huge}], but got {})",
            usize::MAX
        )
    );
}
