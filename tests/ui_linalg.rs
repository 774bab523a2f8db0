//! Compile-fail cases for linear algebra's shape rules (a non-square `inv`,
//! a `solve` whose n differ), each with a compiling twin. The `.stderr`
//! snapshots are recorded with rustc 1.95; on another compiler the cases are
//! skipped with a note (refresh with
//! `TRYBUILD=overwrite cargo test --test ui_linalg`).

mod ui_support;

#[test]
fn linalg_errors_read_well() {
    if !ui_support::snapshot_compiler() {
        return;
    }
    let t = trybuild::TestCases::new();
    t.pass("ui-tests/linalg/pass/*.rs");
    t.compile_fail("ui-tests/linalg/*.rs");
}
