#!/usr/bin/env bash
# Fuzzes the dynamic shape API (fuzz/fuzz_targets/dynamic_shapes.rs) with
# cargo-fuzz (libFuzzer + AddressSanitizer, nightly) for N seconds
# (default 600). Installs cargo-fuzz when missing. A finding is written to
# fuzz/artifacts/dynamic_shapes/ and reproduced with
# `cargo +nightly fuzz run dynamic_shapes <file>`.
#
#   scripts/fuzz.sh 3600     # an hour
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-600}"
if ! cargo +nightly --version >/dev/null 2>&1; then
    echo "skipped: no nightly toolchain"
    exit 0
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz
fi
# The target asks for terabytes on purpose and expects an error back.
export ASAN_OPTIONS="allocator_may_return_null=1:${ASAN_OPTIONS:-}"
mkdir -p fuzz/corpus/dynamic_shapes
cargo +nightly fuzz run dynamic_shapes fuzz/corpus/dynamic_shapes -- \
    -max_total_time="$seconds" -max_len=256 -print_final_stats=1
