//! Generic dimensions: with only `B: Dim` (and `S: Shape`) every rule whose
//! result the types decide compiles (`ui-tests/generic/pass/`), and two
//! different parameters are an error that says how to check them at run
//! time (`ui-tests/generic/`). Refresh the snapshots with
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
