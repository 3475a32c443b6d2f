#!/usr/bin/env python3
"""The differential oracle of `ocannl-fuzz --onnx`: onnxruntime as one
long-lived process per fuzzer worker (no interpreter start-up per model).

Protocol: the first line written is `READY\t<onnxruntime version>` or
`UNAVAILABLE\t<reason>` (then it exits). Each request is one JSON line on
stdin:

    {"model": PATH, "inputs": [[NAME, NPY_PATH], ...], "ocannl": [NPY_PATH, ...] | null}

and each reply one tab-separated line on stdout:

    REJECTED\t<onnxruntime's first error line>   onnxruntime refused or failed
    OK\t<output count>                            it ran ("ocannl" was null)
    MATCH\t<output count>                         every ocannl output matches
    MISMATCH\t<output index>\t<what>              shape, dtype or values differ
                                                  (`what` starts `reference:` when
                                                  ONNX's reference evaluator agrees
                                                  with ocannl's values)

Values compare with a tolerance suited to f32 (rtol 1e-3, atol 1e-4 times
the largest finite magnitude of the reference, at least 1e-4); NaN equals
NaN, an infinity the same infinity. A difference only in where NaNs are
is reported as `nan: ...` rather than `values: ...`. Usage by hand (one request from the
command line instead of stdin):

    ort_oracle.py --check MODEL.onnx --input NAME=X.npy ... [--ocannl Y.npy ...]
"""
import json
import sys


def first_line(e):
    s = str(e).strip().splitlines()
    s = s[0] if s else type(e).__name__
    return s.replace("\t", " ")[:300]


def compare(ref, got):
    import numpy as np

    if ref.shape != got.shape:
        return f"shape {list(got.shape)} (onnxruntime: {list(ref.shape)})"
    if ref.dtype != got.dtype:
        return f"dtype {got.dtype} (onnxruntime: {ref.dtype})"
    if ref.size == 0:
        return None
    if ref.dtype.kind in "iub":
        bad = np.argwhere(ref != got)
        if bad.size:
            i = tuple(int(v) for v in bad[0])
            return f"values: at {list(i)} {got[i].item()} (onnxruntime: {ref[i].item()}), {len(bad)} of {ref.size} differ"
        return None
    r = ref.astype(np.float64)
    g = got.astype(np.float64)
    finite = np.isfinite(r)
    scale = float(np.abs(r[finite]).max()) if finite.any() else 1.0
    atol = 1e-4 * max(scale, 1.0)
    same_special = (np.isnan(r) & np.isnan(g)) | ((r == g) & ~finite)
    close = same_special | (finite & np.isfinite(g) & (np.abs(r - g) <= atol + 1e-3 * np.abs(r)))
    if not close.all():
        bad = np.argwhere(~close)
        # Only NaN placement differs (onnxruntime's Max/Min reductions and
        # pools skip NaN, NumPy's and ocannl's propagate it): named apart.
        one_nan = np.isnan(r) != np.isnan(g)
        kind = "nan" if bool(one_nan[~close].all()) else "values"
        i = tuple(int(v) for v in bad[0])
        err = np.abs(r - g)
        worst = float(np.nanmax(np.where(finite & np.isfinite(g), err, 0.0)))
        return (f"{kind}: at {list(i)} {float(g[i])!r} (onnxruntime: {float(r[i])!r}), "
                f"{len(bad)} of {r.size} differ, max abs error {worst:.3g}")
    return None


def agrees_with_reference(np, req, feeds):
    """Whether every ocannl output matches ONNX's reference evaluator
    (`onnx.reference`), the tie-break where onnxruntime's values differ
    from ocannl's (onnxruntime deviates from the specification at some
    corners, e.g. Resize at a source coordinate that is an exact integer)."""
    try:
        import onnx
        from onnx.reference import ReferenceEvaluator

        outs = ReferenceEvaluator(onnx.load(req["model"])).run(None, feeds)
        mine = [np.load(p) for p in req["ocannl"]]
    except Exception:  # noqa: BLE001 - no reference: no tie-break
        return False
    return len(outs) == len(mine) and all(
        compare(np.asarray(r).astype(m.dtype, copy=False), m) is None
        for r, m in zip(outs, mine))


def handle(ort, np, req):
    try:
        so = ort.SessionOptions()
        so.intra_op_num_threads = 1
        so.inter_op_num_threads = 1
        so.log_severity_level = 4
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        sess = ort.InferenceSession(req["model"], so, providers=["CPUExecutionProvider"])
        feeds = {name: np.load(path) for name, path in req["inputs"]}
        outs = sess.run(None, feeds)
    except Exception as e:  # noqa: BLE001 - any failure is a rejection
        return f"REJECTED\t{first_line(e)}"
    mine = req.get("ocannl")
    if mine is None:
        return f"OK\t{len(outs)}"
    if len(mine) != len(outs):
        return f"MISMATCH\t0\t{len(mine)} outputs (onnxruntime: {len(outs)})"
    for k, (ref, path) in enumerate(zip(outs, mine)):
        try:
            got = np.load(path)
        except Exception as e:  # noqa: BLE001
            return f"MISMATCH\t{k}\tunreadable output: {first_line(e)}"
        why = compare(np.asarray(ref), got)
        if why:
            if why.startswith("values") and agrees_with_reference(np, req, feeds):
                why = f"reference: {why}"
            return f"MISMATCH\t{k}\t{why}"
    return f"MATCH\t{len(outs)}"


def main():
    try:
        import numpy as np
        import onnxruntime as ort
    except Exception as e:  # noqa: BLE001
        print(f"UNAVAILABLE\t{first_line(e)}", flush=True)
        return 0
    np.seterr(all="ignore")
    if len(sys.argv) > 1 and sys.argv[1] == "--check":
        import argparse

        p = argparse.ArgumentParser()
        p.add_argument("--check", required=True)
        p.add_argument("--input", action="append", default=[])
        p.add_argument("--ocannl", action="append")
        a = p.parse_args()
        req = {"model": a.check, "inputs": [i.split("=", 1) for i in a.input], "ocannl": a.ocannl}
        print(handle(ort, np, req))
        return 0
    print(f"READY\t{ort.__version__}", flush=True)
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            req = json.loads(line)
            reply = handle(ort, np, req)
        except Exception as e:  # noqa: BLE001
            reply = f"REJECTED\tbad request: {first_line(e)}"
        print(reply.replace("\n", " "), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
