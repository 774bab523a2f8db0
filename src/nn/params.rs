//! The parameters of a model, listed in a fixed order, so that an optimizer
//! can step a whole model.

use crate::autograd::{GradDevice, Gradients, Var};
use crate::device::Cpu;
use crate::element::Float;
use crate::shape::{DynRank, Shape};

/// A model (or a part of one) that holds parameters: [`Var`]s made with
/// [`Var::param`]. Derive it with `#[derive(Parameters)]`; the derive visits
/// the fields in declaration order (a field marked `#[param(skip)]` is left
/// out), and optimizers key their state by that order, as PyTorch's
/// `model.parameters()` does.
///
/// ```
/// use shaped::autograd::Var;
/// use shaped::nn::{Linear, Parameters};
/// use shaped::{Const, Shape, Tensor};
///
/// #[derive(Parameters)]
/// struct Model {
///     hidden: Linear<Const<4>, Const<3>>,
///     out: Linear<Const<3>, Const<2>>,
///     scale: Var<f32, Shape![2]>,
///     #[param(skip)]
///     name: String,
/// }
/// let m = Model {
///     hidden: Linear::new(0),
///     out: Linear::new(1),
///     scale: Var::param(Tensor::ones()),
///     name: "mlp".into(),
/// };
/// let sizes: Vec<_> = m.params().iter().map(|p| p.dims().to_vec()).collect();
/// assert_eq!(sizes, [vec![3, 4], vec![3], vec![2, 3], vec![2], vec![2]]);
/// assert_eq!(m.num_params(), 12 + 3 + 6 + 2 + 2);
/// ```
pub trait Parameters<T: Float, D: GradDevice<T> = Cpu> {
    /// Calls `f` on each parameter, in a fixed order. The handle passed to
    /// `f` shares the parameter's storage and graph node: an optimizer
    /// writes its update through it, in place.
    fn visit_params(&self, f: &mut dyn FnMut(&Var<T, DynRank, D>));

    /// The parameters in visiting order, as handles on their storage.
    ///
    /// ```
    /// use shaped::nn::{Linear, Parameters};
    /// use shaped::Const;
    /// let l: Linear<Const<3>, Const<2>> = Linear::new(0);
    /// assert_eq!(l.params().len(), 2);
    /// ```
    fn params(&self) -> Vec<Var<T, DynRank, D>> {
        let mut out = Vec::new();
        self.visit_params(&mut |p| out.push(p.clone()));
        out
    }

    /// The number of scalars in all parameters.
    ///
    /// ```
    /// use shaped::nn::{Linear, Parameters};
    /// use shaped::Const;
    /// let l: Linear<Const<3>, Const<2>> = Linear::new(0);
    /// assert_eq!(l.num_params(), 3 * 2 + 2);
    /// ```
    fn num_params(&self) -> usize {
        let mut n = 0;
        self.visit_params(&mut |p| n += p.value().numel());
        n
    }

    /// Each parameter's gradient in `grads`, in visiting order (`None` for a
    /// parameter the loss does not use).
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::nn::{Linear, Parameters};
    /// use shaped::{Const, Shape, Tensor};
    /// let l: Linear<Const<3>, Const<2>> = Linear::new(0);
    /// let x = Var::constant(Tensor::<f32, Shape![4, 3]>::ones());
    /// let grads = l.forward(&x).sum().backward();
    /// let g = l.grads(&grads);
    /// assert_eq!(g[1].as_ref().unwrap().to_vec(), vec![4., 4.]); // bias
    /// ```
    fn grads(&self, grads: &Gradients<T, D>) -> Vec<Option<crate::Tensor<T, DynRank, D>>> {
        let mut out = Vec::new();
        self.visit_params(&mut |p| out.push(grads.wrt(p)));
        out
    }
}

impl<T: Float, S: Shape, D: GradDevice<T>> Parameters<T, D> for Var<T, S, D> {
    /// A `Var` that needs a gradient is one parameter; a constant is none.
    fn visit_params(&self, f: &mut dyn FnMut(&Var<T, DynRank, D>)) {
        if self.requires_grad() {
            f(&Var {
                value: self.value.share().into_dyn(),
                node: self.node.clone(),
            });
        }
    }
}

impl<T: Float, D: GradDevice<T>, P: Parameters<T, D>> Parameters<T, D> for Vec<P> {
    /// Each element's parameters, in order.
    fn visit_params(&self, f: &mut dyn FnMut(&Var<T, DynRank, D>)) {
        self.iter().for_each(|p| p.visit_params(f));
    }
}

impl<T: Float, D: GradDevice<T>, P: Parameters<T, D>, const N: usize> Parameters<T, D> for [P; N] {
    /// Each element's parameters, in order.
    fn visit_params(&self, f: &mut dyn FnMut(&Var<T, DynRank, D>)) {
        self.iter().for_each(|p| p.visit_params(f));
    }
}

impl<T: Float, D: GradDevice<T>, P: Parameters<T, D>> Parameters<T, D> for Option<P> {
    /// The parameters of the value, if any.
    fn visit_params(&self, f: &mut dyn FnMut(&Var<T, DynRank, D>)) {
        if let Some(p) = self {
            p.visit_params(f);
        }
    }
}
