//! Matrix products through cuBLAS. cuBLAS is column-major; a row-major
//! `C = A B` is the column-major `C^T = B^T A^T`, so the operands are passed
//! swapped, each transposed or not according to its strides.

use cudarc::cublas::sys::cublasOperation_t;
use cudarc::cublas::{CudaBlas, Gemm, GemmConfig, StridedBatchedConfig};
use cudarc::driver::CudaSlice;

use super::CudaError;
use super::device::{CudaDevice, CudaElement, cublas_present};

/// One operand matrix of a strided-batched product, in elements: its
/// offset, its row and column strides (one of them 1) and its batch stride
/// (0 when broadcast across the batch).
#[derive(Clone, Copy, Debug)]
pub(crate) struct GemmBatch {
    pub offset: usize,
    pub row_stride: usize,
    pub col_stride: usize,
    pub batch_stride: usize,
}

impl GemmBatch {
    /// cuBLAS's view of this row-major matrix as a column-major one: the
    /// operation and leading dimension, or `None` when neither stride is 1.
    fn blas_view(&self, rows: usize, cols: usize) -> Option<(cublasOperation_t, usize)> {
        let row_major =
            (self.col_stride == 1 || cols <= 1) && (self.row_stride >= cols || rows <= 1);
        let col_major =
            (self.row_stride == 1 || rows <= 1) && (self.col_stride >= rows || cols <= 1);
        if row_major {
            // Rows `row_stride` apart: cuBLAS reads the transpose, as wanted.
            Some((
                cublasOperation_t::CUBLAS_OP_N,
                self.row_stride.max(cols).max(1),
            ))
        } else if col_major {
            Some((
                cublasOperation_t::CUBLAS_OP_T,
                self.col_stride.max(rows).max(1),
            ))
        } else {
            None
        }
    }

    /// Whether cuBLAS can read this `rows x cols` operand without a copy.
    pub(crate) fn is_blas_layout(&self, rows: usize, cols: usize) -> bool {
        self.blas_view(rows, cols).is_some()
    }
}

/// An element type cuBLAS multiplies: `f32`, `f64`.
///
/// ```
/// # #[cfg(feature = "cuda")] {
/// fn gemm_ok<T: shaped::device::CudaBlasElement>() {}
/// gemm_ok::<f64>();
/// # }
/// ```
pub trait BlasElement: CudaElement + num_traits::One + num_traits::Zero {
    /// One strided-batched GEMM call.
    #[doc(hidden)]
    fn gemm(
        blas: &CudaBlas,
        cfg: StridedBatchedConfig<Self>,
        a: &cudarc::driver::CudaView<'_, Self>,
        b: &cudarc::driver::CudaView<'_, Self>,
        c: &mut cudarc::driver::CudaViewMut<'_, Self>,
    ) -> Result<(), CudaError>;
}

macro_rules! blas_element {
    ($($t:ty),*) => {$(
        impl BlasElement for $t {
            fn gemm(
                blas: &CudaBlas,
                cfg: StridedBatchedConfig<Self>,
                a: &cudarc::driver::CudaView<'_, Self>,
                b: &cudarc::driver::CudaView<'_, Self>,
                c: &mut cudarc::driver::CudaViewMut<'_, Self>,
            ) -> Result<(), CudaError> {
                // SAFETY: `gemm_strided_batched` checks nothing; the caller
                // built `cfg` so that every matrix of every batch lies inside
                // the views (see `gemm_strided_batched` below).
                unsafe { blas.gemm_strided_batched(cfg, a, b, c) }?;
                Ok(())
            }
        }
    )*};
}
blas_element!(f32, f64);

/// The device's cuBLAS handle, created on first use.
pub(crate) fn handle(dev: &CudaDevice) -> Result<&CudaBlas, CudaError> {
    let blas = dev.inner.blas.get_or_init(|| {
        if !cublas_present() {
            return Err(CudaError::Unavailable(
                "the cuBLAS library (libcublas) cannot be loaded".into(),
            ));
        }
        Ok(CudaBlas::new(dev.stream().clone())?)
    });
    blas.as_ref().map_err(Clone::clone)
}

/// `c[i] = a[i] @ b[i]` for `batch` products of `(m, k) @ (k, n)`; `c` is
/// contiguous `(batch, m, n)` from offset 0. `a` and `b` must satisfy
/// [`GemmBatch::is_blas_layout`].
#[allow(clippy::too_many_arguments)]
pub(crate) fn gemm_strided_batched<T: BlasElement>(
    dev: &CudaDevice,
    (m, k, n, batch): (usize, usize, usize, usize),
    a: (&CudaSlice<T>, GemmBatch),
    b: (&CudaSlice<T>, GemmBatch),
    c: &mut CudaSlice<T>,
    one: T,
    zero: T,
) -> Result<(), CudaError> {
    if m == 0 || n == 0 || batch == 0 {
        return Ok(());
    }
    let (op_a, lda) = a.1.blas_view(m, k).expect("operand a in a cuBLAS layout");
    let (op_b, ldb) = b.1.blas_view(k, n).expect("operand b in a cuBLAS layout");
    let int = |x: usize| {
        i32::try_from(x)
            .map_err(|_| CudaError::Blas(format!("size {x} exceeds cuBLAS's 32-bit sizes")))
    };
    // Column-major C^T (n x m) = B^T (n x k) * A^T (k x m).
    let cfg = StridedBatchedConfig {
        gemm: GemmConfig {
            transa: op_b,
            transb: op_a,
            m: int(n)?,
            n: int(m)?,
            k: int(k)?,
            alpha: one,
            lda: int(ldb)?,
            ldb: int(lda)?,
            beta: zero,
            ldc: int(n)?,
        },
        batch_size: int(batch)?,
        stride_a: b.1.batch_stride as i64,
        stride_b: a.1.batch_stride as i64,
        stride_c: (m * n) as i64,
    };
    let blas = handle(dev)?;
    // cuBLAS runs in the calling thread's current context.
    dev.inner.ctx.bind_to_thread()?;
    let av = a.0.slice(a.1.offset..);
    let bv = b.0.slice(b.1.offset..);
    let mut cv = c.slice_mut(0..batch * m * n);
    if k == 0 {
        // cuBLAS may leave C untouched when k == 0: zero it (beta = 0 with
        // k = 0 is allowed, but be explicit).
        dev.stream().memset_zeros(&mut cv)?;
        return Ok(());
    }
    T::gemm(blas, cfg, &bv, &av, &mut cv)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(row_stride: usize, col_stride: usize) -> GemmBatch {
        GemmBatch {
            offset: 0,
            row_stride,
            col_stride,
            batch_stride: 0,
        }
    }

    #[test]
    fn operands_map_to_cublas_transposes() {
        use cublasOperation_t::{CUBLAS_OP_N, CUBLAS_OP_T};
        // Row-major (3, 4): cuBLAS reads it as its transpose, no op.
        assert_eq!(g(4, 1).blas_view(3, 4), Some((CUBLAS_OP_N, 4)));
        // A transposed view of a (4, 3) matrix: column-major, op T.
        assert_eq!(g(1, 3).blas_view(3, 4), Some((CUBLAS_OP_T, 3)));
        // Padded rows (a narrowed view) keep their leading dimension.
        assert_eq!(g(10, 1).blas_view(3, 4), Some((CUBLAS_OP_N, 10)));
        // Expanded rows (stride 0) or two non-unit strides need a copy.
        assert_eq!(g(0, 1).blas_view(3, 4), None);
        assert_eq!(g(8, 2).blas_view(3, 4), None);
        // A single row or column is readable whatever its other stride.
        assert!(g(0, 1).is_blas_layout(1, 4));
        assert!(g(5, 0).is_blas_layout(4, 1));
    }
}
