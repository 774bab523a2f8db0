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
    // The compiling twins also make trybuild build (not only check) the
    // dependencies, as the other ui runners do (their build-time cases need
    // a build): with compile-fail cases only, it checked every dependency
    // again in a clean target (about 3.5 minutes of CI).
    t.pass("ui-tests/tensor_literal/pass/*.rs");
    t.compile_fail("ui-tests/tensor_literal/*.rs");
}
