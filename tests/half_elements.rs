//! `f16` and `bf16` as storage and compute types on the CPU, and the new
//! integer types (`i8`, `i16`, `u16`, `u32`, `u64`) in the ops.

use shaped::element::{bf16, f16};
use shaped::{DynRank, Shape, Tensor};

#[test]
fn matmul_accumulates_in_f32() {
    // torch.ones(1, 4096, dtype=torch.float16) @ torch.ones(4096, 1, dtype=...)
    // is 4096 on the CPU for both types; summing in f16 would stall at 2048
    // (bf16 at 256).
    let a = Tensor::<f16, DynRank>::try_full(&[1, 4096], f16::ONE).unwrap();
    let b = Tensor::<f16, DynRank>::try_full(&[4096, 1], f16::ONE).unwrap();
    assert_eq!(
        a.try_matmul(&b).unwrap().to_vec(),
        vec![f16::from_f32(4096.)]
    );
    let a = Tensor::<bf16, DynRank>::try_full(&[1, 4096], bf16::ONE).unwrap();
    let b = Tensor::<bf16, DynRank>::try_full(&[4096, 1], bf16::ONE).unwrap();
    assert_eq!(
        a.try_matmul(&b).unwrap().to_vec(),
        vec![bf16::from_f32(4096.)]
    );
}

#[test]
fn matmul_matches_a_rounded_f64_reference() {
    // Reference: the exact product of the f16 values in f64, rounded once.
    let (m, k, n) = (5, 300, 7);
    let av: Vec<f16> = (0..m * k)
        .map(|i| f16::from_f32(((i * 37 % 101) as f32 - 50.) / 16.))
        .collect();
    let bv: Vec<f16> = (0..k * n)
        .map(|i| f16::from_f32(((i * 53 % 89) as f32 - 44.) / 8.))
        .collect();
    let a = Tensor::<f16, DynRank>::try_from_vec(av.clone(), &[m, k]).unwrap();
    let b = Tensor::<f16, DynRank>::try_from_vec(bv.clone(), &[k, n]).unwrap();
    // Through a transposed view too.
    let bt = Tensor::<f16, DynRank>::try_from_vec(
        (0..n * k).map(|i| bv[(i % k) * n + i / k]).collect(),
        &[n, k],
    )
    .unwrap();
    let c = a.try_matmul(&b).unwrap().to_vec();
    let c2 = a
        .try_matmul(&bt.permute::<DynRank>(&[1, 0]).unwrap())
        .unwrap()
        .to_vec();
    for i in 0..m {
        for j in 0..n {
            let exact: f64 = (0..k)
                .map(|p| av[i * k + p].to_f64() * bv[p * n + j].to_f64())
                .sum();
            let want = f16::from_f64(exact);
            // The f32 sum is exact here (each product has few bits), so the
            // one rounding gives the correctly rounded result.
            assert_eq!(c[i * n + j], want, "({i}, {j}) exact {exact}");
            assert_eq!(c2[i * n + j], want);
        }
    }
}

#[test]
fn pointwise_ops_and_printing() {
    let x = Tensor::<bf16, Shape![3]>::from([1.5, 2.25, -4.0].map(bf16::from_f32));
    let y = Tensor::<bf16, Shape![3]>::from([0.5, 0.75, 2.0].map(bf16::from_f32));
    let s = &x + &y;
    assert_eq!(s.to_dtype::<f32>().to_vec(), vec![2., 3., -2.]);
    let p = &x * &y;
    assert_eq!(p.to_dtype::<f32>().to_vec(), vec![0.75, 1.6875, -8.]);
    // Printed as PyTorch prints a bfloat16 tensor's values.
    assert_eq!(x.to_string(), "tensor([ 1.5000,  2.2500, -4.0000])");
    assert!(format!("{x:?}").ends_with("dtype=bf16, shape=Shape![3])"));
    let h = Tensor::<f16, Shape![2]>::from([1.5, 2.25].map(f16::from_f32));
    assert_eq!(h.to_string(), "tensor([1.5000, 2.2500])");
}

#[test]
fn new_integer_types_in_pointwise_ops_and_matmul() {
    let a = Tensor::<i8, Shape![3]>::from([100, -100, 7]);
    let b = Tensor::<i8, Shape![3]>::from([100, -100, 3]);
    // Wrapping as PyTorch: torch.tensor([100], dtype=torch.int8) * 2 ... 100 + 100 = -56.
    assert_eq!((&a + &b).to_vec(), vec![-56, 56, 10]);
    let u = Tensor::<u16, Shape![2, 2]>::from([[1, 2], [3, 4]]);
    assert_eq!(u.matmul(&u).to_vec(), vec![7, 10, 15, 22]);
    let big = Tensor::<u64, Shape![2]>::from([u64::MAX, 1]);
    assert_eq!(
        (&big + &Tensor::<u64, Shape![2]>::from([1, 1])).to_vec(),
        vec![0, 2]
    );
    let w = Tensor::<u32, Shape![2]>::from([5, 9]);
    assert_eq!(
        (&w - &Tensor::<u32, Shape![2]>::from([6, 1])).to_vec(),
        vec![u32::MAX, 8]
    );
    let i = Tensor::<i16, Shape![2]>::from([300, -2]);
    assert_eq!(i.to_dtype::<i8>().to_vec(), vec![44, -2]);
}
