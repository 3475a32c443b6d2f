#!/usr/bin/python3
"""Runs examples/mlp-run.mlir with ocannl-run on random data and compares
the result with the same two-layer perceptron computed in NumPy.

Usage:
    /usr/bin/python3 tools/tests/run/mlp_check.py --bin-dir target/debug [--seed N] [--target cuda] [--keep DIR]

The parameter shapes are the ones shape inference gives the example (see
its header comment), in memory order batch, output, input: a weight
"784->128" is the numpy array (128, 784), i.e. (out, in).

Exit status: 0 the outputs agree (prints "mlp: ok"), 1 they do not or
ocannl-run failed, 2 ocannl-run is missing or the command line is wrong.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

try:
    import numpy as np
except ImportError:  # pragma: no cover
    sys.stderr.write("mlp_check.py: numpy is required (run with /usr/bin/python3)\n")
    sys.exit(2)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
EXAMPLE = os.path.join(ROOT, "examples", "mlp-run.mlir")

BATCHES = [(32,), (4, 8)]
IN, HIDDEN, OUT = 784, 128, 10


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin-dir", required=True, help="directory holding ocannl-run")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--target", help="ocannl-run --target (cuda: on the CUDA device)")
    ap.add_argument("--keep", help="keep the .npy files in this directory")
    ap.add_argument("--bench", type=int, metavar="N",
                    help="also time N runs of ocannl-run's compiled code and of NumPy "
                         "(float32, its BLAS) on the same data; print both medians and the ratio")
    args = ap.parse_args()

    tool = os.path.join(args.bin_dir, "ocannl-run")
    if not (os.path.isfile(tool) and os.access(tool, os.X_OK)):
        print(f"mlp_check.py: ocannl-run not found at {tool} (build it first)", file=sys.stderr)
        return 2

    rng = np.random.default_rng(args.seed)
    d = args.keep or tempfile.mkdtemp(prefix="ocannl-mlp-")
    os.makedirs(d, exist_ok=True)
    try:
        # The batch comes from the data (the row variable `..b..`): one
        # batch axis of 32, then two batch axes (4, 8).
        for batch in BATCHES:
            rc, cmd, arrays = check(tool, rng, batch, d, args.target)
            if rc != 0:
                return rc
        if args.bench:
            return bench(cmd, args.bench, arrays)
        return 0
    finally:
        if not args.keep:
            shutil.rmtree(d, ignore_errors=True)


def check(tool, rng, batch, d, target=None):
    """Runs the example on random data with batch axes `batch`; returns
    (exit status, command, input arrays)."""
    f32 = np.float32
    # Argument order of @mlp: x, w1, b1, w2, b2.
    x = rng.uniform(0.0, 1.0, size=(*batch, IN)).astype(f32)           # "..b..|784"
    w1 = (rng.standard_normal((HIDDEN, IN)) / np.sqrt(IN)).astype(f32)  # "784->128"
    b1 = (0.1 * rng.standard_normal(HIDDEN)).astype(f32)               # "128"
    w2 = (rng.standard_normal((OUT, HIDDEN)) / np.sqrt(HIDDEN)).astype(f32)  # "128->10"
    b2 = (0.1 * rng.standard_normal(OUT)).astype(f32)                  # "10"
    arrays = (x, w1, b1, w2, b2)
    paths = []
    for name, arr in zip(("x", "w1", "b1", "w2", "b2"), arrays):
        p = os.path.join(d, f"{name}.npy")
        np.save(p, arr)
        paths.append(p)
    out = os.path.join(d, "y.npy")
    cmd = [tool, EXAMPLE, "--entry", "mlp", "--inputs", *paths, "--outputs", out]
    if target:
        cmd += ["--target", target]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        print(f"mlp: ocannl-run timed out\n  command: {' '.join(cmd)}")
        return 1, cmd, arrays
    if p.returncode != 0:
        print(f"mlp: ocannl-run exited with {p.returncode}\n  command: {' '.join(cmd)}\n"
              f"  stderr:\n{p.stderr}\n  stdout:\n{p.stdout}")
        return 1, cmd, arrays
    y = np.load(out, allow_pickle=False)

    xd, w1d, b1d, w2d, b2d = (a.astype(np.float64) for a in arrays)
    ref = np.maximum(xd @ w1d.T + b1d, 0.0) @ w2d.T + b2d
    if y.shape != ref.shape or y.dtype != np.float32:
        print(f"mlp: batch {batch}: got {y.shape} {y.dtype}, expected {ref.shape} float32")
        return 1, cmd, arrays
    diff = float(np.max(np.abs(y.astype(np.float64) - ref)))
    print(f"mlp: batch {batch}: output {y.shape} {y.dtype}, max abs diff {diff:.3g}")
    if not np.allclose(y, ref, rtol=1e-4, atol=1e-4):
        print("mlp: MISMATCH")
        with np.printoptions(precision=5, suppress=True):
            print(f"  got:      {y.reshape(-1, OUT)[0]}\n  expected: {ref.reshape(-1, OUT)[0]}")
        return 1, cmd, arrays
    print(f"mlp: batch {batch}: ok")
    return 0, cmd, arrays


def bench(cmd, n, arrays):
    """Median of n runs: ocannl-run --bench vs the NumPy expression."""
    import re
    import timeit
    p = subprocess.run([*cmd, "--bench", str(n)], capture_output=True, text=True, timeout=600)
    m = re.search(r"median ([0-9.]+) ms", p.stdout)
    if p.returncode != 0 or not m:
        print(f"mlp bench: ocannl-run --bench failed:\n{p.stderr}{p.stdout}")
        return 1
    ours = float(m.group(1))
    x, w1, b1, w2, b2 = arrays
    times = timeit.repeat(lambda: np.maximum(x @ w1.T + b1, 0) @ w2.T + b2, number=1, repeat=n)
    peer = sorted(times)[len(times) // 2] * 1e3
    print(f"mlp bench: ocannl-run median {ours:.3f} ms, numpy median {peer:.3f} ms, "
          f"ratio ocannl/numpy {ours / peer:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
