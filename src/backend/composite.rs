//! Primitives composed of other primitives, written once over any
//! [`Backend`]: `var`/`std`, the vector norms and `logsumexp`
//! ([`Backend::statistic`]), `softmax`/`log_softmax` ([`Backend::softmax`])
//! and `masked_fill` ([`Backend::masked_fill`]), each step one primitive,
//! the way PyTorch's composite forms are written. A device without a
//! direct kernel for one of these (CUDA) implements it by calling the
//! function here; the CPU has direct kernels, and its tests check these
//! compositions against them.

use super::layout::{Layout, Output, Owned};
use super::op::table::{Abs, Add, Div, Equal, Exp, Log, Mul, NotEqual, Pow, Sqrt, Sub, Where};
use super::op::{Reduction, ScalarRhs, Statistic};
use super::primitives::{Backend, reduced_count, reduced_dims};
use crate::device::Device;
use crate::element::{Element, Float};

/// A layout of `B`'s storage of `T`.
type Lay<'a, T, B> = Layout<'a, <B as Device>::Storage<T>>;

/// A primitive's result on `B`.
type Res<T, B> = Result<Output<<B as Device>::Storage<T>>, <B as Device>::Error>;

/// An intermediate on `B`.
type Step<T, B> = Result<Owned<<B as Device>::Storage<T>>, <B as Device>::Error>;

/// A 0-d storage holding `value`, on the device of `like`.
fn scalar<T: Element, B: Backend<T>>(like: Lay<'_, T, B>, value: T) -> Step<T, B> {
    Ok(Owned::new(B::from_host(like, vec![value], &[])?))
}

/// A new storage of sizes `dims` holding `value` everywhere, on the device
/// of `like`: the scalar read through zero strides, copied.
fn full<T: Element, B: Backend<T>>(like: Lay<'_, T, B>, dims: &[usize], value: T) -> Res<T, B> {
    let one = scalar::<T, B>(like, value)?;
    let zeros = vec![0; dims.len()];
    B::copy(Layout {
        dims,
        strides: &zeros,
        ..one.layout()
    })
}

/// [`Backend::statistic`] composed of pointwise primitives and
/// [`Backend::reduce`].
///
/// # Errors
/// The primitives' errors (out of memory, a driver error).
pub(crate) fn statistic<T: Float, B: Backend<T>>(
    s: Statistic,
    a: Lay<'_, T, B>,
    mask: &[bool],
    keepdim: bool,
) -> Res<T, B> {
    let n = reduced_count(a.dims, mask);
    let out_dims = reduced_dims(a.dims, mask, keepdim);
    let step = |o: Output<B::Storage<T>>| Owned::new(o);
    match s {
        Statistic::Variance { correction, sqrt } => {
            // Two passes, as `torch.var`'s composite reference: the mean,
            // then the sum of squared deviations from it.
            let mean = step(B::reduce(Reduction::Mean, a, mask, true)?);
            let dev = step(B::binary(Sub, a, mean.layout())?);
            let sq = step(B::binary(Mul, dev.layout(), dev.layout())?);
            let ss = step(B::reduce(Reduction::Sum, sq.layout(), mask, keepdim)?);
            let divisor = T::from_f64((n as f64 - correction as f64).max(0.0));
            let var = B::unary(ScalarRhs(Div, divisor), ss.layout())?;
            if sqrt {
                B::unary(Sqrt, step(var).layout())
            } else {
                Ok(var)
            }
        }
        Statistic::Norm(p) => {
            if n == 0 {
                let empty = if p == f64::NEG_INFINITY {
                    T::infinity()
                } else {
                    T::zero()
                };
                return full::<T, B>(a, &out_dims, empty);
            }
            let abs = step(B::unary(Abs, a)?);
            let sum = |t: Lay<'_, T, B>| B::reduce(Reduction::Sum, t, mask, keepdim);
            if p == f64::INFINITY {
                B::reduce(Reduction::Max, abs.layout(), mask, keepdim)
            } else if p == f64::NEG_INFINITY {
                B::reduce(Reduction::Min, abs.layout(), mask, keepdim)
            } else if p == 0.0 {
                let zero = scalar::<T, B>(a, T::zero())?;
                let one = scalar::<T, B>(a, T::one())?;
                let nonzero = Owned::new(B::compare(NotEqual, a, zero.layout())?);
                let counted = step(B::select(
                    Where,
                    nonzero.layout(),
                    one.layout(),
                    zero.layout(),
                )?);
                sum(counted.layout())
            } else if p == 1.0 {
                sum(abs.layout())
            } else if p == 2.0 {
                let sq = step(B::binary(Mul, abs.layout(), abs.layout())?);
                B::unary(Sqrt, step(sum(sq.layout())?).layout())
            } else {
                let powered = step(B::unary(ScalarRhs(Pow, T::from_f64(p)), abs.layout())?);
                let summed = step(sum(powered.layout())?);
                B::unary(ScalarRhs(Pow, T::from_f64(1.0 / p)), summed.layout())
            }
        }
        Statistic::LogSumExp => {
            if n == 0 {
                return full::<T, B>(a, &out_dims, T::neg_infinity());
            }
            // `max + log Σ exp(x - max)`, with an infinite maximum replaced
            // by 0 so that `inf - inf` does not make a NaN (PyTorch's
            // `logsumexp` does the same).
            let m = step(B::reduce(Reduction::Max, a, mask, true)?);
            let inf = scalar::<T, B>(a, T::infinity())?;
            let zero = scalar::<T, B>(a, T::zero())?;
            let abs = step(B::unary(Abs, m.layout())?);
            let infinite = Owned::new(B::compare(Equal, abs.layout(), inf.layout())?);
            let shift = step(B::select(
                Where,
                infinite.layout(),
                zero.layout(),
                m.layout(),
            )?);
            let d = step(B::binary(Sub, a, shift.layout())?);
            let e = step(B::unary(Exp, d.layout())?);
            let s = step(B::reduce(Reduction::Sum, e.layout(), mask, keepdim)?);
            let lse = step(B::unary(Log, s.layout())?);
            let shift = shift.reshaped(&out_dims);
            B::binary(Add, lse.layout(), shift.layout())
        }
    }
}

/// [`Backend::softmax`] composed of pointwise primitives and
/// [`Backend::reduce`]: `d = x - max`, then `exp(d) / Σ exp(d)` or
/// `d - log Σ exp(d)` along `dim`.
///
/// # Errors
/// The primitives' errors.
pub(crate) fn softmax<T: Float, B: Backend<T>>(
    a: Lay<'_, T, B>,
    dim: usize,
    log: bool,
) -> Res<T, B> {
    if a.numel() == 0 {
        return B::copy(a);
    }
    let mask: Vec<bool> = (0..a.dims.len()).map(|k| k == dim).collect();
    let m = Owned::new(B::reduce(Reduction::Max, a, &mask, true)?);
    let d = Owned::new(B::binary(Sub, a, m.layout())?);
    let e = Owned::new(B::unary(Exp, d.layout())?);
    let s = Owned::new(B::reduce(Reduction::Sum, e.layout(), &mask, true)?);
    if log {
        let ls = Owned::new(B::unary(Log, s.layout())?);
        B::binary(Sub, d.layout(), ls.layout())
    } else {
        B::binary(Div, e.layout(), s.layout())
    }
}

/// [`Backend::masked_fill`] as `where(mask, value, a)`.
///
/// # Errors
/// The primitives' errors.
pub(crate) fn masked_fill<T: Element, B: Backend<T>>(
    a: Lay<'_, T, B>,
    mask: Layout<'_, B::Storage<bool>>,
    value: T,
) -> Res<T, B> {
    let v = scalar::<T, B>(a, value)?;
    B::select(Where, mask, v.layout(), a)
}

#[cfg(test)]
mod tests {
    //! The compositions run on the CPU, against the CPU's direct kernels
    //! (written independently: one pass per output over the reduced
    //! elements), over contiguous, transposed and empty layouts.
    use std::sync::Arc;

    use super::*;
    use crate::backend::cpu::storage::Storage;
    use crate::device::Cpu;

    /// A CPU layout of `data` with sizes `dims`, strides `strides`.
    fn lay<'a, T>(
        st: &'a Arc<Storage<T>>,
        dims: &'a [usize],
        strides: &'a [usize],
    ) -> Layout<'a, Storage<T>> {
        Layout {
            storage: st,
            dims,
            strides,
            offset: 0,
        }
    }

    /// The values and sizes of an output.
    fn read(o: Output<Storage<f64>>) -> (Vec<f64>, Vec<usize>) {
        let o = Owned::new(o);
        let v = <Cpu as Backend<f64>>::to_host(o.layout()).unwrap();
        (v, o.layout().dims.to_vec())
    }

    fn close(what: &str, got: (Vec<f64>, Vec<usize>), want: (Vec<f64>, Vec<usize>)) {
        assert_eq!(got.1, want.1, "{what}: sizes");
        for (g, w) in got.0.iter().zip(&want.0) {
            let same =
                (g.is_nan() && w.is_nan()) || g == w || (g - w).abs() <= 1e-12 * w.abs().max(1.0);
            assert!(same, "{what}: {got:?} vs {want:?}");
        }
    }

    /// A storage, sizes and strides.
    type Operand = (Arc<Storage<f64>>, Vec<usize>, Vec<usize>);

    /// A `(3, 4)` matrix with a zero, a negative, an infinite row and a
    /// NaN-free `-inf` row, seen as it is and transposed.
    fn operands() -> Vec<Operand> {
        let data = vec![
            1.5,
            -2.0,
            0.0,
            4.0, //
            f64::INFINITY,
            1.0,
            2.0,
            3.0, //
            f64::NEG_INFINITY,
            f64::NEG_INFINITY,
            f64::NEG_INFINITY,
            f64::NEG_INFINITY,
        ];
        let st = Arc::new(Storage::new(data));
        let empty = Arc::new(Storage::new(Vec::<f64>::new()));
        vec![
            (st.clone(), vec![3, 4], vec![4, 1]),
            (st, vec![4, 3], vec![1, 4]),
            (empty, vec![2, 0], vec![0, 1]),
        ]
    }

    #[test]
    fn statistics_match_the_direct_kernels() {
        let stats = [
            Statistic::Variance {
                correction: 1,
                sqrt: false,
            },
            Statistic::Variance {
                correction: 0,
                sqrt: true,
            },
            Statistic::Norm(f64::INFINITY),
            Statistic::Norm(f64::NEG_INFINITY),
            Statistic::Norm(0.0),
            Statistic::Norm(1.0),
            Statistic::Norm(2.0),
            Statistic::Norm(3.0),
            Statistic::Norm(0.5),
            Statistic::LogSumExp,
        ];
        for (st, dims, strides) in operands() {
            let a = lay(&st, &dims, &strides);
            for mask in [[true, false], [false, true], [true, true]] {
                for keepdim in [false, true] {
                    for s in stats {
                        let what = format!("{s:?} of {dims:?} over {mask:?}, keepdim {keepdim}");
                        let got = statistic::<f64, Cpu>(s, a, &mask, keepdim).unwrap();
                        let want = <Cpu as Backend<f64>>::statistic(s, a, &mask, keepdim).unwrap();
                        close(&what, read(got), read(want));
                    }
                }
            }
        }
    }

    #[test]
    fn softmax_matches_the_direct_kernel() {
        for (st, dims, strides) in operands() {
            let a = lay(&st, &dims, &strides);
            for dim in 0..2 {
                for log in [false, true] {
                    let what = format!("softmax (log {log}) of {dims:?} along {dim}");
                    let got = softmax::<f64, Cpu>(a, dim, log).unwrap();
                    let want = <Cpu as Backend<f64>>::softmax(a, dim, log).unwrap();
                    close(&what, read(got), read(want));
                }
            }
        }
    }

    #[test]
    fn masked_fill_matches_the_direct_kernel() {
        let mask = Arc::new(Storage::new(vec![true, false, false, true]));
        for (st, dims, strides) in operands() {
            let a = lay(&st, &dims, &strides);
            // The mask broadcast along the first dimension.
            let mdims = [dims[1].min(4)];
            let m = lay(&mask, &mdims, &[1]);
            let got = masked_fill::<f64, Cpu>(a, m, -7.0).unwrap();
            let want = <Cpu as Backend<f64>>::masked_fill(a, m, -7.0).unwrap();
            close(&format!("masked_fill of {dims:?}"), read(got), read(want));
        }
    }
}
