/* scatter_add with atomics (source.rs, after index.cu, numeric types). */
__device__ __forceinline__ void sh_atomic_add(float* p, float v) { atomicAdd(p, v); }
__device__ __forceinline__ void sh_atomic_add(double* p, double v) { atomicAdd(p, v); }
__device__ __forceinline__ void sh_atomic_add(int* p, int v) { atomicAdd(p, v); }
__device__ __forceinline__ void sh_atomic_add(long long* p, long long v) {
    atomicAdd((unsigned long long*)p, (unsigned long long)v);
}
__device__ __forceinline__ void sh_atomic_add(unsigned char* p, unsigned char v) {
    unsigned int* base = (unsigned int*)((unsigned long long)p & ~3ull);
    const unsigned int shift = (unsigned int)((unsigned long long)p & 3ull) * 8u;
    unsigned int old = *base, assumed;
    do {
        assumed = old;
        const unsigned int b = ((assumed >> shift) + v) & 0xffu;
        old = atomicCAS(base, assumed, (assumed & ~(0xffu << shift)) | (b << shift));
    } while (assumed != old);
}

extern "C" __global__ void KNAME_scatter_add(ShLayout L, T* out, const I* idx, const T* src, unsigned long long step, unsigned long long n) {
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (unsigned long long)blockDim.x * gridDim.x) {
        unsigned long long p[3];
        sh_at(L, i, p);
        const long long v = (long long)idx[p[1]];
        sh_atomic_add(out + p[0] + (unsigned long long)v * step, src[p[2]]);
    }
}
