//! `softmax` and `log_softmax` along one dim: one pass finds each slice's
//! maximum `m` and `s = Σ exp(x - m)` (rescaling as `m` grows), a second
//! writes `exp(x - m) / s` or `x - m - log s`, as PyTorch computes them
//! (on CUDA: the maximum, `exp(x - m)`, its sum and the division, one
//! kernel each).

use super::axes;
use crate::Tensor;
use crate::backend::Backend;
use crate::element::Float;
use crate::shape::OrPanic;
use crate::shape::{RemoveAxis, Shape};
use crate::tensor::reduction;

impl<T: Float, S: Shape, D: Backend<T>> Tensor<T, S, D> {
    /// `softmax` (`log_softmax` with `log`) along `dim` on the device.
    fn along_slices(&self, dim: isize, log: bool) -> Result<Tensor<T, S, D>, D::Error> {
        let m = axes::from_dims(&[dim], self.rank())?;
        let k = m.iter().position(|&r| r).unwrap_or(0);
        reduction::softmax(self, k, log)
    }

    /// `exp(x) / Σ exp(x)` along the run-time dim `dim` (negative counts
    /// from the end), as `torch.softmax(t, dim)`.
    ///
    /// # Errors
    /// PyTorch's error when `dim` is out of range.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f64, Shape![2, 2]>::from_vec(vec![0., 0., 1000., 1000.]);
    /// assert_eq!(t.try_softmax(-1).unwrap().to_vec(), vec![0.5; 4]);
    /// assert!(t.try_softmax(2).is_err());
    /// ```
    pub fn try_softmax(&self, dim: isize) -> Result<Tensor<T, S, D>, D::Error> {
        self.along_slices(dim, false)
    }

    /// [`Tensor::try_softmax`], panicking on error.
    ///
    /// # Panics
    /// With the message of the `try_` form's error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let p = Tensor::<f32, Shape![3]>::from_vec(vec![1., 2., 3.]).softmax(0);
    /// assert!((p.sum().item() - 1.0).abs() < 1e-6);
    /// ```
    #[track_caller]
    pub fn softmax(&self, dim: isize) -> Tensor<T, S, D> {
        self.try_softmax(dim).or_panic()
    }

    /// [`Tensor::softmax`] along the compile-time axis `K`.
    ///
    /// # Panics
    /// For [`DynRank`](crate::shape::DynRank) tensors, when `K` is out of range.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f64, Shape![2, 2]>::from_vec(vec![1., 1., 2., 2.]);
    /// assert_eq!(t.softmax_dim::<1>().to_vec(), vec![0.5; 4]);
    /// ```
    #[track_caller]
    pub fn softmax_dim<const K: usize>(&self) -> Tensor<T, S, D>
    where
        S: RemoveAxis<K>,
    {
        self.softmax(K as isize)
    }

    /// `x - log Σ exp(x)` along the run-time dim `dim`, as
    /// `torch.log_softmax(t, dim)`; accurate where `softmax` underflows.
    ///
    /// # Errors
    /// PyTorch's error when `dim` is out of range.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f64, Shape![2]>::from_vec(vec![0., -1000.]);
    /// assert_eq!(t.try_log_softmax(0).unwrap().to_vec(), vec![0., -1000.]);
    /// ```
    pub fn try_log_softmax(&self, dim: isize) -> Result<Tensor<T, S, D>, D::Error> {
        self.along_slices(dim, true)
    }

    /// [`Tensor::try_log_softmax`], panicking on error.
    ///
    /// # Panics
    /// With the message of the `try_` form's error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let l = Tensor::<f64, Shape![2]>::from_vec(vec![1., 1.]).log_softmax(-1);
    /// assert_eq!(l.to_vec(), vec![-(2f64.ln()); 2]);
    /// ```
    #[track_caller]
    pub fn log_softmax(&self, dim: isize) -> Tensor<T, S, D> {
        self.try_log_softmax(dim).or_panic()
    }

    /// [`Tensor::log_softmax`] along the compile-time axis `K`.
    ///
    /// # Panics
    /// For [`DynRank`](crate::shape::DynRank) tensors, when `K` is out of range.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f64, Shape![1, 2]>::from_vec(vec![3., 3.]);
    /// assert_eq!(t.log_softmax_dim::<1>().to_vec(), vec![-(2f64.ln()); 2]);
    /// ```
    #[track_caller]
    pub fn log_softmax_dim<const K: usize>(&self) -> Tensor<T, S, D>
    where
        S: RemoveAxis<K>,
    {
        self.log_softmax(K as isize)
    }
}
