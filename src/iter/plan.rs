//! The iteration plan: one output and its inputs, broadcast to one shape,
//! reordered and coalesced, then walked as inner loops ("segments") over any
//! range of linear indices, so that a backend can split the work across
//! threads.
//!
//! See `README.md` beside this file for the design.

use smallvec::SmallVec;

use crate::shape::DimVec;

/// The strides of a tensor of sizes `dims` and strides `strides`, seen in a
/// broadcast result of sizes `out` (trailing dimensions aligned): 0 where the
/// tensor is broadcast or has no such dimension.
///
/// ```
/// use shaped::iter::broadcast_strides;
/// // A (3, 1) tensor seen in a (2, 3, 4) result.
/// assert_eq!(broadcast_strides(&[3, 1], &[1, 1], &[2, 3, 4]).as_slice(), &[0, 1, 0]);
/// ```
pub fn broadcast_strides(dims: &[usize], strides: &[usize], out: &[usize]) -> DimVec {
    let lead = out.len() - dims.len();
    let mut s: DimVec = smallvec::smallvec![0; out.len()];
    for (i, (&d, &st)) in dims.iter().zip(strides).enumerate() {
        s[lead + i] = if d == 1 && out[lead + i] != 1 { 0 } else { st };
    }
    s
}

/// Row-major strides of a contiguous tensor of sizes `dims`.
///
/// ```
/// use shaped::iter::contiguous_strides;
/// assert_eq!(contiguous_strides(&[2, 3, 4]).as_slice(), &[12, 4, 1]);
/// ```
pub fn contiguous_strides(dims: &[usize]) -> DimVec {
    let mut s: DimVec = smallvec::smallvec![1; dims.len()];
    let mut acc = 1usize;
    for i in (0..dims.len()).rev() {
        s[i] = acc;
        acc = acc.saturating_mul(dims[i].max(1));
    }
    s
}

/// An iteration over `N` operands (operand 0 is the output) of one common
/// shape, after removing size-1 dimensions, ordering dimensions by the
/// output's strides and merging dimensions that are contiguous in every
/// operand. The last dimension is the innermost.
///
/// ```
/// use shaped::iter::Plan;
/// // out (4, 5) contiguous; a (4, 5) contiguous; b (5,) broadcast over rows.
/// let plan = Plan::new(&[4, 5], [(&[5, 1][..], 0), (&[5, 1][..], 0), (&[0, 1][..], 0)]);
/// assert_eq!(plan.dims(), &[4, 5]);
/// let plan = Plan::new(&[4, 5], [(&[5, 1][..], 0), (&[5, 1][..], 0), (&[5, 1][..], 0)]);
/// assert_eq!(plan.dims(), &[20]);
/// ```
#[derive(Clone, Debug)]
pub struct Plan<const N: usize> {
    dims: DimVec,
    strides: [DimVec; N],
    offsets: [usize; N],
    numel: usize,
}

impl<const N: usize> Plan<N> {
    /// Builds the plan for `dims`, each operand given as its strides in
    /// `dims` (0 where broadcast: see [`broadcast_strides`]) and its offset.
    pub fn new(dims: &[usize], operands: [(&[usize], usize); N]) -> Self {
        // A 0 anywhere first: an empty shape's other sizes may overflow
        // when multiplied (found by the fuzzer: `[2^62, 2^45, 0]`).
        let numel = if dims.contains(&0) {
            0
        } else {
            dims.iter().product()
        };
        let offsets = operands.map(|(_, o)| o);
        // Keep the dimensions that matter, ordered by the output's stride,
        // largest first (a stable sort keeps the logical order on ties).
        let mut order: SmallVec<[usize; 8]> = (0..dims.len()).filter(|&i| dims[i] != 1).collect();
        if numel == 0 {
            order.clear();
        }
        order.sort_by(|&i, &j| {
            let key = |k: usize| operands.map(|(s, _)| s[k]);
            key(j).cmp(&key(i))
        });
        let out_dims: DimVec = order.iter().map(|&i| dims[i]).collect();
        let out_strides: [DimVec; N] = operands.map(|(s, _)| order.iter().map(|&i| s[i]).collect());
        let mut plan = Plan {
            dims: out_dims,
            strides: out_strides,
            offsets,
            numel,
        };
        plan.coalesce();
        if plan.dims.is_empty() {
            plan.dims.push(if numel == 0 { 0 } else { 1 });
            for s in &mut plan.strides {
                s.push(0);
            }
        }
        plan
    }

    /// Merges neighbouring dimensions `k - 1` (outer) and `k` (inner) when
    /// every operand steps over the inner one exactly once per outer step.
    fn coalesce(&mut self) {
        let mut k = self.dims.len();
        while k > 1 {
            k -= 1;
            let (outer, inner) = (k - 1, k);
            let ok = self
                .strides
                .iter()
                .all(|s| s[outer] == s[inner] * self.dims[inner]);
            if ok {
                self.dims[inner] *= self.dims[outer];
                self.dims.remove(outer);
                for s in &mut self.strides {
                    s.remove(outer);
                }
            }
        }
    }

    /// Sizes after coalescing, innermost last.
    pub fn dims(&self) -> &[usize] {
        &self.dims
    }

    /// Strides of operand `i` after coalescing.
    pub fn strides(&self, i: usize) -> &[usize] {
        &self.strides[i]
    }

    /// The number of elements iterated.
    pub fn numel(&self) -> usize {
        self.numel
    }

    /// Calls `f(offsets, inner_strides, len)` for each inner loop covering the
    /// linear indices `start..end` in order. `offsets` are element offsets of
    /// each operand's first element in that loop.
    pub fn segments(
        &self,
        start: usize,
        end: usize,
        mut f: impl FnMut([usize; N], [usize; N], usize),
    ) {
        if start >= end {
            return;
        }
        let rank = self.dims.len();
        let inner = self.dims[rank - 1];
        let inner_strides: [usize; N] = core::array::from_fn(|i| self.strides[i][rank - 1]);
        // Multi-index of `start`, and each operand's offset there.
        let mut idx: DimVec = smallvec::smallvec![0; rank];
        let mut rem = start;
        for d in (0..rank).rev() {
            idx[d] = rem % self.dims[d];
            rem /= self.dims[d];
        }
        let mut offs: [usize; N] = core::array::from_fn(|i| {
            self.offsets[i]
                + idx
                    .iter()
                    .zip(&self.strides[i])
                    .map(|(a, b)| a * b)
                    .sum::<usize>()
        });
        let mut pos = start;
        while pos < end {
            let len = (inner - idx[rank - 1]).min(end - pos);
            f(offs, inner_strides, len);
            pos += len;
            if pos >= end {
                break;
            }
            // Advance to the start of the next inner loop.
            for (o, s) in offs.iter_mut().zip(&inner_strides) {
                *o += s * len;
            }
            idx[rank - 1] += len;
            let mut d = rank - 1;
            while idx[d] == self.dims[d] && d > 0 {
                for (o, s) in offs.iter_mut().zip(&self.strides) {
                    *o -= s[d] * self.dims[d];
                    *o += s[d - 1];
                }
                idx[d] = 0;
                idx[d - 1] += 1;
                d -= 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every linear index is visited once, in order, at the right offsets.
    #[test]
    fn segments_cover_every_element() {
        // out (2, 3, 4) contiguous; in: a transposed (4, 3, 2) view seen as (2, 3, 4).
        let dims = [2, 3, 4];
        let plan = Plan::new(&dims, [(&[12, 4, 1][..], 0), (&[1, 2, 6][..], 5)]);
        let mut seen = Vec::new();
        for (start, end) in [(0, 24), (0, 7), (7, 24)] {
            plan.segments(start, end, |offs, strides, len| {
                for k in 0..len {
                    seen.push((offs[0] + k * strides[0], offs[1] + k * strides[1]));
                }
            });
        }
        let mut want = Vec::new();
        for i in 0..2 {
            for j in 0..3 {
                for k in 0..4 {
                    want.push((i * 12 + j * 4 + k, 5 + i + j * 2 + k * 6));
                }
            }
        }
        let twice: Vec<_> = want.iter().chain(want.iter()).copied().collect();
        assert_eq!(seen, twice);
    }

    #[test]
    fn zero_size_plans_visit_nothing() {
        let plan = Plan::new(&[3, 0], [(&[0, 1][..], 0)]);
        assert_eq!(plan.numel(), 0);
        plan.segments(0, plan.numel(), |_, _, _| panic!("visited"));
    }
}
