#!/usr/bin/env python3
"""Where a model's time goes, ours against onnxruntime's, op class by op
class (issue 41: "wherever a model is below the goal, ... what would close
the gap").

`ocannl-run --profile` times each op's loop nests; onnxruntime's profiler
(`SessionOptions.enable_profiling`) times each node of its optimised graph,
where its fusions (Conv + BatchNormalization + Relu, NCHWc reorders) have
renamed the nodes. So both sides are grouped by what they compute: a Conv
or Gemm by its weight's shape and its output's spatial dims (ONNX shape
inference on ours, onnxruntime's recorded shapes on its side, where its
NCHWc reorder may have padded the channels to a multiple of 16), every
other op together. Each op's time is its minimum over the repetitions (a shared
machine's slow spells fall on single runs). Prints, per class, the count,
ours, onnxruntime's and the difference, largest loss first, then the
totals.

Usage:
  .onnx-venv/bin/python tools/bench/profile_vs_ort.py BIN_DIR MODEL.onnx
      MODEL.mlir INPUT.npy [--threads 1] [--runs 20] [--reps 2] [--top 15]

MODEL.mlir is MODEL.onnx imported by `ocannl-import-onnx`; INPUT.npy feeds
the model's one data input on both sides.
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx

LINE = re.compile(r"\s*\d+\s+([0-9.]+) (ms|µs|us)\s+[0-9.]+%\s+\d+\s+(.*?)\s+node '([^']+)' \((\w+)\)")
PRODUCTS = ("Conv", "FusedConv", "Gemm", "FusedGemm")


def classes(model):
    """Node name -> its class: (op, weight shape, output spatial dims)."""
    inits = {t.name: list(t.dims) for t in model.graph.initializer}
    inferred = onnx.shape_inference.infer_shapes(model)
    dims = {v.name: [d.dim_value for d in v.type.tensor_type.shape.dim]
            for v in list(inferred.graph.value_info) + list(inferred.graph.output)}
    out = {}
    for i, node in enumerate(model.graph.node):
        name = node.name or f"n{i}"
        if node.op_type in ("Conv", "Gemm") and len(node.input) > 1:
            out[name] = (node.op_type, str(inits.get(node.input[1], "?")),
                         str(dims.get(node.output[0], [])[2:]))
        else:
            out[name] = ("other", "", "")
    return out


def ours(bin_dir, mlir, npy, threads, runs, reps):
    """Node name -> its nests' time per run (each nest's minimum over reps)."""
    best = {}
    for _ in range(reps):
        r = subprocess.run([os.path.join(bin_dir, "ocannl-run"), mlir, "--inputs", npy,
                            "--profile", "--bench", str(runs), "--threads", str(threads)],
                           capture_output=True, text=True)
        if r.returncode:
            sys.exit(f"profile_vs_ort.py: ocannl-run failed: {r.stderr.strip()[-400:]}")
        for line in r.stdout.splitlines():
            m = LINE.match(line)
            if m:
                ms = float(m.group(1)) * (1 if m.group(2) == "ms" else 1e-3)
                key = (m.group(4), m.group(3))
                best[key] = min(best.get(key, float("inf")), ms)
    per_node = collections.defaultdict(float)
    for (node, _), ms in best.items():
        per_node[node] += ms
    return per_node


def theirs(onnx_path, x, threads, runs, reps):
    """onnxruntime's nodes: [(class, ms)], each node's minimum over runs."""
    import onnxruntime as ort
    ort.set_default_logger_severity(3)
    durations = collections.defaultdict(list)
    shapes = {}
    with tempfile.TemporaryDirectory() as tmp:
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        opts.enable_profiling = True
        opts.profile_file_prefix = os.path.join(tmp, "ort")
        sess = ort.InferenceSession(onnx_path, opts, providers=["CPUExecutionProvider"])
        feed = {sess.get_inputs()[0].name: x}
        for _ in range(runs * reps):
            sess.run(None, feed)
        with open(sess.end_profiling()) as f:
            events = json.load(f)
    for e in events:
        if e.get("cat") != "Node" or not e["name"].endswith("_kernel_time"):
            continue
        name = e["name"][: -len("_kernel_time")]
        durations[name].append(e["dur"] / 1000)
        args = e.get("args", {})
        ins = [next(iter(v.values())) for v in args.get("input_type_shape", [])]
        outs = [next(iter(v.values())) for v in args.get("output_type_shape", [])]
        op = args.get("op_name", "")
        if op in PRODUCTS and len(ins) > 1 and outs:
            kind = "Gemm" if "Gemm" in op else "Conv"
            shapes[name] = (kind, str(ins[1]), str(outs[0][2:]))
        else:
            shapes[name] = ("other", "", "")
    return [(shapes[n], min(d)) for n, d in durations.items()]


def matching(k, mine):
    """The class of ours that onnxruntime's class `k` is: itself, or the one
    whose weights its NCHWc reorder padded (each dim at most 15 cells
    more, same op and output dims)."""
    if k in mine or k[0] == "other":
        return k
    want = json.loads(k[1])
    for m in mine:
        if m[0] != k[0] or m[2] != k[2] or m[1] in ("", "?"):
            continue
        have = json.loads(m[1])
        if len(have) == len(want) and all(0 <= w - h < 16 for w, h in zip(want, have)):
            return m
    return k


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bin_dir")
    ap.add_argument("onnx")
    ap.add_argument("mlir")
    ap.add_argument("input")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--top", type=int, default=15)
    a = ap.parse_args()
    for path in (a.onnx, a.mlir, a.input):
        if not os.path.isfile(path):
            sys.exit(f"profile_vs_ort.py: no such file: {path}")
    try:
        x = np.load(a.input)
    except (OSError, ValueError) as e:
        sys.exit(f"profile_vs_ort.py: {a.input}: {e}")
    cls = classes(onnx.load(a.onnx))
    mine = collections.defaultdict(float)
    count = collections.Counter()
    for node, ms in ours(a.bin_dir, a.mlir, a.input, a.threads, a.runs, a.reps).items():
        k = cls.get(node, ("other", "", ""))
        mine[k] += ms
        count[k] += k[0] != "other"
    peer = collections.defaultdict(float)
    for k, ms in theirs(a.onnx, x, a.threads, a.runs, a.reps):
        peer[matching(k, mine)] += ms
    keys = sorted(set(mine) | set(peer), key=lambda k: -(mine[k] - peer[k]))
    print(f"{os.path.basename(a.onnx)} at {a.threads} thread(s): per op class, ms per run "
          f"(each op's minimum of {a.reps} x {a.runs} runs)")
    print(f"{'op':6} {'weights':22} {'output':11} {'n':>3} {'ours':>8} {'ort':>8} {'ours-ort':>9}")
    for k in keys[: a.top]:
        n = count[k] or ""
        print(f"{k[0]:6} {k[1]:22} {k[2]:11} {n:>3} {mine[k]:8.2f} {peer[k]:8.2f} {mine[k] - peer[k]:9.2f}")
    print(f"{'total':41} {sum(mine.values()):8.2f} {sum(peer.values()):8.2f} "
          f"{sum(mine.values()) - sum(peer.values()):9.2f}")


def run_table(main, prog):
    """Runs `main`, which prints a table; stdout closed by the reader
    (`| head`): a message naming `prog` and exit 1, no traceback."""
    try:
        main()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(f"{prog}: cannot write the table: stdout is closed")


if __name__ == "__main__":
    run_table(main, "profile_vs_ort.py")
