#!/usr/bin/env python3
"""Writes the small ONNX models the Import lit tests read (run it from this
directory with the onnx package installed; the outputs are checked in)."""
import numpy
import onnx
from onnx import TensorProto, helper

F = TensorProto.FLOAT


def vi(name, shape):
    return helper.make_tensor_value_info(name, F, shape)


def save(graph, name, opset=17):
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)]), name)


# The Rosette README's example: T1 = Gemm(A, I1, C1); T2 = Add(T1, I2);
# T3 = Gemm(T2, I3, C3). I1, I2, I3 get erased on import.
save(helper.make_graph(
    [helper.make_node("Gemm", ["A", "I1", "C1"], ["T1"], name="gemm1"),
     helper.make_node("Add", ["T1", "I2"], ["T2"], name="add"),
     helper.make_node("Gemm", ["T2", "I3", "C3"], ["T3"], name="gemm2")],
    "rosette",
    [vi("A", [3, 4]), vi("C1", [3, 5]), vi("C3", [3, 7]),
     vi("I1", [4, 5]), vi("I2", [3, 5]), vi("I3", [5, 7])],
    [vi("T3", [3, 7])]), "rosette.onnx")

# Shapes that contradict each other: 'widen' claims (2, 4) for the result
# of negating a (2, 3) tensor.
save(helper.make_graph(
    [helper.make_node("Relu", ["X"], ["Y"], name="first"),
     helper.make_node("Neg", ["Y"], ["W"], name="widen")],
    "contradiction", [vi("X", [2, 3])], [vi("W", [2, 4])],
    value_info=[vi("Y", [2, 3])]), "contradiction.onnx")

# A cycle: a -> b -> a.
save(helper.make_graph(
    [helper.make_node("Relu", ["X", ], ["P"], name="entry"),
     helper.make_node("Add", ["P", "R"], ["Q"], name="a"),
     helper.make_node("Relu", ["Q"], ["R"], name="b")],
    "cycle", [vi("X", [2])], [vi("Q", [2])]), "cycle.onnx")

# An initializer whose data does not match its dims.
bad = helper.make_tensor("W", F, [3], [1.0, 2.0, 3.0])
bad.dims[:] = [2, 3]
save(helper.make_graph(
    [helper.make_node("Add", ["X", "W"], ["Y"], name="add")],
    "bad_initializer", [vi("X", [2, 3])], [vi("Y", [2, 3])], initializer=[bad]),
    "bad-initializer.onnx")

# An opset from the future.
save(helper.make_graph(
    [helper.make_node("Relu", ["X"], ["Y"], name="relu")],
    "future", [vi("X", [2])], [vi("Y", [2])]), "future-opset.onnx", opset=99)

# An op the importer does not know, and an attribute it does not.
save(helper.make_graph(
    [helper.make_node("Relu", ["X"], ["Y"], name="relu"),
     helper.make_node("Unique", ["Y"], ["Z"], name="uniq")],
    "unsupported", [vi("X", [2])], [vi("Z", [2])]), "unsupported-op.onnx")

# Truncated: the first half of a valid model.
with open("rosette.onnx", "rb") as f:
    data = f.read()
with open("truncated.onnx", "wb") as f:
    f.write(data[: len(data) // 2])

# A shape subgraph as exporters write attention's head split: the leading
# dims of a MatMul's result, read with Shape and Slice, concatenated with
# (2, 4) as Reshape's shape; and x.view(x.size(0), -1).
I64 = TensorProto.INT64


def ints(name, vals):
    return helper.make_tensor(name, I64, [len(vals)], vals)


save(helper.make_graph(
    [helper.make_node("MatMul", ["x", "w"], ["p"], name="proj"),
     helper.make_node("Shape", ["p"], ["s"], name="shape"),
     helper.make_node("Slice", ["s", "zero", "two"], ["lead"], name="lead"),
     helper.make_node("Concat", ["lead", "heads"], ["s4"], axis=0, name="cat"),
     helper.make_node("Reshape", ["p", "s4"], ["p4"], name="split"),
     helper.make_node("Transpose", ["p4"], ["t"], perm=[0, 2, 1, 3], name="swap"),
     helper.make_node("Shape", ["x"], ["sx"], name="shape_x"),
     helper.make_node("Gather", ["sx", "zero"], ["b"], axis=0, name="batch"),
     helper.make_node("Concat", ["b", "minus1"], ["flat"], axis=0, name="cat2"),
     helper.make_node("Reshape", ["x", "flat"], ["f"], name="view")],
    "shape_subgraph", [vi("x", ["batch", "seq", 8])],
    [vi("t", ["batch", 2, "seq", 4]), vi("f", ["batch", None])],
    initializer=[helper.make_tensor("w", F, [8, 8], [0.0] * 64),
                 ints("zero", [0]), ints("two", [2]), ints("heads", [2, 4]),
                 ints("minus1", [-1])]), "shape-subgraph.onnx")

# Per-channel affine ops after convolutions (fold-batchnorm.mlir), on x
# (1, 1, 2, 2): 'conv1' (2 channels, 1x1, bias) then 'bn1' folds (scale /
# sqrt(var + 1) = [1, 3]: W' = [1, 6], B' = (B - mean) * s + bias = [1, -2]);
# 'conv3' then a Mul and an Add of [C, 1, 1] constants folds (W' = [3, 10],
# B' = [4, 6]); 'conv2''s result is read by 'bn2' and 'relu2': nothing folds.
def f32(name, dims, vals):
    return helper.make_tensor(name, F, dims, vals)


save(helper.make_graph(
    [helper.make_node("Conv", ["x", "w", "b"], ["c1"], name="conv1"),
     helper.make_node("BatchNormalization", ["c1", "scale", "bias", "mean", "var"], ["y1"],
                      epsilon=1.0, name="bn1"),
     helper.make_node("Conv", ["x", "w"], ["c2"], name="conv2"),
     helper.make_node("BatchNormalization", ["c2", "scale", "bias", "mean", "var"], ["y2"],
                      epsilon=1.0, name="bn2"),
     helper.make_node("Relu", ["c2"], ["z2"], name="relu2"),
     helper.make_node("Conv", ["x", "w"], ["c3"], name="conv3"),
     helper.make_node("Mul", ["c3", "k"], ["m3"], name="mul3"),
     helper.make_node("Add", ["k1", "m3"], ["y3"], name="add3")],
    "fold_batchnorm", [vi("x", [1, 1, 2, 2])],
    [vi("y1", [1, 2, 2, 2]), vi("y2", [1, 2, 2, 2]), vi("z2", [1, 2, 2, 2]),
     vi("y3", [1, 2, 2, 2])],
    initializer=[f32("w", [2, 1, 1, 1], [1.0, 2.0]), f32("b", [2], [0.5, -1.0]),
                 f32("scale", [2], [2.0, 3.0]), f32("bias", [2], [1.0, 1.0]),
                 f32("mean", [2], [0.5, 0.0]), f32("var", [2], [3.0, 0.0]),
                 f32("k", [2, 1, 1], [3.0, 5.0]), f32("k1", [2, 1, 1], [4.0, 6.0])]),
    "fold-batchnorm.onnx")

# Identity and inference-mode Dropout inside the graph (identity-dropout.mlir),
# on x (2, 3): 'relu' -> 'drop' (Dropout, its mask named but read by no
# node) -> 'ident' (Identity) -> 'neg'; the graph output 'out' is an
# Identity of 'neg''s result (a graph output keeps its copy).
save(helper.make_graph(
    [helper.make_node("Relu", ["x"], ["r"], name="relu"),
     helper.make_node("Dropout", ["r"], ["d", "mask"], name="drop"),
     helper.make_node("Identity", ["d"], ["i"], name="ident"),
     helper.make_node("Neg", ["i"], ["n"], name="neg"),
     helper.make_node("Identity", ["n"], ["out"], name="out")],
    "identity_dropout", [vi("x", [2, 3])], [vi("out", [2, 3])],
    value_info=[vi("d", [2, 3])]), "identity-dropout.onnx")
# Its input for ocannl-run.
numpy.save("identity-dropout-x.npy", numpy.array([[1, -2, 3], [-4, 5, -6]], dtype=numpy.float32))

# GlobalAveragePool (global-average-pool.mlir) on x (2, 3, 4, 5) = 0..119.
save(helper.make_graph(
    [helper.make_node("GlobalAveragePool", ["x"], ["y"], name="gap")],
    "global_average_pool", [vi("x", [2, 3, 4, 5])], [vi("y", [2, 3, 1, 1])]),
    "global-average-pool.onnx")
numpy.save("global-average-pool-x.npy", numpy.arange(120, dtype=numpy.float32).reshape(2, 3, 4, 5))
