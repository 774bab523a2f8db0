//! [`Fill`] on CUDA: the elements are written on the GPU of the `like`
//! tensor by the constructors' kernels (`try_full_on`, `try_rand_on`,
//! `try_randn_on`), never computed on the host.

use super::{CudaElement, CudaError};
use crate::Tensor;
use crate::backend::fill::{Distribution, Fill};
use crate::device::Cuda;
use crate::element::{Element, Float};
use crate::shape::Shape;

impl<T: CudaElement> Fill<T> for Cuda {
    fn full_like<S: Shape, U: Element, SL: Shape>(
        like: &Tensor<U, SL, Cuda>,
        dims: &[usize],
        value: T,
    ) -> Result<Tensor<T, S, Cuda>, CudaError> {
        Tensor::try_full_on(&like.storage.dev, dims, value)
    }

    fn random_like<S: Shape, U: Element, SL: Shape>(
        like: &Tensor<U, SL, Cuda>,
        dims: &[usize],
        dist: Distribution,
        seed: u64,
    ) -> Result<Tensor<T, S, Cuda>, CudaError>
    where
        T: Float,
    {
        match dist {
            Distribution::Uniform => Tensor::try_rand_on(&like.storage.dev, dims, seed),
            Distribution::Normal => Tensor::try_randn_on(&like.storage.dev, dims, seed),
        }
    }
}
