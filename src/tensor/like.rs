//! New tensors of another tensor's sizes, on its device (PyTorch's
//! `zeros_like`, `ones_like`, `full_like`, `rand_like`, `randn_like`):
//! written once over the device through [`Fill`], so that code generic
//! over `D` makes its buffers and initial values beside its inputs.

use crate::Tensor;
use crate::backend::{Distribution, Fill};
use crate::element::{Element, Float, Numeric};
use crate::shape::{OrPanic, Shape};

impl<T: Element, S: Shape, D: Fill<T>> Tensor<T, S, D> {
    /// A new contiguous tensor of `self`'s sizes and device, every element
    /// `value`, as `torch.full_like`.
    ///
    /// # Errors
    /// An allocation or driver error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![2, 3]>::zeros().transpose::<0, 1>();
    /// let f = t.try_full_like(4).unwrap();
    /// assert_eq!((f.dims(), f.to_vec()), (&[3, 2][..], vec![4; 6]));
    /// assert!(f.is_contiguous());
    /// ```
    pub fn try_full_like(&self, value: T) -> Result<Self, D::Error> {
        Ok(Tensor::from_output(D::full_like(
            self.layout(),
            self.dims(),
            value,
        )?)?)
    }

    /// [`Tensor::try_full_like`], panicking on its error.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_full_like`]'s error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f64, Shape![2]>::ones();
    /// assert_eq!(t.full_like(0.5).to_vec(), [0.5, 0.5]);
    /// ```
    #[track_caller]
    pub fn full_like(&self, value: T) -> Self {
        self.try_full_like(value).or_panic()
    }

    /// [`Tensor::try_full_like`] with `T::default()` (zero, or `false`),
    /// as `torch.zeros_like`.
    ///
    /// # Errors
    /// As [`Tensor::try_full_like`].
    ///
    /// ```
    /// use shaped::{DynRank, Tensor};
    /// let t = Tensor::<bool, DynRank>::try_full(&[2, 2], true).unwrap();
    /// assert_eq!(t.try_zeros_like().unwrap().to_vec(), [false; 4]);
    /// ```
    pub fn try_zeros_like(&self) -> Result<Self, D::Error> {
        self.try_full_like(T::default())
    }

    /// [`Tensor::try_zeros_like`], panicking on its error.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_zeros_like`]'s error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<u8, Shape![3]>::from_vec(vec![1, 2, 3]);
    /// assert_eq!(t.zeros_like().to_vec(), [0, 0, 0]);
    /// ```
    #[track_caller]
    pub fn zeros_like(&self) -> Self {
        self.try_zeros_like().or_panic()
    }
}

impl<T: Numeric, S: Shape, D: Fill<T>> Tensor<T, S, D> {
    /// [`Tensor::try_full_like`] with ones, as `torch.ones_like`.
    ///
    /// # Errors
    /// As [`Tensor::try_full_like`].
    ///
    /// ```
    /// use shaped::{DynRank, Tensor};
    /// let t = Tensor::<i64, DynRank>::try_zeros(&[0, 4]).unwrap();
    /// assert_eq!(t.try_ones_like().unwrap().dims(), &[0, 4]);
    /// ```
    pub fn try_ones_like(&self) -> Result<Self, D::Error> {
        self.try_full_like(T::one())
    }

    /// [`Tensor::try_ones_like`], panicking on its error.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_ones_like`]'s error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f32, Shape![2]>::zeros();
    /// assert_eq!(t.ones_like().to_vec(), [1.0, 1.0]);
    /// ```
    #[track_caller]
    pub fn ones_like(&self) -> Self {
        self.try_ones_like().or_panic()
    }
}

impl<T: Float, S: Shape, D: Fill<T>> Tensor<T, S, D> {
    /// Uniform samples in `[0, 1)` of `self`'s sizes on its device, as
    /// `torch.rand_like`: the values of [`Tensor::try_rand`] with this seed,
    /// on every device.
    ///
    /// # Errors
    /// As [`Tensor::try_full_like`].
    ///
    /// ```
    /// use shaped::{DynRank, Tensor};
    /// let t = Tensor::<f32, DynRank>::try_zeros(&[2, 5]).unwrap();
    /// let r = t.try_rand_like(9).unwrap();
    /// assert_eq!(r.to_vec(), Tensor::<f32, DynRank>::try_rand(&[2, 5], 9).unwrap().to_vec());
    /// ```
    pub fn try_rand_like(&self, seed: u64) -> Result<Self, D::Error> {
        let o = D::random_like(self.layout(), self.dims(), Distribution::Uniform, seed)?;
        Ok(Tensor::from_output(o)?)
    }

    /// [`Tensor::try_rand_like`], panicking on its error.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_rand_like`]'s error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f64, Shape![100]>::zeros();
    /// assert!(t.rand_like(1).to_vec().iter().all(|x| (0.0..1.0).contains(x)));
    /// ```
    #[track_caller]
    pub fn rand_like(&self, seed: u64) -> Self {
        self.try_rand_like(seed).or_panic()
    }

    /// Standard normal samples of `self`'s sizes on its device, as
    /// `torch.randn_like`: the values of [`Tensor::try_randn`] with this
    /// seed (on CUDA up to the last bits of the device's `log` and `cos`).
    ///
    /// # Errors
    /// As [`Tensor::try_full_like`].
    ///
    /// ```
    /// use shaped::{DynRank, Tensor};
    /// let t = Tensor::<f64, DynRank>::try_zeros(&[3]).unwrap();
    /// let r = t.try_randn_like(2).unwrap();
    /// assert_eq!(r.to_vec(), Tensor::<f64, DynRank>::try_randn(&[3], 2).unwrap().to_vec());
    /// ```
    pub fn try_randn_like(&self, seed: u64) -> Result<Self, D::Error> {
        let o = D::random_like(self.layout(), self.dims(), Distribution::Normal, seed)?;
        Ok(Tensor::from_output(o)?)
    }

    /// [`Tensor::try_randn_like`], panicking on its error.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_randn_like`]'s error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f32, Shape![4]>::zeros();
    /// assert_eq!(t.randn_like(5).dims(), &[4]);
    /// ```
    #[track_caller]
    pub fn randn_like(&self, seed: u64) -> Self {
        self.try_randn_like(seed).or_panic()
    }
}
