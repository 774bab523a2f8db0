#!/usr/bin/env bash
# The instruction-count gate (run by .ci/run): each case of
# examples/bench_instructions.rs under callgrind, as instructions per call
# (the count with N2 calls minus the count with N1, over N2 - N1: start-up
# and set-up cancel), compared with its budget in
# benches/instruction_budgets.txt. Fails when a case exceeds its budget by
# more than 10%: raise the budget in the same commit, saying why in the
# commit message, or find the regression. One thread (RAYON_NUM_THREADS=1)
# so that no helper spins under valgrind, which runs threads one at a time;
# valgrind hides AVX-512 and AMX from the CPU detection, so the counts are
# those of the AVX2 paths on every x86-64 machine that has AVX2.
#
#   scripts/instruction_counts.sh            # check against the budgets
#   scripts/instruction_counts.sh --write    # print this CPU's section instead
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v valgrind >/dev/null 2>&1; then
    echo "skipped: valgrind not installed"
    exit 0
fi
cargo build --release --example bench_instructions
bin=target/release/examples/bench_instructions
budgets=benches/instruction_budgets.txt
N1=${N1:-10}
N2=${N2:-110}

count() { # case n -> instructions of the whole run
    RAYON_NUM_THREADS=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        "$bin" "$1" "$2" 2>&1 | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

# The budgets are counted per CPU model (a `cpu vendor-family-model` line
# opens each model's section): another model's libc string routines and
# GEMM blocking differ. On a model with its own section the gate allows
# 10%; on any other it checks the first section's budgets and allows 30%,
# and says so (add that model's section with --write when the project moves
# to it).
cpu=${SHAPED_ICOUNT_CPU:-$(awk -F': ' '/^vendor_id/ { v = $2 } /^cpu family/ { f = $2 } /^model\t/ { m = $2 } END { print v "-" f "-" m }' /proc/cpuinfo)}
section=$(awk -v c="$cpu" '$1 == "cpu" && $2 == c { print $2 }' "$budgets")
allowed=10
if [ -z "$section" ]; then
    section=$(awk '$1 == "cpu" { print $2; exit }' "$budgets")
    allowed=30
    [ "${1:-}" = "--write" ] || echo "note: no budgets for this CPU ($cpu): checking $section's, allowing +$allowed%"
fi

failed=0
[ "${1:-}" = "--write" ] && echo "cpu $cpu"
[ "${1:-}" = "--write" ] || printf '%-22s %12s %12s %7s\n' case per_call budget ratio
for case in $("$bin" list); do
    a=$(count "$case" "$N1")
    b=$(count "$case" "$N2")
    if [ -z "$a" ] || [ -z "$b" ]; then
        echo "$case: callgrind gave no count" >&2
        exit 1
    fi
    per=$(( (b - a) / (N2 - N1) ))
    if [ "${1:-}" = "--write" ]; then
        echo "$case $per"
        continue
    fi
    budget=$(awk -v s="$section" -v c="$case" '$1 == "cpu" { in_s = ($2 == s) } in_s && $1 == c { print $2 }' "$budgets")
    if [ -z "$budget" ]; then
        echo "$case: no budget in $budgets" >&2
        failed=1
        continue
    fi
    ratio=$(awk -v p="$per" -v b="$budget" 'BEGIN { printf "%.3f", p / b }')
    verdict=""
    if [ "$per" -gt $(( budget * (100 + allowed) / 100 )) ]; then
        verdict="  OVER BUDGET (+$allowed% allowed)"
        failed=1
    fi
    printf '%-22s %12d %12d %7s%s\n' "$case" "$per" "$budget" "$ratio" "$verdict"
done
if [ "$failed" -ne 0 ]; then
    echo "instruction counts: over budget (see above). A deliberate cost: raise its line in $budgets in the same commit and say why in the commit message." >&2
    exit 1
fi
[ "${1:-}" = "--write" ] || echo "instruction counts: every case within $allowed% of its budget"
