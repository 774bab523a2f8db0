/* Index kernels (source.rs, `index_source`): the head defines T (the
   elements) and I (the index type); KNAME is replaced by the module's name. */
__device__ __forceinline__ void sh_at(const ShLayout& L, unsigned long long i, unsigned long long* p) {
    p[0] = L.offsets[0]; p[1] = L.offsets[1]; p[2] = L.offsets[2];
    for (int d = L.rank - 1; d >= 0; --d) {
        const unsigned long long c = i % L.dims[d];
        i /= L.dims[d];
        p[0] += c * L.strides[0][d];
        p[1] += c * L.strides[1][d];
        p[2] += c * L.strides[2][d];
    }
}

/* bad[0] = the first (row-major) position whose index value is outside
   [0, size), or unchanged (LLONG_MAX) when there is none. */
extern "C" __global__ void KNAME_check(ShLayout L, const I* idx, unsigned long long size, unsigned long long n, long long* bad) {
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (unsigned long long)blockDim.x * gridDim.x) {
        unsigned long long p[3];
        sh_at(L, i, p);
        const long long v = (long long)idx[p[1]];
        if (v < 0 || v >= (long long)size) atomicMin(bad, (long long)i);
    }
}

/* bad[1] = the index value at position bad[0] (one thread). */
extern "C" __global__ void KNAME_fetch(ShLayout L, const I* idx, long long* bad) {
    if (blockIdx.x == 0 && threadIdx.x == 0 && bad[0] != 0x7fffffffffffffffLL) {
        unsigned long long p[3];
        sh_at(L, (unsigned long long)bad[0], p);
        bad[1] = (long long)idx[p[1]];
    }
}

extern "C" __global__ void KNAME_gather(ShLayout L, T* out, const I* idx, const T* src, unsigned long long step, unsigned long long n) {
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (unsigned long long)blockDim.x * gridDim.x) {
        unsigned long long p[3];
        sh_at(L, i, p);
        const long long v = (long long)idx[p[1]];
        out[p[0]] = src[p[2] + (unsigned long long)v * step];
    }
}

extern "C" __global__ void KNAME_scatter(ShLayout L, T* out, const I* idx, const T* src, unsigned long long step, unsigned long long n) {
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (unsigned long long)blockDim.x * gridDim.x) {
        unsigned long long p[3];
        sh_at(L, i, p);
        const long long v = (long long)idx[p[1]];
        out[p[0] + (unsigned long long)v * step] = src[p[2]];
    }
}
