//! Compile-fail cases for matrix products, each with a compiling twin: a
//! contracted-size mismatch, a batch mismatch (`matmul` broadcasting and
//! `bmm` not), an in-place fused product whose input has the wrong shape, a
//! fused input that does not broadcast, and a non-matrix given to `mm`.
//!
//! The `.stderr` snapshots are recorded with rustc 1.95; on another
//! compiler the messages' layout may differ, so the cases are skipped with a
//! note (refresh with `TRYBUILD=overwrite cargo test --test ui_matmul`).

/// The rustc release the snapshots under `ui-tests/matmul/` match.
const SNAPSHOT_RUSTC: &str = "rustc 1.95.";

/// Whether this compiler is the one the snapshots were recorded with;
/// prints why the cases are skipped otherwise.
fn snapshot_compiler() -> bool {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = std::process::Command::new(rustc)
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    let same = version.starts_with(SNAPSHOT_RUSTC);
    if !same {
        println!("skipped: ui snapshots are recorded with {SNAPSHOT_RUSTC}x, this is {version}");
    }
    same
}

#[test]
fn matmul_errors_read_well() {
    if !snapshot_compiler() {
        return;
    }
    let t = trybuild::TestCases::new();
    t.pass("ui-tests/matmul/pass/*.rs");
    t.compile_fail("ui-tests/matmul/*.rs");
}
