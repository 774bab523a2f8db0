//! Opening a GPU, the storage of CUDA tensors, and NVRTC compilation with a
//! per-process cache.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::{CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream};
use cudarc::nvrtc::{CompileOptions, Ptx};
use parking_lot::RwLock;

use super::CudaError;
use super::source::KernelSource;
use crate::element::Element;

/// An element type the CUDA kernels handle: every [`Element`].
///
/// ```
/// # #[cfg(feature = "cuda")] {
/// use shaped::device::CudaElement;
/// fn on_gpu<T: CudaElement>() {}
/// on_gpu::<f32>();
/// # }
/// ```
pub trait CudaElement:
    Element + cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits
{
}
impl CudaElement for f32 {}
impl CudaElement for f64 {}
impl CudaElement for i32 {}
impl CudaElement for i64 {}
impl CudaElement for u8 {}
impl CudaElement for bool {}

/// Whether the shared library cudarc looks for under `names` loads. This
/// is cudarc's own probe (it only calls `dlopen`), used before anything in
/// cudarc that would panic on a missing library.
fn present(check: unsafe fn() -> bool) -> bool {
    // SAFETY: `is_culib_present` only tries to `dlopen` the library's
    // candidate names and drops what it opened; loading the CUDA libraries
    // runs no initialisers with preconditions.
    unsafe { check() }
}

/// Whether NVRTC can be loaded.
fn nvrtc_present() -> bool {
    present(cudarc::nvrtc::sys::is_culib_present)
}

/// Whether the CUDA driver library can be loaded.
fn driver_present() -> bool {
    present(cudarc::driver::sys::is_culib_present)
}

/// Whether cuBLAS can be loaded.
pub(crate) fn cublas_present() -> bool {
    present(cudarc::cublas::sys::is_culib_present)
}

/// Compiles `src` to PTX for compute capability `arch` (`(8, 0)` for
/// `compute_80`), caching by module name and architecture for the life of
/// the process.
///
/// # Errors
/// [`CudaError::Unavailable`] when NVRTC cannot be loaded,
/// [`CudaError::Compile`] with NVRTC's log when compilation fails.
///
/// ```
/// # #[cfg(feature = "cuda")] {
/// use shaped::device::cuda_kernels::{all_kernel_sources, compile_ptx};
/// let k = &all_kernel_sources()[0];
/// match compile_ptx(k, (8, 0)) {
///     Ok(ptx) => assert!(ptx.contains(".entry")),
///     Err(e) => println!("{e}"),
/// }
/// # }
/// ```
pub fn compile_ptx(k: &KernelSource, arch: (u32, u32)) -> Result<String, CudaError> {
    /// PTX by module name and architecture.
    type PtxCache = Mutex<HashMap<(String, (u32, u32)), String>>;
    static CACHE: OnceLock<PtxCache> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let key = (k.name.clone(), arch);
    if let Some(ptx) = cache.lock().expect("kernel cache").get(&key) {
        return Ok(ptx.clone());
    }
    if !nvrtc_present() {
        return Err(CudaError::Unavailable(
            "the NVRTC library (libnvrtc) cannot be loaded".into(),
        ));
    }
    let opts = CompileOptions {
        options: vec![
            format!("--gpu-architecture=compute_{}{}", arch.0, arch.1),
            "--std=c++17".into(),
        ],
        name: Some(format!("{}.cu", k.name)),
        ..Default::default()
    };
    let ptx =
        cudarc::nvrtc::compile_ptx_with_opts(&k.source, opts).map_err(|e| CudaError::Compile {
            kernel: k.name.clone(),
            log: format!("{e:?}"),
        })?;
    let text = ptx.to_src();
    cache
        .lock()
        .expect("kernel cache")
        .insert(key, text.clone());
    Ok(text)
}

/// Compiles `k` to machine code (a CUBIN) for `sm_XY`, `arch = (X, Y)`,
/// with NVRTC's built-in assembler, and returns it: a stronger check than
/// PTX (register allocation and shared memory are settled here), used by
/// `tests/cuda_kernels.rs`; at run time kernels are loaded as PTX, which the
/// driver assembles for the GPU at hand.
///
/// # Errors
/// [`CudaError::Unavailable`] when NVRTC cannot be loaded,
/// [`CudaError::Compile`] with NVRTC's log when compilation fails.
///
/// ```
/// # #[cfg(feature = "cuda")] {
/// use shaped::device::cuda_kernels::{all_kernel_sources, compile_cubin};
/// if let Ok(cubin) = compile_cubin(&all_kernel_sources()[0], (9, 0)) {
///     assert_eq!(&cubin[..4], b"\x7fELF");
/// }
/// # }
/// ```
pub fn compile_cubin(k: &KernelSource, arch: (u32, u32)) -> Result<Vec<u8>, CudaError> {
    use cudarc::nvrtc::{result, sys};
    if !nvrtc_present() {
        return Err(CudaError::Unavailable(
            "the NVRTC library (libnvrtc) cannot be loaded".into(),
        ));
    }
    let fail = |log: String| CudaError::Compile {
        kernel: k.name.clone(),
        log,
    };
    let src = std::ffi::CString::new(k.source.as_str()).map_err(|e| fail(e.to_string()))?;
    let prog = result::create_program(&src, None).map_err(|e| fail(format!("{e:?}")))?;
    let opts = [
        format!("--gpu-architecture=sm_{}{}", arch.0, arch.1),
        "--std=c++17".to_string(),
    ];
    // SAFETY: `prog` was created above and is destroyed only at the end of
    // this function; the CUBIN buffer has the size NVRTC reports for it.
    unsafe {
        let compiled = result::compile_program(prog, &opts);
        let out = match compiled {
            Err(e) => {
                let log = result::get_program_log(prog)
                    .map(|l| l.iter().map(|&c| c as u8 as char).collect::<String>())
                    .unwrap_or_default();
                Err(fail(format!("{e:?}\n{log}")))
            }
            Ok(()) => {
                let mut size = 0usize;
                sys::nvrtcGetCUBINSize(prog, &mut size)
                    .result()
                    .map_err(|e| fail(format!("{e:?}")))
                    .and_then(|()| {
                        let mut buf = vec![0u8; size];
                        sys::nvrtcGetCUBIN(prog, buf.as_mut_ptr().cast())
                            .result()
                            .map(|()| buf)
                            .map_err(|e| fail(format!("{e:?}")))
                    })
            }
        };
        let _ = result::destroy_program(prog);
        out
    }
}

/// A loaded kernel's key: op (or reduction) name, the op's mode suffix
/// (`Mode::suffix`: `""`, `"_rs"` or `"_ls"`; `""` where there is none),
/// element type name and variant suffix, all static, so a launch looks its
/// kernel up without building a string. Every part of the module's name is
/// in the key: `mul` with a scalar and `mul` of two tensors are two
/// modules, and a key without the mode handed one's kernel to the other.
pub(crate) type KernelKey = (&'static str, &'static str, &'static str, &'static str);

/// A handle on one GPU: its context, the stream every operation of
/// `shaped` runs on (so operations are ordered), and the kernels loaded on
/// it. Cloning shares all of these.
///
/// ```
/// use shaped::device::Cuda;
/// match Cuda::device(0) {
///     Ok(dev) => println!("{} (sm_{}{})", dev.name(), dev.compute_capability().0, dev.compute_capability().1),
///     Err(e) => println!("{e}"),
/// }
/// ```
#[derive(Clone)]
pub struct CudaDevice {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) ctx: Arc<CudaContext>,
    pub(crate) stream: Arc<CudaStream>,
    name: String,
    ordinal: usize,
    arch: (u32, u32),
    modules: Mutex<HashMap<String, Arc<CudaModule>>>,
    functions: Mutex<HashMap<KernelKey, CudaFunction>>,
    pub(crate) blas: OnceLock<Result<cudarc::cublas::CudaBlas, CudaError>>,
}

impl core::fmt::Debug for CudaDevice {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("CudaDevice")
            .field("ordinal", &self.inner.ordinal)
            .field("name", &self.inner.name)
            .field("arch", &self.inner.arch)
            .finish()
    }
}

impl PartialEq for CudaDevice {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

/// Opens GPU `ordinal` (once per process; later calls share the handle).
pub fn open(ordinal: usize) -> Result<CudaDevice, CudaError> {
    static OPEN: OnceLock<Mutex<HashMap<usize, CudaDevice>>> = OnceLock::new();
    let open = OPEN.get_or_init(Default::default);
    let mut open = open.lock().expect("device table");
    if let Some(d) = open.get(&ordinal) {
        return Ok(d.clone());
    }
    if !driver_present() {
        return Err(CudaError::Unavailable(
            "the CUDA driver library (libcuda) cannot be loaded".into(),
        ));
    }
    if !nvrtc_present() {
        return Err(CudaError::Unavailable(
            "the NVRTC library (libnvrtc) cannot be loaded".into(),
        ));
    }
    let count = CudaContext::device_count()?;
    if ordinal >= count.max(0) as usize {
        return Err(CudaError::Driver(format!(
            "no CUDA device {ordinal} ({count} present)"
        )));
    }
    let ctx = CudaContext::new(ordinal)?;
    let (major, minor) = ctx.compute_capability()?;
    let stream = ctx.default_stream();
    // SAFETY: every operation of `shaped` runs on this one stream (cuBLAS
    // and cuSOLVER are bound to it too), so the stream orders every use of
    // a buffer before its free: the per-buffer events cudarc records to
    // order uses across streams (two created per allocation) are not needed.
    unsafe { ctx.disable_event_tracking() };
    keep_freed_memory(&ctx)?;
    let dev = CudaDevice {
        inner: Arc::new(Inner {
            name: ctx.name()?,
            stream,
            ctx,
            ordinal,
            arch: (major as u32, minor as u32),
            modules: Mutex::new(HashMap::new()),
            functions: Mutex::new(HashMap::new()),
            blas: OnceLock::new(),
        }),
    };
    open.insert(ordinal, dev.clone());
    Ok(dev)
}

/// Makes the device's default memory pool (where stream-ordered
/// allocations come from) keep freed memory for reuse instead of returning
/// it to the driver at every synchronisation, as PyTorch's caching
/// allocator does: without it each first allocation after a `synchronize`
/// maps its pages again (a 64 MiB result cost about 20 µs more per call on
/// an H100, `examples/bench_cuda.rs`). Devices without stream-ordered
/// allocation are left as they are.
fn keep_freed_memory(ctx: &CudaContext) -> Result<(), CudaError> {
    use cudarc::driver::{result, sys};
    if !ctx.has_async_alloc() {
        return Ok(());
    }
    let mut threshold = u64::MAX;
    // SAFETY: `cu_device` is the context's own device handle, and the
    // release threshold attribute takes a `cuuint64_t`, which `threshold`
    // is, alive for the call.
    unsafe {
        let pool = result::device::get_default_mem_pool(ctx.cu_device())?;
        result::mem_pool::set_attribute(
            pool,
            sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
            (&raw mut threshold).cast(),
        )?;
    }
    Ok(())
}

impl CudaDevice {
    /// The GPU's name, as the driver reports it.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// The device's ordinal (0 for the first GPU).
    pub fn ordinal(&self) -> usize {
        self.inner.ordinal
    }

    /// The compute capability, `(major, minor)`; kernels are compiled for it.
    pub fn compute_capability(&self) -> (u32, u32) {
        self.inner.arch
    }

    /// Waits until every operation queued on this device has finished.
    ///
    /// # Errors
    /// A driver error raised by an earlier asynchronous operation (cudarc
    /// records errors of work it cannot report at once, such as frees).
    pub fn synchronize(&self) -> Result<(), CudaError> {
        self.inner.stream.synchronize()?;
        Ok(self.inner.ctx.check_err()?)
    }

    /// Device-to-device copy bandwidth in GB/s (bytes read plus written per
    /// second), measured with the driver's `cuMemcpyDtoD` on two fresh
    /// buffers of `bytes` bytes: the median of `reps` timed copies. The
    /// yardstick for memory-bound kernels (`examples/bench_cuda.rs`).
    ///
    /// # Errors
    /// A driver error (out of memory, ...).
    ///
    /// ```
    /// use shaped::device::Cuda;
    /// if let Ok(dev) = Cuda::device(0) {
    ///     assert!(dev.copy_bandwidth(1 << 20, 3).unwrap() > 0.0);
    /// }
    /// ```
    pub fn copy_bandwidth(&self, bytes: usize, reps: usize) -> Result<f64, CudaError> {
        let stream = self.stream();
        let src = self.alloc_zeros::<u8>(bytes)?;
        let mut dst = self.alloc_zeros::<u8>(bytes)?;
        stream.memcpy_dtod(&src, &mut dst)?;
        stream.synchronize()?;
        let mut times = Vec::with_capacity(reps.max(1));
        for _ in 0..reps.max(1) {
            let start = std::time::Instant::now();
            stream.memcpy_dtod(&src, &mut dst)?;
            stream.synchronize()?;
            times.push(start.elapsed().as_secs_f64());
        }
        times.sort_by(f64::total_cmp);
        Ok(2.0 * bytes as f64 / times[times.len() / 2] / 1e9)
    }

    /// The stream every operation runs on.
    pub(crate) fn stream(&self) -> &Arc<CudaStream> {
        &self.inner.stream
    }

    /// Kernel `kernel` of module `k`, compiled for this device's
    /// architecture and loaded once.
    pub(crate) fn function(
        &self,
        k: &KernelSource,
        kernel: &str,
    ) -> Result<CudaFunction, CudaError> {
        self.inner.ctx.bind_to_thread()?;
        let module = {
            let mut modules = self.inner.modules.lock().expect("module table");
            match modules.get(&k.name) {
                Some(m) => Arc::clone(m),
                None => {
                    let ptx = compile_ptx(k, self.inner.arch)?;
                    let m = self.inner.ctx.load_module(Ptx::from_src(ptx))?;
                    modules.insert(k.name.clone(), Arc::clone(&m));
                    m
                }
            }
        };
        Ok(module.load_function(kernel)?)
    }

    /// The kernel `key`, from the source `make` builds the first time
    /// (later launches find the loaded function without generating source).
    pub(crate) fn kernel(
        &self,
        key: KernelKey,
        make: impl FnOnce() -> KernelSource,
    ) -> Result<CudaFunction, CudaError> {
        if let Some(f) = self.inner.functions.lock().expect("kernel table").get(&key) {
            return Ok(f.clone());
        }
        let k = make();
        let f = self.function(&k, &format!("{}_{}", k.name, key.3))?;
        self.inner
            .functions
            .lock()
            .expect("kernel table")
            .insert(key, f.clone());
        Ok(f)
    }

    /// A fresh buffer of `n` elements (at least one is allocated, since the
    /// driver refuses empty allocations), zeroed.
    pub(crate) fn alloc_zeros<T: CudaElement>(&self, n: usize) -> Result<CudaSlice<T>, CudaError> {
        Ok(self.inner.stream.alloc_zeros::<T>(n.max(1))?)
    }

    /// A fresh buffer of `n` elements whose contents the caller overwrites.
    pub(crate) fn alloc<T: CudaElement>(&self, n: usize) -> Result<CudaSlice<T>, CudaError> {
        // SAFETY: the memory is uninitialised; every caller launches a
        // kernel or copy that writes all `n` elements before anything reads
        // them, and `T` is a plain value type (`DeviceRepr`).
        Ok(unsafe { self.inner.stream.alloc::<T>(n.max(1)) }?)
    }

    /// A device buffer holding `data`.
    pub(crate) fn upload<T: CudaElement>(&self, data: &[T]) -> Result<CudaSlice<T>, CudaError> {
        if data.is_empty() {
            return self.alloc_zeros(0);
        }
        Ok(self.inner.stream.clone_htod(data)?)
    }
}

/// The storage of a CUDA tensor and its views: a device buffer and the
/// device it lives on. The lock plays the CPU storage's role: kernels that
/// read take a read guard, in-place kernels a write guard.
#[doc(hidden)]
pub struct CudaStorage<T> {
    pub(crate) buf: RwLock<CudaSlice<T>>,
    pub(crate) dev: CudaDevice,
    version: core::sync::atomic::AtomicU64,
}

impl<T> CudaStorage<T> {
    pub(crate) fn new(buf: CudaSlice<T>, dev: CudaDevice) -> Self {
        CudaStorage {
            buf: RwLock::new(buf),
            dev,
            version: core::sync::atomic::AtomicU64::new(0),
        }
    }

    /// The write guard on the buffer; bumps the version (every in-place
    /// kernel writes through it).
    pub(crate) fn write(&self) -> parking_lot::RwLockWriteGuard<'_, CudaSlice<T>> {
        let guard = self.buf.write();
        self.version
            .fetch_add(1, core::sync::atomic::Ordering::Relaxed);
        guard
    }
}

impl<T> crate::backend::Versioned for CudaStorage<T> {
    fn version(&self) -> u64 {
        self.version.load(core::sync::atomic::Ordering::Relaxed)
    }
}
