//! Shared by the trybuild runners: the compiler the snapshots were recorded
//! with.

/// The rustc release the `.stderr` snapshots under `ui-tests/` match.
pub const SNAPSHOT_RUSTC: &str = "rustc 1.95.";

/// Whether this compiler is the one the snapshots were recorded with;
/// prints why the cases are skipped otherwise.
pub fn snapshot_compiler() -> bool {
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
