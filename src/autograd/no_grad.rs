//! `no_grad`: a scope in which operations record no graph, as PyTorch's
//! `torch.no_grad()`, for evaluation.

use std::cell::Cell;

thread_local! {
    static DISABLED: Cell<usize> = const { Cell::new(0) };
}

/// While the returned guard lives, operations on this thread record no graph
/// nodes: their results are constants, and no backward closure is built or
/// input saved. Guards nest; recording resumes when the last one is dropped.
///
/// ```
/// use shaped::autograd::{no_grad, Var};
/// use shaped::{Shape, Tensor};
/// let w = Var::param(Tensor::<f32, Shape![2]>::ones());
/// {
///     let _guard = no_grad();
///     assert!(!w.exp().requires_grad());
/// }
/// assert!(w.exp().requires_grad());
/// ```
#[must_use = "gradients are disabled only while the guard lives"]
pub fn no_grad() -> NoGradGuard {
    DISABLED.with(|d| d.set(d.get() + 1));
    NoGradGuard {
        _not_send: std::marker::PhantomData,
    }
}

/// Whether recording is disabled on this thread.
pub(crate) fn disabled() -> bool {
    DISABLED.with(|d| d.get() > 0)
}

/// The guard returned by [`no_grad`]; recording resumes when it is dropped.
///
/// ```
/// use shaped::autograd::no_grad;
/// let g = no_grad();
/// drop(g);
/// ```
pub struct NoGradGuard {
    /// The count is per thread: the guard stays on the thread that made it.
    _not_send: std::marker::PhantomData<*const ()>,
}

impl Drop for NoGradGuard {
    /// Ends this guard's scope.
    fn drop(&mut self) {
        DISABLED.with(|d| d.set(d.get() - 1));
    }
}
