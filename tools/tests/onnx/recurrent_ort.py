#!/usr/bin/env python3
"""ONNX RNN, GRU and LSTM (onnx/src/translate/recurrent.rs) against
onnxruntime on random data, on sizes larger than ONNX's node tests use
(issue 40): directions, layout 1, linear_before_reset, peepholes, clip,
initial states, input_forget, other activations with their alpha/beta,
sequence_lens of full lengths, weights as graph inputs or initializers,
a symbolic batch size, and the errors (a symbolic sequence length,
shorter sequence_lens).

Each case is one node. The model is imported with `ocannl-import-onnx`
(`--erase-shapes`), run with `ocannl-run` and every output the node
names is compared with onnxruntime (rtol 1e-4, atol 1e-5).

Usage: recurrent_ort.py BIN_DIR [--only SUBSTRING ...]
Exit 1 when any case fails.
"""
import argparse
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime as ort

ort.set_default_logger_severity(3)
from onnx import TensorProto, helper, numpy_helper
from ort_harness import compare, import_model, run_ocannl

F = np.float32
GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}
rng = np.random.default_rng(11)


def case(name, op, s, b, i, h, attrs=None, bias=True, lens=None, h0=False, c0=False, peep=False,
         outs=("Y", "Y_h", "Y_c"), consts=(), sym=(), error=None, scale=0.5, via=False, opset=14):
    """s, b, i, h: sequence, batch, input and hidden sizes; consts: the
    inputs held as initializers; sym: the X axes given as dim_params;
    error: a substring the import error must hold (the case must fail);
    via: X reaches the node through a Transpose (its dims not known to the
    importer), the model's shapes inferred by onnx and imported with them
    (`via="erased"`: imported with --erase-shapes)."""
    return dict(name=name, op=op, s=s, b=b, i=i, h=h, attrs=attrs or {}, bias=bias, lens=lens,
                h0=h0, c0=c0, peep=peep, outs=outs, consts=set(consts), sym=sym, error=error,
                scale=scale, via=via, opset=opset)


CASES = [
    case("rnn_fwd", "RNN", 7, 5, 12, 16, h0=True),
    case("rnn_bidi_batchwise", "RNN", 6, 4, 9, 11, dict(direction="bidirectional", layout=1), h0=True),
    case("rnn_relu_clip", "RNN", 5, 3, 8, 10, dict(activations=["Relu"], clip=0.7)),
    case("rnn_reverse_consts", "RNN", 8, 2, 6, 7, dict(direction="reverse"), consts=("W", "R", "B")),
    case("rnn_affine_leaky", "RNN", 4, 3, 5, 6,
         dict(direction="bidirectional", activations=["Affine", "LeakyRelu"],
              activation_alpha=[0.7, 0.2], activation_beta=[0.3])),
    case("rnn_scaledtanh_hardsigmoid", "RNN", 4, 3, 5, 6,
         dict(direction="bidirectional", activations=["ScaledTanh", "HardSigmoid"],
              activation_alpha=[1.5, 0.3], activation_beta=[0.8, 0.4])),
    case("rnn_elu_thresholded", "RNN", 4, 3, 5, 6,
         dict(direction="bidirectional", activations=["Elu", "ThresholdedRelu"],
              activation_alpha=[0.6, 0.1])),
    case("rnn_softsign_softplus", "RNN", 4, 3, 5, 6,
         dict(direction="bidirectional", activations=["Softsign", "Softplus"])),
    case("rnn_default_params", "RNN", 4, 3, 5, 6,
         dict(direction="bidirectional", activations=["LeakyRelu", "HardSigmoid"])),
    case("gru_fwd", "GRU", 7, 5, 12, 16),
    case("gru_lbr", "GRU", 7, 5, 12, 16, dict(linear_before_reset=1), h0=True),
    case("gru_lbr_no_h0", "GRU", 6, 3, 8, 9, dict(linear_before_reset=1)),
    case("gru_bidi_batchwise", "GRU", 6, 4, 9, 11, dict(direction="bidirectional", layout=1), h0=True),
    case("gru_bidi_lbr_clip", "GRU", 5, 3, 10, 8,
         dict(direction="bidirectional", linear_before_reset=1, clip=0.9), h0=True),
    case("gru_reverse_no_bias", "GRU", 6, 2, 7, 9, dict(direction="reverse"), bias=False, h0=True),
    case("gru_acts", "GRU", 5, 3, 6, 7,
         dict(activations=["HardSigmoid", "Softsign"], activation_alpha=[0.25], activation_beta=[0.45])),
    # Only the functions that read a parameter consume the lists.
    case("gru_alpha_order", "GRU", 5, 3, 6, 7,
         dict(activations=["Sigmoid", "LeakyRelu"], activation_alpha=[0.3]), scale=2.0),
    case("gru_lens", "GRU", 5, 3, 6, 7, lens=5, consts=("sequence_lens",)),
    case("gru_sym_batch", "GRU", 6, 4, 8, 10, dict(linear_before_reset=1), h0=True, sym=(1,)),
    case("lstm_fwd", "LSTM", 7, 5, 12, 16),
    case("lstm_peep_init", "LSTM", 7, 5, 12, 16, h0=True, c0=True, peep=True),
    case("lstm_bidi_batchwise_peep", "LSTM", 6, 4, 9, 11, dict(direction="bidirectional", layout=1),
         h0=True, c0=True, peep=True),
    case("lstm_clip", "LSTM", 6, 3, 8, 10, dict(clip=0.5), h0=True, c0=True, peep=True, scale=1.5),
    case("lstm_reverse_consts", "LSTM", 8, 2, 6, 7, dict(direction="reverse"), peep=True,
         consts=("W", "R", "B", "P")),
    case("lstm_input_forget", "LSTM", 5, 3, 6, 7, dict(input_forget=1), h0=True, c0=True, peep=True),
    case("lstm_acts", "LSTM", 5, 3, 6, 7,
         dict(activations=["HardSigmoid", "Elu", "ScaledTanh"], activation_alpha=[0.3, 0.8, 1.2],
              activation_beta=[0.4, 0.9])),
    case("lstm_c0_only", "LSTM", 4, 3, 5, 6, c0=True, outs=("Y", "", "Y_c")),
    case("lstm_lens_full", "LSTM", 1, 2, 4, 3, lens=1, h0=True, c0=True, peep=True,
         consts=("sequence_lens",)),
    case("gru_via_recorded", "GRU", 6, 2, 8, 16, dict(linear_before_reset=1), via=True),
    # Transpose keeps the known dims: the sequence length is known.
    case("gru_via_erased", "GRU", 6, 2, 8, 16, via="erased"),
    case("rnn_opset7", "RNN", 5, 3, 6, 7, h0=True, opset=7),
    case("gru_opset7_lbr", "GRU", 5, 3, 6, 7, dict(linear_before_reset=1), h0=True, opset=7),
    case("lstm_opset7_bidi", "LSTM", 5, 3, 6, 7, dict(direction="bidirectional"), peep=True, opset=7),
    case("lstm_opset22", "LSTM", 5, 3, 6, 7, c0=True, opset=22),
    case("lstm_sym_seq", "LSTM", 4, 3, 5, 6, sym=(0,), error="symbolic sequence length"),
    case("gru_lens_short", "GRU", 5, 3, 6, 7, lens=3, consts=("sequence_lens",),
         error="sequence_lens"),
]


def inputs_of(c):
    """The node's inputs (name → array), in ONNX order, absent ones None."""
    op, s, b, i, h = c["op"], c["s"], c["b"], c["i"], c["h"]
    d = 2 if c["attrs"].get("direction") == "bidirectional" else 1
    g = GATES[op]
    bw = c["attrs"].get("layout", 0) == 1
    r = lambda *sh: (rng.standard_normal(sh) * c["scale"]).astype(F)
    state = (b, d, h) if bw else (d, b, h)
    vals = [("X", r(b, s, i) if bw else r(s, b, i)), ("W", r(d, g * h, i)), ("R", r(d, g * h, h)),
            ("B", r(d, 2 * g * h) if c["bias"] else None),
            ("sequence_lens", np.full(b, c["lens"], np.int32) if c["lens"] else None),
            ("initial_h", r(*state) if c["h0"] else None)]
    if op == "LSTM":
        vals += [("initial_c", r(*state) if c["c0"] else None), ("P", r(d, 3 * h) if c["peep"] else None)]
    while vals[-1][1] is None:
        vals.pop()
    return vals


def model_of(c, vals):
    inputs, inits, names = [], [], []
    for n, a in vals:
        if a is None:
            names.append("")
            continue
        names.append(n)
        if n in c["consts"]:
            inits.append(numpy_helper.from_array(a, n))
        else:
            dims = [f"n{k}" if n == "X" and k in c["sym"] else v for k, v in enumerate(a.shape)]
            ty = TensorProto.INT32 if a.dtype == np.int32 else TensorProto.FLOAT
            inputs.append(helper.make_tensor_value_info(n, ty, dims))
    attrs = dict(hidden_size=c["h"], **c["attrs"])
    outs = [o if o != "Y_c" or c["op"] == "LSTM" else "" for o in c["outs"]]
    while outs and outs[-1] == "":
        outs.pop()
    nodes = [helper.make_node(c["op"], names, outs, **attrs)]
    if c["via"]:
        nodes.insert(0, helper.make_node("Transpose", ["Xt"], ["X"], perm=[1, 0, 2]))
        x = inputs[0]
        dims = [d.dim_value for d in x.type.tensor_type.shape.dim]
        inputs[0] = helper.make_tensor_value_info("Xt", TensorProto.FLOAT, [dims[1], dims[0], dims[2]])
    g = helper.make_graph(nodes, c["name"], inputs,
                          [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outs if o],
                          initializer=inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", c["opset"])])
    if c["via"]:
        m = onnx.shape_inference.infer_shapes(m)
    return m, [o for o in outs if o]


def reference(c, vals, outs, feeds):
    """onnxruntime's outputs. It runs layout 0 only: a layout-1 case runs
    as layout 0 on transposed inputs, its outputs transposed back."""
    if c["attrs"].get("layout", 0) != 1:
        m, _ = model_of(c, vals)
        return ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]).run(
            None, feeds)
    c0 = dict(c, attrs={k: v for k, v in c["attrs"].items() if k != "layout"})
    t = lambda n, a: a if a is None else a.transpose(1, 0, 2) if n in ("X", "initial_h", "initial_c") else a
    vals0 = [(n, t(n, a)) for n, a in vals]
    m, _ = model_of(c0, vals0)
    feeds0 = {n: t(n, a) for n, a in feeds.items()}
    got = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]).run(
        None, feeds0)
    return [g.transpose(2, 0, 1, 3) if n == "Y" else g.transpose(1, 0, 2) for n, g in zip(outs, got)]


def run_case(c, bin_dir, tmp):
    vals = inputs_of(c)
    m, outs = model_of(c, vals)
    feeds = {n: a for n, a in vals if a is not None and n not in c["consts"]}
    if c["via"]:
        feeds = {("Xt" if n == "X" else n): (a.transpose(1, 0, 2) if n == "X" else a)
                 for n, a in feeds.items()}
    mlir, r = import_model(bin_dir, m, tmp, erase=c["via"] in (False, "erased"))
    if c["error"]:
        if r.returncode and c["error"] in r.stderr and "not supported" in r.stderr:
            return None
        return f"expected an import error with '{c['error']}', got: {r.stderr.strip()[-300:] or 'success'}"
    if r.returncode:
        return f"import: {r.stderr.strip()[-400:]}"
    try:
        want = reference(c, vals, outs, feeds)
    except Exception as e:  # noqa: BLE001 (onnxruntime's refusal is the case's result)
        return f"onnxruntime: {str(e).strip()[-300:]}"
    gots, why = run_ocannl(bin_dir, mlir, list(feeds.values()), len(outs), tmp)
    if why:
        return why
    return compare(outs, gots, want, 1e-4, 1e-5)


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
            print(f"{c['name']:<28} {'ok' if why is None else 'FAILED: ' + why}", flush=True)
            bad += why is not None
    print(f"{bad} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
