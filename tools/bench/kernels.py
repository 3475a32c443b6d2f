#!/usr/bin/env python3
"""Generated kernels against their peers, side by side in one run.

For each kernel it writes a one-function .mlir module and random .npy
inputs, times `ocannl-run --bench` (median of --runs, after one warm-up run
inside ocannl-run) and the peer on the same data in a fresh process with
the same thread count (pip numpy with OpenBLAS; pip onnxruntime for the
convolutions), checks that both computed the same values, and prints a
table: ours, peer, peer/ours (above 1: we are faster), and ocannl-run's
compile time (parse, inference, lowering, LLVM, JIT) for the kernel. Each
kernel runs at 1 thread and at every core.

    scripts/bench.sh                 # installs the peers in .bench-venv, builds, runs this
    .bench-venv/bin/python tools/bench/kernels.py --bin-dir target/release
        [--only matmul1024,conv3x3] [--runs 10] [--threads 1,2]

Kernels (the issue's list): matmul 1024^3 and 2048^3 f32 (`"K->N"` x
`"M|K"`, OCANNL's weight layout: numpy computes `x @ w.T`); a ResNet 3x3
convolution 64->64 on 56x56, padded; a strided (2) 3x3 convolution
64->128 followed by a 2x2 max-pool; add with a broadcast bias + relu on
4096^2; softmax and layer norm over the rows of 4096x1024; the two-layer
MLP of examples/mlp-run.mlir at batch 256.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def t(spec):
    return f'!ocannl.tensor<f32, "{spec}">'


OPEN = t("...|...->...")


def func(name, args, body, result):
    """A module with one function: `args` is [(name, spec)], `body` lines
    assign %names, `result` is the returned %name."""
    params = ", ".join(f"%{a}: {t(s)}" for a, s in args)
    lines = "\n".join(f"  {b}" for b in body)
    return (f"func.func @{name}({params}) -> {OPEN} {{\n{lines}\n"
            f"  return %{result} : {OPEN}\n}}\n")


def op(res, name, operands, types, attrs=""):
    ops = ", ".join(f"%{o}" for o in operands)
    tys = ", ".join(types)
    a = f" {{{attrs}}}" if attrs else ""
    return f'%{res} = "ocannl.{name}"({ops}){a} : ({tys}) -> {OPEN}'


def matmul(n):
    mlir = func("matmul", [("w", f"{n}->{n}"), ("x", f"{n}|{n}")],
                [op("y", "matmul", ["w", "x"], [t(f"{n}->{n}"), t(f"{n}|{n}")])], "y")

    def inputs(rng):
        return [rng.standard_normal((n, n), dtype=np.float32),
                rng.standard_normal((n, n), dtype=np.float32)]
    return mlir, inputs, "numpy", "y = x @ w.T"


def conv3x3():
    spec = "oh=+kh,ow=+kw,ci; kh,kw,ci->co => oh,ow,co"
    mlir = func("conv", [("x", "56,56,64"), ("k", "3,3,64->64")],
                [op("y", "einsum", ["x", "k"], [t("56,56,64"), t("3,3,64->64")],
                    f'spec = "{spec}"')], "y")

    def inputs(rng):
        return [rng.standard_normal((56, 56, 64), dtype=np.float32),
                rng.standard_normal((64, 3, 3, 64), dtype=np.float32)]
    return mlir, inputs, "onnxruntime", "conv"


def conv_pool():
    spec = "2*oh=+kh,2*ow=+kw,ci; kh,kw,ci->co => oh,ow,co"
    pool = "2*ph<+wh,2*pw<+ww,c; wh,ww => ph,pw,c"
    mlir = func("conv_pool", [("x", "56,56,64"), ("k", "3,3,64->128")], [
        op("c", "einsum", ["x", "k"], [t("56,56,64"), t("3,3,64->128")], f'spec = "{spec}"'),
        f'%win = "ocannl.constant"() {{value = 0.0 : f32}} : () -> {t("2,2")}',
        op("y", "einsum", ["c", "win"], [OPEN, t("2,2")],
           f'spec = "{pool}", accum = "max", combine = "add"'),
    ], "y")

    def inputs(rng):
        return [rng.standard_normal((56, 56, 64), dtype=np.float32),
                rng.standard_normal((128, 3, 3, 64), dtype=np.float32)]
    return mlir, inputs, "onnxruntime", "conv_pool"


def add_relu():
    mlir = func("add_relu", [("x", "4096,4096"), ("b", "4096")], [
        op("s", "add", ["x", "b"], [t("4096,4096"), t("4096")]),
        op("y", "relu", ["s"], [OPEN]),
    ], "y")

    def inputs(rng):
        return [rng.standard_normal((4096, 4096), dtype=np.float32),
                rng.standard_normal((4096,), dtype=np.float32)]
    return mlir, inputs, "numpy", "y = np.maximum(x + b, 0)"


def softmax():
    x = t("4096,1024")
    mlir = func("softmax", [("x", "4096,1024")], [
        op("m", "einsum", ["x"], [x], 'spec = "r,c => r", accum = "max"'),
        op("d", "einsum", ["x", "m"], [x, OPEN], 'spec = "r,c; r => r,c", combine = "sub"'),
        op("e", "exp", ["d"], [OPEN]),
        op("s", "einsum", ["e"], [OPEN], 'spec = "r,c => r"'),
        op("y", "einsum", ["e", "s"], [OPEN, OPEN], 'spec = "r,c; r => r,c", combine = "div"'),
    ], "y")

    def inputs(rng):
        return [rng.standard_normal((4096, 1024), dtype=np.float32)]
    return mlir, inputs, "numpy", "e = np.exp(x - x.max(1, keepdims=True)); y = e / e.sum(1, keepdims=True)"


def layer_norm():
    x = t("4096,1024")
    mlir = func("layer_norm", [("x", "4096,1024")], [
        f'%inv = "ocannl.constant"() {{value = 9.765625e-04 : f32}} : () -> {t("1024")}',
        op("mu", "einsum", ["x", "inv"], [x, t("1024")], 'spec = "r,c; c => r"'),
        op("d", "einsum", ["x", "mu"], [x, OPEN], 'spec = "r,c; r => r,c", combine = "sub"'),
        op("sq", "mul", ["d", "d"], [OPEN, OPEN]),
        op("var", "einsum", ["sq", "inv"], [OPEN, t("1024")], 'spec = "r,c; c => r"'),
        op("sd", "sqrt", ["var"], [OPEN]),
        op("y", "einsum", ["d", "sd"], [OPEN, OPEN], 'spec = "r,c; r => r,c", combine = "div"'),
    ], "y")

    def inputs(rng):
        return [rng.standard_normal((4096, 1024), dtype=np.float32)]
    return mlir, inputs, "numpy", "d = x - x.mean(1, keepdims=True); y = d / np.sqrt((d * d).mean(1, keepdims=True))"


def mlp():
    with open(os.path.join(ROOT, "examples", "mlp-run.mlir")) as f:
        mlir = f.read()

    def inputs(rng):
        return [rng.standard_normal((256, 784), dtype=np.float32),
                rng.standard_normal((128, 784), dtype=np.float32) * 0.05,
                rng.standard_normal((128,), dtype=np.float32),
                rng.standard_normal((10, 128), dtype=np.float32) * 0.1,
                rng.standard_normal((10,), dtype=np.float32)]
    return mlir, inputs, "numpy", "y = np.maximum(x @ w1.T + b1, 0) @ w2.T + b2"


KERNELS = {
    "matmul1024": lambda: matmul(1024),
    "matmul2048": lambda: matmul(2048),
    "conv3x3": conv3x3,
    "conv_pool": conv_pool,
    "add_relu": add_relu,
    "softmax": softmax,
    "layer_norm": layer_norm,
    "mlp": mlp,
}

# The peer, run in a fresh process so that its thread count is set before
# numpy/onnxruntime start their pools. It prints the median in ms and
# saves its result for the comparison.
PEER = r'''
import json, os, sys, time
import numpy as np
kind, threads, runs, d = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
ins = [np.load(os.path.join(d, f"in{i}.npy")) for i in range(int(sys.argv[5]))]
if kind in ("conv", "conv_pool"):
    import onnx
    from onnx import TensorProto, helper
    import onnxruntime as ort
    x, k = ins
    X = np.ascontiguousarray(x.transpose(2, 0, 1)[None])          # NCHW
    W = np.ascontiguousarray(k.transpose(0, 3, 1, 2))             # OIHW
    stride = 2 if kind == "conv_pool" else 1
    nodes = [helper.make_node("Conv", ["X", "W"], ["C"], kernel_shape=[3, 3],
                              pads=[1, 1, 1, 1], strides=[stride, stride])]
    out = "C"
    if kind == "conv_pool":
        nodes.append(helper.make_node("MaxPool", ["C"], ["Y"], kernel_shape=[2, 2], strides=[2, 2]))
        out = "Y"
    g = helper.make_graph(nodes, "g",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, list(X.shape))],
        [helper.make_tensor_value_info(out, TensorProto.FLOAT, None)],
        [helper.make_tensor("W", TensorProto.FLOAT, list(W.shape), W.flatten().tolist())])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    s = ort.InferenceSession(m.SerializeToString(), so, providers=["CPUExecutionProvider"])
    f = lambda: s.run(None, {"X": X})[0]
    post = lambda y: y[0].transpose(1, 2, 0)                      # back to HWC
else:
    if kind == "y = x @ w.T":
        args = {"w": ins[0], "x": ins[1]}
    elif kind.startswith("y = np.maximum(x @ w1.T"):
        args = dict(zip(["x", "w1", "b1", "w2", "b2"], ins))
    else:
        args = dict(zip(["x", "b"], ins))
    g = {"np": np, **args}
    exec("def f():\n    " + "\n    ".join(kind.split("; ")) + "\n    return y", g)
    f = g["f"]
    post = lambda y: y
y = f()
ts = []
for _ in range(runs):
    t0 = time.perf_counter(); f(); ts.append(time.perf_counter() - t0)
ts.sort()
np.save(os.path.join(d, "peer.npy"), post(np.asarray(y)))
print(json.dumps({"ms": ts[len(ts) // 2] * 1e3}))
'''


def run_ours(bin_dir, d, n_in, threads, runs):
    cmd = [os.path.join(bin_dir, "ocannl-run"), os.path.join(d, "k.mlir"), "--inputs",
           *[os.path.join(d, f"in{i}.npy") for i in range(n_in)],
           "--outputs", os.path.join(d, "ours.npy"), "--bench", str(runs),
           "--threads", str(threads)]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"kernels.py: {' '.join(cmd)} failed:\n{p.stdout}\n{p.stderr}")
    m = re.search(r"median ([0-9.]+) ms.*compiled in ([0-9.]+) ms", p.stdout)
    return float(m.group(1)), float(m.group(2))


def run_peer(d, kind, n_in, threads, runs):
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads),
               MKL_NUM_THREADS=str(threads))
    p = subprocess.run([sys.executable, "-c", PEER, kind, str(threads), str(runs), d, str(n_in)],
                       capture_output=True, text=True, env=env)
    if p.returncode != 0:
        sys.exit(f"kernels.py: the peer failed for {kind}:\n{p.stderr}")
    return json.loads(p.stdout.strip().splitlines()[-1])["ms"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin-dir", default=os.path.join(ROOT, "target", "release"))
    ap.add_argument("--only", default="")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--threads", default=f"1,{os.cpu_count()}")
    args = ap.parse_args()
    names = [k for k in KERNELS if not args.only or k in args.only.split(",")]
    thread_counts = sorted({int(x) for x in args.threads.split(",")})
    rng = np.random.default_rng(0)
    rows = []
    print(f"{'kernel':<12} {'thr':>3} {'ours ms':>9} {'peer':<12} {'peer ms':>9} "
          f"{'peer/ours':>9} {'max err':>9} {'compile ms':>10}")
    for name in names:
        mlir, make_inputs, peer, kind = KERNELS[name]()
        with tempfile.TemporaryDirectory(prefix=f"ocannl-bench-{name}-") as d:
            with open(os.path.join(d, "k.mlir"), "w") as f:
                f.write(mlir)
            ins = make_inputs(rng)
            for i, a in enumerate(ins):
                np.save(os.path.join(d, f"in{i}.npy"), a)
            for th in thread_counts:
                ours, compile_ms = run_ours(args.bin_dir, d, len(ins), th, args.runs)
                theirs = run_peer(d, kind, len(ins), th, args.runs)
                a = np.load(os.path.join(d, "ours.npy"))
                b = np.load(os.path.join(d, "peer.npy"))
                if a.shape != b.shape:
                    sys.exit(f"kernels.py: {name}: ours has shape {a.shape}, the peer {b.shape}")
                err = float(np.max(np.abs(a - b)) / max(1.0, float(np.max(np.abs(b)))))
                ratio = theirs / ours
                rows.append((name, th, ours, peer, theirs, ratio, err, compile_ms))
                print(f"{name:<12} {th:>3} {ours:>9.3f} {peer:<12} {theirs:>9.3f} "
                      f"{ratio:>9.2f} {err:>9.1e} {compile_ms:>10.1f}", flush=True)
                if err > 1e-3:
                    sys.exit(f"kernels.py: {name}: results differ (relative error {err:.2e})")


if __name__ == "__main__":
    main()
