//! Compile-fail cases for mixing devices, with a compiling twin. Needs no
//! `cuda` feature: the `Cuda` device type exists in every build. The
//! `.stderr` snapshots are recorded with rustc 1.95 (see `ui_support`;
//! refresh with `TRYBUILD=overwrite cargo test --test ui_device`).

mod ui_support;

#[test]
fn mixed_devices_do_not_compile() {
    if !ui_support::snapshot_compiler() {
        return;
    }
    let t = trybuild::TestCases::new();
    t.pass("ui-tests/device/pass/*.rs");
    t.compile_fail("ui-tests/device/*.rs");
}
