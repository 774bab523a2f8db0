//! A C++ compiler on the host standing in for NVRTC: the op-table and cast
//! tests compile the CUDA expressions into a small program that reads cases
//! on standard input and prints one result per line.

use std::io::Write;
use std::process::{Command, Stdio};

/// Compiles `source` (C++17) as the program `name` and runs it on `input`,
/// returning its output lines; `None`, after printing "skipped: ...", when
/// the machine has no C++ compiler (`$CXX`, else `c++`).
///
/// # Panics
/// When the source does not compile (with the compiler's messages).
pub fn compile_and_run(name: &str, source: &str, input: String) -> Option<Vec<String>> {
    let compiler = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
    if Command::new(&compiler).arg("--version").output().is_err() {
        println!("skipped: no host C++ compiler (`{compiler}`) to compile the CUDA C");
        return None;
    }
    let dir = std::env::temp_dir().join(format!("shaped-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (src, bin) = (dir.join(format!("{name}.cpp")), dir.join(name));
    std::fs::write(&src, source).unwrap();
    let built = Command::new(&compiler)
        .args(["-std=c++17", "-O1", "-w", "-o"])
        .arg(&bin)
        .arg(&src)
        .output()
        .expect("run the C++ compiler");
    assert!(
        built.status.success(),
        "the CUDA C of {name} does not compile for the host:\n{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let mut child = Command::new(&bin)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()).unwrap());
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    std::fs::remove_dir_all(&dir).ok();
    Some(
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect(),
    )
}
