//! The erased core: graph nodes, their backward functions, and the engine
//! that walks them. Nothing here has a shape type parameter; values and
//! gradients are [`DynRank`] tensors, so this code is compiled once per
//! element type and device.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};

use smallvec::SmallVec;

use crate::Tensor;
use crate::backend::Backend;
use crate::device::{Cpu, Device, Versioned};
use crate::element::Float;
use crate::shape::{DimVec, DynRank, ShapeError};

/// A tensor with its shape type erased.
pub(crate) type DynTensor<T, D = Cpu> = Tensor<T, DynRank, D>;

/// One gradient per parent (`None`: that parent needs none).
pub(crate) type Grads<T, D = Cpu> = SmallVec<[Option<DynTensor<T, D>>; 3]>;

/// Maps the gradient of a node's value to the gradients of its parents.
/// The second argument says which parents need one. A rule that cannot form
/// a gradient (a buffer it cannot allocate, say) returns its error, which
/// [`backward`] passes on; no rule panics. The error is the device's
/// (`ShapeError` on the CPU).
pub(crate) type BackwardFn<T, D = Cpu> = Box<
    dyn Fn(&DynTensor<T, D>, &[bool]) -> Result<Grads<T, D>, <D as Device>::Error> + Send + Sync,
>;

/// A node's parents (`None`: that input needs no gradient).
type Parents<T, D> = SmallVec<[Option<Arc<GraphNode<T, D>>>; 3]>;

/// Creation order: a node is always newer than its parents, so visiting
/// nodes from newest to oldest is a reverse topological order.
static NEXT_ID: AtomicU64 = AtomicU64::new(0);

/// A value in the graph: a leaf (a parameter), the result of an operation
/// on at least one value that needs a gradient, or a constant. A constant's
/// node records no parents and no backward function: it is there so that
/// the operations reading it watch its storage for writes (PyTorch's
/// version counter covers inputs that need no gradient too).
pub(crate) struct GraphNode<T: Float, D: Device = Cpu> {
    pub(crate) id: u64,
    /// Whether a gradient flows to this value (`false`: a constant).
    pub(crate) requires_grad: bool,
    /// The value's sizes: every gradient flowing into this node has them.
    dims: DimVec,
    parents: Parents<T, D>,
    /// `None` for a leaf.
    backward: Option<BackwardFn<T, D>>,
    /// The value's storage, watched for writes without keeping its
    /// elements alive, and its version when the node was made.
    storage: Weak<D::Storage<T>>,
    version: u64,
    /// Each parent's value's version when this node was made: the backward
    /// function may read those values, so a write to one since then makes
    /// its gradient wrong.
    parent_versions: SmallVec<[u64; 3]>,
}

impl<T: Float, D: Device> GraphNode<T, D> {
    /// The leaf of the value `value`: a parameter when `requires_grad`, a
    /// constant otherwise.
    pub(crate) fn leaf(
        value: &Tensor<T, impl crate::shape::Shape, D>,
        requires_grad: bool,
    ) -> Arc<Self> {
        Arc::new(GraphNode {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            requires_grad,
            dims: DimVec::from_slice(value.dims()),
            parents: SmallVec::new(),
            backward: None,
            storage: Arc::downgrade(&value.storage),
            version: value.storage.version(),
            parent_versions: SmallVec::new(),
        })
    }

    /// The current version of the value's storage (`None`: the storage is
    /// gone, so nothing can have written it since).
    fn current_version(&self) -> Option<u64> {
        self.storage.upgrade().map(|s| s.version())
    }

    /// PyTorch's error when a value this node's backward function reads was
    /// written in place after the node was made.
    fn check_versions(&self) -> Result<(), ShapeError> {
        let modified = |node: &Self, expected: u64| match node.current_version() {
            Some(now) if now != expected => Err(ShapeError::Invalid(format!(
                "one of the variables needed for gradient computation has been modified by an \
                 inplace operation: [{} {:?}] is at version {now}; expected version {expected} \
                 instead. Hint: the value was written in place (an `_` method, an `out=` form, \
                 `set` or `as_mut_slice`) after an operation that reads it in the backward pass \
                 was recorded; write into a copy instead",
                torch_type_name(T::NAME, D::NAME),
                node.dims.as_slice()
            ))),
            _ => Ok(()),
        };
        modified(self, self.version)?;
        for (parent, &v) in self.parents.iter().zip(&self.parent_versions) {
            if let Some(parent) = parent {
                modified(parent, v)?;
            }
        }
        Ok(())
    }
}

/// PyTorch's legacy type name of a tensor of `elem` on `device`
/// (`torch.FloatTensor`, `torch.cuda.DoubleTensor`), as its autograd errors
/// print it.
fn torch_type_name(elem: &str, device: &str) -> String {
    let base = match elem {
        "float64" => "DoubleTensor",
        "float16" => "HalfTensor",
        "bfloat16" => "BFloat16Tensor",
        _ => "FloatTensor",
    };
    if device == "cpu" {
        format!("torch.{base}")
    } else {
        format!("torch.{device}.{base}")
    }
}

/// The node of an operation's result `value`. When no input needs a
/// gradient (or recording is off), a constant's node: no backward function
/// is built and nothing is saved. Otherwise every input is a parent, the
/// constants too, so that a write to any of them since is caught; the
/// engine follows and feeds only the parents that need a gradient.
pub(crate) fn record<T: Float, D: Device>(
    value: &Tensor<T, impl crate::shape::Shape, D>,
    parents: &[Option<&Arc<GraphNode<T, D>>>],
    backward: impl FnOnce() -> BackwardFn<T, D>,
) -> Arc<GraphNode<T, D>> {
    let needed = parents.iter().flatten().any(|p| p.requires_grad);
    if !needed || super::no_grad::disabled() {
        return GraphNode::leaf(value, false);
    }
    Arc::new(GraphNode {
        id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
        requires_grad: true,
        dims: DimVec::from_slice(value.dims()),
        parents: parents.iter().map(|p| p.cloned()).collect(),
        backward: Some(backward()),
        storage: Arc::downgrade(&value.storage),
        version: value.storage.version(),
        parent_versions: parents
            .iter()
            .map(|p| p.and_then(|p| p.current_version()).unwrap_or(0))
            .collect(),
    })
}

/// Whether gradients flow into `parent`: a graph node that needs one.
fn wants_grad<T: Float, D: Device>(parent: &Option<Arc<GraphNode<T, D>>>) -> bool {
    parent.as_ref().is_some_and(|p| p.requires_grad)
}

impl<T: Float, D: Device> Drop for GraphNode<T, D> {
    /// Drops long chains of parents iteratively: a graph a million
    /// operations deep must not overflow the stack when freed.
    fn drop(&mut self) {
        let mut stack: Vec<Arc<GraphNode<T, D>>> = self.parents.drain(..).flatten().collect();
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
    root: &Arc<GraphNode<T, D>>,
    seed: DynTensor<T, D>,
) -> Result<HashMap<u64, DynTensor<T, D>>, D::Error> {
    // Every node reachable from the root, newest first.
    let mut seen: HashMap<u64, Arc<GraphNode<T, D>>> = HashMap::new();
    let mut stack = vec![Arc::clone(root)];
    while let Some(n) = stack.pop() {
        if seen.contains_key(&n.id) {
            continue;
        }
        stack.extend(
            n.parents
                .iter()
                .filter(|p| wants_grad(p))
                .flatten()
                .cloned(),
        );
        seen.insert(n.id, n);
    }
    let mut order: Vec<Arc<GraphNode<T, D>>> = seen.into_values().collect();
    order.sort_unstable_by_key(|n| std::cmp::Reverse(n.id));

    let mut pending: HashMap<u64, DynTensor<T, D>> = HashMap::new();
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
        node.check_versions()?;
        let needs: SmallVec<[bool; 3]> = node.parents.iter().map(wants_grad).collect();
        let grads = backward(&grad, &needs)?;
        for (parent, g) in node.parents.iter().zip(grads) {
            let (Some(parent), Some(g)) = (parent, g) else {
                continue;
            };
            if !parent.requires_grad {
                continue;
            }
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
    pending: &mut HashMap<u64, DynTensor<T, D>>,
    id: u64,
    g: DynTensor<T, D>,
) -> Result<(), D::Error> {
    let sum = match pending.remove(&id) {
        Some(prev) => prev.try_add(&g)?,
        None => g,
    };
    pending.insert(id, sum);
    Ok(())
}
