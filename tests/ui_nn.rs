//! Compile-fail cases for `nn` layers, with compiling twins: a `Linear`
//! applied to inputs of the wrong width (2-d, and a transformer's `(B, T,
//! C)` activations), two layers whose widths do not chain, attention whose
//! keys are split into other heads than its queries, and a padding mask of
//! another batch size.
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
