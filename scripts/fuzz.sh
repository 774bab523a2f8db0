#!/usr/bin/env bash
# Runs the cargo-fuzz targets in fuzz/fuzz_targets/ (libFuzzer +
# AddressSanitizer, nightly), one after another, each for N seconds
# (default 600). Installs cargo-fuzz when missing. A finding is written to
# fuzz/artifacts/TARGET/ and reproduced with
# `cargo +nightly fuzz run TARGET <file>`.
#
#   scripts/fuzz.sh                  # every target, 600 s each
#   scripts/fuzz.sh npy 60           # one target, a minute
#   scripts/fuzz.sh npy npz 120      # two targets, 2 minutes each
#
# Then each loader's corpus (every input the fuzzing kept) is replayed in
# a release build without the sanitizer (fuzz/replay/main.rs): a load
# slower than 100 ms, or allocating more than twice the file's size (what
# a deflated npz member or JSON text legitimately expands to aside), fails
# the script, naming the file.
#
# Targets: dynamic_shapes (the run-time shape API), npy, npz, serde_json and
# safetensors (the loaders of untrusted bytes). The loaders' corpora are
# seeded, when empty, with the files under tests/data/ (written by NumPy
# and PyTorch) and a few JSON tensors; the corpora stay out of git.
set -euo pipefail
cd "$(dirname "$0")/.."
all=(dynamic_shapes npy npz serde_json safetensors)
targets=()
seconds=600
for arg in "$@"; do
    if [[ "$arg" =~ ^[0-9]+$ ]]; then
        seconds="$arg"
    elif [[ " ${all[*]} " == *" $arg "* ]]; then
        targets+=("$arg")
    else
        echo "unknown target '$arg' (targets: ${all[*]})" >&2
        exit 2
    fi
done
if [ ${#targets[@]} -eq 0 ]; then
    targets=("${all[@]}")
fi
if ! cargo +nightly --version >/dev/null 2>&1; then
    echo "skipped: no nightly toolchain"
    exit 0
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz
fi

# Copies the files matching a glob into an empty corpus.
seed() {
    local dir="$1"
    shift
    if [ -z "$(ls -A "$dir" 2>/dev/null)" ]; then
        mkdir -p "$dir"
        for f in "$@"; do
            [ -f "$f" ] && cp "$f" "$dir/"
        done
    fi
    return 0
}

for target in "${targets[@]}"; do
    corpus="fuzz/corpus/$target"
    mkdir -p "$corpus"
    max_len=256
    case "$target" in
    npy)
        seed "$corpus" tests/data/npy/*.npy
        max_len=4096
        ;;
    npz)
        seed "$corpus" tests/data/npy/*.npz
        max_len=8192
        ;;
    safetensors)
        seed "$corpus" tests/data/safetensors/*.safetensors
        max_len=8192
        ;;
    serde_json)
        if [ -z "$(ls -A "$corpus")" ]; then
            printf '{"shape":[2,2],"data":[1,2,3,4]}' >"$corpus/2x2"
            printf '{"shape":[],"data":[0.5]}' >"$corpus/scalar"
            printf '{"shape":[0,3],"data":[]}' >"$corpus/empty"
            printf '{"data":[true,false],"shape":[2]}' >"$corpus/bool"
        fi
        max_len=1024
        ;;
    esac
    # dynamic_shapes asks for terabytes on purpose and expects an error back.
    ASAN_OPTIONS="allocator_may_return_null=1:${ASAN_OPTIONS:-}" \
        cargo +nightly fuzz run "$target" "$corpus" -- \
        -max_total_time="$seconds" -max_len="$max_len" -print_final_stats=1
done

for target in "${targets[@]}"; do
    if [ "$target" != dynamic_shapes ]; then
        cargo run --release --manifest-path fuzz/Cargo.toml --bin replay -- \
            "$target" "fuzz/corpus/$target"
    fi
done
