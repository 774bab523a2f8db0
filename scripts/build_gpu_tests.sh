#!/usr/bin/env bash
# Builds the CUDA test binaries and the CUDA bench here (a machine with Rust,
# no GPU needed), and puts them in .gpu/ with a run.sh, to copy to a GPU
# machine that has the CUDA driver and toolkit (for NVRTC) but no Rust:
#
#   scripts/build_gpu_tests.sh
#   rsync -a .gpu/ gpu-host:shaped-gpu/ && ssh gpu-host shaped-gpu/run.sh
#
# run.sh runs the NVRTC compile test, the CUDA-vs-CPU tests (failing, not
# skipping, when no GPU is found), the bench, and the PyTorch comparison
# when torch is installed there.
set -euo pipefail
cd "$(dirname "$0")/.."

out=.gpu
rm -rf "$out"
mkdir -p "$out"

# The executables cargo reports for a build, one per line.
executables() {
    python3 -c '
import json, sys
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        print(m["executable"])
'
}

echo "== building the CUDA tests (release)"
tests=$(ls tests/cuda_*.rs | xargs -n1 basename | sed 's/\.rs$//; s/^/--test /' | tr '\n' ' ')
# shellcheck disable=SC2086
cargo test --release --features cuda $tests --no-run --message-format=json \
    | executables | while read -r exe; do
        name=$(basename "$exe" | sed 's/-[0-9a-f]*$//')
        cp "$exe" "$out/$name"
    done

echo "== building the CUDA bench and the mlp example (release)"
for ex in bench_cuda mlp; do
    cargo build --release --features cuda --example "$ex" --message-format=json \
        | executables | while read -r exe; do cp "$exe" "$out/$ex"; done
done
# No debug info travels: the binaries are only run there.
strip "$out"/* 2>/dev/null || true

cp benches/compare_cuda.py "$out/"

cat > "$out/run.sh" <<'RUN'
#!/usr/bin/env bash
# Runs every CUDA test and the bench on this GPU machine. Needs the CUDA
# driver (libcuda) and NVRTC/cuBLAS from the toolkit; no Rust.
set -u
cd "$(dirname "$0")"
for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib /usr/lib/x86_64-linux-gnu; do
    if [ -d "$d" ]; then export LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"; fi
done
# cudarc looks for libnvrtc.so, libcublas.so, ... (unversioned, or .so.12):
# where the toolkit has only versioned names (CUDA 13's .so.13, or the
# nvidia-* wheels beside PyTorch), link the unversioned names to them.
libs=$(mktemp -d)
for l in nvrtc cublas cusolver; do
    f=""
    for root in /usr/local/cuda/ /usr/local/ /usr/lib/x86_64-linux-gnu/ /opt/ /usr/; do
        f=$(find "$root" -xdev -name "lib$l.so.[0-9]*" -type f 2>/dev/null | grep -v stub | sort -V | tail -1)
        [ -n "$f" ] && break
    done
    if [ -n "$f" ]; then
        ln -sf "$f" "$libs/lib$l.so"
        # Its companions (nvrtc-builtins, cublasLt) are found by soname there.
        export LD_LIBRARY_PATH="$(dirname "$f"):$LD_LIBRARY_PATH"
        echo "lib$l.so -> $f"
    fi
done
export LD_LIBRARY_PATH="$libs:$LD_LIBRARY_PATH"
export SHAPED_REQUIRE_CUDA=1 SHAPED_REQUIRE_NVRTC=1
status=0
# Every kernel to PTX and cubin (CI does this too, without a GPU; about
# five minutes on 16 cores): SKIP_NVRTC_TEST=1 leaves it out.
if [ -z "${SKIP_NVRTC_TEST:-}" ]; then
    echo "== NVRTC compile test"; ./cuda_kernels || status=1
fi
for t in cuda_*; do
    [ "$t" = cuda_kernels ] && continue
    echo "== CUDA vs CPU: $t"; ./"$t" || status=1
done
echo "== mlp example, CPU then GPU (the same losses, to rounding)"; ./mlp --device cpu || status=1; ./mlp --device cuda || status=1
echo "== bench"; ./bench_cuda | tee bench_cuda.tsv || status=1
if python3 -c "import torch" 2>/dev/null; then
    echo "== PyTorch on the same GPU"; python3 compare_cuda.py bench_cuda.tsv || status=1
else
    echo "(torch not installed: no PyTorch comparison)"
fi
exit $status
RUN
chmod +x "$out/run.sh"
ls -l "$out"
