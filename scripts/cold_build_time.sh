#!/usr/bin/env bash
# Cold `cargo build --release` time of a hello-world crate that depends on
# `shaped` by path: once with default features, once with
# `default-features = false`, each in a fresh CARGO_TARGET_DIR (the crates
# are already downloaded: only compiling is timed). Prints the seconds and
# how many crates were compiled. Run on a quiet machine:
#     bash scripts/cold_build_time.sh
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

run() {
    local label="$1" dep="$2"
    local app="$work/app-$label"
    mkdir -p "$app/src"
    cat > "$app/Cargo.toml" <<TOML
[package]
name = "hello-shaped"
version = "0.1.0"
edition = "2024"

[dependencies]
$dep

[workspace]
TOML
    cat > "$app/src/main.rs" <<'RS'
use shaped::{Shape, Tensor};
fn main() {
    let a = Tensor::<f32, Shape![2, 3]>::ones();
    let b = Tensor::<f32, Shape![3, 2]>::ones();
    println!("{}", a.matmul(&b));
}
RS
    (cd "$app" && cargo fetch -q)
    local target="$work/target-$label"
    local start end
    start=$(date +%s.%N)
    (cd "$app" && CARGO_TARGET_DIR="$target" cargo build --release -q)
    end=$(date +%s.%N)
    local crates
    crates=$(cd "$app" && cargo tree -e normal,build --prefix none | sed 's/ (\*)//; s/ (proc-macro)//' | sort -u | wc -l)
    printf '%-22s %6.1f s  %3d crates (hello-world and shaped included)\n' \
        "$label" "$(echo "$end - $start" | bc)" "$crates"
}

echo "cores: $(nproc); rustc: $(rustc --version)"
run "default-features" "shaped = { path = \"$repo\" }"
run "no-default-features" "shaped = { path = \"$repo\", default-features = false }"
