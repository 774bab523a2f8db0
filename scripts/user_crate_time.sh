#!/usr/bin/env bash
# A user's edit-run loop on the GPT of examples/gpt (issue 40), for one or
# more revisions of shaped side by side: the ~200-line typed training
# program (`examples/bench_gpt.rs` and `examples/gpt/model.rs`) as a crate of
# its own that depends on shaped by path, with the README's recommended
# profile. For each revision it prints
#   - the release rebuild after a one-line edit of the user's `main.rs`
#     (the fastest of ROUNDS, rounds interleaved across revisions so that a
#     loaded machine slows all alike), and the binary's size;
#   - the training step (1 layer, batch 2, block 256; median of 4 steps) of
#     the release build and of the debug build with that profile, and
#     their ratio (the bar: within 2x).
#
# Usage: scripts/user_crate_time.sh [ROUNDS=2] [REV...]   (default REV: HEAD)
# Also reached as `scripts/compile_time.sh gpt ...`. Each revision is
# checked out with `git worktree` under target/user_crate_time/, and built
# cold once per profile (about 3 + 4 minutes on 2 cores) before the timed
# rebuilds; later runs reuse them (remove them with
# `git worktree remove --force target/user_crate_time/shaped-*`). Run it
# with nothing else running.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-2}
shift || true
revs=("$@")
[ ${#revs[@]} -gt 0 ] || revs=(HEAD)
work="$root/target/user_crate_time"
mkdir -p "$work"
export CARGO_INCREMENTAL=0

# The profile the README recommends for a user's crate (PROFILE=short:
# `opt-level = 3` alone, the dependencies keeping their debug checks).
profile='[profile.dev.package."*"]
opt-level = 3'
if [ "${PROFILE:-}" != short ]; then
    profile="$profile
debug-assertions = false
overflow-checks = false"
fi

crates=()
for rev in "${revs[@]}"; do
    sha=$(git -C "$root" rev-parse --short "$rev")
    tree="$work/shaped-$sha"
    if [ ! -d "$tree" ]; then
        git -C "$root" worktree add --detach --force "$tree" "$sha" >/dev/null
    fi
    crate="$work/user-$sha"
    mkdir -p "$crate/src"
    cat > "$crate/Cargo.toml" <<TOML
[package]
name = "usercrate"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
shaped = { path = "$tree" }

$profile

[workspace]
TOML
    grep -v '^#\[path' "$tree/examples/bench_gpt.rs" > "$crate/src/main.rs"
    cp "$tree/examples/gpt/model.rs" "$crate/src/model.rs"
    grep -q 'unwrap_or(6)' "$crate/src/main.rs" || {
        echo "examples/bench_gpt.rs at $sha has no \`unwrap_or(6)\` to edit" >&2
        exit 1
    }
    echo "== $sha: cold builds (release, debug)" >&2
    (cd "$crate" && cargo build --quiet --release && cargo build --quiet)
    crates+=("$sha")
done

# The one-line edit: the default layer count, 6 <-> 5, both ways a rebuild.
edit() {
    local f=$1
    if grep -q 'unwrap_or(6)' "$f"; then
        sed -i 's/unwrap_or(6)/unwrap_or(5)/' "$f"
    else
        sed -i 's/unwrap_or(5)/unwrap_or(6)/' "$f"
    fi
}

declare -A best
for _ in $(seq "$rounds"); do
    for sha in "${crates[@]}"; do
        crate="$work/user-$sha"
        edit "$crate/src/main.rs"
        t0=$(date +%s.%N)
        (cd "$crate" && cargo build --quiet --release)
        t1=$(date +%s.%N)
        dt=$(echo "$t1 - $t0" | bc)
        echo "$sha release rebuild: $dt s" >&2
        if [ -z "${best[$sha]:-}" ] || [ "$(echo "$dt < ${best[$sha]}" | bc)" = 1 ]; then
            best[$sha]=$dt
        fi
    done
done

step() {
    "$1" 1 2 4 | awk -F'\t' '$1 == "gpt_step_ns" { printf "%.1f", $2 / 1e6 }'
}

echo
echo "| shaped | release rebuild after a one-line edit | binary | release step | debug step (profile) | debug / release |"
echo "|---|---|---|---|---|---|"
for sha in "${crates[@]}"; do
    crate="$work/user-$sha"
    (cd "$crate" && cargo build --quiet && cargo build --quiet --release)
    rel=$(step "$crate/target/release/usercrate")
    dbg=$(step "$crate/target/debug/usercrate")
    size=$(stat -c %s "$crate/target/release/usercrate")
    printf '| %s | %.2f s | %s B | %s ms | %s ms | %.2fx |\n' \
        "$sha" "${best[$sha]}" "$size" "$rel" "$dbg" "$(echo "$dbg / $rel" | bc -l)"
done
