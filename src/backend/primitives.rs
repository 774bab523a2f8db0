//! The primitive set a device implements, so that the tensor API above it
//! is written once: `Tensor<T, S, D>`'s pointwise methods (and the
//! operators) call these, generic over `D`. [`Cpu`](crate::device::Cpu)
//! implements it for every element type, [`Cuda`](crate::device::Cuda)
//! (feature `cuda`) for the types its kernels take.
//!
//! Each primitive receives an operation of the op table (`backend/op/table.rs`)
//! as a value whose type carries both its Rust function and its CUDA
//! expression ([`Map1`], [`Map2`], [`Map3`]); shapes are already checked at
//! the type level, sizes are checked here with PyTorch's messages. The
//! pointwise primitives take their operands as [`Layout`]s and return an
//! [`Output`] (no shape type: each is compiled once per element type and
//! op), as do the reductions (their typed front is
//! `shaped::ops::reduce::primitives`), the index kernels and the host
//! transfers (`shaped::ops::host`), and [`Gemm`]'s products (their typed
//! front is in `ops/matmul/`).
//!
//! ```
//! use shaped::backend::Backend;
//! use shaped::device::Device;
//! use shaped::{Shape, Tensor};
//! // Generic code names a device by its primitives; the tensor methods
//! // pass each operand's layout down and type the result.
//! fn add<D: Device + Backend<f32>>(
//!     a: &Tensor<f32, Shape![2, 1], D>,
//!     b: &Tensor<f32, Shape![3], D>,
//! ) -> Tensor<f32, Shape![2, 3], D> {
//!     a + b
//! }
//! let a = Tensor::<f32, Shape![2, 1]>::from_vec(vec![1., 2.]);
//! let b = Tensor::<f32, Shape![3]>::from_vec(vec![10., 20., 30.]);
//! assert_eq!(add(&a, &b).to_vec(), vec![11., 21., 31., 12., 22., 32.]);
//! ```

use super::geometry::Geometry;
use super::layout::{Layout, Output};
use super::op::{Map1, Map2, Map3, Reduction, Statistic};
use crate::backend::op::index::{IndexElement, ScatterReduce};
use crate::device::Device;
use crate::element::{Element, Float, Numeric};
use crate::shape::{DimVec, ShapeError};

/// The primitives of a device for elements `T`: pointwise ops of the op
/// table, reductions (arg-reductions and the softmax family included),
/// index kernels (gather, scatter, cat, masked ops) and host transfers.
/// (GEMM is [`Gemm`]; factorizations are [`Linalg`](super::Linalg).)
pub trait Backend<T: Element>: Device {
    /// `op` on every element of `a`, into a new storage of `a`'s sizes.
    ///
    /// # Errors
    /// An allocation or driver error.
    fn unary<Op: Map1<T>>(
        op: Op,
        a: Layout<'_, Self::Storage<T>>,
    ) -> Result<Output<Self::Storage<T>>, Self::Error>;

    /// A contiguous copy of `a` in new storage (PyTorch's `clone()`).
    ///
    /// # Errors
    /// An allocation or driver error.
    fn copy(a: Layout<'_, Self::Storage<T>>) -> Result<Output<Self::Storage<T>>, Self::Error>;

    /// A contiguous copy of `a` with each element converted to `T` by
    /// PyTorch's `.to(dtype)` rules ([`CastFrom`](crate::element::CastFrom)).
    ///
    /// # Errors
    /// An allocation or driver error.
    fn cast_from<F: Element>(
        a: Layout<'_, Self::Storage<F>>,
    ) -> Result<Output<Self::Storage<T>>, Self::Error>
    where
        Self: Backend<F>;

    /// `op` on `a` and `b` broadcast together, into a new storage of the
    /// broadcast sizes.
    ///
    /// # Errors
    /// PyTorch's broadcast error, or an allocation or driver error.
    fn binary<Op: Map2<T, Out = T>>(
        op: Op,
        a: Layout<'_, Self::Storage<T>>,
        b: Layout<'_, Self::Storage<T>>,
    ) -> Result<Output<Self::Storage<T>>, Self::Error>;

    /// A comparison: as [`Backend::binary`], with `bool` results.
    ///
    /// # Errors
    /// As [`Backend::binary`].
    fn compare<Op: Map2<T, Out = bool>>(
        op: Op,
        a: Layout<'_, Self::Storage<T>>,
        b: Layout<'_, Self::Storage<T>>,
    ) -> Result<Output<Self::Storage<bool>>, Self::Error>;

    /// `op` on `a` and `b` broadcast together, written into `out` (whose
    /// sizes must be the broadcast sizes; PyTorch's `out=`).
    ///
    /// # Errors
    /// PyTorch's broadcast error, an `out` of other sizes or whose elements
    /// overlap, or a driver error.
    fn binary_into<Op: Map2<T, Out = T>>(
        op: Op,
        a: Layout<'_, Self::Storage<T>>,
        b: Layout<'_, Self::Storage<T>>,
        out: Layout<'_, Self::Storage<T>>,
    ) -> Result<(), Self::Error>;

    /// `op` on `a`, `b` and `c` broadcast together, into a new storage of
    /// the broadcast sizes.
    ///
    /// # Errors
    /// As [`Backend::binary`].
    fn ternary<Op: Map3<T, T>>(
        op: Op,
        a: Layout<'_, Self::Storage<T>>,
        b: Layout<'_, Self::Storage<T>>,
        c: Layout<'_, Self::Storage<T>>,
    ) -> Result<Output<Self::Storage<T>>, Self::Error>;

    /// `op` on a `bool` condition and `b`, `c` broadcast together (`where`).
    ///
    /// # Errors
    /// As [`Backend::binary`].
    fn select<Op: Map3<bool, T>>(
        op: Op,
        cond: Layout<'_, Self::Storage<bool>>,
        b: Layout<'_, Self::Storage<T>>,
        c: Layout<'_, Self::Storage<T>>,
    ) -> Result<Output<Self::Storage<T>>, Self::Error>;

    /// `op` applied in place to every element of `a`.
    ///
    /// # Errors
    /// When elements of `a` share memory (PyTorch refuses), or a driver
    /// error.
    fn unary_<Op: Map1<T>>(op: Op, a: Layout<'_, Self::Storage<T>>) -> Result<(), Self::Error>;

    /// `a = op(a, b)` with `b` broadcast to `a`'s sizes.
    ///
    /// # Errors
    /// PyTorch's in-place errors (the broadcast error, "output with shape
    /// [..] doesn't match the broadcast shape [..]", overlapping memory), or
    /// a driver error.
    fn binary_<Op: Map2<T, Out = T>>(
        op: Op,
        a: Layout<'_, Self::Storage<T>>,
        b: Layout<'_, Self::Storage<T>>,
    ) -> Result<(), Self::Error>;

    /// `a = op(a, b, c)` with `b` and `c` broadcast to `a`'s sizes.
    ///
    /// # Errors
    /// As [`Backend::binary_`].
    fn ternary_<Op: Map3<T, T>>(
        op: Op,
        a: Layout<'_, Self::Storage<T>>,
        b: Layout<'_, Self::Storage<T>>,
        c: Layout<'_, Self::Storage<T>>,
    ) -> Result<(), Self::Error>;

    /// `r` over the dimensions of `a` marked in `mask` (one flag per
    /// dimension), into a new storage whose sizes are the kept ones, with
    /// the reduced ones kept as 1 when `keepdim`. The caller has checked
    /// that a reduction without identity (`max`, `min`) has elements.
    ///
    /// # Errors
    /// An allocation or driver error.
    fn reduce(
        r: Reduction,
        a: Layout<'_, Self::Storage<T>>,
        mask: &[bool],
        keepdim: bool,
    ) -> Result<Output<Self::Storage<T>>, Self::Error>
    where
        T: Numeric;

    /// The float reduction `s` over the dimensions of `a` marked in `mask`,
    /// into a new storage (the kept sizes, the reduced ones kept as 1 when
    /// `keepdim`). No elements give PyTorch's values: NaN for `var`, -inf
    /// for `logsumexp`, 0 for a norm (inf for `p = -inf`).
    ///
    /// # Errors
    /// An allocation or driver error.
    fn statistic(
        s: Statistic,
        a: Layout<'_, Self::Storage<T>>,
        mask: &[bool],
        keepdim: bool,
    ) -> Result<Output<Self::Storage<T>>, Self::Error>
    where
        T: Float;

    /// Whether every (`all`) or some element over the dimensions in `mask`
    /// is nonzero (`torch.all`, `torch.any`), into a new `bool` storage.
    ///
    /// # Errors
    /// As [`Backend::reduce`].
    fn truth(
        all: bool,
        a: Layout<'_, Self::Storage<T>>,
        mask: &[bool],
        keepdim: bool,
    ) -> Result<Output<Self::Storage<bool>>, Self::Error>;

    /// The largest (`max`) or smallest elements over the dimensions in
    /// `mask` and their indices, counted row-major over the reduced
    /// dimensions; the first of equal values wins and a NaN wins over
    /// everything (`torch.max(t, dim)`, `torch.argmax`). The caller has
    /// checked that every output reduces at least one element.
    ///
    /// # Errors
    /// As [`Backend::reduce`].
    #[allow(clippy::type_complexity)]
    fn arg_extreme(
        max: bool,
        a: Layout<'_, Self::Storage<T>>,
        mask: &[bool],
        keepdim: bool,
    ) -> Result<(Output<Self::Storage<T>>, Output<Self::Storage<i64>>), Self::Error>
    where
        T: Numeric;

    /// `softmax` (or, with `log`, `log_softmax`) of `a` along dimension
    /// `dim` (already checked to be in range): `exp(x - m) / Σ exp(x - m)`
    /// with `m` each slice's maximum, as PyTorch computes it. The result
    /// has `a`'s sizes.
    ///
    /// # Errors
    /// An allocation or driver error.
    fn softmax(
        a: Layout<'_, Self::Storage<T>>,
        dim: usize,
        log: bool,
    ) -> Result<Output<Self::Storage<T>>, Self::Error>
    where
        T: Float;

    /// `out[i] = src[i with dim replaced by index[i]]` for every position
    /// `i` of the index's sizes, into a new storage with the index's sizes
    /// (the core of `gather` and `index_select`).
    /// `src` and `index` have one rank (a 0-d tensor counts as 1-d of one
    /// element) and the caller has checked gather's size rules; both are
    /// read through their strides (an expanded index is never copied).
    ///
    /// # Errors
    /// PyTorch's "index 5 is out of bounds for dimension 1 with size 3" for
    /// the first index value outside `0..src.size(dim)`, found before
    /// anything is read; an allocation or driver error.
    fn gather<I: IndexElement>(
        src: Layout<'_, Self::Storage<T>>,
        dim: usize,
        index: Layout<'_, Self::Storage<I>>,
    ) -> Result<Output<Self::Storage<T>>, Self::Error>;

    /// `out[i with dim replaced by index[i]] = src[i]` for every position
    /// `i` of the index's sizes (`scatter_`; of repeated indices one write
    /// wins: the last in row-major order on the CPU, an unspecified one on
    /// CUDA, as PyTorch). The caller has checked scatter's size rules and
    /// that the index has elements; 0-d tensors count as 1-d of size 1.
    ///
    /// # Errors
    /// PyTorch's out-of-bounds message for the first bad index value (then
    /// nothing is written); elements of `out` that share memory; on CUDA an
    /// index that shares `out`'s buffer (the CPU reads it from a copy); a
    /// driver error.
    fn scatter<I: IndexElement>(
        out: Layout<'_, Self::Storage<T>>,
        dim: usize,
        index: Layout<'_, Self::Storage<I>>,
        src: Layout<'_, Self::Storage<T>>,
    ) -> Result<(), Self::Error>;

    /// As [`Backend::scatter`], combining every contribution into the
    /// written element with `reduce`'s operation (`scatter_reduce_` with
    /// `include_self=True`): `Sum` and `Mean` add, `Prod` multiplies
    /// (integers wrap), `Amax` / `Amin` keep the largest / smallest (a NaN
    /// wins). The caller divides for `Mean`. `Sum` is `scatter_add_`. With repeated indices the
    /// contributions are combined in row-major order on the CPU and in an
    /// unspecified order on CUDA (atomics), so a float `Sum` or `Prod` may
    /// differ there in the last bits.
    ///
    /// # Errors
    /// As [`Backend::scatter`].
    fn scatter_reduce<I: IndexElement>(
        out: Layout<'_, Self::Storage<T>>,
        dim: usize,
        index: Layout<'_, Self::Storage<I>>,
        src: Layout<'_, Self::Storage<T>>,
        reduce: ScatterReduce,
    ) -> Result<(), Self::Error>
    where
        T: Numeric;

    /// The parts laid one after the other along `dim` (`cat`), into a new
    /// storage of sizes `out` (their sizes, summed along `dim`). The caller
    /// has checked `cat`'s size rules and that there are parts.
    ///
    /// # Errors
    /// Parts on different GPUs, an allocation or driver error.
    fn cat(
        parts: &[Layout<'_, Self::Storage<T>>],
        dim: usize,
        out: &[usize],
    ) -> Result<Output<Self::Storage<T>>, Self::Error>;

    /// `a` with the elements where `mask` holds set to `value`, the two
    /// broadcast together (`torch.masked_fill`), into a new storage.
    ///
    /// # Errors
    /// PyTorch's broadcast error, an allocation or driver error.
    fn masked_fill(
        a: Layout<'_, Self::Storage<T>>,
        mask: Layout<'_, Self::Storage<bool>>,
        value: T,
    ) -> Result<Output<Self::Storage<T>>, Self::Error>;

    /// Sets the elements of `a` where `mask` (expanded to `a`'s sizes)
    /// holds to `value` (`Tensor.masked_fill_`).
    ///
    /// # Errors
    /// PyTorch's in-place errors (the mask does not expand to `a`'s sizes,
    /// elements of `a` share memory), a driver error.
    fn masked_fill_(
        a: Layout<'_, Self::Storage<T>>,
        mask: Layout<'_, Self::Storage<bool>>,
        value: T,
    ) -> Result<(), Self::Error>;

    /// The elements of `a` where `mask` holds, both broadcast to `dims`
    /// (which the caller computed), in row-major order
    /// (`torch.masked_select`): a 1-d storage whose length depends on the
    /// mask's values, so CUDA reads the mask on the host (as PyTorch
    /// synchronises for the count) and gathers the values on the device.
    ///
    /// # Errors
    /// An allocation or driver error.
    fn masked_select(
        a: Layout<'_, Self::Storage<T>>,
        mask: Layout<'_, Self::Storage<bool>>,
        dims: &[usize],
    ) -> Result<Output<Self::Storage<T>>, Self::Error>;

    /// A new storage of sizes `dims` holding `data` (row-major), on the
    /// device `like` lives on (the one upload the index ops whose result
    /// depends on values, `nonzero` and `masked_scatter`, need). The caller
    /// has checked that `data` holds `dims`' element count.
    ///
    /// # Errors
    /// An allocation or driver error.
    fn from_host<U: Element>(
        like: Layout<'_, Self::Storage<U>>,
        data: Vec<T>,
        dims: &[usize],
    ) -> Result<Output<Self::Storage<T>>, Self::Error>;

    /// The elements of `a` in row-major order, on the host (for the checks
    /// that must see values, such as integer division by zero).
    ///
    /// # Errors
    /// An allocation or driver error.
    fn to_host(a: Layout<'_, Self::Storage<T>>) -> Result<Vec<T>, Self::Error>;
}

/// Matrix products on a device for elements `T`: the CPU multiplies every
/// numeric type (`f16`/`bf16` accumulating in `f32`), CUDA the types cuBLAS
/// takes (`f32`, `f64`), so a product of `i32` CUDA tensors is a compile
/// error rather than PyTorch's run-time "not implemented for 'Int'".
///
/// ```
/// use shaped::backend::Gemm;
/// use shaped::device::Cpu;
/// fn multiplies<D: Gemm<f32>>() {}
/// multiplies::<Cpu>();
/// ```
pub trait Gemm<T: Numeric>: Backend<T> {
    /// `alpha * (a @ b)` laid out by `geo` (which the shape rules computed
    /// from `a`'s and `b`'s sizes), into a new storage of sizes `geo.out`.
    ///
    /// # Errors
    /// An allocation or driver error, operands on different GPUs.
    fn product(
        a: Layout<'_, Self::Storage<T>>,
        b: Layout<'_, Self::Storage<T>>,
        geo: &Geometry,
        alpha: T,
    ) -> Result<Output<Self::Storage<T>>, Self::Error>;

    /// `beta * c + alpha * (a @ b)` with `c` broadcast to the product's
    /// sizes (the `addmm` family: only the added term broadcasts), into a
    /// new storage of sizes `geo.out`; with `beta == 0`, `c`'s values are not read
    /// (a NaN there does not propagate, as PyTorch).
    ///
    /// # Errors
    /// PyTorch's expand error when `c` does not broadcast to the product,
    /// an allocation or driver error.
    fn fused(
        c: Layout<'_, Self::Storage<T>>,
        a: Layout<'_, Self::Storage<T>>,
        b: Layout<'_, Self::Storage<T>>,
        geo: &Geometry,
        beta: T,
        alpha: T,
    ) -> Result<Output<Self::Storage<T>>, Self::Error>;

    /// `c = beta * c + alpha * (a @ b)` in place (`addmm_`, ...): `c` must
    /// have the product's sizes and distinct elements.
    ///
    /// # Errors
    /// PyTorch's in-place errors, an allocation or driver error.
    fn fused_(
        c: Layout<'_, Self::Storage<T>>,
        a: Layout<'_, Self::Storage<T>>,
        b: Layout<'_, Self::Storage<T>>,
        geo: &Geometry,
        beta: T,
        alpha: T,
    ) -> Result<(), Self::Error>;
}

/// The number of elements each output of a reduction over the dimensions
/// flagged in `mask` reduces.
pub(crate) fn reduced_count(dims: &[usize], mask: &[bool]) -> usize {
    dims.iter()
        .zip(mask)
        .filter(|(_, m)| **m)
        .map(|(d, _)| d)
        .product()
}

/// The result sizes of a reduction of a tensor of sizes `dims` over the
/// dimensions in `mask`: the kept sizes, each reduced one as 1 when
/// `keepdim`.
pub(crate) fn reduced_dims(dims: &[usize], mask: &[bool], keepdim: bool) -> DimVec {
    dims.iter()
        .zip(mask)
        .filter_map(|(&d, &m)| match (m, keepdim) {
            (false, _) => Some(d),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect()
}

/// PyTorch's message for an index value out of range.
pub(crate) fn out_of_bounds(index: i64, dim: usize, size: usize) -> ShapeError {
    ShapeError::Invalid(format!(
        "index {index} is out of bounds for dimension {dim} with size {size}"
    ))
}
