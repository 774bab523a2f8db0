#!/usr/bin/env bash
# Downloads the text corpus of examples/gpt: the Python source of docutils
# 0.21.2 (public domain / BSD-2 / Python licence, per its COPYING), from its
# pinned PyPI wheel (SHA-256 checked). Its 128 .py files, in name order, are
# concatenated into target/corpus/docutils.txt (1.7 MB; ignored by git).
#
# Usage: scripts/fetch_corpus.sh [DEST]   (default: target/corpus)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/pinned_wheel.sh

DEST=${1:-target/corpus}
WHEEL=docutils-0.21.2-py3-none-any.whl
SHA256=dafca5b9e384f0e419294eb4d2ff9fa826435bf15f15b7bd45723e8ad76811b2

if [ -f "$DEST/docutils.txt" ]; then
    echo "corpus already in $DEST/docutils.txt"
    exit 0
fi
pinned_wheel "$DEST/wheel" "docutils==0.21.2" "$WHEEL" "$SHA256"
python3 - "$DEST/wheel/$WHEEL" "$DEST/docutils.txt.part" <<'PY'
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
with open(sys.argv[2], "wb") as out:
    for name in sorted(n for n in z.namelist() if n.endswith(".py")):
        out.write(z.read(name))
PY
mv "$DEST/docutils.txt.part" "$DEST/docutils.txt"
echo "corpus in $DEST/docutils.txt"
