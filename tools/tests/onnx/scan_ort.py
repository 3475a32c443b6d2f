#!/usr/bin/env python3
"""ONNX Scan (onnx/src/translate/scan.rs, unrolled at import) against
onnxruntime on random data, on longer sequences than ONNX's node tests
use: a recurrence whose body reads an outer initializer, scanned axes
other than 0, reverse input and output directions, several states and
scan outputs, opset 8's batched form, and the errors (a symbolic
sequence length, opset 8's sequence_lens).

Each model is imported with `ocannl-import-onnx`, run with `ocannl-run`
and every output compared with onnxruntime (rtol 1e-4, atol 1e-5).

Usage: scan_ort.py BIN_DIR
Exit 1 when any case fails.
"""
import sys
import tempfile

import numpy as np
import onnxruntime as ort

ort.set_default_logger_severity(3)
from onnx import TensorProto, helper, numpy_helper
from ort_harness import import_model, import_rejects, run_ocannl

F = np.float32
rng = np.random.default_rng(5)


def vi(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def recurrence(seq, b, h, opset=17):
    """h' = tanh(h W + x_t); y_t = h' (scan output) and s_t = sum(x_t)."""
    body = helper.make_graph(
        [helper.make_node("MatMul", ["h_in", "W"], ["hw"]),
         helper.make_node("Add", ["hw", "x_t"], ["pre"]),
         helper.make_node("Tanh", ["pre"], ["h_out"]),
         helper.make_node("Identity", ["h_out"], ["y_t"]),
         helper.make_node("ReduceSum", ["x_t"], ["s_t"], keepdims=0)],
        "body", [vi("h_in", [b, h]), vi("x_t", [b, h])],
        [vi("h_out", [b, h]), vi("y_t", [b, h]), vi("s_t", [])])
    node = helper.make_node("Scan", ["h0", "x"], ["h_last", "ys", "ss"], body=body,
                            num_scan_inputs=1)
    w = numpy_helper.from_array((rng.standard_normal((h, h)) * 0.3).astype(F), "W")
    g = helper.make_graph([node], "g", [vi("h0", [b, h]), vi("x", [seq, b, h])],
                          [vi("h_last", [b, h]), vi("ys", [seq, b, h]), vi("ss", [seq])], [w])
    feeds = {"h0": rng.standard_normal((b, h)).astype(F),
             "x": rng.standard_normal((seq, b, h)).astype(F)}
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)]), feeds


def directions(seq, n, opset=17):
    """Two states (a running sum and a running max), two scan inputs
    scanned along axis 1 (the second from the end), one reversed; two
    scan outputs, one stacked along axis 1 and reversed."""
    body = helper.make_graph(
        [helper.make_node("Add", ["acc_in", "a_t"], ["acc_out"]),
         helper.make_node("Max", ["mx_in", "b_t"], ["mx_out"]),
         helper.make_node("Mul", ["acc_out", "b_t"], ["p_t"]),
         helper.make_node("Sub", ["mx_out", "a_t"], ["q_t"])],
        "body", [vi("acc_in", [n]), vi("mx_in", [n]), vi("a_t", [n]), vi("b_t", [n])],
        [vi("acc_out", [n]), vi("mx_out", [n]), vi("p_t", [n]), vi("q_t", [n])])
    node = helper.make_node("Scan", ["acc0", "mx0", "a", "b"], ["acc", "mx", "p", "q"], body=body,
                            num_scan_inputs=2, scan_input_axes=[1, -1],
                            scan_input_directions=[0, 1], scan_output_axes=[1, 0],
                            scan_output_directions=[1, 0])
    g = helper.make_graph([node], "g",
                          [vi("acc0", [n]), vi("mx0", [n]), vi("a", [n, seq]), vi("b", [n, seq])],
                          [vi("acc", [n]), vi("mx", [n]), vi("p", [n, seq]), vi("q", [seq, n])])
    feeds = {k: rng.standard_normal(s).astype(F)
             for k, s in [("acc0", (n,)), ("mx0", (n,)), ("a", (n, seq)), ("b", (n, seq))]}
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)]), feeds


def batched(batch, seq, n):
    """Opset 8: a leading batch axis, no sequence_lens, a reversed input."""
    body = helper.make_graph(
        [helper.make_node("Add", ["s_in", "x_t"], ["s_out"]),
         helper.make_node("Mul", ["s_out", "x_t"], ["y_t"])],
        "body", [vi("s_in", [n]), vi("x_t", [n])], [vi("s_out", [n]), vi("y_t", [n])])
    node = helper.make_node("Scan", ["", "s0", "x"], ["s", "y"], body=body, num_scan_inputs=1,
                            directions=[1])
    g = helper.make_graph([node], "g", [vi("s0", [batch, n]), vi("x", [batch, seq, n])],
                          [vi("s", [batch, n]), vi("y", [batch, seq, n])])
    feeds = {"s0": rng.standard_normal((batch, n)).astype(F),
             "x": rng.standard_normal((batch, seq, n)).astype(F)}
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 8)]), feeds


def symbolic():
    model, feeds = recurrence(6, 2, 3)
    model.graph.input[1].type.tensor_type.shape.dim[0].dim_param = "T"
    return model, feeds


def with_lens():
    model, feeds = batched(2, 4, 3)
    model.graph.input.insert(0, helper.make_tensor_value_info("lens", TensorProto.INT32, [2]))
    model.graph.node[0].input[0] = "lens"
    return model, feeds


CASES = [
    ("recurrence_seq64", lambda: recurrence(64, 3, 16), None),
    ("recurrence_opset11", lambda: recurrence(9, 2, 5, opset=11), None),
    ("axes_and_directions", lambda: directions(40, 7), None),
    ("opset8_batched_reverse", lambda: batched(3, 12, 5), None),
    ("symbolic_length", symbolic, "whose length must be known at import"),
    ("opset8_sequence_lens", with_lens, "sequence_lens (opset 8) is not supported"),
]


def run(bin_dir, make, error, tmp):
    model, feeds = make()
    if error is not None:
        why = import_rejects(bin_dir, model, error, tmp, erase=False)
        return None if why is None else f"expected an import error with {error!r}, got {why}"
    mlir, imp = import_model(bin_dir, model, tmp, erase=False)
    if imp.returncode != 0:
        return f"import failed: {imp.stderr[-600:]}"
    arrays = [feeds[i.name] for i in model.graph.input]
    gots, why = run_ocannl(bin_dir, mlir, arrays, len(model.graph.output), tmp)
    if why:
        return why
    want = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]) \
        .run(None, feeds)
    for o, got, w in zip(model.graph.output, gots, want):
        if got.shape != w.shape or not np.allclose(got, w, rtol=1e-4, atol=1e-5):
            err = np.max(np.abs(got - w)) if got.shape == w.shape else "shape"
            return f"output {o.name}: {got.shape} vs {w.shape}, max abs diff {err}"
    return None


def main():
    bin_dir = sys.argv[1]
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, make, error in CASES:
            why = run(bin_dir, make, error, tmp)
            print(f"{name:<28} {'ok' if why is None else 'FAILED: ' + why}")
            failed += why is not None
    print(f"scan_ort: {len(CASES) - failed} of {len(CASES)} cases pass")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
