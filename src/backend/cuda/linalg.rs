//! [`Linalg`] for CUDA: the factorizations through cuBLAS's and cuSOLVER's
//! batched routines, one call for the whole batch where the library has
//! one (the rows in bold loop over the batch):
//!
//! | primitive | call |
//! |---|---|
//! | `lu_factor` (square) | `cublas<t>getrfBatched` |
//! | `lu_factor` (rectangular) | `cusolverDn<t>getrf`, **one call per matrix** (cuBLAS's batched LU is square only) |
//! | `inv` | `cublas<t>getrfBatched`, then `cublas<t>getriBatched` (out of place) |
//! | `solve` | `cublas<t>getrfBatched`, then `cublas<t>getrsBatched` |
//! | `lu_solve` | `cublas<t>getrsBatched` (LU and pivots broadcast to the batch first) |
//! | `slogdet` (`det`) | `cublas<t>getrfBatched`; `U`'s diagonal and the pivots (`2n` values per matrix) combined on the host |
//! | `cholesky` | `cusolverDn<t>potrfBatched` (lower), the upper triangle then zeroed |
//! | `cholesky_solve` | `cublas<t>trsmBatched` twice (`L Y = B`, `Lᵀ X = Y`) |
//! | `solve_triangular` | `cublas<t>trsmBatched` |
//! | `qr` | `cublas<t>geqrfBatched`, then `cusolverDn<t>orgqr` for `Q`, **one call per matrix** (no batched form) |
//! | `eigh` (`n <= 32`) | `cusolverDn<t>syevjBatched` (Jacobi) |
//! | `eigh` (`n > 32`) | `cusolverDn<t>syevj`, **one call per matrix** (cuSOLVER's batched Jacobi stops at 32) |
//! | `svd` (`m, n <= 32`) | `cusolverDn<t>gesvdjBatched` (Jacobi; full `U`, `V`, the reduced form their first columns) |
//! | `svd` (larger) | `cusolverDn<t>gesvdj`, **one call per matrix** (cuSOLVER's batched Jacobi stops at 32) |
//!
//! cuBLAS and cuSOLVER are column-major. Every operand is first copied by
//! the copy kernel into a fresh buffer holding each matrix column-major
//! (an explicit transpose of its row-major layout, with the batch
//! dimensions broadcast to the result's: expanded, transposed and strided
//! views are read through their strides), so the routines see `A` itself
//! with leading dimension = its rows; results are copied back row-major the
//! same way. The batched calls take device arrays of device pointers, one
//! per matrix, uploaded before the call. All calls run on the device's one
//! stream (the cuBLAS and cuSOLVER handles are bound to it), so they are
//! ordered with every other operation; `info` is read back to the host
//! (which waits for the stream), as PyTorch does for its checks.

use std::sync::{Arc, Mutex, OnceLock};

use cudarc::cublas::sys as cb;
use cudarc::cusolver::DnHandle;
use cudarc::cusolver::sys as cs;
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut};

use super::blas::handle as blas_handle;
use super::elementwise::{Operand, launch};
use super::linalg_sys::{SolverElement, gesvdj, gesvdj_buffer, syevj, syevj_buffer};
use super::operands::{fresh_output, same_device};
use super::{CudaDevice, CudaError, CudaStorage};
use crate::backend::layout::Owned;
use crate::backend::linalg::{Dets, Eigen, Factored, Singular, Triangle, WithInfo, det_from_lu};
use crate::backend::op::Pointwise;
use crate::backend::op::Reduction;
use crate::backend::op::table;
use crate::backend::{Backend, Layout, Linalg, Output};
use crate::device::Cuda;
use crate::iter::contiguous_strides;
use crate::shape::{DimVec, broadcast_pair};
use core::ffi::c_int;

/// An operand of a factorization: a layout of a CUDA storage.
type Lay<'a, T> = Layout<'a, CudaStorage<T>>;

/// A factorization's new storage and its sizes.
type Out<T> = Output<CudaStorage<T>>;

/// A cuBLAS status as a [`CudaError`].
fn blas_ok(s: cb::cublasStatus_t, what: &str) -> Result<(), CudaError> {
    s.result()
        .map_err(|e| CudaError::Blas(format!("{what}: {e}")))
}

/// A cuSOLVER status as a [`CudaError`].
fn solver_ok(s: cs::cusolverStatus_t, what: &str) -> Result<(), CudaError> {
    s.result()
        .map_err(|e| CudaError::Blas(format!("cuSOLVER {what}: {e}")))
}

/// A size as cuBLAS's 32-bit `int`.
fn int(x: usize) -> Result<c_int, CudaError> {
    c_int::try_from(x)
        .map_err(|_| CudaError::Blas(format!("size {x} exceeds cuBLAS's 32-bit sizes")))
}

/// The cuSOLVER handles, one per stream (so per device handle), created on
/// first use and kept for the life of the process.
#[allow(clippy::type_complexity)]
fn solver_handle(dev: &CudaDevice) -> Result<Arc<DnHandle>, CudaError> {
    static HANDLES: OnceLock<Mutex<Vec<(Arc<CudaStream>, Arc<DnHandle>)>>> = OnceLock::new();
    let mut hs = HANDLES
        .get_or_init(Default::default)
        .lock()
        .expect("cuSOLVER handles");
    if let Some((_, h)) = hs.iter().find(|(s, _)| Arc::ptr_eq(s, dev.stream())) {
        return Ok(h.clone());
    }
    // SAFETY: cudarc's probe only tries to `dlopen` the library (see
    // `device.rs`'s `present`); it must run before any cuSOLVER call, which
    // would panic on a missing library.
    if !unsafe { cs::is_culib_present() } {
        return Err(CudaError::Unavailable(
            "the cuSOLVER library (libcusolver) cannot be loaded".into(),
        ));
    }
    let h = Arc::new(
        DnHandle::new(dev.stream().clone())
            .map_err(|e| CudaError::Blas(format!("cuSOLVER handle: {e}")))?,
    );
    hs.push((dev.stream().clone(), h.clone()));
    Ok(h)
}

/// A batch of `count` matrices of `rows x cols`, each column-major and
/// contiguous (leading dimension `rows`), one after the other.
struct ColMajor<T> {
    store: Arc<CudaStorage<T>>,
    batch: Vec<usize>,
    count: usize,
    rows: usize,
    cols: usize,
}

impl<T: SolverElement> ColMajor<T> {
    /// The matrices of `src` (`(..., rows, cols)` read through `dims` and
    /// `strides`, its batch broadcast to `batch`) copied column-major.
    fn copy(dev: &CudaDevice, src: Operand<'_, T>, batch: &[usize]) -> Result<Self, CudaError> {
        let r = src.dims.len();
        let (rows, cols) = (src.dims[r - 2], src.dims[r - 1]);
        let count: usize = batch.iter().product();
        let store = Arc::new(CudaStorage::new(
            dev.alloc::<T>(count * rows * cols)?,
            dev.clone(),
        ));
        let mut dims = batch.to_vec();
        dims.extend([rows, cols]);
        // Batch row-major, each matrix column-major: element (i, j) at
        // i + j * rows.
        let mut strides: Vec<usize> = contiguous_strides(batch)
            .iter()
            .map(|s| s * rows * cols)
            .collect();
        strides.extend([1, rows]);
        let out = Operand {
            storage: &store,
            dims: &dims,
            strides: &strides,
            offset: 0,
        };
        launch(dev, &table::Identity::DEF, out, src, &[], T::default())?;
        Ok(ColMajor {
            store,
            batch: batch.to_vec(),
            count,
            rows,
            cols,
        })
    }

    /// A fresh column-major batch of `count` matrices whose values the
    /// caller's routine writes.
    fn fresh(
        dev: &CudaDevice,
        batch: &[usize],
        rows: usize,
        cols: usize,
    ) -> Result<Self, CudaError> {
        let count: usize = batch.iter().product();
        Ok(ColMajor {
            store: Arc::new(CudaStorage::new(
                dev.alloc::<T>(count * rows * cols)?,
                dev.clone(),
            )),
            batch: batch.to_vec(),
            count,
            rows,
            cols,
        })
    }

    /// The matrices row-major in a new contiguous storage `(batch..., rows,
    /// cols)`, or `(batch..., rows)` with `drop_cols` (one column).
    fn to_row_major(&self, dev: &CudaDevice, drop_cols: bool) -> Result<Out<T>, CudaError> {
        let x = read(
            dev,
            &self.store,
            &self.batch,
            self.rows * self.cols,
            [self.rows, self.cols],
            [1, self.rows],
        )?;
        if !drop_cols {
            return Ok(x);
        }
        let mut dims = DimVec::from_slice(&self.batch);
        dims.push(self.rows);
        Ok(Output {
            storage: x.storage,
            dims,
        })
    }

    /// Whether there is nothing to compute.
    fn is_empty(&self) -> bool {
        self.count == 0 || self.rows == 0 || self.cols == 0
    }
}

/// A new contiguous storage `(batch..., rows, cols)` read from `store`,
/// matrix `i` at `i * step`, element `(r, c)` at `r * strides[0] + c *
/// strides[1]` within it.
fn read<T: SolverElement>(
    dev: &CudaDevice,
    store: &CudaStorage<T>,
    batch: &[usize],
    step: usize,
    [rows, cols]: [usize; 2],
    [rs, cs]: [usize; 2],
) -> Result<Out<T>, CudaError> {
    let mut dims = batch.to_vec();
    dims.extend([rows, cols]);
    let mut strides: Vec<usize> = contiguous_strides(batch).iter().map(|s| s * step).collect();
    strides.extend([rs, cs]);
    let out = Owned::new(fresh_output::<T>(dev, &dims)?);
    let src = Operand {
        storage: store,
        dims: &dims,
        strides: &strides,
        offset: 0,
    };
    launch(
        dev,
        &table::Identity::DEF,
        whole(&out),
        src,
        &[],
        T::default(),
    )?;
    Ok(out.into_output())
}

/// A new storage seen whole (row-major), as a kernel writes it.
fn whole<T: super::CudaElement>(o: &Owned<CudaStorage<T>>) -> Operand<'_, T> {
    Operand::from(o.layout())
}

/// One device pointer per matrix of `m` (a device array of device
/// pointers, as the batched routines take), `base` the buffer's address.
fn pointers<T>(dev: &CudaDevice, base: u64, m: &ColMajor<T>) -> Result<CudaSlice<i64>, CudaError> {
    let step = (m.rows * m.cols * size_of::<T>()) as u64;
    let v: Vec<i64> = (0..m.count as u64)
        .map(|i| (base + i * step) as i64)
        .collect();
    dev.upload(&v)
}

/// The batch of `a`'s matrices (all but its last two sizes).
fn batch_of(dims: &[usize]) -> &[usize] {
    &dims[..dims.len() - 2]
}

/// `b`'s batch broadcast with `a`'s (`b` first, as PyTorch names them).
fn broadcast(a: &[usize], b: &[usize]) -> Result<Vec<usize>, CudaError> {
    Ok(broadcast_pair(b, a)?.to_vec())
}

/// A buffer of `count` `int`s, zeroed.
fn ints(dev: &CudaDevice, count: usize) -> Result<CudaSlice<i32>, CudaError> {
    dev.alloc_zeros::<i32>(count)
}

/// LU in place of every (square) matrix of `m` with `cublas<t>getrfBatched`:
/// the pivots `(count, n)` and `info` per matrix, on the device.
fn getrf_batched<T: SolverElement>(
    dev: &CudaDevice,
    m: &ColMajor<T>,
) -> Result<(CudaSlice<i32>, CudaSlice<i32>), CudaError> {
    let n = m.rows;
    let mut piv = ints(dev, m.count * n)?;
    let mut info = ints(dev, m.count)?;
    if m.is_empty() {
        return Ok((piv, info));
    }
    {
        let blas = blas_handle(dev)?;
        dev.inner.ctx.bind_to_thread()?;
        let stream = dev.stream();
        let mut buf = m.store.write();
        let (pa, _ga) = buf.device_ptr_mut(stream);
        let ptrs = pointers(dev, pa, m)?;
        let (pp, _gp) = ptrs.device_ptr(stream);
        let (ppiv, _gv) = piv.device_ptr_mut(stream);
        let (pinfo, _gi) = info.device_ptr_mut(stream);
        // SAFETY: `ptrs` holds `count` pointers to the n x n column-major
        // matrices of `buf` (leading dimension n); `piv` has n ints per matrix
        // and `info` one; all on the handle's stream, alive until it has run
        // (the guards and buffers outlive the call, and later reads are
        // ordered on the same stream).
        let s = unsafe {
            (T::GETRF_BATCHED)(
                *blas.handle(),
                int(n)?,
                pp as *const *mut T,
                int(n)?,
                ppiv as *mut c_int,
                pinfo as *mut c_int,
                int(m.count)?,
            )
        };
        blas_ok(s, "getrfBatched")?;
    }
    Ok((piv, info))
}

/// LU in place of every rectangular matrix of `m`, one `cusolverDn<t>getrf`
/// call per matrix (cuBLAS's batched LU takes square matrices only): the
/// pivots `(count, min(m, n))` and `info` per matrix, on the device.
fn getrf_each<T: SolverElement>(
    dev: &CudaDevice,
    m: &ColMajor<T>,
) -> Result<(CudaSlice<i32>, CudaSlice<i32>), CudaError> {
    let k = m.rows.min(m.cols);
    let mut piv = ints(dev, m.count * k)?;
    let mut info = ints(dev, m.count)?;
    if m.is_empty() {
        return Ok((piv, info));
    }
    {
        let h = solver_handle(dev)?;
        dev.inner.ctx.bind_to_thread()?;
        let stream = dev.stream();
        let (rows, cols) = (int(m.rows)?, int(m.cols)?);
        let mut buf = m.store.write();
        let (pa, _ga) = buf.device_ptr_mut(stream);
        let mut lwork: c_int = 0;
        // SAFETY: a workspace query: reads the sizes only.
        let s = unsafe { (T::GETRF_BUFFER)(h.cu(), rows, cols, pa as *mut T, rows, &mut lwork) };
        solver_ok(s, "getrf_bufferSize")?;
        let mut work = dev.alloc_zeros::<T>(lwork.max(1) as usize)?;
        let (pw, _gw) = work.device_ptr_mut(stream);
        let (ppiv, _gv) = piv.device_ptr_mut(stream);
        let (pinfo, _gi) = info.device_ptr_mut(stream);
        let size = size_of::<T>() as u64;
        for i in 0..m.count as u64 {
            // SAFETY: matrix `i` of `buf` is rows x cols column-major at
            // `pa + i * rows * cols` elements; its `k` pivots and its `info`
            // slot follow likewise; the workspace has the size cuSOLVER asked
            // for; everything stays alive until the stream has run.
            let s = unsafe {
                (T::GETRF)(
                    h.cu(),
                    rows,
                    cols,
                    (pa + i * (m.rows * m.cols) as u64 * size) as *mut T,
                    rows,
                    pw as *mut T,
                    (ppiv + i * k as u64 * 4) as *mut c_int,
                    (pinfo + i * 4) as *mut c_int,
                )
            };
            solver_ok(s, "getrf")?;
        }
    }
    Ok((piv, info))
}

/// `info` back on the host (waits for the stream).
fn host_info(dev: &CudaDevice, info: &CudaSlice<i32>, count: usize) -> Result<Vec<i32>, CudaError> {
    if count == 0 {
        return Ok(Vec::new());
    }
    let mut v = dev.stream().clone_dtoh(info)?;
    v.truncate(count);
    Ok(v)
}

/// `buf` (a batch of `n`-long rows, row-major) as a storage `(batch..., n)`.
fn rows_output<E: super::CudaElement>(
    dev: &CudaDevice,
    buf: CudaSlice<E>,
    batch: &[usize],
    n: usize,
) -> Out<E> {
    let mut dims = DimVec::from_slice(batch);
    dims.push(n);
    Output {
        storage: Arc::new(CudaStorage::new(buf, dev.clone())),
        dims,
    }
}

/// `trsmBatched` of `a` (square, `n x n`) against `b` (`rows x cols`) in
/// place, each batch element with its own matrices.
fn trsm<T: SolverElement>(
    dev: &CudaDevice,
    a: &ColMajor<T>,
    b: &ColMajor<T>,
    side: cb::cublasSideMode_t,
    uplo: cb::cublasFillMode_t,
    trans: cb::cublasOperation_t,
    diag: cb::cublasDiagType_t,
) -> Result<(), CudaError> {
    if b.is_empty() {
        return Ok(());
    }
    let blas = blas_handle(dev)?;
    dev.inner.ctx.bind_to_thread()?;
    let stream = dev.stream();
    let abuf = a.store.buf.read_recursive();
    let mut bbuf = b.store.write();
    let (pa, _ga) = abuf.device_ptr(stream);
    let (pb, _gb) = bbuf.device_ptr_mut(stream);
    let (aptrs, bptrs) = (pointers(dev, pa, a)?, pointers(dev, pb, b)?);
    let (ppa, _gpa) = aptrs.device_ptr(stream);
    let (ppb, _gpb) = bptrs.device_ptr(stream);
    // SAFETY: one pointer per batch element in each array: `a`'s n x n
    // (leading dimension n) and `b`'s rows x cols (leading dimension rows)
    // column-major matrices, `n` being `b.rows` on the left and `b.cols` on
    // the right, as the callers build them; all alive until the stream has
    // run.
    let s = unsafe {
        (T::TRSM_BATCHED)(
            *blas.handle(),
            side,
            uplo,
            trans,
            diag,
            int(b.rows)?,
            int(b.cols)?,
            &T::one(),
            ppa as *const *const T,
            int(a.rows.max(1))?,
            ppb as *const *mut T,
            int(b.rows.max(1))?,
            int(b.count)?,
        )
    };
    blas_ok(s, "trsmBatched")
}

fn lu_factor<T: SolverElement>(a: Lay<'_, T>) -> Result<Factored<T, Cuda>, CudaError> {
    let dev = a.storage.dev.clone();
    let batch = batch_of(a.dims);
    let m = ColMajor::copy(&dev, Operand::from(a), batch)?;
    let (piv, info) = if m.rows == m.cols {
        getrf_batched(&dev, &m)?
    } else {
        getrf_each(&dev, &m)?
    };
    let k = m.rows.min(m.cols);
    Ok((
        m.to_row_major(&dev, false)?,
        rows_output(&dev, piv, batch, k),
        host_info(&dev, &info, m.count)?,
    ))
}

fn inv<T: SolverElement>(a: Lay<'_, T>) -> Result<WithInfo<T, Cuda>, CudaError> {
    let dev = a.storage.dev.clone();
    let batch = batch_of(a.dims);
    let m = ColMajor::copy(&dev, Operand::from(a), batch)?;
    let (piv, info) = getrf_batched(&dev, &m)?;
    let out = ColMajor::<T>::fresh(&dev, batch, m.rows, m.cols)?;
    if !m.is_empty() {
        let n = m.rows;
        let blas = blas_handle(&dev)?;
        dev.inner.ctx.bind_to_thread()?;
        let stream = dev.stream();
        let abuf = m.store.buf.read_recursive();
        let mut cbuf = out.store.write();
        let (pa, _ga) = abuf.device_ptr(stream);
        let (pc, _gc) = cbuf.device_ptr_mut(stream);
        let (aptrs, cptrs) = (pointers(&dev, pa, &m)?, pointers(&dev, pc, &out)?);
        let (ppa, _gpa) = aptrs.device_ptr(stream);
        let (ppc, _gpc) = cptrs.device_ptr(stream);
        let (ppiv, _gv) = piv.device_ptr(stream);
        let mut info2 = ints(&dev, m.count)?;
        let (pinfo, _gi) = info2.device_ptr_mut(stream);
        // SAFETY: the factored n x n matrices (leading dimension n), their
        // pivots (n per matrix) from `getrf_batched`, and as many output
        // matrices of the same size in a separate buffer (getri is out of
        // place); all alive until the stream has run.
        let s = unsafe {
            (T::GETRI_BATCHED)(
                *blas.handle(),
                int(n)?,
                ppa as *const *const T,
                int(n)?,
                ppiv as *const c_int,
                ppc as *const *mut T,
                int(n)?,
                pinfo as *mut c_int,
                int(m.count)?,
            )
        };
        blas_ok(s, "getriBatched")?;
    }
    Ok((
        out.to_row_major(&dev, false)?,
        host_info(&dev, &info, m.count)?,
    ))
}

fn solve<T: SolverElement>(
    a: Lay<'_, T>,
    b: Lay<'_, T>,
    vec: bool,
) -> Result<WithInfo<T, Cuda>, CudaError> {
    let dev = a.storage.dev.clone();
    same_device(&dev, &b.storage.dev)?;
    let core = if vec { 1 } else { 2 };
    let bb = &b.dims[..b.dims.len() - core];
    let batch = broadcast(batch_of(a.dims), bb)?;
    let am = ColMajor::copy(&dev, Operand::from(a), &batch)?;
    // A vector right-hand side is read as one column.
    let (mut bd, mut bs) = (b.dims.to_vec(), b.strides.to_vec());
    if vec {
        bd.push(1);
        bs.push(0);
    }
    let bop = Operand {
        storage: b.storage,
        dims: &bd,
        strides: &bs,
        offset: b.offset,
    };
    let bm = ColMajor::copy(&dev, bop, &batch)?;
    let (piv, info) = getrf_batched(&dev, &am)?;
    getrs(&dev, &am, &piv, &bm)?;
    Ok((
        bm.to_row_major(&dev, vec)?,
        host_info(&dev, &info, am.count)?,
    ))
}

/// `cublas<t>getrsBatched`: every right-hand side of `bm` (`n x k`)
/// solved in place against its factored matrix of `am` and its `n`
/// pivots (`count x n` ints in `piv`).
fn getrs<T: SolverElement>(
    dev: &CudaDevice,
    am: &ColMajor<T>,
    piv: &CudaSlice<i32>,
    bm: &ColMajor<T>,
) -> Result<(), CudaError> {
    if am.is_empty() || bm.is_empty() {
        return Ok(());
    }
    let n = am.rows;
    let blas = blas_handle(dev)?;
    dev.inner.ctx.bind_to_thread()?;
    let stream = dev.stream();
    let abuf = am.store.buf.read_recursive();
    let mut bbuf = bm.store.write();
    let (pa, _ga) = abuf.device_ptr(stream);
    let (pb, _gb) = bbuf.device_ptr_mut(stream);
    let (aptrs, bptrs) = (pointers(dev, pa, am)?, pointers(dev, pb, bm)?);
    let (ppa, _gpa) = aptrs.device_ptr(stream);
    let (ppb, _gpb) = bptrs.device_ptr(stream);
    let (ppiv, _gv) = piv.device_ptr(stream);
    let mut host: c_int = 0;
    // SAFETY: per batch element, the factored n x n matrix (leading
    // dimension n) and its n pivots, and the n x k right-hand side (leading
    // dimension n) solved in place; `info` is a host int (it reports invalid
    // arguments only); all alive until the stream has run.
    let s = unsafe {
        (T::GETRS_BATCHED)(
            *blas.handle(),
            cb::cublasOperation_t::CUBLAS_OP_N,
            int(n)?,
            int(bm.cols)?,
            ppa as *const *const T,
            int(n)?,
            ppiv as *const c_int,
            ppb as *const *mut T,
            int(n)?,
            &mut host,
            int(am.count)?,
        )
    };
    blas_ok(s, "getrsBatched")?;
    if host != 0 {
        return Err(CudaError::Blas(format!(
            "getrsBatched: invalid argument {}",
            -host
        )));
    }
    Ok(())
}

/// `X` from `A`'s LU factors and pivots: both broadcast to the batch (the
/// pivots copied to one row of `n` per batch element), then
/// `getrsBatched`.
fn lu_solve<T: SolverElement>(
    lu: Lay<'_, T>,
    piv: Lay<'_, i32>,
    b: Lay<'_, T>,
) -> Result<Out<T>, CudaError> {
    let dev = lu.storage.dev.clone();
    same_device(&dev, &b.storage.dev)?;
    same_device(&dev, &piv.storage.dev)?;
    let batch = broadcast(batch_of(lu.dims), batch_of(b.dims))?;
    let am = ColMajor::copy(&dev, Operand::from(lu), &batch)?;
    let bm = ColMajor::copy(&dev, Operand::from(b), &batch)?;
    let mut pdims = batch.clone();
    pdims.push(am.rows);
    let p = Owned::new(fresh_output::<i32>(&dev, &pdims)?);
    launch(
        &dev,
        &table::Identity::DEF,
        whole(&p),
        Operand::from(piv),
        &[],
        0i32,
    )?;
    getrs(&dev, &am, &p.layout().storage.buf.read_recursive(), &bm)?;
    bm.to_row_major(&dev, false)
}

fn cholesky<T: SolverElement>(a: Lay<'_, T>) -> Result<WithInfo<T, Cuda>, CudaError> {
    let dev = a.storage.dev.clone();
    let batch = batch_of(a.dims);
    let m = ColMajor::copy(&dev, Operand::from(a), batch)?;
    let mut info = ints(&dev, m.count)?;
    let n = m.rows;
    if !m.is_empty() {
        let h = solver_handle(&dev)?;
        dev.inner.ctx.bind_to_thread()?;
        let stream = dev.stream();
        let mut buf = m.store.write();
        let (pa, _ga) = buf.device_ptr_mut(stream);
        let ptrs = pointers(&dev, pa, &m)?;
        let (pp, _gp) = ptrs.device_ptr(stream);
        let (pinfo, _gi) = info.device_ptr_mut(stream);
        // SAFETY: `count` pointers to the n x n column-major matrices of
        // `buf` (leading dimension n), factored in place (lower triangle);
        // `info` has one int per matrix; all alive until the stream has
        // run.
        let s = unsafe {
            (T::POTRF_BATCHED)(
                h.cu(),
                cs::cublasFillMode_t::CUBLAS_FILL_MODE_LOWER,
                int(n)?,
                pp as *mut *mut T,
                int(n)?,
                pinfo as *mut c_int,
                int(m.count)?,
            )
        };
        solver_ok(s, "potrfBatched")?;
    }
    // potrf leaves the upper triangle as it was: zero it.
    let l = keep_triangle(m.to_row_major(&dev, false)?, false)?;
    Ok((l, host_info(&dev, &info, m.count)?))
}

fn cholesky_solve<T: SolverElement>(b: Lay<'_, T>, l: Lay<'_, T>) -> Result<Out<T>, CudaError> {
    let dev = l.storage.dev.clone();
    same_device(&dev, &b.storage.dev)?;
    let batch = broadcast(batch_of(l.dims), batch_of(b.dims))?;
    let lm = ColMajor::copy(&dev, Operand::from(l), &batch)?;
    let bm = ColMajor::copy(&dev, Operand::from(b), &batch)?;
    use cb::cublasDiagType_t::CUBLAS_DIAG_NON_UNIT as NON_UNIT;
    use cb::cublasFillMode_t::CUBLAS_FILL_MODE_LOWER as LOWER;
    use cb::cublasOperation_t::{CUBLAS_OP_N, CUBLAS_OP_T};
    use cb::cublasSideMode_t::CUBLAS_SIDE_LEFT as LEFT;
    // L Y = B, then Lᵀ X = Y (Lᵀ read from L's lower triangle).
    trsm(&dev, &lm, &bm, LEFT, LOWER, CUBLAS_OP_N, NON_UNIT)?;
    trsm(&dev, &lm, &bm, LEFT, LOWER, CUBLAS_OP_T, NON_UNIT)?;
    bm.to_row_major(&dev, false)
}

fn solve_triangular<T: SolverElement>(
    a: Lay<'_, T>,
    b: Lay<'_, T>,
    tri: Triangle,
    left: bool,
) -> Result<Out<T>, CudaError> {
    let dev = a.storage.dev.clone();
    same_device(&dev, &b.storage.dev)?;
    let batch = broadcast(batch_of(a.dims), batch_of(b.dims))?;
    let am = ColMajor::copy(&dev, Operand::from(a), &batch)?;
    let bm = ColMajor::copy(&dev, Operand::from(b), &batch)?;
    let side = if left {
        cb::cublasSideMode_t::CUBLAS_SIDE_LEFT
    } else {
        cb::cublasSideMode_t::CUBLAS_SIDE_RIGHT
    };
    let uplo = if tri.upper {
        cb::cublasFillMode_t::CUBLAS_FILL_MODE_UPPER
    } else {
        cb::cublasFillMode_t::CUBLAS_FILL_MODE_LOWER
    };
    let diag = if tri.unit {
        cb::cublasDiagType_t::CUBLAS_DIAG_UNIT
    } else {
        cb::cublasDiagType_t::CUBLAS_DIAG_NON_UNIT
    };
    trsm(
        &dev,
        &am,
        &bm,
        side,
        uplo,
        cb::cublasOperation_t::CUBLAS_OP_N,
        diag,
    )?;
    bm.to_row_major(&dev, false)
}

/// The largest order `syevjBatched` and `gesvdjBatched` take (cuSOLVER's
/// limit for its batched Jacobi methods); larger matrices are done one
/// cuSOLVER call per matrix.
const JACOBI_BATCH_MAX: usize = 32;

/// cuSOLVER's parameter object of a Jacobi method (tolerance: machine
/// precision, at most 100 sweeps: cuSOLVER's defaults; results sorted,
/// set explicitly: eigenvalues ascending, singular values descending),
/// destroyed on drop.
macro_rules! jacobi_params {
    ($name:ident, $info:ident, $create:ident, $sort:ident, $destroy:ident) => {
        struct $name(cs::$info);

        impl $name {
            fn new() -> Result<Self, CudaError> {
                let mut p: cs::$info = std::ptr::null_mut();
                // SAFETY: writes a fresh parameter object's handle into `p`.
                solver_ok(unsafe { cs::$create(&mut p) }, stringify!($create))?;
                let params = $name(p);
                // SAFETY: `p` is the live object just created (destroyed
                // on drop).
                solver_ok(unsafe { cs::$sort(p, 1) }, stringify!($sort))?;
                Ok(params)
            }
        }

        impl Drop for $name {
            fn drop(&mut self) {
                // SAFETY: `self.0` was created by the `Create` call above
                // and is destroyed once, here; a failure leaks it, nothing
                // else.
                let _ = unsafe { cs::$destroy(self.0) };
            }
        }
    };
}
jacobi_params!(
    SyevjParams,
    syevjInfo_t,
    cusolverDnCreateSyevjInfo,
    cusolverDnXsyevjSetSortEig,
    cusolverDnDestroySyevjInfo
);
jacobi_params!(
    GesvdjParams,
    gesvdjInfo_t,
    cusolverDnCreateGesvdjInfo,
    cusolverDnXgesvdjSetSortEig,
    cusolverDnDestroyGesvdjInfo
);

/// Eigenvalues (and vectors) of every symmetric matrix: one
/// `cusolverDn<t>syevjBatched` call for `n <= 32`, else one
/// `cusolverDn<t>syevj` call per matrix.
fn eigh<T: SolverElement>(a: Lay<'_, T>, vectors: bool) -> Result<Eigen<T, Cuda>, CudaError> {
    let dev = a.storage.dev.clone();
    let batch = batch_of(a.dims);
    let m = ColMajor::copy(&dev, Operand::from(a), batch)?;
    let n = m.rows;
    let mut w = dev.alloc_zeros::<T>(m.count * n)?;
    let mut info = ints(&dev, m.count)?;
    if !m.is_empty() {
        let h = solver_handle(&dev)?;
        dev.inner.ctx.bind_to_thread()?;
        let stream = dev.stream();
        let jobz = if vectors {
            cs::cusolverEigMode_t::CUSOLVER_EIG_MODE_VECTOR
        } else {
            cs::cusolverEigMode_t::CUSOLVER_EIG_MODE_NOVECTOR
        };
        let params = SyevjParams::new()?;
        let batched = n <= JACOBI_BATCH_MAX;
        let calls = if batched { 1 } else { m.count };
        let per_call = if batched { int(m.count)? } else { 0 };
        let mut buf = m.store.write();
        let (pa, _ga) = buf.device_ptr_mut(stream);
        let (pw, _gw) = w.device_ptr_mut(stream);
        let (pinfo, _gi) = info.device_ptr_mut(stream);
        let mut lwork: c_int = 0;
        // SAFETY: a workspace query: reads the sizes only.
        let s = unsafe {
            syevj_buffer::<T>(
                h.cu(),
                jobz,
                int(n)?,
                pa as *const T,
                pw as *const T,
                &mut lwork,
                params.0,
                per_call,
            )
        };
        solver_ok(s, "syevj_bufferSize")?;
        let mut work = dev.alloc_zeros::<T>(lwork.max(1) as usize)?;
        let (pwork, _gk) = work.device_ptr_mut(stream);
        let size = size_of::<T>() as u64;
        for i in 0..calls as u64 {
            // SAFETY: call `i` works on matrix `i` (or, batched, on all
            // `count` matrices, contiguous n x n column-major with lda = n),
            // its `n` eigenvalues and its `info`, with the workspace of the
            // size cuSOLVER asked for; all alive until the stream has run.
            let s = unsafe {
                syevj::<T>(
                    h.cu(),
                    jobz,
                    int(n)?,
                    (pa + i * (n * n) as u64 * size) as *mut T,
                    (pw + i * n as u64 * size) as *mut T,
                    pwork as *mut T,
                    lwork,
                    (pinfo + i * 4) as *mut c_int,
                    params.0,
                    per_call,
                )
            };
            solver_ok(s, "syevj")?;
        }
    }
    let v = if vectors {
        Some(m.to_row_major(&dev, false)?)
    } else {
        None
    };
    Ok((
        rows_output(&dev, w, batch, n),
        v,
        host_info(&dev, &info, m.count)?,
    ))
}

/// Which matrices of `a` (`(..., m, n)`) hold a NaN or an infinity, one
/// flag per matrix: `sum(a * 0)` over each matrix on the device (NaN
/// exactly there), read back.
fn non_finite<T: SolverElement>(a: Lay<'_, T>) -> Result<Vec<bool>, CudaError> {
    let zero = Owned::new(<Cuda as Backend<T>>::from_host(a, vec![T::default()], &[])?);
    let z = Owned::new(<Cuda as Backend<T>>::binary(table::Mul, a, zero.layout())?);
    let rank = a.dims.len();
    let mut mask = vec![false; rank];
    mask[rank - 2..].iter_mut().for_each(|m| *m = true);
    let s = Owned::new(<Cuda as Backend<T>>::reduce(
        Reduction::Sum,
        z.layout(),
        &mask,
        false,
    )?);
    Ok(<Cuda as Backend<T>>::to_host(s.layout())?
        .into_iter()
        .map(|x| x.is_nan())
        .collect())
}

/// The singular value decomposition of every matrix: one
/// `cusolverDn<t>gesvdjBatched` call when `m, n <= 32`, else one
/// `cusolverDn<t>gesvdj` call per matrix; both compute the full `U`
/// `(m, m)` and `V` `(n, n)`, of which the reduced form keeps the first `k`
/// columns. Matrices with non-finite values are found first (as the CPU
/// refuses them).
fn svd<T: SolverElement>(
    a: Lay<'_, T>,
    vectors: bool,
    full: bool,
) -> Result<Singular<T, Cuda>, CudaError>
where
    Cuda: Backend<T>,
{
    let dev = a.storage.dev.clone();
    let batch = batch_of(a.dims);
    let m = ColMajor::copy(&dev, Operand::from(a), batch)?;
    let (rows, cols) = (m.rows, m.cols);
    let k = rows.min(cols);
    let count = m.count;
    let mut s = dev.alloc_zeros::<T>(count * k)?;
    let ustore = CudaStorage::new(dev.alloc_zeros::<T>(count * rows * rows)?, dev.clone());
    let vstore = CudaStorage::new(dev.alloc_zeros::<T>(count * cols * cols)?, dev.clone());
    let mut info = ints(&dev, count)?;
    if !m.is_empty() {
        let h = solver_handle(&dev)?;
        dev.inner.ctx.bind_to_thread()?;
        let stream = dev.stream();
        let jobz = if vectors {
            cs::cusolverEigMode_t::CUSOLVER_EIG_MODE_VECTOR
        } else {
            cs::cusolverEigMode_t::CUSOLVER_EIG_MODE_NOVECTOR
        };
        let params = GesvdjParams::new()?;
        let batched = rows <= JACOBI_BATCH_MAX && cols <= JACOBI_BATCH_MAX;
        let calls = if batched { 1 } else { count };
        let per_call = if batched { int(count)? } else { 0 };
        let (mi, ni) = (int(rows)?, int(cols)?);
        let mut abuf = m.store.write();
        let mut ubuf = ustore.write();
        let mut vbuf = vstore.write();
        let (pa, _ga) = abuf.device_ptr_mut(stream);
        let (ps, _gs) = s.device_ptr_mut(stream);
        let (pu, _gu) = ubuf.device_ptr_mut(stream);
        let (pv, _gv) = vbuf.device_ptr_mut(stream);
        let (pinfo, _gi) = info.device_ptr_mut(stream);
        let mut lwork: c_int = 0;
        // SAFETY: a workspace query: reads the sizes only.
        let st = unsafe {
            gesvdj_buffer::<T>(
                h.cu(),
                jobz,
                mi,
                ni,
                pa as *const T,
                ps as *const T,
                pu as *const T,
                pv as *const T,
                &mut lwork,
                params.0,
                per_call,
            )
        };
        solver_ok(st, "gesvdj_bufferSize")?;
        let mut work = dev.alloc_zeros::<T>(lwork.max(1) as usize)?;
        let (pwork, _gk) = work.device_ptr_mut(stream);
        let size = size_of::<T>() as u64;
        let at = |base: u64, i: u64, len: usize| base + i * len as u64 * size;
        for i in 0..calls as u64 {
            // SAFETY: call `i` works on matrix `i` (or, batched, on all
            // `count`): A m x n (lda = m), its k singular values, U m x m
            // (ldu = m) and V n x n (ldv = n), all column-major and
            // contiguous per matrix, its `info`, and the workspace of the
            // size cuSOLVER asked for; all alive until the stream has run.
            let st = unsafe {
                gesvdj::<T>(
                    h.cu(),
                    jobz,
                    mi,
                    ni,
                    at(pa, i, rows * cols) as *mut T,
                    at(ps, i, k) as *mut T,
                    at(pu, i, rows * rows) as *mut T,
                    at(pv, i, cols * cols) as *mut T,
                    pwork as *mut T,
                    lwork,
                    (pinfo + i * 4) as *mut c_int,
                    params.0,
                    per_call,
                )
            };
            solver_ok(st, "gesvdj")?;
        }
    }
    let mut info = host_info(&dev, &info, count)?;
    if count > 0 && rows * cols > 0 {
        for (i, bad) in info.iter_mut().zip(non_finite(a)?) {
            if bad {
                *i = -1;
            }
        }
    }
    let (u, vh) = if vectors {
        let (uc, vr) = if full { (rows, cols) } else { (k, k) };
        // U's first `uc` columns, row-major; Vh = Vᵀ: V's column-major
        // buffer read row-major, its first `vr` rows.
        (
            Some(read(
                &dev,
                &ustore,
                batch,
                rows * rows,
                [rows, uc],
                [1, rows],
            )?),
            Some(read(
                &dev,
                &vstore,
                batch,
                cols * cols,
                [vr, cols],
                [cols, 1],
            )?),
        )
    } else {
        (None, None)
    };
    Ok((u, rows_output(&dev, s, batch, k), vh, info))
}

/// `(sign, log|det|, det)`: LU on the device (`getrfBatched`); the `n`
/// diagonal entries of `U` and the `n` pivots of each matrix are read back
/// and combined on the host (the CPU's formula, `linalg::det_from_lu`),
/// and the three results uploaded.
fn slogdet<T: SolverElement>(a: Lay<'_, T>) -> Result<Dets<T, Cuda>, CudaError> {
    let dev = a.storage.dev.clone();
    let batch = batch_of(a.dims);
    let m = ColMajor::copy(&dev, Operand::from(a), batch)?;
    let n = m.rows;
    let (piv, _) = getrf_batched(&dev, &m)?;
    let (mut sign, mut logabs, mut det) = (Vec::new(), Vec::new(), Vec::new());
    if m.count > 0 {
        let diag = read(&dev, &m.store, batch, n * n, [n, 1], [n + 1, 0])?;
        let diag = <Cuda as Backend<T>>::to_host(Owned::new(diag).layout())?;
        let piv = host_info(&dev, &piv, m.count * n)?;
        for i in 0..m.count {
            let odd = (0..n).filter(|&r| piv[i * n + r] != r as i32 + 1).count() % 2 == 1;
            let (s, l, d) = det_from_lu(diag[i * n..(i + 1) * n].iter().copied(), odd);
            sign.push(s);
            logabs.push(l);
            det.push(d);
        }
    }
    let up = |v: Vec<T>| <Cuda as Backend<T>>::from_host(a, v, batch);
    Ok((up(sign)?, up(logabs)?, up(det)?))
}

/// `x` with the elements below the diagonal (`upper`) or above it set to
/// 0 (`where`, so that a NaN there does not survive), for the last two
/// dimensions of `x` (`(..., r, c)`).
fn keep_triangle<T: SolverElement>(x: Out<T>, upper: bool) -> Result<Out<T>, CudaError> {
    let x = Owned::new(x);
    let x = x.layout();
    let d = x.dims;
    let (r, c) = (d[d.len() - 2], d[d.len() - 1]);
    let mask: Vec<bool> = (0..r * c)
        .map(|i| {
            if upper {
                i % c >= i / c
            } else {
                i % c <= i / c
            }
        })
        .collect();
    let mask = Owned::new(<Cuda as Backend<bool>>::from_host(x, mask, &[r, c])?);
    let zero = Owned::new(<Cuda as Backend<T>>::from_host(x, vec![T::default()], &[])?);
    <Cuda as Backend<T>>::select(table::Where, mask.layout(), x, zero.layout())
}

/// `(Q, R)`: Householder QR of the whole batch with `cublas<t>geqrfBatched`,
/// then `Q` (`(m, k)`, or `(m, m)` when `complete`) formed from the
/// reflectors by `cusolverDn<t>orgqr`, **one call per matrix** (cuSOLVER
/// has no batched form of it); `R` is the factor's upper triangle
/// (`(k, n)`, or `(m, n)` when `complete`).
fn qr<T: SolverElement>(a: Lay<'_, T>, complete: bool) -> Result<(Out<T>, Out<T>), CudaError> {
    let dev = a.storage.dev.clone();
    let batch = batch_of(a.dims);
    let f = ColMajor::copy(&dev, Operand::from(a), batch)?;
    let (m, n, count) = (f.rows, f.cols, f.count);
    let k = m.min(n);
    let qc = if complete { m } else { k };
    let mut tau = dev.alloc_zeros::<T>(count * k)?;
    // Q's buffer: each m x qc matrix column-major, its first min(n, qc)
    // columns the reflectors (copied below), the rest zero.
    let q = ColMajor::<T> {
        store: Arc::new(CudaStorage::new(
            dev.alloc_zeros::<T>(count * m * qc)?,
            dev.clone(),
        )),
        batch: batch.to_vec(),
        count,
        rows: m,
        cols: qc,
    };
    if count > 0 && m > 0 && n > 0 {
        let blas = blas_handle(&dev)?;
        dev.inner.ctx.bind_to_thread()?;
        let stream = dev.stream();
        {
            let mut buf = f.store.write();
            let (pa, _ga) = buf.device_ptr_mut(stream);
            let (pt, _gt) = tau.device_ptr_mut(stream);
            let aptrs = pointers(&dev, pa, &f)?;
            let step = (k * size_of::<T>()) as u64;
            let tptrs: Vec<i64> = (0..count as u64).map(|i| (pt + i * step) as i64).collect();
            let tptrs = dev.upload(&tptrs)?;
            let (ppa, _gpa) = aptrs.device_ptr(stream);
            let (ppt, _gpt) = tptrs.device_ptr(stream);
            let mut host: c_int = 0;
            // SAFETY: one pointer per matrix to its m x n column-major
            // matrix (lda = m) and to its k Householder scalars; `info` is a
            // host int (invalid arguments only); all alive until the stream
            // has run.
            let s = unsafe {
                (T::GEQRF_BATCHED)(
                    *blas.handle(),
                    int(m)?,
                    int(n)?,
                    ppa as *const *mut T,
                    int(m)?,
                    ppt as *const *mut T,
                    &mut host,
                    int(count)?,
                )
            };
            blas_ok(s, "geqrfBatched")?;
            if host != 0 {
                return Err(CudaError::Blas(format!(
                    "geqrfBatched: invalid argument {}",
                    -host
                )));
            }
        }
        // The reflectors (the first min(n, qc) columns) into Q's buffer.
        let c = n.min(qc);
        let mut dims = batch.to_vec();
        dims.extend([m, c]);
        let mut dst: Vec<usize> = contiguous_strides(batch)
            .iter()
            .map(|s| s * m * qc)
            .collect();
        dst.extend([1, m]);
        let mut src: Vec<usize> = contiguous_strides(batch)
            .iter()
            .map(|s| s * m * n)
            .collect();
        src.extend([1, m]);
        let out = Operand {
            storage: &q.store,
            dims: &dims,
            strides: &dst,
            offset: 0,
        };
        let from = Operand {
            storage: &f.store,
            dims: &dims,
            strides: &src,
            offset: 0,
        };
        launch(&dev, &table::Identity::DEF, out, from, &[], T::default())?;
        let h = solver_handle(&dev)?;
        let mut qbuf = q.store.write();
        let (pq, _gq) = qbuf.device_ptr_mut(stream);
        let (pt, _gt) = tau.device_ptr(stream);
        let (mi, qi, ki) = (int(m)?, int(qc)?, int(k)?);
        let mut lwork: c_int = 0;
        // SAFETY: a workspace query: reads the sizes only.
        let s = unsafe {
            (T::ORGQR_BUFFER)(
                h.cu(),
                mi,
                qi,
                ki,
                pq as *const T,
                mi,
                pt as *const T,
                &mut lwork,
            )
        };
        solver_ok(s, "orgqr_bufferSize")?;
        let mut work = dev.alloc_zeros::<T>(lwork.max(1) as usize)?;
        let mut info = ints(&dev, 1)?;
        let (pw, _gw) = work.device_ptr_mut(stream);
        let (pinfo, _gi) = info.device_ptr_mut(stream);
        let size = size_of::<T>() as u64;
        for i in 0..count as u64 {
            // SAFETY: matrix `i` of Q's buffer (m x qc column-major, lda =
            // m, its first k columns the reflectors), its k scalars, the
            // workspace of the size asked for, one `info` int (only invalid
            // arguments are reported there); all alive until the stream has
            // run.
            let s = unsafe {
                (T::ORGQR)(
                    h.cu(),
                    mi,
                    qi,
                    ki,
                    (pq + i * (m * qc) as u64 * size) as *mut T,
                    mi,
                    (pt + i * k as u64 * size) as *const T,
                    pw as *mut T,
                    lwork,
                    pinfo as *mut c_int,
                )
            };
            solver_ok(s, "orgqr")?;
        }
    }
    // R: the factor's first `rr` rows, upper triangle.
    let rr = if complete { m } else { k };
    let r = read(&dev, &f.store, batch, m * n, [rr, n], [1, m])?;
    Ok((q.to_row_major(&dev, false)?, keep_triangle(r, true)?))
}

macro_rules! cuda_linalg {
    ($($t:ty),*) => {$(
        /// cuBLAS's and cuSOLVER's batched routines; see the module's table.
        impl Linalg<$t> for Cuda {
            fn lu_factor(
                a: Lay<'_, $t>,
            ) -> Result<Factored<$t, Cuda>, CudaError> {
                lu_factor(a)
            }

            fn inv(a: Lay<'_, $t>) -> Result<WithInfo<$t, Cuda>, CudaError> {
                inv(a)
            }

            fn cholesky(a: Lay<'_, $t>) -> Result<WithInfo<$t, Cuda>, CudaError> {
                cholesky(a)
            }

            fn solve(a: Lay<'_, $t>, b: Lay<'_, $t>, vec: bool) -> Result<WithInfo<$t, Cuda>, CudaError> {
                solve(a, b, vec)
            }

            fn cholesky_solve(b: Lay<'_, $t>, l: Lay<'_, $t>) -> Result<Out<$t>, CudaError> {
                cholesky_solve(b, l)
            }

            fn solve_triangular(
                a: Lay<'_, $t>,
                b: Lay<'_, $t>,
                tri: Triangle,
                left: bool,
            ) -> Result<Out<$t>, CudaError> {
                solve_triangular(a, b, tri, left)
            }

            fn eigh(a: Lay<'_, $t>, vectors: bool) -> Result<Eigen<$t, Cuda>, CudaError> {
                eigh(a, vectors)
            }

            fn svd(a: Lay<'_, $t>, vectors: bool, full: bool) -> Result<Singular<$t, Cuda>, CudaError> {
                svd(a, vectors, full)
            }

            fn slogdet(a: Lay<'_, $t>) -> Result<Dets<$t, Cuda>, CudaError> {
                slogdet(a)
            }

            fn qr(a: Lay<'_, $t>, complete: bool) -> Result<(Out<$t>, Out<$t>), CudaError> {
                qr(a, complete)
            }

            fn info_tensor(
                like: Lay<'_, $t>,
                info: Vec<i32>,
                dims: &[usize],
            ) -> Result<Out<i32>, CudaError> {
                <Cuda as Backend<i32>>::from_host(like, info, dims)
            }

            fn lu_solve(
                lu: Lay<'_, $t>,
                piv: Lay<'_, i32>,
                _piv_host: &[i32],
                b: Lay<'_, $t>,
            ) -> Result<Out<$t>, CudaError> {
                lu_solve(lu, piv, b)
            }
        }
    )*};
}
cuda_linalg!(f32, f64);
