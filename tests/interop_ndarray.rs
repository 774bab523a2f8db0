//! ndarray conversions, element by element against a naive reference
//! (the ndarray's own indexing vs the tensor's `get`).

use ndarray::{Array, Array3, ArrayD, IxDyn, s};
use shaped::{DynRank, Shape, Tensor};

#[test]
fn views_share_storage_and_keep_strides() {
    let t = Tensor::<f32, Shape![2, 3, 4]>::from_vec((0..24).map(|x| x as f32).collect());
    let p = t.permute::<Shape![4, 2, 3]>(&[2, 0, 1]).unwrap();
    let g = p.ndarray_view();
    let v = g.view();
    assert_eq!(v.shape(), &[4, 2, 3]);
    for k in 0..4 {
        for i in 0..2 {
            for j in 0..3 {
                assert_eq!(v[[k, i, j]], p.get([k, i, j]));
                assert_eq!(v[[k, i, j]], (i * 12 + j * 4 + k) as f32);
            }
        }
    }
    // No copy: the view reads the tensor's own storage.
    let base = t.as_slice().unwrap().as_ptr();
    assert_eq!(v.as_ptr(), base);
    drop(g);
    // Expanded (stride 0) and empty views.
    let b: Tensor<f32, Shape![5, 3]> = Tensor::<f32, Shape![3]>::from([1., 2., 3.]).broadcast_to();
    assert_eq!(b.ndarray_view().view().strides(), &[0, 1]);
    assert_eq!(
        b.to_ndarray(),
        Array::from_shape_fn((5, 3), |(_, j)| (j + 1) as f32).into_dyn()
    );
    let e = Tensor::<f32, DynRank>::try_zeros(&[2, 0]).unwrap();
    assert_eq!(e.ndarray_view().view().shape(), &[2, 0]);
}

#[test]
fn arrays_convert_in_logical_order() {
    let a = Array3::from_shape_fn((2, 3, 4), |(i, j, k)| (i * 100 + j * 10 + k) as i64);
    // A sliced, non-standard-layout array.
    let sl = a.slice(s![.., ..;2, ..]).permuted_axes([2, 0, 1]);
    let t = Tensor::<i64, Shape![4, 2, _]>::try_from_ndarray(&sl).unwrap();
    assert_eq!(t.dims(), &[4, 2, 2]);
    for k in 0..4 {
        for i in 0..2 {
            for j in 0..2 {
                assert_eq!(t.get([k, i, j]), sl[[k, i, j]]);
            }
        }
    }
    let owned: Tensor<i64, DynRank> = sl.to_owned().into();
    assert_eq!(owned, t);
    let back: ArrayD<i64> = (&t).into();
    assert_eq!(back, sl.into_dyn());
    let e = Tensor::<i64, Shape![2, 2]>::try_from_ndarray(&a).unwrap_err();
    assert_eq!(
        e.to_string(),
        "expected a tensor with 2 dimensions, but got one of shape [2, 3, 4] (3 dimensions)"
    );
    let z: Tensor<u8, DynRank> = ArrayD::<u8>::zeros(IxDyn(&[])).into();
    assert_eq!(z.dims(), &[] as &[usize]);
}
