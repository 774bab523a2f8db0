/* The prelude of every module (prelude.rs): the plan layout and the scalar
   helpers with PyTorch's semantics that the op table's expressions call. */
#define SH_MAX_RANK 8
#define SH_MAX_OPS 4
struct ShLayout {
    unsigned long long dims[SH_MAX_RANK];
    unsigned long long strides[SH_MAX_OPS][SH_MAX_RANK];
    unsigned long long offsets[SH_MAX_OPS];
    int rank;
    int pad;
};
template <typename T, int N> struct __align__(sizeof(T) * N) ShVec { T v[N]; };

template <typename T> __device__ __forceinline__ T sh_wadd(T x, T y) { return x + y; }
template <typename T> __device__ __forceinline__ T sh_wsub(T x, T y) { return x - y; }
template <typename T> __device__ __forceinline__ T sh_wmul(T x, T y) { return x * y; }
__device__ __forceinline__ int sh_wadd(int x, int y) { return (int)((unsigned)x + (unsigned)y); }
__device__ __forceinline__ int sh_wsub(int x, int y) { return (int)((unsigned)x - (unsigned)y); }
__device__ __forceinline__ int sh_wmul(int x, int y) { return (int)((unsigned)x * (unsigned)y); }
__device__ __forceinline__ long long sh_wadd(long long x, long long y) { return (long long)((unsigned long long)x + (unsigned long long)y); }
__device__ __forceinline__ long long sh_wsub(long long x, long long y) { return (long long)((unsigned long long)x - (unsigned long long)y); }
__device__ __forceinline__ long long sh_wmul(long long x, long long y) { return (long long)((unsigned long long)x * (unsigned long long)y); }
__device__ __forceinline__ unsigned char sh_wadd(unsigned char x, unsigned char y) { return (unsigned char)(x + y); }
__device__ __forceinline__ unsigned char sh_wsub(unsigned char x, unsigned char y) { return (unsigned char)(x - y); }
__device__ __forceinline__ unsigned char sh_wmul(unsigned char x, unsigned char y) { return (unsigned char)(x * y); }
template <typename T> __device__ __forceinline__ T sh_neg(T x) { return -x; }
__device__ __forceinline__ int sh_neg(int x) { return sh_wsub(0, x); }
__device__ __forceinline__ long long sh_neg(long long x) { return sh_wsub(0LL, x); }
template <typename T> __device__ __forceinline__ T sh_abs(T x) { return x < (T)0 ? sh_neg(x) : x; }
__device__ __forceinline__ float sh_abs(float x) { return fabsf(x); }
__device__ __forceinline__ double sh_abs(double x) { return fabs(x); }
/* Signed integer division whose quotient does not fit (MIN / -1): the
   quotient wraps to MIN and the remainder is 0, as NumPy and the CPU. */
template <typename T> __device__ __forceinline__ bool sh_overflows(T x, T y) { return false; }
__device__ __forceinline__ bool sh_overflows(int x, int y) { return x == (int)0x80000000 && y == -1; }
__device__ __forceinline__ bool sh_overflows(long long x, long long y) { return x == (long long)0x8000000000000000ULL && y == -1; }

template <typename T> __device__ __forceinline__ bool sh_isnan(T x) { return x != x; }
template <typename T> __device__ __forceinline__ T sh_maximum(T x, T y) { return sh_isnan(x) ? x : ((sh_isnan(y) || y > x) ? y : x); }
template <typename T> __device__ __forceinline__ T sh_minimum(T x, T y) { return sh_isnan(x) ? x : ((sh_isnan(y) || y < x) ? y : x); }
template <typename T> __device__ __forceinline__ T sh_clamp(T x, T lo, T hi) {
    if (sh_isnan(x)) return x;
    T y = x < lo ? lo : x;
    return y > hi ? hi : y;
}

template <typename T> __device__ __forceinline__ T sh_fmod(T x, T y) { return sh_overflows(x, y) ? (T)0 : (T)(x % y); }
__device__ __forceinline__ float sh_fmod(float x, float y) { return fmodf(x, y); }
__device__ __forceinline__ double sh_fmod(double x, double y) { return fmod(x, y); }
template <typename T> __device__ __forceinline__ T sh_remainder(T x, T y) {
    T r = sh_fmod(x, y);
    return (r != (T)0 && ((r < (T)0) != (y < (T)0))) ? (T)(r + y) : r;
}
template <typename T> __device__ __forceinline__ T sh_div_trunc(T x, T y) { return sh_overflows(x, y) ? x : (T)(x / y); }
__device__ __forceinline__ float sh_div_trunc(float x, float y) { return truncf(x / y); }
__device__ __forceinline__ double sh_div_trunc(double x, double y) { return trunc(x / y); }
template <typename T> __device__ __forceinline__ T sh_div_floor(T x, T y) {
    if (sh_overflows(x, y)) return x;
    T q = x / y;
    return (x % y != (T)0 && ((x < (T)0) != (y < (T)0))) ? (T)(q - (T)1) : q;
}
/* PyTorch's div_floor_floating, computed in double as the CPU path does. */
__device__ __forceinline__ double sh_div_floor_f(double a, double b) {
    if (b == 0.0) return a / b;
    double m = fmod(a, b);
    double div = (a - m) / b;
    if (m != 0.0 && ((b < 0.0) != (m < 0.0))) div -= 1.0;
    if (div != 0.0) {
        double f = floor(div);
        return (div - f > 0.5) ? f + 1.0 : f;
    }
    return copysign(0.0, a / b);
}
__device__ __forceinline__ float sh_div_floor(float x, float y) { return (float)sh_div_floor_f((double)x, (double)y); }
__device__ __forceinline__ double sh_div_floor(double x, double y) { return sh_div_floor_f(x, y); }
/* Rust's `/`: true division for floats, truncating for integers. */
template <typename T> __device__ __forceinline__ T sh_quot(T x, T y) { return sh_div_trunc(x, y); }
__device__ __forceinline__ float sh_quot(float x, float y) { return x / y; }
__device__ __forceinline__ double sh_quot(double x, double y) { return x / y; }

template <typename T> __device__ __forceinline__ T sh_pow(T x, T e) {
    if (e < (T)0) {
        if (x == (T)1) return (T)1;
        if (x == (T)-1) return (e % (T)2 == (T)0) ? (T)1 : x;
        return (T)0;
    }
    T acc = (T)1, base = x;
    while (e > (T)0) {
        if (e & (T)1) acc = sh_wmul(acc, base);
        base = sh_wmul(base, base);
        e >>= 1;
    }
    return acc;
}
__device__ __forceinline__ unsigned char sh_pow(unsigned char x, unsigned char e) {
    unsigned char acc = 1, base = x;
    while (e > 0) {
        if (e & 1) acc = (unsigned char)(acc * base);
        base = (unsigned char)(base * base);
        e >>= 1;
    }
    return acc;
}
__device__ __forceinline__ float sh_pow(float x, float e) { return powf(x, e); }
__device__ __forceinline__ double sh_pow(double x, double e) { return pow(x, e); }

template <typename T> __device__ __forceinline__ T sh_lerp(T a, T b, T w) {
    return (fabs((double)w) < 0.5) ? (T)(a + w * (b - a)) : (T)(b - (b - a) * ((T)1 - w));
}

template <typename T> __device__ __forceinline__ T sh_lowest();
template <typename T> __device__ __forceinline__ T sh_highest();
template <> __device__ __forceinline__ float sh_lowest<float>() { return -__int_as_float(0x7f800000); }
template <> __device__ __forceinline__ float sh_highest<float>() { return __int_as_float(0x7f800000); }
template <> __device__ __forceinline__ double sh_lowest<double>() { return -__longlong_as_double(0x7ff0000000000000LL); }
template <> __device__ __forceinline__ double sh_highest<double>() { return __longlong_as_double(0x7ff0000000000000LL); }
template <> __device__ __forceinline__ int sh_lowest<int>() { return (int)0x80000000; }
template <> __device__ __forceinline__ int sh_highest<int>() { return 0x7fffffff; }
template <> __device__ __forceinline__ long long sh_lowest<long long>() { return (long long)0x8000000000000000ULL; }
template <> __device__ __forceinline__ long long sh_highest<long long>() { return 0x7fffffffffffffffLL; }
template <> __device__ __forceinline__ unsigned char sh_lowest<unsigned char>() { return 0; }
template <> __device__ __forceinline__ unsigned char sh_highest<unsigned char>() { return 255; }
