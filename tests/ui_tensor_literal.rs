//! Compile errors of `tensor![...]`: ragged and mixed-depth literals are
//! reported on the offending row or element, and a literal's static shape
//! takes part in broadcasting checks.

#[test]
fn ui_tensor_literal() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui-tests/tensor_literal/*.rs");
}
