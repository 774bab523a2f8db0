//! Pointwise operations on CUDA tensors: each method runs the kernel of the
//! same name in `backend::cuda::ops::OPS`, with the CPU method's shape rule.
//!
//! Integer division by zero (`div_trunc`, `div_floor`, `fmod`, `remainder`
//! and their in-place and operator forms) is an error, as on the CPU
//! (`ZeroDivisionError`): a GPU kernel cannot raise one, so the divisor is
//! copied to the host and checked before the launch. That costs a copy of
//! the divisor; float division needs no check (IEEE 754 gives inf or NaN).

use crate::shape::OrPanic;
use std::sync::Arc;

use super::{output, same_device};
use crate::Tensor;
use crate::backend::cuda::elementwise::{Operand, launch};
use crate::backend::cuda::ops::{OpDef, find};
use crate::backend::cuda::{CudaElement, CudaError, CudaStorage};
use crate::device::Cuda;
use crate::element::{Element, Float, Numeric, Signed};
use crate::shape::{
    Broadcast, Broadcast3, BroadcastShape, ExpandsTo, Shape, ShapeError, broadcast_pair,
    check_inplace,
};

/// Runs `op` on `a` and `rest` broadcast together, into a new tensor.
fn apply<A0: CudaElement, T: CudaElement, O: CudaElement, SO: Shape>(
    op: &OpDef,
    a: Operand<'_, A0>,
    rest: &[Operand<'_, T>],
    s: T,
) -> Result<Tensor<O, SO, Cuda>, CudaError> {
    let dev = &a.storage.dev;
    let mut dims = crate::shape::DimVec::from_slice(a.dims);
    for r in rest {
        same_device(dev, &r.storage.dev)?;
        dims = broadcast_pair(&dims, r.dims)?;
    }
    let out = output::<O, SO>(dev, &dims)?;
    launch(dev, op, out.operand(), a, rest, s)?;
    Ok(out)
}

/// Runs `op` writing into `target` (which keeps its shape) from `target`
/// itself and `rest`, each of which must expand to `target`'s sizes.
fn apply_<T: CudaElement, S: Shape>(
    op: &OpDef,
    target: &mut Tensor<T, S, Cuda>,
    rest: &[Operand<'_, T>],
    s: T,
) -> Result<(), CudaError> {
    for r in rest {
        same_device(target.device(), &r.storage.dev)?;
    }
    let dims: Vec<&[usize]> = rest.iter().map(|r| r.dims).collect();
    check_inplace(target.dims(), &dims)?;
    check_no_overlap(target.dims(), target.strides())?;
    let dev = target.device().clone();
    launch(&dev, op, target.operand(), target.operand(), rest, s)
}

/// PyTorch's refusal to write into a tensor whose elements share memory.
fn check_no_overlap(dims: &[usize], strides: &[usize]) -> Result<(), CudaError> {
    let overlaps = dims.iter().zip(strides).any(|(&d, &s)| d > 1 && s == 0);
    if overlaps && dims.iter().all(|&d| d > 0) {
        return Err(CudaError::Shape(ShapeError::Invalid(
            "unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation.".into(),
        )));
    }
    Ok(())
}

/// `ZeroDivisionError` when an integer divisor holds a zero (see the module
/// doc for why this reads the divisor back).
fn check_divisor<T: Numeric + CudaElement, S: Shape>(
    d: &Tensor<T, S, Cuda>,
) -> Result<(), CudaError> {
    if !T::IS_FLOAT && d.to_cpu()?.to_vec().contains(&T::zero()) {
        return Err(CudaError::Shape(ShapeError::Invalid(
            "ZeroDivisionError".into(),
        )));
    }
    Ok(())
}

/// A 0-d tensor holding `v` on the device of `like`.
fn scalar_on<T: CudaElement, S: Shape>(
    like: &Tensor<T, S, Cuda>,
    v: T,
) -> Result<Tensor<T, (), Cuda>, CudaError> {
    let dev = like.device();
    let buf = dev.upload(&[v])?;
    let dims = <() as Shape>::check_dims(&[])?;
    Ok(Tensor::from_cuda_parts(
        Arc::new(CudaStorage::new(buf, dev.clone())),
        dims,
    ))
}

macro_rules! binary {
    ($($name:ident / $try_name:ident / $out_name:ident : $bound:ident, $divides:literal, $torch:literal;)*) => {$(
        impl<T: $bound + CudaElement, S: Shape> Tensor<T, S, Cuda> {
            #[doc = concat!("`", $torch, "` on the GPU, broadcasting as [`Tensor::", stringify!($name), "`] on the CPU.")]
            ///
            /// # Panics
            /// With PyTorch's message when a run-time size does not match,
            /// or on a driver error.
            ///
            /// ```
            /// use shaped::device::Cuda;
            /// use shaped::{Shape, Tensor};
            /// if let Ok(dev) = Cuda::device(0) {
            ///     let a = Tensor::<f32, Shape![2, 1]>::from_vec(vec![1., 2.]);
            ///     let b = Tensor::<f32, Shape![3]>::from_vec(vec![1., 2., 3.]);
            ///     let (ga, gb) = (a.to_device(&dev).unwrap(), b.to_device(&dev).unwrap());
            #[doc = concat!("    let c: Tensor<f32, Shape![2, 3], Cuda> = ga.", stringify!($name), "(&gb);")]
            #[doc = concat!("    assert_eq!(c.to_cpu().unwrap().to_vec(), a.", stringify!($name), "(&b).to_vec());")]
            /// }
            /// ```
            #[track_caller]
            pub fn $name<S2: Shape>(&self, other: &Tensor<T, S2, Cuda>) -> Tensor<T, Broadcast<S, S2>, Cuda>
            where
                S: BroadcastShape<S2>,
            {
                self.$try_name(other).or_panic()
            }

            #[doc = concat!("The fallible form of [`Tensor::", stringify!($name), "`] on CUDA tensors.")]
            ///
            /// # Errors
            /// PyTorch's broadcast error, a driver error, or
            /// `ZeroDivisionError` for an integer divisor holding 0.
            pub fn $try_name<S2: Shape>(&self, other: &Tensor<T, S2, Cuda>) -> Result<Tensor<T, Broadcast<S, S2>, Cuda>, CudaError>
            where
                S: BroadcastShape<S2>,
            {
                if $divides {
                    check_divisor(other)?;
                }
                apply(find(stringify!($name)), self.operand(), &[other.operand()], T::default())
            }

            #[doc = concat!("[`Tensor::", stringify!($name), "`] on CUDA tensors written into `out`, as PyTorch's `out=` argument (`out` is not resized).")]
            ///
            /// # Errors
            /// PyTorch's broadcast error, when `out`'s sizes are not the
            /// broadcast sizes or its elements share memory, a driver error,
            /// or `ZeroDivisionError` for an integer divisor holding 0.
            pub fn $out_name<S2: Shape>(&self, other: &Tensor<T, S2, Cuda>, out: &mut Tensor<T, Broadcast<S, S2>, Cuda>) -> Result<(), CudaError>
            where
                S: BroadcastShape<S2>,
            {
                if $divides {
                    check_divisor(other)?;
                }
                apply_out(find(stringify!($name)), self.operand(), &[other.operand()], out)
            }
        }
    )*};
}

/// Runs `op` on `a` and `rest` broadcast together into `out`, whose sizes
/// must be the broadcast sizes.
fn apply_out<T: CudaElement, SO: Shape>(
    op: &OpDef,
    a: Operand<'_, T>,
    rest: &[Operand<'_, T>],
    out: &mut Tensor<T, SO, Cuda>,
) -> Result<(), CudaError> {
    let mut dims = crate::shape::DimVec::from_slice(a.dims);
    for r in rest {
        same_device(&a.storage.dev, &r.storage.dev)?;
        dims = broadcast_pair(&dims, r.dims)?;
    }
    same_device(&a.storage.dev, out.device())?;
    if dims.as_slice() != out.dims() {
        return Err(CudaError::Shape(ShapeError::Invalid(format!(
            "out has sizes {:?}, but the result has sizes {:?}",
            out.dims(),
            dims.as_slice()
        ))));
    }
    check_no_overlap(out.dims(), out.strides())?;
    let dev = out.device().clone();
    launch(&dev, op, out.operand(), a, rest, T::default())
}

binary! {
    add / try_add / add_out: Numeric, false, "torch.add";
    sub / try_sub / sub_out: Numeric, false, "torch.sub";
    mul / try_mul / mul_out: Numeric, false, "torch.mul";
    div / try_div / div_out: Float, false, "torch.div";
    div_trunc / try_div_trunc / div_trunc_out: Numeric, true, "torch.div(rounding_mode=\"trunc\")";
    div_floor / try_div_floor / div_floor_out: Numeric, true, "torch.div(rounding_mode=\"floor\")";
    fmod / try_fmod / fmod_out: Numeric, true, "torch.fmod";
    remainder / try_remainder / remainder_out: Numeric, true, "torch.remainder";
    pow / try_pow / pow_out: Numeric, false, "torch.pow";
    atan2 / try_atan2 / atan2_out: Float, false, "torch.atan2";
    maximum / try_maximum / maximum_out: Numeric, false, "torch.maximum";
    minimum / try_minimum / minimum_out: Numeric, false, "torch.minimum";
}

impl<T: Numeric + CudaElement, S: Shape> Tensor<T, S, Cuda> {
    /// `self + alpha * other`, as `torch.add(self, other, alpha=alpha)`.
    ///
    /// # Errors
    /// PyTorch's broadcast error, or a driver error.
    ///
    /// ```
    /// use shaped::device::Cuda;
    /// use shaped::{Shape, Tensor};
    /// if let Ok(dev) = Cuda::device(0) {
    ///     let a = Tensor::<f32, Shape![3]>::from_vec(vec![1., 2., 3.]).to_device(&dev).unwrap();
    ///     let c = a.try_add_alpha(&a, 2.0).unwrap();
    ///     assert_eq!(c.to_cpu().unwrap().to_vec(), vec![3., 6., 9.]);
    /// }
    /// ```
    pub fn try_add_alpha<S2: Shape>(
        &self,
        other: &Tensor<T, S2, Cuda>,
        alpha: T,
    ) -> Result<Tensor<T, Broadcast<S, S2>, Cuda>, CudaError>
    where
        S: BroadcastShape<S2>,
    {
        apply(find("add_alpha"), self.operand(), &[other.operand()], alpha)
    }

    /// `self - alpha * other`, as `torch.sub(self, other, alpha=alpha)`.
    ///
    /// # Errors
    /// PyTorch's broadcast error, or a driver error.
    ///
    /// ```
    /// use shaped::device::Cuda;
    /// use shaped::{Shape, Tensor};
    /// if let Ok(dev) = Cuda::device(0) {
    ///     let a = Tensor::<f32, Shape![3]>::from_vec(vec![1., 2., 3.]).to_device(&dev).unwrap();
    ///     let c = a.try_sub_alpha(&a, 2.0).unwrap();
    ///     assert_eq!(c.to_cpu().unwrap().to_vec(), vec![-1., -2., -3.]);
    /// }
    /// ```
    pub fn try_sub_alpha<S2: Shape>(
        &self,
        other: &Tensor<T, S2, Cuda>,
        alpha: T,
    ) -> Result<Tensor<T, Broadcast<S, S2>, Cuda>, CudaError>
    where
        S: BroadcastShape<S2>,
    {
        apply(find("sub_alpha"), self.operand(), &[other.operand()], alpha)
    }
}

macro_rules! predicate {
    ($($name:ident / $try_name:ident, $torch:literal;)*) => {$(
        impl<T: Element + CudaElement, S: Shape> Tensor<T, S, Cuda> {
            #[doc = concat!("`", $torch, "` on the GPU: a `bool` tensor, broadcasting as on the CPU.")]
            ///
            /// # Panics
            /// With PyTorch's message when a run-time size does not match,
            /// or on a driver error.
            ///
            /// ```
            /// use shaped::device::Cuda;
            /// use shaped::{Shape, Tensor};
            /// if let Ok(dev) = Cuda::device(0) {
            ///     let a = Tensor::<i32, Shape![2, 1]>::from_vec(vec![1, 2]);
            ///     let b = Tensor::<i32, Shape![3]>::from_vec(vec![1, 2, 3]);
            ///     let (ga, gb) = (a.to_device(&dev).unwrap(), b.to_device(&dev).unwrap());
            #[doc = concat!("    let c: Tensor<bool, Shape![2, 3], Cuda> = ga.", stringify!($name), "(&gb);")]
            #[doc = concat!("    assert_eq!(c.to_cpu().unwrap().to_vec(), a.", stringify!($name), "(&b).to_vec());")]
            /// }
            /// ```
            #[track_caller]
            pub fn $name<S2: Shape>(&self, other: &Tensor<T, S2, Cuda>) -> Tensor<bool, Broadcast<S, S2>, Cuda>
            where
                S: BroadcastShape<S2>,
            {
                self.$try_name(other).or_panic()
            }

            #[doc = concat!("The fallible form of [`Tensor::", stringify!($name), "`] on CUDA tensors.")]
            ///
            /// # Errors
            /// PyTorch's broadcast error, or a driver error.
            pub fn $try_name<S2: Shape>(&self, other: &Tensor<T, S2, Cuda>) -> Result<Tensor<bool, Broadcast<S, S2>, Cuda>, CudaError>
            where
                S: BroadcastShape<S2>,
            {
                apply(find(stringify!($name)), self.operand(), &[other.operand()], T::default())
            }
        }
    )*};
}

predicate! {
    eq / try_eq, "torch.eq";
    ne / try_ne, "torch.ne";
    lt / try_lt, "torch.lt";
    le / try_le, "torch.le";
    gt / try_gt, "torch.gt";
    ge / try_ge, "torch.ge";
    logical_and / try_logical_and, "torch.logical_and";
    logical_or / try_logical_or, "torch.logical_or";
    logical_xor / try_logical_xor, "torch.logical_xor";
}

macro_rules! unary {
    ($($name:ident / $try_name:ident / $name_:ident : $bound:ident, $torch:literal;)*) => {$(
        impl<T: $bound + CudaElement, S: Shape> Tensor<T, S, Cuda> {
            #[doc = concat!("`", $torch, "` on the GPU.")]
            ///
            /// # Panics
            /// On a driver error.
            ///
            /// ```
            /// use shaped::device::Cuda;
            /// use shaped::{Shape, Tensor};
            /// if let Ok(dev) = Cuda::device(0) {
            ///     let a = Tensor::<f32, Shape![2, 2]>::from_vec(vec![0.5, 1.0, 1.5, 2.0]);
            #[doc = concat!("    let g = a.to_device(&dev).unwrap().", stringify!($name), "();")]
            #[doc = concat!("    let (got, want) = (g.to_cpu().unwrap().to_vec(), a.", stringify!($name), "().to_vec());")]
            ///     assert!(got.iter().zip(&want).all(|(x, y)| (x - y).abs() <= 1e-5 * y.abs().max(1.0)));
            /// }
            /// ```
            #[track_caller]
            pub fn $name(&self) -> Tensor<T, S, Cuda> {
                self.$try_name().or_panic()
            }

            #[doc = concat!("The fallible form of [`Tensor::", stringify!($name), "`] on CUDA tensors.")]
            ///
            /// # Errors
            /// A driver error.
            pub fn $try_name(&self) -> Result<Tensor<T, S, Cuda>, CudaError> {
                apply::<T, T, T, S>(find(stringify!($name)), self.operand(), &[], T::default())
            }

            #[doc = concat!("[`Tensor::", stringify!($name), "`] in place, on the GPU.")]
            ///
            /// # Panics
            /// When elements of `self` share memory (an expanded view), or
            /// on a driver error.
            #[track_caller]
            pub fn $name_(&mut self) {
                apply_(find(stringify!($name)), self, &[], T::default()).or_panic()
            }
        }
    )*};
}

unary! {
    neg / try_neg / neg_: Signed, "torch.neg";
    abs / try_abs / abs_: Signed, "torch.abs";
    sign / try_sign / sign_: Numeric, "torch.sign";
    square / try_square / square_: Numeric, "torch.square";
    relu / try_relu / relu_: Numeric, "torch.relu";
    exp / try_exp / exp_: Float, "torch.exp";
    log / try_log / log_: Float, "torch.log";
    log1p / try_log1p / log1p_: Float, "torch.log1p";
    expm1 / try_expm1 / expm1_: Float, "torch.expm1";
    sqrt / try_sqrt / sqrt_: Float, "torch.sqrt";
    rsqrt / try_rsqrt / rsqrt_: Float, "torch.rsqrt";
    sin / try_sin / sin_: Float, "torch.sin";
    cos / try_cos / cos_: Float, "torch.cos";
    tan / try_tan / tan_: Float, "torch.tan";
    tanh / try_tanh / tanh_: Float, "torch.tanh";
    sigmoid / try_sigmoid / sigmoid_: Float, "torch.sigmoid";
    gelu / try_gelu / gelu_: Float, "torch.nn.functional.gelu";
    silu / try_silu / silu_: Float, "torch.nn.functional.silu";
    floor / try_floor / floor_: Float, "torch.floor";
    ceil / try_ceil / ceil_: Float, "torch.ceil";
    round / try_round / round_: Float, "torch.round";
    trunc / try_trunc / trunc_: Float, "torch.trunc";
    reciprocal / try_reciprocal / reciprocal_: Float, "torch.reciprocal";
}

macro_rules! inplace {
    ($($name:ident / $try_name:ident = $op:literal : $bound:ident, $divides:literal;)*) => {$(
        impl<T: $bound + CudaElement, S: Shape> Tensor<T, S, Cuda> {
            #[doc = concat!("`self = self.", $op, "(other)` in place on the GPU, `other` broadcast to `self`'s shape.")]
            ///
            /// # Panics
            /// With PyTorch's message when `other` does not expand to
            /// `self`'s sizes, when `self`'s elements share memory, or on a
            /// driver error.
            ///
            /// ```
            /// use shaped::device::Cuda;
            /// use shaped::{Shape, Tensor};
            /// if let Ok(dev) = Cuda::device(0) {
            ///     let mut a = Tensor::<f32, Shape![2, 3]>::full(2.0);
            ///     let b = Tensor::<f32, Shape![3]>::from_vec(vec![1., 2., 3.]);
            ///     let (mut ga, gb) = (a.to_device(&dev).unwrap(), b.to_device(&dev).unwrap());
            #[doc = concat!("    ga.", stringify!($name), "(&gb);")]
            #[doc = concat!("    a.", stringify!($name), "(&b);")]
            ///     assert_eq!(ga.to_cpu().unwrap().to_vec(), a.to_vec());
            /// }
            /// ```
            #[track_caller]
            pub fn $name<S2>(&mut self, other: &Tensor<T, S2, Cuda>)
            where
                S2: ExpandsTo<S>,
            {
                self.$try_name(other).or_panic()
            }

            #[doc = concat!("The fallible form of [`Tensor::", stringify!($name), "`] on CUDA tensors.")]
            ///
            /// # Errors
            /// PyTorch's in-place broadcast or output-shape error, the overlap error, `ZeroDivisionError`
            /// for an integer divisor holding 0, or a driver error.
            pub fn $try_name<S2>(&mut self, other: &Tensor<T, S2, Cuda>) -> Result<(), CudaError>
            where
                S2: ExpandsTo<S>,
            {
                if $divides {
                    check_divisor(other)?;
                }
                apply_(find($op), self, &[other.operand()], T::default())
            }
        }
    )*};
}

inplace! {
    add_ / try_add_ = "add": Numeric, false;
    sub_ / try_sub_ = "sub": Numeric, false;
    mul_ / try_mul_ = "mul": Numeric, false;
    div_ / try_div_ = "div": Float, false;
    fmod_ / try_fmod_ = "fmod": Numeric, true;
    remainder_ / try_remainder_ = "remainder": Numeric, true;
    pow_ / try_pow_ = "pow": Numeric, false;
}

type Out3<T, A, B, C> = Tensor<T, <A as Broadcast3<B, C>>::Output, Cuda>;

impl<T: Numeric + CudaElement, S: Shape> Tensor<T, S, Cuda> {
    /// `self + value * t1 * t2`, all three broadcast together, as
    /// `torch.addcmul`.
    ///
    /// # Errors
    /// PyTorch's broadcast error, or a driver error.
    ///
    /// ```
    /// use shaped::device::Cuda;
    /// use shaped::{Shape, Tensor};
    /// if let Ok(dev) = Cuda::device(0) {
    ///     let a = Tensor::<f32, Shape![2, 1]>::zeros().to_device(&dev).unwrap();
    ///     let t = Tensor::<f32, Shape![3]>::from_vec(vec![1., 2., 3.]).to_device(&dev).unwrap();
    ///     let c: Tensor<f32, Shape![2, 3], Cuda> = a.try_addcmul(&t, &t, 0.5).unwrap();
    ///     assert_eq!(c.to_cpu().unwrap().to_vec(), vec![0.5, 2., 4.5, 0.5, 2., 4.5]);
    /// }
    /// ```
    pub fn try_addcmul<S1: Shape, S2: Shape>(
        &self,
        t1: &Tensor<T, S1, Cuda>,
        t2: &Tensor<T, S2, Cuda>,
        value: T,
    ) -> Result<Out3<T, S, S1, S2>, CudaError>
    where
        S: Broadcast3<S1, S2>,
    {
        apply(
            find("addcmul"),
            self.operand(),
            &[t1.operand(), t2.operand()],
            value,
        )
    }

    /// `self` clamped elementwise to `[min, max]` (tensors broadcast
    /// together), NaN staying NaN, as `torch.clamp`.
    ///
    /// # Errors
    /// PyTorch's broadcast error, or a driver error.
    ///
    /// ```
    /// use shaped::device::Cuda;
    /// use shaped::{Shape, Tensor};
    /// if let Ok(dev) = Cuda::device(0) {
    ///     let x = Tensor::<f32, Shape![3]>::from_vec(vec![-1., 0.5, 2.]).to_device(&dev).unwrap();
    ///     let (lo, hi) = (Tensor::<f32, Shape![]>::full(0.).to_device(&dev).unwrap(), Tensor::<f32, Shape![]>::full(1.).to_device(&dev).unwrap());
    ///     let c: Tensor<f32, Shape![3], Cuda> = x.try_clamp_tensor(&lo, &hi).unwrap();
    ///     assert_eq!(c.to_cpu().unwrap().to_vec(), vec![0., 0.5, 1.]);
    /// }
    /// ```
    pub fn try_clamp_tensor<S1: Shape, S2: Shape>(
        &self,
        min: &Tensor<T, S1, Cuda>,
        max: &Tensor<T, S2, Cuda>,
    ) -> Result<Out3<T, S, S1, S2>, CudaError>
    where
        S: Broadcast3<S1, S2>,
    {
        apply(
            find("clamp"),
            self.operand(),
            &[min.operand(), max.operand()],
            T::default(),
        )
    }

    /// `self` clamped elementwise to `[min, max]`, as `torch.clamp`.
    ///
    /// # Errors
    /// A driver error.
    ///
    /// ```
    /// use shaped::device::Cuda;
    /// use shaped::{Shape, Tensor};
    /// if let Ok(dev) = Cuda::device(0) {
    ///     let x = Tensor::<f32, Shape![3]>::from_vec(vec![-1., 0.5, 2.]).to_device(&dev).unwrap();
    ///     assert_eq!(x.try_clamp(0., 1.).unwrap().to_cpu().unwrap().to_vec(), vec![0., 0.5, 1.]);
    /// }
    /// ```
    pub fn try_clamp(&self, min: T, max: T) -> Result<Tensor<T, S, Cuda>, CudaError> {
        let (lo, hi) = (scalar_on(self, min)?, scalar_on(self, max)?);
        apply(
            find("clamp"),
            self.operand(),
            &[lo.operand(), hi.operand()],
            T::default(),
        )
    }

    /// `self + value * t1 * t2` in place, `t1` and `t2` broadcast to
    /// `self`'s shape, as `Tensor.addcmul_`.
    ///
    /// # Errors
    /// PyTorch's in-place broadcast or output-shape error, the overlap error, or a driver error.
    ///
    /// ```
    /// use shaped::device::Cuda;
    /// use shaped::{Shape, Tensor};
    /// if let Ok(dev) = Cuda::device(0) {
    ///     let mut a = Tensor::<f32, Shape![2, 3]>::zeros().to_device(&dev).unwrap();
    ///     let t = Tensor::<f32, Shape![3]>::from_vec(vec![1., 2., 3.]).to_device(&dev).unwrap();
    ///     a.try_addcmul_(&t, &t, 1.0).unwrap();
    ///     assert_eq!(a.to_cpu().unwrap().to_vec(), vec![1., 4., 9., 1., 4., 9.]);
    /// }
    /// ```
    pub fn try_addcmul_<S1, S2>(
        &mut self,
        t1: &Tensor<T, S1, Cuda>,
        t2: &Tensor<T, S2, Cuda>,
        value: T,
    ) -> Result<(), CudaError>
    where
        S1: ExpandsTo<S>,
        S2: ExpandsTo<S>,
    {
        apply_(find("addcmul"), self, &[t1.operand(), t2.operand()], value)
    }
}

impl<T: Float + CudaElement, S: Shape> Tensor<T, S, Cuda> {
    /// `self + value * t1 / t2`, all three broadcast together, as
    /// `torch.addcdiv`.
    ///
    /// # Errors
    /// PyTorch's broadcast error, or a driver error.
    ///
    /// ```
    /// use shaped::device::Cuda;
    /// use shaped::{Shape, Tensor};
    /// if let Ok(dev) = Cuda::device(0) {
    ///     let a = Tensor::<f32, Shape![3]>::zeros().to_device(&dev).unwrap();
    ///     let t = Tensor::<f32, Shape![3]>::from_vec(vec![1., 2., 4.]).to_device(&dev).unwrap();
    ///     let c: Tensor<f32, Shape![3], Cuda> = a.try_addcdiv(&t, &t, 2.0).unwrap();
    ///     assert_eq!(c.to_cpu().unwrap().to_vec(), vec![2., 2., 2.]);
    /// }
    /// ```
    pub fn try_addcdiv<S1: Shape, S2: Shape>(
        &self,
        t1: &Tensor<T, S1, Cuda>,
        t2: &Tensor<T, S2, Cuda>,
        value: T,
    ) -> Result<Out3<T, S, S1, S2>, CudaError>
    where
        S: Broadcast3<S1, S2>,
    {
        apply(
            find("addcdiv"),
            self.operand(),
            &[t1.operand(), t2.operand()],
            value,
        )
    }

    /// `self + weight * (end - self)` computed as PyTorch's `lerp` kernel,
    /// all three broadcast together.
    ///
    /// # Errors
    /// PyTorch's broadcast error, or a driver error.
    ///
    /// ```
    /// use shaped::device::Cuda;
    /// use shaped::{Shape, Tensor};
    /// if let Ok(dev) = Cuda::device(0) {
    ///     let a = Tensor::<f32, Shape![2]>::from_vec(vec![0., 10.]).to_device(&dev).unwrap();
    ///     let b = Tensor::<f32, Shape![2]>::from_vec(vec![10., 20.]).to_device(&dev).unwrap();
    ///     let w = Tensor::<f32, Shape![]>::full(0.5).to_device(&dev).unwrap();
    ///     let c: Tensor<f32, Shape![2], Cuda> = a.try_lerp(&b, &w).unwrap();
    ///     assert_eq!(c.to_cpu().unwrap().to_vec(), vec![5., 15.]);
    /// }
    /// ```
    pub fn try_lerp<S1: Shape, S2: Shape>(
        &self,
        end: &Tensor<T, S1, Cuda>,
        weight: &Tensor<T, S2, Cuda>,
    ) -> Result<Out3<T, S, S1, S2>, CudaError>
    where
        S: Broadcast3<S1, S2>,
    {
        apply(
            find("lerp"),
            self.operand(),
            &[end.operand(), weight.operand()],
            T::default(),
        )
    }

    /// [`Tensor::try_lerp`] with a scalar weight.
    ///
    /// # Errors
    /// PyTorch's broadcast error, or a driver error.
    ///
    /// ```
    /// use shaped::device::Cuda;
    /// use shaped::{Shape, Tensor};
    /// if let Ok(dev) = Cuda::device(0) {
    ///     let a = Tensor::<f32, Shape![2]>::from_vec(vec![0., 10.]).to_device(&dev).unwrap();
    ///     let b = Tensor::<f32, Shape![2]>::from_vec(vec![10., 20.]).to_device(&dev).unwrap();
    ///     assert_eq!(a.try_lerp_scalar(&b, 0.5).unwrap().to_cpu().unwrap().to_vec(), vec![5., 15.]);
    /// }
    /// ```
    pub fn try_lerp_scalar<S1: Shape>(
        &self,
        end: &Tensor<T, S1, Cuda>,
        weight: T,
    ) -> Result<Tensor<T, Broadcast<S, S1>, Cuda>, CudaError>
    where
        S: BroadcastShape<S1>,
    {
        apply(
            find("lerp_scalar"),
            self.operand(),
            &[end.operand()],
            weight,
        )
    }
}

impl<SC: Shape> Tensor<bool, SC, Cuda> {
    /// `x` where `self` holds, else `y`, all three broadcast together, as
    /// `torch.where(self, x, y)`.
    ///
    /// # Errors
    /// PyTorch's broadcast error, or a driver error.
    ///
    /// ```
    /// use shaped::device::Cuda;
    /// use shaped::{Shape, Tensor};
    /// if let Ok(dev) = Cuda::device(0) {
    ///     let c = Tensor::<bool, Shape![2, 1]>::from_vec(vec![true, false]).to_device(&dev).unwrap();
    ///     let (x, y) = (Tensor::<f32, Shape![2]>::ones().to_device(&dev).unwrap(), Tensor::<f32, Shape![2]>::zeros().to_device(&dev).unwrap());
    ///     let r: Tensor<f32, Shape![2, 2], Cuda> = c.try_where_cond(&x, &y).unwrap();
    ///     assert_eq!(r.to_cpu().unwrap().to_vec(), vec![1., 1., 0., 0.]);
    /// }
    /// ```
    pub fn try_where_cond<T: CudaElement, SX: Shape, SY: Shape>(
        &self,
        x: &Tensor<T, SX, Cuda>,
        y: &Tensor<T, SY, Cuda>,
    ) -> Result<Out3<T, SC, SX, SY>, CudaError>
    where
        SC: Broadcast3<SX, SY>,
    {
        apply(
            find("where"),
            self.operand(),
            &[x.operand(), y.operand()],
            T::default(),
        )
    }
}

macro_rules! operators {
    ($($Trait:ident $method:ident $op:ident $divides:literal $AssignTrait:ident $assign:ident),*) => {$(
        /// Broadcasting, as the matching `torch` function, on the GPU.
        ///
        /// # Panics
        /// With PyTorch's message when a run-time size does not match, or
        /// on a driver error.
        impl<T: Numeric + CudaElement, S: Shape, S2: Shape> core::ops::$Trait<&Tensor<T, S2, Cuda>> for &Tensor<T, S, Cuda>
        where
            S: BroadcastShape<S2>,
        {
            type Output = Tensor<T, Broadcast<S, S2>, Cuda>;
            #[track_caller]
            fn $method(self, rhs: &Tensor<T, S2, Cuda>) -> Self::Output {
                if $divides {
                    check_divisor(rhs).or_panic();
                }
                apply(find(stringify!($op)), self.operand(), &[rhs.operand()], T::default()).or_panic()
            }
        }

        /// Broadcasting, as the matching `torch` function, on the GPU.
        impl<T: Numeric + CudaElement, S: Shape, S2: Shape> core::ops::$Trait<Tensor<T, S2, Cuda>> for Tensor<T, S, Cuda>
        where
            S: BroadcastShape<S2>,
        {
            type Output = Tensor<T, Broadcast<S, S2>, Cuda>;
            #[track_caller]
            fn $method(self, rhs: Tensor<T, S2, Cuda>) -> Self::Output {
                core::ops::$Trait::$method(&self, &rhs)
            }
        }

        /// In place, `rhs` broadcast to `self`'s shape, on the GPU.
        impl<T: Numeric + CudaElement, S: Shape, S2: Shape> core::ops::$AssignTrait<&Tensor<T, S2, Cuda>> for Tensor<T, S, Cuda>
        where
            S2: ExpandsTo<S>,
        {
            #[track_caller]
            fn $assign(&mut self, rhs: &Tensor<T, S2, Cuda>) {
                if $divides {
                    check_divisor(rhs).or_panic();
                }
                apply_(find(stringify!($op)), self, &[rhs.operand()], T::default()).or_panic()
            }
        }
    )*};
}

// `/` is true division for floats and truncating division for integers
// (Rust's and C's `/`), and `%` is `fmod`, as the CPU operators.
operators!(
    Add add add false AddAssign add_assign,
    Sub sub sub false SubAssign sub_assign,
    Mul mul mul false MulAssign mul_assign,
    Div div div_trunc true DivAssign div_assign,
    Rem rem fmod true RemAssign rem_assign
);

macro_rules! scalar_operators {
    ($($t:ty),*) => {$(
        scalar_operators!(@one $t, Add add add false);
        scalar_operators!(@one $t, Sub sub sub false);
        scalar_operators!(@one $t, Mul mul mul false);
        scalar_operators!(@one $t, Div div div_trunc true);
        scalar_operators!(@one $t, Rem rem fmod true);
    )*};
    (@one $t:ty, $Trait:ident $method:ident $op:ident $divides:literal) => {
        /// With a scalar, applied to every element on the GPU.
        ///
        /// # Panics
        /// On an integer division by zero or a driver error.
        impl<S: Shape> core::ops::$Trait<$t> for &Tensor<$t, S, Cuda> {
            type Output = Tensor<$t, S, Cuda>;
            #[track_caller]
            fn $method(self, rhs: $t) -> Tensor<$t, S, Cuda> {
                if $divides && !<$t as Numeric>::IS_FLOAT && rhs == <$t as num_traits::Zero>::zero() {
                    panic!("ZeroDivisionError");
                }
                let s = scalar_on(self, rhs).or_panic();
                apply(find(stringify!($op)), self.operand(), &[s.operand()], <$t>::default()).or_panic()
            }
        }
    };
}
scalar_operators!(f32, f64, i32, i64, u8);

/// `-x` for every element, on the GPU.
impl<T: Signed + CudaElement, S: Shape> core::ops::Neg for &Tensor<T, S, Cuda> {
    type Output = Tensor<T, S, Cuda>;
    #[track_caller]
    fn neg(self) -> Tensor<T, S, Cuda> {
        self.try_neg().or_panic()
    }
}
