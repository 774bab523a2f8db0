//! Indexing, joining and masked operations against naive references written
//! here from the definitions (flat buffers and multi-index arithmetic), over
//! seeded random shapes with zero-size dimensions, negative indices, and
//! non-contiguous (permuted, stepped, expanded) inputs.

use shaped::{DynRank, Shape, Tensor, index, try_index};

mod common;

use common::SplitMix as Rng;

/// Random sizes and values for the index tests.
trait Draw {
    fn dims(&mut self, rank: usize, max: usize) -> Vec<usize>;
    fn values(&mut self, n: usize) -> Vec<i64>;
}

impl Draw for Rng {
    fn dims(&mut self, rank: usize, max: usize) -> Vec<usize> {
        (0..rank).map(|_| self.below(max + 1)).collect()
    }
    fn values(&mut self, n: usize) -> Vec<i64> {
        (0..n).map(|_| self.below(19) as i64 - 9).collect()
    }
}

fn numel(d: &[usize]) -> usize {
    d.iter().product()
}

/// The multi-index of linear position `lin` in `dims`.
fn unravel(mut lin: usize, dims: &[usize]) -> Vec<usize> {
    let mut c = vec![0; dims.len()];
    for k in (0..dims.len()).rev() {
        c[k] = lin % dims[k];
        lin /= dims[k];
    }
    c
}

/// The linear position of `c` in `dims`.
fn ravel(c: &[usize], dims: &[usize]) -> usize {
    c.iter().zip(dims).fold(0, |acc, (&x, &d)| acc * d + x)
}

fn dyn_tensor<T: shaped::element::Element>(data: Vec<T>, dims: &[usize]) -> Tensor<T, DynRank> {
    Tensor::try_from_vec(data, dims).unwrap()
}

/// The same logical tensor laid out with its axes reversed in memory.
fn permuted<T: shaped::element::Element>(data: &[T], dims: &[usize]) -> Tensor<T, DynRank> {
    let rev: Vec<usize> = dims.iter().rev().copied().collect();
    let buf: Vec<T> = (0..numel(dims))
        .map(|lin| {
            let mut c = unravel(lin, &rev);
            c.reverse();
            data[ravel(&c, dims)]
        })
        .collect();
    let perm: Vec<isize> = (0..dims.len() as isize).rev().collect();
    dyn_tensor(buf, &rev).permute::<DynRank>(&perm).unwrap()
}

// ---------------------------------------------------------------- indexing

/// One entry of a reference index: `Int(i)` or `Range(start, end, step)`
/// already resolved against the size (Python's rules).
#[derive(Clone, Copy, Debug)]
enum Entry {
    Int(isize),
    Range(Option<isize>, Option<isize>, usize),
}

/// Python's slice resolution for a positive step.
fn resolve(size: usize, start: Option<isize>, end: Option<isize>, step: usize) -> Vec<usize> {
    let n = size as isize;
    let fix = |v: isize| if v < 0 { (v + n).max(0) } else { v.min(n) };
    let (s, e) = (start.map_or(0, fix), end.map_or(n, fix));
    (s..e).step_by(step).map(|x| x as usize).collect()
}

/// The reference result of indexing `data` (sizes `dims`) with `entries`.
fn ref_index(data: &[i64], dims: &[usize], entries: &[Entry]) -> (Vec<usize>, Vec<i64>) {
    let mut picks: Vec<Vec<usize>> = Vec::new();
    let mut out_dims = Vec::new();
    for (k, &size) in dims.iter().enumerate() {
        match entries.get(k) {
            Some(Entry::Int(i)) => {
                let p = if *i < 0 {
                    (*i + size as isize) as usize
                } else {
                    *i as usize
                };
                picks.push(vec![p]);
            }
            Some(Entry::Range(s, e, st)) => {
                let r = resolve(size, *s, *e, *st);
                out_dims.push(r.len());
                picks.push(r);
            }
            None => {
                out_dims.push(size);
                picks.push((0..size).collect());
            }
        }
    }
    let counts: Vec<usize> = picks.iter().map(Vec::len).collect();
    let out = (0..numel(&counts))
        .map(|lin| {
            let c = unravel(lin, &counts);
            let src: Vec<usize> = c.iter().enumerate().map(|(k, &x)| picks[k][x]).collect();
            data[ravel(&src, dims)]
        })
        .collect();
    (out_dims, out)
}

#[test]
fn index_macro_matches_reference() {
    let data: Vec<i64> = (0..120).collect();
    let dims = [4, 5, 6];
    let t = Tensor::<i64, Shape![4, 5, 6]>::from_vec(data.clone());
    let tp = permuted(&data, &dims);
    use Entry::*;
    let check = |got: Vec<i64>, got_dims: &[usize], entries: &[Entry]| {
        let (want_dims, want) = ref_index(&data, &dims, entries);
        assert_eq!((got_dims, got), (&want_dims[..], want), "{entries:?}");
    };
    let a: Tensor<i64, Shape![4, _]> = index!(t, .., 2, 1..3);
    check(
        a.to_vec(),
        a.dims(),
        &[Range(None, None, 1), Int(2), Range(Some(1), Some(3), 1)],
    );
    let b: Tensor<i64, Shape![5, 6]> = index!(t, -1);
    check(b.to_vec(), b.dims(), &[Int(-1)]);
    let c: Tensor<i64, Shape![_, 5]> = index!(t, 1..=-2, .., -6);
    check(
        c.to_vec(),
        c.dims(),
        &[Range(Some(1), Some(-1), 1), Range(None, None, 1), Int(-6)],
    );
    let d: Tensor<i64, Shape![_, _, _]> = index!(t, ..;3, -3.., 1..100;2);
    check(
        d.to_vec(),
        d.dims(),
        &[
            Range(None, None, 3),
            Range(Some(-3), None, 1),
            Range(Some(1), Some(100), 2),
        ],
    );
    let e: Tensor<i64, Shape![]> = index!(t, 3, 4, 5);
    assert_eq!(e.item(), 119);
    let f: Tensor<i64, Shape![_, 6]> = index!(t, 2, -100..2,);
    check(
        f.to_vec(),
        f.dims(),
        &[Int(2), Range(Some(-100), Some(2), 1)],
    );
    let empty: Tensor<i64, Shape![_, 5, 6]> = index!(t, 3..1);
    assert_eq!(empty.dims(), &[0, 5, 6]);
    // The same on a permuted view of dynamic rank.
    for entries in [
        vec![Int(1), Range(Some(-2), None, 1)],
        vec![Range(None, None, 2), Int(-5), Range(Some(5), Some(0), 1)],
    ] {
        let got = match entries.as_slice() {
            [Int(i), Range(s, None, 1)] => try_index!(tp, *i, s.unwrap()..).unwrap(),
            _ => try_index!(tp, ..;2, -5, 5..0).unwrap(),
        };
        check(got.to_vec(), got.dims(), &entries);
    }
}

#[test]
fn indexing_gives_views() {
    let t = Tensor::<f32, Shape![2, 3]>::zeros();
    let mut row = index!(t, 1);
    row.fill_(5.0);
    let mut col = index!(t, .., 0..3;2);
    col.fill_(1.0);
    assert_eq!(t.to_vec(), vec![1., 0., 1., 1., 5., 1.]);
    assert_eq!(col.strides(), &[3, 2]);
}

#[test]
fn bad_integer_indices_name_index_and_size() {
    let t = Tensor::<i32, Shape![3, 4]>::zeros();
    let e = try_index!(t, 3).err().unwrap();
    assert_eq!(
        e.to_string(),
        "index 3 is out of bounds for dimension 0 with size 3"
    );
    let e = try_index!(t, .., -5).err().unwrap();
    assert_eq!(
        e.to_string(),
        "index -5 is out of bounds for dimension 1 with size 4"
    );
    let e = t.try_select::<1>(4).err().unwrap();
    assert_eq!(
        e.to_string(),
        "index 4 is out of bounds for dimension 1 with size 4"
    );
    let d = t.clone().into_dyn();
    assert_eq!(
        try_index!(d, 0, 0, 0).err().unwrap().to_string(),
        "too many indices for tensor of dimension 2"
    );
    let s = Tensor::<i32, DynRank>::scalar(1);
    assert!(
        try_index!(s, 0)
            .err()
            .unwrap()
            .to_string()
            .starts_with("invalid index of a 0-dim tensor")
    );
    assert!(t.try_slice_step::<0>(.., 0).is_err());
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| index!(t, 7)));
    assert!(r.is_err());
}

// ---------------------------------------------------------------- joining

#[test]
fn cat_and_stack_match_reference() {
    let mut rng = Rng(1);
    for trial in 0..60 {
        let rank = 1 + rng.below(3);
        let dim = rng.below(rank);
        let base = rng.dims(rank, 3);
        let parts: Vec<(Vec<usize>, Vec<i64>)> = (0..1 + rng.below(3))
            .map(|_| {
                let mut d = base.clone();
                d[dim] = rng.below(4);
                let v = rng.values(numel(&d));
                (d, v)
            })
            .collect();
        // Reference: walk the output and find which part each position is in.
        let mut out_dims = base.clone();
        out_dims[dim] = parts.iter().map(|p| p.0[dim]).sum();
        let want: Vec<i64> = (0..numel(&out_dims))
            .map(|lin| {
                let mut c = unravel(lin, &out_dims);
                for (d, v) in &parts {
                    if c[dim] < d[dim] {
                        return v[ravel(&c, d)];
                    }
                    c[dim] -= d[dim];
                }
                unreachable!()
            })
            .collect();
        let tensors: Vec<Tensor<i64, DynRank>> = parts
            .iter()
            .map(|(d, v)| {
                if trial % 2 == 0 {
                    dyn_tensor(v.clone(), d)
                } else {
                    permuted(v, d)
                }
            })
            .collect();
        let refs: Vec<&Tensor<i64, DynRank>> = tensors.iter().collect();
        let got = match dim {
            0 => Tensor::try_cat::<0>(&refs),
            1 => Tensor::try_cat::<1>(&refs),
            _ => Tensor::try_cat::<2>(&refs),
        }
        .unwrap();
        assert_eq!(
            (got.dims(), got.to_vec()),
            (&out_dims[..], want),
            "trial {trial}"
        );

        // stack of equal parts: out[.., i, ..] = part i.
        let same: Vec<Tensor<i64, DynRank>> = (0..3).map(|_| tensors[0].clone()).collect();
        let srefs: Vec<&Tensor<i64, DynRank>> = same.iter().collect();
        let s = Tensor::try_stack::<0>(&srefs).unwrap();
        let mut sd = parts[0].0.clone();
        sd.insert(0, 3);
        let swant: Vec<i64> = (0..3).flat_map(|_| parts[0].1.clone()).collect();
        assert_eq!((s.dims(), s.to_vec()), (&sd[..], swant));
    }
}

#[test]
fn join_errors_are_pytorchs() {
    let a = Tensor::<f32, Shape![2, _]>::try_zeros(&[2, 1])
        .unwrap()
        .into_dyn();
    let b = Tensor::<f32, DynRank>::try_zeros(&[3, 2]).unwrap();
    let c = Tensor::<f32, DynRank>::try_zeros(&[3]).unwrap();
    assert_eq!(
        Tensor::try_cat::<1>(&[&a, &b]).err().unwrap().to_string(),
        "Sizes of tensors must match except in dimension 1. Expected size 2 but got size 3 for tensor number 1 in the list."
    );
    assert_eq!(
        Tensor::try_cat::<0>(&[&a, &c]).err().unwrap().to_string(),
        "Tensors must have same number of dimensions: got 2 and 1"
    );
    let none: [&Tensor<f32, DynRank>; 0] = [];
    assert_eq!(
        Tensor::try_cat::<0>(&none).err().unwrap().to_string(),
        "torch.cat(): expected a non-empty list of Tensors"
    );
    assert_eq!(
        Tensor::try_stack::<0>(&none).err().unwrap().to_string(),
        "stack expects a non-empty TensorList"
    );
    assert_eq!(
        Tensor::try_stack::<0>(&[&a, &b]).err().unwrap().to_string(),
        "stack expects each tensor to be equal size, but got [2, 1] at entry 0 and [3, 2] at entry 1"
    );
    let s = Tensor::<f32, DynRank>::scalar(1.0);
    assert_eq!(
        Tensor::try_cat::<0>(&[&s, &s]).err().unwrap().to_string(),
        "zero-dimensional tensor (at position 0) cannot be concatenated"
    );
    assert!(Tensor::try_cat::<2>(&[&a, &a]).is_err());
}

#[test]
fn cat_with_unifies_static_sizes() {
    let a = Tensor::<i32, Shape![2, 3]>::from_vec((0..6).collect());
    let b = Tensor::<i32, Shape![_, 3]>::try_from_vec((6..9).collect(), &[1, 3]).unwrap();
    let c: Tensor<i32, Shape![_, 3]> = a.cat_with::<0, _>(&b);
    assert_eq!(c.to_vec(), (0..9).collect::<Vec<_>>());
    let d: Tensor<i32, Shape![2, _]> =
        a.cat_with::<1, _>(&a.transpose::<0, 1>().transpose::<0, 1>());
    assert_eq!(d.to_vec(), vec![0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5]);
    // `One` against 2 is a compile error (ui-tests/index/cat_with_no_broadcast.rs);
    // a `Dyn` 1 against 2 is refused at run time: cat does not broadcast.
    let one = Tensor::<i32, Shape![_, 3]>::try_zeros(&[1, 3]).unwrap();
    assert_eq!(
        one.try_cat_with::<1, _>(&a).unwrap_err().to_string(),
        "Sizes of tensors must match except in dimension 1. Expected size 1 but got size 2 for tensor number 1 in the list."
    );
}

#[test]
fn split_and_chunk_invert_cat() {
    let mut rng = Rng(2);
    for _ in 0..40 {
        let dims = rng.dims(2, 6);
        let data = rng.values(numel(&dims));
        let t = permuted(&data, &dims);
        let size = rng.below(4);
        let parts = if dims[1] == 0 && size == 0 {
            t.try_split::<1>(0).unwrap()
        } else {
            match t.try_split::<1>(size) {
                Ok(p) => p,
                Err(e) => {
                    assert!(size == 0 && dims[1] > 0, "{e}");
                    continue;
                }
            }
        };
        let lens: Vec<usize> = parts.iter().map(|p| p.dims()[1]).collect();
        if size > 0 {
            assert!(
                lens[..lens.len() - 1].iter().all(|&l| l == size),
                "{lens:?}"
            );
        }
        let refs: Vec<_> = parts.iter().collect();
        assert_eq!(Tensor::try_cat::<1>(&refs).unwrap().to_vec(), data);
        let chunks = 1 + rng.below(4);
        let c = t.try_chunk::<0>(chunks).unwrap();
        let per = dims[0].div_ceil(chunks);
        assert!(c.len() <= chunks && c.iter().all(|p| p.dims()[0] <= per));
        let crefs: Vec<_> = c.iter().collect();
        assert_eq!(Tensor::try_cat::<0>(&crefs).unwrap().to_vec(), data);
    }
}

// ---------------------------------------------------------------- gather family

/// Reference gather: `out[c] = src[c with dim <- index[c]]`.
fn ref_gather(src: &[i64], sd: &[usize], dim: usize, idx: &[i64], id: &[usize]) -> Vec<i64> {
    (0..numel(id))
        .map(|lin| {
            let mut c = unravel(lin, id);
            c[dim] = idx[lin] as usize;
            src[ravel(&c, sd)]
        })
        .collect()
}

/// Reference scatter: `out[c with dim <- index[c]] op= src[c]`, row-major.
fn ref_scatter(
    (out, od): (&mut [i64], &[usize]),
    dim: usize,
    (idx, id): (&[i64], &[usize]),
    (src, sd): (&[i64], &[usize]),
    add: bool,
) {
    for (lin, &i) in idx.iter().enumerate() {
        let c = unravel(lin, id);
        let v = src[ravel(&c, sd)];
        let mut oc = c.clone();
        oc[dim] = i as usize;
        let o = ravel(&oc, od);
        out[o] = if add { out[o] + v } else { v };
    }
}

/// Random (self dims, dim, index dims no larger away from dim).
fn gather_shapes(rng: &mut Rng) -> (Vec<usize>, usize, Vec<usize>) {
    let rank = 1 + rng.below(3);
    let sd = rng.dims(rank, 4);
    let dim = rng.below(rank);
    let id: Vec<usize> = sd
        .iter()
        .enumerate()
        .map(|(k, &s)| {
            if k == dim {
                rng.below(5)
            } else {
                rng.below(s + 1)
            }
        })
        .collect();
    (sd, dim, id)
}

#[test]
fn gather_and_scatter_match_reference() {
    let mut rng = Rng(3);
    let mut compared = 0;
    for trial in 0..300 {
        let (sd, dim, id) = gather_shapes(&mut rng);
        if sd[dim] == 0 && numel(&id) > 0 {
            continue;
        }
        let src = rng.values(numel(&sd));
        let idx: Vec<i64> = (0..numel(&id)).map(|_| rng.below(sd[dim]) as i64).collect();
        let (t, it) = if trial % 2 == 0 {
            (dyn_tensor(src.clone(), &sd), dyn_tensor(idx.clone(), &id))
        } else {
            (permuted(&src, &sd), permuted(&idx, &id))
        };
        // Negative dims count from the end.
        let d = if trial % 3 == 0 {
            dim as isize - sd.len() as isize
        } else {
            dim as isize
        };
        let g = t.try_gather(d, &it).unwrap();
        assert_eq!(
            (g.dims(), g.to_vec()),
            (&id[..], ref_gather(&src, &sd, dim, &idx, &id))
        );

        // scatter_add_ / scatter_ with src at least the index's size.
        let srd: Vec<usize> = id.iter().map(|&x| x + rng.below(2)).collect();
        let sv = rng.values(numel(&srd));
        let st = if trial % 2 == 0 {
            dyn_tensor(sv.clone(), &srd)
        } else {
            permuted(&sv, &srd)
        };
        for add in [true, false] {
            let mut want = src.clone();
            ref_scatter((&mut want, &sd), dim, (&idx, &id), (&sv, &srd), add);
            let mut out = if trial % 2 == 0 {
                dyn_tensor(src.clone(), &sd)
            } else {
                permuted(&src, &sd)
            };
            if add {
                out.try_scatter_add_(d, &it, &st).unwrap();
            } else {
                out.try_scatter_(d, &it, &st).unwrap();
            }
            assert_eq!(out.to_vec(), want, "trial {trial} add {add}");
        }
        compared += 1;
    }
    assert!(compared > 200);
}

#[test]
fn index_select_add_copy_match_reference() {
    let mut rng = Rng(4);
    for trial in 0..200 {
        let rank = 1 + rng.below(3);
        let sd = rng.dims(rank, 4);
        let dim = rng.below(rank);
        if sd[dim] == 0 {
            continue;
        }
        let n = rng.below(5);
        let idx: Vec<i64> = (0..n).map(|_| rng.below(sd[dim]) as i64).collect();
        let src = rng.values(numel(&sd));
        let t = if trial % 2 == 0 {
            dyn_tensor(src.clone(), &sd)
        } else {
            permuted(&src, &sd)
        };
        // A stepped (non-contiguous) index vector.
        let mut spaced = vec![-7i64; 2 * n];
        for (i, &v) in idx.iter().enumerate() {
            spaced[2 * i] = v;
        }
        let iv = Tensor::<i64, Shape![_]>::try_from_vec(spaced, &[2 * n])
            .unwrap()
            .slice_step::<0>(.., 2);
        let mut od = sd.clone();
        od[dim] = n;
        let want: Vec<i64> = (0..numel(&od))
            .map(|lin| {
                let mut c = unravel(lin, &od);
                c[dim] = idx[c[dim]] as usize;
                src[ravel(&c, &sd)]
            })
            .collect();
        let got = match dim {
            0 => t.try_index_select::<0, _>(&iv).unwrap(),
            1 => t.try_index_select::<1, _>(&iv).unwrap(),
            _ => t.try_index_select::<2, _>(&iv).unwrap(),
        };
        assert_eq!((got.dims(), got.to_vec()), (&od[..], want));

        // index_add_ / index_copy_: slice i of source goes to slice idx[i].
        let source = rng.values(numel(&od));
        let st = permuted(&source, &od);
        for add in [true, false] {
            let mut want = src.clone();
            for (lin, &v) in source.iter().enumerate() {
                let mut c = unravel(lin, &od);
                c[dim] = idx[c[dim]] as usize;
                let o = ravel(&c, &sd);
                want[o] = if add { want[o] + v } else { v };
            }
            let mut out = t.deep_copy();
            if add {
                out.try_index_add_(dim as isize, &iv, &st).unwrap();
            } else {
                out.try_index_copy_(dim as isize, &iv, &st).unwrap();
            }
            assert_eq!(out.to_vec(), want, "trial {trial} add {add}");
        }
    }
}

#[test]
fn take_along_dim_broadcasts_away_from_dim() {
    let mut rng = Rng(5);
    for _ in 0..100 {
        let sd: Vec<usize> = rng.dims(3, 3).into_iter().map(|d| d.max(1)).collect();
        let dim = rng.below(3);
        // Each non-dim axis: 1 on one side or the other, or equal.
        let mut a = sd.clone();
        let mut b = sd.clone();
        for k in 0..3 {
            if k == dim {
                b[k] = rng.below(4);
            } else {
                match rng.below(3) {
                    0 => a[k] = 1,
                    1 => b[k] = 1,
                    _ => {}
                }
            }
        }
        let src = rng.values(numel(&a));
        let idx: Vec<i64> = (0..numel(&b)).map(|_| rng.below(a[dim]) as i64).collect();
        let mut od: Vec<usize> = (0..3).map(|k| a[k].max(b[k])).collect();
        od[dim] = b[dim];
        let want: Vec<i64> = (0..numel(&od))
            .map(|lin| {
                let c = unravel(lin, &od);
                let ic: Vec<usize> = (0..3).map(|k| if b[k] == 1 { 0 } else { c[k] }).collect();
                let mut scd: Vec<usize> =
                    (0..3).map(|k| if a[k] == 1 { 0 } else { c[k] }).collect();
                scd[dim] = idx[ravel(&ic, &b)] as usize;
                src[ravel(&scd, &a)]
            })
            .collect();
        let (t, it) = (permuted(&src, &a), permuted(&idx, &b));
        let got = match dim {
            0 => t.try_take_along_dim::<0, _>(&it).unwrap(),
            1 => t.try_take_along_dim::<1, _>(&it).unwrap(),
            _ => t.try_take_along_dim::<2, _>(&it).unwrap(),
        };
        assert_eq!(
            (got.dims(), got.to_vec()),
            (&od[..], want),
            "a {a:?} b {b:?} dim {dim}"
        );
    }
    // Static shapes: the result type is computed.
    let t = Tensor::<i32, Shape![2, 3]>::from_vec(vec![1, 2, 3, 4, 5, 6]);
    let i = Tensor::<i64, Shape![1, 4]>::from_vec(vec![2, 2, 1, 0]);
    let r: Tensor<i32, Shape![2, 4]> = t.take_along_dim::<1, _>(&i);
    assert_eq!(r.to_vec(), vec![3, 3, 2, 1, 6, 6, 5, 4]);
    let bad = Tensor::<i64, Shape![1, 1]>::from_vec(vec![3]);
    assert_eq!(
        t.try_take_along_dim::<1, _>(&bad)
            .err()
            .unwrap()
            .to_string(),
        "index 3 is out of bounds for dimension 1 with size 3"
    );
}

#[test]
fn expanded_inputs_and_index() {
    // Index expanded from (2, 1) to (2, 3): stride 0.
    let t = Tensor::<i32, Shape![2, 3]>::from_vec(vec![1, 2, 3, 4, 5, 6]);
    let base = Tensor::<i64, Shape![2, 1]>::from_vec(vec![2, 0]);
    let idx: Tensor<i64, Shape![2, 3]> = base.broadcast_to();
    assert_eq!(t.gather(1, &idx).to_vec(), vec![3, 3, 3, 4, 4, 4]);
    // An expanded source reads repeated elements.
    let row = Tensor::<i32, Shape![3]>::from_vec(vec![7, 8, 9]);
    let src: Tensor<i32, Shape![2, 3]> = row.broadcast_to();
    let i2 = Tensor::<i64, Shape![2, 2]>::from_vec(vec![2, 0, 1, 1]);
    assert_eq!(src.gather(1, &i2).to_vec(), vec![9, 7, 8, 8]);
    // Writing into an expanded tensor is refused, as PyTorch refuses it.
    let mut e: Tensor<i32, Shape![2, 3]> = row.broadcast_to();
    let one = Tensor::<i64, Shape![1, 1]>::from_vec(vec![0]);
    assert!(
        e.try_scatter_(1, &one, &t)
            .err()
            .unwrap()
            .to_string()
            .starts_with("unsupported operation")
    );
    let mut e2: Tensor<i32, Shape![2, 3]> = row.broadcast_to();
    assert!(
        e2.try_index_add_(
            0,
            &Tensor::<i64, Shape![1]>::from_vec(vec![0]),
            &row.unsqueeze::<0>()
        )
        .is_err()
    );
}

#[test]
fn scatter_reads_its_own_storage_as_before_the_write() {
    // src is a view of the tensor being written: it is read as it was.
    let mut t = Tensor::<i32, Shape![4]>::from_vec(vec![1, 2, 3, 4]);
    let view = t.share();
    let idx = Tensor::<i64, Shape![4]>::from_vec(vec![3, 2, 1, 0]);
    t.scatter_(0, &idx, &view);
    assert_eq!(t.to_vec(), vec![4, 3, 2, 1]);
    // An i64 tensor indexed by (a view of) itself.
    let mut s = Tensor::<i64, Shape![3]>::from_vec(vec![2, 0, 1]);
    let same = s.share();
    s.scatter_add_(
        0,
        &same,
        &Tensor::<i64, Shape![3]>::from_vec(vec![10, 20, 30]),
    );
    assert_eq!(s.to_vec(), vec![22, 30, 11]);
}

#[test]
fn bad_index_values_write_nothing() {
    let mut t = Tensor::<f32, Shape![2, 3]>::zeros();
    let idx = Tensor::<i64, Shape![2, 3]>::from_vec(vec![0, 1, 2, 0, -1, 2]);
    let src = Tensor::<f32, Shape![2, 3]>::ones();
    let e = t.try_scatter_add_(1, &idx, &src).err().unwrap();
    assert_eq!(
        e.to_string(),
        "index -1 is out of bounds for dimension 1 with size 3"
    );
    assert_eq!(t.to_vec(), vec![0.0; 6]);
    let i32_idx = Tensor::<i32, Shape![1, 1]>::from_vec(vec![i32::MAX]);
    assert_eq!(
        t.try_gather(0, &i32_idx).err().unwrap().to_string(),
        format!(
            "index {} is out of bounds for dimension 0 with size 2",
            i32::MAX
        )
    );
    let big = Tensor::<i64, Shape![1]>::from_vec(vec![i64::MIN]);
    assert!(t.try_index_select::<0, _>(&big).is_err());
}

#[test]
fn large_inputs_take_the_parallel_path() {
    // More elements than the plan's parallel grain: the threaded loops.
    let (rows, cols) = (300, 257);
    let mut rng = Rng(6);
    let src = rng.values(rows * cols);
    let idx: Vec<i64> = (0..rows * cols).map(|_| rng.below(cols) as i64).collect();
    let t = permuted(&src, &[rows, cols]);
    let it = dyn_tensor(idx.clone(), &[rows, cols]);
    assert_eq!(
        t.try_gather(1, &it).unwrap().to_vec(),
        ref_gather(&src, &[rows, cols], 1, &idx, &[rows, cols])
    );
    let mut want = vec![0; rows * cols];
    ref_scatter(
        (&mut want, &[rows, cols]),
        1,
        (&idx, &[rows, cols]),
        (&src, &[rows, cols]),
        true,
    );
    let mut out = dyn_tensor(vec![0i64; rows * cols], &[rows, cols]);
    out.try_scatter_add_(1, &it, &t).unwrap();
    assert_eq!(out.to_vec(), want);
    // Many lines of one element each, along dim 0.
    let idx0: Vec<i64> = (0..rows * cols).map(|_| rng.below(rows) as i64).collect();
    let it0 = dyn_tensor(idx0.clone(), &[rows, cols]);
    let mut want0 = vec![0; rows * cols];
    ref_scatter(
        (&mut want0, &[rows, cols]),
        0,
        (&idx0, &[rows, cols]),
        (&src, &[rows, cols]),
        true,
    );
    let mut out0 = dyn_tensor(vec![0i64; rows * cols], &[rows, cols]);
    out0.try_scatter_add_(0, &it0, &t).unwrap();
    assert_eq!(out0.to_vec(), want0);
}

// ---------------------------------------------------------------- masked

#[test]
fn masked_ops_match_reference() {
    let mut rng = Rng(7);
    for trial in 0..100 {
        // self (a) and mask (m) broadcast together; in place, the mask must
        // expand to a.
        let rank = 1 + rng.below(3);
        let full = rng.dims(rank, 3);
        let a: Vec<usize> = full
            .iter()
            .map(|&d| if rng.below(3) == 0 { 1 } else { d })
            .collect();
        let m: Vec<usize> = full
            .iter()
            .map(|&d| if rng.below(3) == 0 { 1 } else { d })
            .collect();
        let out: Vec<usize> = a
            .iter()
            .zip(&m)
            .map(|(&x, &y)| if x == 1 { y } else { x })
            .collect();
        let av = rng.values(numel(&a));
        let mv: Vec<bool> = (0..numel(&m)).map(|_| rng.below(2) == 1).collect();
        let at = permuted(&av, &a);
        let mt = if trial % 2 == 0 {
            permuted(&mv, &m)
        } else {
            dyn_tensor(mv.clone(), &m)
        };
        let pick = |d: &[usize], c: &[usize]| -> Vec<usize> {
            c.iter()
                .zip(d)
                .map(|(&x, &s)| if s == 1 { 0 } else { x })
                .collect()
        };
        let filled: Vec<i64> = (0..numel(&out))
            .map(|lin| {
                let c = unravel(lin, &out);
                if mv[ravel(&pick(&m, &c), &m)] {
                    100
                } else {
                    av[ravel(&pick(&a, &c), &a)]
                }
            })
            .collect();
        let got = at.try_masked_fill(&mt, 100).unwrap();
        assert_eq!((got.dims(), got.to_vec()), (&out[..], filled.clone()));
        let selected: Vec<i64> = (0..numel(&out))
            .filter(|&lin| mv[ravel(&pick(&m, &unravel(lin, &out)), &m)])
            .map(|lin| av[ravel(&pick(&a, &unravel(lin, &out)), &a)])
            .collect();
        assert_eq!(at.try_masked_select(&mt).unwrap().to_vec(), selected);
        // In place: only when the mask expands to a.
        let mut inplace = at.deep_copy();
        let r = inplace.try_masked_fill_(&mt, 100);
        if out == a {
            r.unwrap();
            assert_eq!(inplace.to_vec(), filled);
        } else {
            assert!(r.is_err());
            assert_eq!(inplace.to_vec(), av);
        }
        // nonzero: coordinates of the nonzero elements, row-major.
        let nz = at.nonzero();
        let want: Vec<i64> = (0..numel(&a))
            .filter(|&lin| av[lin] != 0)
            .flat_map(|lin| unravel(lin, &a).into_iter().map(|x| x as i64))
            .collect();
        assert_eq!((nz.dims()[1], nz.to_vec()), (a.len(), want));
    }
}

#[test]
fn nonzero_of_floats_and_scalars() {
    let t = Tensor::<f32, Shape![2, 2]>::from_vec(vec![0.0, f32::NAN, -0.0, 1.0]);
    assert_eq!(t.nonzero().to_vec(), vec![0, 1, 1, 1]);
    assert_eq!(
        Tensor::<f32, DynRank>::scalar(3.0).nonzero().dims(),
        &[1, 0]
    );
    assert_eq!(
        Tensor::<f32, DynRank>::scalar(0.0).nonzero().dims(),
        &[0, 0]
    );
}
