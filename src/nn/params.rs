//! The parameters of a model, listed in a fixed order, so that an optimizer
//! can step a whole model.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use crate::Tensor;
use crate::autograd::{GradDevice, Gradients, Var};
use crate::device::{Cpu, Device};
use crate::element::Float;
use crate::shape::{DynRank, Shape};

/// A buffer of a model: state saved and loaded with its parameters but not
/// trained (PyTorch's `register_buffer`), such as [`BatchNorm`]'s running
/// statistics. [`Parameters::visit_named_buffers`] lists them; state dicts
/// save and load them next to the parameters.
///
/// [`BatchNorm`]: super::BatchNorm
///
/// ```
/// use shaped::nn::{BatchNorm2d, Buffer, Parameters};
/// use shaped::Const;
/// let bn: BatchNorm2d<Const<4>> = BatchNorm2d::new();
/// let names: Vec<String> = bn.named_buffers().into_iter().map(|(n, _)| n).collect();
/// assert_eq!(names, ["running_mean", "running_var", "num_batches_tracked"]);
/// ```
pub enum Buffer<T: Float, D: Device = Cpu> {
    /// Values of the model's element type: a handle on the buffer's
    /// tensor, so a load writes into the model in place. (Not named
    /// `Tensor`: a variant of that name would make rustc spell out
    /// `shaped::Tensor` in every error message.)
    Values(Tensor<T, DynRank, D>),
    /// A count, saved as PyTorch saves it: a 0-d `int64` tensor
    /// (`num_batches_tracked`).
    Count(Arc<AtomicU64>),
}

impl<T: Float, D: Device> core::fmt::Debug for Buffer<T, D>
where
    Tensor<T, DynRank, D>: core::fmt::Debug,
{
    /// The values, or the count.
    ///
    /// ```
    /// use std::sync::{Arc, atomic::AtomicU64};
    /// let b: shaped::nn::Buffer<f32> = shaped::nn::Buffer::Count(Arc::new(AtomicU64::new(3)));
    /// assert_eq!(format!("{b:?}"), "Count(3)");
    /// ```
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Buffer::Values(t) => f.debug_tuple("Values").field(t).finish(),
            Buffer::Count(c) => f.debug_tuple("Count").field(c).finish(),
        }
    }
}

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

    /// Calls `f` on each parameter, in the order of
    /// [`visit_params`](Self::visit_params), with its name in a state dict:
    /// `prefix` joined with the path of fields to it by `.`, as PyTorch's
    /// `named_parameters()` (`hidden.weight`; element `i` of a `Vec` or
    /// array is `layer.i`). The derive names each field; the provided
    /// method, for a hand-written impl, names the parameters by position
    /// (`prefix.0`, `prefix.1`, ...).
    ///
    /// ```
    /// use shaped::nn::{Linear, Parameters};
    /// use shaped::Const;
    /// let layers: Vec<Linear<Const<2>, Const<2>>> = vec![Linear::new(0), Linear::new(1)];
    /// let mut names = Vec::new();
    /// layers.visit_named_params("layer", &mut |name, _| names.push(name.to_string()));
    /// assert_eq!(names, ["layer.0.weight", "layer.0.bias", "layer.1.weight", "layer.1.bias"]);
    /// ```
    #[allow(clippy::type_complexity)] // the visitor's signature, as `visit_params`'s
    fn visit_named_params(&self, prefix: &str, f: &mut dyn FnMut(&str, &Var<T, DynRank, D>)) {
        let mut i = 0;
        self.visit_params(&mut |p| {
            f(&param_key(prefix, &i.to_string()), p);
            i += 1;
        });
    }

    /// Calls `f` on each buffer (state that is saved but not trained, such
    /// as [`BatchNorm`](super::BatchNorm)'s running statistics) with its
    /// state-dict name, as PyTorch's `named_buffers()`. None by default;
    /// the derive visits each field's buffers in declaration order.
    ///
    /// ```
    /// use shaped::nn::{BatchNorm1d, Linear, Parameters};
    /// use shaped::Const;
    /// #[derive(Parameters)]
    /// struct Net {
    ///     fc: Linear<Const<3>, Const<2>>,
    ///     norm: BatchNorm1d<Const<2>>,
    /// }
    /// let net = Net { fc: Linear::new(0), norm: BatchNorm1d::new() };
    /// let mut names = Vec::new();
    /// net.visit_named_buffers("", &mut |name, _| names.push(name.to_string()));
    /// assert_eq!(names, ["norm.running_mean", "norm.running_var", "norm.num_batches_tracked"]);
    /// ```
    #[allow(clippy::type_complexity)] // the visitor's signature, as `visit_params`'s
    fn visit_named_buffers(&self, prefix: &str, f: &mut dyn FnMut(&str, Buffer<T, D>)) {
        let _ = (prefix, f);
    }

    /// The buffers with their state-dict names (see
    /// [`visit_named_buffers`](Self::visit_named_buffers)), as PyTorch's
    /// `named_buffers()`.
    ///
    /// ```
    /// use shaped::nn::{Buffer, BatchNorm1d, Parameters};
    /// use shaped::Const;
    /// let bn: BatchNorm1d<Const<3>> = BatchNorm1d::new();
    /// let (name, var) = &bn.named_buffers()[1];
    /// assert_eq!(name, "running_var");
    /// assert!(matches!(var, Buffer::Values(t) if t.to_vec() == vec![1.; 3]));
    /// ```
    fn named_buffers(&self) -> Vec<(String, Buffer<T, D>)> {
        let mut out = Vec::new();
        self.visit_named_buffers("", &mut |name, b| out.push((name.to_string(), b)));
        out
    }

    /// The parameters with their state-dict names (see
    /// [`visit_named_params`](Self::visit_named_params)), as PyTorch's
    /// `named_parameters()`.
    ///
    /// ```
    /// use shaped::nn::{Linear, Parameters};
    /// use shaped::Const;
    /// let l: Linear<Const<3>, Const<2>> = Linear::new(0);
    /// let names: Vec<_> = l.named_params().into_iter().map(|(n, p)| (n, p.dims().to_vec())).collect();
    /// assert_eq!(names, [("weight".to_string(), vec![2, 3]), ("bias".to_string(), vec![2])]);
    /// ```
    fn named_params(&self) -> Vec<(String, Var<T, DynRank, D>)> {
        let mut out = Vec::new();
        self.visit_named_params("", &mut |name, p| out.push((name.to_string(), p.clone())));
        out
    }

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

/// `prefix.name`, or `name` when `prefix` is empty: how a state-dict name
/// grows by one field (used by `#[derive(Parameters)]`).
///
/// ```
/// assert_eq!(shaped::nn::param_key("", "weight"), "weight");
/// assert_eq!(shaped::nn::param_key("layer.0", "weight"), "layer.0.weight");
/// ```
pub fn param_key(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else {
        format!("{prefix}.{name}")
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

    /// The parameter is named `prefix` itself.
    fn visit_named_params(&self, prefix: &str, f: &mut dyn FnMut(&str, &Var<T, DynRank, D>)) {
        self.visit_params(&mut |p| f(prefix, p));
    }
}

impl<T: Float, D: GradDevice<T>, P: Parameters<T, D>> Parameters<T, D> for Vec<P> {
    /// Each element's parameters, in order.
    fn visit_params(&self, f: &mut dyn FnMut(&Var<T, DynRank, D>)) {
        self.iter().for_each(|p| p.visit_params(f));
    }

    /// Element `i`'s parameters under `prefix.i`, as `nn.ModuleList`.
    fn visit_named_params(&self, prefix: &str, f: &mut dyn FnMut(&str, &Var<T, DynRank, D>)) {
        for (i, p) in self.iter().enumerate() {
            p.visit_named_params(&param_key(prefix, &i.to_string()), f);
        }
    }

    /// Element `i`'s buffers under `prefix.i`.
    fn visit_named_buffers(&self, prefix: &str, f: &mut dyn FnMut(&str, Buffer<T, D>)) {
        for (i, p) in self.iter().enumerate() {
            p.visit_named_buffers(&param_key(prefix, &i.to_string()), f);
        }
    }
}

impl<T: Float, D: GradDevice<T>, P: Parameters<T, D>, const N: usize> Parameters<T, D> for [P; N] {
    /// Each element's parameters, in order.
    fn visit_params(&self, f: &mut dyn FnMut(&Var<T, DynRank, D>)) {
        self.iter().for_each(|p| p.visit_params(f));
    }

    /// Element `i`'s parameters under `prefix.i`, as `nn.ModuleList`.
    fn visit_named_params(&self, prefix: &str, f: &mut dyn FnMut(&str, &Var<T, DynRank, D>)) {
        for (i, p) in self.iter().enumerate() {
            p.visit_named_params(&param_key(prefix, &i.to_string()), f);
        }
    }

    /// Element `i`'s buffers under `prefix.i`.
    fn visit_named_buffers(&self, prefix: &str, f: &mut dyn FnMut(&str, Buffer<T, D>)) {
        for (i, p) in self.iter().enumerate() {
            p.visit_named_buffers(&param_key(prefix, &i.to_string()), f);
        }
    }
}

impl<T: Float, D: GradDevice<T>, P: Parameters<T, D>> Parameters<T, D> for Option<P> {
    /// The parameters of the value, if any.
    fn visit_params(&self, f: &mut dyn FnMut(&Var<T, DynRank, D>)) {
        if let Some(p) = self {
            p.visit_params(f);
        }
    }

    /// The value's parameters under the same prefix.
    fn visit_named_params(&self, prefix: &str, f: &mut dyn FnMut(&str, &Var<T, DynRank, D>)) {
        if let Some(p) = self {
            p.visit_named_params(prefix, f);
        }
    }

    /// The value's buffers under the same prefix.
    fn visit_named_buffers(&self, prefix: &str, f: &mut dyn FnMut(&str, Buffer<T, D>)) {
        if let Some(p) = self {
            p.visit_named_buffers(prefix, f);
        }
    }
}
