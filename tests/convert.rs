//! Conversions into tensors: `From` nested arrays for every static shape of
//! rank 1 to 3 (any mix of `Const` and `One` sizes), `From<Vec<T>>` for the
//! 1-d dynamic shapes and `TryFrom<Vec<T>>` for the others, each element
//! checked against the array or vector it came from, index by index.

use proptest::prelude::*;
use shaped::{DynRank, Shape, Tensor};

/// Builds `$shape` from a nested array of the given sizes, with distinct
/// values, and checks the sizes and every element against the array.
macro_rules! check_array {
    ($shape:ty, [$n0:literal]) => {{
        let a: [i32; $n0] = std::array::from_fn(|i| 10 * i as i32 + 1);
        let t = Tensor::<i32, $shape>::from(a);
        assert_eq!(t.dims(), &[$n0]);
        for i in 0..$n0 {
            assert_eq!(t.get([i]), a[i]);
        }
    }};
    ($shape:ty, [$n0:literal, $n1:literal]) => {{
        let a: [[i32; $n1]; $n0] =
            std::array::from_fn(|i| std::array::from_fn(|j| 100 * i as i32 + 10 * j as i32 + 1));
        let t = Tensor::<i32, $shape>::from(a);
        assert_eq!(t.dims(), &[$n0, $n1]);
        for i in 0..$n0 {
            for j in 0..$n1 {
                assert_eq!(t.get([i, j]), a[i][j]);
            }
        }
    }};
    ($shape:ty, [$n0:literal, $n1:literal, $n2:literal]) => {{
        let a: [[[i32; $n2]; $n1]; $n0] = std::array::from_fn(|i| {
            std::array::from_fn(|j| std::array::from_fn(|k| (100 * i + 10 * j + k) as i32 + 1))
        });
        let t = Tensor::<i32, $shape>::from(a);
        assert_eq!(t.dims(), &[$n0, $n1, $n2]);
        for i in 0..$n0 {
            for j in 0..$n1 {
                for k in 0..$n2 {
                    assert_eq!(t.get([i, j, k]), a[i][j][k]);
                }
            }
        }
    }};
}

#[test]
fn nested_arrays_build_shapes_with_size_one_dims() {
    // The example.
    let t = Tensor::<f32, Shape![1, 3]>::from([[1., 2., 3.]]);
    assert_eq!((t.dims(), t.to_vec()), (&[1, 3][..], vec![1., 2., 3.]));

    check_array!(Shape![4], [4]);
    check_array!(Shape![1], [1]);

    check_array!(Shape![2, 3], [2, 3]);
    check_array!(Shape![1, 3], [1, 3]);
    check_array!(Shape![3, 1], [3, 1]);
    check_array!(Shape![1, 1], [1, 1]);

    check_array!(Shape![2, 3, 4], [2, 3, 4]);
    check_array!(Shape![1, 3, 4], [1, 3, 4]);
    check_array!(Shape![2, 1, 4], [2, 1, 4]);
    check_array!(Shape![2, 3, 1], [2, 3, 1]);
    check_array!(Shape![1, 1, 4], [1, 1, 4]);
    check_array!(Shape![1, 3, 1], [1, 3, 1]);
    check_array!(Shape![2, 1, 1], [2, 1, 1]);
    check_array!(Shape![1, 1, 1], [1, 1, 1]);
}

#[test]
fn a_converted_row_broadcasts_as_size_one() {
    // The `One` size from the array is the static size 1: it broadcasts.
    let row = Tensor::<f32, Shape![1, 3]>::from([[1., 2., 3.]]);
    let col: Tensor<f32, Shape![2, 1]> = [[10.], [20.]].into();
    let sum: Tensor<f32, Shape![2, 3]> = &row + &col;
    assert_eq!(sum.to_vec(), vec![11., 12., 13., 21., 22., 23.]);
}

#[test]
fn vecs_convert_infallibly_to_the_one_dimensional_dynamic_shapes() {
    let v = vec![3u8, 1, 4, 1, 5];
    let d: Tensor<u8, Shape![_]> = v.clone().into();
    assert_eq!((d.dims(), d.to_vec()), (&[5][..], v.clone()));
    let r = Tensor::<u8, DynRank>::from(v.clone());
    assert_eq!((r.dims(), r.to_vec()), (&[5][..], v));
    let empty = Tensor::<u8, DynRank>::from(Vec::new());
    assert_eq!(empty.dims(), &[0]);
}

#[test]
fn vecs_convert_fallibly_to_every_other_shape() {
    // Rank 0 and the rank-1 static shapes, `One` included.
    let s: Tensor<i16, Shape![]> = vec![7].try_into().unwrap();
    assert_eq!((s.dims(), s.to_vec()), (&[][..], vec![7]));
    assert_eq!(
        Tensor::<i16, Shape![1]>::try_from(vec![7])
            .unwrap()
            .to_vec(),
        vec![7]
    );
    assert_eq!(
        Tensor::<i16, Shape![1]>::try_from(vec![7, 8])
            .unwrap_err()
            .to_string(),
        "shape '[1]' is invalid for input of size 2"
    );
    assert_eq!(
        Tensor::<i16, Shape![3]>::try_from(vec![1, 2, 3])
            .unwrap()
            .to_vec(),
        vec![1, 2, 3]
    );
    // Higher ranks: static sizes checked, one `_` inferred.
    let t: Tensor<i16, Shape![2, 1, _]> = (0..6).collect::<Vec<i16>>().try_into().unwrap();
    assert_eq!(t.dims(), &[2, 1, 3]);
    assert_eq!(t.get([1, 0, 2]), 5);
    let r5 = Tensor::<i16, Shape![1, 2, 1, 2, 1]>::try_from(vec![1, 2, 3, 4]).unwrap();
    assert_eq!(r5.get([0, 1, 0, 0, 0]), 3);
    // torch.tensor([1, 2, 3]).view(2, 2): "shape '[2, 2]' is invalid for
    // input of size 3".
    assert_eq!(
        Tensor::<i16, Shape![2, 2]>::try_from(vec![1, 2, 3])
            .unwrap_err()
            .to_string(),
        "shape '[2, 2]' is invalid for input of size 3"
    );
}

proptest! {
    /// `TryFrom<Vec<T>>` for `Shape![_, 3]`: fits exactly when the length
    /// is a multiple of 3, with the inferred size `len / 3` and the
    /// elements row-major.
    #[test]
    fn one_dynamic_size_is_inferred(len in 0usize..40) {
        let v: Vec<u32> = (0..len as u32).map(|x| x * 7 + 1).collect();
        let t = Tensor::<u32, Shape![_, 3]>::try_from(v.clone());
        prop_assert_eq!(t.is_ok(), len % 3 == 0);
        if let Ok(t) = t {
            prop_assert_eq!(t.dims(), &[len / 3, 3]);
            for (i, &x) in v.iter().enumerate() {
                prop_assert_eq!(t.get([i / 3, i % 3]), x);
            }
        }
    }
}
