"""Times shaped's elementwise and reduction cases at two revisions, side by
side in one run: `examples/bench_elementwise.rs` (today's version of the
file, so both revisions run the same cases) is built at BEFORE in a
throw-away worktree and at the working tree, then the two binaries run
alternately ROUNDS times (the order rotating). Prints a markdown table:
per case, the best and median round of each, and before / after (above 1:
the working tree is faster).

    python3 scripts/compare_revisions.py BEFORE [ROUNDS=5]

Standard library only. Builds with RAYON_NUM_THREADS=2 and no
`target-cpu=native`, as benches/README.md's tables.
"""
import os
import shutil
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
THREADS = 2


def build(tree, target):
    subprocess.check_call(
        ["cargo", "build", "--release", "--quiet", "--example", "bench_elementwise"],
        cwd=tree,
        env=dict(os.environ, CARGO_TARGET_DIR=target),
    )
    return os.path.join(target, "release", "examples", "bench_elementwise")


def run(exe):
    env = dict(os.environ, RAYON_NUM_THREADS=str(THREADS))
    text = subprocess.check_output([exe], env=env, text=True)
    return {k: float(v) for k, v in (line.split("\t") for line in text.strip().splitlines())}


def main():
    before = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    tree = os.path.join(ROOT, "target", "compare-before-tree")
    if os.path.exists(tree):
        subprocess.call(["git", "worktree", "remove", "--force", tree], cwd=ROOT)
        shutil.rmtree(tree, ignore_errors=True)
    subprocess.check_call(["git", "worktree", "add", "--detach", "--quiet", tree, before], cwd=ROOT)
    try:
        shutil.copy(
            os.path.join(ROOT, "examples", "bench_elementwise.rs"),
            os.path.join(tree, "examples", "bench_elementwise.rs"),
        )
        old = build(tree, os.path.join(ROOT, "target", "compare-before"))
        new = build(ROOT, os.path.join(ROOT, "target"))
    finally:
        subprocess.call(["git", "worktree", "remove", "--force", tree], cwd=ROOT)
    runs = {"before": [], "after": []}
    order = ["before", "after"]
    for r in range(rounds):
        for name in order[r % 2:] + order[: r % 2]:
            runs[name].append(run(old if name == "before" else new))
    keys = [k for k in runs["after"][0] if k not in ("threads",)]
    print(f"before: {before}; after: working tree; rounds: {rounds}; threads: {THREADS}")
    print("| case | before best (median) | after best (median) | before / after (best, median) |")
    print("|---|---|---|---|")
    for k in keys:
        if k == "stream_add_GBps":
            b = max(x[k] for x in runs["before"])
            a = max(x[k] for x in runs["after"])
            print(f"| STREAM add GB/s | {b:.1f} | {a:.1f} | |")
            continue
        bb = min(x[k] for x in runs["before"])
        ab = min(x[k] for x in runs["after"])
        bm = statistics.median(x[k] for x in runs["before"])
        am = statistics.median(x[k] for x in runs["after"])
        unit, scale = ("ns", 1) if k.startswith("small") else ("ms", 1e6)
        print(
            f"| {k} | {bb / scale:.3g} ({bm / scale:.3g}) {unit} | {ab / scale:.3g} ({am / scale:.3g}) {unit} "
            f"| {bb / ab:.2f}, {bm / am:.2f} |"
        )


if __name__ == "__main__":
    main()
