//! nalgebra conversions, element by element against nalgebra's own
//! `(row, column)` indexing.

use nalgebra::{DMatrix, Matrix3x4, SMatrix, Vector4};
use shaped::{Dyn, DynRank, Shape, Tensor};

#[test]
fn static_matrices_map_to_const_shapes() {
    let m = Matrix3x4::from_fn(|i, j| (i * 10 + j) as f64);
    let t: Tensor<f64, Shape![3, 4]> = m.into();
    for i in 0..3 {
        for j in 0..4 {
            assert_eq!(t.get([i, j]), m[(i, j)]);
        }
    }
    assert_eq!(t.to_nalgebra(), m);
    let tt: Tensor<f64, Shape![4, 3]> = t.transpose::<0, 1>();
    assert_eq!(tt.to_nalgebra(), m.transpose());
    let v: Tensor<i32, Shape![4]> = Vector4::new(1, 2, 3, 4).into();
    assert_eq!(v.to_vec(), vec![1, 2, 3, 4]);
    let sq: SMatrix<f32, 2, 2> =
        Tensor::<f32, Shape![2, 2]>::from([[1., 2.], [3., 4.]]).to_nalgebra();
    assert_eq!(sq[(1, 0)], 3.);
}

#[test]
fn dynamic_matrices_map_to_dyn_shapes() {
    let m = DMatrix::from_fn(2, 5, |i, j| (i * 10 + j) as u32);
    let t: Tensor<u32, (Dyn, Dyn)> = m.clone().into();
    assert_eq!(t.dims(), &[2, 5]);
    for i in 0..2 {
        for j in 0..5 {
            assert_eq!(t.get([i, j]), m[(i, j)]);
        }
    }
    assert_eq!(t.try_to_dmatrix().unwrap(), m);
    assert_eq!(
        t.transpose::<0, 1>().try_to_dmatrix().unwrap(),
        m.transpose()
    );
    let three = Tensor::<u32, DynRank>::try_zeros(&[1, 2, 3]).unwrap();
    assert_eq!(
        three.try_to_dmatrix().unwrap_err().to_string(),
        "a matrix needs a 2-d tensor, got sizes [1, 2, 3]"
    );
}
