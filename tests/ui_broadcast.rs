//! Compile-fail cases for broadcasting and the in-place rule, each with a
//! compiling twin. The `.stderr` snapshots are recorded with rustc 1.95; on
//! another compiler the messages' layout may differ, so the cases are skipped
//! with a note (refresh with `TRYBUILD=overwrite cargo test --test ui_broadcast`).

mod ui_support;

#[test]
fn broadcast_errors_read_well() {
    if !ui_support::snapshot_compiler() {
        return;
    }
    let t = trybuild::TestCases::new();
    t.pass("ui-tests/broadcast/pass/*.rs");
    t.compile_fail("ui-tests/broadcast/*.rs");
}
