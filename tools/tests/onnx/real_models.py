#!/usr/bin/env python3
"""The real-model suite (issue 40): models exported by torch.onnx from
torchvision, transformers and small PyTorch modules with seeded random
weights (tools/models/export.py writes them; this script needs only onnx,
onnxruntime and numpy). Each model is imported once by
`ocannl-import-onnx` and run by one `ocannl-run` process on every input
set its `.json` lists (a dynamic batch: two sizes); every output is
compared with onnxruntime's. Prints the table: model, ops, result, max
error.

Usage: real_models.py BIN_DIR [--dir DIR] [--only NAME ...] [--require NAME ...]
Exit 1 when a model fails (or, with --require, when a listed one does).
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime as ort

HERE = os.path.dirname(os.path.abspath(__file__))
RTOL, ATOL = 1e-3, 1e-4


def inputs(meta, k):
    rng = np.random.default_rng(1000 + k)
    out = []
    for i in meta["inputs"]:
        shape = i["shapes"][k]
        if i["dtype"].startswith("int"):
            out.append(rng.integers(0, i.get("high", 10), shape).astype(i["dtype"]))
        else:
            out.append(rng.standard_normal(shape).astype(i["dtype"]))
    return out


def run_model(bin_dir, path, work):
    name = os.path.basename(path)[:-5]
    meta = json.load(open(path[:-5] + ".json"))
    model = onnx.load(path, load_external_data=False)
    ops = sorted({n.op_type for n in model.graph.node})
    row = {"model": name, "ops": ops, "result": "", "error": None}
    mlir = os.path.join(work, name + ".mlir")
    r = subprocess.run([os.path.join(bin_dir, "ocannl-import-onnx"), path, "-o", mlir],
                       capture_output=True, text=True)
    if r.returncode:
        row["result"] = "import: " + r.stderr.strip().splitlines()[-1][:160]
        return row
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    sets = len(meta["inputs"][0]["shapes"])
    args = [os.path.join(bin_dir, "ocannl-run"), mlir]
    expected = []
    for k in range(sets):
        data = inputs(meta, k)
        files = []
        for j, a in enumerate(data):
            files.append(os.path.join(work, f"{name}_{k}_{j}.npy"))
            np.save(files[-1], a)
        expected.append(session.run(None, dict(zip(names, data))))
        outs = [os.path.join(work, f"{name}_{k}_out{j}.npy") for j in range(len(expected[-1]))]
        args += ["--inputs", *files, "--outputs", *outs]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode:
        row["result"] = "run: " + r.stderr.strip().splitlines()[0][:160]
        return row
    worst, ok = 0.0, True
    for k, ref in enumerate(expected):
        for j, want in enumerate(ref):
            got = np.load(os.path.join(work, f"{name}_{k}_out{j}.npy"))
            if got.shape != want.shape:
                row["result"] = f"output {j}: shape {list(got.shape)}, onnxruntime {list(want.shape)}"
                return row
            err = float(np.abs(got.astype(np.float64) - want.astype(np.float64)).max())
            worst = max(worst, err)
            ok &= bool(np.allclose(got, want, rtol=RTOL, atol=ATOL))
    row["error"] = worst
    row["result"] = "match" if ok else "MISMATCH"
    return row


def main():
    p = argparse.ArgumentParser()
    p.add_argument("bin_dir")
    p.add_argument("--dir", default=os.path.join(HERE, "real_models"))
    p.add_argument("--only", nargs="*")
    p.add_argument("--require", nargs="*")
    a = p.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for path in sorted(glob.glob(os.path.join(a.dir, "*.onnx"))):
            name = os.path.basename(path)[:-5]
            if a.only and name not in a.only:
                continue
            rows.append(run_model(a.bin_dir, path, work))
    print(f"| model | ops | vs onnxruntime | max abs error |\n|---|---|---|---|")
    for r in rows:
        err = "" if r["error"] is None else f"{r['error']:.2e}"
        print(f"| {r['model']} | {len(r['ops'])}: {' '.join(r['ops'])} | {r['result']} | {err} |")
    must = set(a.require) if a.require is not None else {r["model"] for r in rows}
    failed = [r["model"] for r in rows if r["model"] in must and r["result"] != "match"]
    print(f"{sum(r['result'] == 'match' for r in rows)} of {len(rows)} models match onnxruntime")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
