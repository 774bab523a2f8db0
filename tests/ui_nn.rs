//! Compile-fail cases for `nn` layers, with a compiling twin: a `Linear`
//! applied to inputs of the wrong width, and two layers whose widths do not
//! chain.
//!
//! The `.stderr` snapshots are recorded with rustc 1.95; on another
//! compiler the messages' layout may differ, so the cases are skipped with a
//! note (refresh with `TRYBUILD=overwrite cargo test --test ui_nn`).

mod ui_support;

use ui_support::snapshot_compiler;

#[test]
fn layer_width_errors_read_well() {
    if !snapshot_compiler() {
        return;
    }
    let t = trybuild::TestCases::new();
    t.pass("ui-tests/nn/pass/*.rs");
    t.compile_fail("ui-tests/nn/*.rs");
}
