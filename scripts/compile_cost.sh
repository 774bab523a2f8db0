#!/usr/bin/env bash
# Compile cost of shaped at one or more revisions, side by side in one run
# on one machine (issue 37's bar):
#   lib    `cargo build --release --lib` of shaped after a touch of
#          src/lib.rs (its dependencies already built)
#   tests  `cargo test --workspace --no-run` after the same touch (every test
#          binary, example and bench rebuilt; dependencies already built)
#   user   a user's crate (release) that depends on shaped by path: 300
#          functions adding tensors of distinct rank-6 static shapes and 50
#          fused chains of distinct shapes, all referenced from `main`; its
#          build time after a touch (shaped already built) and its binary
#          size, as built and stripped
# Each revision is checked out in its own worktree under $work; all share
# one target directory, so dependencies are built once. Run on a quiet
# machine: nothing else should compile meanwhile.
#
# Usage: scripts/compile_cost.sh REV [REV...]
#        COMPILE_COST_TESTS=0 scripts/compile_cost.sh REV [REV...]
#            (without the `test --no-run` column: about half the time)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
work=${COMPILE_COST_DIR:-/tmp/compile_cost}
export CARGO_TARGET_DIR="$work/target"
export CARGO_INCREMENTAL=0
mkdir -p "$work"

# The wall time of a command in seconds, or "failed".
seconds() {
    local t0 t1
    t0=$(date +%s.%N)
    if ! "$@" >/dev/null 2>&1; then
        printf 'failed'
        return
    fi
    t1=$(date +%s.%N)
    printf '%.1f' "$(echo "$t1 - $t0" | bc)"
}

user_crate() {
    local dir=$1 shaped=$2
    mkdir -p "$dir/src"
    cat > "$dir/Cargo.toml" <<TOML
[package]
name = "shaped-compile-cost"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
shaped = { path = "$shaped" }

[workspace]
TOML
    {
        echo "use shaped::{Shape, Tensor};"
        echo "type B = Tensor<f32, Shape![1, 4, 1, 6, 1, 7]>;"
        for k in $(seq 2 301); do
            echo "fn f$k(a: &Tensor<f32, Shape![$k, 1, 3, 1, 5, 1]>, b: &B) -> Tensor<f32, Shape![$k, 4, 3, 6, 5, 7]> { a + b }"
        done
        for k in $(seq 2 51); do
            echo "fn g$k(a: &Tensor<f32, Shape![$k, 1, 3, 1, 5, 1]>, b: &B, c: &Tensor<f32, Shape![$k, 4, 3, 6, 5, 7]>) -> Tensor<f32, Shape![$k, 4, 3, 6, 5, 7]> { ((a.lazy() * b + c).relu() * b - 1.0).eval() }"
        done
        echo "fn main() {"
        for k in $(seq 2 301); do echo "    std::hint::black_box(f$k as fn(&_, &_) -> _);"; done
        for k in $(seq 2 51); do echo "    std::hint::black_box(g$k as fn(&_, &_, &_) -> _);"; done
        echo "}"
    } > "$dir/src/main.rs"
}

printf '| revision | lib release (s) | test --no-run (s) | user release (s) | user binary (bytes) | stripped (bytes) |\n'
printf '|---|---|---|---|---|---|\n'
for rev in "$@"; do
    sha=$(git -C "$root" rev-parse --short "$rev")
    tree="$work/$sha"
    [ -d "$tree" ] || git -C "$root" worktree add -f --detach "$tree" "$sha" >/dev/null 2>&1
    user="$work/user-$sha"
    user_crate "$user" "$tree"
    # Warm-up: dependencies and shaped itself, for every measured build.
    (cd "$tree" && cargo build --release --lib >/dev/null 2>&1)
    [ "${COMPILE_COST_TESTS:-1}" = 0 ] || (cd "$tree" && cargo test --workspace --no-run >/dev/null 2>&1)
    (cd "$user" && cargo build --release >/dev/null 2>&1)
    touch "$tree/src/lib.rs"
    lib=$(cd "$tree" && seconds cargo build --release --lib)
    # The touch made the user's build of shaped stale: rebuilt, untimed.
    (cd "$user" && cargo build --release >/dev/null 2>&1)
    touch "$user/src/main.rs"
    usr=$(cd "$user" && seconds cargo build --release)
    tests=skipped
    if [ "${COMPILE_COST_TESTS:-1}" != 0 ]; then
        touch "$tree/src/lib.rs"
        tests=$(cd "$tree" && seconds cargo test --workspace --no-run)
    fi
    bin="$CARGO_TARGET_DIR/release/shaped-compile-cost"
    size=$(stat -c %s "$bin")
    strip -o "$work/stripped" "$bin"
    stripped=$(stat -c %s "$work/stripped")
    printf '| %s | %s | %s | %s | %s | %s |\n' "$sha" "$lib" "$tests" "$usr" "$size" "$stripped"
done
