//! The agreement check: before any data moves, every rank shares a
//! fixed-size header (which collective, element type, reduction or root,
//! shape) and every rank compares all of them, so that a mismatch is the
//! same error on every rank instead of a hang or a buffer overrun.
//!
//! The header is [`HEADER_LEN`] `u64`s, so the exchange is one small
//! all-gather of a size every rank knows in advance, whatever it passed.

use super::{DistError, ReduceOp};

/// `u64`s in one rank's header.
pub(crate) const HEADER_LEN: usize = 16;
/// Sizes carried in the header itself; a larger rank is compared by hash
/// and printed only up to here.
const SHOWN_DIMS: usize = HEADER_LEN - 5;

/// A collective, as the header names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    AllReduce,
    Broadcast,
    AllGather,
    ReduceScatter,
    Barrier,
}

impl Op {
    const ALL: [Op; 5] = [
        Op::AllReduce,
        Op::Broadcast,
        Op::AllGather,
        Op::ReduceScatter,
        Op::Barrier,
    ];

    /// The method's name, as errors print it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Op::AllReduce => "all_reduce_",
            Op::Broadcast => "broadcast_",
            Op::AllGather => "all_gather",
            Op::ReduceScatter => "reduce_scatter",
            Op::Barrier => "barrier",
        }
    }

    fn code(self) -> u64 {
        self as u64 + 1
    }

    fn from_code(code: u64) -> Option<Self> {
        Op::ALL.into_iter().find(|op| op.code() == code)
    }
}

/// What one rank passes to a collective.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Call<'a> {
    pub op: Op,
    /// The element type's PyTorch name (`Element::NAME`).
    pub dtype: &'static str,
    /// The reduction's code for a reduction, the root for a broadcast.
    pub extra: u64,
    pub dims: &'a [usize],
}

/// Element type names a header may carry, to print a mismatch by name.
const DTYPES: [&str; 14] = [
    "float32",
    "float64",
    "float16",
    "bfloat16",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "bool",
    "complex64",
];

/// FNV-1a over `words`.
fn fnv(words: impl IntoIterator<Item = u64>) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325_u64;
    for w in words {
        for b in w.to_le_bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    }
    h
}

fn dtype_code(name: &str) -> u64 {
    fnv(name.bytes().map(u64::from))
}

/// The header of `call`: `[op, dtype, extra, rank, hash of sizes, sizes...]`.
pub(crate) fn header(call: &Call<'_>) -> [u64; HEADER_LEN] {
    let mut h = [0u64; HEADER_LEN];
    h[0] = call.op.code();
    h[1] = dtype_code(call.dtype);
    h[2] = call.extra;
    h[3] = call.dims.len() as u64;
    h[4] = fnv(call.dims.iter().map(|&d| d as u64));
    for (slot, &d) in h[5..].iter_mut().zip(call.dims) {
        *slot = d as u64;
    }
    h
}

/// The sizes a header carries (the first [`SHOWN_DIMS`] of a larger rank).
fn dims_of(h: &[u64]) -> Vec<usize> {
    let rank = (h[3] as usize).min(SHOWN_DIMS);
    h[5..5 + rank].iter().map(|&d| d as usize).collect()
}

/// What rank `ra`'s header `a` and rank `rb`'s header `b` disagree on.
fn describe(ra: usize, a: &[u64], rb: usize, b: &[u64]) -> DistError {
    let op = Op::from_code(a[0]).map_or("collective", Op::name);
    let other = Op::from_code(b[0]).map_or("another collective", Op::name);
    let disagree = |message: String| DistError::Disagreement { op, message };
    if a[0] != b[0] {
        return disagree(format!(
            "rank {ra} called {op} but rank {rb} called {other}; every rank must call the same \
             collectives in the same order"
        ));
    }
    if a[1] != b[1] {
        let name = |code| {
            DTYPES
                .into_iter()
                .find(|n| dtype_code(n) == code)
                .unwrap_or("another type")
        };
        return disagree(format!(
            "the tensor on rank {ra} has elements of {} but the tensor on rank {rb} of {}",
            name(a[1]),
            name(b[1])
        ));
    }
    if a[3..] != b[3..] {
        return DistError::ShapeMismatch {
            op,
            rank_a: ra,
            shape_a: dims_of(a),
            rank_b: rb,
            shape_b: dims_of(b),
        };
    }
    let what = |x: u64| match ReduceOp::from_code(x) {
        Some(r) if a[0] != Op::Broadcast.code() => format!("reduces with {r}"),
        _ => format!("broadcasts from root {x}"),
    };
    disagree(format!(
        "rank {ra} {} but rank {rb} {}",
        what(a[2]),
        what(b[2])
    ))
}

/// Checks that the headers `all` (rank after rank) agree; the error names
/// rank 0 and the first rank that differs from it, identically on every
/// rank.
pub(crate) fn agree(all: &[u64]) -> Result<(), DistError> {
    let first = &all[..HEADER_LEN];
    for (rank, h) in all.chunks_exact(HEADER_LEN).enumerate().skip(1) {
        if h != first {
            return Err(describe(0, first, rank, h));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(op: Op, dtype: &'static str, extra: u64, dims: &[usize]) -> Vec<u64> {
        header(&Call {
            op,
            dtype,
            extra,
            dims,
        })
        .to_vec()
    }

    fn agree_two(a: Vec<u64>, b: Vec<u64>) -> Result<(), DistError> {
        agree(&[a, b].concat())
    }

    #[test]
    fn equal_headers_agree() {
        let h = call(Op::AllReduce, "float32", 1, &[2, 3]);
        assert_eq!(agree(&[h.clone(), h.clone(), h].concat()), Ok(()));
    }

    #[test]
    fn shapes_are_named() {
        let e = agree_two(
            call(Op::AllReduce, "float32", 1, &[2, 3]),
            call(Op::AllReduce, "float32", 1, &[3, 2]),
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "all_reduce_: the tensor on rank 0 has shape [2, 3] but the tensor on rank 1 has \
             shape [3, 2]; every rank must pass the same shape"
        );
    }

    #[test]
    fn the_first_differing_rank_is_named() {
        let a = call(Op::AllGather, "int64", 0, &[4]);
        let b = call(Op::AllGather, "int64", 0, &[5]);
        let e = agree(&[a.clone(), a, b].concat()).unwrap_err();
        assert!(e.to_string().contains("rank 2 has shape [5]"), "{e}");
    }

    #[test]
    fn ranks_differ_beyond_the_shown_sizes() {
        let mut big = vec![1usize; 20];
        let a = call(Op::Broadcast, "float64", 0, &big);
        big[19] = 2;
        let b = call(Op::Broadcast, "float64", 0, &big);
        assert!(matches!(
            agree_two(a, b),
            Err(DistError::ShapeMismatch { .. })
        ));
    }

    #[test]
    fn other_disagreements() {
        let msg = |a, b| agree_two(a, b).unwrap_err().to_string();
        assert_eq!(
            msg(
                call(Op::AllReduce, "float32", 1, &[2]),
                call(Op::Broadcast, "float32", 0, &[2])
            ),
            "all_reduce_: rank 0 called all_reduce_ but rank 1 called broadcast_; every rank \
             must call the same collectives in the same order"
        );
        assert_eq!(
            msg(
                call(Op::AllReduce, "float32", 1, &[2]),
                call(Op::AllReduce, "int64", 1, &[2])
            ),
            "all_reduce_: the tensor on rank 0 has elements of float32 but the tensor on rank 1 \
             of int64"
        );
        assert_eq!(
            msg(
                call(Op::AllReduce, "float32", 1, &[2]),
                call(Op::AllReduce, "float32", 3, &[2])
            ),
            "all_reduce_: rank 0 reduces with sum but rank 1 reduces with max"
        );
        assert_eq!(
            msg(
                call(Op::Broadcast, "float32", 0, &[2]),
                call(Op::Broadcast, "float32", 1, &[2])
            ),
            "broadcast_: rank 0 broadcasts from root 0 but rank 1 broadcasts from root 1"
        );
    }
}
