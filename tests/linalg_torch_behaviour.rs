//! Behaviour and messages that follow PyTorch 2.x's `torch.linalg` (each
//! string checked against `torch` 2.15): LU of rectangular and singular
//! matrices, `cholesky_solve` with a zero pivot, norms of empty matrices,
//! `lstsq`'s parts and vector right-hand sides, `solve`'s vector rule and
//! the batch element it names.

use shaped::linalg::{self, LstsqDriver, MatrixNorm};
use shaped::{DynRank, Shape, Tensor};

fn t(data: Vec<f64>, dims: &[usize]) -> Tensor<f64, DynRank> {
    Tensor::try_from_vec(data, dims).unwrap()
}

fn z(dims: &[usize]) -> Tensor<f64, DynRank> {
    Tensor::try_zeros(dims).unwrap()
}

#[track_caller]
fn err<R>(r: Result<R, shaped::ShapeError>) -> String {
    match r {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

#[track_caller]
fn close(got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    for (g, w) in got.iter().zip(want) {
        assert!(
            (g - w).abs() <= 1e-12 * (1.0 + w.abs()),
            "{got:?} vs {want:?}"
        );
    }
}

const LU_ZERO: &str = "is zero and using it on lu_solve would result in a division by zero. If you still want to perform the factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)";

#[test]
fn lu_factor_rectangular_singular_and_ex() {
    // torch.linalg.lu_factor(arange(1, 7).reshape(3, 2)) and (2, 4).
    let a = t((1..=6).map(f64::from).collect(), &[3, 2]);
    let (lu, piv) = linalg::lu_factor(&a);
    close(&lu.to_vec(), &[5., 6., 0.2, 0.8, 0.6, 0.5]);
    assert_eq!((piv.dims(), piv.to_vec()), (&[2][..], vec![3, 3]));
    let a = t((1..=8).map(f64::from).collect(), &[2, 4]);
    let (lu, piv) = linalg::lu_factor(&a);
    close(&lu.to_vec(), &[5., 6., 7., 8., 0.2, 0.8, 1.6, 2.4]);
    assert_eq!(piv.to_vec(), vec![2, 2]);
    // Static rectangular shapes compile.
    let s = Tensor::<f64, Shape![3, 2]>::from_vec((1..=6).map(f64::from).collect());
    let (lu, _): (Tensor<f64, Shape![3, 2]>, _) = linalg::lu_factor(&s);
    close(&lu.to_vec(), &[5., 6., 0.2, 0.8, 0.6, 0.5]);

    let sing = t(vec![1., 2., 2., 4.], &[2, 2]);
    assert_eq!(
        err(linalg::try_lu_factor(&sing)),
        format!("torch.linalg.lu_factor: U[2,2] {LU_ZERO}")
    );
    let batch = t(
        vec![1., 2., 2., 4., 1., 0., 0., 1., 0., 0., 0., 0.],
        &[3, 2, 2],
    );
    let wide = t(vec![1., 2., 3., 2., 4., 6.], &[2, 3]);
    assert_eq!(
        err(linalg::try_lu_factor(&wide)),
        format!("torch.linalg.lu_factor: U[2,2] {LU_ZERO}")
    );
    let b2 = t(vec![1., 0., 0., 1., 1., 2., 2., 4.], &[2, 2, 2]);
    assert_eq!(
        err(linalg::try_lu_factor(&b2)),
        format!("torch.linalg.lu_factor: (Batch element 1): U[2,2] {LU_ZERO}")
    );
    assert_eq!(
        err(linalg::try_lu_factor(&z(&[2, 2]))),
        format!("torch.linalg.lu_factor: U[1,1] {LU_ZERO}")
    );
    // lu_factor_ex: PyTorch's LU, pivots and info.
    let (lu, piv, info) = linalg::lu_factor_ex(&batch);
    close(
        &lu.to_vec(),
        &[2., 4., 0.5, 0., 1., 0., 0., 1., 0., 0., 0., 0.],
    );
    assert_eq!(piv.to_vec(), vec![2, 2, 1, 2, 1, 2]);
    assert_eq!((info.dims(), info.to_vec()), (&[3][..], vec![2, 0, 1]));
    assert_eq!(
        err(linalg::try_lu_factor(&z(&[3]))),
        "torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: [3] instead"
    );
    assert_eq!(
        err(linalg::try_lu_factor(&z(&[]))),
        "torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: [] instead"
    );
    // Empty batches and matrices.
    let (lu, piv) = linalg::lu_factor(&z(&[0, 2, 2]));
    assert_eq!((lu.dims(), piv.dims()), (&[0, 2, 2][..], &[0, 2][..]));
    let (lu, piv) = linalg::lu_factor(&z(&[0, 0]));
    assert_eq!((lu.dims(), piv.dims()), (&[0, 0][..], &[0][..]));
}

#[test]
fn lu_unpacks_to_p_l_u() {
    // A = P L U for rectangular and singular matrices.
    for (data, dims) in [
        (vec![1., 2., 3., 4., 5., 6.], [3, 2]),
        (vec![1., 2., 3., 2., 4., 6.], [2, 3]),
        (vec![0., 0., 0., 0.], [2, 2]),
    ] {
        let a = t(data.clone(), &dims);
        let (p, l, u) = linalg::lu(&a);
        let (m, n) = (dims[0], dims[1]);
        let k = m.min(n);
        let (p, l, u) = (p.to_vec(), l.to_vec(), u.to_vec());
        let mut plu = vec![0.; m * n];
        for i in 0..m {
            for j in 0..n {
                for r in 0..m {
                    for s in 0..k {
                        plu[i * n + j] += p[i * m + r] * l[r * k + s] * u[s * n + j];
                    }
                }
            }
        }
        close(&plu, &data);
        for r in 0..m {
            for s in 0..k {
                if s > r {
                    assert_eq!(l[r * k + s], 0.);
                }
                if s == r {
                    assert_eq!(l[r * k + s], 1.);
                }
            }
        }
    }
    // torch.linalg.lu([[1, 2], [3, 4]]).P
    let (p, _, _) = linalg::lu(&t(vec![1., 2., 3., 4.], &[2, 2]));
    assert_eq!(p.to_vec(), vec![0., 1., 1., 0.]);
}

#[test]
fn lu_solve_and_cholesky_solve_give_infinities_on_zero_pivots() {
    let lu = t(vec![1., 2., 0., 0.], &[2, 2]);
    let piv = Tensor::<i32, DynRank>::try_from_vec(vec![1, 2], &[2]).unwrap();
    let b = t(vec![1., 1.], &[2, 1]);
    assert_eq!(
        linalg::lu_solve(&lu, &piv, &b).to_vec(),
        vec![f64::NEG_INFINITY, f64::INFINITY]
    );
    // torch.cholesky_solve(ones(2, 1), [[1, 0], [1, 0]]): NaN.
    let l = t(vec![1., 0., 1., 0.], &[2, 2]);
    assert!(
        linalg::cholesky_solve(&b, &l)
            .to_vec()
            .iter()
            .all(|x| x.is_nan())
    );
    assert_eq!(
        err(linalg::try_cholesky_solve(&z(&[4, 1]), &z(&[3, 3]))),
        "Incompatible matrix sizes for cholesky_solve: each A matrix is 3 by 3 but each b matrix is 4 by 1"
    );
    assert_eq!(
        err(linalg::try_cholesky_solve(&z(&[3, 1]), &z(&[3, 4]))),
        "A must be batches of square matrices, but they are 3 by 4 matrices"
    );
    assert_eq!(
        err(linalg::try_cholesky_solve(&z(&[3]), &z(&[3, 3]))),
        "b should have at least 2 dimensions, but has 1 dimensions instead"
    );
    assert_eq!(
        err(linalg::try_cholesky_solve(&z(&[3, 1]), &z(&[3]))),
        "u should have at least 2 dimensions, but has 1 dimensions instead"
    );
    // B is "tensor a" in the batch mismatch, for all three solvers.
    let bad =
        "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0";
    assert_eq!(
        err(linalg::try_cholesky_solve(&z(&[2, 4, 1]), &z(&[3, 4, 4]))),
        bad
    );
    assert_eq!(err(linalg::try_solve(&z(&[3, 4, 4]), &z(&[2, 4, 1]))), bad);
    let piv = Tensor::<i32, DynRank>::try_from_vec(vec![1; 12], &[3, 4]).unwrap();
    assert_eq!(
        err(linalg::try_lu_solve(&z(&[3, 4, 4]), &piv, &z(&[2, 4, 1]))),
        bad
    );
    assert_eq!(
        err(linalg::try_lu_solve(
            &z(&[3, 3]),
            &Tensor::<i32, DynRank>::try_from_vec(vec![1; 3], &[3]).unwrap(),
            &z(&[4, 1])
        )),
        "linalg.lu_solve: Incompatible shapes of A and B for the equation AX = B (3x3 and 4x1)"
    );
}

#[test]
fn matrix_norm_of_empty_matrices() {
    let cases = [
        (MatrixNorm::One, Ok(0.), Ok(0.)),
        (MatrixNorm::Two, Ok(0.), Ok(0.)),
        (MatrixNorm::Inf, Ok(0.), Ok(0.)),
        (MatrixNorm::Fro, Ok(0.), Ok(0.)),
        (MatrixNorm::Nuc, Ok(0.), Ok(0.)),
        (MatrixNorm::NegOne, Ok(0.), Err("0")),
        (MatrixNorm::NegTwo, Err("-1"), Err("-1")),
        (MatrixNorm::NegInf, Err("0"), Ok(0.)),
    ];
    for (ord, rows0, cols0) in cases {
        for (dims, want) in [([0, 3], rows0), ([3, 0], cols0)] {
            let got = linalg::try_matrix_norm(&z(&dims), ord);
            match want {
                Ok(v) => assert_eq!(got.unwrap().to_vec(), vec![v], "{ord:?} {dims:?}"),
                Err(d) => assert_eq!(
                    err(got),
                    format!("amin(): Expected reduction dim {d} to have non-zero size."),
                    "{ord:?} {dims:?}"
                ),
            }
        }
    }
    // Batched: the dimension counts the batch.
    assert_eq!(
        linalg::matrix_norm(&z(&[2, 0, 3]), MatrixNorm::NegOne).to_vec(),
        vec![0., 0.]
    );
    assert_eq!(
        err(linalg::try_matrix_norm(&z(&[2, 0, 3]), MatrixNorm::NegInf)),
        "amin(): Expected reduction dim 1 to have non-zero size."
    );
}

#[test]
fn solve_reads_vectors_by_pytorchs_rule_and_names_as_batch_element() {
    let a = t(vec![2., 0., 0., 4., 1., 0., 0., 1.], &[2, 2, 2]);
    // B (2, 2) = A.shape[:-1]: a batch of vectors.
    let x = linalg::solve(&a, &t(vec![2., 4., 3., 5.], &[2, 2]));
    assert_eq!((x.dims(), x.to_vec()), (&[2, 2][..], vec![1., 1., 3., 5.]));
    // B (2,): one vector for every matrix.
    let x = linalg::solve(&a, &t(vec![2., 4.], &[2]));
    assert_eq!((x.dims(), x.to_vec()), (&[2, 2][..], vec![1., 1., 2., 4.]));
    // B (2, 2, 1): matrices.
    let x = linalg::solve(&a, &t(vec![2., 4., 3., 5.], &[2, 2, 1]));
    assert_eq!(x.dims(), &[2, 2, 1]);
    assert_eq!(
        err(linalg::try_solve(&z(&[3, 3]), &z(&[4]))),
        "linalg.solve: Incompatible shapes of A and B for the equation AX = B (3x3 and 4x1)"
    );
    assert_eq!(
        err(linalg::try_solve(&z(&[3, 3]), &z(&[]))),
        "linalg.solve: The input tensor B must have at least 2 dimensions."
    );
    // A (3, 2, 2) with element 1 singular, B (2, 3, 2, 1): A's element 1.
    let mut ad = [1., 0., 0., 1.].repeat(3);
    ad[4..8].fill(0.);
    let a = t(ad, &[3, 2, 2]);
    assert_eq!(
        err(linalg::try_solve(&a, &z(&[2, 3, 2, 1]))),
        "torch.linalg.solve: (Batch element 1): The solver failed because the input matrix is singular."
    );
    // One singular A against a batch of B: no element named.
    assert_eq!(
        err(linalg::try_solve(&z(&[2, 2]), &z(&[3, 2, 1]))),
        "torch.linalg.solve: The solver failed because the input matrix is singular."
    );
}

#[test]
fn lstsq_parts_per_driver_and_vector_rhs() {
    // A (2, 4, 2) full rank, B (2, 4, 3): the parts' shapes per driver, as
    // torch.linalg.lstsq(A, B, driver=...) gives them.
    let a = t(
        vec![
            1., 0., 1., 1., 1., 2., 1., 3., 2., 1., 0., 1., 1., 1., 3., 0.,
        ],
        &[2, 4, 2],
    );
    let b = t((0..24).map(|i| f64::from(i % 5)).collect(), &[2, 4, 3]);
    for (driver, res, rank, sv) in [
        (LstsqDriver::Gels, vec![2, 3], vec![0], vec![0]),
        (LstsqDriver::Gelsy, vec![0], vec![2], vec![0]),
        (LstsqDriver::Gelsd, vec![2, 3], vec![2], vec![2, 2]),
        (LstsqDriver::Gelss, vec![2, 3], vec![2], vec![2, 2]),
    ] {
        let r = linalg::try_lstsq_with(&a, &b, None, driver).unwrap();
        assert_eq!(r.solution.dims(), &[2, 2, 3]);
        assert_eq!(r.residuals.dims(), res.as_slice(), "{driver:?}");
        assert_eq!(r.rank.dims(), rank.as_slice(), "{driver:?}");
        assert_eq!(r.singular_values.dims(), sv.as_slice(), "{driver:?}");
        if driver != LstsqDriver::Gels {
            assert_eq!(r.rank.to_vec(), vec![2, 2]);
        }
    }
    // Rank-deficient: no residuals, rank 1.
    let d = t(vec![1., 2., 1., 2., 1., 2.], &[3, 2]);
    let r = linalg::try_lstsq_with(&d, &z(&[3, 1]), None, LstsqDriver::Gelsd).unwrap();
    assert_eq!((r.residuals.dims(), r.rank.to_vec()), (&[0][..], vec![1]));
    // A vector B: A.ndim - B.ndim == 1; residuals (..., 1), as PyTorch.
    let r = linalg::try_lstsq_with(&a, &z(&[2, 4]), None, LstsqDriver::Gelsd).unwrap();
    assert_eq!(
        (r.solution.dims(), r.residuals.dims()),
        (&[2, 2][..], &[2, 1][..])
    );
    assert_eq!(
        err(linalg::try_lstsq(&z(&[3, 2]), &z(&[4]))),
        "torch.linalg.lstsq: input.size(-2) should match other.size(-1)"
    );
    assert_eq!(
        err(linalg::try_lstsq(&z(&[3, 2]), &z(&[4, 1]))),
        "torch.linalg.lstsq: input.size(-2) should match other.size(-2)"
    );
    assert_eq!(
        err(linalg::try_lstsq(&z(&[3]), &z(&[3]))),
        "torch.linalg.lstsq: input must have at least 2 dimensions."
    );
    assert_eq!(
        err(linalg::try_lstsq(&z(&[3, 2]), &z(&[]))),
        "torch.linalg.lstsq: other must have at least 1 dimension."
    );
    assert_eq!(
        err(linalg::try_pinv(&z(&[3]))),
        "linalg.pinv(Double{[3]}): expected a tensor with 2 or more dimensions of float, double, cfloat or cdouble types"
    );
    assert_eq!(
        err(linalg::try_pinv(
            &Tensor::<f32, DynRank>::try_zeros(&[]).unwrap()
        )),
        "linalg.pinv(Float{[]}): expected a tensor with 2 or more dimensions of float, double, cfloat or cdouble types"
    );
}

#[test]
fn norm_follows_pytorchs_linalg_norm() {
    use shaped::linalg::NormOrd;
    let v = t(vec![0., 1., 2., 3.], &[4]);
    let m = t(vec![0., 1., 2., 3.], &[2, 2]);
    // torch.linalg.norm(arange(4.)), (.reshape(2, 2)), ord=3, ord=2, 'nuc'.
    let cases = [
        (&v, None, 3.7416573867739413),
        (&m, None, 3.7416573867739413),
        (&v, Some(NormOrd::Num(3.)), 3.3019272488946263),
        (&m, Some(NormOrd::Num(2.)), 3.702459173643833),
        (&m, Some(NormOrd::Nuc), 4.242640687119286),
    ];
    for (x, ord, want) in cases {
        close(&[linalg::norm(x, ord).item()], &[want]);
    }
    assert_eq!(
        err(linalg::try_norm(&v, Some(NormOrd::Nuc))),
        "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."
    );
    assert_eq!(
        err(linalg::try_norm(&m, Some(NormOrd::Num(0.5)))),
        "linalg.matrix_norm: Order 0.5 not supported."
    );
    assert_eq!(
        err(linalg::try_norm(&z(&[2, 2, 2]), Some(NormOrd::Fro))),
        "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got 3D."
    );
}

#[test]
fn svd_full_matrices_flag_and_non_finite_input() {
    let a = t((0..6).map(f64::from).collect(), &[3, 2]);
    let (u, s, vh) = linalg::try_svd_with(&a, true).unwrap();
    assert_eq!(
        (u.dims(), s.dims(), vh.dims()),
        (&[3, 3][..], &[2][..], &[2, 2][..])
    );
    let (u, _, _) = linalg::try_svd_with(&a, false).unwrap();
    assert_eq!(u.dims(), &[3, 2]);
    let nan = t(vec![f64::NAN; 4], &[2, 2]);
    let msg = "linalg.svd: The algorithm failed to converge because the input matrix contained non-finite values.";
    assert_eq!(err(linalg::try_svd(&nan)), msg);
    assert_eq!(err(linalg::try_svdvals(&nan)), msg);
}

#[test]
fn lstsq_ranks_and_batches_follow_pytorch() {
    // torch.linalg.lstsq(randn(*a), randn(*b)): the solution's shape, or
    // its message (torch 2.15). B has A's rank or one less; a B one shorter
    // is a vector only when its sizes are A's without the last.
    let dim = "torch.linalg.lstsq: input.dim() must be greater or equal to other.dim() and (input.dim() - other.dim()) <= 1";
    let rows2 = "torch.linalg.lstsq: input.size(-2) should match other.size(-2)";
    type Case = (
        &'static [usize],
        &'static [usize],
        Result<&'static [usize], &'static str>,
    );
    let cases: [Case; 17] = [
        (&[3, 2], &[4, 3, 1], Err(dim)),
        (&[3, 2], &[2, 4, 3, 1], Err(dim)),
        (&[4, 3, 2], &[2], Err(dim)),
        (&[2, 1, 3, 2], &[5, 3], Err(dim)),
        (&[2, 3, 2], &[3], Err(dim)),
        (&[3, 2], &[4, 3], Err(rows2)),
        (&[4, 3, 2], &[5, 3], Err(rows2)),
        (&[2, 3, 2], &[1, 3], Err(rows2)),
        (&[4, 3, 2], &[4, 3], Ok(&[4, 2])),
        (&[1, 3, 2], &[5, 3, 1], Ok(&[5, 2, 1])),
        (&[2, 1, 3, 2], &[1, 5, 3, 1], Ok(&[2, 5, 2, 1])),
        (&[3, 3, 1], &[3, 2], Ok(&[3, 1, 2])),
        (&[1, 3, 2], &[3, 1], Ok(&[3, 2, 1])),
        (
            &[2, 3, 2],
            &[3, 3],
            Err(
                "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0",
            ),
        ),
        (
            &[4, 3, 2],
            &[5, 3, 1],
            Err(
                "The size of tensor a (4) must match the size of tensor b (5) at non-singleton dimension 0",
            ),
        ),
        (
            &[2, 1, 3, 2],
            &[2, 3, 1],
            Err(
                "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1",
            ),
        ),
        (
            &[1, 1, 1, 3],
            &[3, 1, 2],
            Err("output with shape [3, 1, 1, 2] doesn't match the broadcast shape [3, 3, 1, 2]"),
        ),
    ];
    for (a, b, want) in cases {
        let got = linalg::try_lstsq(&z(a), &z(b));
        match want {
            Ok(dims) => assert_eq!(got.unwrap().solution.dims(), dims, "{a:?} {b:?}"),
            Err(msg) => assert_eq!(err(got), msg, "{a:?} {b:?}"),
        }
    }
    // The typed vector form wants b with A's batch.
    let a = Tensor::<f64, Shape![2, 3, 2]>::zeros();
    let b = Tensor::<f64, Shape![1, 3]>::zeros();
    assert_eq!(
        err(linalg::try_lstsq_vec(&a, &b, None, LstsqDriver::Gelsd)),
        "torch.linalg.lstsq: a vector right-hand side must have the sizes of input without the last, [2, 3], but got [1, 3]"
    );
}

#[test]
fn solve_ex_reads_vectors_as_solve_does() {
    // torch.linalg.solve_ex(A, b) for 1-d b and for b of A's sizes without
    // the last: X has b's rank; a singular A gives infinities and info.
    let a = t(vec![2., 0., 0., 4.], &[2, 2]);
    let (x, info) = linalg::try_solve_ex(&a, &t(vec![2., 4.], &[2])).unwrap();
    assert_eq!(
        (x.dims(), x.to_vec(), info.to_vec()),
        (&[2][..], vec![1., 1.], vec![0])
    );
    let ab = t(vec![2., 0., 0., 4., 1., 2., 2., 4.], &[2, 2, 2]);
    let (x, info) = linalg::try_solve_ex(&ab, &t(vec![2., 4., 1., 1.], &[2, 2])).unwrap();
    assert_eq!(x.dims(), &[2, 2]);
    let inf = f64::INFINITY;
    assert_eq!(x.to_vec(), vec![1., 1., -inf, inf]);
    assert_eq!(info.to_vec(), vec![0, 2]);
    // A batch of A against one 1-d b.
    let (x, _) = linalg::try_solve_ex(&ab, &t(vec![2., 4.], &[2])).unwrap();
    assert_eq!(x.dims(), &[2, 2]);
    // (2, 2) is not (2,): a matrix, as in solve.
    let (x, _) = linalg::try_solve_ex(&a, &t(vec![2., 4., 4., 8.], &[2, 2])).unwrap();
    assert_eq!((x.dims(), x.to_vec()), (&[2, 2][..], vec![1., 2., 1., 2.]));
    assert_eq!(
        err(linalg::try_solve_ex(&z(&[3, 3]), &z(&[4]))),
        "linalg.solve: Incompatible shapes of A and B for the equation AX = B (3x3 and 4x1)"
    );
    assert_eq!(
        err(linalg::try_solve_ex(&z(&[3, 3]), &z(&[2, 3]))),
        "linalg.solve: Incompatible shapes of A and B for the equation AX = B (3x3 and 2x3)"
    );
}
