//! Compile-fail cases for matrix products, each with a compiling twin: a
//! contracted-size mismatch, a batch mismatch (`matmul` broadcasting and
//! `bmm` not), an in-place fused product whose input has the wrong shape, a
//! fused input that does not broadcast, and a non-matrix or mismatched
//! inner sizes given to `mm`.
//!
//! The `.stderr` snapshots are recorded with rustc 1.95; on another
//! compiler the messages' layout may differ, so the cases are skipped with a
//! note (refresh with `TRYBUILD=overwrite cargo test --test ui_matmul`).

mod ui_support;

use ui_support::snapshot_compiler;

#[test]
fn matmul_errors_read_well() {
    if !snapshot_compiler() {
        return;
    }
    let t = trybuild::TestCases::new();
    t.pass("ui-tests/matmul/pass/*.rs");
    t.compile_fail("ui-tests/matmul/*.rs");
}
