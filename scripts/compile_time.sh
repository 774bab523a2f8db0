#!/usr/bin/env bash
# Compile-time cost of static broadcasting (issue 16's bound: 300 rank-6
# static broadcasts type-check in under 1 s more than an empty program).
#
# Writes a throwaway crate that depends on this one, with two binaries: one
# with N (default 300) additions of tensors of distinct rank-6 static shapes
# (`Shape![k, 1, 3, 1, 5, 1] + Shape![1, 4, 1, 6, 1, 7]`, k = 2..N+1, so no
# two share a broadcast), and one empty `main`. `shaped` is built once; then
# each binary is type-checked (`cargo check`) R times (default 3) after a
# touch, and the fastest time of each is printed with the difference. Both
# are measured in the same run, so a loaded machine slows both alike. A third
# binary does N in-place additions (`a += &b`, the chained in-place rule) of
# the same rank-6 shapes, timed the same way.
#
# Usage: scripts/compile_time.sh [N] [R]
#        scripts/compile_time.sh gpt [ROUNDS] [REV...]   (a user's GPT crate:
#        release rebuild after a one-line edit, debug and release steps,
#        revisions side by side; see scripts/user_crate_time.sh)
set -euo pipefail

if [ "${1:-}" = gpt ]; then
    shift
    exec "$(dirname "$0")/user_crate_time.sh" "$@"
fi

root=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-300}
runs=${2:-3}
work="$root/target/compile_time"
# Share the build of `shaped` and its dependencies with the repository.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
mkdir -p "$work/src/bin"

cat > "$work/Cargo.toml" <<TOML
[package]
name = "shaped-compile-time"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
shaped = { path = "$root" }

[workspace]
TOML

{
    echo "use shaped::{Shape, Tensor};"
    for k in $(seq 2 $((n + 1))); do
        echo "pub fn f$k(a: &Tensor<f32, Shape![$k, 1, 3, 1, 5, 1]>, b: &Tensor<f32, Shape![1, 4, 1, 6, 1, 7]>) -> Tensor<f32, Shape![$k, 4, 3, 6, 5, 7]> { a + b }"
    done
    echo "fn main() {}"
} > "$work/src/bin/broadcasts.rs"
{
    echo "use shaped::{Shape, Tensor};"
    for k in $(seq 2 $((n + 1))); do
        echo "pub fn f$k(a: &mut Tensor<f32, Shape![$k, 4, 3, 6, 5, 7]>, b: &Tensor<f32, Shape![1, 4, 1, 6, 1, 7]>) { *a += b; }"
    done
    echo "fn main() {}"
} > "$work/src/bin/inplace.rs"
echo "fn main() {}" > "$work/src/bin/empty.rs"

cd "$work"
cargo check --quiet --bin empty

best() {
    local bin=$1 best=""
    for _ in $(seq "$runs"); do
        touch "src/bin/$bin.rs"
        local t0 t1
        t0=$(date +%s.%N)
        cargo check --quiet --bin "$bin"
        t1=$(date +%s.%N)
        local dt
        dt=$(echo "$t1 - $t0" | bc)
        if [ -z "$best" ] || [ "$(echo "$dt < $best" | bc)" = 1 ]; then best=$dt; fi
    done
    echo "$best"
}

empty=$(best empty)
broadcasts=$(best broadcasts)
printf 'empty program:            %.2f s\n' "$empty"
printf '%d rank-6 broadcasts:    %.2f s\n' "$n" "$broadcasts"
printf 'difference:               %.2f s\n' "$(echo "$broadcasts - $empty" | bc)"
inplace=$(best inplace)
printf '%d rank-6 in-place adds: %.2f s\n' "$n" "$inplace"
printf 'difference:               %.2f s\n' "$(echo "$inplace - $empty" | bc)"
