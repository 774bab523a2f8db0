//! What a pointwise operation is to a backend: a value whose type carries
//! the operation's two sides, its Rust scalar function (which the CPU loops
//! call, monomorphised as a closure would be) and its CUDA C expression
//! (from which the CUDA backend generates kernels). The operations
//! themselves, one definition each, are the table in `table.rs`.
//!
//! An expression sees the operands `a`, `b`, `c`, the op's scalar
//! parameter `s` (all of type `T`, or `bool` where the definition says so)
//! and the helper functions of the CUDA prelude (`sh_wadd`, ...).

use crate::element::Element;

pub(crate) mod index;
pub(crate) mod power;
pub(crate) mod scalar;
pub(crate) mod table;
pub(crate) mod trig;
mod trig_table;

/// Which element types an operation accepts: the name of the element trait
/// that bounds its Rust function.
///
/// ```
/// use shaped::backend::op::{Family, Pointwise};
/// use shaped::ops::table::{Exp, Greater};
/// assert_eq!(Exp::DEF.family, Family::Float);
/// assert!(Greater::DEF.family.admits("bool") && !Family::Float.admits("int32"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// Every element type, `bool` included.
    Element,
    /// Every type but `bool`.
    Numeric,
    /// The signed types (floats and signed integers).
    Signed,
    /// The floating-point types.
    Float,
    /// `bool` alone (the logical reductions `all` and `any`, which run on
    /// the `bool` result of comparing with zero).
    Bool,
}

impl Family {
    /// Whether the element type named `t` (`Element::NAME`) is in the
    /// family, among the types the CUDA backend stores.
    ///
    /// ```
    /// use shaped::backend::op::Family;
    /// assert!(Family::Signed.admits("int64") && !Family::Signed.admits("uint8"));
    /// ```
    pub fn admits(self, t: &str) -> bool {
        match self {
            Family::Element => true,
            Family::Numeric => t != "bool",
            Family::Signed => matches!(t, "float32" | "float64" | "int32" | "int64"),
            Family::Float => matches!(t, "float32" | "float64"),
            Family::Bool => t == "bool",
        }
    }
}

/// How an operation's operands are bound to its expression.
///
/// ```
/// use shaped::backend::op::{Mode, Pointwise, ScalarRhs};
/// use shaped::ops::table::Sub;
/// assert_eq!(Sub::DEF.mode, Mode::Tensors);
/// assert_eq!(<ScalarRhs<Sub, f32> as Pointwise>::DEF.mode.suffix(), "_rs");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// One tensor per operand.
    Tensors,
    /// A two-operand op with a scalar right-hand side: `op(a, s)`.
    ScalarRhs,
    /// A two-operand op with a scalar left-hand side: `op(s, a)`.
    ScalarLhs,
}

impl Mode {
    /// The suffix of the kernel's name.
    ///
    /// ```
    /// use shaped::backend::op::Mode;
    /// assert_eq!(Mode::ScalarLhs.suffix(), "_ls");
    /// ```
    pub fn suffix(self) -> &'static str {
        match self {
            Mode::Tensors => "",
            Mode::ScalarRhs => "_rs",
            Mode::ScalarLhs => "_ls",
        }
    }
}

/// An operation's description, as the kernel generator reads it.
///
/// ```
/// use shaped::backend::op::Pointwise;
/// use shaped::ops::table::{AddAlpha, Where};
/// let d = <AddAlpha as Pointwise>::DEF;
/// assert_eq!((d.name, d.arity, d.uses_scalar), ("add_alpha", 2, true));
/// assert!(Where::DEF.bool_first);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct OpDef {
    /// The method's name (`add`, `exp`, ...).
    pub name: &'static str,
    /// The number of operands of the expression (1, 2 or 3).
    pub arity: usize,
    /// The element types it takes.
    pub family: Family,
    /// Whether the result is `bool` (comparisons, logical ops).
    pub bool_out: bool,
    /// Whether the first operand is a `bool` condition (`where`).
    pub bool_first: bool,
    /// Whether the expression reads the scalar parameter `s`.
    pub uses_scalar: bool,
    /// The scalar function in CUDA C.
    pub cuda: &'static str,
    /// How tensors are bound to the operands.
    pub mode: Mode,
}

impl OpDef {
    /// Whether the expression calls a transcendental function (`exp`,
    /// `log`, `erf`, `tanh`, `sin`, `pow`, `sqrt`, ...): what makes a fused
    /// chain compute-bound rather than memory-bound, so that the CPU
    /// evaluates it with the widest vectors (a memory-bound chain runs
    /// fastest with the baseline ones, as the eager kernels do).
    ///
    /// ```
    /// use shaped::backend::op::Pointwise;
    /// use shaped::ops::table::{Add, Gelu, Relu, Sigmoid};
    /// assert!(Gelu::DEF.transcendental() && Sigmoid::DEF.transcendental());
    /// assert!(!Add::DEF.transcendental() && !Relu::DEF.transcendental());
    /// ```
    pub const fn transcendental(&self) -> bool {
        const CALLS: [&str; 9] = [
            "exp", "log", "erf", "sin", "cos", "tan", "pow", "sqrt", "atan",
        ];
        // A `const fn`, so that the eager kernels decide their vectors at
        // compile time (`WidthOf<Op>` in the CPU backend): searched per
        // call, this was 70% of a small op's instructions.
        let mut i = 0;
        while i < CALLS.len() {
            if contains(self.cuda.as_bytes(), CALLS[i].as_bytes()) {
                return true;
            }
            i += 1;
        }
        false
    }

    /// The number of tensor operands a launch passes.
    ///
    /// ```
    /// use shaped::backend::op::{Pointwise, ScalarRhs};
    /// use shaped::ops::table::Mul;
    /// assert_eq!(Mul::DEF.inputs(), 2);
    /// assert_eq!(<ScalarRhs<Mul, f64> as Pointwise>::DEF.inputs(), 1);
    /// ```
    pub fn inputs(&self) -> usize {
        match self.mode {
            Mode::Tensors => self.arity,
            Mode::ScalarRhs | Mode::ScalarLhs => 1,
        }
    }

    /// Whether the op can take a scalar on one side ([`Mode::ScalarRhs`],
    /// [`Mode::ScalarLhs`]): two tensor operands of the result's type (not
    /// a comparison), no scalar of its own.
    ///
    /// ```
    /// use shaped::backend::op::Pointwise;
    /// use shaped::ops::table::{Add, AddAlpha};
    /// use shaped::ops::table::Less;
    /// assert!(Add::DEF.has_scalar_forms() && !Less::DEF.has_scalar_forms());
    /// assert!(!<AddAlpha as Pointwise>::DEF.has_scalar_forms());
    /// ```
    pub fn has_scalar_forms(&self) -> bool {
        self.arity == 2
            && !self.uses_scalar
            && !self.bool_first
            && !self.bool_out
            && self.mode == Mode::Tensors
    }
}

/// Whether `needle` occurs in `hay` (a `const fn`, which `str::contains`
/// is not).
const fn contains(hay: &[u8], needle: &[u8]) -> bool {
    let mut start = 0;
    while start + needle.len() <= hay.len() {
        let mut j = 0;
        while j < needle.len() && hay[start + j] == needle[j] {
            j += 1;
        }
        if j == needle.len() {
            return true;
        }
        start += 1;
    }
    false
}

/// A pointwise operation: a value of a type that carries both sides.
///
/// ```
/// use shaped::backend::op::Pointwise;
/// use shaped::ops::table::Tanh;
/// assert_eq!(Tanh::DEF.cuda, "tanh(a)");
/// ```
pub trait Pointwise: Copy + Send + Sync + 'static {
    /// The description the kernel generator reads.
    const DEF: OpDef;
}

/// The derivative of a one-operand table op, itself a table op: the
/// op-table entry names it (`grad GeluBackward`), and eager autograd, fused
/// autograd and every device read it from here, so a differentiable op is
/// defined in one place, its backward pass included.
///
/// ```
/// use shaped::backend::op::{Derivative, Pointwise};
/// use shaped::ops::table::{Floor, Tanh};
/// // `g (1 - y²)` from the upstream gradient, the input and the result.
/// let d = <<Tanh as Derivative>::Backward as Pointwise>::DEF;
/// assert_eq!((d.name, d.cuda), ("tanh_backward", "a * ((T)1 - c * c)"));
/// assert!(!Tanh::ZERO && Floor::ZERO);
/// ```
pub trait Derivative: Pointwise {
    /// `g · f'(x)`: a three-operand table op of the upstream gradient `g`,
    /// the input `x` and the result `y = f(x)`, as PyTorch's `*_backward`
    /// kernels.
    type Backward: Pointwise + Default;
    /// Whether the derivative is zero wherever it exists (rounding,
    /// `sign`): the gradient is then zeros, as PyTorch gives, which eager
    /// autograd hands back without computing (an expanded zero).
    const ZERO: bool = false;
}

/// A one-operand operation on elements `T`.
///
/// ```
/// use shaped::backend::op::Map1;
/// use shaped::ops::table::{Fill, Relu};
/// assert_eq!(Relu.call(-2i32), 0);
/// assert_eq!(Fill(7u8).call(1), 7);
/// ```
pub trait Map1<T: Element>: Pointwise {
    /// The scalar function.
    fn call(&self, a: T) -> T;
    /// The scalar parameter `s` of the expression.
    fn scalar(&self) -> T {
        T::default()
    }
}

/// A two-operand operation on elements `T`, with result `Out`.
///
/// ```
/// use shaped::backend::op::Map2;
/// use shaped::ops::table::{Less, Remainder};
/// assert_eq!(Remainder.call(-3i64, 2), 1);
/// assert!(Less.call(1.0f32, 2.0));
/// ```
pub trait Map2<T: Element>: Pointwise {
    /// The result's element type (`T`, or `bool` for comparisons).
    type Out: Element;
    /// The scalar function.
    fn call(&self, a: T, b: T) -> Self::Out;
    /// The scalar parameter `s` of the expression.
    fn scalar(&self) -> T {
        T::default()
    }
}

/// A three-operand operation whose first operand has elements `A` (`T`,
/// or `bool` for `where`).
///
/// ```
/// use shaped::backend::op::Map3;
/// use shaped::ops::table::{Addcmul, Where};
/// assert_eq!(Addcmul(2.0f64).call(1.0, 3.0, 4.0), 25.0);
/// assert_eq!(Where.call(false, 1i32, 2), 2);
/// ```
pub trait Map3<A: Element, T: Element>: Pointwise {
    /// The scalar function.
    fn call(&self, a: A, b: T, c: T) -> T;
    /// The scalar parameter `s` of the expression.
    fn scalar(&self) -> T {
        T::default()
    }
}

/// A two-operand operation with its right-hand side fixed to a scalar,
/// `op(a, s)`: a one-operand operation on both devices (the CUDA kernel
/// receives `s` as its scalar argument).
///
/// ```
/// use shaped::backend::op::{Map1, ScalarRhs};
/// use shaped::ops::table::Sub;
/// assert_eq!(ScalarRhs(Sub, 1.5f32).call(4.0), 2.5);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct ScalarRhs<Op, T>(pub Op, pub T);

/// A two-operand operation with its left-hand side fixed to a scalar,
/// `op(s, a)`.
///
/// ```
/// use shaped::backend::op::{Map1, ScalarLhs};
/// use shaped::ops::table::Sub;
/// assert_eq!(ScalarLhs(Sub, 1.5f32).call(4.0), -2.5);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct ScalarLhs<Op, T>(pub Op, pub T);

impl<Op: Pointwise, T: Element> Pointwise for ScalarRhs<Op, T> {
    const DEF: OpDef = OpDef {
        mode: Mode::ScalarRhs,
        ..Op::DEF
    };
}

impl<Op: Pointwise, T: Element> Pointwise for ScalarLhs<Op, T> {
    const DEF: OpDef = OpDef {
        mode: Mode::ScalarLhs,
        ..Op::DEF
    };
}

impl<T: Element, Op: Map2<T, Out = T>> Map1<T> for ScalarRhs<Op, T> {
    #[inline(always)]
    fn call(&self, a: T) -> T {
        self.0.call(a, self.1)
    }
    fn scalar(&self) -> T {
        self.1
    }
}

impl<T: Element, Op: Map2<T, Out = T>> Map1<T> for ScalarLhs<Op, T> {
    #[inline(always)]
    fn call(&self, a: T) -> T {
        self.0.call(self.1, a)
    }
    fn scalar(&self) -> T {
        self.1
    }
}

/// The reductions with one combining expression: sum, mean (a sum divided
/// by the count, floats only), product, maximum and minimum (NaN if any
/// element is NaN). The others have their own primitives: [`Statistic`]
/// (`var`, `std`, `norm`, `logsumexp`), `truth` (`all`, `any`),
/// `arg_extreme` (`argmax`, `max` with indices) and `softmax`.
///
/// ```
/// use shaped::backend::op::Reduction;
/// use shaped::ops::reduce::primitives;
/// use shaped::{DynRank, Tensor};
/// let t = Tensor::<f32, DynRank>::try_from_vec(vec![1., 2., 3., 4.], &[2, 2]).unwrap();
/// let rows: Tensor<f32, DynRank> = primitives::reduce(Reduction::Sum, &t, &[false, true], false).unwrap();
/// assert_eq!(rows.to_vec(), vec![3., 7.]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reduction {
    /// `torch.sum`.
    Sum,
    /// `torch.mean`.
    Mean,
    /// `torch.prod`.
    Prod,
    /// `torch.amax`.
    Max,
    /// `torch.amin`.
    Min,
}

impl Reduction {
    /// PyTorch's name for it (as in its error messages).
    ///
    /// ```
    /// assert_eq!(shaped::backend::op::Reduction::Max.name(), "max");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Reduction::Sum => "sum",
            Reduction::Mean => "mean",
            Reduction::Prod => "prod",
            Reduction::Max => "max",
            Reduction::Min => "min",
        }
    }
}

/// The float reductions whose accumulator is more than one element (the
/// CPU runs each as one pass with a compound accumulator; CUDA composes them
/// from [`Reduction`]s and table ops, as PyTorch's composite forms do).
///
/// ```
/// use shaped::backend::op::Statistic;
/// use shaped::ops::reduce::primitives;
/// use shaped::{DynRank, Tensor};
/// let t = Tensor::<f64, DynRank>::try_from_vec(vec![1., 2., 3., 4.], &[4]).unwrap();
/// let var = Statistic::Variance { correction: 1, sqrt: false };
/// let v: Tensor<f64, DynRank> = primitives::statistic(var, &t, &[true], false).unwrap();
/// assert_eq!(v.to_vec(), vec![5.0 / 3.0]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Statistic {
    /// `Σ (x - mean)² / max(N - correction, 0)` (`torch.var`), or its
    /// square root (`torch.std`).
    Variance {
        /// Subtracted from the count `N`.
        correction: usize,
        /// Whether to return the standard deviation.
        sqrt: bool,
    },
    /// The `p`-norm, as `torch.linalg.vector_norm`.
    Norm(f64),
    /// `log Σ exp x`, as `torch.logsumexp`.
    LogSumExp,
}
