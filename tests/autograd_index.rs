//! Gradients of the indexing, joining and masked operations checked by
//! central finite differences in `f64` on random shapes (some inputs
//! expanded, stride-0 views; `masked_fill` and `take_along_dim` with inputs
//! that broadcast), plus small exact cases. The helpers are those
//! of `tests/common/grad.rs`.

use shaped::autograd::Var;
use shaped::{DynRank, Shape, Tensor};

type I = Tensor<i64, DynRank>;

mod common;

use common::Rng;
use common::grad::{D, Gen, check};

/// An index tensor of sizes `dims` with values in `0..n`.
fn index(rng: &mut Rng, dims: &[usize], n: usize) -> I {
    let len = dims.iter().product();
    I::try_from_vec((0..len).map(|_| rng.below(n) as i64).collect(), dims).unwrap()
}

/// Random sizes of rank 1 to `max_rank`.
fn dims_at_least_1(rng: &mut Rng, max_rank: usize) -> Vec<usize> {
    let rank = 1 + rng.below(max_rank);
    (0..rank).map(|_| 1 + rng.below(4)).collect()
}

#[test]
fn gather_fd() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..20 {
        let dims = dims_at_least_1(&mut rng, 3);
        let dim = rng.below(dims.len());
        let idims: Vec<usize> = dims
            .iter()
            .enumerate()
            .map(|(d, &s)| {
                if d == dim {
                    1 + rng.below(5)
                } else {
                    1 + rng.below(s)
                }
            })
            .collect();
        let idx = index(&mut rng, &idims, dims[dim]);
        let x = rng.tensor(&dims, -2.0, 2.0);
        let neg = rng.below(2) == 0;
        let d = if neg {
            dim as isize - dims.len() as isize
        } else {
            dim as isize
        };
        check("gather", &mut rng, &[x], &|v| v[0].gather(d, &idx));
    }
}

#[test]
fn index_select_fd() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    for _ in 0..20 {
        let mut dims = dims_at_least_1(&mut rng, 3);
        if dims.len() < 2 {
            dims.push(3);
        }
        let n = 1 + rng.below(5);
        let x = rng.tensor(&dims, -2.0, 2.0);
        let i0 = Tensor::<i64, Shape![_]>::try_from_vec(
            (0..n).map(|_| rng.below(dims[0]) as i64).collect(),
            &[n],
        )
        .unwrap();
        let i1 = Tensor::<i32, Shape![_]>::try_from_vec(
            (0..n).map(|_| rng.below(dims[1]) as i32).collect(),
            &[n],
        )
        .unwrap();
        check("index_select 0", &mut rng, std::slice::from_ref(&x), &|v| {
            v[0].index_select::<0, _, _>(&i0)
        });
        check("index_select 1", &mut rng, &[x], &|v| {
            v[0].index_select::<1, _, _>(&i1)
        });
    }
}

#[test]
fn take_along_dim_fd_broadcasting() {
    let mut rng = Rng(0x0bad_cafe_dead_beef);
    for _ in 0..20 {
        let rank = 2 + rng.below(2);
        let out: Vec<usize> = (0..rank).map(|_| 1 + rng.below(4)).collect();
        // Away from axis 1, each side is either the full size or 1.
        let xd: Vec<usize> = out
            .iter()
            .enumerate()
            .map(|(d, &s)| if d != 1 && rng.below(3) == 0 { 1 } else { s })
            .collect();
        let idims: Vec<usize> = out
            .iter()
            .enumerate()
            .map(|(d, &s)| match d {
                1 => 1 + rng.below(4),
                _ if rng.below(3) == 0 => 1,
                _ => s,
            })
            .collect();
        let idx = index(&mut rng, &idims, xd[1]);
        let x = rng.tensor(&xd, -2.0, 2.0);
        check("take_along_dim", &mut rng, &[x], &|v| {
            v[0].take_along_dim::<1, _, _>(&idx)
        });
    }
}

#[test]
fn masked_fill_fd_broadcasting() {
    let mut rng = Rng(0x5555_aaaa_3333_cccc);
    for _ in 0..25 {
        let out = rng.dims(3);
        let xd = rng.broadcastable(&out);
        let md = rng.broadcastable(&out);
        let n: usize = md.iter().product();
        let mask =
            Tensor::<bool, DynRank>::try_from_vec((0..n).map(|_| rng.below(2) == 0).collect(), &md)
                .unwrap();
        let x = rng.tensor(&xd, -2.0, 2.0);
        check("masked_fill", &mut rng, &[x], &|v| {
            v[0].masked_fill(&mask, 7.0)
        });
    }
}

#[test]
fn cat_fd() {
    let mut rng = Rng(0x7777_1111_2222_9999);
    for _ in 0..15 {
        let dims = vec![1 + rng.below(3), 1 + rng.below(3), 1 + rng.below(3)];
        let k = rng.below(2);
        let inputs: Vec<D> = (0..3)
            .map(|_| {
                let mut d = dims.clone();
                d[k] = rng.below(4); // an empty part included
                rng.tensor(&d, -2.0, 2.0)
            })
            .collect();
        if k == 0 {
            check("cat 0", &mut rng, &inputs, &|v| {
                Var::cat::<0>(&[&v[0], &v[1], &v[2]])
            });
        } else {
            check("cat 1", &mut rng, &inputs, &|v| {
                Var::cat::<1>(&[&v[0], &v[2], &v[1], &v[0]])
            });
        }
    }
}

#[test]
fn select_and_slice_fd() {
    let mut rng = Rng(0x2468_ace0_1357_9bdf);
    for _ in 0..15 {
        let dims = vec![1 + rng.below(4), 1 + rng.below(4), 1 + rng.below(3)];
        let x = rng.tensor(&dims, -2.0, 2.0);
        let i = rng.below(dims[1]) as isize
            - if rng.below(2) == 0 {
                dims[1] as isize
            } else {
                0
            };
        let xs = std::slice::from_ref(&x);
        check("select 1", &mut rng, xs, &|v| v[0].select::<1>(i));
        check("select 0", &mut rng, xs, &|v| v[0].select::<0>(-1));
        let a = rng.below(dims[0]) as isize;
        check("slice 0", &mut rng, xs, &|v| v[0].slice::<0>(a..));
        check("slice 2", &mut rng, xs, &|v| v[0].slice::<2>(..-1));
        let step = 1 + rng.below(3);
        check("slice_step 1", &mut rng, xs, &|v| {
            v[0].try_slice_step::<1>(.., step).unwrap()
        });
        // Chained: a slice of a select, both writing into zeros.
        check("select∘slice", &mut rng, xs, &|v| {
            v[0].slice::<0>(1..).select::<1>(0)
        });
    }
}

#[test]
fn exact_small_cases() {
    // gather with repeated indices accumulates.
    let t = Var::param(Tensor::<f64, Shape![2, 3]>::from_vec(vec![
        1., 2., 3., 4., 5., 6.,
    ]));
    let idx = Tensor::<i64, Shape![2, 2]>::from_vec(vec![0, 0, 2, 1]);
    let g = t.gather(1, &idx);
    assert_eq!(g.value().to_vec(), vec![1., 1., 6., 5.]);
    let w = Var::constant(Tensor::<f64, Shape![2, 2]>::from_vec(vec![
        1., 10., 100., 1000.,
    ]));
    let gt = g.mul(&w).sum().backward().wrt(&t).unwrap();
    assert_eq!(gt.to_vec(), vec![11., 0., 0., 0., 1000., 100.]);

    // index_select with a repeated index.
    let i = Tensor::<i64, Shape![3]>::from_vec(vec![1, 1, 0]);
    let r: Var<f64, Shape![3, 3]> = t.index_select::<0, _, _>(&i);
    let gt = r.sum().backward().wrt(&t).unwrap();
    assert_eq!(gt.to_vec(), vec![1., 1., 1., 2., 2., 2.]);

    // masked_fill of a broadcast input: masked positions get no gradient.
    let b = Var::param(Tensor::<f64, Shape![3]>::from_vec(vec![1., 2., 3.]));
    let m = Tensor::<bool, Shape![2, 3]>::from_vec(vec![true, false, false, true, true, false]);
    let r: Var<f64, Shape![2, 3]> = b.masked_fill(&m, 0.);
    assert_eq!(r.value().to_vec(), vec![0., 2., 3., 0., 0., 3.]);
    assert_eq!(
        r.sum().backward().wrt(&b).unwrap().to_vec(),
        vec![0., 1., 2.]
    );

    // cat: each input gets its part; a constant gets none.
    let a = Var::param(Tensor::<f64, Shape![2, 1]>::from_vec(vec![1., 2.]));
    let c = Var::constant(Tensor::<f64, Shape![2, 1]>::from_vec(vec![3., 4.]));
    let j: Var<f64, Shape![2, _]> = Var::cat::<1>(&[&c, &a]);
    assert_eq!(j.value().to_vec(), vec![3., 1., 4., 2.]);
    let w = Var::constant(Tensor::<f64, Shape![2, 2]>::from_vec(vec![1., 2., 3., 4.]));
    let grads = j.mul(&w).sum().backward();
    assert_eq!(grads.wrt(&a).unwrap().to_vec(), vec![2., 4.]);
    assert!(grads.wrt(&c).is_none());

    // select and slice write into zeros.
    let s = t.select::<1>(-1).sum().add(&t.slice::<0>(1..).sum());
    let gt = s.backward().wrt(&t).unwrap();
    assert_eq!(gt.to_vec(), vec![0., 0., 1., 1., 1., 2.]);
}

#[test]
fn errors_pass_through() {
    let t = Var::param(Tensor::<f64, Shape![3]>::ones());
    let bad = Tensor::<i64, Shape![1]>::from_vec(vec![3]);
    assert_eq!(
        t.try_gather(0, &bad).err().unwrap().to_string(),
        "index 3 is out of bounds for dimension 0 with size 3"
    );
    assert_eq!(
        t.try_select::<0>(5).err().unwrap().to_string(),
        "index 5 is out of bounds for dimension 0 with size 3"
    );
}
