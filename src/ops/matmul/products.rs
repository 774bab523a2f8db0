//! The unfused products: `matmul` (NumPy's rules, batch dimensions
//! broadcast) and the BLAS family, which does not broadcast: `mm`, `mv`,
//! `bmm`, `dot` and `outer` (alias `ger`).
//!
//! ```
//! use shaped::{Shape, Tensor};
//! let a = Tensor::<f64, Shape![2, 3]>::from_vec(vec![1., 2., 3., 4., 5., 6.]);
//! let v = Tensor::<f64, Shape![3]>::from_vec(vec![1., 0., -1.]);
//! assert_eq!(a.mv(&v).to_vec(), vec![-2., -2.]);
//! assert_eq!(a.matmul(&v).to_vec(), vec![-2., -2.]);
//! ```

use super::call_rule::ProductRule;
use super::call_rule::product_op::Bmm;
use super::rules;
use super::shape::{
    BatchOut, BatchShape, ContractsWith, Matmul, MatmulShape, MatrixShape, MmWith, OuterOut,
    VectorShape,
};
use crate::Tensor;
use crate::backend::Gemm;
use crate::element::Numeric;
use crate::ops::operand::SecondOperand;
use crate::shape::EqualOutput;
use crate::shape::OrPanic;
use crate::shape::Shape;

impl<T: Numeric, S: Shape, D: Gemm<T>> Tensor<T, S, D> {
    /// The matrix product with NumPy's rules, as `torch.matmul` (`@`):
    /// 1-D x 1-D is a dot product (a 0-d result); a 1-D left operand is a
    /// row and a 1-D right operand a column, the promoted 1 removed from the
    /// result; higher ranks are stacks of matrices in the last two
    /// dimensions, whose batch dimensions broadcast.
    ///
    /// # Panics
    /// With PyTorch's message when a run-time size does not fit (static
    /// sizes are checked by the compiler); see [`Tensor::try_matmul`].
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<f32, Shape![2, 5, 7]>::ones();
    /// let b = Tensor::<f32, Shape![5, 2, 7, 3]>::ones();
    /// let c: Tensor<f32, Shape![5, 2, 5, 3]> = a.matmul(&b);
    /// assert_eq!(c.dims(), &[5, 2, 5, 3]);
    /// let v = Tensor::<f32, Shape![7]>::ones();
    /// let d: Tensor<f32, Shape![2, 5]> = a.matmul(&v);
    /// assert_eq!(d.to_vec(), vec![7.0; 10]);
    /// ```
    #[track_caller]
    pub fn matmul<R>(&self, other: &R) -> Tensor<T, Matmul<S, R::Shape>, D>
    where
        R: SecondOperand<T, D>,
        S: MatmulShape<R::Shape>,
    {
        self.try_matmul(other).or_panic()
    }

    /// The fallible form of [`Tensor::matmul`].
    ///
    /// # Errors
    /// PyTorch's messages: a 0-d operand; contracted sizes that differ
    /// (worded as `dot`, `mv`, `mm` or `bmm`, whichever PyTorch dispatches
    /// to); batch dimensions that do not broadcast.
    ///
    /// ```
    /// use shaped::{DynRank, Tensor};
    /// let a = Tensor::<f32, DynRank>::try_zeros(&[2, 5, 7]).unwrap();
    /// let b = Tensor::<f32, DynRank>::try_zeros(&[3, 7, 4]).unwrap();
    /// assert_eq!(a.try_matmul(&b).err().unwrap().to_string(),
    ///     "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0");
    /// ```
    #[allow(clippy::type_complexity)]
    pub fn try_matmul<R>(&self, other: &R) -> Result<Tensor<T, Matmul<S, R::Shape>, D>, D::Error>
    where
        R: SecondOperand<T, D>,
        S: MatmulShape<R::Shape>,
    {
        let other = other.operand();
        let geo = rules::matmul(self.dims(), other.dims())?;
        product(self, other, &geo)
    }

    /// The product of two matrices, as `torch.mm` (no broadcasting).
    ///
    /// # Panics
    /// With PyTorch's message when a run-time size or rank does not fit;
    /// see [`Tensor::try_mm`].
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<i32, Shape![2, 2]>::from_vec(vec![1, 2, 3, 4]);
    /// let i = Tensor::<i32, Shape![2, 2]>::from_vec(vec![1, 0, 0, 1]);
    /// assert_eq!(a.mm(&i).to_vec(), vec![1, 2, 3, 4]);
    /// ```
    #[track_caller]
    pub fn mm<S2: MmWith<S>>(&self, mat2: &Tensor<T, S2, D>) -> Tensor<T, S2::Output, D> {
        self.try_mm(mat2).or_panic()
    }

    /// The fallible form of [`Tensor::mm`].
    ///
    /// # Errors
    /// `mm: self must be a matrix, got 3-D tensor` / `mm: mat2 must be a
    /// matrix, ..` for a
    /// [`DynRank`](crate::DynRank) operand of another rank, and
    /// `mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)` when the
    /// contracted sizes differ.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<f32, Shape![2, _]>::try_zeros(&[2, 3]).unwrap();
    /// let b = Tensor::<f32, Shape![_, 5]>::try_zeros(&[4, 5]).unwrap();
    /// assert_eq!(a.try_mm(&b).err().unwrap().to_string(),
    ///     "mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)");
    /// ```
    pub fn try_mm<S2: MmWith<S>>(
        &self,
        mat2: &Tensor<T, S2, D>,
    ) -> Result<Tensor<T, S2::Output, D>, D::Error> {
        let geo = rules::mm(self.dims(), mat2.dims())?;
        product(self, mat2, &geo)
    }

    /// The product of a matrix and a vector, as `torch.mv`.
    ///
    /// # Panics
    /// With PyTorch's message when a run-time size or rank does not fit;
    /// see [`Tensor::try_mv`].
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<f32, Shape![2, 3]>::ones();
    /// let v = Tensor::<f32, Shape![3]>::from_vec(vec![1., 2., 3.]);
    /// let y: Tensor<f32, Shape![2]> = a.mv(&v);
    /// assert_eq!(y.to_vec(), vec![6., 6.]);
    /// ```
    #[track_caller]
    pub fn mv<S2: VectorShape>(&self, vec: &Tensor<T, S2, D>) -> Tensor<T, (S::Rows,), D>
    where
        S: MatrixShape,
        S::Cols: ContractsWith<S2::Len>,
    {
        self.try_mv(vec).or_panic()
    }

    /// The fallible form of [`Tensor::mv`].
    ///
    /// # Errors
    /// `vector + matrix @ vector expected, got 1, 3, 1` for a
    /// [`DynRank`](crate::DynRank) operand of the wrong rank, and
    /// `size mismatch, got input (2), mat (2x3), vec (4)` when the sizes
    /// differ.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<f32, Shape![2, 3]>::ones();
    /// let v = Tensor::<f32, Shape![_]>::try_ones(&[4]).unwrap();
    /// assert_eq!(a.try_mv(&v).err().unwrap().to_string(),
    ///     "size mismatch, got input (2), mat (2x3), vec (4)");
    /// ```
    #[allow(clippy::type_complexity)] // a one-element shape of the matrix's rows
    pub fn try_mv<S2: VectorShape>(
        &self,
        vec: &Tensor<T, S2, D>,
    ) -> Result<Tensor<T, (S::Rows,), D>, D::Error>
    where
        S: MatrixShape,
        S::Cols: ContractsWith<S2::Len>,
    {
        let geo = rules::mv(self.dims(), vec.dims(), None)?;
        product(self, vec, &geo)
    }

    /// The products of two batches of matrices, entry by entry, as
    /// `torch.bmm` (the batch sizes must be equal; no broadcasting).
    ///
    /// # Panics
    /// With PyTorch's message when a run-time size or rank does not fit;
    /// see [`Tensor::try_bmm`].
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<f32, Shape![4, 2, 3]>::ones();
    /// let b = Tensor::<f32, Shape![4, 3, 5]>::ones();
    /// let c: Tensor<f32, Shape![4, 2, 5]> = a.bmm(&b);
    /// assert_eq!(c.to_vec(), vec![3.0; 40]);
    /// ```
    #[track_caller]
    pub fn bmm<S2>(&self, batch2: &Tensor<T, S2, D>) -> Tensor<T, BatchOut<S, S2>, D>
    where
        S: BatchShape,
        S::Batch: EqualOutput<S2::Batch>,
        S2: BatchShape + ProductRule<Bmm, S, ()>,
        S2::Product: Shape,
    {
        self.try_bmm(batch2).or_panic()
    }

    /// The fallible form of [`Tensor::bmm`].
    ///
    /// # Errors
    /// `batch1 must be a 3D tensor` / `batch2 must be a 3D tensor`, and
    /// `Expected size for first two dimensions of batch2 tensor to be:
    /// [4, 3] but got: [4, 2].` when the sizes differ.
    ///
    /// ```
    /// use shaped::{DynRank, Tensor};
    /// let a = Tensor::<f32, DynRank>::try_zeros(&[4, 2, 3]).unwrap();
    /// let b = Tensor::<f32, DynRank>::try_zeros(&[4, 2, 3]).unwrap();
    /// assert_eq!(a.try_bmm(&b).err().unwrap().to_string(),
    ///     "Expected size for first two dimensions of batch2 tensor to be: [4, 3] but got: [4, 2].");
    /// ```
    pub fn try_bmm<S2>(
        &self,
        batch2: &Tensor<T, S2, D>,
    ) -> Result<Tensor<T, BatchOut<S, S2>, D>, D::Error>
    where
        S: BatchShape,
        S::Batch: EqualOutput<S2::Batch>,
        S2: BatchShape + ProductRule<Bmm, S, ()>,
        S2::Product: Shape,
    {
        let geo = rules::bmm(self.dims(), batch2.dims())?;
        product(self, batch2, &geo)
    }

    /// The dot product of two vectors, a 0-d tensor, as `torch.dot`.
    ///
    /// # Panics
    /// With PyTorch's message when a run-time size or rank does not fit;
    /// see [`Tensor::try_dot`].
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<i64, Shape![3]>::from_vec(vec![1, 2, 3]);
    /// assert_eq!(a.dot(&a).item(), 14);
    /// ```
    #[track_caller]
    pub fn dot<S2: VectorShape>(&self, other: &Tensor<T, S2, D>) -> Tensor<T, (), D>
    where
        S: VectorShape,
        S::Len: ContractsWith<S2::Len>,
    {
        self.try_dot(other).or_panic()
    }

    /// The fallible form of [`Tensor::dot`].
    ///
    /// # Errors
    /// `1D tensors expected, but got 2D and 1D tensors` for a
    /// [`DynRank`](crate::DynRank) operand of another rank, and PyTorch's
    /// `inconsistent tensor size` message when the lengths differ.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<f32, Shape![_]>::try_zeros(&[3]).unwrap();
    /// let b = Tensor::<f32, Shape![_]>::try_zeros(&[4]).unwrap();
    /// assert!(a.try_dot(&b).err().unwrap().to_string().starts_with("inconsistent tensor size"));
    /// ```
    pub fn try_dot<S2: VectorShape>(
        &self,
        other: &Tensor<T, S2, D>,
    ) -> Result<Tensor<T, (), D>, D::Error>
    where
        S: VectorShape,
        S::Len: ContractsWith<S2::Len>,
    {
        let geo = rules::dot(self.dims(), other.dims())?;
        product(self, other, &geo)
    }

    /// The outer product of two vectors, as `torch.outer`: element `(i, j)`
    /// is `self[i] * vec2[j]`.
    ///
    /// # Panics
    /// For a [`DynRank`](crate::DynRank) operand that is not 1-D; see
    /// [`Tensor::try_outer`].
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<i32, Shape![2]>::from_vec(vec![1, 2]);
    /// let b = Tensor::<i32, Shape![3]>::from_vec(vec![1, 10, 100]);
    /// let o: Tensor<i32, Shape![2, 3]> = a.outer(&b);
    /// assert_eq!(o.to_vec(), vec![1, 10, 100, 2, 20, 200]);
    /// ```
    #[track_caller]
    pub fn outer<S2: VectorShape>(&self, vec2: &Tensor<T, S2, D>) -> Tensor<T, OuterOut<S, S2>, D>
    where
        S: VectorShape,
    {
        self.try_outer(vec2).or_panic()
    }

    /// The fallible form of [`Tensor::outer`].
    ///
    /// # Errors
    /// `outer: Expected 1-D argument vec1, but got 2-D` (or `vec2`).
    ///
    /// ```
    /// use shaped::{DynRank, Tensor};
    /// let a = Tensor::<f32, DynRank>::try_zeros(&[2, 2]).unwrap();
    /// let b = Tensor::<f32, DynRank>::try_zeros(&[3]).unwrap();
    /// assert_eq!(a.try_outer(&b).err().unwrap().to_string(),
    ///     "outer: Expected 1-D argument vec1, but got 2-D");
    /// ```
    pub fn try_outer<S2: VectorShape>(
        &self,
        vec2: &Tensor<T, S2, D>,
    ) -> Result<Tensor<T, OuterOut<S, S2>, D>, D::Error>
    where
        S: VectorShape,
    {
        let geo = rules::outer(self.dims(), vec2.dims(), "outer")?;
        product(self, vec2, &geo)
    }

    /// The outer product, under its BLAS name, as `torch.ger`; see
    /// [`Tensor::outer`].
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<f64, Shape![2]>::from_vec(vec![1., 2.]);
    /// assert_eq!(a.ger(&a).to_vec(), vec![1., 2., 2., 4.]);
    /// ```
    #[track_caller]
    pub fn ger<S2: VectorShape>(&self, vec2: &Tensor<T, S2, D>) -> Tensor<T, OuterOut<S, S2>, D>
    where
        S: VectorShape,
    {
        self.outer(vec2)
    }
}

/// `a @ b` laid out by `geo` on their device (the shape rules computed
/// `geo` from their sizes), as a tensor of shape `SO`.
fn product<T: Numeric, D: Gemm<T>, S1: Shape, S2: Shape, SO: Shape>(
    a: &Tensor<T, S1, D>,
    b: &Tensor<T, S2, D>,
    geo: &rules::Geometry,
) -> Result<Tensor<T, SO, D>, D::Error> {
    Ok(Tensor::from_output(D::product(
        a.layout(),
        b.layout(),
        geo,
        T::one(),
    )?)?)
}
