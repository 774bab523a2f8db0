/* Elementwise kernels (source.rs, `elementwise_source`, `cast_source`): the
   module's head defines T, A0..A2, OUT, NIN, VEC and sh_op; KNAME is replaced
   by the module's name. */
template <typename IDX>
__device__ __forceinline__ void sh_strided(const ShLayout& L, OUT* o, const A0* a0, const A1* a1, const A2* a2, T s, unsigned long long n) {
    for (IDX i = (IDX)blockIdx.x * (IDX)blockDim.x + (IDX)threadIdx.x; i < (IDX)n; i += (IDX)blockDim.x * (IDX)gridDim.x) {
        IDX rem = i;
        IDX p0 = (IDX)L.offsets[0], p1 = (IDX)L.offsets[1], p2 = (IDX)L.offsets[2], p3 = (IDX)L.offsets[3];
        for (int d = L.rank - 1; d >= 0; --d) {
            IDX sz = (IDX)L.dims[d];
            IDX c = rem % sz;
            rem /= sz;
            p0 += c * (IDX)L.strides[0][d];
            p1 += c * (IDX)L.strides[1][d];
            if (NIN > 1) p2 += c * (IDX)L.strides[2][d];
            if (NIN > 2) p3 += c * (IDX)L.strides[3][d];
        }
        A0 x = a0[p1];
        A1 y = NIN > 1 ? a1[p2] : (A1)0;
        A2 z = NIN > 2 ? a2[p3] : (A2)0;
        o[p0] = sh_op(x, y, z, s);
    }
}

extern "C" __global__ void KNAME_s64(ShLayout L, OUT* o, const A0* a0, const A1* a1, const A2* a2, T s, unsigned long long n) {
    sh_strided<unsigned long long>(L, o, a0, a1, a2, s, n);
}

extern "C" __global__ void KNAME_s32(ShLayout L, OUT* o, const A0* a0, const A1* a1, const A2* a2, T s, unsigned long long n) {
    sh_strided<unsigned int>(L, o, a0, a1, a2, s, n);
}

/* Rank 1: any strides (1 for contiguous, 0 for broadcast), 32-bit. */
extern "C" __global__ void KNAME_l32(ShLayout L, OUT* o, const A0* a0, const A1* a1, const A2* a2, T s, unsigned long long n) {
    const unsigned int s0 = (unsigned int)L.strides[0][0], s1 = (unsigned int)L.strides[1][0];
    const unsigned int s2 = (unsigned int)L.strides[2][0], s3 = (unsigned int)L.strides[3][0];
    OUT* op = o + L.offsets[0];
    const A0* p1 = a0 + L.offsets[1];
    const A1* p2 = a1 + L.offsets[2];
    const A2* p3 = a2 + L.offsets[3];
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < (unsigned int)n; i += blockDim.x * gridDim.x) {
        A0 x = p1[i * s1];
        A1 y = NIN > 1 ? p2[i * s2] : (A1)0;
        A2 z = NIN > 2 ? p3[i * s3] : (A2)0;
        op[i * s0] = sh_op(x, y, z, s);
    }
}

/* Rank 1, output and every operand of stride 1 aligned to VEC elements or
   of stride 0 (broadcast scalars): 16-byte loads and stores, then a tail. */
extern "C" __global__ void KNAME_v32(ShLayout L, OUT* o, const A0* a0, const A1* a1, const A2* a2, T s, unsigned long long n) {
    OUT* op = o + L.offsets[0];
    const A0* p1 = a0 + L.offsets[1];
    const A1* p2 = a1 + L.offsets[2];
    const A2* p3 = a2 + L.offsets[3];
    const bool c1 = L.strides[1][0] != 0, c2 = L.strides[2][0] != 0, c3 = L.strides[3][0] != 0;
    const unsigned int nv = (unsigned int)(n / VEC);
    const unsigned int step = blockDim.x * gridDim.x;
    const unsigned int tid = blockIdx.x * blockDim.x + threadIdx.x;
    for (unsigned int v = tid; v < nv; v += step) {
        ShVec<A0, VEC> x;
        ShVec<A1, VEC> y;
        ShVec<A2, VEC> z;
        if (c1) x = *(const ShVec<A0, VEC>*)(p1 + (unsigned long long)v * VEC);
        else for (int k = 0; k < VEC; ++k) x.v[k] = p1[0];
        if (NIN > 1) {
            if (c2) y = *(const ShVec<A1, VEC>*)(p2 + (unsigned long long)v * VEC);
            else for (int k = 0; k < VEC; ++k) y.v[k] = p2[0];
        } else for (int k = 0; k < VEC; ++k) y.v[k] = (A1)0;
        if (NIN > 2) {
            if (c3) z = *(const ShVec<A2, VEC>*)(p3 + (unsigned long long)v * VEC);
            else for (int k = 0; k < VEC; ++k) z.v[k] = p3[0];
        } else for (int k = 0; k < VEC; ++k) z.v[k] = (A2)0;
        ShVec<OUT, VEC> r;
#pragma unroll
        for (int k = 0; k < VEC; ++k) r.v[k] = sh_op(x.v[k], y.v[k], z.v[k], s);
        *(ShVec<OUT, VEC>*)(op + (unsigned long long)v * VEC) = r;
    }
    for (unsigned int i = nv * VEC + tid; i < (unsigned int)n; i += step) {
        A0 x = p1[c1 ? i : 0];
        A1 y = NIN > 1 ? p2[c2 ? i : 0] : (A1)0;
        A2 z = NIN > 2 ? p3[c3 ? i : 0] : (A2)0;
        op[i] = sh_op(x, y, z, s);
    }
}

/* Rank >= 2 rows: the innermost size a multiple of VEC, the output of stride
   1 there and every operand of stride 1 (each row starting on a multiple of
   VEC elements) or 0 (a column, broadcast along the row): each thread takes
   VEC consecutive elements of a row, with 16-byte loads of the operands of
   stride 1, one load of those of stride 0, and one 16-byte store. */
extern "C" __global__ void KNAME_r32(ShLayout L, OUT* o, const A0* a0, const A1* a1, const A2* a2, T s, unsigned long long n) {
    const int r = L.rank - 1;
    const unsigned int per_row = (unsigned int)L.dims[r] / VEC;
    const unsigned int nv = (unsigned int)(n / VEC);
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < nv; i += blockDim.x * gridDim.x) {
        unsigned int rem = i / per_row;
        const unsigned int col = (i - rem * per_row) * VEC;
        unsigned int p[4];
        for (int k = 0; k < 4; ++k) p[k] = (unsigned int)L.offsets[k] + col * (unsigned int)L.strides[k][r];
        for (int d = r - 1; d > 0; --d) {
            const unsigned int sz = (unsigned int)L.dims[d];
            const unsigned int c = rem % sz;
            rem /= sz;
            for (int k = 0; k < 4; ++k) p[k] += c * (unsigned int)L.strides[k][d];
        }
        for (int k = 0; k < 4; ++k) p[k] += rem * (unsigned int)L.strides[k][0];
        ShVec<A0, VEC> x;
        ShVec<A1, VEC> y;
        ShVec<A2, VEC> z;
        if (L.strides[1][r] != 0) x = *(const ShVec<A0, VEC>*)(a0 + p[1]);
        else { const A0 v = a0[p[1]]; for (int k = 0; k < VEC; ++k) x.v[k] = v; }
        if (NIN > 1) {
            if (L.strides[2][r] != 0) y = *(const ShVec<A1, VEC>*)(a1 + p[2]);
            else { const A1 v = a1[p[2]]; for (int k = 0; k < VEC; ++k) y.v[k] = v; }
        } else for (int k = 0; k < VEC; ++k) y.v[k] = (A1)0;
        if (NIN > 2) {
            if (L.strides[3][r] != 0) z = *(const ShVec<A2, VEC>*)(a2 + p[3]);
            else { const A2 v = a2[p[3]]; for (int k = 0; k < VEC; ++k) z.v[k] = v; }
        } else for (int k = 0; k < VEC; ++k) z.v[k] = (A2)0;
        ShVec<OUT, VEC> res;
#pragma unroll
        for (int k = 0; k < VEC; ++k) res.v[k] = sh_op(x.v[k], y.v[k], z.v[k], s);
        *(ShVec<OUT, VEC>*)(o + p[0]) = res;
    }
}
