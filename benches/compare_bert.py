#!/usr/bin/env python3
"""all-MiniLM-L6-v2 forward passes (the encoder's last hidden state, f32,
no gradients) in shaped (examples/bench_bert.rs), in PyTorch -- eager
(transformers' BertModel with its SDPA attention), torch.compile, and ONNX
Runtime where `onnxruntime` and `onnx` import -- and in candle
(candle-transformers' BertModel, benches/candle_bert, a crate outside the
workspace built here in release with its default features, where cargo
can fetch it), on the same weights, the same token ids and the same thread
count, timed the same way (median of repeated runs after two warm-up
runs), in one session, with the ratios. Peak RSS of each engine's process
at the end. candle's last hidden state is checked against shaped's (the
sum of its elements, to 1e-4 relative): the same weights, read the same.

Usage (from the repository root):
    scripts/fetch_minilm.sh
    python3 benches/compare_bert.py [ROUNDS=2] [BxT ...]   (default 32x128 1x16)
Creates .venv with numpy and torch on first use (scripts/bench_env.sh) and
installs transformers into it.
"""
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.path.join(ROOT, ".venv")
MODEL = os.environ.get("SHAPED_MINILM_DIR", os.path.join(ROOT, "target", "minilm", "model"))
THREADS = int(os.environ.get("BENCH_THREADS", os.cpu_count() or 2))


def ensure_venv():
    py = os.path.join(VENV, "bin", "python")
    if sys.executable != py:
        if not os.path.exists(py):
            subprocess.check_call(["bash", os.path.join(ROOT, "scripts", "bench_env.sh")])
        try:
            subprocess.check_call([py, "-c", "import transformers"], stderr=subprocess.DEVNULL)
        except subprocess.CalledProcessError:
            subprocess.check_call([py, "-m", "pip", "install", "-q", "transformers"])
        os.execv(py, [py] + sys.argv)


def token_ids(b, t):
    """The ids examples/bench_bert.rs uses: [CLS] words [SEP], no padding."""
    ids = []
    for i in range(b * t):
        j = i % t
        ids.append(101 if j == 0 else 102 if j == t - 1 else 1000 + (i * 7919 + j * 104729) % 28000)
    return ids


# One engine per process, so that each one's peak RSS is its own.
ENGINE = r"""
import json, statistics, sys, time, resource
import torch
from transformers import AutoModel
engine, model_dir, threads, shapes = sys.argv[1], sys.argv[2], int(sys.argv[3]), json.loads(sys.argv[4])
torch.set_num_threads(threads)
model = AutoModel.from_pretrained(model_dir).eval()
out = {"version": torch.__version__}
for (b, t, ids) in shapes:
    ids = torch.tensor(ids).view(b, t)
    mask = torch.ones_like(ids)
    reps = 5 if b * t >= 1024 else 50
    if engine == "eager":
        run = lambda: model(input_ids=ids, attention_mask=mask).last_hidden_state
    elif engine == "compile":
        cm = torch.compile(model)
        t0 = time.perf_counter()
        with torch.no_grad():
            cm(input_ids=ids, attention_mask=mask)
        out[f"compile_s_{b}x{t}"] = time.perf_counter() - t0
        run = lambda: cm(input_ids=ids, attention_mask=mask).last_hidden_state
    elif engine == "onnxruntime":
        import onnxruntime as ort, tempfile, os
        path = os.path.join(tempfile.mkdtemp(), "minilm.onnx")
        class Encoder(torch.nn.Module):
            # Keyword arguments: BertModel.forward's positional order changes
            # between transformers releases (5.x puts `use_cache` in it).
            def __init__(self, bert):
                super().__init__()
                self.bert = bert

            def forward(self, input_ids, attention_mask):
                return self.bert(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state

        torch.onnx.export(Encoder(model), (ids, mask), path, input_names=["input_ids", "attention_mask"],
                          output_names=["last_hidden_state"], dynamic_axes={"input_ids": {0: "b", 1: "t"}, "attention_mask": {0: "b", 1: "t"}}, dynamo=False)
        opts = ort.SessionOptions(); opts.intra_op_num_threads = threads; opts.inter_op_num_threads = 1
        sess = ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])
        feeds = {"input_ids": ids.numpy(), "attention_mask": mask.numpy()}
        run = lambda: sess.run(None, feeds)
        out["version"] = ort.__version__
    with torch.no_grad():
        for _ in range(2):
            run()
        ns = []
        for _ in range(reps):
            t0 = time.perf_counter_ns(); run(); ns.append(time.perf_counter_ns() - t0)
    out[f"{b}x{t}"] = statistics.median(ns)
out["peak_rss_kib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps(out))
"""


def torch_engine(engine, shapes):
    arg = json.dumps([[b, t, token_ids(b, t)] for b, t in shapes])
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_VERBOSITY="error")
    p = subprocess.run([sys.executable, "-c", ENGINE, engine, MODEL, str(THREADS), arg],
                       env=env, capture_output=True, text=True)
    if p.returncode != 0:
        return None, p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "failed"
    return json.loads(p.stdout.strip().splitlines()[-1]), None


def build_candle():
    """benches/candle_bert's binary, or None (with why) where it cannot be built."""
    crate = os.path.join(ROOT, "benches", "candle_bert")
    target = os.path.join(ROOT, "target", "candle_bert")
    p = subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=crate,
                       env=dict(os.environ, CARGO_TARGET_DIR=target), capture_output=True, text=True)
    if p.returncode != 0:
        lines = p.stderr.strip().splitlines()
        return None, lines[-1] if lines else "cargo build failed"
    return os.path.join(target, "release", "candle_bert"), None


def rust_engine(exe, shapes):
    """A Rust bench's `bert_BxT`, `sum_BxT` and `peak_rss_kib` lines."""
    env = dict(os.environ, RAYON_NUM_THREADS=str(THREADS))
    out = subprocess.check_output([exe, MODEL] + [f"{b}x{t}" for b, t in shapes], env=env, text=True)
    res = {}
    for line in out.strip().splitlines():
        k, v = line.split("\t")
        res[k.removeprefix("bert_")] = float(v)
    return res


def cpu_name():
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return "unknown CPU"


def main():
    ensure_venv()
    args = sys.argv[1:]
    rounds = int(args.pop(0)) if args and args[0].isdigit() else 2
    shapes = [tuple(int(x) for x in a.split("x")) for a in args] or [(32, 128), (1, 16)]
    if not os.path.exists(os.path.join(MODEL, "model.safetensors")):
        sys.exit(f"no model in {MODEL}: run scripts/fetch_minilm.sh")
    subprocess.check_call(["cargo", "build", "--release", "--quiet", "--features", "safetensors",
                           "--example", "bench_bert"], cwd=ROOT)
    exe = os.path.join(ROOT, "target", "release", "examples", "bench_bert")
    candle, candle_err = build_candle()
    print(f"all-MiniLM-L6-v2 forward, f32, {THREADS} threads, {cpu_name()}")
    for r in range(rounds):
        ours = rust_engine(exe, shapes)
        print(f"round {r + 1}: shaped peak RSS {ours['peak_rss_kib'] / 1024:.0f} MiB")
        for engine in ["eager", "compile", "onnxruntime"]:
            theirs, err = torch_engine(engine, shapes)
            if theirs is None:
                print(f"  {engine:12s} unavailable: {err}")
                continue
            for b, t in shapes:
                k = f"{b}x{t}"
                print(f"  {k:7s} shaped {ours[k] / 1e6:9.2f} ms   {engine} ({theirs['version']}) "
                      f"{theirs[k] / 1e6:9.2f} ms   {engine}/shaped {theirs[k] / ours[k]:5.2f}"
                      + (f"   (compile {theirs[f'compile_s_{k}']:.1f} s)" if f"compile_s_{k}" in theirs else ""))
            print(f"  {engine:12s} peak RSS {theirs['peak_rss_kib'] / 1024:.0f} MiB")
        if candle is None:
            print(f"  candle       unavailable: {candle_err}")
            continue
        theirs = rust_engine(candle, shapes)
        for b, t in shapes:
            k = f"{b}x{t}"
            ours_sum, their_sum = ours[f"sum_{k}"], theirs[f"sum_{k}"]
            if abs(ours_sum - their_sum) > 1e-4 * max(abs(ours_sum), 1.0):
                sys.exit(f"candle's {k} hidden state sums to {their_sum}, shaped's to {ours_sum}")
            print(f"  {k:7s} shaped {ours[k] / 1e6:9.2f} ms   candle (0.9.2) "
                  f"{theirs[k] / 1e6:9.2f} ms   candle/shaped {theirs[k] / ours[k]:5.2f}"
                  f"   (sums {ours_sum:.6g}, {their_sum:.6g})")
        print(f"  candle       peak RSS {theirs['peak_rss_kib'] / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
