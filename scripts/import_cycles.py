#!/usr/bin/env python3
"""Import circles between the files of src/ (issue 37's bar: "no import
circle between files"), and the files under src/backend/ that import a
higher layer.

Each `use` path of a file (`crate::...`, `super::...`, `self::...`, with
braces expanded) is resolved to the longest module prefix that is a file of
src/ (`a/b.rs` or `a/b/mod.rs`); an item named after the module (`use
crate::backend::fused::Node`) counts as an import of that module's file,
or, when that file only re-exports the item (`pub use`), of the file the
re-export names. A re-export itself is not an import (a `mod.rs` that
re-exports its children does not depend on them). Unit-test modules
(`#[cfg(test)] mod tests { ... }` at the end of a file) are left out: a
test may call up the layers without making the code depend on them.

Prints every strongly connected component of more than one file (an import
circle) with one cycle through it, and exits 1 when there is any, except
those listed in ALLOWED with the reason (a recursive definition of traits
split over files; printed, not counted).

    scripts/import_cycles.py            # circles among all of src/
    scripts/import_cycles.py --layers   # also list backend files importing up
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
# Circles allowed, each with the reason (none now: the dimension vocabulary,
# once a 4-file circle, declares its recursive rules in shape/dim.rs).
ALLOWED = []
HIGHER = ("tensor", "ops", "linalg", "autograd", "fuse", "nn", "distributed", "io", "interop")


def module_of(path):
    """The module path (list of names) of a file relative to src/."""
    rel = os.path.relpath(path, ROOT)[:-3].split(os.sep)
    if rel[-1] in ("mod", "lib"):
        rel = rel[:-1]
    return rel


def file_of(module):
    """The file of a module path, or None."""
    if not module:
        return os.path.join(ROOT, "lib.rs")
    base = os.path.join(ROOT, *module)
    for cand in (base + ".rs", os.path.join(base, "mod.rs")):
        if os.path.isfile(cand):
            return cand
    return None


def strip_tests(text):
    """The text without a trailing `#[cfg(test)] mod NAME { ... }` block
    and without comments."""
    m = re.search(r"\n#\[cfg\(test\)\]\s*\nmod \w+ \{", text)
    if m:
        text = text[: m.start()]
    text = re.sub(r"//[^\n]*", "", text)
    return text


def expand(tree):
    """`a::{b, c::{d, e}}` -> ['a::b', 'a::c::d', 'a::c::e']."""
    tree = tree.strip()
    i = tree.find("{")
    if i < 0:
        return [tree.split(" as ")[0].strip()]
    prefix, inner = tree[:i], tree[i + 1 : tree.rfind("}")]
    parts, depth, cur = [], 0, ""
    for ch in inner:
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += ch == "{"
        depth -= ch == "}"
        cur += ch
    parts.append(cur)
    out = []
    for p in parts:
        if p.strip():
            out += [prefix + q if q != "self" else prefix.rstrip(":") for q in expand(p)]
    return out


REEXPORTS = {}


def inline_modules(text):
    """`(name, start, end)` of each inline `mod name { ... }` of `text`."""
    spans = []
    for m in re.finditer(r"\bmod (\w+)\s*\{", text):
        depth, i = 1, m.end()
        while depth and i < len(text):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        spans.append((m.group(1), m.start(), i))
    return spans


def inner_at(spans, at):
    """The inline modules (outermost first) around position `at`."""
    return tuple(n for n, a, b in sorted(spans, key=lambda t: t[1]) if a < at < b)


def resolve(path, p, inner=()):
    """The file that path `p`, written in `path` (inside its inline modules
    `inner`), names, or None; and the item left after the module prefix."""
    here = module_of(path) + list(inner)
    is_dir_module = os.path.basename(path) in ("mod.rs", "lib.rs")
    segs = [s for s in p.replace(" ", "").split("::") if s]
    if not segs:
        return None, None
    if segs[0] == "crate":
        mod, segs = [], segs[1:]
    elif segs[0] in ("super", "self"):
        # A file's own module is its directory for mod.rs/lib.rs.
        mod = list(here) if (is_dir_module or inner or segs[0] == "self") else list(here[:-1])
        if segs[0] == "super" and (is_dir_module or inner):
            mod = mod[:-1]
        segs = segs[1:]
        while segs and segs[0] == "super":
            mod, segs = mod[:-1], segs[1:]
    else:
        # A path relative to the current module (`pub use tensor::Tensor`
        # in lib.rs), when it starts with one of its child modules.
        mod = list(here)
        if file_of(mod + segs[:1]) is None:
            return None, None
    for k in range(len(segs), -1, -1):
        f = file_of(mod + segs[:k])
        if f:
            return os.path.abspath(f), (segs[k] if k < len(segs) else None)
    return None, None


def reexports(path):
    """Item name -> (file, item) for each `pub use` of `path`."""
    if path not in REEXPORTS:
        REEXPORTS[path] = {}
        text = strip_tests(open(path, encoding="utf-8").read())
        for u in re.findall(r"\bpub(?:\([a-z ]+\))?\s+use\s+([^;]+);", text):
            for q in expand(re.sub(r"\s+", " ", u)):
                name = q.split("::")[-1]
                alias = re.search(r" as (\w+)", q)
                f, item = resolve(path, q.split(" as ")[0])
                if f:
                    REEXPORTS[path][alias.group(1) if alias else name] = (f, item)
    return REEXPORTS[path]


def imports(path):
    """The files `path` imports."""
    text = strip_tests(open(path, encoding="utf-8").read())
    deps = set()
    # Re-exports are not imports.
    text = re.sub(r"\bpub(?:\([a-z ]+\))?\s+use\s+[^;]+;", "", text)
    spans = inline_modules(text)
    uses = [(m.start(), m.group(1)) for m in re.finditer(r"\buse\s+([^;]+);", text)]
    inline = re.findall(r"\bcrate::(?:[a-z_][a-z0-9_]*::)*[A-Za-z_][A-Za-z0-9_]*", text)
    paths = [(p, inner_at(spans, at)) for at, u in uses for p in expand(re.sub(r"\s+", " ", u))]
    paths += [(p, ()) for p in inline]
    for p, inner in paths:
        best, item = resolve(path, p, inner)
        for _ in range(8):
            if best is None or item is None or item not in reexports(best):
                break
            best, item = reexports(best)[item]
        if best and best != os.path.abspath(path):
            deps.add(best)
    return deps


def main():
    files = []
    for d, _, names in os.walk(ROOT):
        files += [os.path.abspath(os.path.join(d, n)) for n in names if n.endswith(".rs")]
    graph = {f: imports(f) for f in files}
    # Tarjan's strongly connected components.
    index, low, stack, on, comps, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            comps.append(comp)

    sys.setrecursionlimit(10000)
    for f in files:
        if f not in index:
            visit(f)
    rel = lambda f: os.path.relpath(f, ROOT)
    circles = []
    for c in (c for c in comps if len(c) > 1):
        why = next((w for files_, w in ALLOWED if {rel(f) for f in c} <= files_), None)
        if why:
            print(f"allowed circle of {len(c)} files ({', '.join(sorted(rel(f) for f in c))}): {why}")
        else:
            circles.append(c)
    for c in circles:
        members = set(c)
        # One cycle: the shortest path (inside the component) from its
        # first file back to it.
        start = sorted(c)[0]
        prev, queue = {}, [start]
        while queue and start not in prev:
            v = queue.pop(0)
            for w in sorted(graph[v]):
                if w in members and w not in prev:
                    prev[w] = v
                    queue.append(w)
        path, v = [], prev[start]
        while v != start:
            path.append(v)
            v = prev[v]
        path = [start] + path[::-1]
        print(f"circle of {len(c)} files: " + " -> ".join(rel(f) for f in path + [start]))
    print(f"{len(circles)} import circles among {len(files)} files")
    if "--layers" in sys.argv:
        up = []
        for f in files:
            r = rel(f)
            if not r.startswith("backend" + os.sep):
                continue
            bad = sorted(rel(d) for d in graph[f] if rel(d).split(os.sep)[0].removesuffix(".rs") in HIGHER)
            if bad:
                up.append(f"{r}: {', '.join(bad)}")
        for line in sorted(up):
            print("imports a higher layer:", line)
        print(f"{len(up)} backend files import a higher layer")
    sys.exit(1 if circles else 0)


if __name__ == "__main__":
    main()
