//! Compile-time checks of reductions: an axis out of range and a `sum_to`
//! target that does not broadcast are type errors whose message says so.
//! Each failing case has a compiling twin (`*_pass.rs`), so the failure
//! proves the rule, not a typo. Refresh snapshots with
//! `TRYBUILD=overwrite cargo test --test ui_reduce`.

#[test]
fn reduce_ui() {
    let t = trybuild::TestCases::new();
    t.pass("ui-tests/reduce/axis_in_range_pass.rs");
    t.pass("ui-tests/reduce/sum_to_pass.rs");
    t.compile_fail("ui-tests/reduce/axis_out_of_range.rs");
    t.compile_fail("ui-tests/reduce/keepdim_axis_out_of_range.rs");
    t.compile_fail("ui-tests/reduce/sum_to_not_broadcast.rs");
}
