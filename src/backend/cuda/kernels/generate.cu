/* arange and the SplitMix64 draws (source.rs, `generate_source`): the head
   defines T; KNAME is replaced by the module's name. */
__device__ __forceinline__ unsigned long long sh_mix(unsigned long long z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The k-th draw (from 0) of SplitMix64 seeded with `seed`, in [0, 1). */
__device__ __forceinline__ double sh_draw(unsigned long long seed, unsigned long long k) {
    return (double)(sh_mix(seed + (k + 1ull) * 0x9E3779B97F4A7C15ull) >> 11) * (1.0 / 9007199254740992.0);
}

extern "C" __global__ void KNAME_arange(T* o, double start, double step, unsigned long long n) {
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (unsigned long long)blockDim.x * gridDim.x)
        o[i] = (T)(start + (double)i * step);
}
