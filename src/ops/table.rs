//! The op table: every built-in pointwise operation, defined once. Each
//! line gives the operation's type, its name, the element family it takes,
//! its CUDA C expression and its Rust scalar function, side by side. The
//! CPU backend calls the Rust function inside its loops (monomorphised, as
//! a closure would be); the CUDA backend generates its kernels from the
//! expression. The tensor methods (`ops/unary.rs`, `binary.rs`,
//! `ternary.rs`, `operators.rs`) and autograd name these types, never a
//! closure, so every method runs on every device.
//!
//! A one-operand entry with a gradient names its derivative, another
//! entry (`grad GeluBackward`: `g · f'(x)` from the upstream gradient, the
//! input and the result), which makes the op a
//! [`Derivative`](crate::backend::op::Derivative); eager autograd, fused
//! autograd (on the CPU and in generated CUDA) read it from there. Adding
//! a differentiable one-operand op, as `mish` and `softplus` were, is its
//! two entries here and one line in the list of `ops/unary.rs`, from which
//! the tensor methods (`softplus`, `try_softplus`, `softplus_`), the lazy
//! method and the variable's method with its gradient are generated; the
//! CPU compiles the new entry's `f32` loops from the same list, and the
//! CUDA backend generates its kernels from the expression.
//!
//! `tests/op_table.rs` walks [`POINTWISE`]: it compiles every expression
//! for the host with the CUDA prelude and compares it with the Rust side
//! on sample values of every element type the family admits.
//!
//! ```
//! use shaped::backend::op::{Map2, Pointwise};
//! use shaped::ops::table::{Add, POINTWISE};
//! assert_eq!(Add.call(2i32, 3), 5);
//! assert_eq!(Add::DEF.cuda, "sh_wadd(a, b)");
//! assert!(POINTWISE.iter().any(|d| d.name == "where"));
//! ```

pub use crate::backend::op::table::*;

#[cfg(test)]
mod tests {
    use crate::backend::cpu::table_f32;
    use crate::backend::op::table::Fill;
    use crate::tensor::pointwise;

    /// A type outside shaped that takes `f32`'s name.
    #[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd)]
    struct Impostor(u8);

    impl core::fmt::Display for Impostor {
        fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            write!(f, "{}", self.0)
        }
    }

    impl crate::element::Element for Impostor {
        const NAME: &'static str = "float32";
        const RUST_NAME: &'static str = "Impostor";
        fn to_scalar(self) -> crate::element::Scalar {
            crate::element::Scalar::UInt(self.0.into())
        }
        fn from_scalar(_: crate::element::Scalar) -> Self {
            Impostor(0)
        }
    }

    /// Its name selects the `f32` functions, and the call is refused
    /// before any of them runs (an `f32` loop on its bytes would be
    /// undefined behaviour).
    #[test]
    #[should_panic(expected = "element names must be distinct")]
    fn a_type_with_f32s_name_is_refused_before_an_f32_loop_runs() {
        use crate::{DynRank, Tensor};
        assert!(table_f32::unary::<Impostor, Fill<Impostor>>().is_some());
        let t = Tensor::<Impostor, DynRank>::try_from_vec(vec![Impostor(1); 3], &[3]).unwrap();
        let _ = pointwise::unary(Fill(Impostor(2)), &t);
    }
}
