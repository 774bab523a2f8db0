//! `softmax` and `log_softmax` along one dim: one pass finds each slice's
//! maximum `m` and `s = Σ exp(x - m)` (rescaling as `m` grows), a second
//! writes `exp(x - m) / s` or `x - m - log s`, as PyTorch computes them.

use super::axes;
use super::reducers::MaxAndSum;
use crate::Tensor;
use crate::element::Float;
use crate::ops::exec;
use crate::shape::OrPanic;
use crate::shape::{DynRank, RemoveAxis, Shape, ShapeError};

impl<T: Float, S: Shape> Tensor<T, S> {
    /// `f(x, m, s)` for each element, with `m` and `s` of its slice along `dim`.
    fn along_slices(
        &self,
        dim: isize,
        f: impl Fn(T, T, T) -> T + Sync,
    ) -> Result<Tensor<T, S>, ShapeError> {
        let m = axes::from_dims(&[dim], self.rank())?;
        let stats = super::reduce_vec(self.layout(), &m, &MaxAndSum)?;
        let dims = axes::result_dims(self.dims(), &m, true);
        let (max, sum): (Vec<T>, Vec<T>) = stats.into_iter().unzip();
        let max = Tensor::<T, DynRank>::try_from_vec(max, &dims)?;
        let sum = Tensor::<T, DynRank>::try_from_vec(sum, &dims)?;
        exec::map3(self.layout(), max.layout(), sum.layout(), f)
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
    pub fn try_softmax(&self, dim: isize) -> Result<Tensor<T, S>, ShapeError> {
        self.along_slices(dim, |x, m, s| (x - m).exp() / s)
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
    pub fn softmax(&self, dim: isize) -> Tensor<T, S> {
        self.try_softmax(dim).or_panic()
    }

    /// [`Tensor::softmax`] along the compile-time axis `K`.
    ///
    /// # Panics
    /// For [`DynRank`] tensors, when `K` is out of range.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f64, Shape![2, 2]>::from_vec(vec![1., 1., 2., 2.]);
    /// assert_eq!(t.softmax_dim::<1>().to_vec(), vec![0.5; 4]);
    /// ```
    #[track_caller]
    pub fn softmax_dim<const K: usize>(&self) -> Tensor<T, S>
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
    pub fn try_log_softmax(&self, dim: isize) -> Result<Tensor<T, S>, ShapeError> {
        self.along_slices(dim, |x, m, s| x - m - s.ln())
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
    pub fn log_softmax(&self, dim: isize) -> Tensor<T, S> {
        self.try_log_softmax(dim).or_panic()
    }

    /// [`Tensor::log_softmax`] along the compile-time axis `K`.
    ///
    /// # Panics
    /// For [`DynRank`] tensors, when `K` is out of range.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f64, Shape![1, 2]>::from_vec(vec![3., 3.]);
    /// assert_eq!(t.log_softmax_dim::<1>().to_vec(), vec![-(2f64.ln()); 2]);
    /// ```
    #[track_caller]
    pub fn log_softmax_dim<const K: usize>(&self) -> Tensor<T, S>
    where
        S: RemoveAxis<K>,
    {
        self.log_softmax(K as isize)
    }
}
