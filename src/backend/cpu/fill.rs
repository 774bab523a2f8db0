//! [`Fill`] on the CPU: the constructors' own loops (`try_full`,
//! `try_rand`, `try_randn`).

use crate::Tensor;
use crate::backend::fill::{Distribution, Fill};
use crate::device::Cpu;
use crate::element::{Element, Float};
use crate::shape::{Shape, ShapeError};

impl<T: Element> Fill<T> for Cpu {
    fn full_like<S: Shape, U: Element, SL: Shape>(
        _: &Tensor<U, SL>,
        dims: &[usize],
        value: T,
    ) -> Result<Tensor<T, S>, ShapeError> {
        Tensor::try_full(dims, value)
    }

    fn random_like<S: Shape, U: Element, SL: Shape>(
        _: &Tensor<U, SL>,
        dims: &[usize],
        dist: Distribution,
        seed: u64,
    ) -> Result<Tensor<T, S>, ShapeError>
    where
        T: Float,
    {
        match dist {
            Distribution::Uniform => Tensor::try_rand(dims, seed),
            Distribution::Normal => Tensor::try_randn(dims, seed),
        }
    }
}
