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
cargo test --release --features cuda --test cuda_kernels --test cuda_ops --no-run --message-format=json \
    | executables | while read -r exe; do
        name=$(basename "$exe" | sed 's/-[0-9a-f]*$//')
        cp "$exe" "$out/$name"
    done

echo "== building the CUDA bench (release)"
cargo build --release --features cuda --example bench_cuda --message-format=json \
    | executables | while read -r exe; do cp "$exe" "$out/bench_cuda"; done

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
export SHAPED_REQUIRE_CUDA=1 SHAPED_REQUIRE_NVRTC=1
status=0
echo "== NVRTC compile test"; ./cuda_kernels || status=1
echo "== CUDA vs CPU"; ./cuda_ops || status=1
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
