#!/usr/bin/env python3
"""One convolution alone and in a chain, ours against onnxruntime: how
much of a convolution's time inside a model is its weights coming cold
from memory (issue 41).

Writes two ONNX models with seeded random weights: the convolution alone
(`Conv -> Relu`, its weights hot across the timed runs once they fit in
the caches), and LENGTH of them in a row, each with its own weights
(which evict each other's from L2: inside ResNet-50 or VGG-19 a
convolution's weights come from L3 or memory). Both are imported with
`ocannl-import-onnx` and timed per node with `ocannl-run --profile` and
onnxruntime's profiler (each node's minimum over the runs; the machine's
slow spells fall on single runs), at each thread count. Prints each
side's convolution time alone, the mean of the chain's convolutions, and
the chain's cost over the lone one.

Usage:
  .onnx-venv/bin/python tools/bench/conv_chain.py BIN_DIR --channels 512
      --size 7 [--kernel 3] [--length 4] [--threads 1,2] [--runs 20]
      [--reps 3] [--keep DIR]

The convolution maps CHANNELS to CHANNELS on SIZE x SIZE, a KERNEL x
KERNEL window (odd) padded to keep the size, stride 1.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from profile_vs_ort import ours, run_table, theirs  # noqa: E402


def model(channels, size, kernel, length):
    """`length` x (Conv -> Relu), node names conv0, conv1, ..."""
    rng = np.random.default_rng(0)
    scale = 1.0 / np.sqrt(channels * kernel * kernel)
    nodes, inits, prev = [], [], "x"
    for i in range(length):
        w = (rng.standard_normal((channels, channels, kernel, kernel)) * scale).astype(np.float32)
        b = (rng.standard_normal(channels) * 0.1).astype(np.float32)
        inits += [numpy_helper.from_array(w, f"w{i}"), numpy_helper.from_array(b, f"b{i}")]
        nodes.append(helper.make_node("Conv", [prev, f"w{i}", f"b{i}"], [f"c{i}"], name=f"conv{i}",
                                      kernel_shape=[kernel, kernel], pads=[kernel // 2] * 4))
        nodes.append(helper.make_node("Relu", [f"c{i}"], [f"r{i}"], name=f"relu{i}"))
        prev = f"r{i}"
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, channels, size, size])
    y = helper.make_tensor_value_info(prev, TensorProto.FLOAT, None)
    graph = helper.make_graph(nodes, "conv_chain", [x], [y], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def conv_times(per_node, length):
    """The convolutions' times, conv0 first."""
    return [per_node.get(f"conv{i}", 0.0) for i in range(length)]


def ort_conv_times(nodes, length):
    """onnxruntime's Conv nodes' times in graph order (its fusions rename
    them; the chain's convolutions all have the same class)."""
    return [ms for (kind, _, _), ms in nodes if kind == "Conv"][:length]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bin_dir")
    ap.add_argument("--channels", type=int, required=True)
    ap.add_argument("--size", type=int, required=True)
    ap.add_argument("--kernel", type=int, default=3)
    ap.add_argument("--length", type=int, default=4)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--keep", help="write the models and input here")
    a = ap.parse_args()
    if a.channels < 1 or a.size < 1 or a.kernel < 1 or a.kernel % 2 == 0:
        sys.exit("conv_chain.py: --channels and --size must be positive, --kernel positive and odd")
    if a.length < 2:
        sys.exit("conv_chain.py: --length must be at least 2")
    try:
        threads = [int(t) for t in a.threads.split(",")]
    except ValueError:
        sys.exit(f"conv_chain.py: --threads wants numbers like 1,2 (got {a.threads})")
    importer = os.path.join(a.bin_dir, "ocannl-import-onnx")
    if not os.path.isfile(importer):
        sys.exit(f"conv_chain.py: no ocannl-import-onnx in {a.bin_dir}")
    with tempfile.TemporaryDirectory() as tmp:
        out = a.keep or tmp
        os.makedirs(out, exist_ok=True)
        x = np.random.default_rng(1).standard_normal((1, a.channels, a.size, a.size)).astype(np.float32)
        npy = os.path.join(out, "x.npy")
        np.save(npy, x)
        paths = {}
        for name, n in (("alone", 1), ("chain", a.length)):
            onnx_path = os.path.join(out, f"{name}.onnx")
            onnx.save(model(a.channels, a.size, a.kernel, n), onnx_path)
            mlir = os.path.join(out, f"{name}.mlir")
            r = subprocess.run([importer, onnx_path, "-o", mlir], capture_output=True, text=True)
            if r.returncode:
                sys.exit(f"conv_chain.py: ocannl-import-onnx failed: {r.stderr.strip()[-400:]}")
            paths[name] = (onnx_path, mlir)
        gflop = 2 * a.channels ** 2 * a.kernel ** 2 * a.size ** 2 / 1e9
        print(f"{a.channels}->{a.channels} {a.kernel}x{a.kernel} on {a.size}^2 ({gflop:.3f} GFLOP), "
              f"a chain of {a.length}; ms per convolution (each node's minimum of "
              f"{a.reps} x {a.runs} runs)")
        print(f"{'threads':>7} {'side':12} {'alone':>8} {'chain':>8} {'chain/alone':>11} {'GFLOP/s in chain':>16}")
        for t in threads:
            rows = []
            alone = conv_times(ours(a.bin_dir, paths["alone"][1], npy, t, a.runs, a.reps), 1)[0]
            chain = conv_times(ours(a.bin_dir, paths["chain"][1], npy, t, a.runs, a.reps), a.length)
            rows.append(("ocannl", alone, chain))
            alone = ort_conv_times(theirs(paths["alone"][0], x, t, a.runs, a.reps), 1)
            chain = ort_conv_times(theirs(paths["chain"][0], x, t, a.runs, a.reps), a.length)
            rows.append(("onnxruntime", alone[0] if alone else 0.0, chain))
            for side, lone, chain in rows:
                mean = sum(chain) / max(len(chain), 1)
                ratio = mean / lone if lone else float("nan")
                rate = gflop / mean * 1e3 if mean else float("nan")
                print(f"{t:7} {side:12} {lone:8.3f} {mean:8.3f} {ratio:11.2f} {rate:16.0f}")


if __name__ == "__main__":
    run_table(main, "conv_chain.py")
