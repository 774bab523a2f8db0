//! `Var`: a tensor and, when it needs a gradient, its node in the graph.

use crate::tensor::pointwise;
use std::collections::HashMap;
use std::sync::Arc;

use super::device::GradDevice;
use super::graph::{self, DynTensor, GraphNode};
use crate::Tensor;
use crate::backend::Backend;
use crate::backend::op::table::Fill;
use crate::device::{Cpu, Device};
use crate::element::Float;
use crate::shape::{DynRank, OrPanic, Shape, ShapeError};

/// A tensor that records the operations applied to it, so that gradients can
/// flow back to the parameters it came from.
///
/// A `Var` made with [`Var::param`] needs a gradient; one made with
/// [`Var::constant`] does not, and neither does any result computed only
/// from constants: such results carry no graph node and cost nothing beyond
/// the tensor operation itself.
///
/// ```
/// use shaped::autograd::Var;
/// use shaped::{Shape, Tensor};
/// let w = Var::param(Tensor::<f64, Shape![3]>::from_vec(vec![1., 2., 3.]));
/// let x = Var::constant(Tensor::<f64, Shape![2, 1]>::from_vec(vec![10., 20.]));
/// let loss = w.mul(&x).sum();
/// let grads = loss.backward();
/// let gw: Tensor<f64, Shape![3]> = grads.wrt(&w).unwrap();
/// assert_eq!(gw.to_vec(), vec![30., 30., 30.]);
/// ```
///
/// The device `D` is the value's: a `Var<f32, S, Cuda>` records and
/// back-propagates on the GPU (its gradients stay there): every rule is
/// written once for every [`GradDevice`] (see the
/// [module notes](crate::autograd)).
///
/// ```
/// use shaped::autograd::Var;
/// use shaped::device::Cpu;
/// use shaped::{Shape, Tensor};
/// // `D` defaults to the CPU.
/// let v: Var<f32, Shape![2], Cpu> = Var::param(Tensor::<f32, Shape![2]>::ones());
/// assert!(v.requires_grad());
/// ```
pub struct Var<T: Float, S: Shape, D: Device = Cpu> {
    pub(crate) value: Tensor<T, S, D>,
    /// Every value has a node: a constant's watches its storage for writes
    /// (see [`GraphNode`]).
    pub(crate) node: Arc<GraphNode<T, D>>,
}

impl<T: Float, S: Shape, D: Device> core::fmt::Debug for Var<T, S, D>
where
    Tensor<T, S, D>: core::fmt::Debug,
{
    /// The value, and whether a gradient flows to it, as PyTorch prints a
    /// tensor with `requires_grad=True`.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let v = Var::param(Tensor::<f32, Shape![2]>::ones());
    /// assert!(format!("{v:?}").ends_with("requires_grad: true }"));
    /// ```
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Var")
            .field("value", &self.value)
            .field("requires_grad", &self.node.requires_grad)
            .finish()
    }
}

impl<T: Float, S: Shape, D: Device> Clone for Var<T, S, D> {
    /// Another handle on the same value and graph node.
    fn clone(&self) -> Self {
        Var {
            value: self.value.share(),
            node: self.node.clone(),
        }
    }
}

impl<T: Float, S: Shape, D: Device> Var<T, S, D> {
    /// A parameter: a leaf whose gradient [`Gradients::wrt`] returns.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// assert!(Var::param(Tensor::<f32, Shape![2]>::zeros()).requires_grad());
    /// ```
    pub fn param(value: Tensor<T, S, D>) -> Self {
        let node = GraphNode::leaf(&value, true);
        Var { value, node }
    }

    /// A value that needs no gradient.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// assert!(!Var::constant(Tensor::<f32, Shape![2]>::zeros()).requires_grad());
    /// ```
    pub fn constant(value: Tensor<T, S, D>) -> Self {
        let node = GraphNode::leaf(&value, false);
        Var { value, node }
    }

    /// The value.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let v = Var::constant(Tensor::<f32, Shape![2]>::ones());
    /// assert_eq!(v.value().to_vec(), vec![1., 1.]);
    /// ```
    pub fn value(&self) -> &Tensor<T, S, D> {
        &self.value
    }

    /// The value, without the graph.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let t: Tensor<f32, Shape![2]> = Var::param(Tensor::ones()).into_value();
    /// assert_eq!(t.dims(), &[2]);
    /// ```
    pub fn into_value(self) -> Tensor<T, S, D> {
        self.value
    }

    /// The sizes of the value.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// assert_eq!(Var::constant(Tensor::<f32, Shape![2, 3]>::zeros()).dims(), &[2, 3]);
    /// ```
    pub fn dims(&self) -> &[usize] {
        self.value.dims()
    }

    /// Whether gradients flow through this value.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let p = Var::param(Tensor::<f32, Shape![2]>::ones());
    /// let c = Var::constant(Tensor::<f32, Shape![2]>::ones());
    /// assert!(p.add(&c).requires_grad());
    /// assert!(!c.add(&c).requires_grad());
    /// ```
    pub fn requires_grad(&self) -> bool {
        self.node.requires_grad
    }

    /// The same value as a constant, cut from the graph (PyTorch's
    /// `detach`).
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let p = Var::param(Tensor::<f32, Shape![2]>::ones());
    /// assert!(!p.exp().detach().requires_grad());
    /// ```
    pub fn detach(&self) -> Self {
        Var::constant(self.value.share())
    }

    /// The same value with its rank known only at run time; gradients flow
    /// through it (the graph node is shared, so [`Gradients::wrt`] gives a
    /// parameter's gradient through either view).
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{DynRank, Shape, Tensor};
    /// let p = Var::param(Tensor::<f32, Shape![2]>::ones());
    /// let d: Var<f32, DynRank> = p.into_dyn();
    /// assert_eq!(d.dims(), &[2]);
    /// assert!(d.requires_grad());
    /// ```
    pub fn into_dyn(&self) -> Var<T, DynRank, D> {
        Var {
            value: self.value.share().into_dyn(),
            node: self.node.clone(),
        }
    }

    /// The same value seen with shape type `S2`, checked at run time (the
    /// inverse of [`Var::into_dyn`]).
    ///
    /// # Errors
    /// When the sizes do not fit `S2` (rank, or a static size).
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{DynRank, Shape, Tensor};
    /// let d = Var::param(Tensor::<f32, DynRank>::try_zeros(&[2, 3]).unwrap());
    /// let s: Var<f32, Shape![2, 3]> = d.try_into_shape().unwrap();
    /// assert!(d.try_into_shape::<Shape![3, 2]>().is_err());
    /// let g = s.sum().backward();
    /// assert_eq!(g.wrt(&d).unwrap().dims(), &[2, 3]);
    /// ```
    pub fn try_into_shape<S2: Shape>(&self) -> Result<Var<T, S2, D>, ShapeError> {
        Ok(Var {
            value: self.value.try_into_shape()?,
            node: self.node.clone(),
        })
    }

    /// The value with its shape type erased, for backward functions.
    pub(crate) fn erased(&self) -> DynTensor<T, D> {
        self.value.share().into_dyn()
    }

    /// Wraps the result `value` of an operation on inputs with graph nodes
    /// `parents`; `backward` is built only when some input needs a gradient.
    pub(crate) fn from_op(
        value: Tensor<T, S, D>,
        parents: &[Option<&Arc<GraphNode<T, D>>>],
        backward: impl FnOnce() -> graph::BackwardFn<T, D>,
    ) -> Self {
        let node = graph::record(&value, parents, backward);
        Var { value, node }
    }
}

impl<T: Float, S: Shape, D: GradDevice<T>> Var<T, S, D> {
    /// Backpropagates from this value with upstream gradient `seed` (of
    /// this value's sizes).
    ///
    /// # Errors
    /// When `seed`'s sizes differ from the value's, and the error of a
    /// backward rule that cannot form its gradient (a buffer too large to
    /// allocate, for one).
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f64, Shape![2]>::from_vec(vec![1., 2.]));
    /// let y = x.square();
    /// let seed = Tensor::<f64, Shape![2]>::from_vec(vec![1., 10.]);
    /// let g = y.try_backward_with(&seed).unwrap().wrt(&x).unwrap();
    /// assert_eq!(g.to_vec(), vec![2., 40.]);
    /// ```
    pub fn try_backward_with(&self, seed: &Tensor<T, S, D>) -> Result<Gradients<T, D>, D::Error> {
        if seed.dims() != self.dims() {
            return Err(ShapeError::Invalid(format!(
                "Mismatch in shape: grad_output[0] has a shape of {:?} and output[0] has a shape of {:?}.",
                seed.dims(),
                self.dims()
            ))
            .into());
        }
        let grads = if self.node.requires_grad {
            graph::backward(&self.node, seed.share().into_dyn())?
        } else {
            HashMap::new()
        };
        Ok(Gradients { grads })
    }
}

impl<T: Float> Var<T, ()> {
    /// The value of a 0-d variable, as PyTorch's `loss.item()`.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f64, Shape![2]>::from_vec(vec![1., 2.]));
    /// assert_eq!(x.sum().item(), 3.);
    /// ```
    pub fn item(&self) -> T {
        self.value.item()
    }
}

impl<T: Float, D: GradDevice<T>> Var<T, (), D> {
    /// Backpropagates from this scalar (its gradient is 1), as PyTorch's
    /// `loss.backward()`; only a 0-d value has this method, so the seed's
    /// shape is never in doubt.
    ///
    /// # Panics
    /// With the error of a backward rule that cannot form its gradient (see
    /// [`Var::try_backward_with`]), at the caller's line.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f32, Shape![2]>::from_vec(vec![1., 2.]));
    /// let g = x.square().sum().backward();
    /// assert_eq!(g.wrt(&x).unwrap().to_vec(), vec![2., 4.]);
    /// ```
    #[track_caller]
    pub fn backward(&self) -> Gradients<T, D> {
        self.try_backward().or_panic()
    }

    /// [`Var::backward`], returning the error of a backward rule that
    /// cannot form its gradient (a driver error, an allocation too large).
    ///
    /// # Errors
    /// As [`Var::try_backward_with`].
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f32, Shape![2]>::from_vec(vec![1., 2.]));
    /// let g = x.square().sum().try_backward().unwrap();
    /// assert_eq!(g.wrt(&x).unwrap().to_vec(), vec![2., 4.]);
    /// ```
    pub fn try_backward(&self) -> Result<Gradients<T, D>, D::Error> {
        // The seed 1, made on the value's device.
        let seed = pointwise::unary(Fill(T::one()), &self.value)?;
        self.try_backward_with(&seed)
    }
}

impl<T: Float, D: GradDevice<T>> Var<T, DynRank, D> {
    /// Backpropagates from this value, which must hold one element, as
    /// PyTorch's `backward()`.
    ///
    /// # Errors
    /// PyTorch's error when the value has more than one element; as
    /// [`Var::try_backward_with`] otherwise.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{DynRank, Tensor};
    /// let x = Var::param(Tensor::<f64, DynRank>::try_ones(&[3]).unwrap());
    /// assert!(x.try_backward().is_err());
    /// let g = x.try_sum_dims(&[0], true).unwrap().try_backward().unwrap();
    /// assert_eq!(g.wrt(&x).unwrap().to_vec(), vec![1., 1., 1.]);
    /// ```
    pub fn try_backward(&self) -> Result<Gradients<T, D>, D::Error> {
        if self.value.numel() != 1 {
            return Err(ShapeError::Invalid(
                "grad can be implicitly created only for scalar outputs".into(),
            )
            .into());
        }
        let seed = pointwise::unary(Fill(T::one()), &self.value)?;
        self.try_backward_with(&seed)
    }
}

/// The gradients of one backward pass, by parameter.
///
/// ```
/// use shaped::autograd::Var;
/// use shaped::{Shape, Tensor};
/// let a = Var::param(Tensor::<f32, Shape![2]>::ones());
/// let b = Var::param(Tensor::<f32, Shape![2]>::ones());
/// let g = a.exp().sum().backward();
/// assert!(g.wrt(&a).is_some());
/// assert!(g.wrt(&b).is_none()); // not used by the loss
/// ```
pub struct Gradients<T: Float, D: Device = Cpu> {
    grads: HashMap<u64, DynTensor<T, D>>,
}

impl<T: Float, D: Device> Gradients<T, D> {
    /// The gradient of the loss with respect to `param`, with `param`'s own
    /// shape type: for an input that was broadcast, the upstream gradient
    /// has been summed back to its shape (`sum_to`). `None` when `param`
    /// needs no gradient or the loss does not depend on it.
    ///
    /// The result may be a view (an expanded constant, for instance); call
    /// [`Tensor::contiguous`] before writing into it.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let a = Var::param(Tensor::<f32, Shape![3]>::from_vec(vec![1., 2., 3.]));
    /// let b = Var::param(Tensor::<f32, Shape![1]>::from_vec(vec![1.]));
    /// let g = a.add(&b).sum().backward();
    /// let gb: Tensor<f32, Shape![1]> = g.wrt(&b).unwrap();
    /// assert_eq!(gb.to_vec(), vec![3.]);
    /// ```
    pub fn wrt<S: Shape>(&self, param: &Var<T, S, D>) -> Option<Tensor<T, S, D>> {
        let g = self.grads.get(&param.node.id)?;
        Some(
            g.try_into_shape()
                .expect("the engine checks every gradient has its value's sizes"),
        )
    }

    /// Adds the gradients of another backward pass to these, as PyTorch
    /// accumulates into `.grad` across `backward()` calls: gradient
    /// accumulation over micro-batches. A parameter with a gradient in only
    /// one of the two keeps that one.
    ///
    /// # Errors
    /// A device error.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let w = Var::param(Tensor::<f32, Shape![2]>::from_vec(vec![1., 2.]));
    /// let mut total = w.sum().backward();
    /// total.try_accumulate(w.square().sum().backward()).unwrap();
    /// assert_eq!(total.wrt(&w).unwrap().to_vec(), vec![3., 5.]);
    /// ```
    pub fn try_accumulate(&mut self, other: Gradients<T, D>) -> Result<(), D::Error>
    where
        D: Backend<T>,
    {
        for (id, g) in other.grads {
            match self.grads.get_mut(&id) {
                Some(mine) => {
                    let sum: DynTensor<T, D> =
                        pointwise::binary(crate::backend::op::table::Add, &*mine, &g)?;
                    *mine = sum;
                }
                None => {
                    self.grads.insert(id, g);
                }
            }
        }
        Ok(())
    }

    /// Sets the gradient of `param` to `grad`, returning the one it had.
    /// This is how a gradient is changed after the backward pass: data
    /// parallel training replaces each gradient by its average over the
    /// processes ([`shaped::distributed`](crate::distributed)), as PyTorch's
    /// DDP writes into `param.grad`.
    ///
    /// # Errors
    /// When `param` needs no gradient (a constant), or `grad`'s sizes are
    /// not `param`'s.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let w = Var::param(Tensor::<f32, Shape![2]>::from_vec(vec![1., 2.]));
    /// let mut g = w.square().sum().backward();
    /// let old = g.try_insert(&w, Tensor::from_vec(vec![0.5, 0.5])).unwrap();
    /// assert_eq!(old.unwrap().to_vec(), vec![2., 4.]);
    /// assert_eq!(g.wrt(&w).unwrap().to_vec(), vec![0.5, 0.5]);
    /// ```
    pub fn try_insert<S: Shape>(
        &mut self,
        param: &Var<T, S, D>,
        grad: Tensor<T, S, D>,
    ) -> Result<Option<Tensor<T, S, D>>, ShapeError> {
        let node = &param.node;
        if !node.requires_grad {
            return Err(ShapeError::Invalid(
                "a gradient can be set only for a value that requires grad".into(),
            ));
        }
        if grad.dims() != param.dims() {
            return Err(ShapeError::Invalid(format!(
                "assigned grad has data of a different size: the parameter has shape {:?} and \
                 the gradient {:?}",
                param.dims(),
                grad.dims()
            )));
        }
        let old = self.grads.insert(node.id, grad.into_dyn());
        Ok(old.map(|g| {
            g.try_into_shape()
                .expect("every stored gradient has its value's sizes")
        }))
    }
}
