//! [`Fill`] on CUDA, and the kernels behind the CUDA constructors
//! (`try_full_on`, `try_rand_on`, `try_randn_on`): the elements are
//! written on the GPU (the `like` tensor's, for `Fill`), never computed on
//! the host.

use super::generate::{Generator, generate};
use super::operands::fresh_output;
use super::{CudaDevice, CudaElement, CudaError, CudaStorage};
use crate::backend::fill::{Distribution, Fill};
use crate::backend::op::table;
use crate::backend::random::below_one;
use crate::backend::{Backend, Layout, Output};
use crate::device::Cuda;
use crate::element::{Element, Float};
use crate::iter::contiguous_strides;

/// A new storage of sizes `dims` on `dev`, every element `value`.
pub(crate) fn full<T: CudaElement>(
    dev: &CudaDevice,
    dims: &[usize],
    value: T,
) -> Result<Output<CudaStorage<T>>, CudaError> {
    let out = fresh_output::<T>(dev, dims)?;
    let strides = contiguous_strides(dims);
    let whole = Layout {
        storage: &out.storage,
        dims,
        strides: &strides,
        offset: 0,
    };
    <Cuda as Backend<T>>::unary_(table::Fill(value), whole)?;
    Ok(out)
}

/// A new storage of sizes `dims` on `dev`, written by the generator `g`
/// (the CPU's SplitMix64 stream, element by element).
pub(crate) fn generated<T: CudaElement>(
    dev: &CudaDevice,
    dims: &[usize],
    g: Generator<T>,
) -> Result<Output<CudaStorage<T>>, CudaError> {
    let out = fresh_output::<T>(dev, dims)?;
    let n = dims.iter().product();
    generate(dev, g, &mut out.storage.write(), n)?;
    Ok(out)
}

impl<T: CudaElement> Fill<T> for Cuda {
    fn full_like<U: Element>(
        like: Layout<'_, CudaStorage<U>>,
        dims: &[usize],
        value: T,
    ) -> Result<Output<CudaStorage<T>>, CudaError> {
        full(&like.storage.dev, dims, value)
    }

    fn random_like<U: Element>(
        like: Layout<'_, CudaStorage<U>>,
        dims: &[usize],
        dist: Distribution,
        seed: u64,
    ) -> Result<Output<CudaStorage<T>>, CudaError>
    where
        T: Float,
    {
        let g = match dist {
            Distribution::Uniform => Generator::Uniform {
                seed,
                below_one: below_one::<T>(),
            },
            Distribution::Normal => Generator::Normal { seed },
        };
        generated(&like.storage.dev, dims, g)
    }
}
