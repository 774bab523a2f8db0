//! Compile errors of `tensor![...]`: ragged and mixed-depth literals are
//! reported on the offending row or element, and a literal's static shape
//! takes part in broadcasting checks. Snapshots recorded with rustc 1.95.

mod ui_support;

#[test]
fn ui_tensor_literal() {
    if !ui_support::snapshot_compiler() {
        return;
    }
    let t = trybuild::TestCases::new();
    t.compile_fail("ui-tests/tensor_literal/*.rs");
}
