//! The erased core: graph nodes, their backward functions, and the engine
//! that walks them. Nothing here has a shape type parameter; values and
//! gradients are [`DynRank`] tensors, so this code is compiled once per
//! element type and device.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use smallvec::SmallVec;

use crate::Tensor;
use crate::backend::Backend;
use crate::device::{Cpu, Device};
use crate::element::Float;
use crate::shape::{DimVec, DynRank};

/// A tensor with its shape type erased.
pub(crate) type Dyn<T, D = Cpu> = Tensor<T, DynRank, D>;

/// One gradient per parent (`None`: that parent needs none).
pub(crate) type Grads<T, D = Cpu> = SmallVec<[Option<Dyn<T, D>>; 3]>;

/// Maps the gradient of a node's value to the gradients of its parents.
/// The second argument says which parents need one. A rule that cannot form
/// a gradient (a buffer it cannot allocate, say) returns its error, which
/// [`backward`] passes on; no rule panics. The error is the device's
/// (`ShapeError` on the CPU).
pub(crate) type BackwardFn<T, D = Cpu> =
    Box<dyn Fn(&Dyn<T, D>, &[bool]) -> Result<Grads<T, D>, <D as Device>::Error> + Send + Sync>;

/// A node's parents (`None`: that input needs no gradient).
type Parents<T, D> = SmallVec<[Option<Arc<Node<T, D>>>; 3]>;

/// Creation order: a node is always newer than its parents, so visiting
/// nodes from newest to oldest is a reverse topological order.
static NEXT_ID: AtomicU64 = AtomicU64::new(0);

/// A value that needs a gradient: a leaf (a parameter) or the result of an
/// operation on at least one such value.
pub(crate) struct Node<T: Float, D: Device = Cpu> {
    pub(crate) id: u64,
    /// The value's sizes: every gradient flowing into this node has them.
    dims: DimVec,
    parents: Parents<T, D>,
    /// `None` for a leaf.
    backward: Option<BackwardFn<T, D>>,
}

impl<T: Float, D: Device> Node<T, D> {
    /// A leaf of sizes `dims`.
    pub(crate) fn leaf(dims: &[usize]) -> Arc<Self> {
        Arc::new(Node {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            dims: DimVec::from_slice(dims),
            parents: SmallVec::new(),
            backward: None,
        })
    }
}

/// The node of an operation's result, or `None` (and no backward function
/// built, nothing saved) when no input needs a gradient.
pub(crate) fn record<T: Float, D: Device>(
    dims: &[usize],
    parents: &[Option<&Arc<Node<T, D>>>],
    backward: impl FnOnce() -> BackwardFn<T, D>,
) -> Option<Arc<Node<T, D>>> {
    if parents.iter().all(Option::is_none) || super::no_grad::disabled() {
        return None;
    }
    Some(Arc::new(Node {
        id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
        dims: DimVec::from_slice(dims),
        parents: parents.iter().map(|p| p.cloned()).collect(),
        backward: Some(backward()),
    }))
}

impl<T: Float, D: Device> Drop for Node<T, D> {
    /// Drops long chains of parents iteratively: a graph a million
    /// operations deep must not overflow the stack when freed.
    fn drop(&mut self) {
        let mut stack: Vec<Arc<Node<T, D>>> = self.parents.drain(..).flatten().collect();
        while let Some(node) = stack.pop() {
            if let Ok(mut owned) = Arc::try_unwrap(node) {
                stack.extend(owned.parents.drain(..).flatten());
            }
        }
    }
}

/// Runs the backward pass from `root`, whose gradient is `seed`, and returns
/// the gradients of the leaves reached, by node id.
///
/// # Errors
/// The first error of a backward rule (the pass stops there), or of adding
/// up the gradients of a value used several times.
pub(crate) fn backward<T: Float, D: Backend<T>>(
    root: &Arc<Node<T, D>>,
    seed: Dyn<T, D>,
) -> Result<HashMap<u64, Dyn<T, D>>, D::Error> {
    // Every node reachable from the root, newest first.
    let mut seen: HashMap<u64, Arc<Node<T, D>>> = HashMap::new();
    let mut stack = vec![Arc::clone(root)];
    while let Some(n) = stack.pop() {
        if seen.contains_key(&n.id) {
            continue;
        }
        stack.extend(n.parents.iter().flatten().cloned());
        seen.insert(n.id, n);
    }
    let mut order: Vec<Arc<Node<T, D>>> = seen.into_values().collect();
    order.sort_unstable_by_key(|n| std::cmp::Reverse(n.id));

    let mut pending: HashMap<u64, Dyn<T, D>> = HashMap::new();
    pending.insert(root.id, seed);
    let mut leaves = HashMap::new();
    for node in order {
        // A gradient is freed as soon as its node has passed it on.
        let Some(grad) = pending.remove(&node.id) else {
            continue;
        };
        let Some(backward) = &node.backward else {
            leaves.insert(node.id, grad);
            continue;
        };
        let needs: SmallVec<[bool; 3]> = node.parents.iter().map(Option::is_some).collect();
        let grads = backward(&grad, &needs)?;
        for (parent, g) in node.parents.iter().zip(grads) {
            let (Some(parent), Some(g)) = (parent, g) else {
                continue;
            };
            assert_eq!(
                g.dims(),
                parent.dims.as_slice(),
                "autograd: a backward rule returned a gradient of the wrong shape"
            );
            accumulate(&mut pending, parent.id, g)?;
        }
    }
    Ok(leaves)
}

/// Adds `g` to the gradient pending for node `id`: a value used several
/// times receives the sum of its uses' gradients.
fn accumulate<T: Float, D: Backend<T>>(
    pending: &mut HashMap<u64, Dyn<T, D>>,
    id: u64,
    g: Dyn<T, D>,
) -> Result<(), D::Error> {
    let sum = match pending.remove(&id) {
        Some(prev) => prev.try_add(&g)?,
        None => g,
    };
    pending.insert(id, sum);
    Ok(())
}
