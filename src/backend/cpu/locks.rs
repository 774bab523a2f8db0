//! The one lock order: an operation that writes a storage while holding
//! guards on others takes all of its guards in the order of the storages'
//! addresses, so that two threads writing each other's operands
//! (`a.add_out(&a, &mut b)` against `b.add_out(&b, &mut a)`) cannot each
//! hold the guard the other waits for.
//!
//! Two operands on the same storage share one place in the order: reads are
//! recursive (`Storage::read`), so reading one storage twice is one step, and
//! a written storage is never also read (callers copy such an operand
//! first). Read-only operations may take their guards in any order: a
//! recursive read never waits behind a queued writer, and each operation
//! holds at most one write guard, so no cycle can pass through them.
//! `ops::index::gather` follows the same rule with an optional operand.

use std::sync::Arc;

use super::storage::Storage;

/// A storage's address: its place in the lock order.
pub(crate) fn addr<T>(s: &Arc<Storage<T>>) -> usize {
    Arc::as_ptr(s) as *const () as usize
}

/// Whether two storages are the same buffer.
pub(crate) fn same_storage<A, B>(a: &Arc<Storage<A>>, b: &Arc<Storage<B>>) -> bool {
    addr(a) == addr(b)
}

use super::storage::{Read, Write};

/// Read guards on `a` and `b` and the write guard on `out`, in the lock
/// order. `out` must be another storage than `a`'s and `b`'s.
///
/// Only the write guard's place matters: the reads of storages below
/// `out`'s address come before it and the others after it. Two reads never
/// wait for each other (they are recursive), so their own order is free:
/// a thread waits on a read only while another holds that storage's write
/// guard, and every such wait points to a higher address than the waiting
/// thread's own write guard, so no wait closes a cycle.
#[inline]
pub(crate) fn read2_write<'s, A, B, O>(
    a: &'s Arc<Storage<A>>,
    b: &'s Arc<Storage<B>>,
    out: &'s Arc<Storage<O>>,
) -> (Read<'s, A>, Read<'s, B>, Write<'s, O>) {
    debug_assert!(!same_storage(a, out) && !same_storage(b, out));
    let o = addr(out);
    let ga = (addr(a) < o).then(|| a.read_brief());
    let gb = (addr(b) < o).then(|| b.read_brief());
    let go = out.write_brief();
    let ga = ga.unwrap_or_else(|| a.read_brief());
    let gb = gb.unwrap_or_else(|| b.read_brief());
    (ga, gb, go)
}

/// The read guard on `b` and the write guard on `out`, taken in address
/// order. `out` must be another storage than `b`'s.
pub(crate) fn read_write<'s, B, O>(
    b: &'s Arc<Storage<B>>,
    out: &'s Arc<Storage<O>>,
) -> (Read<'s, B>, Write<'s, O>) {
    debug_assert!(!same_storage(b, out));
    if addr(b) < addr(out) {
        let gb = b.read_brief();
        (gb, out.write_brief())
    } else {
        let go = out.write_brief();
        (b.read_brief(), go)
    }
}
