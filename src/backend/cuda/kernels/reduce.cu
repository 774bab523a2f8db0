/* Reduction kernels over contiguous buffers (source.rs, `reduce_source`),
   after block_reduce.cu: the head defines T, sh_init, sh_combine and sh_finish;
   KNAME is replaced by the module's name. */
/* out[row] = reduce(in[off + row * r .. off + row * r + r]) * scale; with
   16-byte loads when every row starts on a multiple of RVEC elements. */
extern "C" __global__ void KNAME_rows(T* out, const T* in, unsigned long long off, unsigned long long rows, unsigned long long r, double scale) {
    constexpr int RVEC = 16 / sizeof(T);
    const bool vectors = off % RVEC == 0 && r % RVEC == 0;
    for (unsigned long long row = blockIdx.x; row < rows; row += gridDim.x) {
        const T* p = in + off + row * r;
        T acc = sh_init();
        if (vectors) {
            const ShVec<T, RVEC>* q = (const ShVec<T, RVEC>*)p;
            for (unsigned long long k = threadIdx.x; k < r / RVEC; k += blockDim.x) {
                const ShVec<T, RVEC> v = q[k];
#pragma unroll
                for (int j = 0; j < RVEC; ++j) acc = sh_combine(acc, v.v[j]);
            }
        } else
        for (unsigned long long k = threadIdx.x; k < r; k += blockDim.x) acc = sh_combine(acc, p[k]);
        acc = sh_block(acc);
        if (threadIdx.x == 0) out[row] = sh_finish(acc, scale);
        __syncthreads();
    }
}

/* out[o * inner + i] = reduce over k of in[off + (o * r + k) * inner + i] * scale */
extern "C" __global__ void KNAME_cols(T* out, const T* in, unsigned long long off, unsigned long long outer, unsigned long long r, unsigned long long inner, double scale) {
    const unsigned long long total = outer * inner;
    for (unsigned long long j = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; j < total; j += (unsigned long long)blockDim.x * gridDim.x) {
        const unsigned long long o = j / inner, i = j % inner;
        const T* p = in + off + o * r * inner + i;
        T acc = sh_init();
        for (unsigned long long k = 0; k < r; ++k) acc = sh_combine(acc, p[k * inner]);
        out[j] = sh_finish(acc, scale);
    }
}

/* partials[block] = reduce of a grid-strided share of in[off .. off + n] */
extern "C" __global__ void KNAME_partial(T* partials, const T* in, unsigned long long off, unsigned long long n) {
    T acc = sh_init();
    for (unsigned long long k = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += (unsigned long long)blockDim.x * gridDim.x)
        acc = sh_combine(acc, in[off + k]);
    acc = sh_block(acc);
    if (threadIdx.x == 0) partials[blockIdx.x] = acc;
}
