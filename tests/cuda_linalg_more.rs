//! The composed linear algebra on CUDA (`lstsq` with every driver,
//! `householder_product`, `matrix_power`, `matrix_exp`, and `eig` /
//! `eigvals`, which run on the host) against the CPU's (itself checked
//! against PyTorch and NumPy in `linalg_*.rs`) on the same random inputs,
//! `f32` and `f64`: unbatched, batched, broadcast batch dimensions,
//! expanded and transposed views, zero-size batches, and the errors'
//! messages. Without a GPU each test prints "skipped: no CUDA device" and
//! returns (or fails, when `SHAPED_REQUIRE_CUDA` is set).
#![cfg(feature = "cuda")]

use shaped::autograd::{self, Var};
use shaped::backend::{Gemm, Linalg};
use shaped::device::{Cuda, CudaDevice, CudaElement};
use shaped::linalg::{self, LstsqDriver};
use shaped::{DynRank, Tensor};

mod common;
use common::cuda::{
    LinalgElement as F, assert_close, device, same_error, square_inputs, unit_values,
};

type T<E> = Tensor<E, DynRank>;

/// The device under test, how a CPU tensor gets there and back, and where
/// it comes from (`None`: no device, the test is skipped).
type Dev = Cuda;
type G<E> = Tensor<E, DynRank, Dev>;
struct On(CudaDevice);
impl On {
    fn up<E: F>(&self, t: &T<E>) -> G<E> {
        t.to_device(&self.0).unwrap()
    }
}
fn down<E: CudaElement>(g: &Tensor<E, DynRank, Dev>) -> T<E> {
    g.to_cpu().unwrap()
}
fn target() -> Option<On> {
    device().map(On)
}

/// Values in `[-scale, scale)` of sizes `dims`, plus `diag` on the diagonal
/// of every matrix.
fn rand<E: F>(dims: &[usize], seed: u64, scale: f64, diag: f64) -> T<E> {
    let n: usize = dims.iter().product();
    let c = dims.last().copied().unwrap_or(1).max(1);
    let r = if dims.len() >= 2 {
        dims[dims.len() - 2].max(1)
    } else {
        1
    };
    let v = unit_values(n, seed)
        .into_iter()
        .enumerate()
        .map(|(i, u)| {
            let (row, col) = ((i / c) % r, i % c);
            E::of((u * 2.0 - 1.0) * scale + if row == col { diag } else { 0.0 })
        })
        .collect();
    T::try_from_vec(v, dims).unwrap()
}

fn vals<E: F>(v: &[f64], dims: &[usize]) -> T<E> {
    T::try_from_vec(v.iter().map(|&x| E::of(x)).collect(), dims).unwrap()
}

/// CPU and device results of the same sizes and values within `E::TOL`.
#[track_caller]
fn assert_near<E: F>(what: &str, cpu: &T<E>, dev: &G<E>) {
    assert_close(what, cpu, &down(dev));
}

fn power_match<E: F>(on: &On)
where
    Dev: Linalg<E> + Gemm<E>,
{
    // Well conditioned (for the inverse) and of norm near 1 (for the powers).
    let inputs = square_inputs::<E>(100, |d, s| {
        let n = d[d.len() - 1].max(1) as f64;
        rand(d, s, 0.5 / n.sqrt(), 1.0)
    });
    for (what, a) in inputs {
        let g = on.up(&a);
        for k in [0, 1, 2, 3, 5, 8, -1, -3] {
            let want: T<E> = linalg::matrix_power(&a, k);
            let got: G<E> = linalg::matrix_power(&g, k);
            assert_near(&format!("matrix_power {what} ^{k}"), &want, &got);
        }
    }
}

#[test]
fn matrix_power_matches_cpu() {
    let Some(on) = target() else { return };
    power_match::<f32>(&on);
    power_match::<f64>(&on);
}

fn exp_match<E: F>(on: &On)
where
    Dev: Linalg<E> + Gemm<E>,
{
    let mut inputs = square_inputs::<E>(200, |d, s| rand(d, s, 1.0, 0.0));
    // Norms well above θ13 (squarings), and a batch whose matrices need
    // different numbers of squarings (0, 2 and 5).
    inputs.push(("norm 20".to_string(), rand(&[2, 4, 4], 210, 5.0, 0.0)));
    let mut mixed = Vec::new();
    for (i, scale) in [0.1, 3.0, 30.0].into_iter().enumerate() {
        mixed.extend(rand::<E>(&[3, 3], 220 + i as u64, scale, 0.0).to_vec());
    }
    inputs.push((
        "mixed scalings".to_string(),
        T::try_from_vec(mixed, &[3, 3, 3]).unwrap(),
    ));
    for (what, a) in inputs {
        let want: T<E> = linalg::matrix_exp(&a);
        let got: G<E> = linalg::matrix_exp(&on.up(&a));
        assert_near(&format!("matrix_exp {what}"), &want, &got);
    }
}

#[test]
fn matrix_exp_matches_cpu() {
    let Some(on) = target() else { return };
    exp_match::<f32>(&on);
    exp_match::<f64>(&on);
}

fn householder_match<E: F>(on: &On)
where
    Dev: Gemm<E>,
{
    let cases: Vec<(&str, T<E>, T<E>)> = vec![
        (
            "5x3, k 2",
            rand(&[5, 3], 300, 1.0, 0.0),
            rand(&[2], 301, 1.0, 0.0),
        ),
        (
            "batched 2x3x6x4, k 4",
            rand(&[2, 3, 6, 4], 302, 1.0, 0.0),
            rand(&[2, 3, 4], 303, 1.0, 0.0),
        ),
        (
            "square 4x4, k 3",
            rand(&[4, 4], 304, 1.0, 0.0),
            rand(&[3], 305, 1.0, 0.0),
        ),
        (
            "transposed A",
            rand::<E>(&[2, 3, 5], 306, 1.0, 0.0)
                .permute(&[0, 2, 1])
                .unwrap(),
            rand(&[2, 3], 307, 1.0, 0.0),
        ),
        (
            "expanded A and tau",
            rand::<E>(&[1, 4, 3], 308, 1.0, 0.0)
                .expand(&[3, 4, 3])
                .unwrap(),
            rand::<E>(&[1, 2], 309, 1.0, 0.0).expand(&[3, 2]).unwrap(),
        ),
        (
            "k 0",
            rand(&[4, 3], 310, 1.0, 0.0),
            T::try_zeros(&[0]).unwrap(),
        ),
        (
            "zero-size batch",
            rand(&[0, 4, 3], 311, 1.0, 0.0),
            rand(&[0, 2], 312, 1.0, 0.0),
        ),
    ];
    for (what, a, tau) in cases {
        let want: T<E> = linalg::householder_product(&a, &tau);
        let got: G<E> = linalg::householder_product(&on.up(&a), &on.up(&tau));
        assert_near(&format!("householder_product {what}"), &want, &got);
    }
}

#[test]
fn householder_product_matches_cpu() {
    let Some(on) = target() else { return };
    householder_match::<f32>(&on);
    householder_match::<f64>(&on);
}

/// A name, `A`, `B` and the cut-off `rcond`.
type LstsqCase<E> = (&'static str, T<E>, T<E>, Option<f64>);

fn lstsq_match<E: F>(on: &On)
where
    Dev: Linalg<E> + Gemm<E>,
{
    // A rank-deficient A: the third column is the sum of the first two.
    let mut deficient = rand::<E>(&[5, 3], 400, 1.0, 0.0).to_vec();
    for r in 0..5 {
        deficient[r * 3 + 2] = deficient[r * 3] + deficient[r * 3 + 1];
    }
    let cases: Vec<LstsqCase<E>> = vec![
        (
            "tall 5x3",
            rand(&[5, 3], 401, 1.0, 0.0),
            rand(&[5, 2], 402, 1.0, 0.0),
            None,
        ),
        (
            "wide 3x5",
            rand(&[3, 5], 403, 1.0, 0.0),
            rand(&[3, 2], 404, 1.0, 0.0),
            None,
        ),
        (
            "broadcast batches",
            rand(&[2, 1, 6, 3], 405, 1.0, 0.0),
            rand(&[1, 3, 6, 2], 406, 1.0, 0.0),
            None,
        ),
        (
            "B one dimension shorter",
            rand(&[1, 3, 2], 407, 1.0, 0.0),
            rand(&[3, 1], 408, 1.0, 0.0),
            None,
        ),
        (
            "vectors",
            rand(&[4, 5, 3], 409, 1.0, 0.0),
            rand(&[4, 5], 410, 1.0, 0.0),
            None,
        ),
        (
            "rank-deficient, rcond",
            T::try_from_vec(deficient, &[5, 3]).unwrap(),
            rand(&[5, 1], 411, 1.0, 0.0),
            Some(1e-3),
        ),
        (
            "transposed A",
            rand::<E>(&[2, 3, 6], 412, 1.0, 0.0)
                .permute(&[0, 2, 1])
                .unwrap(),
            rand(&[2, 6, 2], 413, 1.0, 0.0),
            None,
        ),
        (
            "expanded A",
            rand::<E>(&[1, 5, 2], 414, 1.0, 0.0)
                .expand(&[3, 5, 2])
                .unwrap(),
            rand(&[3, 5, 1], 415, 1.0, 0.0),
            None,
        ),
        (
            "zero-size batch",
            rand(&[0, 5, 3], 416, 1.0, 0.0),
            rand(&[0, 5, 2], 417, 1.0, 0.0),
            None,
        ),
        (
            "no columns in A",
            rand(&[4, 0], 418, 1.0, 0.0),
            rand(&[4, 2], 419, 1.0, 0.0),
            None,
        ),
    ];
    for (what, a, b, rcond) in cases {
        let (ga, gb) = (on.up(&a), on.up(&b));
        for driver in [
            LstsqDriver::Gels,
            LstsqDriver::Gelsy,
            LstsqDriver::Gelsd,
            LstsqDriver::Gelss,
        ] {
            let w = format!("lstsq {what} {driver:?}");
            let want = linalg::try_lstsq_with(&a, &b, rcond, driver).unwrap();
            let got = linalg::try_lstsq_with(&ga, &gb, rcond, driver).unwrap();
            assert_near(&format!("{w} solution"), &want.solution, &got.solution);
            assert_near(&format!("{w} residuals"), &want.residuals, &got.residuals);
            assert_near(
                &format!("{w} singular values"),
                &want.singular_values,
                &got.singular_values,
            );
            let rank = down(&got.rank);
            assert_eq!(want.rank.dims(), rank.dims(), "{w} rank sizes");
            assert_eq!(want.rank.to_vec(), rank.to_vec(), "{w} rank");
        }
    }
    // The typed vector form.
    let a = rand::<E>(&[2, 4, 3], 420, 1.0, 0.0);
    let b = rand::<E>(&[2, 4], 421, 1.0, 0.0);
    let want = linalg::try_lstsq_vec(&a, &b, None, LstsqDriver::Gelsd).unwrap();
    let got = linalg::try_lstsq_vec(&on.up(&a), &on.up(&b), None, LstsqDriver::Gelsd).unwrap();
    assert_near("lstsq_vec solution", &want.solution, &got.solution);
    assert_near("lstsq_vec residuals", &want.residuals, &got.residuals);
}

#[test]
fn lstsq_matches_cpu() {
    let Some(on) = target() else { return };
    lstsq_match::<f32>(&on);
    lstsq_match::<f64>(&on);
}

fn eig_match<E: F>(on: &On) {
    let mut inputs = square_inputs::<E>(500, |d, s| rand(d, s, 1.0, 0.0));
    // A rotation (complex pair) and a triangular matrix (real eigenvalues).
    inputs.push((
        "rotation and triangle".to_string(),
        vals(&[0., -1., 1., 0., 2., 1., 0., 3.], &[2, 2, 2]),
    ));
    for (what, a) in inputs {
        let g = on.up(&a);
        let (vals, vecs) = linalg::eig(&a);
        let (gvals, gvecs) = linalg::eig(&g);
        assert_near(&format!("eig values re {what}"), &vals.re, &gvals.re);
        assert_near(&format!("eig values im {what}"), &vals.im, &gvals.im);
        assert_near(&format!("eig vectors re {what}"), &vecs.re, &gvecs.re);
        assert_near(&format!("eig vectors im {what}"), &vecs.im, &gvecs.im);
        let ev = linalg::eigvals(&a);
        let gev = linalg::eigvals(&g);
        assert_near(&format!("eigvals re {what}"), &ev.re, &gev.re);
        assert_near(&format!("eigvals im {what}"), &ev.im, &gev.im);
    }
}

#[test]
fn eig_and_eigvals_match_cpu() {
    let Some(on) = target() else { return };
    eig_match::<f32>(&on);
    eig_match::<f64>(&on);
}

#[test]
fn errors_match_cpu() {
    let Some(on) = target() else { return };
    let z = |d: &[usize]| T::<f64>::try_zeros(d).unwrap();
    let r = z(&[2, 3]);
    let gr = on.up(&r);
    same_error(
        "matrix_power of 2x3",
        linalg::try_matrix_power(&r, 2),
        linalg::try_matrix_power(&gr, 2),
    );
    same_error(
        "matrix_power of 2x3, negative",
        linalg::try_matrix_power(&r, -1),
        linalg::try_matrix_power(&gr, -1),
    );
    let s = z(&[2, 2, 2]);
    same_error(
        "matrix_power of singular, negative",
        linalg::try_matrix_power(&s, -2),
        linalg::try_matrix_power(&on.up(&s), -2),
    );
    let v = z(&[3]);
    same_error(
        "matrix_exp of a vector",
        linalg::try_matrix_exp(&v),
        linalg::try_matrix_exp(&on.up(&v)),
    );
    same_error(
        "matrix_exp of 2x3",
        linalg::try_matrix_exp(&r),
        linalg::try_matrix_exp(&gr),
    );
    for (a, tau) in [
        (&[3, 2][..], &[3][..]),
        (&[2, 3][..], &[1][..]),
        (&[3, 2][..], &[][..]),
        (&[2, 3, 2][..], &[2][..]),
        (&[2, 3, 2][..], &[3, 1][..]),
        (&[2][..], &[1][..]),
    ] {
        let (a, tau) = (z(a), z(tau));
        same_error(
            &format!("householder_product {:?} {:?}", a.dims(), tau.dims()),
            linalg::try_householder_product(&a, &tau),
            linalg::try_householder_product(&on.up(&a), &on.up(&tau)),
        );
    }
    for (a, b) in [
        (&[3, 2][..], &[4, 1][..]),
        (&[3, 2][..], &[4, 3, 1][..]),
        (&[3][..], &[3][..]),
        (&[2, 3, 2][..], &[3, 3][..]),
        (&[1, 1, 1, 3][..], &[3, 1, 2][..]),
    ] {
        let (a, b) = (z(a), z(b));
        same_error(
            &format!("lstsq {:?} {:?}", a.dims(), b.dims()),
            linalg::try_lstsq(&a, &b),
            linalg::try_lstsq(&on.up(&a), &on.up(&b)),
        );
    }
    // A NaN: the SVD does not converge (batch element 1 named).
    let mut nan = vec![1., 0., 0., 1., 0., 1.];
    nan.extend([f64::NAN, 0., 0., 1., 0., 1.]);
    let (a, b) = (vals::<f64>(&nan, &[2, 3, 2]), z(&[2, 3, 1]));
    same_error(
        "lstsq of NaN",
        linalg::try_lstsq_with(&a, &b, None, LstsqDriver::Gelsd),
        linalg::try_lstsq_with(&on.up(&a), &on.up(&b), None, LstsqDriver::Gelsd),
    );
    let n = vals::<f64>(&[f64::NAN, 0., 0., 1.], &[2, 2]);
    same_error(
        "eig of NaN",
        linalg::try_eig(&n),
        linalg::try_eig(&on.up(&n)),
    );
    same_error(
        "eigvals of NaN",
        linalg::try_eigvals(&n),
        linalg::try_eigvals(&on.up(&n)),
    );
    same_error("eig of 2x3", linalg::try_eig(&r), linalg::try_eig(&gr));
}

/// The gradient of `sum(w * f(A))` with respect to `A`, on the device of
/// `a` (the weights `w` fixed, so every element has its own upstream
/// gradient).
fn grad_of<D: shaped::autograd::GradDevice<f64>>(
    a: Tensor<f64, DynRank, D>,
    w: Tensor<f64, DynRank, D>,
    f: impl Fn(&Var<f64, DynRank, D>) -> Var<f64, DynRank, D>,
) -> Tensor<f64, DynRank, D> {
    let p = Var::param(a);
    let y = f(&p).mul(&Var::constant(w));
    y.sum().try_backward().unwrap().wrt(&p).unwrap()
}

#[test]
fn matrix_power_and_exp_gradients_match_cpu() {
    let Some(on) = target() else { return };
    let inputs = [
        ("3x3", rand::<f64>(&[3, 3], 600, 0.3, 1.0)),
        ("batched 2x3x4x4", rand::<f64>(&[2, 3, 4, 4], 601, 0.3, 1.0)),
        (
            "transposed view",
            rand::<f64>(&[2, 4, 4], 602, 0.3, 1.0)
                .permute(&[0, 2, 1])
                .unwrap(),
        ),
        ("zero-size batch", rand::<f64>(&[0, 3, 3], 603, 0.3, 1.0)),
    ];
    for (what, a) in inputs {
        let w = rand::<f64>(a.dims(), 610, 1.0, 0.0);
        for k in [0, 1, 2, 5, -1, -2] {
            let f = |x: &Var<f64, DynRank>| autograd::linalg::matrix_power(x, k);
            let want = grad_of(a.clone(), w.clone(), f);
            let got = grad_of(on.up(&a), on.up(&w), |x| {
                autograd::linalg::matrix_power(x, k)
            });
            assert_near(&format!("matrix_power grad {what} ^{k}"), &want, &got);
        }
        let want = grad_of(a.clone(), w.clone(), |x| autograd::linalg::matrix_exp(x));
        let got = grad_of(on.up(&a), on.up(&w), |x| autograd::linalg::matrix_exp(x));
        assert_near(&format!("matrix_exp grad {what}"), &want, &got);
    }
}

/// The gradients of `sum(w * lstsq(A, B))` with respect to `A` and `B`, on
/// the device of `a`.
fn lstsq_grads<D>(
    a: Tensor<f64, DynRank, D>,
    b: Tensor<f64, DynRank, D>,
    w: Tensor<f64, DynRank, D>,
) -> (Tensor<f64, DynRank, D>, Tensor<f64, DynRank, D>)
where
    D: shaped::autograd::GradDevice<f64> + Linalg<f64> + shaped::backend::Backend<i64>,
{
    let (pa, pb) = (Var::param(a), Var::param(b));
    let x: Var<f64, DynRank, D> = autograd::linalg::lstsq(&pa, &pb);
    let g = x.mul(&Var::constant(w)).sum().try_backward().unwrap();
    (g.wrt(&pa).unwrap(), g.wrt(&pb).unwrap())
}

#[test]
fn lstsq_gradients_match_cpu() {
    let Some(on) = target() else { return };
    let cases = [
        ("tall 5x3", vec![5, 3], vec![5, 2]),
        ("wide 3x5", vec![3, 5], vec![3, 2]),
        ("broadcast batches", vec![2, 1, 6, 3], vec![1, 3, 6, 2]),
        ("zero-size batch", vec![0, 5, 3], vec![0, 5, 2]),
    ];
    for (what, ad, bd) in cases {
        let a = rand::<f64>(&ad, 700, 1.0, 0.0);
        let b = rand::<f64>(&bd, 701, 1.0, 0.0);
        let x: T<f64> = linalg::lstsq(&a, &b).solution;
        let w = rand::<f64>(x.dims(), 702, 1.0, 0.0);
        let (ga, gb) = lstsq_grads(a.clone(), b.clone(), w.clone());
        let (dga, dgb) = lstsq_grads(on.up(&a), on.up(&b), on.up(&w));
        assert_near(&format!("lstsq grad A {what}"), &ga, &dga);
        assert_near(&format!("lstsq grad B {what}"), &gb, &dgb);
    }
}

fn lu_match<E: F>(on: &On)
where
    Dev: linalg::LinalgDevice<E>,
{
    // Square (a singular one included), tall, wide, batched with a
    // transposed view, and zero-size batches and matrices.
    let mut inputs = square_inputs::<E>(140, |d, s| rand(d, s, 1.0, 0.0));
    inputs.push(("singular".into(), vals(&[1., 2., 2., 4.], &[2, 2])));
    inputs.push(("tall".into(), rand(&[2, 5, 3], 141, 1.0, 0.0)));
    inputs.push(("wide".into(), rand(&[3, 2, 4], 142, 1.0, 0.0)));
    inputs.push((
        "wide transposed".into(),
        rand(&[2, 3, 4], 143, 1.0, 0.0).permute(&[0, 2, 1]).unwrap(),
    ));
    inputs.push(("zero batch".into(), rand(&[0, 3, 2], 144, 1.0, 0.0)));
    inputs.push(("0 x 3".into(), rand(&[2, 0, 3], 145, 1.0, 0.0)));
    for (what, a) in inputs {
        let g = on.up(&a);
        let (p, l, u) = linalg::lu(&a);
        let (gp, gl, gu) = linalg::lu(&g);
        assert_near(&format!("lu P {what}"), &p, &gp);
        assert_near(&format!("lu L {what}"), &l, &gl);
        assert_near(&format!("lu U {what}"), &u, &gu);
    }
    let v = on.up(&rand::<E>(&[3], 146, 1.0, 0.0));
    same_error(
        "lu of a vector",
        linalg::try_lu(&rand::<E>(&[3], 146, 1.0, 0.0)).map(|_| ()),
        linalg::try_lu(&v).map(|_| ()),
    );
}

#[test]
fn lu_matches_cpu() {
    let Some(on) = target() else { return };
    lu_match::<f32>(&on);
    lu_match::<f64>(&on);
}
