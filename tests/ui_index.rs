//! Compile errors of indexing: an index tensor must hold `i64` or `i32`, an
//! index with more entries than a static shape has axes does not build, and
//! `take_along_dim` broadcasts its operands on every axis but its own (a
//! size-1 index axis is `One`, two other sizes must be equal).
//! Each failing case in `ui-tests/index/` has a compiling twin in
//! `ui-tests/index/pass/`, so each failure proves its rule, not a typo.
//! Refresh the snapshots with `TRYBUILD=overwrite cargo test --test ui_index`.

#[test]
fn ui_index() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui-tests/index/*.rs");
    t.pass("ui-tests/index/pass/*.rs");
}
