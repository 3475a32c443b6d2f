#!/usr/bin/env python3
"""The ONNX wheel's nine light models through ocannl (issue 14).

For each model in onnx/backend/test/data/light:
  1. `ocannl-import-onnx --erase-shapes`, then `ocannl-opt` infers the
     shapes; every node output's inferred shape must equal ONNX's
     `infer_shapes` on the original model;
  2. `ocannl-run` on ONNX's runner input (`generate_dummy_data(seed=0,
     random=False)`) must match the shipped output (rtol 1e-3, atol 1e-4);
  3. the `ConstantOfShape` fills (which make the shipped output a uniform
     softmax) become seeded random weights, passed as inputs to both
     ocannl-run and onnxruntime (BatchNormalization variances positive);
     every output and the softmax's input (the logits) must match.

Usage: light.py BIN_DIR [MODEL_SUBSTRING...]   (needs onnx, numpy, onnxruntime)
Exit 1 when any check fails.
"""
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper, shape_inference

from light_weights import DATA, dummy, randomized  # the seeded random weights, shared with tools/bench/onnx_models.py

BIN = sys.argv[1]
ONLY = sys.argv[2:]
RTOL, ATOL = 1e-3, 1e-4


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {r.returncode}\n{r.stderr[-2000:]}")
    return r.stdout


LOC = re.compile(r'-> \(?!ocannl\.tensor<\w+, "([^"]*)">\)? loc\(".*":(\d+):1\)')


def inferred_shapes(mlir):
    """The result type of the last op of each node (keyed by the node's
    position in the file: the locations' line numbers count from 1)."""
    out = {}
    for line in mlir.splitlines():
        m = LOC.search(line)
        if m:
            spec, line_no = m.groups()
            out[int(line_no) - 1] = [int(d) for d in spec.split(",")] if spec else []
    return out


def onnx_shapes(model):
    m = shape_inference.infer_shapes(model, strict_mode=True)
    vals = {v.name: v for v in list(m.graph.value_info) + list(m.graph.output)}
    shapes = {}
    for k, node in enumerate(m.graph.node):
        if node.op_type in ("Constant",) or not node.output:
            continue
        v = vals.get(node.output[0])
        if v is not None and v.type.tensor_type.HasField("shape"):
            shapes[k] = [d.dim_value for d in v.type.tensor_type.shape.dim]
    return shapes


def close(a, b):
    return a.shape == b.shape and np.allclose(a, b, rtol=RTOL, atol=ATOL)


def check_model(path, tmp, rng):
    import onnxruntime as ort

    name = os.path.basename(path)[: -len(".onnx")]
    model = onnx.load(path)
    mlir = os.path.join(tmp, name + ".mlir")
    run([f"{BIN}/ocannl-import-onnx", path, "--erase-shapes", "-o", mlir])
    inferred = run([f"{BIN}/ocannl-opt", mlir, "--mlir-print-debuginfo", "--mlir-print-local-scope",
                    "-p", "builtin.module(ocannl-infer-shapes,ocannl-check-shapes)"])
    ours, theirs = inferred_shapes(inferred), onnx_shapes(model)
    bad = [(n, ours.get(n), s) for n, s in theirs.items() if ours.get(n) != s]
    shapes_ok = not bad and len(theirs) > 0
    print(f"{name}: {len(theirs)} node shapes compared, {len(bad)} differ"
          + (f" (first: {bad[0]})" if bad else ""))
    # The shipped data set.
    inits = {t.name for t in model.graph.initializer}
    feeds = [i for i in model.graph.input if i.name not in inits]
    npys = []
    for k, vi in enumerate(feeds):
        p = os.path.join(tmp, f"{name}_in{k}.npy")
        np.save(p, dummy(vi))
        npys.append(p)
    out = os.path.join(tmp, f"{name}_out.npy")
    run([f"{BIN}/ocannl-run", mlir, "--inputs", *npys, "--outputs", out])
    expected = numpy_helper.to_array(onnx.load_tensor(os.path.join(DATA, f"{name}_output_0.pb")))
    got = np.load(out)
    shipped_ok = close(got, expected)
    print(f"{name}: shipped output {'matches' if shipped_ok else 'DIFFERS'}"
          f" (max abs diff {np.abs(got.astype(np.float64) - expected).max() if got.shape == expected.shape else 'shape ' + str(got.shape)})")
    # Random weights against onnxruntime.
    rmodel, arrays = randomized(onnx.load(path), rng)
    rpath = os.path.join(tmp, name + "_random.onnx")
    onnx.save(rmodel, rpath)
    rmlir = os.path.join(tmp, name + "_random.mlir")
    run([f"{BIN}/ocannl-import-onnx", rpath, "--erase-shapes", "-o", rmlir])
    rinits = {t.name for t in rmodel.graph.initializer}
    data = {}
    rnpys = []
    for k, vi in enumerate(i for i in rmodel.graph.input if i.name not in rinits):
        a = arrays.get(vi.name)
        if a is None:
            a = dummy(vi)
        data[vi.name] = a
        p = os.path.join(tmp, f"{name}_r{k}.npy")
        np.save(p, a)
        rnpys.append(p)
    outs = [os.path.join(tmp, f"{name}_rout{k}.npy") for k in range(len(rmodel.graph.output))]
    run([f"{BIN}/ocannl-run", rmlir, "--inputs", *rnpys, "--outputs", *outs])
    sess = ort.InferenceSession(rpath, providers=["CPUExecutionProvider"])
    refs = sess.run(None, data)
    random_ok = True
    for k, (o, ref) in enumerate(zip(outs, refs)):
        got = np.load(o)
        ok = close(got, ref)
        random_ok &= ok
        what = rmodel.graph.output[k].name
        print(f"{name}: random weights, output '{what}' {'matches' if ok else 'DIFFERS'} onnxruntime"
              f" (max abs diff {np.abs(got.astype(np.float64) - ref).max() if got.shape == ref.shape else 'shape'},"
              f" max |ref| {np.abs(ref).max():.3g})")
    for p in npys + rnpys + outs + [out, rpath]:
        os.remove(p)
    return shapes_ok and shipped_ok and random_ok


def main():
    rng = np.random.default_rng(0)
    models = sorted(f for f in os.listdir(DATA) if f.endswith(".onnx"))
    models = [m for m in models if not ONLY or any(s in m for s in ONLY)]
    failed = []
    with tempfile.TemporaryDirectory() as tmp:
        for m in models:
            try:
                if not check_model(os.path.join(DATA, m), tmp, rng):
                    failed.append(m)
            except RuntimeError as e:
                print(f"{m}: FAILED: {e}")
                failed.append(m)
    print(f"light models: {len(models) - len(failed)} of {len(models)} pass")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
