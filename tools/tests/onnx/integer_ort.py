#!/usr/bin/env python3
"""The ops of onnx/src/translate/integer_ops/ (and the outputs added with
them: MaxPool's Indices, Dropout's mask, BatchNormalization in training
mode, Pow with mixed element types) against onnxruntime on random data,
on shapes larger than ONNX's node tests use.

Each case is one node (constant inputs as initializers) on seeded random
inputs, imported with `ocannl-import-onnx --erase-shapes`, run with
`ocannl-run`, every output compared with onnxruntime's (rtol 1e-4, atol
1e-5; integers exactly). The ERRORS cases must fail at import with the
given message (never a panic).

Usage: integer_ort.py BIN_DIR [--only SUBSTRING ...]
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
from ort_harness import import_model, import_rejects, run_ocannl

F = np.float32
rng = np.random.default_rng(5)


def rand(*shape):
    return rng.standard_normal(shape).astype(F)


def ints(shape, lo, hi, dtype):
    return rng.integers(lo, hi, size=shape).astype(dtype)


def case(name, op, inputs, consts=(), attrs=None, outputs=1, opset=21, expect=None):
    """inputs: runtime arrays (or shapes, for error cases); consts:
    (position, array) as initializers; outputs: how many outputs."""
    return dict(name=name, op=op, inputs=list(inputs), consts=list(consts), attrs=attrs or {},
                outputs=outputs, opset=opset, expect=expect)


def maxpool_ties():
    # Small integers: many ties inside a window (the first counts).
    return rng.integers(-2, 3, size=(2, 3, 9, 11)).astype(F)


def pooled_indices(*shape):
    """A MaxPool's (values, indices) of `shape` to unpool (2x2, stride 2)."""
    x = rand(*shape)
    m = helper.make_model(helper.make_graph(
        [helper.make_node("MaxPool", ["x"], ["y", "i"], kernel_shape=[2, 2], strides=[2, 2])], "p",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("i", TensorProto.INT64, None)]),
        opset_imports=[helper.make_opsetid("", 21)])
    return ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]).run(
        None, {"x": x})


UNPOOL = pooled_indices(2, 3, 8, 10)
# Odd sizes: the pooled input's shape is the output_shape.
UNPOOL_ODD = pooled_indices(2, 3, 9, 11)
S = np.array

CASES = [
    case("pow_f32_i64", "Pow", [rand(4, 5, 6), ints((6,), -3, 4, np.int64)]),
    case("pow_f32_i32_neg_base", "Pow", [rand(3, 7), ints((3, 7), 0, 5, np.int32)]),
    case("pow_i32_f32", "Pow", [ints((5, 6), -6, 7, np.int32), S([[2.0], [3.0], [2.0], [1.0], [0.0]], F)]),
    case("pow_i64_f32", "Pow", [ints((40,), 0, 30, np.int64), S(1.5, F)]),
    case("bitcast_i8_u8", "BitCast", [ints((7, 9), -128, 128, np.int8)], attrs=dict(to=TensorProto.UINT8),
         opset=26),
    case("bitcast_u64_i64", "BitCast", [rng.integers(0, 2**64 - 1, size=(30,), dtype=np.uint64)],
         attrs=dict(to=TensorProto.INT64), opset=26),
    case("bitcast_i32_u32", "BitCast", [ints((4, 33), -2**31, 2**31, np.int32)], attrs=dict(to=TensorProto.UINT32),
         opset=26),
    case("matmul_integer_u8", "MatMulInteger", [ints((2, 5, 16), 0, 256, np.uint8),
                                                 ints((16, 7), 0, 256, np.uint8)],
         consts=[(2, S(127, np.uint8)), (3, ints((7,), 0, 256, np.uint8))], opset=13),
    case("matmul_integer_i8_cols", "MatMulInteger", [ints((6, 9), -128, 128, np.int8),
                                                      ints((9, 4), -128, 128, np.int8)],
         consts=[(2, S(-7, np.int8)), (3, ints((4,), -5, 5, np.int8))], opset=13),
    case("conv_integer_pads", "ConvInteger", [ints((2, 3, 9, 8), 0, 256, np.uint8),
                                              ints((4, 3, 3, 3), 0, 256, np.uint8)],
         consts=[(2, S(100, np.uint8)), (3, S(131, np.uint8))],
         attrs=dict(pads=[1, 1, 1, 1], strides=[2, 1]), opset=13),
    case("conv_integer_group", "ConvInteger", [ints((1, 4, 7, 7), -128, 128, np.int8),
                                               ints((6, 2, 2, 2), -128, 128, np.int8)],
         attrs=dict(group=2), opset=13),
    case("qlinear_conv_u8", "QLinearConv",
         [ints((2, 3, 10, 9), 0, 256, np.uint8)],
         consts=[(1, S(0.02, F)), (2, S(120, np.uint8)), (3, ints((5, 3, 3, 3), 0, 256, np.uint8)),
                 (4, (rng.random(5) * 0.01 + 0.002).astype(F)), (5, ints((5,), 100, 150, np.uint8)),
                 (6, S(0.05, F)), (7, S(128, np.uint8)), (8, ints((5,), -3000, 3000, np.int32))],
         attrs=dict(pads=[1, 0, 1, 0]), opset=13),
    case("qlinear_conv_i8", "QLinearConv",
         [ints((1, 4, 6, 6), -128, 128, np.int8)],
         consts=[(1, S(0.1, F)), (2, S(-3, np.int8)), (3, ints((2, 4, 2, 2), -128, 128, np.int8)),
                 (4, S(0.01, F)), (5, S(0, np.int8)), (6, S(0.3, F)), (7, S(5, np.int8))],
         attrs=dict(strides=[2, 2]), opset=13),
    case("qlinear_matmul_u8", "QLinearMatMul", [ints((2, 7, 24), 0, 256, np.uint8)],
         consts=[(1, S(0.02, F)), (2, S(120, np.uint8)), (3, ints((24, 9), 0, 256, np.uint8)),
                 (4, (rng.random(9) * 0.01 + 0.002).astype(F)), (5, ints((9,), 100, 150, np.uint8)),
                 (6, S(0.05, F)), (7, S(128, np.uint8))], opset=21),
    case("qlinear_matmul_i8", "QLinearMatMul", [ints((5, 16), -128, 128, np.int8)],
         consts=[(1, S(0.1, F)), (2, S(-3, np.int8)), (3, ints((16, 4), -128, 128, np.int8)),
                 (4, S(0.01, F)), (5, S(0, np.int8)), (6, S(0.3, F)), (7, S(5, np.int8))], opset=13),
    case("det_batch", "Det", [rand(3, 4, 6, 6)], opset=22),
    case("det_pivots", "Det", [S([[[0, 1, 2], [1, 0, 3], [4, -3, 8]], [[0, 0, 1], [0, 1, 0], [1, 0, 0]],
                                  [[1, 2, 3], [2, 4, 6], [0, 1, 1]]], F)], opset=22),
    case("det_12", "Det", [rand(2, 12, 12)], opset=22),
    case("maxpool_indices_pads", "MaxPool", [rand(2, 3, 10, 9)], outputs=2,
         attrs=dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])),
    case("maxpool_indices_ties", "MaxPool", [maxpool_ties()], outputs=2,
         attrs=dict(kernel_shape=[3, 2], strides=[1, 2], dilations=[2, 1])),
    case("maxpool_indices_column", "MaxPool", [rand(2, 2, 7, 6)], outputs=2,
         attrs=dict(kernel_shape=[2, 2], storage_order=1)),
    case("maxpool_indices_1d", "MaxPool", [rand(3, 4, 20)], outputs=2, attrs=dict(kernel_shape=[4], strides=[3])),
    case("maxunpool", "MaxUnpool", [UNPOOL[0], UNPOOL[1]], attrs=dict(kernel_shape=[2, 2], strides=[2, 2]),
         opset=11),
    case("maxunpool_output_shape", "MaxUnpool", [UNPOOL_ODD[0], UNPOOL_ODD[1]], consts=[(2, np.array([2, 3, 9, 11]))],
         attrs=dict(kernel_shape=[2, 2], strides=[2, 2]), opset=11),
    case("dropout_mask", "Dropout", [rand(3, 5, 7)], outputs=2, opset=13),
    case("batchnorm_training", "BatchNormalization",
         [rand(4, 3, 5, 6)], consts=[(1, rand(3)), (2, rand(3)), (3, rand(3)), (4, rng.random(3).astype(F) + 0.5)],
         attrs=dict(training_mode=1, momentum=0.7, epsilon=1e-3), outputs=3, opset=15),
    case("batchnorm_training_2d", "BatchNormalization",
         [rand(16, 5)], consts=[(1, rand(5)), (2, rand(5)), (3, rand(5)), (4, rng.random(5).astype(F) + 0.5)],
         attrs=dict(training_mode=1), outputs=3, opset=15),
    case("mel_weight_matrix", "MelWeightMatrix", [],
         consts=[(0, S(40, np.int64)), (1, S(512, np.int64)), (2, S(16000, np.int64)), (3, S(20.0, F)),
                 (4, S(7600.0, F))], opset=17),
]

# Rejected at import, each with its reason, never a panic.
ERRORS = [
    case("bitcast_widths", "BitCast", [(3,)], attrs=dict(to=TensorProto.INT64), opset=26,
         expect="the widths differ"),
    case("bitcast_float", "BitCast", [(3,)], attrs=dict(to=TensorProto.INT32), opset=26,
         expect="not supported"),
    case("det_not_square", "Det", [(2, 3, 4)], opset=22, expect="must be square"),
    case("det_too_large", "Det", [(20, 20)], opset=22, expect="not supported"),
    case("matmul_integer_float", "MatMulInteger", [(3, 4), (4, 2)], opset=13, expect="8-bit integers"),
    case("matmul_integer_zp_rows", "MatMulInteger", [ints((3, 4), 0, 9, np.uint8), ints((4, 2), 0, 9, np.uint8)],
         consts=[(2, ints((5,), 0, 9, np.uint8))], opset=13, expect="3 cells"),
    case("conv_integer_zp_shape", "ConvInteger", [ints((1, 2, 5, 5), 0, 9, np.uint8)],
         consts=[(1, ints((3, 2, 2, 2), 0, 9, np.uint8)), (2, ints((2,), 0, 9, np.uint8))], opset=13,
         expect="x_zero_point must be a scalar"),
    case("qlinear_conv_bias_type", "QLinearConv", [ints((1, 2, 5, 5), 0, 9, np.uint8)],
         consts=[(1, S(0.1, F)), (2, S(0, np.uint8)), (3, ints((3, 2, 2, 2), 0, 9, np.uint8)),
                 (4, S(0.1, F)), (5, S(0, np.uint8)), (6, S(0.1, F)), (7, S(0, np.uint8)),
                 (8, rand(3))], opset=13, expect="must be i32"),
    case("batchnorm_param_shape", "BatchNormalization", [(4, 3, 5)],
         consts=[(1, rand(4)), (2, rand(3)), (3, rand(3)), (4, rand(3))],
         attrs=dict(training_mode=1), outputs=3, opset=15, expect="one cell per channel"),
    case("batchnorm_training_mode_2", "BatchNormalization", [(4, 3, 5)],
         consts=[(1, rand(3)), (2, rand(3)), (3, rand(3)), (4, rand(3))],
         attrs=dict(training_mode=2), opset=15, expect="must be 0 or 1"),
    case("maxunpool_indices_shape", "MaxUnpool", [(1, 1, 2, 2), ints((1, 1, 2, 3), 0, 4, np.int64)],
         attrs=dict(kernel_shape=[2, 2], strides=[2, 2]), opset=11, expect="differs"),
    case("maxunpool_huge", "MaxUnpool", [(1, 1, 2**10, 4), np.zeros((1, 1, 2**10, 4), np.int64)],
         attrs=dict(kernel_shape=[2, 2], strides=[2, 2]), opset=11, expect="not supported"),
    case("mel_edges", "MelWeightMatrix", [],
         consts=[(0, S(8, np.int64)), (1, S(16, np.int64)), (2, S(8000, np.int64)), (3, S(100.0, F)),
                 (4, S(9000.0, F))], opset=17, expect="sample_rate / 2"),
    case("mel_not_constant", "MelWeightMatrix", [S(8, np.int64)],
         consts=[(1, S(16, np.int64)), (2, S(8000, np.int64)), (3, S(0.0, F)), (4, S(100.0, F))],
         opset=17, expect="must be a constant"),
]


def model_of(c):
    arrays = [a if isinstance(a, np.ndarray) else np.zeros(a, F) for a in c["inputs"]]
    n = max([len(arrays)] + [p + 1 for p, _ in c["consts"]])
    names, inputs, inits = [""] * n, [], []
    k = 0
    for a in arrays:
        while names[k] or any(p == k for p, _ in c["consts"]):
            k += 1
        names[k] = f"x{k}"
        inputs.append(helper.make_tensor_value_info(names[k], helper.np_dtype_to_tensor_dtype(a.dtype), a.shape))
    for p, a in c["consts"]:
        names[p] = f"c{p}"
        inits.append(numpy_helper.from_array(np.asarray(a), f"c{p}"))
    outs = [f"y{i}" for i in range(c["outputs"])]
    node = helper.make_node(c["op"], names, outs, **c["attrs"])
    g = helper.make_graph([node], c["name"], inputs,
                          [helper.make_empty_tensor_value_info(o) for o in outs],
                          initializer=inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", c["opset"])]), arrays, names


def run_case(c, bin_dir, tmp):
    m, arrays, names = model_of(c)
    feeds = {i.name: a for i, a in zip(m.graph.input, arrays)}
    want = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, feeds)
    mlir, r = import_model(bin_dir, m, tmp)
    if r.returncode:
        return f"import: {r.stderr.strip()[-400:]}"
    gots, why = run_ocannl(bin_dir, mlir, arrays, len(want), tmp)
    if why:
        return why
    for i, (got, w) in enumerate(zip(gots, want)):
        if got.shape != w.shape or got.dtype != w.dtype:
            return f"output {i}: {got.dtype}{got.shape}, onnxruntime {w.dtype}{w.shape}"
        if w.dtype.kind == "f":
            ok = np.allclose(got, w, rtol=1e-4, atol=1e-5, equal_nan=True)
        else:
            ok = np.array_equal(got, w)
        if not ok:
            diff = np.abs(got.astype(np.float64) - w.astype(np.float64))
            return f"output {i}: max abs diff {np.nanmax(diff)}"
    return None


def error_case(c, bin_dir, tmp):
    """None when the import fails as expected."""
    return import_rejects(bin_dir, model_of(c)[0], c["expect"], tmp)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin_dir")
    ap.add_argument("--only", nargs="*", default=[])
    args = ap.parse_args()
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for group, check, word in ((CASES, run_case, "ok"), (ERRORS, error_case, "rejected")):
            for c in group:
                if args.only and not any(s in c["name"] for s in args.only):
                    continue
                why = check(c, args.bin_dir, tmp)
                print(f"{c['name']:<28} {word if why is None else 'FAILED: ' + why}")
                bad += why is not None
    print(f"{bad} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
