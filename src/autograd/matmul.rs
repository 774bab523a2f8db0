//! Gradients of the matrix products [`Var::matmul`] (NumPy's rules, batch
//! dimensions broadcast) and [`Var::mm`].
//!
//! The value is computed by [`Tensor::try_matmul`]. The backward function
//! works on the promoted forms: a 1-D left operand becomes a `1 × k` row, a
//! 1-D right operand a `k × 1` column, and the upstream gradient is reshaped
//! to the un-squeezed product `batch × m × n`. Then `grad_a = g · bᵀ` and
//! `grad_b = aᵀ · g` (transposes of the last two axes, as views), each
//! computed at the broadcast batch, summed with `sum_to` to its operand's
//! promoted sizes (the batch dimensions it was broadcast over) and reshaped
//! back to the operand's own sizes.
//!
//! ```
//! use shaped::autograd::Var;
//! use shaped::{Shape, Tensor};
//! let a = Var::param(Tensor::<f64, Shape![3]>::from_vec(vec![1., 2., 3.]));
//! let b = Var::param(Tensor::<f64, Shape![3]>::from_vec(vec![4., 5., 6.]));
//! let c: Var<f64, Shape![]> = a.matmul(&b);
//! assert_eq!(c.value().item(), 32.);
//! let g = c.backward();
//! assert_eq!(g.wrt(&a).unwrap().to_vec(), vec![4., 5., 6.]);
//! assert_eq!(g.wrt(&b).unwrap().to_vec(), vec![1., 2., 3.]);
//! ```

use crate::shape::OrPanic;
use smallvec::smallvec;

use super::Var;
use super::device::{GradDevice, reshape_to, sum_to_like};
use super::graph::{BackwardFn, DynTensor};
use crate::backend::Backend;
use crate::element::Float;
use crate::ops::matmul::{ContractsWith, Matmul, MatmulShape, MatrixShape};
use crate::shape::{DimVec, DynRank, Shape};

/// The transpose of the last two axes of `a` (rank ≥ 2), as a view.
fn mt<T: Float, D: Backend<T>>(a: &DynTensor<T, D>) -> DynTensor<T, D> {
    let r = a.dims().len() as isize;
    let mut perm: Vec<isize> = (0..r).collect();
    perm.swap(r as usize - 2, r as usize - 1);
    a.permute::<DynRank>(&perm)
        .expect("a permutation of the axes")
}

/// Whether `x` is a matrix stored column by column (the transpose of a
/// contiguous matrix), with more than one row and column.
fn column_major<T: Float, D: Backend<T>>(x: &DynTensor<T, D>) -> bool {
    matches!((x.dims(), x.strides()), (&[m, n], &[1, s]) if m > 1 && n > 1 && s == m)
}

/// `a` with a 1-D operand promoted to a matrix: a row (`1 × k`) when `left`,
/// a column (`k × 1`) otherwise; other ranks as they are.
fn promote<T: Float, D: Backend<T>>(
    a: &DynTensor<T, D>,
    left: bool,
) -> Result<DynTensor<T, D>, D::Error> {
    match *a.dims() {
        [k] if left => reshape_to(a, &[1, k]),
        [k] => reshape_to(a, &[k, 1]),
        _ => Ok(a.share()),
    }
}

/// The backward function of `a.matmul(b)` (any ranks ≥ 1, batch dimensions
/// broadcast), given both operands.
fn matmul_backward<T: Float, D: GradDevice<T>>(
    a: DynTensor<T, D>,
    b: DynTensor<T, D>,
) -> BackwardFn<T, D> {
    Box::new(move |g, needs| {
        let (a2, b2) = (promote(&a, true)?, promote(&b, false)?);
        // The un-squeezed product's sizes: the broadcast batch, m, n.
        let (ra, rb) = (a2.dims().len(), b2.dims().len());
        let (ba, bb) = (&a2.dims()[..ra - 2], &b2.dims()[..rb - 2]);
        let rank = ba.len().max(bb.len());
        let mut full: DimVec = (0..rank)
            .map(|i| {
                let pick = |d: &[usize]| (i + d.len()).checked_sub(rank).map_or(1, |j| d[j]);
                let (x, y) = (pick(ba), pick(bb));
                if x == 1 { y } else { x }
            })
            .collect();
        full.push(a2.dims()[ra - 2]);
        full.push(b2.dims()[rb - 1]);
        let g2 = reshape_to(g, &full)?;
        // A product (and its batch) can be larger than the forward result:
        // an allocation that fails is the rule's error.
        let grad =
            |x: &DynTensor<T, D>, y: &DynTensor<T, D>, like: &DynTensor<T, D>, dims: &[usize]| {
                let p: DynTensor<T, D> = x.try_matmul(y)?;
                reshape_to(&sum_to_like::<T, D, DynRank>(p, like.dims())?, dims)
            };
        // A column-major matrix operand (the transpose of a contiguous
        // one, as `Linear` uses its weight) gets its gradient in its own
        // layout, the product computed transposed (`(gᵀ·a)ᵀ` for `b`,
        // `(b·gᵀ)ᵀ` for `a`): the optimizer's passes over a parameter and
        // its gradient then run in memory order, as PyTorch's do.
        let swapped = |x: &DynTensor<T, D>, y: &DynTensor<T, D>, dims: &[usize]| {
            let p: DynTensor<T, D> = x.try_matmul(y)?;
            reshape_to(&mt(&p), dims)
        };
        Ok(smallvec![
            needs[0]
                .then(|| match column_major(&a2) && rank == 0 {
                    true => swapped(&b2, &mt(&g2), a.dims()),
                    false => grad(&g2, &mt(&b2), &a2, a.dims()),
                })
                .transpose()?,
            needs[1]
                .then(|| match column_major(&b2) && rank == 0 {
                    true => swapped(&mt(&g2), &a2, b.dims()),
                    false => grad(&mt(&a2), &g2, &b2, b.dims()),
                })
                .transpose()?,
        ])
    })
}

impl<T: Float, S: Shape, D: GradDevice<T>> Var<T, S, D> {
    /// The matrix product with NumPy's rules, as `torch.matmul`, with its
    /// gradient: 1-D · 1-D is a dot product, a 1-D left operand is a row and
    /// a 1-D right operand a column (the promoted 1 removed from the
    /// result), and batch dimensions broadcast; each gradient comes back in
    /// its operand's own shape (summed over the batch dimensions it was
    /// broadcast over).
    ///
    /// # Errors
    /// The errors of [`Tensor::try_matmul`](crate::Tensor::try_matmul)
    /// (possible only for `Dyn` sizes and `DynRank` operands).
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{DynRank, Shape, Tensor};
    /// let a = Var::param(Tensor::<f64, Shape![2, 1, 1, 2]>::from_vec(vec![1., 2., 3., 4.]));
    /// let b = Var::param(Tensor::<f64, Shape![3, 2, 1]>::ones());
    /// let c: Var<f64, Shape![2, 3, 1, 1]> = a.try_matmul(&b).unwrap();
    /// assert_eq!(c.value().to_vec(), vec![3., 3., 3., 7., 7., 7.]);
    /// let g = c.sum().backward();
    /// // Each row of `a` was used by the 3 batches of `b`.
    /// assert_eq!(g.wrt(&a).unwrap().to_vec(), vec![3., 3., 3., 3.]);
    /// assert_eq!(g.wrt(&b).unwrap().to_vec(), vec![4., 6., 4., 6., 4., 6.]);
    /// let x = Var::constant(Tensor::<f64, DynRank>::try_zeros(&[2, 3]).unwrap());
    /// assert!(x.try_matmul(&x).is_err());
    /// ```
    pub fn try_matmul<S2: Shape>(
        &self,
        other: &Var<T, S2, D>,
    ) -> Result<Var<T, Matmul<S, S2>, D>, D::Error>
    where
        S: MatmulShape<S2>,
    {
        let value = self.value.try_matmul(&other.value)?;
        Ok(Var::from_op(
            value,
            &[Some(&self.node), Some(&other.node)],
            || matmul_backward(self.erased(), other.erased()),
        ))
    }

    /// [`Var::try_matmul`], panicking on error.
    ///
    /// # Panics
    /// With PyTorch's message when a run-time size does not fit (static
    /// sizes are checked by the compiler).
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let a = Var::param(Tensor::<f64, Shape![2, 2]>::from_vec(vec![1., 2., 3., 4.]));
    /// let v = Var::param(Tensor::<f64, Shape![2]>::from_vec(vec![1., -1.]));
    /// let y: Var<f64, Shape![2]> = a.matmul(&v);
    /// assert_eq!(y.value().to_vec(), vec![-1., -1.]);
    /// let g = y.sum().backward();
    /// assert_eq!(g.wrt(&a).unwrap().to_vec(), vec![1., -1., 1., -1.]);
    /// assert_eq!(g.wrt(&v).unwrap().to_vec(), vec![4., 6.]);
    /// ```
    #[track_caller]
    pub fn matmul<S2: Shape>(&self, other: &Var<T, S2, D>) -> Var<T, Matmul<S, S2>, D>
    where
        S: MatmulShape<S2>,
    {
        self.try_matmul(other).or_panic()
    }

    /// The product of two matrices, as `torch.mm` (no broadcasting), with
    /// its gradient (`g · otherᵀ` and `selfᵀ · g`).
    ///
    /// # Errors
    /// The errors of [`Tensor::try_mm`](crate::Tensor::try_mm): a `DynRank`
    /// operand that is not a matrix, or contracted sizes that differ.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let a = Var::param(Tensor::<f64, Shape![2, _]>::try_zeros(&[2, 3]).unwrap());
    /// let b = Var::param(Tensor::<f64, Shape![_, 5]>::try_zeros(&[4, 5]).unwrap());
    /// assert_eq!(a.try_mm(&b).err().unwrap().to_string(),
    ///     "mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)");
    /// ```
    #[allow(clippy::type_complexity)]
    pub fn try_mm<S2: MatrixShape>(
        &self,
        mat2: &Var<T, S2, D>,
    ) -> Result<Var<T, (S::Rows, S2::Cols), D>, D::Error>
    where
        S: MatrixShape,
        S::Cols: ContractsWith<S2::Rows>,
    {
        let value = self.value.try_mm(&mat2.value)?;
        Ok(Var::from_op(
            value,
            &[Some(&self.node), Some(&mat2.node)],
            || matmul_backward(self.erased(), mat2.erased()),
        ))
    }

    /// [`Var::try_mm`], panicking on error.
    ///
    /// # Panics
    /// With PyTorch's message when a run-time size or rank does not fit.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let a = Var::param(Tensor::<f64, Shape![2, 2]>::from_vec(vec![1., 2., 3., 4.]));
    /// let b = Var::param(Tensor::<f64, Shape![2, 3]>::from_vec(vec![1., 0., 1., 0., 1., 1.]));
    /// let c: Var<f64, Shape![2, 3]> = a.mm(&b);
    /// assert_eq!(c.value().to_vec(), vec![1., 2., 3., 3., 4., 7.]);
    /// let g = c.sum().backward();
    /// assert_eq!(g.wrt(&a).unwrap().to_vec(), vec![2., 2., 2., 2.]);
    /// assert_eq!(g.wrt(&b).unwrap().to_vec(), vec![4., 4., 4., 6., 6., 6.]);
    /// ```
    #[track_caller]
    pub fn mm<S2: MatrixShape>(&self, mat2: &Var<T, S2, D>) -> Var<T, (S::Rows, S2::Cols), D>
    where
        S: MatrixShape,
        S::Cols: ContractsWith<S2::Rows>,
    {
        self.try_mm(mat2).or_panic()
    }
}
