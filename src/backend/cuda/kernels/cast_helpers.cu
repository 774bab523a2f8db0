/* Saturating float-to-integer conversions of the cast kernels (cast.rs). */
__device__ __forceinline__ long long sh_f2i64(double v) {
    return v != v ? 0LL : v >= 9223372036854775808.0 ? 9223372036854775807LL
        : v < -9223372036854775808.0 ? (-9223372036854775807LL - 1) : (long long)v;
}
__device__ __forceinline__ unsigned long long sh_f2u64(double v) {
    return v >= 18446744073709551616.0 ? 18446744073709551615ULL : (unsigned long long)v;
}
