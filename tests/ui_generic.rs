//! Generic dimensions: with only `B: Dim` (and `S: Shape`) every rule whose
//! result the types decide compiles (`ui-tests/generic/pass/`), as do two
//! parameters stated equal with `EqualDim`; two different parameters
//! without it are an error that says how to go on, and a caller whose sizes
//! break `EqualDim` an error at its call (`ui-tests/generic/`). Refresh the snapshots with
//! `TRYBUILD=overwrite cargo test --test ui_generic`.

mod ui_support;

#[test]
fn generic_dims_compile() {
    if !ui_support::snapshot_compiler() {
        return;
    }
    let t = trybuild::TestCases::new();
    t.pass("ui-tests/generic/pass/*.rs");
    t.compile_fail("ui-tests/generic/*.rs");
}
