#!/usr/bin/env bash
# The test suite under AddressSanitizer (nightly): out-of-bounds reads and
# writes, use after free, leaks. Arguments go to `cargo test` (default: the
# library's unit tests and every integration test; the doctests are left
# out, as rustdoc does not build them with the sanitizer).
#
#   scripts/asan.sh                        # lib + all tests (long)
#   scripts/asan.sh --test reliability     # one test file
#
# `allocator_may_return_null=1`: the tests ask for terabytes on purpose and
# expect an error back, where ASan would otherwise abort. Its own build
# directory (target/asan), so the normal build is not invalidated.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! cargo +nightly --version >/dev/null 2>&1; then
    echo "skipped: no nightly toolchain"
    exit 0
fi
export RUSTFLAGS="-Zsanitizer=address ${RUSTFLAGS:-}"
export RUSTDOCFLAGS="-Zsanitizer=address ${RUSTDOCFLAGS:-}"
export ASAN_OPTIONS="allocator_may_return_null=1:detect_leaks=1:${ASAN_OPTIONS:-}"
export CARGO_TARGET_DIR=target/asan
if [ "$#" -eq 0 ]; then
    set -- --lib --tests
fi
cargo +nightly test --target x86_64-unknown-linux-gnu "$@"
