#!/usr/bin/env bash
# Runs the differential test (tests/differential.rs: the dynamic API against
# a naive index-by-index reference) for N minutes (default 10), in rounds of
# PROPTEST_CASES cases per property, each round with fresh random seeds.
# Stops at the first failure, which proptest prints minimised.
#
#   scripts/differential.sh 30     # half an hour
set -euo pipefail
cd "$(dirname "$0")/.."
minutes="${1:-10}"
export PROPTEST_CASES="${PROPTEST_CASES:-20000}"
cargo test --release --test differential --no-run
end=$(( $(date +%s) + minutes * 60 ))
rounds=0
while [ "$(date +%s)" -lt "$end" ]; do
    cargo test --release --quiet --test differential >/dev/null 2>target/differential.log \
        || { cat target/differential.log; echo "FAILED after $rounds rounds"; exit 1; }
    rounds=$((rounds + 1))
done
echo "differential: $rounds rounds of $PROPTEST_CASES cases per property (6 properties), no failure"
