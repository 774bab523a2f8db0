/* scatter_reduce's prod, amax and amin by compare-and-swap (source.rs, after
   index.cu, numeric types). */
__device__ __forceinline__ float sh_cmul(float a, float b) { return a * b; }
__device__ __forceinline__ double sh_cmul(double a, double b) { return a * b; }
__device__ __forceinline__ int sh_cmul(int a, int b) { return (int)((unsigned int)a * (unsigned int)b); }
__device__ __forceinline__ long long sh_cmul(long long a, long long b) {
    return (long long)((unsigned long long)a * (unsigned long long)b);
}
__device__ __forceinline__ unsigned char sh_cmul(unsigned char a, unsigned char b) { return (unsigned char)(a * b); }

/* OP: 0 product, 1 maximum, 2 minimum (a NaN operand wins). */
template <int OP, typename U> __device__ __forceinline__ U sh_comb(U a, U b) {
    if (OP == 0) return sh_cmul(a, b);
    if (a != a) return a;
    if (b != b) return b;
    if (OP == 1) return a > b ? a : b;
    return a < b ? a : b;
}

template <int OP> __device__ __forceinline__ void sh_atomic_comb(float* p, float v) {
    unsigned int* w = (unsigned int*)p;
    unsigned int old = *w, assumed;
    do {
        assumed = old;
        old = atomicCAS(w, assumed, __float_as_uint(sh_comb<OP>(__uint_as_float(assumed), v)));
    } while (assumed != old);
}
template <int OP> __device__ __forceinline__ void sh_atomic_comb(double* p, double v) {
    unsigned long long* w = (unsigned long long*)p;
    unsigned long long old = *w, assumed;
    do {
        assumed = old;
        old = atomicCAS(w, assumed, (unsigned long long)__double_as_longlong(sh_comb<OP>(__longlong_as_double((long long)assumed), v)));
    } while (assumed != old);
}
template <int OP> __device__ __forceinline__ void sh_atomic_comb(int* p, int v) {
    int old = *p, assumed;
    do {
        assumed = old;
        old = atomicCAS(p, assumed, sh_comb<OP>(assumed, v));
    } while (assumed != old);
}
template <int OP> __device__ __forceinline__ void sh_atomic_comb(long long* p, long long v) {
    unsigned long long* w = (unsigned long long*)p;
    unsigned long long old = *w, assumed;
    do {
        assumed = old;
        old = atomicCAS(w, assumed, (unsigned long long)sh_comb<OP>((long long)assumed, v));
    } while (assumed != old);
}
template <int OP> __device__ __forceinline__ void sh_atomic_comb(unsigned char* p, unsigned char v) {
    unsigned int* base = (unsigned int*)((unsigned long long)p & ~3ull);
    const unsigned int shift = (unsigned int)((unsigned long long)p & 3ull) * 8u;
    unsigned int old = *base, assumed;
    do {
        assumed = old;
        const unsigned int b = (unsigned int)sh_comb<OP>((unsigned char)((assumed >> shift) & 0xffu), v);
        old = atomicCAS(base, assumed, (assumed & ~(0xffu << shift)) | (b << shift));
    } while (assumed != old);
}

#define SH_SCATTER_COMB(SUFFIX, OP) \
extern "C" __global__ void KNAME_scatter_##SUFFIX(ShLayout L, T* out, const I* idx, const T* src, unsigned long long step, unsigned long long n) { \
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (unsigned long long)blockDim.x * gridDim.x) { \
        unsigned long long p[3]; \
        sh_at(L, i, p); \
        const long long v = (long long)idx[p[1]]; \
        sh_atomic_comb<OP>(out + p[0] + (unsigned long long)v * step, src[p[2]]); \
    } \
}
SH_SCATTER_COMB(prod, 0)
SH_SCATTER_COMB(amax, 1)
SH_SCATTER_COMB(amin, 2)
