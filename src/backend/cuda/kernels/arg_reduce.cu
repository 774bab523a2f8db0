/* argmax / argmin (source.rs, `arg_source`): the head defines T and BETTER(v, b)
   (the comparison); KNAME is replaced by the module's name. */
__device__ __forceinline__ void sh_pick(T& b, long long& bi, T v, long long vi) {
    if (vi < 0) return;
    if (bi < 0) { b = v; bi = vi; return; }
    const bool bn = b != b, vn = v != v;
    if (bn) { if (vn && vi < bi) { b = v; bi = vi; } return; }
    if (vn || BETTER(v, b) || (v == b && vi < bi)) { b = v; bi = vi; }
}

/* Rows: one block of 256 threads per output, the row's r values contiguous
   from off + row * r. */
extern "C" __global__ void KNAME_rows(T* vals, long long* idx, const T* in, unsigned long long off, unsigned long long rows, unsigned long long r) {
    __shared__ T sv[256];
    __shared__ long long si[256];
    for (unsigned long long row = blockIdx.x; row < rows; row += gridDim.x) {
        const T* p = in + off + row * r;
        T b = (T)0;
        long long bi = -1;
        for (unsigned long long k = threadIdx.x; k < r; k += blockDim.x) sh_pick(b, bi, p[k], (long long)k);
        sv[threadIdx.x] = b;
        si[threadIdx.x] = bi;
        __syncthreads();
        for (unsigned int w = blockDim.x / 2; w > 0; w >>= 1) {
            if (threadIdx.x < w) {
                T x = sv[threadIdx.x];
                long long xi = si[threadIdx.x];
                sh_pick(x, xi, sv[threadIdx.x + w], si[threadIdx.x + w]);
                sv[threadIdx.x] = x;
                si[threadIdx.x] = xi;
            }
            __syncthreads();
        }
        if (threadIdx.x == 0) { vals[row] = sv[0]; idx[row] = si[0]; }
        __syncthreads();
    }
}

/* Columns: one thread per output o * inner + i, over in[off + (o * r + k) * inner + i]. */
extern "C" __global__ void KNAME_cols(T* vals, long long* idx, const T* in, unsigned long long off, unsigned long long outer, unsigned long long r, unsigned long long inner) {
    const unsigned long long total = outer * inner;
    for (unsigned long long j = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; j < total; j += (unsigned long long)blockDim.x * gridDim.x) {
        const unsigned long long o = j / inner, i = j % inner;
        const T* p = in + off + o * r * inner + i;
        T b = (T)0;
        long long bi = -1;
        for (unsigned long long k = 0; k < r; ++k) sh_pick(b, bi, p[k * inner], (long long)k);
        vals[j] = b;
        idx[j] = bi;
    }
}
