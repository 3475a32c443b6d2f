#!/usr/bin/env python3
"""ONNX's backend node tests through ocannl (issue 14).

Every test case of `onnx.backend.test.case.node.collect_testcases` (the
generators the onnx wheel ships; the `_expanded` variants, which re-test
ops through their function bodies, are left out) is imported with
`ocannl-import-onnx --erase-shapes`; a case the importer rejects as
unsupported (an op, attribute, element type or non-constant input it does
not handle) counts as *unsupported*. The importer needs shapes, axes,
split sizes and gather indices as constants; the node tests pass them as
graph inputs, so integer inputs read only in such positions become
initializers holding the data set's values. Every other case is run with
`ocannl-run` on its data sets and compared with the expected outputs (the
case's rtol/atol; for bfloat16 at least rtol 1e-2, atol 1e-3): *passed* or *failed*. Prints a per-op table and the
totals; with --verbose, why each failure failed.

The same runs cover the model directories the wheel ships with their data
sets (`onnx/backend/test/data/pytorch-converted` and `pytorch-operator`:
`model.onnx`, `test_data_set_*/{input,output}_*.pb`), compared with ONNX's
runner tolerances (rtol 1e-3, atol 1e-7); `--suite` picks which.

Usage: node_tests.py BIN_DIR [--suite node|pytorch-converted|pytorch-operator ...]
       [--only SUBSTRING ...] [--limit N] [--verbose]
       [--min-pass-rate R]  (exit 1 when passed / supported is below R)
"""
import glob
import argparse
import collections
import os
import subprocess
import sys
import tempfile
import warnings

import ml_dtypes
import numpy as np
import onnx

# NumPy has no bfloat16: ml_dtypes' (ONNX's) saves as raw 2-byte cells, '<V2',
# which ocannl-run reads and writes (docs/decisions/0049-bf16-npy.md).
BFLOAT16 = np.dtype(ml_dtypes.bfloat16)

UNSUPPORTED = ("not supported", "are supported", "must be a constant", "needs its", "needs the input",
               "no opset of the default domain", "unknown opset")


# (op, input position) pairs that hold shapes, axes, sizes or indices.
CONST_POSITIONS = {("Reshape", 1), ("Squeeze", 1), ("Unsqueeze", 1), ("ReduceSum", 1),
                   ("ReduceMean", 1), ("ReduceMax", 1), ("ReduceMin", 1), ("Split", 1),
                   ("Gather", 1), ("ConstantOfShape", 0)}
# The ops of onnx/src/translate/composite.rs.
CONST_POSITIONS |= {("Slice", 1), ("Slice", 2), ("Slice", 3), ("Slice", 4), ("Pad", 1), ("Pad", 3),
                    ("Expand", 1), ("Tile", 1), ("Trilu", 1), ("ReduceL1", 1), ("ReduceL2", 1),
                    ("ReduceLogSum", 1), ("ReduceLogSumExp", 1), ("ReduceSumSquare", 1),
                    ("ReduceProd", 1), ("Resize", 3), ("HannWindow", 0), ("HammingWindow", 0),
                    ("BlackmanWindow", 0), ("CenterCropPad", 1), ("TopK", 1),
                    ("DFT", 1), ("DFT", 2), ("STFT", 1), ("STFT", 3),
                    ("AffineGrid", 1), ("Col2Im", 1), ("Col2Im", 2)}
# Axes, and recurrent layers' sequence lengths (checked against the input's).
CONST_POSITIONS |= {("CumSum", 1), ("CumProd", 1), ("OneHot", 1), ("RNN", 4), ("GRU", 4), ("LSTM", 4)}
# MelWeightMatrix is a constant of its (constant) inputs.
CONST_POSITIONS |= {("MelWeightMatrix", 0), ("MelWeightMatrix", 1), ("MelWeightMatrix", 2)}
# Float inputs read as constants (Resize's roi and scales, Upsample's scales).
FLOAT_CONST_POSITIONS = {("Resize", 1), ("Resize", 2), ("Upsample", 1), ("OneHot", 1),
                         ("MelWeightMatrix", 3), ("MelWeightMatrix", 4)}


def inline_constants(model, inputs):
    """The model with its integer shape-like inputs as initializers, and
    the remaining inputs' data."""
    uses = {}
    for n in model.graph.node:
        for k, name in enumerate(n.input):
            uses.setdefault(name, []).append((n.op_type, k))
    inits = {t.name for t in model.graph.initializer}
    feeds = [i for i in model.graph.input if i.name not in inits]
    m = onnx.ModelProto()
    m.CopyFrom(model)
    keep_inputs, keep_data = [], []
    for vi, data in zip(feeds, inputs):
        if isinstance(data, np.generic):  # a NumPy scalar (CumSum's axis)
            data = np.asarray(data)
        is_int = isinstance(data, np.ndarray) and data.dtype.kind == "i"
        is_float = isinstance(data, np.ndarray) and data.dtype.kind == "f"
        used = uses.get(vi.name)
        if used and ((is_int and all(u in CONST_POSITIONS for u in used))
                     or (is_float and all(u in FLOAT_CONST_POSITIONS for u in used))):
            m.graph.initializer.append(onnx.numpy_helper.from_array(data, vi.name))
        else:
            keep_inputs.append(vi)
            keep_data.append(data)
    del m.graph.input[:]
    m.graph.input.extend(keep_inputs)
    return m, keep_data


class DirCase:
    """A case read from a model directory with data sets (the layout of
    ONNX's pytorch-converted / pytorch-operator data)."""

    rtol, atol = 1e-3, 1e-7

    def __init__(self, suite, path):
        self.name = f"{suite}/{os.path.basename(path)}"
        self.model = onnx.load(os.path.join(path, "model.onnx"))
        self.data_sets = []
        for d in sorted(glob.glob(os.path.join(path, "test_data_set_*"))):
            self.data_sets.append((self.read(d, "input"), self.read(d, "output")))

    @staticmethod
    def read(d, kind):
        arrays = []
        for k in range(len(glob.glob(os.path.join(d, f"{kind}_*.pb")))):
            t = onnx.TensorProto()
            with open(os.path.join(d, f"{kind}_{k}.pb"), "rb") as f:
                t.ParseFromString(f.read())
            arrays.append(onnx.numpy_helper.to_array(t))
        return arrays


def collect(suites):
    cases = []
    if "node" in suites:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from onnx.backend.test.case.node import collect_testcases

            cases += [c for c in collect_testcases(None) if "_expanded" not in c.name]
    data = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data")
    for suite in ("pytorch-converted", "pytorch-operator"):
        if suite in suites:
            for path in sorted(glob.glob(os.path.join(data, suite, "test_*"))):
                cases.append(DirCase(suite, path))
    return cases


def run_case(case, bin_dir, tmp):
    """'passed', 'unsupported' or 'failed', and a reason."""
    for inputs, outputs in case.data_sets:
        model, data = inline_constants(case.model, inputs)
        kind, why = run_one(model, case, [(data, outputs)], bin_dir, tmp)
        if kind != "passed":
            return kind, why
    return "passed", ""


def run_one(model, case, data_sets, bin_dir, tmp):
    path = os.path.join(tmp, "model.onnx")
    onnx.save(model, path)
    mlir = os.path.join(tmp, "model.mlir")
    r = subprocess.run([f"{bin_dir}/ocannl-import-onnx", path, "--erase-shapes", "-o", mlir],
                       capture_output=True, text=True)
    if r.returncode != 0:
        msg = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else f"exit {r.returncode}"
        kind = "unsupported" if any(u in msg for u in UNSUPPORTED) else "failed"
        return kind, msg
    inits = {t.name for t in model.graph.initializer}
    feeds = [i for i in model.graph.input if i.name not in inits]
    for inputs, outputs in data_sets:
        npys, outs = [], []
        for k, a in enumerate(inputs[: len(feeds)]):
            if isinstance(a, onnx.TensorProto):  # Cast's cases give protos
                a = onnx.numpy_helper.to_array(a)
            p = os.path.join(tmp, f"in{k}.npy")
            np.save(p, np.require(a, requirements="C"))  # ascontiguousarray makes 0-d arrays 1-d
            npys.append(p)
        for k in range(len(model.graph.output)):
            outs.append(os.path.join(tmp, f"out{k}.npy"))
        cmd = [f"{bin_dir}/ocannl-run", mlir, "--threads", "1", "--outputs", *outs]
        if npys:
            cmd += ["--inputs", *npys]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        if r.returncode != 0:
            lines = [l for l in r.stderr.splitlines() if "error" in l] or r.stderr.splitlines() or ["?"]
            msg = lines[0]
            kind = "unsupported" if "not supported" in msg or "unsupported" in msg else "failed"
            return kind, msg
        for k, (o, ref) in enumerate(zip(outs, outputs)):
            got = np.load(o)
            if isinstance(ref, onnx.TensorProto):
                ref = onnx.numpy_helper.to_array(ref)
            ref = np.asarray(ref)
            rtol, atol = case.rtol, case.atol
            if got.dtype == np.dtype("V2"):  # bfloat16, as ml_dtypes saves it
                got = got.view(BFLOAT16)
            if ref.dtype == BFLOAT16:
                # 8 significant bits: one unit in the last place is 2^-7.
                rtol, atol = max(rtol, 1e-2), max(atol, 1e-3)
            if got.shape != ref.shape:
                return "failed", f"output {k}: shape {got.shape}, expected {ref.shape}"
            if got.dtype != ref.dtype:
                return "failed", f"output {k}: dtype {got.dtype}, expected {ref.dtype}"
            if got.dtype == BFLOAT16:
                got, ref = got.astype(np.float32), ref.astype(np.float32)
            if not np.allclose(got, ref, rtol=rtol, atol=atol, equal_nan=True):
                d = np.abs(got.astype(np.float64) - ref.astype(np.float64)).max()
                return "failed", f"output {k}: max abs diff {d}"
    return "passed", ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin_dir")
    ap.add_argument("--suite", nargs="*", default=["node", "pytorch-converted", "pytorch-operator"],
                    choices=["node", "pytorch-converted", "pytorch-operator"])
    ap.add_argument("--only", nargs="*", default=[])
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--min-pass-rate", type=float, default=0.0)
    args = ap.parse_args()
    cases = collect(args.suite)
    if args.only:
        cases = [c for c in cases if any(s in c.name for s in args.only)]
    if args.limit:
        cases = cases[: args.limit]
    table = collections.defaultdict(collections.Counter)
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for c in cases:
            ops = sorted({n.op_type for n in c.model.graph.node})
            op = ops[0] if len(ops) == 1 else "+".join(ops)
            try:
                kind, why = run_case(c, args.bin_dir, tmp)
            except subprocess.TimeoutExpired:
                kind, why = "failed", "timed out"
            table[op][kind] += 1
            if kind == "failed":
                failures.append((c.name, why))
            if args.verbose and kind != "passed":
                print(f"{c.name}: {kind}: {why}")
    print(f"{'op':<28} {'passed':>7} {'failed':>7} {'unsupported':>12}")
    tot = collections.Counter()
    for op in sorted(table):
        t = table[op]
        tot.update(t)
        if t["passed"] or t["failed"]:
            print(f"{op:<28} {t['passed']:>7} {t['failed']:>7} {t['unsupported']:>12}")
    supported = tot["passed"] + tot["failed"]
    rate = tot["passed"] / supported if supported else 0.0
    print(f"{'total':<28} {tot['passed']:>7} {tot['failed']:>7} {tot['unsupported']:>12}"
          f"   ({100 * rate:.1f}% of the supported cases pass; ops with only unsupported cases not listed)")
    for name, why in failures:
        print(f"FAILED {name}: {why}")
    return 1 if rate < args.min_pass_rate else 0


if __name__ == "__main__":
    sys.exit(main())
