//! Compile errors of indexing: an index tensor must hold `i64` or `i32`, and
//! an index with more entries than a static shape has axes does not build.
//! Each failing case in `ui-tests/index/` has a compiling twin in
//! `ui-tests/index/pass/`, so each failure proves its rule, not a typo.
//! Refresh the snapshots with `TRYBUILD=overwrite cargo test --test ui_index`.

#[test]
fn ui_index() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui-tests/index/*.rs");
    t.pass("ui-tests/index/pass/*.rs");
}
