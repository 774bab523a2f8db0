/* Warp and block reductions (source.rs, fused_source.rs): the head defines T,
   sh_init and sh_combine. */
__device__ __forceinline__ T sh_warp(T x) {
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) x = sh_combine(x, (T)__shfl_down_sync(0xffffffffu, x, d));
    return x;
}

__device__ __forceinline__ T sh_block(T x) {
    __shared__ T warps[32];
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    x = sh_warp(x);
    if (lane == 0) warps[w] = x;
    __syncthreads();
    const int nw = (blockDim.x + 31) >> 5;
    x = (threadIdx.x < nw) ? warps[lane] : sh_init();
    if (w == 0) x = sh_warp(x);
    return x;
}
