//! Compile-fail cases for reductions, each with a compiling twin in
//! `ui-tests/reduce/pass/`: an axis out of range, a `sum_to` target that
//! does not broadcast and `topk` of a 0-d tensor (no last axis) are type
//! errors whose message says so. The `.stderr`
//! snapshots are recorded with rustc 1.95; on another compiler the cases are
//! skipped with a note (refresh with `TRYBUILD=overwrite cargo test --test
//! ui_reduce`).

mod ui_support;

#[test]
fn reduction_errors_read_well() {
    if !ui_support::snapshot_compiler() {
        return;
    }
    let t = trybuild::TestCases::new();
    t.pass("ui-tests/reduce/pass/*.rs");
    t.compile_fail("ui-tests/reduce/*.rs");
}
