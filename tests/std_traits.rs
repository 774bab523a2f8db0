//! The std traits and element access, each checked against a naive
//! index-by-index reference (row-major offsets computed here).

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use proptest::prelude::*;
use shaped::{Dyn, DynRank, Shape, Tensor};

/// Row-major position of `index` in sizes `dims` (the reference layout).
fn row_major(dims: &[usize], index: &[usize]) -> usize {
    index.iter().zip(dims).fold(0, |acc, (&i, &d)| acc * d + i)
}

fn hash_of<H: Hash>(h: &H) -> u64 {
    let mut s = DefaultHasher::new();
    h.hash(&mut s);
    s.finish()
}

#[test]
fn eq_compares_sizes_and_values_and_prints_both() {
    let a = Tensor::<f32, Shape![2, 2]>::from([[1., 2.], [3., 4.]]);
    let b = Tensor::<f32, DynRank>::try_from_vec(vec![1., 2., 3., 4.], &[2, 2]).unwrap();
    assert_eq!(a, b);
    let flat = Tensor::<f32, DynRank>::try_from_vec(vec![1., 2., 3., 4.], &[4]).unwrap();
    assert_ne!(a, flat);
    let nan = Tensor::<f32, Shape![1]>::from_vec(vec![f32::NAN]);
    assert_ne!(nan, nan);
    let msg = std::panic::catch_unwind(|| assert_eq!(a, a.transpose::<0, 1>()))
        .unwrap_err()
        .downcast::<String>()
        .unwrap();
    assert!(msg.contains("left: tensor([[1., 2.],"), "{msg}");
    assert!(msg.contains("right: tensor([[1., 3.],"), "{msg}");
    assert!(msg.contains("dtype=f32, shape=Shape![2, 2]"), "{msg}");
}

#[test]
fn default_from_arrays_and_vecs() {
    assert_eq!(Tensor::<i32, Shape![2, 3]>::default().to_vec(), vec![0; 6]);
    let t =
        Tensor::<u8, Shape![2, 2, 3]>::from([[[1, 2, 3], [4, 5, 6]], [[7, 8, 9], [10, 11, 12]]]);
    assert_eq!(t.to_vec(), (1..=12).collect::<Vec<u8>>());
    let r: Tensor<u8, Shape![_, 2, 3]> = (1..=12).collect::<Vec<u8>>().try_into().unwrap();
    assert_eq!(r, t);
    let e = Tensor::<u8, Shape![_, _]>::try_from(vec![1, 2]).unwrap_err();
    assert!(e.to_string().contains("2 dynamic dimensions"), "{e}");
    let e = Tensor::<u8, Shape![_, 4]>::try_from(vec![1, 2, 3]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "shape '[0, 4]' is invalid for input of size 3"
    );
    let d: Tensor<i64, (Dyn,)> = (0..5).collect();
    assert_eq!(d.dims(), &[5]);
    assert_eq!(
        Tensor::<i8, Shape![3]>::from_slice(&[1, 2, 3]).to_vec(),
        vec![1, 2, 3]
    );
}

#[test]
fn get_set_and_errors_match_pytorch() {
    let t = Tensor::<i32, Shape![2, 3]>::from([[0, 1, 2], [3, 4, 5]]);
    let v = t.transpose::<0, 1>();
    assert_eq!(v.get([2, 1]), 5);
    v.set([2, 1], -5);
    assert_eq!(t.get([1, 2]), -5);
    // torch.zeros(2, 3)[0, 3]: "index 3 is out of bounds for dimension 1 with size 3"
    assert_eq!(
        t.try_get(&[0, 3]).unwrap_err().to_string(),
        "index 3 is out of bounds for dimension 1 with size 3"
    );
    // torch.zeros(2, 3)[0, 0, 0]: "too many indices for tensor of dimension 2"
    assert_eq!(
        t.try_get(&[0, 0, 0]).unwrap_err().to_string(),
        "too many indices for tensor of dimension 2"
    );
    let p = std::panic::catch_unwind(|| t.get([5, 0])).unwrap_err();
    assert_eq!(
        p.downcast_ref::<String>().unwrap(),
        "index 5 is out of bounds for dimension 0 with size 2"
    );
}

#[test]
fn slices_only_when_contiguous() {
    let t = Tensor::<f64, Shape![2, 3]>::from([[0., 1., 2.], [3., 4., 5.]]);
    assert_eq!(&*t.as_slice().unwrap(), &[0., 1., 2., 3., 4., 5.]);
    assert!(t.transpose::<0, 1>().as_slice().is_none());
    assert!(t.transpose::<0, 1>().as_mut_slice().is_none());
    let row = t.narrow::<Shape![1, 3]>(0, 1, 1).unwrap();
    assert_eq!(&*row.as_slice().unwrap(), &[3., 4., 5.]);
    row.as_mut_slice().unwrap()[0] = 30.;
    assert_eq!(t.get([1, 0]), 30.);
}

#[test]
fn not_hash_unwind_safe() {
    let b = Tensor::<bool, Shape![2, 2]>::from([[true, false], [false, true]]);
    assert_eq!(
        (!b.transpose::<0, 1>()).to_vec(),
        vec![false, true, true, false]
    );
    let x = Tensor::<i64, Shape![2, 2]>::from([[1, 3], [2, 4]]);
    let y = Tensor::<i64, Shape![2, 2]>::from([[1, 2], [3, 4]]).transpose::<0, 1>();
    assert_eq!(hash_of(&x), hash_of(&y));
    fn unwind_safe<T: std::panic::UnwindSafe + std::panic::RefUnwindSafe>(_: &T) {}
    unwind_safe(&x);
    let r = std::panic::catch_unwind(|| x.get([0, 0]));
    assert_eq!(r.unwrap(), 1);
}

proptest! {
    /// `iter()`, `&t` and `t` give the logical elements of any permuted,
    /// narrowed or expanded view, in row-major order of its index.
    #[test]
    fn iteration_is_logical_order(
        dims in prop::collection::vec(0usize..4, 1..4),
        perm_seed in 0usize..6,
        start in 0usize..2,
    ) {
        let n: usize = dims.iter().product();
        let data: Vec<i32> = (0..n as i32).collect();
        let base = Tensor::<i32, DynRank>::try_from_vec(data.clone(), &dims).unwrap();
        let rank = dims.len();
        let mut perm: Vec<usize> = (0..rank).collect();
        perm.rotate_left(perm_seed % rank);
        if perm_seed >= 3 { perm.reverse(); }
        let p: Vec<isize> = perm.iter().map(|&p| p as isize).collect();
        let mut view: Tensor<i32, DynRank> = base.permute(&p).unwrap();
        let vdims0 = view.dims()[0];
        if vdims0 > start {
            view = view.narrow(0, start, vdims0 - start).unwrap();
        }
        let vdims = view.dims().to_vec();
        // Reference: element at each logical index, read through `perm`.
        let mut want = Vec::new();
        let total: usize = vdims.iter().product();
        for flat in 0..total {
            let mut idx = vec![0; rank];
            let mut rem = flat;
            for d in (0..rank).rev() { idx[d] = rem % vdims[d]; rem /= vdims[d]; }
            let mut orig = vec![0; rank];
            for (k, &p) in perm.iter().enumerate() {
                orig[p] = idx[k] + if k == 0 && vdims0 > start { start } else { 0 };
            }
            want.push(data[row_major(&dims, &orig)]);
            prop_assert_eq!(view.try_get(&idx).unwrap(), *want.last().unwrap());
        }
        prop_assert_eq!(view.iter().collect::<Vec<_>>(), want.clone());
        prop_assert_eq!(view.iter().len(), total);
        prop_assert_eq!((&view).into_iter().collect::<Vec<_>>(), want.clone());
        prop_assert_eq!(view.clone().into_iter().collect::<Vec<_>>(), want);
    }
}

#[test]
fn iteration_over_an_expanded_view() {
    let t = Tensor::<u8, Shape![3, 1]>::from_vec(vec![1, 2, 3]);
    let e: Tensor<u8, Shape![3, 2]> = t.broadcast_to();
    assert_eq!(e.iter().collect::<Vec<_>>(), vec![1, 1, 2, 2, 3, 3]);
    assert_eq!(e.as_slice().map(|s| s.len()), None);
}
