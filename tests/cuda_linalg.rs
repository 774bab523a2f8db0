//! CUDA linear algebra (cuBLAS / cuSOLVER batched routines: LU, inverse,
//! solve, det, triangular solves, Cholesky, QR, symmetric eigenvalues,
//! SVD) against the
//! CPU's (itself checked against PyTorch and NumPy in `linalg_*.rs`) on the
//! same random inputs, `f32` and `f64`: unbatched, batched, broadcast batch
//! dimensions, expanded and transposed views, zero-size batches and 0 x 0
//! matrices, and the errors' messages. Without a GPU each test prints
//! "skipped: no CUDA device" and returns (or fails, when
//! `SHAPED_REQUIRE_CUDA` is set).
#![cfg(feature = "cuda")]

use shaped::backend::Linalg;
use shaped::device::{Cuda, CudaDevice};
use shaped::linalg::{self, Triangle};
use shaped::{DynRank, Tensor};

mod common;
use common::cuda::{
    LinalgElement as F, assert_close, device, same_error, square_inputs, unit_values,
};

type T<E> = Tensor<E, DynRank>;
type G<E> = Tensor<E, DynRank, Cuda>;

/// Values in `[-1, 1)` of sizes `dims`; with `diag`, `diag` is added to the
/// diagonal of every (square) matrix, so that it is well conditioned.
fn rand<E: F>(dims: &[usize], seed: u64, diag: f64) -> T<E> {
    let n: usize = dims.iter().product();
    let c = dims.last().copied().unwrap_or(1);
    let r = if dims.len() >= 2 {
        dims[dims.len() - 2]
    } else {
        1
    };
    let v = unit_values(n, seed)
        .into_iter()
        .enumerate()
        .map(|(i, u)| {
            let (row, col) = ((i / c) % r.max(1), i % c.max(1));
            E::of(u * 2.0 - 1.0 + if row == col { diag } else { 0.0 })
        })
        .collect();
    T::try_from_vec(v, dims).unwrap()
}

/// Symmetric positive-definite matrices `M Mᵀ + n I` of sizes `dims`
/// (`(..., n, n)`), computed on the host.
fn spd<E: F>(dims: &[usize], seed: u64) -> T<E> {
    let n = dims[dims.len() - 1];
    let count: usize = dims[..dims.len() - 2].iter().product();
    let m = unit_values(count * n * n, seed);
    let mut out = Vec::with_capacity(count * n * n);
    for b in 0..count {
        let at = |i: usize, j: usize| m[b * n * n + i * n + j] * 2.0 - 1.0;
        for i in 0..n {
            for j in 0..n {
                let dot: f64 = (0..n).map(|k| at(i, k) * at(j, k)).sum();
                out.push(E::of(dot + if i == j { n as f64 } else { 0.0 }));
            }
        }
    }
    T::try_from_vec(out, dims).unwrap()
}

/// The permutation swapping the last two of `rank` dimensions.
fn transpose_perm(rank: usize) -> Vec<isize> {
    let mut p: Vec<isize> = (0..rank as isize).collect();
    p.swap(rank - 2, rank - 1);
    p
}

fn gpu<E: F>(dev: &CudaDevice, t: &T<E>) -> G<E> {
    t.to_device(dev).unwrap()
}

/// CPU and CUDA results of the same sizes and values within `E::TOL`.
#[track_caller]
fn assert_near<E: F>(what: &str, cpu: &T<E>, gpu: &G<E>) {
    assert_close(what, cpu, &gpu.to_cpu().unwrap());
}

fn inv_lu_match<E: F>(dev: &CudaDevice)
where
    Cuda: Linalg<E>,
{
    for (what, a) in square_inputs::<E>(10, |d, s| rand(d, s, 3.0)) {
        let g = gpu(dev, &a);
        // The view keeps its layout on the GPU.
        assert_eq!(g.strides(), a.strides(), "{what}");
        assert_near(&format!("inv {what}"), &linalg::inv(&a), &linalg::inv(&g));
        let (lu, piv) = linalg::lu_factor(&a);
        let (glu, gpiv) = linalg::lu_factor(&g);
        assert_near(&format!("lu_factor {what}"), &lu, &glu);
        assert_eq!(
            piv.to_vec(),
            gpiv.to_cpu().unwrap().to_vec(),
            "pivots {what}"
        );
    }
    // lu_factor_ex of singular matrices: the factors, pivots and info.
    let v = [
        1., 2., 3., 1., 2., 3., 0., 1., 5., 2., 0., 0., 0., 1., 0., 0., 0., 3.,
    ];
    let s = T::try_from_vec(v.iter().map(|&x| E::of(x)).collect(), &[2, 3, 3]).unwrap();
    let (lu, piv, info) = linalg::lu_factor_ex(&s);
    let (glu, gpiv, ginfo) = linalg::lu_factor_ex(&gpu(dev, &s));
    assert_near("lu_factor_ex", &lu, &glu);
    assert_eq!(
        piv.to_vec(),
        gpiv.to_cpu().unwrap().to_vec(),
        "lu_factor_ex pivots"
    );
    assert_eq!(info.to_vec(), vec![3, 0]);
    assert_eq!(
        ginfo.to_cpu().unwrap().to_vec(),
        vec![3, 0],
        "lu_factor_ex info"
    );
    // lu_solve from the factors, batches broadcast: LU (2, 1, 4, 4) with B
    // (3, 4, 2).
    let a = rand::<E>(&[2, 1, 4, 4], 15, 3.0);
    let b = rand::<E>(&[3, 4, 2], 16, 0.0);
    let (lu, piv) = linalg::lu_factor(&a);
    let (glu, gpiv) = linalg::lu_factor(&gpu(dev, &a));
    let x: T<E> = linalg::lu_solve(&lu, &piv, &b);
    let gx: G<E> = linalg::lu_solve(&glu, &gpiv, &gpu(dev, &b));
    assert_near("lu_solve broadcast", &x, &gx);
    // Rectangular LU: one cuSOLVER getrf per matrix.
    for dims in [[2, 3, 5], [2, 5, 3], [0, 2, 3]] {
        let a = rand::<E>(&dims, 20, 0.0);
        let (lu, piv) = linalg::lu_factor(&a);
        let (glu, gpiv) = linalg::lu_factor(&gpu(dev, &a));
        assert_near(&format!("lu_factor {dims:?}"), &lu, &glu);
        assert_eq!(
            piv.to_vec(),
            gpiv.to_cpu().unwrap().to_vec(),
            "pivots {dims:?}"
        );
    }
}

fn det_match<E: F>(dev: &CudaDevice)
where
    Cuda: Linalg<E>,
{
    let mut inputs = square_inputs::<E>(80, |d, s| rand(d, s, 0.0));
    // A singular matrix (two equal rows) and a row swap (odd permutation).
    let v = [
        1., 2., 3., 1., 2., 3., 0., 1., 5., 0., 1., 0., 1., 0., 0., 0., 0., 1.,
    ];
    inputs.push((
        "singular and swapped".to_string(),
        T::try_from_vec(v.iter().map(|&x| E::of(x)).collect(), &[2, 3, 3]).unwrap(),
    ));
    for (what, a) in inputs {
        let g = gpu(dev, &a);
        assert_near(&format!("det {what}"), &linalg::det(&a), &linalg::det(&g));
        let (s, l) = linalg::slogdet(&a);
        let (gs, gl) = linalg::slogdet(&g);
        assert_near(&format!("slogdet sign {what}"), &s, &gs);
        assert_near(&format!("slogdet log {what}"), &l, &gl);
    }
}

#[test]
fn det_and_slogdet_match_cpu() {
    let Some(dev) = device() else { return };
    det_match::<f32>(&dev);
    det_match::<f64>(&dev);
}

#[test]
fn inv_and_lu_factor_match_cpu() {
    let Some(dev) = device() else { return };
    inv_lu_match::<f32>(&dev);
    inv_lu_match::<f64>(&dev);
}

fn solve_match<E: F>(dev: &CudaDevice)
where
    Cuda: Linalg<E>,
{
    let cases: Vec<(&str, T<E>, T<E>)> = vec![
        ("3x3, 3x2", rand(&[3, 3], 30, 3.0), rand(&[3, 2], 31, 0.0)),
        (
            "broadcast batches",
            rand(&[2, 1, 4, 4], 32, 3.0),
            rand(&[3, 4, 2], 33, 0.0),
        ),
        (
            "transposed A and B",
            rand::<E>(&[2, 4, 4], 34, 3.0).permute(&[0, 2, 1]).unwrap(),
            rand::<E>(&[2, 3, 4], 35, 0.0).permute(&[0, 2, 1]).unwrap(),
        ),
        (
            "expanded A",
            rand::<E>(&[1, 3, 3], 36, 3.0).expand(&[4, 3, 3]).unwrap(),
            rand(&[4, 3, 1], 37, 0.0),
        ),
        (
            "zero-size batch",
            rand(&[0, 3, 3], 38, 3.0),
            rand(&[0, 3, 2], 39, 0.0),
        ),
        (
            "no columns",
            rand(&[2, 3, 3], 40, 3.0),
            rand(&[2, 3, 0], 41, 0.0),
        ),
    ];
    for (what, a, b) in &cases {
        let (ga, gb) = (gpu(dev, a), gpu(dev, b));
        let x: T<E> = linalg::solve(a, b);
        let gx: G<E> = linalg::solve(&ga, &gb);
        assert_near(&format!("solve {what}"), &x, &gx);
        let l = linalg::solve_triangular(
            a,
            b,
            Triangle {
                upper: false,
                unit: false,
            },
        );
        let gl = linalg::solve_triangular(
            &ga,
            &gb,
            Triangle {
                upper: false,
                unit: false,
            },
        );
        assert_near(&format!("solve_triangular lower {what}"), &l, &gl);
        let u = linalg::solve_triangular(
            a,
            b,
            Triangle {
                upper: true,
                unit: true,
            },
        );
        let gu = linalg::solve_triangular(
            &ga,
            &gb,
            Triangle {
                upper: true,
                unit: true,
            },
        );
        assert_near(&format!("solve_triangular unit upper {what}"), &u, &gu);
        // X A = B with B's transpose.
        let bt: T<E> = b.permute(&transpose_perm(b.rank())).unwrap();
        let gbt: G<E> = gb.permute(&transpose_perm(gb.rank())).unwrap();
        let r = linalg::solve_triangular_right(
            a,
            &bt,
            Triangle {
                upper: true,
                unit: false,
            },
        );
        let gr = linalg::solve_triangular_right(
            &ga,
            &gbt,
            Triangle {
                upper: true,
                unit: false,
            },
        );
        assert_near(&format!("solve_triangular_right {what}"), &r, &gr);
    }
    // Vector right-hand sides (PyTorch's rule for a 1-d dynamic-rank B).
    let a = rand::<E>(&[2, 3, 3], 42, 3.0);
    let b = rand::<E>(&[3], 43, 0.0);
    let x: T<E> = linalg::solve(&a, &b);
    let gx: G<E> = linalg::solve(&gpu(dev, &a), &gpu(dev, &b));
    assert_near("solve with a vector", &x, &gx);
    let bv = rand::<E>(&[4, 1, 3], 44, 0.0);
    let a4 = rand::<E>(&[4, 2, 3, 3], 45, 3.0);
    let x: T<E> = linalg::solve_vec(&a4, &bv);
    let gx: G<E> = linalg::solve_vec(&gpu(dev, &a4), &gpu(dev, &bv));
    assert_near("solve_vec broadcast", &x, &gx);
}

#[test]
fn solve_and_triangular_solves_match_cpu() {
    let Some(dev) = device() else { return };
    solve_match::<f32>(&dev);
    solve_match::<f64>(&dev);
}

fn cholesky_match<E: F>(dev: &CudaDevice)
where
    Cuda: Linalg<E>,
{
    for (what, a) in square_inputs::<E>(50, |d, s| {
        if d.contains(&0) {
            T::try_zeros(d).unwrap()
        } else {
            spd(d, s)
        }
    }) {
        let g = gpu(dev, &a);
        let l = linalg::cholesky(&a);
        let gl = linalg::cholesky(&g);
        assert_near(&format!("cholesky {what}"), &l, &gl);
        if a.rank() >= 2 && !what.contains("transposed") {
            let b = rand::<E>(&[a.dims()[a.rank() - 1], 2], 51, 0.0);
            let x: T<E> = linalg::cholesky_solve(&b, &l);
            let gx: G<E> = linalg::cholesky_solve(&gpu(dev, &b), &gl);
            assert_near(&format!("cholesky_solve {what}"), &x, &gx);
        }
    }
    // Broadcast batches: B (3, 1, 4, 2) against L (2, 4, 4).
    let l = linalg::cholesky(&spd::<E>(&[2, 4, 4], 52));
    let b = rand::<E>(&[3, 1, 4, 2], 53, 0.0);
    let x: T<E> = linalg::cholesky_solve(&b, &l);
    let gx: G<E> = linalg::cholesky_solve(&gpu(dev, &b), &gpu(dev, &l));
    assert_near("cholesky_solve broadcast", &x, &gx);
    // A NaN in the unread upper triangle does not reach L.
    let mut v = spd::<E>(&[3, 3], 54).to_vec();
    v[1] = E::of(f64::NAN);
    let a = T::try_from_vec(v, &[3, 3]).unwrap();
    assert_near(
        "cholesky ignores the upper triangle",
        &linalg::cholesky(&a),
        &linalg::cholesky(&gpu(dev, &a)),
    );
}

#[test]
fn cholesky_and_cholesky_solve_match_cpu() {
    let Some(dev) = device() else { return };
    cholesky_match::<f32>(&dev);
    cholesky_match::<f64>(&dev);
}

/// `|x|` of a CPU tensor, and of a CUDA one (brought back): eigenvectors
/// and singular vectors are unique up to sign.
fn abs_cpu<E: F>(t: &T<E>) -> T<E> {
    let v = t
        .to_vec()
        .into_iter()
        .map(|x| E::of(x.into().abs()))
        .collect();
    T::try_from_vec(v, t.dims()).unwrap()
}

fn abs_gpu<E: F>(dev: &CudaDevice, t: &G<E>) -> G<E> {
    gpu(dev, &abs_cpu(&t.to_cpu().unwrap()))
}

fn eigh_match<E: F>(dev: &CudaDevice)
where
    Cuda: Linalg<E>,
{
    let mut inputs = square_inputs::<E>(60, |d, s| rand(d, s, 0.0));
    // Above 32: one cuSOLVER syevj per matrix instead of syevjBatched.
    inputs.push(("2x40x40".to_string(), rand(&[2, 40, 40], 61, 0.0)));
    for (what, a) in inputs {
        // Only the lower triangle is read (the inputs are not symmetric).
        let g = gpu(dev, &a);
        let (w, v) = linalg::eigh(&a);
        let (gw, gv) = linalg::eigh(&g);
        assert_near(&format!("eigh values {what}"), &w, &gw);
        assert_near(
            &format!("eigh |vectors| {what}"),
            &abs_cpu(&v),
            &abs_gpu(dev, &gv),
        );
        assert_near(
            &format!("eigvalsh {what}"),
            &linalg::eigvalsh(&a),
            &linalg::eigvalsh(&g),
        );
    }
}

#[test]
fn eigh_matches_cpu() {
    let Some(dev) = device() else { return };
    eigh_match::<f32>(&dev);
    eigh_match::<f64>(&dev);
}

/// `U diag(S) Vh` of each matrix, computed on the host.
fn reconstruct<E: F>(u: &T<E>, s: &T<E>, vh: &T<E>) -> T<E> {
    let (ud, vd) = (u.dims(), vh.dims());
    let (m, k, n) = (ud[ud.len() - 2], ud[ud.len() - 1], vd[vd.len() - 1]);
    let kk = s.dims()[s.rank() - 1];
    let count: usize = ud[..ud.len() - 2].iter().product();
    let (u, s, vh) = (u.to_vec(), s.to_vec(), vh.to_vec());
    let vr = vd[vd.len() - 2];
    let mut out = Vec::with_capacity(count * m * n);
    for b in 0..count {
        for i in 0..m {
            for j in 0..n {
                let x: f64 = (0..kk.min(k).min(vr))
                    .map(|l| {
                        u[b * m * k + i * k + l].into()
                            * s[b * kk + l].into()
                            * vh[b * vr * n + l * n + j].into()
                    })
                    .sum();
                out.push(E::of(x));
            }
        }
    }
    let mut dims = ud[..ud.len() - 2].to_vec();
    dims.extend([m, n]);
    T::try_from_vec(out, &dims).unwrap()
}

fn svd_match<E: F>(dev: &CudaDevice)
where
    Cuda: Linalg<E>,
{
    let mut inputs: Vec<(String, T<E>)> = vec![
        ("3x5".into(), rand(&[3, 5], 70, 0.0)),
        ("batched 2x5x3".into(), rand(&[2, 5, 3], 71, 0.0)),
        ("4x4".into(), rand(&[4, 4], 72, 0.0)),
        ("zero-size batch".into(), rand(&[0, 3, 2], 73, 0.0)),
        ("no rows".into(), T::try_zeros(&[2, 0, 3]).unwrap()),
        // Above 32: one cuSOLVER gesvdj per matrix.
        ("2x40x35".into(), rand(&[2, 40, 35], 74, 0.0)),
    ];
    inputs.push((
        "transposed view".into(),
        rand::<E>(&[2, 3, 6], 75, 0.0).permute(&[0, 2, 1]).unwrap(),
    ));
    inputs.push((
        "expanded batch".into(),
        rand::<E>(&[1, 4, 3], 76, 0.0).expand(&[3, 4, 3]).unwrap(),
    ));
    for (what, a) in inputs {
        let g = gpu(dev, &a);
        assert_near(
            &format!("svdvals {what}"),
            &linalg::svdvals(&a),
            &linalg::svdvals(&g),
        );
        for full in [false, true] {
            let (u, s, vh) = linalg::try_svd_with(&a, full).unwrap();
            let (gu, gs, gvh) = linalg::try_svd_with(&g, full).unwrap();
            let what = format!("svd full={full} {what}");
            assert_near(&format!("{what}: S"), &s, &gs);
            assert_eq!(u.dims(), gu.dims(), "{what}: U");
            assert_eq!(vh.dims(), gvh.dims(), "{what}: Vh");
            // U diag(S) Vh gives A back.
            let (gu, gvh) = (gu.to_cpu().unwrap(), gvh.to_cpu().unwrap());
            let back = reconstruct(&gu, &gs.to_cpu().unwrap(), &gvh);
            assert_near(
                &format!("{what}: U S Vh"),
                &a.try_contiguous().unwrap(),
                &gpu(dev, &back),
            );
            if !full {
                // Distinct singular values: the vectors agree up to sign.
                assert_near(
                    &format!("{what}: |U|"),
                    &abs_cpu(&u),
                    &gpu(dev, &abs_cpu(&gu)),
                );
                assert_near(
                    &format!("{what}: |Vh|"),
                    &abs_cpu(&vh),
                    &gpu(dev, &abs_cpu(&gvh)),
                );
            }
        }
    }
}

/// `x @ y` of two batches of matrices, on the host.
fn host_matmul<E: F>(x: &T<E>, y: &T<E>) -> T<E> {
    let (xd, yd) = (x.dims(), y.dims());
    let (m, k, n) = (xd[xd.len() - 2], xd[xd.len() - 1], yd[yd.len() - 1]);
    let count: usize = xd[..xd.len() - 2].iter().product();
    let (xv, yv) = (x.to_vec(), y.to_vec());
    let mut out = Vec::with_capacity(count * m * n);
    for b in 0..count {
        for i in 0..m {
            for j in 0..n {
                let v: f64 = (0..k)
                    .map(|l| xv[b * m * k + i * k + l].into() * yv[b * k * n + l * n + j].into())
                    .sum();
                out.push(E::of(v));
            }
        }
    }
    let mut dims = xd[..xd.len() - 2].to_vec();
    dims.extend([m, n]);
    T::try_from_vec(out, &dims).unwrap()
}

fn qr_match<E: F>(dev: &CudaDevice)
where
    Cuda: Linalg<E>,
{
    let inputs: Vec<(String, T<E>)> = vec![
        ("5x3".into(), rand(&[5, 3], 90, 0.0)),
        ("batched 2x3x5".into(), rand(&[2, 3, 5], 91, 0.0)),
        ("4x4".into(), rand(&[4, 4], 92, 0.0)),
        ("zero-size batch".into(), rand(&[0, 3, 2], 93, 0.0)),
        (
            "transposed view".into(),
            rand::<E>(&[2, 3, 6], 94, 0.0).permute(&[0, 2, 1]).unwrap(),
        ),
        (
            "expanded batch".into(),
            rand::<E>(&[1, 4, 3], 95, 0.0).expand(&[3, 4, 3]).unwrap(),
        ),
    ];
    for (what, a) in inputs {
        let g = gpu(dev, &a);
        for complete in [false, true] {
            let what = format!("qr complete={complete} {what}");
            let (q, r) = if complete {
                linalg::qr_complete(&a)
            } else {
                linalg::qr(&a)
            };
            let (gq, gr) = if complete {
                linalg::qr_complete(&g)
            } else {
                linalg::qr(&g)
            };
            let (gq, gr) = (gq.to_cpu().unwrap(), gr.to_cpu().unwrap());
            assert_eq!(
                (q.dims(), r.dims()),
                (gq.dims(), gr.dims()),
                "{what}: sizes"
            );
            // Q R gives A back, R is upper triangular and as the CPU's up to
            // the signs of its rows.
            let back = host_matmul(&gq, &gr);
            assert_near(
                &format!("{what}: Q R"),
                &a.try_contiguous().unwrap(),
                &gpu(dev, &back),
            );
            assert_near(
                &format!("{what}: |R|"),
                &abs_cpu(&r),
                &gpu(dev, &abs_cpu(&gr)),
            );
            // Q's columns are orthonormal.
            let qt: T<E> = gq.permute(&transpose_perm(gq.rank())).unwrap();
            let qtq = host_matmul(&qt.try_contiguous().unwrap(), &gq);
            let k = gq.dims()[gq.rank() - 1];
            let count: usize = gq.dims()[..gq.rank() - 2].iter().product();
            let eye: Vec<E> = (0..count * k * k)
                .map(|i| E::of(if (i % (k * k)) / k == i % k { 1.0 } else { 0.0 }))
                .collect();
            let eye = T::try_from_vec(eye, qtq.dims()).unwrap();
            assert_near(&format!("{what}: QᵀQ"), &eye, &gpu(dev, &qtq));
        }
    }
}

#[test]
fn qr_matches_cpu() {
    let Some(dev) = device() else { return };
    qr_match::<f32>(&dev);
    qr_match::<f64>(&dev);
}

#[test]
fn svd_matches_cpu() {
    let Some(dev) = device() else { return };
    svd_match::<f32>(&dev);
    svd_match::<f64>(&dev);
}

#[test]
fn errors_match_cpu() {
    let Some(dev) = device() else { return };
    // Batch element 1 is singular / not positive-definite.
    let s = T::<f64>::try_from_vec(vec![2., 0., 0., 4., 1., 2., 2., 4.], &[2, 2, 2]).unwrap();
    let gs = gpu(&dev, &s);
    same_error("inv", linalg::try_inv(&s), linalg::try_inv(&gs));
    same_error(
        "lu_factor",
        linalg::try_lu_factor(&s),
        linalg::try_lu_factor(&gs),
    );
    let b = T::<f64>::try_zeros(&[3, 1, 2, 1]).unwrap();
    same_error(
        "solve",
        linalg::try_solve(&s, &b),
        linalg::try_solve(&gs, &gpu(&dev, &b)),
    );
    let np = T::<f64>::try_from_vec(vec![4., 2., 2., 5., 1., 2., 2., 1.], &[2, 2, 2]).unwrap();
    same_error(
        "cholesky",
        linalg::try_cholesky(&np),
        linalg::try_cholesky(&gpu(&dev, &np)),
    );
    // Shapes, checked before anything runs.
    let r = T::<f64>::try_zeros(&[2, 3]).unwrap();
    let gr = gpu(&dev, &r);
    same_error("inv of 2x3", linalg::try_inv(&r), linalg::try_inv(&gr));
    same_error(
        "cholesky of 2x3",
        linalg::try_cholesky(&r),
        linalg::try_cholesky(&gr),
    );
    let a = T::<f64>::try_zeros(&[3, 3]).unwrap();
    let b4 = T::<f64>::try_zeros(&[4, 1]).unwrap();
    let (ga, gb4) = (gpu(&dev, &a), gpu(&dev, &b4));
    same_error(
        "solve sizes",
        linalg::try_solve(&a, &b4),
        linalg::try_solve(&ga, &gb4),
    );
    let tri = Triangle {
        upper: true,
        unit: false,
    };
    same_error(
        "solve_triangular sizes",
        linalg::try_solve_triangular(&a, &b4, tri),
        linalg::try_solve_triangular(&ga, &gb4, tri),
    );
    same_error(
        "cholesky_solve sizes",
        linalg::try_cholesky_solve(&b4, &a),
        linalg::try_cholesky_solve(&gb4, &ga),
    );
    let a2 = T::<f64>::try_zeros(&[2, 3, 3]).unwrap();
    let b3 = T::<f64>::try_zeros(&[3, 3, 1]).unwrap();
    same_error(
        "solve batch broadcast",
        linalg::try_solve(&a2, &b3),
        linalg::try_solve(&gpu(&dev, &a2), &gpu(&dev, &b3)),
    );
}
