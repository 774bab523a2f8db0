//! The compile-time check that a second operand holds the same element type
//! as the first. The operators and the two-operand methods take a right
//! operand of any element type `U` and state `T: SameElement<U>`: with one
//! blanket impl, a mismatch is a single error at the user's call that names
//! both element types and the conversion (`to_dtype`), instead of a list of
//! every other `Add` impl or an E0308 "expected `f32`, found `f64`".
//!
//! ```compile_fail,E0277
//! use shaped::{Shape, Tensor};
//! let a = Tensor::<f32, Shape![3]>::zeros();
//! let b = Tensor::<f64, Shape![3]>::zeros();
//! let _ = &a + &b; // error: cannot combine `f32` elements with `f64` elements
//! ```

use crate::Tensor;
use crate::device::Device;
use crate::element::Element;
use crate::shape::Shape;

/// Holds when a tensor of `Self` elements can be combined with one of `U`
/// elements: only when the types are the same (element types do not
/// convert implicitly; convert one operand with
/// [`to_dtype`](Tensor::to_dtype)).
///
/// ```
/// use shaped::ops::SameElement;
/// fn same<A: SameElement<B>, B: shaped::element::Element>() {}
/// same::<f32, f32>();
/// ```
#[diagnostic::on_unimplemented(
    message = "cannot combine `{Self}` elements with `{U}` elements",
    label = "the left operand holds `{Self}`, the right one `{U}`",
    note = "element types do not convert implicitly: convert one operand first, e.g. `.to_dtype::<{Self}>()`"
)]
pub trait SameElement<U: Element>: Element {
    /// The right operand seen as a tensor of `Self` elements (the identity).
    #[doc(hidden)]
    fn same_element<S: Shape, D: Device>(t: &Tensor<U, S, D>) -> &Tensor<Self, S, D>;
}

impl<T: Element> SameElement<T> for T {
    fn same_element<S: Shape, D: Device>(t: &Tensor<T, S, D>) -> &Tensor<T, S, D> {
        t
    }
}

/// Holds when a tensor on `Self` can be combined with one on `D` (elements
/// `T`): only when the devices are the same.
///
/// ```
/// use shaped::device::{Cpu, SameDevice};
/// fn same<A: SameDevice<B, f32>, B: shaped::device::Device>() {}
/// same::<Cpu, Cpu>();
/// ```
#[diagnostic::on_unimplemented(
    message = "tensors on different devices cannot be combined: one is on `{Self}`, the other on `{D}`",
    label = "one operand is on `{Self}`, the other on `{D}`",
    note = "the device is part of a tensor's type: move one operand first, with `.to_device(&dev)` (CPU to CUDA) or `.to_cpu()` (CUDA to CPU)"
)]
pub trait SameDevice<D: Device, T>: Device {
    /// The other operand seen as a tensor on `Self` (the identity).
    #[doc(hidden)]
    fn same_device<S: Shape>(t: &Tensor<T, S, D>) -> &Tensor<T, S, Self>
    where
        T: Element;
}

impl<D: Device, T> SameDevice<D, T> for D {
    fn same_device<S: Shape>(t: &Tensor<T, S, D>) -> &Tensor<T, S, D>
    where
        T: Element,
    {
        t
    }
}

/// The second operand of a two-operand method (`a.add(&b)`): a tensor of
/// `T` elements on `D`, the first operand's. Every tensor implements it,
/// under the bounds [`SameElement`] and [`SameDevice`]: the method takes
/// `other: &R` with `R: SecondOperand<T, D>` and names `R::Shape` in its
/// shape rule, so a tensor of another element type or on another device
/// is one error at the call that names both (not an E0308 on the argument).
///
/// ```
/// use shaped::ops::SecondOperand;
/// use shaped::{Shape, Tensor, device::Cpu};
/// let b = Tensor::<f32, Shape![2]>::ones();
/// let same: &Tensor<f32, Shape![2], Cpu> = SecondOperand::<f32, Cpu>::operand(&b);
/// assert_eq!(same.to_vec(), vec![1.0, 1.0]);
/// ```
pub trait SecondOperand<T: Element, D: Device> {
    /// The operand's shape.
    type Shape: Shape;
    /// The operand itself, typed with `T` elements on `D` (the identity).
    fn operand(&self) -> &Tensor<T, Self::Shape, D>;
}

/// Every tensor of the first operand's element type, on its device. (The
/// impl is over every type `R`, reading the tensor's parts from
/// [`TensorParts`]: rustc then reports a failing bound alone, without
/// quoting this impl.)
impl<T: Element, D: Device, R: TensorParts> SecondOperand<T, D> for R
where
    T: SameElement<R::Element>,
    D: SameDevice<R::Device, R::Element>,
{
    type Shape = R::Shape;
    fn operand(&self) -> &Tensor<T, R::Shape, D> {
        T::same_element(D::same_device(self.tensor()))
    }
}

/// A tensor type's element type, shape and device.
///
/// ```
/// use shaped::ops::TensorParts;
/// use shaped::{Shape, Tensor};
/// let _: <Tensor<f32, Shape![2]> as TensorParts>::Shape = <Shape![2]>::default();
/// ```
pub trait TensorParts {
    /// The element type.
    type Element: Element;
    /// The shape.
    type Shape: Shape;
    /// The device.
    type Device: Device;
    /// The tensor itself (the identity).
    fn tensor(&self) -> &Tensor<Self::Element, Self::Shape, Self::Device>;
}

impl<T: Element, S: Shape, D: Device> TensorParts for Tensor<T, S, D> {
    type Element = T;
    type Shape = S;
    type Device = D;
    fn tensor(&self) -> &Tensor<T, S, D> {
        self
    }
}
