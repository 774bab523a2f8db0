//! The linear algebra composed from tensor operations and `Linalg`
//! primitives (`pinv`, `matrix_rank`, `cond`, `matrix_norm`, `norm`,
//! `vector_norm(_dims)`, `cross`, `multi_dot`, `inv_ex`, `cholesky_ex`,
//! `solve_ex`) on CUDA against the CPU's (itself checked against PyTorch and
//! NumPy in `linalg_*.rs`) on the same random inputs, `f32` and `f64`:
//! unbatched, batched, broadcast batches, transposed and expanded views,
//! zero-size batches and empty matrices, and the errors' messages; and the
//! gradients of their autograd wrappers and of `det`, `cholesky`,
//! `solve_triangular`, `lu`, `householder_product` and `eigvals`. Without
//! a GPU each test prints "skipped: no CUDA device" and returns (or fails,
//! when `SHAPED_REQUIRE_CUDA` is set).
//!
//! The comparisons are written over any second device `D` ([`On`]), so the
//! same harness runs CPU against CPU where that is wanted.
#![cfg(feature = "cuda")]

use shaped::autograd::{self, GradDevice, Var};
use shaped::backend::Backend;
use shaped::device::{Cuda, Device};
use shaped::element::Element;
use shaped::linalg::{self, LinalgDevice, MatrixNorm, NormOrd, RankTol};
use shaped::ops::host;
use shaped::shape::Shape;
use shaped::{DynRank, Tensor};

mod common;
use common::cuda::{LinalgElement as F, assert_close, device, same_error, unit_values};

type T<E> = Tensor<E, DynRank>;
type X<E, D> = Tensor<E, DynRank, D>;
/// A function of parameters on the device `D`, recorded.
type Model<'a, D> = dyn Fn(&[Var<f64, DynRank, D>]) -> Var<f64, DynRank, D> + 'a;

/// The second device: tensors go up through [`Backend::from_host`] next to
/// `like` (a tensor already there) and come back through
/// [`Backend::to_host`].
struct On<D: Device> {
    like: X<f32, D>,
}

/// A device the harness compares with the CPU.
trait Dev: LinalgDevice<f32> + LinalgDevice<f64> + Backend<i32> {}
impl<D: LinalgDevice<f32> + LinalgDevice<f64> + Backend<i32>> Dev for D {}

impl<D: Dev> On<D> {
    fn up<E: F>(&self, t: &T<E>) -> X<E, D>
    where
        D: Backend<E>,
    {
        host::from_host(&self.like, t.to_vec(), t.dims()).unwrap()
    }
}

/// `t` back on the host, any element type.
fn down<E: Element, S: Shape, D: Backend<E>>(t: &Tensor<E, S, D>) -> T<E> {
    T::try_from_vec(host::to_host(t).unwrap(), t.dims()).unwrap()
}

/// A view applied on both devices to the same values.
#[derive(Clone, Debug)]
enum View {
    Plain,
    /// The last two dimensions swapped (a transposed, strided view).
    Transposed,
    /// A batch of one expanded to these sizes (stride 0).
    Expanded(Vec<isize>),
}

fn apply<E: F, D: Device>(v: &View, t: &X<E, D>) -> X<E, D> {
    match v {
        View::Plain => t.share(),
        View::Transposed => {
            let r = t.rank();
            let mut p: Vec<isize> = (0..r as isize).collect();
            p.swap(r - 2, r - 1);
            t.permute(&p).unwrap()
        }
        View::Expanded(to) => t.expand(to).unwrap(),
    }
}

/// Values in `[-1, 1)` of sizes `dims`, `diag` added on the diagonals.
fn rand<E: F>(dims: &[usize], seed: u64, diag: f64) -> T<E> {
    let n: usize = dims.iter().product();
    let c = dims.last().copied().unwrap_or(1).max(1);
    let r = if dims.len() >= 2 {
        dims[dims.len() - 2]
    } else {
        1
    }
    .max(1);
    let v = unit_values(n, seed)
        .into_iter()
        .enumerate()
        .map(|(i, u)| {
            let (row, col) = ((i / c) % r, i % c);
            E::of(u * 2.0 - 1.0 + if row == col { diag } else { 0.0 })
        })
        .collect();
    T::try_from_vec(v, dims).unwrap()
}

/// Matrices `(count, m, n)` of rank `k`: products of `(m, k)` and `(k, n)`
/// factors, computed on the host.
fn low_rank<E: F>(count: usize, m: usize, n: usize, k: usize, seed: u64) -> T<E> {
    let l = unit_values(count * m * k, seed);
    let r = unit_values(count * k * n, seed + 7);
    let mut out = Vec::with_capacity(count * m * n);
    for b in 0..count {
        for i in 0..m {
            for j in 0..n {
                let dot: f64 = (0..k)
                    .map(|t| (l[b * m * k + i * k + t] - 0.5) * (r[b * k * n + t * n + j] - 0.5))
                    .sum();
                out.push(E::of(dot));
            }
        }
    }
    T::try_from_vec(out, &[count, m, n]).unwrap()
}

/// Matrix inputs `(name, values, view)`: rectangular both ways, batched, a
/// transposed view, an expanded batch, a zero-size batch, empty matrices.
fn matrix_inputs<E: F>(seed: u64, diag: f64) -> Vec<(&'static str, T<E>, View)> {
    vec![
        ("3x5", rand(&[3, 5], seed, diag), View::Plain),
        (
            "batched 2x3x4x3",
            rand(&[2, 3, 4, 3], seed + 1, diag),
            View::Plain,
        ),
        ("4x4", rand(&[4, 4], seed + 2, diag), View::Plain),
        (
            "transposed 3x6x4",
            rand(&[3, 6, 4], seed + 3, diag),
            View::Transposed,
        ),
        (
            "expanded 1x5x5",
            rand(&[1, 5, 5], seed + 4, diag),
            View::Expanded(vec![3, 5, 5]),
        ),
        ("zero-size batch", rand(&[0, 3, 3], seed, diag), View::Plain),
        (
            "empty 2x0x3",
            T::try_zeros(&[2, 0, 3]).unwrap(),
            View::Plain,
        ),
        (
            "rank 2 of 3x4x5",
            low_rank(3, 4, 5, 2, seed + 5),
            View::Plain,
        ),
    ]
}

/// Square inputs only (from [`matrix_inputs`]), with 0 x 0 matrices and a
/// batch holding an exactly singular matrix.
fn square_inputs<E: F>(seed: u64, diag: f64) -> Vec<(&'static str, T<E>, View)> {
    let mut v: Vec<_> = matrix_inputs(seed, diag)
        .into_iter()
        .filter(|(_, t, _)| {
            let d = t.dims();
            d[d.len() - 1] == d[d.len() - 2]
        })
        .collect();
    v.push((
        "transposed 3x5x5",
        rand(&[3, 5, 5], seed + 6, diag),
        View::Transposed,
    ));
    v.push(("0x0", T::try_zeros(&[2, 0, 0]).unwrap(), View::Plain));
    let singular = T::try_from_vec(vec![2., 0., 0., 4., 1., 2., 2., 4.], &[2, 2, 2]).unwrap();
    v.push(("batch with singular", cast(&singular), View::Plain));
    v.push(("rank 2 of 3x3", low_rank(2, 3, 3, 2, seed + 9), View::Plain));
    v
}

fn cast<E: F>(t: &T<f64>) -> T<E> {
    T::try_from_vec(t.to_vec().into_iter().map(E::of).collect(), t.dims()).unwrap()
}

/// The CPU result and the device's brought back: `common::cuda`'s
/// [`assert_close`].
#[track_caller]
fn near<E: F, S: Shape, S2: Shape, D: Backend<E>>(
    what: &str,
    cpu: &Tensor<E, S>,
    dev: &Tensor<E, S2, D>,
) {
    assert_close(what, &cpu.share().into_dyn(), &down(dev));
}

/// The same values exactly (integer results).
#[track_caller]
fn same<E: Element + PartialEq + std::fmt::Debug, S: Shape, S2: Shape, D: Backend<E>>(
    what: &str,
    cpu: &Tensor<E, S>,
    dev: &Tensor<E, S2, D>,
) {
    let back = down(dev);
    assert_eq!(cpu.dims(), back.dims(), "{what}: sizes");
    assert_eq!(cpu.to_vec(), back.to_vec(), "{what}");
}

fn pinv_rank_match<E: F, D: Dev + LinalgDevice<E>>(on: &On<D>) {
    let tols = [
        RankTol::default(),
        RankTol {
            atol: Some(0.3),
            rtol: None,
        },
        RankTol {
            atol: None,
            rtol: Some(0.2),
        },
        RankTol {
            atol: Some(0.05),
            rtol: Some(0.1),
        },
    ];
    for (name, t, view) in matrix_inputs::<E>(11, 0.0) {
        let (c, g) = (apply(&view, &t), apply(&view, &on.up(&t)));
        near(
            &format!("pinv {name}"),
            &linalg::pinv(&c),
            &linalg::pinv(&g),
        );
        for tol in tols {
            same(
                &format!("matrix_rank {name} {tol:?}"),
                &linalg::matrix_rank(&c, tol),
                &linalg::matrix_rank(&g, tol),
            );
        }
    }
}

fn norms_match<E: F, D: Dev + LinalgDevice<E>>(on: &On<D>) {
    use MatrixNorm::*;
    for (name, t, view) in matrix_inputs::<E>(21, 0.0) {
        let (c, g) = (apply(&view, &t), apply(&view, &on.up(&t)));
        let d = c.dims();
        let (m, n) = (d[d.len() - 2], d[d.len() - 1]);
        for ord in [Fro, Nuc, One, NegOne, Inf, NegInf, Two, NegTwo] {
            let what = format!("matrix_norm {name} {ord:?}");
            let (rc, rg) = (
                linalg::try_matrix_norm(&c, ord),
                linalg::try_matrix_norm(&g, ord),
            );
            if m == 0 || n == 0 {
                match (&rc, &rg) {
                    (Ok(x), Ok(y)) => near(&what, x, y),
                    _ => same_error(&what, rc, rg),
                }
            } else {
                near(&what, &rc.unwrap(), &rg.unwrap());
            }
        }
        if d.len() == 2 {
            for ord in [
                None,
                Some(NormOrd::Fro),
                Some(NormOrd::Nuc),
                Some(NormOrd::Num(-2.)),
            ] {
                near(
                    &format!("norm {name} {ord:?}"),
                    &linalg::norm(&c, ord),
                    &linalg::norm(&g, ord),
                );
            }
        }
    }
    let v = rand::<E>(&[7], 3, 0.0);
    let gv = on.up(&v);
    for p in [2., 1., 0., 3., -1.5, f64::INFINITY, f64::NEG_INFINITY] {
        near(
            &format!("norm of a vector, ord {p}"),
            &linalg::norm(&v, Some(NormOrd::Num(p))),
            &linalg::norm(&gv, Some(NormOrd::Num(p))),
        );
    }
}

/// Whether the input named `name` is rank-deficient by construction
/// ([`low_rank`]): its solutions and condition numbers are then decided by
/// rounding (a pivot or singular value of about `eps` times the largest),
/// and two correct libraries agree only that they are huge.
fn rank_deficient(name: &str) -> bool {
    name.starts_with("rank ")
}

/// Every element of `t` at least `1 / (1000 eps)`: a condition number of
/// a rank-deficient matrix, as rounding leaves it.
#[track_caller]
fn huge<E: F, S: Shape, D: Backend<E>>(what: &str, t: &Tensor<E, S, D>) {
    let eps: f64 = <E as num_traits::Float>::epsilon().into();
    for x in down(t).to_vec() {
        let x: f64 = x.into();
        assert!(x >= 1e-3 / eps, "{what}: {x} is not near 1 / eps");
    }
}

fn cond_match<E: F, D: Dev + LinalgDevice<E>>(on: &On<D>) {
    use MatrixNorm::*;
    for (name, t, view) in matrix_inputs::<E>(31, 0.0) {
        let (c, g) = (apply(&view, &t), apply(&view, &on.up(&t)));
        for p in [None, Some(Two), Some(NegTwo)] {
            let what = format!("cond {name} {p:?}");
            let (x, y) = (linalg::cond(&c, p), linalg::cond(&g, p));
            if rank_deficient(name) && p != Some(NegTwo) {
                huge(&format!("{what} (cpu)"), &x);
                huge(&format!("{what} (device)"), &y);
            } else {
                near(&what, &x, &y);
            }
        }
    }
    for (name, t, view) in square_inputs::<E>(41, 2.0) {
        let (c, g) = (apply(&view, &t), apply(&view, &on.up(&t)));
        for p in [Fro, Nuc, One, NegOne, Inf, NegInf] {
            let what = format!("cond {name} {p:?}");
            let (x, y) = (linalg::cond(&c, Some(p)), linalg::cond(&g, Some(p)));
            // The rank-deficient inputs are singular only up to rounding:
            // their condition numbers are huge, but not the same number.
            if name.starts_with("rank") {
                let (x, y) = (x.to_vec(), down(&y).to_vec());
                for (a, b) in x.into_iter().zip(y) {
                    let (a, b): (f64, f64) = (a.into(), b.into());
                    assert!(a > 1e3 && b > 1e3, "{what}: cpu {a} vs device {b}");
                }
            } else {
                near(&what, &x, &y);
            }
        }
    }
}

fn vector_match<E: F, D: Dev + LinalgDevice<E>>(on: &On<D>) {
    let inputs: Vec<(&str, T<E>, View)> = vec![
        ("2x3x4", rand(&[2, 3, 4], 51, 0.0), View::Plain),
        ("transposed 3x5", rand(&[3, 5], 52, 0.0), View::Transposed),
        (
            "expanded 1x4x2",
            rand(&[1, 4, 2], 53, 0.0),
            View::Expanded(vec![3, 4, 2]),
        ),
        ("zero-size 0x3", rand(&[0, 3], 54, 0.0), View::Plain),
    ];
    for (name, t, view) in inputs {
        let (c, g) = (apply(&view, &t), apply(&view, &on.up(&t)));
        for p in [2., 1., 0., 3., 0.5, -1., f64::INFINITY, f64::NEG_INFINITY] {
            let what = format!("vector_norm {name} {p}");
            let (x, y) = (
                linalg::try_vector_norm(&c, p),
                linalg::try_vector_norm(&g, p),
            );
            match (&x, &y) {
                (Ok(x), Ok(y)) => near(&what, x, y),
                _ => same_error(&what, x, y),
            }
            for (dims, keep) in [
                (&[-1isize][..], false),
                (&[0, 1][..], true),
                (&[][..], false),
            ] {
                let what = format!("vector_norm_dims {name} {p} {dims:?} {keep}");
                let x = linalg::try_vector_norm_dims(&c, p, dims, keep);
                let y = linalg::try_vector_norm_dims(&g, p, dims, keep);
                match (&x, &y) {
                    (Ok(x), Ok(y)) => near(&what, x, y),
                    _ => same_error(&what, x, y),
                }
            }
        }
    }
}

fn cross_multi_dot_match<E: F, D: Dev + LinalgDevice<E>>(on: &On<D>) {
    let pairs: Vec<(&str, T<E>, T<E>)> = vec![
        ("3 and 3", rand(&[3], 61, 0.0), rand(&[3], 62, 0.0)),
        (
            "broadcast 2x1x3 and 1x4x3",
            rand(&[2, 1, 3], 63, 0.0),
            rand(&[1, 4, 3], 64, 0.0),
        ),
        (
            "zero-size batch",
            rand(&[0, 3], 65, 0.0),
            rand(&[1, 3], 66, 0.0),
        ),
    ];
    for (name, a, b) in pairs {
        let (ga, gb) = (on.up(&a), on.up(&b));
        near(
            &format!("cross {name}"),
            &linalg::cross(&a, &b),
            &linalg::cross(&ga, &gb),
        );
    }
    // A transposed view: the 3-vectors are the columns of a 3 x 5 matrix.
    let (a, b) = (rand::<E>(&[3, 5], 67, 0.0), rand::<E>(&[5, 3], 68, 0.0));
    let (ga, gb) = (on.up(&a), on.up(&b));
    let (at, gat) = (apply(&View::Transposed, &a), apply(&View::Transposed, &ga));
    near(
        "cross of a transposed view",
        &linalg::cross(&at, &b),
        &linalg::cross(&gat, &gb),
    );

    let chain: Vec<T<E>> = vec![
        rand(&[4], 71, 0.0),
        rand(&[4, 9], 72, 0.0),
        rand(&[9, 2], 73, 0.0),
        rand(&[2, 6], 74, 0.0),
        rand(&[6], 75, 0.0),
    ];
    let up: Vec<X<E, D>> = chain.iter().map(|t| on.up(t)).collect();
    for (lo, hi) in [(0, 5), (1, 5), (0, 4), (1, 4), (1, 3)] {
        let c: Vec<&T<E>> = chain[lo..hi].iter().collect();
        let g: Vec<&X<E, D>> = up[lo..hi].iter().collect();
        near(
            &format!("multi_dot {lo}..{hi}"),
            &linalg::multi_dot(&c),
            &linalg::multi_dot(&g),
        );
    }
    let t = rand::<E>(&[5, 4], 76, 0.0);
    let (ct, gt) = (
        apply(&View::Transposed, &t),
        apply(&View::Transposed, &on.up(&t)),
    );
    let (m, gm) = (
        rand::<E>(&[5, 3], 77, 0.0),
        on.up(&rand::<E>(&[5, 3], 77, 0.0)),
    );
    near(
        "multi_dot of a transposed view",
        &linalg::multi_dot(&[&ct, &m]),
        &linalg::multi_dot(&[&gt, &gm]),
    );
}

fn ex_match<E: F, D: Dev + LinalgDevice<E>>(on: &On<D>) {
    for (name, t, view) in square_inputs::<E>(81, 3.0) {
        let (c, g) = (apply(&view, &t), apply(&view, &on.up(&t)));
        let ((xc, ic), (xg, ig)) = (linalg::inv_ex(&c), linalg::inv_ex(&g));
        same(&format!("inv_ex info {name}"), &ic, &ig);
        if ic.to_vec().iter().all(|&k| k == 0) && !rank_deficient(name) {
            near(&format!("inv_ex {name}"), &xc, &xg);
        }
        // Symmetric positive-definite where the diagonal dominates, not
        // positive-definite elsewhere (the singular batch, the low ranks).
        let sym = |x: &T<E>| -> T<E> {
            let r = x.rank();
            let mut p: Vec<isize> = (0..r as isize).collect();
            p.swap(r - 2, r - 1);
            let xt: T<E> = x.permute(&p).unwrap();
            T::try_from_vec(
                x.to_vec()
                    .iter()
                    .zip(xt.to_vec())
                    .map(|(&a, b)| a + b)
                    .collect(),
                x.dims(),
            )
            .unwrap()
        };
        let s = sym(&c);
        let ((lc, jc), (lg, jg)) = (linalg::cholesky_ex(&s), linalg::cholesky_ex(&on.up(&s)));
        same(&format!("cholesky_ex info {name}"), &jc, &jg);
        if jc.to_vec().iter().all(|&k| k == 0) {
            near(&format!("cholesky_ex {name}"), &lc, &lg);
        }
        let d = c.dims();
        let n = d[d.len() - 1];
        for (bname, bdims) in [("matrix", vec![2, 1, n, 2]), ("vector", vec![n])] {
            let b = rand::<E>(&bdims, 91, 0.0);
            let what = format!("solve_ex {name} with a {bname}");
            let (x, y) = (
                linalg::try_solve_ex(&c, &b),
                linalg::try_solve_ex(&g, &on.up(&b)),
            );
            match (x, y) {
                (Ok((xc, ic)), Ok((xg, ig))) => {
                    same(&format!("{what}: info"), &ic, &ig);
                    if ic.to_vec().iter().all(|&k| k == 0) && !rank_deficient(name) {
                        near(&what, &xc, &xg);
                    }
                }
                (x, y) => same_error(&what, x, y),
            }
        }
    }
}

fn errors_match<D: Dev>(on: &On<D>) {
    let v = T::<f64>::try_zeros(&[4]).unwrap();
    let r = T::<f64>::try_zeros(&[2, 3]).unwrap();
    let e = T::<f64>::try_zeros(&[0, 3]).unwrap();
    let x3 = T::<f64>::try_zeros(&[2, 2, 2]).unwrap();
    let (gv, gr, ge, gx3) = (on.up(&v), on.up(&r), on.up(&e), on.up(&x3));
    same_error(
        "pinv of a vector",
        linalg::try_pinv(&v),
        linalg::try_pinv(&gv),
    );
    let tol = RankTol::default();
    same_error(
        "matrix_rank of a vector",
        linalg::try_matrix_rank(&v, tol),
        linalg::try_matrix_rank(&gv, tol),
    );
    same_error(
        "cond of a vector",
        linalg::try_cond(&v, None),
        linalg::try_cond(&gv, None),
    );
    let one = Some(MatrixNorm::One);
    same_error(
        "cond(ord=1) of 2x3",
        linalg::try_cond(&r, one),
        linalg::try_cond(&gr, one),
    );
    same_error(
        "matrix_norm of a vector",
        linalg::try_matrix_norm(&v, MatrixNorm::Fro),
        linalg::try_matrix_norm(&gv, MatrixNorm::Fro),
    );
    for ord in [MatrixNorm::NegInf, MatrixNorm::NegTwo] {
        same_error(
            &format!("matrix_norm {ord:?} of 0x3"),
            linalg::try_matrix_norm(&e, ord),
            linalg::try_matrix_norm(&ge, ord),
        );
    }
    same_error(
        "norm of 3-d with ord",
        linalg::try_norm(&x3, Some(NormOrd::Fro)),
        linalg::try_norm(&gx3, Some(NormOrd::Fro)),
    );
    same_error(
        "norm with order 0.5",
        linalg::try_norm(&r, Some(NormOrd::Num(0.5))),
        linalg::try_norm(&gr, Some(NormOrd::Num(0.5))),
    );
    same_error(
        "vector_norm -inf of empty",
        linalg::try_vector_norm(&e, f64::NEG_INFINITY),
        linalg::try_vector_norm(&ge, f64::NEG_INFINITY),
    );
    same_error(
        "vector_norm_dims inf over an empty dim",
        linalg::try_vector_norm_dims(&e, f64::INFINITY, &[0], false),
        linalg::try_vector_norm_dims(&ge, f64::INFINITY, &[0], false),
    );
    same_error(
        "vector_norm_dims dim out of range",
        linalg::try_vector_norm_dims(&r, 2., &[2], false),
        linalg::try_vector_norm_dims(&gr, 2., &[2], false),
    );
    let a4 = T::<f64>::try_zeros(&[2, 4]).unwrap();
    let ga4 = on.up(&a4);
    same_error(
        "cross of 4-vectors",
        linalg::try_cross(&a4, &a4),
        linalg::try_cross(&ga4, &ga4),
    );
    same_error(
        "cross of ranks 1 and 2",
        linalg::try_cross(&v, &r),
        linalg::try_cross(&gv, &gr),
    );
    let b3 = T::<f64>::try_zeros(&[3, 3]).unwrap();
    let gb3 = on.up(&b3);
    let (c323, c223) = (
        T::<f64>::try_zeros(&[3, 2, 3]).unwrap(),
        T::<f64>::try_zeros(&[2, 2, 3]).unwrap(),
    );
    same_error(
        "cross batches",
        linalg::try_cross(&c323, &c223),
        linalg::try_cross(&on.up(&c323), &on.up(&c223)),
    );
    same_error(
        "multi_dot sizes",
        linalg::try_multi_dot(&[&r, &r]),
        linalg::try_multi_dot(&[&gr, &gr]),
    );
    same_error(
        "multi_dot of one",
        linalg::try_multi_dot(&[&r]),
        linalg::try_multi_dot(&[&gr]),
    );
    same_error(
        "multi_dot rank",
        linalg::try_multi_dot(&[&r, &x3, &v]),
        linalg::try_multi_dot(&[&gr, &gx3, &gv]),
    );
    same_error(
        "inv_ex of 2x3",
        linalg::try_inv_ex(&r),
        linalg::try_inv_ex(&gr),
    );
    same_error(
        "cholesky_ex of 2x3",
        linalg::try_cholesky_ex(&r),
        linalg::try_cholesky_ex(&gr),
    );
    same_error(
        "solve_ex sizes",
        linalg::try_solve_ex(&b3, &r),
        linalg::try_solve_ex(&gb3, &gr),
    );
    same_error(
        "solve_ex of 2x3",
        linalg::try_solve_ex(&r, &b3),
        linalg::try_solve_ex(&gr, &gb3),
    );
    let bb = T::<f64>::try_zeros(&[3, 2, 1]).unwrap();
    same_error(
        "solve_ex batches",
        linalg::try_solve_ex(&x3, &bb),
        linalg::try_solve_ex(&gx3, &on.up(&bb)),
    );
}

/// The weighted sum of `out` (fixed weights, so that every element has its
/// own upstream gradient), back-propagated: each parameter's gradient, on
/// the host.
fn grads_of<D: GradDevice<f64>>(
    on: &dyn Fn(&T<f64>) -> X<f64, D>,
    params: &[Var<f64, DynRank, D>],
    out: Var<f64, DynRank, D>,
) -> Vec<T<f64>> {
    let w = Var::constant(on(&rand::<f64>(out.dims(), 99, 0.5)));
    let grads = out.mul(&w).sum().try_backward().unwrap();
    params
        .iter()
        .map(|p| down(&grads.wrt(p).expect("a gradient")))
        .collect()
}

/// The gradients of the device-generic autograd wrappers (`cross`,
/// `vector_norm(_dims)`, `multi_dot`, `matrix_norm`, `norm`, `cond`, the
/// `svdvals` and `inv` they build on, `solve`, `det`, `cholesky`,
/// `solve_triangular`, `lu`, `householder_product` and `eigvals`) on both
/// devices.
fn grads_match<D: Dev + GradDevice<f64>>(on: &On<D>) {
    let up = |t: &T<f64>| on.up(t);
    let cpu = |t: &T<f64>| t.share();
    // One model, run on both devices, its gradients compared.
    fn both<D: Dev + GradDevice<f64>>(
        what: &str,
        inputs: &[T<f64>],
        up: &dyn Fn(&T<f64>) -> X<f64, D>,
        cpu: &dyn Fn(&T<f64>) -> T<f64>,
        model_d: &Model<'_, D>,
        model_c: &Model<'_, shaped::device::Cpu>,
    ) {
        let pc: Vec<Var<f64, DynRank>> = inputs.iter().map(|t| Var::param(cpu(t))).collect();
        let pd: Vec<Var<f64, DynRank, D>> = inputs.iter().map(|t| Var::param(up(t))).collect();
        let (gc, gd) = (
            grads_of(cpu, &pc, model_c(&pc)),
            grads_of(up, &pd, model_d(&pd)),
        );
        for (i, (c, d)) in gc.iter().zip(&gd).enumerate() {
            near(&format!("{what}: gradient {i}"), c, d);
        }
    }
    let pair = [
        rand::<f64>(&[2, 1, 3], 101, 0.0),
        rand::<f64>(&[1, 4, 3], 102, 0.0),
    ];
    both(
        "cross",
        &pair,
        &up,
        &cpu,
        &|v| autograd::linalg::cross(&v[0], &v[1]),
        &|v| autograd::linalg::cross(&v[0], &v[1]),
    );
    let x = [rand::<f64>(&[2, 3, 4], 103, 0.0)];
    for p in [2., 1., 3., 0.5, f64::INFINITY, f64::NEG_INFINITY] {
        for (dims, keep) in [
            (&[-1isize][..], false),
            (&[0, 2][..], true),
            (&[][..], false),
        ] {
            both(
                &format!("vector_norm_dims {p} {dims:?}"),
                &x,
                &up,
                &cpu,
                &|v| autograd::linalg::vector_norm_dims(&v[0], p, dims, keep),
                &|v| autograd::linalg::vector_norm_dims(&v[0], p, dims, keep),
            );
        }
        both(
            &format!("vector_norm {p}"),
            &x,
            &up,
            &cpu,
            &|v| {
                autograd::linalg::vector_norm(&v[0], p)
                    .try_reshape(&[1])
                    .unwrap()
            },
            &|v| {
                autograd::linalg::vector_norm(&v[0], p)
                    .try_reshape(&[1])
                    .unwrap()
            },
        );
    }
    use MatrixNorm::*;
    let mats = [rand::<f64>(&[2, 3, 4], 108, 0.0)];
    let square = [rand::<f64>(&[2, 3, 3], 109, 2.0)];
    for ord in [Fro, Nuc, One, NegOne, Inf, NegInf, Two, NegTwo] {
        both(
            &format!("matrix_norm {ord:?}"),
            &mats,
            &up,
            &cpu,
            &|v| autograd::linalg::matrix_norm(&v[0], ord),
            &|v| autograd::linalg::matrix_norm(&v[0], ord),
        );
        both(
            &format!("cond {ord:?}"),
            &square,
            &up,
            &cpu,
            &|v| autograd::linalg::cond(&v[0], Some(ord)),
            &|v| autograd::linalg::cond(&v[0], Some(ord)),
        );
    }
    let m2 = [rand::<f64>(&[3, 4], 110, 0.0)];
    for ord in [None, Some(NormOrd::Nuc), Some(NormOrd::Num(-1.))] {
        both(
            &format!("norm {ord:?}"),
            &m2,
            &up,
            &cpu,
            &|v| {
                autograd::linalg::norm(&v[0], ord)
                    .try_reshape(&[1])
                    .unwrap()
            },
            &|v| {
                autograd::linalg::norm(&v[0], ord)
                    .try_reshape(&[1])
                    .unwrap()
            },
        );
    }
    both(
        "svdvals",
        &mats,
        &up,
        &cpu,
        &|v| autograd::linalg::svdvals(&v[0]),
        &|v| autograd::linalg::svdvals(&v[0]),
    );
    both(
        "inv",
        &square,
        &up,
        &cpu,
        &|v| autograd::linalg::inv(&v[0]),
        &|v| autograd::linalg::inv(&v[0]),
    );
    // `solve`: broadcast batch dimensions (both gradients summed back), and
    // a batch of vectors as B (PyTorch's rule).
    for (what, a, b) in [
        ("solve broadcast", vec![2, 1, 3, 3], vec![4, 3, 2]),
        ("solve vectors", vec![2, 3, 3], vec![2, 3]),
        ("solve one vector", vec![3, 3], vec![3]),
    ] {
        let inputs = [rand::<f64>(&a, 108, 3.0), rand::<f64>(&b, 109, 0.0)];
        both(
            what,
            &inputs,
            &up,
            &cpu,
            &|v| autograd::linalg::solve(&v[0], &v[1]),
            &|v| autograd::linalg::solve(&v[0], &v[1]),
        );
    }
    // `det`: a batch that mixes invertible and singular matrices (the
    // adjugate through the SVD), and an expanded batch.
    let mut mixed = rand::<f64>(&[3, 3, 3], 111, 2.0).to_vec();
    let row = mixed[9..12].to_vec();
    mixed[12..15].copy_from_slice(&row);
    let dets = [
        T::try_from_vec(mixed, &[3, 3, 3]).unwrap(),
        rand::<f64>(&[2, 1, 3, 3], 112, 0.5)
            .try_broadcast_to(&[2, 2, 3, 3])
            .unwrap()
            .contiguous(),
    ];
    for (i, a) in dets.iter().enumerate() {
        both(
            &format!("det {i}"),
            std::slice::from_ref(a),
            &up,
            &cpu,
            &|v| autograd::linalg::det(&v[0]),
            &|v| autograd::linalg::det(&v[0]),
        );
    }
    // `cholesky` of X Xᵀ + 3 I.
    let x = rand::<f64>(&[2, 3, 3], 113, 0.0);
    let spd = x
        .matmul(&x.permute::<DynRank>(&[0, 2, 1]).unwrap())
        .add(&T::try_from_vec(vec![3., 0., 0., 0., 3., 0., 0., 0., 3.], &[3, 3]).unwrap());
    both(
        "cholesky",
        &[spd],
        &up,
        &cpu,
        &|v| autograd::linalg::cholesky(&v[0]),
        &|v| autograd::linalg::cholesky(&v[0]),
    );
    // `solve_triangular`, each triangle, batches that broadcast.
    for (upper, unit) in [(true, false), (false, false), (true, true), (false, true)] {
        let tri = linalg::Triangle { upper, unit };
        let inputs = [
            rand::<f64>(&[2, 1, 3, 3], 114, 3.0),
            rand::<f64>(&[4, 3, 2], 115, 0.0),
        ];
        both(
            &format!("solve_triangular {tri:?}"),
            &inputs,
            &up,
            &cpu,
            &|v| autograd::linalg::solve_triangular(&v[0], &v[1], tri),
            &|v| autograd::linalg::solve_triangular(&v[0], &v[1], tri),
        );
    }
    // `lu`, square, wide and tall, through L and through U.
    for dims in [[2, 3, 3], [2, 2, 4], [2, 4, 2]] {
        let a = [rand::<f64>(&dims, 116, 2.0)];
        both(
            &format!("lu L {dims:?}"),
            &a,
            &up,
            &cpu,
            &|v| autograd::linalg::lu(&v[0]).1.try_reshape(&[-1]).unwrap(),
            &|v| autograd::linalg::lu(&v[0]).1.try_reshape(&[-1]).unwrap(),
        );
        both(
            &format!("lu U {dims:?}"),
            &a,
            &up,
            &cpu,
            &|v| autograd::linalg::lu(&v[0]).2.try_reshape(&[-1]).unwrap(),
            &|v| autograd::linalg::lu(&v[0]).2.try_reshape(&[-1]).unwrap(),
        );
    }
    // `householder_product` of the reflectors of a tall batch.
    let hh = [
        rand::<f64>(&[2, 4, 3], 117, 0.0),
        rand::<f64>(&[2, 2], 118, 1.0),
    ];
    both(
        "householder_product",
        &hh,
        &up,
        &cpu,
        &|v| autograd::linalg::householder_product(&v[0], &v[1]),
        &|v| autograd::linalg::householder_product(&v[0], &v[1]),
    );
    // `eigvals` and `eig` (their gradient computed on the host).
    let e = [rand::<f64>(&[2, 3, 3], 119, 1.0)];
    both(
        "eigvals",
        &e,
        &up,
        &cpu,
        &|v| {
            let z = autograd::linalg::eigvals(&v[0]);
            z.re.add(&z.im.square())
        },
        &|v| {
            let z = autograd::linalg::eigvals(&v[0]);
            z.re.add(&z.im.square())
        },
    );
    let chain = [
        rand::<f64>(&[4], 104, 0.0),
        rand::<f64>(&[4, 3], 105, 0.0),
        rand::<f64>(&[3, 5], 106, 0.0),
        rand::<f64>(&[5, 2], 107, 0.0),
    ];
    both(
        "multi_dot",
        &chain,
        &up,
        &cpu,
        &|v| autograd::linalg::multi_dot(&v.iter().collect::<Vec<_>>()),
        &|v| autograd::linalg::multi_dot(&v.iter().collect::<Vec<_>>()),
    );
}

/// The CUDA side of the comparison, or `None` without a GPU.
fn cuda() -> Option<On<Cuda>> {
    let dev = device()?;
    let like = T::<f32>::try_zeros(&[1]).unwrap().to_device(&dev).unwrap();
    Some(On { like })
}

#[test]
fn pinv_and_matrix_rank_match_cpu() {
    let Some(on) = cuda() else { return };
    pinv_rank_match::<f32, _>(&on);
    pinv_rank_match::<f64, _>(&on);
}

#[test]
fn matrix_norms_and_norm_match_cpu() {
    let Some(on) = cuda() else { return };
    norms_match::<f32, _>(&on);
    norms_match::<f64, _>(&on);
}

#[test]
fn cond_matches_cpu() {
    let Some(on) = cuda() else { return };
    cond_match::<f32, _>(&on);
    cond_match::<f64, _>(&on);
}

#[test]
fn vector_norms_match_cpu() {
    let Some(on) = cuda() else { return };
    vector_match::<f32, _>(&on);
    vector_match::<f64, _>(&on);
}

#[test]
fn cross_and_multi_dot_match_cpu() {
    let Some(on) = cuda() else { return };
    cross_multi_dot_match::<f32, _>(&on);
    cross_multi_dot_match::<f64, _>(&on);
}

#[test]
fn ex_forms_match_cpu() {
    let Some(on) = cuda() else { return };
    ex_match::<f32, _>(&on);
    ex_match::<f64, _>(&on);
}

#[test]
fn errors_match_cpu() {
    let Some(on) = cuda() else { return };
    errors_match(&on);
}

#[test]
fn autograd_wrappers_match_cpu() {
    let Some(on) = cuda() else { return };
    grads_match(&on);
}
