#!/usr/bin/env bash
# Miri with Tree Borrows over the unit tests that use no SIMD intrinsics or
# inline assembly, and over tests/reliability.rs (empty views, aliasing,
# partial overlap, integer edge cases). Prints "skipped: miri not available"
# when the nightly toolchain has no Miri.
#
# Left out, and why: `backend::cpu::amx` (AMX tiles through inline assembly)
# and `backend::cpu::store` / `backend::cpu::elementwise` (non-temporal SSE2
# stores, `_mm_stream_si128`/`_mm_sfence`), which Miri cannot run; in
# tests/reliability.rs the allocation tests (a request of terabytes stops
# Miri) and the deadlock tests (thousands of rounds on two threads), marked
# `#[cfg_attr(miri, ignore)]`.
#
#   scripts/miri.sh            # both parts (a few minutes)
#   scripts/miri.sh lib        # the unit tests only
#   scripts/miri.sh reliability
set -euo pipefail
cd "$(dirname "$0")/.."
if ! cargo +nightly miri --version >/dev/null 2>&1; then
    echo "skipped: miri not available"
    exit 0
fi
# The CPU pool's helper threads live for the whole process by design, so
# they are still running when `main` returns: not a leak to report. The
# kernels read the cache sizes from /sys, which Miri's isolation forbids.
export MIRIFLAGS="${MIRIFLAGS:--Zmiri-tree-borrows -Zmiri-ignore-leaks -Zmiri-disable-isolation}"
part="${1:-all}"
if [ "$part" = all ] || [ "$part" = lib ]; then
    echo "== miri: unit tests without SIMD intrinsics"
    cargo +nightly miri test --lib -- \
        --skip backend::cpu::amx --skip backend::cpu::store --skip backend::cpu::elementwise \
        --skip tensor::display
    echo "== miri: the elementwise kernels' loops without streaming stores"
    cargo +nightly miri test --lib backend::cpu::elementwise::tests::map3_repeats_stride_0_inputs
fi
if [ "$part" = all ] || [ "$part" = reliability ]; then
    echo "== miri: empty views and aliasing (tests/reliability.rs)"
    cargo +nightly miri test --test reliability
fi
