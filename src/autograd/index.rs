//! Gradients of indexing, joining and masked operations. Each backward is
//! the operation `ops::index` pairs with the forward one: `gather` ↔
//! `scatter_add` into zeros, `index_select` ↔ `index_add` into zeros,
//! `take_along_dim` ↔ `scatter_add` on the broadcast shape then `sum_to`,
//! `masked_fill` ↔ the gradient with the masked positions zeroed (then
//! `sum_to`), `cat` ↔ `split_with_sizes`, `select` and `slice` ↔ a copy
//! into the same view of zeros.

use crate::shape::OrPanic;
use crate::tensor::host;
use crate::tensor::pointwise;
use std::ops::Bound;

use smallvec::{SmallVec, smallvec};

use super::Var;
use super::device::{GradDevice, reshape_to};
use super::graph::{BackwardFn, DynTensor};
use super::pointwise::sum_to_like;
use crate::Tensor;
use crate::backend::Backend;
use crate::backend::op::Reduction;
use crate::element::Float;
use crate::ops::index::{AxisRange, IndexElement};
use crate::shape::{
    Broadcast, BroadcastShape, Dim, DimVec, Dyn as DynSize, DynRank, One, RemoveAxis, SetAxis,
    Shape, ShapeError,
};

/// Zeros of sizes `dims` on the device of `like` (a fresh buffer, written
/// into by the rules): an input's sizes, which an expanded input can make
/// too large to allocate (an error, passed on by the rule).
fn zeros<T: Float, D: GradDevice<T>>(
    like: &DynTensor<T, D>,
    dims: &[usize],
) -> Result<DynTensor<T, D>, D::Error> {
    let zero: DynTensor<T, D> = host::from_host(like, vec![T::zero()], &[])?;
    pointwise::copy(&zero.try_broadcast_to::<DynRank>(dims)?)
}

/// The backward function of a view of an input of sizes `dims`: `view`
/// takes the same view of a zero tensor, into which the gradient is copied.
fn into_view_of_zeros<T: Float, D: GradDevice<T>>(
    dims: DimVec,
    view: impl Fn(&DynTensor<T, D>) -> Result<DynTensor<T, D>, ShapeError> + Send + Sync + 'static,
) -> BackwardFn<T, D> {
    Box::new(move |g: &DynTensor<T, D>, _: &[bool]| {
        let full = zeros(g, &dims)?;
        let mut part = view(&full)?;
        part.try_copy_from(g)?;
        Ok(smallvec![Some(full)])
    })
}

/// The gradient of the tensor a masked op writes into: the upstream gradient
/// where `mask` is false (those elements pass through), 0 where it is true,
/// summed back to the tensor's own `dims` (the mask may broadcast it).
fn unmasked_grad<T: Float, D: GradDevice<T>>(
    g: &DynTensor<T, D>,
    mask: &Tensor<bool, DynRank, D>,
    dims: &[usize],
) -> Result<DynTensor<T, D>, D::Error> {
    let r: DynTensor<T, D> = g.try_masked_fill(mask, T::zero())?;
    sum_to_like(r, dims)
}

/// The backward function of `take_along_dim` along axis `k` of an input of
/// sizes `dims`: the gradient added (`scatter_add`) into zeros of the
/// broadcast shape, then summed to `dims`.
fn take_along_dim_backward<T: Float, D: GradDevice<T>, I: IndexElement>(
    k: usize,
    dims: DimVec,
    indices: Tensor<I, DynRank, D>,
) -> BackwardFn<T, D> {
    Box::new(move |g: &DynTensor<T, D>, _: &[bool]| {
        // The broadcast shape: the result's, with the input's size on k.
        let mut bdims = DimVec::from_slice(g.dims());
        bdims[k] = dims[k];
        let mut idims = DimVec::from_slice(g.dims());
        idims[k] = indices.dims()[k];
        let idx = indices.try_broadcast_to::<DynRank>(&idims)?;
        let r = zeros(g, &bdims)?.try_scatter_add(k as isize, &idx, g)?;
        Ok(smallvec![Some(sum_to_like(r, &dims)?)])
    })
}

impl<T: Float, S: Shape, D: GradDevice<T>> Var<T, S, D> {
    /// The elements picked along `dim` by `index`, as [`Tensor::try_gather`];
    /// the gradient is the upstream one added (`scatter_add`) into zeros at
    /// the same positions.
    ///
    /// # Errors
    /// As [`Tensor::try_gather`].
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let t = Var::param(Tensor::<f64, Shape![3]>::from_vec(vec![10., 20., 30.]));
    /// let idx = Tensor::<i64, Shape![4]>::from_vec(vec![2, 2, 0, 1]);
    /// let g = t.try_gather(0, &idx).unwrap();
    /// assert_eq!(g.value().to_vec(), vec![30., 30., 10., 20.]);
    /// assert_eq!(g.sum().backward().wrt(&t).unwrap().to_vec(), vec![1., 1., 2.]);
    /// ```
    pub fn try_gather<I: IndexElement, SI: Shape>(
        &self,
        dim: isize,
        index: &Tensor<I, SI, D>,
    ) -> Result<Var<T, SI, D>, D::Error> {
        let value = self.value.try_gather(dim, index)?;
        let (dims, index) = (DimVec::from_slice(self.dims()), index.share().into_dyn());
        Ok(Var::from_op(value, &[Some(&self.node)], move || {
            Box::new(move |g: &DynTensor<T, D>, _: &[bool]| {
                let r = zeros(g, &dims)?.try_scatter_add(dim, &index, g)?;
                Ok(smallvec![Some(r)])
            })
        }))
    }

    /// [`Var::try_gather`], panicking on error.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_gather`]'s error.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let t = Var::param(Tensor::<f64, Shape![2, 2]>::from_vec(vec![1., 2., 3., 4.]));
    /// let idx = Tensor::<i64, Shape![2, 1]>::from_vec(vec![1, 0]);
    /// let g = t.gather(1, &idx);
    /// assert_eq!(g.value().to_vec(), vec![2., 3.]);
    /// assert_eq!(g.sum().backward().wrt(&t).unwrap().to_vec(), vec![0., 1., 1., 0.]);
    /// ```
    #[track_caller]
    pub fn gather<I: IndexElement, SI: Shape>(
        &self,
        dim: isize,
        index: &Tensor<I, SI, D>,
    ) -> Var<T, SI, D> {
        self.try_gather(dim, index).or_panic()
    }

    /// The slices along axis `K` that `index` picks, as
    /// [`Tensor::try_index_select`]; the gradient is the upstream one added
    /// (`index_add`) into zeros.
    ///
    /// # Errors
    /// As [`Tensor::try_index_select`].
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let t = Var::param(Tensor::<f64, Shape![3, 2]>::ones());
    /// let idx = Tensor::<i64, Shape![3]>::from_vec(vec![2, 0, 2]);
    /// let r: Var<f64, Shape![3, 2]> = t.try_index_select::<0, _, _>(&idx).unwrap();
    /// let g = r.sum().backward().wrt(&t).unwrap();
    /// assert_eq!(g.to_vec(), vec![1., 1., 0., 0., 2., 2.]);
    /// ```
    pub fn try_index_select<const K: usize, I: IndexElement, N: Dim>(
        &self,
        index: &Tensor<I, (N,), D>,
    ) -> Result<Var<T, <S as SetAxis<K, N>>::Output, D>, D::Error>
    where
        S: SetAxis<K, N>,
    {
        let value = self.value.try_index_select::<K, N>(index)?;
        let (dims, index) = (DimVec::from_slice(self.dims()), index.share());
        Ok(Var::from_op(value, &[Some(&self.node)], move || {
            Box::new(move |g: &DynTensor<T, D>, _: &[bool]| {
                let r = zeros(g, &dims)?.try_index_add(K as isize, &index, g)?;
                Ok(smallvec![Some(r)])
            })
        }))
    }

    /// [`Var::try_index_select`], panicking on error.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_index_select`]'s error.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let t = Var::param(Tensor::<f64, Shape![2, 3]>::from_vec(vec![1., 2., 3., 4., 5., 6.]));
    /// let idx = Tensor::<i32, Shape![2]>::from_vec(vec![2, 2]);
    /// let r: Var<f64, Shape![2, 2]> = t.index_select::<1, _, _>(&idx);
    /// assert_eq!(r.value().to_vec(), vec![3., 3., 6., 6.]);
    /// let g = r.sum().backward().wrt(&t).unwrap();
    /// assert_eq!(g.to_vec(), vec![0., 0., 2., 0., 0., 2.]);
    /// ```
    #[track_caller]
    pub fn index_select<const K: usize, I: IndexElement, N: Dim>(
        &self,
        index: &Tensor<I, (N,), D>,
    ) -> Var<T, <S as SetAxis<K, N>>::Output, D>
    where
        S: SetAxis<K, N>,
    {
        self.try_index_select::<K, I, N>(index).or_panic()
    }

    /// The elements picked along axis `K` by `indices`, broadcast together
    /// elsewhere, as [`Tensor::try_take_along_dim`]; the gradient is added
    /// (`scatter_add`) into zeros of the broadcast shape, then summed to
    /// this shape.
    ///
    /// # Errors
    /// As [`Tensor::try_take_along_dim`].
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let t = Var::param(Tensor::<f64, Shape![1, 3]>::from_vec(vec![1., 2., 3.]));
    /// let idx = Tensor::<i64, Shape![2, 1]>::from_vec(vec![2, 0]);
    /// let r: Var<f64, Shape![2, 1]> = t.try_take_along_dim::<1, _, _>(&idx).unwrap();
    /// assert_eq!(r.value().to_vec(), vec![3., 1.]);
    /// assert_eq!(r.sum().backward().wrt(&t).unwrap().to_vec(), vec![1., 0., 1.]);
    /// ```
    #[allow(clippy::type_complexity)]
    pub fn try_take_along_dim<const K: usize, I: IndexElement, SI: Shape>(
        &self,
        indices: &Tensor<I, SI, D>,
    ) -> Result<Var<T, Broadcast<<S as SetAxis<K, One>>::Output, SI>, D>, D::Error>
    where
        S: SetAxis<K, One>,
        <S as SetAxis<K, One>>::Output: BroadcastShape<SI>,
    {
        let value = self.value.try_take_along_dim::<K, SI>(indices)?;
        let (dims, indices) = (DimVec::from_slice(self.dims()), indices.share().into_dyn());
        Ok(Var::from_op(value, &[Some(&self.node)], move || {
            take_along_dim_backward(K, dims, indices)
        }))
    }

    /// [`Var::try_take_along_dim`], panicking on error.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_take_along_dim`]'s error.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let t = Var::param(Tensor::<f64, Shape![2, 2]>::from_vec(vec![3., 1., 2., 9.]));
    /// let arg = Tensor::<i64, Shape![2, 1]>::from_vec(vec![0, 1]);
    /// let m: Var<f64, Shape![2, 1]> = t.take_along_dim::<1, _, _>(&arg);
    /// assert_eq!(m.sum().backward().wrt(&t).unwrap().to_vec(), vec![1., 0., 0., 1.]);
    /// ```
    #[track_caller]
    #[allow(clippy::type_complexity)]
    pub fn take_along_dim<const K: usize, I: IndexElement, SI: Shape>(
        &self,
        indices: &Tensor<I, SI, D>,
    ) -> Var<T, Broadcast<<S as SetAxis<K, One>>::Output, SI>, D>
    where
        S: SetAxis<K, One>,
        <S as SetAxis<K, One>>::Output: BroadcastShape<SI>,
    {
        self.try_take_along_dim::<K, I, SI>(indices).or_panic()
    }

    /// This value with the elements where `mask` holds set to `value`, the
    /// two broadcast together, as [`Tensor::try_masked_fill`]; the gradient
    /// is the upstream one with the masked positions zeroed, summed to this
    /// shape.
    ///
    /// # Errors
    /// As [`Tensor::try_masked_fill`].
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let t = Var::param(Tensor::<f64, Shape![3]>::from_vec(vec![1., 2., 3.]));
    /// let m = Tensor::<bool, Shape![2, 1]>::from_vec(vec![true, false]);
    /// let r: Var<f64, Shape![2, 3]> = t.try_masked_fill(&m, 0.).unwrap();
    /// assert_eq!(r.value().to_vec(), vec![0., 0., 0., 1., 2., 3.]);
    /// assert_eq!(r.sum().backward().wrt(&t).unwrap().to_vec(), vec![1., 1., 1.]);
    /// ```
    pub fn try_masked_fill<SM: Shape>(
        &self,
        mask: &Tensor<bool, SM, D>,
        value: T,
    ) -> Result<Var<T, Broadcast<S, SM>, D>, D::Error>
    where
        S: BroadcastShape<SM>,
    {
        let out = self.value.try_masked_fill(mask, value)?;
        let (dims, mask) = (DimVec::from_slice(self.dims()), mask.share().into_dyn());
        Ok(Var::from_op(out, &[Some(&self.node)], move || {
            Box::new(move |g: &DynTensor<T, D>, _: &[bool]| {
                Ok(smallvec![Some(unmasked_grad(g, &mask, &dims)?)])
            })
        }))
    }

    /// [`Var::try_masked_fill`], panicking on error.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_masked_fill`]'s error.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let t = Var::param(Tensor::<f64, Shape![2]>::from_vec(vec![1., 2.]));
    /// let m = Tensor::<bool, Shape![2]>::from_vec(vec![false, true]);
    /// let r = t.masked_fill(&m, -1.);
    /// assert_eq!(r.value().to_vec(), vec![1., -1.]);
    /// assert_eq!(r.sum().backward().wrt(&t).unwrap().to_vec(), vec![1., 0.]);
    /// ```
    #[track_caller]
    pub fn masked_fill<SM: Shape>(
        &self,
        mask: &Tensor<bool, SM, D>,
        value: T,
    ) -> Var<T, Broadcast<S, SM>, D>
    where
        S: BroadcastShape<SM>,
    {
        self.try_masked_fill(mask, value).or_panic()
    }

    /// The elements picked by `indices` along an axis given at run time, as
    /// [`Tensor::try_take_along_dim_at`]; the gradient as
    /// [`Var::try_take_along_dim`]'s.
    ///
    /// # Errors
    /// As [`Tensor::try_take_along_dim_at`].
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let t = Var::param(Tensor::<f64, Shape![1, 3]>::from_vec(vec![1., 2., 3.]));
    /// let idx = Tensor::<i64, Shape![2, 1]>::from_vec(vec![2, 0]);
    /// let r = t.try_take_along_dim_at(-1, &idx).unwrap();
    /// assert_eq!(r.value().to_vec(), vec![3., 1.]);
    /// assert_eq!(r.sum().backward().wrt(&t).unwrap().to_vec(), vec![1., 0., 1.]);
    /// ```
    pub fn try_take_along_dim_at<I: IndexElement>(
        &self,
        dim: isize,
        indices: &Tensor<I, impl Shape, D>,
    ) -> Result<Var<T, DynRank, D>, D::Error> {
        let value = self.value.try_take_along_dim_at(dim, indices)?;
        let k = crate::tensor::wrap_dim(dim, self.value.rank())?;
        let (dims, indices) = (DimVec::from_slice(self.dims()), indices.share().into_dyn());
        Ok(Var::from_op(value, &[Some(&self.node)], move || {
            take_along_dim_backward(k, dims, indices)
        }))
    }

    /// [`Var::try_take_along_dim_at`], panicking on error.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_take_along_dim_at`]'s error.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let t = Var::param(Tensor::<f64, Shape![2]>::from_vec(vec![5., 6.]));
    /// let idx = Tensor::<i64, Shape![3]>::from_vec(vec![1, 1, 0]);
    /// let r = t.take_along_dim_at(0, &idx);
    /// assert_eq!(r.sum().backward().wrt(&t).unwrap().to_vec(), vec![1., 2.]);
    /// ```
    #[track_caller]
    pub fn take_along_dim_at<I: IndexElement>(
        &self,
        dim: isize,
        indices: &Tensor<I, impl Shape, D>,
    ) -> Var<T, DynRank, D> {
        self.try_take_along_dim_at(dim, indices).or_panic()
    }

    /// The elements of this value flattened, picked by `indices` flattened,
    /// as [`Tensor::try_take_along_dim_flat`]; the gradient is added
    /// (`scatter_add`) into zeros at the picked positions.
    ///
    /// # Errors
    /// As [`Tensor::try_take_along_dim_flat`].
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let t = Var::param(Tensor::<f64, Shape![2, 2]>::from_vec(vec![1., 2., 3., 4.]));
    /// let idx = Tensor::<i64, Shape![3]>::from_vec(vec![3, 0, 3]);
    /// let r = t.try_take_along_dim_flat(&idx).unwrap();
    /// assert_eq!(r.value().to_vec(), vec![4., 1., 4.]);
    /// assert_eq!(r.sum().backward().wrt(&t).unwrap().to_vec(), vec![1., 0., 0., 2.]);
    /// ```
    pub fn try_take_along_dim_flat<I: IndexElement>(
        &self,
        indices: &Tensor<I, impl Shape, D>,
    ) -> Result<Var<T, (DynSize,), D>, D::Error>
    where
        D: Backend<I>,
    {
        let value = self.value.try_take_along_dim_flat(indices)?;
        let dims = DimVec::from_slice(self.dims());
        let flat: Tensor<I, DynRank, D> = indices.try_reshape(&[-1])?;
        Ok(Var::from_op(value, &[Some(&self.node)], move || {
            Box::new(move |g: &DynTensor<T, D>, _: &[bool]| {
                let n = dims.iter().product::<usize>();
                let r = zeros(g, &[n])?.try_scatter_add(0, &flat, g)?;
                Ok(smallvec![Some(reshape_to(&r, &dims)?)])
            })
        }))
    }

    /// [`Var::try_take_along_dim_flat`], panicking on error.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_take_along_dim_flat`]'s error.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let t = Var::param(Tensor::<f64, Shape![2]>::from_vec(vec![1., 2.]));
    /// let r = t.take_along_dim_flat(&Tensor::<i64, Shape![1]>::from_vec(vec![1]));
    /// assert_eq!(r.sum().backward().wrt(&t).unwrap().to_vec(), vec![0., 1.]);
    /// ```
    #[track_caller]
    pub fn take_along_dim_flat<I: IndexElement>(
        &self,
        indices: &Tensor<I, impl Shape, D>,
    ) -> Var<T, (DynSize,), D>
    where
        D: Backend<I>,
    {
        self.try_take_along_dim_flat(indices).or_panic()
    }

    /// This value and `mask` broadcast together, with the elements of
    /// `source` copied in where the mask holds, as
    /// [`Tensor::try_masked_scatter`]. The gradient of this value is the
    /// upstream one with the masked positions zeroed (summed to this shape);
    /// `source`'s is the upstream gradient at the masked positions, in
    /// order, and 0 for the elements not used.
    ///
    /// # Errors
    /// As [`Tensor::try_masked_scatter`].
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let t = Var::param(Tensor::<f64, Shape![3]>::from_vec(vec![1., 2., 3.]));
    /// let src = Var::param(Tensor::<f64, Shape![3]>::from_vec(vec![7., 8., 9.]));
    /// let m = Tensor::<bool, Shape![3]>::from_vec(vec![false, true, true]);
    /// let r = t.try_masked_scatter(&m, &src).unwrap();
    /// assert_eq!(r.value().to_vec(), vec![1., 7., 8.]);
    /// let g = r.sum().backward();
    /// assert_eq!(g.wrt(&t).unwrap().to_vec(), vec![1., 0., 0.]);
    /// assert_eq!(g.wrt(&src).unwrap().to_vec(), vec![1., 1., 0.]);
    /// ```
    pub fn try_masked_scatter<SM: Shape, SS: Shape>(
        &self,
        mask: &Tensor<bool, SM, D>,
        source: &Var<T, SS, D>,
    ) -> Result<Var<T, Broadcast<S, SM>, D>, D::Error>
    where
        S: BroadcastShape<SM>,
        D: Backend<i64>,
    {
        let out = self.value.try_masked_scatter(mask, &source.value)?;
        let (dims, sdims) = (
            DimVec::from_slice(self.dims()),
            DimVec::from_slice(source.dims()),
        );
        let mask = mask.share().into_dyn();
        let parents = [Some(&self.node), Some(&source.node)];
        Ok(Var::from_op(out, &parents, move || {
            Box::new(move |g: &DynTensor<T, D>, needs: &[bool]| {
                let gs = needs[0]
                    .then(|| unmasked_grad(g, &mask, &dims))
                    .transpose()?;
                let gsrc = needs[1]
                    .then(|| {
                        // The masked elements in order, then zeros for the
                        // source elements no position took.
                        let picked = g.try_masked_select(&mask)?;
                        let rest = sdims.iter().product::<usize>() - picked.numel();
                        let pad: Tensor<T, (DynSize,), D> =
                            zeros(g, &[rest])?.try_reshape(&[rest as isize])?;
                        let all = Tensor::try_cat::<0>(&[&picked, &pad])?;
                        reshape_to(&all.into_dyn(), &sdims)
                    })
                    .transpose()?;
                Ok(smallvec![gs, gsrc])
            })
        }))
    }

    /// [`Var::try_masked_scatter`], panicking on error.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_masked_scatter`]'s error.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let t = Var::param(Tensor::<f64, Shape![2]>::zeros());
    /// let src = Var::param(Tensor::<f64, Shape![1]>::from_vec(vec![5.]));
    /// let r = t.masked_scatter(&Tensor::<bool, Shape![2]>::from_vec(vec![true, false]), &src);
    /// assert_eq!(r.value().to_vec(), vec![5., 0.]);
    /// ```
    #[track_caller]
    pub fn masked_scatter<SM: Shape, SS: Shape>(
        &self,
        mask: &Tensor<bool, SM, D>,
        source: &Var<T, SS, D>,
    ) -> Var<T, Broadcast<S, SM>, D>
    where
        S: BroadcastShape<SM>,
        D: Backend<i64>,
    {
        self.try_masked_scatter(mask, source).or_panic()
    }

    /// [`Var::try_masked_fill`] with the value a 0-d `Var`, as
    /// [`Tensor::try_masked_fill_tensor`]; the value's gradient is the sum
    /// of the upstream gradient where the mask holds.
    ///
    /// # Errors
    /// As [`Tensor::try_masked_fill_tensor`].
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let t = Var::param(Tensor::<f64, Shape![3]>::from_vec(vec![1., 2., 3.]));
    /// let v = Var::param(Tensor::<f64, Shape![]>::full(-1.));
    /// let m = Tensor::<bool, Shape![3]>::from_vec(vec![true, false, true]);
    /// let r = t.try_masked_fill_tensor(&m, &v).unwrap();
    /// assert_eq!(r.value().to_vec(), vec![-1., 2., -1.]);
    /// let g = r.sum().backward();
    /// assert_eq!(g.wrt(&v).unwrap().to_vec(), vec![2.]);
    /// ```
    pub fn try_masked_fill_tensor<SM: Shape, SV: Shape>(
        &self,
        mask: &Tensor<bool, SM, D>,
        value: &Var<T, SV, D>,
    ) -> Result<Var<T, Broadcast<S, SM>, D>, D::Error>
    where
        S: BroadcastShape<SM>,
    {
        let out = self.value.try_masked_fill_tensor(mask, &value.value)?;
        let dims = DimVec::from_slice(self.dims());
        let mask = mask.share().into_dyn();
        let parents = [Some(&self.node), Some(&value.node)];
        Ok(Var::from_op(out, &parents, move || {
            Box::new(move |g: &DynTensor<T, D>, needs: &[bool]| {
                let gs = needs[0]
                    .then(|| unmasked_grad(g, &mask, &dims))
                    .transpose()?;
                let gv = needs[1]
                    .then(|| {
                        let picked = g.try_masked_select(&mask)?.into_dyn();
                        crate::tensor::reduction::reduce(Reduction::Sum, &picked, &[true], false)
                    })
                    .transpose()?;
                Ok(smallvec![gs, gv])
            })
        }))
    }

    /// [`Var::try_masked_fill_tensor`], panicking on error.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_masked_fill_tensor`]'s error.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let t = Var::param(Tensor::<f64, Shape![2]>::from_vec(vec![1., 2.]));
    /// let v = Var::param(Tensor::<f64, Shape![]>::full(0.));
    /// let r = t.masked_fill_tensor(&Tensor::<bool, Shape![2]>::from_vec(vec![false, true]), &v);
    /// assert_eq!(r.value().to_vec(), vec![1., 0.]);
    /// ```
    #[track_caller]
    pub fn masked_fill_tensor<SM: Shape, SV: Shape>(
        &self,
        mask: &Tensor<bool, SM, D>,
        value: &Var<T, SV, D>,
    ) -> Var<T, Broadcast<S, SM>, D>
    where
        S: BroadcastShape<SM>,
    {
        self.try_masked_fill_tensor(mask, value).or_panic()
    }

    /// The values laid one after the other along axis `K`, as
    /// [`Tensor::try_cat`]; each gradient is its part of the upstream one
    /// (`split_with_sizes`).
    ///
    /// # Errors
    /// As [`Tensor::try_cat`].
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let a = Var::param(Tensor::<f64, Shape![2]>::from_vec(vec![1., 2.]));
    /// let b = Var::param(Tensor::<f64, Shape![2]>::from_vec(vec![3., 4.]));
    /// let c: Var<f64, Shape![_]> = Var::try_cat::<0>(&[&a, &b]).unwrap();
    /// assert_eq!(c.value().to_vec(), vec![1., 2., 3., 4.]);
    /// let g = c.mul(&c).sum().backward();
    /// assert_eq!(g.wrt(&b).unwrap().to_vec(), vec![6., 8.]);
    /// ```
    pub fn try_cat<const K: usize>(
        vars: &[&Var<T, S, D>],
    ) -> Result<Var<T, <S as SetAxis<K, DynSize>>::Output, D>, D::Error>
    where
        S: SetAxis<K, DynSize>,
    {
        let values: Vec<&Tensor<T, S, D>> = vars.iter().map(|v| &v.value).collect();
        let value = Tensor::try_cat::<K>(&values)?;
        let sizes: Vec<usize> = vars.iter().map(|v| v.dims()[K]).collect();
        let parents: Vec<_> = vars.iter().map(|v| Some(&v.node)).collect();
        Ok(Var::from_op(value, &parents, move || {
            Box::new(move |g: &DynTensor<T, D>, needs: &[bool]| {
                let parts = g.try_split_with_sizes::<K>(&sizes)?;
                Ok(parts
                    .into_iter()
                    .zip(needs)
                    .map(|(p, &n)| n.then_some(p))
                    .collect::<SmallVec<_>>())
            })
        }))
    }

    /// [`Var::try_cat`], panicking on error.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_cat`]'s error.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let a = Var::param(Tensor::<f64, Shape![1, 2]>::from_vec(vec![1., 2.]));
    /// let c: Var<f64, Shape![1, _]> = Var::cat::<1>(&[&a, &a]);
    /// assert_eq!(c.sum().backward().wrt(&a).unwrap().to_vec(), vec![2., 2.]);
    /// ```
    #[track_caller]
    pub fn cat<const K: usize>(
        vars: &[&Var<T, S, D>],
    ) -> Var<T, <S as SetAxis<K, DynSize>>::Output, D>
    where
        S: SetAxis<K, DynSize>,
    {
        Self::try_cat::<K>(vars).or_panic()
    }

    /// The view at position `index` of axis `K`, as [`Tensor::try_select`];
    /// the gradient is zero elsewhere.
    ///
    /// # Errors
    /// As [`Tensor::try_select`].
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let t = Var::param(Tensor::<f64, Shape![3, 2]>::ones());
    /// let r: Var<f64, Shape![2]> = t.try_select::<0>(-1).unwrap();
    /// let g = r.sum().backward().wrt(&t).unwrap();
    /// assert_eq!(g.to_vec(), vec![0., 0., 0., 0., 1., 1.]);
    /// ```
    pub fn try_select<const K: usize>(&self, index: isize) -> Result<Var<T, S::Output, D>, D::Error>
    where
        S: RemoveAxis<K>,
    {
        let value = self.value.try_select::<K>(index)?;
        let dims = DimVec::from_slice(self.dims());
        Ok(Var::from_op(value, &[Some(&self.node)], move || {
            into_view_of_zeros(dims, move |z| z.try_select::<K>(index))
        }))
    }

    /// [`Var::try_select`], panicking on error.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_select`]'s error.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let t = Var::param(Tensor::<f64, Shape![2, 2]>::ones());
    /// let c: Var<f64, Shape![2]> = t.select::<1>(0);
    /// assert_eq!(c.sum().backward().wrt(&t).unwrap().to_vec(), vec![1., 0., 1., 0.]);
    /// ```
    #[track_caller]
    pub fn select<const K: usize>(&self, index: isize) -> Var<T, S::Output, D>
    where
        S: RemoveAxis<K>,
    {
        self.try_select::<K>(index).or_panic()
    }

    /// The view of every `step`-th position of `range` on axis `K`, as
    /// [`Tensor::try_slice_step`]; the gradient is zero elsewhere.
    ///
    /// # Errors
    /// As [`Tensor::try_slice_step`].
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let t = Var::param(Tensor::<f64, Shape![5]>::ones());
    /// let s: Var<f64, Shape![_]> = t.try_slice_step::<0>(1.., 2).unwrap();
    /// let g = s.sum().backward().wrt(&t).unwrap();
    /// assert_eq!(g.to_vec(), vec![0., 1., 0., 1., 0.]);
    /// ```
    pub fn try_slice_step<const K: usize>(
        &self,
        range: impl AxisRange,
        step: usize,
    ) -> Result<Var<T, <S as SetAxis<K, DynSize>>::Output, D>, D::Error>
    where
        S: SetAxis<K, DynSize>,
    {
        let bounds: (Bound<isize>, Bound<isize>) = range.bounds();
        let value = self.value.try_slice_step::<K>(bounds, step)?;
        let dims = DimVec::from_slice(self.dims());
        Ok(Var::from_op(value, &[Some(&self.node)], move || {
            into_view_of_zeros(dims, move |z| z.try_slice_step::<K>(bounds, step))
        }))
    }

    /// The view of the positions `range` of axis `K`, as
    /// [`Tensor::try_slice`]; the gradient is zero elsewhere.
    ///
    /// # Errors
    /// As [`Tensor::try_slice`].
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let t = Var::param(Tensor::<f64, Shape![2, 3]>::ones());
    /// let s: Var<f64, Shape![2, _]> = t.try_slice::<1>(..2).unwrap();
    /// let g = s.sum().backward().wrt(&t).unwrap();
    /// assert_eq!(g.to_vec(), vec![1., 1., 0., 1., 1., 0.]);
    /// ```
    pub fn try_slice<const K: usize>(
        &self,
        range: impl AxisRange,
    ) -> Result<Var<T, <S as SetAxis<K, DynSize>>::Output, D>, D::Error>
    where
        S: SetAxis<K, DynSize>,
    {
        self.try_slice_step::<K>(range, 1)
    }

    /// [`Var::try_slice`], panicking on error.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_slice`]'s error.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let t = Var::param(Tensor::<f64, Shape![4]>::ones());
    /// let s: Var<f64, Shape![_]> = t.slice::<0>(-2..);
    /// assert_eq!(s.sum().backward().wrt(&t).unwrap().to_vec(), vec![0., 0., 1., 1.]);
    /// ```
    #[track_caller]
    pub fn slice<const K: usize>(
        &self,
        range: impl AxisRange,
    ) -> Var<T, <S as SetAxis<K, DynSize>>::Output, D>
    where
        S: SetAxis<K, DynSize>,
    {
        self.try_slice::<K>(range).or_panic()
    }
}
