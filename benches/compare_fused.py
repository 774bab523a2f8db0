#!/usr/bin/env python3
"""Fused pointwise chains side by side in one session: shaped (eager and
fused, examples/bench_fused.rs), NumPy (with SciPy's erf), PyTorch eager,
numexpr, torch.compile (Inductor, CPU) and JAX jit, all on THREADS threads
(default: every core), f32, a: (4096, 4096), b, d: (4096,), c, e: (4096, 1):

  add      a + b                       the memory-bound floor (one pass)
  chain3   relu(a * b + c)
  chain6   gelu(a * b + c) * d - e     (exact gelu, with erf)
  chain6m  |relu(a * b + c) * d - e|   (6 ops without erf: memory-bound)
  mulsum1  (a * b).sum(1)              a reduction at the end of a chain
  mulsum0  (a * b).sum(0)              the same over the batch (column sums)
  silu3    silu(a * b + c)             (exp: shaped's vectorised e^x)
  tanh3    tanh(a * b + c)
  softplus3  log1p(exp(a * b + c))  (softplus: shaped's vectorised ln(1 + x))
  gelu_grad  forward and backward of gelu(a * b + c).sum(), the gradients
           of a, b and c (shaped: autograd through the fused chain; NumPy
           and numexpr: none)

Compile times (torch.compile, jax.jit) are excluded from the timings (each
compiled function is warmed up first) and reported separately. numexpr has
no erf, so it has no chain6. Rounds interleave the libraries, the order
rotating, so that load from other processes falls on all of them alike;
the table gives each library's best round (and median round) and the
ratios of best rounds.

Usage (from the repository root):  python3 benches/compare_fused.py [ROUNDS=3]
Creates .venv with numpy, scipy, torch, numexpr and jax on first use.
"""
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.path.join(ROOT, ".venv")
THREADS = int(os.environ.get("BENCH_THREADS", os.cpu_count() or 2))
os.environ.setdefault("OMP_NUM_THREADS", str(THREADS))
os.environ.setdefault("NUMEXPR_MAX_THREADS", str(THREADS))
os.environ.setdefault("NUMEXPR_NUM_THREADS", str(THREADS))
os.environ.setdefault(
    "XLA_FLAGS", f"--xla_cpu_multi_thread_eigen=true intra_op_parallelism_threads={THREADS}"
)
N = 4096


def ensure_venv():
    py = os.path.join(VENV, "bin", "python")
    if sys.executable != py:
        if not os.path.exists(py):
            subprocess.check_call([sys.executable, "-m", "venv", VENV])
        # A venv made by scripts/bench_env.sh has numpy and torch only: add
        # what this comparison needs besides.
        probe = "import numpy, scipy, torch, numexpr, jax"
        if subprocess.call([py, "-c", probe], stderr=subprocess.DEVNULL) != 0:
            subprocess.check_call([py, "-m", "pip", "install", "-q", "numpy", "scipy", "torch",
                                   "numexpr", "jax[cpu]"])
        os.execv(py, [py] + sys.argv)


def median_ns(fn, reps=30):
    """Median time per call over `reps` calls after 10 warm-up calls (as
    examples/bench_fused.rs does)."""
    for _ in range(10):
        fn()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter_ns()
        fn()
        ts.append(time.perf_counter_ns() - t0)
    return statistics.median(ts)


def data():
    import numpy as np
    rng = np.random.default_rng(0)
    r = lambda *s: rng.random(s, dtype=np.float32)
    return r(N, N), r(N), r(N, 1), r(N), r(N, 1)


def numpy_cases():
    import numpy as np
    from scipy.special import erf
    a, b, c, d, e = data()
    gelu = lambda x: 0.5 * x * (1 + erf(x * np.float32(0.7071067811865476)))
    return {
        "add": median_ns(lambda: a + b),
        "chain3": median_ns(lambda: np.maximum(a * b + c, 0)),
        "chain6": median_ns(lambda: gelu(a * b + c) * d - e),
        "chain6m": median_ns(lambda: np.abs(np.maximum(a * b + c, 0) * d - e)),
        "silu3": median_ns(lambda: (lambda x: x / (1 + np.exp(-x)))(a * b + c)),
        "tanh3": median_ns(lambda: np.tanh(a * b + c)),
        "softplus3": median_ns(lambda: np.log1p(np.exp(a * b + c))),
        "mulsum1": median_ns(lambda: (a * b).sum(1)),
        "mulsum0": median_ns(lambda: (a * b).sum(0)),
    }


def numexpr_cases():
    import numexpr as ne
    import numpy as np
    ne.set_num_threads(THREADS)
    a, b, c, d, e = data()
    o = np.empty((N, N), dtype=np.float32)
    env = {"a": a, "b": b, "c": c, "d": d, "e": e}
    ev = lambda expr, **kw: ne.evaluate(expr, local_dict=env, **kw)
    return {
        "add": median_ns(lambda: ev("a + b")),
        "chain3": median_ns(lambda: ev("where(a * b + c > 0, a * b + c, 0)")),
        "chain3_out": median_ns(lambda: ev("where(a * b + c > 0, a * b + c, 0)", out=o)),
        "chain6m": median_ns(lambda: ev("abs(where(a * b + c > 0, a * b + c, 0) * d - e)")),
        "silu3": median_ns(lambda: ev("(a * b + c) / (1 + exp(-(a * b + c)))")),
        "tanh3": median_ns(lambda: ev("tanh(a * b + c)")),
        "softplus3": median_ns(lambda: ev("log1p(exp(a * b + c))")),
        "mulsum1": median_ns(lambda: ev("sum(a * b, axis=1)")),
        "mulsum0": median_ns(lambda: ev("sum(a * b, axis=0)")),
    }


def torch_cases(compiled):
    import torch
    import torch.nn.functional as F
    torch.set_num_threads(THREADS)
    a, b, c, d, e = (torch.from_numpy(x) for x in data())
    o = torch.empty(N, N)
    f3 = lambda a, b, c: torch.relu(a * b + c)
    f6 = lambda a, b, c, d, e: F.gelu(a * b + c) * d - e
    f6m = lambda a, b, c, d, e: torch.abs(torch.relu(a * b + c) * d - e)
    fsi = lambda a, b, c: F.silu(a * b + c)
    fth = lambda a, b, c: torch.tanh(a * b + c)
    fsp = lambda a, b, c: torch.log1p(torch.exp(a * b + c))
    fs = lambda a, b: (a * b).sum(1)
    fs0 = lambda a, b: (a * b).sum(0)
    fa = lambda a, b: a + b
    fg = lambda a, b, c: F.gelu(a * b + c).sum()
    ga, gb, gc = (x.clone().requires_grad_() for x in (a, b, c))

    def grad():
        # Forward and backward, the gradients returned (not accumulated).
        return torch.autograd.grad(fg(ga, gb, gc), (ga, gb, gc))
    r = {}
    if compiled:
        t0 = time.perf_counter()
        f3, f6, f6m, fsi, fth, fsp, fs, fs0, fa, fg = (
            torch.compile(f) for f in (f3, f6, f6m, fsi, fth, fsp, fs, fs0, fa, fg))
        f3(a, b, c), f6(a, b, c, d, e), f6m(a, b, c, d, e), fsi(a, b, c), fth(a, b, c)
        fsp(a, b, c)
        fs(a, b), fs0(a, b), fa(a, b), grad()
        r["compile_s"] = time.perf_counter() - t0
    else:
        r["chain3_out"] = median_ns(lambda: torch.clamp_min(torch.add(a * b, c), 0, out=o))
    r["add"] = median_ns(lambda: fa(a, b))
    r["chain3"] = median_ns(lambda: f3(a, b, c))
    r["chain6"] = median_ns(lambda: f6(a, b, c, d, e))
    r["chain6m"] = median_ns(lambda: f6m(a, b, c, d, e))
    r["silu3"] = median_ns(lambda: fsi(a, b, c))
    r["tanh3"] = median_ns(lambda: fth(a, b, c))
    r["softplus3"] = median_ns(lambda: fsp(a, b, c))
    r["mulsum1"] = median_ns(lambda: fs(a, b))
    r["mulsum0"] = median_ns(lambda: fs0(a, b))
    r["gelu_grad"] = median_ns(grad)
    return r


def jax_cases():
    import jax
    import jax.numpy as jnp
    a, b, c, d, e = (jnp.asarray(x) for x in data())
    f3 = jax.jit(lambda a, b, c: jnp.maximum(a * b + c, 0))
    f6 = jax.jit(lambda a, b, c, d, e: jax.nn.gelu(a * b + c, approximate=False) * d - e)
    f6m = jax.jit(lambda a, b, c, d, e: jnp.abs(jnp.maximum(a * b + c, 0) * d - e))
    fsi = jax.jit(lambda a, b, c: jax.nn.silu(a * b + c))
    fth = jax.jit(lambda a, b, c: jnp.tanh(a * b + c))
    fsp = jax.jit(lambda a, b, c: jnp.log1p(jnp.exp(a * b + c)))
    fs = jax.jit(lambda a, b: (a * b).sum(1))
    fs0 = jax.jit(lambda a, b: (a * b).sum(0))
    fa = jax.jit(lambda a, b: a + b)
    fg = jax.jit(jax.grad(lambda a, b, c: jax.nn.gelu(a * b + c, approximate=False).sum(),
                          argnums=(0, 1, 2)))
    ready = lambda out: jax.block_until_ready(out)
    t0 = time.perf_counter()
    for f, args in ((f3, (a, b, c)), (f6, (a, b, c, d, e)), (f6m, (a, b, c, d, e)),
                    (fsi, (a, b, c)), (fth, (a, b, c)), (fsp, (a, b, c)), (fs, (a, b)),
                    (fs0, (a, b)), (fa, (a, b)), (fg, (a, b, c))):
        ready(f(*args))
    r = {"compile_s": time.perf_counter() - t0}
    r["add"] = median_ns(lambda: fa(a, b).block_until_ready())
    r["chain3"] = median_ns(lambda: f3(a, b, c).block_until_ready())
    r["chain6"] = median_ns(lambda: f6(a, b, c, d, e).block_until_ready())
    r["chain6m"] = median_ns(lambda: f6m(a, b, c, d, e).block_until_ready())
    r["silu3"] = median_ns(lambda: fsi(a, b, c).block_until_ready())
    r["tanh3"] = median_ns(lambda: fth(a, b, c).block_until_ready())
    r["softplus3"] = median_ns(lambda: fsp(a, b, c).block_until_ready())
    r["mulsum1"] = median_ns(lambda: fs(a, b).block_until_ready())
    r["mulsum0"] = median_ns(lambda: fs0(a, b).block_until_ready())
    r["gelu_grad"] = median_ns(lambda: ready(fg(a, b, c)))
    return r


def shaped_cases(exe, env):
    text = subprocess.check_output([exe], env=env, text=True)
    raw = {k: float(v) for k, v in (line.split("\t") for line in text.strip().splitlines())}
    return {
        "add": raw["add"], "add_out": raw["add_out"],
        "chain3": raw["chain3_fused"], "chain3_out": raw["chain3_fused_out"],
        "chain3_eager": raw["chain3_eager"],
        "chain6": raw["chain6_fused"], "chain6_out": raw["chain6_fused_out"],
        "chain6_eager": raw["chain6_eager"],
        "chain6m": raw["chain6m_fused"], "chain6m_out": raw["chain6m_fused_out"],
        "chain6m_eager": raw["chain6m_eager"],
        "silu3": raw["silu3_fused"], "silu3_eager": raw["silu3_eager"],
        "tanh3": raw["tanh3_fused"], "tanh3_eager": raw["tanh3_eager"],
        "softplus3": raw["softplus3_fused"], "softplus3_eager": raw["softplus3_eager"],
        "add_out_cached": raw["add_out_cached"], "chain6_out_cached": raw["chain6_fused_out_cached"],
        "mulsum1": raw["mulsum1_fused"], "mulsum1_eager": raw["mulsum1_eager"],
        "mulsum0": raw["mulsum0_fused"], "mulsum0_eager": raw["mulsum0_eager"], "sum0": raw["sum0"],
        "gelu_grad": raw["gelu_grad_fused"], "gelu_grad_eager": raw["gelu_grad_eager"],
    }


def main():
    ensure_venv()
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    env = dict(os.environ, RAYON_NUM_THREADS=str(THREADS))
    subprocess.check_call(["cargo", "build", "--release", "--quiet", "--example", "bench_fused"],
                          cwd=ROOT)
    exe = os.path.join(ROOT, "target", "release", "examples", "bench_fused")
    libs = {
        "shaped": lambda: shaped_cases(exe, env),
        "numpy": numpy_cases,
        "torch": lambda: torch_cases(False),
        "numexpr": numexpr_cases,
        "inductor": lambda: torch_cases(True),
        "jax": jax_cases,
    }
    names = list(libs)
    runs = {k: [] for k in names}
    for r in range(rounds):
        for lib in names[r % len(names):] + names[:r % len(names)]:
            runs[lib].append(libs[lib]())
    best = {lib: {k: min(run[k] for run in rs) for k in rs[0]} for lib, rs in runs.items()}
    med = {lib: {k: statistics.median(run[k] for run in rs) for k in rs[0]} for lib, rs in runs.items()}
    import jax, numexpr, numpy, torch
    print(f"threads: {THREADS}; rounds: {rounds}; numpy {numpy.__version__}; torch {torch.__version__}; "
          f"numexpr {numexpr.__version__}; jax {jax.__version__}")
    print(f"compile time (first round, excluded below): torch.compile {runs['inductor'][0]['compile_s']:.1f} s, "
          f"jax.jit {runs['jax'][0]['compile_s']:.2f} s (ten functions each)")
    print("per case: best round (median round), ms; `x/shaped` is the other library's best time over shaped's")
    cols = ["numpy", "torch", "numexpr", "inductor", "jax"]
    print("| case | shaped | " + " | ".join(cols) + " | " + " | ".join(f"{c}/shaped" for c in cols) + " |")
    print("|---" * (2 + 2 * len(cols)) + "|")
    for case in ["add", "chain3", "chain6", "chain6m", "silu3", "tanh3", "softplus3", "mulsum1", "mulsum0",
                 "gelu_grad"]:
        sh = best["shaped"][case]
        cell = lambda lib, k=case: (f"{best[lib][k] / 1e6:.2f} ({med[lib][k] / 1e6:.2f})"
                                    if k in best[lib] else "n/a")
        ratio = lambda lib, k=case: f"{best[lib][k] / sh:.2f}" if k in best[lib] else "n/a"
        print(f"| {case} | {cell('shaped')} | " + " | ".join(cell(c) for c in cols) + " | "
              + " | ".join(ratio(c) for c in cols) + " |")
    s = best["shaped"]
    print()
    print("shaped alone (best round, ms):")
    for k in ["add", "add_out", "chain3_eager", "chain3", "chain3_out", "chain6_eager", "chain6",
              "chain6_out", "chain6m_eager", "chain6m", "chain6m_out", "silu3_eager", "silu3",
              "tanh3_eager", "tanh3", "softplus3_eager", "softplus3", "add_out_cached",
              "chain6_out_cached", "mulsum1_eager", "mulsum1", "sum0", "mulsum0_eager", "mulsum0",
              "gelu_grad_eager", "gelu_grad"]:
        print(f"  {k:14} {s[k] / 1e6:8.2f}")
    print(f"  fused chain3 / add: {s['chain3'] / s['add']:.2f}, out= chain3 / add_out: "
          f"{s['chain3_out'] / s['add_out']:.2f}")
    print(f"  fused chain6 / add: {s['chain6'] / s['add']:.2f}, out= chain6 / add_out: "
          f"{s['chain6_out'] / s['add_out']:.2f}")
    print(f"  fused chain6m / add: {s['chain6m'] / s['add']:.2f}, out= chain6m / add_out: "
          f"{s['chain6m_out'] / s['add_out']:.2f}")
    print(f"  from L2 (64 calls on a 1 MiB slab): chain6 out= / big chain6 out= "
          f"{s['chain6_out_cached'] / s['chain6_out']:.2f}, add_out {s['add_out_cached'] / s['add_out']:.2f}"
          " (near 1: compute-bound; well below 1: memory-bound)")
    print(f"  eager / fused: chain3 {s['chain3_eager'] / s['chain3']:.2f}, chain6 "
          f"{s['chain6_eager'] / s['chain6']:.2f}, mulsum1 {s['mulsum1_eager'] / s['mulsum1']:.2f}, "
          f"mulsum0 {s['mulsum0_eager'] / s['mulsum0']:.2f}, gelu_grad "
          f"{s['gelu_grad_eager'] / s['gelu_grad']:.2f}")


if __name__ == "__main__":
    main()
