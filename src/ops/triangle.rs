//! `tril` / `triu`: the lower or upper triangle of the matrices in the last
//! two axes (any leading axes are a batch), the rest set to zero, as
//! `torch.tril(t, diagonal)` / `torch.triu(t, diagonal)`. `diagonal = 0`
//! is the main diagonal, `> 0` above it, `< 0` below it; element `(i, j)`
//! is on diagonal `j - i`.
//!
//! The same triangle is the causal attention mask
//! ([`Causal`](crate::nn::Causal), [`causal_mask`](crate::nn::causal_mask)).
//!
//! ```
//! use shaped::{Shape, Tensor};
//! let t = Tensor::<i32, Shape![3, 3]>::ones();
//! assert_eq!(t.tril(0).to_vec(), vec![1, 0, 0, 1, 1, 0, 1, 1, 1]);
//! assert_eq!(t.triu(1).to_vec(), vec![0, 1, 1, 0, 0, 1, 0, 0, 0]);
//! ```
//!
//! # Design
//! The `(rows, cols)` mask of the elements outside the triangle is made on
//! the host and the tensor's device fills them with zero through its
//! `masked_fill` (the mask broadcast over the batch axes, stride 0), so a
//! CUDA tensor never leaves the device.

use crate::Tensor;
use crate::backend::Backend;
use crate::element::Element;
use crate::shape::{DynRank, OrPanic, Shape, ShapeError};
use crate::tensor::host;
use crate::tensor::indexing;

/// Which triangle of a matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Triangle {
    /// On and below the diagonal (`j - i <= diagonal`).
    Lower,
    /// On and above the diagonal (`j - i >= diagonal`).
    Upper,
}

/// A `rows × cols` matrix, row-major: `true` on the triangle `which` of
/// diagonal `diagonal`.
pub(crate) fn triangle(rows: usize, cols: usize, diagonal: i64, which: Triangle) -> Vec<bool> {
    (0..rows)
        .flat_map(|i| {
            (0..cols).map(move |j| {
                let d = j as i64 - i as i64;
                match which {
                    Triangle::Lower => d <= diagonal,
                    Triangle::Upper => d >= diagonal,
                }
            })
        })
        .collect()
}

impl<T: Element, S: Shape, D: Backend<T> + Backend<bool>> Tensor<T, S, D> {
    /// `self` with the elements outside triangle `which` set to zero.
    fn keep_triangle(&self, diagonal: i64, which: Triangle) -> Result<Self, D::Error> {
        let dims = self.dims();
        if dims.len() < 2 {
            let name = if which == Triangle::Lower {
                "tril"
            } else {
                "triu"
            };
            return Err(ShapeError::Invalid(format!(
                "{name}: input tensor must have at least 2 dimensions"
            ))
            .into());
        }
        let (r, c) = (dims[dims.len() - 2], dims[dims.len() - 1]);
        let outside: Vec<bool> = triangle(r, c, diagonal, which)
            .into_iter()
            .map(|inside| !inside)
            .collect();
        let mask: Tensor<bool, DynRank, D> = host::from_host(self, outside, &[r, c])?;
        indexing::masked_fill(self, &mask, T::default())
    }

    /// The lower triangle of each matrix (the last two axes): the elements
    /// on and below diagonal `diagonal` kept, the others zero (`false`), as
    /// `torch.tril(self, diagonal)`.
    ///
    /// # Errors
    /// PyTorch's `tril: input tensor must have at least 2 dimensions`; a
    /// device error.
    ///
    /// ```
    /// use shaped::{DynRank, Shape, Tensor};
    /// let t = Tensor::<f32, Shape![2, 3]>::from_vec(vec![1., 2., 3., 4., 5., 6.]);
    /// assert_eq!(t.try_tril(-1).unwrap().to_vec(), vec![0., 0., 0., 4., 0., 0.]);
    /// let v = Tensor::<f32, DynRank>::try_ones(&[3]).unwrap();
    /// assert_eq!(v.try_tril(0).unwrap_err().to_string(),
    ///     "tril: input tensor must have at least 2 dimensions");
    /// ```
    pub fn try_tril(&self, diagonal: i64) -> Result<Self, D::Error> {
        self.keep_triangle(diagonal, Triangle::Lower)
    }

    /// The lower triangle of each matrix; see [`Tensor::try_tril`].
    ///
    /// # Panics
    /// With the message of [`Tensor::try_tril`]'s error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// // A batch of two 2×2 matrices.
    /// let t = Tensor::<i64, Shape![2, 2, 2]>::from_vec(vec![1, 2, 3, 4, 5, 6, 7, 8]);
    /// assert_eq!(t.tril(0).to_vec(), vec![1, 0, 3, 4, 5, 0, 7, 8]);
    /// ```
    #[track_caller]
    pub fn tril(&self, diagonal: i64) -> Self {
        self.try_tril(diagonal).or_panic()
    }

    /// The upper triangle of each matrix (the last two axes): the elements
    /// on and above diagonal `diagonal` kept, the others zero (`false`), as
    /// `torch.triu(self, diagonal)`.
    ///
    /// # Errors
    /// PyTorch's `triu: input tensor must have at least 2 dimensions`; a
    /// device error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<bool, Shape![2, 3]>::full(true);
    /// assert_eq!(t.try_triu(1).unwrap().to_vec(), vec![false, true, true, false, false, true]);
    /// ```
    pub fn try_triu(&self, diagonal: i64) -> Result<Self, D::Error> {
        self.keep_triangle(diagonal, Triangle::Upper)
    }

    /// The upper triangle of each matrix; see [`Tensor::try_triu`].
    ///
    /// # Panics
    /// With the message of [`Tensor::try_triu`]'s error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f64, Shape![2, 2]>::from_vec(vec![1., 2., 3., 4.]);
    /// assert_eq!(t.triu(-1).to_vec(), vec![1., 2., 3., 4.]);
    /// assert_eq!(t.triu(0).to_vec(), vec![1., 2., 0., 4.]);
    /// ```
    #[track_caller]
    pub fn triu(&self, diagonal: i64) -> Self {
        self.try_triu(diagonal).or_panic()
    }
}
