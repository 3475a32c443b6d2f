#!/usr/bin/env python3
"""One convolution under several schedules, side by side in one function,
timed in the same runs (issue 41): an A/B that a shared machine's slow
spells cannot tilt, since every variant lives through each of them.

Writes an ONNX model: a 1×1 convolution `pre` (so that the convolutions
read a channels-last intermediate, as inside a model) feeding one branch
per variant, `b0`, `b1`, ..., each the same convolution shape with its own
seeded random weights. Imports it with `ocannl-import-onnx`, plans it with
`ocannl-opt` as `ocannl-run --threads T` plans (`ocannl-plan-schedule{
parallel=true threads=T vector-bytes=host ...}`, without `parallel` at
one thread, where `ocannl-run` uses no OpenMP), then rewrites each branch's `ocannl.schedule`
as its variant says and runs the result `--reps` times with `ocannl-run
--profile --bench RUNS --threads T` (which keeps written schedules).
Prints each branch's minimum time per run (its nests summed: the padded
copy and the convolution) and its GFLOP/s. Put the planned schedule
(`base`) first and last: the two copies show the noise left.

A variant is `NAME` or `NAME;FIELD=VALUE;...`: each FIELD of the
`ocannl.schedule` dictionary set to VALUE as MLIR writes it (`unroll=[array<i64:
0, 4, 0>, array<i64: 2, 4, 0>]`, `k_tile=array<i64: 3, 32>`,
`outer_tile=7`), or removed with `DEL`. `ocannl-run` rejects a schedule
the op's projections do not allow, with the reason.

Usage:
  .onnx-venv/bin/python tools/bench/conv_variants.py BIN_DIR --channels 512
      --size 28 [--out-channels M] [--kernel 3] [--stride 1] [--threads 1]
      [--runs 10] [--reps 4] [--plan-options 'l1-bytes=49152'] [--keep DIR]
      base 'c4r4;unroll=[array<i64: 0, 4, 0>, array<i64: 2, 4, 0>]' base
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

CONV = re.compile(r'ocannl\.schedule = (\{[^}]*\}), spec = "[^"]*m,c,k0,k1 => n,m,o0,o1"')
LINE = re.compile(r"\s*\d+\s+([0-9.]+) (ms|µs|us)\s+[0-9.]+%\s+\d+\s+.*node '(\w+)' \(Conv\)")


def model(a, branches):
    """`pre` then `branches` convolutions of the shape asked, each a graph output."""
    rng = np.random.default_rng(0)
    c, m, k = a.channels, a.out_channels or a.channels, a.kernel
    inits = [numpy_helper.from_array(
        (rng.standard_normal((c, c, 1, 1)) / np.sqrt(c)).astype(np.float32), "wp")]
    nodes = [helper.make_node("Conv", ["x", "wp"], ["p"], name="pre", kernel_shape=[1, 1]),
             helper.make_node("Relu", ["p"], ["pr"], name="prerelu")]
    outs = []
    for i in range(branches):
        w = (rng.standard_normal((m, c, k, k)) / np.sqrt(c * k * k)).astype(np.float32)
        b = (rng.standard_normal(m) * 0.1).astype(np.float32)
        inits += [numpy_helper.from_array(w, f"w{i}"), numpy_helper.from_array(b, f"b{i}")]
        nodes.append(helper.make_node("Conv", ["pr", f"w{i}", f"b{i}"], [f"c{i}"], name=f"b{i}",
                                      kernel_shape=[k, k], pads=[k // 2] * 4,
                                      strides=[a.stride, a.stride]))
        nodes.append(helper.make_node("Relu", [f"c{i}"], [f"y{i}"], name=f"r{i}"))
        outs.append(helper.make_tensor_value_info(f"y{i}", TensorProto.FLOAT, None))
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, c, a.size, a.size])
    graph = helper.make_graph(nodes, "conv_variants", [x], outs, inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def rewrite(schedule, variant):
    """`schedule` (an MLIR dictionary) with `variant`'s fields set or removed."""
    name, *fields = variant.split(";")
    for f in fields:
        if "=" not in f:
            sys.exit(f"conv_variants.py: variant '{name}': '{f}' is not FIELD=VALUE")
        key, value = (s.strip() for s in f.split("=", 1))
        old = re.compile(r"\b%s = (array<[^>]*>|\[[^\]]*\]|[^,}]*)" % re.escape(key))
        if value == "DEL":
            schedule = re.sub(old.pattern + r"(, )?", "", schedule)
        elif old.search(schedule):
            schedule = old.sub(lambda _: f"{key} = {value}", schedule)
        else:
            schedule = schedule.replace("{", "{%s = %s, " % (key, value), 1)
    return schedule


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"conv_variants.py: {os.path.basename(cmd[0])} failed:\n{r.stderr.strip()[-2000:]}")
    return r.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bin_dir")
    ap.add_argument("variants", nargs="+")
    ap.add_argument("--channels", type=int, required=True)
    ap.add_argument("--out-channels", type=int, default=0)
    ap.add_argument("--size", type=int, required=True)
    ap.add_argument("--kernel", type=int, default=3)
    ap.add_argument("--stride", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--reps", type=int, default=4)
    ap.add_argument("--plan-options", default="", help="more ocannl-plan-schedule options")
    ap.add_argument("--keep", help="write the model, the planned and the rewritten IR here")
    a = ap.parse_args()
    if min(a.channels, a.size, a.kernel, a.stride, a.threads, a.runs, a.reps) < 1 \
            or a.out_channels < 0 or a.kernel % 2 == 0:
        sys.exit("conv_variants.py: sizes, counts and threads must be positive, --kernel odd")
    tools = {t: os.path.join(a.bin_dir, t) for t in ("ocannl-import-onnx", "ocannl-opt", "ocannl-run")}
    for t, path in tools.items():
        if not os.path.isfile(path):
            sys.exit(f"conv_variants.py: no {t} in {a.bin_dir}")
    with tempfile.TemporaryDirectory() as tmp:
        out = a.keep or tmp
        os.makedirs(out, exist_ok=True)
        path = lambda f: os.path.join(out, f)  # noqa: E731
        onnx.save(model(a, len(a.variants)), path("model.onnx"))
        x = np.random.default_rng(1).standard_normal((1, a.channels, a.size, a.size))
        np.save(path("x.npy"), x.astype(np.float32))
        run([tools["ocannl-import-onnx"], path("model.onnx"), "-o", path("model.mlir")])
        # As `ocannl-run --threads T` plans: no parallel loop at one thread
        # (with one, the first outer loop goes outermost: another loop
        # order than the models run).
        par = f"parallel=true threads={a.threads} " if a.threads > 1 else ""
        plan = (f"builtin.module(ocannl-verify,ocannl-infer-shapes,ocannl-infer-projections,"
                f"ocannl-erase-dead-ops,ocannl-plan-schedule{{{par}"
                f"vector-bytes=host {a.plan_options}}})")
        run([tools["ocannl-opt"], path("model.mlir"), "-p", plan, "--mlir-print-debuginfo",
             "-o", path("planned.mlir")])
        text = open(path("planned.mlir")).read()
        convs = list(CONV.finditer(text))[1:]  # the first is `pre`
        if len(convs) != len(a.variants):
            sys.exit(f"conv_variants.py: found {len(convs)} branch schedules, expected {len(a.variants)}")
        parts, last = [], 0
        for m, v in zip(convs, a.variants):
            parts += [text[last:m.start(1)], rewrite(m.group(1), v)]
            last = m.end(1)
            print(f"{v.split(';')[0]:12} {parts[-1]}")
        parts.append(text[last:])
        with open(path("variants.mlir"), "w") as f:
            f.write("".join(parts))
        best = {}
        for _ in range(a.reps):
            per = {}
            for line in run([tools["ocannl-run"], path("variants.mlir"), "--inputs", path("x.npy"),
                             "--profile", "--bench", str(a.runs),
                             "--threads", str(a.threads)]).splitlines():
                m = LINE.match(line)
                if m:
                    ms = float(m.group(1)) * (1 if m.group(2) == "ms" else 1e-3)
                    per[m.group(3)] = per.get(m.group(3), 0.0) + ms
            for k, ms in per.items():
                best[k] = min(best.get(k, ms), ms)
        m_out = a.out_channels or a.channels
        o = (a.size + a.stride - 1) // a.stride
        gflop = 2 * m_out * a.channels * a.kernel ** 2 * o * o / 1e9
        print(f"{m_out}<-{a.channels} {a.kernel}x{a.kernel}/{a.stride} on {a.size}^2, "
              f"{a.threads} thread(s); ms per run (each branch's minimum of {a.reps} x {a.runs} runs)")
        for i, v in enumerate(a.variants):
            ms = best.get(f"b{i}")
            if ms is None:
                sys.exit(f"conv_variants.py: no time for branch b{i} in ocannl-run's profile")
            print(f"b{i} {v.split(';')[0]:12} {ms:9.3f} ms {gflop / ms * 1e3:7.1f} GFLOP/s")


if __name__ == "__main__":
    main()
