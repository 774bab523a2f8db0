//! The run-time broadcasting rules (`broadcast_shapes`, `check_expand`,
//! `checked_numel`) against a naive reference written here from the rule as
//! PyTorch states it (seed 002): pad the shorter shape with 1s on the left,
//! then compare dimension by dimension.
//!
//! The reference is deliberately plain (vectors, padding, a forward loop) and
//! shares no code with the crate. Where several dimensions mismatch it keeps
//! the last one, because PyTorch's `infer_size` walks from the trailing
//! dimension and stops at the first mismatch it meets.

use proptest::prelude::*;
use shaped::shape::{check_expand, checked_numel};
use shaped::{ShapeError, broadcast_shapes};

/// What the reference says about a broadcast.
#[derive(Debug, PartialEq)]
enum Outcome {
    /// The broadcast shape.
    Ok(Vec<usize>),
    /// Sizes `a` and `b` meet at dimension `dim` of the result.
    Mismatch { a: usize, b: usize, dim: usize },
    /// The shapes broadcast but the element count exceeds `isize::MAX`.
    TooLarge(Vec<usize>),
}

/// `shape` with 1s prepended up to `rank` dimensions.
fn pad(shape: &[usize], rank: usize) -> Vec<usize> {
    let mut padded = vec![1; rank - shape.len()];
    padded.extend_from_slice(shape);
    padded
}

/// The two-shape rule, without the element-count check.
fn naive_pair(a: &[usize], b: &[usize]) -> Result<Vec<usize>, (usize, usize, usize)> {
    let rank = a.len().max(b.len());
    let (a, b) = (pad(a, rank), pad(b, rank));
    let mut out = Vec::new();
    let mut mismatch = None;
    for dim in 0..rank {
        if a[dim] == b[dim] || b[dim] == 1 {
            out.push(a[dim]);
        } else if a[dim] == 1 {
            out.push(b[dim]);
        } else {
            // A later mismatch replaces an earlier one: the trailing-most wins.
            mismatch = Some((a[dim], b[dim], dim));
            out.push(0);
        }
    }
    match mismatch {
        Some(m) => Err(m),
        None => Ok(out),
    }
}

/// Whether the product of the nonzero sizes is at most `isize::MAX`
/// (PyTorch's limit: sizes and element counts are `int64_t`).
fn fits(shape: &[usize]) -> bool {
    let product = shape
        .iter()
        .filter(|&&d| d != 0)
        .fold(1u128, |p, &d| p.saturating_mul(d as u128));
    product <= isize::MAX as u128
}

/// The rule for any number of shapes: folded left to right, as PyTorch's
/// TensorIterator folds its operands, so "tensor a" is the shape so far.
fn naive(shapes: &[&[usize]]) -> Outcome {
    let mut acc: Vec<usize> = Vec::new();
    for s in shapes {
        match naive_pair(&acc, s) {
            Ok(out) => acc = out,
            Err((a, b, dim)) => return Outcome::Mismatch { a, b, dim },
        }
    }
    if fits(&acc) {
        Outcome::Ok(acc)
    } else {
        Outcome::TooLarge(acc)
    }
}

/// The crate's answer in the reference's terms, after checking that each
/// error prints PyTorch's message.
fn actual(shapes: &[&[usize]]) -> Outcome {
    match broadcast_shapes(shapes) {
        Ok(out) => Outcome::Ok(out),
        Err(e @ ShapeError::Mismatch { a, b, dim }) => {
            assert_eq!(
                e.to_string(),
                format!(
                    "The size of tensor a ({a}) must match the size of tensor b ({b}) at non-singleton dimension {dim}"
                )
            );
            Outcome::Mismatch { a, b, dim }
        }
        Err(ShapeError::TooLarge { shape }) => Outcome::TooLarge(shape),
        Err(e) => panic!("unexpected error {e:?} for {shapes:?}"),
    }
}

/// A shape of rank 0..8 with sizes 0..5.
fn small_shape() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(0usize..5, 0..8)
}

/// A shape whose sizes are mostly small but sometimes huge, so that some
/// broadcasts overflow `usize`.
fn shape_with_huge_sizes() -> impl Strategy<Value = Vec<usize>> {
    let size = prop_oneof![
        6 => 0usize..5,
        1 => Just(1usize << 32),
        1 => Just(isize::MAX as usize),
        1 => Just(usize::MAX / 2 + 1),
        1 => Just(usize::MAX),
    ];
    prop::collection::vec(size, 0..5)
}

/// Two shapes likely to broadcast: `b` is `a`'s suffix with some sizes
/// replaced by 1 (random pairs of sizes 0..5 mostly mismatch).
fn broadcastable_pair() -> impl Strategy<Value = (Vec<usize>, Vec<usize>)> {
    (small_shape(), any::<u64>(), 0usize..8).prop_map(|(a, mask, drop)| {
        let b = a[drop.min(a.len())..]
            .iter()
            .enumerate()
            .map(|(i, &d)| if (mask >> i) & 1 == 1 { 1 } else { d })
            .collect();
        (a, b)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn two_shapes_agree_with_the_reference(a in small_shape(), b in small_shape()) {
        prop_assert_eq!(actual(&[&a, &b]), naive(&[&a, &b]));
    }

    #[test]
    fn broadcastable_pairs_agree_in_both_orders((a, b) in broadcastable_pair()) {
        let want = naive(&[&a, &b]);
        prop_assert!(matches!(want, Outcome::Ok(_)));
        prop_assert_eq!(actual(&[&a, &b]), naive(&[&a, &b]));
        prop_assert_eq!(actual(&[&b, &a]), want);
    }

    #[test]
    fn three_shapes_agree_with_the_reference(
        a in small_shape(), b in small_shape(), c in small_shape()
    ) {
        prop_assert_eq!(actual(&[&a, &b, &c]), naive(&[&a, &b, &c]));
    }

    #[test]
    fn three_broadcastable_shapes_agree_in_every_order(
        (a, b) in broadcastable_pair(), keep in 0usize..8
    ) {
        let c: Vec<usize> = a.iter().skip(keep.min(a.len())).copied().collect();
        let want = naive(&[&a, &b, &c]);
        prop_assert!(matches!(want, Outcome::Ok(_)));
        for order in [[&a, &b, &c], [&b, &c, &a], [&c, &a, &b], [&c, &b, &a]] {
            let shapes = order.map(|s| s.as_slice());
            prop_assert_eq!(actual(&shapes), naive(&shapes));
            prop_assert_eq!(actual(&shapes), naive(&[&a, &b, &c]));
        }
    }

    #[test]
    fn overflow_is_too_large(a in shape_with_huge_sizes(), b in shape_with_huge_sizes()) {
        prop_assert_eq!(actual(&[&a, &b]), naive(&[&a, &b]));
    }

    #[test]
    fn checked_numel_is_the_product_when_it_fits(s in shape_with_huge_sizes()) {
        match checked_numel(&s) {
            Ok(n) => {
                prop_assert!(fits(&s));
                let product = s.iter().fold(1u128, |p, &d| p * d as u128);
                prop_assert_eq!(n as u128, product);
            }
            Err(e) => {
                prop_assert!(!fits(&s));
                prop_assert_eq!(e, ShapeError::TooLarge { shape: s.clone() });
            }
        }
    }

    #[test]
    fn check_expand_agrees_with_the_reference(src in small_shape(), target in small_shape()) {
        prop_assert_eq!(check_expand(&src, &target), naive_expand(&src, &target));
    }

    #[test]
    fn expanding_a_broadcastable_suffix_succeeds((target, src) in broadcastable_pair()) {
        prop_assert_eq!(check_expand(&src, &target), Ok(()));
        prop_assert_eq!(naive_expand(&src, &target), Ok(()));
    }
}

/// The in-place rule: `src` may only stretch its 1s (and gain leading
/// dimensions) to become exactly `target`.
fn naive_expand(src: &[usize], target: &[usize]) -> Result<(), ShapeError> {
    if src.len() > target.len() {
        // PyTorch's in-place message: broadcasting would change the output.
        return match naive_pair(target, src) {
            Ok(broadcast) => Err(ShapeError::OutputShape {
                output: target.to_vec(),
                broadcast,
            }),
            Err((a, b, dim)) => Err(ShapeError::Mismatch { a, b, dim }),
        };
    }
    let unpadded = src;
    let src = pad(src, target.len());
    let mut error = Ok(());
    for dim in 0..target.len() {
        if src[dim] != target[dim] && src[dim] != 1 {
            error = Err(ShapeError::Expand {
                expanded: target[dim],
                existing: src[dim],
                dim,
                target: target.iter().map(|&d| d as isize).collect(),
                tensor: unpadded.to_vec(),
            });
        }
    }
    error
}

#[test]
fn seed_examples() {
    let ok = |a: &[usize], b: &[usize], out: &[usize]| {
        assert_eq!(broadcast_shapes(&[a, b]).unwrap(), out, "{a:?} with {b:?}");
        assert_eq!(broadcast_shapes(&[b, a]).unwrap(), out, "{b:?} with {a:?}");
    };
    ok(&[5, 7, 3], &[5, 7, 3], &[5, 7, 3]);
    ok(&[5, 1, 4, 1], &[3, 1, 1], &[5, 3, 4, 1]);
    ok(&[1], &[3, 1, 7], &[3, 1, 7]);
    ok(&[4, 1], &[4], &[4, 4]);
    ok(
        &[2, 3, 4, 5, 1, 1, 1],
        &[4, 1, 6, 7, 8],
        &[2, 3, 4, 5, 6, 7, 8],
    );
    let e = broadcast_shapes(&[&[5, 2, 4, 1], &[3, 1, 1]]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1"
    );
}

#[test]
fn the_trailing_most_mismatch_is_reported() {
    let e = broadcast_shapes(&[&[2, 3, 4], &[5, 6, 4]]).unwrap_err();
    assert_eq!(e, ShapeError::Mismatch { a: 3, b: 6, dim: 1 });
    // The dimension counts in the result, not in the shorter shape.
    let e = broadcast_shapes(&[&[7, 2, 1, 4], &[3, 1, 4]]).unwrap_err();
    assert_eq!(e, ShapeError::Mismatch { a: 2, b: 3, dim: 1 });
}

#[test]
fn zero_sized_dimensions() {
    assert_eq!(broadcast_shapes(&[&[0], &[1]]).unwrap(), vec![0]);
    assert_eq!(broadcast_shapes(&[&[1], &[0]]).unwrap(), vec![0]);
    assert_eq!(broadcast_shapes(&[&[2, 0], &[0]]).unwrap(), vec![2, 0]);
    assert_eq!(broadcast_shapes(&[&[0, 3], &[1, 3]]).unwrap(), vec![0, 3]);
    assert_eq!(
        broadcast_shapes(&[&[0], &[3]]).unwrap_err(),
        ShapeError::Mismatch { a: 0, b: 3, dim: 0 }
    );
    assert_eq!(
        broadcast_shapes(&[&[3], &[0]]).unwrap_err(),
        ShapeError::Mismatch { a: 3, b: 0, dim: 0 }
    );
    assert_eq!(check_expand(&[0], &[4, 0]), Ok(()));
    assert_eq!(
        check_expand(&[0], &[3]),
        Err(ShapeError::Expand {
            expanded: 3,
            existing: 0,
            dim: 0,
            target: vec![3],
            tensor: vec![0],
        })
    );
}

#[test]
fn zero_dimensional_shapes_broadcast_like_scalars() {
    assert_eq!(broadcast_shapes(&[&[], &[]]).unwrap(), Vec::<usize>::new());
    assert_eq!(broadcast_shapes(&[&[], &[2, 2]]).unwrap(), vec![2, 2]);
    assert_eq!(broadcast_shapes(&[&[2, 0], &[]]).unwrap(), vec![2, 0]);
    assert_eq!(broadcast_shapes(&[&[], &[3], &[]]).unwrap(), vec![3]);
    assert_eq!(broadcast_shapes(&[]).unwrap(), Vec::<usize>::new());
    assert_eq!(check_expand(&[], &[4, 5]), Ok(()));
    assert_eq!(check_expand(&[], &[]), Ok(()));
}

#[test]
fn three_shapes_name_the_shape_so_far_as_tensor_a() {
    // (4, 1) and (3,) give (4, 3); then (2, 1, 1) gives (2, 4, 3); then (5,)
    // meets the 3 at the last dimension.
    let e = broadcast_shapes(&[&[4, 1], &[3], &[2, 1, 1], &[5]]).unwrap_err();
    assert_eq!(e, ShapeError::Mismatch { a: 3, b: 5, dim: 2 });
    assert_eq!(
        broadcast_shapes(&[&[3, 1], &[4], &[2, 1, 1]]).unwrap(),
        vec![2, 3, 4]
    );
}

#[test]
fn overflow() {
    // Fits alone (PyTorch's limit is isize::MAX elements); doubled, it does not.
    let big = 1usize << 62;
    let e = broadcast_shapes(&[&[big, 1], &[1, 2]]).unwrap_err();
    assert_eq!(
        e,
        ShapeError::TooLarge {
            shape: vec![big, 2]
        }
    );
    assert_eq!(e.to_string(), "numel: integer multiplication overflow");
    // Each shape fits alone; only their broadcast does not.
    let half = 1usize << (usize::BITS / 2);
    assert!(checked_numel(&[half, 1]).is_ok() && checked_numel(&[1, half]).is_ok());
    assert!(matches!(
        broadcast_shapes(&[&[half, 1], &[1, half]]),
        Err(ShapeError::TooLarge { .. })
    ));
    // A zero does not hide an overflow of the other sizes.
    assert!(matches!(
        broadcast_shapes(&[&[usize::MAX, 2, 0]]),
        Err(ShapeError::TooLarge { .. })
    ));
    assert_eq!(
        broadcast_shapes(&[&[isize::MAX as usize, 0]]).unwrap(),
        vec![isize::MAX as usize, 0]
    );
    // PyTorch's limit is isize::MAX elements, not usize::MAX.
    assert!(broadcast_shapes(&[&[isize::MAX as usize, 1]]).is_ok());
    assert!(matches!(
        broadcast_shapes(&[&[isize::MAX as usize + 1]]),
        Err(ShapeError::TooLarge { .. })
    ));
}

#[test]
fn in_place_seed_examples() {
    assert_eq!(check_expand(&[3, 1, 1], &[5, 3, 4, 1]), Ok(()));
    let e = check_expand(&[3, 1, 7], &[1, 3, 1]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "The expanded size of the tensor (1) must match the existing size (7) at non-singleton dimension 2.  Target sizes: [1, 3, 1].  Tensor sizes: [3, 1, 7]"
    );
    // More dimensions than the in-place tensor: the output would change shape.
    let e = check_expand(&[2, 3], &[3]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "output with shape [3] doesn't match the broadcast shape [2, 3]"
    );
}
