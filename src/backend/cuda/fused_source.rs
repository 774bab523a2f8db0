//! CUDA C for a fused expression: one module per distinct expression,
//! element types and leaf count. Each op-table operation in the tree
//! becomes a templated device function of its CUDA expression (written
//! once per module however often it appears), the tree one nested call
//! expression over the leaves' loads (`x0`, `x1`, ...) and the scalar
//! slots, and the module four kernels over the iteration plan (as the
//! one-op kernels of `source.rs`): `_s64` / `_s32` walk the coalesced sizes
//! and per-operand strides with 64- or 32-bit index math, `_l32` is the
//! rank-1 case, and `_v32` takes a short vector of a row per thread (the
//! innermost dimension of stride 1 or 0 in every operand: `a * b + c` with
//! `b` a row and `c` a column). Scalars are kernel arguments, not part of the source, so
//! `x * 2.0` and `x * 3.0` share one compiled module.
//!
//! Plain text, built without the `cuda` feature: `tests/fused.rs` compiles
//! [`CudaGen::value_function`] for the host and compares it with the CPU's
//! evaluation; `tests/cuda_kernels.rs` compiles whole modules with NVRTC.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::prelude::PRELUDE;
#[cfg(feature = "cuda")]
use super::source::{BLOCK_REDUCE, reduce_head};
use crate::backend::op::OpDef;
use crate::element::{Element, Scalar};

/// The most operands (output and leaves) of a fused kernel.
pub const FUSED_OPERANDS: usize = crate::backend::cpu::fused::MAX_LEAVES + 1;
/// The kernels of every fused module, by variant suffix: 64- and 32-bit
/// strided, rank-1 linear, and vectorised rows (see [`CudaGen::module`]).
///
/// ```
/// use shaped::backend::fused::FUSED_KERNELS;
/// assert_eq!(FUSED_KERNELS, ["s64", "s32", "l32", "v32"]);
/// ```
pub const FUSED_KERNELS: [&str; 4] = ["s64", "s32", "l32", "v32"];
/// The most scalar slots of a fused kernel.
pub const FUSED_SCALARS: usize = 16;

/// The plan as the fused kernels read it (`ShFused`, [`FUSED_OPERANDS`]
/// operands), and `sh_outer<N>`, which adds to each operand's offset in `p`
/// the part of a position `rem` over the plan's outer dimensions (all but
/// the innermost, `r`): the one copy of that walk for the `_v32` and
/// `_rows` kernels.
fn plan_source() -> String {
    format!(
        "struct ShFused {{ unsigned long long dims[SH_MAX_RANK]; unsigned long long strides[{FUSED_OPERANDS}][SH_MAX_RANK]; unsigned long long offsets[{FUSED_OPERANDS}]; int rank; int pad; }};\n\
         template <int N>\n\
         __device__ __forceinline__ void sh_outer(const ShFused& L, int r, unsigned int rem, unsigned int (&p)[N]) {{\n\
         \x20   for (int d = r - 1; d > 0; --d) {{\n\
         \x20       const unsigned int sz = (unsigned int)L.dims[d];\n\
         \x20       const unsigned int c = rem % sz;\n\
         \x20       rem /= sz;\n\
         #pragma unroll\n\
         \x20       for (int k = 0; k < N; ++k) p[k] += c * (unsigned int)L.strides[k][d];\n\
         \x20   }}\n\
         \x20   if (r > 0) {{\n\
         #pragma unroll\n\
         \x20       for (int k = 0; k < N; ++k) p[k] += rem * (unsigned int)L.strides[k][0];\n\
         \x20   }}\n\
         }}\n"
    )
}

/// CUDA C name of the element type named `t` (`Element::NAME`).
///
/// ```
/// assert_eq!(shaped::backend::fused::c_name("int64"), "long long");
/// ```
///
/// # Panics
/// For a type the CUDA backend does not store (`float16`, ...).
pub fn c_name(t: &str) -> &'static str {
    super::types::c_type(t).0
}

/// The generator of one fused module: the functions of the tree's
/// operations, its leaves' types and its scalars' values, collected while
/// [`CudaExpr::cuda`](crate::backend::fused::CudaExpr::cuda) walks the
/// erased tree.
///
/// ```
/// use shaped::backend::fused::{CudaExpr, CudaGen, Node};
/// use shaped::{Shape, Tensor};
/// let a = Tensor::<f32, Shape![4]>::ones();
/// let e = (a.lazy() * 2.0f32).exp();
/// let mut g = CudaGen::default();
/// let expr = e.node().erased().cuda(&mut g, 0);
/// assert!(expr.contains("x0"));
/// let (name, source) = g.module("float", &expr);
/// assert!(source.contains("sh_f_exp") && source.contains(&format!("{name}_s32")));
/// assert_eq!(g.scalars().len(), 1);
/// ```
#[derive(Clone, Debug, Default)]
pub struct CudaGen {
    defined: BTreeSet<&'static str>,
    functions: String,
    leaves: Vec<&'static str>,
    scalars: Vec<Scalar>,
}

impl CudaGen {
    /// Leaf `k` of element type `T`: its load in the kernels.
    pub fn leaf<T: Element>(&mut self, k: usize) -> String {
        if self.leaves.len() <= k {
            self.leaves.resize(k + 1, "");
        }
        self.leaves[k] = c_name(T::NAME);
        format!("x{k}")
    }

    /// A scalar operand: its slot's read in the kernels.
    pub fn scalar<T: Element>(&mut self, v: T) -> String {
        let j = self.scalars.len();
        assert!(
            j < FUSED_SCALARS,
            "a fused expression takes at most {FUSED_SCALARS} scalars"
        );
        let s = v.to_scalar();
        self.scalars.push(s);
        let field = match s {
            Scalar::Float(_) => "f",
            _ => "i",
        };
        format!("(({})S.{field}[{j}])", c_name(T::NAME))
    }

    /// A call of op `def` on the element type `T` (its `Map*` type), the
    /// first operand of type `a0` and the result of type `out` (C names),
    /// with the operand expressions `args` (unused ones `None`) and the
    /// op's scalar parameter `s` when it reads one.
    pub fn call<T: Element>(
        &mut self,
        def: &OpDef,
        a0: &str,
        out: &str,
        args: [Option<&str>; 3],
        s: Option<T>,
    ) -> String {
        let t = c_name(T::NAME);
        if self.defined.insert(def.name) {
            writeln!(
                self.functions,
                "template <typename T, typename A0, typename A1, typename A2, typename OUT>\n\
                 __device__ __forceinline__ OUT sh_f_{name}(A0 a, A1 b, A2 c, T s) {{ (void)a; (void)b; (void)c; (void)s; return (OUT)({expr}); }}",
                name = def.name,
                expr = def.cuda,
            )
            .expect("writing to a String");
        }
        let s = match s {
            Some(v) if def.uses_scalar => self.scalar(v),
            _ => format!("(({t})0)"),
        };
        let [a, b, c] = args.map(|x| x.map_or_else(|| format!("(({t})0)"), str::to_owned));
        format!(
            "sh_f_{}<{t}, {a0}, {t}, {t}, {out}>({a}, {b}, {c}, {s})",
            def.name
        )
    }

    /// The scalars' values, in slot order (the kernel's `ShScalars`).
    pub fn scalars(&self) -> &[Scalar] {
        &self.scalars
    }

    /// The C types of the leaves, in index order.
    pub fn leaf_types(&self) -> &[&'static str] {
        &self.leaves
    }

    /// The expression as one function of the leaves' values and the
    /// scalars, `OUT sh_value(x0, x1, ..., S)`: what every kernel of the
    /// module computes per element.
    pub fn value_function(&self, out: &str, expr: &str) -> String {
        let mut params: Vec<String> = self
            .leaves
            .iter()
            .enumerate()
            .map(|(k, t)| format!("{t} x{k}"))
            .collect();
        params.push("const ShScalars& S".into());
        format!(
            "struct ShScalars {{ double f[{FUSED_SCALARS}]; long long i[{FUSED_SCALARS}]; }};\n\
             {functions}\
             __device__ __forceinline__ {out} sh_value({params}) {{ (void)S; return {expr}; }}\n",
            functions = self.functions,
            params = params.join(", "),
        )
    }

    /// Elements per 16-byte access of the widest of the result's C type
    /// `out` and the leaves' types: the vector width of the `_v32` kernel.
    ///
    /// ```
    /// use shaped::backend::fused::CudaGen;
    /// let mut g = CudaGen::default();
    /// g.leaf::<f32>(0);
    /// assert_eq!(g.vector_width("float"), 4);
    /// g.leaf::<f64>(1);
    /// assert_eq!(g.vector_width("bool"), 2);
    /// ```
    pub fn vector_width(&self, out: &str) -> u64 {
        let widest = self
            .leaves
            .iter()
            .chain([&out])
            .map(|t| super::types::c_size(t))
            .max()
            .unwrap_or(1);
        16 / widest as u64
    }

    /// The module's name: a hash of its source.
    pub fn module_name(source: &str) -> String {
        // FNV-1a: stable across runs and builds (a cache key, not a
        // security boundary).
        let h = source.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
        });
        format!("sh_fused_{h:016x}")
    }

    /// The per-leaf 16-byte loads of the `_v32` kernels: leaf `k` at
    /// `in{k} + p[k + 1]` into `v{k}`, a vector of `vec` elements (stride 1
    /// along the row) or one element repeated (stride 0).
    fn vector_loads(&self, vec: u64) -> String {
        let mut b = String::new();
        for (k, t) in self.leaves.iter().enumerate() {
            writeln!(
                b,
                "        ShVec<{t}, {vec}> v{k};\n\
                 \x20       if (L.strides[{o}][r] != 0) v{k} = *(const ShVec<{t}, {vec}>*)(in{k} + p[{o}]);\n\
                 \x20       else {{ const {t} s = in{k}[p[{o}]]; for (int j = 0; j < {vec}; ++j) v{k}.v[j] = s; }}",
                o = k + 1
            )
            .expect("String");
        }
        b
    }

    /// The kernels' leaf parameters, `, const T0* __restrict__ in0, ...`.
    fn leaf_params(&self) -> String {
        self.leaves
            .iter()
            .enumerate()
            .map(|(k, t)| format!(", const {t}* __restrict__ in{k}"))
            .collect()
    }

    /// `sh_value` of lane `j` of every leaf's vector (`v0.v[j], ..., S`).
    fn lane_args(&self) -> String {
        let lanes: Vec<String> = (0..self.leaves.len())
            .map(|k| format!("v{k}.v[j]"))
            .collect();
        if lanes.is_empty() {
            "S".to_string()
        } else {
            format!("{}, S", lanes.join(", "))
        }
    }

    /// The name and source of the module reducing the expression `expr`
    /// (of C type `out`) by `r` over runs of `R` consecutive elements of
    /// the plan's innermost dimension: kernel `NAME_rows`, one block per
    /// output, each thread folding vectors of [`vector_width`](Self::vector_width)
    /// elements (loaded as in `_v32`) into its accumulator, then a block
    /// reduction. `(ShFused L, ShScalars S, OUT* out, leaves..., rows, R,
    /// double scale)`; plan operand 0 is unused (the value is not stored).
    ///
    /// ```
    /// use shaped::backend::fused::{CudaExpr, CudaGen, Node};
    /// use shaped::backend::op::Reduction;
    /// use shaped::{Shape, Tensor};
    /// let (a, b) = (Tensor::<f32, Shape![4, 8]>::ones(), Tensor::<f32, Shape![8]>::ones());
    /// let e = a.lazy() * &b;
    /// let mut g = CudaGen::default();
    /// let expr = e.node().erased().cuda(&mut g, 0);
    /// let (name, source) = g.reduction_module("float", &expr, Reduction::Sum);
    /// assert!(name.ends_with("_sum") && source.contains(&format!("{name}_rows")));
    /// ```
    #[cfg(feature = "cuda")]
    pub fn reduction_module(
        &self,
        out: &str,
        expr: &str,
        r: crate::backend::op::Reduction,
    ) -> (String, String) {
        let def = super::reductions::find_reduction(r.name());
        let n = self.leaves.len();
        let vec = self.vector_width(out);
        let ptrs = self.leaf_params();
        let mut kernel = format!(
            "extern \"C\" __global__ void KNAME_rows(ShFused L, ShScalars S, T* out{ptrs}, unsigned long long rows, unsigned long long R, double scale) {{\n\
             \x20   const int r = L.rank - 1;\n\
             \x20   const unsigned int per_row = (unsigned int)R / {vec}u;\n\
             \x20   for (unsigned int row = blockIdx.x; row < (unsigned int)rows; row += gridDim.x) {{\n\
             \x20       unsigned int rem = row * (unsigned int)R;\n\
             \x20       unsigned int q[{ops}];\n\
             \x20       const unsigned int inner = rem % (unsigned int)L.dims[r];\n\
             \x20       rem /= (unsigned int)L.dims[r];\n\
             \x20       for (int k = 0; k < {ops}; ++k) q[k] = (unsigned int)L.offsets[k] + inner * (unsigned int)L.strides[k][r];\n\
             \x20       sh_outer<{ops}>(L, r, rem, q);\n\
             \x20       T acc = sh_init();\n\
             \x20       for (unsigned int i = threadIdx.x; i < per_row; i += blockDim.x) {{\n\
             \x20       const unsigned int col = i * {vec}u;\n\
             \x20       unsigned int p[{ops}];\n\
             \x20       for (int k = 0; k < {ops}; ++k) p[k] = q[k] + col * (unsigned int)L.strides[k][r];\n",
            ops = n + 1
        );
        kernel.push_str(&self.vector_loads(vec));
        writeln!(
            kernel,
            "#pragma unroll\n\
             \x20       for (int j = 0; j < {vec}; ++j) acc = sh_combine(acc, ({out})sh_value({lanes}));\n\
             \x20       }}\n\
             \x20       acc = sh_block(acc);\n\
             \x20       if (threadIdx.x == 0) out[row] = sh_finish(acc, scale);\n\
             \x20       __syncthreads();\n    }}\n}}",
            lanes = self.lane_args()
        )
        .expect("String");
        let body = format!(
            "{head}{plan}{value}{block}{kernel}",
            head = reduce_head(def, out),
            plan = plan_source(),
            value = self.value_function(out, expr),
            block = BLOCK_REDUCE,
        );
        let name = format!("{}_{}", Self::module_name(&body), def.name);
        let source = format!("{PRELUDE}{}", body.replace("KNAME", &name));
        (name, source)
    }

    /// The module's name and whole source (prelude, value function,
    /// kernels [`FUSED_KERNELS`]: `NAME_s64`, `NAME_s32`, `NAME_l32` and
    /// `NAME_v32`, whose threads each take [`vector_width`](Self::vector_width)
    /// consecutive elements of a row with 16-byte loads of the operands of
    /// stride 1 and one load of those of stride 0), for a result of C type
    /// `out`. The name is [`module_name`](Self::module_name) of the source,
    /// so equal expressions share one compiled module.
    pub fn module(&self, out: &str, expr: &str) -> (String, String) {
        let n = self.leaves.len();
        let ptrs = self.leaf_params();
        let args: Vec<String> = (0..n).map(|k| format!("x{k}")).collect();
        let args = if n == 0 {
            "S".to_string()
        } else {
            format!("{}, S", args.join(", "))
        };
        let strided = |idx: &str, variant: &str| {
            let mut b = format!(
                "extern \"C\" __global__ void KNAME_{variant}(ShFused L, ShScalars S, {out}* o{ptrs}, unsigned long long n) {{\n\
                 \x20   for ({idx} i = ({idx})blockIdx.x * ({idx})blockDim.x + ({idx})threadIdx.x; i < ({idx})n; i += ({idx})blockDim.x * ({idx})gridDim.x) {{\n\
                 \x20       {idx} rem = i;\n\
                 \x20       {idx} p[{ops}];\n\
                 \x20       for (int k = 0; k < {ops}; ++k) p[k] = ({idx})L.offsets[k];\n\
                 \x20       for (int d = L.rank - 1; d >= 0; --d) {{\n\
                 \x20           {idx} sz = ({idx})L.dims[d];\n\
                 \x20           {idx} c = rem % sz;\n\
                 \x20           rem /= sz;\n\
                 \x20           for (int k = 0; k < {ops}; ++k) p[k] += c * ({idx})L.strides[k][d];\n\
                 \x20       }}\n",
                ops = n + 1
            );
            for (k, t) in self.leaves.iter().enumerate() {
                writeln!(b, "        const {t} x{k} = in{k}[p[{}]];", k + 1).expect("String");
            }
            writeln!(b, "        o[p[0]] = sh_value({args});\n    }}\n}}").expect("String");
            b
        };
        let mut linear = format!(
            "extern \"C\" __global__ void KNAME_l32(ShFused L, ShScalars S, {out}* o{ptrs}, unsigned long long n) {{\n\
             \x20   for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < (unsigned int)n; i += blockDim.x * gridDim.x) {{\n"
        );
        for (k, t) in self.leaves.iter().enumerate() {
            writeln!(
                linear,
                "        const {t} x{k} = in{k}[L.offsets[{o}] + i * (unsigned int)L.strides[{o}][0]];",
                o = k + 1
            )
            .expect("String");
        }
        writeln!(
            linear,
            "        o[L.offsets[0] + i * (unsigned int)L.strides[0][0]] = sh_value({args});\n    }}\n}}"
        )
        .expect("String");
        let vec = self.vector_width(out);
        let mut rows = format!(
            "extern \"C\" __global__ void KNAME_v32(ShFused L, ShScalars S, {out}* o{ptrs}, unsigned long long n) {{\n\
             \x20   const int r = L.rank - 1;\n\
             \x20   const unsigned int per_row = (unsigned int)L.dims[r] / {vec}u;\n\
             \x20   const unsigned int nv = (unsigned int)n / {vec}u;\n\
             \x20   for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < nv; i += blockDim.x * gridDim.x) {{\n\
             \x20       unsigned int rem = i / per_row;\n\
             \x20       const unsigned int col = (i - rem * per_row) * {vec}u;\n\
             \x20       unsigned int p[{ops}];\n\
             \x20       for (int k = 0; k < {ops}; ++k) p[k] = (unsigned int)L.offsets[k] + col * (unsigned int)L.strides[k][r];\n\
             \x20       sh_outer<{ops}>(L, r, rem, p);\n",
            ops = n + 1
        );
        rows.push_str(&self.vector_loads(vec));
        let lane_args = self.lane_args();
        writeln!(
            rows,
            "        ShVec<{out}, {vec}> res;\n\
             #pragma unroll\n\
             \x20       for (int j = 0; j < {vec}; ++j) res.v[j] = sh_value({lane_args});\n\
             \x20       *(ShVec<{out}, {vec}>*)(o + p[0]) = res;\n    }}\n}}"
        )
        .expect("String");
        let body = format!(
            "{plan}{value}{s64}{s32}{linear}{rows}",
            plan = plan_source(),
            value = self.value_function(out, expr),
            s64 = strided("unsigned long long", "s64"),
            s32 = strided("unsigned int", "s32"),
        );
        let name = Self::module_name(&body);
        let source = format!("{PRELUDE}{}", body.replace("KNAME", &name));
        (name, source)
    }
}
