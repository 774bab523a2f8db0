//! Views and constructors against a naive reference.
//!
//! The reference is an n-d array stored row-major (`Nd`), read by explicit
//! index arithmetic. For each view the test states how an index of the view
//! maps to an index of its source (`permute`: `src[perm[i]] = idx[i]`,
//! `narrow`: `src[d] = idx[d] + start`, ...) and builds the expected array
//! element by element; the view's `to_vec()` must equal it.
//!
//! Every view must also share the original storage: reading the original
//! buffer at the view's `offset()` and `strides()` must give the same
//! elements (`strided_read`). `reshape` must be a view exactly when one
//! exists, which is decided here by brute force: the strides such a view
//! would need are read off the source's memory positions, then checked at
//! every element.

use proptest::prelude::*;
use shaped::shape::Shape;
use shaped::{DynRank, Shape, ShapeError, Tensor};

/// A row-major n-d array of `i64`: the reference.
#[derive(Clone, Debug, PartialEq)]
struct Nd {
    dims: Vec<usize>,
    data: Vec<i64>,
}

/// Every multi-index of `dims`, in row-major order.
fn indices(dims: &[usize]) -> Vec<Vec<usize>> {
    let n: usize = dims.iter().product();
    let mut out = Vec::with_capacity(n);
    let mut idx = vec![0; dims.len()];
    for _ in 0..n {
        out.push(idx.clone());
        for d in (0..dims.len()).rev() {
            idx[d] += 1;
            if idx[d] < dims[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    out
}

/// The row-major position of `idx` in an array of sizes `dims`.
fn flat(dims: &[usize], idx: &[usize]) -> usize {
    assert_eq!(dims.len(), idx.len());
    let mut pos = 0;
    for (d, i) in dims.iter().zip(idx) {
        assert!(i < d, "index {idx:?} outside {dims:?}");
        pos = pos * d + i;
    }
    pos
}

impl Nd {
    /// Distinct elements 0, 1, 2, ... so that any misplaced element shows.
    fn iota(dims: &[usize]) -> Nd {
        let n: usize = dims.iter().product();
        Nd {
            dims: dims.to_vec(),
            data: (0..n as i64).collect(),
        }
    }

    /// The array whose element at `idx` is `f(idx)`.
    fn from_fn(dims: &[usize], f: impl Fn(&[usize]) -> i64) -> Nd {
        Nd {
            dims: dims.to_vec(),
            data: indices(dims).iter().map(|i| f(i)).collect(),
        }
    }

    fn get(&self, idx: &[usize]) -> i64 {
        self.data[flat(&self.dims, idx)]
    }

    fn tensor(&self) -> Tensor<i64, DynRank> {
        Tensor::try_from_vec(self.data.clone(), &self.dims).unwrap()
    }
}

/// The elements at `offset + Σ idx[k] * strides[k]` of `buffer`, row-major.
fn strided_read(buffer: &[i64], offset: usize, strides: &[usize], dims: &[usize]) -> Vec<i64> {
    indices(dims)
        .iter()
        .map(|idx| buffer[offset + idx.iter().zip(strides).map(|(i, s)| i * s).sum::<usize>()])
        .collect()
}

/// `view` holds `want`, and reads it from `buffer`, the storage of the
/// tensor every view in the test was taken from.
fn check_view<S: Shape>(buffer: &[i64], view: &Tensor<i64, S>, want: &Nd) {
    assert_eq!(view.dims(), want.dims, "sizes");
    assert_eq!(view.to_vec(), want.data, "elements of {:?}", want.dims);
    assert_eq!(
        strided_read(buffer, view.offset(), view.strides(), view.dims()),
        want.data,
        "not a view of the original storage: offset {}, strides {:?}",
        view.offset(),
        view.strides()
    );
}

/// PyTorch's strides for a fresh contiguous tensor (a size 0 counts as 1).
fn contiguous_strides(dims: &[usize]) -> Vec<usize> {
    (0..dims.len())
        .map(|k| dims[k + 1..].iter().map(|&d| d.max(1)).product())
        .collect()
}

fn shape(max_rank: usize, max_size: usize) -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(0..=max_size, 0..=max_rank)
}

fn shape_and_permutation() -> impl Strategy<Value = (Vec<usize>, Vec<usize>)> {
    shape(5, 3).prop_flat_map(|dims| {
        let rank = dims.len();
        (
            Just(dims),
            Just((0..rank).collect::<Vec<_>>()).prop_shuffle(),
        )
    })
}

/// The array `src` permuted: axis `i` of the result is axis `perm[i]`.
fn permuted(src: &Nd, perm: &[usize]) -> Nd {
    let dims: Vec<usize> = perm.iter().map(|&p| src.dims[p]).collect();
    Nd::from_fn(&dims, |idx| {
        let mut s = vec![0; perm.len()];
        for (i, &p) in perm.iter().enumerate() {
            s[p] = idx[i];
        }
        src.get(&s)
    })
}

// ---------------------------------------------------------------- permute

proptest! {
    #[test]
    fn permute_matches_the_reference((dims, perm) in shape_and_permutation(), negative in any::<bool>()) {
        let src = Nd::iota(&dims);
        let rank = dims.len() as isize;
        let p: Vec<isize> = perm
            .iter()
            .map(|&p| if negative { p as isize - rank } else { p as isize })
            .collect();
        let view = src.tensor().permute::<DynRank>(&p).unwrap();
        check_view(&src.data, &view, &permuted(&src, &perm));
        let want_strides: Vec<usize> = perm.iter().map(|&p| contiguous_strides(&dims)[p]).collect();
        prop_assert_eq!(view.strides(), &want_strides[..]);
    }

    #[test]
    fn permute_of_a_permuted_view(
        (dims, first) in shape_and_permutation(), seed in any::<u64>()
    ) {
        let src = Nd::iota(&dims);
        let mut second: Vec<usize> = (0..dims.len()).collect();
        // A second permutation drawn from the seed (Fisher-Yates).
        let mut s = seed;
        for i in (1..second.len()).rev() {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            second.swap(i, (s >> 33) as usize % (i + 1));
        }
        let to_isize = |p: &[usize]| p.iter().map(|&x| x as isize).collect::<Vec<_>>();
        let a = src.tensor().permute::<DynRank>(&to_isize(&first)).unwrap();
        let b = a.permute::<DynRank>(&to_isize(&second)).unwrap();
        check_view(&src.data, &b, &permuted(&permuted(&src, &first), &second));
    }
}

#[test]
fn permute_errors() {
    let t = Nd::iota(&[2, 3]).tensor();
    assert_eq!(
        t.permute::<DynRank>(&[0, 1, 2]).unwrap_err().to_string(),
        "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = 2 is not equal to len(dims) = 3"
    );
    assert_eq!(
        t.permute::<DynRank>(&[1, -1]).unwrap_err().to_string(),
        "permute(): duplicate dims are not allowed."
    );
    assert_eq!(
        t.permute::<DynRank>(&[0, 2]).unwrap_err().to_string(),
        "Dimension out of range (expected to be in range of [-2, 1], but got 2)"
    );
    // The stated result shape is checked.
    assert!(matches!(
        t.permute::<Shape![2, 3]>(&[1, 0]),
        Err(ShapeError::StaticSize { .. })
    ));
    let p: Tensor<i64, Shape![3, 2]> = t.permute(&[1, 0]).unwrap();
    assert_eq!(p.to_vec(), vec![0, 3, 1, 4, 2, 5]);
}

// -------------------------------------------------------------- transpose

proptest! {
    #[test]
    fn transpose_matches_the_reference(dims in prop::collection::vec(0usize..4, 3)) {
        let src = Nd::iota(&dims);
        let t = src.tensor().try_into_shape::<Shape![_, _, _]>().unwrap();
        check_view(&src.data, &t.transpose::<0, 2>(), &permuted(&src, &[2, 1, 0]));
        check_view(&src.data, &t.transpose::<2, 0>(), &permuted(&src, &[2, 1, 0]));
        check_view(&src.data, &t.transpose::<1, 2>(), &permuted(&src, &[0, 2, 1]));
        check_view(&src.data, &t.transpose::<0, 1>(), &permuted(&src, &[1, 0, 2]));
        check_view(&src.data, &t.transpose::<1, 1>(), &src);
        // Twice is the identity.
        check_view(&src.data, &t.transpose::<0, 2>().transpose::<0, 2>(), &src);
    }
}

#[test]
fn transpose_has_a_typed_result() {
    let t = Tensor::<i64, Shape![2, 3, 4]>::from_vec((0..24).collect());
    let u: Tensor<i64, Shape![4, 3, 2]> = t.transpose::<0, 2>();
    assert_eq!(u.strides(), &[1, 4, 12]);
    assert_eq!(u.dims(), &[4, 3, 2]);
}

#[test]
#[should_panic(expected = "Dimension out of range (expected to be in range of [-2, 1], but got 2)")]
fn transpose_of_a_dyn_rank_tensor_checks_its_axes() {
    let t = Nd::iota(&[2, 3]).tensor();
    let _ = t.transpose::<0, 2>();
}

// ----------------------------------------------------------------- narrow

proptest! {
    #[test]
    fn narrow_matches_the_reference(
        dims in shape(4, 4).prop_filter("rank > 0", |d| !d.is_empty()),
        axis in 0usize..4, start in 0usize..6, len in 0usize..6, negative in any::<bool>()
    ) {
        let src = Nd::iota(&dims);
        let d = axis % dims.len();
        let dim_arg = if negative { d as isize - dims.len() as isize } else { d as isize };
        let t = src.tensor();
        match t.narrow::<DynRank>(dim_arg, start, len) {
            Ok(view) => {
                prop_assert!(start + len <= dims[d]);
                let mut out = dims.clone();
                out[d] = len;
                let want = Nd::from_fn(&out, |idx| {
                    let mut s = idx.to_vec();
                    s[d] += start;
                    src.get(&s)
                });
                check_view(&src.data, &view, &want);
                prop_assert_eq!(view.strides(), t.strides());
            }
            Err(e) => {
                prop_assert!(start + len > dims[d]);
                let want = if start > dims[d] {
                    format!(
                        "start out of range (expected to be in range of [{}, {}], but got {start})",
                        -(dims[d] as isize),
                        dims[d]
                    )
                } else {
                    format!("start ({start}) + length ({len}) exceeds dimension size ({}).", dims[d])
                };
                prop_assert_eq!(e.to_string(), want);
            }
        }
    }

    #[test]
    fn narrow_of_a_transposed_view(dims in prop::collection::vec(1usize..5, 2), start in 0usize..4) {
        let src = Nd::iota(&dims);
        let t = src.tensor().permute::<DynRank>(&[1, 0]).unwrap();
        let (rows, cols) = (dims[1], dims[0]);
        prop_assume!(start < rows);
        let view = t.narrow::<DynRank>(0, start, rows - start).unwrap();
        let want = Nd::from_fn(&[rows - start, cols], |idx| src.get(&[idx[1], idx[0] + start]));
        check_view(&src.data, &view, &want);
    }
}

#[test]
fn narrow_errors() {
    let t = Nd::iota(&[2, 4]).tensor();
    assert_eq!(
        t.narrow::<DynRank>(2, 0, 1).unwrap_err().to_string(),
        "Dimension out of range (expected to be in range of [-2, 1], but got 2)"
    );
    let scalar = Tensor::<i64, DynRank>::scalar(1);
    for dim in [0, 3] {
        assert_eq!(
            scalar.narrow::<DynRank>(dim, 0, 1).unwrap_err().to_string(),
            "narrow() cannot be applied to a 0-dim tensor."
        );
    }
    // The stated result shape is checked.
    assert!(t.narrow::<Shape![2, 3]>(1, 0, 2).is_err());
    let n: Tensor<i64, Shape![2, 3]> = t.narrow(1, 1, 3).unwrap();
    assert_eq!(n.to_vec(), vec![1, 2, 3, 5, 6, 7]);
    assert_eq!(n.offset(), 1);
}

// ---------------------------------------------------------- expand and broadcast_to

/// A source shape and an expand target for it: leading sizes, the source's
/// 1s stretched to random sizes, and some sizes given as -1.
fn expandable() -> impl Strategy<Value = (Vec<usize>, Vec<isize>)> {
    (
        shape(3, 3),
        shape(2, 3),
        prop::collection::vec(0usize..4, 3),
        any::<u8>(),
    )
        .prop_map(|(src, lead, stretch, minus)| {
            let mut target: Vec<isize> = lead.iter().map(|&d| d as isize).collect();
            for (i, &d) in src.iter().enumerate() {
                target.push(match d {
                    _ if (minus >> i) & 1 == 1 => -1,
                    1 => stretch[i] as isize,
                    d => d as isize,
                });
            }
            (src, target)
        })
}

/// The expand rule as PyTorch's `inferExpandGeometry` applies it: from
/// the last dimension to the first, -1 keeps an existing size (and is an
/// error on a new leading dimension), and an existing size that is not 1
/// must equal its target; the first problem met is reported.
fn naive_expand(src: &[usize], target: &[isize]) -> Result<Vec<usize>, String> {
    if target.len() < src.len() {
        return Err(format!(
            "the number of sizes provided ({}) must be greater or equal to the number of dimensions in the tensor ({})",
            target.len(),
            src.len()
        ));
    }
    let lead = target.len() - src.len();
    let mut out = vec![0; target.len()];
    for j in (0..target.len()).rev() {
        let existing = j.checked_sub(lead).map(|i| src[i]);
        let size = match (target[j], existing) {
            (-1, Some(s)) => s,
            (-1, None) => {
                return Err(format!(
                    "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension {j}"
                ));
            }
            (t, _) => t as usize,
        };
        if let Some(s) = existing
            && s != 1
            && s != size
        {
            return Err(format!(
                "The expanded size of the tensor ({size}) must match the existing size ({s}) at non-singleton dimension {j}.  Target sizes: {target:?}.  Tensor sizes: {src:?}"
            ));
        }
        out[j] = size;
    }
    Ok(out)
}

/// `src` seen as `out`: each index of `src` is the result's, or 0 where
/// `src` has size 1.
fn expanded(src: &Nd, out: &[usize]) -> Nd {
    let lead = out.len() - src.dims.len();
    Nd::from_fn(out, |idx| {
        let s: Vec<usize> = src
            .dims
            .iter()
            .enumerate()
            .map(|(i, &d)| if d == 1 { 0 } else { idx[lead + i] })
            .collect();
        src.get(&s)
    })
}

proptest! {
    #[test]
    fn expand_matches_the_reference((src_dims, target) in expandable()) {
        let src = Nd::iota(&src_dims);
        let out = naive_expand(&src_dims, &target).unwrap();
        let t = src.tensor();
        let view = t.expand::<DynRank>(&target).unwrap();
        check_view(&src.data, &view, &expanded(&src, &out));
        // Stride 0 on new and stretched dimensions, the source's elsewhere.
        let lead = out.len() - src_dims.len();
        for (j, &s) in view.strides().iter().enumerate() {
            if j < lead || (src_dims[j - lead] == 1 && out[j] != 1) {
                prop_assert_eq!(s, 0, "stride {} of {:?}", j, view.strides());
            } else {
                prop_assert_eq!(s, t.strides()[j - lead]);
            }
        }
        // try_broadcast_to takes the resolved sizes.
        let b = t.try_broadcast_to::<DynRank>(&out).unwrap();
        check_view(&src.data, &b, &expanded(&src, &out));
    }

    #[test]
    fn expand_errors_agree_with_the_reference(
        src_dims in shape(3, 3), target in prop::collection::vec(-1isize..4, 0..5)
    ) {
        let src = Nd::iota(&src_dims);
        match (src.tensor().expand::<DynRank>(&target), naive_expand(&src_dims, &target)) {
            (Ok(view), Ok(out)) => check_view(&src.data, &view, &expanded(&src, &out)),
            (Err(e), Err(want)) => prop_assert!(
                e.to_string().ends_with(&want),
                "{} does not end with {}", e, want
            ),
            (got, want) => prop_assert!(false, "{:?} expanded to {:?}: got {:?}, want {:?}",
                src_dims, target, got.map(|t| t.dims().to_vec()), want),
        }
    }
}

#[test]
fn expand_and_broadcast_to_examples() {
    let t = Tensor::<i64, Shape![3, 1]>::from_vec(vec![1, 2, 3]);
    let e = t.expand::<Shape![2, 3, 4]>(&[2, -1, 4]).unwrap();
    assert_eq!(e.strides(), &[0, 1, 0]);
    assert_eq!(e.to_vec(), [1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3].repeat(2));
    assert_eq!(
        t.expand::<DynRank>(&[3, 5, 4]).unwrap_err().to_string(),
        "The expanded size of the tensor (5) must match the existing size (3) at non-singleton dimension 1.  Target sizes: [3, 5, 4].  Tensor sizes: [3, 1]"
    );
    assert_eq!(
        t.expand::<DynRank>(&[-1, 3, 1]).unwrap_err().to_string(),
        "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension 0"
    );
    // A mismatch in an existing dimension is met before a leading -1.
    assert_eq!(
        t.expand::<DynRank>(&[-1, 4, 1]).unwrap_err().to_string(),
        "The expanded size of the tensor (4) must match the existing size (3) at non-singleton dimension 1.  Target sizes: [-1, 4, 1].  Tensor sizes: [3, 1]"
    );
    // Sizes below -1 are never allowed.
    assert!(t.expand::<DynRank>(&[-2, 3, 1]).is_err());
    assert!(t.expand::<DynRank>(&[3, -2]).is_err());
    // The stated result shape is checked.
    assert!(matches!(
        t.expand::<Shape![3, 5]>(&[3, 4]),
        Err(ShapeError::StaticSize { .. })
    ));
    let row = Tensor::<i64, Shape![3]>::from_vec(vec![7, 8, 9]);
    let m: Tensor<i64, Shape![2, 3]> = row.broadcast_to();
    assert_eq!(
        (m.strides(), m.to_vec()),
        (&[0, 1][..], vec![7, 8, 9, 7, 8, 9])
    );
    let one = Tensor::<i64, Shape![1, 1]>::full(5);
    let big: Tensor<i64, Shape![2, 3, 4]> = one.broadcast_to();
    assert_eq!((big.strides(), big.to_vec()), (&[0, 0, 0][..], vec![5; 24]));
    // A `Dyn` size is checked when the program runs.
    let d = Tensor::<i64, Shape![_]>::try_from_vec(vec![1, 2], &[2]).unwrap();
    let err = d.try_broadcast_to::<Shape![4, 3]>(&[4, 3]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "The expanded size of the tensor (3) must match the existing size (2) at non-singleton dimension 1.  Target sizes: [4, 3].  Tensor sizes: [2]"
    );
}

#[test]
#[should_panic(expected = "must match the existing size (2)")]
fn broadcast_to_panics_on_a_dyn_size_that_does_not_fit() {
    let d = Tensor::<i64, Shape![_]>::try_from_vec(vec![1, 2], &[2]).unwrap();
    let _: Tensor<i64, Shape![4, 3]> = d.broadcast_to();
}

// -------------------------------------------------------- unsqueeze and squeeze

proptest! {
    #[test]
    fn unsqueeze_and_squeeze_match_the_reference(dims in shape(4, 3)) {
        let src = Nd::iota(&dims);
        let t = src.tensor();
        let with_one = |k: usize| {
            let mut out = dims.clone();
            out.insert(k, 1);
            Nd::from_fn(&out, |idx| {
                let mut s = idx.to_vec();
                s.remove(k);
                src.get(&s)
            })
        };
        let u0 = t.unsqueeze::<0>();
        check_view(&src.data, &u0, &with_one(0));
        check_view(&src.data, &u0.squeeze::<0>().unwrap(), &src);
        if !dims.is_empty() {
            let u1 = t.unsqueeze::<1>();
            check_view(&src.data, &u1, &with_one(1));
            check_view(&src.data, &u1.squeeze::<1>().unwrap(), &src);
            let s = t.squeeze::<0>();
            if dims[0] == 1 {
                check_view(&src.data, &s.unwrap(), &Nd { dims: dims[1..].to_vec(), data: src.data.clone() });
            } else {
                prop_assert_eq!(
                    s.unwrap_err().to_string(),
                    format!("squeeze: dimension 0 has size {}, not 1", dims[0])
                );
            }
        }
    }
}

#[test]
fn unsqueeze_strides_follow_pytorch() {
    let t = Tensor::<i64, Shape![2, 3, 4]>::from_vec((0..24).collect());
    let u: Tensor<i64, Shape![2, 1, 3, 4]> = t.unsqueeze::<1>();
    assert_eq!(u.strides(), &[12, 12, 4, 1]);
    let u: Tensor<i64, Shape![2, 3, 4, 1]> = t.unsqueeze::<3>();
    assert_eq!(u.strides(), &[12, 4, 1, 1]);
    let u: Tensor<i64, Shape![1, 2, 3, 4]> = t.unsqueeze::<0>();
    assert_eq!(u.strides(), &[24, 12, 4, 1]);
    let s: Tensor<i64, Shape![2, 4]> = t
        .narrow::<Shape![2, 1, 4]>(1, 2, 1)
        .unwrap()
        .squeeze::<1>()
        .unwrap();
    assert_eq!((s.offset(), s.strides()), (8, &[12, 1][..]));
    assert_eq!(s.to_vec(), vec![8, 9, 10, 11, 20, 21, 22, 23]);
}

#[test]
#[should_panic(expected = "Dimension out of range (expected to be in range of [-2, 1], but got 3)")]
fn unsqueeze_of_a_dyn_rank_tensor_checks_its_axis() {
    let _ = Nd::iota(&[4]).tensor().unsqueeze::<3>();
}

#[test]
fn squeeze_errors() {
    let t = Nd::iota(&[4]).tensor();
    assert_eq!(
        t.squeeze::<2>().unwrap_err().to_string(),
        "Dimension out of range (expected to be in range of [-1, 0], but got 2)"
    );
    // A `Dyn` size must be 1 at run time.
    let d = Tensor::<i64, Shape![3, _]>::try_zeros(&[3, 2]).unwrap();
    assert_eq!(
        d.squeeze::<1>().unwrap_err().to_string(),
        "squeeze: dimension 1 has size 2, not 1"
    );
    // Squeezing dimension 0 of a 0-d tensor gives it back, as in PyTorch.
    let s = Tensor::<i64, DynRank>::scalar(5);
    let q = s.squeeze::<0>().unwrap();
    assert_eq!((q.dims(), q.to_vec()), (&[][..], vec![5]));
}

// ---------------------------------------------------------------- reshape

/// Where each element of a strided tensor lies in memory, in row-major
/// order of the tensor.
fn positions(offset: usize, strides: &[usize], dims: &[usize]) -> Vec<usize> {
    indices(dims)
        .iter()
        .map(|idx| offset + idx.iter().zip(strides).map(|(i, s)| i * s).sum::<usize>())
        .collect()
}

/// The strides a view of sizes `new` over elements at `pos` (row-major)
/// would need, if one exists: each stride is read off the step to the next
/// element along that axis, then every element is checked. Axes of size 1
/// are `None` (any stride will do).
fn naive_view_strides(pos: &[usize], new: &[usize]) -> Option<Vec<Option<usize>>> {
    if pos.is_empty() {
        return Some(vec![None; new.len()]);
    }
    let strides: Vec<Option<usize>> = (0..new.len())
        .map(|k| {
            (new[k] > 1).then(|| {
                let mut unit = vec![0; new.len()];
                unit[k] = 1;
                pos[flat(new, &unit)] - pos[0]
            })
        })
        .collect();
    let ok = indices(new).iter().all(|idx| {
        let at: usize = idx
            .iter()
            .zip(&strides)
            .map(|(i, s)| i * s.unwrap_or(0))
            .sum();
        pos[0] + at == pos[flat(new, idx)]
    });
    ok.then_some(strides)
}

/// A random factorisation of `numel` into sizes, with some 1s, picked by
/// `picks`.
fn factorise(numel: usize, picks: &[u8]) -> Vec<usize> {
    if numel == 0 {
        let mut out: Vec<usize> = picks.iter().map(|&p| (p % 4) as usize).collect();
        out.push(0);
        let turn = picks.first().map_or(0, |&p| p as usize % out.len());
        out.rotate_right(turn);
        return out;
    }
    let mut rest = numel;
    let mut out = Vec::new();
    for &p in picks {
        let divisors: Vec<usize> = (1..=rest).filter(|d| rest.is_multiple_of(*d)).collect();
        let d = divisors[p as usize % divisors.len()];
        out.push(d);
        rest /= d;
    }
    out.push(rest);
    out
}

/// A source for reshape: a permuted, possibly narrowed and expanded view of
/// a contiguous tensor, and target sizes with as many elements.
#[derive(Debug, Clone)]
struct ReshapeCase {
    dims: Vec<usize>,
    perm: Vec<usize>,
    narrow: bool,
    expand: usize,
    picks: Vec<u8>,
    infer: Option<u8>,
}

fn reshape_case() -> impl Strategy<Value = ReshapeCase> {
    // Mostly nonempty: an empty source is always a view.
    let size = prop_oneof![9 => 1usize..4, 1 => Just(0usize)];
    let dims_and_perm = prop::collection::vec(size, 0..5).prop_flat_map(|dims| {
        let rank = dims.len();
        (
            Just(dims),
            Just((0..rank).collect::<Vec<_>>()).prop_shuffle(),
        )
    });
    (
        dims_and_perm,
        any::<bool>(),
        0usize..3,
        prop::collection::vec(any::<u8>(), 0..4),
        prop::option::of(any::<u8>()),
    )
        .prop_map(|((dims, perm), narrow, expand, picks, infer)| ReshapeCase {
            dims,
            perm,
            narrow,
            expand,
            picks,
            infer,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn reshape_is_a_view_exactly_when_one_exists(case in reshape_case()) {
        let orig = Nd::iota(&case.dims);
        let perm: Vec<isize> = case.perm.iter().map(|&p| p as isize).collect();
        let mut src = orig.tensor().permute::<DynRank>(&perm).unwrap();
        let mut want = permuted(&orig, &case.perm);
        if case.narrow && want.dims.first().is_some_and(|&d| d >= 2) {
            let n = want.dims[0] - 1;
            src = src.narrow::<DynRank>(0, 1, n).unwrap();
            let mut dims = want.dims.clone();
            dims[0] = n;
            want = Nd::from_fn(&dims, |idx| {
                let mut s = idx.to_vec();
                s[0] += 1;
                want.get(&s)
            });
        }
        if case.expand > 1 {
            let mut sizes = vec![case.expand as isize];
            sizes.extend(std::iter::repeat_n(-1, want.dims.len()));
            src = src.unsqueeze::<0>().expand::<DynRank>(&sizes).unwrap();
            let mut dims = vec![case.expand];
            dims.extend(&want.dims);
            want = expanded(&want, &dims);
        }
        check_view(&orig.data, &src, &want);

        let numel = want.data.len();
        let new = factorise(numel, &case.picks);
        let mut sizes: Vec<isize> = new.iter().map(|&d| d as isize).collect();
        if let Some(i) = case.infer {
            let i = i as usize % sizes.len();
            // -1 is ambiguous among zero-sized dimensions: keep it out of that case.
            if new.iter().enumerate().all(|(j, &d)| j == i || d != 0) {
                sizes[i] = -1;
            }
        }
        let r = src.try_reshape::<DynRank>(&sizes).unwrap();
        prop_assert_eq!(r.dims(), &new[..]);
        prop_assert_eq!(r.to_vec(), want.data.clone());
        let pos = positions(src.offset(), src.strides(), src.dims());
        match naive_view_strides(&pos, &new) {
            Some(strides) => {
                // A view: same storage, the only strides that work.
                check_view(&orig.data, &r, &Nd { dims: new.clone(), data: want.data.clone() });
                if numel > 0 {
                    prop_assert_eq!(r.offset(), pos[0]);
                    for (k, s) in strides.iter().enumerate() {
                        if let Some(s) = s {
                            prop_assert_eq!(r.strides()[k], *s, "stride {} of {:?}", k, r.strides());
                        }
                    }
                }
            }
            None => {
                // No view exists: a contiguous copy.
                prop_assert!(r.is_contiguous());
                prop_assert_eq!(r.offset(), 0);
                prop_assert_eq!(r.strides(), &contiguous_strides(&new)[..]);
            }
        }
    }
}

#[test]
fn reshape_examples() {
    let t = Tensor::<i64, Shape![2, 3]>::from_vec((0..6).collect());
    let r: Tensor<i64, Shape![3, 2]> = t.reshape();
    assert_eq!((r.strides(), r.to_vec()), (&[2, 1][..], (0..6).collect()));
    // A transposed tensor flattens by copying, in logical order.
    let tr = t.transpose::<0, 1>();
    let flat = tr.try_reshape::<Shape![6]>(&[-1]).unwrap();
    assert_eq!(flat.to_vec(), vec![0, 3, 1, 4, 2, 5]);
    assert!(flat.is_contiguous());
    // Splitting a transposed axis is a view.
    let src = Tensor::<i64, Shape![2, 4]>::from_vec((0..8).collect());
    let tr = src.transpose::<0, 1>();
    let split = tr.try_reshape::<Shape![2, 2, 2]>(&[2, 2, 2]).unwrap();
    assert_eq!(split.strides(), &[2, 1, 4]);
    assert_eq!(split.to_vec(), vec![0, 4, 1, 5, 2, 6, 3, 7]);
    // -1 is inferred.
    let r = t.try_reshape::<DynRank>(&[-1, 2, 1]).unwrap();
    assert_eq!(r.dims(), &[3, 2, 1]);
}

#[test]
fn reshape_errors() {
    let t = Tensor::<i64, Shape![2, 3]>::from_vec((0..6).collect());
    let msg = |sizes: &[isize]| t.try_reshape::<DynRank>(sizes).unwrap_err().to_string();
    assert_eq!(
        msg(&[4, 2]),
        "shape '[4, 2]' is invalid for input of size 6"
    );
    assert_eq!(
        msg(&[-1, 4]),
        "shape '[-1, 4]' is invalid for input of size 6"
    );
    assert_eq!(
        msg(&[0, -1]),
        "shape '[0, -1]' is invalid for input of size 6"
    );
    assert_eq!(msg(&[-1, -1]), "only one dimension can be inferred");
    assert_eq!(msg(&[-2, 3]), "invalid shape dimension -2");
    let empty = Tensor::<i64, DynRank>::try_zeros(&[0, 3]).unwrap();
    assert_eq!(
        empty
            .try_reshape::<DynRank>(&[0, -1])
            .unwrap_err()
            .to_string(),
        "cannot reshape tensor of 0 elements into shape [0, -1] because the unspecified dimension size -1 can be any value and is ambiguous"
    );
    assert_eq!(
        empty.try_reshape::<DynRank>(&[3, -1]).unwrap().dims(),
        &[3, 0]
    );
    // The stated result shape is checked.
    assert!(matches!(
        t.try_reshape::<Shape![3, 2]>(&[2, 3]),
        Err(ShapeError::StaticSize { .. })
    ));
}

// ------------------------------------------------------- broadcast_in_dim

/// JAX's rule: `bdims` strictly increasing, one per source axis, inside the
/// result, and each source size 1 or equal to its result size.
fn naive_broadcast_in_dim(src: &[usize], out: &[usize], bdims: &[usize]) -> bool {
    bdims.len() == src.len()
        && bdims.windows(2).all(|w| w[0] < w[1])
        && bdims.iter().all(|&b| b < out.len())
        && src.iter().zip(bdims).all(|(&s, &b)| s == 1 || s == out[b])
}

fn broadcast_in_dim_case() -> impl Strategy<Value = (Vec<usize>, Vec<usize>, Vec<usize>)> {
    (
        shape(3, 3),
        0usize..3,
        any::<u16>(),
        prop::collection::vec(0usize..4, 6),
    )
        .prop_map(|(src, extra, mask, fill)| {
            let rank = src.len() + extra;
            // Choose which result axes the source's axes go to.
            let mut bdims: Vec<usize> = (0..rank).collect();
            let mut m = mask as usize;
            while bdims.len() > src.len() {
                let drop = m % bdims.len();
                m /= bdims.len().max(2);
                bdims.remove(drop);
            }
            let mut out = fill[..rank].to_vec();
            for (i, &b) in bdims.iter().enumerate() {
                if src[i] != 1 || (mask >> 15) & 1 == 1 {
                    out[b] = src[i];
                }
            }
            (src, out, bdims)
        })
}

proptest! {
    #[test]
    fn broadcast_in_dim_matches_the_reference((src_dims, out, bdims) in broadcast_in_dim_case()) {
        let src = Nd::iota(&src_dims);
        prop_assert!(naive_broadcast_in_dim(&src_dims, &out, &bdims));
        let view = src.tensor().broadcast_in_dim::<DynRank>(&out, &bdims).unwrap();
        let want = Nd::from_fn(&out, |idx| {
            let s: Vec<usize> = src_dims
                .iter()
                .zip(&bdims)
                .map(|(&d, &b)| if d == 1 { 0 } else { idx[b] })
                .collect();
            src.get(&s)
        });
        check_view(&src.data, &view, &want);
    }

    #[test]
    fn broadcast_in_dim_rejects_what_jax_rejects(
        src_dims in shape(2, 3),
        out in shape(3, 3),
        bdims in prop::collection::vec(0usize..4, 0..3)
    ) {
        let result = Nd::iota(&src_dims).tensor().broadcast_in_dim::<DynRank>(&out, &bdims);
        prop_assert_eq!(result.is_ok(), naive_broadcast_in_dim(&src_dims, &out, &bdims));
    }
}

#[test]
fn broadcast_in_dim_examples() {
    let t = Tensor::<i64, Shape![3]>::from_vec(vec![1, 2, 3]);
    // Axis 0 of the result: a column, where broadcast_to would make rows.
    let b = t.broadcast_in_dim::<Shape![3, 2]>(&[3, 2], &[0]).unwrap();
    assert_eq!(
        (b.strides(), b.to_vec()),
        (&[1, 0][..], vec![1, 1, 2, 2, 3, 3])
    );
    // The seed's lowering of `(4, 1) + (3,)`.
    let a = Tensor::<i64, Shape![4, 1]>::from_vec(vec![1, 2, 3, 4]);
    let a43 = a
        .broadcast_in_dim::<Shape![4, 3]>(&[4, 3], &[0, 1])
        .unwrap();
    assert_eq!(a43.to_vec(), vec![1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4]);
    let b43 = t.broadcast_in_dim::<Shape![4, 3]>(&[4, 3], &[1]).unwrap();
    assert_eq!(b43.to_vec(), [1, 2, 3].repeat(4));
    assert_eq!(
        t.broadcast_in_dim::<DynRank>(&[4, 2], &[0]).unwrap_err(),
        ShapeError::Expand {
            expanded: 4,
            existing: 3,
            dim: 0,
            target: vec![4, 2],
            tensor: vec![3],
        }
    );
    let m = Tensor::<i64, Shape![2, 2]>::zeros();
    assert!(m.broadcast_in_dim::<DynRank>(&[2, 2, 2], &[1, 0]).is_err());
    assert!(m.broadcast_in_dim::<DynRank>(&[2, 2], &[0]).is_err());
    assert!(m.broadcast_in_dim::<DynRank>(&[2, 2], &[0, 2]).is_err());
}

// ------------------------------------------------- zero sizes and 0-d tensors

#[test]
fn zero_sized_dimensions() {
    let t = Tensor::<i64, DynRank>::try_zeros(&[2, 0, 3]).unwrap();
    assert_eq!(t.numel(), 0);
    assert_eq!(t.strides(), &contiguous_strides(&[2, 0, 3])[..]);
    assert!(
        t.is_contiguous(),
        "an empty tensor is contiguous, as in PyTorch"
    );
    assert_eq!(t.to_vec(), Vec::<i64>::new());
    let p = t.permute::<DynRank>(&[2, 0, 1]).unwrap();
    assert_eq!((p.dims(), p.to_vec()), (&[3, 2, 0][..], vec![]));
    let n = t.narrow::<DynRank>(0, 1, 1).unwrap();
    assert_eq!((n.dims(), n.to_vec()), (&[1, 0, 3][..], vec![]));
    let n = t.narrow::<DynRank>(2, 3, 0).unwrap();
    assert_eq!((n.dims(), n.to_vec()), (&[2, 0, 0][..], vec![]));
    let e = Tensor::<i64, DynRank>::try_zeros(&[0]).unwrap();
    let x = e.expand::<DynRank>(&[4, 0]).unwrap();
    assert_eq!((x.dims(), x.to_vec()), (&[4, 0][..], vec![]));
    assert!(e.expand::<DynRank>(&[3]).is_err());
    let r = t.try_reshape::<DynRank>(&[0, 5]).unwrap();
    assert_eq!((r.dims(), r.to_vec()), (&[0, 5][..], vec![]));
    let u = t.unsqueeze::<3>();
    assert_eq!(u.dims(), &[2, 0, 3, 1]);
    let b = e.broadcast_in_dim::<DynRank>(&[2, 0], &[1]).unwrap();
    assert_eq!((b.dims(), b.to_vec()), (&[2, 0][..], vec![]));
    assert_eq!(t.to_string(), "tensor([], size=(2, 0, 3))");
}

#[test]
fn zero_dimensional_tensors() {
    let s = Tensor::<i64, Shape![]>::full(7);
    assert_eq!(
        (s.dims(), s.strides(), s.numel(), s.item()),
        (&[][..], &[][..], 1, 7)
    );
    let u: Tensor<i64, Shape![1]> = s.unsqueeze::<0>();
    assert_eq!((u.dims(), u.to_vec()), (&[1][..], vec![7]));
    let m: Tensor<i64, Shape![2, 3]> = s.broadcast_to();
    assert_eq!((m.strides(), m.to_vec()), (&[0, 0][..], vec![7; 6]));
    let r: Tensor<i64, Shape![1, 1]> = s.reshape();
    assert_eq!(r.to_vec(), vec![7]);
    let back = r.try_reshape::<Shape![]>(&[]).unwrap();
    assert_eq!(back.item(), 7);
    let d = Tensor::<i64, DynRank>::scalar(7);
    assert_eq!(d.try_reshape::<DynRank>(&[-1]).unwrap().dims(), &[1]);
    assert_eq!(d.permute::<DynRank>(&[]).unwrap().to_vec(), vec![7]);
    assert_eq!(d.expand::<DynRank>(&[]).unwrap().to_vec(), vec![7]);
    assert_eq!(d.expand::<DynRank>(&[2]).unwrap().to_vec(), vec![7, 7]);
    assert_eq!(d.try_item().unwrap(), 7);
    assert_eq!(
        Nd::iota(&[2]).tensor().try_item().unwrap_err().to_string(),
        "a Tensor with 2 elements cannot be converted to Scalar"
    );
    assert_eq!(d.to_string(), "tensor(7)");
}

// ------------------------------------------------------------ constructors

#[test]
fn from_vec_checks_the_length() {
    let e = Tensor::<f32, Shape![_, 3]>::try_from_vec(vec![0.; 5], &[2, 3]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "shape '[2, 3]' is invalid for input of size 5"
    );
    let e = Tensor::<f32, DynRank>::try_from_vec(vec![0.; 7], &[2, 3]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "shape '[2, 3]' is invalid for input of size 7"
    );
    let e = Tensor::<f32, Shape![_, 3]>::try_from_vec(vec![0.; 8], &[2, 4]).unwrap_err();
    assert!(matches!(e, ShapeError::StaticSize { dim: 1, .. }));
    let t = Tensor::<f32, DynRank>::try_from_vec(vec![1., 2., 3., 4., 5., 6.], &[3, 2]).unwrap();
    assert_eq!(
        (t.strides(), t.offset(), t.is_contiguous()),
        (&[2, 1][..], 0, true)
    );
}

#[test]
#[should_panic(expected = "shape '[2, 3]' is invalid for input of size 5")]
fn from_vec_panics_with_pytorch_message() {
    let _ = Tensor::<f32, Shape![2, 3]>::from_vec(vec![0.; 5]);
}

#[test]
fn filled_constructors() {
    assert_eq!(Tensor::<f32, Shape![2, 2]>::zeros().to_vec(), vec![0.; 4]);
    assert_eq!(Tensor::<i32, Shape![3]>::ones().to_vec(), vec![1; 3]);
    assert_eq!(Tensor::<u8, Shape![2]>::full(9).to_vec(), vec![9, 9]);
    assert_eq!(Tensor::<bool, Shape![2]>::zeros().to_vec(), vec![false; 2]);
    assert_eq!(
        Tensor::<f64, DynRank>::try_full(&[2, 1], 2.5)
            .unwrap()
            .to_vec(),
        vec![2.5; 2]
    );
    assert!(Tensor::<f64, Shape![_, 2]>::try_ones(&[2, 3]).is_err());
    // PyTorch: torch.zeros(2**62, 2, dtype=torch.uint8) (an allocation's error).
    assert_eq!(
        Tensor::<u8, DynRank>::try_zeros(&[1 << 62, 2])
            .unwrap_err()
            .to_string(),
        "Storage size calculation overflowed with sizes=[4611686018427387904, 2]"
    );
}

#[test]
fn arange_values_follow_torch() {
    // torch.arange(0, 5, 2), torch.arange(10, 0, -3), torch.arange(0, 0, 1)
    let v = |s, e, st| Tensor::<i64, _>::arange(s, e, st).unwrap().to_vec();
    assert_eq!(v(0, 5, 2), vec![0, 2, 4]);
    assert_eq!(v(0, 6, 2), vec![0, 2, 4]);
    assert_eq!(v(10, 0, -3), vec![10, 7, 4, 1]);
    assert_eq!(v(0, 0, 1), Vec::<i64>::new());
    assert_eq!(v(-3, 3, 1), vec![-3, -2, -1, 0, 1, 2]);
    // torch.arange(1, 2.5, 0.5), torch.arange(-1, 1, 0.5), torch.arange(1., 2., 0.25)
    let f = |s, e, st| Tensor::<f64, _>::arange(s, e, st).unwrap().to_vec();
    assert_eq!(f(1.0, 2.5, 0.5), vec![1.0, 1.5, 2.0]);
    assert_eq!(f(-1.0, 1.0, 0.5), vec![-1.0, -0.5, 0.0, 0.5]);
    assert_eq!(f(1.0, 2.0, 0.25), vec![1.0, 1.25, 1.5, 1.75]);
    // torch.arange(0, 1, 0.1, dtype=torch.float64): 10 elements, each
    // start + i * step (0.30000000000000004, not 0.3).
    let t = f(0.0, 1.0, 0.1);
    assert_eq!(t.len(), 10);
    assert_eq!(t[3], 0.30000000000000004);
    for (i, x) in t.iter().enumerate() {
        assert_eq!(*x, i as f64 * 0.1);
    }
    assert_eq!(
        Tensor::<i64, _>::arange(0, 5, 0).unwrap_err().to_string(),
        "step must be nonzero"
    );
    assert_eq!(
        Tensor::<i64, _>::arange(5, 0, 1).unwrap_err().to_string(),
        "upper bound and lower bound inconsistent with step sign"
    );
}

#[test]
fn linspace_values_follow_torch() {
    let v = |s, e, n| Tensor::<f64, _>::linspace(s, e, n).to_vec();
    assert_eq!(v(0.0, 1.0, 5), vec![0.0, 0.25, 0.5, 0.75, 1.0]);
    assert_eq!(v(-1.0, 1.0, 3), vec![-1.0, 0.0, 1.0]);
    assert_eq!(v(1.0, 0.0, 3), vec![1.0, 0.5, 0.0]);
    assert_eq!(v(3.0, 7.0, 1), vec![3.0]);
    assert_eq!(v(0.0, 1.0, 0), Vec::<f64>::new());
    assert_eq!(
        v(0.0, 10.0, 11),
        (0..=10).map(f64::from).collect::<Vec<_>>()
    );
    // Both ends exact, the rest within an ulp of start + i * step.
    let t = Tensor::<f32, _>::linspace(0.0, 1.0, 10).to_vec();
    assert_eq!((t[0], t[9]), (0.0, 1.0));
    for (i, x) in t.iter().enumerate() {
        let want = i as f32 / 9.0;
        assert!((x - want).abs() <= f32::EPSILON, "{x} vs {want}");
    }
}

#[test]
fn rand_is_reproducible_and_in_the_unit_interval() {
    let a = Tensor::<f32, DynRank>::try_rand(&[100, 100], 42)
        .unwrap()
        .to_vec();
    let b = Tensor::<f32, DynRank>::try_rand(&[100, 100], 42)
        .unwrap()
        .to_vec();
    let c = Tensor::<f32, DynRank>::try_rand(&[100, 100], 43)
        .unwrap()
        .to_vec();
    assert_eq!(a, b);
    assert_ne!(a, c);
    assert!(a.iter().all(|&x| (0.0..1.0).contains(&x)));
    let mean = a.iter().map(|&x| f64::from(x)).sum::<f64>() / a.len() as f64;
    assert!((mean - 0.5).abs() < 0.02, "mean {mean}");
    // The values are spread over the interval, not stuck in part of it.
    let mut buckets = [0usize; 10];
    for &x in &a {
        buckets[(x * 10.0) as usize] += 1;
    }
    assert!(
        buckets.iter().all(|&n| (800..1200).contains(&n)),
        "{buckets:?}"
    );
    // The static form draws the same numbers as the dynamic one.
    let s = Tensor::<f32, Shape![100, 100]>::rand(42).to_vec();
    assert_eq!(s, a);
    let d = Tensor::<f64, DynRank>::try_rand(&[1000], 7)
        .unwrap()
        .to_vec();
    assert!(d.iter().all(|&x| (0.0..1.0).contains(&x)));
    assert_eq!(d, Tensor::<f64, Shape![1000]>::rand(7).to_vec());
}

#[test]
fn randn_is_reproducible_and_standard() {
    let a = Tensor::<f64, DynRank>::try_randn(&[20_000], 3)
        .unwrap()
        .to_vec();
    assert_eq!(
        a,
        Tensor::<f64, DynRank>::try_randn(&[20_000], 3)
            .unwrap()
            .to_vec()
    );
    let n = a.len() as f64;
    let mean = a.iter().sum::<f64>() / n;
    let var = a.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
    assert!(
        mean.abs() < 0.03 && (var - 1.0).abs() < 0.05,
        "mean {mean}, var {var}"
    );
    assert!(a.iter().all(|x| x.is_finite()));
}
