//! Conversions between tensors and `nalgebra` matrices (feature
//! `nalgebra`).
//!
//! A statically sized `SMatrix<T, R, C>` maps to `Tensor<T, (Const<R>,
//! Const<C>)>` (`Shape![R, C]`), and an `SVector<T, N>` to `Shape![N]`; a
//! `DMatrix<T>` maps to `Shape![_, _]`. nalgebra stores column-major, so
//! each conversion copies into the other's order.
//!
//! A static size 1 is `One` in `shaped` (the broadcasting size) and
//! `Const<1>` in nalgebra; the static impls cannot tell them apart, so a
//! matrix with a static dimension of 1 goes through `DMatrix` instead
//! (`Const<1>` fails to build, with a message saying so).
//!
//! ```
//! use nalgebra::{Matrix2x3, DMatrix};
//! use shaped::{Const, Dyn, Shape, Tensor};
//! let m = Matrix2x3::new(1., 2., 3., 4., 5., 6.);
//! let t: Tensor<f64, Shape![2, 3]> = m.into();
//! assert_eq!(t.to_vec(), vec![1., 2., 3., 4., 5., 6.]);
//! assert_eq!(t.to_nalgebra(), m);
//! let d: Tensor<f64, (Dyn, Dyn)> = DMatrix::from_element(2, 2, 7.).into();
//! assert_eq!(d.try_to_dmatrix().unwrap(), DMatrix::from_element(2, 2, 7.));
//! ```

use nalgebra::{DMatrix, SMatrix, SVector};

use crate::element::Element;
use crate::shape::{Const, Dyn, Shape, ShapeError};
use crate::tensor::Tensor;

impl<T: Element, const R: usize, const C: usize> From<SMatrix<T, R, C>>
    for Tensor<T, (Const<R>, Const<C>)>
{
    /// The matrix, element `(i, j)` at index `[i, j]`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![2, 2]>::from(nalgebra::Matrix2::new(1, 2, 3, 4));
    /// assert_eq!(t.get([0, 1]), 2);
    /// ```
    fn from(m: SMatrix<T, R, C>) -> Self {
        Tensor::from_vec(m.transpose().as_slice().to_vec())
    }
}

impl<T: Element, const N: usize> From<SVector<T, N>> for Tensor<T, (Const<N>,)> {
    /// The vector's elements.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f32, Shape![3]>::from(nalgebra::Vector3::new(1., 2., 3.));
    /// assert_eq!(t.to_vec(), vec![1., 2., 3.]);
    /// ```
    fn from(v: SVector<T, N>) -> Self {
        Tensor::from_vec(v.as_slice().to_vec())
    }
}

impl<T: Element> From<DMatrix<T>> for Tensor<T, (Dyn, Dyn)> {
    /// The matrix, element `(i, j)` at index `[i, j]`.
    ///
    /// ```
    /// use shaped::{Dyn, Tensor};
    /// let t = Tensor::<u8, (Dyn, Dyn)>::from(nalgebra::DMatrix::from_row_slice(2, 1, &[5, 6]));
    /// assert_eq!((t.dims(), t.to_vec()), (&[2usize, 1][..], vec![5, 6]));
    /// ```
    fn from(m: DMatrix<T>) -> Self {
        let dims = [m.nrows(), m.ncols()];
        Tensor::try_from_vec(m.transpose().as_slice().to_vec(), &dims)
            .expect("a matrix's elements fill its sizes")
    }
}

impl<T: Element, const R: usize, const C: usize> Tensor<T, (Const<R>, Const<C>)> {
    /// The matrix with the same elements.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f64, Shape![2, 2]>::from([[1., 2.], [3., 4.]]);
    /// assert_eq!(t.to_nalgebra(), nalgebra::Matrix2::new(1., 2., 3., 4.));
    /// ```
    pub fn to_nalgebra(&self) -> SMatrix<T, R, C> {
        SMatrix::from_row_slice(&self.to_vec())
    }
}

impl<T: Element, S: Shape> Tensor<T, S> {
    /// The 2-d tensor as a `DMatrix`.
    ///
    /// # Errors
    /// When the tensor is not 2-d.
    ///
    /// ```
    /// use shaped::{DynRank, Tensor};
    /// let t = Tensor::<i64, DynRank>::try_zeros(&[2, 3]).unwrap();
    /// assert_eq!(t.try_to_dmatrix().unwrap().shape(), (2, 3));
    /// let v = Tensor::<i64, DynRank>::try_zeros(&[3]).unwrap();
    /// assert_eq!(v.try_to_dmatrix().unwrap_err().to_string(),
    ///     "a matrix needs a 2-d tensor, got sizes [3]");
    /// ```
    pub fn try_to_dmatrix(&self) -> Result<DMatrix<T>, ShapeError> {
        match *self.dims() {
            [r, c] => Ok(DMatrix::from_row_slice(r, c, &self.to_vec())),
            _ => Err(ShapeError::Invalid(format!(
                "a matrix needs a 2-d tensor, got sizes {:?}",
                self.dims()
            ))),
        }
    }
}
