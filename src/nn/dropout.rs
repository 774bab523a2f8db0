//! `Dropout`: zeroes elements at random while training, scaling the rest
//! by `1 / (1 - p)`; the identity in evaluation. On any device.

use std::sync::atomic::{AtomicU64, Ordering};

use super::erase::{erased, restored};
use super::params::Parameters;
use crate::autograd::{GradDevice, Var, scalar_like};
use crate::backend::Fill;
use crate::element::Float;
use crate::ops::try_where_cond;
use crate::shape::{DynRank, Shape};

/// `torch.nn.Dropout(p)`: in training mode each element is kept with
/// probability `1 - p` and scaled by `1 / (1 - p)` (the gradient is masked
/// and scaled the same way); in evaluation mode the input passes unchanged.
/// The masks come from a seeded generator: each call draws a new mask, and
/// the same seed gives the same sequence of masks. The mask is drawn on the
/// input's device ([`Tensor::rand_like`](crate::Tensor::rand_like)): a GPU
/// input never leaves the GPU, and the CPU's masks are those of
/// [`Tensor::rand`](crate::Tensor::rand) with the same seed.
///
/// ```
/// use shaped::autograd::Var;
/// use shaped::nn::Dropout;
/// use shaped::{Shape, Tensor};
/// let mut d = Dropout::new(0.5, 7);
/// let x = Var::constant(Tensor::<f32, Shape![1000]>::ones());
/// let y = d.forward(&x).value().to_vec();
/// assert!(y.iter().all(|&v| v == 0. || v == 2.));
/// d.eval();
/// assert_eq!(d.forward(&x).value().to_vec(), x.value().to_vec());
/// ```
#[derive(Debug)]
pub struct Dropout {
    p: f64,
    training: bool,
    seed: AtomicU64,
}

impl Dropout {
    /// Dropout with drop probability `p`, in training mode, masks drawn from
    /// `seed`.
    ///
    /// # Panics
    /// As PyTorch, when `p` is not in `[0, 1]`.
    ///
    /// ```
    /// use shaped::nn::Dropout;
    /// assert!(Dropout::new(0.1, 0).is_training());
    /// ```
    #[track_caller]
    pub fn new(p: f64, seed: u64) -> Self {
        assert!(
            (0.0..=1.0).contains(&p),
            "dropout probability has to be between 0 and 1, but got {p}"
        );
        Dropout {
            p,
            training: true,
            seed: AtomicU64::new(seed),
        }
    }

    /// Switches to training mode (random masks).
    ///
    /// ```
    /// use shaped::nn::Dropout;
    /// let mut d = Dropout::new(0.1, 0);
    /// d.eval();
    /// d.train();
    /// assert!(d.is_training());
    /// ```
    pub fn train(&mut self) {
        self.training = true;
    }

    /// Switches to evaluation mode (the identity).
    ///
    /// ```
    /// use shaped::nn::Dropout;
    /// let mut d = Dropout::new(0.1, 0);
    /// d.eval();
    /// assert!(!d.is_training());
    /// ```
    pub fn eval(&mut self) {
        self.training = false;
    }

    /// Whether masks are applied.
    ///
    /// ```
    /// use shaped::nn::Dropout;
    /// assert!(Dropout::new(0.5, 0).is_training());
    /// ```
    pub fn is_training(&self) -> bool {
        self.training
    }

    /// `x` masked and scaled in training mode, `x` itself in evaluation
    /// mode (or when `p = 0`).
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::nn::Dropout;
    /// use shaped::{Shape, Tensor};
    /// let d = Dropout::new(1.0, 0);
    /// let x = Var::param(Tensor::<f64, Shape![3]>::ones());
    /// let y = d.forward(&x);
    /// assert_eq!(y.value().to_vec(), vec![0., 0., 0.]);
    /// assert_eq!(y.sum().backward().wrt(&x).unwrap().to_vec(), vec![0., 0., 0.]);
    /// ```
    pub fn forward<T: Float, S: Shape, D: GradDevice<T> + Fill<T>>(
        &self,
        x: &Var<T, S, D>,
    ) -> Var<T, S, D> {
        if !self.training || self.p == 0.0 || x.value().numel() == 0 {
            return x.clone();
        }
        let seed = self.seed.fetch_add(1, Ordering::Relaxed);
        let (p, scale) = (
            self.p,
            if self.p < 1.0 {
                1.0 / (1.0 - self.p)
            } else {
                0.0
            },
        );
        // `scale` where `u >= p`, 0 elsewhere: PyTorch's `bernoulli(1 - p) /
        // (1 - p)`, so that `x * mask` keeps a NaN of a dropped element.
        let mask = (|| {
            let u = x.value().try_rand_like(seed)?.into_dyn();
            let keep = u.try_ge(&scalar_like(&u, T::from_f64(p))?)?;
            let (on, off) = (
                scalar_like(&u, T::from_f64(scale))?,
                scalar_like(&u, T::zero())?,
            );
            try_where_cond(&keep, &on, &off)
        })()
        .expect("a mask of the input's own sizes, on its device");
        let y = erased(x)
            .try_mul(&Var::constant(mask))
            .expect("the mask has the input's sizes");
        restored(&y, x.dims())
    }
}

impl<T: Float, D: GradDevice<T>> Parameters<T, D> for Dropout {
    /// None.
    fn visit_params(&self, _: &mut dyn FnMut(&Var<T, DynRank, D>)) {}
}
