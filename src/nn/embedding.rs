//! `Embedding<V, E>`: a table of `V` learned vectors of size `E`, looked up
//! by index, on any device.

use super::erase::restored;
use super::params::{Parameters, param_key};
use crate::Tensor;
use crate::autograd::{GradDevice, Var};
use crate::backend::Backend;
use crate::device::{Cpu, Device};
use crate::element::Float;
use crate::ops::index::IndexElement;
use crate::shape::{AppendAxis, Dim, Dyn, DynRank, FixedDim, OrPanic};

/// `torch.nn.Embedding(V, E)`: row `i` of the weight `(V, E)` for each
/// index `i`; the gradient of a row is the sum of the upstream gradients of
/// the positions that picked it. The table lives on the device `D` of its
/// weight ([`Embedding::from_tensor`] puts it on any device); the lookup is
/// the backend's `index_select` there and its gradient `index_add`.
///
/// ```
/// use shaped::autograd::Var;
/// use shaped::nn::Embedding;
/// use shaped::{Const, Shape, Tensor};
/// let e: Embedding<Const<5>, Const<3>> = Embedding::new(0);
/// let ids = Tensor::<i64, Shape![4]>::from_vec(vec![0, 4, 4, 1]);
/// let v: Var<f32, Shape![4, 3]> = e.forward(&ids);
/// let g = v.sum().backward().wrt(&e.weight).unwrap();
/// assert_eq!(g.to_vec()[12..], [2., 2., 2.]); // row 4 was picked twice
/// ```
pub struct Embedding<V: Dim, E: Dim, T: Float = f32, D: Device = Cpu> {
    /// The table, `(V, E)`.
    pub weight: Var<T, (V, E), D>,
}

impl<V: FixedDim, E: FixedDim, T: Float> Embedding<V, E, T> {
    /// A table drawn from `N(0, 1)` with `seed`, PyTorch's initialisation.
    ///
    /// ```
    /// use shaped::nn::{Embedding, Parameters};
    /// use shaped::Const;
    /// assert_eq!(Embedding::<Const<10>, Const<4>>::new(1).num_params(), 40);
    /// ```
    pub fn new(seed: u64) -> Self {
        Embedding {
            weight: Var::param(Tensor::randn(seed)),
        }
    }
}

impl<V: Dim, E: Dim, T: Float, D: GradDevice<T>> Embedding<V, E, T, D> {
    /// A table with the given weight `(V, E)`, made a parameter on its
    /// device.
    ///
    /// ```
    /// use shaped::nn::Embedding;
    /// use shaped::{Const, Shape, Tensor};
    /// let e: Embedding<Const<2>, Const<2>, f64> = Embedding::from_tensor(Tensor::zeros());
    /// assert!(e.weight.requires_grad());
    /// ```
    pub fn from_tensor(weight: Tensor<T, (V, E), D>) -> Self {
        Embedding {
            weight: Var::param(weight),
        }
    }

    /// The rows of the table at `indices` of any shape `S` (on the table's
    /// device): `S` with `E` appended, as PyTorch's `nn.Embedding` (ids
    /// `(B, T)` give `(B, T, E)`).
    ///
    /// # Panics
    /// When an index is outside `0..V`, with the message of
    /// [`Var::index_select`].
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::nn::Embedding;
    /// use shaped::{Const, Dyn, Shape, Tensor};
    /// let e: Embedding<Const<3>, Const<2>> = Embedding::new(0);
    /// let ids = Tensor::<i32, Shape![_]>::try_from_vec(vec![2, 0], &[2]).unwrap();
    /// assert_eq!(e.forward(&ids).dims(), &[2, 2]);
    /// // A batch of sequences.
    /// let ids = Tensor::<i64, Shape![2, _]>::try_from_vec(vec![0, 1, 2, 2, 1, 0], &[2, 3]).unwrap();
    /// let x: Var<f32, Shape![2, _, 2]> = e.forward(&ids);
    /// assert_eq!(x.value().to_vec()[..2], e.weight.value().to_vec()[..2]);
    /// ```
    #[track_caller]
    pub fn forward<S: AppendAxis<E>, I: IndexElement>(
        &self,
        indices: &Tensor<I, S, D>,
    ) -> Var<T, <S as AppendAxis<E>>::Output, D>
    where
        D: Backend<I>,
    {
        let flat = indices
            .share()
            .into_dyn()
            .try_reshape::<(Dyn,)>(&[-1])
            .or_panic();
        let rows = self.weight.index_select::<0, I, Dyn>(&flat);
        let mut dims = indices.dims().to_vec();
        dims.push(self.weight.dims()[1]);
        restored(&rows, &dims)
    }
}

impl<V: Dim, E: Dim, T: Float, D: GradDevice<T>> core::fmt::Debug for Embedding<V, E, T, D> {
    /// PyTorch's summary, without the table.
    ///
    /// ```
    /// use shaped::nn::Embedding;
    /// use shaped::Const;
    /// let e: Embedding<Const<10>, Const<4>> = Embedding::new(0);
    /// assert_eq!(format!("{e:?}"), "Embedding(10, 4)");
    /// ```
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let d = self.weight.dims();
        write!(f, "Embedding({}, {})", d[0], d[1])
    }
}

impl<V: Dim, E: Dim, T: Float, D: GradDevice<T>> Parameters<T, D> for Embedding<V, E, T, D> {
    /// The table.
    fn visit_params(&self, f: &mut dyn FnMut(&Var<T, DynRank, D>)) {
        self.weight.visit_params(f);
    }

    /// `prefix.weight`, as PyTorch names it.
    fn visit_named_params(&self, prefix: &str, f: &mut dyn FnMut(&str, &Var<T, DynRank, D>)) {
        self.weight
            .visit_named_params(&param_key(prefix, "weight"), f);
    }
}
