#!/usr/bin/env python3
"""ONNX models: `ocannl-run --bench` against onnxruntime, same run, same
thread count (issue 14). The models are the onnx wheel's light ResNet-50,
SqueezeNet and VGG-19 with seeded random weights in place of their
ConstantOfShape fills (as tools/tests/onnx/light.py makes them), fed as
inputs to both sides.

Usage: onnx_models.py BIN_DIR [--threads N] [--runs N] [MODEL_SUBSTRING...]
Prints per model: ours (median ms), onnxruntime (median ms), the ratio
(onnxruntime time / ours: above 1 is faster than onnxruntime).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "onnx"))
from light import DATA, dummy, randomized  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin_dir")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("models", nargs="*", default=["resnet50", "squeezenet", "vgg19"])
    args = ap.parse_args()
    import onnxruntime as ort

    print(f"threads {args.threads}, {args.runs} timed runs each (median)")
    print(f"{'model':<12} {'ocannl ms':>10} {'onnxruntime ms':>15} {'ratio':>7}")
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        for m in args.models:
            path = os.path.join(DATA, f"light_{m}.onnx")
            model, arrays = randomized(onnx.load(path), rng)
            rpath = os.path.join(tmp, f"{m}.onnx")
            onnx.save(model, rpath)
            mlir = os.path.join(tmp, f"{m}.mlir")
            subprocess.run([f"{args.bin_dir}/ocannl-import-onnx", rpath, "-o", mlir], check=True)
            inits = {t.name for t in model.graph.initializer}
            feeds, npys = {}, []
            for k, vi in enumerate(i for i in model.graph.input if i.name not in inits):
                a = arrays.get(vi.name)
                feeds[vi.name] = dummy(vi) if a is None else a
                npys.append(os.path.join(tmp, f"{m}_{k}.npy"))
                np.save(npys[-1], feeds[vi.name])
            r = subprocess.run(
                [f"{args.bin_dir}/ocannl-run", mlir, "--inputs", *npys, "--bench", str(args.runs),
                 "--threads", str(args.threads)],
                capture_output=True, text=True, check=True)
            ours = float(re.search(r"median ([0-9.]+) ms", r.stdout).group(1))
            so = ort.SessionOptions()
            so.intra_op_num_threads = args.threads
            so.inter_op_num_threads = 1
            sess = ort.InferenceSession(rpath, so, providers=["CPUExecutionProvider"])
            sess.run(None, feeds)
            times = []
            for _ in range(args.runs):
                t = time.perf_counter()
                sess.run(None, feeds)
                times.append(time.perf_counter() - t)
            theirs = sorted(times)[len(times) // 2] * 1e3
            print(f"{m:<12} {ours:>10.2f} {theirs:>15.2f} {theirs / ours:>7.2f}")
            for p in npys:
                os.remove(p)


if __name__ == "__main__":
    main()
