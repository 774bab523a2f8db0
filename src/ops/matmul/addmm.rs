//! The products with an addend `beta * input + alpha * product` (PyTorch's
//! "fused" BLAS forms), as `addmm`, `addmv`, `addr`, `baddbmm` and `addbmm`, and their in-place
//! forms (`addmm_`, ...).
//!
//! Only the input broadcasts, to the shape of the unfused product
//! ([`AddendShape`](super::AddendShape)); the operands of the product follow `mm`, `mv`,
//! `outer` and `bmm`. `addbmm` adds the sum over the batch of the products
//! to an input of one matrix's shape. The in-place forms write into the
//! input, which must already have the product's shape ([`FitsProduct`](super::FitsProduct)).
//! With `beta == 0` the input's values are ignored, NaN and infinity
//! included, as PyTorch documents.
//!
//! ```
//! use shaped::{Shape, Tensor};
//! let bias = Tensor::<f32, Shape![3]>::from_vec(vec![1., 2., 3.]);
//! let x = Tensor::<f32, Shape![2, 4]>::ones();
//! let w = Tensor::<f32, Shape![4, 3]>::ones();
//! let y: Tensor<f32, Shape![2, 3]> = bias.addmm(&x, &w, 1.0, 0.5);
//! assert_eq!(y.to_vec(), vec![3., 4., 5., 3., 4., 5.]);
//! ```

use super::call_rule::ProductRule;
use super::call_rule::product_op::{
    Addbmm, AddbmmInPlace, Addmm, AddmmInPlace, Addmv, AddmvInPlace, Addr, AddrInPlace, Baddbmm,
    BaddbmmInPlace,
};
use super::rules;
use super::shape::{
    BatchMatrixOut, BatchOut, BatchShape, MatrixOut, MatrixShape, OuterOut, VectorShape,
};
use crate::Tensor;
use crate::backend::Gemm;
use crate::element::Numeric;
use crate::shape::EqualOutput;
use crate::shape::OrPanic;
use crate::shape::{Shape, ShapeError};

impl<T: Numeric, S: Shape, D: Gemm<T>> Tensor<T, S, D> {
    /// `beta * self + alpha * (mat1 @ mat2)`, as `torch.addmm(self, mat1,
    /// mat2, beta=beta, alpha=alpha)`; `self` broadcasts to `(n, p)`.
    ///
    /// # Panics
    /// With PyTorch's message when a run-time size does not fit; see
    /// [`Tensor::try_addmm`].
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let c = Tensor::<f64, Shape![2, 1]>::from_vec(vec![1., f64::NAN]);
    /// let a = Tensor::<f64, Shape![2, 2]>::from_vec(vec![1., 2., 3., 4.]);
    /// let i = Tensor::<f64, Shape![2, 2]>::from_vec(vec![1., 0., 0., 1.]);
    /// // beta = 0: the input is ignored, its NaN included.
    /// assert_eq!(Tensor::addmm(&c, &a, &i, 0.0, 2.0).to_vec(), vec![2., 4., 6., 8.]);
    /// ```
    #[track_caller]
    pub fn addmm<SA: MatrixShape, SB>(
        &self,
        mat1: &Tensor<T, SA, D>,
        mat2: &Tensor<T, SB, D>,
        beta: T,
        alpha: T,
    ) -> Tensor<T, MatrixOut<SA, SB>, D>
    where
        SB: MatrixShape + ProductRule<Addmm, SA, S>,
        SB::Product: Shape,
    {
        self.try_addmm(mat1, mat2, beta, alpha).or_panic()
    }

    /// The fallible form of [`Tensor::addmm`].
    ///
    /// # Errors
    /// `mm`'s messages for the operands, prefixed `addmm:` (`addmm: self must
    /// be a matrix, got 3-D tensor` for a [`DynRank`](crate::DynRank) one, as
    /// PyTorch names the first operand), then PyTorch's expand
    /// message when `self` does not broadcast to the product.
    ///
    /// ```
    /// use shaped::{DynRank, Tensor};
    /// let c = Tensor::<f32, DynRank>::try_zeros(&[3]).unwrap();
    /// let a = Tensor::<f32, DynRank>::try_zeros(&[2, 4]).unwrap();
    /// let b = Tensor::<f32, DynRank>::try_zeros(&[4, 5]).unwrap();
    /// assert_eq!(c.try_addmm(&a, &b, 1.0, 1.0).err().unwrap().to_string(),
    ///     "The expanded size of the tensor (5) must match the existing size (3) at non-singleton dimension 1.  Target sizes: [2, 5].  Tensor sizes: [3]");
    /// ```
    pub fn try_addmm<SA: MatrixShape, SB>(
        &self,
        mat1: &Tensor<T, SA, D>,
        mat2: &Tensor<T, SB, D>,
        beta: T,
        alpha: T,
    ) -> Result<Tensor<T, MatrixOut<SA, SB>, D>, D::Error>
    where
        SB: MatrixShape + ProductRule<Addmm, SA, S>,
        SB::Product: Shape,
    {
        self.fused_product(mat1, mat2, beta, alpha, addmm_rule)
    }

    /// `self = beta * self + alpha * (mat1 @ mat2)` in place, as
    /// `Tensor.addmm_`; `self` has the product's shape.
    ///
    /// # Panics
    /// With PyTorch's message when a run-time size does not fit; see
    /// [`Tensor::try_addmm_`].
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let mut c = Tensor::<i32, Shape![2, 2]>::ones();
    /// let a = Tensor::<i32, Shape![2, 3]>::ones();
    /// let b = Tensor::<i32, Shape![3, 2]>::ones();
    /// c.addmm_(&a, &b, 10, 1);
    /// assert_eq!(c.to_vec(), vec![13; 4]);
    /// ```
    #[track_caller]
    pub fn addmm_<SA: MatrixShape, SB>(
        &mut self,
        mat1: &Tensor<T, SA, D>,
        mat2: &Tensor<T, SB, D>,
        beta: T,
        alpha: T,
    ) where
        SB: MatrixShape + ProductRule<AddmmInPlace, SA, S>,
        SB::Product: Shape,
    {
        self.try_addmm_(mat1, mat2, beta, alpha).or_panic()
    }

    /// The fallible form of [`Tensor::addmm_`].
    ///
    /// # Errors
    /// `mm`'s messages for the operands; `Bad in-place call: input tensor
    /// size [2, 3] and output tensor size [2, 5] should match` when `self`
    /// does not have the product's shape; PyTorch's overlap message when
    /// elements of `self` share memory.
    ///
    /// ```
    /// use shaped::{DynRank, Tensor};
    /// let mut c = Tensor::<f32, DynRank>::try_zeros(&[2, 3]).unwrap();
    /// let a = Tensor::<f32, DynRank>::try_zeros(&[2, 4]).unwrap();
    /// let b = Tensor::<f32, DynRank>::try_zeros(&[4, 5]).unwrap();
    /// assert_eq!(c.try_addmm_(&a, &b, 1.0, 1.0).err().unwrap().to_string(),
    ///     "Bad in-place call: input tensor size [2, 3] and output tensor size [2, 5] should match");
    /// ```
    pub fn try_addmm_<SA: MatrixShape, SB>(
        &mut self,
        mat1: &Tensor<T, SA, D>,
        mat2: &Tensor<T, SB, D>,
        beta: T,
        alpha: T,
    ) -> Result<(), D::Error>
    where
        SB: MatrixShape + ProductRule<AddmmInPlace, SA, S>,
        SB::Product: Shape,
    {
        self.fused_product_(mat1, mat2, beta, alpha, addmm_rule)
    }

    /// `beta * self + alpha * (mat @ vec)`, as `torch.addmv`; `self` is 1-D
    /// or 0-d and broadcasts to `(n,)`.
    ///
    /// # Panics
    /// With PyTorch's message when a run-time size does not fit; see
    /// [`Tensor::try_addmv`].
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let c = Tensor::<f32, Shape![2]>::from_vec(vec![1., 2.]);
    /// let a = Tensor::<f32, Shape![2, 3]>::ones();
    /// let v = Tensor::<f32, Shape![3]>::ones();
    /// assert_eq!(c.addmv(&a, &v, 2.0, 1.0).to_vec(), vec![5., 7.]);
    /// ```
    #[track_caller]
    pub fn addmv<SA: MatrixShape, SV>(
        &self,
        mat: &Tensor<T, SA, D>,
        vec: &Tensor<T, SV, D>,
        beta: T,
        alpha: T,
    ) -> Tensor<T, (SA::Rows,), D>
    where
        SV: VectorShape + ProductRule<Addmv, SA, S>,
        SV::Product: Shape,
    {
        self.try_addmv(mat, vec, beta, alpha).or_panic()
    }

    /// The fallible form of [`Tensor::addmv`].
    ///
    /// # Errors
    /// `vector + matrix @ vector expected, got 2, 2, 1` when `self` has more
    /// than one dimension (or an operand the wrong rank), and `size
    /// mismatch, got input (3), mat (2x3), vec (3)` when a size differs.
    ///
    /// ```
    /// use shaped::{DynRank, Tensor};
    /// let c = Tensor::<f32, DynRank>::try_zeros(&[3]).unwrap();
    /// let a = Tensor::<f32, DynRank>::try_zeros(&[2, 3]).unwrap();
    /// let v = Tensor::<f32, DynRank>::try_zeros(&[3]).unwrap();
    /// assert_eq!(c.try_addmv(&a, &v, 1.0, 1.0).err().unwrap().to_string(),
    ///     "size mismatch, got input (3), mat (2x3), vec (3)");
    /// ```
    #[allow(clippy::type_complexity)] // a one-element shape of the matrix's rows
    pub fn try_addmv<SA: MatrixShape, SV>(
        &self,
        mat: &Tensor<T, SA, D>,
        vec: &Tensor<T, SV, D>,
        beta: T,
        alpha: T,
    ) -> Result<Tensor<T, (SA::Rows,), D>, D::Error>
    where
        SV: VectorShape + ProductRule<Addmv, SA, S>,
        SV::Product: Shape,
    {
        self.fused_product(mat, vec, beta, alpha, addmv_rule)
    }

    /// `self = beta * self + alpha * (mat @ vec)` in place, as
    /// `Tensor.addmv_`.
    ///
    /// # Panics
    /// With PyTorch's message when a run-time size does not fit; see
    /// [`Tensor::try_addmv_`].
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let mut y = Tensor::<f64, Shape![2]>::ones();
    /// let a = Tensor::<f64, Shape![2, 2]>::from_vec(vec![1., 2., 3., 4.]);
    /// let x = Tensor::<f64, Shape![2]>::from_vec(vec![1., 1.]);
    /// y.addmv_(&a, &x, -1.0, 1.0);
    /// assert_eq!(y.to_vec(), vec![2., 6.]);
    /// ```
    #[track_caller]
    pub fn addmv_<SA: MatrixShape, SV>(
        &mut self,
        mat: &Tensor<T, SA, D>,
        vec: &Tensor<T, SV, D>,
        beta: T,
        alpha: T,
    ) where
        SV: VectorShape + ProductRule<AddmvInPlace, SA, S>,
        SV::Product: Shape,
    {
        self.try_addmv_(mat, vec, beta, alpha).or_panic()
    }

    /// The fallible form of [`Tensor::addmv_`].
    ///
    /// # Errors
    /// As [`Tensor::try_addmv`], and PyTorch's in-place message when `self`
    /// does not have the product's shape.
    ///
    /// ```
    /// use shaped::{DynRank, Tensor};
    /// let mut y = Tensor::<f32, DynRank>::try_zeros(&[1]).unwrap();
    /// let a = Tensor::<f32, DynRank>::try_zeros(&[2, 3]).unwrap();
    /// let v = Tensor::<f32, DynRank>::try_zeros(&[3]).unwrap();
    /// assert_eq!(y.try_addmv_(&a, &v, 1.0, 1.0).err().unwrap().to_string(),
    ///     "Bad in-place call: input tensor size [1] and output tensor size [2] should match");
    /// ```
    pub fn try_addmv_<SA: MatrixShape, SV>(
        &mut self,
        mat: &Tensor<T, SA, D>,
        vec: &Tensor<T, SV, D>,
        beta: T,
        alpha: T,
    ) -> Result<(), D::Error>
    where
        SV: VectorShape + ProductRule<AddmvInPlace, SA, S>,
        SV::Product: Shape,
    {
        self.fused_product_(mat, vec, beta, alpha, addmv_rule)
    }

    /// `beta * self + alpha * outer(vec1, vec2)`, as `torch.addr`; `self`
    /// broadcasts to `(n, m)`.
    ///
    /// # Panics
    /// With PyTorch's message when a run-time size does not fit; see
    /// [`Tensor::try_addr`].
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let c = Tensor::<i64, Shape![1]>::from_vec(vec![100]);
    /// let u = Tensor::<i64, Shape![2]>::from_vec(vec![1, 2]);
    /// let v = Tensor::<i64, Shape![2]>::from_vec(vec![3, 4]);
    /// assert_eq!(c.addr(&u, &v, 1, 1).to_vec(), vec![103, 104, 106, 108]);
    /// ```
    #[track_caller]
    pub fn addr<S1: VectorShape, S2>(
        &self,
        vec1: &Tensor<T, S1, D>,
        vec2: &Tensor<T, S2, D>,
        beta: T,
        alpha: T,
    ) -> Tensor<T, OuterOut<S1, S2>, D>
    where
        S2: VectorShape + ProductRule<Addr, S1, S>,
        S2::Product: Shape,
    {
        self.try_addr(vec1, vec2, beta, alpha).or_panic()
    }

    /// The fallible form of [`Tensor::addr`].
    ///
    /// # Errors
    /// `addr: Expected 1-D argument vec1, but got 2-D` (or `vec2`), then
    /// PyTorch's expand message when `self` does not broadcast.
    ///
    /// ```
    /// use shaped::{DynRank, Tensor};
    /// let c = Tensor::<f32, DynRank>::try_zeros(&[3, 3]).unwrap();
    /// let u = Tensor::<f32, DynRank>::try_zeros(&[2]).unwrap();
    /// assert!(c.try_addr(&u, &u, 1.0, 1.0).is_err());
    /// ```
    pub fn try_addr<S1: VectorShape, S2>(
        &self,
        vec1: &Tensor<T, S1, D>,
        vec2: &Tensor<T, S2, D>,
        beta: T,
        alpha: T,
    ) -> Result<Tensor<T, OuterOut<S1, S2>, D>, D::Error>
    where
        S2: VectorShape + ProductRule<Addr, S1, S>,
        S2::Product: Shape,
    {
        self.fused_product(vec1, vec2, beta, alpha, addr_rule)
    }

    /// `self = beta * self + alpha * outer(vec1, vec2)` in place, as
    /// `Tensor.addr_`.
    ///
    /// # Panics
    /// With PyTorch's message when a run-time size does not fit; see
    /// [`Tensor::try_addr_`].
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let mut c = Tensor::<f32, Shape![2, 2]>::zeros();
    /// let u = Tensor::<f32, Shape![2]>::from_vec(vec![1., 2.]);
    /// c.addr_(&u, &u, 1.0, 1.0);
    /// assert_eq!(c.to_vec(), vec![1., 2., 2., 4.]);
    /// ```
    #[track_caller]
    pub fn addr_<S1: VectorShape, S2>(
        &mut self,
        vec1: &Tensor<T, S1, D>,
        vec2: &Tensor<T, S2, D>,
        beta: T,
        alpha: T,
    ) where
        S2: VectorShape + ProductRule<AddrInPlace, S1, S>,
        S2::Product: Shape,
    {
        self.try_addr_(vec1, vec2, beta, alpha).or_panic()
    }

    /// The fallible form of [`Tensor::addr_`].
    ///
    /// # Errors
    /// As [`Tensor::try_addr`], and PyTorch's in-place message when `self`
    /// does not have the product's shape.
    ///
    /// ```
    /// use shaped::{DynRank, Tensor};
    /// let mut c = Tensor::<f32, DynRank>::try_zeros(&[2, 1]).unwrap();
    /// let u = Tensor::<f32, DynRank>::try_zeros(&[2]).unwrap();
    /// assert!(c.try_addr_(&u, &u, 1.0, 1.0).is_err());
    /// ```
    pub fn try_addr_<S1: VectorShape, S2>(
        &mut self,
        vec1: &Tensor<T, S1, D>,
        vec2: &Tensor<T, S2, D>,
        beta: T,
        alpha: T,
    ) -> Result<(), D::Error>
    where
        S2: VectorShape + ProductRule<AddrInPlace, S1, S>,
        S2::Product: Shape,
    {
        self.fused_product_(vec1, vec2, beta, alpha, addr_rule)
    }

    /// `beta * self + alpha * bmm(batch1, batch2)`, as `torch.baddbmm`;
    /// `self` broadcasts to `(b, n, p)`.
    ///
    /// # Panics
    /// With PyTorch's message when a run-time size does not fit; see
    /// [`Tensor::try_baddbmm`].
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let c = Tensor::<f32, Shape![2, 1, 1]>::from_vec(vec![1., 2.]);
    /// let a = Tensor::<f32, Shape![2, 2, 3]>::ones();
    /// let b = Tensor::<f32, Shape![2, 3, 2]>::ones();
    /// let y: Tensor<f32, Shape![2, 2, 2]> = c.baddbmm(&a, &b, 1.0, 1.0);
    /// assert_eq!(y.to_vec(), vec![4., 4., 4., 4., 5., 5., 5., 5.]);
    /// ```
    #[track_caller]
    pub fn baddbmm<SA: BatchShape, SB>(
        &self,
        batch1: &Tensor<T, SA, D>,
        batch2: &Tensor<T, SB, D>,
        beta: T,
        alpha: T,
    ) -> Tensor<T, BatchOut<SA, SB>, D>
    where
        SA::Batch: EqualOutput<SB::Batch>,
        SB: BatchShape + ProductRule<Baddbmm, SA, S>,
        SB::Product: Shape,
    {
        self.try_baddbmm(batch1, batch2, beta, alpha).or_panic()
    }

    /// The fallible form of [`Tensor::baddbmm`].
    ///
    /// # Errors
    /// `bmm`'s messages for the operands, then PyTorch's expand message when
    /// `self` does not broadcast to the product.
    ///
    /// ```
    /// use shaped::{DynRank, Tensor};
    /// let c = Tensor::<f32, DynRank>::try_zeros(&[3, 1, 1]).unwrap();
    /// let a = Tensor::<f32, DynRank>::try_zeros(&[2, 2, 3]).unwrap();
    /// let b = Tensor::<f32, DynRank>::try_zeros(&[2, 3, 2]).unwrap();
    /// assert_eq!(c.try_baddbmm(&a, &b, 1.0, 1.0).err().unwrap().to_string(),
    ///     "The expanded size of the tensor (2) must match the existing size (3) at non-singleton dimension 0.  Target sizes: [2, 2, 2].  Tensor sizes: [3, 1, 1]");
    /// ```
    pub fn try_baddbmm<SA: BatchShape, SB>(
        &self,
        batch1: &Tensor<T, SA, D>,
        batch2: &Tensor<T, SB, D>,
        beta: T,
        alpha: T,
    ) -> Result<Tensor<T, BatchOut<SA, SB>, D>, D::Error>
    where
        SA::Batch: EqualOutput<SB::Batch>,
        SB: BatchShape + ProductRule<Baddbmm, SA, S>,
        SB::Product: Shape,
    {
        self.fused_product(batch1, batch2, beta, alpha, baddbmm_rule)
    }

    /// `self = beta * self + alpha * bmm(batch1, batch2)` in place, as
    /// `Tensor.baddbmm_`.
    ///
    /// # Panics
    /// With PyTorch's message when a run-time size does not fit; see
    /// [`Tensor::try_baddbmm_`].
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let mut c = Tensor::<f32, Shape![3, 2, 2]>::ones();
    /// let a = Tensor::<f32, Shape![3, 2, 4]>::ones();
    /// let b = Tensor::<f32, Shape![3, 4, 2]>::ones();
    /// c.baddbmm_(&a, &b, 0.5, 0.25);
    /// assert_eq!(c.to_vec(), vec![1.5; 12]);
    /// ```
    #[track_caller]
    pub fn baddbmm_<SA: BatchShape, SB>(
        &mut self,
        batch1: &Tensor<T, SA, D>,
        batch2: &Tensor<T, SB, D>,
        beta: T,
        alpha: T,
    ) where
        SB: BatchShape + ProductRule<BaddbmmInPlace, SA, S>,
        SB::Product: Shape,
    {
        self.try_baddbmm_(batch1, batch2, beta, alpha).or_panic()
    }

    /// The fallible form of [`Tensor::baddbmm_`].
    ///
    /// # Errors
    /// As [`Tensor::try_baddbmm`], and PyTorch's in-place message when
    /// `self` does not have the product's shape.
    ///
    /// ```
    /// use shaped::{DynRank, Tensor};
    /// let mut c = Tensor::<f32, DynRank>::try_zeros(&[1, 2, 2]).unwrap();
    /// let a = Tensor::<f32, DynRank>::try_zeros(&[3, 2, 4]).unwrap();
    /// let b = Tensor::<f32, DynRank>::try_zeros(&[3, 4, 2]).unwrap();
    /// assert_eq!(c.try_baddbmm_(&a, &b, 1.0, 1.0).err().unwrap().to_string(),
    ///     "Bad in-place call: input tensor size [1, 2, 2] and output tensor size [3, 2, 2] should match");
    /// ```
    pub fn try_baddbmm_<SA: BatchShape, SB>(
        &mut self,
        batch1: &Tensor<T, SA, D>,
        batch2: &Tensor<T, SB, D>,
        beta: T,
        alpha: T,
    ) -> Result<(), D::Error>
    where
        SB: BatchShape + ProductRule<BaddbmmInPlace, SA, S>,
        SB::Product: Shape,
    {
        self.fused_product_(batch1, batch2, beta, alpha, baddbmm_rule)
    }

    /// `beta * self + alpha * (sum over i of batch1[i] @ batch2[i])`, as
    /// `torch.addbmm`; `self` broadcasts to `(n, p)`.
    ///
    /// # Panics
    /// With PyTorch's message when a run-time size does not fit; see
    /// [`Tensor::try_addbmm`].
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let c = Tensor::<f32, Shape![]>::full(1.0);
    /// let a = Tensor::<f32, Shape![4, 2, 3]>::ones();
    /// let b = Tensor::<f32, Shape![4, 3, 2]>::ones();
    /// let y: Tensor<f32, Shape![2, 2]> = c.addbmm(&a, &b, 1.0, 1.0);
    /// assert_eq!(y.to_vec(), vec![13.0; 4]);
    /// ```
    #[track_caller]
    pub fn addbmm<SA: BatchShape, SB>(
        &self,
        batch1: &Tensor<T, SA, D>,
        batch2: &Tensor<T, SB, D>,
        beta: T,
        alpha: T,
    ) -> Tensor<T, BatchMatrixOut<SA, SB>, D>
    where
        SB: BatchShape + ProductRule<Addbmm, SA, S>,
        SB::Product: Shape,
    {
        self.try_addbmm(batch1, batch2, beta, alpha).or_panic()
    }

    /// The fallible form of [`Tensor::addbmm`].
    ///
    /// # Errors
    /// PyTorch's `addbmm` messages (`batch1 and batch2 must have same number
    /// of batches, got 2 and 3`, `Incompatible matrix sizes for bmm (2x3 and
    /// 4x2)`), then its expand message when `self` does not broadcast.
    ///
    /// ```
    /// use shaped::{DynRank, Tensor};
    /// let c = Tensor::<f32, DynRank>::try_zeros(&[2, 2]).unwrap();
    /// let a = Tensor::<f32, DynRank>::try_zeros(&[2, 2, 3]).unwrap();
    /// let b = Tensor::<f32, DynRank>::try_zeros(&[3, 3, 2]).unwrap();
    /// assert_eq!(c.try_addbmm(&a, &b, 1.0, 1.0).err().unwrap().to_string(),
    ///     "batch1 and batch2 must have same number of batches, got 2 and 3");
    /// ```
    pub fn try_addbmm<SA: BatchShape, SB>(
        &self,
        batch1: &Tensor<T, SA, D>,
        batch2: &Tensor<T, SB, D>,
        beta: T,
        alpha: T,
    ) -> Result<Tensor<T, BatchMatrixOut<SA, SB>, D>, D::Error>
    where
        SB: BatchShape + ProductRule<Addbmm, SA, S>,
        SB::Product: Shape,
    {
        self.fused_product(batch1, batch2, beta, alpha, addbmm_rule)
    }

    /// `self = beta * self + alpha * (sum over i of batch1[i] @ batch2[i])`
    /// in place, as `Tensor.addbmm_`.
    ///
    /// # Panics
    /// With PyTorch's message when a run-time size does not fit; see
    /// [`Tensor::try_addbmm_`].
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let mut c = Tensor::<i32, Shape![2, 2]>::zeros();
    /// let a = Tensor::<i32, Shape![5, 2, 1]>::ones();
    /// let b = Tensor::<i32, Shape![5, 1, 2]>::ones();
    /// c.addbmm_(&a, &b, 1, 2);
    /// assert_eq!(c.to_vec(), vec![10; 4]);
    /// ```
    #[track_caller]
    pub fn addbmm_<SA: BatchShape, SB>(
        &mut self,
        batch1: &Tensor<T, SA, D>,
        batch2: &Tensor<T, SB, D>,
        beta: T,
        alpha: T,
    ) where
        SB: BatchShape + ProductRule<AddbmmInPlace, SA, S>,
        SB::Product: Shape,
    {
        self.try_addbmm_(batch1, batch2, beta, alpha).or_panic()
    }

    /// The fallible form of [`Tensor::addbmm_`].
    ///
    /// # Errors
    /// As [`Tensor::try_addbmm`], and PyTorch's in-place message when `self`
    /// does not have the product's shape.
    ///
    /// ```
    /// use shaped::{DynRank, Tensor};
    /// let mut c = Tensor::<f32, DynRank>::try_zeros(&[2, 3]).unwrap();
    /// let a = Tensor::<f32, DynRank>::try_zeros(&[4, 2, 3]).unwrap();
    /// let b = Tensor::<f32, DynRank>::try_zeros(&[4, 3, 2]).unwrap();
    /// assert!(c.try_addbmm_(&a, &b, 1.0, 1.0).is_err());
    /// ```
    pub fn try_addbmm_<SA: BatchShape, SB>(
        &mut self,
        batch1: &Tensor<T, SA, D>,
        batch2: &Tensor<T, SB, D>,
        beta: T,
        alpha: T,
    ) -> Result<(), D::Error>
    where
        SB: BatchShape + ProductRule<AddbmmInPlace, SA, S>,
        SB::Product: Shape,
    {
        self.fused_product_(batch1, batch2, beta, alpha, addbmm_rule)
    }

    /// `beta * self + alpha * (a @ b)` for the product `rule` describes,
    /// `self` broadcast to its shape; the body of the `try_` forms.
    fn fused_product<SA: Shape, SB: Shape, O: Shape>(
        &self,
        a: &Tensor<T, SA, D>,
        b: &Tensor<T, SB, D>,
        beta: T,
        alpha: T,
        rule: Rule,
    ) -> Result<Tensor<T, O, D>, D::Error> {
        let geo = rule(a.dims(), b.dims(), self.dims())?;
        let (c, a, b) = (self.layout(), a.layout(), b.layout());
        Ok(Tensor::from_output(D::fused(c, a, b, &geo, beta, alpha)?)?)
    }

    /// `self = beta * self + alpha * (a @ b)` in place for the product
    /// `rule` describes; the body of the `try_..._` forms.
    fn fused_product_<SA: Shape, SB: Shape>(
        &mut self,
        a: &Tensor<T, SA, D>,
        b: &Tensor<T, SB, D>,
        beta: T,
        alpha: T,
        rule: Rule,
    ) -> Result<(), D::Error> {
        let geo = rule(a.dims(), b.dims(), self.dims())?;
        D::fused_(self.layout(), a.layout(), b.layout(), &geo, beta, alpha)
    }
}

/// The run-time rule of a fused product: its geometry from the sizes of its
/// two operands and of the added input, or PyTorch's message.
type Rule = fn(&[usize], &[usize], &[usize]) -> Result<rules::Geometry, ShapeError>;

/// `addmm`'s rule for its operands: `mm`'s, with its own rank messages.
fn addmm_rule(a: &[usize], b: &[usize], _input: &[usize]) -> Result<rules::Geometry, ShapeError> {
    rules::mm_for("addmm", a, b)
}

/// `addmv`'s rule: `mv`'s, which also checks the input.
fn addmv_rule(
    mat: &[usize],
    vec: &[usize],
    input: &[usize],
) -> Result<rules::Geometry, ShapeError> {
    rules::mv(mat, vec, Some(input))
}

/// `addr`'s rule: `outer`'s, with `addr`'s name in its messages.
fn addr_rule(a: &[usize], b: &[usize], _input: &[usize]) -> Result<rules::Geometry, ShapeError> {
    rules::outer(a, b, "addr")
}

/// `baddbmm`'s rule: `bmm`'s.
fn baddbmm_rule(a: &[usize], b: &[usize], _input: &[usize]) -> Result<rules::Geometry, ShapeError> {
    rules::bmm(a, b)
}

/// `addbmm`'s rule: `bmm`'s, the batch summed.
fn addbmm_rule(a: &[usize], b: &[usize], _input: &[usize]) -> Result<rules::Geometry, ShapeError> {
    rules::bmm_sum(a, b)
}
