//! Scaled dot-product attention, `softmax(q·kᵀ/√E + mask)·v`, with typed
//! masks: none, causal, a key-padding mask `(B, K)`, or any boolean mask
//! that broadcasts to the scores `(B, H, Q, K)`.

use super::erase::{erased, restored};
use crate::ShapeError;
use crate::Tensor;
use crate::autograd::{Var, where_cond};
use crate::element::Float;
use crate::ops::triangle::{Triangle, triangle};
use crate::shape::{Dim, DynRank, ExpandsTo, OrPanic, Shape, SplitsInto};

/// A mask for [`scaled_dot_product_attention`] over scores of shape
/// `(B, H, Q, K)`: which keys each query may attend to. Implemented by
/// [`NoMask`], [`Causal`], [`KeyPadding`] and `&Tensor<bool, S>` (any
/// boolean mask whose shape broadcasts to `(B, H, Q, K)`, checked by the
/// trait solver where the sizes are static, `true` where attention is
/// allowed, as PyTorch's boolean `attn_mask`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a mask for attention scores of shape `({B}, {H}, {Q}, {K})`",
    label = "this mask does not fit the scores (batch, heads, queries, keys)",
    note = "a `KeyPadding` mask is `(batch, keys)` with the query's batch and the key's length; a boolean mask must broadcast to `(batch, heads, queries, keys)`"
)]
pub trait AttentionMask<B: Dim, H: Dim, Q: Dim, K: Dim> {
    /// The mask as a boolean tensor that broadcasts to the scores'
    /// `sizes` (`true`: attend), or `None` for no mask.
    ///
    /// # Errors
    /// When the mask's run-time sizes do not broadcast to `sizes`.
    ///
    /// ```
    /// use shaped::nn::{AttentionMask, Causal};
    /// use shaped::Dyn;
    /// let m = <Causal as AttentionMask<Dyn, Dyn, Dyn, Dyn>>::keep(&Causal, &[1, 1, 2, 2]).unwrap().unwrap();
    /// assert_eq!(m.to_vec(), vec![true, false, true, true]);
    /// ```
    fn keep(&self, sizes: &[usize; 4]) -> Result<Option<Tensor<bool, DynRank>>, ShapeError>;
}

/// No mask: every query attends to every key.
///
/// ```
/// use shaped::autograd::Var;
/// use shaped::nn::{scaled_dot_product_attention, NoMask};
/// use shaped::{Shape, Tensor};
/// let q = Var::constant(Tensor::<f32, Shape![1, 1, 2, 8]>::zeros());
/// // Equal scores: each query averages the values.
/// let v = Var::constant(Tensor::<f32, Shape![1, 1, 2, 8]>::from_vec((0..16).map(|i| i as f32).collect()));
/// let y = scaled_dot_product_attention(&q, &q, &v, &NoMask);
/// assert_eq!(y.value().to_vec()[0], 4.0);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct NoMask;

/// A causal mask, as PyTorch's `is_causal=True`: query `i` attends to keys
/// `0..=i` (the mask is the lower triangle of `(Q, K)`, aligned at the top
/// left).
///
/// ```
/// use shaped::nn::{AttentionMask, Causal};
/// use shaped::Dyn;
/// let keep = <Causal as AttentionMask<Dyn, Dyn, Dyn, Dyn>>::keep(&Causal, &[1, 1, 2, 3]).unwrap().unwrap();
/// assert_eq!(keep.to_vec(), vec![true, false, false, true, true, false]);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Causal;

/// The causal mask of `n` positions as a `(N, N)` boolean tensor, `true`
/// where key `j` may be attended from query `i` (`j <= i`): the lower
/// triangle, `torch.ones(n, n, dtype=torch.bool).tril()`, the mask
/// [`Causal`] applies.
///
/// # Errors
/// When `n` does not fit `N` (a static size other than `n`).
///
/// ```
/// use shaped::nn::try_causal_mask;
/// use shaped::{Const, Dyn};
/// let m = try_causal_mask::<Dyn>(3).unwrap();
/// assert_eq!(m.to_vec(), vec![true, false, false, true, true, false, true, true, true]);
/// assert!(try_causal_mask::<Const<4>>(3).is_err());
/// ```
pub fn try_causal_mask<N: Dim>(n: usize) -> Result<Tensor<bool, (N, N)>, ShapeError> {
    Tensor::try_from_vec(triangle(n, n, 0, Triangle::Lower), &[n, n])
}

/// The causal mask of `n` positions, `true` where key `<=` query; see
/// [`try_causal_mask`].
///
/// # Panics
/// When `n` does not fit `N`.
///
/// ```
/// use shaped::nn::causal_mask;
/// use shaped::{where_cond, Const, Shape, Tensor};
/// // Causal self-attention scores by hand: future positions to -inf.
/// let scores = Tensor::<f32, Shape![3, 3]>::zeros();
/// let minus_inf = Tensor::<f32, Shape![1]>::full(f32::NEG_INFINITY);
/// let masked = where_cond(&causal_mask::<Const<3>>(3), &scores, &minus_inf);
/// assert_eq!(masked.to_vec()[..3], [0.0, f32::NEG_INFINITY, f32::NEG_INFINITY]);
/// ```
#[track_caller]
pub fn causal_mask<N: Dim>(n: usize) -> Tensor<bool, (N, N)> {
    try_causal_mask(n).or_panic()
}

/// A key-padding mask `(B, K)`: `true` for the keys that are real tokens
/// (a tokenizer's `attention_mask`), `false` for padding. Its batch and key
/// dimensions are the query's and key's own types, so a mask of another
/// static size does not compile.
#[derive(Clone, Copy, Debug)]
pub struct KeyPadding<'a, B: Dim, K: Dim>(pub &'a Tensor<bool, (B, K)>);

impl<B: Dim, H: Dim, Q: Dim, K: Dim> AttentionMask<B, H, Q, K> for NoMask {
    fn keep(&self, _: &[usize; 4]) -> Result<Option<Tensor<bool, DynRank>>, ShapeError> {
        Ok(None)
    }
}

impl<B: Dim, H: Dim, Q: Dim, K: Dim> AttentionMask<B, H, Q, K> for Causal {
    fn keep(&self, sizes: &[usize; 4]) -> Result<Option<Tensor<bool, DynRank>>, ShapeError> {
        let (q, k) = (sizes[2], sizes[3]);
        Tensor::try_from_vec(triangle(q, k, 0, Triangle::Lower), &[q, k]).map(Some)
    }
}

impl<B: Dim, H: Dim, Q: Dim, K: Dim> AttentionMask<B, H, Q, K> for KeyPadding<'_, B, K> {
    fn keep(&self, sizes: &[usize; 4]) -> Result<Option<Tensor<bool, DynRank>>, ShapeError> {
        let dims = self.0.dims();
        if dims[0] != sizes[0] || dims[1] != sizes[3] {
            return Err(ShapeError::Invalid(format!(
                "the key-padding mask has sizes {dims:?}, but the batch and key sizes are [{}, {}]",
                sizes[0], sizes[3]
            )));
        }
        let m = self.0.share().into_dyn();
        m.try_reshape(&[dims[0] as isize, 1, 1, dims[1] as isize])
            .map(Some)
    }
}

impl<B: Dim, H: Dim, Q: Dim, K: Dim, S: Shape> AttentionMask<B, H, Q, K> for &Tensor<bool, S>
where
    S: ExpandsTo<(B, H, Q, K)>,
{
    fn keep(&self, sizes: &[usize; 4]) -> Result<Option<Tensor<bool, DynRank>>, ShapeError> {
        let m = self.share().into_dyn();
        m.try_broadcast_to::<DynRank>(sizes)?;
        Ok(Some(m))
    }
}

/// `softmax(q·kᵀ·scale + mask)·v` over heads, as PyTorch's
/// `F.scaled_dot_product_attention(q, k, v, attn_mask, is_causal=...)` with
/// `scale = 1/√E`: queries `(B, H, Q, E)`, keys `(B, H, K, E)`, values
/// `(B, H, K, F)`, result `(B, H, Q, F)`. The batch, head and feature
/// dimensions of the three are the same types, so a query split into a
/// different number of heads, or a head width that differs from the key's,
/// does not compile. Masked scores are `-∞` before the softmax; a query
/// whose keys are all masked gets zeros. Gradients flow to `q`, `k` and
/// `v`.
///
/// When none of `q`, `k`, `v` requires a gradient (inference, or under
/// [`no_grad`](crate::autograd::no_grad)), the pass is fused, as
/// PyTorch's CPU kernel: each tile of 64 queries of one head computes its
/// scores, mask, softmax and product with the values in a buffer of its
/// own, so the `(B, H, Q, K)` scores are never stored (at batch 32 x 512
/// tokens and 12 heads they would take 403 MB in `f32`). Its values are
/// the recording pass's, bit for bit.
///
/// # Panics
/// When a run-time size (`Dyn`) does not match, with PyTorch's message.
///
/// ```
/// use shaped::autograd::Var;
/// use shaped::nn::{scaled_dot_product_attention, Causal, NoMask};
/// use shaped::{Shape, Tensor};
/// let q = Var::param(Tensor::<f32, Shape![1, 2, 3, 4]>::randn(0));
/// let k = Var::param(Tensor::<f32, Shape![1, 2, 5, 4]>::randn(1));
/// let v = Var::param(Tensor::<f32, Shape![1, 2, 5, 8]>::randn(2));
/// let y: Var<f32, Shape![1, 2, 3, 8]> = scaled_dot_product_attention(&q, &k, &v, &NoMask);
/// // Causal: the first query sees only the first key, so it gets its value.
/// let c = scaled_dot_product_attention(&q, &k, &v, &Causal);
/// let (c, v0) = (c.value().to_vec(), v.value().to_vec());
/// assert!((0..8).all(|i| (c[i] - v0[i]).abs() < 1e-6));
/// let g = y.sum().backward();
/// assert_eq!(g.wrt(&k).unwrap().dims(), &[1, 2, 5, 4]);
/// ```
#[track_caller]
pub fn scaled_dot_product_attention<T, B, H, Q, K, E, F, M>(
    q: &Var<T, (B, H, Q, E)>,
    k: &Var<T, (B, H, K, E)>,
    v: &Var<T, (B, H, K, F)>,
    mask: &M,
) -> Var<T, (B, H, Q, F)>
where
    T: Float,
    B: Dim,
    H: Dim,
    Q: Dim,
    K: Dim,
    E: Dim,
    F: Dim,
    M: AttentionMask<B, H, Q, K> + ?Sized,
{
    try_scaled_dot_product_attention(q, k, v, mask).or_panic()
}

/// [`scaled_dot_product_attention`], with an error instead of a panic.
///
/// # Errors
/// When a run-time size does not match (a `Dyn` batch, head count or head
/// width that differs between `q`, `k` and `v`, or a mask that does not
/// broadcast to the scores).
///
/// ```
/// use shaped::autograd::Var;
/// use shaped::nn::{try_scaled_dot_product_attention, NoMask};
/// use shaped::{Shape, Tensor};
/// let q = Var::constant(Tensor::<f32, Shape![1, 1, 2, _]>::try_zeros(&[1, 1, 2, 4]).unwrap());
/// let k = Var::constant(Tensor::<f32, Shape![1, 1, 3, _]>::try_zeros(&[1, 1, 3, 5]).unwrap());
/// let v = Var::constant(Tensor::<f32, Shape![1, 1, 3, 2]>::zeros());
/// assert!(try_scaled_dot_product_attention(&q, &k, &v, &NoMask).is_err());
/// ```
#[allow(clippy::type_complexity)] // the result's shape, spelled out for readers
pub fn try_scaled_dot_product_attention<T, B, H, Q, K, E, F, M>(
    q: &Var<T, (B, H, Q, E)>,
    k: &Var<T, (B, H, K, E)>,
    v: &Var<T, (B, H, K, F)>,
    mask: &M,
) -> Result<Var<T, (B, H, Q, F)>, ShapeError>
where
    T: Float,
    B: Dim,
    H: Dim,
    Q: Dim,
    K: Dim,
    E: Dim,
    F: Dim,
    M: AttentionMask<B, H, Q, K> + ?Sized,
{
    let (qd, kd, vd) = (q.dims(), k.dims(), v.dims());
    let scale = T::from(1.0 / (qd[3] as f64).sqrt()).expect("a float");
    let sizes = [qd[0], qd[1], qd[2], kd[2]];
    // Inference: one pass per tile of query rows, the (Q, K) scores never
    // materialised (`backend/cpu/attention.rs`). Sizes that do not fit
    // together take the composed pass, which reports them as PyTorch does.
    let fits = kd[..2] == qd[..2] && kd[3] == qd[3] && vd[..3] == kd[..3];
    if fits && !(q.requires_grad() || k.requires_grad() || v.requires_grad()) {
        let keep = match mask.keep(&sizes)? {
            Some(m) => m.try_broadcast_to::<DynRank>(&sizes).ok().map(Some),
            None => Some(None),
        };
        if let Some(keep) = keep {
            let data = crate::backend::cpu::attention::attention(
                q.value().layout(),
                k.value().layout(),
                v.value().layout(),
                keep.as_ref().map(Tensor::layout),
                scale,
            )?;
            let dims = [qd[0], qd[1], qd[2], vd[3]];
            let y = Tensor::<T, DynRank>::try_from_vec(data, &dims)?;
            return Ok(restored(&Var::constant(y), &dims));
        }
    }
    let scores = erased(q)
        .try_matmul(&erased(k).transpose::<2, 3>())?
        .mul_scalar(scale);
    let probs = match mask.keep(&sizes)? {
        None => scores.softmax_dim::<3>(),
        Some(keep) => {
            let floor = Var::constant(Tensor::<T, ()>::from_vec(vec![T::neg_infinity()]));
            let probs = where_cond(&keep, &scores, &floor).softmax_dim::<3>();
            // A query whose keys are all masked has a row of NaN (0/0)
            // here; it attends to nothing. Such rows are rows of the mask
            // with no `true` (or a mask that is `false` along a broadcast
            // key axis).
            let k_len = *keep.dims().last().unwrap_or(&1);
            let empty_row = k_len == 0
                || keep
                    .to_vec()
                    .chunks(k_len)
                    .any(|row| row.iter().all(|&m| !m));
            if empty_row {
                let nan: Tensor<bool, DynRank> = Tensor::try_from_vec(
                    probs.value().iter().map(|p| p.is_nan()).collect(),
                    probs.dims(),
                )?;
                probs.masked_fill(&nan, T::zero())
            } else {
                probs
            }
        }
    };
    let y = probs.try_matmul(&erased(v))?;
    Ok(restored(&y, &[qd[0], qd[1], qd[2], vd[3]]))
}

/// `(B, T, C)` as `(B, H, T, E)`: the last axis split into `H` heads of
/// `E` features each, heads moved before the tokens, as
/// `x.view(B, T, H, E).transpose(1, 2)` in PyTorch. `C = H × E` is proved
/// in the type ([`SplitsInto`]), so a head count or width that does not
/// divide the model width fails at `cargo check`; with a `Dyn` width, at
/// run time.
///
/// # Panics
/// When a run-time width is not `H × E` (PyTorch's `view` message), or
/// when neither `H` nor `E` is static.
///
/// ```
/// use shaped::autograd::Var;
/// use shaped::nn::{merge_heads, split_heads};
/// use shaped::{Const, Dyn, Tensor};
/// let x: Var<f32, (Dyn, Dyn, Const<384>)> = Var::constant(Tensor::try_ones(&[2, 5, 384]).unwrap());
/// let h: Var<f32, (Dyn, Const<12>, Dyn, Const<32>)> = split_heads(&x);
/// assert_eq!(h.dims(), &[2, 12, 5, 32]);
/// let back: Var<f32, (Dyn, Dyn, Const<384>)> = merge_heads(&h);
/// assert_eq!(back.value().to_vec(), x.value().to_vec());
/// ```
///
/// ```compile_fail
/// # use shaped::autograd::Var;
/// # use shaped::nn::split_heads;
/// # use shaped::{Const, Dyn, Tensor};
/// let x: Var<f32, (Dyn, Dyn, Const<384>)> = Var::constant(Tensor::try_ones(&[2, 5, 384]).unwrap());
/// let h: Var<f32, (Dyn, Const<12>, Dyn, Const<30>)> = split_heads(&x); // 12 x 30 = 360
/// ```
#[track_caller]
pub fn split_heads<T, B, S, C, H, E>(x: &Var<T, (B, S, C)>) -> Var<T, (B, H, S, E)>
where
    T: Float,
    B: Dim,
    S: Dim,
    C: SplitsInto<H, E>,
    H: Dim,
    E: Dim,
{
    let d = x.dims();
    let (h, e) = head_sizes::<H, E>();
    let split: Var<T, (B, S, H, E)> = x
        .try_reshape(&[d[0] as isize, d[1] as isize, h, e])
        .or_panic();
    split.permute(&[0, 2, 1, 3]).or_panic()
}

/// `(B, H, T, E)` as `(B, T, C)` with `C = H × E`: the inverse of
/// [`split_heads`] (a copy, as PyTorch's `transpose(1, 2).reshape(B, T, C)`).
///
/// ```
/// use shaped::autograd::Var;
/// use shaped::nn::merge_heads;
/// use shaped::{Shape, Tensor};
/// let h = Var::constant(Tensor::<f32, Shape![1, 2, 3, 8]>::ones());
/// let x: Var<f32, Shape![1, 3, 16]> = merge_heads(&h);
/// assert_eq!(x.dims(), &[1, 3, 16]);
/// ```
#[track_caller]
pub fn merge_heads<T, B, S, C, H, E>(x: &Var<T, (B, H, S, E)>) -> Var<T, (B, S, C)>
where
    T: Float,
    B: Dim,
    S: Dim,
    C: SplitsInto<H, E>,
    H: Dim,
    E: Dim,
{
    let moved: Var<T, (B, S, H, E)> = x.permute(&[0, 2, 1, 3]).or_panic();
    let d = moved.dims();
    moved
        .try_reshape(&[d[0] as isize, d[1] as isize, (d[2] * d[3]) as isize])
        .or_panic()
}

/// The head count and head width for a reshape: the static ones, `-1`
/// (inferred from the width) for a run-time one.
#[track_caller]
fn head_sizes<H: Dim, E: Dim>() -> (isize, isize) {
    match (H::SIZE, E::SIZE) {
        (Some(h), Some(e)) => (h as isize, e as isize),
        (Some(h), None) => (h as isize, -1),
        (None, Some(e)) => (-1, e as isize),
        (None, None) => panic!(
            "split_heads: the head count or the head width must be static (both are `Dyn`); reshape with run-time sizes instead"
        ),
    }
}
