# Sourced by the fetch_*.sh scripts: downloads one pinned PyPI wheel with
# pip (no dependencies, binary only) unless it is already there, and checks
# its SHA-256.
#
# Usage: pinned_wheel DIR SPEC WHEEL_FILE SHA256   (e.g. "docutils==0.21.2")
pinned_wheel() {
    local dir=$1 spec=$2 wheel=$3 sha=$4
    mkdir -p "$dir"
    if [ ! -f "$dir/$wheel" ]; then
        python3 -m pip download -q --no-deps --only-binary=:all: -d "$dir" "$spec"
    fi
    echo "$sha  $dir/$wheel" | sha256sum -c --quiet -
}
