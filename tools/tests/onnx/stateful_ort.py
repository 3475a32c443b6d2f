#!/usr/bin/env python3
"""ONNX LinearAttention and CausalConvWithState (opset 27;
onnx/src/translate/stateful.rs) against onnxruntime on random data, on
sizes larger than ONNX's node tests use: every update rule, per-head and
per-key-dim decay, beta per head or shared, past states, grouped and
multi-query heads, explicit scales, a decode step; causal convolutions
with and without bias and past state, SiLU/Swish, inputs shorter than
the kernel, a kernel of one cell (an empty state), weights as
initializers, symbolic batch and length; and the errors (a symbolic or
too long sequence, unknown weight shapes, bad heads, missing or
mis-shaped inputs, a bad attribute value).

Each case is one node. The model is imported with `ocannl-import-onnx`
(`--erase-shapes`), run with `ocannl-run` and every output compared with
onnxruntime (rtol 1e-4, atol 1e-5), or with onnx's ReferenceEvaluator
where onnxruntime refuses the model.

Usage: stateful_ort.py BIN_DIR [--only SUBSTRING ...]
Exit 1 when any case fails.
"""
import argparse
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator
from ort_harness import compare, import_model, run_ocannl

ort.set_default_logger_severity(3)
F = np.float32
rng = np.random.default_rng(27)


def r(*sh, scale=1.0):
    return (rng.standard_normal(sh) * scale).astype(F)


def l2(x, heads):
    b, t, hd = x.shape
    x4 = x.reshape(b, t, heads, hd // heads)
    return (x4 / np.linalg.norm(x4, axis=-1, keepdims=True)).reshape(b, t, hd).astype(F)


def conv(name, b, c, length, k, bias=False, past=False, act=None, consts=(), sym=None, error=None):
    """A CausalConvWithState case: `sym` maps input names to the axes given
    as dim_params; `error` a substring the import error must hold."""
    vals = [("input", r(b, c, length)), ("weight", r(c, 1, k, scale=0.5)),
            ("bias", r(c) if bias else None), ("past_state", r(b, c, k - 1) if past else None)]
    attrs = {} if act is None else dict(activation=act)
    return dict(name=name, op="CausalConvWithState", vals=vals, attrs=attrs, consts=set(consts),
                sym=sym or {}, error=error)


def lin(name, b, t, hq, hkv, dk, dv, rule="gated_delta", decay="dim", beta="head", past=False,
        scale=None, sym=None, error=None, attrs=None):
    """A LinearAttention case: `decay` per key "dim" or per "head", `beta`
    per "head" or "one" (shared)."""
    gating, delta = rule in ("gated", "gated_delta"), rule in ("delta", "gated_delta")
    key = r(b, t, hkv * dk)
    vals = [("query", r(b, t, hq * dk)), ("key", l2(key, hkv) if delta else key * F(0.3)),
            ("value", r(b, t, hkv * dv)),
            ("past_state", r(b, hkv, dk, dv, scale=0.1) if past else None),
            ("decay", -np.abs(r(b, t, hkv * dk if decay == "dim" else hkv)) * F(0.1)
             if gating else None),
            ("beta", rng.random((b, t, hkv if beta == "head" else 1)).astype(F) if delta else None)]
    a = {**dict(q_num_heads=hq, kv_num_heads=hkv, update_rule=rule), **(attrs or {})}
    if scale is not None:
        a["scale"] = scale
    return dict(name=name, op="LinearAttention", vals=vals, attrs=a, consts=set(), sym=sym or {},
                error=error)


CASES = [
    conv("ccs_basic", 3, 16, 40, 4),
    conv("ccs_bias_past", 2, 32, 24, 5, bias=True, past=True),
    conv("ccs_silu_past", 2, 8, 64, 3, past=True, act="silu"),
    conv("ccs_decode_swish", 4, 16, 1, 4, bias=True, past=True, act="swish"),
    conv("ccs_short_input", 2, 6, 3, 7, bias=True),
    conv("ccs_short_input_past", 2, 6, 2, 6, past=True),
    conv("ccs_kernel_one", 2, 5, 9, 1, bias=True),
    conv("ccs_consts", 2, 12, 20, 4, bias=True, past=True, consts=("weight", "bias")),
    conv("ccs_sym_batch", 3, 10, 17, 4, past=True, sym={"input": (0,), "past_state": (0,)}),
    conv("ccs_sym_length", 2, 10, 17, 3, bias=True, sym={"input": (2,)}),
    conv("ccs_weight_unknown", 2, 4, 8, 3, sym={"weight": (0, 1, 2)}, error="weight's shape"),
    conv("ccs_kernel_one_sym_batch", 2, 4, 8, 1, sym={"input": (0,)}, error="batch is not known"),
    conv("ccs_bad_activation", 2, 4, 8, 3, act="relu", error="activation 'relu'"),
    lin("la_linear", 2, 16, 4, 4, 16, 16, rule="linear"),
    lin("la_linear_past_gqa", 2, 9, 6, 2, 8, 12, rule="linear", past=True),
    lin("la_gated_dim", 2, 12, 4, 2, 8, 12, rule="gated"),
    lin("la_gated_head_past", 3, 10, 4, 4, 8, 8, rule="gated", decay="head", past=True),
    lin("la_delta_past", 2, 20, 4, 4, 16, 8, rule="delta", past=True),
    lin("la_delta_beta_one", 2, 11, 4, 2, 8, 8, rule="delta", beta="one"),
    lin("la_gated_delta_gqa", 2, 24, 8, 2, 16, 16, past=True, beta="one"),
    lin("la_gated_delta_head_decay", 2, 13, 4, 4, 8, 6, decay="head"),
    lin("la_mqa", 1, 10, 6, 1, 8, 8),
    lin("la_scale", 2, 8, 4, 4, 8, 8, scale=0.3, past=True),
    lin("la_decode", 3, 1, 4, 2, 16, 16, past=True),
    lin("la_chunk_size", 2, 7, 2, 2, 4, 4, attrs=dict(chunk_size=2)),
    lin("la_sym_batch", 3, 6, 4, 2, 8, 8, past=True,
        sym={"query": (0,), "key": (0,), "value": (0,), "past_state": (0,), "decay": (0,),
             "beta": (0,)}),
    lin("la_sym_seq", 2, 6, 4, 4, 8, 8, sym={"query": (1,), "key": (1,), "value": (1,)},
        error="length must be known"),
    lin("la_too_long", 1, 5000, 1, 1, 1, 1, rule="linear", error="past the limit"),
    lin("la_bad_heads", 2, 4, 3, 2, 8, 8, rule="linear", error="multiple of kv_num_heads"),
    lin("la_bad_beta", 2, 4, 4, 4, 8, 8, rule="delta", error="beta's last dim"),
    lin("la_bad_rule", 2, 4, 4, 4, 8, 8, rule="linear", attrs=dict(update_rule="fast"),
        error="update_rule 'fast'"),
]
# A value of the wrong shape: beta of 3 heads for 4.
CASES[-2]["vals"][5] = ("beta", rng.random((2, 4, 3)).astype(F))


def model_of(c):
    inputs, inits, names = [], [], []
    vals = list(c["vals"])
    while vals[-1][1] is None:
        vals.pop()
    for n, a in vals:
        if a is None:
            names.append("")
            continue
        names.append(n)
        if n in c["consts"]:
            inits.append(numpy_helper.from_array(a, n))
        else:
            axes = c["sym"].get(n, ())
            dims = [f"{n}_{k}" if k in axes else v for k, v in enumerate(a.shape)]
            # The batch (axis 0) is one name across the inputs.
            dims = ["batch" if k == 0 and k in axes else d for k, d in enumerate(dims)]
            inputs.append(helper.make_tensor_value_info(n, TensorProto.FLOAT, dims))
    outs = ["output", "present_state"]
    node = helper.make_node(c["op"], names, outs, **c["attrs"])
    g = helper.make_graph([node], c["name"], inputs,
                          [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outs],
                          initializer=inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 27)])
    feeds = {n: a for n, a in vals if a is not None and n not in c["consts"]}
    return m, outs, feeds


def reference(m, feeds):
    """onnxruntime's outputs, else the ReferenceEvaluator's."""
    try:
        sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
        return sess.run(None, feeds), "onnxruntime"
    except Exception:  # noqa: BLE001 (a refusal falls back to onnx's reference)
        return ReferenceEvaluator(m).run(None, feeds), "reference"


def run_case(c, bin_dir, tmp):
    m, outs, feeds = model_of(c)
    mlir, res = import_model(bin_dir, m, tmp)
    if c["error"]:
        if res.returncode and c["error"] in res.stderr:
            return None
        return f"expected an import error with '{c['error']}', got: {res.stderr.strip()[-300:] or 'success'}"
    if res.returncode:
        return f"import: {res.stderr.strip()[-400:]}"
    want, by = reference(m, feeds)
    c["by"] = by
    gots, why = run_ocannl(bin_dir, mlir, list(feeds.values()), len(outs), tmp)
    if why:
        return why
    return compare(outs, gots, want, 1e-4, 1e-5, against=by)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin_dir")
    ap.add_argument("--only", nargs="*", default=[])
    args = ap.parse_args()
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for c in CASES:
            if args.only and not any(s in c["name"] for s in args.only):
                continue
            why = run_case(c, args.bin_dir, tmp)
            by = f" (against {c['by']})" if c.get("by") == "reference" else ""
            print(f"{c['name']:<28} {'ok' + by if why is None else 'FAILED: ' + why}", flush=True)
            bad += why is not None
    print(f"{bad} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
