#!/usr/bin/env python3
"""The GPU benchmark: ocannl-run --target cuda against the device's own
libraries, side by side in one run.

For each kernel it writes a one-function .mlir module and random .npy
inputs, times `ocannl-run --target cuda --bench N` (CUDA events: the
kernels, and end to end with the copies) and the peer on the same data on
the same device, checks that both computed the same values, and prints
ours, the peer and the ratio (above 1: we are faster).

    tools/bench/gpu.py --bin-dir DIR [--only matmul4096,chain] [--runs 20] [--device 0]

Kernels (issue 12): matmul 4096^2 f32 (`"K->N"` x `"M|K"`) against cuBLAS
(PyTorch's `x @ w.T`, which calls cublasSgemm); an elementwise broadcast
chain (add bias, relu, multiply, 4096 x 8192) against the device's memory
bandwidth (bytes moved / time, the bandwidth measured by a device-to-device
copy of the same size); the 3x3 ResNet convolution (64->64, 56x56, padded)
against cuDNN (PyTorch's conv2d); the MLP of examples/mlp-run.mlir at batch
4096 against PyTorch; ResNet-50 end to end (`resnet50`: the onnx wheel's
light model with seeded random weights in the model, batch 1, as
tools/bench/onnx_models.py runs it on the CPU), imported with
ocannl-import-onnx, against onnxruntime's CUDA provider when the device's
onnxruntime has one, else the same ONNX graph op by op in PyTorch (cuDNN,
TF32 off; `onnx_torch.py`).

The GPU machine has CUDA, PyTorch and numpy but no LLVM: build ocannl-run
here (release), carry the binary there, and run this script with
--bin-dir pointing at it. Without a CUDA device the script says so and
exits 0.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from kernels import OPEN, func, op, t  # noqa: E402  (the module writers)


def matmul(rng, n=4096):
    mlir = func("matmul", [("w", f"{n}->{n}"), ("x", f"{n}|{n}")],
                [op("y", "matmul", ["w", "x"], [t(f"{n}->{n}"), t(f"{n}|{n}")])], "y")
    w = rng.standard_normal((n, n), dtype=np.float32)
    x = rng.standard_normal((n, n), dtype=np.float32)

    def peer(torch, dev, ins):
        w, x = ins
        return lambda: x @ w.T
    return mlir, [w, x], "cuBLAS", peer, 2.0 * n ** 3


def chain(rng, r=4096, c=8192):
    mlir = func("chain", [("x", f"{r},{c}"), ("b", f"{c}"), ("s", f"{r},{c}")], [
        op("a", "add", ["x", "b"], [t(f"{r},{c}"), t(f"{c}")]),
        op("h", "relu", ["a"], [OPEN]),
        op("y", "mul", ["h", "s"], [OPEN, t(f"{r},{c}")]),
    ], "y")
    x = rng.standard_normal((r, c), dtype=np.float32)
    b = rng.standard_normal((c,), dtype=np.float32)
    s = rng.standard_normal((r, c), dtype=np.float32)

    def peer(torch, dev, ins):
        x, b, s = ins
        return lambda: torch.relu(x + b) * s
    # Bytes moved: x and s read, y written (b is small).
    return mlir, [x, b, s], "bandwidth", peer, None


def conv(rng):
    spec = "oh=+kh,ow=+kw,ci; kh,kw,ci->co => oh,ow,co"
    mlir = func("conv", [("x", "56,56,64"), ("k", "3,3,64->64")],
                [op("y", "einsum", ["x", "k"], [t("56,56,64"), t("3,3,64->64")],
                    f'spec = "{spec}"')], "y")
    x = rng.standard_normal((56, 56, 64), dtype=np.float32)
    k = rng.standard_normal((64, 3, 3, 64), dtype=np.float32)

    def peer(torch, dev, ins):
        x, k = ins
        X = x.permute(2, 0, 1).unsqueeze(0).contiguous()   # NCHW
        K = k.permute(0, 3, 1, 2).contiguous()              # OIHW
        return lambda: torch.nn.functional.conv2d(X, K, padding=1)[0].permute(1, 2, 0)
    return mlir, [x, k], "cuDNN", peer, 2.0 * 56 * 56 * 64 * 64 * 9


def mlp(rng, batch=4096):
    with open(os.path.join(ROOT, "examples", "mlp-run.mlir")) as f:
        mlir = f.read()
    ins = [rng.standard_normal((batch, 784), dtype=np.float32),
           rng.standard_normal((128, 784), dtype=np.float32) * 0.05,
           rng.standard_normal((128,), dtype=np.float32),
           rng.standard_normal((10, 128), dtype=np.float32) * 0.1,
           rng.standard_normal((10,), dtype=np.float32)]

    def peer(torch, dev, ins):
        x, w1, b1, w2, b2 = ins
        return lambda: torch.relu(x @ w1.T + b1) @ w2.T + b2
    return mlir, ins, "PyTorch", peer, None


KERNELS = {"matmul4096": matmul, "chain": chain, "conv3x3": conv, "mlp4096": mlp}
MODELS = ["resnet50", "squeezenet"]


class Failed(Exception):
    """A kernel that did not run or computed other values: reported, and
    the next kernel runs."""


def run_ours(bin_dir, d, n_in, runs, device, entry, mlir="k.mlir"):
    """(kernels median ms, end to end median ms, compile ms) of `ocannl-run
    --target cuda --bench`; writes d/ours.npy."""
    cmd = [os.path.join(bin_dir, "ocannl-run"), os.path.join(d, mlir), "--target", "cuda",
           "--device", str(device), "--inputs",
           *[os.path.join(d, f"in{i}.npy") for i in range(n_in)],
           "--outputs", os.path.join(d, "ours.npy"), "--bench", str(runs)]
    if entry:
        cmd[2:2] = ["--entry", entry]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise Failed(f"{' '.join(cmd)} failed:\n{p.stdout}\n{p.stderr}")
    m = re.search(r"kernels median ([0-9.]+) ms.*end to end with copies median ([0-9.]+) ms"
                  r".*compiled in ([0-9.]+) ms", p.stdout)
    return float(m.group(1)), float(m.group(2)), float(m.group(3))


def time_peer(torch, f, runs):
    f()
    torch.cuda.synchronize()
    ts = []
    for _ in range(runs):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        f()
        b.record()
        torch.cuda.synchronize()
        ts.append(a.elapsed_time(b))
    ts.sort()
    return ts[len(ts) // 2]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin-dir", default=os.path.join(ROOT, "target", "release"))
    ap.add_argument("--only", default="")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--device", type=int, default=0)
    args = ap.parse_args()
    try:
        import torch
    except ImportError:
        print("gpu.py: skipped: PyTorch (the peers) is not installed")
        return 0
    if not torch.cuda.is_available():
        print("gpu.py: skipped: no CUDA device")
        return 0
    dev = torch.device(f"cuda:{args.device}")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    print(f"device: {torch.cuda.get_device_name(dev)}")
    print(f"{'kernel':<11} {'ours ms':>9} {'e2e ms':>9} {'peer':<10} {'peer ms':>9} "
          f"{'peer/ours':>9} {'max err':>9} {'note'}")
    rng = np.random.default_rng(0)
    only = args.only.split(",") if args.only else None
    unknown = [k for k in only or [] if k not in KERNELS and k not in MODELS]
    if unknown:
        sys.exit(f"gpu.py: unknown --only {unknown}: the kernels are "
                 f"{', '.join(list(KERNELS) + MODELS)}")
    names = [k for k in KERNELS if not only or k in only]
    failed = []
    for name in names:
        try:
            kernel_row(args, torch, dev, rng, name)
        except Failed as e:
            print(f"{name:<11} FAILED: {e}", flush=True)
            failed.append(name)
    for name in MODELS:
        if not only or name in only:
            try:
                model_row(args, torch, dev, name)
            except Failed as e:
                print(f"{name:<11} FAILED: {e}", flush=True)
                failed.append(name)
    if failed:
        print(f"gpu.py: FAILED: {', '.join(failed)}")
        return 1
    return 0


def kernel_row(args, torch, dev, rng, name):
    """One kernel: ours against its peer, same data."""
    mlir, ins, peer_name, make_peer, flops = KERNELS[name](rng)
    with tempfile.TemporaryDirectory(prefix=f"ocannl-gpu-{name}-") as d:
        with open(os.path.join(d, "k.mlir"), "w") as f:
            f.write(mlir)
        for i, a in enumerate(ins):
            np.save(os.path.join(d, f"in{i}.npy"), a)
        entry = "mlp" if name.startswith("mlp") else None
        ours, e2e, _ = run_ours(args.bin_dir, d, len(ins), args.runs, args.device, entry)
        tins = [torch.from_numpy(a).to(dev) for a in ins]
        f = make_peer(torch, dev, tins)
        got = np.load(os.path.join(d, "ours.npy"))
        want = f().float().cpu().numpy()
        err = float(np.max(np.abs(got - want)) / max(1.0, float(np.max(np.abs(want)))))
        note = ""
        if peer_name == "bandwidth":
            nbytes = sum(a.nbytes for a in ins) + got.nbytes
            buf = torch.empty(nbytes // 4, dtype=torch.float32, device=dev)
            out = torch.empty_like(buf)
            copy_ms = time_peer(torch, lambda: out.copy_(buf), args.runs)
            # A copy reads and writes: 2 x nbytes at the device's bandwidth.
            bw = 2 * nbytes / (copy_ms * 1e-3)
            peer_ms = nbytes / bw * 1e3
            note = (f"{nbytes / (ours * 1e-3) / 1e9:.0f} GB/s of {bw / 1e9:.0f} GB/s "
                    f"({100 * peer_ms / ours:.0f}% of the bandwidth)")
        else:
            peer_ms = time_peer(torch, f, args.runs)
            if flops:
                note = f"{flops / (ours * 1e-3) / 1e12:.2f} TFLOP/s"
        print(f"{name:<11} {ours:>9.3f} {e2e:>9.3f} {peer_name:<10} {peer_ms:>9.3f} "
              f"{peer_ms / ours:>9.2f} {err:>9.1e} {note}", flush=True)
        if err > 1e-3:
            raise Failed(f"results differ (relative error {err:.2e})")


def model_row(args, torch, dev, name):
    """One model end to end: ours (kernels, and with the copies) against
    onnxruntime's CUDA provider or the graph in PyTorch, same weights and
    input."""
    try:
        import onnx
        sys.path.insert(0, os.path.join(ROOT, "tools", "tests", "onnx"))
        from light_weights import DATA, dummy, randomized
    except ImportError as e:
        print(f"{name:<11} skipped: {e}")
        return
    from onnx_torch import OnnxTorch
    rng = np.random.default_rng(0)
    model, _ = randomized(onnx.load(os.path.join(DATA, f"light_{name}.onnx")), rng,
                          as_initializers=True, logits=False)
    inits = {t.name for t in model.graph.initializer}
    feeds = [(vi.name, dummy(vi)) for vi in model.graph.input if vi.name not in inits]
    with tempfile.TemporaryDirectory(prefix=f"ocannl-gpu-{name}-") as d:
        path = os.path.join(d, "m.onnx")
        onnx.save(model, path)
        for i, (_, a) in enumerate(feeds):
            np.save(os.path.join(d, f"in{i}.npy"), a)
        imp = [os.path.join(args.bin_dir, "ocannl-import-onnx"), path, "-o",
               os.path.join(d, "m.mlir")]
        p = subprocess.run(imp, capture_output=True, text=True)
        if p.returncode != 0:
            raise Failed(f"{' '.join(imp)} failed:\n{p.stderr}")
        ours, e2e, compile_ms = run_ours(args.bin_dir, d, len(feeds), args.runs, args.device,
                                         None, "m.mlir")
        got = np.load(os.path.join(d, "ours.npy"))
        peer_name, f = "PyTorch", None
        try:
            import onnxruntime as ort
            if "CUDAExecutionProvider" in ort.get_available_providers():
                sess = ort.InferenceSession(path, providers=[("CUDAExecutionProvider",
                                                              {"device_id": args.device})])
                peer_name = "ort-cuda"
                io = sess.io_binding()
                for n, a in feeds:
                    io.bind_ortvalue_input(n, ort.OrtValue.ortvalue_from_numpy(a, "cuda",
                                                                               args.device))
                for o in sess.get_outputs():
                    io.bind_output(o.name, "cuda", args.device)

                def f():
                    sess.run_with_iobinding(io)
                f()
                want = io.copy_outputs_to_cpu()[0]
        except ImportError:
            pass
        if f is None:
            g = OnnxTorch(model, torch, dev)
            xs = [torch.from_numpy(a).to(dev) for _, a in feeds]

            def f():
                with torch.no_grad():
                    return g(*xs)[0]
            want = f().float().cpu().numpy()
        want = want.reshape(got.shape)
        err = float(np.max(np.abs(got - want)) / max(1.0, float(np.max(np.abs(want)))))
        peer_ms = time_peer(torch, f, args.runs)
        print(f"{name:<11} {ours:>9.3f} {e2e:>9.3f} {peer_name:<10} {peer_ms:>9.3f} "
              f"{peer_ms / ours:>9.2f} {err:>9.1e} batch 1, compiled in {compile_ms / 1e3:.1f} s",
              flush=True)
        if peer_name == "PyTorch":
            # The same graph replayed as one CUDA graph: no launch overhead
            # per op, the strongest form of the peer at batch 1.
            graph = torch.cuda.CUDAGraph()
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            try:
                with torch.cuda.stream(side):
                    for _ in range(3):
                        f()
                torch.cuda.current_stream().wait_stream(side)
                with torch.cuda.graph(graph):
                    f()
            except RuntimeError as e:
                print(f"{name:<11} the peer as a CUDA graph: not captured ({e})")
                return
            graph_ms = time_peer(torch, graph.replay, args.runs)
            print(f"{name:<11} {ours:>9.3f} {e2e:>9.3f} {'PyT-graph':<10} {graph_ms:>9.3f} "
                  f"{graph_ms / ours:>9.2f} {'':>9} the peer as one CUDA graph", flush=True)
        if err > 1e-3:
            raise Failed(f"results differ (relative error {err:.2e})")


if __name__ == "__main__":
    sys.exit(main())
