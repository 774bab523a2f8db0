//! Compile errors of conversions: a static shape is not `From` a `Vec` (its
//! length is a run-time fact; `TryFrom` is). The failing case in
//! `ui-tests/convert/` has a compiling twin in `ui-tests/convert/pass/`.
//! Refresh the snapshot with `TRYBUILD=overwrite cargo test --test ui_convert`.

mod ui_support;

#[test]
fn conversion_errors_read_well() {
    if !ui_support::snapshot_compiler() {
        return;
    }
    let t = trybuild::TestCases::new();
    t.pass("ui-tests/convert/pass/*.rs");
    t.compile_fail("ui-tests/convert/*.rs");
}
