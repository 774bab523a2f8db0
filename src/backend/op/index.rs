//! What an index operation is to a backend: the element types of index
//! tensors and the reductions of `scatter_reduce`. Users name them through
//! `shaped::ops::index`.

use crate::element::Integer;
use crate::shape::ShapeError;

/// An element type that an index tensor may hold: `i64` or `i32`, as
/// PyTorch's index arguments take `int64` (and `int32` for `index_select`,
/// `index_add_` and `index_copy_`; here everywhere).
///
/// Sealed. A tensor of `f32`, `bool` or `u8` used as an index does not
/// compile; convert it first, or use a `bool` tensor as a mask.
///
/// ```
/// use shaped::ops::index::IndexElement;
/// fn widest<I: IndexElement>(i: I) -> i64 { i.into() }
/// assert_eq!(widest(-3i32), -3i64);
/// ```
pub trait IndexElement: Integer + Into<i64> + sealed::Sealed {
    /// `Self`, named so that a method can state the bound through a
    /// projection (`impl IndexElement<Int: Sized>`): the compiler then
    /// checks it at the call and reports a wrong element type once, with
    /// [`IndexInt`]'s message and no quote of the method's bounds.
    type Int: Integer;
}

/// Every [`IndexInt`].
impl<I: IndexInt> IndexElement for I {
    type Int = I;
}

/// The element types of index tensors, `i64` and `i32`: the rule behind
/// [`IndexElement`], which carries its message.
///
/// ```
/// use shaped::ops::index::IndexInt;
/// fn check<I: IndexInt>() {}
/// check::<i32>();
/// ```
#[diagnostic::on_unimplemented(
    message = "an index tensor must hold `i64` or `i32`, but this one holds `{Self}`",
    label = "index tensor of `{Self}`",
    note = "convert it with `.map(|x| x as i64)`; to pick elements where a condition holds, pass a `bool` tensor to `masked_select` or `masked_fill` instead"
)]
pub trait IndexInt: Integer + Into<i64> + sealed::Sealed {}

#[diagnostic::do_not_recommend]
impl IndexInt for i64 {}
#[diagnostic::do_not_recommend]
impl IndexInt for i32 {}

mod sealed {
    pub trait Sealed {}
    impl Sealed for i64 {}
    impl Sealed for i32 {}
}

/// The reduction of `scatter_reduce`, PyTorch's `reduce=` names.
///
/// ```
/// use shaped::ops::index::ScatterReduce;
/// assert_eq!("amax".parse::<ScatterReduce>().unwrap(), ScatterReduce::Amax);
/// assert!("max".parse::<ScatterReduce>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScatterReduce {
    /// `"sum"`: the sum of the contributions.
    Sum,
    /// `"prod"`: their product.
    Prod,
    /// `"mean"`: their mean (floored for integers).
    Mean,
    /// `"amax"`: their maximum (NaN if any is NaN).
    Amax,
    /// `"amin"`: their minimum (NaN if any is NaN).
    Amin,
}

impl core::str::FromStr for ScatterReduce {
    type Err = ShapeError;

    /// PyTorch's names; any other is PyTorch's error.
    fn from_str(s: &str) -> Result<Self, ShapeError> {
        Ok(match s {
            "sum" => ScatterReduce::Sum,
            "prod" => ScatterReduce::Prod,
            "mean" => ScatterReduce::Mean,
            "amax" => ScatterReduce::Amax,
            "amin" => ScatterReduce::Amin,
            _ => {
                return Err(ShapeError::Invalid(format!(
                    "reduce argument must be either sum, prod, mean, amax or amin, got {s}"
                )));
            }
        })
    }
}
