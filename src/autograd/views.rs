//! Gradients of views. A view moves elements without changing them, so its
//! gradient moves the upstream gradient back: `expand` sums it to the input's
//! sizes (`sum_to`), `permute` applies the inverse permutation, `reshape`,
//! `unsqueeze` and `squeeze` reshape it back, and `narrow` writes it into a
//! zero tensor of the input's sizes.

use crate::tensor::pointwise;
use smallvec::smallvec;

use crate::shape::OrPanic;

use super::Var;
use super::device::{GradDevice, reshape_to, sum_keepdim, sum_to_like};
use super::graph::{BackwardFn, DynTensor};
use crate::Tensor;
use crate::backend::Backend;
use crate::backend::op::table::Fill;
use crate::element::Float;
use crate::shape::{
    DimVec, DynRank, ExpandsTo, FixedShape, InsertAxis, RemoveAxis, Shape, ShapeError, SwapAxes,
};

/// The backward function of a view of an input of sizes `dims` that only
/// regroups elements (reshape, unsqueeze, squeeze).
fn reshape_backward<T: Float, D: Backend<T>>(dims: DimVec) -> BackwardFn<T, D> {
    Box::new(move |g, _| Ok(smallvec![Some(reshape_to(g, &dims)?)]))
}

/// The backward function of a broadcast of an input of sizes `dims`.
fn expand_backward<T: Float, D: Backend<T>>(dims: DimVec) -> BackwardFn<T, D> {
    Box::new(move |g, _| Ok(smallvec![Some(sum_to_like(g.share(), &dims)?)]))
}

impl<T: Float, S: Shape, D: GradDevice<T>> Var<T, S, D> {
    /// Records a view `value` of `self` with backward function `backward`.
    fn view<S2: Shape>(
        &self,
        value: Tensor<T, S2, D>,
        backward: impl FnOnce() -> BackwardFn<T, D>,
    ) -> Var<T, S2, D> {
        Var::from_op(value, &[Some(&self.node)], backward)
    }

    /// The sizes as a small vector.
    fn dim_vec(&self) -> DimVec {
        DimVec::from_slice(self.dims())
    }

    /// A view with sizes `sizes`, as [`Tensor::expand`]; the gradient is
    /// summed back to this shape.
    ///
    /// # Errors
    /// PyTorch's expand errors, and a mismatch with `S2`.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let b = Var::param(Tensor::<f32, Shape![3, 1]>::ones());
    /// let e = b.expand::<Shape![2, 3, 4]>(&[2, -1, 4]).unwrap();
    /// assert_eq!(e.sum().backward().wrt(&b).unwrap().to_vec(), vec![8.; 3]);
    /// ```
    pub fn expand<S2: Shape>(&self, sizes: &[isize]) -> Result<Var<T, S2, D>, ShapeError>
    where
        S: ExpandsTo<S2>,
    {
        let value = self.value.expand(sizes)?;
        Ok(self.view(value, || expand_backward(self.dim_vec())))
    }

    /// A view broadcast to sizes `dims`, as [`Tensor::try_broadcast_to`].
    ///
    /// # Errors
    /// PyTorch's expand error, or `dims` not fitting `S2`.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{DynRank, Tensor};
    /// let b = Var::param(Tensor::<f32, DynRank>::try_ones(&[3]).unwrap());
    /// let e = b.try_broadcast_to::<DynRank>(&[2, 3]).unwrap();
    /// let g = e.try_sum_dims(&[], false).unwrap().try_backward().unwrap();
    /// assert_eq!(g.wrt(&b).unwrap().to_vec(), vec![2.; 3]);
    /// ```
    pub fn try_broadcast_to<S2: Shape>(&self, dims: &[usize]) -> Result<Var<T, S2, D>, ShapeError>
    where
        S: ExpandsTo<S2>,
    {
        let value = self.value.try_broadcast_to(dims)?;
        Ok(self.view(value, || expand_backward(self.dim_vec())))
    }

    /// A view broadcast to the fixed shape `S2`, as [`Tensor::broadcast_to`].
    ///
    /// # Panics
    /// Only when a `Dyn` size of `self` turns out not to fit.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let b = Var::param(Tensor::<f32, Shape![1, 3]>::ones());
    /// let e: Var<f32, Shape![5, 2, 3]> = b.broadcast_to();
    /// assert_eq!(e.sum().backward().wrt(&b).unwrap().to_vec(), vec![10.; 3]);
    /// ```
    #[track_caller]
    pub fn broadcast_to<S2: FixedShape>(&self) -> Var<T, S2, D>
    where
        S: ExpandsTo<S2>,
    {
        let value = self.value.broadcast_to();
        self.view(value, || expand_backward(self.dim_vec()))
    }

    /// JAX's `broadcast_in_dim`, as [`Tensor::broadcast_in_dim`]: the
    /// gradient sums the new axes and the stretched ones.
    ///
    /// # Errors
    /// As [`Tensor::broadcast_in_dim`].
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let t = Var::param(Tensor::<f32, Shape![3]>::ones());
    /// let b = t.broadcast_in_dim::<Shape![3, 2]>(&[3, 2], &[0]).unwrap();
    /// assert_eq!(b.sum().backward().wrt(&t).unwrap().to_vec(), vec![2.; 3]);
    /// ```
    pub fn broadcast_in_dim<S2: Shape>(
        &self,
        out_dims: &[usize],
        bdims: &[usize],
    ) -> Result<Var<T, S2, D>, ShapeError> {
        let value = self.value.broadcast_in_dim(out_dims, bdims)?;
        let (dims, bdims) = (self.dim_vec(), bdims.to_vec());
        Ok(self.view(value, move || {
            Box::new(move |g: &DynTensor<T, D>, _: &[bool]| {
                // Sum every result axis that is new or stretched.
                let mask: Vec<bool> = (0..g.rank())
                    .map(|j| match bdims.iter().position(|&b| b == j) {
                        None => true,
                        Some(i) => dims[i] == 1 && g.dims()[j] != 1,
                    })
                    .collect();
                let summed = sum_keepdim(g, &mask)?;
                Ok(smallvec![Some(reshape_to(&summed, &dims)?)])
            })
        }))
    }

    /// A view with the axes reordered, as [`Tensor::permute`]; the gradient
    /// is permuted back.
    ///
    /// # Errors
    /// As [`Tensor::permute`].
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let t = Var::param(Tensor::<f64, Shape![2, 3]>::from_vec(vec![1., 2., 3., 4., 5., 6.]));
    /// let w = Var::constant(Tensor::<f64, Shape![3, 2]>::from_vec(vec![1., 2., 3., 4., 5., 6.]));
    /// let p = t.permute::<Shape![3, 2]>(&[1, 0]).unwrap();
    /// let g = p.mul(&w).sum().backward().wrt(&t).unwrap();
    /// assert_eq!(g.to_vec(), vec![1., 3., 5., 2., 4., 6.]);
    /// ```
    pub fn permute<S2: Shape>(&self, perm: &[isize]) -> Result<Var<T, S2, D>, ShapeError> {
        let value = self.value.permute(perm)?;
        let rank = self.value.rank();
        let mut inverse = vec![0isize; rank];
        for (i, &p) in perm.iter().enumerate() {
            inverse[crate::tensor::wrap_dim(p, rank)?] = i as isize;
        }
        Ok(self.view(value, move || {
            Box::new(move |g: &DynTensor<T, D>, _: &[bool]| {
                Ok(smallvec![Some(g.permute::<DynRank>(&inverse)?)])
            })
        }))
    }

    /// A view with axes `I` and `J` swapped, as [`Tensor::transpose`].
    ///
    /// # Panics
    /// For [`DynRank`] values, when an axis is out of range.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let t = Var::param(Tensor::<f32, Shape![2, 3]>::ones());
    /// let u: Var<f32, Shape![3, 2]> = t.transpose::<0, 1>();
    /// assert_eq!(u.sum().backward().wrt(&t).unwrap().dims(), &[2, 3]);
    /// ```
    #[track_caller]
    pub fn transpose<const I: usize, const J: usize>(&self) -> Var<T, S::Output, D>
    where
        S: SwapAxes<I, J>,
    {
        let value = self.value.transpose::<I, J>();
        let mut perm: Vec<isize> = (0..self.value.rank() as isize).collect();
        perm.swap(I, J);
        self.view(value, move || {
            Box::new(move |g: &DynTensor<T, D>, _: &[bool]| {
                Ok(smallvec![Some(g.permute::<DynRank>(&perm)?)])
            })
        })
    }

    /// A view with a size-1 axis inserted before axis `K`.
    ///
    /// # Panics
    /// For [`DynRank`] values, when `K > rank`.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let t = Var::param(Tensor::<f32, Shape![3]>::ones());
    /// let u: Var<f32, Shape![3, 1]> = t.unsqueeze::<1>();
    /// assert_eq!(u.sum().backward().wrt(&t).unwrap().to_vec(), vec![1.; 3]);
    /// ```
    #[track_caller]
    pub fn unsqueeze<const K: usize>(&self) -> Var<T, S::Output, D>
    where
        S: InsertAxis<K>,
    {
        let value = self.value.unsqueeze::<K>();
        self.view(value, || reshape_backward(self.dim_vec()))
    }

    /// A view without axis `K`, which must have size 1.
    ///
    /// # Errors
    /// As [`Tensor::squeeze`].
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let t = Var::param(Tensor::<f32, Shape![3, 1]>::ones());
    /// let s: Var<f32, Shape![3]> = t.squeeze::<1>().unwrap();
    /// assert_eq!(s.sum().backward().wrt(&t).unwrap().dims(), &[3, 1]);
    /// ```
    pub fn squeeze<const K: usize>(&self) -> Result<Var<T, S::Output, D>, ShapeError>
    where
        S: RemoveAxis<K>,
        S::Removed: crate::shape::Squeezable<K>,
    {
        let value = self.value.squeeze::<K>()?;
        Ok(self.view(value, || reshape_backward(self.dim_vec())))
    }

    /// The same elements with sizes `sizes` (one may be `-1`), as
    /// [`Tensor::try_reshape`].
    ///
    /// # Errors
    /// As [`Tensor::try_reshape`].
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let t = Var::param(Tensor::<f32, Shape![2, 3]>::ones());
    /// let r = t.try_reshape::<Shape![3, _]>(&[3, -1]).unwrap();
    /// assert_eq!(r.sum().backward().wrt(&t).unwrap().dims(), &[2, 3]);
    /// ```
    pub fn try_reshape<S2: Shape>(&self, sizes: &[isize]) -> Result<Var<T, S2, D>, D::Error> {
        let value = self.value.try_reshape(sizes)?;
        Ok(self.view(value, || reshape_backward(self.dim_vec())))
    }

    /// `len` elements of axis `dim` from `start`, as [`Tensor::narrow`]; the
    /// gradient is zero outside them.
    ///
    /// # Errors
    /// As [`Tensor::narrow`].
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let t = Var::param(Tensor::<f32, Shape![4]>::ones());
    /// let n = t.narrow::<Shape![2]>(0, 1, 2).unwrap();
    /// assert_eq!(n.sum().backward().wrt(&t).unwrap().to_vec(), vec![0., 1., 1., 0.]);
    /// ```
    pub fn narrow<S2: Shape>(
        &self,
        dim: isize,
        start: usize,
        len: usize,
    ) -> Result<Var<T, S2, D>, ShapeError> {
        let value = self.value.narrow(dim, start, len)?;
        let x = self.erased();
        Ok(self.view(value, move || {
            Box::new(move |g: &DynTensor<T, D>, _: &[bool]| {
                // Zeros of the input's sizes, made on its device.
                let full = pointwise::unary(Fill(T::zero()), &x)?;
                let mut part = full.narrow::<DynRank>(dim, start, len)?;
                part.try_copy_from(g)?;
                Ok(smallvec![Some(full)])
            })
        }))
    }
}

impl<T: Float, S: FixedShape, D: GradDevice<T>> Var<T, S, D> {
    /// The same elements with the fixed shape `S2`, as [`Tensor::reshape`].
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let t = Var::param(Tensor::<f32, Shape![2, 3]>::ones());
    /// let r: Var<f32, Shape![6]> = t.reshape();
    /// assert_eq!(r.sum().backward().wrt(&t).unwrap().dims(), &[2, 3]);
    /// ```
    ///
    /// # Panics
    /// When a copy is needed (a view whose strides do not allow the new
    /// sizes) and the device cannot allocate it.
    #[track_caller]
    pub fn reshape<S2: FixedShape>(&self) -> Var<T, S2, D> {
        let () = crate::shape::const_message::SameNumel::<S, S2>::CHECK;
        let dims = S2::static_sizes().expect("a fixed shape has static sizes");
        let value = reshape_to(&self.value.share().into_dyn(), dims.as_ref())
            .and_then(|v: DynTensor<T, D>| Ok(v.try_into_shape::<S2>()?))
            .or_panic();
        self.view(value, || reshape_backward(self.dim_vec()))
    }
}
