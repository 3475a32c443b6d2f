#!/usr/bin/python3
"""Runs examples/cnn-run.mlir (conv -> relu -> max-pool -> dense, parameter
shapes inferred) with ocannl-run on random data and compares the result with
the same network computed in NumPy.

Usage:
    /usr/bin/python3 tools/tests/run/cnn_check.py --bin-dir target/debug [--seed N] [--target cuda]

Shapes (memory order batch, output, input): x (B, 8, 8, 1); k1 "3,3,1->4"
is (4, 3, 3, 1); w2 "3,3,4->10" is (10, 3, 3, 4); b2 (10,).

Exit status: 0 the outputs agree, 1 they do not or ocannl-run failed,
2 ocannl-run is missing.
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
    sys.stderr.write("cnn_check.py: numpy is required (run with /usr/bin/python3)\n")
    sys.exit(2)

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.normpath(os.path.join(HERE, "..", "..", "..", "examples", "cnn-run.mlir"))


def reference(x, k1, w2, b2):
    """Straightforward loops: valid 3x3 conv, relu, 2x2/2 max-pool, dense."""
    B = x.shape[:-3]
    x = x.reshape((-1, 8, 8, 1)).astype(np.float64)
    n = x.shape[0]
    conv = np.zeros((n, 6, 6, 4))
    for i in range(6):
        for j in range(6):
            patch = x[:, i:i + 3, j:j + 3, :]                      # (n, 3, 3, 1)
            conv[:, i, j, :] = np.einsum("nabc,oabc->no", patch, k1.astype(np.float64))
    r = np.maximum(conv, 0.0)
    pool = np.zeros((n, 3, 3, 4))
    for i in range(3):
        for j in range(3):
            pool[:, i, j, :] = r[:, 2 * i:2 * i + 2, 2 * j:2 * j + 2, :].max(axis=(1, 2))
    y = np.einsum("nabc,oabc->no", pool, w2.astype(np.float64)) + b2.astype(np.float64)
    return y.reshape(B + (10,))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin-dir", required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--target", help="ocannl-run --target (cuda: on the CUDA device)")
    args = ap.parse_args()
    tool = os.path.join(args.bin_dir, "ocannl-run")
    if not os.access(tool, os.X_OK):
        print(f"cnn_check.py: ocannl-run not found at {tool}", file=sys.stderr)
        return 2
    rng = np.random.default_rng(args.seed)
    f32 = np.float32
    d = tempfile.mkdtemp(prefix="ocannl-cnn-")
    try:
        for batch in [(5,), (2, 3)]:
            x = rng.standard_normal((*batch, 8, 8, 1)).astype(f32)
            k1 = rng.standard_normal((4, 3, 3, 1)).astype(f32)
            w2 = (rng.standard_normal((10, 3, 3, 4)) / 6).astype(f32)
            b2 = (0.1 * rng.standard_normal(10)).astype(f32)
            paths = []
            for name, arr in (("x", x), ("k1", k1), ("w2", w2), ("b2", b2)):
                p = os.path.join(d, f"{name}.npy")
                np.save(p, arr)
                paths.append(p)
            out = os.path.join(d, "y.npy")
            cmd = [tool, EXAMPLE, "--entry", "cnn", "--inputs", *paths, "--outputs", out]
            if args.target:
                cmd += ["--target", args.target]
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
            if p.returncode != 0:
                print(f"cnn: ocannl-run exited with {p.returncode}\n  {' '.join(cmd)}\n{p.stderr}")
                return 1
            y = np.load(out)
            ref = reference(x, k1, w2, b2)
            if y.shape != ref.shape:
                print(f"cnn: batch {batch}: got shape {y.shape}, expected {ref.shape}")
                return 1
            diff = float(np.max(np.abs(y - ref)))
            print(f"cnn: batch {batch}: output {y.shape}, max abs diff {diff:.3g}")
            if not np.allclose(y, ref, rtol=1e-4, atol=1e-4):
                print("cnn: MISMATCH")
                return 1
        print("cnn: ok")
        return 0
    finally:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
