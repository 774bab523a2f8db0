//! Compile errors of views and of element types: squeezing a dimension that
//! is not 1, transposing an axis out of range, broadcasting to a shape that
//! does not fit, reshaping to another element count (a build-time error),
//! adding tensors of two element types. Each failing case in
//! `ui-tests/views/` has a compiling twin in `ui-tests/views/pass/`. Refresh
//! the snapshots with `TRYBUILD=overwrite cargo test --test ui_views`.

mod ui_support;

#[test]
fn view_errors_read_well() {
    if !ui_support::snapshot_compiler() {
        return;
    }
    let t = trybuild::TestCases::new();
    t.pass("ui-tests/views/pass/*.rs");
    t.compile_fail("ui-tests/views/*.rs");
}
