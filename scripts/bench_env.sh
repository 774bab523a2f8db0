#!/usr/bin/env bash
# Creates .venv under the repository root (git-ignored) with NumPy and
# PyTorch's CPU build, for the side-by-side benchmarks in benches/.
# Plain PyPI packages: `pip install torch numpy`. Idempotent.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv="$root/.venv"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
if ! "$venv/bin/python" -c 'import numpy, torch' 2>/dev/null; then
  "$venv/bin/pip" install --quiet --upgrade pip
  "$venv/bin/pip" install --quiet numpy torch
fi
"$venv/bin/python" -c 'import numpy, torch; print("numpy", numpy.__version__, "torch", torch.__version__)'
