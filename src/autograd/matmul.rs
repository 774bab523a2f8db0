//! A temporary dense layer for training examples until `ops::matmul` lands.
//!
//! [`Var::naive_matmul_for_autograd`] multiplies two matrices with a plain
//! row-parallel loop (rayon over output rows, the inner loop over the
//! right-hand side's contiguous rows so that it vectorises). It exists only
//! so that this branch can train a small network; it is replaced by
//! `ops::matmul` when that lands (see the module doc of `autograd` for the
//! one place to change).

use rayon::prelude::*;
use smallvec::smallvec;

use super::Var;
use super::graph::Dyn;
use crate::Tensor;
use crate::element::Float;
use crate::shape::{Dim, DynRank, ShapeError};

/// `a (m×k) · b (k×n)`, both read in row-major order, into a new `m×n`
/// tensor.
fn naive_matmul<T: Float>(a: &Dyn<T>, b: &Dyn<T>) -> Dyn<T> {
    let (m, k, n) = (a.dims()[0], a.dims()[1], b.dims()[1]);
    let (av, bv) = (a.to_vec(), b.to_vec());
    let mut out = vec![T::zero(); m * n];
    if n > 0 {
        out.par_chunks_mut(n).enumerate().for_each(|(i, row)| {
            for (p, &x) in av[i * k..(i + 1) * k].iter().enumerate() {
                for (o, &y) in row.iter_mut().zip(&bv[p * n..(p + 1) * n]) {
                    *o = *o + x * y;
                }
            }
        });
    }
    Tensor::try_from_vec(out, &[m, n]).expect("m×n elements")
}

/// The transpose of a matrix, as a view.
fn t<T: Float>(a: &Dyn<T>) -> Dyn<T> {
    a.permute::<DynRank>(&[1, 0])
        .expect("a matrix has two axes")
}

impl<T: Float, M: Dim, K: Dim> Var<T, (M, K)> {
    /// The matrix product `self · other` by a naive parallel loop, with its
    /// gradient (`g · otherᵀ` and `selfᵀ · g`). **Temporary**: replaced by
    /// `ops::matmul` when that lands.
    ///
    /// # Errors
    /// PyTorch's error when the inner sizes differ (possible only for `Dyn`
    /// sizes; static ones must be the same type).
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let a = Var::param(Tensor::<f64, Shape![2, 2]>::from_vec(vec![1., 2., 3., 4.]));
    /// let b = Var::param(Tensor::<f64, Shape![2, 3]>::from_vec(vec![1., 0., 1., 0., 1., 1.]));
    /// let c: Var<f64, Shape![2, 3]> = a.try_naive_matmul_for_autograd(&b).unwrap();
    /// assert_eq!(c.value().to_vec(), vec![1., 2., 3., 3., 4., 7.]);
    /// let g = c.sum().backward();
    /// assert_eq!(g.wrt(&a).unwrap().to_vec(), vec![2., 2., 2., 2.]);
    /// assert_eq!(g.wrt(&b).unwrap().to_vec(), vec![4., 4., 4., 6., 6., 6.]);
    /// ```
    pub fn try_naive_matmul_for_autograd<N: Dim>(
        &self,
        other: &Var<T, (K, N)>,
    ) -> Result<Var<T, (M, N)>, ShapeError> {
        let (a, b) = (self.erased(), other.erased());
        if a.dims()[1] != b.dims()[0] {
            return Err(ShapeError::Invalid(format!(
                "mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{})",
                a.dims()[0],
                a.dims()[1],
                b.dims()[0],
                b.dims()[1]
            )));
        }
        let value = naive_matmul(&a, &b).try_into_shape()?;
        Ok(Var::from_op(
            value,
            &[self.node.as_ref(), other.node.as_ref()],
            move || {
                Box::new(move |g: &Dyn<T>, needs: &[bool]| {
                    smallvec![
                        needs[0].then(|| naive_matmul(g, &t(&b))),
                        needs[1].then(|| naive_matmul(&t(&a), g)),
                    ]
                })
            },
        ))
    }

    /// [`Var::try_naive_matmul_for_autograd`], panicking on error.
    /// **Temporary**: replaced by `ops::matmul` when that lands.
    ///
    /// # Panics
    /// With PyTorch's message when the inner sizes differ.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let a = Var::constant(Tensor::<f32, Shape![1, 2]>::from_vec(vec![1., 2.]));
    /// let b = Var::constant(Tensor::<f32, Shape![2, 1]>::from_vec(vec![3., 4.]));
    /// assert_eq!(a.naive_matmul_for_autograd(&b).value().to_vec(), vec![11.]);
    /// ```
    #[track_caller]
    pub fn naive_matmul_for_autograd<N: Dim>(&self, other: &Var<T, (K, N)>) -> Var<T, (M, N)> {
        self.try_naive_matmul_for_autograd(other)
            .unwrap_or_else(|e| panic!("{e}"))
    }
}
