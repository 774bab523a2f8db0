#!/usr/bin/env bash
# Downloads the labelled text task of examples/finetune_minilm: the VADER
# sentiment lexicon (Hutto & Gilbert, ICWSM 2014; MIT licence), 7,520 English
# words, slang and emoticons each with the mean of ten human ratings from -4
# (most negative) to +4. It ships inside the PyPI wheel vaderSentiment==3.3.2
# (pinned by its SHA-256); vader_lexicon.txt is unpacked into target/vader
# (ignored by git).
#
# Usage: scripts/fetch_vader.sh [DEST]   (default: target/vader)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/pinned_wheel.sh

DEST=${1:-target/vader}
WHEEL=vaderSentiment-3.3.2-py2.py3-none-any.whl
SHA256=3bf1d243b98b1afad575b9f22bc2cb1e212b94ff89ca74f8a23a588d024ea311

if [ -f "$DEST/vader_lexicon.txt" ]; then
    echo "VADER lexicon already in $DEST"
    exit 0
fi
pinned_wheel "$DEST/wheel" "vaderSentiment==3.3.2" "$WHEEL" "$SHA256"
python3 - "$DEST/wheel/$WHEEL" "$DEST/vader_lexicon.txt.part" <<'PY'
import sys, zipfile
with open(sys.argv[2], "wb") as out:
    out.write(zipfile.ZipFile(sys.argv[1]).read("vaderSentiment/vader_lexicon.txt"))
PY
mv "$DEST/vader_lexicon.txt.part" "$DEST/vader_lexicon.txt"
echo "VADER lexicon in $DEST/vader_lexicon.txt"
