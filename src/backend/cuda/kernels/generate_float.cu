/* Uniform and normal samples (source.rs, after generate.cu, float types
   only). */
extern "C" __global__ void KNAME_uniform(T* o, unsigned long long seed, T below_one, unsigned long long n) {
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (unsigned long long)blockDim.x * gridDim.x) {
        const T v = (T)sh_draw(seed, i);
        o[i] = v < below_one ? v : below_one;
    }
}

extern "C" __global__ void KNAME_normal(T* o, unsigned long long seed, unsigned long long n) {
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (unsigned long long)blockDim.x * gridDim.x) {
        const double u1 = 1.0 - sh_draw(seed, 2ull * i);
        const double u2 = sh_draw(seed, 2ull * i + 1ull);
        o[i] = (T)(sqrt(-2.0 * log(u1)) * cos(2.0 * 3.14159265358979323846 * u2));
    }
}
